package fakebus_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

const (
	ctlName  = "io.github.sdbus_go.FakeSystemd"
	ctlPath  = dbus.ObjectPath("/io/github/sdbus_go/FakeSystemd")
	ctlIface = "io.github.sdbus_go.FakeSystemd1"
)

// ctl calls a control method on c and stores the reply in out.
func ctl(c *dbus.Conn, method string, args []any, out ...any) error {
	call := c.Object(ctlName, ctlPath).Call(ctlIface+"."+method, 0, args...)
	if call.Err != nil {
		return call.Err
	}
	return call.Store(out...)
}

// mustCtl is ctl that fails t on error.
func mustCtl(t *testing.T, c *dbus.Conn, method string, args []any, out ...any) {
	t.Helper()
	if err := ctl(c, method, args, out...); err != nil {
		t.Fatalf("%s%v: %v", method, args, err)
	}
}

// app is a unit file of a service running a command the fake does not
// interpret, so that scripts may give it any result.
func app(name string) fakebus.UnitFile {
	return fakebus.UnitFile{Name: name, Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/usr/bin/app"}, false)}}
}

// startResult starts unit on c and returns its job's result.
func startResult(t *testing.T, c *sdbus.Conn, unit string) sdbus.JobResult {
	t.Helper()
	ctx := context.Background()
	j, err := c.StartUnit(ctx, unit, sdbus.ModeReplace)
	if err != nil {
		t.Fatalf("start %s: %v", unit, err)
	}
	res, err := j.Wait(ctx)
	if res == "" {
		t.Fatalf("start %s: %v", unit, err)
	}
	return res
}

// TestControlIntrospect: the control object's XML lists every method with
// its signatures, and its parents lead to it.
func TestControlIntrospect(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	node := introspectNode(t, c.Object(ctlName, ctlPath))
	var got []string
	for _, i := range node.Interfaces {
		if i.Name != ctlIface {
			continue
		}
		for _, m := range i.Methods {
			var in, out string
			for _, a := range m.Args {
				if a.Direction == "in" {
					in += a.Type
				} else {
					out += a.Type
				}
			}
			got = append(got, m.Name+"("+in+")"+out)
		}
	}
	want := []string{
		"ApplyScript(s)", "ScriptResult(ssu)", "ScriptDelay(sdd)", "ScriptFailure(sssiu)", "ClearScripts()",
		"ScriptConflicts()s", "SetUnitState(ssssa{sv})", "SetUnitProperties(sa(sv))", "MakeSubcgroup(ss)", "AddUnitFile(s)",
		"RemoveUnitFile(s)b", "UnitDirs()ss", "SetVersion(s)", "SetReloadDuration(d)", "SetReexecDuration(d)", "DaemonReload()",
		"Reexecute(a{sv})ss", "DropConnections()", "DropAfterReply(su)", "Clients()u", "EmitJobRemoved(uoss)", "EmitJobRemovedFrom(suoss)",
		"Unit(s)bssssbuau", "Jobs()u", "FinishJob(us)b", "WaitIdle(d)", "GetCalls(ss)s", "ClearCalls()", "Reset()",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		path  dbus.ObjectPath
		child string
	}{{"/", "io"}, {"/io", "github"}, {"/io/github", "sdbus_go"}, {"/io/github/sdbus_go", "FakeSystemd"}} {
		t.Run(string(tt.path), func(t *testing.T) {
			n := introspectNode(t, c.Object(ctlName, tt.path))
			if len(n.Children) != 1 || n.Children[0].Name != tt.child {
				t.Errorf("children %v, want %s", n.Children, tt.child)
			}
		})
	}
	if err := c.Object(ctlName, "/org/freedesktop/systemd1").Call("org.freedesktop.DBus.Introspectable.Introspect", 0).Err; errName(err) != "org.freedesktop.DBus.Error.UnknownObject" {
		t.Errorf("systemd's path on the control name: %v, want UnknownObject", err)
	}
}

// TestControlNames: the control name is on the bus only with WithControl,
// and systemd keeps its name and unique name.
func TestControlNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []fakebus.Option
		want bool
	}{{"with", []fakebus.Option{fakebus.WithControl()}, true}, {"without", nil, false}} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, tt.opts...)
			c := s.RawConn(t)
			var names []string
			if err := c.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(names, ctlName); got != tt.want {
				t.Errorf("ListNames %v: has %s = %v, want %v", names, ctlName, got, tt.want)
			}
			var owner string
			if err := c.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, systemd1).Store(&owner); err != nil || owner != ":1.1" {
				t.Errorf("owner of systemd1 = %q, %v; want :1.1", owner, err)
			}
		})
	}
}

func TestControlAccess(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []fakebus.Option
		uid  int
		want string
	}{
		{"own uid", nil, os.Getuid(), ""},
		{"own uid under AccessRoot", []fakebus.Option{fakebus.WithAccess(fakebus.AccessRoot)}, os.Getuid(), ""},
		{"root", nil, 0, ""},
		{"other uid", nil, 65534, "org.freedesktop.DBus.Error.AccessDenied"},
		{"other uid, everyone", []fakebus.Option{fakebus.WithAccess(fakebus.AccessEveryone)}, 65534, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.uid == 65534 && os.Getuid() == 65534 {
				t.Skip("runs as 65534")
			}
			s := fakebus.New(t, append(tt.opts, fakebus.WithControl())...)
			var n uint32
			if got := errName(ctl(pipeAs(t, s, tt.uid), "Jobs", nil, &n)); got != tt.want {
				t.Errorf("Jobs as uid %d: %q, want %q", tt.uid, got, tt.want)
			}
		})
	}
}

