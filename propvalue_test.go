package sdbus_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// A builder's result is the plain Property{Name, Value} a table test
// would write, whether or not the builder's arguments are valid.
func TestBuildersArePlainValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  sdbus.Property
		want sdbus.Property
	}{
		{"MemoryMax", sdbus.PropMemoryMax(512 << 20), sdbus.Property{Name: "MemoryMax", Value: dbus.MakeVariant(uint64(512 << 20))}},
		{"CPUWeight idle", sdbus.PropCPUWeight(sdbus.CPUWeightIdle), sdbus.Property{Name: "CPUWeight", Value: dbus.MakeVariant(uint64(0))}},
		{"TasksMax 0 (refused when used)", sdbus.PropTasksMax(0), sdbus.Property{Name: "TasksMax", Value: dbus.MakeVariant(uint64(0))}},
		{"Description", sdbus.PropDescription("d"), sdbus.Property{Name: "Description", Value: dbus.MakeVariant("d")}},
		{"Slice", sdbus.PropSlice("a.slice"), sdbus.Property{Name: "Slice", Value: dbus.MakeVariant("a.slice")}},
		{"Delegate", sdbus.PropDelegate(true), sdbus.Property{Name: "Delegate", Value: dbus.MakeVariant(true)}},
		{"KillSignal", sdbus.PropKillSignal(syscall.SIGKILL), sdbus.Property{Name: "KillSignal", Value: dbus.MakeVariant(int32(9))}},
		{"CollectMode", sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed), sdbus.Property{Name: "CollectMode", Value: dbus.MakeVariant("inactive-or-failed")}},
		{"Raw", sdbus.PropRaw("CPUShares", uint64(1024)), sdbus.Property{Name: "CPUShares", Value: dbus.MakeVariant(uint64(1024))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("builder = %+v, not == %+v", tc.got, tc.want)
			}
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("builder = %#v, not DeepEqual to %#v", tc.got, tc.want)
			}
		})
	}
	// Lists compare with reflect.DeepEqual (== on a slice variant panics,
	// as for any interface holding a slice).
	for _, tc := range []struct {
		name string
		got  sdbus.Property
		want sdbus.Property
	}{
		{"PIDs", sdbus.PropPIDs(1, 2), sdbus.Property{Name: "PIDs", Value: dbus.MakeVariant([]uint32{1, 2})}},
		{"AllowedCPUs", sdbus.PropAllowedCPUs("0-2,9"), sdbus.Property{Name: "AllowedCPUs", Value: dbus.MakeVariant([]byte{0x07, 0x02})}},
		{"AllowedCPUSet", sdbus.PropAllowedCPUSet(sdbus.NewCPUSet(9, 0, 1, 2, 2)), sdbus.Property{Name: "AllowedCPUs", Value: dbus.MakeVariant([]byte{0x07, 0x02})}},
		{"DeviceAllow none", sdbus.PropDeviceAllow(), sdbus.Property{Name: "DeviceAllow", Value: dbus.MakeVariant([]sdbus.DeviceRule{})}},
		{"Wants", sdbus.PropWants("a.slice"), sdbus.Property{Name: "Wants", Value: dbus.MakeVariant([]string{"a.slice"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("builder = %#v, not DeepEqual to %#v", tc.got, tc.want)
			}
		})
	}
}

func TestPropertyString(t *testing.T) {
	for _, tc := range []struct {
		p    sdbus.Property
		want string
	}{
		{sdbus.PropMemoryMax(536870912), "MemoryMax=536870912"},
		{sdbus.PropMemoryMax(sdbus.Infinity), "MemoryMax=infinity"},
		{sdbus.PropDescription("a b"), "Description=a b"},
		{sdbus.PropDelegate(true), "Delegate=yes"},
		{sdbus.PropAfter("a.service", "b.service"), "After=a.service b.service"},
		{sdbus.PropAllowedCPUs("0-3,8"), "AllowedCPUs=0-3,8"},
		{sdbus.PropPIDs(1, 2), "PIDs=1 2"},
		{sdbus.PropKillSignal(syscall.SIGTERM), "KillSignal=15"},
		{sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/null", Access: "rw"}, sdbus.DeviceRule{Specifier: "char-pts", Access: "rwm"}), "DeviceAllow=/dev/null rw, char-pts rwm"},
		{sdbus.PropDeviceAllow(), "DeviceAllow="},
		{sdbus.PropExecStart([]string{"/bin/sleep", "1"}, true), "ExecStart=-/bin/sleep 1"},
		{sdbus.PropRaw("X", nil), "X="},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.p.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			// %v and %+v use String: no internals in users' messages.
			if got := fmt.Sprintf("%+v", tc.p); got != tc.want {
				t.Errorf("%%+v = %q, want %q", got, tc.want)
			}
		})
	}
}

