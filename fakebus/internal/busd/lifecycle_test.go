package busd

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

func TestCloseWithActiveClients(t *testing.T) {
	b, svc := newTestBus(t)
	svc.entered = make(chan struct{}, 10)
	var conns []*dbus.Conn
	for i := 0; i < 3; i++ {
		conns = append(conns, busClient(t, b), peerClient(t, b))
	}
	// One call hangs forever (never answered), one handler is running.
	hang := conns[0].Object(testService, testPath).Go(testIface+".Hang", 0, nil)
	block := conns[1].Object("", testPath).Go(testIface+".Block", 0, nil)
	<-svc.entered

	closed := make(chan error)
	go func() { closed <- b.Close() }()
	// Close waits for the running handler; let it finish.
	close(svc.block)
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Close did not return")
	}
	for _, c := range conns {
		waitDone(t, c.Context().Done(), "client connection to end")
	}
	for _, call := range []*dbus.Call{hang, block} {
		select {
		case <-call.Done:
		case <-time.After(testTimeout):
			t.Fatal("pending call not finished")
		}
	}
	if hang.Err == nil {
		t.Error("hanging call succeeded")
	}
	// Replying after Close is a harmless no-op; so is emitting.
	svc.mu.Lock()
	for _, c := range svc.hung {
		c.Reply("too late")
	}
	svc.mu.Unlock()
	b.Emit(testPath, testIface, "AfterClose")
	b.DropPeers()
	if got := len(b.Peers()); got != 0 {
		t.Errorf("Peers() after Close = %d", got)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// A pipe to a closed bus is closed.
	if _, err := b.Pipe(BusMode).Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("Read from a pipe to a closed bus: %v, want EOF", err)
	}
}

func TestDropPeers(t *testing.T) {
	b, svc := newTestBus(t)
	conns := []*dbus.Conn{busClient(t, b), busClient(t, b), peerClient(t, b)}
	peers := b.Peers()
	b.DropPeers()
	for _, c := range conns {
		waitDone(t, c.Context().Done(), "client connection to end")
	}
	for _, p := range peers {
		waitDone(t, p.Done(), "Peer.Done")
	}
	gone := map[*Peer]bool{}
	for range peers {
		gone[<-svc.gone] = true
	}
	for _, p := range peers {
		if !gone[p] {
			t.Errorf("no PeerGone for %s", p.UniqueName())
		}
	}
	// The bus still works.
	c := busClient(t, b)
	if err := c.Object(testService, testPath).Call(testIface+".Echo", 0).Err; err != nil {
		t.Error(err)
	}
}

func TestPeerClose(t *testing.T) {
	b, _ := newTestBus(t)
	c := busClient(t, b)
	other := busClient(t, b)
	for _, p := range b.Peers() {
		if p.UniqueName() == c.Names()[0] {
			p.Close()
			waitDone(t, p.Done(), "Peer.Done")
		}
	}
	waitDone(t, c.Context().Done(), "client connection to end")
	if other.Context().Err() != nil {
		t.Error("the other client was dropped too")
	}
}

// TestSlowClientMissesMessages: a client that stops reading is not
// disconnected. As on dbus-daemon, once its queue holds more than
// Limits.MaxOutgoingBytes the messages for it are dropped (a method
// call's sender gets LimitsExceeded: TestFullQueueRefusesCalls), its
// queue stays bounded, every other client carries on, and once it reads
// again it gets what was queued and what is sent after.
func TestSlowClientMissesMessages(t *testing.T) {
	const max = 1 << 20
	b, svc := newTestBus(t, func(c *Config) { c.Limits.MaxOutgoingBytes = max })
	fast := busClient(t, b)
	addMatch(t, fast, "type='signal',interface='"+testIface+"'")
	ch := signals(fast, 1000)

	// A hand-made client: SASL, Hello and AddMatch written in one go; it
	// reads the answers and then nothing until the end.
	slow := b.Pipe(BusMode)
	defer slow.Close()
	var in bytes.Buffer
	in.WriteString("\x00AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n")
	for i, m := range []*dbus.Message{
		driverCallMessage("Hello"),
		driverCallMessage("AddMatch", "type='signal'"),
	} {
		data, err := encodeGodbus(m, uint32(i+1))
		if err != nil {
			t.Fatal(err)
		}
		in.Write(data)
	}
	if _, err := slow.Write(in.Bytes()); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(slow)
	for i := 0; i < 2; i++ { // DATA, OK
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	var name string
	for i := 0; i < 3; i++ { // Hello reply, NameAcquired, AddMatch reply
		m, err := dbus.DecodeMessage(r)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			name = m.Body[0].(string)
		}
	}
	peer := peerNamed(t, b, name)

	big := strings.Repeat("x", 64<<10)
	// The pipe buffers pipeLimit bytes and the queue, with the batch the
	// writer is writing, about 1 MiB more: 3 MiB more are dropped.
	// The fast client reads each signal before the next is sent.
	n := (pipeLimit + 4<<20) / len(big)
	for i := 0; i < n; i++ {
		b.Emit(testPath, testIface, "Big", big)
		if s := nextSignal(t, ch); s.Name != testIface+".Big" {
			t.Fatalf("fast client got %s", s.Name)
		}
		if held := peer.outHeld.Load(); held > max+int64(len(big))+4096 {
			t.Fatalf("after %d signals the slow client's queue holds %d bytes, over %d and a message", i+1, held, max)
		}
	}
	// The slow client reads again: what was queued, then, once its queue
	// has room again, what is sent after.
	type result struct {
		got int
		err error
	}
	done := make(chan result, 1)
	go func() {
		got := 0
		for {
			m, err := dbus.DecodeMessage(r)
			if err != nil {
				done <- result{got, err}
				return
			}
			if member, _ := m.Headers[dbus.FieldMember].Value().(string); member == "After" {
				done <- result{got, nil}
				return
			}
			got++
		}
	}()
	waitQueueEmpty(peer)
	b.Emit(testPath, testIface, "After")
	if s := nextSignal(t, ch); s.Name != testIface+".After" {
		t.Fatalf("fast client got %s", s.Name)
	}
	var res result
	select {
	case res = <-done:
	case <-time.After(testTimeout):
		t.Fatal("the slow client did not get the signal sent once its queue had room")
	}
	got := res.got
	if res.err != nil {
		t.Fatalf("slow client, after %d signals: %v", got, res.err)
	}
	if got >= n || got < max/len(big) {
		t.Errorf("the slow client read %d of the %d signals, want fewer (the rest dropped) and at least a queue's worth (%d)", got, n, max/len(big))
	}
	select {
	case p := <-svc.gone:
		t.Errorf("PeerGone(%s): a client was dropped", p.UniqueName())
	default:
	}
	if fast.Context().Err() != nil {
		t.Error("the fast client was dropped")
	}
}