func TestControlErrors(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	const invalid = "org.freedesktop.DBus.Error.InvalidArgs"
	for _, tt := range []struct {
		name   string
		method string
		args   []any
		want   string
		text   string
	}{
		{"signature", "Jobs", []any{"x"}, invalid, "Invalid arguments 's' to call io.github.sdbus_go.FakeSystemd1.Jobs(), expecting ''."},
		{"unknown method", "Nope", nil, "org.freedesktop.DBus.Error.UnknownMethod", ""},
		{"script syntax", "ApplyScript", []any{`{"scripts": [`}, invalid, "script: unexpected end of JSON input"},
		{"script path", "ApplyScript", []any{`{"scripts": [{"pattern": "a", "faults": ["dup"]}]}`}, invalid, ""},
		{"script unknown result", "ScriptResult", []any{"a.service", "ok", uint32(1)}, invalid, ""},
		{"bad pattern", "ScriptResult", []any{"[", "done", uint32(1)}, "org.freedesktop.DBus.Error.Failed", ""},
		{"negative delay", "ScriptDelay", []any{"a.service", -1.0, 0.0}, invalid, ""},
		{"failure result done", "ScriptFailure", []any{"a.service", "done", "", int32(0), uint32(1)}, invalid, `job result "done": want failed or timeout`},
		{"failure unit result", "ScriptFailure", []any{"a.service", "failed", "crash", int32(0), uint32(1)}, invalid, ""},
		{"failure exit status", "ScriptFailure", []any{"a.service", "failed", "", int32(300), uint32(1)}, invalid, "exit status 300 with unit result exit-code: want 1 to 255"},
		{"failure signal", "ScriptFailure", []any{"a.service", "failed", "signal", int32(15), uint32(1)}, invalid, ""},
		{"failure timeout's unit result", "ScriptFailure", []any{"a.service", "timeout", "", int32(3), uint32(1)}, invalid, ""},
		{"state", "SetUnitState", []any{"a.slice", "starting", "", "", map[string]dbus.Variant{}}, invalid,
			`active state "starting": want active, inactive or failed (activating, deactivating and reloading last while a job runs: script its Delay)`},
		{"state option", "SetUnitState", []any{"a.service", "active", "", "", map[string]dbus.Variant{"pid": dbus.MakeVariant(uint32(1))}}, invalid,
			`unknown option "pid" (known: exit_status, main_pid, pids)`},
		{"state option type", "SetUnitState", []any{"a.service", "failed", "", "", map[string]dbus.Variant{"exit_status": dbus.MakeVariant(uint32(3))}}, invalid,
			"option exit_status: want i, got u"},
		{"state of no unit", "SetUnitState", []any{"none.service", "active", "", "", map[string]dbus.Variant{}}, "org.freedesktop.systemd1.NoSuchUnit",
			"Unit none.service not found."},
		{"state PID", "SetUnitState", []any{"-.slice", "active", "", "", map[string]dbus.Variant{"pids": dbus.MakeVariant([]uint32{1})}}, invalid,
			"unit -.slice is perpetual: it stays active"},
		{"properties read-only", "SetUnitProperties", []any{"a.slice", []struct {
			Name  string
			Value dbus.Variant
		}{{"Slice", dbus.MakeVariant("b.slice")}}}, "org.freedesktop.DBus.Error.PropertyReadOnly", "Cannot set property Slice, or unknown property."},
		{"properties out of range", "SetUnitProperties", []any{"a.slice", []struct {
			Name  string
			Value dbus.Variant
		}{{"CPUWeight", dbus.MakeVariant(uint64(10001))}}}, invalid, "Value specified in CPUWeight is out of range"},
		{"unit json", "AddUnitFile", []any{`{"name": "a"}`}, invalid, `unit.name: invalid unit name "a"`},
		{"unit property", "AddUnitFile", []any{`{"name": "a.service", "properties": {"NoSuch": "s x"}}`}, invalid, ""},
		{"version", "SetVersion", []any{"x"}, invalid, ""},
		{"reexec option", "Reexecute", []any{map[string]dbus.Variant{"nope": dbus.MakeVariant(1)}}, invalid, ""},
		{"reexec option type", "Reexecute", []any{map[string]dbus.Variant{"finish": dbus.MakeVariant("x")}}, invalid, ""},
		{"finish result", "FinishJob", []any{uint32(1), "ok"}, invalid, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := ctl(c, tt.method, tt.args)
			if got := errName(err); got != tt.want {
				t.Fatalf("%s: %v, want %s", tt.method, err, tt.want)
			}
			if tt.text != "" && err.(dbus.Error).Body[0] != tt.text {
				t.Errorf("text %q, want %q", err.(dbus.Error).Body[0], tt.text)
			}
		})
	}
}

