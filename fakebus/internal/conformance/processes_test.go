package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// process is a real process of the test's own, to place in a unit.
type process struct {
	t   *testing.T
	cmd *exec.Cmd
}

func startProcess(t *testing.T) *process {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{t: t, cmd: cmd}
	t.Cleanup(p.end)
	return p
}

func (p *process) pid() uint32 { return uint32(p.cmd.Process.Pid) }

// end kills the process and reaps it; again is a no-op.
func (p *process) end() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// testScopeEndsWithItsProcesses pins what a scope does when its processes
// end: nothing while one is left; when the last one has gone, it goes from
// active/running to inactive/dead with Result success (although they were
// killed), with no job, and is collected (UnitRemoved; measured on 252).
func testScopeEndsWithItsProcesses(t *testing.T, e *env) {
	name := e.unit("scope-ends", "scope")
	cleanup(t, e, name)
	a, b := startProcess(t), startProcess(t)
	r := newSubscribedClient(t, e)
	j := start(t, e, e.c, name, scope(a.pid(), sdbus.PropPIDs(b.pid())))
	wait(t, e, j, sdbus.JobDone)
	if res, _ := r.awaitRemoved(j.Path()); res != "done" {
		t.Fatalf("start job of %s: %s", name, res)
	}

	// The first process ends: the scope runs on with the other one.
	a.end()
	for {
		if u, err := e.c.UnitByPID(e.ctx, a.pid()); err != nil || u != name {
			break
		}
		select {
		case <-e.ctx.Done():
			t.Fatalf("PID %d still belongs to %s after it ended", a.pid(), name)
		case <-time.After(10 * time.Millisecond): // the fake learns of the end asynchronously
		}
	}
	st := status(t, e, name)
	if st.ActiveState != sdbus.StateActive || st.SubState != "running" {
		t.Fatalf("with one of its two processes left, %s is %s/%s; want active/running", name, st.ActiveState, st.SubState)
	}

	// The last one ends: the scope ends and is collected.
	b.end()
	path := sdbus.UnitPath(name)
	// What changes from here: the unit's state (a PropertiesChanged
	// that repeats the state, as systemd's for the start job's end, is
	// not a change), its Result, jobs for it, its removal.
	got, state := []string(nil), "ActiveState=active SubState=running"
	results := map[string]bool{}
	for done := false; !done; {
		select {
		case sig := <-r.sigs:
			switch {
			case sig.Name == "org.freedesktop.systemd1.Manager.UnitRemoved" && len(sig.Body) == 2 && sig.Body[0] == name:
				got = append(got, "UnitRemoved")
				done = true
			case (sig.Name == "org.freedesktop.systemd1.Manager.JobNew" || sig.Name == "org.freedesktop.systemd1.Manager.JobRemoved") &&
				len(sig.Body) >= 3 && sig.Body[2] == name:
				got = append(got, sig.Name)
			case sig.Name == "org.freedesktop.DBus.Properties.PropertiesChanged" && sig.Path == path && len(sig.Body) == 3:
				iface, _ := sig.Body[0].(string)
				changed, _ := sig.Body[1].(map[string]dbus.Variant)
				switch iface {
				case "org.freedesktop.systemd1.Unit":
					if _, ok := changed["ActiveState"]; !ok {
						break
					}
					if s := "ActiveState=" + variantString(changed["ActiveState"]) + " SubState=" + variantString(changed["SubState"]); s != state {
						got, state = append(got, s), s
					}
				case "org.freedesktop.systemd1.Scope":
					results[variantString(changed["Result"])] = true
				}
			}
		case <-e.ctx.Done():
			t.Fatalf("%s was not collected after its last process ended; signals: %v", name, got)
		}
	}
	want := []string{"ActiveState=inactive SubState=dead", "UnitRemoved"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signals of %s after its last process ended (-want +got):\n%s", name, diff)
	}
	if diff := cmp.Diff(map[string]bool{"success": true}, results); diff != "" {
		t.Errorf("Result of %s in its PropertiesChanged (-want +got):\n%s", name, diff)
	}
	if _, err := e.c.GetUnit(e.ctx, name); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("GetUnit(%s) after it ended: %v; want ErrNoSuchUnit", name, err)
	}
}

func variantString(v dbus.Variant) string {
	s, _ := v.Value().(string)
	return s
}

