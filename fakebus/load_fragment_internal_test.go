package fakebus

import (
	"os"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestParseTimespan: time spans as systemd's parse_sec reads them (a
// number without a unit is seconds; components add up, with or without
// spaces between them; months and years are systemd's average ones).
func TestParseTimespan(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"1d", 86_400_000_000, true},
		{"90", 90_000_000, true},
		{"5min 30s", 330_000_000, true},
		{"1h30min", 5_400_000_000, true},
		{"1.5h", 5_400_000_000, true},
		{"500ms", 500_000, true},
		{"20us", 20, true},
		{"2 weeks", 1_209_600_000_000, true},
		{"1M", 2_629_800_000_000, true},
		{"1m", 60_000_000, true},
		{"1y", 31_557_600_000_000, true},
		{"infinity", infinity, true},
		{"", 0, false},
		{"abc", 0, false},
		{"5 parsecs", 0, false},
		{"-1s", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := parseTimespan(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("parseTimespan(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestNumericSetting: a unit file's numeric directives as systemd's config
// parsers read them, and the properties they set.
func TestNumericSetting(t *testing.T) {
	m := &manager{defaultTasksMax: 4242}
	half := scaledLimit("MemoryMax", 5000, 10000)
	if half == 0 || half%uint64(os.Getpagesize()) != 0 {
		t.Fatalf("50%% of memory = %d, want whole pages", half)
	}
	type prop struct {
		Name  string
		Value any
	}
	one := func(name string, v any) []prop { return []prop{{name, v}} }
	for _, tc := range []struct {
		key, val string
		want     []prop // nil: refused
	}{
		{"MemoryMax", "1G", one("MemoryMax", uint64(1<<30))},
		{"MemoryMax", "1.5M", one("MemoryMax", uint64(1572864))},
		{"MemoryHigh", "4096", one("MemoryHigh", uint64(4096))},
		{"MemoryMax", "infinity", one("MemoryMax", infinity)},
		{"MemoryMax", "bogus", nil},
		{"MemoryMax", "-1", nil},
		{"MemoryMax", "1e3", nil},
		{"MemoryMax", "50%", one("MemoryMax", half)},
		{"MemoryMax", "0%", nil},
		{"MemoryMax", "101%", nil},
		{"MemoryMax", "", one("MemoryMax", infinity)},
		{"MemoryLow", "", one("MemoryLow", uint64(0))},
		{"TasksMax", "infinity", one("TasksMax", infinity)},
		{"TasksMax", "", one("TasksMax", uint64(4242))},
		{"TasksMax", "100%", one("TasksMax", scaledLimit("TasksMax", 1, 1))},
		{"CPUWeight", "100", one("CPUWeight", uint64(100))},
		{"Nice", "-5", one("Nice", int32(-5))},
		{"StartLimitBurst", "3", one("StartLimitBurst", uint32(3))},
		{"TimeoutStartSec", "5", one("TimeoutStartUSec", uint64(5_000_000))},
		{"TimeoutStopSec", "0", one("TimeoutStopUSec", infinity)},
		{"TimeoutSec", "1min", []prop{{"TimeoutStartUSec", uint64(60_000_000)}, {"TimeoutStopUSec", uint64(60_000_000)}}},
		{"RuntimeMaxSec", "0", one("RuntimeMaxUSec", uint64(0))},
		{"TimeoutAbortSec", "0", one("TimeoutAbortUSec", uint64(0))}, // no timeout fix
		{"TimeoutAbortSec", "5", one("TimeoutAbortUSec", uint64(5_000_000))},
		{"TimeoutAbortSec", "bogus", nil},
		{"CPUQuota", "20%", one("CPUQuotaPerSecUSec", uint64(200_000))},
		{"CPUQuota", "20", nil},
		{"LimitNOFILE", "100", one("LimitNOFILE", uint64(100))},
		{"LimitCORE", "1K", one("LimitCORE", uint64(1024))},
		{"LimitNOFILE", "1024:4096", []prop{{"LimitNOFILESoft", uint64(1024)}, {"LimitNOFILE", uint64(4096)}}},
		{"LimitCORE", "0:infinity", []prop{{"LimitCORESoft", uint64(0)}, {"LimitCORE", infinity}}},
		{"LimitCORE", "2:1", nil},
		{"LimitNOFILE", "8M:bogus", nil},
		{"LimitNOFILE", "", nil},
		{"LimitNOFILE", "50%", nil},
	} {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			props, ok := m.numericSetting(tc.key, tc.val)
			var got []prop
			for _, p := range props {
				got = append(got, prop{p.Name, p.Value.Value()})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != (tc.want != nil) {
				t.Errorf("numericSetting(%q, %q) = %v (-want +got):\n%s", tc.key, tc.val, ok, diff)
			}
		})
	}
}

// TestUnitFileConditions: a unit file's path conditions become the
// Conditions and Asserts a start tests, in file order across drop-ins; an
// empty value resets the list, a line the fake does not evaluate is left
// out and listed as ignored.
func TestUnitFileConditions(t *testing.T) {
	m := &manager{}
	pu := m.parseUnitFile("c.service",
		[]byte("[Unit]\nConditionPathExists=/nonexistent\nConditionVirtualization=container\nAssertPathExists=|/\n[Service]\nExecStart=/bin/true\n"),
		[]byte("[Unit]\nConditionPathExists=\nConditionPathIsDirectory=!/nonexistent\n"))
	u := &unit{props: map[string]dbus.Variant{}}
	for _, p := range pu.props {
		u.props[p.Name] = p.Value
	}
	type result struct {
		Conditions, Asserts bool
		Ignored             []string
	}
	got := result{holds(u, "Conditions"), holds(u, "Asserts"), pu.ignored}
	want := result{true, true, []string{"Unit.ConditionVirtualization"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var conds []condition
	if err := dbus.Store([]any{u.props["Conditions"].Value()}, &conds); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]condition{{"ConditionPathIsDirectory", false, true, "/nonexistent"}}, conds); diff != "" {
		t.Errorf("Conditions (-want +got):\n%s", diff)
	}
}

// TestResolveTemplate: a template in a dependency line is instantiated
// with the unit's instance, or its prefix (systemd's resolve_template).
func TestResolveTemplate(t *testing.T) {
	for _, tc := range []struct {
		unit, dep, want string
	}{
		{"b.service", "a@.service", "a@b.service"},
		{"b@x.service", "a@.service", "a@x.service"},
		{"b.target", "a@.socket", "a@b.socket"},
		{"b.service", "a@y.service", "a@y.service"},
		{"b.service", "a.service", "a.service"},
		{"b.service", "not a name", "not a name"},
	} {
		t.Run(tc.unit+" "+tc.dep, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, resolveTemplate(tc.unit, tc.dep)); diff != "" {
				t.Errorf("resolveTemplate(%q, %q) (-want +got):\n%s", tc.unit, tc.dep, diff)
			}
		})
	}
}
