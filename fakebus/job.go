package fakebus

import (
	"math"
	"strconv"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

type jobType string

const (
	jobStart        jobType = "start"
	jobStop         jobType = "stop"
	jobReload       jobType = "reload"
	jobRestart      jobType = "restart"
	jobVerifyActive jobType = "verify-active"
	jobNop          jobType = "nop"
)

// job is a queued or running job. It is waiting until the run queue
// comes to it and nothing holds it back (ready, ordering.go), then
// running until it finishes (finishJobLocked: JobRemoved, once). A
// restart job goes from running back to waiting once, as a start job,
// when its stop half ran (runLocked: restarted).
type job struct {
	id     uint32
	typ    jobType
	unit   *unit
	state  string // "waiting" or "running"
	script Script
	rule   Rule // the script rule that matched, if script is from one
	ruled  bool // a script rule matched
	// waits are the jobs this one runs after; deps are those whose
	// failure fails this one (requirement dependencies).
	waits        map[*job]bool
	deps         map[*job]bool
	dependents   []*job
	depFailed    bool
	irreversible bool
	// ignoreOrder: queued with mode ignore-dependencies, or merged with
	// such a job: it neither waits nor is waited for by order
	// (ordering.go).
	ignoreOrder bool

	replied     bool        // the reply naming this job has been queued
	heldRemoved []jobSignal // JobRemoved waiting for the reply
	replyAfter  func()      // FaultJobRemovedBeforeReply: the reply, sent after JobRemoved
	// requesters are the bus clients that asked for the job, each once,
	// until its JobRemoved has gone out (dbus_signals.go); mostly one.
	requesters []*busd.Peer
	caller     *busd.Peer // the connection whose call created the job, if any
	queued     bool       // on the run queue (runqueue.go)
	// started: the start it runs happened (a simple service's main
	// process was spawned); on systemd it ends done then, before
	// whatever that process does next (restart.go: keptByDirectRestart).
	started bool
	// restarted: a restart job whose stop half ran; it is a start job
	// now (typ jobStart), its script's delay spent.
	restarted bool
	// rerun: a running reload a start or reload was merged into; it
	// runs again once its reload ended (reload.go).
	rerun    bool
	finished bool
	result   string
	// unannounced: its JobRemoved is never sent (Reexec.Lose).
	unannounced bool
	// deadline is when it times out (JobTimeoutUSec=); zero: never.
	// stopTimeout stops the timer of that timeout once the job ended, so
	// that a client cannot make ended jobs' timers pile up; nil if none.
	deadline    time.Time
	stopTimeout func()
}

// armJobTimeoutLocked arms the timeout of j, just installed, by its
// unit's JobTimeoutUSec= (job_start_timer at transaction_apply): when it
// passes, the job ends "timeout", whatever it was doing; the unit goes on
// as it was (a start that runs goes on running), and its OnFailure= units
// start (finishJobLocked). systemd's run queue is of idle priority, so a
// timeout due by the time the queue comes to the job ends it first
// (runJobLocked): with 1 µs the job never runs and the unit, never
// started, is collected (measured on 247, 252, 257 and 262 by the
// differential tester: replay "JobTimeoutSec=").
func (m *manager) armJobTimeoutLocked(j *job) {
	usec := j.unit.u64("JobTimeoutUSec", math.MaxUint64)
	if usec == 0 || usec >= uint64(math.MaxInt64/int64(time.Microsecond)) {
		return // infinity, or beyond what a timer can wait
	}
	d := time.Duration(usec) * time.Microsecond
	j.deadline = time.Now().Add(d)
	j.stopTimeout = m.afterLocked(d, func() {
		if !j.finished {
			m.finishJobLocked(j, "timeout")
		}
	})
}

// timedOut reports whether j's timeout has passed.
func (j *job) timedOut() bool {
	return !j.deadline.IsZero() && !time.Now().Before(j.deadline)
}

func (j *job) path() dbus.ObjectPath { return jobPath(j.id) }

// jobSignal is a JobRemoved to emit, possibly later.
type jobSignal struct {
	job    *job
	id     uint32
	path   dbus.ObjectPath
	unit   string
	result string
	faults Fault
}

// maybeRunLocked puts j on the run queue if nothing it waits for is
// still queued, nor a job of a unit its own is ordered with holds it back
// (ordering.go): it runs once the manager is idle (runqueue.go).
func (m *manager) maybeRunLocked(j *job) {
	if j.ready() && !m.heldByOrderLocked(j) {
		m.queueJobLocked(j)
	}
}

// ready reports whether j waits to run and nothing it waits for is still
// queued.
func (j *job) ready() bool {
	if j.finished || j.state != "waiting" {
		return false
	}
	if j.typ == jobRestart {
		// A restart's stop half waits by order alone: what it waits for
		// (a requirement, a requisite's check, the restart that
		// propagated it) holds its start half.
		return true
	}
	for w := range j.waits {
		if !w.finished {
			return false
		}
	}
	return true
}

// runJobLocked runs j from the run queue, or ends it with "dependency"
// when a requirement failed.
func (m *manager) runJobLocked(j *job) {
	if !j.ready() || m.heldByOrderLocked(j) {
		// Ended meanwhile (canceled, replaced), or a job queued since
		// holds it back by order: it runs when that one ends.
		return
	}
	if j.timedOut() {
		m.finishJobLocked(j, "timeout")
		return
	}
	if j.depFailed {
		if j.typ == jobRestart {
			// Its stop half ran before the requirement's (systemd orders
			// stops in reverse): the unit ends stopped.
			m.stopUnitLocked(j.unit)
		}
		m.finishJobLocked(j, "dependency")
		return
	}
	j.state = "running"
	if d := j.script.Delay; d > 0 && !j.restarted {
		m.emitJobStateLocked(j)
		m.afterLocked(d, func() {
			if !j.finished {
				m.runLocked(j)
			}
		})
		return
	}
	m.runLocked(j)
}

func (m *manager) emitJobStateLocked(j *job) {
	if j.typ == jobStart || j.typ == jobRestart {
		if !j.unit.isActive() && j.unit.active != "activating" {
			m.setStateLocked(j.unit, "activating", "start")
		}
	}
}

// runLocked carries out a job whose turn has come.
func (m *manager) runLocked(j *job) {
	u := j.unit
	if r := j.script.Result; r != "" && j.typ != jobStop {
		if c := conflictLocked(u, j.typ, j.rule, r); c != nil && j.ruled {
			c.Job, c.JobType = j.id, string(j.typ)
			m.conflicts = append(m.conflicts, *c)
			m.noteLocked(Note{Kind: NoteConflict, Unit: u.name, Job: j.id, JobType: string(j.typ), Rule: j.rule, Result: r, Conflict: c})
		}
		m.scriptedLocked(j, r)
		return
	}
	switch j.typ {
	case jobNop:
		m.finishJobLocked(j, "done")
	case jobVerifyActive:
		if u.isActive() {
			m.finishJobLocked(j, "done")
		} else {
			m.finishJobLocked(j, "skipped")
		}
	case jobStop:
		m.stopUnitLocked(u)
		if u.stopRuns() {
			// Done once the stop that runs ExecStop= or waits for a
			// scope's processes ended (the unit inactive or failed),
			// unless canceled meanwhile.
			m.whenStoppedLocked(u, func() { m.finishJobLocked(j, "done") })
			return
		}
		m.finishJobLocked(j, "done")
	case jobReload:
		if !u.isActive() {
			m.finishJobLocked(j, "invalid")
			return
		}
		if u.inReload() {
			// Merged into while its reload runs: it runs again once
			// that ended (unit_reload's -EAGAIN; reload.go).
			j.state = "waiting"
			return
		}
		m.reloadServiceLocked(u, j) // reload.go
	case jobRestart:
		if u.restart.due {
			// A service's own restart after its hold-off: its stop half
			// only ends the wait (restart.go), so it starts at once, a
			// start job from then on.
			m.stopUnitLocked(u)
			j.typ, j.restarted = jobStart, true
			m.startUnitLocked(j)
			return
		}
		// The stop half: once the unit stopped, the job is a start job,
		// waiting again (job_finish_and_invalidate patches JOB_RESTART
		// into JOB_START), ordered as a start from now on: the units it
		// held back as a stop may run, and it may wait for them
		// (ordering.go). No JobRemoved: the same job runs on. A stop
		// that runs ExecStop= holds it, running, until it ended.
		startHalf := func() {
			if j.finished {
				return // canceled meanwhile
			}
			j.typ, j.state, j.restarted = jobStart, "waiting", true
			m.requeueOrderedLocked(u)
			m.maybeRunLocked(j)
		}
		m.stopUnitLocked(u)
		if u.inExecStop() {
			m.whenStoppedLocked(u, startHalf)
			return
		}
		startHalf()
	case jobStart:
		if u.isActive() {
			m.finishJobLocked(j, "done")
			return
		}
		if u.inExecStop() {
			// service_start refuses while the stop runs (-EAGAIN): the
			// job waits and runs again once it ended (measured on 252
			// and 262 by the differential tester). systemd also runs it
			// at the stop's state changes when its run queue comes
			// between them, each try counted against the start rate
			// limit before 262: the fake counts the start only (known
			// difference waiting-start-tries).
			j.state = "waiting"
			m.whenStoppedLocked(u, func() { m.maybeRunLocked(j) })
			return
		}
		if m.startWaitsForRestartLocked(u, j) {
			return
		}
		m.startUnitLocked(j)
	}
}

// scriptedLocked ends a job with the result its Script demands.
func (m *manager) scriptedLocked(j *job, result sdbus.JobResult) {
	u := j.unit
	switch result {
	case sdbus.JobDone, sdbus.JobSkipped:
		if !u.isActive() && u.kind == "service" && serviceType(u) != string(sdbus.ServiceOneshot) {
			// A long-running service runs its command, as started.
			if p, ok := m.command(u, 0); ok && p.runFor != 0 {
				m.spawnLocked(u, p, nil)
			}
		}
		if !u.isActive() {
			m.setStateLocked(u, "active", activeSub(u))
		}
		m.finishJobLocked(j, string(result))
	case sdbus.JobFailed, sdbus.JobTimeout:
		ur := j.script.unitResult(result)
		// A service's main process ends with it, as the script's
		// ExitStatus says (service.go: mainFailedLocked).
		m.mainFailedLocked(u, ur, j.script.ExitStatus, j)
		m.failLocked(u, ur)
		m.finishJobLocked(j, string(result))
	default:
		if u.active == "activating" {
			m.setStateLocked(u, "inactive", "dead")
		}
		m.finishJobLocked(j, string(result))
	}
}

// finishJobLocked ends j with result: it announces JobRemoved (held back
// during a reload, or until the job's reply has been sent) and puts the
// jobs that waited for it on the run queue (those a failed requirement
// fails end there with "dependency"). A start job a service's direct
// restart keeps runs on instead (keptByDirectRestart).
func (m *manager) finishJobLocked(j *job, result string) {
	if j.finished || (result == "done" || result == "failed") && keptByDirectRestart(j) {
		return
	}
	j.finished, j.result = true, result
	if j.stopTimeout != nil {
		j.stopTimeout()
	}
	delete(m.jobs, j.id)
	if len(m.jobs) == 0 {
		m.wakeIdleLocked()
	}
	u := j.unit
	if u.job == j {
		u.job = nil
		m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
			return []any{unitIface, map[string]dbus.Variant{"Job": dbus.MakeVariant(jobRef{0, "/"})}, []string{}}
		})
	}
	sig := jobSignal{job: j, id: j.id, path: j.path(), unit: u.name, result: result, faults: j.script.Faults}
	switch {
	case j.replyAfter != nil:
		m.emitJobRemovedLocked(sig)
		j.replyAfter()
		j.replyAfter = nil
	case !j.replied:
		j.heldRemoved = append(j.heldRemoved, sig)
	default:
		m.emitJobRemovedLocked(sig)
	}
	for _, d := range j.dependents {
		if d.deps[j] && result != "done" {
			d.depFailed = true
		}
		m.maybeRunLocked(d)
	}
	m.requeueOrderedLocked(u)
	if result == "dependency" || result == "timeout" {
		// A job that failed for another unit, or timed out, starts the
		// unit's OnFailure= units as a failure of the unit itself does
		// (job_finish_and_invalidate; measured on 247 and 252 by the
		// differential tester: replay "OnFailure= of a job that ends
		// dependency").
		m.onFailureLocked(u)
	}
	if u.active == "activating" && u.sub != "auto-restart" && u.job == nil && u.proc == nil && u.control == nil && (j.typ == jobStart || j.typ == jobRestart) {
		// A start that did not happen (dependency, canceled before it ran).
		m.setStateLocked(u, "inactive", "dead")
	}
	if u.kind != "timer" && u.job == nil {
		// A unit that ended while its start job still ran (the fake's
		// commands end at once): its timers see it now.
		m.timersFollowLocked(u)
	}
	m.collectLocked(u)
}

