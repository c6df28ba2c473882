package fakebus

import (
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/sdbus-go/sdbus"
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
	// FaultPolkitNoReply has the manager itself refuse the job call with
	// org.freedesktop.DBus.Error.NoReply and dbus-daemon's text "Message
	// recipient disconnected from message bus without replying": what
	// systemd answers when polkitd leaves the bus during the call's
	// authorization check (systemd copies polkit's error into its reply).
	// Nothing is created and no job queued; systemd keeps its name. It
	// applies to StartTransientUnit and the unit job methods.
	FaultPolkitNoReply
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
	// ExitStatus is how a service's main process ended in a scripted
	// failure, as ExecMainCode and ExecMainStatus say it: with
	// UnitResult exit-code (or its default, for JobFailed) the status it
	// exited with, 1 to 255 (ExecMainCode 1, CLD_EXITED); with signal the
	// signal that killed it (ExecMainCode 2, CLD_KILLED), one that ends
	// a process and that systemd counts as a failure (not SIGHUP,
	// SIGINT, SIGTERM or SIGPIPE, which end a service cleanly unless it
	// is Type=oneshot); with core-dump a signal that dumps core (3,
	// CLD_DUMPED). Other unit results take none; 0 gives none. A
	// running main process (a restart's) ends so too, and without
	// ExitStatus as the fake ends it for the unit result (exit 1 for
	// exit-code, SIGKILL for signal, ...: docs/fakebus.md, "Faults").
	ExitStatus int32
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
	s.m.lock()
	defer s.m.unlock()
	return s.m.scriptLocked(pattern, sc)
}

// scriptLocked is Script.
func (m *manager) scriptLocked(pattern string, sc Script) error {
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("fakebus: bad pattern %q: %w", pattern, err)
	}
	if err := sc.checkExit(); err != nil {
		return fmt.Errorf("fakebus: script %q: %w", pattern, err)
	}
	sc.Results = append([]sdbus.JobResult(nil), sc.Results...)
	index := len(m.scripts)
	for _, u := range m.knownUnitsLocked(pattern) {
		if c := ruleConflictLocked(u, index, pattern, sc, 0); c != nil {
			return c
		}
	}
	m.scripts = append(m.scripts, scriptRule{pattern, sc, map[string]int{}})
	return nil
}

// WithScript sets a script as Script does once the Server has started
// (and again at each Reset): Start fails with Script's error. Scripts
// given so apply in order, after WithScriptFile's that came before them.
func WithScript(pattern string, sc Script) Option {
	return func(c *config) {
		sc.Results = append([]sdbus.JobResult(nil), sc.Results...)
		c.scripts = append(c.scripts, PatternScript{pattern, sc})
	}
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

// polkitNoReplyLocked returns the refusal of a job call for unit name
// that a script's FaultPolkitNoReply asks for, nil if none does. It reads
// the rule that applies to the unit without taking a step of its Results.
func (m *manager) polkitNoReplyLocked(name string) error {
	for i := len(m.scripts) - 1; i >= 0; i-- {
		r := &m.scripts[i]
		if ok, _ := path.Match(r.pattern, name); !ok {
			continue
		}
		if r.script.Faults&FaultPolkitNoReply == 0 {
			return nil
		}
		return &callErr{dbusErr + "NoReply", "Message recipient disconnected from message bus without replying"}
	}
	return nil
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

// checkExit checks sc's ExitStatus: it needs a failure (JobFailed or
// JobTimeout) among Result and Results, and fits the unit result of each
// (checkExitStatus).
func (sc Script) checkExit() error {
	if sc.ExitStatus == 0 {
		return nil
	}
	fails := false
	for _, r := range append([]sdbus.JobResult{sc.Result}, sc.Results...) {
		if r != sdbus.JobFailed && r != sdbus.JobTimeout {
			continue
		}
		fails = true
		if err := checkExitStatus(sc.unitResult(r), sc.ExitStatus, false); err != nil {
			if sc.UnitResult == "" && r == sdbus.JobTimeout {
				return fmt.Errorf("%w (the unit result of a timeout job; give one)", err)
			}
			return err
		}
	}
	if !fails {
		return errors.New("an exit status needs a failed or timeout result")
	}
	return nil
}

// unitResult is the unit's Result after a scripted failure r:
// UnitResult, else exit-code (timeout for JobTimeout).
func (sc Script) unitResult(r sdbus.JobResult) string {
	switch {
	case sc.UnitResult != "":
		return sc.UnitResult
	case r == sdbus.JobTimeout:
		return "timeout"
	}
	return "exit-code"
}
