package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testAttachProcesses pins systemd's checks of AttachProcessesToUnit, in
// its order: the sub-cgroup must be absolute and normalized, the unit
// delegated and active; PID 1 and a PID no process has are refused. Only
// a delegated, active unit takes processes; a process attached again is
// listed once; a process is listed with the sub-cgroup it is in.
func testAttachProcesses(t *testing.T, e *env) {
	plain, delegated := e.unit("attach-plain", "scope"), e.unit("attach-delegated", "scope")
	failed, slice := e.unit("attach-failed", "service"), e.unit("attach", "slice")
	for _, name := range []string{plain, delegated, failed, slice} {
		cleanup(t, e, name)
	}
	wait(t, e, start(t, e, e.c, plain, scope(child(t))), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, delegated, scope(child(t), sdbus.PropDelegate(true))), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, failed, append(oneshot("/bin/false"), sdbus.PropDelegate(true))), sdbus.JobFailed)
	wait(t, e, start(t, e, e.c, slice, sliceProps()), sdbus.JobDone)

	raw := e.rawBus(t)
	attach := func(unit, sub string, pids ...uint32) string {
		if pids == nil {
			pids = []uint32{}
		}
		err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
			"org.freedesktop.systemd1.Manager.AttachProcessesToUnit", 0, unit, sub, pids).Store()
		var de dbus.Error
		switch {
		case err == nil:
			return "ok"
		case errors.As(err, &de) && len(de.Body) == 1:
			return de.Name + ": " + de.Body[0].(string)
		}
		return err.Error()
	}
	const invalid = "org.freedesktop.DBus.Error.InvalidArgs: "
	const noProcess = 4194304 + 1 // above pid_max's largest value
	noSuchProcess := fmt.Sprintf("org.freedesktop.DBus.Error.UnixProcessIdUnknown: Process with ID %d does not exist.", noProcess)
	if sdversions.Behaves(e.release, sdversions.NoSuchProcessErrno) {
		noSuchProcess = "org.freedesktop.DBus.Error.UnixProcessIdUnknown: No such process"
	}
	for _, tc := range []struct {
		name, unit, sub string
		pids            []uint32
		want            string
	}{
		{"non-delegated scope", plain, "", []uint32{child(t)}, invalid + "Process migration not available on non-delegated units."},
		{"slice", slice, "", []uint32{child(t)}, invalid + "Process migration not available on non-delegated units."},
		{"relative sub-cgroup before delegation", plain, "sub", []uint32{child(t)}, invalid + "Control group path is not absolute: sub"},
		{"sub-cgroup with dot-dot", delegated, "/a/../b", []uint32{child(t)}, invalid + "Control group path is not normalized: /a/../b"},
		{"failed unit", failed, "", []uint32{child(t)}, invalid + "Unit is not active, refusing."},
		{"PID 1", delegated, "", []uint32{1}, invalid + "Process 1 is a manager process, refusing."},
		{"no such process", delegated, "", []uint32{noProcess}, noSuchProcess},
		{"not loaded", e.unit("attach-none", "scope"), "", []uint32{child(t)}, ""},
		{"delegated scope", delegated, "", []uint32{child(t)}, "ok"},
		{"missing sub-cgroup", delegated, "/sub", []uint32{child(t)}, "org.freedesktop.DBus.Error.FileNotFound: Failed to attach processes to control group: No such file or directory"},
		{"sub-cgroup", delegated, "/made", []uint32{child(t)}, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sub == "/made" {
				e.subcgroup(t, e, tc.unit, tc.sub)
			}
			want := tc.want
			if want == "" {
				want = "org.freedesktop.systemd1.NoSuchUnit: Unit " + tc.unit + " not loaded."
			}
			if diff := cmp.Diff(want, attach(tc.unit, tc.sub, tc.pids...)); diff != "" {
				t.Errorf("AttachProcessesToUnit(%s, %q, %v) (-want +got):\n%s", tc.unit, tc.sub, tc.pids, diff)
			}
		})
	}
	pid := child(t)
	if got := attach(delegated, "", pid); got != "ok" {
		t.Fatalf("AttachProcessesToUnit(%s, %d) = %s", delegated, pid, got)
	}
	if got, err := e.c.UnitByPID(e.ctx, pid); got != delegated || err != nil {
		t.Errorf("UnitByPID(%d) = %q, %v; want %s", pid, got, err, delegated)
	}
	// Attached again, twice, the process is still one of the unit's
	// processes, listed once.
	for i := 0; i < 2; i++ {
		if got := attach(delegated, "", pid); got != "ok" {
			t.Fatalf("AttachProcessesToUnit(%s, %d) again = %s", delegated, pid, got)
		}
	}
	var procs []struct {
		Cgroup string
		PID    uint32
		Cmd    string
	}
	if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
		"org.freedesktop.systemd1.Manager.GetUnitProcesses", 0, delegated).Store(&procs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range procs {
		if p.PID == pid {
			n++
		}
	}
	if n != 1 {
		t.Errorf("GetUnitProcesses(%s) after 3 attaches of %d lists it %d times, want once: %v", delegated, pid, n, procs)
	}

	// A process in a sub-cgroup is listed with that cgroup's path and its
	// command line; attached to the unit's own cgroup again, with the
	// unit's.
	v, err := e.c.UnitProperty(e.ctx, delegated, "Scope", "ControlGroup")
	if err != nil {
		t.Fatal(err)
	}
	cg, _ := v.Value().(string)
	row := func() string {
		t.Helper()
		procs = nil
		if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
			"org.freedesktop.systemd1.Manager.GetUnitProcesses", 0, delegated).Store(&procs); err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			if p.PID == pid {
				return strings.Replace(p.Cgroup, cg, "CG", 1) + " " + p.Cmd
			}
		}
		return "(not listed)"
	}
	for _, step := range []struct{ sub, want string }{
		{"/made", "CG/made /bin/sleep 600"},
		{"", "CG /bin/sleep 600"},
	} {
		if got := attach(delegated, step.sub, pid); got != "ok" {
			t.Fatalf("AttachProcessesToUnit(%s, %q, %d) = %s", delegated, step.sub, pid, got)
		}
		if got := row(); got != step.want {
			t.Errorf("GetUnitProcesses(%s) row of %d after attaching it to %q = %q, want %q", delegated, pid, step.sub, got, step.want)
		}
	}
}

// systemdSubcgroup creates sub below a scope's or service's control group in the
// sandbox's cgroup file system; systemd removes it with the unit.
func systemdSubcgroup(t *testing.T, e *env, unit, sub string) {
	iface := "org.freedesktop.systemd1.Scope"
	if strings.HasSuffix(unit, ".service") {
		iface = "org.freedesktop.systemd1.Service"
	}
	var cg string
	err := e.rawBus(t).Object("org.freedesktop.systemd1", sdbus.UnitPath(unit)).CallWithContext(e.ctx,
		"org.freedesktop.DBus.Properties.Get", 0, iface, "ControlGroup").Store(&cg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join("/sys/fs/cgroup", cg, sub), 0o755); err != nil {
		t.Fatal(err)
	}
}
