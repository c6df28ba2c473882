package sdbus_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestPropertyBuilders(t *testing.T) {
	cpuQuota := sdbus.PropCPUQuota(12345, 100000)
	for _, tc := range []struct {
		name string
		p    sdbus.Property
		sig  string
		want any
	}{
		{"Description", sdbus.PropDescription("d"), "s", "d"},
		{"Slice", sdbus.PropSlice("a-b.slice"), "s", "a-b.slice"},
		{"PIDs", sdbus.PropPIDs(1, 2), "au", []uint32{1, 2}},
		{"CollectMode", sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed), "s", "inactive-or-failed"},
		{"Type", sdbus.PropType(sdbus.ServiceOneshot), "s", "oneshot"},
		{"Wants", sdbus.PropWants("a.slice"), "as", []string{"a.slice"}},
		{"After", sdbus.PropAfter("a.service", "b.service"), "as", []string{"a.service", "b.service"}},
		{"KillMode", sdbus.PropKillMode(sdbus.KillMixed), "s", "mixed"},
		{"KillSignal", sdbus.PropKillSignal(syscall.SIGPIPE), "i", int32(13)},
		{"OOMPolicy", sdbus.PropOOMPolicy(sdbus.OOMKill), "s", "kill"},
		{"MemoryMax", sdbus.PropMemoryMax(512 << 20), "t", uint64(512 << 20)},
		{"MemoryMax infinity", sdbus.PropMemoryMax(sdbus.Infinity), "t", sdbus.Infinity},
		{"MemoryHigh", sdbus.PropMemoryHigh(1), "t", uint64(1)},
		{"MemoryLow", sdbus.PropMemoryLow(2), "t", uint64(2)},
		{"MemoryMin", sdbus.PropMemoryMin(3), "t", uint64(3)},
		{"MemorySwapMax", sdbus.PropMemorySwapMax(0), "t", uint64(0)},
		{"TasksMax", sdbus.PropTasksMax(100), "t", uint64(100)},
		{"CPUWeight idle", sdbus.PropCPUWeight(sdbus.CPUWeightIdle), "t", uint64(0)},
		{"CPUQuota", cpuQuota, "t", uint64(130000)},
		{"CPUQuotaPerSec rounded up", sdbus.PropCPUQuotaPerSec(1500001), "t", uint64(1510000)},
		{"CPUQuotaPeriod", sdbus.PropCPUQuotaPeriod(50000), "t", uint64(50000)},
		{"AllowedCPUs", sdbus.PropAllowedCPUs("0-2,9"), "ay", []byte{0x07, 0x02}},
		{"AllowedMemoryNodes", sdbus.PropAllowedMemoryNodes("1"), "ay", []byte{0x02}},
		{"IOWeight", sdbus.PropIOWeight(500), "t", uint64(500)},
		{"IODeviceWeight", sdbus.PropIODeviceWeight(sdbus.IODeviceLimit{Device: "/dev/sda", Value: 200}), "a(st)",
			[]sdbus.IODeviceLimit{{Device: "/dev/sda", Value: 200}}},
		{"IOReadBandwidthMax", sdbus.PropIOReadBandwidthMax(sdbus.IODeviceLimit{Device: "/dev/sda", Value: 1 << 20}), "a(st)",
			[]sdbus.IODeviceLimit{{Device: "/dev/sda", Value: 1 << 20}}},
		{"DevicePolicy", sdbus.PropDevicePolicy(sdbus.DevicePolicyStrict), "s", "strict"},
		{"DeviceAllow", sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/null", Access: "rw"}, sdbus.DeviceRule{Specifier: "char-pts", Access: "rwm"}), "a(ss)",
			[]sdbus.DeviceRule{{Specifier: "/dev/null", Access: "rw"}, {Specifier: "char-pts", Access: "rwm"}}},
		{"Delegate", sdbus.PropDelegate(true), "b", true},
		{"DelegateControllers", sdbus.PropDelegateControllers("cpu", "memory"), "as", []string{"cpu", "memory"}},
		{"DelegateSubgroup", sdbus.PropDelegateSubgroup("container"), "s", "container"},
		{"TasksAccounting", sdbus.PropTasksAccounting(true), "b", true},
		{"Raw", sdbus.PropRaw("CPUShares", uint64(1024)), "t", uint64(1024)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.p.Err(); err != nil {
				t.Fatal(err)
			}
			if got := tc.p.Value.Signature().String(); got != tc.sig {
				t.Errorf("signature %s, want %s", got, tc.sig)
			}
			if diff := cmp.Diff(tc.want, tc.p.Value.Value()); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
}

// Builders refuse what systemd would refuse, before anything is sent.
func TestPropertyBuildersRefuse(t *testing.T) {
	quota := sdbus.PropCPUQuota(^uint64(0), 1)
	for name, p := range map[string]sdbus.Property{
		"Slice not a slice":         sdbus.PropSlice("a.service"),
		"Slice with --":             sdbus.PropSlice("a--b.slice"),
		"PIDs empty":                sdbus.PropPIDs(),
		"ExecStart empty argv":      sdbus.PropExecStart(nil, false),
		"CollectMode":               sdbus.PropCollectMode("sometimes"),
		"Type":                      sdbus.PropType("daemon"),
		"Wants bad name":            sdbus.PropWants("no-suffix"),
		"KillMode":                  sdbus.PropKillMode("all"),
		"KillSignal":                sdbus.PropKillSignal(0),
		"OOMPolicy":                 sdbus.PropOOMPolicy("panic"),
		"TasksMax 0":                sdbus.PropTasksMax(0),
		"CPUWeight":                 sdbus.PropCPUWeight(10001),
		"CPUQuota overflow":         quota,
		"CPUQuotaPerSec 0":          sdbus.PropCPUQuotaPerSec(0),
		"AllowedCPUs":               sdbus.PropAllowedCPUs("3-1"),
		"AllowedCPUs garbage":       sdbus.PropAllowedCPUs("a"),
		"AllowedCPUs empty":         sdbus.PropAllowedCPUs(""),
		"AllowedCPUs above MaxCPU":  sdbus.PropAllowedCPUs("8192"),
		"IOWeight":                  sdbus.PropIOWeight(0),
		"IODeviceWeight range":      sdbus.PropIODeviceWeight(sdbus.IODeviceLimit{Device: "/dev/sda", Value: 0}),
		"DevicePolicy":              sdbus.PropDevicePolicy("open"),
		"DeviceAllow access":        sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/null", Access: "x"}),
		"DeviceAllow specifier":     sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "null", Access: "r"}),
		"DelegateControllers":       sdbus.PropDelegateControllers("gpu"),
		"DelegateSubgroup slash":    sdbus.PropDelegateSubgroup("a/b"),
		"DelegateSubgroup reserved": sdbus.PropDelegateSubgroup("cgroup.procs"),
		"Raw nil":                   sdbus.PropRaw("X", nil),
		"Raw wrong type":            sdbus.PropRaw("MemoryMax", "1G"),
	} {
		t.Run(name, func(t *testing.T) {
			err := p.Err()
			if err == nil {
				// Signature mismatches are found when the property is used.
				err = sdbus.CheckProperties(p)
			}
			if err == nil {
				t.Fatalf("%s accepted: %+v", p.Name, p.Value)
			}
		})
	}
}

