package fakebus

import (
	"fmt"
	"path"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Fault is a set of misbehaviours to inject into the jobs of a Script.
type Fault uint

const (
	// FaultJobRemovedBeforeReply sends the job's JobRemoved before the
	// method reply that names the job (systemd never does; clients must
	// still match them).
	FaultJobRemovedBeforeReply Fault = 1 << iota
	// FaultDuplicateJobRemoved sends the job's JobRemoved twice.
	FaultDuplicateJobRemoved
	// FaultForgedJobRemoved has another bus client send a JobRemoved with
	// the job's path and result "done" just before the real one.
	FaultForgedJobRemoved
	// FaultWrongPathJobRemoved sends, from systemd's name, a JobRemoved
	// with result "done" on the job's object path instead of the
	// manager's, just before the real one.
	FaultWrongPathJobRemoved
	// FaultMalformedJobRemoved sends two JobRemoved signals with wrong
	// bodies (too short; wrong types) just before the real one.
	FaultMalformedJobRemoved
	// FaultDropConnection closes the caller's connection right after the
	// reply: a disconnect while the job runs.
	FaultDropConnection
	// FaultDropAfterJobRemoved closes the caller's connection right after
	// the job's JobRemoved: the caller gets the reply, then JobRemoved,
	// then EOF, in that order and all of it written before the close, as
	// when systemd or the bus goes away just after a job ended.
	FaultDropAfterJobRemoved
	// FaultBusTimeout has the bus answer the job call with NoReply
	// instead of the reply, as dbus-daemon does when its reply_timeout
	// runs out ("Message did not receive a reply (timeout by message
	// bus)"): the job exists and runs, systemd keeps its name. Callers
	// on a bus only.
	FaultBusTimeout
)

// Script scripts the jobs of the units that match a pattern.
type Script struct {
	// Result, when set, is the result of start, restart and reload jobs,
	// whatever the unit would do: JobDone leaves the unit active (a
	// service whose command runs, running it),
	// JobFailed and JobTimeout leave it failed, other results leave it
	// inactive. Stop jobs are not affected.
	Result sdbus.JobResult
	// Results, when set, are the results of the first start, restart and
	// reload jobs of each matching unit, in order, counted per unit from
	// when the script is set (e.g. JobFailed then JobDone: the first start
	// fails, the second succeeds); "" leaves that job unscripted. Once
	// they are used up, Result applies.
	Results []sdbus.JobResult
	// UnitResult is the unit's Result after a scripted failure; the
	// default is "exit-code" ("timeout" for JobTimeout).
	UnitResult string
	// Delay keeps each job queued this long before it runs.
	Delay time.Duration
	// ReplyDelay sends the method reply this late. The job exists from
	// the start and may finish meanwhile; its JobRemoved then follows the
	// reply.
	ReplyDelay time.Duration
	// Faults are misbehaviours to inject.
	Faults Fault
}

type scriptRule struct {
	pattern string
	script  Script
	// used counts the jobs of each unit that took one of script.Results.
	used map[string]int
}

// Script applies sc to the jobs of every unit whose name matches pattern
// (path.Match syntax, e.g. "run-*.scope"), from the next job on. Later
// scripts take precedence over earlier ones for the same unit.
//
// A result of sc that contradicts what a matching unit's commands give
// (see ScriptConflict: "done" for a service whose ExecStart= is /bin/false,
// "failed" for one whose commands are all /bin/true) is refused with a
// *ScriptConflict when the fake can see the unit now: a loaded unit, a
// unit of AddUnitFile or WithUnitFile, a unit file in the unit
// directories. Nothing is installed then. For a unit it cannot see yet (a
// transient unit, a unit file added later) the check runs as each job
// does: the script wins, and the conflict is recorded (ScriptConflicts;
// New fails the test with it) and reported to WithNotes.
func (s *Server) Script(pattern string, sc Script) error {
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("fakebus: bad pattern %q: %w", pattern, err)
	}
	s.m.lock()
	defer s.m.unlock()
	sc.Results = append([]sdbus.JobResult(nil), sc.Results...)
	index := len(s.m.scripts)
	for _, u := range s.m.knownUnitsLocked(pattern) {
		if c := ruleConflictLocked(u, index, pattern, sc, 0); c != nil {
			return c
		}
	}
	s.m.scripts = append(s.m.scripts, scriptRule{pattern, sc, map[string]int{}})
	return nil
}

// ClearScripts removes every script.
func (s *Server) ClearScripts() {
	s.m.lock()
	defer s.m.unlock()
	s.m.scripts = nil
}

// ScriptConflicts returns the conflicts between script rules and units'
// commands found as jobs ran, in order (see Script).
func (s *Server) ScriptConflicts() []ScriptConflict {
	s.m.lock()
	defer s.m.unlock()
	return append([]ScriptConflict(nil), s.m.conflicts...)
}

