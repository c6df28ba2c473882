package fakebus_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

type change struct{ Type, Filename, Destination string }

func sortedChanges(ch []change) []change {
	out := append([]change{}, ch...)
	sort.Slice(out, func(i, j int) bool { return out[i].Filename < out[j].Filename })
	return out
}

// outsideUnit writes a unit file into a directory off the unit path and
// returns its path.
func outsideUnit(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const installable = "[Service]\nType=oneshot\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"

// TestDefaultTarget: GetDefaultTarget and SetDefaultTarget, in order, as
// error names ("" for success), with the change lists.
func TestDefaultTarget(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	etc := s.UnitDir()
	gfile := filepath.Join(s.RuntimeUnitDir(), "graphical.target")
	mfile := filepath.Join(etc, "multi.target")
	for _, f := range []string{gfile, mfile} {
		if err := os.WriteFile(f, []byte("[Unit]\nDescription=t\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.mustManager(t, "LinkUnitFiles", []any{[]string{outsideUnit(t, "linked.target", "[Unit]\n")}, false, false}, new([]change))
	r.mustManager(t, "MaskUnitFiles", []any{[]string{"masked.target"}, true, false}, new([]change))
	if err := s.AddUnitFile(fakebus.UnitFile{Name: "vendor.target"}); err != nil {
		t.Fatal(err)
	}
	dt := filepath.Join(etc, "default.target")
	for _, tc := range []struct {
		name    string
		method  string
		args    []any
		err     string
		target  string   // GetDefaultTarget's answer
		changes []change // SetDefaultTarget's
	}{
		{"booted to", "GetDefaultTarget", nil, "", "multi-user.target", nil}, // the vendor default.target (boot.go)
		{"set", "SetDefaultTarget", []any{"graphical.target", false}, "", "", []change{{"symlink", dt, gfile}}},
		{"get", "GetDefaultTarget", nil, "", "graphical.target", nil},
		{"set again", "SetDefaultTarget", []any{"graphical.target", false}, "", "", []change{}},
		{"another without force", "SetDefaultTarget", []any{"multi.target", false}, "org.freedesktop.systemd1.UnitExists", "", nil},
		{"another with force", "SetDefaultTarget", []any{"multi.target", true}, "", "",
			[]change{{"unlink", dt, ""}, {"symlink", dt, mfile}}},
		{"get the other", "GetDefaultTarget", nil, "", "multi.target", nil},
		{"default.target itself", "SetDefaultTarget", []any{"default.target", true}, "org.freedesktop.DBus.Error.InvalidArgs", "", nil},
		{"invalid name", "SetDefaultTarget", []any{"no", true}, "org.freedesktop.DBus.Error.InvalidArgs", "", nil},
		{"not a target", "SetDefaultTarget", []any{"a.service", true}, "org.freedesktop.DBus.Error.InvalidArgs", "", nil},
		{"linked unit file", "SetDefaultTarget", []any{"linked.target", true}, "org.freedesktop.systemd1.UnitLinked", "", nil},
		{"no unit file", "SetDefaultTarget", []any{"none.target", true}, "org.freedesktop.systemd1.NoSuchUnit", "", nil},
		{"masked", "SetDefaultTarget", []any{"masked.target", true}, "org.freedesktop.systemd1.UnitMasked", "", nil},
		{"vendor unit without a file", "SetDefaultTarget", []any{"vendor.target", true}, "org.freedesktop.DBus.Error.NotSupported", "", nil},
		{"bad signature", "SetDefaultTarget", []any{"multi.target"}, "org.freedesktop.DBus.Error.InvalidArgs", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var target string
			var changes []change
			out := []any{&changes}
			if tc.method == "GetDefaultTarget" {
				out = []any{&target}
			}
			err := r.manager(tc.method, tc.args, out...)
			if got := errName(err); got != tc.err {
				t.Fatalf("%s%v: error %v, want %q", tc.method, tc.args, err, tc.err)
			}
			if target != tc.target {
				t.Errorf("GetDefaultTarget = %q, want %q", target, tc.target)
			}
			if diff := cmp.Diff(sortedChanges(tc.changes), sortedChanges(changes)); tc.changes != nil && diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnitFileLinks: GetUnitFileLinks lists what DisableUnitFiles would
// remove, and removes nothing.
func TestUnitFileLinks(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	etc, run := s.UnitDir(), s.RuntimeUnitDir()
	file := outsideUnit(t, "links.service", installable)
	r.mustManager(t, "EnableUnitFiles", []any{[]string{file}, false, false}, new(bool), new([]change))
	r.mustManager(t, "LinkUnitFiles", []any{[]string{outsideUnit(t, "plain.service", installable)}, true, false}, new([]change))
	if err := s.AddUnitFile(fakebus.UnitFile{Name: "vendor.service"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		unit    string
		runtime bool
		err     string
		want    []string
	}{
		{"enabled", "links.service", false, "", []string{filepath.Join(etc, "links.service"), filepath.Join(etc, "multi-user.target.wants", "links.service")}},
		{"enabled, runtime", "links.service", true, "", []string{}},
		{"linked at runtime", "plain.service", true, "", []string{filepath.Join(run, "plain.service")}},
		{"vendor", "vendor.service", false, "", []string{}},
		{"no unit file", "none.service", false, "", []string{}},
		{"invalid name", "none", false, "System.Error.EUCLEAN", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var links []string
			err := r.manager("GetUnitFileLinks", []any{tc.unit, tc.runtime}, &links)
			if got := errName(err); got != tc.err {
				t.Fatalf("GetUnitFileLinks(%s, %v): error %v, want %q", tc.unit, tc.runtime, err, tc.err)
			}
			sort.Strings(links)
			if diff := cmp.Diff(tc.want, links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
		})
	}
	var state string
	r.mustManager(t, "GetUnitFileState", []any{"links.service"}, &state)
	if state != "enabled" {
		t.Errorf("after GetUnitFileLinks the unit is %q, want still enabled", state)
	}
}

// TestEnableLinkedUnit: a unit linked into one unit directory from a
// file off the unit path, enabled by name in the other, is linked there
// too, as systemd does (its file is not on the unit path); enabled where
// it is linked, that link is kept as it is.
func TestEnableLinkedUnit(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		linkRuntime, runtime bool
		want                 func(etc, run, file string) []change
	}{
		{"linked in /etc, enabled at runtime", false, true, func(etc, run, file string) []change {
			return []change{{"symlink", filepath.Join(run, "linked.service"), file},
				{"symlink", filepath.Join(run, "multi-user.target.wants", "linked.service"), file}}
		}},
		{"linked in /etc, enabled there", false, false, func(etc, run, file string) []change {
			return []change{{"symlink", filepath.Join(etc, "multi-user.target.wants", "linked.service"), file}}
		}},
		{"linked at runtime, enabled in /etc", true, false, func(etc, run, file string) []change {
			return []change{{"symlink", filepath.Join(etc, "linked.service"), file},
				{"symlink", filepath.Join(etc, "multi-user.target.wants", "linked.service"), file}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			r := rawBus(t, s)
			file := outsideUnit(t, "linked.service", installable)
			r.mustManager(t, "LinkUnitFiles", []any{[]string{file}, tc.linkRuntime, false}, new([]change))
			var changes []change
			r.mustManager(t, "EnableUnitFiles", []any{[]string{"linked.service"}, tc.runtime, false}, new(bool), &changes)
			if diff := cmp.Diff(sortedChanges(tc.want(s.UnitDir(), s.RuntimeUnitDir(), file)), sortedChanges(changes)); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRevertUnitFiles: revert removes the masks, overrides and drop-ins of
// units with a vendor version (AddUnitFile), and the symlinks to them;
// it leaves units without one alone.
func TestRevertUnitFiles(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	etc, run := s.UnitDir(), s.RuntimeUnitDir()
	for _, n := range []string{"masked.service", "override.service"} {
		if err := s.AddUnitFile(fakebus.UnitFile{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	r.mustManager(t, "MaskUnitFiles", []any{[]string{"masked.service"}, false, false}, new([]change))
	r.mustManager(t, "MaskUnitFiles", []any{[]string{"masked.service"}, true, false}, new([]change))
	override := filepath.Join(etc, "override.service")
	if err := os.WriteFile(override, []byte(installable), 0o644); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(etc, "alias.service")
	if err := os.Symlink(override, alias); err != nil {
		t.Fatal(err)
	}
	dropin := filepath.Join(etc, "override.service.d")
	if err := os.MkdirAll(dropin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dropin, "x.conf"), []byte("[Unit]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := outsideUnit(t, "linked.service", installable)
	r.mustManager(t, "LinkUnitFiles", []any{[]string{linked}, false, false}, new([]change))
	for _, tc := range []struct {
		name  string
		units []string
		err   string
		want  []change
	}{
		{"mask", []string{"masked.service"}, "", []change{
			{"unlink", filepath.Join(etc, "masked.service"), ""}, {"unlink", filepath.Join(run, "masked.service"), ""}}},
		{"again", []string{"masked.service"}, "", []change{}},
		{"override, drop-in and alias", []string{"override.service"}, "", []change{
			{"unlink", alias, ""}, {"unlink", override, ""}, {"unlink", dropin, ""}, {"unlink", filepath.Join(dropin, "x.conf"), ""}}},
		{"no vendor version", []string{"linked.service"}, "", []change{}},
		{"no unit", []string{"none.service"}, "", []change{}},
		{"invalid name", []string{"none"}, "org.freedesktop.DBus.Error.InvalidArgs", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var changes []change
			err := r.manager("RevertUnitFiles", []any{tc.units}, &changes)
			if got := errName(err); got != tc.err {
				t.Fatalf("RevertUnitFiles(%v): error %v, want %q", tc.units, err, tc.err)
			}
			if diff := cmp.Diff(sortedChanges(tc.want), sortedChanges(changes)); tc.want != nil && diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
	var state string
	r.mustManager(t, "GetUnitFileState", []any{"masked.service"}, &state)
	if state != "static" {
		t.Errorf("reverted masked.service is %q, want static", state)
	}
	r.mustManager(t, "GetUnitFileState", []any{"linked.service"}, &state)
	if state != "linked" {
		t.Errorf("linked.service is %q after a revert, want still linked", state)
	}
}

// TestPresetWithMode: PresetUnitFilesWithMode and PresetAllUnitFiles
// under the fake's policy, which enables everything.
func TestPresetWithMode(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	etc := s.UnitDir()
	one := outsideUnit(t, "one.service", installable)
	two := outsideUnit(t, "two.service", installable)
	static := outsideUnit(t, "static.service", "[Service]\nExecStart=/bin/true\n")
	for _, f := range []string{two, static} {
		r.mustManager(t, "LinkUnitFiles", []any{[]string{f}, false, false}, new([]change))
	}
	wants := func(n string) string { return filepath.Join(etc, "multi-user.target.wants", n) }
	for _, tc := range []struct {
		name    string
		method  string
		args    []any
		err     string
		carries bool
		want    []change
	}{
		{"disable-only enables nothing", "PresetUnitFilesWithMode", []any{[]string{one}, "disable-only", false, false}, "", false, []change{}},
		{"disable-only, no unit file", "PresetUnitFilesWithMode", []any{[]string{"none.service"}, "disable-only", false, false}, "org.freedesktop.systemd1.NoSuchUnit", false, nil},
		{"enable-only", "PresetUnitFilesWithMode", []any{[]string{one}, "enable-only", false, false}, "", true, []change{
			{"symlink", filepath.Join(etc, "one.service"), one}, {"symlink", wants("one.service"), one}}},
		{"full, already enabled", "PresetUnitFilesWithMode", []any{[]string{"one.service"}, "full", false, false}, "", true, []change{}},
		{"empty mode is full", "PresetUnitFilesWithMode", []any{[]string{"static.service"}, "", false, false}, "", false, []change{}},
		{"bad mode", "PresetUnitFilesWithMode", []any{[]string{"one.service"}, "bogus", false, false}, "org.freedesktop.DBus.Error.InvalidArgs", false, nil},
		{"all, disable-only", "PresetAllUnitFiles", []any{"disable-only", false, false}, "", false, []change{}},
		{"all, bad mode", "PresetAllUnitFiles", []any{"bogus", false, false}, "org.freedesktop.DBus.Error.InvalidArgs", false, nil},
		{"all", "PresetAllUnitFiles", []any{"full", false, false}, "", false, []change{{"symlink", wants("two.service"), two}}},
		{"all again", "PresetAllUnitFiles", []any{"enable-only", false, false}, "", false, []change{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var carries bool
			var changes []change
			out := []any{&changes}
			if tc.method == "PresetUnitFilesWithMode" {
				out = []any{&carries, &changes}
			}
			err := r.manager(tc.method, tc.args, out...)
			if got := errName(err); got != tc.err {
				t.Fatalf("%s%v: error %v, want %q", tc.method, tc.args, err, tc.err)
			}
			if carries != tc.carries {
				t.Errorf("carries install info = %v, want %v", carries, tc.carries)
			}
			if diff := cmp.Diff(sortedChanges(tc.want), sortedChanges(changes)); tc.want != nil && diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

type affected struct {
	ID       uint32
	Path     dbus.ObjectPath
	Unit     string
	UnitPath dbus.ObjectPath
	Type     string
}

// TestEnqueueUnitJob: the job, its unit and the other jobs the call
// installed; the errors of the job methods.
func TestEnqueueUnitJob(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	for _, n := range []string{"dep.service", "main.service", "idle.service"} {
		props := sleeper()
		if n == "main.service" {
			props = sleeper(sdbus.Property{Name: "Requires", Value: dbus.MakeVariant([]string{"dep.service"})})
		}
		if err := s.AddUnitFile(fakebus.UnitFile{Name: n, Properties: props}); err != nil {
			t.Fatal(err)
		}
	}
	r := rawBus(t, s)
	type reply struct {
		unit, typ string
		affected  []string // unit/type of the affected jobs
	}
	for _, tc := range []struct {
		name            string
		unit, typ, mode string
		err             string
		want            reply
	}{
		{"start with a requirement", "main.service", "start", "replace", "", reply{"main.service", "start", []string{"dep.service/start"}}},
		{"try-restart of an inactive unit", "idle.service", "try-restart", "replace", "", reply{"idle.service", "nop", nil}},
		{"stop", "main.service", "stop", "replace", "", reply{"main.service", "stop", nil}},
		{"unknown type", "main.service", "frobnicate", "replace", "org.freedesktop.DBus.Error.InvalidArgs", reply{}},
		{"verify-active", "idle.service", "verify-active", "replace", "", reply{"idle.service", "verify-active", nil}},
		{"nop", "idle.service", "nop", "replace", "", reply{"idle.service", "nop", nil}},
		{"try-reload of an inactive unit", "idle.service", "try-reload", "replace", "", reply{"idle.service", "nop", nil}},
		{"reload-or-start of an inactive unit", "idle.service", "reload-or-start", "replace", "", reply{"idle.service", "start", nil}},
		{"stop of no unit", "none.service", "stop", "replace", "org.freedesktop.systemd1.NoSuchUnit", reply{}},
		{"bad mode", "main.service", "start", "bogus", "org.freedesktop.DBus.Error.InvalidArgs", reply{}},
		{"no unit", "none.service", "start", "replace", "org.freedesktop.systemd1.NoSuchUnit", reply{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var id uint32
			var jobPath, unitPath dbus.ObjectPath
			var unit, typ string
			var aff []affected
			err := r.manager("EnqueueUnitJob", []any{tc.unit, tc.typ, tc.mode}, &id, &jobPath, &unit, &unitPath, &typ, &aff)
			if got := errName(err); got != tc.err {
				t.Fatalf("EnqueueUnitJob(%s, %s, %s): error %v, want %q", tc.unit, tc.typ, tc.mode, err, tc.err)
			}
			if err != nil {
				return
			}
			got := reply{unit, typ, nil}
			for _, a := range aff {
				got.affected = append(got.affected, a.Unit+"/"+a.Type)
				if a.UnitPath != sdbus.UnitPath(a.Unit) || a.Path != sdbus.JobPath(a.ID) {
					t.Errorf("affected job %+v: paths do not match", a)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(reply{})); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
			if unitPath != sdbus.UnitPath(tc.unit) || jobPath != sdbus.JobPath(id) {
				t.Errorf("paths %s, %s for job %d of %s", jobPath, unitPath, id, unit)
			}
		})
	}
	if _, err := c.Version(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestExitCodeShowStatus: SetExitCode and SetShowStatus are accepted, with
// systemd's checks.
func TestExitCodeShowStatus(t *testing.T) {
	s := fakebus.New(t)
	r := rawBus(t, s)
	for _, tc := range []struct {
		method string
		arg    any
		err    string
	}{
		{"SetExitCode", byte(0), ""},
		{"SetExitCode", "0", "org.freedesktop.DBus.Error.InvalidArgs"},
		{"SetShowStatus", "yes", ""},
		{"SetShowStatus", "auto", ""},
		{"SetShowStatus", "error", ""},
		{"SetShowStatus", "", ""},
		{"SetShowStatus", "bogus", "org.freedesktop.DBus.Error.InvalidArgs"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			if got := errName(r.manager(tc.method, []any{tc.arg})); got != tc.err {
				t.Errorf("%s(%v): error %q, want %q", tc.method, tc.arg, got, tc.err)
			}
		})
	}
}
