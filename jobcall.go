package sdbus

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// What becomes of a job call (startJob: StartUnit and the other unit job
// methods, StartTransientUnit, EnsureTransientUnit's start), case by case.
// For each case: who cancels the job the call may have created, and on
// which connection; what the caller gets, error (the sentinel it matches)
// and Job; and the tests that prove it, or that none does (TestFaultMatrix
// and its regression tests are in faultmatrix_test.go). A late job is one
// whose reply comes after the caller's ctx ended. EnsureTransientUnit and
// DestroyUnit build on these cases to keep their own promises
// (transient.go).
//
//  1. Reply in time.
//     Cancels: nobody. Job.Cancel sends CancelJob on the current
//              connection; a job that has ended is no error.
//     Caller:  a *Job, pending until its JobRemoved; Wait then returns
//              the result, with nil for done and skipped and a *JobError
//              (ErrJobFailed) for any other. A JobRemoved processed
//              before the reply is kept for the call (jobtracker.go); a
//              reply that comes as ctx ends wins.
//     Proof:   TestStartTransientUnitWait, TestJobResultsTyped,
//              TestJobRemovedBeforeReply, TestMergedJobTwoWaiters,
//              TestJobCancel (jobs_test.go).
//
//  2. ctx ended before the call was sent.
//     Cancels: nothing was sent.
//     Caller:  an *Error matching ctx.Err(); no Job.
//     Proof:   TestContextExpiresDuringCall (its last call, jobs_test.go);
//              TestFaultMatrix's ctxBefore actor.
//
//  3. ctx ends before the reply, the call sent.
//     Cancels: a Conn-owned goroutine that keeps the call's slot and
//              ticket, waits for the late reply and deals with the late
//              job: cases 4 to 7, 9, 12, 15 and 16. On a Conn being
//              closed no goroutine starts, and nothing is canceled.
//     Caller:  at once an *Error matching ctx.Err() ("no reply before the
//              context ended; the job, if created, is canceled when the
//              reply comes"); no Job.
//     Proof:   TestContextExpiresDuringCall; TestCloseEndsWaitsAndJoins
//              (Close ends the goroutine) (jobs_test.go). Nothing tests
//              the Conn being closed as ctx ends.
//
//  4. Late job, still queued, asked for by no other call on this Conn.
//     Cancels: the goroutine, with CancelJob on the call's own connection
//              (bounded by that connection's life), once no other call
//              for the unit is in flight on it (jobTracker.soleClaim). A
//              Reconcile that found the job does not count as asking for
//              it. A caller on another Conn whose call merged into the
//              job sees it canceled.
//     Caller:  nothing more: it has its ctx error. A Job that Reconcile
//              or another Conn's merged call handed out ends with
//              JobCanceled (a *JobError).
//     Proof:   TestContextExpiresDuringCall (jobs_test.go),
//              TestReconcileDoesNotStopLateCancel (session_test.go),
//              TestObserverClaimDoesNotStopLateCancel
//              (session_internal_test.go); TestFaultMatrix's ctxDuring,
//              lateReply and merged actors (merged across Conns).
//
//  5. Late job that another call on this Conn asked for too (merged),
//     registered before the decision or in flight for the unit then.
//     Cancels: nobody; the job runs.
//     Caller:  the other call's Job gets the job's own result.
//     Proof:   TestFaultMatrixRegressionLateCancelUnderMergedCaller;
//              TestObserverClaimDoesNotStopLateCancel (two requests);
//              TestFaultMatrix's merged actor.
//
//  6. Late reply naming a job that has ended (its JobRemoved came
//     first), or a late answer that made nothing (the call was never
//     sent, or systemd answered it with an error other than NoReply:
//     cases 12 and 15).
//     Cancels: nobody.
//     Caller:  nothing more.
//     Proof:   the ended job: TestFaultMatrix's lateReply actor (a job
//              that runs at once). The late error answer: no test.
//
//  7. Late job of a StartTransientUnit sent with AddRef=true
//     (EnsureTransientUnit on a bus; see refRequest).
//     Cancels: as cases 4 to 6, 9, 12 and 16; then, when the call may
//              have made the unit (a reply, or a hand-over), the
//              goroutine drops the connection's reference on it
//              (UnrefUnit on the call's connection, sent again across a
//              daemon-reexec; a connection that has ended took it along).
//     Caller:  nothing more.
//     Proof:   no test isolates it. TestEnsureTransientUnitPolicies
//              (transient_test.go, "timeout cancels the job and resets
//              the unit") goes this way only when its ctx ends during
//              the call rather than the wait.
//
//  8. Connection drops before the reply, ctx still live.
//     Cancels: nobody.
//     Caller:  a sent call other than StopUnit: ErrOutcomeUnknown (also
//              matching ErrDisconnected), never sent again:
//              Conn.Reconcile tells what became of it. StopUnit
//              (idempotent), and a call that was never sent: sent again
//              on a reconnecting Conn's next connection, up to retries
//              times; on any other Conn ErrDisconnected. After Close,
//              ErrClosed. No Job, unless a call sent again gets one.
//     Proof:   TestReconnectNeverReplaysJobCalls (reconnect_test.go),
//              TestLostReplyEveryJobCall (drop, lostreply_test.go),
//              TestFaultMatrixRegressionSentCallReportedUnsent. No test
//              isolates a job call never sent being sent again, nor
//              StopUnit's ErrDisconnected on a Conn that does not
//              reconnect (TestDestroyUnitSurvivesDisconnectDuringWait,
//              session_test.go, shows DestroyUnit's).
//
//  9. Connection drops after ctx ended, before the late reply.
//     Cancels: cancelHandedOver, on a reconnecting Conn's next
//              connection (within lateCancelTimeout): the unit's queued
//              job, its path unknown, if its type is one the call makes
//              (jobTypeFor) and no call on this Conn asked for the unit
//              meanwhile. A Conn that does not reconnect, or is closed,
//              has no connection to cancel it on: the job runs.
//     Caller:  nothing more.
//     Proof:   TestLateJobCanceledAcrossReconnect (session_test.go). That
//              the job runs on a Conn that does not reconnect: no test
//              (TestFaultMatrix counts it, late-cancel-cut-by-disconnect).
//
//  10. Connection drops after the reply, the Job pending.
//      Cancels: nobody. Job.Cancel cancels the job on a reconnecting
//               Conn's current connection (cancelOrphan: a job that is
//               gone, or is now another unit's, has ended); on any other
//               Conn it fails with ErrDisconnected (ErrClosed after
//               Close).
//      Caller:  Done closes; Wait returns ErrDisconnected (ErrClosed
//               after Close): the job may still run, and Conn.Reconcile
//               hands out a Job for it while it is queued. A JobRemoved
//               that arrived before the drop is reported instead.
//      Proof:   TestDisconnectMidWait, TestCloseEndsWaitsAndJoins
//               (jobs_test.go), TestReconnect (reconnect_test.go),
//               TestJobCancelNeverSucceedsWithoutEffect,
//               TestResultArrivedBeforeDisconnectIsReported
//               (session_test.go), TestResultThatArrivedSurvivesDisconnect
//               (session_internal_test.go), TestReexecDropsPrivateConn
//               (conn_test.go: on the private socket a daemon-reexec is
//               such a drop).
//
//  11. NoReply because systemd re-executed (org.freedesktop.systemd1
//      changed owner between the call and its answer: noreply.go), ctx
//      still live; on a bus, whether or not the Conn reconnects.
//      Cancels: nobody.
//      Caller:  at once ErrOutcomeUnknown (also matching
//               ErrDisconnected); no Job; Conn.Reconcile tells whether
//               systemd read the call. StopUnit is sent again once
//               systemd owns its name again (the wait bounded by ctx,
//               Close and WaitForConnection, then ErrServiceUnknown), up
//               to retries times.
//      Proof:   TestJobCallSystemdLeftUnansweredIsOutcomeUnknown,
//               TestIdempotentCallSystemdNeverReadIsRetried (StopUnit)
//               (noreply_test.go), TestLostReplyEveryJobCall (reexec).
//
//  12. NoReply because systemd re-executed, after ctx ended (late).
//      Cancels: cancelHandedOver, as in case 9 but on any Conn, on its
//               current connection: the same one while it is up
//               (systemd left, the bus stayed); its calls wait for
//               systemd to come back.
//      Caller:  nothing more.
//      Proof:   TestAbandonedJobCallSystemdLeftIsCanceled
//               (noreply_test.go).
//
//  13. A daemon-reexec while the Job is pending (on a bus).
//      Cancels: nobody.
//      Caller:  Wait returns the result, sent by either instance. A job
//               that ended unannounced (the new instance no longer lists
//               it) ends with ErrOutcomeUnknown, and Job.Cancel of it
//               returns nil.
//      Proof:   TestJobResultsFollowManagerAcrossReexec (conn_test.go),
//               TestJobEndedUnannouncedAtReexecEnds (noreply_test.go),
//               TestSystemdResultNeverDroppedAtReexec,
//               TestResultSentBeforeNameReacquiredIsDelivered
//               (session_internal_test.go).
//
//  14. NoReply otherwise (dbus-daemon's reply timeout, or systemd's own
//      NoReply when polkitd leaves during the authorization check), ctx
//      still live.
//      Cancels: nobody.
//      Caller:  at once ErrTimeout, with the peer's text; not sent again,
//               StopUnit neither; no Job. A Conn made by NewConn first
//               waits up to ownerLag for a change of owner.
//      Proof:   TestBusTimeoutWhileSystemdStaysIsErrTimeout,
//               TestNoReplyFromSystemdItselfIsARefusal (noreply_test.go).
//
//  15. NoReply otherwise, after ctx ended (late).
//      Cancels: nobody: the call counts as having made nothing.
//      Caller:  nothing more.
//      Proof:   no test.
//
//  16. The late job's CancelJob (case 4) fails.
//      Cancels: when systemd left the bus under it (daemon-reexec):
//               cancelOrphan on the Conn's current connection once
//               systemd is back, within lateCancelTimeout. When the
//               connection drops under it, or ends between the late
//               reply and the cancel (unless another call on this Conn
//               registered the job): cancelHandedOver with the job's
//               path, cancelOrphan on a reconnecting Conn's next
//               connection; on any other Conn the job runs. Any other
//               failure (a D-Bus error such as NoSuchJob or
//               AccessDenied, or Close): nobody; the job runs if it
//               still exists. The failures of those later cancels are
//               not reported either.
//      Caller:  nothing more; nobody is told.
//      Proof:   no test drives any of these. TestFaultMatrix's schedules
//               that combine a late reply with a disconnect or a
//               daemon-reexec may reach them, and accept the job
//               canceled or its cancel cut by the disconnect.

