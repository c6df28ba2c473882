package conformance

import (
	"sort"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Cases of the Manager methods that only some releases have
// (sdversions.Methods): each runs where the release has its method, with
// the answers measured on 252, 257 and 262.

const (
	invalidArgs   = "org.freedesktop.DBus.Error.InvalidArgs: "
	notSupported  = "org.freedesktop.DBus.Error.NotSupported: "
	noSuchUnit    = "org.freedesktop.systemd1.NoSuchUnit: "
	notApplicable = "org.freedesktop.systemd1.JobTypeNotApplicable: "
	noSuchProc    = "org.freedesktop.systemd1.NoSuchProcess: "
	badMessage    = "org.freedesktop.DBus.Error.InconsistentMessage: Bad message"
)

// needMethod reports whether the release has method; on one without, it
// checks that the method is unknown there.
func needMethod(t *testing.T, e *env, method string) bool {
	t.Helper()
	if sdversions.HasMethod(e.release, method) {
		return true
	}
	if got := managerCall(t, e, e.rawBus(t), method, nil); !strings.HasPrefix(got, "org.freedesktop.DBus.Error.UnknownMethod: ") {
		t.Errorf("%s on systemd %s = %s, want UnknownMethod", method, e.release, got)
	}
	return false
}

// callCase is one call of a table and its answer ("ok" or "Name: message").
type callCase struct {
	name string
	args []any
	want string
}

func runCalls(t *testing.T, e *env, conn *dbus.Conn, method string, cases []callCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, managerCall(t, e, conn, method, nil, tc.args...)); diff != "" {
				t.Errorf("%s%v (-want +got):\n%s", method, tc.args, diff)
			}
		})
	}
}

// testStartUnitWithFlags: flags 0 is StartUnit, with its checks; any
// other flag is refused after the name check and before the others.
func testStartUnitWithFlags(t *testing.T, e *env) {
	if !needMethod(t, e, "StartUnitWithFlags") {
		return
	}
	raw := e.rawBus(t)
	nope := e.unit("flags-none", "service")
	runCalls(t, e, raw, "StartUnitWithFlags", []callCase{
		{"bad name", []any{"bad name", "replace", uint64(2)}, invalidArgs + "Unit name bad name is not valid."},
		{"flag 1", []any{nope, "replace", uint64(1)}, invalidArgs + "Invalid 'flags' parameter '1'"},
		{"mode before the flags", []any{nope, "sideways", uint64(2)}, invalidArgs + "Job mode sideways invalid"},
		{"flags before the unit", []any{nope, "replace", uint64(2)}, invalidArgs + "Invalid 'flags' parameter '2'"},
		{"high flag", []any{"-.slice", "replace", uint64(1) << 63}, invalidArgs + "Invalid 'flags' parameter '9223372036854775808'"},
		{"bad mode", []any{nope, "sideways", uint64(0)}, invalidArgs + "Job mode sideways invalid"},
		{"unknown unit", []any{nope, "replace", uint64(0)}, noSuchUnit + "Unit " + nope + " not found."},
	})
	var p dbus.ObjectPath
	if got := managerCall(t, e, raw, "StartUnitWithFlags", []any{&p}, "-.slice", "replace", uint64(0)); got != "ok" || !strings.HasPrefix(string(p), "/org/freedesktop/systemd1/job/") {
		t.Errorf("StartUnitWithFlags(-.slice, replace, 0) = %s, %s; want a job", got, p)
	}
}

// testEnqueueMarkedJobs: with no unit marked, no job.
func testEnqueueMarkedJobs(t *testing.T, e *env) {
	if !needMethod(t, e, "EnqueueMarkedJobs") {
		return
	}
	var jobs []dbus.ObjectPath
	if got := managerCall(t, e, e.rawBus(t), "EnqueueMarkedJobs", []any{&jobs}); got != "ok" || len(jobs) != 0 {
		t.Errorf("EnqueueMarkedJobs = %s, %v; want ok, no jobs", got, jobs)
	}
}

