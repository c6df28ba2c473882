package busd

import (
	"sync"
	"sync/atomic"
)

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
//
// The other way round, a client that leaves the bus with calls the
// service has not answered (the fake never answers some, e.g.
// DumpByFileDescriptor) takes them with it, as dbus-daemon forgets the
// replies a departing connection expected: its calls leave the pending
// table, the service's late answer is a no-op and Call.Dropped tells the
// Handler not to act on them. The table never holds a call's body
// (callState), so what it holds is bounded by
// Limits.MaxPendingReplies per connection.

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

// callState is what the bus keeps of a call that expects an answer: who
// sent it, its serial and whether it was answered; never its body, which
// is the Handler's to keep or let go.
type callState struct {
	peer    *Peer
	serial  uint32
	replied atomic.Bool // set by the first answer (claim)
	dropped atomic.Bool // answered by the bus, or its caller left (pending.go)
	// tracked means the call is in Bus.pending and counted in
	// Peer.pendingReplies until it is answered (BusMode calls that
	// expect a reply).
	tracked bool
}

// claim reports whether this is the first answer to the call, and
// forgets it.
func (st *callState) claim() bool {
	if !st.replied.CompareAndSwap(false, true) {
		return false
	}
	if st.tracked {
		st.peer.pendingReplies.Add(-1)
		st.peer.bus.pending.remove(st)
	}
	return true
}

// pendingCalls holds the service's calls from BusMode clients that wait
// for an answer, by the connection that sent them.
type pendingCalls struct {
	// mu guards byPeer and n. It is taken with Bus.mu held
	// (ReconnectService), never the other way round.
	mu     sync.Mutex
	byPeer map[*Peer]map[*callState]struct{}
	n      int
}

func (pc *pendingCalls) add(st *callState) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.byPeer == nil {
		pc.byPeer = make(map[*Peer]map[*callState]struct{})
	}
	set := pc.byPeer[st.peer]
	if set == nil {
		set = make(map[*callState]struct{})
		pc.byPeer[st.peer] = set
	}
	set[st] = struct{}{}
	pc.n++
}

func (pc *pendingCalls) remove(st *callState) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	set := pc.byPeer[st.peer]
	if _, ok := set[st]; !ok {
		return
	}
	delete(set, st)
	pc.n--
	if len(set) == 0 {
		delete(pc.byPeer, st.peer)
	}
}

// takeAll empties the set and returns what it held.
func (pc *pendingCalls) takeAll() []*callState {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	out := make([]*callState, 0, pc.n)
	for _, set := range pc.byPeer {
		for st := range set {
			out = append(out, st)
		}
	}
	pc.byPeer, pc.n = nil, 0
	return out
}

// takePeer removes p's calls and returns them.
func (pc *pendingCalls) takePeer(p *Peer) []*callState {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	set := pc.byPeer[p]
	out := make([]*callState, 0, len(set))
	for st := range set {
		out = append(out, st)
	}
	delete(pc.byPeer, p)
	pc.n -= len(out)
	return out
}

func (pc *pendingCalls) len() int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.n
}

// PendingCalls returns how many calls from BusMode clients the service has
// received and not answered yet.
func (b *Bus) PendingCalls() int { return b.pending.len() }

// Dropped reports whether the call is over without the service: the bus
// answered it itself with NoReply because the service's instance it was
// delivered to left the bus (ReconnectService) before answering, as
// systemd never reads the calls queued to it when it re-executes; or the
// connection that sent it left the bus before an answer, as dbus-daemon
// then forgets the replies it expected. Either way the service must not
// act on it (a Reply or ReplyError is a no-op).
func (c *Call) Dropped() bool { return c.st.dropped.Load() }

// TimeOut answers the call with NoReply as dbus-daemon does when its
// reply_timeout expires ("Message did not receive a reply (timeout by
// message bus)"), from the bus driver, while the service stays on the bus.
// Like Reply, only the first answer counts; the service's later Reply is a
// no-op.
func (c *Call) TimeOut() {
	if c.Peer.mode != BusMode || !c.claim() {
		return
	}
	b := c.Peer.bus
	b.mu.Lock()
	b.driverNoReplyLocked(c.st, noReplyTimeout)
	b.mu.Unlock()
}

// dropPendingLocked answers every call the service has not answered with
// NoReply, as dbus-daemon does when the recipient leaves the bus. b.mu
// must be held.
func (b *Bus) dropPendingLocked() {
	for _, st := range b.pending.takeAll() {
		if st.claim() {
			st.dropped.Store(true)
			b.driverNoReplyLocked(st, noReplyGone)
		}
	}
}

// dropPeerPending forgets the calls p sent that the service has not
// answered, when p leaves the bus, as dbus-daemon forgets the replies a
// departing connection expected: the service's late answer is a no-op
// and Call.Dropped tells it not to act on them. Nothing of them stays.
func (b *Bus) dropPeerPending(p *Peer) {
	for _, st := range b.pending.takePeer(p) {
		if st.claim() {
			st.dropped.Store(true)
		}
	}
}

// driverNoReplyLocked sends the caller of st NoReply with text, from the
// bus driver. st must have been claimed. b.mu must be held.
func (b *Bus) driverNoReplyLocked(st *callState, text string) {
	b.driverSendLocked(st.peer, newError(st.serial, st.peer.UniqueName(), driverName, errNoReply, []any{text}))
}
