package conformance

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// Cases of the Manager methods beyond jobs and unit files: unit lookups
// by invocation ID and control group, GetUnitProcesses, RefUnit and
// UnrefUnit, job relations, StartUnitReplace, AbandonScope, the manager's
// environment, Dump.

// managerCall calls a Manager method on a raw connection and returns
// "ok" or "ErrorName: message".
func managerCall(t *testing.T, e *env, conn *dbus.Conn, method string, out []any, args ...any) string {
	t.Helper()
	err := conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
		"org.freedesktop.systemd1.Manager."+method, 0, args...).Store(out...)
	var de dbus.Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &de) && len(de.Body) == 1:
		return de.Name + ": " + de.Body[0].(string)
	}
	return err.Error()
}

func unitProp(t *testing.T, e *env, conn *dbus.Conn, name, iface, prop string) any {
	t.Helper()
	v, err := conn.Object("org.freedesktop.systemd1", sdbus.UnitPath(name)).GetProperty(iface + "." + prop)
	if err != nil {
		t.Fatalf("%s.%s of %s: %v", iface, prop, name, err)
	}
	return v.Value()
}

// testUnitLookups: GetUnitByInvocationID and GetUnitByControlGroup find a
// running service; an unknown invocation ID is NoUnitForInvocationID; a
// control group below a unit's finds the unit, one below no unit is
// NoSuchUnit.
func testUnitLookups(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("lookup", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, sleeper()), sdbus.JobDone)
	id := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Unit", "InvocationID").([]byte)
	// The answer is the unit's object by its invocation ID.
	var p dbus.ObjectPath
	byID := sdbus.UnitPath(hex.EncodeToString(id))
	if got := managerCall(t, e, raw, "GetUnitByInvocationID", []any{&p}, id); got != "ok" || p != byID {
		t.Errorf("GetUnitByInvocationID(its ID) = %s, %s; want %s", got, p, byID)
	}
	if v, err := raw.Object("org.freedesktop.systemd1", p).GetProperty("org.freedesktop.systemd1.Unit.Id"); err != nil || v.Value() != name {
		t.Errorf("Id at %s = %v, %v; want %s", p, v, err, name)
	}
	unknown := make([]byte, 16)
	unknown[0] = 0x42
	want := "org.freedesktop.systemd1.NoUnitForInvocationID: No unit with the specified invocation ID 42000000000000000000000000000000 known."
	if got := managerCall(t, e, raw, "GetUnitByInvocationID", []any{&p}, unknown); got != want {
		t.Errorf("GetUnitByInvocationID(unknown) = %s, want %s", got, want)
	}
	if got := managerCall(t, e, raw, "GetUnitByInvocationID", []any{&p}, []byte{1, 2, 3}); !strings.HasPrefix(got, "org.freedesktop.DBus.Error.InvalidArgs: ") {
		t.Errorf("GetUnitByInvocationID(3 bytes) = %s, want InvalidArgs", got)
	}

	cg := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "ControlGroup").(string)
	if cg != "/system.slice/"+name {
		t.Errorf("ControlGroup = %q", cg)
	}
	for _, tc := range []struct{ cg, want string }{
		{cg, name}, {cg + "/sub/deeper", name}, {"/system.slice", "system.slice"},
	} {
		if got := managerCall(t, e, raw, "GetUnitByControlGroup", []any{&p}, tc.cg); got != "ok" || p != sdbus.UnitPath(tc.want) {
			t.Errorf("GetUnitByControlGroup(%s) = %s, %s; want %s", tc.cg, got, p, tc.want)
		}
	}
	nowhere := "/sdbus-conf-nowhere.slice/x"
	want = "org.freedesktop.systemd1.NoSuchUnit: Control group '" + nowhere + "' is not valid or not managed by this instance"
	if got := managerCall(t, e, raw, "GetUnitByControlGroup", []any{&p}, nowhere); got != want {
		t.Errorf("GetUnitByControlGroup(%s) = %s, want %s", nowhere, got, want)
	}
}