// Literals are checked by name like builders' results, so a table of
// Property{Name, Value} literals gets the builders' checks.
func TestPropertyLiteralValuesChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    sdbus.Property
		want string // in the error; "" = accepted
	}{
		{"TasksMax 0", sdbus.Property{Name: "TasksMax", Value: dbus.MakeVariant(uint64(0))}, "at least 1"},
		{"CPUWeight", sdbus.Property{Name: "CPUWeight", Value: dbus.MakeVariant(uint64(10001))}, "out of range"},
		{"CPUQuotaPerSecUSec 0", sdbus.Property{Name: "CPUQuotaPerSecUSec", Value: dbus.MakeVariant(uint64(0))}, "refused by systemd"},
		{"Slice", sdbus.Property{Name: "Slice", Value: dbus.MakeVariant("a.service")}, "not a slice"},
		{"DeviceAllow", sdbus.Property{Name: "DeviceAllow", Value: dbus.MakeVariant([]struct{ A, B string }{{"/dev/null", "x"}})}, "access"},
		{"DeviceAllow empty clears", sdbus.Property{Name: "DeviceAllow", Value: dbus.MakeVariant([]struct{ A, B string }{})}, ""},
		{"AllowedCPUs as text", sdbus.Property{Name: "AllowedCPUs", Value: dbus.MakeVariant("0-3")}, "ay, not s"},
		{"AllowedCPUs bad text", sdbus.PropAllowedCPUs("3-1"), "invalid range"},
		{"named uint64", sdbus.Property{Name: "MemoryMax", Value: dbus.MakeVariant(myUint(7))}, ""},
		{"KillMode", sdbus.Property{Name: "KillMode", Value: dbus.MakeVariant("all")}, "unknown kill mode"},
		{"ExecStart empty", sdbus.PropExecStart(nil, false), "empty argv"},
		{"KillSignal out of int32", sdbus.PropKillSignal(syscall.Signal(1<<32 + 1)), "out of range"},
		{"unknown name", sdbus.Property{Name: "NotYetInvented", Value: dbus.MakeVariant(uint64(0))}, ""},
		// An unusual Go form of the right D-Bus type is left to systemd.
		{"PIDs as []any", sdbus.Property{Name: "PIDs", Value: dbus.MakeVariantWithSignature([]any{uint32(0)}, dbus.ParseSignatureMust("au"))}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sdbus.CheckProperties(tc.p)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckProperties(%v) = %v, want nil", tc.p, err)
				}
				return
			}
			if !errors.Is(err, sdbus.ErrInvalidArgs) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckProperties(%v) = %v, want ErrInvalidArgs containing %q", tc.p, err, tc.want)
			}
			if diff := cmp.Diff(err.Error(), "sdbus: CheckProperties: "+tc.p.Err().Error()+": invalid arguments"); diff != "" {
				t.Errorf("Err and CheckProperties disagree (-want +got):\n%s", diff)
			}
		})
	}
}

type myUint uint64

// goSystemdProperty has the shape of go-systemd's dbus.Property.
type goSystemdProperty struct {
	Name  string
	Value dbus.Variant
}

func TestFromDBusProperties(t *testing.T) {
	in := []goSystemdProperty{
		{"Description", dbus.MakeVariant("x")},
		{"MemoryMax", dbus.MakeVariant(uint64(1 << 20))},
	}
	got := sdbus.FromDBusProperties(in)
	want := []sdbus.Property{sdbus.PropDescription("x"), sdbus.PropMemoryMax(1 << 20)}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(dbus.Variant{}, dbus.Signature{})); diff != "" {
		t.Errorf("FromDBusProperties (-want +got):\n%s", diff)
	}
	back := sdbus.ToDBusProperties[goSystemdProperty](got)
	if diff := cmp.Diff(in, back, cmp.AllowUnexported(dbus.Variant{}, dbus.Signature{})); diff != "" {
		t.Errorf("ToDBusProperties (-want +got):\n%s", diff)
	}
	if sdbus.FromDBusProperties[goSystemdProperty](nil) != nil {
		t.Error("FromDBusProperties(nil) != nil")
	}
}

// PropDeviceAllow() clears the rules; with rules SetUnitProperties
// appends them.
func TestDeviceAllowEmptyClears(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	null := sdbus.DeviceRule{Specifier: "/dev/null", Access: "rw"}
	zero := sdbus.DeviceRule{Specifier: "/dev/zero", Access: "r"}
	j, err := c.StartTransientUnit(ctx, "dev.slice", sdbus.ModeReplace, []sdbus.Property{sdbus.PropDeviceAllow(null)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		p    sdbus.Property
		want []sdbus.DeviceRule
	}{
		// Rules add up, the newest first (systemd prepends them).
		{"append", sdbus.PropDeviceAllow(zero), []sdbus.DeviceRule{zero, null}},
		{"clear", sdbus.PropDeviceAllow(), nil},
		{"after clear", sdbus.PropDeviceAllow(zero), []sdbus.DeviceRule{zero}},
		{"clear and two rules", sdbus.PropDeviceAllow(), nil},
		{"two rules in one call", sdbus.PropDeviceAllow(null, zero), []sdbus.DeviceRule{zero, null}},
	} {
		if err := c.SetUnitProperties(ctx, "dev.slice", true, step.p); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got, err := c.SliceProperties(ctx, "dev.slice")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(step.want, got.DeviceAllow, cmpEmptyIsNil); diff != "" {
			t.Errorf("%s: DeviceAllow (-want +got):\n%s", step.name, diff)
		}
	}
}

var cmpEmptyIsNil = cmp.FilterValues(func(a, b []sdbus.DeviceRule) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(a, b []sdbus.DeviceRule) bool { return true }))

