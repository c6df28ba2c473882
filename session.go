package sdbus

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// A session is one D-Bus connection of a Conn, with the state tied to it:
// the jobs it tracks, the units it watches and who owns systemd's name on
// it. A Conn has one current session at a time; a reconnecting Conn makes
// a new session for each connection.
//
// # The life of a session
//
// Every session goes through these states, in this order; no state is
// skipped except where a transition says so, and no state is left twice.
//
//	dialing    open: dial, authenticate, Hello, match rules, GetNameOwner
//	set up     open returned it; nobody can make calls on it yet
//	installed  it is the Conn's current session: calls are made on it
//	ended      its connection is gone; its tracker and watches were told
//	replaced   a newer session is current (reconnecting Conns only)
//
// The transitions, and who may trigger each:
//
//	dialing   -> (dropped)  open fails: the connection is closed, nothing
//	                        else saw the session (Connect, the supervisor);
//	                        a failed attempt
//	dialing   -> set up     open succeeds (Connect, the supervisor)
//	set up    -> installed  install: Connect for the first session, the
//	                        supervisor for later ones; refused after Close;
//	                        install notes the time (s.installed)
//	any       -> ended      end: godbus's Terminate when the connection
//	                        closes (EOF, an error, Close), or Close itself;
//	                        it runs once, whether or not the session was
//	                        installed yet ("drops between setup and
//	                        install" ends a session that is not current),
//	                        and notes the time (s.endedAt)
//	ended     -> replaced   the supervisor installs the next session
//
// A session is stable when it ended ReconnectPolicy.StableAfter or more
// after it was installed; one that ended sooner, or before it was
// installed, is short-lived, and its attempt counts as failed (see
// ReconnectPolicy for the rule and the reasons).
//
// The reactions to "ended", all in session.end, once:
//
//   - the tracker: every pending job fails with the cause (ErrDisconnected,
//     or ErrClosed after Close); results that had arrived are kept, so a
//     call that registers their job path afterwards gets the real result;
//     later registrations of unknown paths fail at once.
//   - the watches: each delivers the states that arrived before the end,
//     then closes its channel.
//   - the supervisor: s.ended is closed. The supervisor is the only
//     goroutine that dials, installs, and marks the Conn done. It waits for
//     the current session's end (a session that ended before it was
//     installed is seen at once after installing it); then, without
//     WithReconnect, it marks the Conn done; with it, it counts the
//     attempts that failed in a row: a stable session resets the count to
//     0, a short-lived one adds 1, and so does every connection redial
//     cannot set up. With 0 it redials at once; with n it waits the
//     backoff for n first (MinDelay doubled n-1 times, at most MaxDelay),
//     or marks the Conn done when n reached MaxAttempts. It installs what
//     redial set up. Close stops it.
//
// While no installed session is alive, calls wait for the next one (see
// Conn.current), bounded by their ctx and ReconnectPolicy.WaitForConnection.
//
// Within a session on a bus, org.freedesktop.systemd1 changes owner when
// systemd re-executes (old → "" → new; noreply.go). The session holds the
// signals of unique names while the name has no owner, and their
// JobRemoved at any time (session.held), and delivers the new owner's when
// it takes the name; then, on a session
// sdbus dialed, it audits its pending jobs against the new instance's
// ListJobs (auditJobs): none of them is left waiting for a JobRemoved
// that no instance will send.
type session struct {
	c   *Conn
	bus *dbus.Conn
	// p2p is set for a direct connection to systemd (no bus): no match
	// rules, no Hello, signals without sender.
	p2p bool
	// ordered is set when signals reach the session on godbus's read
	// goroutine, in wire order with replies (every connection sdbus
	// dials); a bus connection wrapped by NewConn hands them over through
	// a channel, so a reply may be seen before a signal sent earlier.
	ordered bool
	mgr     dbus.BusObject
	jobs    *jobTracker
	watches *watchSet

	// ended is closed by end, once.
	ended   chan struct{}
	endOnce sync.Once
	// installed is when install made the session current (zero if it
	// never did); endedAt is when end ran. Each is written once, before
	// the supervisor reads it: installed by install, which runs before
	// the supervisor starts or on it; endedAt by end, before ended is
	// closed.
	installed, endedAt time.Time

	// mu guards owner, ownerSeq, ownerChanged and held. It is held only
	// to read or update them, never across a call or a channel operation.
	mu sync.Mutex
	// owner is the unique name of org.freedesktop.systemd1's owner, as of
	// the message with sequence ownerSeq ("" while it has none);
	// instance is the last owner that was not "" (a new one means
	// systemd re-executed, or was restarted: see auditJobs).
	owner    string
	ownerSeq dbus.Sequence
	instance string
	// past are the unique names that owned the name before instance
	// (newest last, at most maxPast): systemd's earlier instances. A
	// JobRemoved one of them, or instance while the name has no owner,
	// sends late (systemd 262 releases the name before its old instance
	// stops sending) is systemd's word, and delivered.
	past []string
	// ownerChanged is closed and replaced whenever owner is recorded
	// (noreply.go waits on it).
	ownerChanged chan struct{}
	// held keeps the signals systemd's instances may send before taking
	// the name: while it has no owner, any signal of a unique name; while
	// it has one, a JobRemoved of another unique name (systemd 262
	// releases the name on daemon-reexec, and its new instance may send
	// JobRemoved before it owns the name again, even before dbus-daemon
	// has seen the old instance's connection close). They are delivered if
	// their sender becomes the owner, and dropped when another does.
	held []*dbus.Signal

	// subscription state, guarded by mu: subs counts what needs unit
	// change signals now (watches, reconciled jobs); subscribed is what
	// the manager was last told; syncing is set while one goroutine brings
	// subscribed in line with subs; subErr is the last Subscribe failure;
	// subChanged is closed and replaced whenever one of them changes.
	subs       int
	subscribed bool
	syncing    bool
	subErr     error
	subChanged chan struct{}
}

