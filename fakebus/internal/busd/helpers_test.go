package busd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	testService   = "org.test.Service"
	testIface     = "org.test.Iface"
	testPath      = dbus.ObjectPath("/org/test")
	testTimeout   = time.Minute // a bound on a hang, never a speed: busctl monitor took over 10 s at a load of 15
	testErrorName = "org.test.Error.Failed"
)

// fakeService is a Handler for tests.
type fakeService struct {
	b *Bus // set after New

	// mu guards seq and hung, and serializes the Ordered method.
	mu   sync.Mutex
	seq  uint32
	hung []*Call

	block   chan struct{} // Block waits for it to be closed
	entered chan struct{} // Block sends on it (if non-nil) when it starts waiting
	gone    chan *Peer    // receives every PeerGone (buffered)
	calls   chan *Call    // receives every call, if non-nil (buffered)
}

func newFakeService() *fakeService {
	return &fakeService{block: make(chan struct{}), gone: make(chan *Peer, 100)}
}

func (s *fakeService) HandleCall(c *Call) {
	if s.calls != nil {
		s.calls <- c
	}
	switch c.Member {
	case "Echo":
		c.Reply(c.Body...)
	case "Structs":
		type pair struct {
			S string
			T uint64
		}
		type unit struct {
			Name string
			Path dbus.ObjectPath
		}
		c.Reply(pair{"x", 1}, []unit{{"a.service", "/u/a"}})
	case "Fail":
		c.ReplyError(testErrorName, "it failed")
	case "Ordered":
		// Under the lock: signal, reply, signal. Every client must see them
		// in this order.
		s.mu.Lock()
		s.seq++
		n := s.seq
		who := c.Peer.UniqueName()
		s.b.Emit(testPath, testIface, "Before", who, n)
		c.Reply(n)
		s.b.Emit(testPath, testIface, "After", who, n)
		s.mu.Unlock()
	case "Later":
		done := make(chan struct{})
		go func() {
			c.Reply("later")
			close(done)
		}()
		<-done
	case "Handoff":
		// Another goroutine replies while HandleCall has not returned,
		// and nothing orders its reply before this goroutine's next read
		// (as fakebus's job that ends once its lock is released): the
		// handler says Handled first.
		c.Handled()
		go c.Reply("handed off")
		for !c.st.replied.Load() {
			runtime.Gosched()
		}
	case "Block":
		if s.entered != nil {
			s.entered <- struct{}{}
		}
		<-s.block
		c.Reply()
	case "Ignore":
		// Never answered, and nothing of the call kept (as the fake's
		// DumpByFileDescriptor).
	case "Hang":
		s.mu.Lock()
		s.hung = append(s.hung, c)
		s.mu.Unlock()
	case "ReadFD":
		// Reply what the fd sent as the call's only argument holds.
		idx, ok := c.Body[0].(dbus.UnixFDIndex)
		if !ok || int(idx) >= len(c.UnixFDs()) {
			c.ReplyError(testErrorName, "no fd")
			return
		}
		c.Reply(readFD(c.UnixFDs()[idx]))
	case "SendFD":
		// Reply a pipe holding the first argument, and the second
		// argument (padding).
		r, w, err := os.Pipe()
		if err != nil {
			c.ReplyError(testErrorName, err.Error())
			return
		}
		text, _ := c.Body[0].(string)
		w.WriteString(text)
		w.Close()
		c.Reply(dbus.UnixFD(r.Fd()), c.Body[1])
		r.Close()
	case "WhoAmI":
		c.Reply(c.Peer.UniqueName(), c.Peer.UID(), c.Peer.PID(), c.Destination())
	case "Emit":
		// Emit a signal with the given member and body, then reply.
		member, _ := c.Body[0].(string)
		s.b.Emit(testPath, testIface, member, c.Body[1:]...)
		c.Reply()
	default:
		c.ReplyError("org.freedesktop.DBus.Error.UnknownMethod", "no method "+c.Member)
	}
}

func (s *fakeService) PeerGone(p *Peer) { s.gone <- p }

