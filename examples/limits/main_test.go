package main

import (
	"context"
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

// build compiles the program as a user does.
func build(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "limits")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// A pod as kubelet and a runtime build it, limits on the pod slice and
// none on the container's scope; the program, pointed at fakebus's bus
// socket with -address, finds the limits on the slice.
func TestLimits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := fakebus.New(t)
	c := s.Conn(t)
	if _, err := c.EnsureTransientUnit(ctx, "kubepods-pod1.slice", []sdbus.Property{
		sdbus.PropMemoryMax(512 << 20), sdbus.PropCPUQuotaPerSec(1000000), sdbus.PropTasksMax(1024),
	}, sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnsureTransientUnit(ctx, "cri-containerd-abc.scope", []sdbus.Property{
		sdbus.PropSlice("kubepods-pod1.slice"), sdbus.PropPIDs(uint32(os.Getpid())), sdbus.PropDelegate(true),
	}, sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(build(t), "-address", addr, "cri-containerd-abc.scope").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := `cri-containerd-abc.scope (chain: [cri-containerd-abc.scope kubepods-pod1.slice kubepods.slice -.slice]; memory and tasks walked the slices)
  MemoryMax  536870912 bytes                  set by kubepods-pod1.slice
  MemoryHigh infinity                         nothing limits it
  TasksMax   1024 tasks                       set by kubepods-pod1.slice
  CPUQuota   1000000 µs/s (1.00 CPUs)         set by kubepods-pod1.slice
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
