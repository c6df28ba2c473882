// Command watch prints a unit's state whenever it changes, driven by
// systemd's PropertiesChanged signals (no polling), until the unit's
// ActiveState is the one given with -until and no job is pending, or
// ctrl-C:
//
//	watch [-address ADDRESS [-p2p] | -user] [-until STATE] UNIT
//
// It talks to the system manager through the system bus
// ($DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket), to the
// user's manager with -user, or to the manager at -address (with -p2p, a
// peer-to-peer socket such as unix:path=/run/systemd/private).
//
//	go run ./examples/watch -until inactive nginx.service
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/sdbus-go/sdbus"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "watch:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	address := fs.String("address", "", "the D-Bus address of the manager's bus (default: the system bus)")
	p2p := fs.Bool("p2p", false, "-address is a peer-to-peer socket such as unix:path=/run/systemd/private")
	user := fs.Bool("user", false, "the user's manager, through the user bus")
	until := fs.String("until", "", "stop once ActiveState is this (e.g. inactive, failed) and no job is pending")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: watch [flags] UNIT")
	}
	unit := fs.Arg(0)
	c, err := connect(ctx, *address, *p2p, *user)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the watch
	states, err := c.WatchUnit(ctx, unit)
	if err != nil {
		return err
	}
	for st := range states {
		job := ""
		if st.JobID != 0 {
			job = fmt.Sprintf(" (job %d)", st.JobID)
		}
		fmt.Fprintf(w, "%s: %s/%s result=%s%s\n", unit, st.ActiveState, st.SubState, st.Result, job)
		if string(st.ActiveState) == *until && st.JobID == 0 {
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err // ctrl-C
	}
	return errors.New("the connection to the manager ended")
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
