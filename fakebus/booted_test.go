package fakebus_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// state is what the tests below compare of a unit.
type state struct {
	Load, Active, Sub string
}

func unitState(ctx context.Context, t *testing.T, c *sdbus.Conn, name string) state {
	t.Helper()
	st, err := c.UnitStatus(ctx, name)
	if err != nil {
		t.Fatalf("UnitStatus(%s): %v", name, err)
	}
	return state{string(st.LoadState), string(st.ActiveState), st.SubState}
}

func writeUnit(t *testing.T, s *fakebus.Server, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.UnitDir(), name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runJob(ctx context.Context, t *testing.T, j *sdbus.Job, err error) sdbus.JobResult {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	r, err := j.Wait(ctx)
	if err != nil && !r.Known() {
		t.Fatal(err)
	}
	return r
}

// TestHostUnits: the units of a booted system are there from the start,
// active, and PID 1 belongs to init.scope.
func TestHostUnits(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	for _, tc := range []struct {
		name string
		want state
	}{
		{"-.slice", state{"loaded", "active", "active"}},
		{"system.slice", state{"loaded", "active", "active"}},
		{"-.mount", state{"loaded", "active", "mounted"}},
		{"init.scope", state{"loaded", "active", "running"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, unitState(ctx, t, c, tc.name)); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if _, err := c.StopUnit(ctx, tc.name, sdbus.ModeReplace); err == nil {
				t.Errorf("StopUnit(%s) succeeded; want it refused", tc.name)
			}
		})
	}
	got, err := c.UnitByPID(ctx, 1)
	if err != nil || got != "init.scope" {
		t.Errorf("UnitByPID(1) = %q, %v; want init.scope", got, err)
	}
	// -.mount takes the cgroup settings of a mount unit.
	if err := c.SetUnitProperties(ctx, "-.mount", true, sdbus.PropRaw("TasksMax", uint64(98765))); err != nil {
		t.Errorf("SetUnitProperties(-.mount, TasksMax): %v", err)
	}
}

