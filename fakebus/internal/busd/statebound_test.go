package busd

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// ignoreService never answers a call and keeps nothing of it, as the fake
// does with DumpByFileDescriptor.
type ignoreService struct{}

func (ignoreService) HandleCall(*Call) {}
func (ignoreService) PeerGone(p *Peer) {}

// worstRule returns a valid match rule of exactly maxMatchRuleLen bytes
// with the most arguments a rule may have (64), so that it holds as much
// as a rule can; n makes it unique.
func worstRule(n int) string {
	var b strings.Builder
	b.WriteString("type='method_call'")
	for i := 0; i <= maxMatchArg; i++ {
		fmt.Fprintf(&b, ",arg%d=''", i)
	}
	pad := maxMatchRuleLen - b.Len()
	b.Reset()
	b.WriteString("type='method_call'")
	for i := 0; i <= maxMatchArg; i++ {
		v := ""
		if i == 0 {
			v = fmt.Sprintf("%06d", n)
		}
		w := pad / (maxMatchArg + 1)
		if i == 0 {
			w += pad % (maxMatchArg + 1)
		}
		v += strings.Repeat("v", w-len(v))
		fmt.Fprintf(&b, ",arg%d='%s'", i, v)
	}
	return b.String()
}

// worstName returns a valid well-known name of maxNameLen bytes.
func worstName(conn, i int) string {
	s := fmt.Sprintf("n%06d.n%05d.", conn, i)
	return s + strings.Repeat("x", maxNameLen-len(s))
}

// stateClient is a BusMode client over a Pipe that writes encoded
// messages and reads only to wait for a reply, keeping nothing.
type stateClient struct {
	c      io.ReadWriteCloser
	r      *bufio.Reader
	serial uint32
	claim  string // the uid claimed in AUTH EXTERNAL ("" for none)
}

func newStateClient(t *testing.T, b *Bus) *stateClient {
	t.Helper()
	rc := &stateClient{c: b.Pipe(BusMode)}
	t.Cleanup(func() { rc.c.Close() })
	return rc
}

// call encodes a method call to dest; noReply sets NO_REPLY_EXPECTED.
func (rc *stateClient) call(t *testing.T, buf []byte, dest, iface, member string, noReply bool, body ...any) ([]byte, uint32) {
	t.Helper()
	path := driverPath
	if dest != driverName {
		path = testPath
	}
	m := &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:        dbus.MakeVariant(path),
		dbus.FieldInterface:   dbus.MakeVariant(iface),
		dbus.FieldMember:      dbus.MakeVariant(member),
		dbus.FieldDestination: dbus.MakeVariant(dest),
	}, Body: body}
	if len(body) > 0 {
		m.Headers[dbus.FieldSignature] = dbus.MakeVariant(dbus.SignatureOf(body...))
	}
	if noReply {
		m.Flags = dbus.FlagNoReplyExpected
	}
	rc.serial++
	data, err := encodeGodbus(m, rc.serial)
	if err != nil {
		t.Fatal(err)
	}
	return append(buf, data...), rc.serial
}

// send writes buf, then waits for the reply to serial, reading (and
// dropping) whatever came before it; if auth, the SASL exchange comes
// first.
func (rc *stateClient) send(buf []byte, serial uint32, auth bool) error {
	_, err := rc.exchange(buf, serial, auth)
	return err
}