// testLiveMounts: BindMountUnit and MountImageUnit of a unit that is not
// loaded, of a slice, of a service without a mount namespace of its own,
// and with relative paths (checked first on 252, after the unit from
// 257).
func testLiveMounts(t *testing.T, e *env) {
	if !needMethod(t, e, "BindMountUnit") {
		return
	}
	raw := e.rawBus(t)
	svc := e.unit("livemount", "service")
	cleanup(t, e, svc)
	wait(t, e, start(t, e, e.c, svc, sleeper()), sdbus.JobDone)
	nope := e.unit("livemount-none", "service")
	live := sdversions.Behaves(e.release, sdversions.LiveMountChecks)
	for _, method := range []string{"BindMountUnit", "MountImageUnit"} {
		args := func(unit, src, dst string) []any {
			a := []any{unit, src, dst, false, false}
			if method == "MountImageUnit" {
				a = append(a, []struct{ Partition, Options string }{})
			}
			return a
		}
		slice, noNS := invalidArgs+"Unit is not of type .service", invalidArgs+"Unit not running in private mount namespace, cannot activate bind mount"
		relSrc, relDst := invalidArgs+"Source path must be absolute and normalized.", invalidArgs+"Destination path must be absolute and normalized."
		if live {
			slice = notSupported + method + " operation is not supported for unit type 'slice'"
			noNS = invalidArgs + "Unit '" + svc + "' not running in private mount namespace, cannot live mount."
			relSrc, relDst = noNS, noNS
		}
		t.Run(method, func(t *testing.T) {
			runCalls(t, e, raw, method, []callCase{
				{"not loaded", args(nope, "etc", "/mnt"), noSuchUnit + "Unit " + nope + " not loaded."},
				{"bad name", args("bad name", "/etc", "/mnt"), noSuchUnit + "Unit bad name not loaded."},
				{"slice", args("-.slice", "/etc", "/mnt"), slice},
				{"no mount namespace", args(svc, "/etc", "/mnt/"), noNS},
				{"relative source", args(svc, "etc", "/mnt"), relSrc},
				{"source with dot-dot", args(svc, "/etc/../x", "/mnt"), relSrc},
				{"relative destination", args(svc, "/etc", "mnt"), relDst},
			})
		})
	}
}

// testGetUnitByPIDFD: a call whose pidfd did not come with it (a
// connection that does not pass file descriptors) is a bad message.
func testGetUnitByPIDFD(t *testing.T, e *env) {
	if !needMethod(t, e, "GetUnitByPIDFD") {
		return
	}
	if diff := cmp.Diff(badMessage, managerCall(t, e, e.rawBusNoFDs(t), "GetUnitByPIDFD", nil, dbus.UnixFDIndex(0))); diff != "" {
		t.Errorf("GetUnitByPIDFD without its fd (-want +got):\n%s", diff)
	}
}

// testStartAuxiliaryScope: the scope's name is checked, then its
// processes: none, or pidfds that did not come with the call. From 258
// the method, no longer listed, answers that it has been removed.
func testStartAuxiliaryScope(t *testing.T, e *env) {
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	name := e.unit("aux", "scope")
	if sdversions.Behaves(e.release, sdversions.AuxiliaryScopeRemoved) {
		// Unlisted, yet there.
		runCalls(t, e, e.rawBus(t), "StartAuxiliaryScope", []callCase{
			{"removed", []any{name, []dbus.UnixFDIndex{}, uint64(0), []prop{}}, notSupported + "StartAuxiliaryScope() method has been removed."},
			{"bad name", []any{"bad name", []dbus.UnixFDIndex{}, uint64(0), []prop{}}, notSupported + "StartAuxiliaryScope() method has been removed."},
			{"no arguments", nil, invalidArgs + "Invalid arguments '' to call org.freedesktop.systemd1.Manager.StartAuxiliaryScope(), expecting 'sahta(sv)'."},
		})
		return
	}
	if !needMethod(t, e, "StartAuxiliaryScope") {
		return
	}
	runCalls(t, e, e.rawBusNoFDs(t), "StartAuxiliaryScope", []callCase{
		{"bad name", []any{"bad name", []dbus.UnixFDIndex{}, uint64(0), []prop{}}, invalidArgs + `Invalid name "bad name" for auxiliary scope.`},
		{"not a scope", []any{"aux.service", []dbus.UnixFDIndex{}, uint64(0), []prop{}}, invalidArgs + `Name "aux.service" of auxiliary scope doesn't have .scope suffix.`},
		{"no processes", []any{name, []dbus.UnixFDIndex{}, uint64(0), []prop{}}, invalidArgs + "No processes can be migrated to auxiliary scope."},
		{"pidfd not passed", []any{name, []dbus.UnixFDIndex{0}, uint64(0), []prop{}}, badMessage},
	})
}

