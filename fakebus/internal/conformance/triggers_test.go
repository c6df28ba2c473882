package conformance

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// testUnitTypesFromFiles: sockets, timers, paths, mounts, automounts and
// swaps load from unit files with their type's settings, and a device
// needs no file. Loading a socket, timer, path unit or automount loads the
// unit it triggers (Triggers, TriggeredBy: a socket's service of its name,
// a timer's Unit=, an automount's mount; none for Accept=yes); started,
// each is active in its type's sub-state (listening, waiting, mounted);
// Listen, Paths, TimersMonotonic, Unit, FileDescriptorName, Where, What
// and Type show the file's settings, a mount's, swap's and device's
// Description its path. RequiresMountsFor holds the paths those settings
// name (a mount's and automount's: the directory of its Where), with
// After= -.mount; a unit in a slice Requires= and is After= it, and the
// slice lists it in RequiredBy. A device's, swap's and automount's
// start job ends unsupported and CanStart is false (no udev; a container,
// as the sandbox is). A file without
// what its type needs (a socket without Listen, a timer without a timer,
// a path unit without a path, a mount without What= or with a Where= not
// its name's) loads as bad-setting.
func testUnitTypesFromFiles(t *testing.T, e *env) {
	raw := e.rawBus(t)
	base := func(kind string) string { n := e.unit(kind, "x"); return n[:len(n)-2] }
	sock, timer, pathU := base("trsock")+".socket", base("trtimer")+".timer", base("trpath")+".path"
	sockSvc := strings.TrimSuffix(sock, ".socket") + ".service"
	timerSvc, pathSvc := base("trtimerunit")+".service", strings.TrimSuffix(pathU, ".path")+".service"
	accept := base("traccept") + ".socket"
	where := "/run/" + base("trmnt")
	mount := sdbus.EscapeUnitPath(where) + ".mount"
	autoWhere := "/run/" + base("trauto")
	automount, autoMount := sdbus.EscapeUnitPath(autoWhere)+".automount", sdbus.EscapeUnitPath(autoWhere)+".mount"
	swapWhat := "/run/" + base("trswap")
	swap := sdbus.EscapeUnitPath(swapWhat) + ".swap"
	devPath := "/dev/" + base("trdev")
	device := sdbus.EscapeUnitPath(devPath) + ".device"
	sockPath := "/run/" + base("trlisten") + ".sock"
	never := "/run/" + base("trnever") // a path that never exists: the path unit waits
	svc := "[Service]\nExecStart=/bin/sleep 300\n"
	bad := map[string]string{
		base("trbadsock") + ".socket":                               "[Socket]\nAccept=no\n",
		base("trbadtimer") + ".timer":                               "[Timer]\nPersistent=yes\n",
		base("trbadpath") + ".path":                                 "[Path]\nMakeDirectory=yes\n",
		sdbus.EscapeUnitPath("/run/"+base("trbadwhat")) + ".mount":  "[Mount]\nType=tmpfs\n",
		sdbus.EscapeUnitPath("/run/"+base("trbadwhere")) + ".mount": "[Mount]\nWhat=tmpfs\nWhere=/run/elsewhere\nType=tmpfs\n",
	}
	files := map[string]string{
		sock:      "[Socket]\nListenStream=" + sockPath + "\n",
		sockSvc:   svc,
		accept:    "[Socket]\nListenStream=" + sockPath + ".accept\nAccept=yes\n",
		timer:     "[Timer]\nOnActiveSec=1d\nUnit=" + timerSvc + "\n",
		timerSvc:  svc,
		pathU:     "[Path]\nPathExists=" + never + "\n",
		pathSvc:   svc,
		mount:     "[Mount]\nWhat=tmpfs\nWhere=" + where + "\nType=tmpfs\n",
		automount: "[Automount]\nWhere=" + autoWhere + "\n",
		autoMount: "[Mount]\nWhat=tmpfs\nWhere=" + autoWhere + "\nType=tmpfs\n",
		swap:      "[Swap]\nWhat=" + swapWhat + "\n",
	}
	for n, text := range bad {
		files[n] = text
	}
	t.Cleanup(func() {
		os.Remove(sockPath)
		os.Remove(sockPath + ".accept")
		os.Remove(where) // the mount point systemd made
	})
	writeUnitFiles(t, e, files)
	for _, n := range []string{sock, timer, pathU, mount} {
		cleanup(t, e, n)
		j, err := e.c.StartUnit(e.ctx, n, sdbus.ModeReplace)
		if err != nil {
			t.Fatalf("StartUnit %s: %v", n, err)
		}
		wait(t, e, j, sdbus.JobDone)
	}
	for _, n := range []string{accept, automount, swap, device} {
		if _, err := e.c.LoadUnit(e.ctx, n); err != nil {
			t.Fatalf("LoadUnit %s: %v", n, err)
		}
	}

	const unitIface = "org.freedesktop.systemd1.Unit"
	type shown struct {
		Load, Active, Sub, Description string
		Triggers, TriggeredBy          []string
	}
	show := func(n string) shown {
		return shown{
			Load:        unitProp(t, e, raw, n, unitIface, "LoadState").(string),
			Active:      unitProp(t, e, raw, n, unitIface, "ActiveState").(string),
			Sub:         unitProp(t, e, raw, n, unitIface, "SubState").(string),
			Description: unitProp(t, e, raw, n, unitIface, "Description").(string),
			Triggers:    unitProp(t, e, raw, n, unitIface, "Triggers").([]string),
			TriggeredBy: unitProp(t, e, raw, n, unitIface, "TriggeredBy").([]string),
		}
	}
	for _, tc := range []struct {
		unit string
		want shown
	}{
		{sock, shown{"loaded", "active", "listening", sock, []string{sockSvc}, []string{}}},
		{sockSvc, shown{"loaded", "inactive", "dead", sockSvc, []string{}, []string{sock}}},
		{accept, shown{"loaded", "inactive", "dead", accept, []string{}, []string{}}},
		{timer, shown{"loaded", "active", "waiting", timer, []string{timerSvc}, []string{}}},
		{timerSvc, shown{"loaded", "inactive", "dead", timerSvc, []string{}, []string{timer}}},
		{pathU, shown{"loaded", "active", "waiting", pathU, []string{pathSvc}, []string{}}},
		{pathSvc, shown{"loaded", "inactive", "dead", pathSvc, []string{}, []string{pathU}}},
		{mount, shown{"loaded", "active", "mounted", where, []string{}, []string{}}},
		{automount, shown{"loaded", "inactive", "dead", automount, []string{autoMount}, []string{}}},
		// The automount, inactive and loaded by LoadUnit only, has been
		// collected, and loading a mount does not load its automount.
		{autoMount, shown{"loaded", "inactive", "dead", autoWhere, []string{}, []string{}}},
		{swap, shown{"loaded", "inactive", "dead", swapWhat, []string{}, []string{}}},
		{device, shown{"loaded", "inactive", "dead", devPath, []string{}, []string{}}},
	} {
		if diff := cmp.Diff(tc.want, show(tc.unit)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.unit, diff)
		}
	}

	// The settings of the type sections, as the type's interface shows them.
	type entry struct{ A, B string }
	pairs := func(v any) []entry {
		var out []entry
		if err := dbus.Store([]any{v}, &out); err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		return out
	}
	prop := func(n, iface, p string) any { return unitProp(t, e, raw, n, "org.freedesktop.systemd1."+iface, p) }
	var timers []struct {
		Base        string
		Value, Next uint64
	}
	if err := dbus.Store([]any{prop(timer, "Timer", "TimersMonotonic")}, &timers); err != nil {
		t.Fatal(err)
	}
	type settings struct {
		Listen, Paths                          []entry
		FDName, TimerUnit, PathUnit            string
		TimerBase                              string
		TimerValue                             uint64
		Where, What, Type, AutoWhere, SwapWhat string
		CanStart                               [3]bool // the device's, the swap's, the automount's
	}
	got := settings{
		Listen: pairs(prop(sock, "Socket", "Listen")), Paths: pairs(prop(pathU, "Path", "Paths")),
		FDName: prop(sock, "Socket", "FileDescriptorName").(string), TimerUnit: prop(timer, "Timer", "Unit").(string),
		PathUnit: prop(pathU, "Path", "Unit").(string),
		Where:    prop(mount, "Mount", "Where").(string), What: prop(mount, "Mount", "What").(string),
		Type: prop(mount, "Mount", "Type").(string), AutoWhere: prop(automount, "Automount", "Where").(string),
		SwapWhat: prop(swap, "Swap", "What").(string),
		CanStart: [3]bool{
			unitProp(t, e, raw, device, unitIface, "CanStart").(bool), unitProp(t, e, raw, swap, unitIface, "CanStart").(bool),
			unitProp(t, e, raw, automount, unitIface, "CanStart").(bool),
		},
	}
	if len(timers) == 1 {
		got.TimerBase, got.TimerValue = timers[0].Base, timers[0].Value
	}
	want := settings{
		Listen: []entry{{"Stream", sockPath}}, Paths: []entry{{"PathExists", never}},
		FDName: sock, TimerUnit: timerSvc, PathUnit: pathSvc, TimerBase: "OnActiveUSec", TimerValue: 86400_000_000,
		Where: where, What: "tmpfs", Type: "tmpfs", AutoWhere: autoWhere, SwapWhat: swapWhat,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("type settings (-want +got):\n%s", diff)
	}

	// The paths a unit needs mounted, and the dependencies that come with
	// them and with its slice: After= -.mount, which holds every path
	// here; Requires= and After= its slice, which lists it back.
	for _, tc := range []struct {
		unit   string
		mounts []string
		slice  string
	}{
		{sock, []string{sockPath}, "system.slice"},
		{pathU, []string{never}, ""},
		{mount, []string{"/run"}, "system.slice"},
		{automount, []string{"/run"}, ""},
		{swap, []string{swapWhat}, "system.slice"},
		{timer, []string{}, ""},
	} {
		if diff := cmp.Diff(tc.mounts, unitProp(t, e, raw, tc.unit, unitIface, "RequiresMountsFor")); diff != "" {
			t.Errorf("%s RequiresMountsFor (-want +got):\n%s", tc.unit, diff)
		}
		after := unitProp(t, e, raw, tc.unit, unitIface, "After").([]string)
		if len(tc.mounts) > 0 && !slices.Contains(after, "-.mount") {
			t.Errorf("%s: After %q lacks -.mount", tc.unit, after)
		}
		if tc.slice == "" {
			continue
		}
		requires := unitProp(t, e, raw, tc.unit, unitIface, "Requires").([]string)
		if !slices.Contains(after, tc.slice) || !slices.Contains(requires, tc.slice) {
			t.Errorf("%s: After %q, Requires %q: want %s in both", tc.unit, after, requires, tc.slice)
		}
	}
	if by := unitProp(t, e, raw, "system.slice", unitIface, "RequiredBy").([]string); !slices.Contains(by, sock) || !slices.Contains(by, mount) {
		t.Errorf("system.slice: RequiredBy %q lacks %s or %s", by, sock, mount)
	}

	for n := range bad {
		if _, err := e.c.LoadUnit(e.ctx, n); err != nil {
			t.Fatalf("LoadUnit %s: %v", n, err)
		}
		if got := unitProp(t, e, raw, n, unitIface, "LoadState").(string); got != "bad-setting" {
			t.Errorf("%s: LoadState %s, want bad-setting", n, got)
		}
	}

	// A device's, a swap's and an automount's start job ends unsupported:
	// systemd supports device units only with udev, swaps and automounts
	// not in a container, and its sandbox is one; the fake plays it.
	for _, n := range []string{device, swap, automount} {
		j, err := e.c.StartUnit(e.ctx, n, sdbus.ModeReplace)
		if err != nil {
			t.Fatalf("StartUnit %s: %v", n, err)
		}
		wait(t, e, j, sdbus.JobUnsupported)
		if st := status(t, e, n); st.ActiveState != "inactive" {
			t.Errorf("%s: %s after its start, want inactive", n, st.ActiveState)
		}
	}

	for _, n := range []string{sock, timer, pathU, mount} {
		stop(t, e, e.c, n)
	}
	for _, n := range []string{sock, sockSvc, timer, timerSvc, pathU, pathSvc, mount} {
		unloaded(t, e, n)
	}
}

