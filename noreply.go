package sdbus

import (
	"context"
	"errors"
	"time"

	"github.com/godbus/dbus/v5"
)

// A call systemd never read is not a timeout.
//
// At daemon-reexec systemd leaves the bus without reading the calls still
// queued to it, and the bus answers each of them with
// org.freedesktop.DBus.Error.NoReply: dbus-daemon with "Message recipient
// disconnected from message bus without replying", dbus-broker with
// "Remote peer disconnected". Both send the NameOwnerChanged signals of the
// departing connection's names first. Seen with dbus-daemon on systemd
// 247, 252 and 262: org.freedesktop.systemd1 goes old → "", the old unique
// name goes away, the NoReply answers follow, then the new instance takes
// the name ("" → new); calls sent in between wait in dbus-daemon for the
// new instance. (A hand-over old → new in one signal is handled alike.)
//
// dbus-daemon also answers NoReply when its own reply timeout runs out
// ("Message did not receive a reply (timeout by message bus)"), systemd
// still on the bus; and systemd itself answers NoReply, with dbus-daemon's
// text for a recipient that left, when polkitd leaves the bus during the
// authorization check of the call (src/shared/bus-polkit.c copies
// polkit's error into its reply): a refusal, systemd never left. The rule
// that tells them apart: a NoReply means "systemd left the bus" when
// org.freedesktop.systemd1 changed owner between the sending of the call
// and its answer. Both buses send the NameOwnerChanged of a departing
// owner before they answer the calls it left unread, and sdbus processes
// signals and replies in wire order, so that change is always seen first
// (a connection wrapped by NewConn, whose signals come through a channel
// and may lag behind replies, waits up to ownerLag for it).
// The text is never evidence. Any other NoReply is ErrTimeout, with the
// peer's text: the call was not carried out by a systemd that left.
//
// When a new instance owns the name (daemon-reexec), the session's jobs
// are audited (session.auditJobs): a job the manager no longer lists whose
// JobRemoved never came ends with ErrOutcomeUnknown rather than never.
// Seen on systemd 262 under load (one forgotten job in 10 minutes of
// re-executions every 5 s: its Done never closed, systemd had no job
// left); in a later soak a witness saw systemd send that job's JobRemoved,
// which the session dropped: a JobRemoved from an earlier instance is now
// delivered, and a held JobRemoved outlives held unit changes (admit).
//
// When systemd left the bus under a call:
//   - an idempotent call (see ReconnectPolicy for the list) is sent again
//     once systemd owns its name again (awaitSystemd), up to retries
//     times, whether or not the Conn reconnects: its connection is fine;
//   - any other call fails with ErrOutcomeUnknown: systemd may have read
//     it before it left (it reads the Reexecute call itself, and never
//     answers it); Conn.Reconcile tells what became of a job call.

const noReplyName = "org.freedesktop.DBus.Error.NoReply"

// ownerMark is what a session knew of org.freedesktop.systemd1's owner
// when a call was sent.
type ownerMark struct {
	owner string
	seq   dbus.Sequence
}

func (s *session) ownerMark() ownerMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ownerMark{s.owner, s.ownerSeq}
}

// noReplyText returns the text of the NoReply answer err, and whether
// err is one.
func noReplyText(err error) (string, bool) {
	var de dbus.Error
	if !errors.As(err, &de) || de.Name != noReplyName {
		return "", false
	}
	text := ""
	if len(de.Body) > 0 {
		text, _ = de.Body[0].(string)
	}
	return text, true
}

// systemdLeft reports whether err is the bus's answer to a call systemd
// left the bus without answering, the call having been sent on s when
// the name's owner was sent: a NoReply after org.freedesktop.systemd1
// changed owner (see the rule above). The text alone proves nothing:
// systemd sends dbus-daemon's very words itself when polkitd leaves the
// bus during the call's authorization check.
func (s *session) systemdLeft(err error, sent ownerMark) bool {
	if s.p2p {
		return false // no bus: systemd leaving ends the connection
	}
	if _, ok := noReplyText(err); !ok {
		return false
	}
	if s.ownerMark() != sent {
		return true
	}
	if s.ordered {
		return false
	}
	// The NameOwnerChanged, sent before the NoReply, may still be on its
	// way through the channel NewConn reads signals from: wait for it,
	// briefly. A connection that ends meanwhile leaves the call's fate
	// unknown: it counts as left unanswered.
	t := time.NewTimer(ownerLag)
	defer t.Stop()
	for {
		s.mu.Lock()
		changed := s.ownerChanged
		s.mu.Unlock()
		if s.ownerMark() != sent {
			return true
		}
		select {
		case <-changed:
		case <-s.ended:
			return true
		case <-t.C:
			return false
		}
	}
}

// ownerLag bounds how long systemdLeft waits, on a connection wrapped by
// NewConn, for the NameOwnerChanged that precedes a NoReply.
const ownerLag = time.Second

// leftError is the error of a call systemd left the bus without answering
// and that is not sent again: ErrOutcomeUnknown unless it is idempotent.
func leftError(op, unit string, idempotent bool) error {
	if !idempotent {
		return &Error{Op: op, Unit: unit, Name: noReplyName,
			Message: "systemd left the bus (daemon-reexec?) before it replied: it may or may not have carried the call out; see Conn.Reconcile",
			Err:     ErrOutcomeUnknown}
	}
	return &Error{Op: op, Unit: unit, Name: noReplyName, Message: "systemd left the bus (daemon-reexec?) without replying", Err: ErrDisconnected}
}

// systemdWait is how long a call waits for systemd to own its name again
// after it left the bus under the call: ReconnectPolicy.WaitForConnection,
// DefaultWaitForConnection without a policy; negative: no wait.
func (c *Conn) systemdWait() time.Duration {
	if p := c.cfg.reconnect; p != nil {
		return p.WaitForConnection
	}
	return DefaultWaitForConnection
}

// awaitSystemd waits until org.freedesktop.systemd1 has an owner again,
// other than the one it had when the call that systemd left unanswered
// was sent (sent), bounded by ctx, Close and systemdWait. When s ends
// meanwhile it returns nil: the next attempt waits for the next
// connection or reports the loss.
func (c *Conn) awaitSystemd(ctx context.Context, s *session, op, unit string, sent ownerMark) error {
	bound := c.systemdWait()
	t := time.NewTimer(bound)
	defer t.Stop()
	for {
		s.mu.Lock()
		owner, seq, changed := s.owner, s.ownerSeq, s.ownerChanged
		s.mu.Unlock()
		if owner != "" && seq != sent.seq && owner != sent.owner {
			return nil
		}
		select {
		case <-changed:
		case <-s.ended:
			return nil
		case <-ctx.Done():
			return &Error{Op: op, Unit: unit, Message: "waiting for systemd to come back on the bus after it left without replying", Err: ctx.Err()}
		case <-c.stop.Done():
			return &Error{Op: op, Unit: unit, Err: ErrClosed}
		case <-t.C:
			return &Error{Op: op, Unit: unit, Name: noReplyName,
				Message: "systemd left the bus without replying and did not take org.freedesktop.systemd1 back within " + bound.String(),
				Err:     ErrServiceUnknown}
		}
	}
}
