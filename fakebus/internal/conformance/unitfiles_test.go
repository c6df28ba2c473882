package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// installableUnit is a oneshot service that stays active, with an
// [Install] section naming alias and WantedBy=e.wantedBy().
func installableUnit(e *env, desc, alias string) string {
	return "[Unit]\nDescription=" + desc + "\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n\n" +
		"[Install]\nWantedBy=" + e.wantedBy() + "\nAlias=" + alias + "\n"
}

// wantedBy is the target a unit of the backend's manager is installed
// into: multi-user.target, default.target for a user manager (which has
// no multi-user.target: enabling into it adds a "destination not present"
// change, EnableIntoMissingTarget).
func (e *env) wantedBy() string {
	if e.user {
		return "default.target"
	}
	return "multi-user.target"
}

// unitFileOutside writes a unit file into a new directory off the unit
// path and registers the cleanup that removes its symlinks and reloads. On
// a real systemd the directory is in the runtime directory the runtime unit
// directory lies in (/run for /run/systemd/system, $XDG_RUNTIME_DIR for a
// user manager's $XDG_RUNTIME_DIR/systemd/user): /tmp is private to the
// sandbox's services, and the caller may write there.
func unitFileOutside(t *testing.T, e *env, name, text string) string {
	t.Helper()
	base := ""
	if e.real {
		base = filepath.Dir(filepath.Dir(e.runtimeDir))
	}
	dir, err := os.MkdirTemp(base, "sdbus-conf-unitfiles")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for _, fl := range []sdbus.UnitFileFlag{0, sdbus.UnitFileRuntime} {
			_, _ = e.c.UnmaskUnitFiles(ctx, []string{name}, fl)
			_, _ = e.c.DisableUnitFiles(ctx, []string{name}, fl)
		}
		os.RemoveAll(dir)
		if err := e.c.Reload(ctx); err != nil {
			t.Errorf("daemon-reload after removing %s: %v", name, err)
		}
	})
	return file
}

func sortChanges(ch []sdbus.UnitFileChange) []sdbus.UnitFileChange {
	out := append([]sdbus.UnitFileChange{}, ch...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Filename < out[j].Filename })
	return out
}

func symlinkChange(name, dest string) sdbus.UnitFileChange {
	return sdbus.UnitFileChange{Type: sdbus.UnitFileSymlink, Filename: name, Destination: dest}
}

func unlinkChange(name string) sdbus.UnitFileChange {
	return sdbus.UnitFileChange{Type: sdbus.UnitFileUnlink, Filename: name}
}

func checkChanges(t *testing.T, what string, want, got []sdbus.UnitFileChange) {
	t.Helper()
	if diff := cmp.Diff(sortChanges(want), sortChanges(got)); diff != "" {
		t.Errorf("%s: changes (-want +got):\n%s", what, diff)
	}
}

// wantFileState checks GetUnitFileState; "" means no unit file
// (ErrNoSuchUnit, from org.freedesktop.DBus.Error.FileNotFound).
func wantFileState(t *testing.T, e *env, name string, want sdbus.UnitFileState) {
	t.Helper()
	got, err := e.c.GetUnitFileState(e.ctx, name)
	switch {
	case want == "" && !errors.Is(err, sdbus.ErrNoSuchUnit):
		t.Errorf("GetUnitFileState(%s) = %q, %v; want ErrNoSuchUnit", name, got, err)
	case want != "" && (err != nil || got != want):
		t.Errorf("GetUnitFileState(%s) = %q, %v; want %q", name, got, err, want)
	}
}

// link links file and returns the configuration directory the symlink is
// in: the backend's configDir, or its runtimeDir with UnitFileRuntime.
func link(t *testing.T, e *env, file string, flags sdbus.UnitFileFlag) string {
	t.Helper()
	ch, err := e.c.LinkUnitFiles(e.ctx, []string{file}, flags)
	if err != nil || len(ch) != 1 {
		t.Fatalf("LinkUnitFiles(%s) = %v, %v; want one change", file, ch, err)
	}
	dir := filepath.Dir(ch[0].Filename)
	checkChanges(t, "link", []sdbus.UnitFileChange{symlinkChange(filepath.Join(dir, filepath.Base(file)), file)}, ch)
	want := e.configDir
	if flags&sdbus.UnitFileRuntime != 0 {
		want = e.runtimeDir
	}
	if dir != want {
		t.Errorf("LinkUnitFiles linked into %s, want %s", dir, want)
	}
	return dir
}

