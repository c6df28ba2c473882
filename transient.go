package sdbus

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// ExistsPolicy says what EnsureTransientUnit does when a unit of the same
// name is already loaded.
type ExistsPolicy int

const (
	// ExistsFail returns the error matching ErrUnitExists.
	ExistsFail ExistsPolicy = iota
	// ExistsResetAndRetry resets a failed unit of that name (a scope whose
	// container was OOM-killed lingers as failed) and creates the unit
	// again, once. A unit that exists and has not failed is not touched:
	// the error matches ErrUnitExists.
	ExistsResetAndRetry
	// ExistsJoin moves the PIDs of the unit's properties into the existing
	// unit with AttachProcessesToUnit (systemd 238 and later), into
	// EnsureOptions.JoinSubcgroup. The existing unit must be active.
	ExistsJoin
	// ExistsIgnore accepts the existing unit as it is. It is refused when
	// the properties place PIDs: they would stay outside the unit, and
	// outside its cgroup and limits (runc #3780). kubelet's slices are the
	// use case.
	ExistsIgnore
)

// String returns the policy's name.
func (p ExistsPolicy) String() string {
	switch p {
	case ExistsFail:
		return "fail"
	case ExistsResetAndRetry:
		return "reset-and-retry"
	case ExistsJoin:
		return "join"
	case ExistsIgnore:
		return "ignore"
	}
	return fmt.Sprintf("ExistsPolicy(%d)", int(p))
}

// EnsureOptions configures EnsureTransientUnit. The zero value creates the
// unit with ModeReplace and fails if it exists.
type EnsureOptions struct {
	// Mode is the job mode; "" means ModeReplace.
	Mode JobMode
	// Exists is the policy for an existing unit of the same name.
	Exists ExistsPolicy
	// JoinSubcgroup is the sub-cgroup ExistsJoin moves the PIDs into ("":
	// the unit's own cgroup; otherwise an absolute path such as
	// "/container", for units with Delegate=yes).
	JoinSubcgroup string
	// KeepFailed stops EnsureTransientUnit from adding
	// CollectMode=inactive-or-failed, which it otherwise does when the
	// manager supports it and the properties do not set CollectMode.
	KeepFailed bool
	// Aux are auxiliary units created with the unit.
	Aux []AuxUnit
}

// Outcome says what EnsureTransientUnit did.
type Outcome int

const (
	// Created: the unit was created and its start job is done.
	Created Outcome = iota + 1
	// Recreated: a failed unit of that name was reset and the unit created
	// anew (ExistsResetAndRetry).
	Recreated
	// Joined: the PIDs were moved into the existing unit (ExistsJoin).
	Joined
	// Existed: the existing unit was left as it is (ExistsIgnore).
	Existed
)

