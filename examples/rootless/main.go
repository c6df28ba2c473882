// Command rootless does what a rootless container tool does with systemd,
// as an unprivileged user: it connects to the user's own manager
// (systemd --user), puts a process of its own in a scope with Delegate=yes
// (the cgroup the user may then manage), and reads the limits that really
// apply to it, including those the system manager puts on the user's
// slice, which the user manager does not see:
//
//	rootless [-unit NAME]
//
//	go run ./examples/rootless
//
// It connects with sdbus.ConnectUser: the user bus, else the user
// manager's private socket, $XDG_RUNTIME_DIR/systemd/private.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/sdbus-go/sdbus"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "rootless:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("rootless", flag.ContinueOnError)
	unit := fs.String("unit", "rootless-demo.scope", "the scope to create")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	c, err := sdbus.ConnectUser(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	mp, err := c.ManagerProperties(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "connected to the manager in %q as uid %d\n", mp.ControlGroup, os.Geteuid())

	// The payload: a process of ours, placed in a delegated scope.
	payload := exec.Command("/bin/sleep", "600")
	if err := payload.Start(); err != nil {
		return err
	}
	defer func() { _ = payload.Process.Kill(); _ = payload.Wait() }()
	outcome, err := c.EnsureTransientUnit(ctx, *unit, []sdbus.Property{
		sdbus.PropDescription("rootless example"),
		sdbus.PropPIDs(uint32(payload.Process.Pid)),
		sdbus.PropDelegate(true),
	}, sdbus.EnsureOptions{})
	if err != nil {
		return err
	}
	defer func() {
		if err := c.DestroyUnit(context.Background(), *unit); err != nil {
			fmt.Fprintln(os.Stderr, "rootless:", err)
		}
	}()
	sp, err := c.ScopeProperties(ctx, *unit)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s %s in %s\n", *unit, outcome, sp.Slice)
	if fi, err := os.Stat(filepath.Join("/sys/fs/cgroup", sp.ControlGroup)); err == nil {
		fmt.Fprintf(w, "its cgroup belongs to uid %d\n", fi.Sys().(*syscall.Stat_t).Uid)
	}

	lim, err := c.EffectiveLimits(ctx, *unit)
	if err != nil {
		return err
	}
	for _, l := range []struct {
		name string
		e    sdbus.EffectiveLimit
	}{{"MemoryMax", lim.MemoryMax}, {"TasksMax", lim.TasksMax}} {
		switch {
		case l.e.Source == "":
			fmt.Fprintf(w, "%s: %s, nothing limits it\n", l.name, l.e)
		case l.e.System:
			fmt.Fprintf(w, "%s: %s, set by the system manager's %s\n", l.name, l.e, l.e.Source)
		default:
			fmt.Fprintf(w, "%s: %s, set by %s\n", l.name, l.e, l.e.Source)
		}
	}
	return nil
}
