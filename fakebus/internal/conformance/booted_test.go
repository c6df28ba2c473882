package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Cases of the behaviours go-systemd's own test suite relies on: the units
// of a booted system, Exec* commands, KillUnit, Requisite=, Conflicts=,
// stops that propagate, transient sockets.

// execCmd is one element of an a(sasb) Exec* property.
type execCmd struct {
	Path          string
	Argv          []string
	IgnoreFailure bool
}

func execProp(name string, ignoreFailure bool, argv ...string) sdbus.Property {
	return sdbus.PropRaw(name, []execCmd{{argv[0], argv, ignoreFailure}})
}

// sleeper is a simple service that runs until it is stopped.
func sleeper(extra ...sdbus.Property) []sdbus.Property {
	return append([]sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart([]string{"/bin/sleep", "400"}, false)}, extra...)
}

func isActive(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActive }

func isFailed(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateFailed }

// testHostUnits: -.slice, system.slice, -.mount and init.scope are active
// and cannot be stopped; PID 1 is in init.scope; -.mount is in -.slice.
func testHostUnits(t *testing.T, e *env) {
	for _, tc := range []struct{ name, sub string }{
		{"-.slice", "active"}, {"system.slice", "active"}, {"-.mount", "mounted"}, {"init.scope", "running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := status(t, e, tc.name)
			got := [3]string{string(st.LoadState), string(st.ActiveState), st.SubState}
			if diff := cmp.Diff([3]string{"loaded", "active", tc.sub}, got); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if _, err := e.c.StopUnit(e.ctx, tc.name, sdbus.ModeReplace); err == nil {
				t.Errorf("StopUnit(%s) succeeded", tc.name)
			}
		})
	}
	if got, err := e.c.UnitByPID(e.ctx, 1); err != nil || got != "init.scope" {
		t.Errorf("UnitByPID(1) = %q, %v; want init.scope", got, err)
	}
	// Its ControlGroup is "" (it ran no mount command) on 252, 257 and
	// 262; on 247 it becomes /-.mount once another mount has started.
	if got := unitProp(t, e, e.rawBus(t), "-.mount", "org.freedesktop.systemd1.Mount", "Slice"); got != "-.slice" {
		t.Errorf("-.mount: Slice %q, want -.slice", got)
	}
}

// testStandardTargets: the standard targets that units' default
// dependencies name load from their unit files, and sysinit.target,
// basic.target and multi-user.target, which the boot pulled in, are
// active. (Their descriptions, and whether the others are active, are the
// sandbox's stub files' on systemd, so they are not compared.)
func testStandardTargets(t *testing.T, e *env) {
	for _, name := range []string{
		"sysinit.target", "basic.target", "multi-user.target", "sockets.target", "timers.target", "paths.target",
		"slices.target", "local-fs.target", "swap.target", "shutdown.target", "umount.target",
	} {
		if _, err := e.c.LoadUnit(e.ctx, name); err != nil {
			t.Fatalf("LoadUnit %s: %v", name, err)
		}
		st := status(t, e, name)
		if st.LoadState != "loaded" {
			t.Errorf("%s: LoadState %s, want loaded", name, st.LoadState)
		}
		switch name {
		case "sysinit.target", "basic.target", "multi-user.target":
			if st.ActiveState != "active" {
				t.Errorf("%s: %s, want active", name, st.ActiveState)
			}
			if name == "multi-user.target" && !e.user {
				// Booted to it: default.target stands for it.
				var def string
				if got := managerCall(t, e, e.rawBus(t), "GetDefaultTarget", []any{&def}); got != "ok" || def != name {
					t.Errorf("GetDefaultTarget = %s, %q; want %q", got, def, name)
				}
				if up, err := e.c.UnitProperties(e.ctx, "default.target"); err != nil || up.ID != name {
					t.Errorf("default.target: Id %q, %v; want %q", up.ID, err, name)
				}
			}
		case "shutdown.target", "umount.target":
			if st.ActiveState != "inactive" {
				t.Errorf("%s: %s, want inactive", name, st.ActiveState)
			}
		}
	}
}