// unitJobs lists the jobs of unit name as "ID TYPE STATE".
func unitJobs(t *testing.T, e *env, name string) []string {
	t.Helper()
	jobs, err := e.c.ListJobs(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, js := range jobs {
		if js.Unit == name {
			got = append(got, fmt.Sprintf("%d %s %s", js.ID, js.JobType, js.State))
		}
	}
	return got
}

// testStartJobLastsForStartCommands pins that a start job runs as long as
// the unit's start commands do (measured on 252): while ExecStartPre=
// runs, the unit is activating/start-pre and its start job is listed
// running; canceling the job leaves the start going on (the unit stays
// activating/start-pre); stopping the unit kills the command and leaves it
// failed, Result signal. A finite ExecStartPre= (sleep 1) ends the job done
// only once the unit has gone through start-pre to active.
func testStartJobLastsForStartCommands(t *testing.T, e *env) {
	for _, typ := range []sdbus.ServiceType{sdbus.ServiceSimple, sdbus.ServiceOneshot} {
		t.Run(string(typ)+", sleep infinity", func(t *testing.T) {
			name := e.unit("start-pre-"+string(typ), "service")
			cleanup(t, e, name)
			r := newSubscribedClient(t, e)
			j := start(t, e, e.c, name, []sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropType(typ),
				execProp("ExecStartPre", false, "/bin/sleep", "infinity"), sdbus.PropExecStart([]string{"/bin/sleep", "600"}, false)})
			settle(t, e, name, "activating/start-pre", func(s sdbus.UnitState) bool {
				return s.ActiveState == sdbus.StateActivating && s.SubState == "start-pre"
			})
			if diff := cmp.Diff([]string{fmt.Sprintf("%d start running", j.ID())}, unitJobs(t, e, name)); diff != "" {
				t.Errorf("jobs of %s while ExecStartPre= runs (-want +got):\n%s", name, diff)
			}
			if err := j.Cancel(e.ctx); err != nil {
				t.Fatalf("cancel the start job: %v", err)
			}
			if res, _ := r.awaitRemoved(j.Path()); res != "canceled" {
				t.Errorf("start job of %s ended %s; want canceled", name, res)
			}
			if st := status(t, e, name); st.ActiveState != sdbus.StateActivating || st.SubState != "start-pre" || st.JobID != 0 {
				t.Errorf("after its start job was canceled, %s is %s/%s with job %d; want activating/start-pre, no job", name, st.ActiveState, st.SubState, st.JobID)
			}
			stop(t, e, e.c, name)
			if st := status(t, e, name); st.ActiveState != sdbus.StateFailed || st.Result != "signal" {
				t.Errorf("stopped during ExecStartPre=, %s is %s, Result %s; want failed, signal", name, st.ActiveState, st.Result)
			}
		})
	}
	t.Run("oneshot, sleep 1", func(t *testing.T) {
		name := e.unit("start-pre-1", "service")
		cleanup(t, e, name)
		r := newSubscribedClient(t, e)
		j := start(t, e, e.c, name, []sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropType(sdbus.ServiceOneshot),
			sdbus.PropRemainAfterExit(true), execProp("ExecStartPre", false, "/bin/sleep", "1"), sdbus.PropExecStart([]string{"/bin/true"}, false)})
		res, before := r.awaitRemoved(j.Path())
		if res != "done" {
			t.Errorf("start job of %s ended %s; want done", name, res)
		}
		// The states the unit went through before its job ended; a
		// PropertiesChanged repeating a state is none, and activating/start
		// (ExecStart=/bin/true, over at once) may be coalesced away.
		var states []string
		for _, sig := range before {
			if sig.Name != "org.freedesktop.DBus.Properties.PropertiesChanged" || sig.Path != sdbus.UnitPath(name) || len(sig.Body) != 3 || sig.Body[0] != "org.freedesktop.systemd1.Unit" {
				continue
			}
			changed, _ := sig.Body[1].(map[string]dbus.Variant)
			if _, ok := changed["ActiveState"]; !ok {
				continue
			}
			s := variantString(changed["ActiveState"]) + "/" + variantString(changed["SubState"])
			if s != "activating/start" && (len(states) == 0 || states[len(states)-1] != s) {
				states = append(states, s)
			}
		}
		if len(states) > 0 && states[0] == "inactive/dead" {
			states = states[1:] // systemd's first PropertiesChanged of a new unit
		}
		if diff := cmp.Diff([]string{"activating/start-pre", "active/exited"}, states); diff != "" {
			t.Errorf("states of %s before its start job ended (-want +got):\n%s", name, diff)
		}
	})
}

// testStopJobLastsForExecStop pins that a stop job runs as long as the
// unit's ExecStop= commands do (measured on 252 and 262 by the
// differential tester): while they run the unit is deactivating/stop and
// its stop job running; a second StopUnit is that job; a start (replace)
// cancels it and waits until the stop ended, the unit still stopping;
// KillUnit of the command ends the stop (the unit fails, Result signal)
// and the start goes on: the unit runs again, Result success.
func testStopJobLastsForExecStop(t *testing.T, e *env) {
	name := e.unit("exec-stop", "service")
	cleanup(t, e, name)
	r := newSubscribedClient(t, e)
	wait(t, e, start(t, e, e.c, name, []sdbus.Property{sdbus.PropDescription("sdbus conformance"),
		sdbus.PropExecStart([]string{"/bin/sleep", "600"}, false), execProp("ExecStop", false, "/bin/sleep", "600")}), sdbus.JobDone)
	sj, err := e.c.StopUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	settle(t, e, name, "deactivating/stop", func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateDeactivating && s.SubState == "stop"
	})
	if diff := cmp.Diff([]string{fmt.Sprintf("%d stop running", sj.ID())}, unitJobs(t, e, name)); diff != "" {
		t.Errorf("jobs of %s while ExecStop= runs (-want +got):\n%s", name, diff)
	}
	again, err := e.c.StopUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID() != sj.ID() {
		t.Errorf("a second StopUnit is job %d; want the running stop job %d", again.ID(), sj.ID())
	}
	stj, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := r.awaitRemoved(sj.Path()); res != "canceled" {
		t.Errorf("stop job of %s ended %s; want canceled", name, res)
	}
	if diff := cmp.Diff([]string{fmt.Sprintf("%d start waiting", stj.ID())}, unitJobs(t, e, name)); diff != "" {
		t.Errorf("jobs of %s after a start while ExecStop= runs (-want +got):\n%s", name, diff)
	}
	if st := status(t, e, name); st.ActiveState != sdbus.StateDeactivating || st.SubState != "stop" {
		t.Errorf("after a start while ExecStop= runs, %s is %s/%s; want deactivating/stop", name, st.ActiveState, st.SubState)
	}
	if err := e.c.KillUnit(e.ctx, name, sdbus.KillControl, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait(t, e, stj, sdbus.JobDone)
	if st := status(t, e, name); st.ActiveState != sdbus.StateActive || st.SubState != "running" || st.Result != "success" {
		t.Errorf("started after ExecStop= was killed, %s is %s/%s, Result %s; want active/running, success", name, st.ActiveState, st.SubState, st.Result)
	}
	// Ends without ExecStop=: a main process killed fails the unit.
	if err := e.c.KillUnit(e.ctx, name, sdbus.KillMain, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	settle(t, e, name, "failed", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateFailed })
}

