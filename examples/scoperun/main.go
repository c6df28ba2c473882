// Command scoperun runs a command in a transient scope with resource
// limits and waits for it, like `systemd-run --scope`:
//
//	scoperun [-address ADDRESS [-p2p] | -user] [-unit NAME] [-slice NAME]
//	         [-memory BYTES] [-tasks N] [-cpus N] -- COMMAND [ARG]...
//
// It talks to the system manager through the system bus
// ($DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket), to the
// user's manager with -user, or to the manager at -address (with -p2p, a
// peer-to-peer socket such as unix:path=/run/systemd/private):
//
//	go run ./examples/scoperun -memory 268435456 -tasks 64 -- sh -c 'echo hello'
//	go run ./examples/scoperun -cpus 0.5 -- stress -c 2
//
// The command is held before exec until it sits in its scope, so that no
// process it starts escapes the scope's cgroup. The scope is destroyed
// when the command exits; scoperun exits with the command's status.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/sdbus-go/sdbus"
)

func main() {
	code, err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scoperun:", err)
		os.Exit(125)
	}
	os.Exit(code)
}

// run runs the command and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("scoperun", flag.ContinueOnError)
	address := fs.String("address", "", "the D-Bus address of the manager's bus (default: the system bus)")
	p2p := fs.Bool("p2p", false, "-address is a peer-to-peer socket such as unix:path=/run/systemd/private")
	user := fs.Bool("user", false, "the user's manager, through the user bus")
	unit := fs.String("unit", fmt.Sprintf("run-scoperun-%d.scope", os.Getpid()), "scope name")
	slice := fs.String("slice", "system.slice", "slice to run in")
	memory := fs.Uint64("memory", 0, "MemoryMax in bytes (0: none)")
	tasks := fs.Uint64("tasks", 0, "TasksMax (0: none)")
	cpus := fs.Float64("cpus", 0, "CPU quota in CPUs (0: none)")
	if err := fs.Parse(args); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, errors.New("no command")
	}
	c, err := connect(ctx, *address, *p2p, *user)
	if err != nil {
		return 0, err
	}
	defer c.Close()

	// The command waits on fd 3 until it is in its scope.
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", `read -r _ <&3; exec 3<&-; exec "$@"`, "sh"}, fs.Args()...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.ExtraFiles = []*os.File{gateR}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	gateR.Close()
	defer gateW.Close()

	props := []sdbus.Property{
		sdbus.PropDescription("scoperun: " + fs.Arg(0)),
		sdbus.PropSlice(*slice),
		sdbus.PropPIDs(uint32(cmd.Process.Pid)),
		sdbus.PropDefaultDependencies(false),
	}
	if *memory > 0 {
		props = append(props, sdbus.PropMemoryMax(*memory))
	}
	if *tasks > 0 {
		props = append(props, sdbus.PropTasksMax(*tasks))
	}
	if *cpus > 0 {
		quota := sdbus.PropCPUQuota(uint64(*cpus*100000), 100000)
		props = append(props, quota)
	}
	setupCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	_, err = c.EnsureTransientUnit(setupCtx, *unit, props, sdbus.EnsureOptions{})
	cancel()
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return 0, err
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.DestroyUnit(dctx, *unit)
	}()
	fmt.Fprintf(stderr, "Running as unit: %s\n", *unit)
	if _, err := gateW.Write([]byte("go\n")); err != nil {
		return 0, err
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), nil
	case err != nil:
		return 0, err
	}
	return 0, nil
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
