package conformance

import (
	"context"
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

// aliasedService is a oneshot service that stays active, with aliases.
type aliasedService struct {
	name    string
	aliases []string
}

// fakeUnitFile installs f in a fakebus Server.
func fakeUnitFile(t *testing.T, s *fakebus.Server, f aliasedService) {
	err := s.AddUnitFile(fakebus.UnitFile{Name: f.name, Aliases: f.aliases, Properties: []sdbus.Property{
		sdbus.PropDescription("sdbus conformance"),
		sdbus.PropType(sdbus.ServiceOneshot),
		{Name: "RemainAfterExit", Value: dbus.MakeVariant(true)},
		sdbus.PropExecStart([]string{"/bin/true"}, false),
	}})
	if err != nil {
		t.Fatal(err)
	}
}

// runtimeUnitDir is where the conformance suite writes unit files on a
// real systemd: /run is private to the sandbox.
const runtimeUnitDir = "/run/systemd/system"

// systemdUnitFile writes f as a unit file with alias symlinks in the
// runtime unit directory (/run/systemd/system) and reloads the manager; the files are removed and
// the manager reloaded again by t's cleanup.
func systemdUnitFile(t *testing.T, e *env, f aliasedService) {
	if err := os.MkdirAll(e.runtimeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	text := "[Unit]\nDescription=sdbus conformance\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n"
	files := []string{filepath.Join(e.runtimeDir, f.name)}
	t.Cleanup(func() {
		for _, p := range files {
			os.Remove(p)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.c.Reload(ctx); err != nil {
			t.Errorf("daemon-reload after removing %s: %v", f.name, err)
		}
	})
	if err := os.WriteFile(files[0], []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, a := range f.aliases {
		p := filepath.Join(e.runtimeDir, a)
		files = append(files, p)
		if err := os.Symlink(f.name, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// testAlias pins what systemd does with a unit's aliases: every name finds
// the loaded unit, but replies and signals use the primary name's object path
// (PropertiesChanged is emitted on that path only), ListUnits lists the
// primary name only, Names lists every name and Id is the primary name.
func testAlias(t *testing.T, e *env) {
	f := aliasedService{name: e.unit("primary", "service"), aliases: []string{e.unit("alias", "service")}}
	alias := f.aliases[0]
	e.unitFile(t, e, f)
	cleanup(t, e, f.name)
	primary := sdbus.UnitPath(f.name)

	raw := e.rawBus(t, dbus.WithSignalHandler(dbus.NewSequentialSignalHandler()))
	sigs := make(chan *dbus.Signal, 256)
	raw.Signal(sigs)
	for _, opts := range [][]dbus.MatchOption{
		{dbus.WithMatchInterface("org.freedesktop.DBus.Properties"), dbus.WithMatchMember("PropertiesChanged")},
		{dbus.WithMatchInterface("org.freedesktop.systemd1.Manager"), dbus.WithMatchMember("JobRemoved")},
	} {
		if err := raw.AddMatchSignalContext(e.ctx, append(opts, dbus.WithMatchSender("org.freedesktop.systemd1"))...); err != nil {
			t.Fatal(err)
		}
	}
	mgr := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1")
	if err := mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager.Subscribe", 0).Store(); err != nil {
		t.Fatal(err)
	}
	byName := func(method string) {
		t.Helper()
		var p dbus.ObjectPath
		if err := mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager."+method, 0, alias).Store(&p); err != nil || p != primary {
			t.Errorf("%s(%s) = %s, %v; want %s", method, alias, p, err, primary)
		}
	}
	// An inactive unit is collected soon after LoadUnit: GetUnit can
	// only be asked once the unit is active.
	byName("LoadUnit")
	get := func(path dbus.ObjectPath, prop string, out any) {
		t.Helper()
		err := raw.Object("org.freedesktop.systemd1", path).CallWithContext(e.ctx,
			"org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.systemd1.Unit", prop).Store(out)
		if err != nil {
			t.Fatalf("Get %s on %s: %v", prop, path, err)
		}
	}
	var id string
	var names []string
	get(sdbus.UnitPath(alias), "Id", &id)
	get(sdbus.UnitPath(alias), "Names", &names)
	sort.Strings(names)
	want := append([]string{f.name}, f.aliases...)
	sort.Strings(want)
	if id != f.name {
		t.Errorf("Id on the alias's path = %q, want %q", id, f.name)
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Names on the alias's path (-want +got):\n%s", diff)
	}

	var job dbus.ObjectPath
	if err := mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager.StartUnit", 0, alias, "replace").Store(&job); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for done := false; !done; {
		select {
		case sig := <-sigs:
			switch sig.Name {
			case "org.freedesktop.systemd1.Manager.JobRemoved":
				if len(sig.Body) == 4 && sig.Body[1] == job {
					done = true
					if sig.Body[2] != f.name || sig.Body[3] != "done" {
						t.Errorf("JobRemoved %v; want unit %s, result done", sig.Body, f.name)
					}
				}
			case "org.freedesktop.DBus.Properties.PropertiesChanged":
				switch sig.Path {
				case primary:
					changed++
				case sdbus.UnitPath(alias):
					t.Errorf("PropertiesChanged on the alias's path %s", sig.Path)
				}
			}
		case <-e.ctx.Done():
			t.Fatal("no JobRemoved for the start job")
		}
	}
	if changed == 0 {
		t.Errorf("no PropertiesChanged on %s while the unit started", primary)
	}
	byName("GetUnit")
	var state string
	get(sdbus.UnitPath(alias), "ActiveState", &state)
	if state != "active" {
		t.Errorf("ActiveState on the alias's path = %q, want active", state)
	}

	var rows []struct {
		Name, Description, LoadState, ActiveState, SubState, Following string
		Path                                                           dbus.ObjectPath
		JobID                                                          uint32
		JobType                                                        string
		JobPath                                                        dbus.ObjectPath
	}
	if err := mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager.ListUnits", 0).Store(&rows); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range rows {
		if r.Name == f.name || r.Name == alias {
			listed = append(listed, r.Name+" "+string(r.Path))
		}
	}
	if diff := cmp.Diff([]string{f.name + " " + string(primary)}, listed); diff != "" {
		t.Errorf("ListUnits rows of the unit (-want +got):\n%s", diff)
	}
}

// testWatchThroughAlias: sdbus's WatchUnit and WaitUnitState on an alias
// see the unit's changes (systemd emits them on the primary name's path
// only) and report the primary name.
func testWatchThroughAlias(t *testing.T, e *env) {
	f := aliasedService{name: e.unit("watched", "service"), aliases: []string{e.unit("watchalias", "service")}}
	alias := f.aliases[0]
	e.unitFile(t, e, f)
	cleanup(t, e, f.name)

	wctx, stop := context.WithCancel(e.ctx)
	defer stop()
	states, err := e.c.WatchUnit(wctx, alias)
	if err != nil {
		t.Fatal(err)
	}
	first := <-states
	if first.Name != f.name || first.ActiveState == sdbus.StateActive {
		t.Fatalf("first state %+v; want the inactive unit under its primary name %s", first, f.name)
	}
	waited := make(chan error, 1)
	go func() {
		st, err := e.c.WaitUnitState(e.ctx, alias, func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActive })
		if err == nil && st.Name != f.name {
			err = fmt.Errorf("WaitUnitState(%s) reported %q, want %q", alias, st.Name, f.name)
		}
		waited <- err
	}()
	j, err := e.c.StartUnit(e.ctx, alias, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := j.Wait(e.ctx); err != nil || res != sdbus.JobDone {
		t.Fatalf("start through the alias: %q, %v", res, err)
	}
	for {
		select {
		case st, ok := <-states:
			if !ok {
				t.Fatal("the watch ended before the unit became active")
			}
			if st.Name != f.name {
				t.Errorf("watch state under %q, want the primary name %q", st.Name, f.name)
			}
			if st.ActiveState != sdbus.StateActive {
				continue
			}
		case <-e.ctx.Done():
			t.Fatal("WatchUnit on the alias never saw the unit become active")
		}
		break
	}
	if err := <-waited; err != nil {
		t.Errorf("WaitUnitState on the alias: %v", err)
	}
}
