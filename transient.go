package sdbus

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/godbus/dbus/v5"
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
//   - on a bus, AddRef=true is added unless props set AddRef (where the
//     manager takes it: probed, see Conn.Supports): the unit stays loaded
//     while this connection holds that reference, so that what became
//     of a call whose reply was lost can be told (below); the reference
//     is dropped (UnrefUnit) before EnsureTransientUnit returns, and goes
//     anyway with the connection;
//   - when the start job does not succeed, or ctx ends while waiting, the
//     job is canceled if still queued and the unit's failed state reset,
//     so that the name is free for the next attempt; the error says what
//     was done ("sdbus: EnsureTransientUnit run-x.scope: start job
//     canceled, name freed: context deadline exceeded") and wraps the
//     *JobError or the ctx error. "Name freed" is said only after the
//     job's end was seen; when it could not be (the connection is gone,
//     or the cancel went unanswered) the error says the job may still
//     run and matches ErrOutcomeUnknown too;
//   - an existing unit is never silently accepted while placing PIDs;
//   - a unit is never created twice: StartTransientUnit is sent again
//     only when there is proof that the first call created nothing.
//
// Two EnsureTransientUnit calls for the same name on one Conn run one
// after the other.
//
// # When StartTransientUnit's reply is lost
//
// systemd may have carried out a call whose reply never came, and a
// transient unit that ran is unloaded once inactive (a oneshot that
// finished, a scope whose processes exited, a failed unit with
// CollectMode=inactive-or-failed), so "not loaded" alone does not tell
// "never created" from "created, ran, collected". The evidence is the
// reference AddRef=true gives this connection, which systemd keeps across
// daemon-reexec but drops with the connection:
//
//	what happened                    what EnsureTransientUnit does
//	reply in time                    waits for the start job
//	ctx ends before the reply        returns ctx's error; the late reply's
//	                                 job is canceled, its reference dropped
//	systemd left the bus (daemon-    the connection kept the reference:
//	reexec) before the reply         not loaded: never created, sent again;
//	                                 loaded with this connection's
//	                                 reference: the call made it, its job
//	                                 is waited for or its state read;
//	                                 loaded without it: another client's
//	                                 unit (ErrUnitExists, then the policy)
//	the connection dropped before    no evidence survives: ErrOutcomeUnknown,
//	the reply                        saying what the unit is now; nothing
//	                                 is sent again
//	the unit ran and was collected   cannot happen while the reference
//	before the check                 holds it; without the reference
//	                                 (private socket, AddRef in props,
//	                                 a manager refusing it) not loaded is
//	                                 ErrOutcomeUnknown
//	the start job's result lost      the reply named the job: Reconcile
//	(connection dropped while        finds it queued (waited for), the unit
//	waiting)                         active (success), failed (cleaned
//	                                 up), or gone (ErrOutcomeUnknown)
//
// Errors match ErrUnitExists (policy ExistsFail, or a unit that exists and
// has not failed under ExistsResetAndRetry), ErrInvalidArgs, ErrJobFailed,
// ErrOutcomeUnknown, ctx.Err(), and the errors of the calls it makes. A
// unit made and up comes with an error (and its Outcome) only when the
// reference could not be dropped: it then stays loaded until the
// connection ends.
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
	if opt.Exists < ExistsFail || opt.Exists > ExistsIgnore {
		return 0, invalidArg(op, name, "unknown ExistsPolicy %d", int(opt.Exists))
	}
	if err := c.usable(op, name); err != nil {
		return 0, err
	}
	turnDone, err := c.ensureTurn(ctx, op, name)
	if err != nil {
		return 0, err
	}
	defer turnDone()
	if !opt.KeepFailed && !hasProperty(props, "CollectMode") {
		ok, err := c.Supports(ctx, FeatureCollectMode)
		if err != nil {
			return 0, err
		}
		if ok {
			props = append(append([]Property(nil), props...), PropCollectMode(CollectInactiveOrFailed))
		}
	}
	e := &ensure{c: c, name: name, mode: mode, props: props, aux: opt.Aux}
	if !hasProperty(props, "AddRef") {
		ok, err := c.Supports(ctx, featureAddRef)
		if err != nil {
			return 0, err
		}
		e.addRef = ok
	}
	out, err := e.run(ctx, opt, pids)
	rerr := e.dropRef()
	switch {
	case rerr == nil:
		return out, err
	case err == nil:
		// The unit is up, but stays loaded until this connection ends.
		return out, &Error{Op: op, Unit: name, Message: "the unit is up; dropping the reference EnsureTransientUnit held on it failed (it stays loaded until this connection ends)", Err: rerr}
	}
	// Whatever err says of the name, the reference keeps the unit loaded.
	return out, &Error{Op: op, Unit: name, Message: causeText(err) + "; dropping the reference EnsureTransientUnit held failed (" + causeText(rerr) + "): the unit stays loaded until this connection ends", Err: err}
}

