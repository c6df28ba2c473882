package sdbus_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// beginWithNext is a client connection that sends BEGIN together with the
// next message, in one write: what systemd reads when it comes to the
// socket late, which is how a small first message gets stuck there.
type beginWithNext struct {
	net.Conn
	mu   sync.Mutex // guards held
	held []byte
}

func (c *beginWithNext) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.HasSuffix(p, []byte("BEGIN\r\n")) {
		c.held = append([]byte(nil), p...)
		return len(p), nil
	}
	if c.held != nil {
		out := append(c.held, p...)
		c.held = nil
		_, err := c.Conn.Write(out)
		return len(p), err
	}
	return c.Conn.Write(p)
}

// dialBeginWithNext connects to s's private socket through beginWithNext.
func dialBeginWithNext(ctx context.Context, s *fakebus.Server) (*beginWithNext, error) {
	addr, err := s.PrivateAddress()
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", strings.TrimPrefix(addr, "unix:path="))
	if err != nil {
		return nil, err
	}
	return &beginWithNext{Conn: nc}, nil
}

// A direct connection's first exchange is sdbus's own (firstcall.go): the
// caller's first call is answered whatever its size, even when it would
// arrive with BEGIN. Each call of the table was lost on the fake's private
// socket (systemd's 256-byte authentication buffer) before.
func TestFirstCallOnPrivateSocket(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	dial := func(ctx context.Context) (io.ReadWriteCloser, error) { return dialBeginWithNext(ctx, s) }
	for _, tc := range []struct {
		name string
		call func(context.Context, *sdbus.Conn) error
	}{
		{"ManagerProperties", func(ctx context.Context, c *sdbus.Conn) error {
			_, err := c.ManagerProperties(ctx)
			return err
		}},
		{"Version", func(ctx context.Context, c *sdbus.Conn) error {
			_, err := c.Version(ctx)
			return err
		}},
		{"Reload", func(ctx context.Context, c *sdbus.Conn) error { return c.Reload(ctx) }},
		{"ListUnits", func(ctx context.Context, c *sdbus.Conn) error {
			_, err := c.ListUnits(ctx)
			return err
		}},
		{"GetUnit", func(ctx context.Context, c *sdbus.Conn) error {
			_, err := c.UnitProperties(ctx, "-.slice")
			return err
		}},
		{"ResetFailedUnit", func(ctx context.Context, c *sdbus.Conn) error {
			err := c.ResetFailedUnit(ctx, "none.service")
			if errors.Is(err, sdbus.ErrNoSuchUnit) {
				return nil
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := sdbus.Connect(ctx, "fakebus:private", sdbus.WithPeerToPeer(), sdbus.WithDialer(dial))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// A bound on a hang, not a speed: a stuck call never ends.
			callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := tc.call(callCtx, c); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// NewConn's connection may come with a first call of the caller's that is
// stuck: sdbus's own first exchange gets it answered.
func TestFirstCallOfWrappedPrivateConn(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	nc, err := dialBeginWithNext(ctx, fakebus.New(t))
	if err != nil {
		t.Fatal(err)
	}
	bus, err := dbus.NewConn(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Auth(nil); err != nil {
		t.Fatal(err)
	}
	stuck := bus.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").Go("org.freedesktop.systemd1.Manager.Reload", 0, nil)
	c, err := sdbus.NewConn(ctx, bus)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case call := <-stuck.Done:
		if call.Err != nil {
			t.Fatal(call.Err)
		}
	case <-ctx.Done():
		t.Fatal("the caller's first call was never answered")
	}
}
