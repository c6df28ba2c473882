package sdbus_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// Connecting fails with a sentinel that says what went wrong and a message
// that says what to check.
func TestConnectErrorsTyped(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	dir := t.TempDir()
	// A socket file nobody accepts on: bound, never listened on.
	stale := filepath.Join(dir, "stale")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: stale}); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	// Servers that refuse the client: one closes the connection at once,
	// one rejects every mechanism.
	serve := func(name string, handle func(net.Conn)) string {
		path := filepath.Join(dir, name)
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				handle(c)
				c.Close()
			}
		}()
		t.Cleanup(func() { l.Close(); <-done })
		return "unix:path=" + path
	}
	closing := serve("closing", func(net.Conn) {})
	rejecting := serve("rejecting", func(c net.Conn) {
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.HasPrefix(strings.TrimLeft(line, "\x00"), "AUTH") {
				io.WriteString(c, "REJECTED EXTERNAL\r\n")
			}
		}
	})
	for _, tc := range []struct {
		name string
		addr string
		opts []sdbus.Option
		want error
		also error
	}{
		{"no such socket", "unix:path=" + filepath.Join(dir, "none"), nil, sdbus.ErrUnreachable, syscall.ENOENT},
		{"no such directory", "unix:path=/nonexistent/socket", nil, sdbus.ErrUnreachable, syscall.ENOENT},
		{"nobody accepts", "unix:path=" + stale, nil, sdbus.ErrUnreachable, syscall.ECONNREFUSED},
		{"closed during authentication", closing, nil, sdbus.ErrAuthRejected, nil},
		{"closed during authentication, peer-to-peer", closing, []sdbus.Option{sdbus.WithPeerToPeer()}, sdbus.ErrAuthRejected, nil},
		{"every mechanism rejected", rejecting, nil, sdbus.ErrAuthRejected, nil},
		{"malformed address", "unix:path=%zz", nil, sdbus.ErrInvalidArgs, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := sdbus.Connect(ctx, tc.addr, tc.opts...)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if tc.also != nil && !errors.Is(err, tc.also) {
				t.Errorf("err = %v, want it to match %v too", err, tc.also)
			}
			var se *sdbus.Error
			if !errors.As(err, &se) || se.Op != "connect" {
				t.Errorf("err = %#v, want an *sdbus.Error for connect", err)
			}
		})
	}
}

// ConnectUser's error says where the address came from and whether the
// runtime directory exists.
func TestConnectUserUnreachable(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	dir := filepath.Join(t.TempDir(), "run-user-4242")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	for _, p2p := range []bool{false, true} {
		var opts []sdbus.Option
		if p2p {
			opts = append(opts, sdbus.WithPeerToPeer())
		}
		_, err := sdbus.ConnectUser(ctx, opts...)
		if !errors.Is(err, sdbus.ErrUnreachable) {
			t.Fatalf("peer-to-peer %v: err = %v, want ErrUnreachable", p2p, err)
		}
		for _, want := range []string{"XDG_RUNTIME_DIR=" + dir, dir + " does not exist", "enable-linger"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("peer-to-peer %v: %q does not say %q", p2p, err, want)
			}
		}
		wantPath := dir + "/bus"
		if p2p {
			wantPath = dir + "/systemd/private"
		}
		if !strings.Contains(err.Error(), wantPath) {
			t.Errorf("peer-to-peer %v: %q does not name %s", p2p, err, wantPath)
		}
	}
}