func TestControlScripts(t *testing.T) {
	for _, tt := range []struct {
		name    string
		control func(t *testing.T, c *dbus.Conn)
		want    []sdbus.JobResult // of three starts
	}{
		{"ApplyScript", func(t *testing.T, c *dbus.Conn) {
			mustCtl(t, c, "ApplyScript", []any{`{"scripts": [{"pattern": "app.service", "results": ["failed", "timeout"]}]}`})
		}, []sdbus.JobResult{sdbus.JobFailed, sdbus.JobTimeout, sdbus.JobDone}},
		{"ScriptResult count", func(t *testing.T, c *dbus.Conn) {
			mustCtl(t, c, "ScriptResult", []any{"app.*", "failed", uint32(2)})
		}, []sdbus.JobResult{sdbus.JobFailed, sdbus.JobFailed, sdbus.JobDone}},
		{"ScriptResult every job", func(t *testing.T, c *dbus.Conn) {
			mustCtl(t, c, "ScriptResult", []any{"app.service", "dependency", uint32(0)})
		}, []sdbus.JobResult{sdbus.JobDependency, sdbus.JobDependency, sdbus.JobDependency}},
		{"ClearScripts", func(t *testing.T, c *dbus.Conn) {
			mustCtl(t, c, "ScriptResult", []any{"app.service", "failed", uint32(0)})
			mustCtl(t, c, "ClearScripts", nil)
		}, []sdbus.JobResult{sdbus.JobDone, sdbus.JobDone, sdbus.JobDone}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")))
			tt.control(t, s.RawConn(t))
			conn := s.Conn(t)
			var got []sdbus.JobResult
			for i := 0; i < 3; i++ {
				got = append(got, startResult(t, conn, "app.service"))
				if err := conn.ResetFailedUnit(context.Background(), "app.service"); err != nil && !errors.Is(err, sdbus.ErrNoSuchUnit) {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("job results (-want +got):\n%s", diff)
			}
		})
	}
}

// TestControlScriptFailure: ScriptFailure fails the next count jobs with
// the unit result and exit status given (Script's Results, UnitResult,
// ExitStatus), then the unit's own outcome applies again.
func TestControlScriptFailure(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []any
		jobs   []sdbus.JobResult // of three starts
		result string            // the unit's Result after the first
		run    mainRun           // the first start's main process
	}{
		{"signal", []any{"app.service", "failed", "signal", int32(9), uint32(1)},
			[]sdbus.JobResult{sdbus.JobFailed, sdbus.JobDone, sdbus.JobDone}, "signal",
			mainRun{"failed", "failed", "signal", 0, 2, 9, true, 2, 9}},
		{"exit status, twice", []any{"app.*", "failed", "", int32(3), uint32(2)},
			[]sdbus.JobResult{sdbus.JobFailed, sdbus.JobFailed, sdbus.JobDone}, "exit-code",
			mainRun{"failed", "failed", "exit-code", 0, 1, 3, true, 1, 3}},
		{"timeout, every job", []any{"app.service", "timeout", "", int32(0), uint32(0)},
			[]sdbus.JobResult{sdbus.JobTimeout, sdbus.JobTimeout, sdbus.JobTimeout}, "timeout",
			mainRun{"failed", "failed", "timeout", 0, 0, 0, false, 0, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")))
			r := rawBus(t, s)
			mustCtl(t, r.Conn, "ScriptFailure", tt.args)
			conn := s.Conn(t)
			var got []sdbus.JobResult
			for i := 0; i < 3; i++ {
				got = append(got, startResult(t, conn, "app.service"))
				if i == 0 {
					if diff := cmp.Diff(tt.run, readMainRun(t, r, "app.service")); diff != "" {
						t.Errorf("service after the first start (-want +got):\n%s", diff)
					}
				}
				if err := conn.ResetFailedUnit(context.Background(), "app.service"); err != nil && !errors.Is(err, sdbus.ErrNoSuchUnit) {
					t.Fatal(err)
				}
				if _, err := conn.StopUnit(context.Background(), "app.service", sdbus.ModeReplace); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.jobs, got); diff != "" {
				t.Errorf("job results (-want +got):\n%s", diff)
			}
		})
	}
}

// TestControlSetUnitState: SetUnitState puts a unit into a state with
// the options of UnitState, as Server.SetUnitState does.
func TestControlSetUnitState(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")))
	r := rawBus(t, s)
	mustCtl(t, r.Conn, "SetUnitState", []any{"app.service", "active", "running", "", map[string]dbus.Variant{
		"main_pid": dbus.MakeVariant(uint32(4242))}})
	want := mainRun{"active", "running", "success", 4242, 0, 0, false, 0, 0}
	if diff := cmp.Diff(want, readMainRun(t, r, "app.service")); diff != "" {
		t.Errorf("running (-want +got):\n%s", diff)
	}
	mustCtl(t, r.Conn, "SetUnitState", []any{"app.service", "failed", "", "core-dump", map[string]dbus.Variant{
		"exit_status": dbus.MakeVariant(int32(6))}})
	want = mainRun{"failed", "failed", "core-dump", 0, 3, 6, true, 3, 6}
	if diff := cmp.Diff(want, readMainRun(t, r, "app.service")); diff != "" {
		t.Errorf("crashed (-want +got):\n%s", diff)
	}
	if err := ctl(r.Conn, "SetUnitState", []any{"app.service", "active", "", "", map[string]dbus.Variant{
		"pids": dbus.MakeVariant([]uint32{uint32(os.Getpid())})}}); err != nil {
		t.Fatal(err)
	}
	u, _ := s.Unit("app.service")
	if u.ActiveState != "active" || !slices.Contains(u.PIDs, uint32(os.Getpid())) {
		t.Errorf("active with the caller's PID: %+v", u)
	}
}