// testUnitProcesses: GetUnitProcesses lists a service's main process with
// its command line; a unit not loaded is NoSuchUnit.
func testUnitProcesses(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("procs", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, sleeper()), sdbus.JobDone)
	pid := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "MainPID").(uint32)
	var rows []struct {
		Cgroup  string
		PID     uint32
		Cmdline string
	}
	if got := managerCall(t, e, raw, "GetUnitProcesses", []any{&rows}, name); got != "ok" {
		t.Fatalf("GetUnitProcesses: %s", got)
	}
	// The command line is read from /proc: right after the start it can
	// still be systemd's "(sleep)".
	got := [][2]any{}
	for _, r := range rows {
		got = append(got, [2]any{r.Cgroup, r.PID})
	}
	if diff := cmp.Diff([][2]any{{"/system.slice/" + name, pid}}, got); diff != "" {
		t.Errorf("GetUnitProcesses (-want +got):\n%s", diff)
	}
	none := e.unit("procs-none", "service")
	if got, want := managerCall(t, e, raw, "GetUnitProcesses", []any{&rows}, none), "org.freedesktop.systemd1.NoSuchUnit: Unit "+none+" not loaded."; got != want {
		t.Errorf("GetUnitProcesses(not loaded) = %s, want %s", got, want)
	}
}

// testRefUnit: a unit a client references stays loaded when it stops,
// until the client lets go; UnrefUnit without a reference is
// NotReferenced.
func testRefUnit(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("ref", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, sleeper()), sdbus.JobDone)
	if got, want := managerCall(t, e, raw, "UnrefUnit", nil, name), "org.freedesktop.systemd1.NotReferenced: Unit has not been referenced yet."; got != want {
		t.Errorf("UnrefUnit before RefUnit = %s, want %s", got, want)
	}
	if got := managerCall(t, e, raw, "RefUnit", nil, name); got != "ok" {
		t.Fatalf("RefUnit: %s", got)
	}
	stop(t, e, e.c, name)
	if st := status(t, e, name); st.LoadState != sdbus.LoadLoaded || st.ActiveState != sdbus.StateInactive {
		t.Errorf("a referenced unit after stop: %+v, want loaded, inactive", st)
	}
	if got := managerCall(t, e, raw, "UnrefUnit", nil, name); got != "ok" {
		t.Errorf("UnrefUnit: %s", got)
	}
	unloaded(t, e, name)
}

// testJobMethods: ClearJobs with nothing queued, GetJobAfter and
// GetJobBefore of an unknown job, StartUnitReplace of a unit without a
// start job.
func testJobMethods(t *testing.T, e *env) {
	raw := e.rawBus(t)
	if got := managerCall(t, e, raw, "ClearJobs", nil); got != "ok" {
		t.Errorf("ClearJobs: %s", got)
	}
	var rows []jobTuple
	for _, m := range []string{"GetJobAfter", "GetJobBefore"} {
		if got, want := managerCall(t, e, raw, m, []any{&rows}, uint32(4000000000)), "org.freedesktop.systemd1.NoSuchJob: Job 4000000000 does not exist."; got != want {
			t.Errorf("%s(unknown) = %s, want %s", m, got, want)
		}
	}
	var p dbus.ObjectPath
	if got, want := managerCall(t, e, raw, "StartUnitReplace", []any{&p}, "-.slice", e.unit("replacing", "slice"), "replace"),
		"org.freedesktop.systemd1.NoSuchJob: No job queued for unit -.slice"; got != want {
		t.Errorf("StartUnitReplace without a start job = %s, want %s", got, want)
	}
}

type jobTuple struct {
	ID                uint32
	Unit, Type, State string
	JobPath, UnitPath dbus.ObjectPath
}

// testAbandonScope: a running scope is abandoned; a service is refused.
func testAbandonScope(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name, svc := e.unit("abandon", "scope"), e.unit("abandon", "service")
	cleanup(t, e, name)
	cleanup(t, e, svc)
	wait(t, e, start(t, e, e.c, name, scope(child(t))), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, svc, sleeper()), sdbus.JobDone)
	if got, want := managerCall(t, e, raw, "AbandonScope", nil, svc), "org.freedesktop.DBus.Error.InvalidArgs: Unit '"+svc+"' is not a scope unit, refusing."; got != want {
		t.Errorf("AbandonScope(service) = %s, want %s", got, want)
	}
	if got := managerCall(t, e, raw, "AbandonScope", nil, name); got != "ok" {
		t.Fatalf("AbandonScope: %s", got)
	}
	settle(t, e, name, "abandoned", func(s sdbus.UnitState) bool { return s.SubState == "abandoned" })
}