// testZombieKeepsScope: a scope started with a process that has exited
// but is not yet reaped (a zombie) is active/running and its name taken
// (a second StartTransientUnit answers UnitExists); it lists no process
// and stays running after the zombie is reaped, until stopped: the
// zombie never joined its cgroup, which never became populated, so
// systemd never sees it empty (found by the differential tester,
// measured on 247, 252, 257 and 262).
func testZombieKeepsScope(t *testing.T, e *env) {
	name := e.unit("zombie", "scope")
	cleanup(t, e, name)
	cmd := exec.Command("/bin/true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Wait() })
	pid := uint32(cmd.Process.Pid)
	// Exited, not reaped: state Z in /proc/PID/stat.
	for end := time.Now().Add(5 * time.Second); ; {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && len(b) > i+2 && b[i+2] == 'Z' {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("process %d never became a zombie", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	wait(t, e, start(t, e, e.c, name, scope(pid)), sdbus.JobDone)
	running := func(when string) {
		t.Helper()
		time.Sleep(300 * time.Millisecond) // longer than the fake's pollInterval
		if st := status(t, e, name); st.ActiveState != sdbus.StateActive || st.SubState != "running" {
			t.Fatalf("%s, %s is %s/%s; want active/running", when, name, st.ActiveState, st.SubState)
		}
	}
	running("with a zombie")
	if _, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeFail, scope(pid)); !errors.Is(err, sdbus.ErrUnitExists) {
		t.Errorf("StartTransientUnit of %s again: %v; want ErrUnitExists", name, err)
	}
	var procs []struct {
		Cgroup  string
		PID     uint32
		Cmdline string
	}
	raw := e.rawBus(t)
	if r := managerCall(t, e, raw, "GetUnitProcesses", []any{&procs}, name); r != "ok" || len(procs) != 0 {
		t.Errorf("GetUnitProcesses(%s): %s %v; want ok and none", name, r, procs)
	}
	_ = cmd.Wait() // reaped
	running("after the zombie was reaped")
}

// testScopeStartsOnce: a scope starts once. One that failed (its
// RuntimeMaxSec= elapsed: Result timeout) stays loaded, and StartUnit of
// it ends its job once, the scope still failed (unit_start's once_only);
// RestartUnit of a scope that ran, running or failed, is refused
// JobTypeNotApplicable (unit_can_start).
func testScopeStartsOnce(t *testing.T, e *env) {
	running, failing := e.unit("once-running", "scope"), e.unit("once-failing", "scope")
	cleanup(t, e, running)
	cleanup(t, e, failing)
	restart := func(name string) {
		t.Helper()
		if _, err := e.c.RestartUnit(e.ctx, name, sdbus.ModeReplace); !errors.Is(err, sdbus.ErrJobTypeNotApplicable) {
			t.Errorf("RestartUnit %s: %v; want ErrJobTypeNotApplicable", name, err)
		}
	}
	wait(t, e, start(t, e, e.c, running, scope(startProcess(t).pid())), sdbus.JobDone)
	restart(running)

	wait(t, e, start(t, e, e.c, failing, scope(startProcess(t).pid(), sdbus.PropRaw("RuntimeMaxUSec", uint64(1)))), sdbus.JobDone)
	settle(t, e, failing, "failed", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateFailed })
	j, err := e.c.StartUnit(e.ctx, failing, sdbus.ModeReplace)
	if err != nil {
		t.Fatalf("StartUnit %s: %v", failing, err)
	}
	wait(t, e, j, sdbus.JobOnce)
	if st := status(t, e, failing); st.ActiveState != sdbus.StateFailed || st.Result != "timeout" {
		t.Errorf("after StartUnit, %s is %s with Result %q; want failed, timeout", failing, st.ActiveState, st.Result)
	}
	restart(failing)
}

// testProcessMovesBetweenScopes: a process placed in a second scope
// leaves the first, as it leaves the first scope's cgroup: the first
// scope, empty, ends and is collected, and GetUnitByPID names the second
// (the fake kept it in both).
func testProcessMovesBetweenScopes(t *testing.T, e *env) {
	first, second := e.unit("move-a", "scope"), e.unit("move-b", "scope")
	cleanup(t, e, first)
	cleanup(t, e, second)
	p := startProcess(t)
	wait(t, e, start(t, e, e.c, first, scope(p.pid())), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, second, scope(p.pid())), sdbus.JobDone)
	unloaded(t, e, first)
	if u, err := e.c.UnitByPID(e.ctx, p.pid()); err != nil || u != second {
		t.Errorf("UnitByPID(%d) = %q, %v; want %s", p.pid(), u, err, second)
	}
	if st := status(t, e, second); st.ActiveState != sdbus.StateActive {
		t.Errorf("%s is %s; want active", second, st.ActiveState)
	}
}

// testScopeOwner: a scope takes User= and Group= when it is made (from
// 252; 247 refuses them, PropertyReadOnly) and, delegated, has its control
// group handed to them before its processes move in. An account this
// machine has not fails the scope, Result resources, and its process
// stays where it was; without Delegate= the account is not looked up. An
// unprivileged user manager can hand the group to its own user only.
func testScopeOwner(t *testing.T, e *env) {
	first := e.unit("owner-first", "scope")
	cleanup(t, e, first)
	p := startProcess(t)
	wait(t, e, start(t, e, e.c, first, scope(p.pid())), sdbus.JobDone)
	owned := func(user string, delegate bool, pid uint32) []sdbus.Property {
		return scope(pid, sdbus.PropRaw("User", user), sdbus.PropDelegate(delegate))
	}
	self := strconv.Itoa(os.Geteuid())
	if !sdversions.Behaves(e.release, sdversions.ScopeUser) {
		_, err := e.c.StartTransientUnit(e.ctx, e.unit("owner", "scope"), sdbus.ModeReplace, owned(self, true, p.pid()))
		if !errors.Is(err, sdbus.ErrNotSupported) {
			t.Errorf("a scope's User= on %s: %v, want %v", e.release, err, sdbus.ErrNotSupported)
		}
		return
	}
	failed := func(name, why string, props []sdbus.Property) {
		t.Helper()
		cleanup(t, e, name)
		wait(t, e, start(t, e, e.c, name, props), sdbus.JobFailed)
		if st := status(t, e, name); st.ActiveState != sdbus.StateFailed || st.Result != "resources" {
			t.Errorf("%s: %s/%s, Result %q; want failed, Result resources", why, st.ActiveState, st.SubState, st.Result)
		}
		if u, err := e.c.UnitByPID(e.ctx, p.pid()); err != nil || u != first {
			t.Errorf("%s: UnitByPID(%d) = %q, %v; want %s, where the process was", why, p.pid(), u, err, first)
		}
	}
	failed(e.unit("owner-missing", "scope"), "User= no account has", owned("sdbus-no-such-user", true, p.pid()))
	failed(e.unit("owner-group", "scope"), "Group= no account has", append(owned(self, true, p.pid()), sdbus.PropRaw("Group", "sdbus-no-such-group")))
	if os.Geteuid() != 0 {
		failed(e.unit("owner-root", "scope"), "User=root in a user's manager", owned("root", true, p.pid()))
	}
	if st := status(t, e, first); st.ActiveState != sdbus.StateActive {
		t.Errorf("%s, left its process, is %s; want active", first, st.ActiveState)
	}
	undelegated := e.unit("owner-undelegated", "scope")
	cleanup(t, e, undelegated)
	wait(t, e, start(t, e, e.c, undelegated, owned("sdbus-no-such-user", false, child(t))), sdbus.JobDone)

	second := e.unit("owner-second", "scope")
	cleanup(t, e, second)
	wait(t, e, start(t, e, e.c, second, owned(self, true, p.pid())), sdbus.JobDone)
	unloaded(t, e, first)
	if u, err := e.c.UnitByPID(e.ctx, p.pid()); err != nil || u != second {
		t.Errorf("UnitByPID(%d) = %q, %v; want %s", p.pid(), u, err, second)
	}
}

// testRestartOnFailure: a service whose program fails restarts as its
// Restart=on-failure says, waiting in activating/auto-restart between runs
// (RestartSec=, 100 ms), each restart counted in NRestarts, until the start
// rate limit (five starts in ten seconds) refuses one: the unit then fails
// for good, Result exit-code (start-limit-hit on 262), NRestarts 5. With a
// long RestartSec= it waits: ResetFailedUnit makes its Result success and
// NRestarts 0, a StartUnit waits for the restart (247, 252) or restarts it
// now (257 on: NRestarts 1), and StopUnit ends the wait.
func testRestartOnFailure(t *testing.T, e *env) {
	failing := func(extra ...sdbus.Property) []sdbus.Property {
		return append([]sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart([]string{"/bin/false"}, false),
			sdbus.PropRaw("Restart", "on-failure")}, extra...)
	}
	name := e.unit("restart", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, failing()), sdbus.JobDone)
	// Failed after each run, for a moment: failed for good once the
	// start rate limit refused a restart (the fifth).
	var sp sdbus.ServiceProperties
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	for sp.NRestarts < 5 || sp.Result == "" {
		if _, err := e.c.WaitUnitState(ctx, name, isFailed); err != nil {
			t.Fatalf("%s never failed for good: %v (NRestarts %d)", name, err, sp.NRestarts)
		}
		var err error
		if sp, err = e.c.ServiceProperties(e.ctx, name); err != nil {
			t.Fatal(err)
		}
		if st := status(t, e, name); !isFailed(st) {
			sp.Result = "" // restarting again
		}
	}
	want := "exit-code"
	if sdversions.Behaves(e.release, sdversions.StartLimitHitResult) {
		want = "start-limit-hit"
	}
	if sp.Result != want || sp.NRestarts != 5 {
		t.Errorf("after the restarts: Result %q, NRestarts %d; want %q, 5", sp.Result, sp.NRestarts, want)
	}

	held := e.unit("restartheld", "service")
	cleanup(t, e, held)
	wait(t, e, start(t, e, e.c, held, failing(sdbus.PropRaw("RestartUSec", uint64(time.Hour/time.Microsecond)))), sdbus.JobDone)
	waiting := func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateActivating && s.SubState == "auto-restart"
	}
	settle(t, e, held, "waiting to restart", waiting)
	if err := e.c.ResetFailedUnit(e.ctx, held); err != nil {
		t.Fatal(err)
	}
	if sp, err := e.c.ServiceProperties(e.ctx, held); err != nil || sp.Result != "success" || sp.NRestarts != 0 {
		t.Errorf("ResetFailedUnit while it waits: Result %q, NRestarts %d, %v; want success, 0", sp.Result, sp.NRestarts, err)
	}
	j, err := e.c.StartUnit(e.ctx, held, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	restartsNow := sdversions.Behaves(e.release, sdversions.StartRestartsNow)
	if restartsNow {
		// The restart now: the program runs again, fails again, and
		// the service waits to restart once more.
		wait(t, e, j, sdbus.JobDone)
		settle(t, e, held, "waiting to restart again", waiting)
		if sp, err := e.c.ServiceProperties(e.ctx, held); err != nil || sp.NRestarts != 1 || sp.Result != "exit-code" {
			t.Errorf("StartUnit while it waits: Result %q, NRestarts %d, %v; want exit-code, 1", sp.Result, sp.NRestarts, err)
		}
	} else {
		jobs, err := e.c.ListJobs(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(jobs, func(q sdbus.JobStatus) bool { return q.ID == j.ID() && q.State == "waiting" }) {
			t.Errorf("StartUnit while it waits: jobs %+v; want job %d waiting", jobs, j.ID())
		}
		if st := status(t, e, held); !waiting(st) {
			t.Errorf("after StartUnit: %s/%s; want activating/auto-restart", st.ActiveState, st.SubState)
		}
	}
	stop(t, e, e.c, held)
	settle(t, e, held, "stopped", gone)
	if !restartsNow {
		if r, _ := j.Wait(e.ctx); r != sdbus.JobCanceled {
			t.Errorf("the start job that waited: %s; want canceled", r)
		}
	}
}

// exitStatusSet is an exit status set as StartTransientUnit takes it
// (aiai): exit statuses, then signals.
type exitStatusSet struct{ Status, Signal []int32 }

// testExitStatusSets: SuccessExitStatus= makes an exit status or a signal
// a clean end of a service's main process; a oneshot service's main
// process killed by SIGTERM fails it (any other type's ends cleanly);
// RestartPreventExitStatus= keeps a service from restarting, and
// RestartForceExitStatus= restarts it whatever Restart= says (here
// until the start rate limit refuses a start: start-limit-hit, as its
// runs succeeded, NRestarts 2); a status out of 0-255 is InvalidArgs.
func testExitStatusSets(t *testing.T, e *env) {
	props := func(argv []string, extra ...sdbus.Property) []sdbus.Property {
		return append([]sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart(argv, false)}, extra...)
	}
	read := func(name string) sdbus.ServiceProperties {
		t.Helper()
		sp, err := e.c.ServiceProperties(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}

	clean := e.unit("exit-success", "service")
	cleanup(t, e, clean)
	wait(t, e, start(t, e, e.c, clean, props([]string{"/bin/sh", "-c", "exit 3"}, sdbus.PropRemainAfterExit(true),
		sdbus.PropRaw("SuccessExitStatus", exitStatusSet{Status: []int32{3}}))), sdbus.JobDone)
	settle(t, e, clean, "exited", func(s sdbus.UnitState) bool { return s.SubState == "exited" || isFailed(s) })
	if sp := read(clean); sp.Result != "success" || sp.ExecMainStatus != 3 {
		t.Errorf("exit 3 with SuccessExitStatus=3: Result %q, ExecMainStatus %d; want success, 3", sp.Result, sp.ExecMainStatus)
	}

	for _, tc := range []struct {
		name    string
		success []int32 // SuccessExitStatus= signals
		want    string  // Result after SIGTERM
	}{
		{"oneshot", nil, "signal"},
		{"oneshot-success", []int32{int32(syscall.SIGTERM)}, "success"},
	} {
		name := e.unit("exit-"+tc.name, "service")
		cleanup(t, e, name)
		extra := []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropRemainAfterExit(true)}
		if tc.success != nil {
			extra = append(extra, sdbus.PropRaw("SuccessExitStatus", exitStatusSet{Status: []int32{}, Signal: tc.success}))
		}
		j, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, props([]string{"/bin/sleep", "1000"}, extra...))
		if err != nil {
			t.Fatal(err)
		}
		settle(t, e, name, "starting", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActivating })
		if err := e.c.KillUnit(e.ctx, name, sdbus.KillMain, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		want := sdbus.JobDone
		if tc.want != "success" {
			want = sdbus.JobFailed
		}
		wait(t, e, j, want)
		if sp := read(name); sp.Result != tc.want {
			t.Errorf("%s: a oneshot service's main process killed by SIGTERM: Result %q; want %q", tc.name, sp.Result, tc.want)
		}
	}

	prevented := e.unit("exit-prevent", "service")
	cleanup(t, e, prevented)
	wait(t, e, start(t, e, e.c, prevented, props([]string{"/bin/false"}, sdbus.PropRaw("Restart", "on-failure"),
		sdbus.PropRaw("RestartPreventExitStatus", exitStatusSet{Status: []int32{1}}))), sdbus.JobDone)
	settle(t, e, prevented, "failed", isFailed)
	if sp := read(prevented); sp.Result != "exit-code" || sp.NRestarts != 0 {
		t.Errorf("Restart=on-failure with RestartPreventExitStatus=1, exit 1: Result %q, NRestarts %d; want exit-code, 0", sp.Result, sp.NRestarts)
	}

	forced := e.unit("exit-force", "service")
	cleanup(t, e, forced)
	wait(t, e, start(t, e, e.c, forced, props([]string{"/bin/true"}, sdbus.PropRaw("StartLimitBurst", uint32(2)),
		sdbus.PropRaw("RestartForceExitStatus", exitStatusSet{Status: []int32{0}}))), sdbus.JobDone)
	settle(t, e, forced, "failed", isFailed)
	if sp := read(forced); sp.Result != "start-limit-hit" || sp.NRestarts != 2 {
		t.Errorf("Restart=no with RestartForceExitStatus=0, exit 0: Result %q, NRestarts %d; want start-limit-hit, 2", sp.Result, sp.NRestarts)
	}

	_, err := e.c.StartTransientUnit(e.ctx, e.unit("exit-range", "service"), sdbus.ModeReplace,
		props([]string{"/bin/true"}, sdbus.PropRaw("SuccessExitStatus", exitStatusSet{Status: []int32{256}})))
	var se *sdbus.Error
	if !errors.Is(err, sdbus.ErrInvalidArgs) || !errors.As(err, &se) || se.Message != "Invalid status code in SuccessExitStatus: 256" {
		t.Errorf("SuccessExitStatus=256: %v; want InvalidArgs \"Invalid status code in SuccessExitStatus: 256\"", err)
	}
}

