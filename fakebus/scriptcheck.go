package fakebus

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// A script rule's result can contradict what the fake works out from a
// service's commands: a start that /bin/false fails scripted "done", a
// start that /bin/true completes scripted "failed". The fake checks each
// rule against the units it matches (see Server.Script) and says so.

// Rule names one step of a script rule: the rule, and which of its results
// decides the job.
type Rule struct {
	// Index is the rule's position among the scripts set since the last
	// ClearScripts, from 0 (fakesystemd's scripts[Index]).
	Index   int
	Pattern string
	// Step is "result" for Script.Result, "results[N]" for Script.Results[N],
	// or "" when the rule gives the job no result (a stop job, a "" step, no
	// Result): only its delays and faults apply.
	Step string
}

// Outcome is what a unit's commands make of a job, as the fake runs them.
type Outcome string

const (
	// OutcomeSucceeds: every command the job runs exits at once with a
	// status the fake knows, and the job succeeds.
	OutcomeSucceeds Outcome = "succeeds"
	// OutcomeFails: a command the job runs exits at once with a non-zero
	// status the fake knows, failing the job.
	OutcomeFails Outcome = "fails"
	// OutcomeUnitFails: the job is done, but the service's main process
	// exits at once with a non-zero status, so the unit fails right after
	// (a service that is not Type=oneshot).
	OutcomeUnitFails Outcome = "unit-fails"
)

// ScriptConflict is a script rule whose result for a unit contradicts what
// the unit's commands give: Server.Script refuses a rule with such a
// conflict for a unit it can see then (a unit file, a loaded unit); a
// conflict found when a job runs (a transient unit, a unit file added or
// changed later) lets the script win and is reported (ScriptConflicts,
// WithNotes).
type ScriptConflict struct {
	Unit string
	Rule Rule
	// Job and JobType are the job the rule decided, when found as it ran
	// (0 and "" for a rule Server.Script refused).
	Job     uint32
	JobType string
	// Result is the rule's result for the job.
	Result sdbus.JobResult
	// Outcome is what the unit's commands give instead, Command the one
	// that decides it, as in a unit file ("ExecStart=/bin/false"), and
	// ServiceType the unit's Type.
	Outcome     Outcome
	Command     string
	ServiceType string
}

func (c *ScriptConflict) Error() string {
	return "fakebus: " + c.Text()
}

// Text describes the conflict in one line, without the "fakebus: " prefix.
func (c *ScriptConflict) Text() string {
	return fmt.Sprintf("script rule %d (pattern %q, %s %s) contradicts unit %s: %s; give the unit a command the fake does not interpret, or drop the rule",
		c.Rule.Index, c.Rule.Pattern, c.Rule.Step, c.Result, c.Unit, c.Contradiction())
}

// Contradiction says what the unit's commands give, e.g. "with
// ExecStart=/bin/true (Type=oneshot) its start job succeeds".
func (c *ScriptConflict) Contradiction() string {
	job := "its " + c.jobType() + " job"
	if c.Job != 0 {
		job = fmt.Sprintf("its %s job %d", c.JobType, c.Job)
	}
	var what string
	switch c.Outcome {
	case OutcomeSucceeds:
		what = job + " succeeds"
	case OutcomeFails:
		what = job + " fails"
	case OutcomeUnitFails:
		what = job + " is done, then the unit fails"
	}
	return fmt.Sprintf("with %s (Type=%s) %s", c.Command, c.ServiceType, what)
}

func (c *ScriptConflict) jobType() string {
	if c.JobType != "" {
		return c.JobType
	}
	return "start"
}

// derivation is what a unit's commands make of a job: outcome "" when
// they do not decide it (a command the fake does not know, or one that
// keeps running: the script decides).
type derivation struct {
	outcome Outcome
	command string // the deciding command, "ExecStart=/bin/false"
}

// exitsAtOnce reports the exit status of a command that exits at once
// with a status the fake knows: /bin/true, /bin/false, sh -c 'exit N',
// sleep 0. Commands it does not know, and commands that run for a while,
// are not decided by the fake alone.
func exitsAtOnce(argv []string) (status int, ok bool) {
	p, known := interpretKnown(argv)
	if !known || p.runFor != 0 {
		return 0, false
	}
	return p.exit, true
}

