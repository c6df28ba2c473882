// Package busd is a small in-process D-Bus message bus speaking the real
// D-Bus wire protocol, with exactly one in-process service attached.
//
// A Bus serves client connections over in-memory pipes (Pipe), already
// accepted streams (ServeConn) or unix sockets (Listen), in one of two modes:
//
//   - BusMode behaves like dbus-daemon on /run/dbus/system_bus_socket: the
//     client must say Hello first, gets a unique name, can add match rules,
//     own names and become a monitor, and every message it receives carries
//     a SENDER. The bus driver (org.freedesktop.DBus) is built in.
//   - PeerMode behaves like systemd's /run/systemd/private: there is no bus
//     driver; every method call goes to the service and the service's
//     signals reach every PeerMode connection, without SENDER unless
//     Config.PeerSender says otherwise.
//
// The service is a Handler; it owns Config.ServiceName on the bus and emits
// signals with Emit. busd knows nothing about what the service does.
//
// Every connection has one reader goroutine (SASL, decoding, routing, and
// Handler.HandleCall) and one writer goroutine draining a FIFO queue. All
// sending (replies, signals, bus-driver messages) is a non-blocking enqueue,
// so messages reach a client in exactly the order they were enqueued,
// whichever goroutine enqueued them. A broadcast is encoded once and its
// bytes are shared by all recipients. As on dbus-daemon, a connection
// whose queue holds more than Limits.MaxOutgoingBytes (or
// Limits.MaxOutgoingUnixFDs fds) gets no more messages and stays
// connected: a method call for it is refused with LimitsExceeded, anything
// else dropped; and a client whose messages wait in other connections'
// queues beyond Limits.MaxIncomingBytes or Limits.MaxIncomingUnixFDs is
// not read until they are written, so one sender alone is slowed down,
// not refused.
//
// What clients can make the bus hold is bounded (Limits, limits.go): input
// buffers grow with the bytes that arrived, never with the length a
// message announces; input and output are capped per connection and in
// total; decoding is bounded per byte received; the number of connections
// and the time to authenticate are limited. A client that passes one of
// these is disconnected alone, and Config.LimitExceeded hears of it.
// What a connection may make the bus keep is capped as dbus-daemon caps
// it, and a request beyond a cap is refused with dbus-daemon's
// org.freedesktop.DBus.Error.LimitsExceeded and text: 512 match rules
// (a monitor's rules too, which dbus-daemon does not limit), 512 names
// (the unique name included) and 128 calls waiting for the service's
// answer. The calls a connection leaves with are forgotten
// (Call.Dropped), and the bus never keeps a call's body. So the total
// Limits documents holds whatever clients do: 512 connections at every
// cap at once take about 1.4 MiB each (TestStateBound), under the 2.2 MiB
// per connection counted.
//
// As in dbus-daemon, only a privileged connection may become a monitor
// (BecomeMonitor): one whose uid is 0 or the bus's own effective uid;
// any other gets org.freedesktop.DBus.Error.AccessDenied. A unix socket
// connection's uid is its SO_PEERCRED uid; a Pipe's is the uid its client
// claims in AUTH EXTERNAL, this process's own unless it claims another.
//
// Unix fd passing works as on dbus-daemon, on unix sockets (Listen, and
// ServeConn of a *net.UnixConn; never on a Pipe): a client that sends
// NEGOTIATE_UNIX_FD after OK gets AGREE_UNIX_FD, and the descriptors it
// sends (SCM_RIGHTS) travel with the message whose UNIX_FDS field counts
// them, to the service (Call.UnixFDs; a dbus.UnixFD in a reply is sent as
// one) or to another client that negotiated fd passing; a method call
// with descriptors for a client that did not gets dbus-daemon's
// org.freedesktop.DBus.Error.NotSupported. busd closes every descriptor
// once the message is written or dropped (fds.go). As on dbus-daemon's
// system bus, a message may carry 16 descriptors and 64 may wait to be
// written to a connection (Limits.MaxMessageUnixFDs,
// Limits.MaxOutgoingUnixFDs).
//
// Messages are decoded and encoded by busd's own codec (decode.go,
// encode.go), which produces and accepts the same Go values as godbus
// (dbus.DecodeMessage, dbus.SignatureOf) but allocates a fraction as much.
package busd

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
)

// Mode says whether a connection talks to a message bus or directly to the service.
type Mode int

const (
	// BusMode is like /run/dbus/system_bus_socket: Hello, AddMatch, names, SENDER fields.
	BusMode Mode = iota
	// PeerMode is like /run/systemd/private: no Hello, no bus driver, every call goes to
	// the service, signals carry no SENDER.
	PeerMode
)

