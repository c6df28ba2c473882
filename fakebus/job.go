package fakebus

import (
	"os"
	"path/filepath"
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

// job is a queued or running job.
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

	replied     bool        // the reply naming this job has been queued
	heldRemoved []jobSignal // JobRemoved waiting for the reply
	replyAfter  func()      // FaultJobRemovedBeforeReply: the reply, sent after JobRemoved
	// requesters are the bus clients that asked for the job, until its
	// JobRemoved has gone out (signals.go).
	requesters map[*busd.Peer]bool
	caller     *busd.Peer // the connection whose call created the job, if any
	queued     bool       // on the run queue (runqueue.go)
	finished   bool
	result     string
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

// installLocked queues a job of type typ for u, merging it into u's queued
// job of the same type or replacing a conflicting one as mode says, and
// records requester (nil for a job nobody asked for) as a requester of the
// job. The new job goes on the run queue once nothing holds it back, and
// runs when the manager is idle (runqueue.go), never before the call that
// queued it has replied.
func (m *manager) installLocked(u *unit, typ jobType, mode sdbus.JobMode, requester *busd.Peer) (j *job, merged bool, err error) {
	starts := (typ == jobStart || typ == jobRestart) && mode != sdbus.ModeIgnoreDependencies
	if starts && (u.job == nil || u.job.typ != typ) {
		// systemd builds the whole transaction first: a requirement
		// that cannot be loaded fails the call.
		for _, dep := range []string{"Requires", "BindsTo", "Requisite"} {
			for _, name := range u.list(dep) {
				switch d := m.loadLocked(name); {
				case d == nil:
					return nil, false, errNotFound(name)
				case d.masked:
					return nil, false, &callErr{errPrefix + "UnitMasked", "Unit " + name + " is masked."}
				}
			}
		}
	}
	if old := u.job; old != nil {
		if old.typ == typ {
			m.trackLocked(old, requester)
			return old, true, nil // merged: the caller gets the existing job
		}
		if mode == sdbus.ModeFail || old.irreversible {
			return nil, false, &callErr{errPrefix + "TransactionIsDestructive",
				"Transaction for " + u.name + "/" + string(typ) + " is destructive (" + u.name +
					" has '" + string(old.typ) + "' job queued, but '" + string(typ) + "' is included in transaction)."}
		}
		// systemd cancels the conflicting job at once, before it replies.
		m.finishJobLocked(old, "canceled")
	}
	m.lastJob++
	// A job nobody asked for has no reply to wait for.
	j = &job{id: m.lastJob, typ: typ, unit: u, state: "waiting", waits: map[*job]bool{}, deps: map[*job]bool{}, replied: requester == nil}
	j.script, j.rule, j.ruled = m.scriptForLocked(u.name, typ)
	if j.ruled {
		m.noteLocked(Note{Kind: NoteScript, Unit: u.name, Job: j.id, JobType: string(typ), Rule: j.rule, Result: j.script.Result, Script: j.script})
	}
	j.irreversible = mode == sdbus.ModeReplaceIrreversibly
	m.jobs[j.id] = j
	u.job = j
	m.trackLocked(j, requester)
	m.jobSignalLocked(j, managerPath, managerIface, "JobNew", func() []any { return []any{j.id, j.path(), u.name} })
	m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
		return []any{unitIface, map[string]dbus.Variant{"Job": dbus.MakeVariant(jobRef{j.id, j.path()})}, []string{}}
	})
	if typ == jobStop {
		m.propagateStopLocked(j, mode)
	}
	if typ == jobRestart && mode != sdbus.ModeIgnoreDependencies && mode != sdbus.ModeIgnoreRequirements {
		m.propagateRestartLocked(j, mode)
	}
	if starts {
		m.requisitesLocked(j, mode)
		m.conflictsLocked(j, mode)
		requires, wants := u.requirements()
		for _, name := range requires {
			if d := m.pullLocked(name, mode); d != nil {
				j.waits[d], j.deps[d] = true, true
				d.dependents = append(d.dependents, j)
				if d.finished && d.result != "done" {
					j.depFailed = true
				}
			}
		}
		if mode != sdbus.ModeIgnoreRequirements {
			for _, name := range wants {
				if d := m.pullLocked(name, mode); d != nil {
					j.waits[d] = true
					d.dependents = append(d.dependents, j)
				}
			}
		}
	}
	return j, false, nil
}