// Builders take every value systemd 247 to 262 take (measured by the
// conformance case PreSendChecks): sdbus is never stricter than systemd.
func TestPropertyBuildersTakeWhatSystemdTakes(t *testing.T) {
	for name, p := range map[string]sdbus.Property{
		"PIDs 0 (the caller)":             sdbus.PropPIDs(0),
		"ExecStart name in PATH":          sdbus.PropExecStart([]string{"true"}, false),
		"Wants empty":                     sdbus.PropWants(),
		"After empty":                     sdbus.PropAfter(),
		"CPUQuotaPeriod 500":              sdbus.PropCPUQuotaPeriod(500),
		"CPUQuotaPeriod 0":                sdbus.PropCPUQuotaPeriod(0),
		"CPUQuotaPeriod 2000000":          sdbus.PropCPUQuotaPeriod(2000000),
		"CPUQuotaPerSec 2^63":             sdbus.PropCPUQuotaPerSec(1 << 63),
		"IODeviceWeight relative":         sdbus.PropIODeviceWeight(sdbus.IODeviceLimit{Device: "sda", Value: 1}),
		"IOReadBandwidthMax none":         sdbus.PropIOReadBandwidthMax(),
		"IODeviceWeight none":             sdbus.PropIODeviceWeight(),
		"DeviceAllow empty access":        sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/null"}),
		"DeviceAllow char- alone":         sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "char-", Access: "r"}),
		"DelegateControllers none":        sdbus.PropDelegateControllers(),
		"DelegateSubgroup empty":          sdbus.PropDelegateSubgroup(""),
		"Type notify-reload":              sdbus.PropType(sdbus.ServiceNotifyReload),
		"PropRaw CPUQuotaPeriodUSec 500":  sdbus.PropRaw("CPUQuotaPeriodUSec", uint64(500)),
		"PropRaw ExecStart relative path": sdbus.PropExecStart([]string{"bin/true"}, false),
	} {
		t.Run(name, func(t *testing.T) {
			if err := sdbus.CheckProperties(p); err != nil {
				t.Errorf("%s refused: %v", p, err)
			}
		})
	}
}

