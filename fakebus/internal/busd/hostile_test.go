package busd

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// A hostile-client workload: 100 clients that misbehave in every way the
// limits answer, next to a well-behaved client running jobs.

// socketPair returns both ends of a unix socketpair.
func socketPair() (client, server *net.UnixConn, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	conn := func(fd int) (*net.UnixConn, error) {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			return nil, err
		}
		return c.(*net.UnixConn), nil
	}
	if client, err = conn(fds[0]); err != nil {
		syscall.Close(fds[1])
		return nil, nil, err
	}
	if server, err = conn(fds[1]); err != nil {
		client.Close()
		return nil, nil, err
	}
	return client, server, nil
}

// jobRunner is a well-behaved client: it runs jobs (a call, its reply,
// and the JobRemoved signal that ends the job) one after the other and
// counts them.
type jobRunner struct {
	jobs atomic.Int64
	stop chan struct{}
	done chan struct{}
	err  error // why it stopped early, read after done is closed
}

func startJobRunner(tb testing.TB, b *Bus) *jobRunner {
	tb.Helper()
	client, server, err := socketPair()
	if err != nil {
		tb.Fatal(err)
	}
	b.ServeConn(server, BusMode)
	conn, err := dbus.NewConn(client)
	if err != nil {
		tb.Fatal(err)
	}
	if err := conn.Auth(nil); err != nil {
		tb.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		tb.Fatal(err)
	}
	addMatch(tb, conn, "type='signal',sender='"+testService+"',member='JobRemoved',arg0='"+conn.Names()[0]+"'")
	sigs := signals(conn, 16)
	j := &jobRunner{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(j.done)
		defer conn.Close()
		obj := conn.Object(testService, testPath)
		for {
			select {
			case <-j.stop:
				return
			default:
			}
			if err := obj.Call(testIface+".Job", 0).Err; err != nil {
				j.err = err
				return
			}
			select {
			case <-sigs:
			case <-time.After(testTimeout):
				j.err = fmt.Errorf("no JobRemoved")
				return
			}
			j.jobs.Add(1)
		}
	}()
	tb.Cleanup(j.close)
	return j
}

func (j *jobRunner) close() {
	select {
	case <-j.stop:
	default:
		close(j.stop)
	}
	<-j.done
}

// hostiles are 100 misbehaving clients, each a goroutine that
// misbehaves again a second after the bus has closed its connection.
type hostiles struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex // guards conns
	// conns are the open client connections, closed by close.
	conns map[net.Conn]struct{}
}

// hostileKinds are the kinds of hostile clients and how many of each.
var hostileKinds = []struct {
	name string
	n    int
}{
	{"announces the largest message allowed and sends no more", 10},
	{"announces a message the protocol allows, over the bus's limit", 10},
	{"dribbles a message, 16 bytes every 100 ms", 20},
	{"nests variants too deep", 20},
	{"never reads: queues 1 MiB of replies and takes every signal", 20},
	{"never finishes authenticating", 20},
}

// neverReaderEchoes is how many 64 KiB Echo calls a client that never
// reads makes.
const neverReaderEchoes = 16