// TestControlSetUnitProperties: SetUnitProperties sets a unit's
// properties as a client's SetUnitProperties does.
func TestControlSetUnitProperties(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")))
	r := rawBus(t, s)
	mustCtl(t, r.Conn, "SetUnitProperties", []any{"app.service", []struct {
		Name  string
		Value dbus.Variant
	}{{"Description", dbus.MakeVariant("the app")}, {"MemoryMax", dbus.MakeVariant(uint64(1 << 20))}}})
	for _, p := range []struct {
		name string
		want any
	}{{"org.freedesktop.systemd1.Unit.Description", "the app"}, {"org.freedesktop.systemd1.Service.MemoryMax", uint64(1 << 20)}} {
		v, err := r.Object(systemd1, sdbus.UnitPath("app.service")).GetProperty(p.name)
		if err != nil || v.Value() != p.want {
			t.Errorf("%s = %v, %v; want %v", p.name, v, err, p.want)
		}
	}
}

// TestControlReset: Reset brings the fake back to its start, as
// Server.Reset does: a unit file added since is gone, the scripts set
// since and the calls logged too, and WithScript's script applies again.
func TestControlReset(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")),
		fakebus.WithScript("app.service", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed}}))
	r := rawBus(t, s)
	mustCtl(t, r.Conn, "AddUnitFile", []any{`{"name": "b.service", "properties": {"ExecStart": "a(sasb) [('/usr/bin/b', ['/usr/bin/b'], false)]"}}`})
	mustCtl(t, r.Conn, "ScriptResult", []any{"b.service", "failed", uint32(0)})
	conn := s.Conn(t)
	for _, u := range []string{"app.service", "b.service"} {
		if res := startResult(t, conn, u); res != sdbus.JobFailed {
			t.Fatalf("start %s before Reset: %s", u, res)
		}
	}
	mustCtl(t, r.Conn, "Reset", nil)
	if calls := getCalls(t, r.Conn, "", ""); len(calls) != 0 {
		t.Errorf("GetCalls after Reset: %v", calls)
	}
	if res := startResult(t, conn, "app.service"); res != sdbus.JobFailed {
		t.Errorf("start app.service after Reset: %s, want failed by WithScript's script again", res)
	}
	if _, err := conn.StartUnit(context.Background(), "b.service", sdbus.ModeReplace); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("start b.service after Reset: %v, want ErrNoSuchUnit", err)
	}
}

