package busd

import (
	"errors"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
)

// Call is one method call addressed to the service.
type Call struct {
	Peer      *Peer
	Path      dbus.ObjectPath
	Interface string
	Member    string
	Body      []any
	Signature dbus.Signature
	Flags     dbus.Flags

	fds    []int      // the call's unix fds (UnixFDs)
	dest   string     // the call's DESTINATION
	serial uint32     // the call's serial, for REPLY_SERIAL
	st     *callState // whether it was answered, shared with Bus.pending (pending.go)
	// control is set on a call to the control service (control.go).
	control bool
	// handling is set from before Handler.HandleCall runs for c, on the
	// connection's reader goroutine, until it calls Handled or returns;
	// moreAtReply is MoreInput as the reply was sent then (1 no, 2 yes),
	// 0 when it was not.
	handling    atomic.Bool
	moreAtReply atomic.Int32
}

// UnixFDs returns the file descriptors that came with the call: a
// dbus.UnixFDIndex value in Body is an index into it. busd closes them
// when HandleCall returns; a service that keeps one must duplicate it.
func (c *Call) UnixFDs() []int { return c.fds }

// NoReply reports whether the caller set NO_REPLY_EXPECTED (then Reply and
// ReplyError do nothing).
func (c *Call) NoReply() bool { return c.Flags&dbus.FlagNoReplyExpected != 0 }

// MoreInput reports whether the connection that sent c has more input
// waiting, read and not yet routed or still in the kernel's socket buffer:
// a message it sent after c has arrived, as sd-bus sees one in its read
// buffer or epoll sees its socket readable. Once HandleCall has replied
// it is the answer of the moment the reply was sent: a message the client
// sent in answer to the reply does not count, whatever HandleCall does
// after replying. Only HandleCall may ask, before it returns (it runs on
// the connection's reader goroutine).
func (c *Call) MoreInput() bool {
	switch c.moreAtReply.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	return c.Peer.MoreInput()
}

// Handled tells busd that HandleCall, on its goroutine, will neither
// reply to c nor ask MoreInput any more. A handler that lets another
// goroutine reply to c while HandleCall has not yet returned (it hands c
// on, or releases a lock such a goroutine waits for) calls it first:
// until then a reply reads the connection's input buffer, which only the
// reader goroutine may.
func (c *Call) Handled() { c.handling.Store(false) }

// noteInput records MoreInput as a reply is sent during HandleCall.
func (c *Call) noteInput() {
	if !c.handling.Load() {
		return
	}
	v := int32(1)
	if c.Peer.MoreInput() {
		v = 2
	}
	c.moreAtReply.Store(v)
}

// MoreInput reports whether p has input waiting, read and not yet routed
// or still in the kernel's socket buffer. Only code running on p's reader
// goroutine may ask: HandleCall, and Config.InputDrained.
func (p *Peer) MoreInput() bool { return p.in.Buffered() > 0 || p.kernelInput() }

// Destination returns the DESTINATION the caller used: the service's
// well-known or unique name in BusMode, often "" in PeerMode.
func (c *Call) Destination() string { return c.dest }

// Reply sends a method return with body. The D-Bus types are derived from the
// Go types exactly as dbus.SignatureOf does: uint32 → u, string → s,
// dbus.ObjectPath → o, a Go struct → (…) of its exported fields, []T → aT,
// map[string]dbus.Variant → a{sv}, dbus.Variant → v, int → i. Note that
// []any is an array of variants (av), not a struct; a dbus.Variant made with
// dbus.MakeVariantWithSignature may however hold a struct as []any.
//
// Only the first Reply or ReplyError counts; after the peer is gone it is a
// no-op. It never blocks: the reply is queued behind everything already
// queued for the peer (e.g. a signal emitted just before). If body cannot
// be encoded, the caller gets org.freedesktop.DBus.Error.Failed instead.
//
// A dbus.UnixFD value is sent as a unix fd (type h): the caller's queue
// holds a duplicate, so the service keeps, and closes, its own. A caller
// that did not negotiate fd passing (Peer.UnixFDs) gets
// org.freedesktop.DBus.Error.Failed instead (dbus-daemon would refuse to
// deliver the reply; check first and answer as the real service would).
func (c *Call) Reply(body ...any) {
	if !c.claim() {
		return
	}
	c.noteInput()
	dest, sender := c.routing()
	after := c.replying()
	if err := c.Peer.bus.sendFromService(c.Peer, newReply(c.serial, dest, sender, body)); err != nil {
		c.sendError(errFailed, []any{err.Error()})
	}
	after()
}

// ReplyError sends an error reply named name; body is usually one string,
// the human-readable message. Only the first Reply or ReplyError counts.
func (c *Call) ReplyError(name string, body ...any) {
	if !c.claim() {
		return
	}
	if !validInterface(name) {
		body = []any{"busd: service replied with invalid error name " + name}
		name = "org.freedesktop.DBus.Error.Failed"
	}
	c.noteInput()
	after := c.replying()
	c.sendError(name, body)
	after()
}

// claim reports whether this is the first reply to a call expecting one.
func (c *Call) claim() bool {
	return !c.NoReply() && c.st.claim()
}

// routing returns the DESTINATION and SENDER of a reply.
func (c *Call) routing() (dest, sender string) {
	switch {
	case c.Peer.mode != BusMode:
		return "", c.Peer.bus.cfg.PeerSender
	case c.control:
		return c.Peer.UniqueName(), ControlUniqueName
	}
	return c.Peer.UniqueName(), c.Peer.bus.ServiceUniqueName()
}

// replying is Bus.replying for c: the control service's replies never
// end a connection (DropAfterReply counts the service's and the
// driver's).
func (c *Call) replying() (after func()) {
	if c.control {
		return func() {}
	}
	return c.Peer.bus.replying(c.Peer, c.Member)
}

// sendError sends an error reply; if body cannot be encoded, its text is
// replaced by the encoding error.
func (c *Call) sendError(name string, body []any) {
	dest, sender := c.routing()
	if err := c.Peer.bus.sendFromService(c.Peer, newError(c.serial, dest, sender, name, body)); err != nil {
		_ = c.Peer.bus.sendFromService(c.Peer, newError(c.serial, dest, sender, name, []any{err.Error()}))
	}
}

// sendFromService encodes m with the service's next serial and queues it
// for p (and eavesdroppers).
func (b *Bus) sendFromService(p *Peer, m *outMsg) error {
	serial := b.serviceSerial.next()
	data, err := m.encode(serial)
	if err != nil {
		return err
	}
	if len(m.fds) > 0 && !p.UnixFDs() {
		return errors.New("busd: the client does not accept unix fds")
	}
	b.unicast(p, m, data, serial, nil)
	return nil
}

// unicast queues the message m (encoded as data) for p and, if any match
// rule eavesdrops, for the connections whose eavesdrop rules match it:
// those first, as dbus-daemon captures a message for its monitors before
// it delivers it, so that a monitor sees it before anything its
// recipient does next (a signal the recipient's reply made the service
// send). It reports what became of the message for p. from is the client
// that sent m, if it is relayed (see Bus.send).
func (b *Bus) unicast(p *Peer, m *outMsg, data []byte, serial uint32, from *Peer) enqueued {
	if p.mode == BusMode && b.eavesdroppers.Load() > 0 {
		info := m.info()
		b.mu.RLock()
		b.eavesdropLocked(&info, p, func() (*outMsg, []byte, uint32) { return m, data, serial })
		b.mu.RUnlock()
	}
	return b.send(p, m, data, serial, from)
}