// String returns "bus" or "peer".
func (m Mode) String() string {
	switch m {
	case BusMode:
		return "bus"
	case PeerMode:
		return "peer"
	}
	return "Mode(" + itoa(uint64(m)) + ")"
}

// Direction tells whether a traced message was received from a client or
// delivered to one.
type Direction int

const (
	// In is a message received from a client.
	In Direction = iota
	// Out is a message delivered (queued) to a client.
	Out
)

// String returns "in" or "out".
func (d Direction) String() string {
	if d == In {
		return "in"
	}
	return "out"
}

// Handler is the service attached to the bus.
type Handler interface {
	// HandleCall handles one method call addressed to the service: in BusMode, calls whose destination is
	// Config.ServiceName or the service's unique name; in PeerMode, every call except org.freedesktop.DBus.Peer
	// methods (busd answers Ping/GetMachineId itself in both modes). It runs on the calling connection's reader
	// goroutine, one call at a time per connection; calls from different connections may run concurrently.
	// It must answer with exactly one Reply/ReplyError (possibly later, from any goroutine) unless the call has
	// NoReplyExpected (then Reply/ReplyError are no-ops).
	HandleCall(c *Call)
	// PeerGone is called once when a client connection has ended (after its last HandleCall returned), before
	// the bus forgets the peer (Peers stops listing it, its names are released).
	PeerGone(p *Peer)
}

// Config configures a Bus.
type Config struct {
	// ServiceName is the well-known name the service owns on the bus, e.g. "org.freedesktop.systemd1".
	ServiceName string
	// Handler is the service. If nil, calls to the service fail with UnknownMethod.
	Handler Handler
	// ControlName, with ControlHandler, is the well-known name of a second in-process service, the control
	// service (control.go), which owns it under ControlUniqueName. ControlHandler answers the method calls
	// addressed to either name as Handler.HandleCall answers the service's, on the calling connection's
	// reader goroutine. Both unset: no control service.
	ControlName    string
	ControlHandler func(*Call)
	// MayOwn, if set, is the bus policy on names (dbus-daemon's <allow own>): whether p may own name, a
	// well-known name other than the bus's own. A RequestName it refuses gets AccessDenied with dbus-daemon's
	// text. It is called with the bus's lock held and must not call the Bus. Nil: anyone may own any name.
	MayOwn func(p *Peer, name string) bool
	// MayCall, if set, is the bus policy on method calls from one client to another (dbus-daemon's <allow
	// send_type="method_call">; calls to the bus and to the service are not asked about): a call it refuses
	// gets AccessDenied with dbus-daemon's text. It must not block. Nil: every call goes through.
	MayCall func(sender, target *Peer) bool
	// Trace, if non-nil, is called for every message the bus receives, from the connection's reader before the
	// message is routed, and for every message it delivers, from the receiving connection's writer just before
	// the message is written (so a reply's event comes before its receiver can read the reply, and before
	// anything the receiver does next); it must not block for long. Used for a `--trace` call log.
	Trace func(Event)
	// InputDrained, if non-nil, is called on a connection's reader goroutine each time it has routed every
	// message it has read and is about to read more; bytes may still wait in the kernel's socket buffer (ask
	// Peer.MoreInput, which costs a system call, only when it matters). It must not block for long.
	InputDrained func(p *Peer)
	// PeerSender, if set, is the SENDER of every message the service sends on a PeerMode connection.
	// systemd sets it to "org.freedesktop.systemd1" on its private socket (sd_bus_set_sender).
	PeerSender string
	// PeerAuthBuffer, if positive, makes PeerMode connections authenticate as systemd's do (sd-bus,
	// bus-socket.c): the SASL lines are read in reads of at most max(PeerAuthBuffer, twice what was read so
	// far) bytes in all, and when the read that brought BEGIN also brought bytes after it and found nothing
	// more waiting, those bytes (the client's first message) are not looked at until more bytes arrive.
	// systemd's buffer is 256 bytes: a small first message sent right behind BEGIN is answered only once
	// the client sends something else (measured on 247, 252, 257 and 262).
	PeerAuthBuffer int
	// Limits bound what clients can make the bus hold; the zero value means dbus-daemon-like defaults
	// scaled for a test fake (see Limits).
	Limits Limits
	// LimitExceeded, if non-nil, is called once for each connection closed because it passed a limit,
	// after the connection ended and before Handler.PeerGone, on the connection's reader goroutine. It
	// must not block for long.
	LimitExceeded func(LimitEvent)
}

