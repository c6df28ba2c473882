package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testUnitSource: a unit loaded from a unit file shows where it came
// from as systemd shows it (systemctl show, status and cat read these):
// FragmentPath is the file, DropInPaths its *.conf drop-ins (in NAME.d/
// and the directories of its name's prefixes, a-b-.service.d/ for
// a-b-c.service) sorted by file name, the order they apply in, each
// drop-in's settings over the file's; UnitFileState is disabled for a
// file with an [Install] section that is not enabled, static for one
// without, read once and kept until daemon-reload (measured on 252:
// after `systemctl enable --no-reload` the property still says
// disabled); UnitFilePreset is enabled (Debian's policy, the fake's
// too). A masked unit shows its symlink to /dev/null (differences
// between releases in sdversions). A transient unit's UnitFileState is
// transient.
func testUnitSource(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name, static := e.unit("srcprops", "service"), e.unit("srcstatic", "service")
	prefix := name[:strings.LastIndexByte(name, '-')+1] + ".service.d" // sdbus-conf-PID-srcprops-.service.d
	dir := filepath.Join(e.runtimeDir, name+".d")
	files := map[string]string{
		name: "[Unit]\nDescription=sdbus conformance\n[Service]\nExecStart=/bin/sleep 300\nEnvironment=A=1\n" +
			"[Install]\nWantedBy=multi-user.target\n",
		filepath.Join(name+".d", "20-b.conf"): "[Unit]\nDescription=from a drop-in\n[Service]\nEnvironment=B=2\n",
		filepath.Join(name+".d", "10-a.conf"): "Environment=IGNORED=outside-a-section\n[Service]\nEnvironment=C=3\n",
		filepath.Join(name+".d", "README"):    "[Service]\nEnvironment=NOT=a-conf-file\n",
		filepath.Join(prefix, "15-p.conf"):    "[Service]\nEnvironment=P=prefix\n",
		static:                                "[Service]\nExecStart=/bin/sleep 300\n",
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.RemoveAll(filepath.Join(e.runtimeDir, prefix))
		os.Remove(filepath.Join(e.runtimeDir, name))
		os.Remove(filepath.Join(e.runtimeDir, static))
		_, _ = e.c.DisableUnitFiles(e.ctx, []string{name}, sdbus.UnitFileRuntime)
		_ = e.c.Reload(e.ctx)
	})
	for f, text := range files {
		p := filepath.Join(e.runtimeDir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	cleanup(t, e, name)
	cleanup(t, e, static)
	for _, n := range []string{name, static} {
		j, err := e.c.StartUnit(e.ctx, n, sdbus.ModeReplace)
		if err != nil {
			t.Fatalf("StartUnit %s: %v", n, err)
		}
		wait(t, e, j, sdbus.JobDone)
	}
	const unitIface, svc = "org.freedesktop.systemd1.Unit", "org.freedesktop.systemd1.Service"
	type source struct {
		Description, FragmentPath, SourcePath, UnitFileState, UnitFilePreset string
		DropInPaths, Environment                                             []string
	}
	read := func(n string) source {
		t.Helper()
		// Only the drop-ins written here: a release may ship drop-ins
		// for every service (service.d/).
		var own []string
		for _, p := range unitProp(t, e, raw, n, unitIface, "DropInPaths").([]string) {
			if strings.HasPrefix(p, e.runtimeDir+"/") {
				own = append(own, p)
			}
		}
		return source{
			Description:    unitProp(t, e, raw, n, unitIface, "Description").(string),
			FragmentPath:   unitProp(t, e, raw, n, unitIface, "FragmentPath").(string),
			SourcePath:     unitProp(t, e, raw, n, unitIface, "SourcePath").(string),
			UnitFileState:  unitProp(t, e, raw, n, unitIface, "UnitFileState").(string),
			UnitFilePreset: unitProp(t, e, raw, n, unitIface, "UnitFilePreset").(string),
			DropInPaths:    own,
			Environment:    unitProp(t, e, raw, n, svc, "Environment").([]string),
		}
	}
	want := source{
		Description:    "from a drop-in",
		FragmentPath:   filepath.Join(e.runtimeDir, name),
		UnitFileState:  "disabled",
		UnitFilePreset: "enabled",
		DropInPaths: []string{filepath.Join(dir, "10-a.conf"), filepath.Join(e.runtimeDir, prefix, "15-p.conf"),
			filepath.Join(dir, "20-b.conf")},
		Environment: []string{"A=1", "C=3", "P=prefix", "B=2"},
	}
	if diff := cmp.Diff(want, read(name)); diff != "" {
		t.Errorf("a unit file with [Install] and drop-ins (-want +got):\n%s", diff)
	}
	wantStatic := source{Description: static, FragmentPath: filepath.Join(e.runtimeDir, static), UnitFileState: "static",
		UnitFilePreset: "enabled", Environment: []string{}}
	if diff := cmp.Diff(wantStatic, read(static)); diff != "" {
		t.Errorf("a unit file without [Install] (-want +got):\n%s", diff)
	}

	if _, _, err := e.c.EnableUnitFiles(e.ctx, []string{name}, sdbus.UnitFileRuntime); err != nil {
		t.Fatal(err)
	}
	if got := read(name).UnitFileState; got != "disabled" {
		t.Errorf("UnitFileState after enabling, before daemon-reload = %q, want disabled (as read before)", got)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	if got := read(name).UnitFileState; got != "enabled-runtime" {
		t.Errorf("UnitFileState after enabling and daemon-reload = %q, want enabled-runtime", got)
	}

	// A masked unit: its symlink to /dev/null, drop-ins listed and
	// applied before 257; on 247 /dev/null itself and no preset.
	masked := e.unit("srcmasked", "service")
	maskDropIn := filepath.Join(e.runtimeDir, masked+".d", "a.conf")
	if err := os.MkdirAll(filepath.Dir(maskDropIn), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(maskDropIn, []byte("[Service]\nEnvironment=M=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.c.UnmaskUnitFiles(e.ctx, []string{masked}, sdbus.UnitFileRuntime)
		os.RemoveAll(filepath.Dir(maskDropIn))
		_ = e.c.Reload(e.ctx)
	})
	if _, err := e.c.MaskUnitFiles(e.ctx, []string{masked}, sdbus.UnitFileRuntime); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	wantMasked := source{Description: masked, FragmentPath: filepath.Join(e.runtimeDir, masked), UnitFileState: "masked-runtime",
		UnitFilePreset: "enabled", DropInPaths: []string{maskDropIn}, Environment: []string{}}
	if !sdversions.Behaves(e.release, sdversions.MaskedUnitFragmentIsLink) {
		wantMasked.FragmentPath, wantMasked.UnitFilePreset = "/dev/null", ""
	}
	if sdversions.Behaves(e.release, sdversions.MaskedUnitNoDropIns) {
		wantMasked.DropInPaths = nil
	} else {
		wantMasked.Environment = []string{"M=1"}
	}
	if diff := cmp.Diff(wantMasked, read(masked)); diff != "" {
		t.Errorf("a masked unit (-want +got):\n%s", diff)
	}

	tr := e.unit("srctransient", "service")
	cleanup(t, e, tr)
	wait(t, e, start(t, e, e.c, tr, sleeper()), sdbus.JobDone)
	preset := "enabled"
	if sdversions.Behaves(e.release, sdversions.PresetOnlyUnitFiles) {
		preset = ""
	}
	got := []string{unitProp(t, e, raw, tr, unitIface, "UnitFileState").(string), unitProp(t, e, raw, tr, unitIface, "UnitFilePreset").(string)}
	if diff := cmp.Diff([]string{"transient", preset}, got); diff != "" {
		t.Errorf("a transient unit's UnitFileState, UnitFilePreset (-want +got):\n%s", diff)
	}
}

// testNeedDaemonReload: NeedDaemonReload of a unit loaded from a file
// says whether its file or drop-ins changed on disk since it was loaded
// (an edited file, a drop-in added or removed) until daemon-reload
// (systemctl status then warns to run it); before 257 a drop-in in a
// directory made since the unit was loaded goes unseen until systemd
// loads another unit, which builds its unit name map again.
func testNeedDaemonReload(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("needreload", "service")
	file := filepath.Join(e.runtimeDir, name)
	dropIn := filepath.Join(e.runtimeDir, name+".d", "a.conf")
	t.Cleanup(func() {
		os.RemoveAll(filepath.Dir(dropIn))
		os.Remove(file)
		_ = e.c.Reload(e.ctx)
	})
	later := time.Now()
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		// A modification time surely after the last one, whatever the
		// file system's resolution.
		later = later.Add(2 * time.Second)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	reload := func() {
		t.Helper()
		if err := e.c.Reload(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(file, "[Service]\nExecStart=/bin/sleep 300\n")
	reload()
	cleanup(t, e, name)
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	var got []string
	step := func(what string) {
		got = append(got, fmt.Sprintf("%s: %v", what, unitProp(t, e, raw, name, "org.freedesktop.systemd1.Unit", "NeedDaemonReload")))
	}
	step("loaded")
	write(file, "[Service]\nExecStart=/bin/sleep 300\n# edited\n")
	step("file edited")
	reload()
	step("reloaded")
	write(dropIn, "[Service]\nEnvironment=A=1\n")
	step("drop-in added")
	// Loading a unit that is not loaded builds the unit name map again
	// (a unit directory changed): the new NAME.d/ is seen.
	var path dbus.ObjectPath
	if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").Call("org.freedesktop.systemd1.Manager.LoadUnit", 0, e.unit("notloaded", "service")).Store(&path); err != nil {
		t.Fatal(err)
	}
	step("another unit loaded")
	reload()
	step("reloaded again")
	if err := os.Remove(dropIn); err != nil {
		t.Fatal(err)
	}
	step("drop-in removed")
	want := []string{"loaded: false", "file edited: true", "reloaded: false", "drop-in added: true",
		"another unit loaded: true", "reloaded again: false", "drop-in removed: true"}
	if !sdversions.Behaves(e.release, sdversions.DropInDirsSeenAtOnce) {
		want[3] = "drop-in added: false" // in a NAME.d/ made since the reload
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NeedDaemonReload (-want +got):\n%s", diff)
	}
}

// testSetPropertiesDropIns: each setting SetUnitProperties sets goes to a
// drop-in of its own, NAME.d/50-SETTING.conf (50-CPUQuota.conf for
// CPUQuotaPerSecUSec): a transient unit's in the transient directory,
// beside its file, whatever the runtime flag; a unit file's in
// system.control beside the configuration directory, or with runtime set
// beside the runtime one. DropInPaths lists each at once: before 257
// after the unit's others in the order written, NeedDaemonReload true
// while that is not the order a load lists them in (sorted by file name);
// from 257 in that order. A daemon-reload lists them so, and applies
// them: a setting set again writes its drop-in anew, and a runtime one is
// hidden by system.control's of the same name.
func testSetPropertiesDropIns(t *testing.T, e *env) {
	const unitIface = "org.freedesktop.systemd1.Unit"
	raw := e.rawBus(t)
	sorted := sdversions.Behaves(e.release, sdversions.ControlDropInsSorted)
	set := func(name string, runtime bool, p sdbus.Property) {
		t.Helper()
		if err := e.c.SetUnitProperties(e.ctx, name, runtime, p); err != nil {
			t.Fatalf("SetUnitProperties %s %s: %v", name, p.Name, err)
		}
	}
	check := func(when, name string, written, loadOrder []string) {
		t.Helper()
		want, wantReload := written, !slices.Equal(written, loadOrder)
		if sorted {
			want, wantReload = loadOrder, false
		}
		got := unitProp(t, e, raw, name, unitIface, "DropInPaths").([]string)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: DropInPaths of %s (-want +got):\n%s", when, name, diff)
		}
		if got := unitProp(t, e, raw, name, unitIface, "NeedDaemonReload").(bool); got != wantReload {
			t.Errorf("%s: NeedDaemonReload of %s = %v, want %v", when, name, got, wantReload)
		}
	}
	reload := func() {
		t.Helper()
		if err := e.c.Reload(e.ctx); err != nil {
			t.Fatal(err)
		}
	}

	tr := e.unit("dropinstr", "service")
	cleanup(t, e, tr)
	j, err := e.c.StartTransientUnit(e.ctx, tr, sdbus.ModeReplace, sleeper())
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	set(tr, false, sdbus.PropDescription("set later"))
	set(tr, true, sdbus.PropCPUWeight(100))
	set(tr, true, sdbus.PropRaw("CPUQuotaPerSecUSec", uint64(500000)))
	set(tr, true, sdbus.PropDescription("set again"))
	dir := unitProp(t, e, raw, tr, unitIface, "FragmentPath").(string) + ".d"
	in := func(dir string, settings ...string) []string {
		out := make([]string, len(settings))
		for i, s := range settings {
			out[i] = filepath.Join(dir, "50-"+s+".conf")
		}
		return out
	}
	check("transient, set", tr, in(dir, "Description", "CPUWeight", "CPUQuota"), in(dir, "CPUQuota", "CPUWeight", "Description"))
	reload()
	check("transient, after daemon-reload", tr, in(dir, "CPUQuota", "CPUWeight", "Description"), in(dir, "CPUQuota", "CPUWeight", "Description"))

	name := e.unit("dropinsfile", "service")
	file := filepath.Join(e.runtimeDir, name)
	persistent, runtime := filepath.Join(e.configDir+".control", name+".d"), filepath.Join(e.runtimeDir+".control", name+".d")
	t.Cleanup(func() {
		// systemd's drop-ins outlive the unit: gone with the test.
		os.RemoveAll(persistent)
		os.RemoveAll(runtime)
		os.Remove(file)
		_ = e.c.Reload(e.ctx)
	})
	if err := os.WriteFile(file, []byte("[Service]\nExecStart=/bin/sleep 300\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reload()
	cleanup(t, e, name)
	if j, err = e.c.StartUnit(e.ctx, name, sdbus.ModeReplace); err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	set(name, true, sdbus.PropDescription("set at runtime"))
	set(name, false, sdbus.PropCPUWeight(100))
	desc, weight := in(runtime, "Description")[0], in(persistent, "CPUWeight")[0]
	check("unit file, set", name, []string{desc, weight}, []string{weight, desc})
	reload()
	check("unit file, after daemon-reload", name, []string{weight, desc}, []string{weight, desc})

	// Each call writes its setting's drop-in anew; a runtime one of the
	// same name as a persistent one is hidden by it at the next load.
	set(name, false, sdbus.PropCPUWeight(200))
	set(name, true, sdbus.PropCPUWeight(300))
	if got := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "CPUWeight").(uint64); got != 300 {
		t.Errorf("CPUWeight once set = %d, want 300", got)
	}
	reload()
	if got := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "CPUWeight").(uint64); got != 200 {
		t.Errorf("CPUWeight after daemon-reload = %d, want 200 (system.control's drop-in hides the runtime one)", got)
	}
}
