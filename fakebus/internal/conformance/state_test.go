package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// Cases of what the manager says about the whole system: SystemState and
// NFailedUnits (systemctl is-system-running).

// managerState reads SystemState and NFailedUnits.
func managerState(t *testing.T, e *env) systemState {
	t.Helper()
	var s systemState
	for name, dst := range map[string]any{"SystemState": &s.State, "NFailedUnits": &s.NFailed} {
		v, err := e.c.ManagerProperty(e.ctx, name)
		if err != nil {
			t.Fatalf("ManagerProperty(%s): %v", name, err)
		}
		if err := v.Store(dst); err != nil {
			t.Fatalf("ManagerProperty(%s) = %v: %v", name, v, err)
		}
	}
	return s
}

type systemState struct {
	State   string
	NFailed uint32
}

// testSystemState: once booted, SystemState is "degraded" while a unit
// is failed and "running" when none is, whatever jobs run (measured on
// 252: "running" → a oneshot /bin/false → "degraded", NFailedUnits 1 →
// reset-failed → "running"; with a start job running, "running", and
// "degraded" with a failed unit too).
func testSystemState(t *testing.T, e *env) {
	if got := managerCall(t, e, e.rawBus(t), "ResetFailed", nil); got != "ok" {
		t.Fatalf("ResetFailed: %s", got)
	}
	check := func(when string, want systemState) {
		t.Helper()
		if diff := cmp.Diff(want, managerState(t, e)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", when, diff)
		}
	}
	check("after ResetFailed", systemState{"running", 0})

	slow := e.unit("state-slow", "service")
	cleanup(t, e, slow)
	j := start(t, e, e.c, slow, oneshot("/bin/sleep", "2"))
	check("with a start job", systemState{"running", 0})

	failed := e.unit("state-failed", "service")
	cleanup(t, e, failed)
	wait(t, e, start(t, e, e.c, failed, oneshot("/bin/false")), sdbus.JobFailed)
	check("with a failed unit", systemState{"degraded", 1})

	wait(t, e, j, sdbus.JobDone)
	check("with a failed unit, no job", systemState{"degraded", 1})

	if err := e.c.ResetFailedUnit(e.ctx, failed); err != nil {
		t.Fatal(err)
	}
	check("after ResetFailedUnit", systemState{"running", 0})
}
