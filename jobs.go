package sdbus

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/godbus/dbus/v5"
)

// JobMode says how systemd queues a job against the jobs already queued
// (the "mode" argument of StartUnit and friends).
type JobMode string

// The job modes systemd accepts. An unknown mode is refused by systemd with
// an error matching ErrInvalidArgs.
const (
	// ModeReplace replaces conflicting queued jobs. This is what systemctl
	// uses by default.
	ModeReplace JobMode = "replace"
	// ModeFail refuses the job if it conflicts with a queued job
	// (ErrTransactionIsDestructive).
	ModeFail JobMode = "fail"
	// ModeIsolate starts the unit and stops every unit it does not need.
	// Not valid for stop jobs.
	ModeIsolate JobMode = "isolate"
	// ModeIgnoreDependencies queues the job without its dependencies.
	// systemd discourages its use.
	ModeIgnoreDependencies JobMode = "ignore-dependencies"
	// ModeIgnoreRequirements honours ordering but not requirement
	// dependencies. systemd discourages its use.
	ModeIgnoreRequirements JobMode = "ignore-requirements"
	// ModeReplaceIrreversibly is ModeReplace, and later jobs cannot replace
	// this one.
	ModeReplaceIrreversibly JobMode = "replace-irreversibly"
	// ModeFlush cancels every queued job and queues this one.
	ModeFlush JobMode = "flush"
	// ModeTriggering stops the units that trigger the unit (stop jobs
	// only; systemd 244 and later).
	ModeTriggering JobMode = "triggering"
	// ModeRestartDependencies propagates a start as a restart to the units
	// that depend on it (systemd 254 and later).
	ModeRestartDependencies JobMode = "restart-dependencies"
)

// JobResult is the result of a finished job, as systemd reports it in the
// JobRemoved signal. The set is open: a result this package does not know
// is kept verbatim and counts as a failure.
type JobResult string

// The results systemd 256 defines (src/core/job.h).
const (
	// JobDone: the job finished successfully. A start job whose Condition*=
	// check failed is also done; the unit then stays inactive.
	JobDone JobResult = "done"
	// JobCanceled: the job was canceled before it finished, by CancelJob or
	// because a conflicting job replaced it.
	JobCanceled JobResult = "canceled"
	// JobTimeout: the job's timeout was reached.
	JobTimeout JobResult = "timeout"
	// JobFailed: the job failed; the unit's Result says why.
	JobFailed JobResult = "failed"
	// JobDependency: a job this job depended on failed.
	JobDependency JobResult = "dependency"
	// JobSkipped: the job did not apply to the unit's state (for example a
	// verify-active job of an inactive unit). sdbus counts it, as systemctl
	// does, as success.
	JobSkipped JobResult = "skipped"
	// JobInvalid: the job was invalid for the unit, e.g. a reload of an
	// inactive unit.
	JobInvalid JobResult = "invalid"
	// JobAssert: an Assert*= check failed.
	JobAssert JobResult = "assert"
	// JobUnsupported: the operation or the unit type is not supported here.
	JobUnsupported JobResult = "unsupported"
	// JobCollected: a queued job was garbage-collected.
	JobCollected JobResult = "collected"
	// JobOnce: the unit may be started only once and already was.
	JobOnce JobResult = "once"
	// JobFrozen: the operation was refused because the unit is frozen.
	JobFrozen JobResult = "frozen"
)

// Succeeded reports whether r counts as success: JobDone or JobSkipped.
func (r JobResult) Succeeded() bool { return r == JobDone || r == JobSkipped }

// Known reports whether r is one of the results this package defines.
func (r JobResult) Known() bool {
	switch r {
	case JobDone, JobCanceled, JobTimeout, JobFailed, JobDependency, JobSkipped,
		JobInvalid, JobAssert, JobUnsupported, JobCollected, JobOnce, JobFrozen:
		return true
	}
	return false
}

// describe says what r means for unit, in systemctl's words.
func (r JobResult) describe(unit string) string {
	switch r {
	case JobCanceled:
		return "canceled"
	case JobTimeout:
		return "timed out"
	case JobFailed:
		return "failed"
	case JobDependency:
		return "a dependency job failed"
	case JobInvalid:
		return unit + " is not active, cannot reload (invalid)"
	case JobAssert:
		return "assertion failed"
	case JobUnsupported:
		return "operation on or unit type not supported on this system"
	case JobCollected:
		return "queued job was garbage collected"
	case JobOnce:
		return "unit was started already once and can't be started again"
	case JobFrozen:
		return "unit is frozen"
	case JobDone, JobSkipped:
		return string(r)
	}
	return fmt.Sprintf("unexpected result %q", string(r))
}

// Job is a job systemd queued for a caller. Its result is delivered once,
// to every Job value for the same job path, however many callers hold one
// and whether or not anybody waits. Waiting never blocks anybody else: a
// caller that never waits, or gives up, costs nothing but the job's own
// tracking entry, which is freed when the job ends.
type Job struct {
	id   uint32
	path dbus.ObjectPath
	unit string
	st   *jobState
	c    *Conn
}