// Event is one traced message.
type Event struct {
	Dir  Direction     // In (received from a client) or Out (delivered to a client)
	Peer *Peer         // the client connection
	Msg  *dbus.Message // must not be modified
	// Serial is the message's serial on the wire. For messages busd built,
	// Msg.Serial() is 0 (godbus keeps the serial unexported), so use this.
	Serial uint32
}

const (
	driverName  = "org.freedesktop.DBus"
	driverPath  = dbus.ObjectPath("/org/freedesktop/DBus")
	driverIface = "org.freedesktop.DBus"
	peerIface   = "org.freedesktop.DBus.Peer"
)

// Bus is an in-process D-Bus message bus with one attached service.
type Bus struct {
	cfg       Config
	guid      string // 32 hex digits: the server GUID sent in SASL OK and returned by GetId
	machineID string
	uid, pid  uint32 // credentials reported for the driver and the service
	euid      uint32 // the bus's effective uid: its connections are privileged (Bus.privileged)

	lim Limits // cfg.Limits with the defaults filled in
	in  budget // the input every connection holds (Limits.MaxTotalIncomingBytes)
	out budget // the output queued for every connection (Limits.MaxTotalOutgoingBytes)
	// all holds every *Peer being served, for choosing which connection
	// to close when a total is passed without taking mu (which may be
	// held then).
	all sync.Map
	// batchBufs holds the writers' batch buffers (maxBatch bytes each),
	// so that only connections writing hold one.
	batchBufs sync.Pool

	driverSerial  serialCounter
	serviceSerial serialCounter

	// serviceUnique is the service's current unique name. Written only with mu
	// held for writing; readable without mu (Reply needs it on the hot path).
	serviceUnique atomic.Pointer[string]
	// eavesdroppers counts match rules with eavesdrop='true' (written with mu
	// held); while it is zero, unicast messages skip the match-rule scan.
	eavesdroppers atomic.Int32

	drops replyDrops // DropAfterReply (dropreply.go)
	// pending holds the service's calls not answered yet (pending.go).
	pending pendingCalls

	done chan struct{}  // closed by Close
	wg   sync.WaitGroup // every goroutine b started

	// mu guards the routing state below and every Peer's routing fields
	// (Peer.rules, Peer.authed). Messages may be enqueued while mu is held
	// (enqueueing never blocks), but nothing calls out of busd (Handler,
	// Trace) or does I/O with it held.
	mu        sync.RWMutex
	closed    bool
	lastID    uint64                // number of the last unique name handed out
	peers     map[*Peer]struct{}    // every connection being served
	busPeers  []*Peer               // BusMode connections that said Hello, in Hello order
	p2pPeers  []*Peer               // authenticated PeerMode connections
	uniques   map[string]*Peer      // BusMode clients by unique name
	names     map[string]*nameOwner // well-known names owned by clients
	listeners []net.Listener
	// incomplete are the connections still authenticating, oldest first;
	// completed counts the authenticated ones.
	incomplete []*Peer
	completed  int
	// serviceOwner is the unique name owning Config.ServiceName ("" while
	// nobody does, e.g. during a daemon-reexec: service.go).
	serviceOwner string
}

// nameOwner is the owner of a well-known name (other than the service's).
type nameOwner struct {
	peer             *Peer
	allowReplacement bool
}

// New returns a Bus with the service attached and no connections.
func New(cfg Config) *Bus {
	b := &Bus{
		cfg:     cfg,
		done:    make(chan struct{}),
		peers:   make(map[*Peer]struct{}),
		uniques: make(map[string]*Peer),
		names:   make(map[string]*nameOwner),
		uid:     uint32(os.Getuid()),
		euid:    uint32(os.Geteuid()),
		pid:     uint32(os.Getpid()),
		lim:     cfg.Limits.withDefaults(),
	}
	b.in.max = int64(b.lim.MaxTotalIncomingBytes)
	b.out.max = int64(b.lim.MaxTotalOutgoingBytes)
	var g [16]byte
	if _, err := rand.Read(g[:]); err != nil {
		// crypto/rand does not fail on supported platforms; stay deterministic if it does.
		copy(g[:], "busd-fake-guid!!")
	}
	b.guid = hex.EncodeToString(g[:])
	b.machineID = readMachineID(b.guid)
	b.lastID = 1
	first := ":1.1"
	b.serviceUnique.Store(&first)
	if cfg.ServiceName != "" {
		b.serviceOwner = first
	}
	return b
}

