package sdbus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

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
	// only; systemd 250 and later).
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

// ID returns the job's numeric id.
func (j *Job) ID() uint32 { return j.id }

// Path returns the job's object path.
func (j *Job) Path() dbus.ObjectPath { return j.path }

// Unit returns the name of the unit the job was requested for.
func (j *Job) Unit() string { return j.unit }

// Done returns a channel that is closed when the job's result is known or
// the connection has ended. The channel belongs to sdbus; it is never sent
// on.
func (j *Job) Done() <-chan struct{} { return j.st.done }

// Wait waits until the job ends or ctx is done and returns its result.
// It may be called any number of times, from any goroutine; giving up on a
// Wait does not affect the job or other callers.
//
// A result that does not count as success (see JobResult.Succeeded) is
// returned together with a *JobError, matching ErrJobFailed. When ctx ends
// first, the error matches ctx.Err(); when the connection ends first, it
// matches ErrDisconnected (or ErrClosed after Close) and the job's outcome
// is unknown to this Conn: look at the unit's state.
func (j *Job) Wait(ctx context.Context) (JobResult, error) {
	select {
	case <-j.st.done:
	case <-ctx.Done():
		select {
		case <-j.st.done: // the result arrived at the same moment
		default:
			return "", &Error{Op: "wait", Unit: j.unit, Err: ctx.Err()}
		}
	}
	return j.st.outcome(j)
}

// Cancel asks systemd to cancel the job (Manager.CancelJob). A job that has
// already ended is not an error. systemd cannot cancel a job whose
// execution has begun. Wait reports the job's result, JobCanceled if the
// cancel took effect.
func (j *Job) Cancel(ctx context.Context) error {
	select {
	case <-j.st.done:
		return nil
	default:
	}
	err := j.c.call(ctx, "CancelJob", j.unit, []any{j.id})
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

// jobState is the tracking entry of one job path, shared by every Job for
// that path.
type jobState struct {
	done chan struct{} // closed once result (or err) is set

	// Written once under jobTracker.mu before done is closed; read after
	// done is closed.
	result JobResult
	unit   string // the unit name in JobRemoved
	err    error  // ErrDisconnected or ErrClosed when the connection ended first

	// claims counts the calls that registered this job path (merged
	// calls share it); guarded by jobTracker.mu.
	claims int
}

func newJobState() *jobState { return &jobState{done: make(chan struct{})} }

func (s *jobState) finished() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *jobState) outcome(j *Job) (JobResult, error) {
	if s.err != nil {
		return "", &Error{Op: "wait", Unit: j.unit, Err: s.err}
	}
	if s.result.Succeeded() {
		return s.result, nil
	}
	unit := s.unit
	if unit == "" {
		unit = j.unit
	}
	return s.result, &JobError{Unit: unit, JobID: j.id, Result: s.result}
}

// jobRemoved is a decoded JobRemoved signal.
type jobRemoved struct {
	id     uint32
	path   dbus.ObjectPath
	unit   string
	result JobResult
}

// decodeJobRemoved checks the body of a JobRemoved signal, (uoss).
func decodeJobRemoved(body []any) (jobRemoved, bool) {
	if len(body) != 4 {
		return jobRemoved{}, false
	}
	id, ok1 := body[0].(uint32)
	path, ok2 := body[1].(dbus.ObjectPath)
	unit, ok3 := body[2].(string)
	result, ok4 := body[3].(string)
	if !ok1 || !ok2 || !ok3 || !ok4 || !path.IsValid() {
		return jobRemoved{}, false
	}
	return jobRemoved{id, path, unit, JobResult(result)}, true
}

// maxRetired bounds the finished jobs kept for job calls still in flight
// (see jobTracker).
const maxRetired = 1 << 14

