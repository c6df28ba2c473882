package fakebus

// A unit put into a state by the test, without a job
// (Server.SetUnitState): "pretend nginx.service crashed", "pretend it
// runs with main PID 4242". The unit changes state as the model changes
// it when a process ends or a job runs, through setStateLocked,
// failLocked and deactivateLocked, so that subscribers get the same
// signals and the model's rules (slices, BindsTo=, triggers, garbage
// collection) follow.

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/sdbus-go/sdbus"
)

// UnitState is the state Server.SetUnitState puts a unit in.
type UnitState struct {
	// ActiveState is "active", "inactive" or "failed". The states in
	// between (activating, deactivating, reloading) exist only while a
	// job runs: script the job's Delay to hold a unit there.
	ActiveState string
	// SubState is the type's sub-state for ActiveState, "" for the
	// default: for active, a service's "running" (its main process runs)
	// or "exited" (none runs: the default for Type=oneshot and for a
	// command that exits at once), a scope's "running", and for every
	// other type the one its start gives (a socket's "listening", a
	// timer's "waiting", a target's "active", ...); "dead" for inactive,
	// "failed" for failed.
	SubState string
	// Result is the type's Result after a failure: failed only, for
	// services (exit-code, the default, signal, core-dump, timeout,
	// watchdog, oom-kill, ...), scopes (resources, the default, timeout,
	// oom-kill) and timers (resources, the default, start-limit-hit).
	// Active and inactive units have Result success.
	Result string
	// ExitStatus is how a failed service's main process ended, as
	// Script.ExitStatus says (with Result exit-code, signal or
	// core-dump), but SIGHUP, SIGINT, SIGPIPE and SIGTERM are failures of
	// a Type=oneshot service. 0: a running main process ends as the fake
	// ends one for the Result (docs/fakebus.md, "Faults"), and a service
	// that runs none shows no new run.
	ExitStatus int32
	// MainPID is the PID of a running service's main process (active,
	// running), made up as the fake's are: GetUnitByPID finds the service
	// by it, nothing else checks it. 0: the running one's, else one the
	// fake numbers.
	MainPID uint32
	// PIDs are processes placed in an active scope or service, as a
	// scope's PIDs= places them: checked the same (0, 1, and a PID no
	// process has unless WithMadeUpPIDs, are refused), taken from any
	// unit that holds them, watched when they descend from the caller
	// (the test's process; the caller of the control interface), so that
	// a scope whose last one ends ends.
	PIDs []uint32
}

// SetUnitState puts a unit into state st without a job, as if it had got
// there by itself: a service whose main process crashed, exited or runs,
// a scope whose processes are placed. The unit must be loaded or
// loadable (a unit file, an AddUnitFile unit, a slice or a device; one
// loaded for the call is collected after it when nothing keeps it), must
// have loaded (not masked, not-found, bad-setting or a stub: systemd's
// errors, as SetUnitProperties answers them), must not be perpetual
// (-.slice, init.scope, ...) and must have no job (end it first with
// FinishJob, or wait for it).
//
// What follows is what follows such a change in the model: subscribers
// get the unit's PropertiesChanged (ActiveState, SubState, its type's
// Result); a unit that becomes active gets an invocation ID and its
// slices are made active first (its Requires= and Wants= are not
// started: no job is queued); a unit that stops or fails stops the units
// bound to it (BindsTo=) and, for a slice, its members, by stop jobs as
// systemd does, and is collected as any unit is (inactive and not
// transient from a file, failed with CollectMode=inactive-or-failed);
// sockets and timers that trigger it follow it. A service's main process
// starts (running), ends exiting 0 (exited, inactive) or ends as
// ExitStatus says (failed), with ExecMain* and ExecStart='s record as for
// a run; its commands are not run, its conditions not tested, and the
// main process runs until it is stopped or killed, whatever its command
// would do. An active timer is armed as its start arms it. The state
// asked for is checked against the unit's type, the change against the
// unit: an error says what is refused, and nothing changes then.
func (s *Server) SetUnitState(name string, st UnitState) error {
	s.m.lock()
	defer s.m.unlock()
	if err := s.m.setUnitStateLocked(name, st, uint32(os.Getpid())); err != nil {
		return fmt.Errorf("fakebus: SetUnitState %s: %w", name, err)
	}
	return nil
}

// unitResultsOf are the Result values of the types SetUnitState can
// fail, the default first (systemd's service_result_table,
// scope_result_table and timer_result_table, but success); read-only.
var unitResultsOf = map[string][]string{
	"service": {"exit-code", "protocol", "timeout", "signal", "core-dump", "watchdog", "start-limit-hit", "resources", "oom-kill", "exec-condition"},
	"scope":   {"resources", "timeout", "oom-kill"},
	"timer":   {"resources", "start-limit-hit"},
}

