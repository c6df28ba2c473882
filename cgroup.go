package sdbus

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Infinity is the value systemd reads as "no limit" (2^64-1) for memory
// limits, TasksMax and CPUQuotaPerSecUSec. Pass it to the Prop* builders
// to lift a limit.
const Infinity uint64 = math.MaxUint64

// PropMemoryMax sets the hard memory limit in bytes (memory.max), or
// Infinity (systemd 231 and later).
func PropMemoryMax(bytes uint64) Property { return prop("MemoryMax", bytes) }

// PropMemoryHigh sets the memory throttling limit in bytes (memory.high),
// or Infinity (systemd 231 and later).
func PropMemoryHigh(bytes uint64) Property { return prop("MemoryHigh", bytes) }

// PropMemoryLow sets the best-effort memory protection in bytes
// (memory.low).
func PropMemoryLow(bytes uint64) Property { return prop("MemoryLow", bytes) }

// PropMemoryMin sets the hard memory protection in bytes (memory.min;
// systemd 240 and later).
func PropMemoryMin(bytes uint64) Property { return prop("MemoryMin", bytes) }

// PropMemorySwapMax sets the swap limit in bytes (memory.swap.max), or
// Infinity (systemd 232 and later).
func PropMemorySwapMax(bytes uint64) Property { return prop("MemorySwapMax", bytes) }

// PropTasksMax limits the number of tasks (pids.max): at least 1, or
// Infinity. systemd refuses 0; runc maps a limit of 0 to 1.
func PropTasksMax(n uint64) Property {
	if n == 0 {
		return badProp("TasksMax", "must be at least 1 (or Infinity)")
	}
	return prop("TasksMax", n)
}

// CPUWeightIdle is the CPUWeight that puts a unit into the idle scheduling
// class (cpu.idle; systemd 252 and later).
const CPUWeightIdle uint64 = 0

// PropCPUWeight sets the CPU weight (cpu.weight): 1 to 10000 (100 is the
// default), CPUWeightIdle (systemd 252 and later), or Infinity to go back
// to the default.
func PropCPUWeight(w uint64) Property {
	if w > 10000 && w != Infinity {
		return badProp("CPUWeight", "%d out of range 1-10000", w)
	}
	p := prop("CPUWeight", w)
	if w == CPUWeightIdle {
		p.minVersion = 252
	}
	return p
}

// cpuQuotaGranularity is the resolution at which systemd keeps a CPU quota
// (whole percent of one CPU: 10 ms per second), since it writes the value
// as CPUQuota=N% into the unit's drop-in.
const cpuQuotaGranularity = 10000

// CPUQuotaPerSec converts a CFS quota and period in microseconds (the
// cpu.max pair, or an OCI runtime spec's cpu quota and period) into the
// CPUQuotaPerSecUSec value to send: quota×1,000,000/period rounded up to a
// multiple of 10,000 µs. systemd keeps the quota as whole percent of a
// CPU, so this is the value it applies, now and after a daemon-reload.
// A quota of 0 or a period of 0 is an error; runc and containerd round the
// same way.
func CPUQuotaPerSec(quotaUSec, periodUSec uint64) (uint64, error) {
	if quotaUSec == 0 || periodUSec == 0 {
		return 0, invalidArg("CPUQuotaPerSec", "", "quota %d and period %d must both be positive", quotaUSec, periodUSec)
	}
	if quotaUSec > math.MaxUint64/1000000 {
		return 0, invalidArg("CPUQuotaPerSec", "", "quota %d too large", quotaUSec)
	}
	perSec := (quotaUSec*1000000 + periodUSec - 1) / periodUSec
	if r := perSec % cpuQuotaGranularity; r != 0 {
		perSec += cpuQuotaGranularity - r
	}
	return perSec, nil
}

// PropCPUQuota sets the CPU quota from a CFS quota and period (see
// CPUQuotaPerSec) and returns the CPUQuotaPerSecUSec value systemd will
// apply alongside the property.
func PropCPUQuota(quotaUSec, periodUSec uint64) (Property, uint64) {
	perSec, err := CPUQuotaPerSec(quotaUSec, periodUSec)
	if err != nil {
		return badProp("CPUQuotaPerSecUSec", "%s", errMessage(err)), 0
	}
	return prop("CPUQuotaPerSecUSec", perSec), perSec
}

// PropCPUQuotaPerSec sets CPUQuotaPerSecUSec directly: microseconds of CPU
// time per second of wall time (200% of a CPU is 2,000,000), or Infinity.
// A value that is not a multiple of 10,000 µs is rounded up, as systemd
// would truncate it to whole percent on the next reload.
func PropCPUQuotaPerSec(usec uint64) Property {
	switch {
	case usec == 0:
		return badProp("CPUQuotaPerSecUSec", "must be positive (or Infinity)")
	case usec == Infinity:
		return prop("CPUQuotaPerSecUSec", usec)
	}
	if r := usec % cpuQuotaGranularity; r != 0 {
		usec += cpuQuotaGranularity - r
	}
	return prop("CPUQuotaPerSecUSec", usec)
}