// testUnitFileEnableDisable: link, enable (change list and carries install
// info), state enabled, alias state, list, enable again (no changes),
// disable (every symlink, the link included), the runtime variants.
func testUnitFileEnableDisable(t *testing.T, e *env) {
	name, alias := e.unit("uf", "service"), e.unit("ufalias", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", alias))

	wantFileState(t, e, name, "")
	if _, _, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("EnableUnitFiles before link: %v; want ErrNoSuchUnit", err)
	}
	etc := link(t, e, file, 0)
	wantFileState(t, e, name, sdbus.UnitFileLinked)
	if ch, err := e.c.LinkUnitFiles(e.ctx, []string{file}, 0); err != nil || len(ch) != 0 {
		t.Errorf("LinkUnitFiles again = %v, %v; want no changes", ch, err)
	}

	info, ch, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0)
	if err != nil || !info {
		t.Fatalf("EnableUnitFiles = %v, %v, %v", info, ch, err)
	}
	checkChanges(t, "enable", []sdbus.UnitFileChange{
		symlinkChange(filepath.Join(etc, alias), aliasTarget(e, etc, name, file)),
		symlinkChange(filepath.Join(etc, e.wantedBy()+".wants", name), file),
	}, ch)
	wantFileState(t, e, name, sdbus.UnitFileEnabled)
	wantFileState(t, e, alias, sdbus.UnitFileAlias)
	rows, err := e.c.ListUnitFilesByPatterns(e.ctx, nil, []string{strings.TrimSuffix(name, ".service") + "*", alias})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Path < rows[j].Path })
	wantRows := []sdbus.UnitFileStatus{
		{Path: filepath.Join(etc, name), State: sdbus.UnitFileEnabled},
		{Path: filepath.Join(etc, alias), State: sdbus.UnitFileAlias},
	}
	sort.Slice(wantRows, func(i, j int) bool { return wantRows[i].Path < wantRows[j].Path })
	if diff := cmp.Diff(wantRows, rows); diff != "" {
		t.Errorf("ListUnitFilesByPatterns (-want +got):\n%s", diff)
	}
	rows, err = e.c.ListUnitFilesByPatterns(e.ctx, []sdbus.UnitFileState{sdbus.UnitFileDisabled}, []string{name})
	if err != nil || len(rows) != 0 {
		t.Errorf("ListUnitFilesByPatterns(disabled, %s) = %v, %v; want none", name, rows, err)
	}
	all, err := e.c.ListUnitFiles(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range all {
		found = found || r == wantRows[0] || r == wantRows[1]
	}
	if !found {
		t.Errorf("ListUnitFiles does not list %s", name)
	}
	if info, ch, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0); err != nil || !info || len(ch) != 0 {
		t.Errorf("EnableUnitFiles again = %v, %v, %v; want true, no changes", info, ch, err)
	}

	ch, err = e.c.DisableUnitFiles(e.ctx, []string{name}, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkChanges(t, "disable", []sdbus.UnitFileChange{
		unlinkChange(filepath.Join(etc, alias)),
		unlinkChange(filepath.Join(etc, name)),
		unlinkChange(filepath.Join(etc, e.wantedBy()+".wants", name)),
	}, ch)
	wantFileState(t, e, name, "")
	if _, err := e.c.DisableUnitFiles(e.ctx, []string{name}, 0); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("DisableUnitFiles without a unit file: %v; want ErrNoSuchUnit", err)
	}

	// The same by path, in the runtime directory.
	info, ch, err = e.c.EnableUnitFiles(e.ctx, []string{file}, sdbus.UnitFileRuntime)
	if err != nil || !info || len(ch) == 0 {
		t.Fatalf("EnableUnitFiles(runtime) = %v, %v, %v", info, ch, err)
	}
	run := filepath.Dir(ch[0].Filename)
	if run != e.runtimeDir {
		t.Errorf("runtime enable in %s, want %s", run, e.runtimeDir)
	}
	// In the order they are made: the link first, on 247 last.
	want := []sdbus.UnitFileChange{
		symlinkChange(filepath.Join(run, alias), aliasTarget(e, run, name, file)),
		symlinkChange(filepath.Join(run, e.wantedBy()+".wants", name), file),
	}
	if linkChange := symlinkChange(filepath.Join(run, name), file); sdversions.Behaves(e.release, sdversions.LinkBeforeSymlinks) {
		want = append([]sdbus.UnitFileChange{linkChange}, want...)
	} else {
		want = append(want, linkChange)
	}
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("runtime enable: changes in order (-want +got):\n%s", diff)
	}
	wantFileState(t, e, name, sdbus.UnitFileEnabledRuntime)
	// Removed in the order a walk of the directory finds them.
	want = nil
	for _, p := range inDirectoryOrder(t, run, filepath.Join(run, name), filepath.Join(run, alias), filepath.Join(run, e.wantedBy()+".wants", name)) {
		want = append(want, unlinkChange(p))
	}
	ch, err = e.c.DisableUnitFiles(e.ctx, []string{name}, sdbus.UnitFileRuntime)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("runtime disable: changes in order (-want +got):\n%s", diff)
	}
	wantFileState(t, e, name, "")
}

// inDirectoryOrder orders paths, all under dir, as a walk of dir finds
// them: each directory's entries in the order readdir lists them (not
// sorted), a directory entered where it is listed, as systemd's
// remove_marked_symlinks walks a configuration directory.
func inDirectoryOrder(t *testing.T, dir string, paths ...string) []string {
	t.Helper()
	var out []string
	var walk func(string)
	walk = func(d string) {
		f, err := os.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range ents {
			p := filepath.Join(d, de.Name())
			switch {
			case de.IsDir():
				walk(p)
			case slices.Contains(paths, p):
				out = append(out, p)
			}
		}
	}
	walk(dir)
	if len(out) != len(paths) {
		t.Fatalf("a walk of %s finds %q of %q", dir, out, paths)
	}
	return out
}