// readMachineID returns /etc/machine-id, or fallback if it is unusable.
func readMachineID(fallback string) string {
	data, err := os.ReadFile("/etc/machine-id")
	if err != nil {
		return fallback
	}
	id := strings.TrimSpace(string(data))
	if len(id) != 32 {
		return fallback
	}
	if _, err := hex.DecodeString(id); err != nil {
		return fallback
	}
	return id
}

// ServiceUniqueName returns the service's current unique name, e.g. ":1.1".
func (b *Bus) ServiceUniqueName() string { return *b.serviceUnique.Load() }

// isService reports whether name addresses the service (either of its names).
func (b *Bus) isService(name string) bool {
	return name != "" && (name == b.cfg.ServiceName || name == b.ServiceUniqueName())
}

// Peers returns the authenticated client connections, in no particular order.
func (b *Bus) Peers() []*Peer {
	b.mu.RLock()
	defer b.mu.RUnlock()
	ps := make([]*Peer, 0, len(b.peers))
	for p := range b.peers {
		if p.authed {
			ps = append(ps, p)
		}
	}
	return ps
}

// DropPeers closes every client connection now (fault injection).
func (b *Bus) DropPeers() { b.DropPeersBut(nil) }

// DropPeersBut is DropPeers for every connection but keep.
func (b *Bus) DropPeersBut(keep *Peer) {
	b.mu.RLock()
	ps := make([]*Peer, 0, len(b.peers))
	for p := range b.peers {
		if p != keep {
			ps = append(ps, p)
		}
	}
	b.mu.RUnlock()
	for _, p := range ps {
		p.Close()
	}
}

// Close closes the listeners (removing their socket files) and every
// connection, and waits for every goroutine the Bus started, including
// Handler calls in progress and PeerGone calls. It is idempotent. It must not
// be called from a Handler method, which it would wait for.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		b.wg.Wait()
		return nil
	}
	b.closed = true
	close(b.done)
	ls := b.listeners
	b.listeners = nil
	ps := make([]*Peer, 0, len(b.peers))
	for p := range b.peers {
		ps = append(ps, p)
	}
	b.mu.Unlock()

	var errs []error
	for _, l := range ls {
		if err := l.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	for _, p := range ps {
		p.Close()
	}
	b.wg.Wait()
	return errors.Join(errs...)
}

// Emit sends a signal from the service. BusMode connections receive it
// according to their match rules, with SENDER set to the service's unique
// name; every PeerMode connection receives it, without SENDER.
//
// Emit panics if path, iface or member is invalid or a body value cannot be
// represented in D-Bus (a programming error in the service).
func (b *Bus) Emit(path dbus.ObjectPath, iface, member string, body ...any) {
	b.emit("", true, path, iface, member, body)
}

// EmitPeers is Emit for the PeerMode connections only: a signal the
// service sends to its direct clients and not to the bus (systemd sends
// unit signals to the bus only while a bus client is subscribed, and to
// every direct connection always).
func (b *Bus) EmitPeers(path dbus.ObjectPath, iface, member string, body ...any) {
	b.emit("", false, path, iface, member, body)
}

// HasPeers reports whether any PeerMode connection is authenticated, so
// that the service can skip building bodies for EmitPeers.
func (b *Bus) HasPeers() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.p2pPeers) > 0
}

// EmitFrom is like Emit but claims another sender (fault injection: a forged or
// foreign signal). It reaches only BusMode connections.
func (b *Bus) EmitFrom(sender string, path dbus.ObjectPath, iface, member string, body ...any) {
	if sender == "" {
		panic("busd: EmitFrom with empty sender")
	}
	b.emit(sender, true, path, iface, member, body)
}

// emit sends a signal to the BusMode connections whose rules match it (if
// toBus) and, unless it is forged, to every PeerMode connection.
func (b *Bus) emit(forged string, toBus bool, path dbus.ObjectPath, iface, member string, body []any) {
	sig := checkSignal(path, iface, member, body)
	b.mu.RLock()
	sender := forged
	if sender == "" {
		sender = b.ServiceUniqueName()
	}
	info := msgInfo{typ: dbus.TypeSignal, sender: sender, path: path, iface: iface, member: member, body: body}
	serial := uint32(0)
	var busMsg *outMsg
	var busData []byte
	busPeers := b.busPeers
	if !toBus {
		busPeers = nil
	}
	for _, p := range busPeers {
		if !b.wantsLocked(p, &info, false) {
			continue
		}
		if busMsg == nil {
			serial = b.serviceSerial.next()
			busMsg = newSignal(path, iface, member, "", sender, body)
			busMsg.sig = sig
			var err error
			if busData, err = busMsg.encode(serial); err != nil {
				break
			}
		}
		b.send(p, busMsg, busData, serial, nil)
	}
	if forged == "" && len(b.p2pPeers) > 0 {
		if serial == 0 {
			serial = b.serviceSerial.next()
		}
		m := newSignal(path, iface, member, "", b.cfg.PeerSender, body)
		m.sig = sig
		if data, err := m.encode(serial); err == nil {
			for _, p := range b.p2pPeers {
				b.send(p, m, data, serial, nil)
			}
		}
	}
	b.mu.RUnlock()
}