// PropCPUQuotaPeriod sets the CFS period (cpu.max's second field) in
// microseconds, 1,000 to 1,000,000 as the kernel allows, or Infinity for
// the default (systemd 242 and later).
func PropCPUQuotaPeriod(usec uint64) Property {
	if usec != Infinity && (usec < 1000 || usec > 1000000) {
		return badProp("CPUQuotaPeriodUSec", "%d µs out of range 1000-1000000", usec)
	}
	return prop("CPUQuotaPeriodUSec", usec)
}

// CPUSet is a set of CPU or NUMA node numbers, as in cpuset.cpus.
type CPUSet []uint

// ParseCPUSet parses a list such as "0-3,8,10-11" (the cgroup cpuset and
// taskset syntax). The empty string is the empty set.
func ParseCPUSet(s string) (CPUSet, error) {
	var set CPUSet
	seen := map[uint]bool{}
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			if strings.TrimSpace(s) == "" {
				break
			}
			return nil, invalidArg("ParseCPUSet", "", "empty element in %q", s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.ParseUint(lo, 10, 16)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseUint(hi, 10, 16)
		}
		if err1 != nil || err2 != nil || b < a {
			return nil, invalidArg("ParseCPUSet", "", "bad element %q in %q", part, s)
		}
		for n := a; n <= b; n++ {
			if !seen[uint(n)] {
				seen[uint(n)] = true
				set = append(set, uint(n))
			}
		}
	}
	sort.Slice(set, func(i, j int) bool { return set[i] < set[j] })
	return set, nil
}

// cpuSetFromBitmap decodes systemd's bitmap form: byte 0 holds CPUs 0-7,
// least significant bit first.
func cpuSetFromBitmap(b []byte) CPUSet {
	var set CPUSet
	for i, x := range b {
		for bit := uint(0); bit < 8; bit++ {
			if x&(1<<bit) != 0 {
				set = append(set, uint(i)*8+bit)
			}
		}
	}
	return set
}