// testQueueSignalUnit: KillUnit's checks, then the signal must be a
// realtime one; SIGRTMIN ends a service's main process (its default
// action), failing the service.
func testQueueSignalUnit(t *testing.T, e *env) {
	if !needMethod(t, e, "QueueSignalUnit") {
		return
	}
	raw := e.rawBus(t)
	svc := e.unit("queuesig", "service")
	cleanup(t, e, svc)
	wait(t, e, start(t, e, e.c, svc, sleeper()), sdbus.JobDone)
	nope := e.unit("queuesig-none", "service")
	rt := int32(34)
	runCalls(t, e, raw, "QueueSignalUnit", []callCase{
		{"not loaded", []any{nope, "main", rt, int32(0)}, noSuchUnit + "Unit " + nope + " not loaded."},
		{"bad whom", []any{svc, "bogus", int32(0), int32(0)}, invalidArgs + "Invalid whom argument: bogus"},
		{"signal 0", []any{svc, "main", int32(0), int32(7)}, invalidArgs + "Signal number out of range."},
		{"signal 65", []any{svc, "main", int32(65), int32(7)}, invalidArgs + "Signal number out of range."},
		{"SIGTERM", []any{svc, "main", int32(15), int32(0)}, invalidArgs + "Value parameter only accepted for realtime signals (SIGRTMIN…SIGRTMAX), refusing for signal SIGTERM."},
		{"SIGHUP", []any{svc, "all", int32(1), int32(0)}, invalidArgs + "Value parameter only accepted for realtime signals (SIGRTMIN…SIGRTMAX), refusing for signal SIGHUP."},
		{"signal 33", []any{svc, "main", int32(33), int32(7)}, invalidArgs + "Value parameter only accepted for realtime signals (SIGRTMIN…SIGRTMAX), refusing for signal SIG33."},
		{"no control process", []any{svc, "control", rt, int32(7)}, noSuchProc + "No control process to kill"},
		{"slice main", []any{"-.slice", "main", rt, int32(7)}, noSuchProc + "slice units have no main processes"},
		{"slice control", []any{"-.slice", "control", rt, int32(7)}, noSuchProc + "slice units have no control processes"},
		{"main", []any{svc, "main", rt, int32(7)}, "ok"},
	})
	st := settle(t, e, svc, "failed", isFailed)
	if st.SubState != "failed" {
		t.Errorf("%s after SIGRTMIN: %+v, want failed", svc, st)
	}
	if got := unitProp(t, e, raw, svc, "org.freedesktop.systemd1.Service", "Result"); got != "signal" {
		t.Errorf("Result after SIGRTMIN = %v, want signal", got)
	}
	runCalls(t, e, raw, "QueueSignalUnit", []callCase{
		{"no main process", []any{svc, "main-fail", rt, int32(7)}, noSuchProc + "No main process to kill"},
		{"no process at all", []any{svc, "all-fail", rt, int32(7)}, noSuchProc + "No matching processes to kill"},
		{"all of none", []any{svc, "all", rt, int32(7)}, "ok"},
	})
}

