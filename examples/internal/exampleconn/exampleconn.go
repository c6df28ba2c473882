// Package exampleconn connects the example programs to a manager: an
// in-process fakebus by default, or a real bus chosen with -bus.
package exampleconn

import (
	"context"
	"flag"
	"os"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// Flags are the connection flags every example takes.
type Flags struct {
	Bus string
	P2P bool
}

// Register adds -bus and -p2p to fs. The default of -bus comes from
// $SDBUS_EXAMPLE_BUS.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Bus, "bus", os.Getenv("SDBUS_EXAMPLE_BUS"),
		`"" for an in-process fakebus, "system", "user", "private", or a D-Bus address`)
	fs.BoolVar(&f.P2P, "p2p", false, "the -bus address is a peer-to-peer socket like /run/systemd/private")
}

// Connect connects as f says. With no bus it starts a fakebus, set up by
// the options; close releases what Connect started.
func (f Flags) Connect(ctx context.Context, fake ...fakebus.Option) (c *sdbus.Conn, s *fakebus.Server, close func(), err error) {
	switch f.Bus {
	case "":
		if s, err = fakebus.Start(fake...); err != nil {
			return nil, nil, nil, err
		}
		if c, err = s.Dial(ctx); err != nil {
			s.Close()
			return nil, nil, nil, err
		}
		return c, s, func() { c.Close(); s.Close() }, nil
	case "system":
		c, err = sdbus.ConnectSystem(ctx)
	case "user":
		c, err = sdbus.ConnectUser(ctx)
	case "private":
		c, err = sdbus.ConnectPrivate(ctx)
	default:
		var opts []sdbus.Option
		if f.P2P {
			opts = append(opts, sdbus.WithPeerToPeer())
		}
		c, err = sdbus.Connect(ctx, f.Bus, opts...)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return c, nil, func() { c.Close() }, nil
}