// featureAddRef is StartTransientUnit's AddRef=true, probed with a trial
// (see Supports). On systemd's private socket it is refused, whatever the
// release: systemd tracks references by bus name.
const featureAddRef Feature = "AddRef"

// ensure is one EnsureTransientUnit call.
type ensure struct {
	c     *Conn
	name  string
	mode  JobMode
	props []Property
	aux   []AuxUnit
	// addRef: StartTransientUnit goes with AddRef=true where it goes out
	// on a bus.
	addRef bool
	// refs is the session a StartTransientUnit created the unit on with
	// this connection's reference (nil: none was, or none is known).
	refs *session
}

// run creates the unit (see EnsureTransientUnit) and waits for its start
// job.
func (e *ensure) run(ctx context.Context, opt EnsureOptions, pids []uint32) (Outcome, error) {
	const op = "EnsureTransientUnit"
	c, name := e.c, e.name
	outcome := Created
	job, ended, err := e.start(ctx)
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
			job, ended, err = e.start(ctx)
		}
	}
	if err != nil {
		return 0, err
	}
	if ended != nil {
		return c.ensureEnded(ctx, name, outcome, nil, *ended)
	}
	if _, err := job.Wait(ctx); err != nil {
		if lostConnection(err) {
			return c.ensureAfterDisconnect(ctx, name, outcome, job, err)
		}
		return 0, c.failedStart(op, name, job, err)
	}
	return outcome, nil
}

// start is StartTransientUnit for EnsureTransientUnit. When the call's
// outcome is unknown (the connection dropped, or systemd left the bus at
// a daemon-reexec, before its reply), the reference it asked for tells
// what became of it (see EnsureTransientUnit): the call is sent again
// only when it created nothing; a unit it created is returned as its
// queued job, or as ended (for ensureEnded) when it has none.
func (e *ensure) start(ctx context.Context) (*Job, *Reconciliation, error) {
	c, name := e.c, e.name
	for attempt := 0; ; attempt++ {
		var ref *refRequest
		if e.addRef {
			ref = &refRequest{}
		}
		job, err := c.startTransientRef(ctx, name, e.mode, e.props, e.aux, ref)
		if err == nil && ref != nil {
			e.refs = ref.sess
		}
		if !errors.Is(err, ErrOutcomeUnknown) {
			return job, nil, err
		}
		var made created
		if ref != nil && ref.sess != nil {
			made = c.createdByRef(ctx, ref.sess, name)
		}
		switch made {
		case createdNothing:
			if attempt < retries {
				continue
			}
		case createdOther:
			return nil, nil, &Error{Op: "StartTransientUnit", Unit: name,
				Message: "its reply was lost, and the unit loaded now holds no reference of this connection: another client made it",
				Err:     ErrUnitExists}
		case createdByCall:
			e.refs = ref.sess
			r, rerr := c.Reconcile(ctx, name)
			switch {
			case rerr != nil:
				return nil, nil, &Error{Op: "EnsureTransientUnit", Unit: name,
					Message: "StartTransientUnit created the unit (its reply was lost), and reading it failed (" + causeText(rerr) + "); its start job may run",
					Err:     outcomeUnknown{rerr}}
			case r.Job != nil:
				return r.Job, nil, nil
			}
			return nil, &r, nil
		}
		return nil, nil, e.unknown(ctx, err)
	}
}