// testUnitFileMask: masking over a link needs force; a masked unit cannot
// start (before and after daemon-reload); unmask removes the mask only; a
// name without a unit file can be masked at runtime.
func testUnitFileMask(t *testing.T, e *env) {
	name := e.unit("ufmask", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", e.unit("ufmaskalias", "service")))
	etc := link(t, e, file, 0)

	if _, err := e.c.MaskUnitFiles(e.ctx, []string{name}, 0); !errors.Is(err, sdbus.ErrUnitExists) {
		t.Errorf("MaskUnitFiles over the link: %v; want ErrUnitExists", err)
	}
	wantFileState(t, e, name, sdbus.UnitFileLinked)
	ch, err := e.c.MaskUnitFiles(e.ctx, []string{name}, sdbus.UnitFileForce)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]sdbus.UnitFileChange{unlinkChange(filepath.Join(etc, name)), symlinkChange(filepath.Join(etc, name), "/dev/null")}, ch); diff != "" {
		t.Errorf("MaskUnitFiles with force: changes (-want +got):\n%s", diff)
	}
	wantFileState(t, e, name, sdbus.UnitFileMasked)
	if _, _, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0); err == nil {
		t.Errorf("EnableUnitFiles of a masked unit succeeded")
	}
	for _, reload := range []bool{false, true} {
		if reload {
			if err := e.c.Reload(e.ctx); err != nil {
				t.Fatal(err)
			}
		}
		if j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace); !errors.Is(err, sdbus.ErrUnitMasked) {
			t.Errorf("StartUnit of a masked unit (reloaded %v) = %v, %v; want ErrUnitMasked", reload, j, err)
		}
	}
	ch, err = e.c.UnmaskUnitFiles(e.ctx, []string{name}, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkChanges(t, "unmask", []sdbus.UnitFileChange{unlinkChange(filepath.Join(etc, name))}, ch)
	wantFileState(t, e, name, "")
	if ch, err := e.c.UnmaskUnitFiles(e.ctx, []string{name}, 0); err != nil || len(ch) != 0 {
		t.Errorf("UnmaskUnitFiles again = %v, %v; want no changes", ch, err)
	}

	ghost := e.unit("ufghost", "service")
	ch, err = e.c.MaskUnitFiles(e.ctx, []string{ghost}, sdbus.UnitFileRuntime)
	if err != nil || len(ch) != 1 || ch[0].Destination != "/dev/null" {
		t.Fatalf("MaskUnitFiles(runtime) of a unit without a file = %v, %v", ch, err)
	}
	wantFileState(t, e, ghost, sdbus.UnitFileMaskedRuntime)
	if _, err := e.c.StartUnit(e.ctx, ghost, sdbus.ModeReplace); !errors.Is(err, sdbus.ErrUnitMasked) {
		t.Errorf("StartUnit of a masked name: %v; want ErrUnitMasked", err)
	}
	if ch, err := e.c.UnmaskUnitFiles(e.ctx, []string{ghost}, sdbus.UnitFileRuntime); err != nil || len(ch) != 1 {
		t.Errorf("UnmaskUnitFiles(runtime) = %v, %v; want one unlink", ch, err)
	}
	wantFileState(t, e, ghost, "")
}

