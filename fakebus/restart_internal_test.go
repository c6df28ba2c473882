package fakebus

import (
	"math"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestRestartUSecNext: the hold-offs RestartSteps= and
// RestartMaxDelayUSec= make (service_restart_usec_next), restart by
// restart.
func TestRestartUSecNext(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]any
		want  []uint64 // after 0, 1, 2, ... restarts
	}{
		{"default", nil, []uint64{100_000, 100_000}},
		{"steps without maximum", map[string]any{"RestartSteps": uint32(3)}, []uint64{100_000, 100_000}},
		{"maximum without steps", map[string]any{"RestartUSec": uint64(1_000_000), "RestartMaxDelayUSec": uint64(5_000_000)}, []uint64{1_000_000, 1_000_000}},
		{"maximum below RestartUSec lowers it", map[string]any{"RestartUSec": uint64(500_000), "RestartMaxDelayUSec": uint64(300_000), "RestartSteps": uint32(2)}, []uint64{300_000, 300_000}},
		{"doubling", map[string]any{"RestartUSec": uint64(100_000), "RestartSteps": uint32(3), "RestartMaxDelayUSec": uint64(800_000)},
			[]uint64{100_000, 200_000, 400_000, 800_000, 800_000}},
		{"square root", map[string]any{"RestartUSec": uint64(1_000_000), "RestartSteps": uint32(2), "RestartMaxDelayUSec": uint64(100_000_000)},
			[]uint64{1_000_000, 10_000_000, 100_000_000}},
		// 1.1^(1/2)·100000 = 104880.88...; 1000^(1/3) is 10 exactly,
		// which float64 computes as 9.999999999999998.
		{"rounded down", map[string]any{"RestartUSec": uint64(100_000), "RestartSteps": uint32(2), "RestartMaxDelayUSec": uint64(110_000)}, []uint64{100_000, 104_880, 110_000}},
		{"exact where float64 is not", map[string]any{"RestartUSec": uint64(1), "RestartSteps": uint32(3), "RestartMaxDelayUSec": uint64(1000)}, []uint64{1, 10, 100, 1000}},
		{"RestartUSec 0", map[string]any{"RestartUSec": uint64(0), "RestartSteps": uint32(3), "RestartMaxDelayUSec": uint64(1000)}, []uint64{0, 0}},
		{"many steps", map[string]any{"RestartUSec": uint64(1000), "RestartSteps": uint32(math.MaxUint32), "RestartMaxDelayUSec": uint64(2000)}, []uint64{1000, 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &unit{kind: "service", props: map[string]dbus.Variant{}}
			for k, v := range tc.props {
				u.props[k] = dbus.MakeVariant(v)
			}
			var got []uint64
			for n := range tc.want {
				u.restart.count = uint32(n)
				got = append(got, restartUSecNext(u))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("RestartUSecNext by restarts (-want +got):\n%s", d)
			}
		})
	}
}