// exchange is send returning the reply; an error reply to serial is
// returned as a dbus.Error.
func (rc *stateClient) exchange(buf []byte, serial uint32, auth bool) (*dbus.Message, error) {
	if auth {
		sasl := "\x00AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n"
		if rc.claim != "" {
			sasl = "\x00AUTH EXTERNAL " + hex.EncodeToString([]byte(rc.claim)) + "\r\nBEGIN\r\n"
		}
		buf = append([]byte(sasl), buf...)
	}
	if _, err := rc.c.Write(buf); err != nil {
		return nil, err
	}
	if rc.r == nil {
		rc.r = bufio.NewReaderSize(rc.c, 4096)
	}
	if auth {
		for {
			line, err := rc.r.ReadString('\n')
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(line, "OK ") {
				break
			}
		}
	}
	for {
		m, err := dbus.DecodeMessage(rc.r)
		if err != nil {
			return nil, err
		}
		toUs := m.Headers[dbus.FieldReplySerial].Value() == serial
		switch {
		case m.Type == dbus.TypeError && toUs:
			name, _ := m.Headers[dbus.FieldErrorName].Value().(string)
			return nil, dbus.Error{Name: name, Body: m.Body}
		case m.Type == dbus.TypeError:
			return nil, fmt.Errorf("error reply: %v %v", m.Headers[dbus.FieldErrorName], m.Body)
		case m.Type == dbus.TypeMethodReply && toUs:
			return m, nil
		}
	}
}

// release lets go of the memory the pipe and the reader hold for the
// test's side of the connection, so that the heap shows what the bus holds.
func (rc *stateClient) release() {
	rc.r = nil
	e := rc.c.(*pipeEnd)
	for _, pb := range []*pipeBuffer{e.r, e.w} {
		pb.mu.Lock()
		if pb.off == len(pb.buf) {
			pb.buf, pb.off = nil, 0
		}
		pb.mu.Unlock()
	}
}

// stateBoundConns is how many connections TestStateBound drives to every
// limit: the default Limits.MaxConnections (about 20 s on 2 cores), or
// 32 under the race detector or -short (2 to 4 s). What a connection
// holds does not depend on how many there are: measured on 2 cores,
// 1,374 to 1,414 KiB per connection with 512 and 1,375 KiB with 64,
// against a bound of 2,208 KiB.
func stateBoundConns() int {
	if raceEnabled || testing.Short() {
		return 32
	}
	return DefaultMaxConnections
}

