// Command limits prints the limits that really apply to a unit: under
// systemd and cgroup v2 a container's leaf scope reads "max" while its pod
// slice holds the limit (gVisor #9580):
//
//	limits [-address ADDRESS [-p2p] | -user] UNIT
//
// It talks to the system manager through the system bus
// ($DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket), to the
// user's manager with -user, or to the manager at -address (with -p2p, a
// peer-to-peer socket such as unix:path=/run/systemd/private).
//
//	go run ./examples/limits user-1000.slice
//	go run ./examples/limits -user app.slice
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
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "limits:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	address := fs.String("address", "", "the D-Bus address of the manager's bus (default: the system bus)")
	p2p := fs.Bool("p2p", false, "-address is a peer-to-peer socket such as unix:path=/run/systemd/private")
	user := fs.Bool("user", false, "the user's manager, through the user bus")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: limits [flags] UNIT")
	}
	unit := fs.Arg(0)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := connect(ctx, *address, *p2p, *user)
	if err != nil {
		return err
	}
	defer c.Close()
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