// testExecCommands: a failing ExecStartPre= or ExecStartPost= fails the
// start (unit failed, exit-code) unless prefixed with "-"; a failing
// ExecReload= fails the reload job and leaves the unit running; a failing
// ExecStop= or ExecStopPost= leaves the stopped unit failed (exit-code).
func testExecCommands(t *testing.T, e *env) {
	for _, tc := range []struct {
		name   string
		props  []sdbus.Property
		start  sdbus.JobResult
		reload sdbus.JobResult // "": not reloaded
	}{
		{"pre fails", sleeper(execProp("ExecStartPre", false, "/bin/false")), sdbus.JobFailed, ""},
		{"pre fails, ignored", sleeper(execProp("ExecStartPre", true, "/bin/false")), sdbus.JobDone, ""},
		{"post fails", sleeper(execProp("ExecStartPost", false, "/bin/false")), sdbus.JobFailed, ""},
		{"reload fails", sleeper(execProp("ExecReload", false, "/bin/false")), sdbus.JobDone, sdbus.JobFailed},
		{"reload succeeds", sleeper(execProp("ExecReload", false, "/bin/true")), sdbus.JobDone, sdbus.JobDone},
		{"stop fails", sleeper(execProp("ExecStop", false, "/bin/false")), sdbus.JobDone, ""},
		{"stop post fails", sleeper(execProp("ExecStopPost", false, "/bin/false")), sdbus.JobDone, ""},
		{"stop fails, ignored", sleeper(execProp("ExecStop", true, "/bin/false")), sdbus.JobDone, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := e.unit("exec", "service")
			cleanup(t, e, name)
			wait(t, e, start(t, e, e.c, name, tc.props), tc.start)
			if tc.start == sdbus.JobFailed {
				st := settle(t, e, name, "failed", isFailed)
				if st.Result != "exit-code" {
					t.Errorf("Result = %q, want exit-code", st.Result)
				}
				return
			}
			if tc.reload != "" {
				j, err := e.c.ReloadUnit(e.ctx, name, sdbus.ModeReplace)
				if err != nil {
					t.Fatal(err)
				}
				wait(t, e, j, tc.reload)
			}
			settle(t, e, name, "active", func(s sdbus.UnitState) bool { return isActive(s) && s.SubState == "running" })
			// Stopping runs ExecStop= and ExecStopPost=: a failure leaves
			// the unit failed, the stop job done.
			stop(t, e, e.c, name)
			failing := strings.HasPrefix(tc.name, "stop") && !strings.HasSuffix(tc.name, "ignored")
			if !failing {
				settle(t, e, name, "stopped", gone)
				return
			}
			if st := settle(t, e, name, "failed", isFailed); st.Result != "exit-code" {
				t.Errorf("Result = %q, want exit-code", st.Result)
			}
		})
	}
}

// testKillUnitSignals: SIGTERM and SIGINT end a simple service cleanly
// (inactive, Result success, unloaded as it is transient); SIGKILL fails
// it with Result signal.
func testKillUnitSignals(t *testing.T, e *env) {
	for _, tc := range []struct {
		sig    syscall.Signal
		failed bool
	}{
		{syscall.SIGTERM, false}, {syscall.SIGINT, false}, {syscall.SIGKILL, true},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			name := e.unit("kill", "service")
			cleanup(t, e, name)
			wait(t, e, start(t, e, e.c, name, sleeper()), sdbus.JobDone)
			if err := e.c.KillUnit(e.ctx, name, sdbus.KillAll, tc.sig); err != nil {
				t.Fatal(err)
			}
			if !tc.failed {
				// Unloaded soon after, as a transient unit; systemd 252
				// sometimes keeps one loaded, inactive (a race of its GC).
				st := settle(t, e, name, "stopped", gone)
				if st.LoadState == sdbus.LoadLoaded && st.Result != "success" {
					t.Errorf("Result = %q, want success", st.Result)
				}
				return
			}
			st := settle(t, e, name, "failed", isFailed)
			if st.Result != "signal" {
				t.Errorf("Result = %q, want signal", st.Result)
			}
		})
	}
}

