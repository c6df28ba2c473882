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
// job. The new job runs as soon as nothing holds it back.
func (m *manager) installLocked(u *unit, typ jobType, mode sdbus.JobMode, requester *busd.Peer) (j *job, merged bool, err error) {
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
	j = &job{id: m.lastJob, typ: typ, unit: u, state: "waiting", waits: map[*job]bool{}, deps: map[*job]bool{}}
	j.script = m.scriptForLocked(u.name)
	j.irreversible = mode == sdbus.ModeReplaceIrreversibly
	m.jobs[j.id] = j
	u.job = j
	m.trackLocked(j, requester)
	m.jobSignalLocked(j, managerPath, managerIface, "JobNew", func() []any { return []any{j.id, j.path(), u.name} })
	m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
		return []any{unitIface, map[string]dbus.Variant{"Job": dbus.MakeVariant(jobRef{j.id, j.path()})}, []string{}}
	})
	if (typ == jobStart || typ == jobRestart) && mode != sdbus.ModeIgnoreDependencies {
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

// maybeRunLocked runs j if nothing it waits for is still queued.
func (m *manager) maybeRunLocked(j *job) {
	if j.finished || j.state != "waiting" {
		return
	}
	for w := range j.waits {
		if !w.finished {
			return
		}
	}
	if j.depFailed {
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
		m.setStateLocked(u, "active", activeSub(u))
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
		m.setStateLocked(u, "activating", "start")
		if serviceType(u) == string(sdbus.ServiceOneshot) {
			m.spawnLocked(u, p, j)
			return
		}
		m.spawnLocked(u, p, nil)
		if u.active == "activating" {
			m.setStateLocked(u, "active", "running")
		}
		m.finishJobLocked(j, "done")
	case "scope":
		m.setStateLocked(u, "active", "running")
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
// during a reload, or until the job's reply has been sent) and runs or
// fails the jobs that waited for it.
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