// ID returns the job's numeric id (0 for a nil Job).
func (j *Job) ID() uint32 {
	if j == nil {
		return 0
	}
	return j.id
}

// Path returns the job's object path ("" for a nil Job).
func (j *Job) Path() dbus.ObjectPath {
	if j == nil {
		return ""
	}
	return j.path
}

// Unit returns the name of the unit the job was requested for ("" for a
// nil Job).
func (j *Job) Unit() string {
	if j == nil {
		return ""
	}
	return j.unit
}

// valid reports whether j was made by this package: a nil or zero Job
// tracks nothing.
func (j *Job) valid() bool { return j != nil && j.st != nil && j.c != nil }

// Done returns a channel that is closed when the job's result is known or
// the connection has ended. The channel belongs to sdbus; it is never sent
// on. For a nil or zero Job it is closed already (Wait says why).
func (j *Job) Done() <-chan struct{} {
	if !j.valid() {
		done := make(chan struct{})
		close(done)
		return done
	}
	return j.st.done
}

// errNoJob is the error of a method called on a nil or zero Job.
func errNoJob(op string) error {
	return &Error{Op: op, Message: "nil or zero Job: jobs come from StartUnit and friends", Err: ErrInvalidArgs}
}

// opWait is the Op of Job.Wait's errors.
const opWait = "Job.Wait"

// Wait waits until the job ends or ctx is done and returns its result.
// It may be called any number of times, from any goroutine; giving up on a
// Wait does not affect the job or other callers.
//
// A result that does not count as success (see JobResult.Succeeded) is
// returned together with a *JobError, matching ErrJobFailed. When ctx ends
// first, the error matches ctx.Err(); when the connection ends first, it
// matches ErrDisconnected (or ErrClosed after Close) and the job's outcome
// is unknown to this Conn: look at the unit's state, or Conn.Reconcile.
// When the job ended while systemd re-executed and no instance announced
// it (the new one, once it owns its name, no longer lists the job), the
// error matches ErrOutcomeUnknown and says so: a job's Done never stays
// open after a daemon-reexec. A nil or zero Job fails with ErrInvalidArgs.
func (j *Job) Wait(ctx context.Context) (JobResult, error) {
	if !j.valid() {
		return "", errNoJob(opWait)
	}
	select {
	case <-j.st.done:
	case <-ctx.Done():
		select {
		case <-j.st.done: // the result arrived at the same moment
		default:
			return "", &Error{Op: opWait, Unit: j.unit, Message: fmt.Sprintf("stopped waiting; job %d keeps running (Job.Cancel stops it)", j.id), Err: ctx.Err()}
		}
	}
	return j.st.outcome(j)
}

// Cancel asks systemd to cancel the job (Manager.CancelJob). A job that has
// ended is not an error. systemd cannot cancel a job whose execution has
// begun. Wait reports the job's result, JobCanceled if the cancel took
// effect.
//
// Cancel never reports success without effect. A job whose connection was
// lost is canceled on a reconnecting Conn's current connection (once
// there is one; a job systemd no longer has, or that now belongs to
// another unit, counts as ended); on any other Conn Cancel then fails with
// ErrDisconnected, and with ErrClosed after Close.
func (j *Job) Cancel(ctx context.Context) error {
	const op = "CancelJob"
	if !j.valid() {
		return errNoJob(op)
	}
	c := j.c
	select {
	case <-j.st.done:
		switch {
		case j.st.err == nil, j.st.err == errResultLost:
			return nil // it ended
		case c.closing.Load():
			return &Error{Op: op, Unit: j.unit, Err: ErrClosed}
		case c.cfg.reconnect == nil:
			return &Error{Op: op, Unit: j.unit, Message: "the connection was lost; the job may still be queued", Err: ErrDisconnected}
		}
		return c.cancelOrphan(ctx, op, j.unit, j.id, j.path)
	default:
	}
	err := c.call(ctx, op, j.unit, []any{j.id})
	if errors.Is(err, ErrNoSuchJob) {
		return nil
	}
	return err
}

// CancelJob cancels the job with the given id (Manager.CancelJob). A job
// that does not exist, or no longer does, fails with ErrNoSuchJob.
func (c *Conn) CancelJob(ctx context.Context, id uint32) error {
	return c.call(ctx, "CancelJob", "", []any{id})
}

// AuxUnit is an auxiliary unit created together with a transient unit (the
// last argument of StartTransientUnit), such as the service of a transient
// timer.
type AuxUnit struct {
	Name       string
	Properties []Property
}

// StartUnit queues a start job for the named unit (Manager.StartUnit).
func (c *Conn) StartUnit(ctx context.Context, name string, mode JobMode) (*Job, error) {
	return c.unitJob(ctx, "StartUnit", name, mode)
}

// StopUnit queues a stop job (Manager.StopUnit).
func (c *Conn) StopUnit(ctx context.Context, name string, mode JobMode) (*Job, error) {
	return c.unitJob(ctx, "StopUnit", name, mode)
}