// maxHeld bounds the signals a session holds while systemd's name has no
// owner; beyond it the oldest are dropped, JobRemoved last.
const maxHeld = 1024

// maxPast bounds the earlier owners a session remembers (session.past).
const maxPast = 8

func (c *Conn) newSession() *session {
	return &session{c: c, jobs: newJobTracker(), watches: newWatchSet(), ended: make(chan struct{}),
		subChanged: make(chan struct{}), ownerChanged: make(chan struct{})}
}

// alive reports whether the session's connection is still up.
func (s *session) alive() bool { return s.bus.Context().Err() == nil }

// end moves the session to "ended" (see the state machine above). It runs
// once, whoever calls it first.
func (s *session) end() {
	s.endOnce.Do(func() {
		s.endedAt = time.Now()
		cause := s.c.goneErr()
		s.jobs.fail(cause)
		s.watches.fail(cause)
		s.mu.Lock()
		s.held = nil
		s.mu.Unlock()
		close(s.ended)
	})
}

// stable reports whether the session, which has ended, lasted
// ReconnectPolicy.StableAfter from its install on (see the state machine
// above). A session that ended before it was installed is not stable.
func (s *session) stable(after time.Duration) bool {
	return !s.installed.IsZero() && s.endedAt.Sub(s.installed) >= after
}

// isEnded reports whether end has run.
func (s *session) isEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// supervise runs for the whole life of the Conn, from its first session
// on: it is the only goroutine that redials, installs sessions and marks
// the Conn done (see the state machine above).
func (c *Conn) supervise(s *session) {
	// failed counts the attempts that failed in a row: connections that
	// could not be set up, and short-lived sessions.
	failed := 0
	for {
		select {
		case <-s.ended:
		case <-c.stop.Done():
			return
		}
		if c.cfg.reconnect == nil {
			c.markDone()
			return
		}
		if s.stable(c.cfg.reconnect.StableAfter) {
			failed = 0
		} else {
			failed++
		}
		next := c.redial(&failed)
		if next == nil {
			c.markDone() // closed, or the policy gave up
			return
		}
		if !c.install(next) {
			return // closed meanwhile
		}
		s = next
	}
}

// install makes s the current session and wakes the calls waiting for it.
// The manager may have changed meanwhile (an upgrade, a re-execution), so
// cached versions and features are dropped. It reports false, and closes
// s, when the Conn is closed.
func (c *Conn) install(s *session) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.bus.Close()
		s.end()
		return false
	}
	s.installed = time.Now()
	c.sess.Store(s)
	c.gen++
	c.versionOK, c.features, c.absent = false, nil, nil
	close(c.up)
	c.up = make(chan struct{})
	c.mu.Unlock()
	return true
}

// subscribeTimeout bounds one Subscribe or Unsubscribe call made on
// behalf of several callers.
const subscribeTimeout = 10 * time.Second

