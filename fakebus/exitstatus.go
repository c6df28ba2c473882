package fakebus

// Exit status sets: a service's SuccessExitStatus=, RestartPreventExitStatus=
// and RestartForceExitStatus= (systemd's ExitStatusSet, exit-status.c), the
// exit statuses and signals that make its main process's end a success, keep
// it from restarting, or restart it whatever Restart= says. Measured on 247,
// 252, 257 and 262 by the differential tester:
//   - over D-Bus each is (aiai), exit statuses then signals; a status out of
//     0-255 is InvalidArgs "Invalid status code in NAME: N"; any signal up to
//     65535 is taken (bitmap_set's limit; -1 is ERANGE), and read back in
//     order with the statuses; the same setting twice adds up, an empty one
//     empties it;
//   - a reload reads the transient file, where a signal systemd has no name
//     for (0, 32, 33, beyond 64) was written as its number, which reads as an
//     exit status (dropped past 255);
//   - only a service's main process counts: an exit status, or a signal, in
//     SuccessExitStatus= is a clean end; SIGHUP, SIGINT, SIGTERM and SIGPIPE
//     are one too, but for a oneshot service (is_clean_exit, EXIT_CLEAN_DAEMON
//     against EXIT_CLEAN_COMMAND);
//   - RestartPreventExitStatus= keeps the service from restarting, before
//     RestartForceExitStatus= restarts it, before Restart= is asked
//     (service_shall_restart).
//
// In unit files the words of a line are exit statuses (0-255, or names:
// FAILURE, TEMPFAIL, CHDIR, ...; BPF from 252, KSM from 257) or signals
// (names, with or without SIG, numbers, RTMIN+n, RTMAX-n).

