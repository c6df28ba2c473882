// Command limits prints the limits that really apply to a unit: under
// systemd and cgroup v2 a container's leaf scope reads "max" while its pod
// slice holds the limit (gVisor #9580):
//
//	go run ./examples/limits                       # fakebus: a pod slice with a container scope
//	go run ./examples/limits -bus system user-1000.slice
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/examples/internal/exampleconn"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "limits:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	var conn exampleconn.Flags
	conn.Register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, fake, closeConn, err := conn.Connect(ctx)
	if err != nil {
		return err
	}
	defer closeConn()
	unit := fs.Arg(0)
	if fake != nil && unit == "" {
		if unit, err = demo(ctx, c); err != nil {
			return err
		}
	}
	if unit == "" {
		return errors.New("usage: limits [flags] UNIT")
	}
	lim, err := c.EffectiveLimits(ctx, unit)
	if err != nil {
		return err
	}
	how := "walked the slices"
	if lim.FromManager {
		how = "from the manager's Effective* properties"
	}
	fmt.Fprintf(w, "%s (chain: %v; memory and tasks %s)\n", unit, lim.Chain, how)
	for _, l := range []struct {
		name string
		e    sdbus.EffectiveLimit
		unit string
	}{
		{"MemoryMax", lim.MemoryMax, "bytes"},
		{"MemoryHigh", lim.MemoryHigh, "bytes"},
		{"TasksMax", lim.TasksMax, "tasks"},
		{"CPUQuota", lim.CPUQuotaPerSecUSec, "µs/s"},
	} {
		source := "nothing limits it"
		if l.e.Source != "" {
			source = "set by " + l.e.Source
		}
		value := l.e.String()
		if !l.e.Unlimited {
			value += " " + l.unit
			if l.name == "CPUQuota" {
				value += fmt.Sprintf(" (%.2f CPUs)", float64(l.e.Value)/1e6)
			}
		}
		fmt.Fprintf(w, "  %-10s %-32s %s\n", l.name, value, source)
	}
	return nil
}

// demo builds a pod the way kubelet and a runtime do: limits on the pod
// slice, none on the container's scope.
func demo(ctx context.Context, c *sdbus.Conn) (string, error) {
	quota := sdbus.PropCPUQuota(100000, 100000)
	if _, err := c.EnsureTransientUnit(ctx, "kubepods-pod1.slice", []sdbus.Property{
		sdbus.PropMemoryMax(512 << 20), quota, sdbus.PropTasksMax(1024),
	}, sdbus.EnsureOptions{Exists: sdbus.ExistsIgnore}); err != nil {
		return "", err
	}
	const ctr = "cri-containerd-abc.scope"
	_, err := c.EnsureTransientUnit(ctx, ctr, []sdbus.Property{
		sdbus.PropSlice("kubepods-pod1.slice"), sdbus.PropPIDs(uint32(os.Getpid())), sdbus.PropDelegate(true),
	}, sdbus.EnsureOptions{})
	return ctr, err
}
