package fakebus

// Signals to a unit's processes (systemd's src/core/unit.c unit_kill and
// dbus-kill.c): KillUnit, QueueSignalUnit, KillUnitSubgroup and signal
// names.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// killLocked is KillUnit and, with queue, QueueSignalUnit (whose signal
// must be a realtime one, as sigqueue's value says), with systemd's
// checks in systemd's order (bus_unit_method_kill, unit_kill).
func (m *manager) killLocked(c *busd.Call, name, whom string, sig int32, queue bool) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	whom, err := m.killWhom(whom)
	if err != nil {
		return nil, err
	}
	if sig <= 0 || sig >= 65 {
		return nil, errInvalidArgs("Signal number out of range.")
	}
	if queue && (sig < sigRTMin || sig > sigRTMax) {
		return nil, errInvalidArgs("Value parameter only accepted for realtime signals (SIGRTMIN…SIGRTMAX), refusing for signal SIG%s.", signalName(sig))
	}
	// polkit after whom and the signal (measured on 247-262).
	if err := m.authorizeLocked(c); err != nil {
		return nil, err
	}
	switch {
	case !killKinds[u.kind]:
		// A type without processes (a timer, a target): measured on
		// 247-262 by the differential tester.
		if sdversions.Behaves(m.release, sdversions.KillUnsupportedExplained) {
			return nil, &callErr{dbusErr + "NotSupported", "Unit type does not support process killing."}
		}
		return nil, &callErr{dbusErr + "NotSupported", "Operation not supported"}
	case strings.HasPrefix(whom, "main") && u.kind != "service":
		// A scope's processes are none of them main (measured on
		// 247-262 by the differential tester).
		return nil, &callErr{errPrefix + "NoSuchProcess", u.kind + " units have no main processes"}
	case strings.HasPrefix(whom, "control") && !controlKinds[u.kind]:
		return nil, &callErr{errPrefix + "NoSuchProcess", u.kind + " units have no control processes"}
	}
	return m.signalProcessesLocked(u, whom, sig)
}

// killKinds are the unit types KillUnit signals the processes of.
var killKinds = map[string]bool{"service": true, "scope": true, "socket": true, "mount": true, "swap": true, "slice": true}

// controlKinds are the unit types that have control processes (their
// Exec*= commands other than the main one).
var controlKinds = map[string]bool{"service": true, "socket": true, "mount": true, "swap": true}

// killWhom checks a kill method's whom argument: "" is all, "cgroup"
// and "cgroup-fail" are all and all-fail where the release knows them.
func (m *manager) killWhom(whom string) (string, error) {
	switch whom {
	case "":
		return "all", nil
	case "main", "control", "all", "main-fail", "control-fail", "all-fail":
		return whom, nil
	case "cgroup", "cgroup-fail":
		if sdversions.Behaves(m.release, sdversions.KillCgroupWhom) {
			return strings.Replace(whom, "cgroup", "all", 1), nil
		}
	}
	if sdversions.Behaves(m.release, sdversions.KillWhomMessage) {
		return "", errInvalidArgs("Invalid whom argument: %s", whom)
	}
	return "", errInvalidArgs("Invalid who argument %s", whom)
}

// sigRTMin and sigRTMax are the realtime signals as systemd (glibc) sees
// them: the C library keeps 32 and 33 for itself.
const sigRTMin, sigRTMax = 34, 64

// signalNames are the Linux signals below 32 by number, as
// signal_to_string names them (without "SIG").
var signalNames = [...]string{1: "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
	"USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
	"VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"}

// signalName is systemd's signal_to_string of a signal that is not a
// realtime one: its name, or its number.
func signalName(sig int32) string {
	if sig > 0 && int(sig) < len(signalNames) {
		return signalNames[sig]
	}
	return strconv.Itoa(int(sig))
}

