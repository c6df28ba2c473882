package sdbus

import (
	"context"
	"errors"
	"time"

	"github.com/godbus/dbus/v5"
)

// retries is how often an idempotent call is retried on new connections.
const retries = 3

// do runs f on the current session. When the connection ends under it, an
// idempotent f, or one that was never sent, runs again on the next
// connection (if the Conn reconnects). When systemd leaves the bus
// without answering (daemon-reexec: noreply.go), an idempotent f runs
// again once systemd is back, and any other fails with ErrOutcomeUnknown.
func (c *Conn) do(ctx context.Context, op, unit string, idempotent bool, f func(*session) error) error {
	for attempt := 0; ; attempt++ {
		s, err := c.current(ctx, op, unit)
		if err != nil {
			return err
		}
		if err := c.acquire(ctx, op, unit); err != nil {
			return err
		}
		sent := s.ownerMark()
		err = f(s)
		if h, ok := err.(slotHandedOver); ok {
			err = h.error
		} else {
			c.release()
		}
		if err == nil {
			return nil
		}
		if s.systemdLeft(err, sent) {
			// systemd left the bus without reading the call
			// (daemon-reexec): see noreply.go.
			if !idempotent || attempt >= retries || c.systemdWait() < 0 {
				return leftError(op, unit, idempotent)
			}
			if err := c.awaitSystemd(ctx, s, op, unit, sent); err != nil {
				return err
			}
			continue
		}
		if !transportError(err) {
			return c.opError(s, sent, op, unit, err, idempotent)
		}
		// The transport failed. godbus ends the session when its read
		// loop meets the end of the stream, after delivering what had
		// arrived; closing it here would throw replies away.
		c.awaitEnd(ctx, s)
		if c.cfg.reconnect == nil || attempt >= retries || !(idempotent || notSent(err)) {
			return c.opError(s, sent, op, unit, err, idempotent)
		}
	}
}

// endGrace is how long a session whose transport failed may take to end
// by itself before it is closed.
const endGrace = 2 * time.Second

// awaitEnd waits until s has ended after a transport error, and closes it
// if it does not end by itself within endGrace (a half-closed stream).
func (c *Conn) awaitEnd(ctx context.Context, s *session) {
	t := time.NewTimer(endGrace)
	defer t.Stop()
	select {
	case <-s.bus.Context().Done():
	case <-t.C:
		s.bus.Close()
	case <-ctx.Done():
	case <-c.stop.Done():
	}
}

// slotHandedOver marks an error from a call whose slot stays taken after
// it returned: a job call abandoned by its ctx, whose late reply a
// Conn-owned goroutine receives and which releases the slot then.
type slotHandedOver struct{ error }

func (e slotHandedOver) Unwrap() error { return e.error }

// idempotentMethod reports whether a Manager method may be sent again when
// the connection dropped before their reply.
func idempotentMethod(method string) bool {
	switch method {
	case "GetUnit", "LoadUnit", "GetUnitByPID", "ListUnits", "ListUnitsFiltered", "ListUnitsByPatterns",
		"ListUnitsByNames", "ListJobs", "GetJob", "CancelJob", "ResetFailedUnit",
		"AttachProcessesToUnit", "FreezeUnit", "ThawUnit", "StopUnit",
		"GetUnitFileState", "ListUnitFiles", "ListUnitFilesByPatterns":
		// The unit-file changes (EnableUnitFiles, ...) are idempotent in
		// effect but not in their reply: see unitfiles.go.
		return true
	}
	return false
}