// startHostiles starts the 100 hostile clients and returns once each has
// sent what it sends first and the bus has answered the calls of those
// that never read.
func startHostiles(tb testing.TB, b *Bus, svc *benchService) *hostiles {
	echoed := svc.echoes.Load()
	h := &hostiles{stop: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	// 70 variants nested in each other (the bus takes 64).
	body := strings.Repeat("\x01v\x00", 70) + "\x01u\x00"
	body += strings.Repeat("\x00", (4-len(body)%4)%4) + "\x01\x00\x00\x00"
	deep, err := (&outMsg{typ: dbus.TypeMethodCall, path: testPath, iface: testIface, member: "Echo", dest: testService,
		sig: "v", rawBody: body}).encode(1)
	if err != nil {
		tb.Fatal(err)
	}
	tooDeep := append([]byte(saslPeer), deep...)
	dribbled := callBytes(tb, 1, "Echo", strings.Repeat("x", 1<<20))
	echoes := manyEchoes(tb, neverReaderEchoes)      // 1 MiB of replies
	never := []byte("\x00AUTH EXTERNAL\r\nDATA\r\n") // and no BEGIN
	var started sync.WaitGroup
	for _, kind := range hostileKinds {
		kind := kind
		for i := 0; i < kind.n; i++ {
			started.Add(1)
			h.wg.Add(1)
			go func() {
				defer h.wg.Done()
				first := true
				for {
					c := h.dial(b, BusMode)
					if c == nil {
						if first {
							started.Done()
						}
						return
					}
					switch kind.name {
					case hostileKinds[0].name:
						writeAll(c, []byte(saslPeer), announce(DefaultMaxMessageSize))
					case hostileKinds[1].name:
						writeAll(c, []byte(saslPeer), announce(1<<27))
					case hostileKinds[2].name:
						writeAll(c, []byte(saslPeer))
					case hostileKinds[3].name:
						writeAll(c, tooDeep)
					case hostileKinds[4].name:
						writeAll(c, []byte(saslPeer), helloAndMatchAll(tb), echoes)
					case hostileKinds[5].name:
						writeAll(c, never)
					}
					if first {
						started.Done()
						first = false
					}
					if kind.name == hostileKinds[2].name {
						for off := 0; off < len(dribbled); off += 16 {
							if !h.pause(100 * time.Millisecond) {
								return
							}
							if _, err := c.Write(dribbled[off : off+16]); err != nil {
								break
							}
						}
					}
					if kind.name == hostileKinds[4].name {
						<-h.stop // never reads
						return
					}
					// Wait for the bus to close the connection (or the end).
					_, _ = io.Copy(io.Discard, c)
					h.forget(c)
					if !h.pause(time.Second) {
						return
					}
				}
			}()
		}
	}
	started.Wait()
	deadline := time.Now().Add(testTimeout)
	for svc.echoes.Load()-echoed < int64(hostileKinds[4].n*neverReaderEchoes) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return h
}

// helloAndMatchAll is Hello and a match rule for every signal.
func helloAndMatchAll(tb testing.TB) []byte {
	hello, err := encodeGodbus(driverCallMessage("Hello"), 1001)
	if err != nil {
		tb.Fatal(err)
	}
	match, err := encodeGodbus(driverCallMessage("AddMatch", "type='signal'"), 1002)
	if err != nil {
		tb.Fatal(err)
	}
	return append(hello, match...)
}

// dial connects a new client, or returns nil once the hostiles stop.
func (h *hostiles) dial(b *Bus, mode Mode) net.Conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.stop:
		return nil
	default:
	}
	client, server, err := socketPair()
	if err != nil {
		return nil
	}
	b.ServeConn(server, mode)
	h.conns[client] = struct{}{}
	return client
}

func (h *hostiles) forget(c net.Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, c)
	c.Close()
}

// pause waits d; it reports false if the hostiles stopped meanwhile.
func (h *hostiles) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-h.stop:
		return false
	case <-t.C:
		return true
	}
}

// close stops every hostile client and closes its connection.
func (h *hostiles) close() {
	h.mu.Lock()
	close(h.stop)
	for c := range h.conns {
		c.Close()
	}
	h.conns = nil
	h.mu.Unlock()
	h.wg.Wait()
}