// deriveLocked works out what u's commands make of a job of type typ,
// from the commands alone (conditions and dependencies aside).
func deriveLocked(u *unit, typ jobType) derivation {
	if u.kind != "service" {
		return derivation{}
	}
	switch typ {
	case jobStart, jobRestart:
		return deriveStart(u)
	case jobReload:
		return deriveCommands(u, "ExecReload", derivation{outcome: OutcomeSucceeds})
	}
	return derivation{}
}

// deriveCommands runs an Exec* list of u as the fake does (each at once,
// in order, stopping at the first failure without "-"): a command that
// exits non-zero at once fails the job, whatever the commands before it
// do; a command the fake does not decide makes the outcome undecided,
// unless a later one fails. ok is the outcome when all succeed.
func deriveCommands(u *unit, name string, ok derivation) derivation {
	decided := true
	for _, c := range u.commands(name) {
		if c.IgnoreFailure {
			continue
		}
		st, known := exitsAtOnce(c.Argv)
		switch {
		case !known:
			decided = false
		case st != 0:
			return derivation{OutcomeFails, commandLine(name, c)}
		}
	}
	if !decided {
		return derivation{}
	}
	return ok
}

func deriveStart(u *unit) derivation {
	v, found := u.props["ExecStart"]
	var cmds []execCommand
	if !found || dbus.Store([]any{v.Value()}, &cmds) != nil || len(cmds) == 0 {
		return deriveCommands(u, "ExecStartPre", derivation{})
	}
	main := cmds[0]
	st, known := exitsAtOnce(main.Argv)
	mainLine := commandLine("ExecStart", main)
	var after derivation // the outcome once ExecStartPre succeeded
	switch {
	case !known:
	case st != 0 && serviceType(u) == string(sdbus.ServiceOneshot):
		after = derivation{OutcomeFails, mainLine}
	case st != 0:
		// The job is done as the process starts; it exits at once and
		// the unit fails. A failing ExecStartPre fails the unit too.
		if pre := deriveCommands(u, "ExecStartPre", derivation{}); pre.outcome == OutcomeFails {
			return pre
		}
		return derivation{OutcomeUnitFails, mainLine}
	case serviceType(u) == string(sdbus.ServiceOneshot):
		// ExecStartPost runs once the command exited successfully.
		after = deriveCommands(u, "ExecStartPost", derivation{OutcomeSucceeds, mainLine})
	default:
		// The main process is gone before ExecStartPost would run.
		after = derivation{OutcomeSucceeds, mainLine}
	}
	pre := deriveCommands(u, "ExecStartPre", after)
	if pre.outcome == "" && after.outcome == OutcomeFails {
		// Whether ExecStartPre succeeds or not, the start fails.
		return after
	}
	return pre
}

// commandLine writes an Exec* command as a unit file line.
func commandLine(name string, c execCommand) string {
	var b strings.Builder
	b.WriteString(name + "=")
	if c.IgnoreFailure {
		b.WriteByte('-')
	}
	for i, a := range c.Argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\") {
			a = strconv.Quote(a)
		}
		b.WriteString(a)
	}
	return b.String()
}

// contradicts reports whether result r contradicts outcome o: a success
// (done, or skipped, which leaves the unit active as done does) where the
// commands fail the job or the unit, a failure (failed, timeout) where
// they succeed. Other results (canceled, dependency, ...) describe what
// happened around the job, not its commands, and never contradict them.
func contradicts(r sdbus.JobResult, o Outcome) bool {
	switch r {
	case sdbus.JobDone, sdbus.JobSkipped:
		return o == OutcomeFails || o == OutcomeUnitFails
	case sdbus.JobFailed, sdbus.JobTimeout:
		return o == OutcomeSucceeds
	}
	return false
}

// conflictLocked checks one step of rule r, result res, for a job of type
// typ of unit u, and returns the conflict, if any.
func conflictLocked(u *unit, typ jobType, r Rule, res sdbus.JobResult) *ScriptConflict {
	if res == "" {
		return nil
	}
	d := deriveLocked(u, typ)
	if d.outcome == "" || !contradicts(res, d.outcome) {
		return nil
	}
	return &ScriptConflict{Unit: u.name, Rule: r, Result: res, Outcome: d.outcome, Command: d.command, ServiceType: serviceType(u)}
}

