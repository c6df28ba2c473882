package fakebus_test

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// pipeAs returns a godbus connection to s's bus over an in-memory pipe
// that names uid in AUTH EXTERNAL: on a pipe, with no kernel credentials,
// the bus takes the uid the client names (a socket's must agree with
// SO_PEERCRED, TestAccessSocketCannotClaimUID).
func pipeAs(t *testing.T, s *fakebus.Server, uid int) *dbus.Conn {
	t.Helper()
	c, err := dbus.NewConn(claimingPipe{s.Pipe(), uid})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Auth([]dbus.Auth{dbus.AuthExternal("")}); err != nil {
		t.Fatalf("auth as uid %d: %v", uid, err)
	}
	if err := c.Hello(); err != nil {
		t.Fatal(err)
	}
	return c
}

// claimingPipe names uid in the client's AUTH EXTERNAL line (godbus
// sends the line without one and answers the server's DATA with none).
type claimingPipe struct {
	io.ReadWriteCloser
	uid int
}

func (p claimingPipe) Write(b []byte) (int, error) {
	if string(b) == "AUTH EXTERNAL\r\n" {
		line := "AUTH EXTERNAL " + hex.EncodeToString([]byte(strconv.Itoa(p.uid))) + "\r\n"
		if _, err := io.WriteString(p.ReadWriteCloser, line); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return p.ReadWriteCloser.Write(b)
}

// answer calls method on the manager and returns "ok" or the error's name
// and message, dbus-daemon's credentials taken out.
func answer(t *testing.T, c *dbus.Conn, method string, args ...any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Object(systemd1, managerPath).CallWithContext(ctx, managerIface+"."+method, 0, args...).Err
	var de dbus.Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &de) && len(de.Body) > 0:
		msg, _ := de.Body[0].(string)
		return de.Name + ": " + creds.ReplaceAllString(msg, "(CREDS)")
	}
	return err.Error()
}

var creds = regexp.MustCompile(`\(uid=[^)]*\)`)