// TestControlScriptConflict: a script that contradicts a unit's commands
// is refused with ScriptConflict.
func TestControlScriptConflict(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(fakebus.UnitFile{Name: "bad.service", Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/false"}, false), sdbus.PropType(sdbus.ServiceOneshot)}}))
	err := ctl(s.RawConn(t), "ScriptResult", []any{"bad.service", "done", uint32(1)})
	if got := errName(err); got != ctlIface+".Error.ScriptConflict" {
		t.Errorf("ScriptResult done for /bin/false: %v, want ScriptConflict", err)
	}
}

// TestControlJobs: ScriptDelay keeps a job queued; Jobs, Unit, FinishJob
// and WaitIdle see and end it.
func TestControlJobs(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")))
	c := s.RawConn(t)
	mustCtl(t, c, "ScriptDelay", []any{"app.service", 60.0, 0.0})
	var job dbus.ObjectPath
	r := rawBus(t, s)
	r.mustManager(t, "StartUnit", []any{"app.service", "replace"}, &job)
	var n uint32
	mustCtl(t, c, "Jobs", nil, &n)
	if n != 1 {
		t.Errorf("Jobs = %d, want 1", n)
	}
	type unitState struct {
		Loaded                    bool
		Load, Active, Sub, Result string
		Transient                 bool
		JobID                     uint32
		PIDs                      []uint32
	}
	var u unitState
	mustCtl(t, c, "Unit", []any{"app.service"}, &u.Loaded, &u.Load, &u.Active, &u.Sub, &u.Result, &u.Transient, &u.JobID, &u.PIDs)
	id := jobID(job)
	if diff := cmp.Diff(unitState{true, "loaded", "activating", "start", "success", false, id, []uint32{}}, u); diff != "" {
		t.Errorf("Unit (-want +got):\n%s", diff)
	}
	if err := ctl(c, "WaitIdle", []any{0.05}); errName(err) != "org.freedesktop.DBus.Error.Timeout" {
		t.Errorf("WaitIdle(0.05) with a job for 60s: %v, want Timeout", err)
	}
	var found bool
	mustCtl(t, c, "FinishJob", []any{uint32(9999), "done"}, &found)
	if found {
		t.Error("FinishJob(9999) found a job")
	}
	mustCtl(t, c, "FinishJob", []any{id, "failed"}, &found)
	if !found {
		t.Errorf("FinishJob(%d) found no job", id)
	}
	mustCtl(t, c, "WaitIdle", []any{5.0})
	mustCtl(t, c, "Unit", []any{"app.service"}, &u.Loaded, &u.Load, &u.Active, &u.Sub, &u.Result, &u.Transient, &u.JobID, &u.PIDs)
	if diff := cmp.Diff(unitState{true, "loaded", "failed", "failed", "exit-code", false, 0, []uint32{}}, u); diff != "" {
		t.Errorf("Unit after FinishJob failed (-want +got):\n%s", diff)
	}
	mustCtl(t, c, "Unit", []any{"none.service"}, &u.Loaded, &u.Load, &u.Active, &u.Sub, &u.Result, &u.Transient, &u.JobID, &u.PIDs)
	if u.Loaded {
		t.Error("Unit(none.service) loaded")
	}
}

// TestControlUnitFiles: AddUnitFile adds and changes a unit file in the
// script file's form, RemoveUnitFile removes it.
func TestControlUnitFiles(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	conn := s.Conn(t)
	ctx := context.Background()
	prop := func(unit, name string) any {
		v, err := conn.UnitProperty(ctx, unit, "org.freedesktop.systemd1.Unit", name)
		if err != nil {
			return err.Error()
		}
		return v.Value()
	}
	var removed bool
	for _, tt := range []struct {
		name    string
		control func()
		prop    string
		want    any
	}{
		{"add", func() {
			mustCtl(t, c, "AddUnitFile", []any{`{"name": "web.service", "properties": {"Description": "s \"first\""}}`})
		}, "Description", "first"},
		{"change", func() {
			mustCtl(t, c, "AddUnitFile", []any{`{"name": "web.service", "properties": {"Description": "s \"second\""}}`})
		}, "Description", "second"},
		{"remove", func() { mustCtl(t, c, "RemoveUnitFile", []any{"web.service"}, &removed) }, "LoadState", "not-found"},
		{"remove again", func() { mustCtl(t, c, "RemoveUnitFile", []any{"web.service"}, &removed) }, "LoadState", "not-found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.control()
			if got := prop("web.service", tt.prop); got != tt.want {
				t.Errorf("%s = %v, want %v", tt.prop, got, tt.want)
			}
		})
	}
	if removed {
		t.Error("second RemoveUnitFile reported a file")
	}
}

func TestControlVersionAndDurations(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	r := rawBus(t, s)
	mustCtl(t, c, "SetVersion", []any{"257.9-1"})
	v, err := r.Object(systemd1, managerPath).GetProperty(managerIface + ".Version")
	if err != nil || v.Value() != "257.9-1" {
		t.Errorf("Version = %v, %v; want 257.9-1", v, err)
	}
	for _, tt := range []struct {
		set, call string
		run       func() error
	}{
		{"SetReloadDuration", "Reload", func() error { return r.manager("Reload", nil) }},
		{"SetReloadDuration", "DaemonReload", func() error { return ctl(c, "DaemonReload", nil) }},
		{"SetReexecDuration", "Reexecute", func() error {
			var o, n string
			return ctl(c, "Reexecute", []any{map[string]dbus.Variant{}}, &o, &n)
		}},
	} {
		t.Run(tt.call, func(t *testing.T) {
			mustCtl(t, c, tt.set, []any{0.2})
			start := time.Now()
			if err := tt.run(); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d < 200*time.Millisecond {
				t.Errorf("%s took %v after %s(0.2)", tt.call, d, tt.set)
			}
			mustCtl(t, c, tt.set, []any{0.0})
		})
	}
}

// TestControlDaemonReload: DaemonReload reloads as Manager.Reload does.
func TestControlDaemonReload(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	r := rawBus(t, s)
	r.match(t, dbus.WithMatchMember("Reloading"))
	r.mustManager(t, "Subscribe", nil)
	mustCtl(t, c, "DaemonReload", nil)
	var got []any
	for _, sig := range r.until(t, func(s *dbus.Signal) bool { return len(s.Body) == 1 && s.Body[0] == false }) {
		if sig.Name == managerIface+".Reloading" {
			got = append(got, sig.Body[0])
		}
	}
	if diff := cmp.Diff([]any{true, false}, got); diff != "" {
		t.Errorf("Reloading signals (-want +got):\n%s", diff)
	}
}

// TestControlReexecute: Reexecute moves systemd to a new unique name,
// ending the jobs "finish" names.
func TestControlReexecute(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")))
	c := s.RawConn(t)
	r := rawBus(t, s)
	mustCtl(t, c, "ScriptDelay", []any{"app.service", 60.0, 0.0})
	var job dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{"app.service", "replace"}, &job)
	id := jobID(job)
	var oldName, newName string
	mustCtl(t, c, "Reexecute", []any{map[string]dbus.Variant{"finish": dbus.MakeVariant(map[uint32]string{id: "failed"})}}, &oldName, &newName)
	var owner string
	if err := c.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, systemd1).Store(&owner); err != nil {
		t.Fatal(err)
	}
	if oldName != ":1.1" || owner != newName || newName == oldName {
		t.Errorf("Reexecute = %s, %s; systemd1's owner %s", oldName, newName, owner)
	}
	if u, _ := s.Unit("app.service"); u.ActiveState != "failed" || u.JobID != 0 {
		t.Errorf("app.service after Reexecute finish failed: %+v", u)
	}
}

func TestControlDropConnections(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	other := s.RawConn(t)
	mustCtl(t, c, "DropConnections", nil)
	closedSoon(t, other)
	var n uint32
	if err := ctl(c, "Jobs", nil, &n); err != nil {
		t.Errorf("the caller's connection: %v", err)
	}
}

func TestControlDropAfterReply(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	r := rawBus(t, s)
	mustCtl(t, c, "DropAfterReply", []any{"GetUnit", uint32(1)})
	var p dbus.ObjectPath
	r.mustManager(t, "GetUnit", []any{"-.slice"}, &p)
	closedSoon(t, r.Conn)
	var n uint32
	mustCtl(t, c, "Jobs", nil, &n)
}