// setUnitStateLocked is SetUnitState; caller is the PID whose
// descendants among st.PIDs are watched.
func (m *manager) setUnitStateLocked(name string, st UnitState, caller uint32) error {
	if err := validName(name); err != nil {
		return err
	}
	u, fresh := m.loadForCallLocked(name)
	if u == nil {
		return errNotFound(name)
	}
	if fresh {
		defer m.collectLocked(u) // unless something keeps it
	}
	if err := loadStateErr(u); err != nil {
		return err
	}
	sub, result, err := m.checkStateLocked(u, st)
	if err != nil {
		return err
	}
	// A start's control process (ExecStartPre=, left running by a
	// canceled start job) is killed: its end would start the unit.
	u.control, u.afterPost = nil, nil
	switch st.ActiveState {
	case "active":
		m.putActiveLocked(u, sub, st, caller)
	case "inactive":
		m.putInactiveLocked(u)
	case "failed":
		m.putFailedLocked(u, result, st.ExitStatus)
	}
	return nil
}

// checkStateLocked checks st for u and returns the sub-state and Result
// to give it.
func (m *manager) checkStateLocked(u *unit, st UnitState) (sub, result string, err error) {
	switch {
	case st.ActiveState != "active" && st.ActiveState != "inactive" && st.ActiveState != "failed":
		return "", "", fmt.Errorf("active state %q: want active, inactive or failed (activating, deactivating and reloading last while a job runs: script its Delay)", st.ActiveState)
	case u.perpetual:
		return "", "", fmt.Errorf("unit %s is perpetual: it stays active", u.name)
	case u.job != nil:
		return "", "", fmt.Errorf("unit %s has job %d (%s): end it first (FinishJob) or wait for it", u.name, u.job.id, u.job.typ)
	}
	service := u.kind == "service"
	var subs []string // the sub-states st.ActiveState takes, the default first
	switch st.ActiveState {
	case "active":
		if unitTypes[u.kind].unsupported {
			return "", "", fmt.Errorf("%s units cannot be active: the fake plays a system without them (a start job ends unsupported)", u.kind)
		}
		switch {
		case u.kind == "scope":
			subs = []string{"running"}
		case service && u.isActive() && u.proc == nil, service && !u.isActive() && !m.runsLocked(u):
			subs = []string{"exited", "running"}
		case service:
			subs = []string{"running", "exited"}
		default:
			subs = []string{activeSub(u)}
		}
		if u.kind == "timer" && !u.isActive() {
			// What refuses its start (startUnitLocked).
			if t := m.loadLocked(u.triggers()); t == nil || t.load != "loaded" {
				return "", "", fmt.Errorf("timer %s cannot be active: the unit it triggers, %s, is not loaded", u.name, u.triggers())
			}
			if r := timerStartFails(u); r != "" && m.timerArmsLocked(u) {
				return "", "", fmt.Errorf("timer %s cannot be active: systemd cannot arm it (its start fails, Result %s)", u.name, r)
			}
		}
	case "inactive":
		subs = []string{"dead"}
	case "failed":
		subs = []string{"failed"}
		if unitResultsOf[u.kind] == nil {
			return "", "", fmt.Errorf("a %s cannot be failed in the fake (it models the failures of services, scopes and timers)", u.kind)
		}
	}
	sub = subs[0]
	if st.SubState != "" {
		if !slices.Contains(subs, st.SubState) {
			return "", "", fmt.Errorf("sub-state %q of a %s that is %s: want %s", st.SubState, u.kind, st.ActiveState, quoteList(subs))
		}
		sub = st.SubState
	}
	switch {
	case st.ActiveState != "failed" && st.Result != "" && st.Result != "success":
		return "", "", fmt.Errorf("result %q goes with failed: an %s unit's Result is success", st.Result, st.ActiveState)
	case st.ActiveState == "failed":
		results := unitResultsOf[u.kind]
		result = results[0]
		if st.Result != "" {
			if !slices.Contains(results, st.Result) {
				return "", "", fmt.Errorf("result %q of a failed %s: want %s", st.Result, u.kind, quoteList(results))
			}
			result = st.Result
		}
	}
	if st.ExitStatus != 0 {
		if st.ActiveState != "failed" || !service {
			return "", "", errors.New("an exit status goes with a failed service")
		}
		if err := checkExitStatus(result, st.ExitStatus, serviceType(u) == string(sdbus.ServiceOneshot)); err != nil {
			return "", "", err
		}
	}
	if st.MainPID != 0 {
		if !service || st.ActiveState != "active" || sub != "running" {
			return "", "", errors.New("a main PID goes with a service that is active, running")
		}
		if st.MainPID == 1 {
			return "", "", errors.New("main PID 1 is the manager's")
		}
		for _, o := range m.sortedUnitsLocked() {
			if o != u && o.proc != nil && o.proc.pid == st.MainPID {
				return "", "", fmt.Errorf("main PID %d is %s's", st.MainPID, o.name)
			}
		}
	}
	if len(st.PIDs) > 0 {
		if st.ActiveState != "active" || u.kind != "scope" && !service {
			return "", "", errors.New("PIDs go with an active scope or service")
		}
		for _, pid := range st.PIDs {
			if err := m.checkPIDLocked(pid, ""); err != nil {
				return "", "", err
			}
		}
	}
	return sub, result, nil
}