// testOnFailureJobModes: OnFailureJobMode= takes any job mode (one
// systemd does not know is InvalidArgs) and is the mode of the jobs a
// failure queues (ignore-dependencies starts the handler all the same);
// isolate with more than one unit named is a bad setting.
func testOnFailureJobModes(t *testing.T, e *env) {
	props := func(extra ...sdbus.Property) []sdbus.Property {
		return append([]sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart([]string{"/bin/false"}, false)}, extra...)
	}
	bogus := e.unit("jobmode-bogus", "service")
	cleanup(t, e, bogus)
	_, err := e.c.StartTransientUnit(e.ctx, bogus, sdbus.ModeReplace, props(sdbus.PropRaw("OnFailureJobMode", "bogus")))
	if !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Errorf("OnFailureJobMode=bogus: %v; want InvalidArgs", err)
	}

	many := e.unit("jobmode-isolate", "service")
	cleanup(t, e, many)
	_, err = e.c.StartTransientUnit(e.ctx, many, sdbus.ModeReplace, props(sdbus.PropRaw("OnFailureJobMode", "isolate"),
		sdbus.PropRaw("OnFailure", []string{e.unit("jobmode-a", "slice"), e.unit("jobmode-b", "slice")})))
	if !errors.Is(err, sdbus.ErrBadUnitSetting) {
		t.Errorf("OnFailureJobMode=isolate with two OnFailure= units: %v; want BadUnitSetting", err)
	}

	handler := e.unit("jobmode-handler", "slice")
	cleanup(t, e, handler)
	name := e.unit("jobmode", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, props(sdbus.PropRaw("OnFailureJobMode", "ignore-dependencies"),
		sdbus.PropRaw("OnFailure", []string{handler}))), sdbus.JobDone)
	settle(t, e, handler, "started by OnFailure=", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActive })
	v, err := e.c.UnitProperty(e.ctx, name, "org.freedesktop.systemd1.Unit", "OnFailureJobMode")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Value().(string); got != "ignore-dependencies" {
		t.Errorf("OnFailureJobMode reads %q; want ignore-dependencies", got)
	}
}