// parseSignal parses a signal as config_parse_signal does
// (signal_from_string): a number from 1 to 64 (0 is refused), or a name,
// with or without "SIG": one of signalNames, RTMIN, RTMIN+n, RTMAX or
// RTMAX-n (n up to 30).
func parseSignal(s string) (int32, bool) {
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return int32(n), n >= 1 && n <= sigRTMax
	}
	name := strings.TrimPrefix(s, "SIG")
	for sig, n := range signalNames {
		if n != "" && n == name {
			return int32(sig), true
		}
	}
	// RTMIN+n and RTMAX-n: the number read with its sign, as safe_atoi.
	rt := func(base int32, rest string, sep byte, lo, hi int64) (int32, bool) {
		if rest == "" {
			return base, true
		}
		n, err := strconv.ParseInt(rest, 10, 32)
		if rest[0] != sep || err != nil || n < lo || n > hi {
			return 0, false
		}
		return base + int32(n), true
	}
	if rest, ok := strings.CutPrefix(name, "RTMIN"); ok {
		return rt(sigRTMin, rest, '+', 0, sigRTMax-sigRTMin)
	}
	if rest, ok := strings.CutPrefix(name, "RTMAX"); ok {
		return rt(sigRTMax, rest, '-', sigRTMin-sigRTMax, 0)
	}
	return 0, false
}

// signalProcessesLocked sends sig to u's processes that whom (checked)
// names: SIGTERM and SIGINT end them cleanly (but a oneshot service's main
// process: u.cleanExit), SIGKILL and the realtime signals (whose default
// action ends a process) with a failure, other signals leave them running.
func (m *manager) signalProcessesLocked(u *unit, whom string, sig int32) ([]any, error) {
	hasMain, ctl := u.proc != nil, u.control
	switch {
	case strings.HasPrefix(whom, "control") && ctl == nil:
		return nil, &callErr{errPrefix + "NoSuchProcess", "No control process to kill"}
	case strings.HasPrefix(whom, "main") && !hasMain:
		return nil, &callErr{errPrefix + "NoSuchProcess", "No main process to kill"}
	case whom == "all-fail" && !m.killFindsLocked(u, sig):
		return nil, &callErr{errPrefix + "NoSuchProcess", "No matching processes to kill"}
	}
	// A signal that ends a process that does not handle it (signal(7));
	// a service's processes ignore SIGPIPE unless IgnoreSIGPIPE=no
	// (measured on 247-262 by the differential tester: its main process
	// runs on).
	ignored := harmlessSignals[sig] || sig == 13 && u.kind == "service" && u.boolProp("IgnoreSIGPIPE", true)
	if !ignored && ctl != nil && !strings.HasPrefix(whom, "main") {
		// A running ExecCondition= or ExecStartPre= command fails the
		// start (Result signal; measured on 247-262 by the differential
		// tester).
		ctl.signaledLocked(u, sig)
	}
	if !ignored && !strings.HasPrefix(whom, "control") {
		switch {
		case u.kind == "service" && u.proc != nil: // (a failing control process may have ended it)
			u.dropMain()
			u.mainEnded(cldKilled, sig)
			if u.inExecStop() {
				// The stop goes on once ExecStop= ended
				// (service_sigchld_event in STOP); a failure is the
				// result at once (measured on 252 and 262).
				if !u.cleanExit(cldKilled, sig) {
					u.failFirst("signal")
				}
				break
			}
			if u.inStartPost() || u.inReload() {
				// systemd waits for the running ExecStartPost= or
				// ExecReload= before it handles the end
				// (service_sigchld_event in START_POST and RELOAD;
				// measured on 252): startPostLocked or reloadEndedLocked
				// goes on from here once they ended. A failure is the
				// result at once.
				if !u.cleanExit(cldKilled, sig) {
					u.failFirst("signal")
				}
				u.afterPost = func() { m.mainKilledLocked(u, sig, nil) }
				break
			}
			m.mainKilledLocked(u, sig, u.job)
		case u.kind == "scope" && u.isActive() && m.scopeSignalableLocked(u):
			m.forgetScopeProcessesLocked(u)
			m.deactivateLocked(u)
		}
	}
	if !ignored && strings.HasPrefix(whom, "all") {
		m.endLeftLocked(u) // what its stops left runs in its control group
		if u.kind == "slice" {
			// A slice's control group holds its members' (measured on
			// 247-262 by the differential tester: a service in the
			// slice ends by the SIGTERM sent to the slice).
			for _, x := range m.membersLocked(u.name) {
				if !x.gone { // (not collected by an earlier member's end)
					m.signalProcessesLocked(x, "all", sig)
				}
			}
		}
	}
	return []any{}, nil
}

// killFindsLocked reports whether KillUnit's all-fail of signal sig
// finds something of u to signal (unit_kill_common): its main or control
// process, or a process in its control group, which for a slice holds
// its members'. Before 262 any control group counts, empty or not, and
// so it does on 262 for SIGKILL (sent by the group's cgroup.kill, which
// counts nothing: measured with an active slice whose services had
// failed).
func (m *manager) killFindsLocked(u *unit, sig int32) bool {
	if u.proc != nil || u.control != nil {
		return true
	}
	if sig == 9 || !sdversions.Behaves(m.release, sdversions.KillFailNeedsProcess) {
		return m.controlGroupLocked(u) != ""
	}
	return m.cgroupHoldsLocked(u)
}

