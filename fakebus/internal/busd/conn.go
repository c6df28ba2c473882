package busd

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Peer is one client connection.
type Peer struct {
	bus  *Bus
	mode Mode
	rwc  io.ReadWriteCloser
	in   *reader // used for both the SASL and the binary phase

	// inHeld is what the connection's input holds, outHeld what is
	// queued for it (qbytes), as counted against Limits; readable by
	// any goroutine.
	inHeld, outHeld atomic.Int64
	// limitEvent is the first limit the connection passed, reported when
	// it has ended.
	limitEvent atomic.Pointer[LimitEvent]
	authTimer  *time.Timer // Limits.AuthTimeout; nil when there is none

	// Credentials. credKnown means they came from SO_PEERCRED; uid and pid
	// are final once the peer is authenticated (published under bus.mu).
	credKnown bool
	uid, pid  uint32

	unique atomic.Pointer[string] // set once by Hello (BusMode)
	// pendingReplies counts calls to the service awaiting a reply
	// (BusMode), for Limits.MaxPendingReplies.
	pendingReplies atomic.Int64
	// closed is set by Close: busd dropped the connection, and the
	// calls it read before are not handed to the service.
	closed atomic.Bool

	done       chan struct{} // closed when the connection has ended
	writerDone chan struct{} // closed when the writer goroutine exits
	closeOnce  sync.Once     // closes rwc once

	// Routing state, guarded by bus.mu.
	authed bool         // SASL finished (listed by Bus.Peers, receives messages)
	rules  []*matchRule // BusMode match rules, in AddMatch order
	// owned are the well-known names the connection owns
	// (Limits.MaxNames counts them and its unique name).
	owned map[string]struct{}

	monitor atomic.Bool // became a monitor (set with bus.mu held)

	// qmu guards the outgoing queue: queue, qbytes, qstate, qfds, qnfds,
	// qfrom and qtrace. It is taken before another connection's sentMu. It is never
	// held across a Write.
	qmu    sync.Mutex
	qcond  sync.Cond // signalled (with qmu) when queue or qstate changes
	queue  [][]byte  // encoded messages waiting for the writer, FIFO
	qbytes int       // sum of len+queueEntryBytes over queue and the batch being written
	qstate queueState
	// qfds are the file descriptors the queued messages carry, by the
	// index of their message in queue (fds.go); qnfds counts them with
	// those of the batch being written (Limits.MaxOutgoingUnixFDs).
	qfds  map[int][]int
	qnfds int
	// qfrom are the clients that sent the queued messages relayed from
	// them, by the index of their message in queue, with what each is
	// charged (sent).
	qfrom map[int]charge
	// qtrace are the Config.Trace events of the queued messages, in
	// queue order (only with a Trace).
	qtrace []Event

	// sent is what this connection's messages hold in other connections'
	// queues until they are written (bytes and fds). Past
	// Limits.MaxIncomingBytes or Limits.MaxIncomingUnixFDs, busd stops
	// reading the connection until they are, as dbus-daemon stops
	// reading a connection whose messages are still alive. sentMu guards
	// it; sentCond is signalled when it shrinks or the connection closes.
	sentMu   sync.Mutex
	sentCond sync.Cond
	sent     charge

	// Unix fd passing (fds.go). sock is the connection's unix socket (nil
	// on pipes); unixFD is set once the client negotiated fd passing;
	// inFDs are fds received and not yet given to a message (the reader
	// goroutine's).
	sock   *net.UnixConn
	unixFD atomic.Bool
	inFDs  []int
}

// queueState is the life cycle of a connection's outgoing queue.
type queueState uint8

const (
	queueOpen     queueState = iota
	queueDraining            // no new messages; the writer flushes the queue, then closes
	queueClosed              // the writer stops at once; the connection is closed
)

// UniqueName returns the peer's unique name (":1.N") in BusMode after Hello,
// and "" otherwise.
func (p *Peer) UniqueName() string {
	if s := p.unique.Load(); s != nil {
		return *s
	}
	return ""
}

// Mode returns the mode the connection is served in.
func (p *Peer) Mode() Mode { return p.mode }

// UID returns the SO_PEERCRED uid on unix sockets, else the uid claimed in AUTH EXTERNAL.
func (p *Peer) UID() uint32 { return p.uid }

// PID returns the SO_PEERCRED pid on unix sockets, else os.Getpid().
func (p *Peer) PID() uint32 { return p.pid }