// scriptForLocked returns the script of the rule for a new job of type typ
// of unit name, with Result the one for this job, the rule's step, and
// whether a rule matched.
func (m *manager) scriptForLocked(name string, typ jobType) (Script, Rule, bool) {
	for i := len(m.scripts) - 1; i >= 0; i-- {
		r := &m.scripts[i]
		if ok, _ := path.Match(r.pattern, name); !ok {
			continue
		}
		sc := r.script
		rule := Rule{Index: i, Pattern: r.pattern}
		sequenced := typ == jobStart || typ == jobRestart || typ == jobReload
		switch n := r.used[name]; {
		case typ == jobStop:
			sc.Result = "" // stop jobs are not affected
		case sequenced && n < len(sc.Results):
			r.used[name] = n + 1
			sc.Result = sc.Results[n]
			rule.Step = fmt.Sprintf("results[%d]", n)
		default:
			rule.Step = "result"
		}
		if sc.Result == "" {
			rule.Step = ""
		}
		sc.Results = nil
		return sc, rule, true
	}
	return Script{}, Rule{}, false
}

// UnitFile describes a unit the fake can load by name, as if a unit file
// existed: its properties use the same names and types as
// StartTransientUnit's.
type UnitFile struct {
	Name       string
	Properties []sdbus.Property
	// Aliases are the unit's other names, as Alias= in its [Install]
	// section or symlinks to its file give them: once the unit is loaded
	// (by any name) every name finds it, but it is announced, listed and
	// signalled under Name only (see the package documentation).
	Aliases []string
	// Masked makes the unit masked: starting it fails with UnitMasked.
	Masked bool
	// Active makes the unit active from the start, as a booted system's
	// units are (systemd-journald.service, say): it is loaded and started
	// when the Server starts (WithUnitFile; AddUnitFile ignores it), with
	// no job, its slices with it; a service runs its command.
	Active bool
}

// AddUnitFile makes a unit loadable by name (see UnitFile).
func (s *Server) AddUnitFile(f UnitFile) error {
	s.m.lock()
	defer s.m.unlock()
	return s.m.addFileLocked(f)
}

// SetVersion changes the Manager.Version string. The behaviour (which
// properties and methods exist) stays that of the version the Server
// started with.
func (s *Server) SetVersion(v string) error {
	if _, err := sdbus.ParseVersion(v); err != nil {
		return fmt.Errorf("fakebus: %w", err)
	}
	s.m.lock()
	defer s.m.unlock()
	s.m.version = v
	return nil
}

// SetReloadDuration makes each daemon-reload last d: JobRemoved signals
// of jobs that end meanwhile are held back until Reloading(false).
func (s *Server) SetReloadDuration(d time.Duration) {
	s.m.lock()
	defer s.m.unlock()
	s.m.reloadFor = d
}

// UnitInfo is the fake's view of a loaded unit, for assertions in tests.
type UnitInfo struct {
	Name        string
	LoadState   string
	ActiveState string
	SubState    string
	Result      string
	Transient   bool
	JobID       uint32
	PIDs        []uint32
}

// Unit returns the state of a loaded unit, and false when no unit of that
// name is loaded.
func (s *Server) Unit(name string) (UnitInfo, bool) {
	s.m.lock()
	defer s.m.unlock()
	u := s.m.unitLocked(name)
	if u == nil {
		return UnitInfo{}, false
	}
	info := UnitInfo{Name: u.name, LoadState: u.load, ActiveState: u.active, SubState: u.sub,
		Result: u.result, Transient: u.transient, PIDs: append([]uint32(nil), u.pids...)}
	if u.job != nil {
		info.JobID = u.job.id
	}
	return info, true
}

// Jobs returns the number of queued or running jobs.
func (s *Server) Jobs() int {
	s.m.lock()
	defer s.m.unlock()
	return len(s.m.jobs)
}

// FinishJob ends a queued or running job now with the given result, as
// if it had run that way, and applies the result to its unit as a Script
// result does. It returns false when no such job exists.
func (s *Server) FinishJob(id uint32, result sdbus.JobResult) bool {
	s.m.lock()
	defer s.m.unlock()
	j, ok := s.m.jobs[id]
	if !ok {
		return false
	}
	s.m.scriptedLocked(j, result)
	return true
}

// EmitJobRemoved sends a JobRemoved signal from systemd's name with any
// body, for fault tests: values of the wrong types make a malformed
// signal.
func (s *Server) EmitJobRemoved(body ...any) {
	s.m.lock()
	defer s.m.unlock()
	s.bus.Emit(managerPath, managerIface, "JobRemoved", body...)
}

// EmitJobRemovedFrom sends a JobRemoved signal that claims sender, a bus
// name other than systemd's, as a foreign bus client could.
func (s *Server) EmitJobRemovedFrom(sender string, id uint32, job dbus.ObjectPath, unit string, result string) {
	s.m.lock()
	defer s.m.unlock()
	s.bus.EmitFrom(sender, managerPath, managerIface, "JobRemoved", id, job, unit, result)
}

// Event is one message the fake bus received from (In) or sent to a
// client.
type Event struct {
	In     bool   // received from the client
	Client string // the client's unique name, "" on a peer-to-peer connection
	Msg    *dbus.Message
	Serial uint32
}

func traceEvent(e busd.Event) Event {
	return Event{In: e.Dir == busd.In, Client: e.Peer.UniqueName(), Msg: e.Msg, Serial: e.Serial}
}