// testUnitFileReload: a linked unit starts from its file; an edited file
// applies after daemon-reload only; the inactive unit is unloaded after
// its stop (nothing depends on it: an enabled unit would stay while its
// target is loaded); once its file is gone (disabled, reloaded) it is not
// found.
func testUnitFileReload(t *testing.T, e *env) {
	name := e.unit("ufreload", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", e.unit("ufreloadalias", "service")))
	cleanup(t, e, name)
	link(t, e, file, 0)
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	j, err := e.c.RestartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	description := func() string {
		t.Helper()
		st, err := e.c.UnitStatus(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return st.Description
	}
	if d := description(); d != "sdbus conformance" {
		t.Errorf("Description = %q, want the file's", d)
	}
	if err := os.WriteFile(file, []byte(installableUnit(e, "edited", e.unit("ufreloadalias", "service"))), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := description(); d != "sdbus conformance" {
		t.Errorf("Description before daemon-reload = %q, want the old one", d)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	if d := description(); d != "edited" {
		t.Errorf("Description after daemon-reload = %q, want edited", d)
	}
	if st, _ := e.c.UnitStatus(e.ctx, name); st.ActiveState != sdbus.StateActive {
		t.Errorf("ActiveState after daemon-reload = %q, want active", st.ActiveState)
	}
	stop(t, e, e.c, name)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := e.c.GetUnit(e.ctx, name)
		if errors.Is(err, sdbus.ErrNoSuchUnit) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GetUnit of the stopped unit: %v; want ErrNoSuchUnit (garbage-collected)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := e.c.DisableUnitFiles(e.ctx, []string{name}, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("StartUnit once the file is gone: %v; want ErrNoSuchUnit", err)
	}
}

// testUnitFileWantsDirectory: a unit enabled for a target is pulled in
// when the (reloaded) target starts, and stays loaded after its stop while
// the target, which depends on it, is loaded.
func testUnitFileWantsDirectory(t *testing.T, e *env) {
	target, name := e.unit("uftarget", "target"), e.unit("ufwanted", "service")
	tfile := unitFileOutside(t, e, target, "[Unit]\nDescription=sdbus conformance target\n")
	sfile := unitFileOutside(t, e, name, "[Unit]\nDescription=sdbus conformance\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\n"+
		"ExecStart=/bin/true\n\n[Install]\nWantedBy="+target+"\n")
	cleanup(t, e, name)
	cleanup(t, e, target)
	etc := link(t, e, tfile, 0)
	info, ch, err := e.c.EnableUnitFiles(e.ctx, []string{sfile}, 0)
	if err != nil || !info {
		t.Fatalf("EnableUnitFiles = %v, %v, %v", info, ch, err)
	}
	checkChanges(t, "enable", []sdbus.UnitFileChange{
		symlinkChange(filepath.Join(etc, name), sfile),
		symlinkChange(filepath.Join(etc, target+".wants", name), sfile),
	}, ch)
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	j, err := e.c.StartUnit(e.ctx, target, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	settle(t, e, name, "active", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateActive })
	stop(t, e, e.c, name)
	time.Sleep(100 * time.Millisecond) // systemd's GC runs soon after the stop
	if _, err := e.c.GetUnit(e.ctx, name); err != nil {
		t.Errorf("GetUnit of the stopped unit its target wants: %v; want it loaded", err)
	}
	stop(t, e, e.c, target)
}

// testUnitFileReenablePresetStatic: reenable resets the symlinks (unlink
// then symlink of each), preset enables (no preset files: the default
// policy), a unit without [Install] links but carries no install
// information and stays linked, and linking a file that does not exist is
// ErrNoSuchUnit.
func testUnitFileReenablePresetStatic(t *testing.T, e *env) {
	name, alias := e.unit("ufre", "service"), e.unit("ufrealias", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", alias))
	etc := link(t, e, file, 0)
	info, ch, err := e.c.PresetUnitFiles(e.ctx, []string{name}, 0)
	if err != nil || !info {
		t.Fatalf("PresetUnitFiles = %v, %v, %v", info, ch, err)
	}
	enabled := []sdbus.UnitFileChange{
		symlinkChange(filepath.Join(etc, alias), aliasTarget(e, etc, name, file)),
		symlinkChange(filepath.Join(etc, e.wantedBy()+".wants", name), file),
	}
	checkChanges(t, "preset", enabled, ch)
	wantFileState(t, e, name, sdbus.UnitFileEnabled)
	info, ch, err = e.c.ReenableUnitFiles(e.ctx, []string{file}, 0)
	if err != nil || !info {
		t.Fatalf("ReenableUnitFiles = %v, %v, %v", info, ch, err)
	}
	checkChanges(t, "reenable", []sdbus.UnitFileChange{
		unlinkChange(filepath.Join(etc, alias)), symlinkChange(filepath.Join(etc, alias), aliasTarget(e, etc, name, file)),
		unlinkChange(filepath.Join(etc, name)), symlinkChange(filepath.Join(etc, name), file),
		unlinkChange(filepath.Join(etc, e.wantedBy()+".wants", name)),
		symlinkChange(filepath.Join(etc, e.wantedBy()+".wants", name), file),
	}, ch)
	wantFileState(t, e, name, sdbus.UnitFileEnabled)

	static := e.unit("ufstatic", "service")
	sfile := unitFileOutside(t, e, static, "[Unit]\nDescription=sdbus conformance\n\n[Service]\nExecStart=/bin/sleep 100\n")
	info, ch, err = e.c.EnableUnitFiles(e.ctx, []string{sfile}, 0)
	if err != nil || info {
		t.Fatalf("EnableUnitFiles of a unit without [Install] = %v, %v, %v; want false", info, ch, err)
	}
	checkChanges(t, "enable static", []sdbus.UnitFileChange{symlinkChange(filepath.Join(etc, static), sfile)}, ch)
	wantFileState(t, e, static, sdbus.UnitFileLinked)

	missing := filepath.Join(filepath.Dir(sfile), e.unit("ufmissing", "service"))
	if ch, err := e.c.LinkUnitFiles(e.ctx, []string{missing}, 0); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("LinkUnitFiles of a missing file = %v, %v; want ErrNoSuchUnit", ch, err)
	}
}

// testUnitFilesChangedSignal: a unit-file change that changed something
// is announced with UnitFilesChanged to subscribed clients.
func testUnitFilesChangedSignal(t *testing.T, e *env) {
	name := e.unit("ufsignal", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", e.unit("ufsignalalias", "service")))
	raw := e.rawBus(t)
	sigs := make(chan *dbus.Signal, 16)
	raw.Signal(sigs)
	if err := raw.AddMatchSignalContext(e.ctx, dbus.WithMatchInterface("org.freedesktop.systemd1.Manager"),
		dbus.WithMatchMember("UnitFilesChanged"), dbus.WithMatchSender("org.freedesktop.systemd1")); err != nil {
		t.Fatal(err)
	}
	mgr := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1")
	if err := mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager.Subscribe", 0).Store(); err != nil {
		t.Fatal(err)
	}
	link(t, e, file, 0)
	timeout := time.After(5 * time.Second)
	for {
		select {
		case s := <-sigs:
			if s.Name != "org.freedesktop.systemd1.Manager.UnitFilesChanged" {
				continue // NameAcquired and the like
			}
			if len(s.Body) != 0 {
				t.Errorf("UnitFilesChanged body %v, want none", s.Body)
			}
			return
		case <-timeout:
			t.Fatal("no UnitFilesChanged after LinkUnitFiles")
		}
	}
}

// testUnitFileSetPropertiesSurviveReload: SetUnitProperties on a unit
// loaded from a file outlives daemon-reload (systemd writes a drop-in).
func testUnitFileSetPropertiesSurviveReload(t *testing.T, e *env) {
	name := e.unit("ufprops", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", e.unit("ufpropsalias", "service")))
	cleanup(t, e, name)
	link(t, e, file, 0)
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	if err := e.c.SetUnitProperties(e.ctx, name, true, sdbus.PropDescription("set at runtime")); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	st, err := e.c.UnitStatus(e.ctx, name)
	if err != nil || st.Description != "set at runtime" {
		t.Errorf("after daemon-reload: Description %q, %v; want the one set at runtime", st.Description, err)
	}
}

// aliasTarget is where enabling a linked unit file (file, linked into dir
// as name) points its Alias= symlinks: the file, or from 257 the link.
func aliasTarget(e *env, dir, name, file string) string {
	if sdversions.Behaves(e.release, sdversions.AliasPointsToLink) {
		return filepath.Join(dir, name)
	}
	return file
}

// testListUnitFilesEveryDirectory: ListUnitFiles and
// ListUnitFilesByPatterns list the unit files of every directory on the
// unit path, each with its state: a unit the backend installs as a unit
// file (e.unitFile: a file under /run/systemd/system on systemd, a vendor
// unit on fakebus) is static, indirect when it has an alias (symlinks
// point to it but it has no [Install] section), its alias alias; files
// written straight into
// the runtime directory are static without an [Install] section, disabled
// with one. A state filter keeps the rows in those states only.
func testListUnitFilesEveryDirectory(t *testing.T, e *env) {
	fixture, alias := e.unit("lsfixture", "service"), e.unit("lsalias", "service")
	e.unitFile(t, e, aliasedService{name: fixture, aliases: []string{alias}})
	plain := e.unit("lsplain", "service")
	e.unitFile(t, e, aliasedService{name: plain})
	static, disabled := e.unit("lsstatic", "service"), e.unit("lsdisabled", "service")
	body := "[Unit]\nDescription=sdbus conformance\n\n[Service]\nExecStart=/bin/sleep 400\n"
	for name, text := range map[string]string{static: body, disabled: body + "\n[Install]\nWantedBy=" + e.wantedBy() + "\n"} {
		p := filepath.Join(e.runtimeDir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(p) })
	}
	names := []string{fixture, alias, plain, static, disabled}
	byName := func(rows []sdbus.UnitFileStatus) map[string]sdbus.UnitFileState {
		out := map[string]sdbus.UnitFileState{}
		for _, r := range rows {
			if n := filepath.Base(r.Path); slices.Contains(names, n) {
				out[n] = r.State
				if (n == static || n == disabled) && r.Path != filepath.Join(e.runtimeDir, n) {
					t.Errorf("%s listed at %s, want in %s", n, r.Path, e.runtimeDir)
				}
			}
		}
		return out
	}
	all := map[string]sdbus.UnitFileState{
		fixture: sdbus.UnitFileIndirect, alias: sdbus.UnitFileAlias, plain: sdbus.UnitFileStatic,
		static: sdbus.UnitFileStatic, disabled: sdbus.UnitFileDisabled,
	}
	for _, tc := range []struct {
		name   string
		states []sdbus.UnitFileState
		want   map[string]sdbus.UnitFileState
	}{
		{"all states", nil, all},
		{"static", []sdbus.UnitFileState{sdbus.UnitFileStatic}, map[string]sdbus.UnitFileState{plain: sdbus.UnitFileStatic, static: sdbus.UnitFileStatic}},
		{"disabled or alias", []sdbus.UnitFileState{sdbus.UnitFileDisabled, sdbus.UnitFileAlias}, map[string]sdbus.UnitFileState{alias: sdbus.UnitFileAlias, disabled: sdbus.UnitFileDisabled}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := e.c.ListUnitFilesByPatterns(e.ctx, tc.states, names)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, byName(rows)); diff != "" {
				t.Errorf("ListUnitFilesByPatterns(%v) (-want +got):\n%s", tc.states, diff)
			}
			if len(rows) != len(tc.want) {
				t.Errorf("ListUnitFilesByPatterns(%v) = %v: other rows", tc.states, rows)
			}
		})
	}
	rows, err := e.c.ListUnitFiles(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, byName(rows)); diff != "" {
		t.Errorf("ListUnitFiles (-want +got):\n%s", diff)
	}
}

// testEnableIntoMissingTarget: enabling a unit whose WantedBy= target has
// no unit file makes the symlink in the target's .wants/ all the same and,
// from 252, adds a change "destination not present" (Filename the target,
// Destination the unit file) after it, again on a second enable that
// changes nothing; the unit file is enabled. A user manager's
// multi-user.target is such a target.
func testEnableIntoMissingTarget(t *testing.T, e *env) {
	name := e.unit("ufmissing", "service")
	target := e.unit("nosuch", "target")
	file := unitFileOutside(t, e, name, "[Unit]\nDescription=sdbus conformance\n\n[Service]\nExecStart=/bin/sleep 300\n\n"+
		"[Install]\nWantedBy="+target+"\nRequiredBy="+e.wantedBy()+"\n")
	etc := link(t, e, file, 0)
	var missing []sdbus.UnitFileChange
	if sdversions.Behaves(e.release, sdversions.DestinationNotPresent) {
		missing = []sdbus.UnitFileChange{{Type: sdbus.UnitFileDestinationNotPresent, Filename: target, Destination: file}}
	}
	_, ch, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// In the order systemd reports them: each symlink, then its note.
	want := []sdbus.UnitFileChange{symlinkChange(filepath.Join(etc, target+".wants", name), file)}
	want = append(want, missing...)
	want = append(want, symlinkChange(filepath.Join(etc, e.wantedBy()+".requires", name), file))
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("EnableUnitFiles (-want +got):\n%s", diff)
	}
	_, ch, err = e.c.EnableUnitFiles(e.ctx, []string{name}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(missing, ch, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("EnableUnitFiles again (-want +got):\n%s", diff)
	}
	wantFileState(t, e, name, sdbus.UnitFileEnabled)
}

// testUnitFileStateWhenRead: a unit's UnitFileState property is the state
// of its file when a client first reads that property (Get, or a GetAll
// of Unit) after the unit was loaded, and stays so until the next
// daemon-reload, whatever the disk says meanwhile; reading other
// properties does not fix it (systemd's unit_get_unit_file_state).
// Removing the link it was loaded through makes it need a daemon-reload
// (sdversions.LinkedUnitFragmentIsLink).
func testUnitFileStateWhenRead(t *testing.T, e *env) {
	name := e.unit("ufread", "service")
	file := unitFileOutside(t, e, name, installableUnit(e, "sdbus conformance", e.unit("ufreadalias", "service")))
	cleanup(t, e, name)
	link(t, e, file, 0)
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	read := func(prop string) any {
		t.Helper()
		v, err := e.c.UnitProperty(e.ctx, name, "Unit", prop)
		if err != nil {
			t.Fatalf("Get %s: %v", prop, err)
		}
		return v.Value()
	}
	if got := read("ActiveState"); got != "active" {
		t.Fatalf("ActiveState = %v, want active", got)
	}
	read("Description")
	if _, _, err := e.c.EnableUnitFiles(e.ctx, []string{name}, 0); err != nil {
		t.Fatal(err)
	}
	if got := read("UnitFileState"); got != "enabled" {
		t.Errorf("UnitFileState read first after EnableUnitFiles = %v, want enabled (other reads fix nothing)", got)
	}
	if _, err := e.c.DisableUnitFiles(e.ctx, []string{name}, 0); err != nil {
		t.Fatal(err)
	}
	wantFileState(t, e, name, "")
	if got := read("UnitFileState"); got != "enabled" {
		t.Errorf("UnitFileState after DisableUnitFiles without a reload = %v, want enabled (as first read)", got)
	}
	// Its fragment, the link, is gone: the unit needs a daemon-reload
	// (247's fragment is the linked file, still there).
	want := sdversions.Behaves(e.release, sdversions.LinkedUnitFragmentIsLink)
	if got := read("NeedDaemonReload"); got != want {
		t.Errorf("NeedDaemonReload once its link is removed = %v, want %v", got, want)
	}
	link(t, e, file, 0)
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	if got := read("UnitFileState"); got != "linked" {
		t.Errorf("UnitFileState after daemon-reload = %v, want linked", got)
	}
}

// testEnableWantsAfterReload: a unit enabled into the manager's own
// target (multi-user.target; a user manager's default.target) is in that
// target's Wants= after a daemon-reload, and so is loaded by it, and
// stays loaded when stopped, with the status its main process ended with.
func testEnableWantsAfterReload(t *testing.T, e *env) {
	name := e.unit("ufwantsreload", "service")
	file := unitFileOutside(t, e, name, "[Unit]\nDescription=sdbus conformance\n\n[Service]\nExecStart=/bin/sleep 1000\n\n"+
		"[Install]\nWantedBy="+e.wantedBy()+"\n")
	cleanup(t, e, name)
	if _, _, err := e.c.EnableUnitFiles(e.ctx, []string{file}, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	v, err := e.c.UnitProperty(e.ctx, e.wantedBy(), "Unit", "Wants")
	if err != nil {
		t.Fatal(err)
	}
	if wants, _ := v.Value().([]string); !slices.Contains(wants, name) {
		t.Errorf("%s Wants= after enable and daemon-reload = %v, want it to name %s", e.wantedBy(), wants, name)
	}
	// Loaded with the target that names it, though nothing started it.
	if st, err := e.c.UnitStatus(e.ctx, name); err != nil || st.LoadState != "loaded" || st.ActiveState != sdbus.StateInactive {
		t.Errorf("the unit after the daemon-reload: %+v, %v; want it loaded and inactive", st, err)
	}
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	stop(t, e, e.c, name)
	time.Sleep(100 * time.Millisecond) // systemd's GC runs soon after the stop
	if _, err := e.c.GetUnit(e.ctx, name); err != nil {
		t.Fatalf("GetUnit of the stopped unit its target wants: %v; want it loaded", err)
	}
	type status struct{ Code, Status any }
	var got status
	for _, f := range []struct {
		prop string
		into *any
	}{{"ExecMainCode", &got.Code}, {"ExecMainStatus", &got.Status}} {
		v, err := e.c.UnitProperty(e.ctx, name, "Service", f.prop)
		if err != nil {
			t.Fatal(err)
		}
		*f.into = v.Value()
	}
	// Killed by stop's SIGTERM: CLD_KILLED (2), signal 15.
	if diff := cmp.Diff(status{int32(2), int32(15)}, got); diff != "" {
		t.Errorf("main process status of the stopped unit (-want +got):\n%s", diff)
	}
}

// testTransientUnitFilesListed: a transient unit's file is listed by
// ListUnitFilesByPatterns, at its FragmentPath with state transient,
// while the unit is loaded, failed too; GetUnitFileState says transient.
func testTransientUnitFilesListed(t *testing.T, e *env) {
	running, failed := e.unit("trlisted", "service"), e.unit("trlistedfailed", "service")
	cleanup(t, e, running)
	cleanup(t, e, failed)
	wait(t, e, start(t, e, e.c, running, []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "600"}, false)}), sdbus.JobDone)
	j := start(t, e, e.c, failed, []sdbus.Property{sdbus.PropExecStart([]string{"/bin/false"}, false)})
	wait(t, e, j, sdbus.JobDone)
	settle(t, e, failed, "failed", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateFailed })
	var want []sdbus.UnitFileStatus
	for _, name := range []string{running, failed} {
		up, err := e.c.UnitProperties(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, sdbus.UnitFileStatus{Path: up.FragmentPath, State: sdbus.UnitFileTransient})
		wantFileState(t, e, name, sdbus.UnitFileTransient)
	}
	got, err := e.c.ListUnitFilesByPatterns(e.ctx, nil, []string{running, failed})
	if err != nil {
		t.Fatal(err)
	}
	byPath := cmpopts.SortSlices(func(a, b sdbus.UnitFileStatus) bool { return a.Path < b.Path })
	if diff := cmp.Diff(want, got, byPath); diff != "" {
		t.Errorf("ListUnitFilesByPatterns of transient units (-want +got):\n%s", diff)
	}
}