// testEnqueueUnitJobMany: flags first, then the list, the job type, the
// mode and each unit; the reply lists the named units' jobs, a unit
// named twice once, in no fixed order.
func testEnqueueUnitJobMany(t *testing.T, e *env) {
	if !needMethod(t, e, "EnqueueUnitJobMany") {
		return
	}
	raw := e.rawBus(t)
	a, b := e.unit("many", "service"), e.unit("many", "service")
	for _, name := range []string{a, b} {
		cleanup(t, e, name)
		wait(t, e, start(t, e, e.c, name, sleeper()), sdbus.JobDone)
	}
	nope := e.unit("many-none", "service")
	runCalls(t, e, raw, "EnqueueUnitJobMany", []callCase{
		{"no units", []any{[]string{}, "bogus", "bogus", uint64(1)}, invalidArgs + "No units specified."},
		{"flags", []any{[]string{"bad name"}, "bogus", "bogus", uint64(1)}, invalidArgs + "Invalid flags parameter, must be 0."},
		{"bad name", []any{[]string{"bad name"}, "start", "replace", uint64(0)}, invalidArgs + "Unit name bad name is not valid."},
		{"bad type", []any{[]string{"-.slice"}, "bogus", "replace", uint64(0)}, invalidArgs + "Job type bogus invalid"},
		{"bad mode", []any{[]string{"-.slice"}, "start", "bogus", uint64(0)}, invalidArgs + "Job mode bogus invalid"},
		{"isolate stop", []any{[]string{"-.slice"}, "stop", "isolate", uint64(0)}, invalidArgs + "Isolate is only valid for start."},
		{"one unknown", []any{[]string{a, nope}, "start", "replace", uint64(0)}, noSuchUnit + "Unit " + nope + " not found."},
		{"one unknown, stop", []any{[]string{a, nope}, "stop", "replace", uint64(0)}, noSuchUnit + "Unit " + nope + " not loaded."},
		{"one unknown, verify-active", []any{[]string{a, nope}, "verify-active", "replace", uint64(0)}, noSuchUnit + "Unit " + nope + " not found."},
		{"reload without ExecReload=", []any{[]string{a}, "try-reload", "replace", uint64(0)}, notApplicable + "Job type reload is not applicable for unit " + a + "."},
	})
	var rows []struct {
		ID       uint32
		Job      dbus.ObjectPath
		Unit     string
		UnitPath dbus.ObjectPath
		Type     string
	}
	if got := managerCall(t, e, raw, "EnqueueUnitJobMany", []any{&rows}, []string{a, b, a}, "stop", "replace", uint64(0)); got != "ok" {
		t.Fatalf("EnqueueUnitJobMany(stop): %s", got)
	}
	var got [][3]string
	for _, r := range rows {
		got = append(got, [3]string{r.Unit, string(r.UnitPath), r.Type})
		if !strings.HasPrefix(string(r.Job), "/org/freedesktop/systemd1/job/") {
			t.Errorf("job path %s", r.Job)
		}
	}
	// systemd lists the jobs in no fixed order.
	sort.Slice(got, func(i, j int) bool { return got[i][0] < got[j][0] })
	want := [][3]string{{a, string(sdbus.UnitPath(a)), "stop"}, {b, string(sdbus.UnitPath(b)), "stop"}}
	sort.Slice(want, func(i, j int) bool { return want[i][0] < want[j][0] })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EnqueueUnitJobMany(stop) jobs (-want +got):\n%s", diff)
	}
	for _, name := range []string{a, b} {
		settle(t, e, name, "stopped", func(s sdbus.UnitState) bool {
			return s.ActiveState != sdbus.StateActive && s.ActiveState != "deactivating"
		})
	}
}

