package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// build compiles the program as a user does.
func build(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "watch")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The program, pointed at fakebus's bus socket through
// $DBUS_SYSTEM_BUS_ADDRESS, sees a running service stop, and ends there.
func TestWatch(t *testing.T) {
	// Built before the ctx starts: a go build on a loaded machine can take
	// most of a bound meant for the watch.
	bin := build(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{
		Name:       "web.service",
		Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)},
	}))
	c := s.Conn(t)
	job, err := c.StartUnit(ctx, "web.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "-until", "inactive", "web.service")
	cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+addr)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	first, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if first != "web.service: active/running result=success\n" {
		t.Errorf("first state %q", first)
	}
	// The watch is in place: stop the service.
	stop, err := c.StopUnit(ctx, "web.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stop.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("watch: %v; output:\n%s%s", err, first, rest)
	}
	if !strings.HasSuffix(string(rest), "web.service: inactive/dead result=success\n") {
		t.Errorf("the last state is not inactive without a job:\n%s%s", first, rest)
	}
}
