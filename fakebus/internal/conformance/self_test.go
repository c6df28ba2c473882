package conformance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// selfChildEnv makes the test binary a client that reads
// /org/freedesktop/systemd1/unit/self (selfChild) instead of running
// tests; its value is the bus address.
const selfChildEnv = "SDBUS_CONFORMANCE_SELF_CHILD"

// selfForkEnv makes a selfChild start another one as its child and
// report that one's answer too.
const selfForkEnv = "SDBUS_CONFORMANCE_SELF_FORK"

// selfPID0Env makes a selfChild print, instead of unit/self's Id, the
// unit GetUnitByPID(0) answers.
const selfPID0Env = "SDBUS_CONFORMANCE_SELF_PID0"

const unitSelf = dbus.ObjectPath("/org/freedesktop/systemd1/unit/self")

// selfChild waits for a line on stdin (its parent has put it into a unit
// by then), then prints "self: " and the Id of unit/self as it sees it
// (or the error's name), and, with selfForkEnv, a "child: " line from a
// process it forked.
func selfChild() int {
	addr := os.Getenv(selfChildEnv)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	conn, err := dbus.Dial(addr)
	if err == nil {
		err = conn.Auth(nil)
	}
	if err == nil {
		err = conn.Hello()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer conn.Close()
	if os.Getenv(selfPID0Env) != "" {
		fmt.Println("self:", pid0Unit(conn))
	} else {
		fmt.Println("self:", selfID(conn))
	}
	if os.Getenv(selfForkEnv) == "" {
		return 0
	}
	cmd := reexec()
	cmd.Env = append(os.Environ(), selfForkEnv+"=")
	cmd.Stdin = strings.NewReader("\n")
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Print(strings.Replace(string(out), "self:", "child:", 1))
	return 0
}

// reexec returns a command that runs the test binary again, the way it
// was run: through the dynamic loader as scripts/conformance-systemd runs
// it on a release whose libc is older than the host's ("ld.so
// --library-path DIR conformance.test"; the kernel's command line still
// has the loader's arguments), else directly.
func reexec() *exec.Cmd {
	b, _ := os.ReadFile("/proc/self/cmdline")
	args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	for i, a := range args {
		if a == os.Args[0] {
			return exec.Command(args[0], args[1:i+1]...)
		}
	}
	return exec.Command(os.Args[0])
}

// selfID reads the Id of unit/self on conn: the unit's name, or the name
// of the error.
func selfID(conn *dbus.Conn) string {
	v, err := conn.Object("org.freedesktop.systemd1", unitSelf).GetProperty("org.freedesktop.systemd1.Unit.Id")
	var de dbus.Error
	switch {
	case err == nil:
		return fmt.Sprint(v.Value())
	case errors.As(err, &de):
		return de.Name
	}
	return err.Error()
}

// pid0Unit returns the unit GetUnitByPID(0) answers on conn: its name, or
// the error's name.
func pid0Unit(conn *dbus.Conn) string {
	var p dbus.ObjectPath
	err := conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").Call(
		"org.freedesktop.systemd1.Manager.GetUnitByPID", 0, uint32(0)).Store(&p)
	var de dbus.Error
	switch {
	case err == nil:
		name, err := sdbus.UnitNameFromPath(p)
		if err != nil {
			return err.Error()
		}
		return name
	case errors.As(err, &de):
		return de.Name
	}
	return err.Error()
}

// testUnitSelf: /org/freedesktop/systemd1/unit/self is the unit of the
// caller's PID, as GetUnitByPID finds it (UnknownObject when it has none);
// a process placed in a scope and a process it forks both see the scope
// (measured on 252: `systemd-run --scope busctl get-property ... unit/self
// ... Id` prints the scope; a process in the root control group gets
// UnknownObject).
func testUnitSelf(t *testing.T, e *env) {
	raw := e.rawBus(t)
	var p dbus.ObjectPath
	own := "org.freedesktop.DBus.Error.UnknownObject"
	if got := managerCall(t, e, raw, "GetUnitByPID", []any{&p}, uint32(os.Getpid())); got == "ok" {
		name, err := sdbus.UnitNameFromPath(p)
		if err != nil {
			t.Fatal(err)
		}
		own = name
	}
	if got := selfID(raw); got != own {
		t.Errorf("unit/self of the test = %s; want %s (GetUnitByPID of its PID)", got, own)
	}

	name := e.unit("self", "scope")
	want := fmt.Sprintf("self: %s\nchild: %s\n", name, name)
	if diff := cmp.Diff(want, childInScope(t, e, name)); diff != "" {
		t.Errorf("unit/self of a process in a scope and of its child (-want +got):\n%s", diff)
	}
}

// childInScope runs this test binary as the self child (selfChildEnv,
// selfForkEnv and the extra variables env) in a new scope name, lets it
// ask once it is in the scope, and returns what it printed.
func childInScope(t *testing.T, e *env, name string, env ...string) string {
	t.Helper()
	cleanup(t, e, name)
	cmd := reexec()
	cmd.Env = append(append(os.Environ(), selfChildEnv+"="+e.busAddress(t), selfForkEnv+"=1"), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	t.Cleanup(func() {
		if !done {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	wait(t, e, start(t, e, e.c, name, scope(uint32(cmd.Process.Pid))), sdbus.JobDone)
	_, err = io.WriteString(stdin, "\n")
	if werr := cmd.Wait(); err == nil {
		err = werr
	}
	done = true
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	return out.String()
}

// testGetUnitByPIDZero: GetUnitByPID(0) answers the caller's unit, the
// PID of its bus credentials resolved as GetUnitByPID resolves a PID
// (systemd's method_get_unit_by_pid; measured on 252: `systemd-run
// --scope busctl call ... GetUnitByPID u 0` prints the scope's path); a
// caller in no unit gets NoUnitForPID naming its own PID.
func testGetUnitByPIDZero(t *testing.T, e *env) {
	raw := e.rawBus(t)
	var p0, p dbus.ObjectPath
	own := managerCall(t, e, raw, "GetUnitByPID", []any{&p}, uint32(os.Getpid()))
	if got := managerCall(t, e, raw, "GetUnitByPID", []any{&p0}, uint32(0)); got != own || p0 != p {
		t.Errorf("GetUnitByPID(0) of the test = %s %q; want %s %q (GetUnitByPID of its PID)", got, p0, own, p)
	}

	name := e.unit("pid0", "scope")
	want := fmt.Sprintf("self: %s\nchild: %s\n", name, name)
	if diff := cmp.Diff(want, childInScope(t, e, name, selfPID0Env+"=1")); diff != "" {
		t.Errorf("GetUnitByPID(0) of a process in a scope and of its child (-want +got):\n%s", diff)
	}
}
