package fakebus_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// resetOptions are the options of the servers TestResetIsStart compares.
func resetOptions(cgroups string) []fakebus.Option {
	active := app("app.service")
	active.Active = true
	return []fakebus.Option{
		fakebus.WithUnitFile(active), fakebus.WithUnitFile(app("app2.service")),
		fakebus.WithScriptFile(&fakebus.ScriptFile{
			Units:   []fakebus.UnitFile{app("crash.service")},
			Scripts: []fakebus.PatternScript{{Pattern: "crash.service", Script: fakebus.Script{Result: sdbus.JobFailed, UnitResult: "signal", ExitStatus: 9}}},
		}),
		fakebus.WithScript("app2.service", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobTimeout}}),
		fakebus.WithCallLog(100, nil), fakebus.WithCgroupRoot(cgroups),
	}
}

// fakeState is what a client and a test see of a fake.
type fakeState struct {
	Units   []string // ListUnits: name, states, description, job
	Files   []string // ListUnitFiles: path, state
	Manager []string // properties that calls change
	Jobs    int
	Calls   int // kept in memory, before these reads
	Cgroups []string
}

func stateOf(t *testing.T, s *fakebus.Server, cgroups string) fakeState {
	t.Helper()
	var st fakeState
	st.Calls = len(s.Calls(fakebus.CallFilter{}))
	st.Jobs = s.Jobs()
	r := rawBus(t, s)
	var units []struct {
		Name, Desc, Load, Active, Sub, Following string
		Path                                     dbus.ObjectPath
		JobID                                    uint32
		JobType                                  string
		JobPath                                  dbus.ObjectPath
	}
	r.mustManager(t, "ListUnits", nil, &units)
	for _, u := range units {
		st.Units = append(st.Units, fmt.Sprintf("%s %s %s %s %q job=%d", u.Name, u.Load, u.Active, u.Sub, u.Desc, u.JobID))
	}
	sort.Strings(st.Units)
	var files []struct{ Path, State string }
	r.mustManager(t, "ListUnitFiles", nil, &files)
	for _, f := range files {
		st.Files = append(st.Files, filepath.Base(f.Path)+" "+f.State)
	}
	sort.Strings(st.Files)
	for _, p := range []string{"Version", "Environment", "LogLevel", "NFailedUnits", "NJobs", "SystemState"} {
		v, err := r.Object(systemd1, managerPath).GetProperty(managerIface + "." + p)
		if err != nil {
			t.Fatal(err)
		}
		st.Manager = append(st.Manager, p+"="+fmt.Sprint(v.Value()))
	}
	_ = filepath.Walk(cgroups, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			rel, _ := filepath.Rel(cgroups, p)
			st.Cgroups = append(st.Cgroups, rel)
		}
		return nil
	})
	return st
}