func TestControlEmitJobRemoved(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl())
	c := s.RawConn(t)
	r := rawBus(t, s)
	r.match(t, dbus.WithMatchMember("JobRemoved"))
	mustCtl(t, c, "EmitJobRemoved", []any{uint32(7), dbus.ObjectPath("/org/freedesktop/systemd1/job/7"), "x.service", "done"})
	got := r.until(t, jobRemoved("/org/freedesktop/systemd1/job/7"))
	if diff := cmp.Diff([]any{uint32(7), dbus.ObjectPath("/org/freedesktop/systemd1/job/7"), "x.service", "done"}, got[len(got)-1].Body); diff != "" {
		t.Errorf("JobRemoved (-want +got):\n%s", diff)
	}
}

// callJSON is the call log's JSON object, as a test reads it.
type callJSON struct {
	Seq        uint64          `json:"seq"`
	Connection string          `json:"connection"`
	Sender     string          `json:"sender"`
	PID        uint32          `json:"pid"`
	UID        uint32          `json:"uid"`
	Path       string          `json:"path"`
	Interface  string          `json:"interface"`
	Member     string          `json:"member"`
	Signature  string          `json:"signature"`
	Args       json.RawMessage `json:"args"`
	Reply      *struct {
		Error     string          `json:"error"`
		Signature string          `json:"signature"`
		Args      json.RawMessage `json:"args"`
	} `json:"reply"`
}

// getCalls calls GetCalls and decodes its JSON.
func getCalls(t *testing.T, c *dbus.Conn, member, unit string) []callJSON {
	t.Helper()
	var text string
	mustCtl(t, c, "GetCalls", []any{member, unit}, &text)
	var out []callJSON
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("GetCalls JSON %s: %v", text, err)
	}
	return out
}

func TestControlGetCalls(t *testing.T) {
	s := fakebus.New(t, fakebus.WithControl(), fakebus.WithUnitFile(app("app.service")))
	c := s.RawConn(t)
	r := rawBus(t, s)
	var p dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{"app.service", "replace"}, &p)
	if err := r.manager("GetUnit", []any{"none.service"}, &p); err == nil {
		t.Fatal("GetUnit(none.service) found it")
	}
	if _, err := r.Object(systemd1, "/org/freedesktop/systemd1/unit/app_2eservice").GetProperty("org.freedesktop.systemd1.Unit.Id"); err != nil {
		t.Fatal(err)
	}
	me := r.Names()[0]
	summary := func(calls []callJSON) []string {
		var out []string
		for _, k := range calls {
			line := k.Connection + " " + k.Member + " " + k.Path + " " + k.Signature + " " + string(k.Args)
			if k.Sender != me {
				line += " sender " + k.Sender
			}
			if k.Reply != nil {
				line += " -> " + k.Reply.Error + " " + k.Reply.Signature + " " + string(k.Reply.Args)
			}
			out = append(out, line)
		}
		return out
	}
	const unitPath = "/org/freedesktop/systemd1/unit/app_2eservice"
	startLine := `bus StartUnit /org/freedesktop/systemd1 ss ["app.service","replace"] ->  o ["/org/freedesktop/systemd1/job/` // the job's number follows
	getUnitLine := `bus GetUnit /org/freedesktop/systemd1 s ["none.service"] -> org.freedesktop.systemd1.NoSuchUnit s ["Unit none.service not loaded."]`
	getLine := `bus Get ` + unitPath + ` ss ["org.freedesktop.systemd1.Unit","Id"] ->  v [{"type":"s","value":"app.service"}]`
	for _, tt := range []struct {
		name, member, unit string
		want               []string
	}{
		{"all", "", "", []string{startLine, getUnitLine, getLine}},
		{"member", "GetUnit", "", []string{getUnitLine}},
		{"unit", "", "app.service", []string{startLine, getLine}},
		{"unit pattern", "", "*.service", []string{startLine, getUnitLine, getLine}},
		{"both", "Get", "app.*", []string{getLine}},
		{"none", "StopUnit", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := summary(getCalls(t, c, tt.member, tt.unit))
			if len(got) == len(tt.want) {
				for i := range got {
					if strings.HasPrefix(got[i], startLine) {
						got[i] = startLine
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GetCalls(%q, %q) (-want +got):\n%s", tt.member, tt.unit, diff)
			}
		})
	}
	calls := getCalls(t, c, "GetUnit", "")
	if k := calls[0]; k.UID != uint32(os.Getuid()) || k.PID != uint32(os.Getpid()) || k.Interface != managerIface || k.Seq != 2 {
		t.Errorf("GetUnit's call: %+v", k)
	}
	mustCtl(t, c, "ClearCalls", nil)
	if got := getCalls(t, c, "", ""); len(got) != 0 {
		t.Errorf("GetCalls after ClearCalls: %v", got)
	}
	r.mustManager(t, "GetUnit", []any{"app.service"}, &p)
	if got := getCalls(t, c, "", ""); len(got) != 1 || got[0].Seq != 4 {
		t.Errorf("GetCalls after a call more: %+v, want seq 4", got)
	}
}