// testOnFailureStarts: a service that fails starts the units its
// OnFailure= names (here a slice, which loads without a file), one that
// ends cleanly or is stopped those of OnSuccess= (from 252), and a unit it
// names that does not exist is passed over.
func testOnFailureStarts(t *testing.T, e *env) {
	for _, tc := range []struct {
		name, setting string
		argv          []string
	}{
		{"onfailure", "OnFailure", []string{"/bin/false"}},
		{"onsuccess", "OnSuccess", []string{"/bin/true"}},
	} {
		if !sdversions.HasProperty(e.release, tc.setting, "service") {
			continue // 247 has no OnSuccess=
		}
		handler := e.unit(tc.name+"-handler", "slice")
		cleanup(t, e, handler)
		name := e.unit(tc.name, "service")
		cleanup(t, e, name)
		props := []sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart(tc.argv, false),
			sdbus.PropRaw(tc.setting, []string{e.unit(tc.name+"-missing", "service"), handler})}
		wait(t, e, start(t, e, e.c, name, props), sdbus.JobDone)
		settle(t, e, handler, "started by "+tc.setting, func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActive })
	}
	if !sdversions.HasProperty(e.release, "OnSuccess", "service") {
		return
	}
	// A stop starts the OnSuccess= units too. One that ends the service
	// at once (nothing left running) lets their jobs run before systemd
	// looks at the service again: it is unloaded. One that kills a
	// process ends it when systemd sees the process's end, which looks at
	// the service before their jobs run: it stays loaded.
	for _, tc := range []struct {
		name    string
		props   []sdbus.Property
		running string // its SubState once it runs as the stop finds it
		stays   bool
	}{
		{"stopped-at-once", []sdbus.Property{sdbus.PropExecStart([]string{"/bin/true"}, false), sdbus.PropRaw("RemainAfterExit", true)}, "exited", false},
		{"stopped-by-signal", []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "1000"}, false)}, "running", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handler := e.unit(tc.name+"-handler", "slice")
			cleanup(t, e, handler)
			name := e.unit(tc.name, "service")
			cleanup(t, e, name)
			props := append([]sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropRaw("OnSuccess", []string{handler})}, tc.props...)
			wait(t, e, start(t, e, e.c, name, props), sdbus.JobDone)
			// /bin/true may still run when the start job ends (at its
			// spawn): a stop then waits for its end, as for sleep.
			settle(t, e, name, tc.running, func(s sdbus.UnitState) bool { return s.SubState == tc.running })
			stop(t, e, e.c, name)
			settle(t, e, handler, "started by OnSuccess= at the stop", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActive })
			if !tc.stays {
				unloaded(t, e, name)
			} else if st := status(t, e, name); st.LoadState != sdbus.LoadLoaded || st.ActiveState != sdbus.StateInactive {
				t.Errorf("%s after its stop: %s/%s; want loaded, inactive", name, st.LoadState, st.ActiveState)
			}
		})
	}
}

