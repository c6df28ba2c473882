package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	bin := filepath.Join(t.TempDir(), "cgroupmanager")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The program against fakebus's bus socket, found through
// $DBUS_SYSTEM_BUS_ADDRESS as on a real system.
func TestRun(t *testing.T) {
	s := fakebus.New(t)
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	// The container's process: the fake, like systemd, places only a PID
	// a process has.
	ctr := exec.Command("sleep", "60")
	if err := ctr.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctr.Process.Kill(); _ = ctr.Wait() })
	pid := strconv.Itoa(ctr.Process.Pid)
	cmd := exec.Command(build(t), "-id", "t1", "-pid", pid, "-memory", "256M", "-cpus", "0.5")
	cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+addr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := `Apply: created cgroupmanager-t1.scope in system.slice (cgroup /system.slice/cgroupmanager-t1.scope), PID ` + pid + `
  MemoryMax=268435456 TasksMax=100 CPUQuotaPerSecUSec=500000
Set: MemoryMax=536870912
Destroy: cgroupmanager-t1.scope stopped and its name freed
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if _, loaded := s.Unit("cgroupmanager-t1.scope"); loaded {
		t.Error("the scope is still loaded")
	}
}

func TestApplyDestroy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := fakebus.New(t, fakebus.WithMadeUpPIDs())
	c := s.Conn(t)
	m := &Manager{Conn: c, Slice: "kubepods.slice", Unit: "crio-abc.scope"}
	r := Resources{MemoryMax: 1 << 30, CPUQuota: 150000, CPUPeriod: 100000, PidsMax: 50, CPUs: "0"}
	if out, err := m.Apply(ctx, 100, r); out != sdbus.Created || err != nil {
		t.Fatalf("Apply = %v, %v", out, err)
	}
	sp, err := c.ScopeProperties(ctx, m.Unit)
	if err != nil {
		t.Fatal(err)
	}
	if sp.CPUQuotaPerSecUSec.Value != 1500000 || sp.CPUQuotaPeriodUSec.Value != 100000 || sp.AllowedCPUs.String() != "0" || !sp.Delegate {
		t.Errorf("ScopeProperties = %+v", sp)
	}
	// A second container with the same name while the first lives: refused.
	if _, err := m.Apply(ctx, 101, r); !errors.Is(err, sdbus.ErrUnitExists) {
		t.Errorf("Apply over a live scope = %v, want ErrUnitExists", err)
	}
	// The pod slice: applying it again is fine.
	pod := &Manager{Conn: c, Slice: "kubepods.slice", Unit: "kubepods-pod1.slice"}
	for _, want := range []sdbus.Outcome{sdbus.Created, sdbus.Existed} {
		if out, err := pod.Apply(ctx, -1, Resources{MemoryMax: 2 << 30}); out != want || err != nil {
			t.Fatalf("Apply(slice) = %v, %v; want %v", out, err, want)
		}
	}
	if err := m.Set(ctx, Resources{MemoryMax: 3 << 30}); err != nil {
		t.Fatal(err)
	}
	if sp, _ := c.ScopeProperties(ctx, m.Unit); sp.MemoryMax.Value != 3<<30 {
		t.Errorf("MemoryMax after Set = %v", sp.MemoryMax)
	}
	for i := 0; i < 2; i++ {
		if err := m.Destroy(ctx); err != nil {
			t.Fatalf("Destroy #%d = %v", i, err)
		}
	}
	if _, ok := s.Unit(m.Unit); ok {
		t.Error("the scope is still loaded")
	}
	// A scope that failed (its container was OOM-killed) lingers; the next
	// Apply resets it and goes ahead.
	if err := s.Script("crio-oom.scope", fakebus.Script{Result: sdbus.JobFailed, UnitResult: "oom-kill"}); err != nil {
		t.Fatal(err)
	}
	oom := &Manager{Conn: c, Slice: "system.slice", Unit: "crio-oom.scope"}
	_, err = oom.Apply(ctx, 200, Resources{})
	if !errors.Is(err, sdbus.ErrJobFailed) || !strings.Contains(err.Error(), "failed") {
		t.Fatalf("Apply of a failing scope = %v", err)
	}
	s.ClearScripts()
	if out, err := oom.Apply(ctx, 201, Resources{}); out != sdbus.Created || err != nil {
		t.Fatalf("Apply after a failure = %v, %v", out, err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{"4096": 4096, "1K": 1024, "512M": 512 << 20, "2G": 2 << 30} {
		if got, err := parseBytes(in); got != want || err != nil {
			t.Errorf("parseBytes(%q) = %d, %v", in, got, err)
		}
	}
	if _, err := parseBytes("lots"); err == nil {
		t.Error("parseBytes(lots) succeeded")
	}
}
