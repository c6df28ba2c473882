package fakebus_test

import (
	"sort"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func oneshotFile(name string, aliases ...string) fakebus.UnitFile {
	return fakebus.UnitFile{Name: name, Aliases: aliases, Properties: []sdbus.Property{
		sdbus.PropType(sdbus.ServiceOneshot),
		{Name: "RemainAfterExit", Value: dbus.MakeVariant(true)},
		sdbus.PropExecStart([]string{"/bin/true"}, false),
	}}
}

func TestAliasResolvesToPrimary(t *testing.T) {
	s := fakebus.New(t, fakebus.WithUnitFile(oneshotFile("primary.service", "other.service", "dbus-org.x.service")))
	r := rawBus(t, s)
	r.mustManager(t, "Subscribe", nil)
	r.match(t, dbus.WithMatchInterface("org.freedesktop.DBus.Properties"))
	r.match(t, dbus.WithMatchMember("JobRemoved"))
	primary := sdbus.UnitPath("primary.service")

	if err := r.manager("GetUnit", []any{"other.service"}); errName(err) != "org.freedesktop.systemd1.NoSuchUnit" {
		t.Fatalf("GetUnit(alias) before loading = %v, want NoSuchUnit", err)
	}
	byName := func(method string) {
		t.Helper()
		var p dbus.ObjectPath
		r.mustManager(t, method, []any{"other.service"}, &p)
		if p != primary {
			t.Errorf("%s(alias) = %s, want %s", method, p, primary)
		}
	}
	byName("LoadUnit")
	aliasObj := r.Object(systemd1, sdbus.UnitPath("other.service"))
	var id string
	var names []string
	if err := aliasObj.Call("org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.systemd1.Unit", "Id").Store(&id); err != nil || id != "primary.service" {
		t.Errorf("Id on the alias's path = %q, %v; want primary.service", id, err)
	}
	if err := aliasObj.Call("org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.systemd1.Unit", "Names").Store(&names); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"dbus-org.x.service", "other.service", "primary.service"}, names); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}

	var job dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{"other.service", "replace"}, &job)
	got := r.until(t, jobRemoved(job))
	last := got[len(got)-1]
	if last.Body[2] != "primary.service" || last.Body[3] != "done" {
		t.Errorf("JobRemoved = %v, want unit primary.service, done", last.Body)
	}
	changed := 0
	for _, sig := range got {
		if sig.Name != "org.freedesktop.DBus.Properties.PropertiesChanged" {
			continue
		}
		changed++
		if sig.Path != primary {
			t.Errorf("PropertiesChanged on %s, want only on %s", sig.Path, primary)
		}
	}
	if changed == 0 {
		t.Error("no PropertiesChanged while the unit started")
	}
	byName("GetUnit")
	var state string
	if err := aliasObj.Call("org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.systemd1.Unit", "ActiveState").Store(&state); err != nil || state != "active" {
		t.Errorf("ActiveState on the alias's path = %q, %v; want active", state, err)
	}

	var rows [][]any
	r.mustManager(t, "ListUnits", nil, &rows)
	var listed []string
	for _, row := range rows {
		if n := row[0].(string); n == "primary.service" || n == "other.service" || n == "dbus-org.x.service" {
			listed = append(listed, n)
		}
	}
	if diff := cmp.Diff([]string{"primary.service"}, listed); diff != "" {
		t.Errorf("ListUnits names (-want +got):\n%s", diff)
	}
	if err := r.manager("StartTransientUnit", []any{"other.service", "replace", []struct {
		Name  string
		Value dbus.Variant
	}{}, []struct {
		Name  string
		Props []struct {
			Name  string
			Value dbus.Variant
		}
	}{}}); errName(err) != "org.freedesktop.systemd1.UnitExists" {
		t.Errorf("StartTransientUnit(alias) = %v, want UnitExists", err)
	}
}

func TestAliasRejectedUnitFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []fakebus.UnitFile
	}{
		{"other type", []fakebus.UnitFile{oneshotFile("a.service", "b.scope")}},
		{"itself", []fakebus.UnitFile{oneshotFile("a.service", "a.service")}},
		{"invalid", []fakebus.UnitFile{oneshotFile("a.service", "b")}},
		{"a unit file's name", []fakebus.UnitFile{oneshotFile("b.service"), oneshotFile("a.service", "b.service")}},
		{"another unit's alias", []fakebus.UnitFile{oneshotFile("a.service", "c.service"), oneshotFile("b.service", "c.service")}},
		{"file named like an alias", []fakebus.UnitFile{oneshotFile("a.service", "c.service"), oneshotFile("c.service")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			var err error
			for _, f := range tc.files {
				if err = s.AddUnitFile(f); err != nil {
					break
				}
			}
			if err == nil {
				t.Fatal("AddUnitFile accepted every file, want an error for the last")
			}
		})
	}
}