// Done returns a channel that is closed when the connection has ended: after
// it was removed from the bus (names released, NameOwnerChanged sent) and
// Handler.PeerGone returned.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Close drops the connection (fault injection). It does not wait.
func (p *Peer) Close() {
	p.closed.Store(true)
	p.sentMu.Lock()
	p.sentCond.Broadcast() // its reader stops waiting for room
	p.sentMu.Unlock()
	p.qmu.Lock()
	p.qstate = queueClosed
	p.queue = nil
	p.qtrace = nil
	from := p.qfrom
	p.qfrom = nil
	p.closeQueuedFDs()
	p.bus.out.used.Add(-int64(p.qbytes))
	p.qbytes = 0
	p.outHeld.Store(0)
	p.qcond.Broadcast()
	p.qmu.Unlock()
	credit(from)
	p.closeConn()
}

func (p *Peer) closeConn() {
	p.closeOnce.Do(func() { _ = p.rwc.Close() })
}

// CloseAfterFlush drops the connection once everything already queued for
// it has been written: nothing queued later reaches the client.
func (p *Peer) CloseAfterFlush() { p.drain() }

// drain stops accepting messages and lets the writer flush what is queued
// (e.g. the error reply that made busd drop the client) before it closes the
// connection.
func (p *Peer) drain() {
	p.qmu.Lock()
	if p.qstate == queueOpen {
		p.qstate = queueDraining
		p.qcond.Broadcast()
	}
	p.qmu.Unlock()
}

// enqueued is what became of a message given to a connection's queue.
type enqueued uint8

const (
	queued    enqueued = iota // the writer will write it
	queueFull                 // refused: the queue is over a limit (the connection stays)
	notQueued                 // the connection is gone, or cannot take the message
)

// charge is what a client's messages hold in the queues they wait in.
type charge struct {
	from       *Peer
	bytes, fds int
}

// credit gives back what the written or dropped messages of charges held.
func credit(charges map[int]charge) {
	for _, c := range charges {
		c.from.sentMu.Lock()
		c.from.sent.bytes -= c.bytes
		c.from.sent.fds -= c.fds
		c.from.sentCond.Broadcast()
		c.from.sentMu.Unlock()
	}
}

// waitSent waits while p's messages waiting in other connections' queues
// are over Limits.MaxIncomingBytes or Limits.MaxIncomingUnixFDs, or until
// p is closed.
func (p *Peer) waitSent() {
	lim := &p.bus.lim
	p.sentMu.Lock()
	for (p.sent.bytes >= lim.MaxIncomingBytes || p.sent.fds >= lim.MaxIncomingUnixFDs) && !p.closed.Load() {
		p.sentCond.Wait()
	}
	p.sentMu.Unlock()
}

// enqueue queues data for the writer without blocking. As dbus-daemon, a
// connection whose queue already holds more than Limits.MaxOutgoingBytes
// (or Limits.MaxOutgoingUnixFDs fds) is not given the message, and stays
// connected: enqueue reports queueFull, and a method call's sender gets
// LimitsExceeded (relayUnicast). When all queues together would pass
// Limits.MaxTotalOutgoingBytes (busd's own limit), the connection with the
// longest queue is closed.
func (p *Peer) enqueue(data []byte) enqueued { return p.enqueueWith(data, nil, nil, nil) }

// enqueueWith is enqueue of data with dups, the duplicates of its fds
// that the queue then owns (closed when written, dropped or refused).
// from, if not nil, is the client that sent the message: it is charged
// with it until it is written or dropped (Peer.sent). ev, if not nil, is
// the message's trace event, reported by the writer (Config.Trace).
func (p *Peer) enqueueWith(data []byte, dups []int, from *Peer, ev *Event) enqueued {
	b := p.bus
	n := len(data) + queueEntryBytes
	p.qmu.Lock()
	refuse := func(why enqueued) enqueued {
		p.qmu.Unlock()
		closeFDs(dups)
		return why
	}
	if p.qstate != queueOpen {
		return refuse(notQueued)
	}
	// Checked before the message is added, as dbus-daemon checks: a
	// queue may pass a limit by its last message.
	if p.qbytes > b.lim.MaxOutgoingBytes || len(dups) > 0 && p.qnfds > b.lim.MaxOutgoingUnixFDs {
		return refuse(queueFull)
	}
	if len(dups) > 0 {
		if p.qfds == nil {
			p.qfds = make(map[int][]int)
		}
		p.qfds[len(p.queue)] = dups
		p.qnfds += len(dups)
	}
	if from != nil {
		c := charge{from, n, len(dups)}
		if p.qfrom == nil {
			p.qfrom = make(map[int]charge)
		}
		p.qfrom[len(p.queue)] = c
		from.sentMu.Lock()
		from.sent.bytes += c.bytes
		from.sent.fds += c.fds
		from.sentMu.Unlock()
	}
	p.queue = append(p.queue, data)
	if ev != nil {
		p.qtrace = append(p.qtrace, *ev)
	}
	p.qbytes += n
	p.outHeld.Store(int64(p.qbytes))
	if len(p.queue) == 1 {
		p.qcond.Signal() // the writer only waits on an empty queue
	}
	p.qmu.Unlock()
	if !b.out.add(b, p, int64(n), outputHeld, LimitTotalOutgoingBytes) {
		return notQueued
	}
	return queued
}

