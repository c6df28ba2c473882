package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Cases of a user manager only (systemd --user, on its private socket),
// run as root and as an unprivileged user (TestConformanceUserManager).

// testUserManagerCgroup: a user manager lives in
// /user.slice/user-UID.slice/user@UID.service of the system manager's tree,
// and a transient service without Slice= goes to app.slice below it, its
// FragmentPath in /run/user/UID/systemd/transient (247, 252, 257, 262).
func testUserManagerCgroup(t *testing.T, e *env) {
	mp, err := e.c.ManagerProperties(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	uid := os.Geteuid()
	want := fmt.Sprintf("/user.slice/user-%d.slice/user@%d.service", uid, uid)
	if mp.ControlGroup != want {
		t.Errorf("ControlGroup of the user manager = %q, want %q", mp.ControlGroup, want)
	}
	name := e.unit("app", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, []sdbus.Property{sdbus.PropDescription("sdbus conformance"),
		sdbus.PropExecStart([]string{"/bin/sleep", "600"}, false)}), sdbus.JobDone)
	sp, err := e.c.ServiceProperties(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Slice != "app.slice" || sp.ControlGroup != want+"/app.slice/"+name {
		t.Errorf("a transient service without Slice=: Slice %q, ControlGroup %q; want app.slice, %s", sp.Slice, sp.ControlGroup, want+"/app.slice/"+name)
	}
	// Its unit file is in the user's runtime directory, not /run/systemd.
	up, err := e.c.UnitProperties(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("/run/user/%d/systemd/transient/%s", uid, name); up.FragmentPath != want {
		t.Errorf("FragmentPath of a transient service = %q, want %q", up.FragmentPath, want)
	}
}

// testUserDelegatedScope: what a rootless container runtime does: its own
// process placed in a scope with Delegate=yes, whose cgroup directory the
// user then owns and may create sub-cgroups in.
func testUserDelegatedScope(t *testing.T, e *env) {
	pid := child(t)
	name := e.unit("delegated", "scope")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, []sdbus.Property{
		sdbus.PropDescription("sdbus conformance"), sdbus.PropPIDs(pid), sdbus.PropDelegate(true),
	}), sdbus.JobDone)
	if got, err := e.c.UnitByPID(e.ctx, pid); got != name || err != nil {
		t.Errorf("UnitByPID(%d) = %q, %v; want %s", pid, got, err, name)
	}
	up, err := e.c.ScopeProperties(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if up.Slice != "app.slice" {
		t.Errorf("Slice of a scope without Slice= = %q, want app.slice", up.Slice)
	}
	if want := fmt.Sprintf("/user.slice/user-%d.slice/user@%d.service/app.slice/%s", os.Geteuid(), os.Geteuid(), name); up.ControlGroup != want {
		t.Errorf("ControlGroup of the delegated scope = %q, want %q", up.ControlGroup, want)
	}
	// Delegate=yes delegates every controller the release knows (whether
	// or not the kernel has it: the sandbox's cgroup has none); a list
	// delegates the controllers named.
	if diff := cmp.Diff(delegateAll(e), up.DelegateControllers); !up.Delegate || diff != "" {
		t.Errorf("Delegate=yes: Delegate %v, DelegateControllers (-want +got):\n%s", up.Delegate, diff)
	}
	listed := e.unit("delegatedlist", "scope")
	cleanup(t, e, listed)
	wait(t, e, start(t, e, e.c, listed, []sdbus.Property{
		sdbus.PropDescription("sdbus conformance"), sdbus.PropPIDs(child(t)), sdbus.PropRaw("DelegateControllers", []string{"pids", "memory"}),
	}), sdbus.JobDone)
	lp, err := e.c.ScopeProperties(e.ctx, listed)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"memory", "pids"}, lp.DelegateControllers); !lp.Delegate || diff != "" {
		t.Errorf("DelegateControllers=pids memory: Delegate %v, DelegateControllers (-want +got):\n%s", lp.Delegate, diff)
	}
	if !e.real {
		return // the fake's control groups are not the kernel's
	}
	dir := filepath.Join("/sys/fs/cgroup", up.ControlGroup)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if owner := fi.Sys().(*syscall.Stat_t).Uid; int(owner) != os.Geteuid() {
		t.Errorf("the delegated scope's cgroup %s is owned by uid %d, want %d", dir, owner, os.Geteuid())
	}
	if err := os.Mkdir(filepath.Join(dir, "payload"), 0o755); err != nil {
		t.Errorf("sub-cgroup of the delegated scope: %v", err)
	}
}