// testEnableEmptyFileByPath: an empty unit file masks its name, given by
// path too: EnableUnitFiles of it is refused UnitMasked and links nothing,
// while LinkUnitFiles links it, and the name then reads masked.
func testEnableEmptyFileByPath(t *testing.T, e *env) {
	name := e.unit("ufempty", "service")
	file := unitFileOutside(t, e, name, "")
	if _, ch, err := e.c.EnableUnitFiles(e.ctx, []string{file}, 0); !errors.Is(err, sdbus.ErrUnitMasked) {
		t.Errorf("EnableUnitFiles(%s) = %v, %v; want %v", file, ch, err, sdbus.ErrUnitMasked)
	}
	wantFileState(t, e, name, "")
	link(t, e, file, 0)
	wantFileState(t, e, name, sdbus.UnitFileMasked)
}

// testRequirementBadSetting: a start whose unit requires a unit with a
// bad setting (Requires=, BindsTo=, Requisite= of a service without
// ExecStart=) is refused BadUnitSetting, as a start of that unit is;
// Wants= of it starts the unit alone.
func testRequirementBadSetting(t *testing.T, e *env) {
	bad := e.unit("reqbad", "service")
	link(t, e, unitFileOutside(t, e, bad, "[Service]\nType=simple\n"), 0)
	deps := []string{"Requires", "BindsTo", "Requisite", "Wants"}
	names := map[string]string{}
	for _, dep := range deps {
		names[dep] = e.unit("req"+strings.ToLower(dep), "service")
		link(t, e, unitFileOutside(t, e, names[dep], "[Unit]\n"+dep+"="+bad+"\n\n[Service]\nExecStart=/bin/sleep 1000\n"), 0)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	for _, dep := range deps {
		name := names[dep]
		cleanup(t, e, name)
		j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
		if dep == "Wants" {
			if err != nil {
				t.Fatalf("StartUnit of a unit that wants %s: %v", bad, err)
			}
			wait(t, e, j, sdbus.JobDone)
			stop(t, e, e.c, name)
			continue
		}
		if !errors.Is(err, sdbus.ErrBadUnitSetting) {
			t.Errorf("StartUnit of a unit with %s=%s: %v; want ErrBadUnitSetting", dep, bad, err)
		}
	}
}

// testTargetSetProperties: SetUnitProperties of a target takes the
// unit-wide properties from 252; before, a type with no setter of its own
// refuses any property, PropertyReadOnly "Objects of this type do not
// support setting properties." (eab62c01ef).
func testTargetSetProperties(t *testing.T, e *env) {
	name := e.unit("setprops", "target")
	link(t, e, unitFileOutside(t, e, name, "[Unit]\nDescription=before\n"), 0)
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	err := e.c.SetUnitProperties(e.ctx, name, true, sdbus.PropDescription("after"))
	if sdversions.Behaves(e.release, sdversions.AnyTypeSetsProperties) {
		if err != nil {
			t.Fatalf("SetUnitProperties %s Description: %v", name, err)
		}
		v, err := e.c.UnitProperty(e.ctx, name, "org.freedesktop.systemd1.Unit", "Description")
		if got, _ := v.Value().(string); err != nil || got != "after" {
			t.Errorf("Description of %s = %q (%v), want %q", name, got, err, "after")
		}
		return
	}
	var se *sdbus.Error
	const msg = "Objects of this type do not support setting properties."
	if !errors.Is(err, sdbus.ErrNotSupported) || !errors.As(err, &se) || se.Message != msg {
		t.Fatalf("SetUnitProperties %s Description: %v; want ErrNotSupported %q", name, err, msg)
	}
}

// testStaleTransientName: the unit name map, built again when a unit is
// loaded after a unit directory changed, names a running transient unit's
// file, which the unit takes with it when it is collected; the transient
// directory's changes do not make it build the map again. So a unit file
// linked for that name while the unit ran is not found afterwards: the
// name is pristine, and StartTransientUnit makes the unit again, until a
// daemon-reload reads the file (then UnitExists).
func testStaleTransientName(t *testing.T, e *env) {
	name, other := e.unit("stale", "service"), e.unit("stale-other", "service")
	cleanup(t, e, name)
	cleanup(t, e, other)
	wait(t, e, start(t, e, e.c, name, sleeper()), sdbus.JobDone)
	link(t, e, unitFileOutside(t, e, name, "[Service]\nExecStart=/bin/sleep 400\n"), 0)
	wait(t, e, start(t, e, e.c, other, sleeper()), sdbus.JobDone) // builds the map, with name's transient file
	stop(t, e, e.c, name)
	unloaded(t, e, name)
	j, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, sleeper())
	if err != nil {
		t.Fatalf("StartTransientUnit %s after it was collected: %v", name, err)
	}
	wait(t, e, j, sdbus.JobDone)
	stop(t, e, e.c, name)
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, sleeper()); !errors.Is(err, sdbus.ErrUnitExists) {
		t.Errorf("StartTransientUnit %s after a daemon-reload: %v; want ErrUnitExists", name, err)
	}
}