// writeUnitFiles writes unit files, by name, to the backend's runtime
// unit directory and reloads; at cleanup it removes them and reloads
// again.
func writeUnitFiles(t *testing.T, e *env, files map[string]string) {
	t.Helper()
	t.Cleanup(func() {
		for n := range files {
			os.Remove(filepath.Join(e.runtimeDir, n))
		}
		_ = e.c.Reload(e.ctx)
	})
	if err := os.MkdirAll(e.runtimeDir, 0o755); err != nil {
		t.Fatal(err) // a user manager's is made by the first file written
	}
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(e.runtimeDir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// testTransientTimer: a transient timer as systemd-run --on-active= makes
// it, with the service it triggers as an auxiliary unit. One an hour away
// waits, its next elapse set; one due at once starts its service, which
// runs its command, and is then elapsed (RemainAfterElapse=yes). A timer
// without a value to elapse on fails to load; one with WakeSystem=yes
// fails to start in a container (the sandbox).
func testTransientTimer(t *testing.T, e *env) {
	type mono struct {
		Base string
		Usec uint64
	}
	timer := func(what string, props ...sdbus.Property) (string, string, *sdbus.Job, error) {
		name := e.unit(what, "timer")
		svc := strings.TrimSuffix(name, ".timer") + ".service"
		cleanup(t, e, name)
		cleanup(t, e, svc)
		j, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, props,
			sdbus.AuxUnit{Name: svc, Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/true"}, false)}})
		return name, svc, j, err
	}
	later, _, j, err := timer("timerlater", sdbus.PropRaw("TimersMonotonic", []mono{{"OnActiveSec", 3600_000_000}}))
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	settle(t, e, later, "waiting", func(s sdbus.UnitState) bool { return s.SubState == "waiting" })
	v, err := e.c.UnitProperty(e.ctx, later, "Timer", "TimersMonotonic")
	if err != nil {
		t.Fatal(err)
	}
	var values []struct {
		Base        string
		Value, Next uint64
	}
	if err := dbus.Store([]any{v.Value()}, &values); err != nil || len(values) != 1 ||
		values[0].Base != "OnActiveUSec" || values[0].Value != 3600_000_000 || values[0].Next == 0 {
		t.Errorf("TimersMonotonic = %v (%v); want one OnActiveUSec of an hour with its next elapse", values, err)
	}
	// What systemctl list-timers shows: the next elapse it waits for
	// (its one value's; none on the calendar), no last trigger.
	timerProp := func(name, prop string) uint64 {
		t.Helper()
		v, err := e.c.UnitProperty(e.ctx, name, "Timer", prop)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := v.Value().(uint64)
		return n
	}
	if len(values) == 1 {
		if got := timerProp(later, "NextElapseUSecMonotonic"); got != values[0].Next {
			t.Errorf("NextElapseUSecMonotonic = %d; want its value's next elapse %d", got, values[0].Next)
		}
	}
	if got := timerProp(later, "NextElapseUSecRealtime"); got != 0 {
		t.Errorf("NextElapseUSecRealtime of a timer without calendar values = %d; want 0", got)
	}
	if got := timerProp(later, "LastTriggerUSec"); got != 0 {
		t.Errorf("LastTriggerUSec of a timer that never elapsed = %d; want 0", got)
	}

	now, svc, j, err := timer("timernow", sdbus.PropRaw("TimersMonotonic", []mono{{"OnActiveSec", 0}}))
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	settle(t, e, now, "elapsed", func(s sdbus.UnitState) bool { return s.SubState == "elapsed" })
	sp, err := e.c.ServiceProperties(e.ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	if sp.ExecMainCode != 1 || sp.ExecMainStatus != 0 || sp.ExecMainStartTimestamp.IsZero() {
		t.Errorf("the timer's service: ExecMain code %d status %d started %v; want it run and exited 0", sp.ExecMainCode, sp.ExecMainStatus, sp.ExecMainStartTimestamp)
	}
	// Elapsed: it waits for nothing (infinity, as for a timer that does
	// not wait), and it last started its unit no later than the service
	// started.
	for _, prop := range []string{"NextElapseUSecMonotonic", "NextElapseUSecRealtime"} {
		if got := timerProp(now, prop); got != math.MaxUint64 {
			t.Errorf("%s of an elapsed timer = %d; want infinity", prop, got)
		}
	}
	if got := timerProp(now, "LastTriggerUSec"); got == 0 || got > uint64(sp.ExecMainStartTimestamp.UnixMicro()) {
		t.Errorf("LastTriggerUSec = %d; want the trigger's time, before its service's start %d", got, sp.ExecMainStartTimestamp.UnixMicro())
	}

	if _, _, _, err := timer("timernone", sdbus.PropRaw("TimersMonotonic", []mono{})); !errors.Is(err, sdbus.ErrBadUnitSetting) {
		t.Errorf("a timer without values: %v; want ErrBadUnitSetting", err)
	}
	wake, _, j, err := timer("timerwake", sdbus.PropRaw("TimersMonotonic", []mono{{"OnActiveSec", 3600_000_000}}), sdbus.PropRaw("WakeSystem", true))
	if err != nil {
		t.Fatal(err)
	}
	if !e.real || e.release.Major != 262 {
		// 262 starts it on some boots of the sandbox.
		wait(t, e, j, sdbus.JobFailed)
		if st := settle(t, e, wake, "failed", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateFailed }); st.Result != "resources" {
			t.Errorf("a timer with WakeSystem=yes failed with %q, want resources", st.Result)
		}
	}
}

// testTimerOneTimeValuesAtReload: a waiting timer whose one-time values
// elapsed (they started its service when it started) is armed again at a
// daemon-reload with its last trigger kept. A value counted from the
// manager's start (OnBootSec=, in a container, and OnStartupSec=) that is
// past stays elapsed: the service does not start again. A value counted
// from the timer's own activation (OnActiveSec=0) counts from the reload,
// the timer not yet back in its state then, and starts the service again.
// Both wait beside a value an hour away.
func testTimerOneTimeValuesAtReload(t *testing.T, e *env) {
	type mono struct {
		Base string
		Usec uint64
	}
	timer := func(what string, first mono) (string, string) {
		name := e.unit(what, "timer")
		svc := strings.TrimSuffix(name, ".timer") + ".service"
		cleanup(t, e, name)
		cleanup(t, e, svc)
		j, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace,
			[]sdbus.Property{sdbus.PropRaw("TimersMonotonic", []mono{first, {"OnStartupSec", 3600_000_000}})},
			sdbus.AuxUnit{Name: svc, Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/true"}, false)}})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, e, j, sdbus.JobDone)
		return name, svc
	}
	// ran waits until svc ran a main process other than before's and
	// ended, and returns its PID.
	ran := func(svc string, before uint32) uint32 {
		t.Helper()
		var pid uint32
		settle(t, e, svc, "run by its timer", func(s sdbus.UnitState) bool {
			sp, err := e.c.ServiceProperties(e.ctx, svc)
			if err != nil {
				t.Fatal(err)
			}
			pid = sp.ExecMainPID
			return pid != 0 && pid != before && s.ActiveState == sdbus.StateInactive
		})
		return pid
	}
	boot, bootSvc := timer("timerboot", mono{"OnBootSec", 1})
	active, activeSvc := timer("timeractive", mono{"OnActiveSec", 0})
	bootPID := ran(bootSvc, 0)
	activePID := ran(activeSvc, 0)
	for _, name := range []string{boot, active} {
		settle(t, e, name, "waiting", func(s sdbus.UnitState) bool { return s.SubState == "waiting" })
	}

	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	// The OnActiveSec=0 timer's service runs again at the reload; the
	// other timer, armed in the same pass, would have started its
	// service by then.
	ran(activeSvc, activePID)
	settle(t, e, active, "waiting", func(s sdbus.UnitState) bool { return s.SubState == "waiting" })
	sp, err := e.c.ServiceProperties(e.ctx, bootSvc)
	if err != nil {
		t.Fatal(err)
	}
	if sp.ExecMainPID != bootPID {
		t.Errorf("OnBootSec=1us elapsed before a daemon-reload: its service ran again after it (main PID %d, before %d)", sp.ExecMainPID, bootPID)
	}
	if st := status(t, e, boot); st.SubState != "waiting" {
		t.Errorf("%s after the reload: %s; want waiting (OnStartupSec=1h)", boot, st.SubState)
	}
}

// testScopeRestart: a scope's processes are not systemd's to start
// again: RestartUnit of a running scope is JobTypeNotApplicable.
func testScopeRestart(t *testing.T, e *env) {
	name := e.unit("restart", "scope")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, []sdbus.Property{sdbus.PropPIDs(child(t))}), sdbus.JobDone)
	if _, err := e.c.RestartUnit(e.ctx, name, sdbus.ModeReplace); !errors.Is(err, sdbus.ErrJobTypeNotApplicable) {
		t.Errorf("RestartUnit of a running scope: %v; want ErrJobTypeNotApplicable", err)
	}
}