// jobTracker matches JobRemoved signals to the job paths that job calls
// return.
//
// godbus hands a reply to the calling goroutine and signals to the signal
// handler, so a JobRemoved can be processed before the caller has seen the
// reply that names the job (because the job ended quickly, because of a
// merge with an older job, or because a peer sent them in that order). So
// every job call takes a ticket before it is sent and gives it back when it
// has registered the returned path. A JobRemoved is kept, as a finished
// entry, as long as a call that was in flight when it arrived has not
// given its ticket back; then it is dropped. A JobRemoved that arrives while
// no call is in flight and matches no pending job concerns somebody else and
// is dropped at once. At most maxRetired finished entries are kept.
type jobTracker struct {
	// mu guards every field below. It is held only for map and slice
	// updates, never across a D-Bus call or a channel send.
	mu sync.Mutex
	// jobs holds pending jobs, and finished ones still claimable by
	// calls in flight.
	jobs    map[dbus.ObjectPath]*jobState
	retired []retiredJob // finished entries in jobs, oldest first
	// Tickets [lowTicket, nextTicket) may be in flight; ended holds those
	// above lowTicket that have ended.
	nextTicket uint64
	lowTicket  uint64
	ended      map[uint64]struct{}
	// units maps each ticket in flight to the unit its call is for.
	// ticketEnded, made by soleClaim when it must wait, is closed and
	// cleared when a ticket ends; nil while nobody waits, so that ending a
	// ticket allocates nothing.
	units       map[uint64]string
	ticketEnded chan struct{}
	// owner is the unique name of org.freedesktop.systemd1's owner, set at
	// sequence ownerSeq.
	owner    string
	ownerSeq dbus.Sequence
	// gone is set when the connection has ended.
	gone error
}

type retiredJob struct {
	path dbus.ObjectPath
	st   *jobState
	// lastTicket is the newest ticket that was in flight when the job
	// finished; once every ticket up to it has ended, nobody can claim it.
	lastTicket uint64
}

func newJobTracker() *jobTracker {
	return &jobTracker{jobs: make(map[dbus.ObjectPath]*jobState), ended: make(map[uint64]struct{}),
		units: make(map[uint64]string)}
}

// begin takes a ticket before a job call for unit is sent.
func (t *jobTracker) begin(unit string) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.nextTicket
	t.nextTicket++
	t.units[n] = unit
	return n
}

// end gives a ticket back without registering a job (the call failed).
func (t *jobTracker) end(ticket uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLocked(ticket)
}

func (t *jobTracker) endLocked(ticket uint64) {
	delete(t.units, ticket)
	if t.ticketEnded != nil {
		close(t.ticketEnded)
		t.ticketEnded = nil
	}
	if ticket != t.lowTicket {
		t.ended[ticket] = struct{}{}
		return
	}
	t.lowTicket++
	for {
		if _, ok := t.ended[t.lowTicket]; !ok {
			break
		}
		delete(t.ended, t.lowTicket)
		t.lowTicket++
	}
	for len(t.retired) > 0 && t.retired[0].lastTicket < t.lowTicket {
		t.dropOldestLocked()
	}
}

func (t *jobTracker) dropOldestLocked() {
	r := t.retired[0]
	t.retired[0] = retiredJob{}
	t.retired = t.retired[1:]
	if t.jobs[r.path] == r.st {
		delete(t.jobs, r.path)
	}
}

// register records the job path a call returned and gives its ticket
// back. It returns the shared state for that path: a new pending one, the
// pending one of a merged job, or a finished one whose JobRemoved came
// first.
func (t *jobTracker) register(ticket uint64, path dbus.ObjectPath) (st *jobState, fresh bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st = t.jobs[path]
	if st == nil {
		st = newJobState()
		fresh = true
		if t.gone != nil {
			st.err = t.gone
			close(st.done)
		} else {
			t.jobs[path] = st
		}
	}
	st.claims++
	t.endLocked(ticket)
	return st, fresh
}

// soleClaim waits until no other call for unit is in flight and reports
// whether st is still claimed by one call only and not finished: then
// nobody else on this Conn waits for the job. It gives up, reporting
// false, when done is closed.
func (t *jobTracker) soleClaim(st *jobState, unit string, done <-chan struct{}) bool {
	for {
		t.mu.Lock()
		busy := false
		for _, u := range t.units {
			if u == unit {
				busy = true
				break
			}
		}
		if busy && t.ticketEnded == nil {
			t.ticketEnded = make(chan struct{})
		}
		ended := t.ticketEnded
		sole := st.claims == 1 && !st.finished()
		t.mu.Unlock()
		if !busy {
			return sole
		}
		select {
		case <-ended:
		case <-done:
			return false
		}
	}
}

