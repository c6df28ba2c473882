package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	bin := filepath.Join(t.TempDir(), "restart")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The program against fakebus's bus socket (the one fakesystemd --socket
// serves), found through $DBUS_SYSTEM_BUS_ADDRESS as on a real system.
func TestRestart(t *testing.T) {
	unit := func(name string, argv ...string) fakebus.Option {
		return fakebus.WithUnitFile(fakebus.UnitFile{Name: name, Properties: []sdbus.Property{
			sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropRemainAfterExit(true), sdbus.PropExecStart(argv, false),
		}})
	}
	s := fakebus.New(t, unit("app.service", "/bin/true"), unit("broken.service", "/bin/false"),
		unit("slow.service", "/bin/sleep", "30"))
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	bin := build(t)
	for _, tc := range []struct {
		args      []string
		out, fail string
	}{
		{[]string{"app.service"}, "app.service restarted (done)\n", ""},
		{[]string{"broken.service"}, "", "Job for broken.service failed because the control process exited with error code.\n" +
			`See "systemctl status broken.service" and "journalctl -xeu broken.service" for details.` + "\n"},
		{[]string{"-timeout", "50ms", "slow.service"}, "", "slow.service did not restart within 50ms; the job was canceled\n"},
		{[]string{"missing.service"}, "", "failed to restart missing.service: sdbus: RestartUnit missing.service: Unit missing.service not found. (org.freedesktop.systemd1.NoSuchUnit)\n"},
		{nil, "", "usage: restart [flags] UNIT\n"},
	} {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+addr)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if tc.fail != "" && !errors.As(err, &exit) || tc.fail == "" && err != nil {
			t.Errorf("%v: %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.fail, stderr.String()); diff != "" {
			t.Errorf("%v: stderr (-want +got):\n%s", tc.args, diff)
		}
		if diff := cmp.Diff(tc.out, stdout.String()); diff != "" {
			t.Errorf("%v: stdout (-want +got):\n%s", tc.args, diff)
		}
	}
	// -address names the bus on the command line instead.
	out, err := exec.Command(bin, "-address", addr, "app.service").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "app.service restarted (done)") {
		t.Errorf("-address: %v: %s", err, out)
	}
}