// TestStateBound drives stateBoundConns connections to every limit on
// what a connection may make the bus keep, at once: half of them own
// 511 names of 255 bytes and have 512 match rules of 1,024 bytes with 64
// arguments, the other half are monitors with 512 such rules, and every
// one has 128 calls with 4 KiB bodies that the service never answers. The
// heap must grow by less than PerConnectionOverhead + PerConnectionState
// per connection, the bound Limits documents (before the fix, names and
// monitor rules were unlimited and the pending calls kept their bodies).
func TestStateBound(t *testing.T) {
	n := stateBoundConns()
	b := New(Config{ServiceName: testService, Handler: ignoreService{}})
	defer b.Close()
	lim := b.lim
	before := heapInUse()
	start := time.Now()

	clients := make([]*stateClient, n)
	monitor := func(i int) bool { return i%2 == 1 }
	// Each phase runs on every connection before the next starts: names
	// first, rules after, so that no NameOwnerChanged is matched against
	// 512 rules of every connection.
	var phases []string
	phase := func(name string, build func(i int, rc *stateClient) ([]byte, uint32), auth bool) {
		t.Helper()
		t0 := time.Now()
		defer func() {
			phases = append(phases, fmt.Sprintf("%s %v, heap %+.1f MiB", name, time.Since(t0).Round(time.Millisecond), float64(heapInUse()-before)/(1<<20)))
		}()
		var wg sync.WaitGroup
		errs := make([]error, n)
		// Fewer at once than Limits.MaxIncompleteConnections.
		sem := make(chan struct{}, 16)
		for i := range clients {
			if clients[i] == nil {
				clients[i] = newStateClient(t, b)
			}
			rc := clients[i]
			buf, serial := build(i, rc)
			if buf == nil {
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			i := i
			go func() {
				defer wg.Done()
				errs[i] = rc.send(buf, serial, auth)
				rc.release()
				<-sem
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%s, connection %d: %v", name, i, err)
			}
		}
	}
	ping := func(rc *stateClient, buf []byte) ([]byte, uint32) {
		return rc.call(t, buf, driverName, peerIface, "Ping", false)
	}
	// Messages are encoded once and sent many times (the bus does not
	// mind a serial used twice on calls that expect no reply, and keeps
	// a copy of each rule however often it is added): under the race
	// detector, encoding would take longer than the bus takes.
	var tmpl stateClient
	requestName, _ := tmpl.call(t, nil, driverName, driverIface, "RequestName", true, worstName(0, 0), uint32(0))
	at := strings.Index(string(requestName), worstName(0, 0))
	phase("names", func(i int, rc *stateClient) ([]byte, uint32) {
		buf, _ := rc.call(t, nil, driverName, driverIface, "Hello", false)
		for j := 1; j < lim.MaxNames && !monitor(i); j++ {
			// The name differs in its first 14 bytes: "n%06d.n%05d.".
			buf = append(buf, requestName...)
			copy(buf[len(buf)-len(requestName)+at:], fmt.Sprintf("n%06d.n%05d.", i, j))
		}
		return ping(rc, buf)
	}, true)
	addMatch, _ := tmpl.call(t, nil, driverName, driverIface, "AddMatch", true, worstRule(0))
	ignore, _ := tmpl.call(t, nil, testService, testIface, "Ignore", false, strings.Repeat("b", 4<<10))
	phase("rules and calls", func(i int, rc *stateClient) ([]byte, uint32) {
		var buf []byte
		for j := 0; j < lim.MaxMatchRules && !monitor(i); j++ {
			buf = append(buf, addMatch...)
		}
		for j := 0; j < lim.MaxPendingReplies; j++ {
			buf = append(buf, ignore...)
		}
		return ping(rc, buf)
	}, false)
	rules := make([]string, lim.MaxMatchRules)
	for j := range rules {
		rules[j] = worstRule(j)
	}
	becomeMonitor, serial := tmpl.call(t, nil, driverName, "org.freedesktop.DBus.Monitoring", "BecomeMonitor", false, rules, uint32(0))
	phase("monitors", func(i int, rc *stateClient) ([]byte, uint32) {
		if !monitor(i) {
			return nil, 0
		}
		return becomeMonitor, serial
	}, false)
	setup := time.Since(start)
	t.Logf("phases: %v", phases)

	// Every connection is at every limit.
	b.mu.RLock()
	var got [4]int
	for p := range b.peers {
		if len(p.rules) == lim.MaxMatchRules {
			got[0]++
		}
		if 1+len(p.owned) == lim.MaxNames {
			got[1]++
		}
		if p.monitor.Load() {
			got[2]++
		}
		if p.pendingReplies.Load() == int64(lim.MaxPendingReplies) {
			got[3]++
		}
	}
	b.mu.RUnlock()
	if want := [4]int{n, n / 2, n / 2, n}; got != want {
		t.Fatalf("connections at the limits on rules, names, monitors, pending replies: %v, want %v", got, want)
	}

	grew := heapInUse() - before
	bound := int64(n) * (PerConnectionOverhead + lim.stateBound())
	t.Logf("%d connections at every limit (set up in %v): the heap grew by %.1f MiB, %.0f KiB per connection (bound %.0f KiB: overhead %d KiB + state %d KiB)",
		n, setup.Round(time.Millisecond), float64(grew)/(1<<20), float64(grew)/float64(n)/1024,
		float64(bound)/float64(n)/1024, PerConnectionOverhead>>10, lim.stateBound()>>10)
	if grew > bound {
		t.Errorf("the heap grew by %d MiB, over the bound of %d MiB", grew>>20, bound>>20)
	}

	// Let the connections go without matching every departure's
	// NameOwnerChanged against every rule left.
	b.mu.Lock()
	for p := range b.peers {
		b.setRulesLocked(p, nil)
	}
	b.mu.Unlock()
}
