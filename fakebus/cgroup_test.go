package fakebus_test

import (
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestAttachProcessesNeedsDelegation(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	startScope := func(name string, extra ...prop) {
		t.Helper()
		props := append([]prop{{"PIDs", dbus.MakeVariant([]uint32{100})}}, extra...)
		var job dbus.ObjectPath
		r.mustManager(t, "StartTransientUnit", []any{name, "replace", props, []struct {
			Name  string
			Props []prop
		}{}}, &job)
	}
	startScope("plain.scope")
	startScope("delegate.scope", prop{"Delegate", dbus.MakeVariant(true)})
	startScope("controllers.scope", prop{"DelegateControllers", dbus.MakeVariant([]string{"memory"})})
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
	// Attached three times (to the unit and two sub-cgroups), 200 is one
	// of its processes once, as on systemd.
	if info, _ := s.Unit("delegate.scope"); !slices.Equal(info.PIDs, []uint32{100, 200}) {
		t.Errorf("delegate.scope PIDs = %v, want [100 200]", info.PIDs)
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