// subscribe adds a need for unit change signals (PropertiesChanged,
// UnitNew, UnitRemoved, and JobRemoved of jobs this client did not ask
// for) and waits, bounded by ctx, until the manager sends them
// (Manager.Subscribe). Every successful subscribe is paired with one
// unsubscribe; the last one makes sdbus call Manager.Unsubscribe. On a
// direct connection systemd sends everything anyway.
func (s *session) subscribe(ctx context.Context) error {
	if s.p2p {
		return nil
	}
	s.mu.Lock()
	s.subs++
	s.subErr = nil // a failure is tried again for a new caller
	s.mu.Unlock()
	s.syncSubscription()
	for {
		s.mu.Lock()
		ok, busy, err, changed := s.subscribed, s.syncing, s.subErr, s.subChanged
		s.mu.Unlock()
		switch {
		case ok:
			return nil
		case s.isEnded():
			s.unsubscribe()
			return dbus.ErrClosed
		case !busy && err != nil:
			s.unsubscribe()
			return err
		case !busy:
			s.syncSubscription()
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			s.unsubscribe()
			return ctx.Err()
		case <-s.ended:
			s.unsubscribe()
			return dbus.ErrClosed
		}
	}
}

// unsubscribe gives back what subscribe took.
func (s *session) unsubscribe() {
	if s.p2p {
		return
	}
	s.mu.Lock()
	s.subs--
	s.mu.Unlock()
	s.syncSubscription()
}

// syncSubscription tells the manager to subscribe or unsubscribe until
// what it was told matches what is needed. One goroutine at a time does
// it, so the calls reach systemd in the order of the changes; the others
// return at once and wait on subChanged. No lock is held across a call.
func (s *session) syncSubscription() {
	s.mu.Lock()
	if s.syncing {
		s.mu.Unlock()
		return
	}
	s.syncing = true
	for {
		want := s.subs > 0
		if want == s.subscribed || s.isEnded() || want && s.subErr != nil {
			s.syncing = false
			s.subChangedLocked()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		method := "Unsubscribe"
		if want {
			method = "Subscribe"
		}
		ctx, cancel := context.WithTimeout(s.bus.Context(), subscribeTimeout)
		err := s.mgr.CallWithContext(ctx, managerIface+"."+method, s.c.flags()).Store()
		cancel()
		var de dbus.Error
		if errors.As(err, &de) && (de.Name == "org.freedesktop.systemd1.AlreadySubscribed" || de.Name == "org.freedesktop.systemd1.NotSubscribed") {
			err = nil // the manager is in the state asked for
		}
		s.mu.Lock()
		switch {
		case err == nil:
			s.subscribed, s.subErr = want, nil
		case want:
			s.subErr = err // reported to the callers waiting in subscribe
		default:
			s.subscribed = false // an Unsubscribe that failed: the connection is going
		}
		s.subChangedLocked()
	}
}

func (s *session) subChangedLocked() {
	close(s.subChanged)
	s.subChanged = make(chan struct{})
}

// cacheIfCurrent runs store (which updates what c.mu guards) under c.mu
// if no session was installed since gen was read: an answer asked before
// a reconnect may come from the manager as it was before a re-execution
// or an upgrade, so it is used but not kept.
func (c *Conn) cacheIfCurrent(gen uint64, store func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		store()
	}
}

// signalHandler receives every signal of a session on godbus's read
// goroutine, in wire order. It never blocks and makes no D-Bus calls: it
// updates maps under short locks and closes channels.
type signalHandler struct{ s *session }

func (h signalHandler) DeliverSignal(iface, member string, sig *dbus.Signal) {
	s := h.s
	switch {
	case iface == busName && member == "NameOwnerChanged":
		if s.p2p || sig.Sender != busName || sig.Path != busPath || len(sig.Body) != 3 {
			return
		}
		name, _ := sig.Body[0].(string)
		newOwner, ok := sig.Body[2].(string)
		if name == systemdName && ok {
			held, audit := s.setOwner(newOwner, sig.Sequence)
			for _, sig := range held {
				s.dispatch(sig)
			}
			if audit && s.ordered {
				s.c.goTracked(s.auditJobs)
			}
		}
	case iface == managerIface && (member == "JobRemoved" || member == "UnitNew" || member == "UnitRemoved"),
		iface == propsIface && member == "PropertiesChanged":
		if s.admit(sig) {
			s.dispatch(sig)
		}
	}
}

// Terminate is called by godbus when the connection closes.
func (h signalHandler) Terminate() { h.s.end() }

// dispatch hands a signal from systemd to the tracker or the watches.
func (s *session) dispatch(sig *dbus.Signal) {
	if sig.Name == managerIface+".JobRemoved" {
		if sig.Path != managerPath {
			return
		}
		if ev, ok := decodeJobRemoved(sig.Body); ok {
			s.jobs.complete(ev)
		}
		return
	}
	s.watches.deliver(sig)
}

