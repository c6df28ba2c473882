package busd

import "sync"

// Fault injection: ending a connection right after the reply to a call.

// replyDrops counts, per method name, how many more replies end the
// connection they are sent on.
type replyDrops struct {
	// mu guards left. It is taken with Bus.mu held (driver calls), never
	// the other way round.
	mu   sync.Mutex
	left map[string]int
}

// DropAfterReply makes the replies to the next n calls of the method
// member (any interface, any connection, the bus driver's methods such as
// Hello, AddMatch and GetNameOwner as well as the service's) end their
// connection: the reply, and everything queued before it, is written,
// then the connection is closed; nothing queued after the reply reaches
// the client. An error reply counts as a reply; calls sent with
// NO_REPLY_EXPECTED do not count. n <= 0 cancels what is left for member.
func (b *Bus) DropAfterReply(member string, n int) {
	d := &b.drops
	d.mu.Lock()
	defer d.mu.Unlock()
	if n <= 0 {
		delete(d.left, member)
		return
	}
	if d.left == nil {
		d.left = make(map[string]int)
	}
	d.left[member] = n
}

// ClearDropAfterReply cancels every DropAfterReply.
func (b *Bus) ClearDropAfterReply() {
	d := &b.drops
	d.mu.Lock()
	defer d.mu.Unlock()
	d.left = nil
}

// take reports whether the reply just queued for a call of member must
// end its connection, and counts it.
func (d *replyDrops) take(member string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, ok := d.left[member]
	if !ok {
		return false
	}
	if n <= 1 {
		delete(d.left, member)
	} else {
		d.left[member] = n - 1
	}
	return true
}

// replying decides, before a reply to a call of member is queued for p,
// whether DropAfterReply asks to end p's connection after it, and returns
// what does that once the reply is queued. The decision comes first: the
// reply is written at once, and a client that has it may arm a fault
// that must not apply to this call.
func (b *Bus) replying(p *Peer, member string) (after func()) {
	if b.drops.take(member) {
		return p.drain
	}
	return func() {}
}
