// Command cgroupmanager is the Apply, Set and Destroy cycle of a container
// runtime's systemd cgroup driver (runc, containerd, cri-o), written with
// sdbus: the unit is created with an explicit policy for a leftover unit of
// the same name, limits are typed and checked before they are sent, and
// destroying frees the name even after a failure.
//
//	cgroupmanager [-address ADDRESS [-p2p] | -user] [-id ID] [-slice NAME]
//	              [-pid PID] [-memory SIZE] [-cpus N] [-pids N]
//
// It talks to the system manager through the system bus
// ($DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket), to the
// user's manager with -user, or to the manager at -address (with -p2p, a
// peer-to-peer socket such as unix:path=/run/systemd/private):
//
//	go run ./examples/cgroupmanager -id demo -memory 512M -cpus 1.5
//	go run ./examples/cgroupmanager -id demo -pid 1234
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sdbus-go/sdbus"
)

// Resources are the limits of a container, as an OCI runtime spec gives
// them. Zero values mean "no limit".
type Resources struct {
	MemoryMax uint64 // bytes
	CPUQuota  uint64 // µs per CPUPeriod
	CPUPeriod uint64 // µs; 0 means 100,000
	CPUWeight uint64 // 1-10000
	PidsMax   uint64
	CPUs      string // cpuset, e.g. "0-1"
}

// Manager manages the systemd unit of one container: a scope holding its
// processes in Slice, or, for a pod-level cgroup without processes, a
// slice.
type Manager struct {
	Conn  *sdbus.Conn
	Slice string // parent slice, e.g. "system.slice"
	Unit  string // "<runtime>-<id>.scope" or "<name>.slice"
}

// properties turns r into unit properties, leaving out what the manager
// does not support instead of failing the whole unit.
func (m *Manager) properties(ctx context.Context, r Resources) ([]sdbus.Property, error) {
	var props []sdbus.Property
	if r.MemoryMax > 0 {
		props = append(props, sdbus.PropMemoryMax(r.MemoryMax))
	}
	if r.PidsMax > 0 {
		props = append(props, sdbus.PropTasksMax(r.PidsMax))
	}
	if r.CPUWeight > 0 {
		props = append(props, sdbus.PropCPUWeight(r.CPUWeight))
	}
	if r.CPUQuota > 0 {
		period := r.CPUPeriod
		if period == 0 {
			period = 100000
		}
		quota := sdbus.PropCPUQuota(r.CPUQuota, period)
		props = append(props, quota)
		if ok, err := m.Conn.Supports(ctx, sdbus.FeatureCPUQuotaPeriod); err != nil {
			return nil, err
		} else if ok && r.CPUPeriod != 0 {
			props = append(props, sdbus.PropCPUQuotaPeriod(period))
		}
	}
	if r.CPUs != "" {
		if ok, err := m.Conn.Supports(ctx, sdbus.FeatureAllowedCPUs); err != nil {
			return nil, err
		} else if ok {
			props = append(props, sdbus.PropAllowedCPUs(r.CPUs))
		}
	}
	return props, sdbus.CheckProperties(props...)
}

// Apply creates the unit. A scope gets pid; a leftover failed scope of the
// same name (an OOM-killed container, runc #3780) is reset and created
// again, a live one is an error: the process must not end up outside its
// cgroup. A slice (pid -1) that exists already is fine, as kubelet needs.
func (m *Manager) Apply(ctx context.Context, pid int, r Resources) (sdbus.Outcome, error) {
	props, err := m.properties(ctx, r)
	if err != nil {
		return 0, err
	}
	props = append(props, sdbus.PropDescription("cgroupmanager example: "+m.Unit),
		sdbus.PropDefaultDependencies(false), sdbus.PropMemoryAccounting(true), sdbus.PropTasksAccounting(true),
		sdbus.PropCPUAccounting(true))
	opt := sdbus.EnsureOptions{Exists: sdbus.ExistsResetAndRetry}
	if pid == -1 {
		props = append(props, sdbus.PropWants(m.Slice))
		opt.Exists = sdbus.ExistsIgnore
	} else {
		props = append(props, sdbus.PropSlice(m.Slice), sdbus.PropDelegate(true), sdbus.PropPIDs(uint32(pid)))
	}
	return m.Conn.EnsureTransientUnit(ctx, m.Unit, props, opt)
}