// TestExecCommands: ExecStartPre=, ExecStartPost= and ExecReload= run
// with ExecStart='s small command language; a failing one fails the job
// unless prefixed with "-".
func TestExecCommands(t *testing.T) {
	type want struct {
		start   sdbus.JobResult
		after   state
		reload  sdbus.JobResult // "" when not reloaded
		stopped state           // after a stop, when the start succeeded
	}
	for _, tc := range []struct {
		name, service string
		want          want
	}{
		{"pre fails", "ExecStartPre=/bin/false\nExecStart=/bin/sleep 400\n",
			want{sdbus.JobFailed, state{"loaded", "failed", "failed"}, "", state{}}},
		{"pre fails, ignored", "ExecStartPre=-/bin/false\nExecStart=/bin/sleep 400\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, "", state{"loaded", "inactive", "dead"}}},
		{"pre succeeds", "ExecStartPre=/bin/true\nExecStartPre=/bin/sh -c 'exit 0'\nExecStart=/bin/sleep 400\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, "", state{"loaded", "inactive", "dead"}}},
		{"second pre fails", "ExecStartPre=/bin/true\nExecStartPre=/bin/sh -c 'exit 3'\nExecStart=/bin/sleep 400\n",
			want{sdbus.JobFailed, state{"loaded", "failed", "failed"}, "", state{}}},
		{"post fails", "ExecStart=/bin/sleep 400\nExecStartPost=/bin/false\n",
			want{sdbus.JobFailed, state{"loaded", "failed", "failed"}, "", state{}}},
		{"oneshot post fails", "Type=oneshot\nExecStart=/bin/true\nExecStartPost=/bin/false\n",
			want{sdbus.JobFailed, state{"loaded", "failed", "failed"}, "", state{}}},
		{"reload fails", "ExecStart=/bin/sleep 400\nExecReload=/bin/false\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, sdbus.JobFailed, state{"loaded", "inactive", "dead"}}},
		{"reload fails, ignored", "ExecStart=/bin/sleep 400\nExecReload=-/bin/false\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, sdbus.JobDone, state{"loaded", "inactive", "dead"}}},
		{"reload runs an unknown program", "ExecStart=/bin/sleep 400\nExecReload=/bin/kill -HUP $MAINPID\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, sdbus.JobDone, state{"loaded", "inactive", "dead"}}},
		{"stop fails", "ExecStart=/bin/sleep 400\nExecStop=/bin/false\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, "", state{"loaded", "failed", "failed"}}},
		{"stop post fails", "ExecStart=/bin/sleep 400\nExecStopPost=/bin/sh -c 'exit 2'\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, "", state{"loaded", "failed", "failed"}}},
		{"stop fails, ignored", "ExecStart=/bin/sleep 400\nExecStop=-/bin/false\n",
			want{sdbus.JobDone, state{"loaded", "active", "running"}, "", state{"loaded", "inactive", "dead"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			c := s.Conn(t)
			ctx := ctxFor(t)
			writeUnit(t, s, "x.service", "[Service]\n"+tc.service)
			var got want
			j, err := c.StartUnit(ctx, "x.service", sdbus.ModeReplace)
			got.start = runJob(ctx, t, j, err)
			if tc.want.reload != "" {
				j, err := c.ReloadUnit(ctx, "x.service", sdbus.ModeReplace)
				got.reload = runJob(ctx, t, j, err)
			}
			got.after = unitState(ctx, t, c, "x.service")
			if got.start == sdbus.JobDone {
				j, err := c.StopUnit(ctx, "x.service", sdbus.ModeReplace)
				if r := runJob(ctx, t, j, err); r != sdbus.JobDone {
					t.Errorf("stop: %s", r)
				}
				got.stopped = unitState(ctx, t, c, "x.service")
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.after.Active == "failed" {
				sp, err := c.ServiceProperties(ctx, "x.service")
				if err != nil || sp.Result != "exit-code" {
					t.Errorf("Result = %q, %v; want exit-code", sp.Result, err)
				}
			}
		})
	}
}

// TestKillUnitSignal: SIGTERM and SIGINT end a service cleanly (inactive,
// so a transient one is unloaded); SIGKILL fails it.
func TestKillUnitSignal(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want state
	}{
		{syscall.SIGTERM, state{"not-found", "inactive", "dead"}},
		{syscall.SIGINT, state{"not-found", "inactive", "dead"}},
		{syscall.SIGKILL, state{"loaded", "failed", "failed"}},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			s := fakebus.New(t)
			c := s.Conn(t)
			ctx := ctxFor(t)
			j, err := c.StartTransientUnit(ctx, "k.service", sdbus.ModeReplace,
				[]sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "400"}, false)})
			if r := runJob(ctx, t, j, err); r != sdbus.JobDone {
				t.Fatalf("start: %s", r)
			}
			if err := c.KillUnit(ctx, "k.service", sdbus.KillAll, tc.sig); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, unitState(ctx, t, c, "k.service")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func sleeper(props ...sdbus.Property) []sdbus.Property {
	return append([]sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "400"}, false)}, props...)
}

// TestDependencyBehaviour: Requisite=, Conflicts=, and the stop of a unit
// others Require or are BoundTo.
func TestDependencyBehaviour(t *testing.T) {
	type step struct {
		op    string // "start", "stop", "kill9"
		unit  string
		props []sdbus.Property
	}
	for _, tc := range []struct {
		name    string
		steps   []step
		last    sdbus.JobResult // of the last step's job
		lastErr string          // the last step's D-Bus error, if it fails
		want    map[string]state
	}{
		{"requisite inactive", []step{
			{"start", "dep.service", sleeper()}, {"stop", "dep.service", nil},
			{"start", "a.service", sleeper(sdbus.PropRaw("Requisite", []string{"other.service"}))},
		}, "", "org.freedesktop.systemd1.NoSuchUnit", map[string]state{"a.service": {"not-found", "inactive", "dead"}}},
		{"requisite active", []step{
			{"start", "dep.service", sleeper()},
			{"start", "a.service", sleeper(sdbus.PropRaw("Requisite", []string{"dep.service"}))},
		}, sdbus.JobDone, "", map[string]state{"a.service": {"loaded", "active", "running"}}},
		{"conflicts stops the other", []step{
			{"start", "dep.service", sleeper()},
			{"start", "a.service", sleeper(sdbus.PropConflicts("dep.service"))},
		}, sdbus.JobDone, "", map[string]state{
			// a refers to dep: dep stays loaded.
			"a.service": {"loaded", "active", "running"}, "dep.service": {"loaded", "inactive", "dead"}}},
		{"conflicted by", []step{
			{"start", "dep.service", sleeper(sdbus.PropConflicts("a.service"))},
			{"start", "a.service", sleeper()},
		}, sdbus.JobDone, "", map[string]state{
			"a.service": {"loaded", "active", "running"}, "dep.service": {"not-found", "inactive", "dead"}}},
		{"stopping a requirement stops the requirer", []step{
			{"start", "dep.service", sleeper()},
			{"start", "a.service", sleeper(sdbus.PropRequires("dep.service"))},
			{"stop", "dep.service", nil},
		}, sdbus.JobDone, "", map[string]state{
			"a.service": {"not-found", "inactive", "dead"}, "dep.service": {"not-found", "inactive", "dead"}}},
		{"stopping a binding stops the bound", []step{
			{"start", "dep.service", sleeper()},
			{"start", "a.service", sleeper(sdbus.PropBindsTo("dep.service"))},
			{"stop", "dep.service", nil},
		}, sdbus.JobDone, "", map[string]state{
			"a.service": {"not-found", "inactive", "dead"}, "dep.service": {"not-found", "inactive", "dead"}}},
		{"a binding that fails stops the bound", []step{
			{"start", "dep.service", sleeper()},
			{"start", "a.service", sleeper(sdbus.PropBindsTo("dep.service"))},
			{"kill9", "dep.service", nil},
		}, "", "", map[string]state{
			"a.service": {"not-found", "inactive", "dead"}, "dep.service": {"loaded", "failed", "failed"}}},
		{"a requirement that fails does not stop the requirer", []step{
			{"start", "dep.service", sleeper()},
			{"start", "a.service", sleeper(sdbus.PropRequires("dep.service"))},
			{"kill9", "dep.service", nil},
		}, "", "", map[string]state{
			"a.service": {"loaded", "active", "running"}, "dep.service": {"loaded", "failed", "failed"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			c := s.Conn(t)
			ctx := ctxFor(t)
			var last sdbus.JobResult
			lastErr := ""
			for i, st := range tc.steps {
				var j *sdbus.Job
				var err error
				switch st.op {
				case "start":
					j, err = c.StartTransientUnit(ctx, st.unit, sdbus.ModeReplace, st.props)
				case "stop":
					j, err = c.StopUnit(ctx, st.unit, sdbus.ModeReplace)
				case "kill9":
					err = c.KillUnit(ctx, st.unit, sdbus.KillAll, syscall.SIGKILL)
				}
				if i < len(tc.steps)-1 {
					if j != nil || err != nil {
						if r := runJob(ctx, t, j, err); r != sdbus.JobDone {
							t.Fatalf("step %d: %s", i, r)
						}
					}
					continue
				}
				if err != nil {
					lastErr = errName(err)
					if lastErr == "" {
						t.Fatalf("step %d: %v", i, err)
					}
				} else if j != nil {
					last = runJob(ctx, t, j, nil)
				}
			}
			if last != tc.last || lastErr != tc.lastErr {
				t.Errorf("last step: %q, error %q; want %q, error %q", last, lastErr, tc.last, tc.lastErr)
			}
			// What the last step set off (a bound unit's stop, queued by
			// the kill) runs after its reply, as on systemd: the states
			// are read once no job is left.
			for s.Jobs() > 0 {
				if ctx.Err() != nil {
					t.Fatalf("%d jobs left after the last step", s.Jobs())
				}
				time.Sleep(time.Millisecond)
			}
			got := map[string]state{}
			for name := range tc.want {
				got[name] = unitState(ctx, t, c, name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("states (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequisiteNotActive: a start whose Requisite= unit exists but is not
// active ends with "dependency" and starts nothing.
func TestRequisiteNotActive(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	writeUnit(t, s, "dep.service", "[Service]\nExecStart=/bin/sleep 400\n")
	writeUnit(t, s, "a.service", "[Unit]\nRequisite=dep.service\n[Service]\nExecStart=/bin/sleep 400\n")
	j, err := c.StartUnit(ctx, "a.service", sdbus.ModeReplace)
	if r := runJob(ctx, t, j, err); r != sdbus.JobDependency {
		t.Errorf("start: %s, want dependency", r)
	}
	for _, name := range []string{"a.service", "dep.service"} {
		if st := unitState(ctx, t, c, name); st.Active != "inactive" {
			t.Errorf("%s: %+v, want inactive", name, st)
		}
	}
	j, err = c.StartUnit(ctx, "dep.service", sdbus.ModeReplace)
	runJob(ctx, t, j, err)
	j, err = c.StartUnit(ctx, "a.service", sdbus.ModeReplace)
	if r := runJob(ctx, t, j, err); r != sdbus.JobDone {
		t.Errorf("start with dep.service active: %s, want done", r)
	}
}

// TestCgroupRoot: with WithCgroupRoot, an active unit's control group is a
// directory; a directory made below a delegated unit's is a sub-cgroup
// AttachProcessesToUnit accepts; stopping the unit removes it.
func TestCgroupRoot(t *testing.T) {
	root := t.TempDir()
	s := fakebus.New(t, fakebus.WithCgroupRoot(root))
	c := s.Conn(t)
	ctx := ctxFor(t)
	dir := filepath.Join(root, "system.slice", "d.service")
	j, err := c.StartTransientUnit(ctx, "d.service", sdbus.ModeReplace, sleeper(sdbus.PropRaw("Delegate", true)))
	runJob(ctx, t, j, err)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the unit's cgroup directory: %v", err)
	}
	if err := c.AttachProcessesToUnit(ctx, "d.service", "/sub", uint32(os.Getpid())); err == nil {
		t.Errorf("AttachProcessesToUnit into a sub-cgroup that does not exist succeeded")
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.AttachProcessesToUnit(ctx, "d.service", "/sub", uint32(os.Getpid())); err != nil {
		t.Errorf("AttachProcessesToUnit into the sub-cgroup made: %v", err)
	}
	j, err = c.StopUnit(ctx, "d.service", sdbus.ModeReplace)
	runJob(ctx, t, j, err)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the cgroup directory after stop: %v, want gone", err)
	}
	var st syscall.Statfs_t
	if syscall.Statfs("/sys/fs/cgroup", &st) == nil && st.Type == 0x63677270 {
		if _, err := fakebus.Start(fakebus.WithCgroupRoot("/sys/fs/cgroup")); err == nil {
			t.Errorf("WithCgroupRoot(/sys/fs/cgroup) on a real cgroup2 file system was accepted")
		}
	}
}

// TestTransientSocket: a transient socket listens (in name only) and
// keeps the service it triggers, an auxiliary unit of the same call,
// loaded until it is itself unloaded.
func TestTransientSocket(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	listen := sdbus.PropRaw("Listen", []struct{ Type, Address string }{{"Stream", "/run/x.sock"}})
	j, err := c.StartTransientUnit(ctx, "x.socket", sdbus.ModeReplace, []sdbus.Property{listen},
		sdbus.AuxUnit{Name: "x.service", Properties: sleeper()})
	if r := runJob(ctx, t, j, err); r != sdbus.JobDone {
		t.Fatalf("start: %s", r)
	}
	want := map[string]state{"x.socket": {"loaded", "active", "listening"}, "x.service": {"loaded", "inactive", "dead"}}
	got := map[string]state{"x.socket": unitState(ctx, t, c, "x.socket"), "x.service": unitState(ctx, t, c, "x.service")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
	j, err = c.StopUnit(ctx, "x.socket", sdbus.ModeReplace)
	runJob(ctx, t, j, err)
	want = map[string]state{"x.socket": {"not-found", "inactive", "dead"}, "x.service": {"not-found", "inactive", "dead"}}
	got = map[string]state{"x.socket": unitState(ctx, t, c, "x.socket"), "x.service": unitState(ctx, t, c, "x.service")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stopped (-want +got):\n%s", diff)
	}
	_, err = c.StartTransientUnit(ctx, "y.socket", sdbus.ModeReplace, nil)
	if errName(err) != "org.freedesktop.systemd1.BadUnitSetting" {
		t.Errorf("a socket without Listen: %v, want BadUnitSetting", err)
	}
}

// TestScriptSequences: Results scripts a unit's successive jobs (the
// first start fails, the second succeeds), then Result applies; a
// scripted success of a long-running service leaves it running its
// command.
func TestScriptSequences(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script fakebus.Script
		want   []sdbus.JobResult
		subs   []string
	}{
		{"fail then succeed", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed, sdbus.JobDone}},
			[]sdbus.JobResult{sdbus.JobFailed, sdbus.JobDone, sdbus.JobDone}, []string{"failed", "running", "running"}},
		{"fail then unscripted, then Result", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed, ""}, Result: sdbus.JobTimeout},
			[]sdbus.JobResult{sdbus.JobFailed, sdbus.JobDone, sdbus.JobTimeout}, []string{"failed", "running", "failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			c := s.Conn(t)
			ctx := ctxFor(t)
			writeUnit(t, s, "x.service", "[Service]\nExecStart=/bin/sleep 400\n")
			if err := s.Script("x.*", tc.script); err != nil {
				t.Fatal(err)
			}
			var got []sdbus.JobResult
			var subs []string
			for range tc.want {
				j, err := c.StartUnit(ctx, "x.service", sdbus.ModeReplace)
				got = append(got, runJob(ctx, t, j, err))
				subs = append(subs, unitState(ctx, t, c, "x.service").Sub)
				j, err = c.StopUnit(ctx, "x.service", sdbus.ModeReplace)
				runJob(ctx, t, j, err)
				if err := c.ResetFailedUnit(ctx, "x.service"); err != nil && !errors.Is(err, sdbus.ErrNoSuchUnit) {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.subs, subs); diff != "" {
				t.Errorf("sub-states (-want +got):\n%s", diff)
			}
		})
	}
}

// TestActiveAtStart: unit files declared Active are active from the
// start, their slices with them, with no job; they stop like others.
func TestActiveAtStart(t *testing.T) {
	s := fakebus.New(t,
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "systemd-journald.service", Active: true, Properties: []sdbus.Property{
			sdbus.PropExecStart([]string{"/lib/systemd/systemd-journald"}, false)}}),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "app.service", Active: true, Properties: []sdbus.Property{
			sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropRaw("RemainAfterExit", true),
			sdbus.PropExecStart([]string{"/bin/true"}, false), sdbus.PropSlice("apps.slice")}}),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "idle.service", Properties: []sdbus.Property{
			sdbus.PropExecStart([]string{"/bin/true"}, false)}}),
	)
	c := s.Conn(t)
	ctx := ctxFor(t)
	want := map[string]state{
		"systemd-journald.service": {"loaded", "active", "running"},
		"app.service":              {"loaded", "active", "exited"},
		"apps.slice":               {"loaded", "active", "active"},
		"idle.service":             {"loaded", "inactive", "dead"},
	}
	got := map[string]state{}
	for name := range want {
		got[name] = unitState(ctx, t, c, name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	j, err := c.StopUnit(ctx, "systemd-journald.service", sdbus.ModeReplace)
	if r := runJob(ctx, t, j, err); r != sdbus.JobDone {
		t.Errorf("stop: %s", r)
	}
	if _, err := fakebus.Start(fakebus.WithUnitFile(fakebus.UnitFile{Name: "m.service", Masked: true, Active: true})); err == nil {
		t.Error("a masked unit declared active was accepted")
	}
}

// TestRestartPropagationFailure: when the restart of a unit that a
// restart propagated to fails, the units that require it end their
// try-restart with dependency, stopped (and unloaded), as on systemd 252:
// restart a; req (Requires=a) fails its start; req2 (Requires=req) ends
// dependency, inactive.
func TestRestartPropagationFailure(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := context.Background()
	run := func(j *sdbus.Job, err error) sdbus.JobResult {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		res, _ := j.Wait(ctx)
		return res
	}
	run(c.StartTransientUnit(ctx, "a.service", sdbus.ModeReplace, sleeper()))
	run(c.StartTransientUnit(ctx, "req.service", sdbus.ModeReplace, sleeper(sdbus.PropRequires("a.service"))))
	run(c.StartTransientUnit(ctx, "req2.service", sdbus.ModeReplace, sleeper(sdbus.PropRequires("req.service"))))
	if err := s.Script("req.service", fakebus.Script{Result: sdbus.JobFailed}); err != nil {
		t.Fatal(err)
	}
	if got := run(c.RestartUnit(ctx, "a.service", sdbus.ModeReplace)); got != sdbus.JobDone {
		t.Errorf("restart of a: %s, want done", got)
	}
	got := map[string]state{}
	for _, n := range []string{"a.service", "req.service", "req2.service"} {
		got[n] = unitState(ctx, t, c, n)
	}
	want := map[string]state{
		"a.service":    {"loaded", "active", "running"},
		"req.service":  {"loaded", "failed", "failed"},
		"req2.service": {"not-found", "inactive", "dead"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}