// unknown is EnsureTransientUnit's error when nothing tells whether its
// StartTransientUnit, whose reply was lost (err), created the unit: it
// says what the unit is now, and the call is not sent again.
func (e *ensure) unknown(ctx context.Context, err error) error {
	now := "could not be read"
	if r, rerr := e.c.Reconcile(ctx, e.name); rerr == nil {
		now = "is " + describeState(r)
		if r.Job != nil {
			now += fmt.Sprintf(" with job %d queued", r.Job.ID())
		}
	}
	return &Error{Op: "EnsureTransientUnit", Unit: e.name,
		Message: "StartTransientUnit's reply was lost and nothing shows whether it created the unit (which " + now + "); it was not sent again",
		Err:     err}
}

// dropRef drops the reference the unit's creation gave this connection,
// if it still holds one (see unref).
func (e *ensure) dropRef() error {
	if e.refs == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(e.c.stop, cleanupTimeout)
	defer cancel()
	return e.c.unref(ctx, e.refs, e.name)
}

// created is what a reference tells about a StartTransientUnit whose
// reply was lost.
type created int

const (
	createdUnknown created = iota // no evidence either way
	createdNothing                // not loaded though the reference would keep it
	createdByCall                 // loaded, holding this connection's reference
	createdOther                  // loaded without it: the call did not make it
)

// createdByRef tells what a StartTransientUnit sent with AddRef=true on
// s, whose reply was lost, did: on s, still alive (so the reference, if
// the call made the unit, still holds it), GetUnit and the unit's Refs
// say. systemd leaving the bus meanwhile (a daemon-reexec keeps
// references) is waited out.
func (c *Conn) createdByRef(ctx context.Context, s *session, unit string) created {
	me := ""
	if names := s.bus.Names(); len(names) > 0 {
		me = names[0]
	}
	for attempt := 0; attempt <= retries; attempt++ {
		if me == "" || !s.alive() || c.sess.Load() != s {
			return createdUnknown
		}
		sent := s.ownerMark()
		var path dbus.ObjectPath
		err := storeCall(s.mgr.CallWithContext(ctx, managerIface+".GetUnit", c.flags(), unit), &path)
		var refs []string
		if err == nil {
			var v dbus.Variant
			err = storeCall(s.bus.Object(systemdName, path).CallWithContext(ctx, propsIface+".Get", c.flags(), unitIface, "Refs"), &v)
			if err == nil {
				refs, _ = v.Value().([]string)
			}
		}
		var de dbus.Error
		switch {
		case err == nil && slices.Contains(refs, me):
			return createdByCall
		case err == nil:
			return createdOther
		case errors.As(err, &de) && de.Name == "org.freedesktop.systemd1.NoSuchUnit" && s.alive():
			return createdNothing
		case s.systemdLeft(err, sent):
			if c.awaitSystemd(ctx, s, "GetUnit", unit, sent) != nil {
				return createdUnknown
			}
			continue
		}
		return createdUnknown
	}
	return createdUnknown
}

// ensureTurn waits until no other EnsureTransientUnit of name runs on c
// (bounded by ctx and Close) and takes the turn; done gives it back. A
// unit's references are per connection: two calls for one name sharing
// one could not tell their units apart.
func (c *Conn) ensureTurn(ctx context.Context, op, name string) (done func(), err error) {
	for {
		c.ensureMu.Lock()
		busy, ok := c.ensuring[name]
		if !ok {
			if c.ensuring == nil {
				c.ensuring = make(map[string]chan struct{})
			}
			mine := make(chan struct{})
			c.ensuring[name] = mine
			c.ensureMu.Unlock()
			return func() {
				c.ensureMu.Lock()
				delete(c.ensuring, name)
				c.ensureMu.Unlock()
				close(mine)
			}, nil
		}
		c.ensureMu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, &Error{Op: op, Unit: name, Message: "waiting for another EnsureTransientUnit of this unit on this Conn", Err: ctx.Err()}
		case <-c.stop.Done():
			return nil, &Error{Op: op, Unit: name, Err: ErrClosed}
		}
	}
}