// TestResetIsStart: after Reset a fake that clients and the test changed
// every way they can shows what a fake started with the same options
// shows, and behaves as it: its start-up scripts apply again, the
// run-time ones and the faults armed are gone.
func TestResetIsStart(t *testing.T) {
	ctx := context.Background()
	cgA, cgB := t.TempDir(), t.TempDir()
	a := fakebus.New(t, resetOptions(cgA)...)
	b := fakebus.New(t, resetOptions(cgB)...)
	want := stateOf(t, b, cgB)

	c := a.Conn(t)
	r := rawBus(t, a)
	if err := a.AddUnitFile(app("extra.service")); err != nil {
		t.Fatal(err)
	}
	if res := startResult(t, c, "extra.service"); res != sdbus.JobDone {
		t.Fatal(res)
	}
	if err := a.SetUnitState("app2.service", fakebus.UnitState{ActiveState: "failed"}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetUnitProperties("app.service", sdbus.PropDescription("changed")); err != nil {
		t.Fatal(err)
	}
	if err := a.MakeSubcgroup("app.service", "/payload"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cgA, "system.slice", "app.service", "made"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.mustManager(t, "SetEnvironment", []any{[]string{"A=1"}})
	if err := r.Object(systemd1, managerPath).SetProperty(managerIface+".LogLevel", dbus.MakeVariant("debug")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.UnitDir(), "disk.service"), []byte("[Service]\nExecStart=/usr/bin/disk\n[Install]\nWantedBy=multi-user.target\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.EnableUnitFiles(ctx, []string{"disk.service"}, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.SetVersion("253.1-1"); err != nil {
		t.Fatal(err)
	}
	a.SetReloadDuration(time.Hour)
	a.SetReexecDuration(time.Hour)
	a.DropAfterReply("GetUnit", 5)
	if err := a.Script("app2.service", fakebus.Script{Result: sdbus.JobFailed}); err != nil {
		t.Fatal(err)
	}
	if err := a.AddUnitFile(app("slow.service")); err != nil {
		t.Fatal(err)
	}
	if err := a.Script("slow.service", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartUnit(ctx, "slow.service", sdbus.ModeReplace); err != nil {
		t.Fatal(err)
	}
	if a.Jobs() != 1 {
		t.Fatalf("Jobs() = %d, want slow.service's", a.Jobs())
	}

	if err := a.Reset(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, stateOf(t, a, cgA)); diff != "" {
		t.Errorf("after Reset (-fresh +reset):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(a.UnitDir(), "disk.service")); !os.IsNotExist(err) {
		t.Errorf("disk.service in the temporary unit directory after Reset: %v", err)
	}
	// It behaves as started: the start-up scripts, no run-time ones, no
	// armed fault, no reload duration.
	for _, tt := range []struct {
		unit string
		want sdbus.JobResult
	}{{"crash.service", sdbus.JobFailed}, {"app2.service", sdbus.JobTimeout}, {"app2.service", sdbus.JobDone}} {
		if err := c.ResetFailedUnit(ctx, tt.unit); err != nil && !errors.Is(err, sdbus.ErrNoSuchUnit) {
			t.Fatal(err)
		}
		if got := startResult(t, c, tt.unit); got != tt.want {
			t.Errorf("start %s: %s, want %s", tt.unit, got, tt.want)
		}
	}
	for i := 0; i < 6; i++ {
		var p dbus.ObjectPath
		r.mustManager(t, "GetUnit", []any{"app.service"}, &p)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Reload(rctx); err != nil {
		t.Errorf("a reload after Reset, whose reload duration is 0 again: %v", err)
	}
	if got := a.ScriptConflicts(); len(got) != 0 {
		t.Errorf("ScriptConflicts after Reset: %v", got)
	}
}

// TestResetClients: clients stay connected and subscribed across Reset;
// their jobs end canceled (a delayed reply is sent first), the units
// they saw are removed and those of the start announced; job IDs go on;
// WaitIdle returns.
func TestResetClients(t *testing.T) {
	ctx := context.Background()
	s := fakebus.New(t, fakebus.WithUnitFile(app("slow.service")), fakebus.WithUnitFile(app("late.service")))
	if err := s.Script("slow.service", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := s.Script("late.service", fakebus.Script{Delay: time.Hour, ReplyDelay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	r := rawBus(t, s)
	r.match(t, dbus.WithMatchInterface(managerIface))
	r.mustManager(t, "Subscribe", nil)
	var slow dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{"slow.service", "replace"}, &slow)
	late := make(chan *dbus.Call, 1)
	r.Object(systemd1, managerPath).Go(managerIface+".StartUnit", 0, late, "late.service", "replace")
	waited := make(chan error, 1)
	go func() { waited <- s.WaitIdle(ctx) }()
	for deadline := time.Now().Add(5 * time.Second); s.Jobs() != 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Jobs() = %d, want 2", s.Jobs())
		}
	}

	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	select {
	case call := <-late:
		if call.Err != nil {
			t.Errorf("late.service's delayed reply: %v", call.Err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("late.service's delayed reply did not come with Reset")
	}
	if err := <-waited; err != nil {
		t.Errorf("WaitIdle: %v", err)
	}
	var got []string
	for _, sig := range r.until(t, func(sig *dbus.Signal) bool {
		return sig.Name == managerIface+".UnitNew" && sig.Body[0] == "init.scope"
	}) {
		switch sig.Name {
		case managerIface + ".JobRemoved":
			got = append(got, fmt.Sprintf("JobRemoved %s %s", sig.Body[2], sig.Body[3]))
		case managerIface + ".UnitRemoved", managerIface + ".UnitNew":
			if n := sig.Body[0].(string); n == "slow.service" || n == "late.service" || n == "-.slice" || n == "init.scope" {
				got = append(got, sig.Name[len(managerIface)+1:]+" "+n)
			}
		}
	}
	want := []string{
		"UnitNew slow.service", "UnitNew late.service", // loaded for the jobs
		// Canceled, each unit is collected as its job ends; late.service's
		// JobRemoved follows the reply Reset sends.
		"JobRemoved slow.service canceled", "UnitRemoved slow.service", "UnitRemoved late.service",
		"JobRemoved late.service canceled",
		// Every unit unloaded, then those of the start loaded.
		"UnitRemoved -.slice", "UnitRemoved init.scope", "UnitNew -.slice", "UnitNew init.scope",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
	// Still subscribed, with job IDs that go on.
	var next dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{"slow.service", "replace"}, &next)
	if jobID(next) <= jobID(slow) {
		t.Errorf("job after Reset %s, before %s: want IDs that go on", next, slow)
	}
	r.until(t, func(sig *dbus.Signal) bool { return sig.Name == managerIface+".JobRemoved" && sig.Body[1] == next })
}

// TestResetStaleTimers: what was armed before Reset does nothing after
// it: a service whose command ends 200ms after its start, reset and put
// running again, hears nothing of the old command's end, nor do
// subscribers.
func TestResetStaleTimers(t *testing.T) {
	f := fakebus.UnitFile{Name: "app.service", Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "0.2"}, false)}}
	s := fakebus.New(t, fakebus.WithUnitFile(f))
	c := s.Conn(t)
	if res := startResult(t, c, "app.service"); res != sdbus.JobDone {
		t.Fatal(res)
	}
	r := rawBus(t, s)
	r.match(t, dbus.WithMatchObjectPath(sdbus.UnitPath("app.service")))
	r.mustManager(t, "Subscribe", nil)
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	// Running until stopped, whatever its command does.
	if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "active", SubState: "running"}); err != nil {
		t.Fatal(err)
	}
	// The Unit's, then the Service's PropertiesChanged of the change.
	r.until(t, func(sig *dbus.Signal) bool {
		return sig.Name == "org.freedesktop.DBus.Properties.PropertiesChanged" && sig.Body[0] == "org.freedesktop.systemd1.Service"
	})
	timeout := time.After(400 * time.Millisecond)
	for {
		select {
		case sig := <-r.sigs:
			t.Errorf("signal after Reset: %v", sig)
		case <-timeout:
			if u, _ := s.Unit("app.service"); u.ActiveState != "active" {
				t.Errorf("app.service is %s 400ms after Reset", u.ActiveState)
			}
			return
		}
	}
}

// TestResetTimerWaiting: a timer that fired while Reset waited for the
// manager, and runs after it, does nothing: a daemon-reexec holds the
// manager 600ms; Reset waits behind it from 100ms, the end of a
// service's command (sleep 0.3) from 300ms. No signal of the service
// follows its UnitRemoved.
func TestResetTimerWaiting(t *testing.T) {
	f := fakebus.UnitFile{Name: "app.service", Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "0.3"}, false)}}
	s := fakebus.New(t, fakebus.WithUnitFile(f))
	r := rawBus(t, s)
	r.match(t)
	r.mustManager(t, "Subscribe", nil)
	var job dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{"app.service", "replace"}, &job)
	r.until(t, jobRemoved(job))
	s.SetReexecDuration(600 * time.Millisecond)
	done := make(chan struct{}, 2)
	go func() { s.Reexecute(fakebus.Reexec{}); done <- struct{}{} }()
	time.Sleep(100 * time.Millisecond)
	go func() {
		if err := s.Reset(); err != nil {
			t.Error(err)
		}
		done <- struct{}{}
	}()
	<-done
	<-done
	removed := false
	timeout := time.After(500 * time.Millisecond)
	for {
		select {
		case sig := <-r.sigs:
			switch {
			case sig.Name == managerIface+".UnitRemoved" && sig.Body[0] == "app.service":
				removed = true
			case removed && sig.Path == sdbus.UnitPath("app.service"):
				t.Errorf("signal of app.service after its UnitRemoved: %v", sig)
			}
		case <-timeout:
			if !removed {
				t.Error("no UnitRemoved of app.service")
			}
			return
		}
	}
}