// RestartUnit queues a restart job (Manager.RestartUnit); it starts the
// unit if it is not running.
func (c *Conn) RestartUnit(ctx context.Context, name string, mode JobMode) (*Job, error) {
	return c.unitJob(ctx, "RestartUnit", name, mode)
}

// ReloadUnit queues a reload job (Manager.ReloadUnit). Reloading an inactive
// unit ends with JobInvalid.
func (c *Conn) ReloadUnit(ctx context.Context, name string, mode JobMode) (*Job, error) {
	return c.unitJob(ctx, "ReloadUnit", name, mode)
}

// TryRestartUnit restarts the unit if it is running (Manager.TryRestartUnit).
func (c *Conn) TryRestartUnit(ctx context.Context, name string, mode JobMode) (*Job, error) {
	return c.unitJob(ctx, "TryRestartUnit", name, mode)
}

// ReloadOrRestartUnit reloads the unit if it supports reloading, else
// restarts it; it starts an inactive unit (Manager.ReloadOrRestartUnit).
func (c *Conn) ReloadOrRestartUnit(ctx context.Context, name string, mode JobMode) (*Job, error) {
	return c.unitJob(ctx, "ReloadOrRestartUnit", name, mode)
}

// ReloadOrTryRestartUnit reloads or restarts the unit if it is running
// (Manager.ReloadOrTryRestartUnit).
func (c *Conn) ReloadOrTryRestartUnit(ctx context.Context, name string, mode JobMode) (*Job, error) {
	return c.unitJob(ctx, "ReloadOrTryRestartUnit", name, mode)
}

// StartTransientUnit creates a transient unit with the given properties,
// and optionally auxiliary units, and queues its start job
// (Manager.StartTransientUnit). Properties are validated first: a
// property with a wrong type or value fails with ErrInvalidArgs before
// anything is sent. A property the manager does not know fails with
// ErrNotSupported; when its name is a unit-file setting whose D-Bus
// property is named otherwise (CPUQuota for CPUQuotaPerSecUSec), the
// error says which property and builder to use.
//
// A name that is already loaded fails with ErrUnitExists; a failed
// transient unit keeps its name until ResetFailedUnit unless it was
// created with CollectMode inactive-or-failed. EnsureTransientUnit wraps
// this with an explicit policy for that case.
func (c *Conn) StartTransientUnit(ctx context.Context, name string, mode JobMode, props []Property, aux ...AuxUnit) (*Job, error) {
	return c.startTransientRef(ctx, name, mode, props, aux, nil)
}

// startTransientRef is StartTransientUnit, for EnsureTransientUnit with
// ref: on a bus it adds AddRef=true (see refRequest).
func (c *Conn) startTransientRef(ctx context.Context, name string, mode JobMode, props []Property, aux []AuxUnit, ref *refRequest) (*Job, error) {
	const op = "StartTransientUnit"
	if err := checkUnitArgs(op, name, mode); err != nil {
		return nil, err
	}
	p, err := encodeProperties(op, name, props)
	if err != nil {
		return nil, err
	}
	a := make([]auxUnitWire, 0, len(aux))
	for _, u := range aux {
		if err := checkUnitName(op, u.Name); err != nil {
			return nil, err
		}
		up, err := encodeProperties(op, u.Name, u.Properties)
		if err != nil {
			return nil, err
		}
		a = append(a, auxUnitWire{u.Name, up})
	}
	job, err := c.startJob(ctx, op, name, ref, name, string(mode), p, a)
	return job, withPropertyHint(err)
}

type auxUnitWire struct {
	Name       string
	Properties []propertyWire
}

func (c *Conn) unitJob(ctx context.Context, op, name string, mode JobMode) (*Job, error) {
	if err := checkUnitArgs(op, name, mode); err != nil {
		return nil, err
	}
	return c.startJob(ctx, op, name, nil, name, string(mode))
}

func checkUnitArgs(op, name string, mode JobMode) error {
	if err := checkUnitName(op, name); err != nil {
		return err
	}
	if mode == "" {
		return invalidArg(op, name, "empty job mode")
	}
	return nil
}

const jobIface = "org.freedesktop.systemd1.Job"

// JobPath returns the object path of the job with the given id.
func JobPath(id uint32) dbus.ObjectPath {
	return dbus.ObjectPath("/org/freedesktop/systemd1/job/" + strconv.FormatUint(uint64(id), 10))
}

// JobStatus describes a queued or running job, as ListJobs reports it.
type JobStatus struct {
	ID       uint32
	Unit     string
	JobType  string // "start", "stop", "restart", "reload", "verify-active", ...
	State    string // "waiting" or "running"
	Path     dbus.ObjectPath
	UnitPath dbus.ObjectPath
}

// ListJobs lists the jobs the manager has queued or running
// (Manager.ListJobs).
func (c *Conn) ListJobs(ctx context.Context) ([]JobStatus, error) {
	var rows []JobStatus
	err := c.call(ctx, "ListJobs", "", nil, &rows)
	return rows, err
}
