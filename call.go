package sdbus

import (
	"context"
	"time"
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

// idempotentMethods are the Manager methods that may be sent again when
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