// testRequisite: a start whose Requisite= unit is missing fails the call;
// one whose Requisite= unit is not active ends with dependency, starting
// nothing; one whose Requisite= unit is active starts.
func testRequisite(t *testing.T, e *env) {
	missing := e.unit("missing", "service")
	name := e.unit("requisite", "service")
	_, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, sleeper(sdbus.PropRaw("Requisite", []string{missing})))
	if !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("Requisite= a unit that does not exist: %v, want NoSuchUnit", err)
	}

	slice := e.unit("inactive", "slice")
	name = e.unit("requisite", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, sleeper(sdbus.PropRaw("Requisite", []string{slice}))), sdbus.JobDependency)
	settle(t, e, name, "gone", gone)
	if st := status(t, e, slice); st.ActiveState == sdbus.StateActive {
		t.Errorf("the requisite %s was started: %+v", slice, st)
	}

	cleanup(t, e, slice)
	wait(t, e, start(t, e, e.c, slice, sliceProps()), sdbus.JobDone)
	name = e.unit("requisite", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, sleeper(sdbus.PropRaw("Requisite", []string{slice}))), sdbus.JobDone)
}

// testConflicts: starting a unit stops the units it conflicts with, and
// those that conflict with it; the stopped unit stays loaded while the
// active one refers to it (by its Conflicts=).
func testConflicts(t *testing.T, e *env) {
	for _, reverse := range []bool{false, true} {
		name := "Conflicts"
		if reverse {
			name = "ConflictedBy"
		}
		t.Run(name, func(t *testing.T) {
			a, b := e.unit("conflicting", "service"), e.unit("conflicted", "service")
			cleanup(t, e, a)
			cleanup(t, e, b)
			bProps, aProps := sleeper(), sleeper(sdbus.PropConflicts(b))
			if reverse {
				bProps, aProps = sleeper(sdbus.PropConflicts(a)), sleeper()
			}
			wait(t, e, start(t, e, e.c, b, bProps), sdbus.JobDone)
			wait(t, e, start(t, e, e.c, a, aProps), sdbus.JobDone)
			settle(t, e, b, "stopped", gone)
			if st := status(t, e, a); !isActive(st) {
				t.Errorf("%s: %+v, want active", a, st)
			}
			// A unit with Conflicts= on b refers to b and keeps it
			// loaded; b's own Conflicts= on a keeps nothing of b.
			wantLoad := sdbus.LoadLoaded
			if reverse {
				wantLoad = sdbus.LoadNotFound
			}
			if st := status(t, e, b); st.LoadState != wantLoad || st.ActiveState != sdbus.StateInactive {
				t.Errorf("%s: %+v, want %s inactive", b, st, wantLoad)
			}
		})
	}
}

// testStopPropagation: stopping a unit stops the units that Require= it or
// are BoundTo= it; a BindsTo= unit that fails stops the bound unit, a
// Requires= one does not.
func testStopPropagation(t *testing.T, e *env) {
	for _, tc := range []struct {
		name, dep string
		kill      bool // fail the dependency with SIGKILL instead of stopping it
		stops     bool
	}{
		{"stop Requires", "Requires", false, true},
		{"stop BindsTo", "BindsTo", false, true},
		{"fail BindsTo", "BindsTo", true, true},
		{"fail Requires", "Requires", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dep, name := e.unit("dep", "service"), e.unit("dependent", "service")
			cleanup(t, e, name)
			cleanup(t, e, dep)
			wait(t, e, start(t, e, e.c, dep, sleeper()), sdbus.JobDone)
			wait(t, e, start(t, e, e.c, name, sleeper(sdbus.PropRaw(tc.dep, []string{dep}))), sdbus.JobDone)
			if tc.kill {
				if err := e.c.KillUnit(e.ctx, dep, sdbus.KillAll, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				settle(t, e, dep, "failed", isFailed)
			} else {
				stop(t, e, e.c, dep)
			}
			if tc.stops {
				settle(t, e, name, "stopped", gone)
			} else if st := status(t, e, name); !isActive(st) {
				t.Errorf("%s: %+v, want active", name, st)
			}
		})
	}
}