// testManagerEnvironment: SetEnvironment, UnsetEnvironment and
// UnsetAndSetEnvironment change the Environment property; invalid
// assignments are InvalidArgs.
func testManagerEnvironment(t *testing.T, e *env) {
	raw := e.rawBus(t)
	env := func() []string {
		v, err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").GetProperty("org.freedesktop.systemd1.Manager.Environment")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range v.Value().([]string) {
			if strings.HasPrefix(a, "SDBUS_CONF_") {
				out = append(out, a)
			}
		}
		return out
	}
	t.Cleanup(func() { managerCall(t, e, raw, "UnsetEnvironment", nil, []string{"SDBUS_CONF_A", "SDBUS_CONF_B"}) })
	steps := []struct {
		method string
		args   []any
		want   []string
	}{
		{"SetEnvironment", []any{[]string{"SDBUS_CONF_A=1", "SDBUS_CONF_B=two words"}}, []string{"SDBUS_CONF_A=1", "SDBUS_CONF_B=two words"}},
		{"SetEnvironment", []any{[]string{"SDBUS_CONF_A=3"}}, []string{"SDBUS_CONF_A=3", "SDBUS_CONF_B=two words"}},
		{"UnsetEnvironment", []any{[]string{"SDBUS_CONF_B"}}, []string{"SDBUS_CONF_A=3"}},
		{"UnsetAndSetEnvironment", []any{[]string{"SDBUS_CONF_A"}, []string{"SDBUS_CONF_B=4"}}, []string{"SDBUS_CONF_B=4"}},
	}
	for _, s := range steps {
		if got := managerCall(t, e, raw, s.method, nil, s.args...); got != "ok" {
			t.Fatalf("%s%v: %s", s.method, s.args, got)
		}
		if diff := cmp.Diff(s.want, env()); diff != "" {
			t.Errorf("after %s%v (-want +got):\n%s", s.method, s.args, diff)
		}
	}
	if got, want := managerCall(t, e, raw, "SetEnvironment", nil, []string{"1SDBUS=x"}), "org.freedesktop.DBus.Error.InvalidArgs: Invalid environment assignments"; got != want {
		t.Errorf("SetEnvironment(invalid) = %s, want %s", got, want)
	}
}

// testDump: Dump describes every loaded unit.
func testDump(t *testing.T, e *env) {
	raw := e.rawBus(t)
	var out string
	if got := managerCall(t, e, raw, "Dump", []any{&out}); got != "ok" {
		t.Fatalf("Dump: %s", got)
	}
	// Each unit's block starts with an arrow: "->", or "→" where
	// systemd's locale has UTF-8 (257 and later in the sandbox).
	for _, want := range []string{" Unit -.slice:\n", " Unit init.scope:\n", "\tUnit Active State: active"} {
		if !strings.Contains(out, want) {
			t.Errorf("Dump lacks %q", want)
		}
	}
}

// testUnitFilesWithFlags: EnableUnitFilesWithFlags and
// DisableUnitFilesWithFlags do what the boolean forms do (flag 1: runtime);
// flags outside the public mask are InvalidArgs.
func testUnitFilesWithFlags(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name, alias := e.unit("ufflags", "service"), e.unit("ufflagsalias", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", alias))
	var carries bool
	var changes []struct{ Type, Filename, Destination string }
	if got := managerCall(t, e, raw, "EnableUnitFilesWithFlags", []any{&carries, &changes}, []string{file}, uint64(1)); got != "ok" || !carries {
		t.Fatalf("EnableUnitFilesWithFlags(runtime) = %s, %v", got, carries)
	}
	if len(changes) != 3 {
		t.Errorf("EnableUnitFilesWithFlags changes = %v, want the link, the alias and the wants symlink", changes)
	}
	wantFileState(t, e, name, sdbus.UnitFileEnabledRuntime)
	if got := managerCall(t, e, raw, "DisableUnitFilesWithFlags", []any{&changes}, []string{name}, uint64(1)); got != "ok" || len(changes) == 0 {
		t.Errorf("DisableUnitFilesWithFlags(runtime) = %s, %v", got, changes)
	}
	wantFileState(t, e, name, "")
	if got := managerCall(t, e, raw, "EnableUnitFilesWithFlags", []any{&carries, &changes}, []string{file}, uint64(1<<10)); !strings.HasPrefix(got, "org.freedesktop.DBus.Error.InvalidArgs: ") {
		t.Errorf("EnableUnitFilesWithFlags(1<<10) = %s, want InvalidArgs", got)
	}
}