// queueEntryBytes is what a message waiting in a queue holds beyond its
// bytes (its slot in the queue, with the queue's room to grow); it counts
// against Limits.MaxOutgoingBytes with them, so that a queue of many small
// messages cannot hold much more than the limit says.
const queueEntryBytes = 32

// maxBatch is the most bytes the writer copies together into one Write.
const maxBatch = 256 << 10

// writeLoop is the connection's only writer. It takes everything queued at
// once and writes it with as few Writes as possible.
func (p *Peer) writeLoop() {
	defer p.bus.wg.Done()
	defer close(p.writerDone)
	var batch [][]byte
	for {
		p.qmu.Lock()
		for len(p.queue) == 0 && p.qstate == queueOpen {
			p.qcond.Wait()
		}
		if p.qstate == queueClosed || len(p.queue) == 0 {
			// Closed, or draining and done.
			p.closeQueuedFDs()
			from := p.qfrom
			p.qfrom = nil
			p.qtrace = nil
			p.qmu.Unlock()
			credit(from)
			p.closeConn()
			return
		}
		// The batch stays counted in qbytes until it is written.
		batch, p.queue = p.queue, batch[:0]
		fds := p.qfds
		p.qfds = nil
		from := p.qfrom
		p.qfrom = nil
		traces := p.qtrace
		p.qtrace = nil
		p.qmu.Unlock()

		// Reported before the write, so that whoever reads the
		// message can count on its event having been.
		for _, e := range traces {
			p.bus.cfg.Trace(e)
		}
		written := 0
		nfds := 0
		for _, m := range batch {
			written += len(m) + queueEntryBytes
		}
		for _, f := range fds {
			nfds += len(f)
		}
		var err error
		if fds == nil {
			err = writeBatch(p.rwc, batch, &p.bus.batchBufs)
		} else {
			err = p.writeWithFDs(batch, fds)
		}
		clear(batch) // let the GC have the messages
		p.qmu.Lock()
		if p.qstate != queueClosed { // Close put back everything
			p.qbytes -= written
			p.qnfds -= nfds
			p.outHeld.Store(int64(p.qbytes))
			p.bus.out.used.Add(-int64(written))
		}
		p.qmu.Unlock()
		// Only now may the senders send more: crediting them before the
		// queue counts the batch as written let a sender held back at
		// MaxIncomingUnixFDs fill this queue past MaxOutgoingUnixFDs,
		// and its next message was refused (TestUnixFDsBackToBack,
		// under load).
		credit(from)
		if err != nil {
			p.Close()
			return
		}
	}
}

