package busd

import "sync"

// Calls the service has not answered yet, and what becomes of them when
// the service's instance leaves the bus.
//
// dbus-daemon answers every call still waiting for a reply from a
// connection that disconnects with org.freedesktop.DBus.Error.NoReply,
// "Message recipient disconnected from message bus without replying",
// sent by the bus driver after the NameOwnerChanged signals of the
// departing connection's names (dbus-broker does the same with "Remote
// peer disconnected"); the departed connection can no longer answer. At
// daemon-reexec this is what befalls the calls queued to systemd that it
// never read. busd does the same for the calls BusMode clients sent the
// service: ReconnectService answers those not answered yet, the Handler's
// late Reply or ReplyError is a no-op, and Call.Dropped tells the Handler
// not to act on them. (PeerMode connections are the service's own to
// drop, as systemd drops its private-socket clients.)

// The bus's NoReply answers.
const (
	errNoReply = errPrefix + "NoReply"
	// noReplyGone is dbus-daemon's text for a call whose recipient left
	// the bus.
	noReplyGone = "Message recipient disconnected from message bus without replying"
	// noReplyTimeout is dbus-daemon's text for a call its reply_timeout
	// gave up on.
	noReplyTimeout = "Message did not receive a reply (timeout by message bus)"
)

// pendingCalls holds the service's calls from BusMode clients that wait
// for an answer.
type pendingCalls struct {
	// mu guards calls. It is taken with Bus.mu held (ReconnectService),
	// never the other way round.
	mu    sync.Mutex
	calls map[*Call]struct{}
}

func (pc *pendingCalls) add(c *Call) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.calls == nil {
		pc.calls = make(map[*Call]struct{})
	}
	pc.calls[c] = struct{}{}
}

func (pc *pendingCalls) remove(c *Call) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	delete(pc.calls, c)
}

// takeAll empties the set and returns what it held.
func (pc *pendingCalls) takeAll() []*Call {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	out := make([]*Call, 0, len(pc.calls))
	for c := range pc.calls {
		out = append(out, c)
	}
	pc.calls = nil
	return out
}

func (pc *pendingCalls) len() int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return len(pc.calls)
}

// PendingCalls returns how many calls from BusMode clients the service has
// received and not answered yet.
func (b *Bus) PendingCalls() int { return b.pending.len() }

// Dropped reports whether the bus answered the call itself with NoReply
// because the service's instance it was delivered to left the bus
// (ReconnectService) before answering: the service must not act on it, as
// systemd never reads the calls queued to it when it re-executes.
func (c *Call) Dropped() bool { return c.dropped.Load() }

// TimeOut answers the call with NoReply as dbus-daemon does when its
// reply_timeout expires ("Message did not receive a reply (timeout by
// message bus)"), from the bus driver, while the service stays on the bus.
// Like Reply, only the first answer counts; the service's later Reply is a
// no-op.
func (c *Call) TimeOut() {
	if c.Peer.mode != BusMode || !c.claim() {
		return
	}
	var o outbox
	b := c.Peer.bus
	b.mu.Lock()
	b.driverNoReplyLocked(&o, c, noReplyTimeout)
	b.mu.Unlock()
	o.flush(b)
}

// dropPendingLocked answers every call the service has not answered with
// NoReply, as dbus-daemon does when the recipient leaves the bus. b.mu
// must be held.
func (b *Bus) dropPendingLocked(o *outbox) {
	for _, c := range b.pending.takeAll() {
		if c.claim() {
			c.dropped.Store(true)
			b.driverNoReplyLocked(o, c, noReplyGone)
		}
	}
}

// driverNoReplyLocked sends c's caller NoReply with text, from the bus
// driver. c must have been claimed. b.mu must be held.
func (b *Bus) driverNoReplyLocked(o *outbox, c *Call, text string) {
	b.driverSendLocked(o, c.Peer, newError(c.serial, c.Peer.UniqueName(), driverName, errNoReply, []any{text}))
}
