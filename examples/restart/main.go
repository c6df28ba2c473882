// Command restart restarts a service, waits for it with a deadline, and
// explains a failure the way systemctl does (the unit's Result and a
// hint):
//
//	restart [-address ADDRESS [-p2p] | -user] [-timeout 5s] UNIT
//
// It talks to the system manager through the system bus
// ($DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket), to the
// user's manager with -user, or to the manager at -address (with -p2p, a
// peer-to-peer socket such as unix:path=/run/systemd/private):
//
//	go run ./examples/restart -timeout 30s nginx.service
//	DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/fs/bus go run ./examples/restart app.service # fakesystemd --socket /tmp/fs/bus
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
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
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

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("restart", flag.ContinueOnError)
	address := fs.String("address", "", "the D-Bus address of the manager's bus (default: the system bus)")
	p2p := fs.Bool("p2p", false, "-address is a peer-to-peer socket such as unix:path=/run/systemd/private")
	user := fs.Bool("user", false, "the user's manager, through the user bus")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the restart")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: restart [flags] UNIT")
	}
	unit := fs.Arg(0)
	c, err := connect(ctx, *address, *p2p, *user)
	if err != nil {
		return err
	}
	defer c.Close()
	job, err := c.RestartUnit(ctx, unit, sdbus.ModeReplace)
	if err != nil {
		return fmt.Errorf("failed to restart %s: %w", unit, err)
	}
	wctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	res, err := job.Wait(wctx)
	switch {
	case err == nil:
		fmt.Fprintf(w, "%s restarted (%s)\n", unit, res)
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		// Do not leave the restart running unnoticed.
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if cerr := job.Cancel(cctx); cerr != nil {
			return cerr
		}
		return fmt.Errorf("%s did not restart within %v; the job was canceled", unit, *timeout)
	}
	return explained(explain(ctx, c, err))
}

// explained is an error worded as systemctl words it.
type explained string

func (e explained) Error() string { return string(e) }

// explain words a failed job as systemctl does (systemctl-start-unit.c,
// bus-wait-for-jobs.c), reading the service's Result for the reason.
func explain(ctx context.Context, c *sdbus.Conn, err error) string {
	var je *sdbus.JobError
	if !errors.As(err, &je) {
		return err.Error()
	}
	u := je.Unit
	switch je.Result {
	case sdbus.JobCanceled:
		return fmt.Sprintf("Job for %s canceled.", u)
	case sdbus.JobTimeout:
		return fmt.Sprintf("Job for %s timed out.", u)
	case sdbus.JobDependency:
		return fmt.Sprintf("A dependency job for %s failed. See 'journalctl -xe' for details.", u)
	case sdbus.JobInvalid:
		return fmt.Sprintf("%s is not active, cannot reload.", u)
	case sdbus.JobAssert:
		return fmt.Sprintf("Assertion failed on job for %s.", u)
	case sdbus.JobUnsupported:
		return fmt.Sprintf("Operation on or unit type of %s not supported on this system.", u)
	case sdbus.JobCollected:
		return fmt.Sprintf("Queued job for %s was garbage collected.", u)
	case sdbus.JobOnce:
		return fmt.Sprintf("Unit %s was started already once and can't be started again.", u)
	}
	hint := fmt.Sprintf("See \"systemctl status %s\" and \"journalctl -xeu %s\" for details.", u, u)
	if t, _ := sdbus.UnitTypeOf(u); t != sdbus.UnitTypeService {
		return "Job failed. See \"journalctl -xe\" for details."
	}
	why := map[string]string{
		"resources":       "of unavailable resources or another system error",
		"protocol":        "the service did not take the steps required by its unit configuration",
		"timeout":         "a timeout was exceeded",
		"exit-code":       "the control process exited with error code",
		"signal":          "a fatal signal was delivered to the control process",
		"core-dump":       "a fatal signal was delivered causing the control process to dump core",
		"watchdog":        "the service failed to send watchdog ping",
		"start-limit-hit": "start of the service was attempted too often",
	}
	if p, err := c.ServiceProperties(ctx, u); err == nil {
		if reason, ok := why[p.Result]; ok {
			return fmt.Sprintf("Job for %s failed because %s.\n%s", u, reason, hint)
		}
	}
	return fmt.Sprintf("Job for %s failed.\n%s", u, hint)
}
