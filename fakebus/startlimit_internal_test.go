package fakebus

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStartWindow: the window opens at the first start, counts burst
// starts and refuses the rest until interval has passed since it opened,
// as ratelimit_below does; a burst or an interval of 0 refuses nothing.
func TestStartWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name     string
		interval time.Duration
		burst    uint32
		at       []time.Duration // when each start comes, after t0
		want     []bool
	}{
		{"burst 2", 10 * time.Second, 2, []time.Duration{0, time.Second, 2 * time.Second, 9 * time.Second}, []bool{true, true, false, false}},
		{"window ends", 10 * time.Second, 1, []time.Duration{0, 5 * time.Second, 10*time.Second + 1, 11 * time.Second}, []bool{true, false, true, false}},
		{"exactly the interval", 10 * time.Second, 1, []time.Duration{0, 10 * time.Second}, []bool{true, false}},
		{"burst 0", 10 * time.Second, 0, []time.Duration{0, 0, 0}, []bool{true, true, true}},
		{"interval 0", 0, 1, []time.Duration{0, 0, 0}, []bool{true, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w startWindow
			var got []bool
			for _, d := range tc.at {
				got = append(got, w.below(tc.interval, tc.burst, t0.Add(d)))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("below (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseConditionLine: a unit file's path condition as systemd reads
// it, and the lines the fake leaves out.
func TestParseConditionLine(t *testing.T) {
	for _, tc := range []struct {
		key, val string
		want     condition
		ok       bool
	}{
		{"ConditionPathExists", "/a//b/", condition{"ConditionPathExists", false, false, "/a/b"}, true},
		{"ConditionPathExists", "!/x", condition{"ConditionPathExists", false, true, "/x"}, true},
		{"AssertPathIsDirectory", "|!/x", condition{"AssertPathIsDirectory", true, true, "/x"}, true},
		{"ConditionPathExists", "relative", condition{}, false},
		{"ConditionPathIsReadWrite", "/", condition{}, false},
		{"ConditionVirtualization", "container", condition{}, false},
		{"ConditionNoSuchThing", "/", condition{}, false},
	} {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			got, ok := parseConditionLine(tc.key, tc.val)
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("parseConditionLine(%q, %q) = %+v, %t; want %+v, %t", tc.key, tc.val, got, ok, tc.want, tc.ok)
			}
		})
	}
}
