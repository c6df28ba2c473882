package sdbus

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"time"

	"github.com/godbus/dbus/v5"
)

// ReconnectPolicy makes a Conn reconnect after its connection is lost
// (dbus-daemon restarted, systemd re-executed on its private socket), for
// long-lived clients such as kubelet or a container runtime daemon.
//
// After a disconnect the Conn redials its address, adds its match rules
// and subscribes again; the attempts are paced by the rule below.
// Meanwhile:
//
//   - Jobs pending when the connection dropped end with ErrDisconnected;
//     their outcome is unknown to the Conn: Conn.Reconcile finds it out,
//     and Job.Cancel still cancels them, on the new connection.
//     EnsureTransientUnit and DestroyUnit reconcile by themselves and
//     finish what they promise.
//   - Watches (WatchUnit, WaitUnitState) end: their channel closes after
//     the states that arrived before the disconnect.
//   - A call made while disconnected waits for the next connection, bounded
//     by its ctx and by WaitForConnection; nothing was sent, so it is safe.
//   - A call in flight when the connection dropped is retried on the next
//     connection only when it is idempotent: property reads, GetUnit,
//     LoadUnit, the ListUnits family, GetUnitFileState, the ListUnitFiles
//     family, GetJob, CancelJob, ResetFailedUnit,
//     AttachProcessesToUnit, FreezeUnit, ThawUnit, StopUnit, and
//     SetUnitProperties unless a property appends to a list (a non-empty
//     array such as DeviceAllow). Any other call, in particular every
//     job-creating call other than StopUnit, is never replayed blindly: it
//     fails with an error matching ErrOutcomeUnknown (and
//     ErrDisconnected); use Conn.Reconcile to learn what happened.
//   - A job-creating call abandoned by its ctx whose late reply was cut by
//     the disconnect: the job it may have created is looked up on the next
//     connection (the unit's queued job of the same type) and canceled,
//     unless another call on this Conn asked for that unit meanwhile.
//
// # Calls systemd never read (daemon-reexec)
//
// systemd's daemon-reexec on a bus (apt upgrade systemd runs one) keeps
// the connection but leaves calls unanswered: systemd leaves the bus
// without reading the calls queued to it, and the bus answers them with
// org.freedesktop.DBus.Error.NoReply. On every Conn, with or without
// WithReconnect, such a call is not a timeout:
//
//   - an idempotent call (the list above) is sent again once systemd owns
//     org.freedesktop.systemd1 again (waiting for it is bounded by ctx and
//     WaitForConnection, 30 s without a policy; then ErrServiceUnknown),
//     up to three times;
//   - any other call fails with ErrOutcomeUnknown (and ErrDisconnected):
//     systemd may have read it before it left; Conn.Reconcile tells what
//     happened. EnsureTransientUnit and DestroyUnit finish what they
//     promise; a job call abandoned by its ctx has its job canceled.
//
// The rule: a NoReply means systemd left the bus when
// org.freedesktop.systemd1 changed owner between the call and its answer
// (both buses send NameOwnerChanged first). Its text is no evidence:
// systemd itself answers NoReply with dbus-daemon's words for a departed
// recipient when polkitd leaves during the call's authorization check.
// Any other NoReply, such as dbus-daemon's own reply timeout ("Message
// did not receive a reply (timeout by message bus)") or that refusal, is
// ErrTimeout, at once: it is not sent again, and systemd is not waited
// for.
//
// # Failed attempts and backoff
//
// An attempt is one connection: dial, authenticate, Hello, match rules,
// and the session it yields. It fails when it cannot be set up, and also
// when its session is short-lived: it ends (for whatever reason: the bus
// drops it after Hello, after a call, or before the Conn could use it)
// less than StableAfter after the Conn made it its current connection.
// Connect's own connection is an attempt like the others. So a bus that
// accepts clients and drops them, a crash-looping broker or a policy that
// kills clients after Hello meets the same backoff as a bus that refuses
// connections, instead of a redial as fast as the connections die:
//
//   - After a stable session (one that lasted StableAfter) ends, the first
//     attempt is made at once: a bus restart or a re-execution is usually
//     over by then, or the next address in the list answers.
//   - After n failed attempts in a row, the next one is made after
//     MinDelay·2ⁿ⁻¹ (at most MaxDelay), jittered by ±50%: MinDelay after
//     the first failure, twice that after the second, and so on. The count
//     goes on across short-lived sessions, and only a stable session resets
//     it.
//   - When MaxAttempts attempts in a row have failed, short-lived sessions
//     included, the Conn stops reconnecting: Done closes and calls fail
//     with an error matching ErrDisconnected.
//
// The zero value is usable: a session is stable after 1 s, the first
// attempt after a stable session at once, then 100 ms to 10 s between
// attempts, 10 s per attempt, no limit on attempts, and calls wait up to
// 30 s for a connection.
//
// Every value is valid. A duration of 0 or less takes its default (but
// WaitForConnection, whose negative values mean "do not wait"); a
// MaxDelay below MinDelay is raised to it; a negative MaxAttempts is no
// limit, as 0. Any positive duration up to the longest time.Duration
// (math.MaxInt64, about 292 years) works as written: the doubling and the
// jitter saturate there instead of overflowing.
type ReconnectPolicy struct {
	// MinDelay is the delay after the first failed attempt; each further
	// failed attempt in a row doubles it, up to MaxDelay. Each delay is
	// jittered by ±50%. The first attempt after a stable session ended is
	// made at once.
	MinDelay time.Duration
	MaxDelay time.Duration
	// AttemptTimeout bounds each attempt (dial, authentication, setup).
	AttemptTimeout time.Duration
	// MaxAttempts is how many failed attempts in a row, short-lived
	// sessions included, end reconnecting (the Conn is then done and
	// calls fail with ErrDisconnected); 0 or a negative value means no
	// limit.
	MaxAttempts int
	// StableAfter is how long a session must last, from the moment the
	// Conn made it current, for its attempt to count as a success: one
	// that ends sooner counts as a failed attempt. 0 means 1 s.
	StableAfter time.Duration
	// WaitForConnection bounds how long a call waits for a connection
	// while the Conn is reconnecting, even when its ctx has no deadline;
	// then it fails with an error matching ErrDisconnected. 0 means 30 s;
	// a negative value means calls do not wait.
	WaitForConnection time.Duration
}