// delegateAll is DelegateControllers after Delegate=yes: from 252 the
// cgroup-v2 controllers, on 247 its every controller
// (sdversions.DelegateV2Controllers).
func delegateAll(e *env) []string {
	if sdversions.Behaves(e.release, sdversions.DelegateV2Controllers) {
		return []string{"cpu", "cpuset", "io", "memory", "pids"}
	}
	return []string{"cpu", "cpuacct", "cpuset", "io", "blkio", "memory", "devices", "pids", "bpf-firewall", "bpf-devices"}
}

// testUserManagerRefusesPIDs: a user manager refuses to place PID 1 ("a
// manager process", InvalidArgs) and a PID that does not exist
// (org.freedesktop.DBus.Error.UnixProcessIdUnknown: NoSuchProcess), whose
// GetUnitByPID answers NoUnitForPID. An unprivileged user's manager takes a
// scope with another user's process and fails to start it.
func testUserManagerRefusesPIDs(t *testing.T, e *env) {
	const none = 4194304 + 1 // above pid_max's largest value
	refused := func(pid uint32, want error, msg string) {
		t.Helper()
		name := e.unit("refused", "scope")
		cleanup(t, e, name)
		_, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeFail, []sdbus.Property{
			sdbus.PropDescription("sdbus conformance"), sdbus.PropPIDs(pid),
		})
		var se *sdbus.Error
		if !errors.Is(err, want) || !errors.As(err, &se) || msg != "" && se.Message != msg {
			t.Errorf("a scope with PID %d on uid %d's manager: %v, want %v (%q)", pid, os.Geteuid(), err, want, msg)
		}
	}
	refused(1, sdbus.ErrInvalidArgs, "Process 1 is a manager process, refusing.")
	msg := fmt.Sprintf("Process with ID %d does not exist.", none)
	if sdversions.Behaves(e.release, sdversions.NoSuchProcessErrno) {
		msg = "Failed to set unit properties: No such process"
	}
	refused(none, sdbus.ErrNoSuchProcess, msg)
	if os.Geteuid() != 0 && e.real {
		// Accepted, but the process cannot be moved: the start job
		// fails, the scope with Result "resources" (247, 252, 257, 262).
		if pid := rootProcess(t); pid != 0 {
			name := e.unit("foreign", "scope")
			cleanup(t, e, name)
			wait(t, e, start(t, e, e.c, name, []sdbus.Property{
				sdbus.PropDescription("sdbus conformance"), sdbus.PropPIDs(pid),
			}), sdbus.JobFailed)
			if st := status(t, e, name); st.ActiveState != sdbus.StateFailed || st.Result != "resources" {
				t.Errorf("a scope with root's PID %d on uid %d's manager: %+v, want failed with Result resources", pid, os.Geteuid(), st)
			}
		}
	}
	if _, err := e.c.UnitByPID(e.ctx, none); !errors.Is(err, sdbus.ErrNoUnitForPID) {
		t.Errorf("UnitByPID(%d) = %v, want ErrNoUnitForPID", none, err)
	}
}

// rootProcess returns a process of root's other than PID 1, 0 if none.
func rootProcess(t *testing.T) uint32 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range ents {
		var pid uint32
		if _, err := fmt.Sscan(ent.Name(), &pid); err != nil || pid <= 1 {
			continue
		}
		fi, err := os.Stat(filepath.Join("/proc", ent.Name()))
		if err == nil && fi.Sys().(*syscall.Stat_t).Uid == 0 {
			return pid
		}
	}
	return 0
}

