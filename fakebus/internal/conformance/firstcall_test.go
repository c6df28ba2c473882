package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// testFirstCallPrivate: the manager's private socket leaves a small first
// message unread when it comes with BEGIN (systemd reads the
// authentication into 256 bytes and does not look at what followed BEGIN
// until the socket is readable again); sdbus's own first exchange keeps
// every caller's first call out of that window. Shown first with a raw
// client, then with fresh sdbus connections whose first call is each of
// the small calls that got stuck (GetAll of the Manager, 197 bytes, and
// the like): none may go unanswered.
func testFirstCallPrivate(t *testing.T, e *env) {
	addr := e.privateAddress(t)
	path := strings.TrimPrefix(addr, "unix:path=")

	// The window, as a client that does not wait sees it.
	stuck := rawPrivateFirstCall(t, path)
	select {
	case <-stuck.answered:
		t.Fatal("a GetAll sent with BEGIN was answered before the client sent more: the window this case guards is gone (update firstcall.go)")
	case <-time.After(500 * time.Millisecond):
	}
	stuck.send(t, pingMessage(t, 2))
	select {
	case <-stuck.answered:
	case <-time.After(10 * time.Second): // a bound on a hang
		t.Fatal("GetAll not answered after a second message")
	}

	calls := []struct {
		name string
		call func(context.Context, *sdbus.Conn) error
	}{
		{"ManagerProperties", func(ctx context.Context, c *sdbus.Conn) error { _, err := c.ManagerProperties(ctx); return err }},
		{"Version", func(ctx context.Context, c *sdbus.Conn) error { _, err := c.Version(ctx); return err }},
		{"ListUnits", func(ctx context.Context, c *sdbus.Conn) error { _, err := c.ListUnits(ctx); return err }},
		{"UnitProperties", func(ctx context.Context, c *sdbus.Conn) error { _, err := c.UnitProperties(ctx, "-.slice"); return err }},
		{"ResetFailedUnit", func(ctx context.Context, c *sdbus.Conn) error {
			if err := c.ResetFailedUnit(ctx, "sdbus-conf-none.service"); !errors.Is(err, sdbus.ErrNoSuchUnit) {
				return err
			}
			return nil
		}},
	}
	const rounds = 42 // 210 connections
	unanswered := map[string]int{}
	lost := 0
	for i := 0; i < rounds*len(calls) && lost < 3; i++ {
		tc := calls[i%len(calls)]
		ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second) // a bound on a hang
		c, err := sdbus.Connect(ctx, addr, sdbus.WithPeerToPeer())
		if err != nil {
			cancel()
			t.Fatalf("connection %d: %v", i, err)
		}
		if err := tc.call(ctx, c); err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sdbus.ErrTimeout) {
				unanswered[tc.name]++
				lost++
			} else {
				t.Errorf("connection %d, %s: %v", i, tc.name, err)
			}
		}
		c.Close()
		cancel()
	}
	if len(unanswered) > 0 {
		t.Errorf("first calls never answered (of up to %d connections each; stopped at %d): %v", rounds, lost, unanswered)
	}
}

// rawFirstCall is a direct connection whose first message, a GetAll of the
// Manager, went out with BEGIN in one write.
type rawFirstCall struct {
	conn     net.Conn
	answered chan struct{} // closed at the GetAll's reply
}

func rawPrivateFirstCall(t *testing.T, path string) *rawFirstCall {
	t.Helper()
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	r := bufio.NewReader(nc)
	uid := hex.EncodeToString([]byte(strconv.Itoa(os.Geteuid())))
	if _, err := io.WriteString(nc, "\x00AUTH EXTERNAL "+uid+"\r\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "OK ") {
		t.Fatalf("authentication: %q, %v", line, err)
	}
	getAll := encodeCall(t, &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:        dbus.MakeVariant(dbus.ObjectPath("/org/freedesktop/systemd1")),
		dbus.FieldInterface:   dbus.MakeVariant("org.freedesktop.DBus.Properties"),
		dbus.FieldMember:      dbus.MakeVariant("GetAll"),
		dbus.FieldDestination: dbus.MakeVariant("org.freedesktop.systemd1"),
		dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf("")),
	}, Body: []any{"org.freedesktop.systemd1.Manager"}}, 1)
	rc := &rawFirstCall{conn: nc, answered: make(chan struct{})}
	rc.send(t, append([]byte("BEGIN\r\n"), getAll...))
	go func() {
		for {
			m, err := dbus.DecodeMessage(r)
			if err != nil {
				return
			}
			if s, ok := m.Headers[dbus.FieldReplySerial]; ok && s.Value() == uint32(1) {
				close(rc.answered)
				return
			}
		}
	}()
	return rc
}

func (rc *rawFirstCall) send(t *testing.T, b []byte) {
	t.Helper()
	if _, err := rc.conn.Write(b); err != nil {
		t.Fatal(err)
	}
}

func pingMessage(t *testing.T, serial uint32) []byte {
	return encodeCall(t, &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:      dbus.MakeVariant(dbus.ObjectPath("/org/freedesktop/systemd1")),
		dbus.FieldInterface: dbus.MakeVariant("org.freedesktop.DBus.Peer"),
		dbus.FieldMember:    dbus.MakeVariant("Ping"),
	}}, serial)
}

// encodeCall encodes m as godbus would send it with the given serial.
func encodeCall(t *testing.T, m *dbus.Message, serial uint32) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.EncodeTo(&b, binary.LittleEndian); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b.Bytes()[8:12], serial)
	return b.Bytes()
}

// testReexecPrivate: systemd closes its direct connections when it
// re-executes and never answers the Reexecute call itself. Over the private
// socket, Reexecute ends when the connection does, as success, whether or
// not it was the connection's first call; a Conn without WithReconnect is
// then done, one with it carries on with the new instance.
func testReexecPrivate(t *testing.T, e *env) {
	addr := e.privateAddress(t)
	for _, reconnect := range []bool{false, true} {
		opts := []sdbus.Option{sdbus.WithPeerToPeer()}
		if reconnect {
			opts = append(opts, sdbus.WithReconnect(sdbus.ReconnectPolicy{MinDelay: 50 * time.Millisecond, MaxDelay: time.Second}))
		}
		c, err := sdbus.Connect(e.ctx, addr, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Reexecute(e.ctx); err != nil {
			t.Fatalf("reconnect %v: Reexecute = %v, want nil", reconnect, err)
		}
		if !reconnect {
			select {
			case <-c.Done():
			case <-e.ctx.Done():
				t.Fatal("a Conn without WithReconnect is not done after Reexecute closed its connection")
			}
			if _, err := c.Version(e.ctx); !errors.Is(err, sdbus.ErrDisconnected) {
				t.Errorf("Version after Reexecute = %v, want ErrDisconnected", err)
			}
			continue
		}
		if _, err := c.Version(e.ctx); err != nil {
			t.Errorf("Version after Reexecute on a reconnecting Conn = %v", err)
		}
	}
}