// testTransientOverKeptStub: a unit not found that another unit's Wants=
// keeps loaded is pristine; StartTransientUnit of it with settings that
// do not load (a service without ExecStart=) is refused BadUnitSetting and
// leaves it transient, bad-setting, its fragment the transient file, so
// that the next StartTransientUnit of the name is UnitExists.
func testTransientOverKeptStub(t *testing.T, e *env) {
	name := keptNotFound(t, e, "kept-stub")
	if _, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, []sdbus.Property{sdbus.PropDescription("sdbus conformance")}); !errors.Is(err, sdbus.ErrBadUnitSetting) {
		t.Fatalf("StartTransientUnit %s without ExecStart=: %v; want ErrBadUnitSetting", name, err)
	}
	if st := status(t, e, name); st.LoadState != sdbus.LoadBadSetting {
		t.Errorf("%s after the refused start: load state %q, want bad-setting", name, st.LoadState)
	}
	if got := fragmentPath(t, e, name); !strings.HasSuffix(got, "/transient/"+name) {
		t.Errorf("%s's FragmentPath = %q, want its transient file", name, got)
	}
	if _, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, sleeper()); !errors.Is(err, sdbus.ErrUnitExists) {
		t.Errorf("StartTransientUnit %s again: %v; want ErrUnitExists", name, err)
	}
}

