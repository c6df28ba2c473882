package conformance

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// testDefaultTasksMax: the manager's DefaultTasksMax is 15% of the tasks
// the system allows, the smaller of kernel.threads-max and
// kernel.pid_max minus one (as a process beside the manager reads them:
// the sandbox's pid namespace has its own pid_max); a service that sets
// no TasksMax has it, a slice has infinity.
func testDefaultTasksMax(t *testing.T, e *env) {
	read := func(p string) uint64 {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	threads, pids := read("/proc/sys/kernel/threads-max"), read("/proc/sys/kernel/pid_max")
	want := min(threads, pids-1, 4194303) * 15 / 100
	raw := e.rawBus(t)
	var def uint64
	if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").StoreProperty("org.freedesktop.systemd1.Manager.DefaultTasksMax", &def); err != nil {
		t.Fatal(err)
	}
	if def != want {
		t.Errorf("DefaultTasksMax = %d, want %d (15%% of threads-max %d, pid_max %d - 1)", def, want, threads, pids)
	}
	svc, slice := e.unit("tasksmax", "service"), e.unit("tasksmax", "slice")
	cleanup(t, e, svc)
	cleanup(t, e, slice)
	wait(t, e, start(t, e, e.c, slice, sliceProps()), sdbus.JobDone)
	wait(t, e, start(t, e, e.c, svc, sleeper(sdbus.PropSlice(slice))), sdbus.JobDone)
	got := []any{unitProp(t, e, raw, svc, "org.freedesktop.systemd1.Service", "TasksMax"), unitProp(t, e, raw, slice, "org.freedesktop.systemd1.Slice", "TasksMax")}
	if diff := cmp.Diff([]any{def, uint64(1<<64 - 1)}, got); diff != "" {
		t.Errorf("TasksMax of a service and of a slice that set none (-want +got):\n%s", diff)
	}
}