// testTransientSocket: a transient socket with an auxiliary service of its
// name listens; the service stays loaded, inactive, until the socket is
// stopped and unloaded.
func testTransientSocket(t *testing.T, e *env) {
	base := "" // /tmp is private to a real systemd's sandbox
	if e.real {
		base = "/run"
	}
	dir, err := os.MkdirTemp(base, "sdbus-conf-socket")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := e.unit("sock", "socket")
	svc := sock[:len(sock)-len("socket")] + "service"
	cleanup(t, e, sock)
	cleanup(t, e, svc)
	listen := sdbus.PropRaw("Listen", []struct{ Type, Address string }{{"Stream", filepath.Join(dir, "s.sock")}})
	wait(t, e, start(t, e, e.c, sock, []sdbus.Property{listen}, sdbus.AuxUnit{Name: svc, Properties: sleeper()}), sdbus.JobDone)
	if st := status(t, e, sock); !isActive(st) || st.SubState != "listening" {
		t.Errorf("%s: %+v, want active listening", sock, st)
	}
	if st := status(t, e, svc); st.LoadState != sdbus.LoadLoaded || st.ActiveState != sdbus.StateInactive {
		t.Errorf("%s: %+v, want loaded inactive", svc, st)
	}
	stop(t, e, e.c, sock)
	unloaded(t, e, sock)
	unloaded(t, e, svc)
}

// testSocketFollowsService: a listening socket whose service is started
// (by hand, not by a connection) is running while the service runs and
// listens again once the service is stopped (systemd's
// socket_trigger_notify).
func testSocketFollowsService(t *testing.T, e *env) {
	base := "" // /tmp is private to a real systemd's sandbox
	if e.real {
		base = "/run"
	}
	dir, err := os.MkdirTemp(base, "sdbus-conf-follow")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := e.unit("follow", "socket")
	svc := sock[:len(sock)-len("socket")] + "service"
	cleanup(t, e, sock)
	cleanup(t, e, svc)
	listen := sdbus.PropRaw("Listen", []struct{ Type, Address string }{{"Stream", filepath.Join(dir, "s.sock")}})
	wait(t, e, start(t, e, e.c, sock, []sdbus.Property{listen}, sdbus.AuxUnit{Name: svc, Properties: sleeper()}), sdbus.JobDone)
	type both struct{ Socket, Service string }
	subs := func() both { return both{status(t, e, sock).SubState, status(t, e, svc).SubState} }
	if diff := cmp.Diff(both{"listening", "dead"}, subs()); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
	j, err := e.c.StartUnit(e.ctx, svc, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	if diff := cmp.Diff(both{"running", "running"}, subs()); diff != "" {
		t.Errorf("service started (-want +got):\n%s", diff)
	}
	stop(t, e, e.c, svc)
	if diff := cmp.Diff(both{"listening", "dead"}, subs()); diff != "" {
		t.Errorf("service stopped (-want +got):\n%s", diff)
	}
	stop(t, e, e.c, sock)
}

// testBootedBus: the system bus's units are loaded, static and running,
// the socket running with its service, with the release's Debian
// descriptions and dbus.service's type (simple on 247, whose dbus-daemon
// does not notify). The fake has them (fakebus/boot.go); scripts/sandbox
// boots systemd with copies of Debian's.
func testBootedBus(t *testing.T, e *env) {
	type unit struct{ Load, Active, Sub, FileState, Description string }
	want := map[string]unit{
		"dbus.socket":  {"loaded", "active", "running", "static", "D-Bus System Message Bus Socket"},
		"dbus.service": {"loaded", "active", "running", "static", "D-Bus System Message Bus"},
	}
	got := map[string]unit{}
	for name := range want {
		p, err := e.c.UnitProperties(e.ctx, name)
		if err != nil {
			t.Fatalf("UnitProperties(%s): %v", name, err)
		}
		got[name] = unit{string(p.LoadState), string(p.ActiveState), p.SubState, p.UnitFileState, p.Description}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wantType := "simple"
	if sdversions.Behaves(e.release, sdversions.BusServiceNotify) {
		wantType = "notify"
	}
	v, err := e.c.UnitProperty(e.ctx, "dbus.service", "org.freedesktop.systemd1.Service", "Type")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Value().(string); got != wantType {
		t.Errorf("dbus.service Type %q, want %q", got, wantType)
	}
}