// A refusal says what the caller did wrong, naming the value.
func TestPropertyRefusalTexts(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    sdbus.Property
		want []string
	}{
		{"quota negative as int64", sdbus.PropCPUQuota(uint64(1<<64-100000), 100000),
			[]string{"quota 18446744073709451616 µs", "negative as int64 (-100000)", "converted to uint64"}},
		{"quota overflows", sdbus.PropCPUQuota(1<<62, 1),
			[]string{"quota 4611686018427387904 µs per 1 µs", "overflow"}},
		{"per-second 0", sdbus.PropCPUQuotaPerSec(0), []string{"0 µs per second", "Infinity"}},
		{"empty argv", sdbus.PropExecStart(nil, false), []string{"empty argv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sdbus.CheckProperties(tc.p)
			if !errors.Is(err, sdbus.ErrInvalidArgs) {
				t.Fatalf("CheckProperties = %v, want ErrInvalidArgs", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestCPUQuotaPerSec(t *testing.T) {
	for _, tc := range []struct{ quota, period, want uint64 }{
		// runc's results (opencontainers/cgroups systemd addCPUQuota).
		{10000, 333333, 30000},
		{0, 100000, sdbus.Infinity},
		{0, 0, sdbus.Infinity},
		{1, 0, 10000},
		{50000, 0, 500000},
		{50000, 100000, 500000},
		{100000, 100000, 1000000},
		{200000, 100000, 2000000},
		{12345, 100000, 130000},
		{1, 100000, 10000},
		{33333, 100000, 340000},
		{25000, 50000, 500000},
		{1500, 1000, 1500000},
		{33334, 100000, 340000},
		{99999, 1000000, 100000},
		// runc sends 0 here, which systemd refuses.
		{1, 2000000, 10000},
	} {
		got, err := sdbus.CPUQuotaPerSec(tc.quota, tc.period)
		if err != nil || got != tc.want {
			t.Errorf("CPUQuotaPerSec(%d, %d) = %d, %v; want %d", tc.quota, tc.period, got, err, tc.want)
		}
	}
	for _, bad := range [][2]uint64{{^uint64(0), 1}, {^uint64(0)/1000000 + 1, 1}} {
		if _, err := sdbus.CPUQuotaPerSec(bad[0], bad[1]); !errors.Is(err, sdbus.ErrInvalidArgs) {
			t.Errorf("CPUQuotaPerSec(%d, %d) = %v, want ErrInvalidArgs", bad[0], bad[1], err)
		}
	}
}

func TestParseCPUSet(t *testing.T) {
	for _, tc := range []struct {
		in, canonical string
		bitmap        []byte
	}{
		{"0", "0", []byte{1}},
		// runc's RangeToBits accepts these.
		{",0,1,", "0-1", []byte{0x03}},
		{"    , 1   , 3  ,  5-7,\t", "1,3,5-7", []byte{0xea}},
		{"1,,2", "1-2", []byte{0x06}},
		{"007", "7", []byte{0x80}},
		{"8191", "8191", append(make([]byte, 1023), 0x80)},
		{"0-3", "0-3", []byte{0x0f}},
		{"8", "8", []byte{0, 1}},
		{"3,1,2, 7-9", "1-3,7-9", []byte{0x8e, 0x03}},
		{"0-1,1-2", "0-2", []byte{0x07}},
	} {
		set, err := sdbus.ParseCPUSet(tc.in)
		if err != nil {
			t.Fatalf("ParseCPUSet(%q): %v", tc.in, err)
		}
		if got := set.String(); got != tc.canonical {
			t.Errorf("ParseCPUSet(%q).String() = %q, want %q", tc.in, got, tc.canonical)
		}
		if diff := cmp.Diff(tc.bitmap, set.Bitmap()); diff != "" {
			t.Errorf("ParseCPUSet(%q).Bitmap() (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{"", ",", " , \t", "-1", "1-", "a", "5-3", "70000", "8192", "0-8192", "1 - 2", "+1", "1-2-3", "0x1", "4294967296"} {
		if _, err := sdbus.ParseCPUSet(bad); !errors.Is(err, sdbus.ErrInvalidArgs) {
			t.Errorf("ParseCPUSet(%q) = %v, want ErrInvalidArgs", bad, err)
		}
	}
}

func TestPropertiesRejectedBy(t *testing.T) {
	props := []sdbus.Property{
		sdbus.PropDescription("x"),
		sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed), // 236
		sdbus.PropCPUQuotaPeriod(100000),                     // 242
		sdbus.PropAllowedCPUs("0"),                           // 244
		sdbus.PropCPUWeight(sdbus.CPUWeightIdle),             // idle: 252
		sdbus.PropOOMPolicy(sdbus.OOMStop),                   // services 243, scopes 253
		sdbus.PropDelegateSubgroup("x"),                      // 254
		sdbus.PropRaw("User", "nobody"),                      // services, scopes 252
		sdbus.PropRaw("SomethingNew", true),                  // unknown: systemd decides
	}
	for _, tc := range []struct {
		version string
		unit    string
		want    []string
	}{
		{"235", "a.scope", []string{"CollectMode", "CPUQuotaPeriodUSec", "AllowedCPUs", "CPUWeight", "OOMPolicy", "DelegateSubgroup", "User"}},
		{"247", "a.scope", []string{"CPUWeight", "OOMPolicy", "DelegateSubgroup", "User"}},
		{"243", "a.service", []string{"AllowedCPUs", "CPUWeight", "DelegateSubgroup"}},
		{"252.38-1~deb12u1", "a.scope", []string{"OOMPolicy", "DelegateSubgroup"}},
		{"252", "a.service", []string{"DelegateSubgroup"}},
		{"256", "a.scope", nil},
		// Slices take no OOMPolicy and no delegation at all.
		{"256", "a.slice", []string{"OOMPolicy", "DelegateSubgroup", "User"}},
	} {
		v, err := sdbus.ParseVersion(tc.version)
		if err != nil {
			t.Fatal(err)
		}
		got := sdbus.PropertiesRejectedBy(v, tc.unit, props)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("PropertiesRejectedBy(%s, %s) (-want +got):\n%s", tc.version, tc.unit, diff)
		}
	}
}

// What the builders produce is what the manager stores, read back through
// the typed reads.
func TestPropertiesRoundTrip(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	quota := sdbus.PropCPUQuota(50000, 100000)
	j, err := c.StartTransientUnit(ctx, "rt.slice", sdbus.ModeReplace, []sdbus.Property{
		sdbus.PropMemoryMax(512 << 20), sdbus.PropMemoryHigh(400 << 20), sdbus.PropMemoryLow(1 << 20),
		sdbus.PropMemoryMin(1 << 10), sdbus.PropMemorySwapMax(0), sdbus.PropTasksMax(99), quota,
		sdbus.PropCPUQuotaPeriod(50000), sdbus.PropCPUWeight(200), sdbus.PropIOWeight(300),
		sdbus.PropAllowedCPUs("0"), sdbus.PropAllowedMemoryNodes("0"),
		sdbus.PropDevicePolicy(sdbus.DevicePolicyClosed),
		sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/null", Access: "rw"}),
		sdbus.PropIOReadBandwidthMax(sdbus.IODeviceLimit{Device: "/dev/sda", Value: 1 << 20}),
		sdbus.PropCPUAccounting(true), sdbus.PropMemoryAccounting(true), sdbus.PropTasksAccounting(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := c.SliceProperties(ctx, "rt.slice")
	if err != nil {
		t.Fatal(err)
	}
	lim := func(v uint64) sdbus.Limit { return sdbus.Limit{Value: v} }
	want := sdbus.CgroupProperties{
		Slice: "-.slice", ControlGroup: "/rt.slice",
		MemoryCurrent: sdbus.Limit{Unlimited: true}, TasksCurrent: sdbus.Limit{Unlimited: true},
		CPUUsageNSec: sdbus.Limit{Unlimited: true},
		MemoryMin:    lim(1 << 10), MemoryLow: lim(1 << 20), MemoryHigh: lim(400 << 20), MemoryMax: lim(512 << 20),
		MemorySwapMax: lim(0), TasksMax: lim(99), CPUQuotaPerSecUSec: lim(500000), CPUQuotaPeriodUSec: lim(50000),
		CPUWeight: lim(200), IOWeight: lim(300), AllowedCPUs: sdbus.CPUSet{0}, AllowedMemoryNodes: sdbus.CPUSet{0},
		DevicePolicy: sdbus.DevicePolicyClosed, DeviceAllow: []sdbus.DeviceRule{{Specifier: "/dev/null", Access: "rw"}},
		IOReadBandwidthMax: []sdbus.IODeviceLimit{{Device: "/dev/sda", Value: 1 << 20}},
		CPUAccounting:      true, MemoryAccounting: true, TasksAccounting: true,
	}
	ignore := cmp.FilterPath(func(p cmp.Path) bool {
		n := p.Last().String()
		return strings.HasPrefix(n, ".IO") && n != ".IOReadBandwidthMax" && n != ".IOWeight" || n == ".DelegateControllers"
	}, cmp.Ignore())
	if diff := cmp.Diff(want, got.CgroupProperties, ignore); diff != "" {
		t.Errorf("SliceProperties (-want +got):\n%s", diff)
	}
}

// A property literal with the wrong D-Bus type, the mistake gVisor's
// IODeviceWeight strings made, fails before anything is sent.
func TestPropertyLiteralTypeChecked(t *testing.T) {
	p := sdbus.Property{Name: "IODeviceWeight", Value: dbus.MakeVariant([]string{"8:0 100"})}
	if err := sdbus.CheckProperties(p); !errors.Is(err, sdbus.ErrInvalidArgs) || !strings.Contains(err.Error(), "a(st)") {
		t.Fatalf("CheckProperties = %v, want an error naming a(st)", err)
	}
}

// A unit-file setting name sent as a property (CPUQuota, as many
// go-systemd users write) is refused by the manager as unknown; the error
// names the D-Bus property and the builder.
func TestUnitFileNameHint(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"CPUQuota", func() error {
			_, err := c.StartTransientUnit(ctx, "hint.slice", sdbus.ModeReplace, append(sliceProps(), sdbus.PropRaw("CPUQuota", "50%")))
			return err
		}, "Cannot set property CPUQuota, or unknown property. CPUQuota is a unit-file setting; its D-Bus property is CPUQuotaPerSecUSec (PropCPUQuota or PropCPUQuotaPerSec)."},
		{"TimeoutStartSec", func() error {
			_, err := c.StartTransientUnit(ctx, "hint.service", sdbus.ModeReplace, append(oneshot("/bin/true"), sdbus.PropRaw("TimeoutStartSec", uint64(5))))
			return err
		}, "TimeoutStartSec is a unit-file setting; its D-Bus property is TimeoutStartUSec."},
		{"ConditionPathExists", func() error {
			_, err := c.StartTransientUnit(ctx, "hint2.service", sdbus.ModeReplace, append(oneshot("/bin/true"), sdbus.PropRaw("ConditionPathExists", "/x")))
			return err
		}, "ConditionPathExists is a unit-file setting; over D-Bus it is an entry (PathExists, ...) of the Conditions property."},
		{"SetUnitProperties CPUQuotaPeriodSec", func() error {
			return c.SetUnitProperties(ctx, "-.slice", true, sdbus.PropRaw("CPUQuotaPeriodSec", uint64(5)))
		}, "its D-Bus property is CPUQuotaPeriodUSec (PropCPUQuotaPeriod)."},
		{"unknown name, no hint", func() error {
			_, err := c.StartTransientUnit(ctx, "hint3.slice", sdbus.ModeReplace, append(sliceProps(), sdbus.PropRaw("NoSuchSetting", true)))
			return err
		}, "Cannot set property NoSuchSetting, or unknown property. (org.freedesktop.DBus.Error.PropertyReadOnly)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, sdbus.ErrNotSupported) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrNotSupported saying %q", err, tc.want)
			}
		})
	}
}
