package fakebus_test

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestSignatureChecked: every Manager method refuses arguments of the
// wrong type as sd-bus does, those without arguments included (measured
// on systemd 252: busctl call ... ListUnits s x).
func TestSignatureChecked(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	for _, method := range []string{"ListUnits", "ListJobs", "ResetFailed", "Subscribe", "Unsubscribe", "Reload", "GetUnit"} {
		t.Run(method, func(t *testing.T) {
			err := r.Object(systemd1, managerPath).Call(managerIface+"."+method, 0, int32(1), "x").Err
			var de dbus.Error
			if !asDBusError(err, &de) {
				t.Fatalf("%s(ix) = %v, want InvalidArgs", method, err)
			}
			want := "Invalid arguments 'is' to call org.freedesktop.systemd1.Manager." + method + "(), expecting '"
			if method == "GetUnit" {
				want += "s'."
			} else {
				want += "'."
			}
			if diff := cmp.Diff([]any{"org.freedesktop.DBus.Error.InvalidArgs", want}, []any{de.Name, de.Body[0]}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func asDBusError(err error, de *dbus.Error) bool {
	e, ok := err.(dbus.Error)
	if ok {
		*de = e
	}
	return ok && len(e.Body) > 0
}

// TestGetAllEmptyInterface: Properties.GetAll("") answers the properties
// of every interface of the object (sd-bus; what systemctl show and
// go-systemd's GetAllPropertiesContext ask).
func TestGetAllEmptyInterface(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	j, err := c.StartTransientUnit(ctx, "all.service", sdbus.ModeReplace, sleeper())
	runJob(ctx, t, j, err)
	r := rawBus(t, s)
	for _, tc := range []struct {
		path dbus.ObjectPath
		want []string // some of the properties of each interface
	}{
		{managerPath, []string{"Version", "NNames"}},
		{sdbus.UnitPath("all.service"), []string{"Id", "ActiveState", "MainPID", "ExecMainStartTimestamp"}},
	} {
		var all map[string]dbus.Variant
		if err := r.Object(systemd1, tc.path).Call("org.freedesktop.DBus.Properties.GetAll", 0, "").Store(&all); err != nil {
			t.Fatalf("GetAll(\"\") of %s: %v", tc.path, err)
		}
		for _, name := range tc.want {
			if _, ok := all[name]; !ok {
				t.Errorf("GetAll(\"\") of %s lacks %s", tc.path, name)
			}
		}
	}
}

// TestUnitObjectMethods: the methods of a unit's object (Unit.Stop,
// Unit.Start, Service.GetProcesses) and of a job's (Job.GetAfter) answer as
// the Manager methods they stand for.
func TestUnitObjectMethods(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	j, err := c.StartTransientUnit(ctx, "obj.service", sdbus.ModeReplace, sleeper())
	runJob(ctx, t, j, err)
	r := rawBus(t, s)
	r.match(t, dbus.WithMatchMember("JobRemoved"))
	r.mustManager(t, "Subscribe", nil)
	unit := r.Object(systemd1, sdbus.UnitPath("obj.service"))
	var procs []struct {
		Cgroup  string
		PID     uint32
		Cmdline string
	}
	if err := unit.Call("org.freedesktop.systemd1.Service.GetProcesses", 0).Store(&procs); err != nil {
		t.Fatalf("Service.GetProcesses: %v", err)
	}
	var job dbus.ObjectPath
	if err := unit.Call("org.freedesktop.systemd1.Unit.Stop", 0, "replace").Store(&job); err != nil {
		t.Fatalf("Unit.Stop: %v", err)
	}
	r.until(t, jobRemoved(job))
	var state string
	if err := unit.Call("org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.systemd1.Unit", "ActiveState").Store(&state); err != nil || state != "inactive" {
		t.Fatalf("ActiveState after Unit.Stop = %q, %v", state, err)
	}
	err = r.Object(systemd1, job).Call("org.freedesktop.systemd1.Job.GetAfter", 0).Err
	// A finished job has no object (conformance ObjectPaths).
	if got := errName(err); got != "org.freedesktop.DBus.Error.UnknownObject" {
		t.Errorf("Job.GetAfter of a finished job: %v, want UnknownObject", err)
	}
	err = unit.Call("org.freedesktop.systemd1.Unit.Kill", 0, "all").Err
	if got := errName(err); got != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("Unit.Kill(s): %v, want InvalidArgs", err)
	}
}

// TestIntrospectManager: the Manager's introspection lists each method
// with its arguments, the signals and the child nodes.
func TestIntrospectManager(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	node := introspectNode(t, r.Object(systemd1, managerPath))
	var getUnit *introspect.Method
	var signals []string
	for _, i := range node.Interfaces {
		if i.Name != managerIface {
			continue
		}
		for k := range i.Methods {
			if i.Methods[k].Name == "GetUnit" {
				getUnit = &i.Methods[k]
			}
		}
		for _, sg := range i.Signals {
			signals = append(signals, sg.Name)
		}
	}
	if getUnit == nil {
		t.Fatal("no GetUnit")
	}
	want := []introspect.Arg{{Name: "name", Type: "s", Direction: "in"}, {Name: "unit", Type: "o", Direction: "out"}}
	if diff := cmp.Diff(want, getUnit.Args); diff != "" {
		t.Errorf("GetUnit's arguments (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"UnitNew", "UnitRemoved", "JobNew", "JobRemoved", "StartupFinished", "UnitFilesChanged", "Reloading"}, signals); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
	var children []string
	for _, n := range node.Children {
		children = append(children, n.Name)
	}
	if diff := cmp.Diff([]string{"unit", "job"}, children); diff != "" {
		t.Errorf("child nodes (-want +got):\n%s", diff)
	}
}

// TestMalformedCallOnBadUnitPath: a Properties call without its arguments
// on a unit path that names no unit gets an error, not a fake that stops
// (dbus_object.go looks at the arguments to pick systemd's answer).
func TestMalformedCallOnBadUnitPath(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	obj := r.Object(systemd1, "/org/freedesktop/systemd1/unit/nosuch")
	for _, m := range []string{"Get", "Set", "GetAll"} {
		err := obj.Call("org.freedesktop.DBus.Properties."+m, 0).Err
		if got := errName(err); got != "org.freedesktop.DBus.Error.InvalidArgs" {
			t.Errorf("Properties.%s without arguments: %v, want InvalidArgs", m, err)
		}
	}
	if err := r.Object(systemd1, "/org/freedesktop/systemd1").Call("org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		t.Fatalf("the fake answers no more: %v", err)
	}
}