func driverCallMessage(member string, body ...any) *dbus.Message {
	m := &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldDestination: dbus.MakeVariant(driverName),
		dbus.FieldPath:        dbus.MakeVariant(driverPath),
		dbus.FieldInterface:   dbus.MakeVariant(driverIface),
		dbus.FieldMember:      dbus.MakeVariant(member),
	}, Body: body}
	if len(body) > 0 {
		m.Headers[dbus.FieldSignature] = dbus.MakeVariant(dbus.SignatureOf(body...))
	}
	return m
}

func TestInvalidMessageDropsConnection(t *testing.T) {
	b, _ := newTestBus(t)
	c := b.Pipe(PeerMode)
	defer c.Close()
	if _, err := io.WriteString(c, "\x00AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\nXthis is not D-Bus"); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := "DATA\r\nOK " + b.guid + "\r\n"; string(got) != want {
		t.Errorf("read %q, want %q then EOF", got, want)
	}
}

func TestTrace(t *testing.T) {
	var mu sync.Mutex // guards events
	var events []string
	b, _ := newTestBus(t, func(c *Config) {
		c.Trace = func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			if e.Serial == 0 {
				events = append(events, "zero serial")
			}
			member, _ := e.Msg.Headers[dbus.FieldMember].Value().(string)
			events = append(events, e.Dir.String()+" "+e.Msg.Type.String()+" "+member+" "+e.Peer.Mode().String())
		}
	})
	c := peerClient(t, b)
	sigs := make(chan *dbus.Signal, 10)
	c.Signal(sigs)
	if err := c.Object("", testPath).Call(testIface+".Ordered", 0).Err; err != nil {
		t.Fatal(err)
	}
	// The reply can come before the handler has sent After: close once
	// After has come.
	for s := range sigs {
		if s.Name == testIface+".After" {
			break
		}
	}
	c.Close()
	b.Close()
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"in method call Ping peer", // by peerClient
		"out reply  peer",
		"in method call Ordered peer",
		"out signal Before peer",
		"out reply  peer",
		"out signal After peer",
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestPipe(t *testing.T) {
	a, b := newPipe()
	if _, err := a.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if n, err := b.Read(buf); err != nil || string(buf[:n]) != "hel" {
		t.Errorf("Read = %q, %v", buf[:n], err)
	}
	// A large write blocks until the reader drains it.
	big := bytes.Repeat([]byte("y"), pipeLimit+100)
	wrote := make(chan error)
	go func() {
		_, err := a.Write(big)
		wrote <- err
	}()
	got, err := io.ReadAll(io.LimitReader(b, int64(2+len(big))))
	if err != nil || !bytes.Equal(got, append([]byte("lo"), big...)) {
		t.Errorf("ReadAll: %d bytes, %v", len(got), err)
	}
	if err := <-wrote; err != nil {
		t.Errorf("Write: %v", err)
	}
	// Closing one end: the other drains, then sees EOF; writes fail.
	if _, err := b.Write([]byte("bye")); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if got, err := io.ReadAll(a); err != nil || string(got) != "bye" {
		t.Errorf("after peer Close: ReadAll = %q, %v", got, err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write to a closed peer: %v", err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write on a closed end: %v", err)
	}
	if _, err := b.Read(buf); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Read on a closed end: %v", err)
	}
	// Close unblocks a blocked Read.
	c, d := newPipe()
	read := make(chan error)
	go func() {
		_, err := c.Read(buf)
		read <- err
	}()
	d.Close()
	if err := <-read; err != io.EOF {
		t.Errorf("blocked Read after peer Close: %v, want EOF", err)
	}
	c.Close()
}
