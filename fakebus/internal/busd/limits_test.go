package busd

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"
)

// saslPeer is what a client sends to authenticate on a PeerMode connection.
const saslPeer = "\x00AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n"

// announce returns the first 16 bytes of a method call that announces a
// message of total bytes (header fields included).
func announce(total int) []byte {
	h := make([]byte, 16)
	h[0], h[1], h[3] = 'l', byte(dbus.TypeMethodCall), 1
	binary.LittleEndian.PutUint32(h[4:], uint32(total-16-64)) // body
	binary.LittleEndian.PutUint32(h[8:], 1)                   // serial
	binary.LittleEndian.PutUint32(h[12:], 64)                 // header fields
	return h
}

// heapInUse returns the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// drained waits until the server end of a Pipe's client end c has read
// everything written to it.
func drained(t *testing.T, c io.ReadWriteCloser) {
	t.Helper()
	pb := c.(*pipeEnd).w
	deadline := time.Now().Add(testTimeout)
	for {
		pb.mu.Lock()
		n := len(pb.buf) - pb.off
		pb.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the bus did not read what the client wrote")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAnnouncedLengthNotReserved: clients that send only the first 16
// bytes of a message announcing the largest size allowed, or more, make
// the bus hold nothing like what they announce (before the fix, 4 such
// clients grew the heap by 512 MiB).
func TestAnnouncedLengthNotReserved(t *testing.T) {
	for _, tt := range []struct {
		name     string
		clients  int
		announce int
	}{
		{"largest allowed", 16, DefaultMaxMessageSize},
		{"the protocol's largest", 4, 1 << 27},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestBus(t)
			before := heapInUse()
			var cs []io.ReadWriteCloser
			for i := 0; i < tt.clients; i++ {
				c := b.Pipe(PeerMode)
				defer c.Close()
				if _, err := io.WriteString(c, saslPeer); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Write(announce(tt.announce)); err != nil {
					t.Fatal(err)
				}
				cs = append(cs, c)
			}
			for _, c := range cs {
				drained(t, c)
			}
			// What the bus reserves it reserves as soon as it has the
			// header; give its readers a moment to do so.
			var grew int64
			for i := 0; i < 20; i++ {
				grew = max(grew, heapInUse()-before)
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("%d clients announcing %d MiB each: the heap grew by %.1f MiB", tt.clients, tt.announce>>20, float64(grew)/(1<<20))
			if limit := int64(4 << 20); grew > limit {
				t.Errorf("the heap grew by %d MiB, want under %d MiB", grew>>20, limit>>20)
			}
		})
	}
}

// limitEvents makes the bus report passed limits on the returned channel.
func limitEvents(c *Config) chan LimitEvent {
	ch := make(chan LimitEvent, 1000)
	c.LimitExceeded = func(e LimitEvent) { ch <- e }
	return ch
}

// socketPairClient returns the client end of a unix socketpair whose other
// end b serves (the kernel buffers only a little, unlike a Pipe).
func socketPairClient(t *testing.T, b *Bus, mode Mode) *net.UnixConn {
	t.Helper()
	client, server, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	b.ServeConn(server, mode)
	return client
}

// callBytes encodes a method call to the test service.
func callBytes(t testing.TB, serial uint32, member string, body ...any) []byte {
	t.Helper()
	data, err := (&outMsg{typ: dbus.TypeMethodCall, path: testPath, iface: testIface, member: member, dest: testService, body: body}).encode(serial)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeAll writes the pieces to c, ignoring errors (the bus may have
// closed the connection already).
func writeAll(c io.Writer, pieces ...[]byte) {
	for _, p := range pieces {
		if _, err := c.Write(p); err != nil {
			return
		}
	}
}

// manyEchoes is n Echo calls of a 64 KiB string each.
func manyEchoes(t testing.TB, n int) []byte {
	big := strings.Repeat("x", 64<<10)
	var out []byte
	for i := 0; i < n; i++ {
		out = append(out, callBytes(t, uint32(i+1), "Echo", big)...)
	}
	return out
}

// TestLimits: a client that passes a limit is disconnected with the
// limit reported, and a well-behaved client connected to the same bus
// carries on.
func TestLimits(t *testing.T) {
	bytesVariants := make([]dbus.Variant, 2000)
	for i := range bytesVariants {
		bytesVariants[i] = dbus.MakeVariant(byte(i))
	}
	tests := []struct {
		name   string
		limits Limits
		want   Limit
		// hostile misbehaves on b; good is the well-behaved client's peer.
		hostile func(t *testing.T, b *Bus)
	}{
		{"message too big", Limits{}, LimitMessageSize, func(t *testing.T, b *Bus) {
			c := b.Pipe(PeerMode)
			t.Cleanup(func() { c.Close() })
			writeAll(c, []byte(saslPeer), announce(DefaultMaxMessageSize+8))
		}},
		{"connection's input", Limits{MaxIncomingBytes: 128 << 10}, LimitIncomingBytes, func(t *testing.T, b *Bus) {
			c := b.Pipe(PeerMode)
			t.Cleanup(func() { c.Close() })
			writeAll(c, []byte(saslPeer), callBytes(t, 1, "Echo", strings.Repeat("x", 200<<10)))
		}},
		{"total input", Limits{MaxTotalIncomingBytes: 512 << 10}, LimitTotalIncomingBytes, func(t *testing.T, b *Bus) {
			// Each sends 300 KiB of a 1 MiB message, then waits.
			part := callBytes(t, 1, "Echo", strings.Repeat("x", 1<<20))[:300<<10]
			for i := 0; i < 2; i++ {
				c := b.Pipe(PeerMode)
				t.Cleanup(func() { c.Close() })
				writeAll(c, []byte(saslPeer), part)
			}
		}},
		{"total output", Limits{MaxTotalOutgoingBytes: 1 << 20}, LimitTotalOutgoingBytes, func(t *testing.T, b *Bus) {
			for i := 0; i < 2; i++ {
				c := socketPairClient(t, b, PeerMode)
				go writeAll(c, []byte(saslPeer), manyEchoes(t, 40))
			}
		}},
		{"fds in a message", Limits{}, LimitMessageUnixFDs, func(t *testing.T, b *Bus) {
			// 17 fds, one more than dbus-daemon's system bus takes.
			r := pipeWith(t, "")
			body := make([]any, DefaultMaxMessageUnixFDs+1)
			for i := range body {
				body[i] = dbus.UnixFD(r.Fd())
			}
			data, fds := callFDs(t, 1, "Echo", body...)
			c := socketPairClient(t, b, PeerMode)
			writeAll(c, []byte(saslFD))
			c.WriteMsgUnix(data, unix.UnixRights(fds...), nil)
		}},
		{"fds without their message", Limits{}, LimitMessageUnixFDs, func(t *testing.T, b *Bus) {
			// 33 fds with one byte, no message counting them yet: more
			// than two messages may carry (a read may bring the fds of
			// the message after the one it completes).
			r := pipeWith(t, "")
			fds := make([]int, 2*DefaultMaxMessageUnixFDs+1)
			for i := range fds {
				fds[i] = int(r.Fd())
			}
			c := socketPairClient(t, b, PeerMode)
			writeAll(c, []byte(saslFD))
			c.WriteMsgUnix([]byte("l"), unix.UnixRights(fds...), nil)
		}},
		{"decoding", Limits{}, LimitDecodeRatio, func(t *testing.T, b *Bus) {
			c := b.Pipe(PeerMode)
			t.Cleanup(func() { c.Close() })
			writeAll(c, []byte(saslPeer), callBytes(t, 1, "Echo", bytesVariants))
		}},
		{"authentication time", Limits{AuthTimeout: 50 * time.Millisecond}, LimitAuthTimeout, func(t *testing.T, b *Bus) {
			c := b.Pipe(PeerMode)
			t.Cleanup(func() { c.Close() })
			writeAll(c, []byte("\x00AUTH EXTERNAL\r\n"))
		}},
		{"connections authenticating", Limits{MaxIncompleteConnections: 2}, LimitIncompleteConnections, func(t *testing.T, b *Bus) {
			for i := 0; i < 3; i++ {
				c := b.Pipe(PeerMode)
				t.Cleanup(func() { c.Close() })
				writeAll(c, []byte("\x00"))
			}
		}},
		{"connections", Limits{MaxConnections: 1}, LimitConnections, func(t *testing.T, b *Bus) {
			c := b.Pipe(PeerMode)
			t.Cleanup(func() { c.Close() })
			writeAll(c, []byte(saslPeer))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events chan LimitEvent
			b, _ := newTestBus(t, func(c *Config) {
				c.Limits = tt.limits
				events = limitEvents(c)
			})
			good := peerClient(t, b)
			tt.hostile(t, b)
			select {
			case e := <-events:
				if e.Limit != tt.want {
					t.Errorf("limit %v passed (value %d, max %d), want %v", e.Limit, e.Value, e.Max, tt.want)
				}
				if e.Value <= e.Max && e.Limit != LimitAuthTimeout {
					t.Errorf("%v: value %d, max %d", e.Limit, e.Value, e.Max)
				}
			case <-time.After(testTimeout):
				t.Fatalf("no limit passed, want %v", tt.want)
			}
			if err := good.Object("", testPath).Call(testIface+".Echo", 0, "still here").Err; err != nil {
				t.Errorf("the well-behaved client: %v", err)
			}
		})
	}
}

// TestDecodeMemory: the decoder's estimate of what a message's values
// take bounds the memory they take, and a busy systemd message stays well
// within the default ratio while hostile shapes pass it.
func TestDecodeMemory(t *testing.T) {
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	type aux struct {
		Name  string
		Props []prop
	}
	type execCommand struct {
		Path   string
		Argv   []string
		Ignore bool
	}
	n := 1000
	variants := make([]dbus.Variant, n)
	empties := make([][]byte, n)
	structs := make([]struct{ B byte }, n)
	byKey := make(map[uint32]dbus.Variant, n)
	arrays := make([][]dbus.Variant, n)
	for i := 0; i < n; i++ {
		variants[i] = dbus.MakeVariant(byte(i))
		empties[i] = []byte{}
		byKey[uint32(i)] = dbus.MakeVariant(byte(i))
		arrays[i] = []dbus.Variant{}
	}
	nested := dbus.MakeVariant(uint32(1))
	for i := 0; i < 60; i++ {
		nested = dbus.MakeVariant(nested)
	}
	transient := []any{"run-r1f2.scope", "fail", []prop{
		{"Description", dbus.MakeVariant("a transient unit for a test")},
		{"PIDs", dbus.MakeVariant([]uint32{4242})},
		{"Slice", dbus.MakeVariant("system.slice")},
		{"Delegate", dbus.MakeVariant(true)},
		{"CollectMode", dbus.MakeVariant("inactive-or-failed")},
		{"MemoryMax", dbus.MakeVariant(uint64(1 << 30))},
		{"ExecStart", dbus.MakeVariant([]execCommand{{"/bin/sleep", []string{"/bin/sleep", "5"}, false}})},
		{"Environment", dbus.MakeVariant([]string{"A=1", "B=2"})},
	}, []aux{}}
	tests := []struct {
		name    string
		body    []any
		hostile bool
	}{
		{"StartTransientUnit", transient, false},
		{"array of byte variants", []any{variants}, true},
		{"array of empty arrays", []any{empties}, true},
		{"array of one-byte structs", []any{structs}, true},
		{"dict of one-byte variants", []any{byKey}, true},
		{"array of empty variant arrays", []any{arrays}, true},
		{"nested variants", []any{nested}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := string(callBytes(t, 1, "M", tt.body...))
			m, err := parseMessage(raw)
			if tt.hostile {
				if err == nil {
					t.Errorf("decoded %d bytes to an estimated %d, want a ratio error", len(raw), m.decoded)
				}
			} else if err != nil {
				t.Fatalf("parseMessage: %v", err)
			}
			// What the decoded values of many copies take, with no ratio.
			runs := max(20, (1<<20)/len(raw))
			kept := make([]*inMsg, runs)
			before := heapInUse()
			for i := range kept {
				if kept[i], _, err = parseMessageBudget(raw, 1<<20, nil); err != nil {
					t.Fatal(err)
				}
			}
			took := int(heapInUse()-before) / runs
			runtime.KeepAlive(kept)
			m = kept[0]
			t.Logf("%d bytes: %d taken, %d estimated (%.1f and %.1f per byte)", len(raw), took, m.decoded,
				float64(took)/float64(len(raw)), float64(m.decoded)/float64(len(raw)))
			if slack := 512; took > m.decoded+slack {
				t.Errorf("the values take %d bytes, more than the estimate %d (+%d)", took, m.decoded, slack)
			}
		})
	}
}

// rawUnixClient connects to the bus socket at path as a hand-made client
// that negotiates fd passing and says Hello; it returns the connection,
// a reader of what the bus sends and the client's unique name. It reads
// nothing more unless the test does.
func rawUnixClient(t *testing.T, path string) (*net.UnixConn, *bufio.Reader, string) {
	t.Helper()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	hello, err := encodeGodbus(driverCallMessage("Hello"), 1)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(c, []byte(saslFD), hello)
	r := bufio.NewReader(c)
	for _, want := range []string{"DATA", "OK", "AGREE_UNIX_FD"} {
		if l, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(l, want) {
			t.Fatalf("SASL: %q, %v; want %s", l, err, want)
		}
	}
	m, err := dbus.DecodeMessage(r) // the Hello reply (NameAcquired follows)
	if err != nil {
		t.Fatal(err)
	}
	return c, r, m.Body[0].(string)
}

// readFrame reads the next message's bytes, whatever it holds (its fds,
// if any, are dropped by the kernel: the reader takes no SCM_RIGHTS).
func readFrame(r *bufio.Reader) ([]byte, error) {
	fixed := make([]byte, 16)
	if _, err := io.ReadFull(r, fixed); err != nil {
		return nil, err
	}
	body := binary.LittleEndian.Uint32(fixed[4:])
	fields := binary.LittleEndian.Uint32(fixed[12:])
	rest := make([]byte, (fields+7)&^7+body)
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, err
	}
	return append(fixed, rest...), nil
}

// TestFullQueueRefusesCalls: as on dbus-daemon (measured with 1.14 and
// 8 senders), a method call for a client whose queue is over
// MaxOutgoingBytes or MaxOutgoingUnixFDs is refused with LimitsExceeded
// and dbus-daemon's text, and the client that does not read stays
// connected: once it reads, it gets what was queued and the bus answers
// it.
func TestFullQueueRefusesCalls(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		body   func(t *testing.T) []any
	}{
		{"bytes", Limits{MaxOutgoingBytes: 64 << 10}, func(t *testing.T) []any {
			return []any{strings.Repeat("x", 16<<10)}
		}},
		{"fds", Limits{MaxOutgoingUnixFDs: 4}, func(t *testing.T) []any {
			return []any{dbus.UnixFD(pipeWith(t, "").Fd())}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events chan LimitEvent
			b, svc := newTestBus(t, func(c *Config) {
				c.Limits = tt.limits
				events = limitEvents(c)
			})
			sock := filepath.Join(t.TempDir(), "bus")
			if err := b.Listen(sock, BusMode); err != nil {
				t.Fatal(err)
			}
			recipient, r, name := rawUnixClient(t, sock)
			sender := unixClient(t, sock)
			t.Cleanup(func() { sender.Close() })
			body := tt.body(t)
			replies := make(chan *dbus.Call, 10000)
			var refused *dbus.Call
			for i := 0; i < cap(replies) && refused == nil; i++ {
				sender.Object(name, "/x").Go("org.test.Full.Take", 0, replies, body...)
				select {
				case c := <-replies:
					refused = c
				default:
				}
			}
			if refused == nil {
				select {
				case refused = <-replies:
				case <-time.After(testTimeout):
					t.Fatalf("%d calls to a client that does not read, none refused", cap(replies))
				}
			}
			want := regexp.MustCompile(`^Rejected: destination has a full message queue, 0 matched rules; type="method_call", sender="` +
				regexp.QuoteMeta(sender.Names()[0]) + `" \(uid=\d+ pid=\d+ comm="[^"]*"\) interface="org.test.Full" member="Take" ` +
				`error name="\(unset\)" requested_reply="0" destination="` + regexp.QuoteMeta(name) + `" \(uid=\d+ pid=\d+ comm="[^"]*"\)$`)
			if got := dbusErrorName(refused.Err); got != errLimitsExceeded || !want.MatchString(refused.Err.Error()) {
				t.Errorf("refused call: %s: %v; want %s matching %s", got, refused.Err, errLimitsExceeded, want)
			}

			// Calls written after the refused one may still be on their
			// way; the bus handles a connection's messages in order, so
			// once it answers the sender, each of them was queued or
			// refused, and none is queued after the recipient's queue
			// empties (which would fill it again and drop the Ping's
			// answer below).
			if err := sender.BusObject().Call(peerIface+".Ping", 0).Err; err != nil {
				t.Fatal(err)
			}

			// The recipient reads again and, once its queue is empty (a
			// reply for a full queue is dropped too), asks the bus
			// something.
			type result struct {
				calls int
				err   error
			}
			done := make(chan result, 1)
			recipient.SetReadDeadline(time.Now().Add(testTimeout))
			go func() {
				calls := 0
				for {
					f, err := readFrame(r)
					switch {
					case err != nil:
						done <- result{calls, err}
						return
					case dbus.Type(f[1]) == dbus.TypeMethodReply:
						done <- result{calls, nil} // Ping's answer
						return
					case dbus.Type(f[1]) == dbus.TypeMethodCall:
						calls++
					}
				}
			}()
			waitQueueEmpty(peerNamed(t, b, name))
			ping, err := encodeGodbus(&dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
				dbus.FieldDestination: dbus.MakeVariant(driverName),
				dbus.FieldPath:        dbus.MakeVariant(driverPath),
				dbus.FieldInterface:   dbus.MakeVariant(peerIface),
				dbus.FieldMember:      dbus.MakeVariant("Ping"),
			}}, 2)
			if err != nil {
				t.Fatal(err)
			}
			writeAll(recipient, ping)
			res := <-done
			calls := res.calls
			if res.err != nil {
				t.Fatalf("the recipient, after %d calls: %v", calls, res.err)
			}
			if calls == 0 {
				t.Error("the recipient got none of the calls queued for it")
			}
			select {
			case e := <-events:
				t.Errorf("limit %v closed %s", e.Limit, e.Peer.UniqueName())
			case p := <-svc.gone:
				t.Errorf("PeerGone(%s)", p.UniqueName())
			default:
			}
		})
	}
}