// DefaultWaitForConnection is ReconnectPolicy.WaitForConnection's default.
const DefaultWaitForConnection = 30 * time.Second

// DefaultStableAfter is ReconnectPolicy.StableAfter's default: longer
// than the setup of a connection takes on a loaded host, much shorter
// than the time between two legitimate disconnects (a dbus-daemon
// restart, a daemon-reexec).
const DefaultStableAfter = time.Second

// WithReconnect makes the Conn reconnect after its connection is lost,
// under policy p (see ReconnectPolicy).
func WithReconnect(p ReconnectPolicy) Option {
	if p.MinDelay <= 0 {
		p.MinDelay = 100 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 10 * time.Second
	}
	if p.MaxDelay < p.MinDelay {
		p.MaxDelay = p.MinDelay
	}
	if p.AttemptTimeout <= 0 {
		p.AttemptTimeout = 10 * time.Second
	}
	if p.StableAfter <= 0 {
		p.StableAfter = DefaultStableAfter
	}
	if p.WaitForConnection == 0 {
		p.WaitForConnection = DefaultWaitForConnection
	}
	return func(c *config) { c.reconnect = &p }
}

// redial makes new connections until one is set up, and returns its
// session; nil when the Conn is closed or the policy gives up. failed is
// the number of attempts that failed in a row before it is called (the
// supervisor counts a short-lived session as one); redial adds the
// connections it could not set up. With no failure, the first attempt is
// made at once; after n, it waits backoff(n) first, and gives up instead
// when n reached MaxAttempts (see ReconnectPolicy).
func (c *Conn) redial(failed *int) *session {
	p := c.cfg.reconnect
	for {
		if *failed > 0 {
			if p.MaxAttempts > 0 && *failed >= p.MaxAttempts {
				return nil
			}
			t := time.NewTimer(jitter(p.backoff(*failed)))
			select {
			case <-t.C:
			case <-c.stop.Done():
				t.Stop()
				return nil
			}
		}
		ctx, cancelAttempt := context.WithTimeout(c.stop, p.AttemptTimeout)
		s, err := c.open(ctx)
		cancelAttempt()
		if err == nil {
			return s
		}
		if c.stop.Err() != nil {
			return nil
		}
		*failed++
	}
}

// backoff is the delay before the next attempt after failed attempts in a
// row (failed >= 1): MinDelay doubled failed-1 times, at most MaxDelay.
func (p *ReconnectPolicy) backoff(failed int) time.Duration {
	d := p.MinDelay
	for i := 1; i < failed; i++ {
		if d >= p.MaxDelay/2 {
			return p.MaxDelay
		}
		d *= 2
	}
	return min(d, p.MaxDelay)
}

// jitter spreads d by ±50%, so that many clients do not redial at once:
// a delay drawn from [d/2, d+d/2], at most the longest Duration (d of any
// size, math.MaxInt64 included, neither overflows nor panics). A d of 0
// or less is 0.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	// In uint64, d/2 + d (at most 1.5·MaxInt64) cannot overflow.
	v := uint64(d/2) + rand.Uint64()%(uint64(d)+1)
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(v)
}