// requisitesLocked makes start job j depend on its unit's Requisite=
// units being active: one that is neither active nor starting gets a
// verify-active job, which ends skipped, so j ends with "dependency"
// without starting anything (systemd's JOB_VERIFY_ACTIVE).
func (m *manager) requisitesLocked(j *job, mode sdbus.JobMode) {
	for _, name := range j.unit.list("Requisite") {
		d := m.loadLocked(name)
		switch {
		case d == nil, d == j.unit:
			continue
		case d.job != nil && d.job.typ != jobStop:
			j.waits[d.job], j.deps[d.job] = true, true
			d.job.dependents = append(d.job.dependents, j)
			continue
		case d.isActive() && d.job == nil:
			continue
		case d.job != nil:
			j.depFailed = true // stopping
			continue
		}
		v, _, err := m.installLocked(d, jobVerifyActive, mode, nil)
		if err != nil {
			j.depFailed = true
			continue
		}
		v.replied = true
		j.waits[v], j.deps[v] = true, true
		v.dependents = append(v.dependents, j)
		m.maybeRunLocked(v)
		if v.finished && v.result != "done" {
			j.depFailed = true
		}
	}
}

// conflictsLocked queues stop jobs, which start job j waits for, for the
// units its unit conflicts with (Conflicts=, either way round) that are
// active or about to be.
func (m *manager) conflictsLocked(j *job, mode sdbus.JobMode) {
	u := j.unit
	names := append([]string(nil), u.list("Conflicts")...)
	for _, o := range m.reverseLocked() {
		if o != u && contains(o.list("Conflicts"), u.name) {
			names = append(names, o.name)
		}
	}
	for _, name := range names {
		o := m.units[m.primaryLocked(name)]
		if o == nil || o == u || o.perpetual || !(o.isActive() || o.active == "activating" || (o.job != nil && o.job.typ != jobStop)) {
			continue
		}
		m.queueStopLocked(j, o, mode)
	}
}

// propagateStopLocked queues stop jobs for the units that stop job j's
// unit stops too (Requires=, BindsTo= or PartOf= it: systemd's
// UNIT_ATOM_PROPAGATE_STOP) and are active or about to be; j waits for
// them, so they stop first, as ordering after their requirement would
// have it.
func (m *manager) propagateStopLocked(j *job, mode sdbus.JobMode) {
	u := j.unit
	for _, o := range m.reverseLocked() {
		if o == u || o.perpetual || !propagatesFrom(o, u) {
			continue
		}
		if o.isActive() || o.active == "activating" || (o.job != nil && o.job.typ != jobStop) {
			m.queueStopLocked(j, o, mode)
		}
	}
}

// propagatesFrom reports whether a stop or restart of u propagates to o:
// o has Requires=, BindsTo= or PartOf= u.
func propagatesFrom(o, u *unit) bool {
	return contains(o.list("Requires"), u.name) || contains(o.list("BindsTo"), u.name) || contains(o.list("PartOf"), u.name)
}

// propagateRestartLocked queues try-restart jobs for the units that a
// restart of job j's unit restarts too (Requires=, BindsTo= or PartOf= it:
// systemd's UNIT_ATOM_PROPAGATE_RESTART). As in systemd, a try-restart of
// a unit that is not active (or reloading) is a no-op and queues nothing;
// of an active one it is a restart job, which propagates in turn. The
// restart waits for j (the requirement ordered before it) and, like
// systemd, ends "dependency" when j fails and it is a requirement. A unit
// that already has a job keeps it.
func (m *manager) propagateRestartLocked(j *job, mode sdbus.JobMode) {
	u := j.unit
	for _, o := range m.reverseLocked() {
		if o == u || o.perpetual || o.job != nil || !o.isActive() || !propagatesFrom(o, u) {
			continue
		}
		r, _, err := m.installLocked(o, jobRestart, mode, nil)
		if err != nil {
			continue
		}
		r.replied = true // nobody waits for a reply naming it
		if !r.waits[j] {
			// PartOf= only: ordered after j, not failed by it.
			r.waits[j] = true
			j.dependents = append(j.dependents, r)
		}
	}
}

