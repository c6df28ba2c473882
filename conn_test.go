package sdbus_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// startSlice starts and waits for a transient slice: the smallest proof
// that a Conn works end to end.
func startSlice(ctx context.Context, t *testing.T, c *sdbus.Conn, name string) {
	t.Helper()
	j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := j.Wait(ctx); res != sdbus.JobDone || err != nil {
		t.Fatalf("Wait = %q, %v", res, err)
	}
}

func TestConnectUnixSocket(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	busAddr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	privAddr, err := s.PrivateAddress()
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		name string
		addr string
		opts []sdbus.Option
	}{
		{"bus", busAddr, nil},
		{"peer-to-peer", privAddr, []sdbus.Option{sdbus.WithPeerToPeer()}},
		{"alternatives", "unix:path=/nonexistent/socket;" + busAddr, nil},
		{"explicit uid", busAddr, []sdbus.Option{sdbus.WithUID(os.Geteuid())}},
	} {
		i, tc := i, tc
		t.Run(tc.name, func(t *testing.T) {
			c, err := sdbus.Connect(ctx, tc.addr, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			startSlice(ctx, t, c, "unix"+strconv.Itoa(i)+".slice")
		})
	}
}

func TestConnectFromEnvironment(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", addr)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	for name, connect := range map[string]func(context.Context, ...sdbus.Option) (*sdbus.Conn, error){
		"system": sdbus.ConnectSystem, "user": sdbus.ConnectUser,
	} {
		c, err := connect(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		startSlice(ctx, t, c, "env-"+name+".slice")
		c.Close()
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", filepath.Dir(addr[len("unix:path="):]))
	c, err := sdbus.ConnectUser(ctx) // finds $XDG_RUNTIME_DIR/bus
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestConnectErrors(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, addr := range []string{
		"", "nonsense", "bogus:path=/x", "unix:", "unix:path=/a,abstract=b", "tcp:host=localhost",
		"unix:path=/nonexistent/socket", "unix:path=%zz",
	} {
		t.Run(strconv.Quote(addr), func(t *testing.T) {
			c, err := sdbus.Connect(ctx, addr)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			var se *sdbus.Error
			if !errors.As(err, &se) || se.Op != "connect" {
				t.Errorf("err = %#v, want an *sdbus.Error for connect", err)
			}
		})
	}
}

// The ctx bounds authentication (godbus offers no context for it): a peer
// that never answers does not hang Connect, and nothing leaks.
func TestConnectContextBoundsHandshake(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "mute"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = sdbus.Connect(short, "unix:path="+filepath.Join(dir, "mute"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Connect = %v, want DeadlineExceeded", err)
	}
	if c := <-accepted; c != nil {
		c.Close()
	}
}

// The ctx of Connect bounds only the setup, not the connection's life.
func TestConnectContextDoesNotBoundLifetime(t *testing.T) {
	leakCheck(t)
	s := fakebus.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := s.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	startSlice(testCtx(t), t, c, "alive.slice")
}

func TestNewConnWrapsGodbusConn(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	for _, sequential := range []bool{false, true} {
		var opts []dbus.ConnOption
		if sequential {
			opts = append(opts, dbus.WithSignalHandler(dbus.NewSequentialSignalHandler()))
		}
		bus, err := dbus.NewConn(s.Pipe(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := bus.Auth(nil); err != nil {
			t.Fatal(err)
		}
		if err := bus.Hello(); err != nil {
			t.Fatal(err)
		}
		c, err := sdbus.NewConn(ctx, bus)
		if err != nil {
			t.Fatal(err)
		}
		startSlice(ctx, t, c, "wrapped-"+strconv.FormatBool(sequential)+".slice")
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if bus.Connected() {
			t.Error("Close did not close the wrapped connection")
		}
	}
}

// On a bus, job results are accepted only from the current owner of
// org.freedesktop.systemd1, which changes when systemd re-executes.
func TestJobResultsFollowManagerAcrossReexec(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := s.Script("reexec.slice", fakebus.Script{Delay: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, "reexec.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reexecute(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := j.Wait(ctx); res != sdbus.JobDone || err != nil {
		t.Fatalf("Wait after reexec = %q, %v", res, err)
	}
	startSlice(ctx, t, c, "after-reexec.slice")
}

// daemon-reexec drops peer-to-peer connections; pending waits end with
// ErrDisconnected.
func TestReexecDropsPrivateConn(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.PrivateConn(t)
	if err := s.Script("p2p.slice", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, "p2p.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reexecute(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); !errors.Is(err, sdbus.ErrDisconnected) {
		t.Fatalf("Wait = %v, want ErrDisconnected", err)
	}
}