// testKillUnitSubgroup: the unit, whom, the sub-path, delegation and the
// signal are checked in that order; a sub-cgroup without processes has
// nothing to kill, one with a process attached has it, the unit's own
// cgroup has its processes.
func testKillUnitSubgroup(t *testing.T, e *env) {
	if !needMethod(t, e, "KillUnitSubgroup") {
		return
	}
	raw := e.rawBus(t)
	plain, deleg := e.unit("killsub-plain", "service"), e.unit("killsub-deleg", "service")
	cleanup(t, e, plain)
	cleanup(t, e, deleg)
	wait(t, e, start(t, e, e.c, plain, sleeper()), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, deleg, sleeper(sdbus.PropDelegate(true))), sdbus.JobDone)
	nope := e.unit("killsub-none", "service")
	const notDelegated = "Killing by subgroup is only available for units with control group delegation enabled."
	const onlyCgroup = "Subgroup can only be specified in combination with 'cgroup' or 'cgroup-fail'."
	// A sub-cgroup with a process in it (SIGCONT reaches it harmlessly).
	e.subcgroup(t, e, deleg, "/withproc")
	if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
		"org.freedesktop.systemd1.Manager.AttachProcessesToUnit", 0, deleg, "/withproc", []uint32{child(t)}).Store(); err != nil {
		t.Fatal(err)
	}
	runCalls(t, e, raw, "KillUnitSubgroup", []callCase{
		{"not loaded", []any{nope, "cgroup", "/sub", int32(15)}, noSuchUnit + "Unit " + nope + " not loaded."},
		{"bad whom", []any{plain, "bogus", "sub", int32(0)}, invalidArgs + "Invalid whom argument: bogus"},
		{"whom main", []any{plain, "main", "/sub", int32(10)}, invalidArgs + onlyCgroup},
		{"whom all", []any{deleg, "all", "/sub", int32(15)}, invalidArgs + onlyCgroup},
		{"dot-dot", []any{plain, "cgroup", "/sub/../x", int32(0)}, invalidArgs + "Specified cgroup sub-path is not valid."},
		{"double slash", []any{deleg, "cgroup", "//sub", int32(10)}, invalidArgs + "Specified cgroup sub-path is not valid."},
		{"not delegated", []any{plain, "cgroup", "/sub", int32(15)}, notSupported + notDelegated},
		{"slice", []any{"-.slice", "cgroup", "/sub", int32(15)}, notSupported + notDelegated},
		{"signal 0", []any{deleg, "cgroup", "/sub", int32(0)}, invalidArgs + "Signal number out of range."},
		{"signal 65", []any{deleg, "cgroup", "/sub", int32(65)}, invalidArgs + "Signal number out of range."},
		{"missing sub-cgroup", []any{deleg, "cgroup", "/sub", int32(10)}, "ok"},
		{"relative, trailing slash", []any{deleg, "cgroup", "sub/", int32(10)}, "ok"},
		{"missing sub-cgroup, fail", []any{deleg, "cgroup-fail", "/sub", int32(10)}, noSuchProc + "No matching processes to kill"},
		{"sub-cgroup with a process, fail", []any{deleg, "cgroup-fail", "withproc/", int32(18)}, "ok"},
		{"own cgroup", []any{deleg, "cgroup", "", int32(9)}, "ok"},
	})
	settle(t, e, deleg, "failed", isFailed)
}

// testRemoveSubgroupFromUnit: the name, the unit, flags, delegation and
// the path are checked in that order; a missing sub-cgroup is no error,
// a unit that is not running has no control group to remove from.
func testRemoveSubgroupFromUnit(t *testing.T, e *env) {
	if !needMethod(t, e, "RemoveSubgroupFromUnit") {
		return
	}
	raw := e.rawBus(t)
	plain, deleg, failed := e.unit("rmsub-plain", "service"), e.unit("rmsub-deleg", "service"), e.unit("rmsub-failed", "service")
	for _, name := range []string{plain, deleg, failed} {
		cleanup(t, e, name)
	}
	wait(t, e, start(t, e, e.c, plain, sleeper()), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, deleg, sleeper(sdbus.PropDelegate(true))), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, failed, append(oneshot("/bin/false"), sdbus.PropDelegate(true))), sdbus.JobFailed)
	e.subcgroup(t, e, deleg, "/sub")
	nope := e.unit("rmsub-none", "service")
	runCalls(t, e, raw, "RemoveSubgroupFromUnit", []callCase{
		{"bad name", []any{"bad name", "/sub", uint64(1)}, invalidArgs + "Unit name bad name is not valid."},
		{"unknown unit", []any{nope, "/sub", uint64(1)}, noSuchUnit + "Unit " + nope + " not found."},
		{"flags", []any{plain, "/sub", uint64(1)}, invalidArgs + "Invalid 'flags' parameter '1'"},
		{"not delegated", []any{plain, "sub", uint64(0)}, invalidArgs + "Subcgroup removal not available on non-delegated units."},
		{"slice", []any{"-.slice", "/sub", uint64(0)}, invalidArgs + "Subcgroup removal not available on non-delegated units."},
		{"relative", []any{deleg, "sub", uint64(0)}, invalidArgs + "Control group path is not absolute: sub"},
		{"double slash", []any{deleg, "//sub", uint64(0)}, invalidArgs + "Control group path is not normalized: //sub"},
		{"not running", []any{failed, "/sub", uint64(0)}, "System.Error.EOWNERDEAD: Failed to remove subgroup /sub: Owner died"},
		{"missing", []any{deleg, "/nosub", uint64(0)}, "ok"},
		{"existing", []any{deleg, "/sub", uint64(0)}, "ok"},
		{"again", []any{deleg, "/sub", uint64(0)}, "ok"},
	})
}