// refRangeToBits is an independent re-implementation of the language of
// runc's RangeToBits (opencontainers/cgroups systemd), written as a scanner
// rather than with strings.Split: elements separated by ",", each
// optional Unicode white space, then N or N-M (ASCII decimal, below 2^32,
// N <= M), then optional white space; empty elements are skipped; at least
// one number overall. It returns the ranges, or ok false.
func refRangeToBits(s string) (ranges [][2]uint64, ok bool) {
	i := 0
	skipSpace := func() {
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError || !unicode.IsSpace(r) {
				return
			}
			i += n
		}
	}
	number := func() (uint64, bool) {
		start := i
		var v uint64
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			v = v*10 + uint64(s[i]-'0')
			if v > 1<<32-1 {
				return 0, false
			}
			i++
		}
		return v, i > start
	}
	for {
		skipSpace()
		if i < len(s) && s[i] != ',' {
			a, ok := number()
			if !ok {
				return nil, false
			}
			b := a
			if i < len(s) && s[i] == '-' {
				i++
				if b, ok = number(); !ok || a > b {
					return nil, false
				}
			}
			ranges = append(ranges, [2]uint64{a, b})
			skipSpace()
		}
		if i == len(s) {
			return ranges, len(ranges) > 0
		}
		if s[i] != ',' {
			return nil, false
		}
		i++
	}
}

func FuzzParseCPUSetMatchesRunc(f *testing.F) {
	for _, s := range []string{
		",0,1,", "    , 1   , 3  ,  5-7,\t", "", ",", "0-3,8", "3-1", "1 - 2", "0x1", "+1", "\u00a01\u0085",
		"4294967295", "4294967296", "8191", "8192", "1-2-3", "--", "1,\xff", "007",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ranges, refOK := refRangeToBits(s)
		maxN := uint64(0)
		for _, r := range ranges {
			maxN = max(maxN, r[1])
		}
		set, err := sdbus.ParseCPUSet(s)
		switch {
		case !refOK:
			if err == nil {
				t.Fatalf("ParseCPUSet(%q) = %v; runc refuses it", s, set)
			}
		case maxN > sdbus.MaxCPU:
			if !errors.Is(err, sdbus.ErrInvalidArgs) {
				t.Fatalf("ParseCPUSet(%q) = %v, %v; want a refusal of a number above MaxCPU", s, set, err)
			}
		default:
			if err != nil {
				t.Fatalf("ParseCPUSet(%q): %v; runc accepts it", s, err)
			}
			want := make([]byte, maxN/8+1)
			for _, r := range ranges {
				for n := r[0]; n <= r[1]; n++ {
					want[n/8] |= 1 << (n % 8)
				}
			}
			if diff := cmp.Diff(want, set.Bitmap()); diff != "" {
				t.Fatalf("ParseCPUSet(%q).Bitmap() (-runc +got):\n%s", s, diff)
			}
			if again, err := sdbus.ParseCPUSet(set.String()); err != nil || !reflect.DeepEqual(again, set) {
				t.Fatalf("ParseCPUSet(%q) = %v, %v; want %v", set.String(), again, err, set)
			}
		}
	})
}

func TestCPUSetBuilders(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  sdbus.CPUSet
		want string
	}{
		{"NewCPUSet sorts and dedups", sdbus.NewCPUSet(3, 1, 2, 2, 9), "1-3,9"},
		{"from bitmap", sdbus.CPUSetFromBitmap([]byte{0x8e, 0x03}), "1-3,7-9"},
		{"empty", sdbus.NewCPUSet(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.set.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff(tc.set, sdbus.CPUSetFromBitmap(tc.set.Bitmap()), cmp.Comparer(func(a, b sdbus.CPUSet) bool { return a.String() == b.String() })); diff != "" {
				t.Errorf("bitmap round trip (-want +got):\n%s", diff)
			}
		})
	}
	// An empty set lifts the restriction: an empty bitmap, accepted.
	if err := sdbus.PropAllowedCPUSet(nil).Err(); err != nil {
		t.Errorf("PropAllowedCPUSet(nil): %v", err)
	}
}
