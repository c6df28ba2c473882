package conformance

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// TestConformanceSystemd runs the suite against the real systemd of the
// sandbox (SDBUS_SANDBOX=1, set by scripts/sandbox). SDBUS_CONFORMANCE_VERSION
// is the Version the manager must report (its package's version), if known.
func TestConformanceSystemd(t *testing.T) {
	if os.Getenv("SDBUS_SANDBOX") != "1" {
		t.Skip("not in the systemd sandbox (SDBUS_SANDBOX=1); see scripts/conformance-systemd")
	}
	connect := func(t *testing.T, private bool) *sdbus.Conn {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		connect := sdbus.ConnectSystem
		if private {
			connect = sdbus.ConnectPrivate
		}
		c, err := connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Log(runSuite(t, backend{
		name:           "systemd",
		version:        os.Getenv("SDBUS_CONFORMANCE_VERSION"),
		real:           true,
		connect:        func(t *testing.T) *sdbus.Conn { return connect(t, false) },
		connectPrivate: func(t *testing.T) *sdbus.Conn { return connect(t, true) },
		unitFile:       systemdUnitFile,
		subcgroup:      systemdSubcgroup,
		configDir:      "/etc/systemd/system",
		runtimeDir:     runtimeUnitDir,
		busAddress:     func(*testing.T) string { return "unix:path=/run/dbus/system_bus_socket" },
		privateAddress: func(*testing.T) string { return sdbus.PrivateAddress },
		rawBus: func(t *testing.T, opts ...dbus.ConnOption) *dbus.Conn {
			c, err := dbus.ConnectSystemBus(opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		},
		rawBusNoFDs: func(t *testing.T) *dbus.Conn { return rawBusNoFDs(t, "/run/dbus/system_bus_socket") },
	}))
}

// rawBusNoFDs returns a godbus connection to the bus listening on the unix
// socket path that has said Hello without negotiating unix fd passing:
// godbus negotiates it on a socket it dials itself, never on a connection
// it is given.
func rawBusNoFDs(t *testing.T, path string) *dbus.Conn {
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dbus.NewConn(nc)
	return helloed(t, c, err)
}

// helloed authenticates c, the result of opening a connection with err,
// says Hello on it and closes it at the end of t.
func helloed(t *testing.T, c *dbus.Conn, err error) *dbus.Conn {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Hello(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConformanceUserManager runs the suite's user cases against the user
// manager of the calling user (systemd --user) in the sandbox started with
// --user (scripts/conformance-systemd runs it as root and as an
// unprivileged user): SDBUS_SANDBOX=1 and SDBUS_CONFORMANCE_USER=1. Its
// Conns go to the manager's private socket, $XDG_RUNTIME_DIR/systemd/private;
// with SDBUS_CONFORMANCE_USER_BUS=1, to the user bus, $XDG_RUNTIME_DIR/bus
// (dbus-user-session's), but for connectPrivate's, and the cases that need
// a bus (rawBus, rawBusNoFDs, busAddress) get that one.
func TestConformanceUserManager(t *testing.T) {
	if os.Getenv("SDBUS_SANDBOX") != "1" || os.Getenv("SDBUS_CONFORMANCE_USER") != "1" {
		t.Skip("not in the systemd sandbox with a user manager (SDBUS_CONFORMANCE_USER=1); see scripts/conformance-systemd")
	}
	uid := os.Geteuid()
	runtime := fmt.Sprintf("/run/user/%d", uid)
	addr := "unix:path=" + runtime + "/systemd/private"
	dial := func(t *testing.T, address string, opts ...sdbus.Option) *sdbus.Conn {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := sdbus.Connect(ctx, address, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	connect := func(t *testing.T) *sdbus.Conn { return dial(t, addr, sdbus.WithPeerToPeer()) }
	b := backend{
		name:           fmt.Sprintf("systemd --user (uid %d)", uid),
		version:        os.Getenv("SDBUS_CONFORMANCE_VERSION"),
		real:           true,
		user:           true,
		connect:        connect,
		connectPrivate: connect,
		privateAddress: func(*testing.T) string { return addr },
		unitFile:       systemdUnitFile,
		subcgroup:      systemdSubcgroup,
		configDir:      filepath.Join(os.Getenv("HOME"), ".config/systemd/user"),
		runtimeDir:     runtime + "/systemd/user",
		systemManager: func(t *testing.T) *sdbus.Conn {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := sdbus.ConnectSystem(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		},
	}
	if os.Getenv("SDBUS_CONFORMANCE_USER_BUS") == "1" {
		// The bus by its address: ConnectUser would fall back to the
		// private socket, and a missing bus would go unnoticed.
		busPath := runtime + "/bus"
		busAddr := "unix:path=" + busPath
		b.name = fmt.Sprintf("systemd --user (uid %d, user bus)", uid)
		b.connect = func(t *testing.T) *sdbus.Conn { return dial(t, busAddr) }
		b.busAddress = func(*testing.T) string { return busAddr }
		b.rawBus = func(t *testing.T, opts ...dbus.ConnOption) *dbus.Conn {
			c, err := dbus.Connect(busAddr, opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}
		b.rawBusNoFDs = func(t *testing.T) *dbus.Conn { return rawBusNoFDs(t, busPath) }
	}
	t.Log(runSuite(t, b))
}
