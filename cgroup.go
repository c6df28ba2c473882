package sdbus

import (
	"fmt"
	"math"
	"math/bits"
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
func PropTasksMax(n uint64) Property { return prop("TasksMax", n) }

// CPUWeightIdle is the CPUWeight that puts a unit into the idle scheduling
// class (cpu.idle; systemd 252 and later).
const CPUWeightIdle uint64 = 0

// PropCPUWeight sets the CPU weight (cpu.weight): 1 to 10000 (100 is the
// default), CPUWeightIdle (systemd 252 and later), or Infinity to go back
// to the default.
func PropCPUWeight(w uint64) Property { return prop("CPUWeight", w) }

// cpuQuotaGranularity is the resolution at which systemd keeps a CPU quota
// (whole percent of one CPU: 10 ms per second), since it writes the value
// as CPUQuota=N% into the unit's drop-in.
const cpuQuotaGranularity = 10000

// DefaultCPUQuotaPeriod is the CFS period the kernel and systemd use when
// none is set: 100 ms.
const DefaultCPUQuotaPeriod uint64 = 100000

// CPUQuotaPerSec converts a CFS quota and period in microseconds (the
// cpu.max pair, or an OCI runtime spec's cpu quota and period) into the
// CPUQuotaPerSecUSec value to send, exactly as runc's systemd driver does:
//
//   - a quota of 0 means no quota (the OCI spec's "unset", runc's -1): the
//     result is Infinity;
//   - a period of 0 means DefaultCPUQuotaPeriod;
//   - otherwise quota×1,000,000/period, rounded down to a whole
//     microsecond, then up to a multiple of 10,000 µs, since systemd keeps
//     the quota as whole percent of a CPU. Quota 10000 with period 333333
//     gives 30000 (30.0003 µs/s rounded down is a whole 3%).
//
// PropCPUQuota sends this value; call CPUQuotaPerSec to know it (to log
// it, or to compare it with what systemd reads back).
//
// It differs from runc in two corner cases only, where runc sends a value
// systemd refuses or that is not what was asked: a quota so small that
// the division gives 0 (runc sends 0, which systemd refuses) gives 10000
// here, and a quota whose product overflows 64 bits (runc wraps around) is
// an error here, as is a result that would reach Infinity. The error
// names the quota and period, and says when the quota looks like a
// negative number converted to uint64.
//
// To write the same limit to cgroupfs, as runc does, use the quota
// result×period/1,000,000.
func CPUQuotaPerSec(quotaUSec, periodUSec uint64) (uint64, error) {
	perSec, err := cpuQuotaPerSec(quotaUSec, periodUSec)
	if err != nil {
		return 0, invalidArg("CPUQuotaPerSec", "", "%v", err)
	}
	return perSec, nil
}

func cpuQuotaPerSec(quotaUSec, periodUSec uint64) (uint64, error) {
	if quotaUSec == 0 {
		return Infinity, nil
	}
	if periodUSec == 0 {
		periodUSec = DefaultCPUQuotaPeriod
	}
	hi, lo := bits.Mul64(quotaUSec, 1000000)
	if hi >= periodUSec {
		return 0, quotaTooLarge(quotaUSec, periodUSec)
	}
	perSec, _ := bits.Div64(hi, lo, periodUSec)
	if r := perSec % cpuQuotaGranularity; r != 0 || perSec == 0 {
		if perSec > Infinity-cpuQuotaGranularity {
			return 0, quotaTooLarge(quotaUSec, periodUSec)
		}
		perSec += cpuQuotaGranularity - r
	}
	if perSec == Infinity {
		return 0, quotaTooLarge(quotaUSec, periodUSec)
	}
	return perSec, nil
}

// quotaTooLarge says what is wrong with a quota whose µs per second do not
// fit in 64 bits: usually an overflow, or a negative number (runc's -1
// for "no quota" is 0 here) converted to uint64, in the caller's
// arithmetic.
func quotaTooLarge(quotaUSec, periodUSec uint64) error {
	if int64(quotaUSec) < 0 {
		return fmt.Errorf("quota %d µs per %d µs period is negative as int64 (%d): an overflow or a negative number converted to uint64? (0 means no quota)",
			quotaUSec, periodUSec, int64(quotaUSec))
	}
	return fmt.Errorf("quota %d µs per %d µs period is more than 2^64 µs of CPU time per second: an overflow in the caller's arithmetic?",
		quotaUSec, periodUSec)
}

// cpuQuotaInput is what PropCPUQuota keeps as the value of a quota and
// period it cannot convert: a (tt) where systemd expects t, refused when
// used with the reason (see typeChecks).
type cpuQuotaInput struct {
	Quota, Period uint64
}

// PropCPUQuota sets the CPU quota from a CFS quota and period in
// microseconds, as cpu.max and OCI runtime specs give them: it sends
// CPUQuotaPerSecUSec with the value CPUQuotaPerSec returns (runc's
// rounding; a quota of 0 lifts the limit). It does not set the period
// itself: add PropCPUQuotaPeriod for that. A quota and period
// CPUQuotaPerSec refuses are kept, and refused when used, with its error.
func PropCPUQuota(quotaUSec, periodUSec uint64) Property {
	perSec, err := cpuQuotaPerSec(quotaUSec, periodUSec)
	if err != nil {
		return prop("CPUQuotaPerSecUSec", cpuQuotaInput{quotaUSec, periodUSec}) // refused when used
	}
	return prop("CPUQuotaPerSecUSec", perSec)
}

// PropCPUQuotaPerSec sets CPUQuotaPerSecUSec directly: microseconds of CPU
// time per second of wall time (200% of a CPU is 2,000,000), or Infinity
// for no quota. A value that is not a multiple of 10,000 µs is rounded up,
// as runc does, since systemd would truncate it to whole percent on the
// next reload. systemd refuses 0; to lift a quota pass Infinity.
func PropCPUQuotaPerSec(usec uint64) Property {
	if r := usec % cpuQuotaGranularity; r != 0 && usec != Infinity && usec < Infinity-cpuQuotaGranularity {
		usec += cpuQuotaGranularity - r
	}
	return prop("CPUQuotaPerSecUSec", usec)
}

// PropCPUQuotaPeriod sets the CFS period (cpu.max's second field) in
// microseconds, or Infinity for the default (systemd 242 and later). The
// kernel takes 1,000 to 1,000,000; systemd takes any value and clamps it
// into that range when it writes cpu.max (logging a warning), so sdbus
// does not refuse any either.
func PropCPUQuotaPeriod(usec uint64) Property { return prop("CPUQuotaPeriodUSec", usec) }

// CPUSet is a set of CPU or NUMA node numbers, as in cpuset.cpus, in
// increasing order without duplicates.
type CPUSet []uint

// MaxCPU is the highest CPU or NUMA node number systemd takes in
// AllowedCPUs and AllowedMemoryNodes (its cpu_set_add refuses 8192 and
// above).
const MaxCPU = 8191

// NewCPUSet returns the set of the given CPU or node numbers, sorted and
// without duplicates.
func NewCPUSet(cpus ...uint) CPUSet {
	set := make(CPUSet, 0, len(cpus))
	set = append(set, cpus...)
	sort.Slice(set, func(i, j int) bool { return set[i] < set[j] })
	out := set[:0]
	for i, n := range set {
		if i == 0 || n != set[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// ParseCPUSet parses a list such as "0-3,8,10-11" (the cgroup cpuset and
// taskset syntax) in exactly the language runc's RangeToBits accepts, so
// an OCI spec's cpus and mems strings carry over: comma-separated
// elements, each a decimal number or a range "N-M" with N <= M, with white
// space allowed around an element (not inside it) and empty elements
// ignored, so " , 1 , 3 ,  5-7,\t" and ",0,1," are valid. At least one
// CPU must be named: "" and "," are refused, as runc refuses them. Numbers
// take up to 32 bits, as in runc; in addition, numbers above MaxCPU are
// refused here, because systemd refuses them (runc would build a bitmap of
// up to 512 MiB for systemd to refuse).
func ParseCPUSet(s string) (CPUSet, error) {
	var set CPUSet
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 32)
		if err != nil {
			return nil, invalidArg("ParseCPUSet", "", "bad element %q in %q", part, s)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 32); err != nil {
				return nil, invalidArg("ParseCPUSet", "", "bad element %q in %q", part, s)
			}
			if a > b {
				return nil, invalidArg("ParseCPUSet", "", "invalid range %q in %q", part, s)
			}
		}
		if b > MaxCPU {
			return nil, invalidArg("ParseCPUSet", "", "%d in %q is above %d, the highest number systemd takes", b, s, MaxCPU)
		}
		for n := a; n <= b; n++ {
			set = append(set, uint(n))
		}
	}
	if len(set) == 0 {
		return nil, invalidArg("ParseCPUSet", "", "%q names no CPU", s)
	}
	return NewCPUSet(set...), nil
}

// CPUSetFromBitmap decodes systemd's bitmap form (the "ay" of AllowedCPUs,
// EffectiveCPUs, ...): byte 0 holds CPUs 0-7, least significant bit first.
func CPUSetFromBitmap(b []byte) CPUSet {
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

func cpuSetFromBitmap(b []byte) CPUSet { return CPUSetFromBitmap(b) }

// Bitmap returns the set in systemd's "ay" form.
func (s CPUSet) Bitmap() []byte {
	b := []byte{}
	for _, n := range s {
		for int(n/8) >= len(b) {
			b = append(b, 0)
		}
		b[n/8] |= 1 << (n % 8)
	}
	return b
}

// String returns the set in range syntax, "0-3,8".
func (s CPUSet) String() string {
	s = NewCPUSet(s...)
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
		return prop(name, list) // a string where "ay" belongs: refused when used, with the parse error
	}
	return prop(name, set.Bitmap())
}

// PropAllowedCPUs restricts the unit to the CPUs in list, in the syntax
// ParseCPUSet takes ("0-3,8"; systemd 244 and later). It refuses "", as
// runc does: to lift the restriction use PropAllowedCPUSet(nil).
func PropAllowedCPUs(list string) Property { return cpuSetProp("AllowedCPUs", list) }

// PropAllowedMemoryNodes restricts the unit to the NUMA nodes in list
// (systemd 244 and later), in the syntax ParseCPUSet takes.
func PropAllowedMemoryNodes(list string) Property {
	return cpuSetProp("AllowedMemoryNodes", list)
}

// PropAllowedCPUSet restricts the unit to the CPUs in set (build it with
// NewCPUSet or CPUSetFromBitmap; systemd 244 and later). An empty set
// lifts the restriction.
func PropAllowedCPUSet(set CPUSet) Property { return prop("AllowedCPUs", set.Bitmap()) }

// PropAllowedMemoryNodeSet restricts the unit to the NUMA nodes in set
// (systemd 244 and later). An empty set lifts the restriction.
func PropAllowedMemoryNodeSet(set CPUSet) Property {
	return prop("AllowedMemoryNodes", set.Bitmap())
}

// PropIOWeight sets the default IO weight (io.weight), 1 to 10000.
func PropIOWeight(w uint64) Property { return prop("IOWeight", w) }

// IODeviceLimit is a per-device IO setting: a block device node (or a
// path on the file system of the device) and a value. Setting a list
// changes the value of a device the unit lists already and adds the
// others, after the unit's (systemd 252 and later; 247 lists them first);
// an empty list empties it (for a limit: lifts it on every device). The
// four limits share one list of devices: a limit of infinity hides its
// device from that limit's property.
type IODeviceLimit struct {
	Device string
	Value  uint64
}

func ioProp(name string, limits []IODeviceLimit) Property {
	if limits == nil {
		limits = []IODeviceLimit{}
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
	return ioProp("IODeviceWeight", limits)
}

// PropIOReadBandwidthMax limits reads per device in bytes per second.
func PropIOReadBandwidthMax(limits ...IODeviceLimit) Property {
	return ioProp("IOReadBandwidthMax", limits)
}

// PropIOWriteBandwidthMax limits writes per device in bytes per second.
func PropIOWriteBandwidthMax(limits ...IODeviceLimit) Property {
	return ioProp("IOWriteBandwidthMax", limits)
}

// PropIOReadIOPSMax limits read operations per device per second.
func PropIOReadIOPSMax(limits ...IODeviceLimit) Property {
	return ioProp("IOReadIOPSMax", limits)
}

// PropIOWriteIOPSMax limits write operations per device per second.
func PropIOWriteIOPSMax(limits ...IODeviceLimit) Property {
	return ioProp("IOWriteIOPSMax", limits)
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
	return prop("DevicePolicy", string(p))
}

// DeviceRule allows access to a device: a device node ("/dev/null"), a
// class ("char-pts", "block-loop"; the group syntax needs systemd 240
// for names that are not in /proc/devices), and the access "r", "w", "m"
// or a combination.
type DeviceRule struct {
	Specifier string
	Access    string
}

// PropDeviceAllow sets device access rules (a(ss)). Rules are added to the
// unit's existing ones, the newest first when read back; a rule for a
// device the unit has one for replaces its access in place (an empty
// access is "rwm"). With no rules it clears the list (systemd's
// DeviceAllow=), as runc sends it before adding the rules it wants;
// DevicePolicy is unchanged. After a daemon-reload the list reads in the
// reverse order (systemd writes it out whole and reads each line back
// first).
func PropDeviceAllow(rules ...DeviceRule) Property {
	if rules == nil {
		rules = []DeviceRule{}
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
	if controllers == nil {
		controllers = []string{}
	}
	return prop("DelegateControllers", controllers)
}

// PropDelegateSubgroup makes systemd put the unit's processes into the
// named sub-cgroup of a delegated unit, so that its own cgroup stays free
// of processes (systemd 254 and later).
func PropDelegateSubgroup(name string) Property { return prop("DelegateSubgroup", name) }

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
