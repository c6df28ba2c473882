package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The program, built as a user builds it, finds the fake through
// DBUS_SESSION_BUS_ADDRESS as it finds a user bus. The fake plays a system
// manager (its ControlGroup is "", its scopes go to system.slice), so no
// system manager is consulted above it; README's rootless section runs the
// program against a real user manager as an unprivileged user.
func TestRootless(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := c.SetUnitProperties(ctx, "system.slice", true, sdbus.PropMemoryMax(1<<30), sdbus.PropTasksMax(500)); err != nil {
		t.Fatal(err)
	}
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "rootless")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-unit", "ctr1.scope")
	cmd.Env = append(cmd.Environ(), "DBUS_SESSION_BUS_ADDRESS="+addr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := fmt.Sprintf(`connected to the manager in "" as uid %d
ctr1.scope created in system.slice
MemoryMax: 1073741824, set by system.slice
TasksMax: 500, set by system.slice
`, os.Geteuid())
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if _, err := c.GetUnit(ctx, "ctr1.scope"); err == nil {
		t.Error("the scope outlived the program")
	}
}