// TestCallLogWriter: WithCallLog writes each call as a line of JSON once
// answered, the calls never answered at Close, and keeps max in memory.
func TestCallLogWriter(t *testing.T) {
	var buf strings.Builder
	s, err := fakebus.Start(fakebus.WithCallLog(2, &buf))
	if err != nil {
		t.Fatal(err)
	}
	r := &raw{Conn: s.RawConn(t)}
	for _, u := range []string{"-.slice", "none.service", "init.scope"} {
		var p dbus.ObjectPath
		_ = r.manager("GetUnit", []any{u}, &p)
	}
	// Never answered: the fake answers the dump by file descriptor to a
	// connection that cannot take one never (as systemd).
	r.Object(systemd1, managerPath).Go(managerIface+".DumpByFileDescriptor", 0, nil)
	for deadline := time.Now().Add(5 * time.Second); len(s.Calls(fakebus.CallFilter{Member: "DumpByFileDescriptor"})) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the dump's call is not logged")
		}
		time.Sleep(time.Millisecond)
	}
	var kept []uint64
	for _, c := range s.Calls(fakebus.CallFilter{}) {
		kept = append(kept, c.Seq)
	}
	if diff := cmp.Diff([]uint64{3, 4}, kept); diff != "" {
		t.Errorf("calls kept with max 2 (-want +got):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		var k callJSON
		if err := json.Unmarshal([]byte(line), &k); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		res := "no reply"
		if k.Reply != nil {
			res = "reply " + k.Reply.Error
		}
		got = append(got, strconv.FormatUint(k.Seq, 10)+" "+k.Member+" "+string(k.Args)+" "+res)
	}
	want := []string{
		`1 GetUnit ["-.slice"] reply `,
		`2 GetUnit ["none.service"] reply org.freedesktop.systemd1.NoSuchUnit`,
		`3 GetUnit ["init.scope"] reply `,
		`4 DumpByFileDescriptor [] no reply`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON lines (-want +got):\n%s", diff)
	}
}

// TestControlClients: Clients counts the client connections, the
// caller's and private ones included, as Server.Clients does.
func TestControlClients(t *testing.T) {
	for _, tt := range []struct {
		name  string
		extra func(t *testing.T, s *fakebus.Server)
		want  uint32
	}{
		{"the caller only", func(*testing.T, *fakebus.Server) {}, 1},
		{"two more on the bus", func(t *testing.T, s *fakebus.Server) { s.RawConn(t); s.RawConn(t) }, 3},
		{"a private one", func(t *testing.T, s *fakebus.Server) { s.PrivateConn(t) }, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithControl())
			c := s.RawConn(t)
			tt.extra(t, s)
			var got uint32
			mustCtl(t, c, "Clients", nil, &got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Clients (-want +got):\n%s", diff)
			}
			if n := s.Clients(); n != int(got) {
				t.Errorf("Clients() = %d on D-Bus, %d in Go", got, n)
			}
		})
	}
	s := fakebus.New(t, fakebus.WithControl())
	if err := ctl(s.RawConn(t), "Clients", []any{uint32(1)}); errName(err) != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("Clients(u): %v, want InvalidArgs", err)
	}
}

// TestControlEmitJobRemovedFrom: the JobRemoved claims the sender given;
// a sender that is no bus name is refused.
func TestControlEmitJobRemovedFrom(t *testing.T) {
	const job = dbus.ObjectPath("/org/freedesktop/systemd1/job/7")
	for _, tt := range []struct {
		name, sender string
		want         string // error name, "" for success
	}{
		{"unique name", ":1.99", ""},
		{"well-known name", "org.example.Forger", ""},
		{"empty", "", "org.freedesktop.DBus.Error.InvalidArgs"},
		{"one element", "forger", "org.freedesktop.DBus.Error.InvalidArgs"},
		{"bad character", "org.example.for-ger!", "org.freedesktop.DBus.Error.InvalidArgs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithControl())
			c := s.RawConn(t)
			r := rawBus(t, s)
			if err := r.AddMatchSignal(dbus.WithMatchMember("JobRemoved")); err != nil {
				t.Fatal(err)
			}
			err := ctl(c, "EmitJobRemovedFrom", []any{tt.sender, uint32(7), job, "x.service", "done"})
			if got := errName(err); got != tt.want || (tt.want == "") != (err == nil) {
				t.Fatalf("EmitJobRemovedFrom(%q) = %v, want error %q", tt.sender, err, tt.want)
			}
			if tt.want != "" {
				return
			}
			sigs := r.until(t, jobRemoved(job))
			last := sigs[len(sigs)-1]
			type sig struct {
				Sender string
				Body   []any
			}
			want := sig{tt.sender, []any{uint32(7), job, "x.service", "done"}}
			if diff := cmp.Diff(want, sig{last.Sender, last.Body}); diff != "" {
				t.Errorf("JobRemoved (-want +got):\n%s", diff)
			}
		})
	}
}

// TestControlUnitDirs: UnitDirs answers UnitDir and RuntimeUnitDir, the
// fake's own or the ones given.
func TestControlUnitDirs(t *testing.T) {
	persistent, runtime := t.TempDir(), t.TempDir()
	for _, tt := range []struct {
		name string
		opts []fakebus.Option
		want []string // nil: the fake's own, two directories that exist
	}{
		{"the fake's own", nil, nil},
		{"given", []fakebus.Option{fakebus.WithUnitDir(persistent), fakebus.WithRuntimeUnitDir(runtime)}, []string{persistent, runtime}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, append(tt.opts, fakebus.WithControl())...)
			var got [2]string
			mustCtl(t, s.RawConn(t), "UnitDirs", nil, &got[0], &got[1])
			if diff := cmp.Diff([]string{s.UnitDir(), s.RuntimeUnitDir()}, got[:]); diff != "" {
				t.Errorf("UnitDirs, against the Go methods (-want +got):\n%s", diff)
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, got[:]); diff != "" {
					t.Errorf("UnitDirs (-want +got):\n%s", diff)
				}
			}
			for _, d := range got {
				if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
					t.Errorf("unit directory %q: %v", d, err)
				}
			}
		})
	}
	s := fakebus.New(t, fakebus.WithControl())
	if err := ctl(s.RawConn(t), "UnitDirs", []any{"x"}); errName(err) != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("UnitDirs(s): %v, want InvalidArgs", err)
	}
}

