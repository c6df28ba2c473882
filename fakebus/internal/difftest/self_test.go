package difftest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus/fakebus"
	"pgregory.net/rapid"
)

// TestDifferentialFakes runs the tester with fakebus on both sides: the
// same release must never differ from itself (a difference is the
// tester's own nondeterminism: timing, normalization). Sequences of up
// to 15 steps keep it short.
func TestDifferentialFakes(t *testing.T) {
	ctx := context.Background()
	a, stop, err := fakeBackend(fakebus.DefaultVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	st := &stats{}
	rapid.Check(t, check(ctx, a, func() (*Backend, func(), error) { return fakeBackend(fakebus.DefaultVersion) }, st, 15))
	t.Log(st)
}

// TestDifferentialFindsReleaseDifferences plants divergences: fakebus
// playing 247 against fakebus playing 262, which differ in the
// properties they take (MemoryZSwapMax=, the *Scale forms, ...). rapid
// must find one and shrink it (sequences of up to 8 steps, so that
// shrinking gets far within its time even under -race).
func TestDifferentialFindsReleaseDifferences(t *testing.T) {
	ctx := context.Background()
	a, stop, err := fakeBackend("262.1-1")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	rec := &recorder{name: t.Name()}
	st := &stats{}
	// What this test asks of shrinking (no longer than the first
	// diverging sequence) takes seconds: 5 s of it instead of TestMain's
	// default 2 minutes, unless the command line chose a time.
	if f := flag.Lookup("rapid.shrinktime"); f != nil && f.Value.String() == defaultShrinkTime.String() {
		flag.Set("rapid.shrinktime", "5s")
		defer flag.Set("rapid.shrinktime", defaultShrinkTime.String())
	}
	rec.run(func() {
		rapid.Check(rec, check(ctx, a, func() (*Backend, func(), error) { return fakeBackend("247.3-7+deb11u8") }, st, 8))
	})
	if !rec.failed.Load() {
		t.Fatalf("no divergence found between 262 and 247:\n%s", rec.text())
	}
	text := rec.text()
	t.Log(text)
	if !strings.Contains(text, "as a replay case") {
		t.Fatalf("no replay case printed:\n%s", text)
	}
	// rapid's shrinking is bounded in time (-rapid.shrinktime), and a
	// loaded machine makes it slow: what it must always achieve is a
	// sequence no longer than the first that diverged.
	first, last, step := st.firstFail.Load(), st.lastFail.Load(), st.lastFailStep.Load()
	t.Logf("shrunk from %d steps to %d, diverging at step %d", first, last, step)
	if last > first || step > last {
		t.Errorf("shrunk from %d steps to %d diverging at step %d; want at most %d", first, last, step, first)
	}
}

// TestKnownDocumented: every known difference is listed, by its ID, in
// docs/fakesystemd.md.
func TestKnownDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/fakesystemd.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range known {
		if !strings.Contains(string(doc), "`"+k.ID+"`") {
			t.Errorf("docs/fakesystemd.md does not list the known difference `%s`", k.ID)
		}
	}
}