// admit reports whether a signal comes from the manager: on a bus from the
// current owner of org.freedesktop.systemd1; on a direct connection from
// the peer itself, the only one who can send there, which names itself
// org.freedesktop.systemd1 (systemd 252) or nothing. A JobRemoved from an
// instance of systemd that no longer owns the name is admitted too
// (session.past). JobRemoved from other unique names, and while the name
// has no owner any of their signals, are held (see session.held) and not
// admitted now.
func (s *session) admit(sig *dbus.Signal) bool {
	if s.p2p {
		return sig.Sender == "" || sig.Sender == systemdName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case sig.Sender == "":
		return false
	case sig.Sender == s.owner:
		return true
	case sig.Name == managerIface+".JobRemoved" && (sig.Sender == s.instance || slices.Contains(s.past, sig.Sender)):
		// An instance of systemd that has released the name (or given it
		// up to a later one) ended the job: its result is true, and no
		// later instance will send it.
		return true
	case sig.Sender[0] == ':' && (s.owner == "" || sig.Name == managerIface+".JobRemoved"):
		// A new instance's JobRemoved may even come while the old
		// instance still owns the name: dbus-daemon had not yet seen
		// the old connection close (systemd 262).
		s.holdLocked(sig)
	}
	return false
}

// holdLocked keeps sig until the name has an owner again. When the
// session holds maxHeld signals, the oldest that is not a JobRemoved
// makes room (a flood of unit changes must not push a job's result out),
// else the oldest.
func (s *session) holdLocked(sig *dbus.Signal) {
	if len(s.held) == maxHeld {
		drop := 0
		for i, h := range s.held {
			if h.Name != managerIface+".JobRemoved" {
				drop = i
				break
			}
		}
		s.held = slices.Delete(s.held, drop, drop+1)
	}
	s.held = append(s.held, sig)
}

// setOwner records a new owner of org.freedesktop.systemd1, as of the
// message with sequence seq, and returns the held signals its sender sent
// (in order), which the caller delivers, and whether the owner is a new
// instance of systemd (the jobs are audited then: auditJobs). A
// NameOwnerChanged processed after the GetNameOwner reply is newer and
// wins.
func (s *session) setOwner(owner string, seq dbus.Sequence) (held []*dbus.Signal, newInstance bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq < s.ownerSeq {
		return nil, false
	}
	s.owner, s.ownerSeq = owner, seq
	close(s.ownerChanged)
	s.ownerChanged = make(chan struct{})
	if owner == "" {
		return nil, false
	}
	newInstance = s.instance != "" && owner != s.instance
	if newInstance {
		s.past = append(s.past, s.instance)
		if len(s.past) > maxPast {
			s.past = slices.Delete(s.past, 0, 1)
		}
	}
	s.instance = owner
	for _, sig := range s.held {
		if sig.Sender == owner {
			held = append(held, sig)
		}
	}
	s.held = nil
	return held, newInstance
}

// auditTimeout bounds the ListJobs call of auditJobs.
const auditTimeout = 30 * time.Second

// auditJobs runs after org.freedesktop.systemd1 passed to a new instance
// of systemd (daemon-reexec; a restart of the manager): every job this
// session tracks that the manager no longer lists, and whose JobRemoved
// never came, ends at once (Job.Wait: ErrOutcomeUnknown, saying so)
// rather than never. A job can end while systemd re-executes without any
// instance announcing it: the old one has stopped sending, the new one
// never had it. The JobRemoved of a job that ended before the ListJobs
// reply was sent arrives before that reply, in wire order (sessions
// sdbus dials only), so the job is finished by then; a job that ends
// later is listed. When the call fails (systemd left again, the
// connection ended), the next instance's audit, or the end of the
// connection, decides.
func (s *session) auditJobs() {
	pending := s.jobs.pendingPaths()
	if len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(s.c.stop, auditTimeout)
	defer cancel()
	sent := s.ownerMark()
	var rows []JobStatus
	if err := storeCall(s.mgr.CallWithContext(ctx, managerIface+".ListJobs", s.c.flags()), &rows); err != nil || s.ownerMark() != sent {
		return
	}
	listed := make(map[dbus.ObjectPath]bool, len(rows))
	for _, r := range rows {
		listed[r.Path] = true
	}
	gone := pending[:0]
	for _, p := range pending {
		if !listed[p] {
			gone = append(gone, p)
		}
	}
	s.jobs.lose(gone)
}
