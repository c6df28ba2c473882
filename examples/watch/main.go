// Command watch prints a unit's state whenever it changes, driven by
// systemd's PropertiesChanged signals (no polling), until the unit reaches
// the state given with -until, or ctrl-C:
//
//	go run ./examples/watch                          # fakebus: watches a demo unit start and stop
//	go run ./examples/watch -bus system -until inactive nginx.service
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
	"github.com/sdbus-go/sdbus/examples/internal/exampleconn"
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
	var conn exampleconn.Flags
	conn.Register(fs)
	until := fs.String("until", "", "stop once ActiveState is this (e.g. inactive, failed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, fake, closeConn, err := conn.Connect(ctx)
	if err != nil {
		return err
	}
	defer closeConn()
	unit := fs.Arg(0)
	demo := fake != nil && unit == ""
	if demo {
		unit, *until = "demo.service", "inactive"
	}
	if unit == "" {
		return errors.New("usage: watch [flags] UNIT")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	states, err := c.WatchUnit(ctx, unit)
	if err != nil {
		return err
	}
	if demo {
		// Something to watch: a service that runs briefly and is stopped.
		job, err := c.StartTransientUnit(ctx, unit, sdbus.ModeReplace, []sdbus.Property{
			sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropRemainAfterExit(true),
			sdbus.PropExecStart([]string{"/bin/sleep", "0.1"}, false),
		})
		if err != nil {
			return err
		}
		go func() {
			if _, err := job.Wait(ctx); err == nil {
				if stop, err := c.StopUnit(ctx, unit, sdbus.ModeReplace); err == nil {
					_, _ = stop.Wait(ctx)
				}
			}
		}()
	}
	seenOther := false
	for st := range states {
		job := ""
		if st.JobID != 0 {
			job = fmt.Sprintf(" (job %d)", st.JobID)
		}
		fmt.Fprintf(w, "%s: %s/%s result=%s%s\n", unit, st.ActiveState, st.SubState, st.Result, job)
		if string(st.ActiveState) != *until || st.JobID != 0 {
			seenOther = true
		} else if seenOther || !demo {
			return nil
		}
	}
	return ctx.Err()
}