// TestHostileClients: 100 clients that announce huge messages, dribble
// bytes, nest too deep, never read or never finish authenticating do not
// take the bus down: its heap stays under the documented bound, and a
// well-behaved client keeps running jobs about as fast as the client of
// a bus without them.
//
// The two buses run side by side in this process, each with a client
// running jobs, and their job counts are compared over the same seconds,
// before and while the hostile clients misbehave on the second: load
// from elsewhere on the machine (or from the hostile clients' own
// goroutines in this process) hits both alike. The ratio is logged; the
// test fails below minJobRatio, which a stalled or starved client would
// fall far below. It does not assert 0.9: on a loaded 2-core machine two
// identical clients side by side differ by up to a third over seconds.
// BenchmarkHostileClients measures the throughput with and without them.
func TestHostileClients(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a few seconds")
	}
	events := make(map[Limit]int)
	var emu sync.Mutex // guards events
	clean, _ := newJobBus(t, nil)
	hostile, svc := newJobBus(t, func(e LimitEvent) {
		emu.Lock()
		events[e.Limit]++
		emu.Unlock()
	})
	runners := [2]*jobRunner{startJobRunner(t, clean), startJobRunner(t, hostile)}
	// jobs counts the jobs each client ran in n windows of a second.
	jobs := func(n int) (clean, withHostiles int64) {
		for i := 0; i < n; i++ {
			a0, b0 := runners[0].jobs.Load(), runners[1].jobs.Load()
			time.Sleep(time.Second)
			clean += runners[0].jobs.Load() - a0
			withHostiles += runners[1].jobs.Load() - b0
		}
		if clean == 0 {
			t.Fatal("no job ran on the bus without hostile clients")
		}
		return clean, withHostiles
	}

	// The two clients may not run equally fast without hostile clients
	// either: what counts is their ratio with, over their ratio without.
	a0, b0 := jobs(2)
	base := heapInUse()
	hs := startHostiles(t, hostile, svc)
	defer hs.close()
	time.Sleep(200 * time.Millisecond) // let them settle
	a1, b1 := jobs(4)
	grew := heapInUse() - base
	for i, r := range runners {
		select {
		case <-r.done:
			t.Fatalf("the well-behaved client of bus %d stopped: %v", i, r.err)
		default:
		}
	}
	ratio := (float64(b1) / float64(a1)) / (float64(b0) / float64(max(a0, 1)))
	emu.Lock()
	t.Logf("jobs without hostile clients: %d and %d; with 100 hostile clients on the second bus: %d and %d; ratio %.2f",
		a0, b0, a1, b1, ratio)
	t.Logf("limits passed: %v", events)
	emu.Unlock()
	lim := hostile.lim
	bound := int64(lim.MaxTotalIncomingBytes+lim.MaxTotalOutgoingBytes) + 101*PerConnectionOverhead
	t.Logf("the heap grew by %.1f MiB with the hostile clients (bound %.0f MiB)", float64(grew)/(1<<20), float64(bound)/(1<<20))
	if grew > bound {
		t.Errorf("the heap grew by %d MiB, over the bound of %d MiB", grew>>20, bound>>20)
	}
	if ratio < minJobRatio {
		t.Errorf("with hostile clients the well-behaved client ran %.2f times as many jobs, want at least %.1f", ratio, minJobRatio)
	}
}

// minJobRatio is the least TestHostileClients accepts for the
// well-behaved client's jobs with hostile clients over without. Measured
// under -race on a 2-core machine at load 20: 0.56 to 1.21 (the 20
// clients that never read take every signal, so each job's two signals
// go to 21 queues instead of 1); a stalled or starved client runs none.
const minJobRatio = 1.0 / 3

// newJobBus returns a bus whose service runs jobs (benchService).
func newJobBus(tb testing.TB, limitExceeded func(LimitEvent)) (*Bus, *benchService) {
	svc := &benchService{}
	b := New(Config{ServiceName: testService, Handler: svc, LimitExceeded: limitExceeded})
	svc.b = b
	tb.Cleanup(func() { b.Close() })
	return b, svc
}

// BenchmarkHostileClients is one job of a well-behaved client (call,
// reply, JobRemoved), alone on the bus and with the 100 hostile clients
// of TestHostileClients.
func BenchmarkHostileClients(b *testing.B) {
	for _, withHostiles := range []bool{false, true} {
		name := "alone"
		if withHostiles {
			name = "hostile"
		}
		b.Run(name, func(b *testing.B) {
			bus, svc := newJobBus(b, nil)
			if withHostiles {
				hs := startHostiles(b, bus, svc)
				defer hs.close()
				time.Sleep(200 * time.Millisecond)
			}
			r := startJobRunner(b, bus)
			start := r.jobs.Load()
			b.ResetTimer()
			for r.jobs.Load()-start < int64(b.N) {
				select {
				case <-r.done:
					b.Fatal(r.err)
				case <-time.After(time.Millisecond):
				}
			}
			b.StopTimer()
			r.close()
		})
	}
}