// TestAccess: who is privileged under each Access, and what an
// unprivileged caller gets (systemd's polkit refusal after the mode
// check, the bus policy's rejection), by the uid the bus knows.
func TestAccess(t *testing.T) {
	const (
		denied = "org.freedesktop.DBus.Error.AccessDenied: Permission denied"
		policy = `org.freedesktop.DBus.Error.AccessDenied: Rejected send message, 2 matched rules; type="method_call", sender=":1.2" (CREDS) interface="org.freedesktop.systemd1.Manager" member="EnqueueUnitJob" error name="(unset)" requested_reply="0" destination="org.freedesktop.systemd1" (CREDS)`
	)
	own := os.Getuid()
	// Under AccessRoot the process's own uid is privileged only when it
	// is root.
	rootOnly := "ok"
	if own != 0 {
		rootOnly = denied
	}
	tests := []struct {
		name   string
		opts   []fakebus.Option
		uid    int
		method string
		args   []any
		want   string
	}{
		{"default/own uid starts", nil, own, "StartUnit", []any{"-.slice", "replace"}, "ok"},
		{"default/root starts", nil, 0, "StartUnit", []any{"-.slice", "replace"}, "ok"},
		{"default/other uid refused", nil, 65534, "StartUnit", []any{"-.slice", "replace"}, denied},
		{"default/mode checked first", nil, 65534, "StartUnit", []any{"-.slice", "bogus"}, "org.freedesktop.DBus.Error.InvalidArgs: Job mode bogus invalid"},
		{"default/other uid reads", nil, 65534, "GetUnit", []any{"-.slice"}, "ok"},
		{"default/bus policy", nil, 65534, "EnqueueUnitJob", []any{"-.slice", "start", "replace"}, policy},
		{"default/link refused", nil, 65534, "LinkUnitFiles", []any{[]string{"/nonexistent/x.service"}, false, false}, denied},
		{"root/own uid", []fakebus.Option{fakebus.WithAccess(fakebus.AccessRoot)}, own, "StartUnit", []any{"-.slice", "replace"}, rootOnly},
		{"root/root", []fakebus.Option{fakebus.WithAccess(fakebus.AccessRoot)}, 0, "StartUnit", []any{"-.slice", "replace"}, "ok"},
		{"everyone/other uid starts", []fakebus.Option{fakebus.WithAccess(fakebus.AccessEveryone)}, 65534, "StartUnit", []any{"-.slice", "replace"}, "ok"},
		{"everyone/no bus policy", []fakebus.Option{fakebus.WithAccess(fakebus.AccessEveryone)}, 65534, "EnqueueUnitJob", []any{"-.slice", "start", "replace"}, "ok"},
		{"user manager/its user", []fakebus.Option{fakebus.WithUserManager(65534), fakebus.WithAccess(fakebus.AccessRoot)}, 65534, "StartUnit", []any{"-.slice", "replace"}, "ok"},
		{"polkit/other uid refused", []fakebus.Option{fakebus.WithPolkit()}, 65534, "StartUnit", []any{"-.slice", "replace"},
			"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired: Interactive authentication required."},
		{"polkit/bus policy unchanged", []fakebus.Option{fakebus.WithPolkit()}, 65534, "EnqueueUnitJob", []any{"-.slice", "start", "replace"}, policy},
		{"polkit/247 as without polkit", []fakebus.Option{fakebus.WithPolkit(), fakebus.WithVersion("247.3-7+deb11u8")}, 65534, "StartUnit", []any{"-.slice", "replace"}, denied},
		{"polkit/262 explains", []fakebus.Option{fakebus.WithPolkit(), fakebus.WithVersion("262.1-1")}, 65534, "StartUnit", []any{"-.slice", "replace"},
			"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired: Access denied as the requested operation requires interactive authentication. However, interactive authentication has not been enabled by the calling program."},
		{"polkit/root starts", []fakebus.Option{fakebus.WithPolkit()}, 0, "StartUnit", []any{"-.slice", "replace"}, "ok"},
		{"user manager/another user", []fakebus.Option{fakebus.WithUserManager(65533), fakebus.WithAccess(fakebus.AccessRoot)}, 65534, "StartUnit", []any{"-.slice", "replace"}, denied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, tt.opts...)
			got := answer(t, pipeAs(t, s, tt.uid), tt.method, tt.args...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s as uid %d (-want +got):\n%s", tt.method, tt.uid, diff)
			}
		})
	}
}

// TestAccessInProcessConn: the connections Conn and RawConn make are
// the test process's, privileged by default whatever uid runs the test.
func TestAccessInProcessConn(t *testing.T) {
	s := fakebus.New(t)
	ctx := context.Background()
	j, err := s.Conn(t).StartUnit(ctx, "-.slice", sdbus.ModeReplace)
	if err != nil {
		t.Fatalf("StartUnit on Conn: %v", err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := answer(t, s.RawConn(t), "ClearJobs"); got != "ok" {
		t.Errorf("ClearJobs on RawConn = %s, want ok", got)
	}
}

// TestAccessSocketCannotClaimUID: on a socket the uid is the kernel's: a
// client that names another uid in AUTH EXTERNAL is refused, so it
// cannot pass for root.
func TestAccessSocketCannotClaimUID(t *testing.T) {
	s := fakebus.New(t)
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	other := 0
	if os.Getuid() == 0 {
		other = 65534
	}
	sock, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:path="))
	if err != nil {
		t.Fatal(err)
	}
	c, err := dbus.NewConn(claimingPipe{sock, other})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Auth([]dbus.Auth{dbus.AuthExternal("")}); err == nil {
		t.Errorf("AUTH EXTERNAL as uid %d on a socket of uid %d succeeded", other, os.Getuid())
	}
}

// TestAccessString: the names fakesystemd's docs use.
func TestAccessString(t *testing.T) {
	got := []string{fakebus.AccessOwner.String(), fakebus.AccessRoot.String(), fakebus.AccessEveryone.String(), fakebus.Access(9).String()}
	if diff := cmp.Diff([]string{"owner", "root", "everyone", "Access(9)"}, got); diff != "" {
		t.Errorf("Access names (-want +got):\n%s", diff)
	}
}
