package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

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
	bin := filepath.Join(t.TempDir(), "scoperun")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The program against fakebus's peer-to-peer socket (fakesystemd
// --private-socket), named with -address and -p2p: the command runs in its
// scope, its output and exit status come through, and the scope is gone
// after.
func TestScopeRun(t *testing.T) {
	s := fakebus.New(t)
	addr, err := s.PrivateAddress()
	if err != nil {
		t.Fatal(err)
	}
	bin := build(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-address", addr, "-p2p", "-unit", "run-test.scope", "-memory", "268435456", "-tasks", "8",
		"-cpus", "0.5", "--", "sh", "-c", "echo hello; exit 3")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("exit: %v, want status 3", err)
	}
	if stdout.String() != "hello\n" || stderr.String() != "Running as unit: run-test.scope\n" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if info, loaded := s.Unit("run-test.scope"); loaded {
		t.Errorf("the scope is still loaded: %+v", info)
	}
	out, err := exec.Command(bin, "-address", addr, "-p2p").CombinedOutput()
	if !errors.As(err, &exit) || exit.ExitCode() != 125 || string(out) != "scoperun: no command\n" {
		t.Errorf("no command: %v, %q", err, out)
	}
}