// repliedLocked records that the reply naming j has been queued and sends
// the JobRemoved held back for it.
func (m *manager) repliedLocked(j *job) {
	j.replied = true
	held := j.heldRemoved
	j.heldRemoved = nil
	for _, s := range held {
		m.emitJobRemovedLocked(s)
	}
}

// emitJobRemovedLocked sends JobRemoved, with the faults the job's script
// asks for, unless the manager is reloading.
func (m *manager) emitJobRemovedLocked(s jobSignal) {
	if m.reloading {
		m.held = append(m.held, s)
		return
	}
	if s.job != nil && s.job.unannounced {
		m.untrackLocked(s.job)
		return
	}
	if s.faults&FaultForgedJobRemoved != 0 {
		m.bus.EmitFrom(forgerName, managerPath, managerIface, "JobRemoved", s.id, s.path, s.unit, "done")
	}
	if s.faults&FaultWrongPathJobRemoved != 0 {
		m.bus.Emit(s.path, managerIface, "JobRemoved", s.id, s.path, s.unit, "done")
	}
	if s.faults&FaultMalformedJobRemoved != 0 {
		m.bus.Emit(managerPath, managerIface, "JobRemoved", s.id, string(s.path), s.unit)
		m.bus.Emit(managerPath, managerIface, "JobRemoved", "done", s.path, s.unit, int32(1))
	}
	n := 1
	if s.faults&FaultDuplicateJobRemoved != 0 {
		n = 2
	}
	for i := 0; i < n; i++ {
		m.jobSignalLocked(s.job, managerPath, managerIface, "JobRemoved", func() []any {
			return []any{s.id, s.path, s.unit, s.result}
		})
	}
	m.untrackLocked(s.job)
	if s.faults&FaultDropAfterJobRemoved != 0 && s.job.caller != nil {
		s.job.caller.CloseAfterFlush()
	}
}

// forgerName is the sender a forged JobRemoved claims: a bus client that
// is not systemd.
const forgerName = ":1.999"

// jobRef is the (uo) value of a unit's Job property.
type jobRef struct {
	ID   uint32
	Path dbus.ObjectPath
}

func (m *manager) cancelJobLocked(id uint32) ([]any, error) {
	j, ok := m.jobs[id]
	if !ok {
		return nil, noSuchJob(id)
	}
	m.finishJobLocked(j, "canceled")
	u := j.unit
	if u.active == "activating" && u.sub != "auto-restart" && u.proc == nil && u.control == nil {
		m.setStateLocked(u, "inactive", "dead")
	}
	m.collectLocked(u)
	return []any{}, nil
}

// jobPath returns a job's object path.
func jobPath(id uint32) dbus.ObjectPath {
	return dbus.ObjectPath(jobPathBase + strconv.FormatUint(uint64(id), 10))
}
