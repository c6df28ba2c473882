package conformance

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// rawChanges is a change list as the methods answer it, a(sss).
type rawChanges = []struct{ Type, Filename, Destination string }

func toChanges(r rawChanges) []sdbus.UnitFileChange {
	out := []sdbus.UnitFileChange{}
	for _, c := range r {
		out = append(out, sdbus.UnitFileChange{Type: sdbus.UnitFileChangeType(c.Type), Filename: c.Filename, Destination: c.Destination})
	}
	return out
}

// errPrefix is the error name of a managerCall answer ("ok" for none).
func errPrefix(got string) string {
	name, _, _ := strings.Cut(got, ": ")
	return name
}

// testDefaultTarget: SetDefaultTarget links default.target in the
// persistent directory (replacing the old link with force, refusing
// without), GetDefaultTarget follows it; a linked unit file,
// default.target itself, a unit that is not a target and one without a
// file are refused. The old default.target is restored.
func testDefaultTarget(t *testing.T, e *env) {
	raw := e.rawBus(t)
	// A linked unit file is refused; a file in a unit directory is not.
	linked := e.unit("deflinked", "target")
	etc := link(t, e, unitFileOutside(t, e, linked, "[Unit]\nDescription=sdbus conformance\n"), 0)
	name := e.unit("deftarget", "target")
	file := filepath.Join(e.runtimeDir, name)
	if err := os.WriteFile(file, []byte("[Unit]\nDescription=sdbus conformance\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(file) })
	dt := filepath.Join(etc, "default.target")
	fi, err := os.Lstat(dt)
	old, lerr := os.Readlink(dt)
	switch {
	case err == nil && lerr != nil:
		t.Skipf("%s is not a symlink", dt)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		t.Fatal(err)
	}
	existed := err == nil && fi != nil
	t.Cleanup(func() {
		os.Remove(dt)
		if existed {
			if err := os.Symlink(old, dt); err != nil {
				t.Errorf("restoring %s: %v", dt, err)
			}
		}
	})
	var before string
	beforeErr := managerCall(t, e, raw, "GetDefaultTarget", []any{&before})

	var ch rawChanges
	if existed {
		if got := managerCall(t, e, raw, "SetDefaultTarget", []any{&ch}, name, false); errPrefix(got) != "org.freedesktop.systemd1.UnitExists" {
			t.Errorf("SetDefaultTarget without force over %s = %s, want UnitExists", dt, got)
		}
	}
	want := []sdbus.UnitFileChange{symlinkChange(dt, file)}
	if existed {
		want = append(want, unlinkChange(dt))
	}
	if got := managerCall(t, e, raw, "SetDefaultTarget", []any{&ch}, name, true); got != "ok" {
		t.Fatalf("SetDefaultTarget(%s, force) = %s (GetDefaultTarget before: %s %q)", name, got, beforeErr, before)
	}
	checkChanges(t, "SetDefaultTarget", want, toChanges(ch))
	var target string
	if got := managerCall(t, e, raw, "GetDefaultTarget", []any{&target}); got != "ok" || target != name {
		t.Errorf("GetDefaultTarget = %s, %q; want %q", got, target, name)
	}
	if got := managerCall(t, e, raw, "SetDefaultTarget", []any{&ch}, name, false); got != "ok" || len(ch) != 0 {
		t.Errorf("SetDefaultTarget again = %s, %v; want no changes", got, ch)
	}
	for _, tc := range []struct{ arg, want string }{
		{linked, "org.freedesktop.systemd1.UnitLinked"},
		{"default.target", "org.freedesktop.DBus.Error.InvalidArgs"},
		{e.unit("notatarget", "service"), "org.freedesktop.DBus.Error.InvalidArgs"},
		{e.unit("nofile", "target"), "org.freedesktop.systemd1.NoSuchUnit"},
	} {
		if got := managerCall(t, e, raw, "SetDefaultTarget", []any{&ch}, tc.arg, true); errPrefix(got) != tc.want {
			t.Errorf("SetDefaultTarget(%s) = %s, want %s", tc.arg, got, tc.want)
		}
	}
}

// testUnitFileLinks: GetUnitFileLinks answers the symlinks a disable
// would remove, in the directory asked for, and removes nothing.
func testUnitFileLinks(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name, alias := e.unit("links", "service"), e.unit("linksalias", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", alias))
	etc := link(t, e, file, 0)
	if _, _, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0); err != nil {
		t.Fatal(err)
	}
	persistent := []string{filepath.Join(etc, alias), filepath.Join(etc, name), filepath.Join(etc, e.wantedBy()+".wants", name)}
	if e.user && !sdversions.Behaves(e.release, sdversions.UnitFileLinksOwnScope) {
		persistent = []string{} // 247 answers for the system's directories
	}
	for _, tc := range []struct {
		runtime bool
		want    []string
	}{
		{false, persistent},
		{true, []string{}},
	} {
		var links []string
		if got := managerCall(t, e, raw, "GetUnitFileLinks", []any{&links}, name, tc.runtime); got != "ok" {
			t.Fatalf("GetUnitFileLinks(%s, %v) = %s", name, tc.runtime, got)
		}
		sort.Strings(links)
		sort.Strings(tc.want)
		if diff := cmp.Diff(tc.want, links); diff != "" {
			t.Errorf("GetUnitFileLinks(%s, runtime %v) (-want +got):\n%s", name, tc.runtime, diff)
		}
	}
	wantFileState(t, e, name, sdbus.UnitFileEnabled)
	var links []string
	if got := managerCall(t, e, raw, "GetUnitFileLinks", []any{&links}, e.unit("nolinks", "service"), false); got != "ok" || len(links) != 0 {
		t.Errorf("GetUnitFileLinks of a unit without a file = %s, %v; want no links", got, links)
	}
	// systemd answers the errno of its dry-run disable, EUCLEAN (247:
	// InvalidArgs).
	wantErr := "System.Error.EUCLEAN"
	if !sdversions.Behaves(e.release, sdversions.UnitFileLinksEUCLEAN) {
		wantErr = "org.freedesktop.DBus.Error.InvalidArgs"
	}
	if got := managerCall(t, e, raw, "GetUnitFileLinks", []any{&links}, "bogus", false); errPrefix(got) != wantErr {
		t.Errorf("GetUnitFileLinks(bogus) = %s, want %s", got, wantErr)
	}
}

// testRevertUnitFiles: a unit linked from elsewhere, without a vendor
// version, is left alone; an invalid name is InvalidArgs.
func testRevertUnitFiles(t *testing.T, e *env) {
	raw := e.rawBus(t)
	var rc rawChanges
	name := e.unit("revert", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", e.unit("revertalias", "service")))
	link(t, e, file, 0)
	if got := managerCall(t, e, raw, "RevertUnitFiles", []any{&rc}, []string{name}); got != "ok" || len(rc) != 0 {
		t.Errorf("RevertUnitFiles(%s, linked, no vendor version) = %s, %v; want no changes", name, got, rc)
	}
	wantFileState(t, e, name, sdbus.UnitFileLinked)
	if got := managerCall(t, e, raw, "RevertUnitFiles", []any{&rc}, []string{"bogus"}); errPrefix(got) != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("RevertUnitFiles(bogus) = %s, want InvalidArgs", got)
	}
}

// testPresetModes: under a policy that enables the unit, disable-only
// changes nothing and enable-only enables; a bad mode is InvalidArgs, for
// PresetAllUnitFiles too (which the suite runs with no other mode: it
// would touch every unit of the system).
func testPresetModes(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name, alias := e.unit("presetmode", "service"), e.unit("presetmodealias", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", alias))
	etc := link(t, e, file, 0)
	var carries bool
	var rc rawChanges
	if got := managerCall(t, e, raw, "PresetUnitFilesWithMode", []any{&carries, &rc}, []string{name}, "disable-only", false, false); got != "ok" || len(rc) != 0 {
		t.Errorf("PresetUnitFilesWithMode(disable-only) = %s, %v, %v; want no changes", got, carries, rc)
	}
	wantFileState(t, e, name, sdbus.UnitFileLinked)
	if got := managerCall(t, e, raw, "PresetUnitFilesWithMode", []any{&carries, &rc}, []string{name}, "enable-only", false, false); got != "ok" || !carries {
		t.Fatalf("PresetUnitFilesWithMode(enable-only) = %s, %v", got, carries)
	}
	checkChanges(t, "preset enable-only", []sdbus.UnitFileChange{
		symlinkChange(filepath.Join(etc, alias), aliasTarget(e, etc, name, file)),
		symlinkChange(filepath.Join(etc, e.wantedBy()+".wants", name), file),
	}, toChanges(rc))
	wantFileState(t, e, name, sdbus.UnitFileEnabled)
	if got := managerCall(t, e, raw, "PresetUnitFilesWithMode", []any{&carries, &rc}, []string{name}, "bogus", false, false); errPrefix(got) != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("PresetUnitFilesWithMode(bogus) = %s, want InvalidArgs", got)
	}
	if got := managerCall(t, e, raw, "PresetAllUnitFiles", []any{&rc}, "bogus", false, false); errPrefix(got) != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("PresetAllUnitFiles(bogus) = %s, want InvalidArgs", got)
	}
}

// testEnqueueUnitJob: the verbose reply names the job, its unit and its
// type; bad types and modes are InvalidArgs.
func testEnqueueUnitJob(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("enqueue", "service")
	e.unitFile(t, e, aliasedService{name: name})
	cleanup(t, e, name)
	var id uint32
	var jobPath, unitPath dbus.ObjectPath
	var unit, typ string
	var affected []affectedJob
	out := []any{&id, &jobPath, &unit, &unitPath, &typ, &affected}
	if got := managerCall(t, e, raw, "EnqueueUnitJob", out, name, "start", "replace"); got != "ok" {
		t.Fatalf("EnqueueUnitJob(%s, start) = %s", name, got)
	}
	if jobPath != sdbus.JobPath(id) || unit != name || unitPath != sdbus.UnitPath(name) || typ != "start" {
		t.Errorf("EnqueueUnitJob = %d %s %s %s %s; want the start job of %s", id, jobPath, unit, unitPath, typ, name)
	}
	for _, a := range affected {
		if a.Path != sdbus.JobPath(a.ID) || a.UnitPath != sdbus.UnitPath(a.Unit) || a.ID == id {
			t.Errorf("affected job %+v", a)
		}
	}
	for _, tc := range []struct{ typ, mode string }{{"frobnicate", "replace"}, {"start", "bogus"}} {
		if got := managerCall(t, e, raw, "EnqueueUnitJob", out, name, tc.typ, tc.mode); errPrefix(got) != "org.freedesktop.DBus.Error.InvalidArgs" {
			t.Errorf("EnqueueUnitJob(%s, %s) = %s, want InvalidArgs", tc.typ, tc.mode, got)
		}
	}
}

// testExitCodeShowStatus: SetExitCode (to 0, the default: the sandbox is a
// container, where systemd accepts it) and SetShowStatus ("" restores
// the default; a bad value is InvalidArgs).
func testExitCodeShowStatus(t *testing.T, e *env) {
	raw := e.rawBus(t)
	if got := managerCall(t, e, raw, "SetExitCode", nil, byte(0)); got != "ok" {
		t.Errorf("SetExitCode(0) = %s", got)
	}
	if !e.release.AtLeast(sdversions.R("252")) {
		return
	}
	if got := managerCall(t, e, raw, "SetShowStatus", nil, "bogus"); errPrefix(got) != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("SetShowStatus(bogus) = %s, want InvalidArgs", got)
	}
	if got := managerCall(t, e, raw, "SetShowStatus", nil, ""); got != "ok" {
		t.Errorf("SetShowStatus(\"\") = %s", got)
	}
}

// affectedJob is one of the other jobs EnqueueUnitJob's reply lists
// (a(uosos)).
type affectedJob struct {
	ID       uint32
	Path     dbus.ObjectPath
	Unit     string
	UnitPath dbus.ObjectPath
	Type     string
}