// Bitmap returns the set in systemd's "ay" form.
func (s CPUSet) Bitmap() []byte {
	var b []byte
	for _, n := range s {
		for int(n/8) >= len(b) {
			b = append(b, 0)
		}
		b[n/8] |= 1 << (n % 8)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// String returns the set in range syntax, "0-3,8".
func (s CPUSet) String() string {
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.FormatUint(uint64(s[i]), 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", s[i], s[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func cpuSetProp(name, list string) Property {
	set, err := ParseCPUSet(list)
	if err != nil {
		return badProp(name, "%s", errMessage(err))
	}
	return prop(name, set.Bitmap())
}

// PropAllowedCPUs restricts the unit to the CPUs in list ("0-3,8"; systemd
// 244 and later).
func PropAllowedCPUs(list string) Property { return cpuSetProp("AllowedCPUs", list) }

// PropAllowedMemoryNodes restricts the unit to the NUMA nodes in list
// (systemd 244 and later).
func PropAllowedMemoryNodes(list string) Property {
	return cpuSetProp("AllowedMemoryNodes", list)
}

// PropIOWeight sets the default IO weight (io.weight), 1 to 10000.
func PropIOWeight(w uint64) Property {
	if (w < 1 || w > 10000) && w != Infinity {
		return badProp("IOWeight", "%d out of range 1-10000", w)
	}
	return prop("IOWeight", w)
}

// IODeviceLimit is a per-device IO setting: a block device node (or a
// path on the file system of the device) and a value.
type IODeviceLimit struct {
	Device string
	Value  uint64
}

func ioProp(name string, limits []IODeviceLimit, check func(uint64) error) Property {
	if len(limits) == 0 {
		return badProp(name, "no devices")
	}
	for _, l := range limits {
		if !path.IsAbs(l.Device) {
			return badProp(name, "device %q is not an absolute path", l.Device)
		}
		if err := check(l.Value); err != nil {
			return badProp(name, "%s: %v", l.Device, err)
		}
	}
	return prop(name, limits)
}

func anyValue(uint64) error { return nil }

func weightValue(w uint64) error {
	if w < 1 || w > 10000 {
		return fmt.Errorf("weight %d out of range 1-10000", w)
	}
	return nil
}

// PropIODeviceWeight sets per-device IO weights, 1 to 10000 (the a(st)
// signature systemd expects; passing "8:0 100" as a string is refused).
func PropIODeviceWeight(limits ...IODeviceLimit) Property {
	return ioProp("IODeviceWeight", limits, weightValue)
}

// PropIOReadBandwidthMax limits reads per device in bytes per second.
func PropIOReadBandwidthMax(limits ...IODeviceLimit) Property {
	return ioProp("IOReadBandwidthMax", limits, anyValue)
}

// PropIOWriteBandwidthMax limits writes per device in bytes per second.
func PropIOWriteBandwidthMax(limits ...IODeviceLimit) Property {
	return ioProp("IOWriteBandwidthMax", limits, anyValue)
}

// PropIOReadIOPSMax limits read operations per device per second.
func PropIOReadIOPSMax(limits ...IODeviceLimit) Property {
	return ioProp("IOReadIOPSMax", limits, anyValue)
}

// PropIOWriteIOPSMax limits write operations per device per second.
func PropIOWriteIOPSMax(limits ...IODeviceLimit) Property {
	return ioProp("IOWriteIOPSMax", limits, anyValue)
}

// DevicePolicy is a unit's device access policy.
type DevicePolicy string

// Device policies.
const (
	DevicePolicyAuto   DevicePolicy = "auto"   // no restriction unless DeviceAllow is set
	DevicePolicyClosed DevicePolicy = "closed" // DeviceAllow plus the standard pseudo devices
	DevicePolicyStrict DevicePolicy = "strict" // only DeviceAllow
)

// PropDevicePolicy sets DevicePolicy.
func PropDevicePolicy(p DevicePolicy) Property {
	switch p {
	case DevicePolicyAuto, DevicePolicyClosed, DevicePolicyStrict:
		return prop("DevicePolicy", string(p))
	}
	return badProp("DevicePolicy", "unknown device policy %q", string(p))
}

// DeviceRule allows access to a device: a device node ("/dev/null"), a
// class ("char-pts", "block-loop"; the group syntax needs systemd 240
// for names that are not in /proc/devices), and the access "r", "w", "m"
// or a combination.
type DeviceRule struct {
	Specifier string
	Access    string
}

// PropDeviceAllow adds device access rules (a(ss)). SetUnitProperties
// appends them to the unit's existing rules.
func PropDeviceAllow(rules ...DeviceRule) Property {
	if len(rules) == 0 {
		return badProp("DeviceAllow", "no rules")
	}
	for _, r := range rules {
		switch {
		case strings.HasPrefix(r.Specifier, "/dev/"), strings.HasPrefix(r.Specifier, "/run/systemd/inaccessible/"),
			strings.HasPrefix(r.Specifier, "char-") && len(r.Specifier) > 5,
			strings.HasPrefix(r.Specifier, "block-") && len(r.Specifier) > 6:
		default:
			return badProp("DeviceAllow", "specifier %q is neither a /dev path nor char-NAME or block-NAME", r.Specifier)
		}
		if r.Access == "" || strings.Trim(r.Access, "rwm") != "" {
			return badProp("DeviceAllow", "access %q for %s is not a combination of r, w and m", r.Access, r.Specifier)
		}
	}
	return prop("DeviceAllow", rules)
}

// PropDelegate turns on cgroup delegation for a scope or service: the
// unit's processes may manage their own sub-cgroups. systemd refuses it on
// slices since 237.
func PropDelegate(b bool) Property { return prop("Delegate", b) }

// cgroupControllers lists the controllers DelegateControllers takes.
func knownController(c string) bool {
	switch c {
	case "cpu", "cpuacct", "cpuset", "io", "blkio", "memory", "devices", "pids", "bpf-firewall", "bpf-devices",
		"bpf-foreign", "bpf-socket-bind", "bpf-restrict-network-interfaces":
		return true
	}
	return false
}

// PropDelegateControllers delegates only the given controllers ("cpu",
// "memory", "pids", ...; systemd 236 and later). It implies Delegate.
func PropDelegateControllers(controllers ...string) Property {
	if len(controllers) == 0 {
		return badProp("DelegateControllers", "no controllers")
	}
	for _, c := range controllers {
		if !knownController(c) {
			return badProp("DelegateControllers", "unknown controller %q", c)
		}
	}
	return prop("DelegateControllers", controllers)
}

// PropDelegateSubgroup makes systemd put the unit's processes into the
// named sub-cgroup of a delegated unit, so that its own cgroup stays free
// of processes (systemd 254 and later).
func PropDelegateSubgroup(name string) Property {
	switch {
	case name == "", name == ".", name == "..", strings.ContainsAny(name, "/\n"):
		return badProp("DelegateSubgroup", "%q is not a valid cgroup name", name)
	case strings.HasPrefix(name, "cgroup."):
		return badProp("DelegateSubgroup", "%q clashes with cgroup attributes", name)
	}
	return prop("DelegateSubgroup", name)
}

// PropCPUAccounting turns CPU accounting on or off.
func PropCPUAccounting(b bool) Property { return prop("CPUAccounting", b) }

// PropMemoryAccounting turns memory accounting on or off.
func PropMemoryAccounting(b bool) Property { return prop("MemoryAccounting", b) }

// PropIOAccounting turns IO accounting on or off (cgroup v2).
func PropIOAccounting(b bool) Property { return prop("IOAccounting", b) }

// PropBlockIOAccounting turns block IO accounting on or off (cgroup v1).
func PropBlockIOAccounting(b bool) Property { return prop("BlockIOAccounting", b) }

// PropTasksAccounting turns task accounting on or off (systemd 227 and
// later).
func PropTasksAccounting(b bool) Property { return prop("TasksAccounting", b) }
