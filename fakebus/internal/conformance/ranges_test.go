package conformance

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// testMemoryLimitRanges: StartTransientUnit of a slice with each memory
// limit at 0, 1 and infinity: MemoryHigh= and MemoryMax= cannot be 0
// (InvalidArgs "Value specified in MemoryMax is out of range", the same
// on 247, 252, 257 and 262), the others can. (The percentage variants,
// MemoryMaxScale and the like, are not modelled by the fake.)
func testMemoryLimitRanges(t *testing.T, e *env) {
	raw := e.rawBus(t)
	var want, got []string
	for _, prop := range []string{"MemoryMin", "MemoryLow", "MemoryHigh", "MemoryMax", "MemorySwapMax"} {
		for _, v := range []uint64{0, 1, math.MaxUint64} {
			unit := e.unit("range", "slice")
			cleanup(t, e, unit)
			var job dbus.ObjectPath
			r := managerCall(t, e, raw, "StartTransientUnit", []any{&job}, unit, "fail",
				[]propValue{{prop, dbus.MakeVariant(v)}}, []auxUnit{})
			got = append(got, fmt.Sprintf("%s=%d: %s", prop, v, strings.ReplaceAll(r, unit, "UNIT")))
			w := "ok"
			if v == 0 && (prop == "MemoryHigh" || prop == "MemoryMax") {
				w = "org.freedesktop.DBus.Error.InvalidArgs: Value specified in " + prop + " is out of range"
			}
			want = append(want, fmt.Sprintf("%s=%d: %s", prop, v, w))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StartTransientUnit with memory limits (-want +got):\n%s", diff)
	}
}