// queueStopLocked queues a stop job for o that j waits for.
func (m *manager) queueStopLocked(j *job, o *unit, mode sdbus.JobMode) {
	s, merged, err := m.installLocked(o, jobStop, mode, nil)
	if err != nil {
		return
	}
	if !merged {
		s.replied = true
		j.waits[s] = true
		s.dependents = append(s.dependents, j)
		m.maybeRunLocked(s)
	}
}

// pullLocked queues a start job for a dependency that is not active.
func (m *manager) pullLocked(name string, mode sdbus.JobMode) *job {
	d := m.loadLocked(name)
	if d == nil || d.masked {
		return nil
	}
	if d.job == nil && d.isActive() {
		return nil
	}
	if d.job != nil && d.job.typ != jobStop {
		return d.job
	}
	j, _, err := m.installLocked(d, jobStart, mode, nil)
	if err != nil {
		return nil
	}
	j.replied = true // nobody waits for a reply naming it
	m.maybeRunLocked(j)
	return j
}

// maybeRunLocked puts j on the run queue if nothing it waits for is
// still queued: it runs once the manager is idle (runqueue.go).
func (m *manager) maybeRunLocked(j *job) {
	if j.ready() {
		m.queueJobLocked(j)
	}
}

// ready reports whether j waits to run and nothing it waits for is still
// queued.
func (j *job) ready() bool {
	if j.finished || j.state != "waiting" {
		return false
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
	if !j.ready() {
		return // ended meanwhile (canceled, replaced)
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
	if d := j.script.Delay; d > 0 {
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
		m.finishJobLocked(j, "done")
	case jobReload:
		if !u.isActive() {
			m.finishJobLocked(j, "invalid")
			return
		}
		m.setStateLocked(u, "reloading", "reload")
		ok := u.runCommands("ExecReload")
		m.setStateLocked(u, "active", activeSub(u))
		if !ok {
			// systemd keeps the unit running and fails the job.
			m.finishJobLocked(j, "failed")
			return
		}
		m.finishJobLocked(j, "done")
	case jobRestart:
		m.stopUnitLocked(u)
		m.startUnitLocked(j)
	case jobStart:
		if u.isActive() {
			m.finishJobLocked(j, "done")
			return
		}
		m.startUnitLocked(j)
	}
}

func activeSub(u *unit) string {
	switch u.kind {
	case "service", "scope":
		if u.proc == nil && u.kind == "service" {
			return "exited"
		}
		return "running"
	}
	return "active"
}

// startUnitLocked activates u for a start (or restart) job.
func (m *manager) startUnitLocked(j *job) {
	u := j.unit
	if ok, failedAssert := evalConditions(u); !ok {
		u.condition, u.assert = failedAssert, !failedAssert
		if failedAssert {
			m.finishJobLocked(j, "assert")
		} else {
			m.finishJobLocked(j, "done")
		}
		return
	}
	u.condition, u.assert = true, true
	if u.kind == "service" || u.kind == "scope" {
		u.result = "success"
	}
	switch u.kind {
	case "service":
		p, _ := u.command()
		if len(u.commands("ExecStartPre")) > 0 {
			m.setStateLocked(u, "activating", "start-pre")
			if !u.runCommands("ExecStartPre") {
				m.failLocked(u, "exit-code")
				m.finishJobLocked(j, "failed")
				return
			}
		}
		m.setStateLocked(u, "activating", "start")
		if serviceType(u) == string(sdbus.ServiceOneshot) {
			m.spawnLocked(u, p, j)
			return
		}
		m.spawnLocked(u, p, nil)
		if u.active == "activating" && u.proc != nil && !m.startPostLocked(u) {
			m.finishJobLocked(j, "failed")
			return
		}
		if u.active == "activating" {
			m.setStateLocked(u, "active", "running")
		}
		m.finishJobLocked(j, "done")
	case "scope":
		m.setStateLocked(u, "active", "running")
		m.finishJobLocked(j, "done")
	case "socket":
		// The fake opens no socket: it never triggers its service.
		m.setStateLocked(u, "active", "listening")
		m.finishJobLocked(j, "done")
	default:
		m.setStateLocked(u, "active", "active")
		m.finishJobLocked(j, "done")
	}
}

func serviceType(u *unit) string {
	if t := u.str("Type"); t != "" {
		return t
	}
	return string(sdbus.ServiceSimple)
}

// spawnLocked starts u's main process. For a oneshot service startJob is its
// start job, which ends when the process exits.
func (m *manager) spawnLocked(u *unit, p process, startJob *job) {
	proc := p
	proc.started = time.Now()
	proc.pid = 1000 + startJobID(startJob, m)
	u.proc = &proc
	u.exec = execMain{pid: proc.pid, start: proc.started}
	exited := func() {
		if u.proc != &proc || proc.ended {
			return
		}
		proc.ended = true
		u.proc = nil
		u.exec.ended(cldExited, int32(proc.exit))
		// The unit changes state first; its start job ends with it.
		result := "done"
		switch {
		case proc.exit != 0:
			m.failLocked(u, "exit-code")
			result = "failed"
		case startJob != nil && !m.startPostLocked(u):
			result = "failed"
		case u.boolProp("RemainAfterExit", false):
			m.setStateLocked(u, "active", "exited")
		default:
			m.deactivateLocked(u)
		}
		if startJob != nil && !startJob.finished {
			m.finishJobLocked(startJob, result)
		}
	}
	switch {
	case proc.runFor < 0:
	case proc.runFor == 0:
		exited()
	default:
		m.afterLocked(proc.runFor, exited)
	}
}

// startPostLocked runs u's ExecStartPost commands once its main process
// runs (for a oneshot service: once it exited successfully); when one
// fails, the main process is killed and u fails (exit-code). It reports
// whether they succeeded.
func (m *manager) startPostLocked(u *unit) bool {
	if len(u.commands("ExecStartPost")) == 0 {
		return true
	}
	m.setStateLocked(u, "activating", "start-post")
	if u.runCommands("ExecStartPost") {
		return true
	}
	if u.proc != nil {
		u.proc.ended = true
		u.proc = nil
		u.exec.ended(cldKilled, 15)
	}
	m.failLocked(u, "exit-code")
	return false
}

func startJobID(j *job, m *manager) uint32 {
	if j != nil {
		return j.id
	}
	return m.lastJob
}

// stopUnitLocked deactivates u, ending its process. A oneshot service
// stopped while its command still runs ends failed, Result signal: the
// command was killed before it could succeed.
func (m *manager) stopUnitLocked(u *unit) {
	if !u.isActive() && u.active != "activating" && u.active != "deactivating" {
		return // inactive or failed: nothing to stop
	}
	killedStart := u.kind == "service" && u.active == "activating" && u.proc != nil &&
		serviceType(u) == string(sdbus.ServiceOneshot)
	stopFailed := false
	if u.kind == "service" && !killedStart {
		// ExecStop= runs before the remaining processes are killed,
		// ExecStopPost= after; a failure of either fails the unit.
		if u.isActive() && len(u.commands("ExecStop")) > 0 {
			m.setStateLocked(u, "deactivating", "stop")
			stopFailed = !u.runCommands("ExecStop")
		}
		if len(u.commands("ExecStopPost")) > 0 {
			stopFailed = !u.runCommands("ExecStopPost") || stopFailed
		}
	}
	if u.proc != nil {
		u.proc.ended = true
		u.proc = nil
		u.exec.ended(cldKilled, 15) // SIGTERM
	}
	m.setStateLocked(u, "deactivating", "stop")
	if killedStart {
		m.failLocked(u, "signal")
		return
	}
	if stopFailed {
		m.failLocked(u, "exit-code")
		return
	}
	if u.kind == "service" || u.kind == "scope" {
		u.result = "success"
	}
	m.setStateLocked(u, "inactive", "dead")
	u.invocation = nil
	m.stopDependentsLocked(u)
}

// scriptedLocked ends a job with the result its Script demands.
func (m *manager) scriptedLocked(j *job, result sdbus.JobResult) {
	u := j.unit
	switch result {
	case sdbus.JobDone, sdbus.JobSkipped:
		if !u.isActive() && u.kind == "service" && serviceType(u) != string(sdbus.ServiceOneshot) {
			// A long-running service runs its command, as started.
			if p, ok := u.command(); ok && p.runFor != 0 {
				m.spawnLocked(u, p, nil)
			}
		}
		if !u.isActive() {
			m.setStateLocked(u, "active", activeSub(u))
		}
		m.finishJobLocked(j, string(result))
	case sdbus.JobFailed, sdbus.JobTimeout:
		ur := j.script.UnitResult
		if ur == "" {
			ur = "exit-code"
			if result == sdbus.JobTimeout {
				ur = "timeout"
			}
		}
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
// fails end there with "dependency").
func (m *manager) finishJobLocked(j *job, result string) {
	if j.finished {
		return
	}
	j.finished, j.result = true, result
	delete(m.jobs, j.id)
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
	if u.active == "activating" && u.job == nil && u.proc == nil && (j.typ == jobStart || j.typ == jobRestart) {
		// A start that did not happen (dependency, canceled before it ran).
		m.setStateLocked(u, "inactive", "dead")
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

// evalConditions checks a unit's Conditions and Asserts. It returns ok
// false when one fails, and whether it was an assertion.
func evalConditions(u *unit) (ok bool, failedAssert bool) {
	for _, which := range []string{"Asserts", "Conditions"} {
		v, found := u.props[which]
		if !found {
			continue
		}
		var conds []condition
		if dbus.Store([]any{v.Value()}, &conds) != nil {
			continue
		}
		// Conditions of one kind are ANDed, except triggering ones, which
		// are ORed among themselves.
		anyTrigger, triggerOK := false, false
		for _, c := range conds {
			r := c.eval()
			if c.Trigger {
				anyTrigger = true
				triggerOK = triggerOK || r
				continue
			}
			if !r {
				return false, which == "Asserts"
			}
		}
		if anyTrigger && !triggerOK {
			return false, which == "Asserts"
		}
	}
	return true, false
}

// condition is one entry of the Conditions or Asserts property, (sbbs).
type condition struct {
	Type    string
	Trigger bool
	Negate  bool
	Param   string
}

// knownCondition reports whether the fake can evaluate a condition type.
func knownCondition(t string) bool {
	switch t {
	case "PathExists", "PathIsDirectory", "PathIsSymbolicLink", "FileNotEmpty", "DirectoryNotEmpty",
		"PathIsReadWrite", "FileIsExecutable", "PathExistsGlob", "Virtualization", "Host", "KernelCommandLine":
		return true
	}
	return false
}

func (c condition) eval() bool {
	r := false
	switch trimCondPrefix(c.Type) {
	case "PathExists":
		_, err := os.Stat(c.Param)
		r = err == nil
	case "PathIsDirectory":
		fi, err := os.Stat(c.Param)
		r = err == nil && fi.IsDir()
	case "PathIsSymbolicLink":
		fi, err := os.Lstat(c.Param)
		r = err == nil && fi.Mode()&os.ModeSymlink != 0
	case "FileNotEmpty":
		fi, err := os.Stat(c.Param)
		r = err == nil && fi.Mode().IsRegular() && fi.Size() > 0
	case "DirectoryNotEmpty":
		ents, err := os.ReadDir(c.Param)
		r = err == nil && len(ents) > 0
	case "FileIsExecutable":
		fi, err := os.Stat(c.Param)
		r = err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
	case "PathExistsGlob":
		ms, _ := filepath.Glob(c.Param)
		r = len(ms) > 0
	case "PathIsReadWrite":
		r = true
	default:
		r = true
	}
	if c.Negate {
		r = !r
	}
	return r
}

func trimCondPrefix(t string) string {
	for _, p := range []string{"Condition", "Assert"} {
		if len(t) > len(p) && t[:len(p)] == p {
			return t[len(p):]
		}
	}
	return t
}