// cgroupHoldsLocked reports whether u's control group holds a process a
// signal reaches: what its stops left, a scope's processes, and a
// slice's members' processes.
func (m *manager) cgroupHoldsLocked(u *unit) bool {
	if len(u.left) > 0 || m.scopeSignalableLocked(u) {
		return true
	}
	if u.kind == "slice" {
		for _, x := range m.membersLocked(u.name) {
			if x.proc != nil || x.control != nil || m.cgroupHoldsLocked(x) {
				return true
			}
		}
	}
	return false
}

// mainKilledLocked is what follows the end of service u's main process
// by signal sig (KillUnit); j, if a start job, ends with it.
func (m *manager) mainKilledLocked(u *unit, sig int32, j *job) {
	if !u.cleanExit(cldKilled, sig) {
		// It stops failed: ExecStopPost= runs, ExecStop= does
		// not (service_enter_running's signal path; 257 seed
		// 180184 and 262 seed 190598 of a long run).
		m.runCommandsLocked(u, "ExecStopPost")
		m.failLocked(u, "signal")
		if j != nil && j.typ == jobStart {
			m.finishJobLocked(j, "failed")
		}
		return
	}
	// SIGHUP, SIGINT, SIGPIPE and SIGTERM are a clean exit for
	// a service but a oneshot one, and so is a signal of its
	// SuccessExitStatus= (is_clean_exit; exitstatus.go): it ends
	// as if its main process had exited 0 (measured for SIGHUP
	// on 247-262 by the differential tester).
	finish := func(result string) {
		if j != nil && j.typ == jobStart {
			m.finishJobLocked(j, result)
		}
	}
	m.mainEndedCleanLocked(u, finish) // ExecStop=, ExecStopPost=, as after exit 0
}

// killSubgroupLocked is KillUnitSubgroup. A signal to the unit's own
// cgroup ("" or "/") is KillUnit's to all of its processes; one to a
// sub-cgroup ends none of the processes attached there (the fake signals
// no process), and with cgroup-fail is refused when none is.
func (m *manager) killSubgroupLocked(c *busd.Call, name, whom, sub string, sig int32) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	w, err := m.killWhom(whom)
	if err != nil {
		return nil, err
	}
	if whom != "" && whom != "cgroup" && whom != "cgroup-fail" {
		return nil, errInvalidArgs("Subgroup can only be specified in combination with 'cgroup' or 'cgroup-fail'.")
	}
	if sub != "" && !normalizedPath("/"+strings.TrimPrefix(sub, "/")) {
		return nil, errInvalidArgs("Specified cgroup sub-path is not valid.")
	}
	// polkit before the delegation (measured on 262).
	if err := m.authorizeLocked(c); err != nil {
		return nil, err
	}
	if !u.delegated() {
		return nil, &callErr{dbusErr + "NotSupported", "Killing by subgroup is only available for units with control group delegation enabled."}
	}
	if sig <= 0 || sig >= 65 {
		return nil, errInvalidArgs("Signal number out of range.")
	}
	if strings.Trim(sub, "/") == "" {
		return m.signalProcessesLocked(u, w, sig)
	}
	if w == "all-fail" && !u.hasProcessIn(sub) {
		return nil, &callErr{errPrefix + "NoSuchProcess", "No matching processes to kill"}
	}
	return []any{}, nil
}

// scopeSignalableLocked reports whether scope u holds a process a signal
// reaches, running or left running by its stop: KillUnit's all-fail
// finds none in a scope made for a zombie ("No matching processes to
// kill"; measured on 247-262 by the differential tester).
func (m *manager) scopeSignalableLocked(u *unit) bool {
	return u.kind == "scope" && (u.isActive() || u.leftPIDs) && slices.ContainsFunc(u.pids, m.signalableLocked)
}

// signalableLocked reports whether a signal can end process pid of a
// scope: a zombie, which a scope made for it never held (cgroup.go),
// ends no further, and its scope runs on (measured on 247-262 by the
// differential tester: KillUnit of such a scope with SIGHUP).
func (m *manager) signalableLocked(pid uint32) bool {
	return m.cfg.madeUp || !zombie(pid)
}