// startJob makes a job-creating call and registers the returned path.
//
// The call itself is not bound to ctx: if ctx ends first, startJob returns
// ctx's error at once, and a Conn-owned goroutine receives the late reply,
// registers the job and cancels it with CancelJob (unless it already
// ended, or other callers on this Conn wait for the same, merged, job). So
// a job whose caller gave up never runs unnoticed.
//
// When the connection drops under the call, a call that was never sent is
// made again on the next connection (reconnecting Conns only), as is
// StopUnit; any other reports ErrOutcomeUnknown.
//
// ref, for StartTransientUnit only, adds AddRef=true where the call goes
// out on a bus (see refRequest); the late reply of such a call whose
// caller gave up has that reference dropped with its job.
func (c *Conn) startJob(ctx context.Context, op, unit string, ref *refRequest, args ...any) (*Job, error) {
	if err := checkWire(op, unit, wireArgNames(op), args); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: op, Unit: unit, Err: err}
	}
	var job *Job
	err := c.do(ctx, op, unit, idempotentMethod(op), func(s *session) error {
		callArgs, refd := args, false
		if ref != nil {
			ref.sess = nil
			if !s.p2p {
				callArgs, refd, ref.sess = withAddRef(args), true, s
			}
		}
		ticket := s.jobs.begin(unit)
		sent := s.ownerMark()
		call := s.mgr.Go(managerIface+"."+op, c.flags(), make(chan *dbus.Call, 1), callArgs...)
		select {
		case <-call.Done:
		case <-ctx.Done():
			select {
			case <-call.Done: // the reply won the race after all
			default:
				err := &Error{Op: op, Unit: unit, Message: "no reply before the context ended; the job, if created, is canceled when the reply comes (on a reconnecting Conn, also after a lost connection)", Err: ctx.Err()}
				if !c.goTracked(func() {
					handOver, path := c.cancelLateJob(s, ticket, unit, call, sent, refd)
					c.release()
					if handOver {
						c.cancelHandedOver(op, unit, path)
					}
					if refd && handOver {
						// systemd may have read the call before it left
						// the bus: the unit it made holds this
						// connection's reference (a daemon-reexec keeps
						// it).
						c.dropRef(s, unit)
					}
				}) {
					s.jobs.end(ticket)
					return err
				}
				return slotHandedOver{err}
			}
		}
		var path dbus.ObjectPath
		if err := storeCall(call, &path); err != nil {
			s.jobs.end(ticket)
			return err
		}
		st := s.jobs.register(ticket, path, true)
		job = &Job{id: jobIDFromPath(path), path: path, unit: unit, st: st, c: c}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return job, nil
}

// refRequest asks startJob to send a StartTransientUnit with
// AddRef=true when it goes out on a bus: systemd then keeps the unit
// loaded while the connection that made it holds the reference (also
// across daemon-reexec; measured on 247, 252 and 262), until UnrefUnit or
// the connection's end. On systemd's private socket, where a client has
// no bus name to track, systemd refuses AddRef with InvalidArgs: the call
// goes without it there.
type refRequest struct {
	// sess is the session the call was last sent on with AddRef=true; nil
	// when it went without.
	sess *session
}

// withAddRef returns StartTransientUnit's arguments with AddRef=true
// appended to the unit's properties (args[2]).
func withAddRef(args []any) []any {
	out := append([]any(nil), args...)
	p := args[2].([]propertyWire)
	out[2] = append(p[:len(p):len(p)], propertyWire{"AddRef", dbus.MakeVariant(true)})
	return out
}

// cancelLateJob waits for the reply of a job call whose caller gave up and
// cancels the job it created, unless another call on this Conn got the
// same (merged) job. Calls for the unit that are still in flight may be
// such calls, with their replies read but not yet registered, so the
// decision waits until none is left.
//
// When the connection drops before the late reply arrives (or before the
// cancel could be sent), or systemd leaves the bus without answering
// (daemon-reexec), the job may exist all the same: cancelLateJob then
// reports handOver, with the job's path if it is known, and the Conn
// cancels it on its current connection, a reconnecting Conn on its next
// one (cancelHandedOver).
func (c *Conn) cancelLateJob(s *session, ticket uint64, unit string, call *dbus.Call, sent ownerMark, refd bool) (handOver bool, path dbus.ObjectPath) {
	<-call.Done // godbus ends every pending call when the connection closes
	err := storeCall(call, &path)
	if err == nil && refd {
		// The call made the unit with this connection's reference
		// (AddRef): it is dropped once the job is dealt with below.
		defer c.dropRef(s, unit)
	}
	if err != nil {
		s.jobs.end(ticket)
		// A call that never left has created nothing; one whose answer
		// the connection lost, or that systemd left the bus without
		// answering (noreply.go), may have.
		return !notSent(err) && (transportError(err) || s.systemdLeft(err, sent)), ""
	}
	st := s.jobs.register(ticket, path, true)
	sole := s.jobs.soleClaim(st, unit, s.bus.Context().Done())
	switch {
	case st.finished() && st.err == nil:
		return false, "" // it has ended
	case st.finished():
		// The connection ended before the job could be canceled.
		return s.jobs.requests(st) == 1, path
	case !sole:
		return false, "" // another call on this Conn asked for the same job
	}
	// Bounded by the connection's life: Close cancels it.
	sent = s.ownerMark()
	err = storeCall(s.mgr.CallWithContext(s.bus.Context(), managerIface+".CancelJob", c.flags(), jobIDFromPath(path)))
	if err != nil && s.systemdLeft(err, sent) {
		// systemd left the bus under the cancel (daemon-reexec): the job
		// survives, and is canceled once systemd is back (cancelOrphan's
		// calls wait for it).
		ctx, cancel := context.WithTimeout(c.stop, lateCancelTimeout)
		defer cancel()
		_ = c.cancelOrphan(ctx, "CancelJob", unit, jobIDFromPath(path), path)
		return false, ""
	}
	return err != nil && transportError(err), path
}

// lateCancelTimeout bounds the calls that cancel a late job on the next
// connection.
const lateCancelTimeout = 10 * time.Second

// cancelHandedOver cancels, on the Conn's current connection (a
// reconnecting Conn's next one), the job a call abandoned by its caller
// may have created when the connection dropped, or systemd left the bus,
// before the job could be canceled. With the job's path known it cancels
// that job (if it is still the unit's); otherwise it cancels the unit's
// queued job if its type is the one the call asks for, unless a call on
// this Conn asked for the unit meanwhile. When the connection is gone
// for good (no reconnecting, or Close), nothing can be sent: the job runs
// (the README says so).
func (c *Conn) cancelHandedOver(op, unit string, path dbus.ObjectPath) {
	if c.closing.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(c.stop, lateCancelTimeout)
	defer cancel()
	s, err := c.current(ctx, op, unit)
	if err != nil || s.jobs.requestedFor(unit) {
		return
	}
	if path != "" {
		_ = c.cancelOrphan(ctx, "CancelJob", unit, jobIDFromPath(path), path)
		return
	}
	st, err := c.UnitStatus(ctx, unit)
	if err != nil || st.JobID == 0 {
		return
	}
	var typ string
	if c.getProperty(ctx, st.JobPath, jobIface, "JobType", unit, &typ) != nil || !jobTypeFor(op, typ) || s.jobs.requestedFor(unit) {
		return
	}
	_ = c.cancelOrphan(ctx, "CancelJob", unit, st.JobID, st.JobPath)
}

// jobTypeFor reports whether a queued job of type typ (the Job's JobType
// property) may have been created by method op.
func jobTypeFor(op, typ string) bool {
	switch op {
	case "StartUnit", "StartTransientUnit":
		return typ == "start"
	case "StopUnit":
		return typ == "stop"
	case "ReloadUnit":
		return typ == "reload"
	case "RestartUnit", "TryRestartUnit":
		return typ == "restart" || typ == "try-restart"
	case "ReloadOrRestartUnit", "ReloadOrTryRestartUnit":
		return typ == "reload" || typ == "restart" || typ == "try-restart" || typ == "reload-or-start"
	}
	return false
}

// cancelOrphan cancels, on the current connection, a job that was tracked
// on an earlier one, after checking that the job with that id is still
// for unit (ids are not reused by one manager, but a restarted user
// manager starts over). A job that is gone counts as ended.
func (c *Conn) cancelOrphan(ctx context.Context, op, unit string, id uint32, path dbus.ObjectPath) error {
	var jobUnit struct {
		Name string
		Path dbus.ObjectPath
	}
	err := c.getProperty(ctx, path, jobIface, "Unit", unit, &jobUnit)
	if err == nil && jobUnit.Name != unit {
		return nil // not our job: ours has ended
	}
	if err == nil {
		err = c.call(ctx, op, unit, []any{id})
	}
	var e *Error
	if errors.Is(err, ErrNoSuchJob) || errors.As(err, &e) && strings.HasSuffix(e.Name, ".UnknownObject") {
		return nil
	}
	return err
}

// dropRef drops, for a Conn-owned goroutine, the reference on unit that
// a StartTransientUnit with AddRef=true may have left on s (see unref).
func (c *Conn) dropRef(s *session, unit string) {
	ctx, cancel := context.WithTimeout(c.stop, lateCancelTimeout)
	defer cancel()
	_ = c.unref(ctx, s, unit)
}

// unref drops the reference on unit this connection holds
// (Manager.UnrefUnit on s). A reference it does not hold, a unit that is
// gone, and a session that has ended (its references went with it) are
// not errors. A daemon-reexec keeps references: when systemd leaves the
// bus under the call, it is sent again once systemd is back.
func (c *Conn) unref(ctx context.Context, s *session, unit string) error {
	const op = "UnrefUnit"
	for attempt := 0; ; attempt++ {
		if !s.alive() {
			return nil
		}
		sent := s.ownerMark()
		err := storeCall(s.mgr.CallWithContext(ctx, managerIface+"."+op, c.flags(), unit))
		var de dbus.Error
		switch {
		case err == nil, !s.alive(), transportError(err):
			// A connection that fails takes its references with it.
			return nil
		case errors.As(err, &de) && (de.Name == "org.freedesktop.systemd1.NotReferenced" || de.Name == "org.freedesktop.systemd1.NoSuchUnit"):
			return nil
		case s.systemdLeft(err, sent) && attempt < retries:
			if err := c.awaitSystemd(ctx, s, op, unit, sent); err != nil {
				return err
			}
			continue
		}
		return c.opError(s, sent, op, unit, err, true)
	}
}
