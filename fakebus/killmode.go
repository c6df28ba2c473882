package fakebus

// What a stop kills (systemd's unit_kill_context, src/core/unit.c):
// KillMode=, and the processes a stop leaves running in a service's
// control group.

import (
	"slices"
	"strings"
	"time"
)

// leftover is a process a stop left running in its service's control
// group: not the main or control process any more (MainPID 0, no
// SIGCHLD of it changes the unit), but listed by GetUnitProcesses, found
// by GetUnitByPID, and keeping the unit loaded until it ends.
type leftover struct {
	pid     uint32
	cmdline string
	// stop stops the timer of its end; nil for a process that runs until
	// it is killed.
	stop func()
}

// killsOnStop is what a stop of a service signals, by its KillMode=
// (unit_kill_context): control-group and mixed end every process of its
// control group (mixed with SIGKILL after the main process's SIGTERM),
// process the main and control processes only, none nothing.
func killsOnStop(u *unit) (mainAndControl, rest bool) {
	switch u.str("KillMode") {
	case "none":
		return false, false
	case "process":
		return true, false
	}
	return true, true
}

// killForStopLocked ends u's processes as the signals of a stop do
// (service_enter_signal, scope_enter_signal): its control process, its
// main process (killed, SIGTERM), and the processes earlier stops left,
// as its KillMode= says. What it does not signal runs on as a leftover
// (measured on 247, 252, 257 and 262 by the differential tester: a stop
// of a KillMode=none service leaves its program running, the unit loaded,
// inactive, until the program ends). A scope has neither main nor control
// process: with KillMode=none or process its processes stay in it, and
// the scope, inactive, stays loaded until they end or leave (measured
// likewise); control-group and mixed end them, which the fake, signalling
// no process, plays by forgetting them (known difference
// kill-scope-processes).
func (m *manager) killForStopLocked(u *unit) {
	kills, rest := killsOnStop(u)
	if u.kind == "scope" {
		if rest {
			m.forgetScopeProcessesLocked(u)
		}
		u.leftPIDs = len(u.pids) > 0
		return
	}
	u.afterPost = nil // a main process's end that waited for ExecStartPost=: the stop's now
	if c := u.dropControl(); c != nil {
		switch {
		case kills:
			c.killLocked(u)
		case c.pid != 0 && c.running < len(c.cmds):
			m.leaveLocked(u, c.pid, strings.Join(c.cmds[c.running].Argv, " "), c.ends)
		}
	}
	if p := u.dropMain(); p != nil {
		switch {
		case kills:
			u.mainEnded(cldKilled, killSignal(u))
		case p.pid != 0:
			var ends time.Time
			if p.runFor >= 0 {
				ends = p.started.Add(p.runFor)
			}
			m.leaveLocked(u, p.pid, strings.Join(p.argv, " "), ends)
		}
	}
	if rest {
		m.endLeftLocked(u)
	}
}

// stopKillsNothing reports whether a stop of u signals no process, so
// that its processes do not hold its stop.
func stopKillsNothing(u *unit) bool {
	kills, _ := killsOnStop(u)
	return u.kind == "service" && !kills
}

// leaveLocked records pid (running cmdline) as a leftover of u, which
// ends by itself at ends (zero: never).
func (m *manager) leaveLocked(u *unit, pid uint32, cmdline string, ends time.Time) {
	l := &leftover{pid: pid, cmdline: cmdline}
	u.left = append(u.left, l)
	if !ends.IsZero() {
		l.stop = m.afterLocked(time.Until(ends), func() {
			if !u.gone && slices.Contains(u.left, l) {
				m.leftEndedLocked(u, l)
			}
		})
	}
}

// leftEndedLocked records that u's leftover l ended: the unit, inactive
// and with its control group empty now, may be collected
// (unit_may_gc: a populated control group keeps a unit).
func (m *manager) leftEndedLocked(u *unit, l *leftover) {
	if l.stop != nil {
		l.stop()
	}
	u.left = slices.DeleteFunc(u.left, func(o *leftover) bool { return o == l })
	if len(u.left) == 0 {
		m.collectLocked(u)
	}
}

// endLeftLocked ends every leftover of u (killed by a stop or KillUnit),
// and the processes a stop left in a scope.
func (m *manager) endLeftLocked(u *unit) {
	for len(u.left) > 0 {
		m.leftEndedLocked(u, u.left[0])
	}
	if u.leftPIDs {
		m.forgetScopeProcessesLocked(u)
		m.collectLocked(u)
	}
}

// forgetScopeProcessesLocked drops scope u's processes, which systemd's
// signal ended: the fake signals none and watches them no more.
func (m *manager) forgetScopeProcessesLocked(u *unit) {
	m.unwatchLocked(u)
	u.pids, u.pidSub, u.leftPIDs = nil, nil, false
}

// holdsProcesses reports whether u's control group holds processes
// that keep it loaded, inactive as it is (unit_may_gc): what its stops
// left running. (A scope's PIDs are in its control group only once it
// started: those of a scope refused or never started keep nothing.)
func holdsProcesses(u *unit) bool {
	return len(u.left) > 0 || u.leftPIDs
}
