package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testAddDependencyUnitFiles: a linked unit gets a .wants/ symlink to a
// target (then none again), a .requires/ one in the runtime directory,
// where it is linked too; a bad type, target or file is refused before
// anything changes.
func testAddDependencyUnitFiles(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("adddep", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", e.unit("adddepalias", "service")))
	etc := link(t, e, file, 0)
	target := e.unit("adddeptarget", "target")
	tfile := filepath.Join(e.runtimeDir, target)
	if err := os.WriteFile(tfile, []byte("[Unit]\nDescription=sdbus conformance\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Remove(tfile)
		for _, d := range []string{etc, e.runtimeDir} {
			os.RemoveAll(filepath.Join(d, target+".wants"))
			os.RemoveAll(filepath.Join(d, target+".requires"))
		}
	})
	var rc rawChanges
	if got := managerCall(t, e, raw, "AddDependencyUnitFiles", []any{&rc}, []string{name}, target, "Wants", false, false); got != "ok" {
		t.Fatalf("AddDependencyUnitFiles(%s, %s, Wants) = %s", name, target, got)
	}
	checkChanges(t, "AddDependencyUnitFiles Wants", []sdbus.UnitFileChange{symlinkChange(filepath.Join(etc, target+".wants", name), file)}, toChanges(rc))
	wantFileState(t, e, name, sdbus.UnitFileEnabled)
	if got := managerCall(t, e, raw, "AddDependencyUnitFiles", []any{&rc}, []string{name}, target, "Wants", false, false); got != "ok" || len(rc) != 0 {
		t.Errorf("AddDependencyUnitFiles again = %s, %v; want no changes", got, rc)
	}
	if got := managerCall(t, e, raw, "AddDependencyUnitFiles", []any{&rc}, []string{name}, target, "Requires", true, false); got != "ok" {
		t.Fatalf("AddDependencyUnitFiles(%s, %s, Requires, runtime) = %s", name, target, got)
	}
	checkChanges(t, "AddDependencyUnitFiles Requires runtime", []sdbus.UnitFileChange{
		symlinkChange(filepath.Join(e.runtimeDir, name), file),
		symlinkChange(filepath.Join(e.runtimeDir, target+".requires", name), file),
	}, toChanges(rc))
	badTarget := "org.freedesktop.systemd1.BadUnitSetting"
	if !sdversions.Behaves(e.release, sdversions.AddDependencyBadUnitSetting) {
		badTarget = "org.freedesktop.DBus.Error.InvalidArgs"
	}
	for _, tc := range []struct {
		file, target, typ, want string
	}{
		{name, target, "After", "org.freedesktop.DBus.Error.InvalidArgs"},
		{name, target, "wants", "org.freedesktop.DBus.Error.InvalidArgs"},
		{"bogus", "bogus", "Bogus", "org.freedesktop.DBus.Error.InvalidArgs"},
		{"bogus", "bogus", "Wants", badTarget},
		{name, e.unit("adddepnone", "target"), "Wants", "org.freedesktop.systemd1.NoSuchUnit"},
		{e.unit("adddepnone", "service"), target, "Wants", "org.freedesktop.systemd1.NoSuchUnit"},
		{"bogus", target, "Wants", "org.freedesktop.DBus.Error.InvalidArgs"},
	} {
		if got := managerCall(t, e, raw, "AddDependencyUnitFiles", []any{&rc}, []string{tc.file}, tc.target, tc.typ, false, false); errPrefix(got) != tc.want {
			t.Errorf("AddDependencyUnitFiles(%s, %s, %s) = %s, want %s", tc.file, tc.target, tc.typ, got, tc.want)
		}
	}
}

// testDisableWithInstallInfo: where the release has
// DisableUnitFilesWithFlagsAndInstallInfo, it disables an enabled unit
// (every symlink, the link included) and says it carries install
// information; force is refused, an invalid name is BadUnitSetting.
// Elsewhere it is UnknownMethod.
func testDisableWithInstallInfo(t *testing.T, e *env) {
	raw := e.rawBus(t)
	const method = "DisableUnitFilesWithFlagsAndInstallInfo"
	var carries bool
	var rc rawChanges
	if !sdversions.HasMethod(e.release, method) {
		if got := managerCall(t, e, raw, method, []any{&carries, &rc}, []string{"x.service"}, uint64(0)); errPrefix(got) != "org.freedesktop.DBus.Error.UnknownMethod" {
			t.Errorf("%s on %s = %s, want UnknownMethod", method, e.release, got)
		}
		return
	}
	name, alias := e.unit("disinfo", "service"), e.unit("disinfoalias", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", alias))
	etc := link(t, e, file, 0)
	if _, _, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0); err != nil {
		t.Fatal(err)
	}
	if got := managerCall(t, e, raw, method, []any{&carries, &rc}, []string{name}, uint64(2)); errPrefix(got) != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("%s(force) = %s, want InvalidArgs", method, got)
	}
	if got := managerCall(t, e, raw, method, []any{&carries, &rc}, []string{"bogus"}, uint64(0)); errPrefix(got) != "org.freedesktop.systemd1.BadUnitSetting" {
		t.Errorf("%s(bogus) = %s, want BadUnitSetting", method, got)
	}
	if got := managerCall(t, e, raw, method, []any{&carries, &rc}, []string{name}, uint64(0)); got != "ok" || !carries {
		t.Fatalf("%s(%s) = %s, carries install info %v; want ok, true", method, name, got, carries)
	}
	checkChanges(t, method, []sdbus.UnitFileChange{
		unlinkChange(filepath.Join(etc, e.wantedBy()+".wants", name)),
		unlinkChange(filepath.Join(etc, alias)),
		unlinkChange(filepath.Join(etc, name)),
	}, toChanges(rc))
	wantFileState(t, e, name, "")
}