// Set changes the limits of the running unit.
func (m *Manager) Set(ctx context.Context, r Resources) error {
	props, err := m.properties(ctx, r)
	if err != nil {
		return err
	}
	return m.Conn.SetUnitProperties(ctx, m.Unit, true, props...)
}

// Destroy stops the unit and frees its name; a unit that is gone already
// is fine.
func (m *Manager) Destroy(ctx context.Context) error { return m.Conn.DestroyUnit(ctx, m.Unit) }

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cgroupmanager:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("cgroupmanager", flag.ContinueOnError)
	address := fs.String("address", "", "the D-Bus address of the manager's bus (default: the system bus)")
	p2p := fs.Bool("p2p", false, "-address is a peer-to-peer socket such as unix:path=/run/systemd/private")
	user := fs.Bool("user", false, "the user's manager, through the user bus")
	id := fs.String("id", "demo", "container id")
	slice := fs.String("slice", "system.slice", "parent slice")
	pid := fs.Int("pid", 0, "process to place (0: start a sleep(1) for the demo)")
	memory := fs.String("memory", "512M", "memory limit (bytes, or with K, M, G)")
	cpus := fs.Float64("cpus", 1, "CPU limit in CPUs (0: none)")
	pids := fs.Uint64("pids", 100, "task limit (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := connect(ctx, *address, *p2p, *user)
	if err != nil {
		return err
	}
	defer c.Close()
	mem, err := parseBytes(*memory)
	if err != nil {
		return err
	}
	r := Resources{MemoryMax: mem, PidsMax: *pids}
	if *cpus > 0 {
		r.CPUQuota, r.CPUPeriod = uint64(*cpus*100000), 100000
	}
	if *pid == 0 {
		cmd := exec.Command("/bin/sleep", "30")
		if err := cmd.Start(); err != nil {
			return err
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		*pid = cmd.Process.Pid
	}
	m := &Manager{Conn: c, Slice: *slice, Unit: "cgroupmanager-" + *id + ".scope"}
	out, err := m.Apply(ctx, *pid, r)
	if err != nil {
		return err
	}
	sp, err := c.ScopeProperties(ctx, m.Unit)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Apply: %s %s in %s (cgroup %s), PID %d\n", out, m.Unit, sp.Slice, sp.ControlGroup, *pid)
	fmt.Fprintf(w, "  MemoryMax=%s TasksMax=%s CPUQuotaPerSecUSec=%s\n", sp.MemoryMax, sp.TasksMax, sp.CPUQuotaPerSecUSec)
	r.MemoryMax *= 2
	if err := m.Set(ctx, r); err != nil {
		return err
	}
	if sp, err = c.ScopeProperties(ctx, m.Unit); err != nil {
		return err
	}
	fmt.Fprintf(w, "Set: MemoryMax=%s\n", sp.MemoryMax)
	if err := m.Destroy(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "Destroy: %s stopped and its name freed\n", m.Unit)
	return nil
}

// connect connects to the manager the flags name: the one at address
// (peer-to-peer with p2p), the user's with user, else the system manager.
func connect(ctx context.Context, address string, p2p, user bool) (*sdbus.Conn, error) {
	switch {
	case address != "" && p2p:
		return sdbus.Connect(ctx, address, sdbus.WithPeerToPeer())
	case address != "":
		return sdbus.Connect(ctx, address)
	case user:
		return sdbus.ConnectUser(ctx) // $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus
	}
	return sdbus.ConnectSystem(ctx) // $DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket
}

// parseBytes parses "512M", "1G", "4096".
func parseBytes(s string) (uint64, error) {
	mult := uint64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
