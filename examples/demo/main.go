// Command demo shows what sdbus guarantees, against an in-process fake
// systemd (the default) or a real manager:
//
//	demo [-system | -user | -address ADDRESS [-p2p]]
//
// With no flag it starts fakebus, the fake systemd, in the process and
// talks to it over an in-process socket pair; -system talks to the system
// manager through the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else
// /run/dbus/system_bus_socket; root), -user to the user's manager, and
// -address to the manager at a D-Bus address (with -p2p, a peer-to-peer
// socket such as unix:path=/run/systemd/private):
//
//	go run ./examples/demo                 # fakebus, no root needed (make demo)
//	go run ./examples/demo -system         # the system manager (root)
//	go run ./examples/demo -address unix:path=/run/systemd/private -p2p # (root)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run connects as the flags say and prints the transcript to w.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	system := fs.Bool("system", false, "the system manager, through the system bus")
	user := fs.Bool("user", false, "the user's manager, through the user bus")
	address := fs.String("address", "", "the D-Bus address of a manager's bus")
	p2p := fs.Bool("p2p", false, "-address is a peer-to-peer socket such as unix:path=/run/systemd/private")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var c *sdbus.Conn
	var err error
	target := *address
	switch {
	case *address != "" && *p2p:
		c, err = sdbus.Connect(ctx, *address, sdbus.WithPeerToPeer())
	case *address != "":
		c, err = sdbus.Connect(ctx, *address)
	case *system:
		c, err = sdbus.ConnectSystem(ctx) // $DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket
		target = "the system manager"
	case *user:
		c, err = sdbus.ConnectUser(ctx) // $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus
		target = "the user's manager"
	default:
		// A fake systemd in this process; a real *sdbus.Conn to it.
		var fake *fakebus.Server
		if fake, err = fakebus.Start(); err != nil {
			return err
		}
		defer fake.Close()
		c, err = fake.Dial(ctx)
		target = "an in-process fakebus"
	}
	if err != nil {
		return err
	}
	defer c.Close()
	d := demo{w: w, c: c, prefix: fmt.Sprintf("sdbus-demo-%d-", os.Getpid())}
	v, err := c.Version(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "sdbus demo on %s: systemd %s (major %d)\n", target, v, v.Major)
	for _, step := range []func(context.Context) error{d.startAndWait, d.failure, d.lingering, d.walkAway} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

type demo struct {
	w      io.Writer
	c      *sdbus.Conn
	prefix string
}

func (d demo) printf(format string, args ...any) { fmt.Fprintf(d.w, format, args...) }

func oneshot(argv ...string) []sdbus.Property {
	return []sdbus.Property{
		sdbus.PropDescription("sdbus demo"),
		sdbus.PropType(sdbus.ServiceOneshot),
		sdbus.PropExecStart(argv, false),
	}
}

func (d demo) startAndWait(ctx context.Context) error {
	name := d.prefix + "hello.service"
	d.printf("\n1. Start a transient service and wait for its job\n")
	j, err := d.c.StartTransientUnit(ctx, name, sdbus.ModeReplace, oneshot("/bin/true"))
	if err != nil {
		return err
	}
	d.printf("   StartTransientUnit %s -> job %d\n", name, j.ID())
	res, err := j.Wait(ctx)
	if err != nil {
		return err
	}
	d.printf("   Wait -> %s\n", res)
	return nil
}

func (d demo) failure(ctx context.Context) error {
	name := d.prefix + "fail.service"
	d.printf("\n2. A unit that fails: the result is a typed error\n")
	j, err := d.c.StartTransientUnit(ctx, name, sdbus.ModeReplace, oneshot("/bin/false"))
	if err != nil {
		return err
	}
	res, err := j.Wait(ctx)
	var je *sdbus.JobError
	if !errors.As(err, &je) {
		return fmt.Errorf("expected a JobError, got %q, %v", res, err)
	}
	d.printf("   Wait -> %s: %v\n", res, err)
	d.printf("   errors.Is(err, sdbus.ErrJobFailed) = %v, JobError.Result = %q\n", errors.Is(err, sdbus.ErrJobFailed), je.Result)
	st, err := d.c.UnitStatus(ctx, name)
	if err != nil {
		return err
	}
	d.printf("   %s is now %s (%s)\n", name, st.ActiveState, st.SubState)
	return nil
}

func (d demo) lingering(ctx context.Context) error {
	name := d.prefix + "fail.service"
	d.printf("\n3. The failed unit lingers, so its name is taken\n")
	_, err := d.c.StartTransientUnit(ctx, name, sdbus.ModeReplace, oneshot("/bin/true"))
	if !errors.Is(err, sdbus.ErrUnitExists) {
		return fmt.Errorf("expected ErrUnitExists, got %v", err)
	}
	d.printf("   StartTransientUnit again -> errors.Is(err, sdbus.ErrUnitExists) = true\n")
	if err := d.c.ResetFailedUnit(ctx, name); err != nil {
		return err
	}
	d.printf("   ResetFailedUnit %s -> the name is free\n", name)
	props := append(oneshot("/bin/false"), sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed))
	j, err := d.c.StartTransientUnit(ctx, name, sdbus.ModeReplace, props)
	if err != nil {
		return err
	}
	res, _ := j.Wait(ctx)
	d.printf("   with CollectMode=inactive-or-failed it fails again (%s) ...\n", res)
	st, err := d.c.WaitUnitState(ctx, name, func(s sdbus.UnitState) bool { return s.LoadState != sdbus.LoadLoaded })
	if err != nil {
		return err
	}
	d.printf("   ... and is collected at once: LoadState %s\n", st.LoadState)
	return nil
}

func (d demo) walkAway(ctx context.Context) error {
	d.printf("\n4. A caller that walks away does not block anyone\n")
	slow := d.prefix + "slow.service"
	// A start that would take an hour: the stop below ends it, however
	// long the 100 other jobs take on a loaded machine.
	j, err := d.c.StartTransientUnit(ctx, slow, sdbus.ModeReplace, oneshot("/bin/sleep", "3600"))
	if err != nil {
		return err
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	_, err = j.Wait(short)
	cancel()
	d.printf("   job %d for %s: the caller gives up after 10ms (%v) and never reads again\n", j.ID(), slow, errors.Is(err, context.DeadlineExceeded))
	began := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("%sother%d.slice", d.prefix, i)
			j, err := d.c.StartTransientUnit(ctx, name, sdbus.ModeReplace, []sdbus.Property{sdbus.PropDefaultDependencies(false)})
			if err == nil {
				_, err = j.Wait(ctx)
			}
			if err == nil {
				var sj *sdbus.Job
				if sj, err = d.c.StopUnit(ctx, name, sdbus.ModeReplace); err == nil {
					_, err = sj.Wait(ctx)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	d.printf("   meanwhile 100 other jobs started and stopped slices in %v\n", time.Since(began).Round(time.Millisecond))
	stop, err := d.c.StopUnit(ctx, slow, sdbus.ModeReplace)
	if err != nil {
		return err
	}
	if _, err := stop.Wait(ctx); err != nil {
		return err
	}
	res, err := j.Wait(ctx)
	d.printf("   stopping %s ends the abandoned job: %s (%v)\n", slow, res, errors.Is(err, sdbus.ErrJobFailed))
	// The oneshot was killed while starting, so it failed: clear it.
	if err := d.c.ResetFailedUnit(ctx, slow); err != nil && !errors.Is(err, sdbus.ErrNoSuchUnit) {
		return err
	}
	return nil
}
