package fakebus_test

import (
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestAttachProcessesNeedsDelegation(t *testing.T) {
	s := fakebus.New(t, fakebus.WithMadeUpPIDs())
	r := rawBus(t, s)
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	// Each scope its own made-up process: a process is in one cgroup,
	// and placing it in a second scope takes it out of the first.
	startScope := func(name string, pid uint32, extra ...prop) {
		t.Helper()
		props := append([]prop{{"PIDs", dbus.MakeVariant([]uint32{pid})}}, extra...)
		var job dbus.ObjectPath
		r.mustManager(t, "StartTransientUnit", []any{name, "replace", props, []struct {
			Name  string
			Props []prop
		}{}}, &job)
	}
	startScope("plain.scope", 100)
	startScope("delegate.scope", 101, prop{"Delegate", dbus.MakeVariant(true)})
	startScope("controllers.scope", 102, prop{"DelegateControllers", dbus.MakeVariant([]string{"memory"})})
	if err := s.MakeSubcgroup("delegate.scope", "/payload/inner"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		unit, sub string
		want      string // D-Bus error name, "" for success
	}{
		{"plain.scope", "", "org.freedesktop.DBus.Error.InvalidArgs"},
		{"delegate.scope", "", ""},
		{"controllers.scope", "", ""},
		{"delegate.scope", "/payload", ""},
		{"delegate.scope", "/payload/inner", ""},
		{"delegate.scope", "/other", "org.freedesktop.DBus.Error.FileNotFound"},
		{"controllers.scope", "/payload", "org.freedesktop.DBus.Error.FileNotFound"},
	} {
		t.Run(tc.unit+tc.sub, func(t *testing.T) {
			err := r.manager("AttachProcessesToUnit", []any{tc.unit, tc.sub, []uint32{200}})
			if got := errName(err); got != tc.want || (tc.want == "") != (err == nil) {
				t.Errorf("AttachProcessesToUnit = %v, want error %q", err, tc.want)
			}
		})
	}
	// Attached three times to delegate.scope (to the unit and two
	// sub-cgroups), and once to controllers.scope in between, 200 is one
	// of delegate.scope's processes once, as on systemd, and no longer
	// controllers.scope's.
	if info, _ := s.Unit("delegate.scope"); !slices.Equal(info.PIDs, []uint32{101, 200}) {
		t.Errorf("delegate.scope PIDs = %v, want [101 200]", info.PIDs)
	}
	if info, _ := s.Unit("controllers.scope"); !slices.Equal(info.PIDs, []uint32{102}) {
		t.Errorf("controllers.scope PIDs = %v, want [102]", info.PIDs)
	}
	for _, sub := range []string{"", "/", "rel", "/a/../b", "/a//b"} {
		if err := s.MakeSubcgroup("delegate.scope", sub); err == nil {
			t.Errorf("MakeSubcgroup(%q) = nil, want an error", sub)
		}
	}
	if err := s.MakeSubcgroup("none.scope", "/x"); err == nil {
		t.Error("MakeSubcgroup of a unit that is not loaded = nil, want an error")
	}
}