// keptNotFound returns the name of a service no file defines, loaded
// not-found and kept so by the Wants= of a transient service it starts.
func keptNotFound(t *testing.T, e *env, what string) string {
	t.Helper()
	name, keeper := e.unit(what, "service"), e.unit(what+"-keeper", "service")
	cleanup(t, e, keeper)
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, keeper, sleeper(sdbus.PropWants(name))), sdbus.JobDone)
	if st := status(t, e, name); st.LoadState != sdbus.LoadNotFound {
		t.Fatalf("%s wanted by %s: load state %q, want not-found", name, keeper, st.LoadState)
	}
	return name
}

// fragmentPath is a unit's FragmentPath.
func fragmentPath(t *testing.T, e *env, name string) string {
	t.Helper()
	v, err := e.c.UnitProperty(e.ctx, name, "org.freedesktop.systemd1.Unit", "FragmentPath")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := v.Value().(string)
	return got
}

// testKeptNotFoundLoadsNewFile: a unit not found that another unit's
// Wants= keeps loaded is loaded from a file written for it afterwards, with
// no daemon-reload: a unit directory changed since it was found missing, so
// its next load tries again (manager_unit_cache_should_retry_load). Its
// start runs it.
func testKeptNotFoundLoadsNewFile(t *testing.T, e *env) {
	name := keptNotFound(t, e, "kept-nf")
	if err := os.MkdirAll(e.runtimeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(e.runtimeDir, name)
	t.Cleanup(func() {
		os.Remove(file)
		_ = e.c.Reload(e.ctx)
	})
	if err := os.WriteFile(file, []byte("[Service]\nExecStart=/bin/sleep 400\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatalf("StartUnit %s once its file was written: %v", name, err)
	}
	wait(t, e, j, sdbus.JobDone)
	st := status(t, e, name)
	if st.LoadState != sdbus.LoadLoaded || st.ActiveState != sdbus.StateActive {
		t.Errorf("%s started from its new file: %s %s/%s, want loaded active", name, st.LoadState, st.ActiveState, st.SubState)
	}
	if got := fragmentPath(t, e, name); got != file {
		t.Errorf("%s's FragmentPath = %q, want %s", name, got, file)
	}
}

// testJobTimeout: a unit's JobTimeoutSec= times its job out. One that has
// passed by the time the job would run (1 µs) ends it "timeout" before
// it runs: the unit never starts. One that passes while the job runs
// ends it "timeout" too, and the unit goes on starting. Either starts the
// unit's OnFailure= units.
func testJobTimeout(t *testing.T, e *env) {
	early, late := e.unit("jobtimeout-early", "service"), e.unit("jobtimeout-late", "service")
	handler := e.unit("jobtimeout-handler", "target")
	cleanup(t, e, late)
	cleanup(t, e, handler)
	writeUnitFiles(t, e, map[string]string{
		handler: "[Unit]\nDescription=sdbus conformance\n",
		early:   "[Unit]\nJobTimeoutSec=1us\n[Service]\nExecStart=/bin/sleep 400\n",
		late: "[Unit]\nJobTimeoutSec=300ms\nOnFailure=" + handler + "\n" +
			"[Service]\nExecStartPre=/bin/sleep 400\nExecStart=/bin/sleep 400\n",
	})
	j, err := e.c.StartUnit(e.ctx, early, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobTimeout)
	if st := status(t, e, early); st.ActiveState != sdbus.StateInactive {
		t.Errorf("%s after its job timed out before it ran: %s/%s, want inactive", early, st.ActiveState, st.SubState)
	}

	if j, err = e.c.StartUnit(e.ctx, late, sdbus.ModeReplace); err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobTimeout)
	if st := status(t, e, late); st.ActiveState != sdbus.StateActivating || st.SubState != "start-pre" {
		t.Errorf("%s after its job timed out while it ran: %s/%s, want activating/start-pre", late, st.ActiveState, st.SubState)
	}
	settle(t, e, handler, "active (OnFailure= of a job that timed out)", isActive)
}