func TestKnownMatches(t *testing.T) {
	real := Step{Op: "x", Reply: "J1", Units: []string{`u0.service: "loaded" After=["b", "a"] Wants=["c"]`}}
	for _, tc := range []struct {
		name string
		fake Step
		want string
	}{
		{"order only", Step{Op: "x", Reply: "J1", Units: []string{`u0.service: "loaded" After=["a", "b"] Wants=["c"]`}}, "dependency-order"},
		{"other names", Step{Op: "x", Reply: "J1", Units: []string{`u0.service: "loaded" After=["a", "d"] Wants=["c"]`}}, ""},
		{"other state", Step{Op: "x", Reply: "J1", Units: []string{`u0.service: "failed" After=["a", "b"] Wants=["c"]`}}, ""},
		{"other reply", Step{Op: "x", Reply: "J2", Units: []string{`u0.service: "loaded" After=["a", "b"] Wants=["c"]`}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := knownID(Op{Kind: OpStart}, real, tc.fake)
			if got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownRequirementErrorOrder(t *testing.T) {
	notFound := func(name string) Step {
		return Step{Op: "x", Reply: "org.freedesktop.systemd1.NoSuchUnit: Unit " + name + " not found.", Units: []string{"u7.target: org.freedesktop.systemd1.NoSuchUnit"}}
	}
	other := notFound("nosuch.service")
	other.Units = []string{`u7.target: "loaded" "inactive"/"dead"`}
	for _, tc := range []struct {
		name       string
		kind       OpKind
		real, fake Step
		want       string
	}{
		{"another requirement named", OpStart, notFound("dr1u1.service"), notFound("nosuch.service"), "requirement-error-order"},
		{"a restart", OpRestart, notFound("dr1u1.service"), notFound("dr1u0.service"), "requirement-error-order"},
		{"not a start", OpStop, notFound("dr1u1.service"), notFound("nosuch.service"), ""},
		{"another state", OpStart, notFound("dr1u1.service"), other, ""},
		{"another error", OpStart, notFound("dr1u1.service"), Step{Op: "x", Reply: "org.freedesktop.systemd1.UnitMasked: Unit nosuch.service is masked."}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownID(Op{Kind: tc.kind}, tc.real, tc.fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownScopeEndRace(t *testing.T) {
	const (
		newScope   = "JobNew J4 u3.scope"
		newService = "JobNew J3 u1.service"
		scopeDone  = "JobRemoved J4 u3.scope done"
		svcDone    = "JobRemoved J3 u1.service done"
	)
	step := func(signals ...string) Step {
		return Step{Op: "x", Reply: "J3", Signals: signals, Units: []string{`u3.scope: org.freedesktop.systemd1.NoSuchUnit`}}
	}
	const otherDone = "JobRemoved J5 u0.service done"
	fake := step(newService, newScope, svcDone, scopeDone)
	for _, tc := range []struct {
		name       string
		real, fake Step
		want       string
	}{
		{"the scope's end first", step(newService, newScope, scopeDone, svcDone), fake, "scope-end-race"},
		{"the scope's end before its JobNew", step(newService, scopeDone, newScope, svcDone), fake, "scope-end-race"},
		{"two services the other way round", step(newService, newScope, otherDone, svcDone, scopeDone), step(newService, newScope, svcDone, otherDone, scopeDone), ""},
		{"the scope's job failed", step(newService, newScope, "JobRemoved J4 u3.scope failed", svcDone), step(newService, newScope, svcDone, "JobRemoved J4 u3.scope failed"), ""},
		{"a unit differs too", Step{Op: "x", Reply: "J3", Signals: []string{newService, newScope, scopeDone, svcDone}, Units: []string{`u3.scope: "loaded"`}}, fake, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownID(Op{Kind: OpStop}, tc.real, tc.fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownMachineMounts(t *testing.T) {
	real := Step{Op: "x", Reply: "J1", Units: []string{`u6.timer: "loaded" After=["sysinit.target", "var.mount", "-.mount", "basic.target"]`}}
	for _, tc := range []struct {
		name string
		fake string
		want string
	}{
		{"the machine's mounts left out", `u6.timer: "loaded" After=["basic.target", "-.mount", "sysinit.target"]`, "machine-mounts"},
		{"-.mount left out too", `u6.timer: "loaded" After=["basic.target", "sysinit.target"]`, ""},
		{"another name left out", `u6.timer: "loaded" After=["-.mount", "sysinit.target"]`, ""},
		{"another state", `u6.timer: "failed" After=["basic.target", "-.mount", "sysinit.target"]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownID(Op{Kind: OpStartTransient}, real, Step{Op: "x", Reply: "J1", Units: []string{tc.fake}}); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestKnownSameState: only a difference in how a list is printed lets the
// comparison go on (runBoth); mount paths are such a list.
func TestKnownSameState(t *testing.T) {
	real := Step{Op: "x", Reply: "J1", Units: []string{`u4.slice: "loaded" RequiresMountsFor=["/z", "/x/y"]`}}
	for _, tc := range []struct {
		name string
		fake string
		want bool
	}{
		{"mount paths in another order", `u4.slice: "loaded" RequiresMountsFor=["/x/y", "/z"]`, true},
		{"other mount paths", `u4.slice: "loaded" RequiresMountsFor=["/x/y"]`, false},
		{"another state", `u4.slice: "failed" RequiresMountsFor=["/x/y", "/z"]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := Step{Op: real.Op, Reply: real.Reply, Units: []string{tc.fake}}
			if got := sameState(Op{Kind: OpStart}, real, fake); got != tc.want {
				t.Errorf("sameState = %v, want %v", got, tc.want)
			}
		})
	}
	timedOut := Step{Op: "y", Reply: "J1", Units: []string{`u0.service: "loaded" "failed"/"failed" Result="timeout" ExecMain=2/15 ExecStart=[("/bin/true")] RuntimeMaxUSec=@t 1`}}
	collected := Step{Op: "y", Reply: "J1", Units: []string{"u0.service: org.freedesktop.systemd1.NoSuchUnit"}}
	if knownID(Op{Kind: OpStartTransient}, timedOut, collected) == "" || sameState(Op{Kind: OpStartTransient}, timedOut, collected) {
		t.Error("a race's known difference must end the comparison")
	}
}

func TestKnownUnitFilePrograms(t *testing.T) {
	const (
		failed = `u1.service: "loaded" "failed"/"failed" Result="exit-code" ExecMain=1/203 ExecStart=[("/nonexistent/program" ["/nonexistent/program"] false times=set/set/set/set pid=set code=1 status=203)]`
		ran    = `u1.service: "loaded" "active"/"running" Result="success" ExecMain=0/0 ExecStart=[("/nonexistent/program" ["/nonexistent/program"] false times=set/set/0/0 pid=set code=0 status=0)]`
		// A command that ran, and one that did not.
		trueRan = `[("/bin/true" ["/bin/true"] false times=set/set/set/set pid=set code=1 status=0)]`
		notRun  = `[("/bin/true" ["/bin/true"] false times=0/0/0/0 pid=0 code=0 status=0)]`
	)
	const other = `u0.service: org.freedesktop.systemd1.NoSuchUnit`
	for _, tc := range []struct {
		name       string
		real, fake []string
		want       string
	}{
		{"program run", []string{other, failed}, []string{other, ran}, "unit-file-programs"},
		{"ExecStopPost= ran after the failure", []string{other, failed + " ExecStopPost=" + trueRan}, []string{other, ran + " ExecStopPost=" + notRun}, "unit-file-programs"},
		{"another command's record differs", []string{other, failed + " ExecStartPre=" + trueRan}, []string{other, ran + " ExecStartPre=" + notRun}, ""},
		{"another unit differs too", []string{other, failed}, []string{`u0.service: "loaded"`, `u1.service: "loaded" "active"/"running"`}, ""},
		{"another setting differs on the line", []string{other, failed}, []string{other, ran + ` MemoryMax=@t 1`}, ""},
		{"another load state", []string{other, failed}, []string{other, strings.Replace(ran, `"loaded"`, `"bad-setting"`, 1)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := Step{Op: "RestartUnit u1.service", Reply: "J1", Units: tc.real}
			fake := Step{Op: real.Op, Reply: real.Reply, Units: tc.fake}
			got := knownID(Op{Kind: OpRestart}, real, fake)
			if got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownUnitFileAccounts(t *testing.T) {
	const rec = `ExecStart=[("/bin/sleep" ["/bin/sleep" "1000"] false times=`
	real := Step{Op: "StartUnit u0.service", Reply: "J1", Units: []string{
		`u0.service: "loaded" "failed"/"failed" Result="exit-code" ExecMain=1/217 ` + rec + `set/set/set/set pid=set code=1 status=217)] User="nosuchuser" File="$RUNTIME/u0.service"`,
		`u1.service: org.freedesktop.systemd1.NoSuchUnit`,
	}}
	ran := `u0.service: "loaded" "active"/"running" Result="success" ExecMain=0/0 ` + rec + `set/set/0/0 pid=set code=0 status=0)] User="nosuchuser" `
	for _, tc := range []struct {
		name  string
		real0 string
		fake  []string
		want  string
	}{
		{"service run", real.Units[0], []string{ran + `File="$RUNTIME/u0.service"`, real.Units[1]}, "unit-file-accounts"},
		{"group", strings.ReplaceAll(real.Units[0], "217", "216"), []string{ran + `File="$RUNTIME/u0.service"`, real.Units[1]}, "unit-file-accounts"},
		{"transient unit", strings.Replace(real.Units[0], `File="$RUNTIME/u0.service"`, `File="/run/systemd/transient/u0.service"`, 1),
			[]string{ran + `File="/run/systemd/transient/u0.service"`, real.Units[1]}, ""},
		{"another unit differs too", real.Units[0], []string{ran + `File="$RUNTIME/u0.service"`, `u1.service: "loaded"`}, ""},
		{"another setting differs on the line", real.Units[0], []string{ran + `File="$RUNTIME/u0.service" MemoryMax=@t 1`, real.Units[1]}, ""},
		{"another failure", strings.ReplaceAll(real.Units[0], "217", "203"), []string{ran + `File="$RUNTIME/u0.service"`, real.Units[1]}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Step{Op: real.Op, Reply: real.Reply, Units: []string{tc.real0, real.Units[1]}}
			fake := Step{Op: real.Op, Reply: real.Reply, Units: tc.fake}
			if got := knownID(Op{Kind: OpStart}, r, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownRestartLoop(t *testing.T) {
	real := Step{Op: "KillUnit u1.service main 9", Reply: "ok",
		Signals: []string{"JobNew J3 u0.service", "JobNew L1 u1.service", "JobRemoved L1 u1.service done", "JobRemoved J3 u0.service done"},
		Jobs:    []string{"L2 u1.service restart waiting"},
		Units: []string{
			`u0.service: "loaded" "active"/"running" Result="success"`,
			`u1.service: "loaded" "activating"/"auto-restart" Result="exit-code" Restart="on-failure" StartLimitBurst=@u 0`,
		},
		Looping: []string{"u1.service"},
	}
	running := `u1.service: "loaded" "active"/"running" Result="success" Restart="on-failure" StartLimitBurst=@u 0`
	for _, tc := range []struct {
		name   string
		change func(*Step)
		want   string
	}{
		{"another moment of the loop", func(s *Step) {
			s.Signals = []string{"JobNew J3 u0.service", "JobNew L1 u1.service", "JobRemoved L1 u1.service done", "JobNew L2 u1.service", "JobRemoved L2 u1.service done", "JobRemoved J3 u0.service done"}
			s.Jobs, s.Units[1] = nil, running
		}, "restart-loop"},
		{"not looping on the fake", func(s *Step) { s.Looping, s.Units[1] = nil, running }, ""},
		{"another unit's line differs", func(s *Step) { s.Units[0] = `u0.service: "loaded" "failed"/"failed" Result="exit-code"` }, ""},
		{"another unit's job differs", func(s *Step) { s.Signals[3] = "JobRemoved J3 u0.service failed" }, ""},
		{"another reply", func(s *Step) { s.Reply = "org.freedesktop.systemd1.NoSuchUnit: x" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := real
			fake.Signals, fake.Jobs, fake.Units = slices.Clone(real.Signals), slices.Clone(real.Jobs), slices.Clone(real.Units)
			tc.change(&fake)
			if got := knownID(Op{Kind: OpKill}, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestKnownKillScopeProcesses: a scope KillUnit ends on systemd and not
// on the fake is no known difference (the fake ends it: kill.go).
func TestKnownKillScopeProcesses(t *testing.T) {
	real := Step{Op: "KillUnit u2.scope all 1", Reply: "ok", Units: []string{
		`u1.service: "loaded" "failed"/"failed"`,
		`u2.scope: org.freedesktop.systemd1.NoSuchUnit`,
	}}
	for _, tc := range []struct {
		name string
		op   Op
		fake []string
		want string
	}{
		{"scope runs on", Op{Kind: OpKill, Signal: 1}, []string{real.Units[0], `u2.scope: "loaded" "active"/"running"`}, ""},
		{"signal 0", Op{Kind: OpKill, Signal: 0}, []string{real.Units[0], `u2.scope: "loaded" "active"/"running"`}, ""},
		{"a service differs", Op{Kind: OpKill, Signal: 1}, []string{`u1.service: "loaded" "active"/"running"`, real.Units[1]}, ""},
		{"not a kill", Op{Kind: OpStop}, []string{real.Units[0], `u2.scope: "loaded" "active"/"running"`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := knownID(tc.op, real, Step{Op: real.Op, Reply: real.Reply, Units: tc.fake})
			if got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownKillScopeProcessesPlaced(t *testing.T) {
	gone := "org.freedesktop.DBus.Error.UnixProcessIdUnknown: Process with ID P0 does not exist."
	real := Step{Op: "StartTransientUnit u3.scope", Reply: gone, Units: []string{
		`u2.scope: org.freedesktop.systemd1.NoSuchUnit`,
		`u3.scope: org.freedesktop.systemd1.NoSuchUnit`,
	}}
	started := Step{Op: real.Op, Reply: "J2", Signals: []string{"JobNew J2 u3.scope", "JobRemoved J2 u3.scope done"}, Units: []string{
		real.Units[0], `u3.scope: "loaded" "active"/"running"`,
	}}
	for _, tc := range []struct {
		name       string
		op         Op
		real, fake Step
		want       string
	}{
		{"started on the fake", Op{Kind: OpStartTransient, Unit: 3}, real, started, "kill-scope-processes"},
		{"attached on the fake", Op{Kind: OpAttach, Unit: 3}, Step{Op: real.Op, Reply: gone, Units: started.Units},
			Step{Op: real.Op, Reply: "ok", Units: started.Units}, "kill-scope-processes"},
		{"refused otherwise on the fake", Op{Kind: OpStartTransient, Unit: 3}, real,
			Step{Op: real.Op, Reply: "org.freedesktop.DBus.Error.InvalidArgs: x", Units: real.Units}, ""},
		{"another unit differs", Op{Kind: OpStartTransient, Unit: 3}, real,
			Step{Op: real.Op, Reply: "J2", Units: []string{`u2.scope: "loaded" "active"/"running"`, started.Units[1]}}, ""},
		{"another error on systemd", Op{Kind: OpStartTransient, Unit: 3},
			Step{Op: real.Op, Reply: "org.freedesktop.systemd1.UnitExists: x", Units: real.Units}, started, ""},
		{"not a placement", Op{Kind: OpStart, Unit: 3}, real, started, ""},
		{"a later process named on the fake", Op{Kind: OpStartTransient, Unit: 3, Props: []Prop{{"PIDs", PIDList{0, 2}}}}, real,
			Step{Op: real.Op, Reply: strings.Replace(gone, "P0", "P2", 1), Units: real.Units}, "kill-scope-processes"},
		{"an earlier process named on the fake", Op{Kind: OpStartTransient, Unit: 3, Props: []Prop{{"PIDs", PIDList{2, 0}}}}, real,
			Step{Op: real.Op, Reply: strings.Replace(gone, "P0", "P2", 1), Units: real.Units}, ""},
		{"a process not in PIDs= named", Op{Kind: OpStartTransient, Unit: 3, Props: []Prop{{"PIDs", PIDList{0}}}}, real,
			Step{Op: real.Op, Reply: strings.Replace(gone, "P0", "P2", 1), Units: real.Units}, ""},
		{"the start refused on the fake", Op{Kind: OpStartTransient, Unit: 3, Props: []Prop{{"PIDs", PIDList{0}}, {"RefuseManualStart", true}}}, real,
			Step{Op: real.Op, Reply: "org.freedesktop.systemd1.OnlyByDependency: Operation refused.", Units: real.Units}, "kill-scope-processes"},
		{"a later property refused on the fake", Op{Kind: OpStartTransient, Unit: 3, Props: []Prop{{"PIDs", PIDList{0}}, {"NoSuchProperty", "x"}}}, real,
			Step{Op: real.Op, Reply: "org.freedesktop.DBus.Error.PropertyReadOnly: Cannot set property NoSuchProperty, or unknown property.", Units: real.Units}, "kill-scope-processes"},
		{"an earlier property refused on the fake", Op{Kind: OpStartTransient, Unit: 3, Props: []Prop{{"NoSuchProperty", "x"}, {"PIDs", PIDList{0}}}}, real,
			Step{Op: real.Op, Reply: "org.freedesktop.DBus.Error.PropertyReadOnly: Cannot set property NoSuchProperty, or unknown property.", Units: real.Units}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownID(tc.op, tc.real, tc.fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

// knownID is the ID of the known difference the step's results show, or
// "".
func knownID(o Op, real, fake Step) string {
	if k := knownDifference(o, real, fake); k != nil {
		return k.ID
	}
	return ""
}

func TestKnownTimerColdplugRetrigger(t *testing.T) {
	timer := `u6.timer: "loaded" "active"/"waiting" Result="success" TimersMonotonic=[("OnActiveUSec" @t 0 next=set), ("OnStartupUSec" @t 3600000000 next=set)]`
	svc := `u6.service (aux): "loaded" "failed"/"failed" Result="exit-code" ExecMain=1/1`
	gone := "u6.service (aux): org.freedesktop.systemd1.NoSuchUnit"
	real := Step{Op: "Reload u1.service", Reply: "ok", Units: []string{timer, svc}}
	started := []string{"JobNew J5 u6.service", "JobRemoved J5 u6.service done"}
	for _, tc := range []struct {
		name    string
		op      OpKind
		signals []string
		units   []string
		want    string
	}{
		{"started again", OpReload, started, []string{timer, svc}, "timer-coldplug-order"},
		{"started again, running", OpReexec, started, []string{timer, `u6.service (aux): "loaded" "active"/"running"`}, "timer-coldplug-order"},
		{"not after a reload", OpStart, started, []string{timer, svc}, ""},
		{"another unit started", OpReload, []string{"JobNew J5 u1.service", "JobRemoved J5 u1.service done"}, []string{timer, svc}, ""},
		{"the timer differs", OpReload, started, []string{strings.Replace(timer, "waiting", "elapsed", 1), svc}, ""},
		{"a job left", OpReload, started[:1], []string{timer, svc}, ""},
		{"the unit was not loaded", OpReload, started, []string{timer, gone}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := real
			if tc.units[1] == gone {
				real.Units = tc.units
			}
			fake := Step{Op: real.Op, Reply: real.Reply, Signals: tc.signals, Units: tc.units}
			if got := knownID(Op{Kind: tc.op}, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownTimerColdplugOrder(t *testing.T) {
	real := Step{Op: "Reload", Reply: "ok", Units: []string{
		`u6.timer: "loaded" "active"/"elapsed" Result="success" TimersMonotonic=[("OnActiveUSec" @t 0 next=set)]`,
		`u6.service (aux): "loaded" "failed"/"failed" Result="exit-code" ExecMain=1/1`,
	}}
	for _, tc := range []struct {
		name string
		op   OpKind
		fake string
		want string
	}{
		{"next elapse 0", OpReload, `u6.timer: "loaded" "active"/"elapsed" Result="success" TimersMonotonic=[("OnActiveUSec" @t 0 next=0)]`, "timer-coldplug-order"},
		{"after a re-execution", OpReexec, `u6.timer: "loaded" "active"/"elapsed" Result="success" TimersMonotonic=[("OnActiveUSec" @t 0 next=0)]`, "timer-coldplug-order"},
		{"not after a reload", OpStart, `u6.timer: "loaded" "active"/"elapsed" Result="success" TimersMonotonic=[("OnActiveUSec" @t 0 next=0)]`, ""},
		{"another state", OpReload, `u6.timer: "loaded" "active"/"waiting" Result="success" TimersMonotonic=[("OnActiveUSec" @t 0 next=0)]`, ""},
		{"another value", OpReload, `u6.timer: "loaded" "active"/"elapsed" Result="success" TimersMonotonic=[("OnActiveUSec" @t 1 next=0)]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := Step{Op: real.Op, Reply: real.Reply, Units: []string{tc.fake, real.Units[1]}}
			if got := knownID(Op{Kind: tc.op}, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownExecStartRace(t *testing.T) {
	exec := `u0.service: "loaded" "failed"/"failed" Result="exit-code" ExecMain=1/1 Type="exec"`
	simple := strings.ReplaceAll(exec, `"exec"`, `"simple"`)
	started := []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service failed"}
	for _, tc := range []struct {
		name               string
		realUnit, fakeUnit string
		fakeSignal         string
		want               string
	}{
		{"done instead", exec, exec, "JobRemoved J1 u0.service done", "exec-start-race"},
		{"another type", simple, simple, "JobRemoved J1 u0.service done", ""},
		{"the unit differs too", exec, strings.ReplaceAll(exec, "1/1", "1/0"), "JobRemoved J1 u0.service done", ""},
		{"canceled instead", exec, exec, "JobRemoved J1 u0.service canceled", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := Step{Op: "StartTransientUnit u0.service", Reply: "J1", Signals: started, Units: []string{tc.realUnit}}
			fake := Step{Op: real.Op, Reply: real.Reply, Signals: []string{started[0], tc.fakeSignal}, Units: []string{tc.fakeUnit}}
			if got := knownID(Op{Kind: OpStartTransient}, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

// unitLineCase is a known difference's case that differs in unit u0's
// line: systemd's, the fake's, and the known difference expected ("":
// none).
type unitLineCase struct {
	name, real, fakeUnit, want string
}

// testUnitLineKnown checks each case as step o of unit u0 (reply J1, u1
// not loaded on both sides).
func testUnitLineKnown(t *testing.T, o Op, cases []unitLineCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			real := Step{Op: string(o.Kind) + " u0.service", Reply: "J1", Units: []string{tc.real, "u1.service: org.freedesktop.systemd1.NoSuchUnit"}}
			fake := Step{Op: real.Op, Reply: real.Reply, Units: []string{tc.fakeUnit, real.Units[1]}}
			if got := knownID(o, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownRuntimeMaxRace(t *testing.T) {
	timedOut := `u0.service: "loaded" "failed"/"failed" Result="timeout" ExecMain=2/15 ExecStart=[("/bin/true")] RuntimeMaxUSec=@t 1`
	testUnitLineKnown(t, Op{Kind: OpStartTransient}, []unitLineCase{
		{"collected", timedOut, "u0.service: org.freedesktop.systemd1.NoSuchUnit", "runtime-max-race"},
		{"0 µs", strings.ReplaceAll(timedOut, "@t 1", "@t 0"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", "runtime-max-race"},
		{"exited after the timeout", strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=1/0"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", "runtime-max-race"},
		{"exited with a failure after the timeout", strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=1/208"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", "runtime-max-race"},
		{"killed by another signal", strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=2/9"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", ""},
		{"killed by SIGKILL after an instant stop timeout", strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=2/9") + " TimeoutStopUSec=@t 0",
			strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=2/15") + " TimeoutStopUSec=@t 0", "runtime-max-race"},
		{"a longer limit", strings.ReplaceAll(timedOut, "@t 1", "@t 10"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", ""},
		{"another result", strings.ReplaceAll(timedOut, "timeout", "exit-code"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", ""},
		{"the fake's differs", "u0.service: org.freedesktop.systemd1.NoSuchUnit", timedOut, ""},
		{"the fake's timed out, systemd saw the exit", strings.ReplaceAll(strings.ReplaceAll(timedOut, "timeout", "exit-code"), "2/15", "1/3"), timedOut, "runtime-max-race"},
		{"KillMode=none: neither killed nor seen to exit", strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=0/0") + ` KillMode="none"`,
			"u0.service: org.freedesktop.systemd1.NoSuchUnit", "runtime-max-race"},
		{"KillMode=none first", strings.ReplaceAll(strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=0/0"), " RuntimeMaxUSec", ` KillMode="none" RuntimeMaxUSec`),
			"u0.service: org.freedesktop.systemd1.NoSuchUnit", "runtime-max-race"},
		{"0/0 with another kill mode", strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=0/0") + ` KillMode="process"`,
			"u0.service: org.freedesktop.systemd1.NoSuchUnit", ""},
		{"the fake's timed out with a longer limit", strings.ReplaceAll(strings.ReplaceAll(timedOut, "timeout", "exit-code"), "@t 1", "@t 10"), strings.ReplaceAll(timedOut, "@t 1", "@t 10"), ""},
	})
	// Restarted until the start limit was hit: the last run's end.
	limit := `u0.service: "loaded" "failed"/"failed" Result="start-limit-hit" ExecMain=2/15 ExecStart=[("/bin/true" ["/bin/true"] false times=set/set/set/set pid=set code=2 status=15)] RuntimeMaxUSec=@t 0`
	exited := strings.ReplaceAll(strings.ReplaceAll(limit, "ExecMain=2/15", "ExecMain=1/0"), "code=2 status=15", "code=1 status=0")
	testUnitLineKnown(t, Op{Kind: OpStartTransient}, []unitLineCase{
		{"start limit, the last run timed out", limit, exited, "runtime-max-race"},
		{"start limit, a longer limit", strings.ReplaceAll(limit, "@t 0", "@t 10"), strings.ReplaceAll(exited, "@t 0", "@t 10"), ""},
		{"start limit, more differs", limit, strings.ReplaceAll(exited, "/bin/true", "/bin/false"), ""},
		{"another result", strings.ReplaceAll(limit, "start-limit-hit", "exit-code"), strings.ReplaceAll(exited, "start-limit-hit", "exit-code"), ""},
	})
	// Timed out and still stopping on systemd, its ExecStop= running;
	// the program's exit came first on the fake (247 seed 360276).
	stopping := `u0.service: "loaded" "deactivating"/"stop" Result="timeout" ExecMain=1/1 ExecStart=[("/bin/false" ["/bin/false"] false times=set/set/set/set pid=set code=1 status=1)] ExecStop=[("/bin/sleep" ["/bin/sleep" "1000"] false times=set/set/0/0 pid=set code=0 status=0)] RuntimeMaxUSec=@t 1`
	failed := strings.ReplaceAll(strings.ReplaceAll(stopping, `"deactivating"/"stop" Result="timeout"`, `"failed"/"failed" Result="exit-code"`), "times=set/set/0/0 pid=set", "times=0/0/0/0 pid=0")
	testUnitLineKnown(t, Op{Kind: OpStartTransient}, []unitLineCase{
		{"stopping", stopping, failed, "runtime-max-race"},
		{"stopping, a longer limit", strings.ReplaceAll(stopping, "@t 1", "@t 10"), strings.ReplaceAll(failed, "@t 1", "@t 10"), ""},
		{"stopping without ExecStop=", strings.Split(stopping, " ExecStop=")[0] + " RuntimeMaxUSec=@t 1", failed, ""},
		{"the fake's stopping", failed, stopping, ""},
	})
}

func TestKnownStopTimeoutRace(t *testing.T) {
	timedOut := `u0.service: "loaded" "failed"/"failed" Result="timeout" ExecMain=2/15 ExecStart=[("/bin/sleep" ["/bin/sleep" "1000"])] TimeoutStopUSec=@t 0 Type="simple"`
	scopeTimedOut := `u2.scope: "loaded" "failed"/"failed" Result="timeout" PIDs=(org.freedesktop.DBus.Error.UnknownProperty) TimeoutStopUSec=@t 1 File="/run/systemd/transient/dt1u2.scope"`
	testUnitLineKnown(t, Op{Kind: OpStop}, []unitLineCase{
		{"collected", timedOut, "u0.service: org.freedesktop.systemd1.NoSuchUnit", "stop-timeout-race"},
		{"1 µs, stopped", strings.ReplaceAll(timedOut, "@t 0 ", "@t 1 "), `u0.service: "loaded" "inactive"/"dead" Result="success"`, "stop-timeout-race"},
		{"its end not seen (247)", strings.ReplaceAll(timedOut, "ExecMain=2/15", "ExecMain=0/0"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", "stop-timeout-race"},
		{"a scope", scopeTimedOut, "u2.scope: org.freedesktop.systemd1.NoSuchUnit", "stop-timeout-race"},
		{"a scope with a longer timeout", strings.ReplaceAll(scopeTimedOut, "@t 1 ", "@t 10 "), "u2.scope: org.freedesktop.systemd1.NoSuchUnit", ""},
		{"a scope the fake keeps failed", scopeTimedOut, strings.ReplaceAll(scopeTimedOut, "timeout", "signal"), ""},
		{"a longer timeout", strings.ReplaceAll(timedOut, "@t 0 ", "@t 10 "), "u0.service: org.freedesktop.systemd1.NoSuchUnit", ""},
		{"another result", strings.ReplaceAll(timedOut, "timeout", "exit-code"), "u0.service: org.freedesktop.systemd1.NoSuchUnit", ""},
		{"the fake's differs", "u0.service: org.freedesktop.systemd1.NoSuchUnit", timedOut, ""},
	})
}

// TestKnownWaitingStartTries: a start systemd refused by its start rate
// limit, having counted a waiting start's tries, where the fake's ran.
func TestKnownWaitingStartTries(t *testing.T) {
	refused := `u1.service: "loaded" "failed"/"failed" Result="signal" ExecMain=2/15 ExecStop=[("/bin/sleep" ["/bin/sleep" "1000"] false times=set/set/set/set pid=set code=2 status=1)]`
	ran := `u1.service: "loaded" "active"/"running" Result="success" ExecMain=0/0 ExecStop=[("/bin/sleep" ["/bin/sleep" "1000"] false times=0/0/0/0 pid=0 code=0 status=0)]`
	step := func(result, unit string) Step {
		return Step{Op: `KillUnit u1.service "control" 1`, Reply: "ok", Signals: []string{"JobRemoved J5 u1.service " + result}, Units: []string{unit}}
	}
	for _, tc := range []struct {
		name       string
		real, fake Step
		want       string
	}{
		{"refused on systemd", step("failed", refused), step("done", ran), "waiting-start-tries"},
		{"no ExecStop=", step("failed", strings.Split(refused, " ExecStop=")[0]), step("done", strings.Split(ran, " ExecStop=")[0]), ""},
		{"the fake refused", step("done", ran), step("failed", refused), ""},
		{"the same job result", step("failed", refused), step("failed", ran), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownID(Op{Kind: OpKill}, tc.real, tc.fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownHandlerCollectionRace(t *testing.T) {
	kept := `u0.service: "loaded" "inactive"/"dead" Result="success" ExecMain=2/15 OnFailure=@as [] OnSuccess=["dr3u1.service"] File="$RUNTIME/dr3u0.service"`
	gone := "u0.service: org.freedesktop.systemd1.NoSuchUnit"
	testUnitLineKnown(t, Op{Kind: OpStartTransient}, []unitLineCase{
		{"collected after its OnSuccess= unit's job", gone, kept, "handler-collection-race"},
		{"failed, for OnFailure=", gone, strings.NewReplacer(`"inactive"/"dead" Result="success"`, `"failed"/"failed" Result="exit-code"`,
			`OnFailure=@as [] OnSuccess=["dr3u1.service"]`, `OnFailure=["dr3u1.service"] OnSuccess=@as []`).Replace(kept), "handler-collection-race"},
		{"no unit named", gone, strings.ReplaceAll(kept, `OnSuccess=["dr3u1.service"]`, `OnSuccess=@as []`), ""},
		{"active on the fake", gone, strings.ReplaceAll(kept, `"inactive"/"dead"`, `"active"/"running"`), ""},
		{"the fake collected it", kept, gone, ""},
	})
}

// TestKnownStartCommandStopTimeoutRace: a service stopped while its
// ExecStartPost= ran, with an instant stop timeout (257 seed 517184).
func TestKnownStartCommandStopTimeoutRace(t *testing.T) {
	signal := `u1.service: "loaded" "failed"/"failed" Result="signal" ExecMain=1/0 ExecStart=[("/bin/true" ["/bin/true"] false times=set/set/set/set pid=set code=1 status=0)] ` +
		`ExecStartPost=[("/bin/sleep" ["/bin/sleep" "1000"] false times=set/set/set/set pid=set code=2 status=15)] TimeoutStopUSec=@t 1 TimeoutAbortUSec=@t 1`
	timedOut := strings.ReplaceAll(signal, `Result="signal"`, `Result="timeout"`)
	notSeen := strings.ReplaceAll(timedOut, "set/set/set/set pid=set code=2 status=15", "set/set/0/0 pid=set code=0 status=0")
	testUnitLineKnown(t, Op{Kind: OpStop}, []unitLineCase{
		{"the command killed", timedOut, signal, "stop-timeout-race"},
		{"its end not yet seen", notSeen, signal, "stop-timeout-race"},
		{"killed by SIGKILL", strings.ReplaceAll(timedOut, "code=2 status=15", "code=2 status=9"), signal, "stop-timeout-race"},
		{"ExecStartPre=", strings.ReplaceAll(notSeen, "ExecStartPost=", "ExecStartPre="), strings.ReplaceAll(signal, "ExecStartPost=", "ExecStartPre="), "stop-timeout-race"},
		{"ExecCondition=", strings.ReplaceAll(timedOut, "ExecStartPost=", "ExecCondition="), strings.ReplaceAll(signal, "ExecStartPost=", "ExecCondition="), "stop-timeout-race"},
		{"a longer timeout", strings.ReplaceAll(timedOut, "@t 1", "@t 10"), strings.ReplaceAll(signal, "@t 1", "@t 10"), ""},
		{"its exit seen", strings.ReplaceAll(timedOut, "code=2 status=15", "code=1 status=3"), signal, ""},
		{"the fake's command exited", timedOut, strings.ReplaceAll(signal, "code=2 status=15", "code=1 status=3"), ""},
		{"another result on the fake", timedOut, strings.ReplaceAll(signal, `Result="signal"`, `Result="exit-code"`), ""},
		{"timed out on the fake", signal, timedOut, ""},
		{"another command on the fake", timedOut, strings.ReplaceAll(signal, "ExecStartPost=", "ExecStartPre="), ""},
		{"the main program differs", timedOut, strings.ReplaceAll(signal, "ExecMain=1/0", "ExecMain=1/1"), ""},
		{"no start command", regexp.MustCompile(` ExecStartPost=\[.*\)\]`).ReplaceAllString(timedOut, ""), regexp.MustCompile(` ExecStartPost=\[.*\)\]`).ReplaceAllString(signal, ""), ""},
	})
}

func TestKnownStopCommandTimeoutRace(t *testing.T) {
	timedOut := `u0.service: "loaded" "failed"/"failed" Result="timeout" ExecMain=1/0 ExecStart=[("/bin/true" ["/bin/true"] false times=set/set/set/set pid=set code=1 status=0)] ` +
		`ExecStopPost=[("/bin/sh" ["/bin/sh" "-c" "exit 3"] false times=set/set/set/set pid=set code=2 status=15)] TimeoutStopUSec=@t 1`
	exited := strings.NewReplacer(`Result="timeout"`, `Result="exit-code"`, "code=2 status=15", "code=1 status=3").Replace(timedOut)
	testUnitLineKnown(t, Op{Kind: OpStartTransient}, []unitLineCase{
		{"stop-post exited on the fake", timedOut, exited, "stop-timeout-race"},
		{"its end not yet seen", strings.ReplaceAll(timedOut, "set/set/set/set pid=set code=2 status=15", "set/set/0/0 pid=set code=0 status=0"), exited, "stop-timeout-race"},
		{"ExecStop= too", strings.ReplaceAll(timedOut, "ExecStopPost=", "ExecStop="), strings.ReplaceAll(exited, "ExecStopPost=", "ExecStop="), "stop-timeout-race"},
		{"a longer timeout", strings.ReplaceAll(timedOut, "@t 1", "@t 10"), strings.ReplaceAll(exited, "@t 1", "@t 10"), ""},
		{"its exit seen after the timeout", strings.ReplaceAll(timedOut, "code=2 status=15", "code=1 status=3"), exited, "stop-timeout-race"},
		{"killed by SIGKILL", strings.ReplaceAll(timedOut, "code=2 status=15", "code=2 status=9"), exited, "stop-timeout-race"},
		{"failed already, the command killed", strings.NewReplacer(`Result="timeout"`, `Result="exit-code"`, "code=2 status=15", "code=2 status=9").Replace(timedOut), exited, "stop-timeout-race"},
		{"failed already, the command's end not yet seen", strings.NewReplacer(`Result="timeout"`, `Result="exit-code"`, "set/set/set/set pid=set code=2 status=15", "set/set/0/0 pid=set code=0 status=0").Replace(timedOut), exited, "stop-timeout-race"},
		{"failed already, the command exited otherwise", strings.NewReplacer(`Result="timeout"`, `Result="exit-code"`, "code=2 status=15", "code=1 status=4").Replace(timedOut), exited, ""},
		{"failed already, another result on the fake", strings.NewReplacer(`Result="timeout"`, `Result="exit-code"`, "code=2 status=15", "code=2 status=9").Replace(timedOut), strings.ReplaceAll(exited, `Result="exit-code"`, `Result="signal"`), ""},
		{"no stop command", regexp.MustCompile(` ExecStopPost=\[.*\)\]`).ReplaceAllString(timedOut, ""), regexp.MustCompile(` ExecStopPost=\[.*\)\]`).ReplaceAllString(exited, ""), ""},
		{"the main program differs", timedOut, strings.ReplaceAll(exited, "ExecMain=1/0", "ExecMain=1/1"), ""},
		{"another state on the fake", timedOut, strings.ReplaceAll(exited, `"failed"/"failed"`, `"inactive"/"dead"`), ""},
	})
}

func TestKnownStartPostRace(t *testing.T) {
	exited := `u1.service: "loaded" "failed"/"failed" Result="exit-code" ExecMain=1/1 ExecStart=[("/bin/false" ["/bin/false"] false times=set/set/set/set pid=set code=1 status=1)] ExecStartPost=[("/bin/sh" ["/bin/sh" "-c" "exit 3"] false times=set/set/set/set pid=set code=1 status=3)]`
	killed := strings.NewReplacer("ExecMain=1/1", "ExecMain=2/15", "code=1 status=1)]", "code=2 status=15)]").Replace(exited)
	for _, tc := range []struct {
		name       string
		real, fake string
		want       string
	}{
		{"killed instead", exited, killed, "start-post-race"},
		{"exited instead", killed, exited, "start-post-race"},
		{"dependencies in another order too", exited + ` After=["a.target", "b.target"]`, killed + ` After=["b.target", "a.target"]`, "start-post-race"},
		{"ExecStartPost= differs too", exited, strings.ReplaceAll(killed, "code=1 status=3", "code=1 status=0"), ""},
		{"no ExecStartPost=", strings.ReplaceAll(exited, "ExecStartPost", "ExecStopPost"), strings.ReplaceAll(killed, "ExecStartPost", "ExecStopPost"), ""},
		{"another result", strings.ReplaceAll(exited, "exit-code", "signal"), strings.ReplaceAll(killed, "exit-code", "signal"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := Step{Op: "StartTransientUnit u1.service", Reply: "J1", Units: []string{tc.real}}
			fake := Step{Op: real.Op, Reply: real.Reply, Units: []string{tc.fake}}
			if got := knownID(Op{Kind: OpStartTransient}, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestKnownStartPostRaceJob: a main program that failed before it ran
// or exited at once (/bin/false), seen before or after ExecStartPost=
// ended: the start job ends failed or done, the units the same (257 seed
// 31005 for /bin/false).
func TestKnownStartPostRaceJob(t *testing.T) {
	unit := `u0.service: "loaded" "failed"/"failed" Result="exit-code" ExecMain=1/203 ExecStart=[("/nonexistent/program" ["/nonexistent/program"] false times=set/set/set/set pid=set code=1 status=203)] ExecStartPost=[("/bin/true" ["/bin/true"] false times=set/set/set/set pid=set code=1 status=0)]`
	limit := strings.Replace(strings.ReplaceAll(unit, "1/203", "1/3"), "exit-code", "start-limit-hit", 1)
	for _, tc := range []struct {
		name       string
		real, fake []string
		unit       string
		want       string
	}{
		{"done instead", []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service done"}, []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service failed"}, unit, "start-post-race"},
		{"failed instead", []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service failed"}, []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service done"}, unit, "start-post-race"},
		{"another result", []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service done"}, []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service timeout"}, unit, ""},
		{"no ExecStartPost=", []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service done"}, []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service failed"}, strings.ReplaceAll(unit, "ExecStartPost", "ExecStopPost"), ""},
		{"a program that exited at once", []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service failed"}, []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service done"}, strings.ReplaceAll(unit, "ExecMain=1/203", "ExecMain=1/1"), "start-post-race"},
		{"a program that was killed", []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service done"}, []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service failed"}, strings.ReplaceAll(unit, "ExecMain=1/203", "ExecMain=2/15"), ""},
		{"two jobs differ", []string{"JobRemoved J1 u0.service done", "JobRemoved J2 u1.service done"}, []string{"JobRemoved J1 u0.service failed", "JobRemoved J2 u1.service failed"}, unit, ""},
		// Restarted until its start limit was hit, each start a race
		// (252 seed 370506).
		{"each restart", []string{"JobRemoved J1 u0.service failed", "JobRemoved J2 u0.service failed", "JobRemoved J3 u0.service failed"}, []string{"JobRemoved J1 u0.service done", "JobRemoved J2 u0.service done", "JobRemoved J3 u0.service failed"}, limit, "start-post-race"},
		{"two restarts, not at the limit", []string{"JobRemoved J1 u0.service failed", "JobRemoved J2 u0.service failed"}, []string{"JobRemoved J1 u0.service done", "JobRemoved J2 u0.service done"}, unit, ""},
		{"another unit's jobs", []string{"JobRemoved J1 u0.service failed", "JobRemoved J2 u1.service failed"}, []string{"JobRemoved J1 u0.service done", "JobRemoved J2 u1.service done"}, limit, ""},
		{"another unit's ExecStartPost=", []string{"JobNew J1 u1.service", "JobRemoved J1 u1.service done"}, []string{"JobNew J1 u1.service", "JobRemoved J1 u1.service failed"}, unit, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := Step{Op: "StartTransientUnit u0.service", Reply: "J1", Signals: tc.real, Units: []string{tc.unit}}
			fake := Step{Op: real.Op, Reply: real.Reply, Signals: tc.fake, Units: []string{tc.unit}}
			if got := knownID(Op{Kind: OpStartTransient}, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
	// Collected once failed (CollectMode=inactive-or-failed): the unit
	// is gone, the operation says what it was (247 seed 160644).
	gone := "u0.service: org.freedesktop.systemd1.NoSuchUnit"
	done := []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service done"}
	failed := []string{"JobNew J1 u0.service", "JobRemoved J1 u0.service failed"}
	op := func(cmd Command, props ...Prop) Op {
		return Op{Kind: OpStartTransient, Unit: 0, Props: append([]Prop{{"ExecStart", cmd}}, props...)}
	}
	post, collect := Prop{"ExecStartPost", Command(1)}, Prop{"CollectMode", "inactive-or-failed"}
	for _, tc := range []struct {
		name string
		op   Op
		want string
	}{
		{"cannot run", op(4, post, collect), "start-post-race"},
		{"exits 1", op(2, post, collect), "start-post-race"},
		{"exits 0", op(1, post, collect), ""},
		{"runs on", op(0, post, collect), ""},
		{"no ExecStartPost=", op(4, collect), ""},
		{"not collected when failed", op(4, post), ""},
		{"collected only when inactive", op(4, post, Prop{"CollectMode", "inactive"}), ""},
	} {
		t.Run("collected/"+tc.name, func(t *testing.T) {
			real := Step{Op: "StartTransientUnit u0.service", Reply: "J1", Signals: done, Units: []string{gone}}
			fake := Step{Op: real.Op, Reply: real.Reply, Signals: failed, Units: []string{gone}}
			if got := knownID(tc.op, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownTimerReexec262(t *testing.T) {
	timer := `u6.timer: "loaded" "active"/"waiting" Result="success"`
	real := Step{Op: "Reexecute", Reply: "ok", Units: []string{timer}}
	testKnownSignals(t, real, []signalsCase{
		{"its unit started", Op{Kind: OpReexec}, []string{"JobNew J5 u6.service", "JobRemoved J5 u6.service done"}, "timer-reexec-262"},
		{"after a reload", Op{Kind: OpReload}, []string{"JobNew J5 u6.service", "JobRemoved J5 u6.service done"}, ""},
		{"the start failed", Op{Kind: OpReexec}, []string{"JobNew J5 u6.service", "JobRemoved J5 u6.service failed"}, ""},
		{"another unit", Op{Kind: OpReexec}, []string{"JobNew J5 u6.timer", "JobRemoved J5 u6.timer done"}, ""},
	})
}

// TestValuePIDs: a value that may hold a PID (uint32, a list of them, a
// message) shows a spawned process by its name; other numbers, an exit
// status of 203 say, stay as they are even when a spawned process has
// that PID.
func TestValuePIDs(t *testing.T) {
	r := &run{procs: procs{list: []*proc{{pid: 203}}}, pidRe: regexp.MustCompile(`\b[0-9]+\b`)}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{uint32(203), "@u P0"},
		{[]uint32{203, 7}, "@au [P0, 7]"},
		{"Process with ID 203 does not exist.", `"Process with ID P0 does not exist."`},
		{int32(203), "203"},
		{uint64(203), "@t 203"},
	} {
		if got := r.value(tc.v); got != tc.want {
			t.Errorf("value(%#v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestOurs: a sequence's units are its prefix's, not those of a sequence
// run at once whose prefix begins alike (de1 and de13).
func TestOurs(t *testing.T) {
	r := &run{prefix: "de1"}
	for name, want := range map[string]bool{"de1u0.service": true, "de1u6.service": true, "de13u2.scope": false, "de1": false, "xde1u0.service": false} {
		if got := r.ours(name); got != want {
			t.Errorf("ours(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestKnownCgroupProcsOrder: a GetUnitProcesses reply with the same rows
// in another order is the kernel's order, and the comparison goes on.
func TestKnownCgroupProcsOrder(t *testing.T) {
	op := Op{Kind: OpProcesses, Unit: 3}
	real := Step{Op: "GetUnitProcesses u3.scope", Reply: `[("/system.slice/dt67u3.scope" P6 "/bin/sleep 1000"), ("/system.slice/dt67u3.scope" P5 "/bin/sleep 1000")]`}
	for _, tc := range []struct {
		name, reply string
		want        bool
	}{
		{"the other order", `[("/system.slice/dt67u3.scope" P5 "/bin/sleep 1000"), ("/system.slice/dt67u3.scope" P6 "/bin/sleep 1000")]`, true},
		{"another process", `[("/system.slice/dt67u3.scope" P5 "/bin/sleep 1000"), ("/system.slice/dt67u3.scope" P7 "/bin/sleep 1000")]`, false},
		{"one missing", `[("/system.slice/dt67u3.scope" P5 "/bin/sleep 1000")]`, false},
		{"an error", `org.freedesktop.systemd1.NoSuchUnit: Unit dt67u3.scope not found.`, false},
	} {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			fake := real
			fake.Reply = tc.reply
			if got := sameState(op, real, fake); got != tc.want {
				t.Errorf("sameState = %v, want %v (known %q)", got, tc.want, knownID(op, real, fake))
			}
		})
	}
}

// TestKnownCgroupProcsOrderErrors: two different errors are no
// difference of order.
func TestKnownCgroupProcsOrderErrors(t *testing.T) {
	op := Op{Kind: OpProcesses, Unit: 3}
	real := Step{Op: "GetUnitProcesses u3.scope", Reply: "org.freedesktop.systemd1.NoSuchUnit: Unit dt67u3.scope not found."}
	fake := Step{Op: real.Op, Reply: "org.freedesktop.DBus.Error.InvalidArgs: x"}
	if id := knownID(op, real, fake); id == "cgroup-procs-order" {
		t.Errorf("two errors matched %s", id)
	}
}

// TestKnownBesideDependencyOrder: a known difference in a step whose
// dependency lists also differ in order is that difference (262 seed
// 67011: WantsMountsFor= in another order, a calendar timer's next
// elapse set on systemd and 0 on the fake); with the lists holding other
// names it is none.
func TestKnownBesideDependencyOrder(t *testing.T) {
	timer := `u6.timer: "loaded" "active"/"waiting" TimersCalendar=[("OnCalendar" "*-*-* 00:00:00" next=%s)]`
	scope := `u3.scope: "loaded" "active"/"running" WantsMountsFor=[%s]`
	real := Step{Op: "x", Reply: "J1", Units: []string{fmt.Sprintf(scope, `"/tmp/x", "/nonexistent"`), fmt.Sprintf(timer, "set")}}
	fake := Step{Op: "x", Reply: "J1", Units: []string{fmt.Sprintf(scope, `"/nonexistent", "/tmp/x"`), fmt.Sprintf(timer, "0")}}
	if got := knownID(Op{Kind: OpStart}, real, fake); got != "calendar-next-elapse" {
		t.Errorf("knownDifference = %q, want calendar-next-elapse", got)
	}
	fake.Units[0] = fmt.Sprintf(scope, `"/nonexistent", "/tmp/y"`)
	if got := knownID(Op{Kind: OpStart}, real, fake); got != "" {
		t.Errorf("knownDifference with other mount paths = %q, want none", got)
	}
}

// TestKnownProcsOrderBesideDependencyOrder: a GetUnitProcesses reply in
// the kernel's order in a step whose dependency lists are in another
// order too is only printed differently (252 seed 110414), and the
// comparison goes on; with another process listed it is no known
// difference.
func TestKnownProcsOrderBesideDependencyOrder(t *testing.T) {
	op := Op{Kind: OpProcesses, Unit: 3}
	row := `("/system.slice/dt233u3.scope" %s "/bin/sleep 1000")`
	svc := `u1.service: "loaded" "active"/"running" After=[%s]`
	real := Step{Op: "GetUnitProcesses u3.scope", Reply: "[" + fmt.Sprintf(row, "P1") + ", " + fmt.Sprintf(row, "P0") + "]",
		Units: []string{fmt.Sprintf(svc, `"sysinit.target", "-.slice"`)}}
	fake := Step{Op: real.Op, Reply: "[" + fmt.Sprintf(row, "P0") + ", " + fmt.Sprintf(row, "P1") + "]",
		Units: []string{fmt.Sprintf(svc, `"-.slice", "sysinit.target"`)}}
	if !sameState(op, real, fake) {
		t.Errorf("sameState = false, want true (known %q)", knownID(op, real, fake))
	}
	fake.Reply = "[" + fmt.Sprintf(row, "P0") + ", " + fmt.Sprintf(row, "P2") + "]"
	if got := knownID(op, real, fake); got != "" {
		t.Errorf("knownDifference with another process = %q, want none", got)
	}
}

func TestKnownReexecStopSignals262(t *testing.T) {
	units := []string{
		`u4.slice: org.freedesktop.systemd1.NoSuchUnit`,
		`u7.target: "loaded" "inactive"/"dead" Result="success"`,
		`u0.service: "loaded" "active"/"running" Result="success"`,
		`u5.socket: "loaded" "active"/"listening" Result="success"`,
	}
	real := Step{Op: "Reexecute", Reply: "org.freedesktop.DBus.Error.NoReply: x", Signals: []string{"JobNew J1 u0.service"}, Units: units}
	testKnownSignals(t, real, []signalsCase{
		{"a slice stopped", Op{Kind: OpReexec}, []string{"JobNew J1 u0.service", "JobNew J2 u4.slice", "JobRemoved J2 u4.slice done"}, "reexec-stop-signals-262"},
		{"two units stopped", Op{Kind: OpReexec}, []string{"JobNew J2 u4.slice", "JobRemoved J2 u4.slice done", "JobNew J1 u0.service",
			"JobNew J3 u7.target", "JobRemoved J3 u7.target done"}, "reexec-stop-signals-262"},
		{"after a reload", Op{Kind: OpReload}, []string{"JobNew J1 u0.service", "JobNew J2 u4.slice", "JobRemoved J2 u4.slice done"}, ""},
		{"a unit still active", Op{Kind: OpReexec}, []string{"JobNew J1 u0.service", "JobNew J2 u5.socket", "JobRemoved J2 u5.socket done"}, ""},
		{"the job failed", Op{Kind: OpReexec}, []string{"JobNew J1 u0.service", "JobNew J2 u4.slice", "JobRemoved J2 u4.slice failed"}, ""},
		{"a signal of real's missing", Op{Kind: OpReexec}, []string{"JobNew J2 u4.slice", "JobRemoved J2 u4.slice done"}, ""},
	})
}

func TestKnownTimerElapseRace(t *testing.T) {
	units := []string{`u1.service: "loaded" "failed"/"failed" Result="exit-code"`, `u6.timer: "loaded" "inactive"/"dead" Result="success"`}
	start := Op{Kind: OpStartTransient, Unit: 6}
	head := []string{"JobNew J9 u6.timer", "JobNew J10 u1.service", "JobRemoved J9 u6.timer done", "JobRemoved J10 u1.service done"}
	real := Step{Op: "StartTransientUnit u6.timer", Reply: "J9", Units: units,
		Signals: append(slices.Clone(head), "JobNew J11 u6.service", "JobRemoved J11 u6.service done", "JobNew J12 u6.timer", "JobRemoved J12 u6.timer done")}
	testKnownSignals(t, real, []signalsCase{
		{"the timer stopped first", start, append(slices.Clone(head), "JobNew J11 u6.timer", "JobRemoved J11 u6.timer done"), "timer-elapse-race"},
		{"not a timer's start", Op{Kind: OpStartTransient, Unit: 1}, append(slices.Clone(head), "JobNew J11 u6.timer", "JobRemoved J11 u6.timer done"), ""},
		{"the timer not stopped", start, slices.Clone(head), ""},
		{"another service missing", start, append(slices.Clone(head[:3]), "JobNew J11 u6.service", "JobRemoved J11 u6.service done", "JobNew J12 u6.timer", "JobRemoved J12 u6.timer done"), ""},
	})
}

// signalsCase is a step whose fake signals differ from real's: with op,
// knownDifference answers want ("" for none).
type signalsCase struct {
	name    string
	op      Op
	signals []string
	want    string
}

// testKnownSignals runs cases against real, each fake step real with the
// case's signals.
func testKnownSignals(t *testing.T, real Step, cases []signalsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := Step{Op: real.Op, Reply: real.Reply, Signals: tc.signals, Units: real.Units}
			if got := knownID(tc.op, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestProcessEndingPendingSignal: a sleep with a SIGTERM pending (held
// stopped, so that it cannot take it) is ending; one without is not.
func TestProcessEndingPendingSignal(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	pid := uint32(cmd.Process.Pid)
	// Until its exec, the child is a copy of the test (not a sleep).
	for i := 0; ; i++ {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.HasPrefix(string(b), "/bin/sleep\x00") {
			break
		}
		if i == 1000 {
			t.Fatal("sleep not started")
		}
		time.Sleep(time.Millisecond)
	}
	if processEnding(pid) {
		t.Fatal("a running sleep is ending")
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 0; procState(pid) != "T"; i++ {
		if i == 1000 {
			t.Fatalf("sleep not stopped: state %q", procState(pid))
		}
		time.Sleep(time.Millisecond)
	}
	if processEnding(pid) {
		t.Fatal("a stopped sleep is ending")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !processEnding(pid) {
		t.Error("a sleep with SIGTERM pending is not ending")
	}
}

func TestKnownReloadKillRace(t *testing.T) {
	gone := "u0.service: org.freedesktop.systemd1.NoSuchUnit"
	stopped := `u0.service: "loaded" "inactive"/"dead" Result="success" ExecMain=2/15 ExecStart=[("/bin/sleep" ["/bin/sleep" "1000"] false times=set/set/set/set pid=set code=2 status=15)] ` +
		`ExecReload=[("/bin/sleep" ["/bin/sleep" "1000"] false times=set/set/set/set pid=set code=2 status=15)] RemainAfterExit=true`
	kill := Op{Kind: OpKill, Unit: 0, Whom: "all", Signal: 15}
	for _, tc := range []struct {
		name       string
		o          Op
		real, fake string // the job's end
		unit       string
		want       string
	}{
		{"collected", kill, "done", "failed", gone, "reload-kill-race"},
		{"stopped, still loaded", kill, "done", "failed", stopped, "reload-kill-race"},
		{"all-fail", Op{Kind: OpKill, Unit: 0, Whom: "all-fail", Signal: 15}, "done", "failed", gone, "reload-kill-race"},
		{"the other way round", kill, "failed", "done", gone, ""},
		{"the main process alone", Op{Kind: OpKill, Unit: 0, Whom: "main", Signal: 15}, "done", "failed", gone, ""},
		{"another unit's job", Op{Kind: OpKill, Unit: 1, Whom: "all", Signal: 15}, "done", "failed", gone, ""},
		{"a unit without ExecReload=", kill, "done", "failed", strings.ReplaceAll(stopped, "ExecReload=", "ExecStop="), ""},
		{"still active", kill, "done", "failed", strings.ReplaceAll(stopped, `"inactive"/"dead"`, `"active"/"exited"`), ""},
		{"not a kill", Op{Kind: OpStop, Unit: 0}, "done", "failed", gone, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := Step{Op: tc.o.String(), Reply: "ok", Signals: []string{"JobRemoved J2 u0.service " + tc.real}, Units: []string{tc.unit}}
			fake := Step{Op: real.Op, Reply: real.Reply, Signals: []string{"JobRemoved J2 u0.service " + tc.fake}, Units: []string{tc.unit}}
			if got := knownID(tc.o, real, fake); got != tc.want {
				t.Errorf("knownDifference = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKnownMainKillNotSeen(t *testing.T) {
	killed := `u0.service: "loaded" "failed"/"failed" Result="exit-code" ExecMain=2/15 ExecStart=[("/bin/sleep" ["/bin/sleep" "1000"] false times=set/set/set/set pid=set code=2 status=15)] ` +
		`ExecStartPost=[("/bin/false" ["/bin/false"] false times=set/set/set/set pid=set code=1 status=1)] TimeoutStopUSec=@t 0 TimeoutAbortUSec=@t 0`
	notSeen := strings.NewReplacer("ExecMain=2/15", "ExecMain=0/0", "set/set/set/set pid=set code=2 status=15", "set/set/0/0 pid=set code=0 status=0").Replace(killed)
	testUnitLineKnown(t, Op{Kind: OpStartTransient}, []unitLineCase{
		{"its end not seen", notSeen, killed, "stop-timeout-race"},
		{"1 µs", strings.ReplaceAll(notSeen, "@t 0", "@t 1"), strings.ReplaceAll(killed, "@t 0", "@t 1"), "stop-timeout-race"},
		{"a longer timeout", strings.ReplaceAll(notSeen, "@t 0", "@t 10"), strings.ReplaceAll(killed, "@t 0", "@t 10"), ""},
		{"the other way round", killed, notSeen, ""},
		{"running on systemd", strings.ReplaceAll(notSeen, `"failed"/"failed"`, `"active"/"running"`), killed, ""},
		{"the start command differs too", strings.ReplaceAll(notSeen, "code=1 status=1", "code=2 status=15"), killed, ""},
	})
}