// Reconciliation is what Conn.Reconcile found out about a unit.
type Reconciliation struct {
	// Loaded reports whether the unit is loaded now. It is no proof that
	// a StartTransientUnit whose outcome is unknown created nothing:
	// systemd unloads a transient unit once it is inactive (a oneshot
	// that ran, a scope whose processes exited, a failed unit with
	// CollectMode=inactive-or-failed), so false reads the same for "never
	// created" and "created, ran, collected", and sending the call again
	// may run the unit twice. Only a reference the call's own connection
	// still holds (AddRef=true) makes "not loaded" mean "never created":
	// EnsureTransientUnit works that way (see its table); by hand, treat
	// false as unknown.
	Loaded bool
	// Job is the unit's queued job, if any: the job the lost call created,
	// or one that replaced it. Wait on it for its result.
	Job *Job
	// State is the unit's state now: ActiveState and Result tell how a
	// finished job went (active: it started; failed: Result says why).
	State UnitState
}

// Reconcile finds out what became of a job-creating call that failed with
// ErrOutcomeUnknown, or of a job whose Wait ended with ErrDisconnected:
// whether the unit is loaded, whether it has a job queued (returned as a
// Job that can be waited on), and its state. It reports what systemd
// shows now, not what the call did: a unit that is not loaded may never
// have been created or may have run and been unloaded (see
// Reconciliation.Loaded), and a loaded one may be another client's. It
// works on any Conn, but is meant for reconnecting ones.
func (c *Conn) Reconcile(ctx context.Context, unit string) (Reconciliation, error) {
	const op = "Reconcile"
	if err := checkUnitName(op, unit); err != nil {
		return Reconciliation{}, err
	}
	var r Reconciliation
	err := c.do(ctx, op, unit, true, func(s *session) error {
		r = Reconciliation{}
		// The job found, if any, was not asked for on this connection:
		// systemd sends its JobRemoved here only while this client is
		// subscribed. The subscription lasts until the job ends.
		if err := s.subscribe(ctx); err != nil {
			return err
		}
		keep := false
		defer func() {
			if !keep {
				s.unsubscribe()
			}
		}()
		var p dbus.ObjectPath
		if err := storeCall(s.mgr.CallWithContext(ctx, managerIface+".GetUnit", c.flags(), unit), &p); err != nil {
			var de dbus.Error
			if errors.As(err, &de) && de.Name == "org.freedesktop.systemd1.NoSuchUnit" {
				r.State = UnitState{Name: unit, LoadState: LoadNotFound, ActiveState: StateInactive}
				return nil
			}
			return err
		}
		r.Loaded = true
		// A ticket makes the tracker keep a JobRemoved that arrives while
		// the unit is read, so the job's result cannot slip through.
		ticket := s.jobs.begin(unit)
		m, err := c.readUnitState(ctx, s, unit)
		if err != nil {
			s.jobs.end(ticket)
			return err
		}
		r.State = m
		if m.JobID == 0 {
			s.jobs.end(ticket)
			return nil
		}
		path := JobPath(m.JobID)
		// An observer's claim: it does not stop a late cancel of a job
		// whose caller gave up (see cancelLateJob).
		st := s.jobs.register(ticket, path, false)
		r.Job = &Job{id: m.JobID, path: path, unit: unit, st: st, c: c}
		if !s.p2p {
			keep = c.goTracked(func() {
				defer s.unsubscribe()
				select {
				case <-st.done:
				case <-c.stop.Done():
				}
			})
		}
		return nil
	})
	return r, err
}

// readUnitState reads a unit's state (with its type's Result) on s.
func (c *Conn) readUnitState(ctx context.Context, s *session, unit string) (UnitState, error) {
	var um map[string]dbus.Variant
	obj := s.bus.Object(systemdName, UnitPath(unit))
	if err := storeCall(obj.CallWithContext(ctx, propsIface+".GetAll", c.flags(), unitIface), &um); err != nil {
		return UnitState{}, err
	}
	var st UnitState
	var job struct {
		ID   uint32
		Path dbus.ObjectPath
	}
	d := propDecoder{op: "Reconcile", unit: unit, m: um}
	d.str("Id", &st.Name)
	d.typed("LoadState", (*string)(&st.LoadState))
	d.typed("ActiveState", (*string)(&st.ActiveState))
	d.str("SubState", &st.SubState)
	d.any("Job", &job)
	st.JobID = job.ID
	if iface := unitTypeIface(unit); iface != "" && d.err == nil {
		var v dbus.Variant
		if err := obj.CallWithContext(ctx, propsIface+".Get", c.flags(), iface, "Result").Store(&v); err == nil {
			st.Result, _ = v.Value().(string)
		}
	}
	return st, d.err
}
