package sdbus

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

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