// String returns the outcome's name; the zero Outcome, which comes with
// an error, is "none".
func (o Outcome) String() string {
	switch o {
	case 0:
		return "none"
	case Created:
		return "created"
	case Recreated:
		return "recreated"
	case Joined:
		return "joined"
	case Existed:
		return "existed"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// cleanupTimeout bounds the clean-up calls made after the caller's ctx
// has ended.
const cleanupTimeout = 5 * time.Second

// EnsureTransientUnit creates a transient unit and waits for its start job
// with ctx, applying an explicit policy when a unit of that name already
// exists (see ExistsPolicy). It is the safe form of the sequence cgroup
// managers hand-roll around StartTransientUnit:
//
//   - CollectMode=inactive-or-failed is added when the manager supports it
//     (probed, see Conn.Supports) and props do not set CollectMode, so a
//     failed unit does not keep its name;
//   - when the start job does not succeed, or ctx ends while waiting, the
//     job is canceled if still queued and the unit's failed state reset,
//     so that the name is free for the next attempt; the error says what
//     was done ("sdbus: EnsureTransientUnit run-x.scope: start job
//     canceled, name freed: context deadline exceeded") and wraps the
//     *JobError or the ctx error;
//   - an existing unit is never silently accepted while placing PIDs;
//   - when StartTransientUnit's outcome is unknown (the connection
//     dropped, or systemd left the bus at a daemon-reexec, before its
//     reply), Conn.Reconcile decides: a unit that is not loaded was
//     never created and is created again; a loaded one's start job is
//     waited for (a unit found loaded is taken to be the one the call
//     created).
//
// Errors match ErrUnitExists (policy ExistsFail, or a unit that exists and
// has not failed under ExistsResetAndRetry), ErrInvalidArgs, ErrJobFailed,
// ctx.Err(), and the errors of the calls it makes.
func (c *Conn) EnsureTransientUnit(ctx context.Context, name string, props []Property, opt EnsureOptions) (Outcome, error) {
	const op = "EnsureTransientUnit"
	if err := checkUnitName(op, name); err != nil {
		return 0, err
	}
	mode := opt.Mode
	if mode == "" {
		mode = ModeReplace
	}
	pids, places := placedProcesses(props)
	if opt.Exists == ExistsIgnore && places {
		return 0, invalidArg(op, name, "policy ignore with processes to place: an existing unit would leave them outside its cgroup")
	}
	if opt.Exists == ExistsJoin && len(pids) == 0 {
		return 0, invalidArg(op, name, "policy join without PIDs to place (AttachProcessesToUnit takes PIDs, not PIDFDs)")
	}
	if !opt.KeepFailed && !hasProperty(props, "CollectMode") {
		ok, err := c.Supports(ctx, FeatureCollectMode)
		if err != nil {
			return 0, err
		}
		if ok {
			props = append(append([]Property(nil), props...), PropCollectMode(CollectInactiveOrFailed))
		}
	}
	outcome := Created
	job, ended, err := c.startTransient(ctx, name, mode, props, opt.Aux)
	if errors.Is(err, ErrUnitExists) {
		switch opt.Exists {
		case ExistsFail:
			return 0, err
		case ExistsIgnore:
			return Existed, nil
		case ExistsJoin:
			if err := c.AttachProcessesToUnit(ctx, name, opt.JoinSubcgroup, pids...); err != nil {
				return 0, err
			}
			return Joined, nil
		case ExistsResetAndRetry:
			st, serr := c.UnitStatus(ctx, name)
			if serr != nil {
				return 0, serr
			}
			if st.ActiveState != StateFailed {
				return 0, &Error{Op: op, Unit: name, Message: fmt.Sprintf("unit exists and is %s, not failed", st.ActiveState), Err: ErrUnitExists}
			}
			if err := c.ResetFailedUnit(ctx, name); err != nil && !errors.Is(err, ErrNoSuchUnit) {
				return 0, err
			}
			outcome = Recreated
			job, ended, err = c.startTransient(ctx, name, mode, props, opt.Aux)
		default:
			return 0, invalidArg(op, name, "unknown ExistsPolicy %d", int(opt.Exists))
		}
	}
	if err != nil {
		return 0, err
	}
	if ended != nil {
		return c.ensureEnded(name, outcome, nil, *ended)
	}
	if _, err := job.Wait(ctx); err != nil {
		if lostConnection(err) {
			return c.ensureAfterDisconnect(ctx, name, outcome, job, err)
		}
		return 0, c.failedStart(op, name, job, err)
	}
	return outcome, nil
}

// failedStart cleans up after a start job that did not succeed, or whose
// wait ended with the caller's ctx, and returns the error of the public
// call op: what was done about the job and the name, wrapping the cause
// (the *JobError, or the ctx error).
func (c *Conn) failedStart(op, name string, job *Job, werr error) error {
	cause := werr
	var e *Error
	if errors.As(werr, &e) && e.Op == opWait && e.Err != nil {
		cause = e.Err
	}
	return &Error{Op: op, Unit: name, Message: c.cleanUpFailedStart(job, name), Err: cause}
}

// lostConnection reports whether a Wait ended because the connection did,
// not with a result or the caller's ctx.
func lostConnection(err error) bool {
	return errors.Is(err, ErrDisconnected) || errors.Is(err, ErrClosed)
}

// ensureAfterDisconnect finishes EnsureTransientUnit when the connection
// ended while it waited for the start job. A reconnecting Conn finds out
// on its next connection what became of the job (Reconcile) and keeps the
// promise: success when the unit started, the failure cleaned up
// otherwise. Without a connection the outcome is unknown.
func (c *Conn) ensureAfterDisconnect(ctx context.Context, name string, outcome Outcome, job *Job, werr error) (Outcome, error) {
	const op = "EnsureTransientUnit"
	for attempt := 0; ; attempt++ {
		if errors.Is(werr, ErrClosed) {
			return 0, &Error{Op: op, Unit: name, Err: ErrClosed}
		}
		if c.cfg.reconnect == nil || attempt > retries {
			return 0, &Error{Op: op, Unit: name, Message: "the connection was lost while the start job ran; it may still run; see Conn.Reconcile", Err: ErrOutcomeUnknown}
		}
		r, err := c.Reconcile(ctx, name)
		if lostConnection(err) && !errors.Is(err, ErrOutcomeUnknown) {
			werr = err
			continue
		}
		if err != nil {
			return 0, &Error{Op: op, Unit: name, Message: c.cleanUpFailedStart(job, name), Err: err}
		}
		if r.Job != nil && r.Job.ID() == job.ID() {
			// The start job is still queued: wait for it here.
			if _, werr = r.Job.Wait(ctx); werr == nil {
				return outcome, nil
			}
			if lostConnection(werr) {
				continue
			}
			return 0, c.failedStart(op, name, job, werr)
		}
		// The start job ended while the connection was down.
		return c.ensureEnded(name, outcome, job, r)
	}
}

// ensureEnded finishes EnsureTransientUnit when its start job ended
// unseen (the connection was down, or systemd left the bus, when its
// result came) and Reconcile found r: success when the unit is active,
// the failure cleaned up when it failed, an unknown outcome otherwise.
func (c *Conn) ensureEnded(name string, outcome Outcome, job *Job, r Reconciliation) (Outcome, error) {
	const op = "EnsureTransientUnit"
	switch {
	case r.Loaded && (r.State.ActiveState == StateActive || r.State.ActiveState == StateReloading):
		return outcome, nil
	case r.Loaded && r.State.ActiveState == StateFailed:
		done := c.cleanUpFailedStart(job, name)
		return 0, &Error{Op: op, Unit: name, Message: "the start job failed unseen (Result " + r.State.Result + "); " + done, Err: ErrJobFailed}
	}
	return 0, &Error{Op: op, Unit: name, Message: fmt.Sprintf("the start job ended unseen and the unit is %s now", describeState(r)), Err: ErrOutcomeUnknown}
}

// startTransient is StartTransientUnit for EnsureTransientUnit. When the
// call's outcome is unknown (the connection dropped, or systemd left the
// bus at a daemon-reexec, before its reply), Reconcile tells what became
// of it: a unit that is not loaded was never created (or was collected,
// its start having failed), and is created again; a loaded unit's queued
// job is returned as the start job; a loaded unit without a job is
// returned as ended, for ensureEnded. A unit found loaded is taken to be
// the one the call created.
func (c *Conn) startTransient(ctx context.Context, name string, mode JobMode, props []Property, aux []AuxUnit) (*Job, *Reconciliation, error) {
	for attempt := 0; ; attempt++ {
		job, err := c.StartTransientUnit(ctx, name, mode, props, aux...)
		if !errors.Is(err, ErrOutcomeUnknown) || attempt >= retries {
			return job, nil, err
		}
		r, rerr := c.Reconcile(ctx, name)
		switch {
		case rerr != nil:
			return nil, nil, err
		case !r.Loaded:
			continue
		case r.Job != nil:
			return r.Job, nil, nil
		}
		return nil, &r, nil
	}
}

func describeState(r Reconciliation) string {
	if !r.Loaded {
		return "gone"
	}
	return string(r.State.ActiveState)
}

// cleanUpFailedStart cancels a start job that may still be queued and
// resets the unit's failed state, with its own time limit since the
// caller's ctx may have ended. It returns what it did, as the error
// message says it: "start job canceled, name freed", "start job failed,
// name freed", or what stopped it.
func (c *Conn) cleanUpFailedStart(job *Job, name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	what := "start job failed"
	if job == nil {
		// Its job was not seen (EnsureTransientUnit after an unknown
		// outcome): only the name is freed.
	} else if !job.st.finished() {
		if err := job.Cancel(ctx); err != nil {
			return "start job not canceled (" + causeText(err) + "); it may still run"
		}
		r, err := job.Wait(ctx)
		switch {
		case r == "":
			return "start job canceled, its end not seen (" + causeText(err) + ")"
		case r.Succeeded():
			return "start job finished before it could be canceled; the unit is up"
		default:
			what = startJobEnded(r)
		}
	} else if r, _ := job.st.outcome(job); r != "" {
		what = startJobEnded(r)
	}
	if err := c.ResetFailedUnit(ctx, name); err != nil && !errors.Is(err, ErrNoSuchUnit) {
		return what + ", name not freed (" + causeText(err) + ")"
	}
	return what + ", name freed"
}

func startJobEnded(r JobResult) string {
	if r == JobCanceled || r == JobFailed {
		return "start job " + string(r)
	}
	return "start job ended (" + string(r) + ")"
}

// DestroyUnit stops a unit, waits for the stop job with ctx and resets the
// unit's failed state, so that its name is free. A unit that is not
// loaded counts as destroyed. A stop job that does not succeed is reported
// (*JobError) after the reset. Across a daemon-reexec its calls are sent
// again (both are idempotent: see ReconnectPolicy). When a Conn that does
// not reconnect loses its connection, DestroyUnit reports ErrOutcomeUnknown
// if the stop job was running, and ErrDisconnected, saying the stop may
// have reached systemd, if its reply had not come; both errors are
// DestroyUnit's.
func (c *Conn) DestroyUnit(ctx context.Context, name string) error {
	if err := checkUnitName("DestroyUnit", name); err != nil {
		return err
	}
	job, err := c.StopUnit(ctx, name, ModeReplace)
	if errors.Is(err, ErrNoSuchUnit) {
		return nil
	}
	if err != nil {
		return destroyStopError(name, err)
	}
	_, werr := job.Wait(ctx)
	// Stopping is idempotent: when the connection ended during the wait,
	// a reconnecting Conn stops again on the next one and waits for that.
	for attempt := 0; lostConnection(werr) && !errors.Is(werr, ErrClosed) && c.cfg.reconnect != nil && attempt < retries; attempt++ {
		job, err = c.StopUnit(ctx, name, ModeReplace)
		if errors.Is(err, ErrNoSuchUnit) {
			return nil
		}
		if err != nil {
			return destroyStopError(name, err)
		}
		_, werr = job.Wait(ctx)
	}
	switch {
	case errors.Is(werr, ErrClosed):
		return &Error{Op: "DestroyUnit", Unit: name, Err: ErrClosed}
	case lostConnection(werr):
		return &Error{Op: "DestroyUnit", Unit: name, Message: "the connection was lost while the stop job ran", Err: ErrOutcomeUnknown}
	}
	stopped := "stop job failed"
	if werr != nil && !job.st.finished() {
		stopped = fmt.Sprintf("stopped waiting; stop job %d keeps running", job.ID())
	}
	rctx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
	}
	err = c.ResetFailedUnit(rctx, name)
	switch {
	case werr == nil && err != nil && !errors.Is(err, ErrNoSuchUnit):
		return err
	case werr == nil:
		return nil
	case err != nil && !errors.Is(err, ErrNoSuchUnit):
		return c.destroyError(name, stopped+", failed state not reset ("+causeText(err)+")", werr)
	}
	return c.destroyError(name, stopped+", failed state reset", werr)
}

// destroyStopError is DestroyUnit's error for its StopUnit call that
// failed: one that lost the connection is DestroyUnit's, saying so (the
// stop may have reached systemd; DestroyUnit, idempotent, can be called
// again), with the same cause; any other is StopUnit's.
func destroyStopError(name string, err error) error {
	var e *Error
	if !lostConnection(err) || errors.Is(err, ErrClosed) || !errors.As(err, &e) || e.Op != "StopUnit" {
		return err
	}
	return &Error{Op: "DestroyUnit", Unit: name, Message: "the connection was lost before systemd answered the stop; it may be stopping", Err: e.Err}
}

// destroyError is DestroyUnit's error for a stop job that did not
// succeed or a wait that ended with ctx: what was done, wrapping the
// cause (the *JobError or the ctx error).
func (c *Conn) destroyError(name, msg string, werr error) error {
	var e *Error
	if errors.As(werr, &e) && e.Op == opWait && e.Err != nil {
		werr = e.Err
	}
	return &Error{Op: "DestroyUnit", Unit: name, Message: msg, Err: werr}
}

// placedProcesses returns the PIDs props move into the unit, and whether
// they move any process at all (PIDs, or PIDFDs on newer managers). It
// goes by each property's D-Bus signature, not its Go type, so a named
// slice type (type pids []uint32) counts as well.
func placedProcesses(props []Property) (pids []uint32, places bool) {
	for _, p := range props {
		sig := p.Value.Signature().String()
		switch {
		case p.Name == "PIDs" && sig == "au":
			v := reflect.ValueOf(p.Value.Value())
			for i := 0; i < v.Len(); i++ {
				pids = append(pids, uint32(v.Index(i).Uint()))
			}
			places = places || v.Len() > 0
		case p.Name == "PIDFDs" && sig == "ah":
			places = places || reflect.ValueOf(p.Value.Value()).Len() > 0
		}
	}
	return pids, places
}

func hasProperty(props []Property, name string) bool {
	for _, p := range props {
		if p.Name == name {
			return true
		}
	}
	return false
}
