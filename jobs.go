package sdbus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

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

	// requested counts the job calls that registered this job path
	// (merged calls share it), and unitAsked is the unit they asked for;
	// both guarded by jobTracker.mu. Reconcile's lookups do not count.
	requested int
	unitAsked string
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
	if s.err == errResultLost {
		return "", &Error{Op: opWait, Unit: j.unit, Message: fmt.Sprintf("job %d ended while systemd re-executed, and no result was sent; the unit's state (Conn.Reconcile) tells how it went", j.id), Err: ErrOutcomeUnknown}
	}
	if s.err != nil {
		return "", &Error{Op: opWait, Unit: j.unit, Message: fmt.Sprintf("job %d may still run (see Conn.Reconcile)", j.id), Err: s.err}
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
// is dropped at once.
//
// Memory is bounded whatever one call does: the tickets in flight are at
// most the Conn's call slots (WithMaxPendingCalls), and at most maxRetired
// finished entries are kept, the oldest dropped first, even while a call
// whose reply never comes keeps its ticket.
type jobTracker struct {
	// mu guards every field below. It is held only for map and slice
	// updates, never across a D-Bus call or a channel send.
	mu sync.Mutex
	// jobs holds pending jobs, and finished ones still claimable by
	// calls in flight.
	jobs    map[dbus.ObjectPath]*jobState
	retired []retiredJob // finished entries in jobs, oldest first
	// inFlight maps each ticket in flight to the unit its call is for;
	// nextTicket is the next ticket to hand out.
	inFlight   map[uint64]string
	nextTicket uint64
	// ticketEnded, made by soleClaim when it must wait, is closed and
	// cleared when a ticket ends; nil while nobody waits, so that ending a
	// ticket allocates nothing.
	ticketEnded chan struct{}
	// gone is set when the connection has ended.
	gone error
}

type retiredJob struct {
	path dbus.ObjectPath
	st   *jobState
	// lastTicket is the newest ticket that was in flight when the job
	// finished; once no ticket up to it is in flight, nobody can claim it.
	lastTicket uint64
}

func newJobTracker() *jobTracker {
	return &jobTracker{jobs: make(map[dbus.ObjectPath]*jobState), inFlight: make(map[uint64]string)}
}

// begin takes a ticket before a job call for unit is sent.
func (t *jobTracker) begin(unit string) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.nextTicket
	t.nextTicket++
	t.inFlight[n] = unit
	return n
}

// end gives a ticket back without registering a job (the call failed).
func (t *jobTracker) end(ticket uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLocked(ticket)
}

func (t *jobTracker) endLocked(ticket uint64) {
	delete(t.inFlight, ticket)
	if t.ticketEnded != nil {
		close(t.ticketEnded)
		t.ticketEnded = nil
	}
	if len(t.retired) == 0 {
		return
	}
	// The oldest ticket still in flight decides which finished entries
	// somebody may still claim. The tickets in flight are few (bounded by
	// the call slots).
	low := t.nextTicket
	for n := range t.inFlight {
		if n < low {
			low = n
		}
	}
	for len(t.retired) > 0 && t.retired[0].lastTicket < low {
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
// first (also after the connection ended: a result that arrived is never
// replaced by ErrDisconnected). requested says whether the call asked
// for the job (a job call) or only looked it up (Reconcile).
func (t *jobTracker) register(ticket uint64, path dbus.ObjectPath, requested bool) *jobState {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.jobs[path]
	if st == nil {
		st = newJobState()
		if t.gone != nil {
			st.err = t.gone
			close(st.done)
		} else {
			t.jobs[path] = st
		}
	}
	if requested {
		st.requested++
		st.unitAsked = t.inFlight[ticket]
	}
	t.endLocked(ticket)
	return st
}

// soleClaim waits until no other call for unit is in flight and reports
// whether st was asked for by one call only and is not finished: then
// nobody else on this Conn asked for the job. It gives up, reporting
// false, when done is closed.
func (t *jobTracker) soleClaim(st *jobState, unit string, done <-chan struct{}) bool {
	for {
		t.mu.Lock()
		busy := t.busyLocked(unit)
		if busy && t.ticketEnded == nil {
			t.ticketEnded = make(chan struct{})
		}
		ended := t.ticketEnded
		sole := st.requested == 1 && !st.finished()
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

// requests returns how many job calls registered st's path.
func (t *jobTracker) requests(st *jobState) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return st.requested
}

// busyLocked reports whether a call for unit is in flight.
func (t *jobTracker) busyLocked(unit string) bool {
	for _, u := range t.inFlight {
		if u == unit {
			return true
		}
	}
	return false
}

// requestedFor reports whether a call on this tracker asked for a job of
// unit that is pending, or such a call is in flight: such a job must not
// be canceled on behalf of a caller who gave up.
func (t *jobTracker) requestedFor(unit string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busyLocked(unit) {
		return true
	}
	for _, st := range t.jobs {
		if st.unitAsked == unit && st.requested > 0 && !st.finished() {
			return true
		}
	}
	return false
}

// complete records a JobRemoved.
func (t *jobTracker) complete(ev jobRemoved) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone != nil {
		return
	}
	inFlight := len(t.inFlight) > 0
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

// fail ends every pending job with err; later registrations of unknown
// paths fail at once. Finished entries stay for the calls in flight that
// may still register their paths; they are dropped as those calls end.
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
			delete(t.jobs, path)
		}
	}
	if len(t.inFlight) == 0 {
		for len(t.retired) > 0 {
			t.dropOldestLocked()
		}
	}
}

// errResultLost marks a job the manager no longer had after it
// re-executed, its JobRemoved never sent (see session.auditJobs).
var errResultLost = errors.New("job ended unannounced during a daemon-reexec")

// pendingPaths returns the paths of the jobs still waiting for their
// results.
func (t *jobTracker) pendingPaths() []dbus.ObjectPath {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []dbus.ObjectPath
	for p, st := range t.jobs {
		if !st.finished() {
			out = append(out, p)
		}
	}
	return out
}

// lose ends the pending jobs of paths with errResultLost: the manager
// no longer has them, and their JobRemoved never came.
func (t *jobTracker) lose(paths []dbus.ObjectPath) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range paths {
		if st := t.jobs[p]; st != nil && !st.finished() {
			st.err = errResultLost
			close(st.done)
			delete(t.jobs, p)
		}
	}
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
