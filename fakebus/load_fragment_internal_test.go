package fakebus

import (
	"testing"

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
	type res struct {
		Props []string
		Value any
		OK    bool
	}
	for _, tc := range []struct {
		key, val string
		want     res
	}{
		{"MemoryMax", "1G", res{[]string{"MemoryMax"}, uint64(1 << 30), true}},
		{"MemoryMax", "1.5M", res{[]string{"MemoryMax"}, uint64(1572864), true}},
		{"MemoryHigh", "4096", res{[]string{"MemoryHigh"}, uint64(4096), true}},
		{"MemoryMax", "infinity", res{[]string{"MemoryMax"}, infinity, true}},
		{"MemoryMax", "bogus", res{[]string{"MemoryMax"}, uint64(0), false}},
		{"MemoryMax", "-1", res{[]string{"MemoryMax"}, uint64(0), false}},
		{"MemoryMax", "1e3", res{[]string{"MemoryMax"}, uint64(0), false}},
		{"MemoryMax", "50%", res{[]string{"MemoryMax"}, uint64(0), false}}, // not modelled
		{"TasksMax", "infinity", res{[]string{"TasksMax"}, infinity, true}},
		{"CPUWeight", "100", res{[]string{"CPUWeight"}, uint64(100), true}},
		{"Nice", "-5", res{[]string{"Nice"}, int32(-5), true}},
		{"StartLimitBurst", "3", res{[]string{"StartLimitBurst"}, uint32(3), true}},
		{"TimeoutStartSec", "5", res{[]string{"TimeoutStartUSec"}, uint64(5_000_000), true}},
		{"TimeoutStopSec", "0", res{[]string{"TimeoutStopUSec"}, infinity, true}},
		{"TimeoutSec", "1min", res{[]string{"TimeoutStartUSec", "TimeoutStopUSec"}, uint64(60_000_000), true}},
		{"RuntimeMaxSec", "0", res{[]string{"RuntimeMaxUSec"}, uint64(0), true}},
		{"CPUQuota", "20%", res{[]string{"CPUQuotaPerSecUSec"}, uint64(200_000), true}},
		{"CPUQuota", "20", res{[]string{"CPUQuotaPerSecUSec"}, nil, false}},
		{"LimitNOFILE", "100", res{[]string{"LimitNOFILE"}, uint64(100), true}},
		{"LimitCORE", "1K", res{[]string{"LimitCORE"}, uint64(1024), true}},
	} {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			props, v, ok := numericSetting(tc.key, tc.val)
			got := res{props, v.Value(), ok}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("numericSetting(%q, %q) (-want +got):\n%s", tc.key, tc.val, diff)
			}
		})
	}
}
