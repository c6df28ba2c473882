package busd

import (
	"bufio"
	"encoding/binary"
	"io"
	"sync/atomic"
	"testing"

	"github.com/godbus/dbus/v5"
)

// benchService answers Ping with an empty reply, Echo with its arguments
// and Job with JobNew signal, reply (object path), JobRemoved signal.
type benchService struct {
	b      *Bus
	echoes atomic.Int64 // Echo calls answered
}

func (s *benchService) HandleCall(c *Call) {
	switch c.Member {
	case "Job":
		// The caller's name comes first so that each client can subscribe
		// to its own jobs only (arg0).
		who := c.Peer.UniqueName()
		path := dbus.ObjectPath("/org/test/job/1")
		s.b.Emit(testPath, testIface, "JobNew", who, uint32(1), path, "a.service")
		c.Reply(path)
		s.b.Emit(testPath, testIface, "JobRemoved", who, uint32(1), path, "a.service", "done")
	case "Echo":
		c.Reply(c.Body...)
		s.echoes.Add(1)
	default:
		c.Reply()
	}
}

func (s *benchService) PeerGone(*Peer) {}

func newBenchBus(b *testing.B) *Bus {
	svc := &benchService{}
	bus := New(Config{ServiceName: testService, Handler: svc})
	svc.b = bus
	b.Cleanup(func() { bus.Close() })
	return bus
}

// BenchmarkRoundTrip is one godbus method call and its reply through a Pipe.
func BenchmarkRoundTrip(b *testing.B) {
	for _, mode := range []Mode{BusMode, PeerMode} {
		mode := mode
		b.Run(mode.String(), func(b *testing.B) {
			bus := newBenchBus(b)
			var c *dbus.Conn
			if mode == BusMode {
				c = busClient(b, bus)
			} else {
				c = peerClient(b, bus)
			}
			obj := c.Object(testService, testPath)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := obj.Call(testIface+".Ping", 0).Err; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRoundTripParallel runs godbus round trips from several clients.
func BenchmarkRoundTripParallel(b *testing.B) {
	bus := newBenchBus(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		c := busClient(b, bus)
		obj := c.Object(testService, testPath)
		for pb.Next() {
			if err := obj.Call(testIface+".Ping", 0).Err; err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCallReplySignal is a call answered by signal, reply, signal (a
// systemd job: JobNew, the job path, JobRemoved), with the client
// subscribed to the signals and waiting for JobRemoved.
func BenchmarkCallReplySignal(b *testing.B) {
	bus := newBenchBus(b)
	c := busClient(b, bus)
	addMatch(b, c, "type='signal',sender='"+testService+"',arg0='"+c.Names()[0]+"'")
	ch := signals(c, 16)
	obj := c.Object(testService, testPath)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := obj.Call(testIface+".Job", 0).Err; err != nil {
			b.Fatal(err)
		}
		for s := range ch {
			if s.Name == testIface+".JobRemoved" {
				break
			}
		}
	}
}

// BenchmarkRaw measures busd alone: a client that writes a pre-encoded call
// and skips over the answers without decoding them. "ping" is call+reply;
// "job" is call answered by signal+reply+signal (a systemd job: JobNew, the
// job path, JobRemoved) to a client subscribed to the signals.
func BenchmarkRaw(b *testing.B) {
	for _, tt := range []struct {
		name    string
		mode    Mode
		member  string
		answers int
	}{
		{"ping/bus", BusMode, "Ping", 1},
		{"ping/peer", PeerMode, "Ping", 1},
		{"job/bus", BusMode, "Job", 3},
		{"job/peer", PeerMode, "Job", 3},
	} {
		tt := tt
		b.Run(tt.name, func(b *testing.B) {
			bus := newBenchBus(b)
			c := newRawClient(b, bus, tt.mode)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.call(b, tt.member, tt.answers)
			}
		})
	}
}

// BenchmarkRawParallel is BenchmarkRaw/job/bus from several connections at
// once: ns/op is the inverse of the bus's job throughput.
func BenchmarkRawParallel(b *testing.B) {
	bus := newBenchBus(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		c := newRawClient(b, bus, BusMode)
		for pb.Next() {
			c.call(b, "Job", 3)
		}
	})
}

// rawClient talks to a Bus with pre-encoded messages.
type rawClient struct {
	rwc    io.ReadWriteCloser
	r      *bufio.Reader
	serial uint32
	calls  map[string][]byte
}

func newRawClient(b *testing.B, bus *Bus, mode Mode) *rawClient {
	c := &rawClient{rwc: bus.Pipe(mode), serial: 1, calls: map[string][]byte{}}
	b.Cleanup(func() { c.rwc.Close() })
	c.r = bufio.NewReader(c.rwc)
	if _, err := io.WriteString(c.rwc, "\x00AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := c.r.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
	}
	if mode == BusMode {
		c.send(b, driverCallMessage("Hello"))
		hello, err := dbus.DecodeMessage(c.r)
		if err != nil {
			b.Fatal(err)
		}
		skipMessages(b, c.r, 1) // NameAcquired
		c.send(b, driverCallMessage("AddMatch", "type='signal',sender='"+testService+"',arg0='"+hello.Body[0].(string)+"'"))
		skipMessages(b, c.r, 1)
	}
	return c
}

func (c *rawClient) send(b *testing.B, m *dbus.Message) {
	data, err := encodeGodbus(m, c.serial)
	if err != nil {
		b.Fatal(err)
	}
	c.serial++
	if _, err := c.rwc.Write(data); err != nil {
		b.Fatal(err)
	}
}

// call calls member on the service and skips n answers.
func (c *rawClient) call(b *testing.B, member string, n int) {
	data := c.calls[member]
	if data == nil {
		var err error
		data, err = encodeGodbus(&dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldDestination: dbus.MakeVariant(testService),
			dbus.FieldPath:        dbus.MakeVariant(testPath),
			dbus.FieldInterface:   dbus.MakeVariant(testIface),
			dbus.FieldMember:      dbus.MakeVariant(member),
		}}, 1)
		if err != nil {
			b.Fatal(err)
		}
		c.calls[member] = data
	}
	binary.LittleEndian.PutUint32(data[8:12], c.serial)
	c.serial++
	if _, err := c.rwc.Write(data); err != nil {
		b.Fatal(err)
	}
	skipMessages(b, c.r, n)
}

// skipMessages reads n little-endian messages from r without decoding them.
func skipMessages(b *testing.B, r *bufio.Reader, n int) {
	var hdr [16]byte
	for i := 0; i < n; i++ {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			b.Fatal(err)
		}
		body := binary.LittleEndian.Uint32(hdr[4:8])
		fields := binary.LittleEndian.Uint32(hdr[12:16])
		total := int(16+fields+7)&^7 + int(body) - 16
		if _, err := r.Discard(total); err != nil {
			b.Fatal(err)
		}
	}
}