import (
	"slices"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// exitStatusSet is a (aiai) exit status set: statuses 0-255 and signals,
// each sorted, without repeats.
type exitStatusSet struct {
	Status []int32
	Signal []int32
}

// exitStatusSetting reports whether setting name is an exit status set.
func exitStatusSetting(name string) bool {
	switch name {
	case "SuccessExitStatus", "RestartPreventExitStatus", "RestartForceExitStatus":
		return true
	}
	return false
}

// maxBitmapEntry is the largest number systemd's bitmaps hold
// (BITMAPS_MAX_ENTRY).
const maxBitmapEntry = 0xffff

// decodeExitStatusSet reads a (aiai) value as godbus decodes it (or as the
// fake stores it).
func decodeExitStatusSet(v any) (exitStatusSet, bool) {
	switch v := v.(type) {
	case nil:
		return exitStatusSet{}, false
	case exitStatusSet:
		return v, true
	}
	var s exitStatusSet
	if err := dbus.Store([]any{v}, &s); err != nil {
		return exitStatusSet{}, false
	}
	return s, true
}

// checkExitStatusSet checks a (aiai) value as bus_set_transient_exit_status
// does: statuses first, then signals.
func checkExitStatusSet(name string) func(any) error {
	return func(v any) error {
		s, ok := decodeExitStatusSet(v)
		if !ok {
			return errEINVAL
		}
		for _, st := range s.Status {
			if st < 0 || st > 255 {
				return sysErrorf("Invalid status code in %s: %d", name, st)
			}
		}
		for _, sig := range s.Signal {
			if sig < 0 || sig > maxBitmapEntry {
				return errERANGE // as the value is applied (checkPropsLocked)
			}
		}
		return nil
	}
}

// empty reports whether s holds nothing: set, it empties the setting.
func (s exitStatusSet) empty() bool { return len(s.Status) == 0 && len(s.Signal) == 0 }

// join is s with o added; an empty o empties it (as systemd's setter and
// a unit file's empty line do).
func (s exitStatusSet) join(o exitStatusSet) exitStatusSet {
	norm := func(l []int32) []int32 {
		l = append([]int32{}, l...)
		slices.Sort(l)
		return slices.Compact(l)
	}
	if o.empty() {
		return exitStatusSet{Status: []int32{}, Signal: []int32{}}
	}
	return exitStatusSet{Status: norm(append(slices.Clone(s.Status), o.Status...)), Signal: norm(append(slices.Clone(s.Signal), o.Signal...))}
}

// joinExitStatusSet is the value of an exit status setting once v is set
// on old, its value before (had: whether it had one).
func joinExitStatusSet(old dbus.Variant, had bool, v dbus.Variant) dbus.Variant {
	add, _ := decodeExitStatusSet(v.Value())
	var cur exitStatusSet
	if had {
		cur, _ = decodeExitStatusSet(old.Value())
	}
	return dbus.MakeVariant(cur.join(add))
}

// namedSignal reports whether systemd writes signal sig by a name
// (signal_to_string): the signals 1 to 31 and the realtime ones; any other
// number is written as it is.
func namedSignal(sig int32) bool {
	return sig >= 1 && sig <= 31 || sig >= sigRTMin && sig <= sigRTMax
}

// readBack is s as a reload reads it from a transient file (one line per
// status and signal): a signal written as a number reads as an exit
// status, or is dropped past 255. ok is false when every line is dropped
// (the setting is then left as it is, where an empty one empties it).
func (s exitStatusSet) readBack() (exitStatusSet, bool) {
	if s.empty() {
		return s, true
	}
	out := exitStatusSet{Status: slices.Clone(s.Status), Signal: []int32{}}
	for _, sig := range s.Signal {
		switch {
		case namedSignal(sig):
			out.Signal = append(out.Signal, sig)
		case sig <= 255:
			out.Status = append(out.Status, sig)
		}
	}
	if out.empty() {
		return exitStatusSet{}, false
	}
	return exitStatusSet{}.join(out), true
}

// exitStatusNames are the names a unit file may give exit statuses by
// (exit_status_from_string): the C library's, systemd's own, LSB's and
// BSD's; since, if set, is the behaviour of the releases that know the
// name (measured on 247-262 by the differential tester).
var exitStatusNames = map[string]struct {
	n     int32
	since sdversions.Behaviour
}{
	"SUCCESS": {0, ""}, "FAILURE": {1, ""},
	"INVALIDARGUMENT": {2, ""}, "NOTIMPLEMENTED": {3, ""}, "NOPERMISSION": {4, ""}, "NOTINSTALLED": {5, ""},
	"NOTCONFIGURED": {6, ""}, "NOTRUNNING": {7, ""},
	"USAGE": {64, ""}, "DATAERR": {65, ""}, "NOINPUT": {66, ""}, "NOUSER": {67, ""}, "NOHOST": {68, ""},
	"UNAVAILABLE": {69, ""}, "SOFTWARE": {70, ""}, "OSERR": {71, ""}, "OSFILE": {72, ""}, "CANTCREAT": {73, ""},
	"IOERR": {74, ""}, "TEMPFAIL": {75, ""}, "PROTOCOL": {76, ""}, "NOPERM": {77, ""}, "CONFIG": {78, ""},
	"CHDIR": {200, ""}, "NICE": {201, ""}, "FDS": {202, ""}, "EXEC": {203, ""}, "MEMORY": {204, ""},
	"LIMITS": {205, ""}, "OOM_ADJUST": {206, ""}, "SIGNAL_MASK": {207, ""}, "STDIN": {208, ""}, "STDOUT": {209, ""},
	"CHROOT": {210, ""}, "IOPRIO": {211, ""}, "TIMERSLACK": {212, ""}, "SECUREBITS": {213, ""},
	"SETSCHEDULER": {214, ""}, "CPUAFFINITY": {215, ""}, "GROUP": {216, ""}, "USER": {217, ""},
	"CAPABILITIES": {218, ""}, "CGROUP": {219, ""}, "SETSID": {220, ""}, "CONFIRM": {221, ""}, "STDERR": {222, ""},
	"PAM": {224, ""}, "NETWORK": {225, ""}, "NAMESPACE": {226, ""}, "NO_NEW_PRIVILEGES": {227, ""},
	"SECCOMP": {228, ""}, "SELINUX_CONTEXT": {229, ""}, "PERSONALITY": {230, ""}, "APPARMOR": {231, ""},
	"ADDRESS_FAMILIES": {232, ""}, "RUNTIME_DIRECTORY": {233, ""}, "CHOWN": {235, ""},
	"SMACK_PROCESS_LABEL": {236, ""}, "KEYRING": {237, ""}, "STATE_DIRECTORY": {238, ""},
	"CACHE_DIRECTORY": {239, ""}, "LOGS_DIRECTORY": {240, ""}, "CONFIGURATION_DIRECTORY": {241, ""},
	"NUMA_POLICY": {242, ""}, "CREDENTIALS": {243, ""}, "BPF": {244, sdversions.ExitStatusBPF},
	"KSM": {245, sdversions.ExitStatusKSM}, "EXCEPTION": {255, ""},
}

// parseExitStatusLineLocked reads a unit file's line of an exit status
// setting (config_parse_set_status): each word an exit status (a number
// 0-255 or a name the played release knows), else a signal; a word that
// is neither is ignored. An empty line empties the setting (reset).
func (m *manager) parseExitStatusLineLocked(val string) (s exitStatusSet, reset bool) {
	if strings.TrimSpace(val) == "" {
		return exitStatusSet{}, true
	}
	for _, w := range strings.Fields(val) {
		if n, err := strconv.ParseInt(w, 10, 32); err == nil {
			if n >= 0 && n <= 255 {
				s.Status = append(s.Status, int32(n))
			}
			continue
		}
		if e, ok := exitStatusNames[w]; ok && (e.since == "" || m.behaves(e.since)) {
			s.Status = append(s.Status, e.n)
			continue
		}
		if sig, ok := parseSignal(w); ok {
			s.Signal = append(s.Signal, sig)
		}
	}
	return s, false
}

// exitSet returns u's exit status setting name.
func (u *unit) exitSet(name string) exitStatusSet {
	s, _ := decodeExitStatusSet(u.props[name].Value())
	return s
}

// inExitSet reports whether a process's end (code, status: ExecMainCode
// and ExecMainStatus) is in u's exit status setting name
// (exit_status_set_test).
func (u *unit) inExitSet(name string, code, status int32) bool {
	s := u.exitSet(name)
	switch code {
	case cldExited:
		return slices.Contains(s.Status, status)
	case cldKilled, cldDumped:
		return slices.Contains(s.Signal, status)
	}
	return false
}

// cleanExit reports whether a process of service u ending so is a clean
// end (is_clean_exit): exit status 0 or one of SuccessExitStatus=; killed
// by SIGHUP, SIGINT, SIGTERM or SIGPIPE (unless u is oneshot) or by a
// signal of SuccessExitStatus=. systemd's service_sigchld_event applies it
// to every command, the control commands (ExecCondition=, ExecStartPre=,
// ExecStop=, ...) as the main process (EXIT_CLEAN_COMMAND; measured on 247
// by the differential tester, 247 seed 280184 of a long run:
// ExecCondition= and ExecStartPre= exiting 3 with SuccessExitStatus=3 let
// the start go on).
func (u *unit) cleanExit(code, status int32) bool {
	switch code {
	case cldExited:
		return status == 0 || u.inExitSet("SuccessExitStatus", code, status)
	case cldKilled:
		return cleanExitSignals[status] && serviceType(u) != string(sdbus.ServiceOneshot) || u.inExitSet("SuccessExitStatus", code, status)
	}
	return false
}
