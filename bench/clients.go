// Package bench compares sdbus with coreos/go-systemd v22 and with a
// minimal raw godbus loop, on fakebus and on a real systemd.
//
// It is a module of its own so that go-systemd never enters sdbus's
// go.mod. The benchmarks are in the _test.go files; this file holds the
// three clients they drive, behind one small interface, so that every
// benchmark does exactly the same work on each side: the same unit kind
// (transient slices), the same properties (Description only), the same
// job mode (replace), one connection (or, for go-systemd, its one Conn of
// two connections) shared by every worker.
//
// BENCHMARKS.md at the top of the repository describes the method and
// records the results; bench/run reproduces them.
package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"

	gsd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// Client starts and stops transient slices and waits for their jobs. It is
// safe for concurrent use.
type Client interface {
	// StartSlice creates the transient slice name and waits for its start
	// job to end with "done".
	StartSlice(ctx context.Context, name string) error
	// Stop stops the unit name and waits for its stop job to end with
	// "done".
	Stop(ctx context.Context, name string) error
	Close()
}

// Description is the one property every client sets on every slice.
const Description = "sdbus benchmark"

// Sdbus is a Client over an *sdbus.Conn.
type Sdbus struct{ C *sdbus.Conn }

// DialSdbus connects sdbus to the bus at address.
func DialSdbus(ctx context.Context, address string) (*Sdbus, error) {
	c, err := sdbus.Connect(ctx, address)
	if err != nil {
		return nil, err
	}
	return &Sdbus{c}, nil
}

var sdbusProps = []sdbus.Property{sdbus.PropDescription(Description)}

func (s *Sdbus) StartSlice(ctx context.Context, name string) error {
	j, err := s.C.StartTransientUnit(ctx, name, sdbus.ModeReplace, sdbusProps)
	if err != nil {
		return err
	}
	_, err = j.Wait(ctx)
	return err
}

func (s *Sdbus) Stop(ctx context.Context, name string) error {
	j, err := s.C.StopUnit(ctx, name, sdbus.ModeReplace)
	if err != nil {
		return err
	}
	_, err = j.Wait(ctx)
	return err
}

func (s *Sdbus) Close() { s.C.Close() }

// GoSystemd is a Client over go-systemd's *dbus.Conn, used as its
// documentation asks: a buffered result channel per job, always read.
type GoSystemd struct{ C *gsd.Conn }

// DialGoSystemd connects go-systemd to the bus at address with
// gsd.NewConnection, which dials it twice (a call and a signal connection),
// each authenticated with EXTERNAL and the real uid and greeted with
// Hello, exactly as NewSystemConnectionContext does for the system bus.
func DialGoSystemd(ctx context.Context, address string) (*GoSystemd, error) {
	c, err := gsd.NewConnection(func() (*dbus.Conn, error) { return DialGodbus(ctx, address) })
	if err != nil {
		return nil, err
	}
	return &GoSystemd{c}, nil
}

// DialGodbus dials address with godbus and authenticates as go-systemd
// does (EXTERNAL, real uid), then says Hello. ctx is not passed to godbus:
// dbus.WithContext would bind the connection's whole life to it.
func DialGodbus(ctx context.Context, address string) (*dbus.Conn, error) {
	conn, err := dbus.Dial(address)
	if err != nil {
		return nil, err
	}
	if err := conn.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

var gsdProps = []gsd.Property{gsd.PropDescription(Description)}

func (g *GoSystemd) StartSlice(ctx context.Context, name string) error {
	ch := make(chan string, 1)
	if _, err := g.C.StartTransientUnitContext(ctx, name, "replace", gsdProps, ch); err != nil {
		return err
	}
	return waitResult(ctx, name, ch)
}

func (g *GoSystemd) Stop(ctx context.Context, name string) error {
	ch := make(chan string, 1)
	if _, err := g.C.StopUnitContext(ctx, name, "replace", ch); err != nil {
		return err
	}
	return waitResult(ctx, name, ch)
}

func waitResult(ctx context.Context, name string, ch <-chan string) error {
	select {
	case r := <-ch:
		if r != "done" {
			return fmt.Errorf("%s: job %s", name, r)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *GoSystemd) Close() { g.C.Close() }