// testRestartHoldOffs: where the release has them (254 on),
// RestartSteps= and RestartMaxDelayUSec= make a restarting service's
// hold-off grow (RestartUSecNext: 1 s before the first restart, 10 s
// before the second, from 1 s to 100 s in two steps), a maximum below
// RestartUSec= lowers it, and RestartMode=direct restarts a service
// without its failing in between: its OnFailure= unit does not start,
// where with RestartMode=normal it does (from 257), and a oneshot's start
// job runs on through the wait. A stop of a service waiting to restart
// starts its OnSuccess= unit.
func testRestartHoldOffs(t *testing.T, e *env) {
	if !sdversions.HasProperty(e.release, "RestartSteps", "service") {
		t.Skip("no RestartSteps= before 254")
	}
	props := func(argv []string, extra ...sdbus.Property) []sdbus.Property {
		return append([]sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart(argv, false)}, extra...)
	}
	service := func(t *testing.T, name, prop string) uint64 {
		t.Helper()
		v, err := e.c.UnitProperty(e.ctx, name, "org.freedesktop.systemd1.Service", prop)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := v.Value().(uint64)
		return n
	}
	waiting := func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateActivating && s.SubState == "auto-restart"
	}

	name := e.unit("holdoffs", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, props([]string{"/bin/false"}, sdbus.PropRaw("Restart", "on-failure"),
		sdbus.PropRaw("RestartUSec", uint64(time.Second/time.Microsecond)), sdbus.PropRaw("RestartSteps", uint32(2)),
		sdbus.PropRaw("RestartMaxDelayUSec", uint64(100*time.Second/time.Microsecond)))), sdbus.JobDone)
	if got := service(t, name, "RestartUSecNext"); got != 1_000_000 {
		t.Errorf("RestartUSecNext before the first restart: %d; want 1000000", got)
	}
	// Restarted once (after 1 s), failed again, waiting 10 s. The
	// hold-off is read between two reads that find the service waiting
	// with the same NRestarts: from 255 a restart that is due is first
	// auto-restart-queued with NRestarts counted and RestartUSecNext
	// still the first step's, so a read there says 1 s.
	restarts := func() (string, uint32) {
		t.Helper()
		st := status(t, e, name)
		sp, err := e.c.ServiceProperties(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return st.SubState, sp.NRestarts
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sub, n := restarts()
		if sub == "auto-restart" && n >= 1 {
			next := service(t, name, "RestartUSecNext")
			if sub2, n2 := restarts(); sub2 == sub && n2 == n {
				if next != 10_000_000 {
					t.Errorf("RestartUSecNext before the second restart: %d; want 10000000", next)
				}
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not wait for its second restart within 10 s (%s, NRestarts %d)", name, sub, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop(t, e, e.c, name)

	lowered := e.unit("holdoffs-lowered", "service")
	cleanup(t, e, lowered)
	wait(t, e, start(t, e, e.c, lowered, props([]string{"/bin/sleep", "3600"}, sdbus.PropRaw("RestartUSec", uint64(500_000)),
		sdbus.PropRaw("RestartMaxDelayUSec", uint64(300_000)))), sdbus.JobDone)
	if got := service(t, lowered, "RestartUSec"); got != 300_000 {
		t.Errorf("RestartUSec=500ms with RestartMaxDelayUSec=300ms reads %d; want 300000", got)
	}
	stop(t, e, e.c, lowered)

	active := func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActive }
	for _, mode := range []string{"direct", "normal"} {
		t.Run(mode, func(t *testing.T) {
			handler := e.unit("holdoffs-"+mode+"-handler", "slice")
			cleanup(t, e, handler)
			success := e.unit("holdoffs-"+mode+"-success", "slice")
			cleanup(t, e, success)
			name := e.unit("holdoffs-"+mode, "service")
			cleanup(t, e, name)
			wait(t, e, start(t, e, e.c, name, props([]string{"/bin/false"}, sdbus.PropRaw("Restart", "on-failure"),
				sdbus.PropRaw("RestartMode", mode), sdbus.PropRaw("RestartUSec", uint64(time.Hour/time.Microsecond)),
				sdbus.PropRaw("OnFailure", []string{handler}), sdbus.PropRaw("OnSuccess", []string{success}))), sdbus.JobDone)
			settle(t, e, name, "waiting to restart", waiting)
			started := mode == "normal" && sdversions.Behaves(e.release, sdversions.OnTerminationWhenRestarting)
			if started {
				settle(t, e, handler, "started by OnFailure=", active)
			} else if st := status(t, e, handler); st.ActiveState != sdbus.StateInactive || st.JobID != 0 {
				t.Errorf("RestartMode=%s: the OnFailure= unit is %s (job %d); want inactive, no job", mode, st.ActiveState, st.JobID)
			}
			// A stop ends the wait: from activating to inactive, its
			// OnSuccess= unit starts, failed as it was.
			stop(t, e, e.c, name)
			settle(t, e, success, "started by OnSuccess= at the stop", active)
		})
	}

	// A oneshot's start job still runs when the service ends: with
	// RestartMode=direct it runs on through the wait (the service never
	// leaves activating), and a stop cancels it.
	oneshot := e.unit("holdoffs-direct-oneshot", "service")
	cleanup(t, e, oneshot)
	j := start(t, e, e.c, oneshot, props([]string{"/bin/false"}, sdbus.PropRaw("Type", "oneshot"), sdbus.PropRaw("Restart", "on-failure"),
		sdbus.PropRaw("RestartMode", "direct"), sdbus.PropRaw("RestartUSec", uint64(time.Hour/time.Microsecond))))
	settle(t, e, oneshot, "waiting to restart", waiting)
	select {
	case <-j.Done():
		res, err := j.Wait(e.ctx)
		t.Errorf("RestartMode=direct oneshot: the start job ended (%s, %v) while the service waits to restart; want it running", res, err)
	default:
	}
	stop(t, e, e.c, oneshot)
	wait(t, e, j, sdbus.JobCanceled)
}

// testKillModeNoneLeavesProcess: a stop of a KillMode=none service signals
// nothing. Its program runs on in its control group, no longer the main
// process (MainPID 0) but listed by GetUnitProcesses and found by
// GetUnitByPID, and the unit stays loaded, inactive/dead, with its control
// group, until the program ends by itself or a KillUnit to all ends it:
// then it is collected.
func testKillModeNoneLeavesProcess(t *testing.T, e *env) {
	raw := e.rawBus(t)
	for _, tc := range []struct {
		name string
		argv []string
		kill bool
	}{
		{"ends", []string{"/bin/sleep", "2"}, false},
		{"killed", []string{"/bin/sleep", "400"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := e.unit("kill-none-"+tc.name, "service")
			cleanup(t, e, name)
			wait(t, e, start(t, e, e.c, name, []sdbus.Property{sdbus.PropDescription("sdbus conformance"),
				sdbus.PropExecStart(tc.argv, false), sdbus.PropKillMode(sdbus.KillNone)}), sdbus.JobDone)
			pid := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "MainPID").(uint32)
			cmd := strings.Join(tc.argv, " ")
			// systemd's child runs the program a moment after the start
			// job ended: stopped before, it would be left set up only.
			for procs := unitProcesses(t, e, raw, name); len(procs) != 1 || procs[0].Cmd != cmd; procs = unitProcesses(t, e, raw, name) {
				select {
				case <-e.ctx.Done():
					t.Fatalf("GetUnitProcesses(%s) = %+v, never its program", name, procs)
				case <-time.After(10 * time.Millisecond):
				}
			}
			stop(t, e, e.c, name)

			st := status(t, e, name)
			if st.LoadState != sdbus.LoadLoaded || st.ActiveState != sdbus.StateInactive || st.SubState != "dead" {
				t.Fatalf("%s after its stop: %s %s/%s, want loaded inactive/dead", name, st.LoadState, st.ActiveState, st.SubState)
			}
			if got := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "MainPID").(uint32); got != 0 {
				t.Errorf("%s's MainPID after its stop = %d, want 0", name, got)
			}
			if cg := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "ControlGroup").(string); !strings.HasSuffix(cg, "/"+name) {
				t.Errorf("%s's ControlGroup after its stop = %q, want its own", name, cg)
			}
			if procs := unitProcesses(t, e, raw, name); len(procs) != 1 || procs[0].PID != pid || procs[0].Cmd != cmd {
				t.Errorf("GetUnitProcesses(%s) after its stop = %+v, want its program, PID %d", name, procs, pid)
			}
			if got, err := e.c.UnitByPID(e.ctx, pid); err != nil || got != name {
				t.Errorf("UnitByPID(%d) = %q, %v; want %s", pid, got, err, name)
			}
			if tc.kill {
				if err := e.c.KillUnit(e.ctx, name, sdbus.KillAll, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			unloaded(t, e, name)
		})
	}
}

// testKillModeNoneScopeKeepsProcesses: a stop of a scope with
// KillMode=none signals none of its processes; the scope goes
// inactive/dead and stays loaded, listing them, until the last one ends.
func testKillModeNoneScopeKeepsProcesses(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("kill-none", "scope")
	cleanup(t, e, name)
	p := startProcess(t)
	wait(t, e, start(t, e, e.c, name, scope(p.pid(), sdbus.PropKillMode(sdbus.KillNone))), sdbus.JobDone)
	stop(t, e, e.c, name)
	st := status(t, e, name)
	if st.LoadState != sdbus.LoadLoaded || st.ActiveState != sdbus.StateInactive || st.SubState != "dead" {
		t.Fatalf("%s after its stop: %s %s/%s, want loaded inactive/dead", name, st.LoadState, st.ActiveState, st.SubState)
	}
	if procs := unitProcesses(t, e, raw, name); len(procs) != 1 || procs[0].PID != p.pid() {
		t.Errorf("GetUnitProcesses(%s) after its stop = %+v, want PID %d", name, procs, p.pid())
	}
	p.end()
	unloaded(t, e, name)
}

// processRow is a row of GetUnitProcesses.
type processRow struct {
	Cgroup string
	PID    uint32
	Cmd    string
}

// unitProcesses is GetUnitProcesses of name.
func unitProcesses(t *testing.T, e *env, raw *dbus.Conn, name string) []processRow {
	t.Helper()
	var procs []processRow
	if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
		"org.freedesktop.systemd1.Manager.GetUnitProcesses", 0, name).Store(&procs); err != nil {
		t.Fatal(err)
	}
	return procs
}