// failedStart cleans up after a start job that did not succeed, or whose
// wait ended with the caller's ctx, and returns the error of the public
// call op: what was done about the job and the name, wrapping the cause
// (the *JobError, or the ctx error), and ErrOutcomeUnknown too when the
// job's end was not seen.
func (c *Conn) failedStart(op, name string, job *Job, werr error) error {
	cause := werr
	var e *Error
	if errors.As(werr, &e) && e.Op == opWait && e.Err != nil {
		cause = e.Err
	}
	msg, seen := c.cleanUpFailedStart(job, name)
	if !seen {
		cause = outcomeUnknown{cause}
	}
	return &Error{Op: op, Unit: name, Message: msg, Err: cause}
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
			return 0, c.failedStart(op, name, job, err)
		}
		if r.Job != nil && r.Job.ID() == job.ID() {
			// The start job is still queued: wait for it here.
			if _, werr = r.Job.Wait(ctx); werr == nil {
				return outcome, nil
			}
			if lostConnection(werr) {
				continue
			}
			return 0, c.failedStart(op, name, r.Job, werr)
		}
		// The start job ended while the connection was down.
		return c.ensureEnded(ctx, name, outcome, job, r)
	}
}

// ensureEnded finishes EnsureTransientUnit when its start job ended
// unseen (the connection was down, or systemd left the bus, when its
// result came) and Reconcile found r: success when the unit is active,
// or inactive after it ran and exited successfully (a oneshot without
// RemainAfterExit, kept loaded by this connection's reference); the
// failure cleaned up when it failed; an unknown outcome otherwise.
func (c *Conn) ensureEnded(ctx context.Context, name string, outcome Outcome, job *Job, r Reconciliation) (Outcome, error) {
	const op = "EnsureTransientUnit"
	switch {
	case r.Loaded && (r.State.ActiveState == StateActive || r.State.ActiveState == StateReloading):
		return outcome, nil
	case r.Loaded && r.State.ActiveState == StateFailed:
		done, _ := c.cleanUpFailedStart(job, name)
		return 0, &Error{Op: op, Unit: name, Message: "the start job failed unseen (Result " + r.State.Result + "); " + done, Err: ErrJobFailed}
	case r.Loaded && r.State.ActiveState == StateInactive && r.State.Result == "success":
		// Inactive and successful: it ran and exited well, or it never
		// left inactive (its job canceled): when it left is the proof.
		var left uint64
		if c.getProperty(ctx, UnitPath(name), unitIface, "InactiveExitTimestampMonotonic", name, &left) == nil && left > 0 {
			return outcome, nil
		}
	}
	return 0, &Error{Op: op, Unit: name, Message: fmt.Sprintf("the start job ended unseen and the unit is %s now", describeState(r)), Err: ErrOutcomeUnknown}
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
// message says it ("start job canceled, name freed", "start job failed,
// name freed", or what stopped it), and whether it saw the job end (its
// result, or the unit without it after the cancel). Without that, the
// job may still run, and the name is never called free.
func (c *Conn) cleanUpFailedStart(job *Job, name string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	what := "start job failed"
	switch {
	case job == nil:
		// Its job was not seen (EnsureTransientUnit after an unknown
		// outcome, the unit found failed): only the name is freed.
	case !job.st.finished():
		if err := job.Cancel(ctx); err != nil {
			return "start job not canceled (" + causeText(err) + "); it may still run", false
		}
		r, err := job.Wait(ctx)
		switch {
		case r == "":
			return "start job canceled, its end not seen (" + causeText(err) + "); it may still run", false
		case r.Succeeded():
			return "start job finished before it could be canceled; the unit is up", true
		}
		what = startJobEnded(r)
	case job.st.err == nil:
		what = startJobEnded(job.st.result)
	default:
		// The connection ended before the job's result came: the job is
		// canceled on the current connection (a reconnecting Conn's),
		// and the unit read to see it gone.
		if err := job.Cancel(ctx); err != nil {
			return "start job not canceled (" + causeText(err) + "); it may still run", false
		}
		st, err := c.UnitStatus(ctx, name)
		switch {
		case err != nil:
			return "start job canceled, its end not seen (" + causeText(err) + "); it may still run", false
		case st.JobID == job.ID():
			return fmt.Sprintf("start job %d still queued after its cancel; it may still run", job.ID()), false
		case st.JobID == 0 && (st.ActiveState == StateActive || st.ActiveState == StateReloading):
			return "start job finished before it could be canceled; the unit is up", true
		}
		what = "start job canceled (its result unseen)"
	}
	if err := c.ResetFailedUnit(ctx, name); err != nil && !errors.Is(err, ErrNoSuchUnit) {
		return what + ", name not freed (" + causeText(err) + ")", true
	}
	return what + ", name freed", true
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
