package fakebus

import "testing"

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