// Listening reports whether a signal from the service with this path,
// interface and member may reach any connection, so that the service can
// skip building bodies nobody receives. Argument matches are not checked
// (there is no body yet): a rule that matches otherwise counts.
func (b *Bus) Listening(path dbus.ObjectPath, iface, member string) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if len(b.p2pPeers) > 0 {
		return true
	}
	info := msgInfo{typ: dbus.TypeSignal, sender: b.ServiceUniqueName(), path: path, iface: iface, member: member}
	for _, p := range b.busPeers {
		for _, r := range p.rules {
			if r.matchesHeader(&info, b.matchOwnerLocked) {
				return true
			}
		}
	}
	return false
}

// wantsLocked reports whether p receives a message described by info, which
// is not addressed to p when unicast is true (then only eavesdrop rules count).
// b.mu must be held.
func (b *Bus) wantsLocked(p *Peer, info *msgInfo, unicast bool) bool {
	for _, r := range p.rules {
		if unicast && !r.eavesdrop {
			continue
		}
		if r.matches(info, b.matchOwnerLocked) {
			return true
		}
	}
	return false
}

// ownerLocked returns the unique name owning name ("" if none); unique names
// and the driver's name own themselves. b.mu must be held.
func (b *Bus) ownerLocked(name string) string {
	switch {
	case name == driverName:
		return driverName
	case name == b.cfg.ServiceName && name != "":
		return b.serviceOwner
	case name == b.ServiceUniqueName():
		return name
	case b.isControl(name):
		return ControlUniqueName
	case strings.HasPrefix(name, ":"):
		if _, ok := b.uniques[name]; ok {
			return name
		}
		return ""
	}
	if o := b.names[name]; o != nil {
		return o.peer.UniqueName()
	}
	return ""
}

// eavesdropLocked delivers a unicast message not addressed to them to the
// BusMode connections with a matching eavesdrop rule, except skip.
// mk builds the message on first use. b.mu must be held.
func (b *Bus) eavesdropLocked(info *msgInfo, skip *Peer, mk func() (*outMsg, []byte, uint32)) {
	var m *outMsg
	var data []byte
	var serial uint32
	for _, p := range b.busPeers {
		if p == skip || !b.wantsLocked(p, info, true) {
			continue
		}
		if m == nil {
			m, data, serial = mk()
			if data == nil {
				return
			}
		}
		b.send(p, m, data, serial, nil)
	}
}

// listNamesLocked returns every name with an owner, sorted.
func (b *Bus) listNamesLocked() []string {
	names := make([]string, 0, 3+len(b.uniques)+len(b.names))
	names = append(names, driverName, b.ServiceUniqueName())
	if b.serviceOwner != "" {
		names = append(names, b.cfg.ServiceName)
	}
	if b.hasControl() {
		names = append(names, b.cfg.ControlName, ControlUniqueName)
	}
	for n := range b.uniques {
		names = append(names, n)
	}
	for n := range b.names {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// serialCounter hands out non-zero message serials.
type serialCounter struct{ n atomic.Uint32 }

func (c *serialCounter) next() uint32 {
	for {
		if s := c.n.Add(1); s != 0 {
			return s
		}
	}
}

// send enqueues data (the encoding of m) to p, with the trace event that
// the writer reports before it writes it (Config.Trace). from is the
// client that sent m (a unicast relayed between clients), charged with it
// until it is written; nil for anything else.
func (b *Bus) send(p *Peer, m *outMsg, data []byte, serial uint32, from *Peer) enqueued {
	var ev *Event
	if b.cfg.Trace != nil {
		ev = &Event{Dir: Out, Peer: p, Msg: m.message(), Serial: serial}
	}
	if len(m.fds) == 0 {
		return p.enqueueWith(data, nil, from, ev)
	}
	return p.enqueueFDs(data, m.fds, from, ev)
}

// itoa formats n in decimal.
func itoa(n uint64) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
