package fakebus_test

import (
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	managerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
	managerIface = "org.freedesktop.systemd1.Manager"
	systemd1     = "org.freedesktop.systemd1"
)

// raw is a godbus client of the fake's bus, closed by t's cleanup, with
// every signal it receives on sigs.
type raw struct {
	*dbus.Conn
	sigs chan *dbus.Signal
}

func rawBus(t *testing.T, s *fakebus.Server) *raw {
	t.Helper()
	r := &raw{Conn: s.RawConn(t), sigs: make(chan *dbus.Signal, 1024)}
	r.Signal(r.sigs)
	return r
}

// match adds a match rule for signals from systemd with these options.
func (r *raw) match(t *testing.T, opts ...dbus.MatchOption) {
	t.Helper()
	if err := r.AddMatchSignal(append([]dbus.MatchOption{dbus.WithMatchSender(systemd1)}, opts...)...); err != nil {
		t.Fatal(err)
	}
}

// manager calls a Manager method and stores the reply in out.
func (r *raw) manager(method string, args []any, out ...any) error {
	call := r.Object(systemd1, managerPath).Call(managerIface+"."+method, 0, args...)
	if call.Err != nil {
		return call.Err
	}
	return call.Store(out...)
}

// mustManager is manager that fails t on error.
func (r *raw) mustManager(t *testing.T, method string, args []any, out ...any) {
	t.Helper()
	if err := r.manager(method, args, out...); err != nil {
		t.Fatalf("%s%v: %v", method, args, err)
	}
}

// until returns the signals received until one satisfies stop (included),
// failing t after 5s.
func (r *raw) until(t *testing.T, stop func(*dbus.Signal) bool) []*dbus.Signal {
	t.Helper()
	var got []*dbus.Signal
	timeout := time.After(5 * time.Second)
	for {
		select {
		case s, ok := <-r.sigs:
			if !ok {
				t.Fatalf("connection closed; signals so far: %v", got)
			}
			got = append(got, s)
			if stop(s) {
				return got
			}
		case <-timeout:
			t.Fatalf("no awaited signal in 5s; got %v", got)
		}
	}
}

// jobRemoved reports whether s is a JobRemoved of the job at path.
func jobRemoved(path dbus.ObjectPath) func(*dbus.Signal) bool {
	return func(s *dbus.Signal) bool {
		return s.Name == managerIface+".JobRemoved" && len(s.Body) == 4 && s.Body[1] == path
	}
}

// errName returns the D-Bus error name of err, or "".
func errName(err error) string {
	var de dbus.Error
	if errors.As(err, &de) {
		return de.Name
	}
	return ""
}

// introspectNode returns obj's introspection data, parsed.
func introspectNode(t *testing.T, obj dbus.BusObject) introspect.Node {
	t.Helper()
	var data string
	if err := obj.Call("org.freedesktop.DBus.Introspectable.Introspect", 0).Store(&data); err != nil {
		t.Fatal(err)
	}
	var node introspect.Node
	if err := xml.Unmarshal([]byte(data), &node); err != nil {
		t.Fatal(err)
	}
	return node
}

// writeRuntimeUnits writes unit files, by name, into s's runtime unit
// directory (the caller reloads).
func writeRuntimeUnits(t *testing.T, s *fakebus.Server, files map[string]string) {
	t.Helper()
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(s.RuntimeUnitDir(), n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// unitList reads a string-list property of unit's Unit interface.
func (r *raw) unitList(t *testing.T, unit, name string) []string {
	t.Helper()
	v, err := r.Object(systemd1, sdbus.UnitPath(unit)).GetProperty("org.freedesktop.systemd1.Unit." + name)
	if err != nil {
		t.Fatalf("%s of %s: %v", name, unit, err)
	}
	l, _ := v.Value().([]string)
	return l
}