// TestResetUnitDirs: Reset empties the temporary unit directories and
// leaves the test's own as they are.
func TestResetUnitDirs(t *testing.T) {
	own := t.TempDir()
	s := fakebus.New(t, fakebus.WithUnitDir(own))
	write := func(dir string) string {
		p := filepath.Join(dir, "x.service")
		if err := os.WriteFile(p, []byte("[Service]\nExecStart=/usr/bin/x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mine, temp := write(s.UnitDir()), write(s.RuntimeUnitDir())
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the test's unit directory lost its file: %v", err)
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("the temporary runtime unit directory kept its file: %v", err)
	}
	if _, err := os.Stat(s.RuntimeUnitDir()); err != nil {
		t.Errorf("the temporary runtime unit directory: %v", err)
	}
}

// TestResetConflict: a start-up script that contradicts a unit file the
// test wrote since into its own unit directory fails Reset as it would
// fail Start.
func TestResetConflict(t *testing.T) {
	own := t.TempDir()
	s := fakebus.New(t, fakebus.WithUnitDir(own), fakebus.WithScript("x.service", fakebus.Script{Result: sdbus.JobDone}))
	if err := os.WriteFile(filepath.Join(own, "x.service"), []byte("[Service]\nType=oneshot\nExecStart=/bin/false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c *fakebus.ScriptConflict
	if err := s.Reset(); !errors.As(err, &c) || c.Unit != "x.service" {
		t.Errorf("Reset: %v, want x.service's ScriptConflict", err)
	}
}

// TestResetClosed: Reset of a closed Server fails.
func TestResetClosed(t *testing.T) {
	s, err := fakebus.Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(); err == nil {
		t.Error("Reset of a closed Server: no error")
	}
}

// TestWithScriptConflict: Start fails with a start-up script that
// contradicts a unit's commands, naming the script.
func TestWithScriptConflict(t *testing.T) {
	f := fakebus.UnitFile{Name: "bad.service", Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/false"}, false), sdbus.PropType(sdbus.ServiceOneshot)}}
	_, err := fakebus.Start(fakebus.WithUnitFile(f), fakebus.WithScript("a.service", fakebus.Script{}), fakebus.WithScript("bad.service", fakebus.Script{Result: sdbus.JobDone}))
	var c *fakebus.ScriptConflict
	if !errors.As(err, &c) || c.Rule.Index != 1 {
		t.Fatalf("Start: %v, want the ScriptConflict of rule 1", err)
	}
	if got, want := err.Error()[:len("scripts[1]: ")], "scripts[1]: "; got != want {
		t.Errorf("Start: %v, want it to start with %q", err, want)
	}
}
