package fakebus_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestScopeDropInsAfterTransientFreed: a scope's load builds no unit name
// map, so a scope started after a drop-in directory was made for it lists
// none of its drop-ins, until the map is built again. On 262 that happens
// whenever the manager frees a transient unit: a scope refused for want
// of PIDs, or one stopped and collected (measured by the differential
// tester on 247-262).
func TestScopeDropInsAfterTransientFreed(t *testing.T) {
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	type aux []struct {
		Name  string
		Props []prop
	}
	for _, tc := range []struct {
		version string
		freed   string // how a transient unit is freed: "refused", "collected"
		listed  bool   // the scope lists its drop-in
	}{
		{"252.1", "refused", false},
		{"257.1", "collected", false},
		{"262.1-1", "refused", true},
		{"262.1-1", "collected", true},
	} {
		t.Run(tc.version+" "+tc.freed, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(tc.version), fakebus.WithMadeUpPIDs())
			r := rawBus(t, s)
			scope := func(name string, props ...prop) error {
				return r.manager("StartTransientUnit", []any{name, "replace", append([]prop{}, props...), aux{}}, new(dbus.ObjectPath))
			}
			pids := func(pid uint32) prop { return prop{"PIDs", dbus.MakeVariant([]uint32{pid})} }
			if tc.freed == "collected" {
				if err := scope("first.scope", pids(100)); err != nil {
					t.Fatal(err)
				}
			}
			r.mustManager(t, "Reload", nil) // the name map, built now
			dir := filepath.Join(s.UnitDir(), "late.scope.d")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			dropIn := filepath.Join(dir, "x.conf")
			if err := os.WriteFile(dropIn, []byte("[Unit]\nDescription=late\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			switch tc.freed {
			case "refused":
				if err := scope("other.scope"); errName(err) != "org.freedesktop.DBus.Error.FileNotFound" {
					t.Fatalf("scope without PIDs: %v, want FileNotFound", err)
				}
			case "collected":
				r.mustManager(t, "StopUnit", []any{"first.scope", "replace"}, new(dbus.ObjectPath))
			}
			if err := scope("late.scope", pids(101)); err != nil {
				t.Fatal(err)
			}
			want := []string{}
			if tc.listed {
				want = []string{dropIn}
			}
			if diff := cmp.Diff(want, r.unitList(t, "late.scope", "DropInPaths")); diff != "" {
				t.Errorf("DropInPaths (-want +got):\n%s", diff)
			}
		})
	}
}
