package conformance

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// testEnqueueJobTypes: EnqueueUnitJob's job types beyond the job methods'.
// verify-active ends done on an active unit and skipped on an inactive
// one; nop ends done either way; reload-or-start is a reload of an active
// unit and a start of an inactive one, try-reload a reload or a nop; a
// unit that cannot reload refuses the reload they become. Each is
// answered with the type the job got and ends with the result systemd
// reports in JobRemoved.
func testEnqueueJobTypes(t *testing.T, e *env) {
	raw := e.rawBus(t)
	obs := observe(t, e)
	svc := e.unit("jobtypes", "service")
	cleanup(t, e, svc)
	wait(t, e, start(t, e, e.c, svc, sleeper(execProp("ExecReload", false, "/bin/true"))), sdbus.JobDone)
	active := e.unit("jobtypes", "slice")
	cleanup(t, e, active)
	wait(t, e, start(t, e, e.c, active, sliceProps()), sdbus.JobDone)
	idle := e.unit("jobtypes", "slice") // loaded, never started
	cleanup(t, e, idle)
	idle2 := e.unit("jobtypes", "slice")
	cleanup(t, e, idle2)
	nope := e.unit("jobtypes-none", "service")
	for _, tc := range []struct {
		name, unit, typ string
		want            string // the reply's job type and the JobRemoved result, or the error
	}{
		{"verify-active of an active unit", svc, "verify-active", "verify-active done"},
		{"verify-active of an inactive unit", idle, "verify-active", "verify-active skipped"},
		{"nop of an active unit", svc, "nop", "nop done"},
		{"nop of an inactive unit", idle, "nop", "nop done"},
		{"try-reload of an active unit", svc, "try-reload", "reload done"},
		{"try-reload of an inactive unit", idle, "try-reload", "nop done"},
		{"try-reload of a unit that cannot reload", active, "try-reload", notApplicable + "Job type reload is not applicable for unit " + active + "."},
		{"reload-or-start of an active unit", svc, "reload-or-start", "reload done"},
		{"reload-or-start of a unit that cannot reload", active, "reload-or-start", notApplicable + "Job type reload is not applicable for unit " + active + "."},
		{"reload-or-start of an inactive unit", idle2, "reload-or-start", "start done"},
		{"verify-active of no unit", nope, "verify-active", noSuchUnit + "Unit " + nope + " not found."},
		{"nop of no unit", nope, "nop", noSuchUnit + "Unit " + nope + " not found."},
		{"try-reload of no unit", nope, "try-reload", noSuchUnit + "Unit " + nope + " not found."},
		{"reload-or-start of no unit", nope, "reload-or-start", noSuchUnit + "Unit " + nope + " not found."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var id uint32
			var jobPath, unitPath dbus.ObjectPath
			var unit, typ string
			var affected []affectedJob
			got := managerCall(t, e, raw, "EnqueueUnitJob", []any{&id, &jobPath, &unit, &unitPath, &typ, &affected}, tc.unit, tc.typ, "replace")
			if got == "ok" {
				if jobPath != sdbus.JobPath(id) || unit != tc.unit || unitPath != sdbus.UnitPath(tc.unit) {
					t.Errorf("EnqueueUnitJob = %d %s %s %s; want a job of %s", id, jobPath, unit, unitPath, tc.unit)
				}
				got = typ + " " + obs.result(t, e, jobPath)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("EnqueueUnitJob(%s, %s) (-want +got):\n%s", tc.unit, tc.typ, diff)
			}
		})
	}
}

// testJobOfNoUnit: the methods that take the name of a unit that does not
// exist answer NoSuchUnit, "not loaded" when they only look the unit up
// (a stop job among them) and "not found" when they load it.
func testJobOfNoUnit(t *testing.T, e *env) {
	raw := e.rawBus(t)
	nope := e.unit("jobs-none", "service")
	notLoaded := noSuchUnit + "Unit " + nope + " not loaded."
	notFound := noSuchUnit + "Unit " + nope + " not found."
	for _, tc := range []struct {
		name, method string
		args         []any
		want         string
	}{
		{"StopUnit", "StopUnit", []any{nope, "replace"}, notLoaded},
		{"EnqueueUnitJob stop", "EnqueueUnitJob", []any{nope, "stop", "replace"}, notLoaded},
		{"KillUnit", "KillUnit", []any{nope, "all", int32(15)}, notLoaded},
		{"GetUnit", "GetUnit", []any{nope}, notLoaded},
		{"ResetFailedUnit", "ResetFailedUnit", []any{nope}, notLoaded},
		{"StartUnit", "StartUnit", []any{nope, "replace"}, notFound},
		{"RestartUnit", "RestartUnit", []any{nope, "replace"}, notFound},
		{"ReloadUnit", "ReloadUnit", []any{nope, "replace"}, notFound},
		{"TryRestartUnit", "TryRestartUnit", []any{nope, "replace"}, notFound},
		{"ReloadOrRestartUnit", "ReloadOrRestartUnit", []any{nope, "replace"}, notFound},
		{"ReloadOrTryRestartUnit", "ReloadOrTryRestartUnit", []any{nope, "replace"}, notFound},
		{"EnqueueUnitJob start", "EnqueueUnitJob", []any{nope, "start", "replace"}, notFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, managerCall(t, e, raw, tc.method, nil, tc.args...)); diff != "" {
				t.Errorf("%s%v (-want +got):\n%s", tc.method, tc.args, diff)
			}
		})
	}
}
