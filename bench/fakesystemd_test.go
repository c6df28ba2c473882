package bench

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	gsd "github.com/coreos/go-systemd/v22/dbus"
)

// TestGoSystemdOnFakesystemd builds fakebus/cmd/fakesystemd, starts it, and
// drives it with an unmodified third-party client, go-systemd v22, through
// its own system-bus constructor: a transient scope is started and
// stopped, and both jobs end with "done". It proves that fakesystemd is
// usable by clients other than sdbus.
func TestGoSystemdOnFakesystemd(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakesystemd")
	build := exec.Command(goTool(), "build", "-o", bin, "github.com/sdbus-go/sdbus/fakebus/cmd/fakesystemd")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build fakesystemd: %v\n%s", err, out)
	}

	// The deadline only keeps a broken fake from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "--socket", filepath.Join(dir, "bus"), "--print-address")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	defer func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	addr := strings.TrimSpace(line)
	if !strings.HasPrefix(addr, "unix:path=") {
		t.Fatalf("fakesystemd printed %q, want unix:path=...", addr)
	}

	// go-systemd's own constructor for the system bus, pointed at the fake.
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", addr)
	conn, err := gsd.NewSystemConnectionContext(ctx)
	if err != nil {
		t.Fatalf("go-systemd: connect: %v", err)
	}
	defer conn.Close()

	const unit = "gosystemd-test.scope"
	props := []gsd.Property{
		gsd.PropDescription("go-systemd against fakesystemd"),
		gsd.PropPids(uint32(os.Getpid())),
	}
	ch := make(chan string, 1)
	id, err := conn.StartTransientUnitContext(ctx, unit, "replace", props, ch)
	if err != nil {
		t.Fatalf("StartTransientUnitContext: %v", err)
	}
	if id == 0 {
		t.Errorf("StartTransientUnitContext returned job id 0")
	}
	if got := result(ctx, t, ch); got != "done" {
		t.Fatalf("start job result %q, want done", got)
	}
	state, err := conn.GetUnitPropertyContext(ctx, unit, "ActiveState")
	if err != nil {
		t.Fatalf("GetUnitPropertyContext: %v", err)
	}
	if v, _ := state.Value.Value().(string); v != "active" {
		t.Errorf("ActiveState after start = %q, want active", v)
	}

	if _, err := conn.StopUnitContext(ctx, unit, "replace", ch); err != nil {
		t.Fatalf("StopUnitContext: %v", err)
	}
	if got := result(ctx, t, ch); got != "done" {
		t.Fatalf("stop job result %q, want done", got)
	}

	conn.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited = true
	if err := cmd.Wait(); err != nil {
		t.Errorf("fakesystemd after SIGTERM: %v", err)
	}
}

func result(ctx context.Context, t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		t.Fatal("no job result before the test's deadline")
		return ""
	}
}

// goTool returns $GOROOT/bin/go when GOROOT is set, else the go on PATH.
func goTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}