// TestControlMakeSubcgroup: a sub-cgroup made by MakeSubcgroup takes
// processes (AttachProcessesToUnit); a bad path or a unit that is not
// loaded is InvalidArgs.
func TestControlMakeSubcgroup(t *testing.T) {
	const invalid = "org.freedesktop.DBus.Error.InvalidArgs"
	for _, tt := range []struct {
		name, unit, sub string
		want, text      string // error name and text, "" for success
	}{
		{"sub-cgroup", "delegate.scope", "/payload", "", ""},
		{"nested", "delegate.scope", "/payload/inner", "", ""},
		{"empty", "delegate.scope", "", invalid, `fakebus: sub-cgroup "": want an absolute, normalized path below the unit's cgroup`},
		{"root", "delegate.scope", "/", invalid, ""},
		{"relative", "delegate.scope", "payload", invalid, ""},
		{"not normalized", "delegate.scope", "/a/../b", invalid, ""},
		{"not loaded", "none.scope", "/x", invalid, "fakebus: unit none.scope is not loaded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithControl(), fakebus.WithMadeUpPIDs())
			r := rawBus(t, s)
			type prop struct {
				Name  string
				Value dbus.Variant
			}
			var job dbus.ObjectPath
			r.mustManager(t, "StartTransientUnit", []any{"delegate.scope", "replace", []prop{
				{"PIDs", dbus.MakeVariant([]uint32{101})}, {"Delegate", dbus.MakeVariant(true)}}, []struct {
				Name  string
				Props []prop
			}{}}, &job)
			err := ctl(s.RawConn(t), "MakeSubcgroup", []any{tt.unit, tt.sub})
			if got := errName(err); got != tt.want || (tt.want == "") != (err == nil) {
				t.Fatalf("MakeSubcgroup(%q, %q) = %v, want error %q", tt.unit, tt.sub, err, tt.want)
			}
			if tt.text != "" {
				if diff := cmp.Diff(tt.text, err.(dbus.Error).Body[0]); diff != "" {
					t.Errorf("error text (-want +got):\n%s", diff)
				}
			}
			if tt.want != "" {
				return
			}
			if err := r.manager("AttachProcessesToUnit", []any{tt.unit, tt.sub, []uint32{200}}); err != nil {
				t.Errorf("AttachProcessesToUnit to %s: %v", tt.sub, err)
			}
		})
	}
}

// conflictJSONOf is ScriptConflicts' JSON object, as a test reads it.
type conflictJSONOf struct {
	Unit string `json:"unit"`
	Rule struct {
		Index   int    `json:"index"`
		Pattern string `json:"pattern"`
		Step    string `json:"step"`
	} `json:"rule"`
	Job         uint32 `json:"job"`
	JobType     string `json:"job_type"`
	Result      string `json:"result"`
	Outcome     string `json:"outcome"`
	Command     string `json:"command"`
	ServiceType string `json:"service_type"`
	Text        string `json:"text"`
}

// TestControlScriptConflicts: ScriptConflicts answers the conflicts found
// as jobs ran, as JSON, [] for none.
func TestControlScriptConflicts(t *testing.T) {
	for _, tt := range []struct {
		name     string
		conflict bool // a transient unit's job contradicts a script
	}{{"none", false}, {"at job time", true}} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := fakebus.Start(fakebus.WithControl())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close() // not New: its cleanup would fail the test on the conflict
			c := s.RawConn(t)
			want := []conflictJSONOf{}
			if tt.conflict {
				mustCtl(t, c, "ScriptResult", []any{"t-*.service", "failed", uint32(1)})
				ctx := ctxFor(t)
				props := []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/true"}, false)}
				j, err := s.Conn(t).StartTransientUnit(ctx, "t-1.service", sdbus.ModeReplace, props)
				if r := runJob(ctx, t, j, err); r != sdbus.JobFailed {
					t.Fatalf("start: %s, want failed (the script wins)", r)
				}
				w := conflictJSONOf{Unit: "t-1.service", Job: j.ID(), JobType: "start", Result: "failed", Outcome: "succeeds",
					Command: "ExecStart=/bin/true", ServiceType: "oneshot"}
				w.Rule.Pattern, w.Rule.Step = "t-*.service", "results[0]"
				sc := s.ScriptConflicts()
				if len(sc) != 1 {
					t.Fatalf("ScriptConflicts() = %+v, want one", sc)
				}
				w.Text = sc[0].Text()
				want = append(want, w)
			}
			var text string
			mustCtl(t, c, "ScriptConflicts", nil, &text)
			var got []conflictJSONOf
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("ScriptConflicts %q: %v", text, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ScriptConflicts (-want +got):\n%s", diff)
			}
		})
	}
}