// current returns the session to make a call on. While a reconnecting
// Conn is between connections, it waits for the next one, bounded by ctx
// and ReconnectPolicy.WaitForConnection; otherwise a gone connection is an
// error.
func (c *Conn) current(ctx context.Context, op, unit string) (*session, error) {
	if err := c.usable(op, unit); err != nil {
		return nil, err
	}
	var bound <-chan time.Time
	for {
		c.mu.Lock()
		s, up := c.sess.Load(), c.up
		c.mu.Unlock()
		switch {
		case c.closing.Load():
			return nil, &Error{Op: op, Unit: unit, Err: ErrClosed}
		case s.alive():
			return s, nil
		case c.cfg.reconnect == nil || c.givenUp() || c.cfg.reconnect.WaitForConnection < 0:
			return nil, &Error{Op: op, Unit: unit, Err: ErrDisconnected}
		}
		if bound == nil {
			t := time.NewTimer(c.cfg.reconnect.WaitForConnection)
			defer t.Stop()
			bound = t.C
		}
		select {
		case <-up:
		case <-c.stop.Done():
			return nil, &Error{Op: op, Unit: unit, Err: ErrClosed}
		case <-c.done:
			return nil, &Error{Op: op, Unit: unit, Err: ErrDisconnected}
		case <-bound:
			return nil, &Error{Op: op, Unit: unit, Message: "no connection within ReconnectPolicy.WaitForConnection", Err: ErrDisconnected}
		case <-ctx.Done():
			return nil, &Error{Op: op, Unit: unit, Message: "waiting for the connection to come back", Err: ctx.Err()}
		}
	}
}

// acquire takes a call slot, waiting for one while the Conn has
// WithMaxPendingCalls calls in flight.
func (c *Conn) acquire(ctx context.Context, op, unit string) error {
	select {
	case c.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case c.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &Error{Op: op, Unit: unit, Message: "waiting for one of the calls in flight to end", Err: ctx.Err()}
	case <-c.stop.Done():
		return &Error{Op: op, Unit: unit, Err: ErrClosed}
	}
}

func (c *Conn) release() { <-c.slots }

// opError wraps err from a D-Bus operation on session s, sent when the
// session knew sent of systemd's name, as an *Error. When the connection
// ended under the call, or systemd left the bus without answering it (the
// bus's NoReply after systemd's name changed owner: noreply.go), an
// operation that is not idempotent and was sent reports
// ErrOutcomeUnknown: systemd may or may not have carried it out.
func (c *Conn) opError(s *session, sent ownerMark, op, unit string, err error, idempotent bool) error {
	if err == nil {
		return nil
	}
	if s.systemdLeft(err, sent) {
		return leftError(op, unit, idempotent) // noreply.go
	}
	if s.alive() && !transportError(err) {
		return callError(op, unit, err, nil)
	}
	if !idempotent && !notSent(err) && transportError(err) && !c.closing.Load() {
		return &Error{Op: op, Unit: unit, Message: "the connection was lost before systemd replied; see Conn.Reconcile", Err: ErrOutcomeUnknown}
	}
	return callError(op, unit, err, c.goneErr())
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// transportError reports whether a call failed because of the connection
// rather than an answer or the caller: neither a D-Bus error reply, nor a
// context, nor a message godbus refused to encode (wire.go), nor a reply
// of an unexpected type.
func transportError(err error) bool {
	var de dbus.Error
	var re refusedError
	var me mismatchError
	return !errors.As(err, &de) && !isCtxErr(err) && !errors.As(err, &re) && !errors.As(err, &me)
}

// unsentError marks the error of a call that never reached the peer.
type unsentError struct{ error }

func (e unsentError) Unwrap() error { return e.error }

// storeCall stores the reply of a finished call in out. When the call
// failed before it was sent (writing it failed, or the connection was
// closed already), the error is marked: godbus finishes such a call itself,
// with no response sequence, while calls in flight when the connection
// ends are finished by its read loop, with one. Among the unsent, a
// message godbus refused to encode is the caller's error (refusedError);
// a reply that does not fit out is marked too (mismatchError).
func storeCall(call *dbus.Call, out ...any) error {
	err := call.Store(out...)
	switch {
	case err == nil:
		return nil
	case call.Err == nil:
		return mismatchError{err}
	case call.ResponseSequence == dbus.NoSequence && encodingRefusal(err):
		return refusedError{err}
	case call.ResponseSequence == dbus.NoSequence && !isCtxErr(err):
		return unsentError{err}
	}
	return err
}

// notSent reports whether a failed call never reached the peer.
func notSent(err error) bool {
	var u unsentError
	var r refusedError
	return errors.As(err, &u) || errors.As(err, &r) || errors.Is(err, dbus.ErrClosed)
}