// testUserConnect: how a rootless tool connects. ConnectUser with
// WithPeerToPeer reaches the user manager on
// $XDG_RUNTIME_DIR/systemd/private; a uid without a runtime directory is
// ErrUnreachable; an unprivileged caller on systemd's private socket is
// refused (the socket is root's: ErrAccessDenied, or ErrAuthRejected where
// systemd closes the connection).
func testUserConnect(t *testing.T, e *env) {
	c, err := sdbus.ConnectUser(e.ctx, sdbus.WithPeerToPeer())
	if err != nil {
		t.Fatalf("ConnectUser(WithPeerToPeer) with XDG_RUNTIME_DIR=%s: %v", os.Getenv("XDG_RUNTIME_DIR"), err)
	}
	defer c.Close()
	mp, err := c.ManagerProperties(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("/user.slice/user-%d.slice/user@%d.service", os.Geteuid(), os.Geteuid()); mp.ControlGroup != want {
		t.Errorf("ConnectUser reached the manager in %q, want %q", mp.ControlGroup, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if _, err := sdbus.ConnectUser(e.ctx, sdbus.WithPeerToPeer(), sdbus.WithUID(4242)); !errors.Is(err, sdbus.ErrUnreachable) {
		t.Errorf("ConnectUser for uid 4242, which has no runtime directory: %v, want ErrUnreachable", err)
	}
	if os.Geteuid() == 0 {
		return
	}
	pc, err := sdbus.ConnectPrivate(e.ctx)
	if err == nil {
		pc.Close()
		t.Fatal("ConnectPrivate as an unprivileged user succeeded")
	}
	if !errors.Is(err, sdbus.ErrAccessDenied) && !errors.Is(err, sdbus.ErrAuthRejected) {
		t.Errorf("ConnectPrivate as uid %d: %v, want ErrAccessDenied or ErrAuthRejected", os.Geteuid(), err)
	}
	t.Logf("ConnectPrivate as uid %d: %v", os.Geteuid(), err)
}

// userSliceLimits are the limits the system manager puts on the slice of
// the user the suite runs as: the case sets them as root, and
// scripts/conformance-systemd sets them on the unprivileged user's slice.
var userSliceLimits = struct{ memoryMax, tasksMax uint64 }{1 << 30, 500}

// testEffectiveLimitsAcrossManagers: the limits the system manager puts on
// user-UID.slice apply to every unit of that user's manager, which does not
// see them itself; EffectiveLimits of a user manager's unit finds them
// through the system manager, with WithSystemManager or (on systemd) on a
// system bus connection of its own. The fake plays the system manager with
// a second fakebus holding user@UID.service.
func testEffectiveLimitsAcrossManagers(t *testing.T, e *env) {
	uid := os.Geteuid()
	userSlice := fmt.Sprintf("user-%d.slice", uid)
	sys := e.systemManager(t)
	if uid == 0 || !e.real {
		if err := sys.SetUnitProperties(e.ctx, userSlice, true, sdbus.PropMemoryMax(userSliceLimits.memoryMax),
			sdbus.PropTasksMax(userSliceLimits.tasksMax)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = sys.SetUnitProperties(e.ctx, userSlice, true, sdbus.PropMemoryMax(sdbus.Infinity), sdbus.PropTasksMax(sdbus.Infinity))
		})
	}
	name := e.unit("limited", "scope")
	cleanup(t, e, name)
	if _, err := e.c.EnsureTransientUnit(e.ctx, name, scope(child(t)), sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	own := fmt.Sprintf("user@%d.service", uid)
	withSys, err := sdbus.Connect(e.ctx, e.privateAddress(t), sdbus.WithPeerToPeer(), sdbus.WithSystemManager(sys))
	if err != nil {
		t.Fatal(err)
	}
	defer withSys.Close()
	rows := []struct {
		name string
		c    *sdbus.Conn
	}{{"WithSystemManager", withSys}}
	if e.real {
		rows = append(rows, struct {
			name string
			c    *sdbus.Conn
		}{"own system connection", e.c})
	}
	for _, tc := range rows {
		got, err := tc.c.EffectiveLimits(e.ctx, name)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff([]string{own, userSlice, "user.slice", "-.slice"}, got.SystemChain); diff != "" {
			t.Errorf("%s: SystemChain (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff([]string{name, "app.slice", "-.slice"}, got.Chain); diff != "" {
			t.Errorf("%s: Chain (-want +got):\n%s", tc.name, diff)
		}
		wantMem := sdbus.EffectiveLimit{Limit: sdbus.Limit{Value: userSliceLimits.memoryMax}, Source: userSlice, System: true}
		if got.MemoryMax != wantMem {
			t.Errorf("%s: MemoryMax = %+v, want %+v", tc.name, got.MemoryMax, wantMem)
		}
		wantTasks := sdbus.EffectiveLimit{Limit: sdbus.Limit{Value: userSliceLimits.tasksMax}, Source: userSlice, System: true}
		if got.TasksMax != wantTasks {
			t.Errorf("%s: TasksMax = %+v, want %+v", tc.name, got.TasksMax, wantTasks)
		}
	}
}