// scriptStep is one result of a script: Results[N] or Result.
type scriptStep struct {
	step string // "results[N]" or "result"
	res  sdbus.JobResult
}

// steps returns the steps of a script still to come for a unit that has
// used n of its Results, Result last.
func (sc Script) steps(n int) []scriptStep {
	var out []scriptStep
	for i := n; i < len(sc.Results); i++ {
		out = append(out, scriptStep{fmt.Sprintf("results[%d]", i), sc.Results[i]})
	}
	return append(out, scriptStep{"result", sc.Result})
}

// ruleConflictLocked checks a rule against a unit it will decide the jobs
// of: a step conflicts when it contradicts what a start job of the unit
// gives and, for a unit that can reload, what a reload job gives too (a
// step is used by whichever of the unit's start, restart and reload jobs
// comes). It returns the first conflict.
func ruleConflictLocked(u *unit, index int, pattern string, sc Script, used int) *ScriptConflict {
	canReload := len(u.commands("ExecReload")) > 0
	for _, st := range sc.steps(used) {
		r := Rule{Index: index, Pattern: pattern, Step: st.step}
		c := conflictLocked(u, jobStart, r, st.res)
		if c == nil {
			continue
		}
		if canReload && conflictLocked(u, jobReload, r, st.res) == nil {
			continue
		}
		return c
	}
	return nil
}

// fileConflictLocked checks the script rule that decides the jobs of unit
// name, if any, against the unit an AddUnitFile with props would make.
func (m *manager) fileConflictLocked(name string, props []sdbus.Property) *ScriptConflict {
	for i := len(m.scripts) - 1; i >= 0; i-- {
		r := &m.scripts[i]
		if ok, _ := path.Match(r.pattern, name); !ok {
			continue
		}
		u := &unit{name: name, kind: name[strings.LastIndexByte(name, '.')+1:], props: map[string]dbus.Variant{}}
		for _, p := range props {
			u.props[p.Name] = p.Value
		}
		return ruleConflictLocked(u, i, r.pattern, r.script, r.used[name])
	}
	return nil
}

// knownUnitsLocked returns, sorted, the units the fake can see the
// configuration of now, by primary name: loaded units, the units of
// AddUnitFile and WithUnitFile, and the unit files in the unit
// directories. Units made later (transient ones) are checked as their
// jobs run.
func (m *manager) knownUnitsLocked(pattern string) []*unit {
	names := map[string]bool{}
	for n := range m.units {
		names[n] = true
	}
	for n := range m.files {
		names[n] = true
	}
	for _, dir := range []string{m.dirs.persistent, m.dirs.runtime} {
		for _, n := range unitFileNames(dir) {
			names[n] = true
		}
	}
	var sorted []string
	for n := range names {
		if ok, _ := path.Match(pattern, n); ok {
			sorted = append(sorted, n)
		}
	}
	sort.Strings(sorted)
	var out []*unit
	for _, n := range sorted {
		if u := m.units[n]; u != nil {
			if u.load == "loaded" {
				out = append(out, u) // not masked, not bad-setting
			}
			continue
		}
		src, ok := m.sourceLocked(n)
		if !ok || src.name != n || src.masked || src.bad {
			continue // an alias (checked by its name), masked or unloadable
		}
		// A unit as it would load, without loading it.
		u := &unit{name: n, kind: n[strings.LastIndexByte(n, '.')+1:], props: map[string]dbus.Variant{}}
		for _, p := range src.props {
			if nv, err := normalize(p.Value); err == nil {
				u.props[p.Name] = nv
			}
		}
		for _, p := range m.control[n] {
			u.props[p.Name] = p.Value
		}
		out = append(out, u)
	}
	return out
}

// unitFileNames lists the names of the entries of a unit directory that
// are unit names (files and symlinks alike).
func unitFileNames(dir string) []string {
	if dir == "" {
		return nil
	}
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if !e.IsDir() && sdbus.ValidateUnitName(e.Name()) == nil {
			out = append(out, e.Name())
		}
	}
	return out
}