// runsLocked reports whether service u's main process would keep running
// once started (activateAtStartLocked's rule): not Type=oneshot, and a
// command that does not exit at once.
func (m *manager) runsLocked(u *unit) bool {
	p, ok := m.command(u, 0)
	return ok && serviceType(u) != string(sdbus.ServiceOneshot) && p.runFor != 0
}

// putActiveLocked makes u active with sub-state sub: its slices first, a
// service's main process started (running) or ended (exited), st's PIDs
// placed.
func (m *manager) putActiveLocked(u *unit, sub string, st UnitState, caller uint32) {
	if !u.isActive() {
		if s := u.slice(); s != "" {
			if p := m.loadLocked(s); p != nil {
				m.activateAtStartLocked(p)
			}
		}
		if u.kind == "service" || u.kind == "scope" {
			u.result = "success"
		}
	}
	switch {
	case u.kind == "service" && sub == "running":
		if u.proc == nil {
			m.spawnLocked(u, process{runFor: -1}, nil) // until stopped
		}
		if st.MainPID != 0 {
			u.proc.pid, u.exec.pid = st.MainPID, st.MainPID
		}
	case u.kind == "service" && u.proc != nil:
		// exited: the main process ended, successfully.
		u.dropMain()
		u.mainEnded(cldExited, 0)
	case u.kind == "service" && !u.isActive():
		// exited: its main process ran and exited 0, as a oneshot's.
		if _, ok := u.mainCommand(0); ok {
			m.spawnLocked(u, process{runFor: -1}, nil)
			u.dropMain()
			u.mainEnded(cldExited, 0)
		}
	}
	wasActive := u.isActive()
	m.setStateLocked(u, "active", sub)
	if u.kind == "timer" && !wasActive {
		m.timerWaitLocked(u, true)
	}
	var add []uint32
	for _, pid := range st.PIDs {
		if !zombie(pid) && !slices.Contains(u.pids, pid) && !slices.Contains(add, pid) {
			add = append(add, pid)
		}
	}
	for _, pid := range add {
		m.takePIDLocked(u, pid)
	}
	u.pids = append(u.pids, add...)
	u.populated = u.populated || len(add) > 0
	m.watchPIDsLocked(u, add, caller)
}

// putInactiveLocked makes u inactive: a failed unit as ResetFailedUnit
// does, an active one as if its main process (a service's) exited 0, or
// its processes (a scope's) ended.
func (m *manager) putInactiveLocked(u *unit) {
	switch {
	case u.active == "failed":
		m.resetFailedLocked(u)
	case u.active != "inactive":
		if u.proc != nil {
			u.dropMain()
			u.mainEnded(cldExited, 0)
		}
		if u.kind == "service" || u.kind == "scope" {
			u.result = "success"
		}
		m.deactivateLocked(u)
	}
}

// putFailedLocked makes u fail with Result result: a service's main
// process ends as status says (mainFailedLocked). A unit failed already
// takes the new Result, announced.
func (m *manager) putFailedLocked(u *unit, result string, status int32) {
	m.mainFailedLocked(u, result, status, nil)
	if u.active == "failed" {
		u.result = result
		m.unitStateSignalLocked(u, u.active, u.sub)
		return
	}
	m.failLocked(u, result)
}

// quoteList writes a list of values as `"a", "b" or "c"`.
func quoteList(l []string) string {
	var out string
	for i, s := range l {
		switch {
		case i == 0:
		case i == len(l)-1:
			out += " or "
		default:
			out += ", "
		}
		out += fmt.Sprintf("%q", s)
	}
	return out
}