// writeBatch writes the messages in batch to w, copying small ones together
// into a buffer of maxBatch bytes from pool, which only connections
// writing hold. A message copied is dropped from batch, so that its memory
// is not held twice.
func writeBatch(w io.Writer, batch [][]byte, pool *sync.Pool) error {
	if len(batch) == 1 {
		_, err := w.Write(batch[0])
		return err
	}
	bp, _ := pool.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, maxBatch)
		bp = &b
	}
	defer pool.Put(bp)
	buf := (*bp)[:0]
	for i, m := range batch {
		if len(buf) > 0 && len(buf)+len(m) > maxBatch {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if len(m) >= maxBatch {
			if _, err := w.Write(m); err != nil {
				return err
			}
			continue
		}
		buf = append(buf, m...)
		batch[i] = nil
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// cred is what the transport knows about the client.
type cred struct {
	known    bool
	uid, pid uint32
}

// serve starts serving rwc. It returns immediately.
func (b *Bus) serve(rwc io.ReadWriteCloser, mode Mode, c cred) {
	p := &Peer{
		bus:        b,
		mode:       mode,
		rwc:        rwc,
		credKnown:  c.known,
		uid:        c.uid,
		pid:        c.pid,
		done:       make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	if uc, ok := rwc.(*net.UnixConn); ok {
		p.sock = uc
		p.in = newReader(fdReader{p}, p.chargeInput)
	} else {
		p.in = newReader(rwc, p.chargeInput)
	}
	if !c.known {
		p.uid = uint32(os.Getuid())
		p.pid = uint32(os.Getpid())
	}
	p.qcond.L = &p.qmu
	p.sentCond.L = &p.sentMu
	if mode == PeerMode {
		p.in.authBuffer = b.cfg.PeerAuthBuffer
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		_ = rwc.Close()
		close(p.done)
		return
	}
	b.peers[p] = struct{}{}
	b.all.Store(p, nil)
	// Like dbus-daemon, one connection too many still authenticating
	// closes the oldest of them.
	var oldest *Peer
	b.incomplete = append(b.incomplete, p)
	if len(b.incomplete) > b.lim.MaxIncompleteConnections {
		oldest = b.incomplete[0]
		b.incomplete = removePeer(b.incomplete, oldest)
	}
	if t := b.lim.AuthTimeout; t > 0 {
		p.authTimer = time.AfterFunc(t, func() { p.limited(LimitAuthTimeout, int64(t), int64(t)) })
	}
	b.wg.Add(2)
	b.mu.Unlock()
	if oldest != nil {
		oldest.limited(LimitIncompleteConnections, int64(b.lim.MaxIncompleteConnections)+1, int64(b.lim.MaxIncompleteConnections))
	}
	go p.writeLoop()
	go p.readLoop()
}

// ServeConn serves an already-accepted stream in the given mode. It returns
// immediately; the goroutines are owned by b. On a *net.UnixConn the peer's
// credentials come from SO_PEERCRED.
func (b *Bus) ServeConn(rwc io.ReadWriteCloser, mode Mode) {
	var c cred
	if uc, ok := rwc.(*net.UnixConn); ok {
		c = peerCred(uc)
	}
	b.serve(rwc, mode, c)
}

// readLoop authenticates the client, then reads and routes its messages
// until the connection ends, then cleans up.
func (p *Peer) readLoop() {
	defer p.bus.wg.Done()
	if p.authenticate() && p.complete() {
		b := p.bus
		if p.in.authBuffer > 0 {
			stalled := p.in.Buffered() > 0 && p.in.short
			p.in.authBuffer = 0
			if stalled {
				// Config.PeerAuthBuffer: the first message waits for
				// the next bytes (an error shows in readMessage).
				_ = p.in.fill(p.in.Buffered() + 1)
			}
		}
		for {
			p.waitSent()
			if b.cfg.InputDrained != nil && p.in.Buffered() == 0 {
				b.cfg.InputDrained(p)
			}
			m, counted, err := readMessage(p.in, b.lim.MaxMessageSize, b.lim.DecodeRatio, p.chargeInput)
			if err != nil {
				// EOF, an invalid message or a limit: drop the connection.
				p.readFailed(err)
				break
			}
			if b.cfg.Trace != nil {
				b.cfg.Trace(Event{Dir: In, Peer: p, Msg: m.message(), Serial: m.serial})
			}
			if !p.takeFDs(m) {
				break
			}
			ok := p.dispatch(m)
			closeFDs(m.fds)
			p.chargeInput(-counted)
			if !ok {
				break
			}
		}
	}
	p.in = nil // let the GC have the buffer
	closeFDs(p.inFDs)
	p.inFDs = nil
	p.releaseInput()
	p.finish()
}

// complete makes an authenticated connection one of the bus's, unless
// that would pass Limits.MaxConnections (then it is closed). It reports
// whether it did.
func (p *Peer) complete() bool {
	b := p.bus
	if p.authTimer != nil && !p.authTimer.Stop() {
		return false // timed out
	}
	b.mu.Lock()
	b.incomplete = removePeer(b.incomplete, p)
	if b.completed >= b.lim.MaxConnections {
		n := b.completed
		b.mu.Unlock()
		p.limited(LimitConnections, int64(n)+1, int64(b.lim.MaxConnections))
		return false
	}
	b.completed++
	p.authed = true
	if p.mode == PeerMode {
		b.p2pPeers = append(b.p2pPeers, p)
	}
	b.mu.Unlock()
	return true
}

// readFailed reports the limit a message passed, if that ended reading.
func (p *Peer) readFailed(err error) {
	switch e := err.(type) {
	case *tooBigError:
		p.limited(LimitMessageSize, int64(e.size), int64(p.bus.lim.MaxMessageSize))
	case *ratioError:
		p.limited(LimitDecodeRatio, int64(e.size), int64(p.bus.lim.DecodeRatio))
	}
}

// finish closes the connection after flushing what is queued (answers to
// what the client sent, e.g. the error before dropping a client that did
// not say Hello), removes the peer from the bus and tells the Handler.
// Peer.Close and Bus.Close discard the queue instead.
func (p *Peer) finish() {
	b := p.bus
	if p.authTimer != nil {
		p.authTimer.Stop()
	}
	p.drain()
	<-p.writerDone
	p.closeConn()

	// The Handler forgets the peer before the bus does, so that once a
	// peer is no longer listed by Peers the Handler has forgotten it too.
	b.mu.RLock()
	authed := p.authed
	b.mu.RUnlock()
	if e := p.limitEvent.Load(); e != nil && b.cfg.LimitExceeded != nil {
		b.cfg.LimitExceeded(*e)
	}
	// Its calls the service has not answered go with it (pending.go).
	b.dropPeerPending(p)
	if authed && b.cfg.Handler != nil {
		b.cfg.Handler.PeerGone(p)
	}
	b.mu.Lock()
	b.removePeerLocked(p)
	b.mu.Unlock()
	close(p.done)
}

// removePeerLocked forgets p: its match rules and names (broadcasting
// NameOwnerChanged for each, unique name last). b.mu must be held.
func (b *Bus) removePeerLocked(p *Peer) {
	delete(b.peers, p)
	b.all.Delete(p)
	b.incomplete = removePeer(b.incomplete, p)
	if p.authed {
		b.completed--
	}
	b.p2pPeers = removePeer(b.p2pPeers, p)
	b.busPeers = removePeer(b.busPeers, p)
	b.setRulesLocked(p, nil)
	unique := p.UniqueName()
	if unique == "" || b.uniques[unique] != p {
		return // no Hello, or a monitor (its names are gone already)
	}
	for _, name := range sortedKeys(p.owned) {
		delete(b.names, name)
		b.nameOwnerChangedLocked(name, unique, "")
	}
	p.owned = nil
	delete(b.uniques, unique)
	b.nameOwnerChangedLocked(unique, unique, "")
}

// setRulesLocked replaces p's match rules, keeping b.eavesdroppers right.
// b.mu must be held.
func (b *Bus) setRulesLocked(p *Peer, rules []*matchRule) {
	var delta int32
	for _, r := range p.rules {
		if r.eavesdrop {
			delta--
		}
	}
	for _, r := range rules {
		if r.eavesdrop {
			delta++
		}
	}
	b.eavesdroppers.Add(delta)
	p.rules = rules
}

// own records that p owns the well-known name. b.mu must be held.
func (p *Peer) own(name string) {
	if p.owned == nil {
		p.owned = make(map[string]struct{})
	}
	p.owned[name] = struct{}{}
}

// logInfo describes p as dbus-daemon's log and errors do:
// uid=N pid=N comm="...".
func (p *Peer) logInfo() string {
	s := "uid=" + itoa(uint64(p.uid)) + " pid=" + itoa(uint64(p.pid))
	if comm := commandOf(p.pid); comm != "" {
		s += " comm=\"" + comm + "\""
	}
	return s
}

// commandOf returns the command line of process pid as dbus-daemon logs
// it (_dbus_command_for_pid): at most 50 bytes of /proc/PID/cmdline, the
// words separated by spaces, unprintable bytes as '?'; "" if unknown.
func commandOf(pid uint32) string {
	f, err := os.Open("/proc/" + itoa(uint64(pid)) + "/cmdline")
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 50)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	if n > 0 && buf[n-1] == 0 {
		buf = buf[:n-1]
	}
	for i, c := range buf {
		switch {
		case c == 0:
			buf[i] = ' '
		case c < 0x20 || c > 127:
			buf[i] = '?'
		}
	}
	return string(buf)
}

// removePeer removes p from ps, keeping the order.
func removePeer(ps []*Peer, p *Peer) []*Peer {
	for i, q := range ps {
		if q == p {
			copy(ps[i:], ps[i+1:])
			ps[len(ps)-1] = nil
			return ps[:len(ps)-1]
		}
	}
	return ps
}