// complete records a JobRemoved.
func (t *jobTracker) complete(ev jobRemoved) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone != nil {
		return
	}
	inFlight := t.lowTicket < t.nextTicket
	st := t.jobs[ev.path]
	switch {
	case st == nil && !inFlight:
		return // nobody here waits for it, and nobody can
	case st == nil:
		st = newJobState()
		t.jobs[ev.path] = st
	case st.finished():
		return // a duplicate: the first result stands
	}
	st.result, st.unit = ev.result, ev.unit
	close(st.done)
	if !inFlight {
		delete(t.jobs, ev.path)
		return
	}
	if len(t.retired) >= maxRetired {
		t.dropOldestLocked()
	}
	t.retired = append(t.retired, retiredJob{path: ev.path, st: st, lastTicket: t.nextTicket - 1})
}

// fail ends every pending job with err; later registrations fail at once.
func (t *jobTracker) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone != nil {
		return
	}
	t.gone = err
	for path, st := range t.jobs {
		if !st.finished() {
			st.err = err
			close(st.done)
		}
		delete(t.jobs, path)
	}
	t.retired = nil
}

func (t *jobTracker) setOwner(owner string, seq dbus.Sequence) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// A NameOwnerChanged processed after the GetNameOwner reply is newer.
	if seq >= t.ownerSeq {
		t.owner, t.ownerSeq = owner, seq
	}
}

func (t *jobTracker) ownerName() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.owner
}

// size reports the number of tracked job paths (for tests through
// export_test.go).
func (t *jobTracker) size() (jobs, retired int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.jobs), len(t.retired)
}

// jobIDFromPath parses the id at the end of a job path.
func jobIDFromPath(p dbus.ObjectPath) uint32 {
	s := string(p)
	n, err := strconv.ParseUint(s[strings.LastIndexByte(s, '/')+1:], 10, 32)
	if err != nil {
		return 0
	}
	return uint32(n)
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
// anything is sent.
//
// A name that is already loaded fails with ErrUnitExists; a failed
// transient unit keeps its name until ResetFailedUnit unless it was
// created with CollectMode inactive-or-failed. EnsureTransientUnit wraps
// this with an explicit policy for that case.
func (c *Conn) StartTransientUnit(ctx context.Context, name string, mode JobMode, props []Property, aux ...AuxUnit) (*Job, error) {
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
	return c.startJob(ctx, op, name, name, string(mode), p, a)
}

type auxUnitWire struct {
	Name       string
	Properties []propertyWire
}

func (c *Conn) unitJob(ctx context.Context, op, name string, mode JobMode) (*Job, error) {
	if err := checkUnitArgs(op, name, mode); err != nil {
		return nil, err
	}
	return c.startJob(ctx, op, name, name, string(mode))
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
func (c *Conn) startJob(ctx context.Context, op, unit string, args ...any) (*Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: op, Unit: unit, Err: err}
	}
	var job *Job
	err := c.do(ctx, op, unit, idempotentMethod(op), func(s *session) error {
		ticket := s.jobs.begin(unit)
		call := s.mgr.Go(managerIface+"."+op, c.flags(), make(chan *dbus.Call, 1), args...)
		select {
		case <-call.Done:
		case <-ctx.Done():
			select {
			case <-call.Done: // the reply won the race after all
			default:
				err := &Error{Op: op, Unit: unit, Message: "no reply before the context ended; the job, if created, will be canceled", Err: ctx.Err()}
				if !c.goTracked(func() { defer c.release(); c.cancelLateJob(s, ticket, unit, call) }) {
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
		st, _ := s.jobs.register(ticket, path)
		job = &Job{id: jobIDFromPath(path), path: path, unit: unit, st: st, c: c}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return job, nil
}

// cancelLateJob waits for the reply of a job call whose caller gave up and
// cancels the job it created, unless another call on this Conn got the
// same (merged) job. Calls for the unit that are still in flight may be
// such calls, with their replies read but not yet registered, so the
// decision waits until none is left.
func (c *Conn) cancelLateJob(s *session, ticket uint64, unit string, call *dbus.Call) {
	<-call.Done // godbus ends every pending call when the connection closes
	var path dbus.ObjectPath
	if err := call.Store(&path); err != nil {
		s.jobs.end(ticket)
		return
	}
	st, _ := s.jobs.register(ticket, path)
	if !s.jobs.soleClaim(st, unit, s.bus.Context().Done()) {
		return
	}
	// Bounded by the connection's life: Close cancels it.
	_ = s.mgr.CallWithContext(s.bus.Context(), managerIface+".CancelJob", c.flags(), jobIDFromPath(path)).Store()
}

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