// newTestBus returns a bus with a fakeService named testService, closed at
// the end of the test.
func newTestBus(t testing.TB, opts ...func(*Config)) (*Bus, *fakeService) {
	t.Helper()
	s := newFakeService()
	cfg := Config{ServiceName: testService, Handler: s}
	for _, o := range opts {
		o(&cfg)
	}
	b := New(cfg)
	s.b = b
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b, s
}

// busClient connects a godbus client to b over a pipe in BusMode and says
// Hello. It is closed at the end of the test.
func busClient(t testing.TB, b *Bus) *dbus.Conn {
	t.Helper()
	conn, err := dbus.NewConn(b.Pipe(BusMode))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Auth(nil); err != nil {
		t.Fatalf("Auth: %v", err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatalf("Hello: %v", err)
	}
	return conn
}

// peerClient connects a godbus client to b over a pipe in PeerMode. It
// pings the bus once, so the peer is listed by Bus.Peers when it returns.
func peerClient(t testing.TB, b *Bus) *dbus.Conn {
	t.Helper()
	conn, err := dbus.NewConn(b.Pipe(PeerMode))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Auth(nil); err != nil {
		t.Fatalf("Auth: %v", err)
	}
	if err := conn.Object("", "/").Call("org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		t.Fatalf("Ping: %v", err)
	}
	return conn
}

// addMatch adds a match rule through the driver.
func addMatch(t testing.TB, conn *dbus.Conn, rule string) {
	t.Helper()
	if err := conn.BusObject().Call("org.freedesktop.DBus.AddMatch", 0, rule).Err; err != nil {
		t.Fatalf("AddMatch(%q): %v", rule, err)
	}
}

// signals subscribes to conn's signals.
func signals(conn *dbus.Conn, n int) chan *dbus.Signal {
	ch := make(chan *dbus.Signal, n)
	conn.Signal(ch)
	return ch
}

// nextSignal returns the next signal on ch that is not from the driver,
// failing the test after testTimeout.
func nextSignal(t testing.TB, ch <-chan *dbus.Signal) *dbus.Signal {
	t.Helper()
	timer := time.NewTimer(testTimeout)
	defer timer.Stop()
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				t.Fatal("signal channel closed")
			}
			if s.Sender == driverName {
				continue
			}
			return s
		case <-timer.C:
			t.Fatal("timed out waiting for a signal")
		}
	}
}

// nextDriverSignal returns the next signal on ch from the driver with the
// given member.
func nextDriverSignal(t testing.TB, ch <-chan *dbus.Signal, member string) *dbus.Signal {
	t.Helper()
	timer := time.NewTimer(testTimeout)
	defer timer.Stop()
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				t.Fatal("signal channel closed")
			}
			if s.Sender == driverName && s.Name == driverIface+"."+member {
				return s
			}
		case <-timer.C:
			t.Fatalf("timed out waiting for %s", member)
		}
	}
}

// dbusErrorName returns the D-Bus error name of err, or "" if err is not a
// D-Bus error.
func dbusErrorName(err error) string {
	var e dbus.Error
	if errors.As(err, &e) {
		return e.Name
	}
	return ""
}

// waitDone waits for ch to be closed.
func waitDone(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// nextNameSignal waits for the driver signal member (NameAcquired or
// NameLost) about name, skipping others.
func nextNameSignal(t testing.TB, ch <-chan *dbus.Signal, member, name string) {
	t.Helper()
	for {
		if s := nextDriverSignal(t, ch, member); s.Body[0] == name {
			return
		}
	}
}

// encodeGodbus encodes m with godbus and the given serial.
func encodeGodbus(m *dbus.Message, serial uint32) ([]byte, error) {
	var buf bytes.Buffer
	if err := m.EncodeTo(&buf, binary.LittleEndian); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	binary.LittleEndian.PutUint32(data[8:12], serial)
	return data, nil
}

// peerNamed returns b's connection with the unique name name.
func peerNamed(t testing.TB, b *Bus, name string) *Peer {
	t.Helper()
	for _, p := range b.Peers() {
		if p.UniqueName() == name {
			return p
		}
	}
	t.Fatalf("%s is not among the bus's connections", name)
	return nil
}

// waitQueueEmpty waits until nothing waits to be written to p (or
// testTimeout passed).
func waitQueueEmpty(p *Peer) {
	for deadline := time.Now().Add(testTimeout); p.outHeld.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}
