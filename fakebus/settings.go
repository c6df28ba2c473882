package fakebus

// Unit settings: which properties each unit type takes (as
// StartTransientUnit, SetUnitProperties and unit files set them), their
// D-Bus types, systemd's checks of their values in its order, and how a
// set value is stored and read back (bus_unit_set_properties,
// bus_cgroup_set_property and the exec, kill and type setters of
// src/core/dbus-*.c).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Property scopes: which unit types accept a property.
const (
	forUnit    = "unit"    // every type
	forService = "service" // services
	forScope   = "scope"   // scopes
	forExec    = "exec"    // services and scopes
	forExecCtx = "execctx" // services and sockets (execution settings)
	forKill    = "kill"    // services, scopes and sockets (kill settings, Slice)
	forCgroup  = "cgroup"  // services, scopes, slices, mounts, sockets and swaps
	forSocket  = "socket"  // sockets
	forTimer   = "timer"   // timers
)

// settable describes a property systemd accepts in StartTransientUnit and
// SetUnitProperties: its signature, which unit types take it and a value
// check. The release that introduced it is in the per-version table
// (fakebus/internal/sdversions).
type settable struct {
	sig   string
	scope string
	check func(v any) error
}

// oneOf takes one of vals; checkPropsLocked answers any other value as
// systemd's parsers of enumerations do, "Invalid NAME setting: VALUE"
// (measured for CollectMode, Type, Restart, KillMode and StandardOutput
// on 247, 252, 257 and 262).
func oneOf(vals ...string) func(any) error {
	return func(v any) error {
		s, _ := v.(string)
		for _, x := range vals {
			if s == x {
				return nil
			}
		}
		return errInvalidSetting
	}
}

// errInvalidSetting is a value that is not one systemd parses:
// checkPropsLocked answers it "Invalid NAME setting: VALUE".
var errInvalidSetting = errors.New("invalid setting")

// errOutOfRange is a range check's failure: checkPropsLocked answers it
// as systemd's bus_cgroup_set_* do, "Value specified in NAME is out of
// range" (measured on 247, 252, 257 and 262).
var errOutOfRange = errors.New("out of range")

func rangeU64(lo, hi uint64, inf bool) func(any) error {
	return func(v any) error {
		n, _ := v.(uint64)
		if inf && n == infinity {
			return nil
		}
		if n < lo || n > hi {
			return errOutOfRange
		}
		return nil
	}
}

// rangeI32 refuses an int32 outside [lo, hi] with systemd's own text.
func rangeI32(lo, hi int32, text string) func(any) error {
	return func(v any) error {
		if n, _ := v.(int32); n < lo || n > hi {
			if strings.Contains(text, "%") {
				return sysErrorf(text, n)
			}
			return sysError(text)
		}
		return nil
	}
}

// nonZero refuses 0 as systemd refuses it for the limits that cannot be
// 0 (bus_cgroup_set_memory: MemoryHigh=, MemoryMax=; measured on 247,
// 252, 257 and 262; 0 is taken for MemoryMin=, MemoryLow= and
// MemorySwapMax=).
func nonZero(name string) func(any) error {
	return func(v any) error {
		if n, _ := v.(uint64); n == 0 {
			return errOutOfRange
		}
		return nil
	}
}

// standardOutputs are the StandardOutput= and StandardError= values the
// fake takes (systemd's exec_output table, without the file: and fd:
// forms, which the fake does not model).
var standardOutputs = []string{"inherit", "null", "tty", "journal", "kmsg", "journal+console", "kmsg+console", "syslog", "syslog+console", "socket"}

// settableProps is the fake's own, independent model of systemd's
// transient-unit property parser (src/core/dbus-{unit,service,scope,
// kill,cgroup}.c). It is read-only.
var settableProps = map[string]settable{
	"Description":            {"s", forUnit, nil},
	"Documentation":          {"as", forUnit, checkDocumentation},
	"Wants":                  {"as", forUnit, checkUnitList},
	"Requires":               {"as", forUnit, checkUnitList},
	"Requisite":              {"as", forUnit, checkUnitList},
	"BindsTo":                {"as", forUnit, checkUnitList},
	"PartOf":                 {"as", forUnit, checkUnitList},
	"Conflicts":              {"as", forUnit, checkUnitList},
	"Before":                 {"as", forUnit, checkUnitList},
	"After":                  {"as", forUnit, checkUnitList},
	"OnFailure":              {"as", forUnit, checkUnitList},
	"OnSuccess":              {"as", forUnit, checkUnitList}, // from 252 (onfailure.go)
	"OnFailureJobMode":       {"s", forUnit, nil},            // a job mode of the release (checkValue)
	"OnSuccessJobMode":       {"s", forUnit, nil},            // from 252
	"DefaultDependencies":    {"b", forUnit, nil},
	"RefuseManualStart":      {"b", forUnit, nil},
	"RefuseManualStop":       {"b", forUnit, nil},
	"AllowIsolate":           {"b", forUnit, nil},
	"StopWhenUnneeded":       {"b", forUnit, nil},
	"AddRef":                 {"b", forUnit, nil},
	"CollectMode":            {"s", forUnit, oneOf("inactive", "inactive-or-failed")},
	"JobTimeoutUSec":         {"t", forUnit, nil}, // settable since 262 (TransientJobTimeout)
	"StartLimitBurst":        {"u", forUnit, nil},
	"StartLimitIntervalUSec": {"t", forUnit, nil},
	"RequiresMountsFor":      {"as", forUnit, checkMountPaths("RequiresMountsFor")},
	"WantsMountsFor":         {"as", forUnit, checkMountPaths("WantsMountsFor")}, // from 257
	"Conditions":             {"a(sbbs)", forUnit, checkConditions},
	"Asserts":                {"a(sbbs)", forUnit, checkConditions},
	"Slice":                  {"s", forKill, checkSlice},

	"BusName":         {"s", forService, checkBusName},
	"Type":            {"s", forService, oneOf("simple", "exec", "forking", "oneshot", "dbus", "notify", "idle", "notify-reload")},
	"ExecStart":       {"a(sasb)", forService, checkExec},
	"ExecStartPre":    {"a(sasb)", forService, checkExec},
	"ExecStartPost":   {"a(sasb)", forService, checkExec},
	"ExecStop":        {"a(sasb)", forService, checkExec},
	"ExecStopPost":    {"a(sasb)", forService, checkExec},
	"ExecReload":      {"a(sasb)", forService, checkExec},
	"ExecCondition":   {"a(sasb)", forService, checkExec},
	"RemainAfterExit": {"b", forService, nil},
	"Restart":         {"s", forService, oneOf("no", "on-success", "on-failure", "on-abnormal", "on-watchdog", "on-abort", "always")},
	"RestartUSec":     {"t", forService, nil},
	// From 254 (restart.go).
	"RestartMode":         {"s", forService, oneOf("normal", "direct", "debug")},
	"RestartSteps":        {"u", forService, nil},
	"RestartMaxDelayUSec": {"t", forService, nil},
	// Exit status sets (exitstatus.go).
	"SuccessExitStatus":        {"(aiai)", forService, checkExitStatusSet("SuccessExitStatus")},
	"RestartPreventExitStatus": {"(aiai)", forService, checkExitStatusSet("RestartPreventExitStatus")},
	"RestartForceExitStatus":   {"(aiai)", forService, checkExitStatusSet("RestartForceExitStatus")},
	"TimeoutStartUSec":         {"t", forService, nil},
	"TimeoutStopUSec":          {"t", forExec, nil},
	"TimeoutAbortUSec":         {"t", forService, nil}, // unset, it reads TimeoutStopUSec
	"RuntimeMaxUSec":           {"t", forExec, nil},
	"User":                     {"s", forExecCtx, checkUserName("User")},
	"Group":                    {"s", forExecCtx, checkUserName("Group")},
	"WorkingDirectory":         {"s", forExecCtx, checkWorkingDirectory},
	"Environment":              {"as", forExecCtx, checkEnvironment},
	"Nice":                     {"i", forExecCtx, rangeI32(-20, 19, "Invalid Nice value: %d")},
	"OOMScoreAdjust":           {"i", forExecCtx, rangeI32(-1000, 1000, "OOM score adjust value out of range")},
	"LimitNOFILE":              {"t", forExecCtx, nil},
	"LimitNPROC":               {"t", forExecCtx, nil},
	"LimitCORE":                {"t", forExecCtx, nil},
	"LimitMEMLOCK":             {"t", forExecCtx, nil},
	"StandardOutput":           {"s", forExecCtx, oneOf(standardOutputs...)},
	"StandardError":            {"s", forExecCtx, oneOf(standardOutputs...)},
	// The file descriptors systemd-run --pipe passes (fds.go): they make
	// StandardInput=, StandardOutput= or StandardError= "fd".
	"StandardInputFileDescriptor":  {"h", forExecCtx, nil},
	"StandardOutputFileDescriptor": {"h", forExecCtx, nil},
	"StandardErrorFileDescriptor":  {"h", forExecCtx, nil},
	"PIDs":                         {"au", forScope, nil}, // checkPIDsLocked
	"Listen":                       {"a(ss)", forSocket, checkListen},
	"OOMPolicy":                    {"s", forExec, oneOf("continue", "stop", "kill")},
	"IgnoreSIGPIPE":                {"b", forExecCtx, nil},

	"KillMode":        {"s", forKill, oneOf("control-group", "process", "mixed", "none")},
	"KillSignal":      {"i", forKill, checkSignal},
	"FinalKillSignal": {"i", forKill, checkSignal},
	"SendSIGKILL":     {"b", forKill, nil},
	"SendSIGHUP":      {"b", forKill, nil},

	"CPUAccounting":             {"b", forCgroup, nil},
	"CPUWeight":                 {"t", forCgroup, nil}, // range depends on the release, see checkValue
	"StartupCPUWeight":          {"t", forCgroup, nil}, // as CPUWeight
	"CPUShares":                 {"t", forCgroup, rangeU64(2, 262144, true)},
	"CPUQuotaPerSecUSec":        {"t", forCgroup, checkCPUQuota},
	"CPUQuotaPeriodUSec":        {"t", forCgroup, nil},
	"AllowedCPUs":               {"ay", forCgroup, nil},
	"StartupAllowedCPUs":        {"ay", forCgroup, nil},
	"AllowedMemoryNodes":        {"ay", forCgroup, nil},
	"IOAccounting":              {"b", forCgroup, nil},
	"IOWeight":                  {"t", forCgroup, rangeU64(1, 10000, true)},
	"StartupIOWeight":           {"t", forCgroup, rangeU64(1, 10000, true)},
	"IODeviceWeight":            {"a(st)", forCgroup, checkIOWeights},
	"IOReadBandwidthMax":        {"a(st)", forCgroup, nil},
	"IOWriteBandwidthMax":       {"a(st)", forCgroup, nil},
	"IOReadIOPSMax":             {"a(st)", forCgroup, nil},
	"IOWriteIOPSMax":            {"a(st)", forCgroup, nil},
	"IODeviceLatencyTargetUSec": {"a(st)", forCgroup, nil},
	"BlockIOAccounting":         {"b", forCgroup, nil},
	"BlockIOWeight":             {"t", forCgroup, rangeU64(10, 1000, true)},
	"MemoryAccounting":          {"b", forCgroup, nil},
	"MemoryMin":                 {"t", forCgroup, nil},
	"MemoryLow":                 {"t", forCgroup, nil},
	"MemoryHigh":                {"t", forCgroup, nonZero("MemoryHigh")},
	"MemoryMax":                 {"t", forCgroup, nonZero("MemoryMax")},
	"MemorySwapMax":             {"t", forCgroup, nil},
	"MemoryZSwapMax":            {"t", forCgroup, nil},
	"MemoryLimit":               {"t", forCgroup, nonZero("MemoryLimit")},
	"DevicePolicy":              {"s", forCgroup, checkEINVAL("auto", "closed", "strict")},
	"DeviceAllow":               {"a(ss)", forCgroup, checkDeviceAllow},
	"TasksAccounting":           {"b", forCgroup, nil},
	"TasksMax":                  {"t", forCgroup, rangeU64(1, infinity, true)},
	// The percentage forms: a fraction of UINT32_MAX of the machine's
	// memory or tasks (scaledLimit), stored as the limit itself.
	"MemoryHighScale":          {"u", forCgroup, nil},
	"MemoryMaxScale":           {"u", forCgroup, nil},
	"TasksMaxScale":            {"u", forCgroup, nil},
	"Delegate":                 {"b", forExec, nil},
	"DelegateControllers":      {"as", forExec, checkControllers},
	"DelegateSubgroup":         {"s", forExec, checkSubgroup},
	"DisableControllers":       {"as", forCgroup, checkControllers},
	"IPAccounting":             {"b", forCgroup, nil},
	"ManagedOOMSwap":           {"s", forCgroup, checkEINVAL("auto", "kill")},
	"ManagedOOMMemoryPressure": {"s", forCgroup, checkEINVAL("auto", "kill")},
	// Measured on 252-262 (differential tester): taken as given.
	"ManagedOOMMemoryPressureLimit":        {"u", forCgroup, nil},
	"ManagedOOMMemoryPressureDurationUSec": {"t", forCgroup, checkOOMDuration},
	"ManagedOOMPreference":                 {"s", forCgroup, checkEINVAL("none", "avoid", "omit")},

	// Timers (dbus-timer.c): the lists systemd-run sends, and the
	// single-value forms, each adding to the timer's TimersMonotonic or
	// TimersCalendar (setTimerLocked).
	"TimersMonotonic":     {"a(st)", forTimer, checkMonotonicTimers},
	"TimersCalendar":      {"a(ss)", forTimer, checkCalendarTimers},
	"OnActiveSec":         {"t", forTimer, nil},
	"OnBootSec":           {"t", forTimer, nil},
	"OnStartupSec":        {"t", forTimer, nil},
	"OnUnitActiveSec":     {"t", forTimer, nil},
	"OnUnitInactiveSec":   {"t", forTimer, nil},
	"OnCalendar":          {"s", forTimer, checkCalendar},
	"AccuracyUSec":        {"t", forTimer, nil},
	"RandomizedDelayUSec": {"t", forTimer, nil},
	"FixedRandomDelay":    {"b", forTimer, nil},
	"Persistent":          {"b", forTimer, nil},
	"WakeSystem":          {"b", forTimer, nil},
	"RemainAfterElapse":   {"b", forTimer, nil},
	"OnClockChange":       {"b", forTimer, nil},
	"OnTimezoneChange":    {"b", forTimer, nil},
}

// liveSetting reports whether SetUnitProperties takes name for a unit
// that is loaded: the cgroup settings (bus_cgroup_set_property) and
// Description=; the others, Delegate= and DelegateControllers= too, are
// taken only by a transient unit being made (measured on 247-262 by the
// differential tester: CollectMode=, Delegate= and DelegateControllers=
// answer PropertyReadOnly, delegated or not).
func liveSetting(name string) bool {
	spec := settableProps[name]
	return spec.scope == forCgroup || name == "Description"
}

func appliesTo(scope, kind string) bool {
	switch scope {
	case forUnit:
		return true
	case forService:
		return kind == "service"
	case forScope:
		return kind == "scope"
	case forExec:
		return kind == "service" || kind == "scope"
	case forExecCtx:
		// Measured for sockets on 247-262 by the differential tester.
		return kind == "service" || kind == "socket"
	case forKill:
		return kind == "service" || kind == "scope" || kind == "socket"
	case forSocket:
		return kind == "socket"
	case forTimer:
		return kind == "timer"
	case forCgroup:
		// Mounts, sockets and swaps have cgroup settings too; they cannot
		// be transient in the fake, but SetUnitProperties takes them.
		return unitTypes[kind].cgroup
	}
	return false
}

func checkConditions(v any) error {
	var conds []condition
	if err := dbus.Store([]any{v}, &conds); err != nil {
		return err
	}
	for _, c := range conds {
		if !knownCondition(trimCondPrefix(c.Type)) {
			return sysErrorf("Invalid condition type: %s", c.Type)
		}
	}
	return nil
}

func checkSlice(v any) error {
	s, _ := v.(string)
	if sdbus.ValidateUnitName(s) != nil {
		return sysErrorf("Invalid unit name '%s'", s)
	}
	if !strings.HasSuffix(s, ".slice") {
		return sysErrorf("Unit name '%s' is not a slice", s)
	}
	return nil
}

// checkUserName refuses what systemd's User= and Group= parsers refuse
// (valid_user_group_name with numeric ids and relaxed names: almost any
// name passes, and fails only when the unit starts, 217/USER or 216/GROUP
// for a service, Result resources for a scope): a number that is no valid
// id (65535, 4294967295 and beyond), and a name that is all digits,
// "-" and digits, "." or "..", has a ':' or '/' or a control character,
// begins or ends with a space, or is not UTF-8.
func checkUserName(name string) func(any) error {
	return func(v any) error {
		s, _ := v.(string)
		if s != "" && !validUserGroupName(s) {
			return sysErrorf("Invalid %s setting: %s", name, s)
		}
		return nil
	}
}

// validUserGroupName is systemd's valid_user_group_name with
// VALID_USER_RELAX and VALID_USER_ALLOW_NUMERIC.
func validUserGroupName(s string) bool {
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return n != 65535 && n != 4294967295
	}
	digits := func(s string) bool { return strings.Trim(s, "0123456789") == "" }
	switch {
	case s == "", s == ".", s == "..", digits(s), strings.HasPrefix(s, "-") && digits(s[1:]):
		return false
	case strings.HasPrefix(s, " "), strings.HasSuffix(s, " "), !utf8.ValidString(s), strings.ContainsAny(s, ":/"):
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f })
}

// checkWorkingDirectory takes "", "~" or an absolute path, each perhaps
// after "-" (a missing directory is no failure).
func checkWorkingDirectory(v any) error {
	s, _ := v.(string)
	d := strings.TrimPrefix(s, "-")
	if s != "" && d != "~" && !path.IsAbs(d) {
		return sysErrorf("WorkingDirectory= expects an absolute path or '~'")
	}
	return nil
}

// checkEnvironment refuses an environment block systemd's
// strv_env_is_valid refuses: an entry that is not NAME=VALUE with a
// valid name, or a name given twice.
func checkEnvironment(v any) error {
	seen := map[string]bool{}
	for _, e := range v.([]string) {
		name, _, ok := strings.Cut(e, "=")
		if !ok || !validEnvName(name) || seen[name] {
			return sysErrorf("Invalid environment block.")
		}
		seen[name] = true
	}
	return nil
}

// validEnvName is systemd's env_name_is_valid: not empty, not starting
// with a digit, letters, digits and underscores only.
func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func checkCPUQuota(v any) error {
	if n, _ := v.(uint64); n == 0 {
		return sysErrorf("CPUQuotaPerSecUSec= value out of range")
	}
	return nil
}

// checkEINVAL takes one of vals: for any other value systemd's parsers
// of DevicePolicy=, ManagedOOMSwap= and ManagedOOMMemoryPressure= return
// -EINVAL, which the bus call wraps (measured on 252, 257 and 262).
func checkEINVAL(vals ...string) func(any) error {
	return func(v any) error {
		if slices.Contains(vals, v.(string)) {
			return nil
		}
		return errEINVAL
	}
}

// checkBusName takes a bus name, unique or well-known, or "" (none: a
// Type=dbus service then fails to load); anything else is "Invalid
// BusName setting: X" (measured on 252-262 by the differential tester:
// "bogus name" and "x" refused, ":1.5" taken).
func checkBusName(v any) error {
	s := v.(string)
	if s == "" {
		return nil
	}
	unique := s[0] == ':'
	elems := strings.Split(strings.TrimPrefix(s, ":"), ".")
	if len(s) > 255 || len(elems) < 2 {
		return errInvalidSetting
	}
	for _, e := range elems {
		if e == "" || !unique && e[0] >= '0' && e[0] <= '9' {
			return errInvalidSetting
		}
		for _, c := range e {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				return errInvalidSetting
			}
		}
	}
	return nil
}

// checkOOMDuration refuses a ManagedOOMMemoryPressureDurationUSec= below
// a second, naming it as systemd's format_timespan does to the
// millisecond (measured on 257 and 262: 0 "0", 1 "1us", 999 "999us",
// 1010 and 1500 "1ms", 999999 "999ms").
func checkOOMDuration(v any) error {
	t := v.(uint64)
	if t >= 1e6 {
		return nil
	}
	got := "0"
	switch {
	case t >= 1000:
		got = fmt.Sprintf("%dms", t/1000)
	case t > 0:
		got = fmt.Sprintf("%dus", t)
	}
	return sysErrorf("ManagedOOMMemoryPressureDurationUSec= must be at least 1s, got %s", got)
}

// errEINVAL is a parser's -EINVAL, which checkPropsLocked answers as the
// played release wraps it (SetPropertiesErrnoWrapped).
var errEINVAL = errors.New("invalid argument")

// errERANGE is a setter's -ERANGE (a number too large for a bitmap), which
// checkPropsLocked answers as System.Error.ERANGE, wrapped as the played
// release wraps it (measured on 247-262 by the differential tester: an
// exit status set's signal -1).
var errERANGE = errors.New("numerical result out of range")

func checkExec(v any) error {
	var cmds []execCommand
	if err := dbus.Store([]any{v}, &cmds); err != nil {
		return err
	}
	for _, c := range cmds {
		if !strings.HasPrefix(c.Path, "/") && (c.Path == "" || strings.Contains(c.Path, "/")) {
			return sysErrorf("Path %s is neither a valid executable name nor an absolute path", c.Path)
		}
		if len(c.Argv) == 0 {
			return sysErrorf("ExecStart= argv is empty")
		}
	}
	return nil
}

func checkListen(v any) error {
	var ls []struct{ Type, Address string }
	if d, ok := v.([]devEntry); ok {
		// Normalized already: a unit file's (addFileLocked).
		for _, e := range d {
			ls = append(ls, struct{ Type, Address string }{e.Specifier, e.Access})
		}
	} else if err := dbus.Store([]any{v}, &ls); err != nil {
		return err
	}
	for _, l := range ls {
		switch l.Type {
		case "Stream", "Datagram", "SequentialPacket", "FIFO", "Special", "Netlink", "MessageQueue", "USBFunction":
		default:
			return sysErrorf("Unknown Socket type: %s", l.Type)
		}
	}
	return nil
}

// checkPIDsLocked checks a scope's PIDs= as systemd does, each PID in
// turn: 0, the manager (PID 1, system and user manager alike, 247 to 262)
// and, unless WithMadeUpPIDs, a PID no process has are refused.
func (m *manager) checkPIDsLocked(pids []uint32) error {
	if len(pids) == 0 {
		return errInvalidArgs("Failed to set unit properties: Invalid argument")
	}
	for _, p := range pids {
		if err := m.checkPIDLocked(p, "Failed to set unit properties: "); err != nil {
			return err
		}
	}
	return nil
}

// checkPIDLocked checks one PID placed in a unit. A PID no process has
// is UnixProcessIdUnknown "Process with ID N does not exist."; from 257
// the errno's text, after wrap in PIDs= ("Failed to set unit properties:
// ") (measured on 247-262: conformance AttachProcessesChecks,
// UserManagerRefusesPIDs; sdversions.NoSuchProcessErrno).
func (m *manager) checkPIDLocked(pid uint32, wrap string) error {
	switch {
	case pid == 0:
		return errInvalidArgs("Invalid PID")
	case pid == 1:
		return errInvalidArgs("Process 1 is a manager process, refusing.")
	case !m.cfg.madeUp && !processExists(pid):
		if m.behaves(sdversions.NoSuchProcessErrno) {
			return &callErr{dbusErr + "UnixProcessIdUnknown", wrap + "No such process"}
		}
		return &callErr{dbusErr + "UnixProcessIdUnknown", fmt.Sprintf("Process with ID %d does not exist.", pid)}
	}
	return nil
}

// The checks below are systemd's, as the conformance case PreSendChecks
// measures them on 247 to 262.

// checkMountPaths refuses what systemd's RequiresMountsFor= and (from
// 257) WantsMountsFor= setters do (measured on 247-262 by the differential
// tester): each path, simplified (simplifyPath), must be absolute and hold
// no "..".
func checkMountPaths(name string) func(any) error {
	return func(v any) error {
		for _, p := range v.([]string) {
			p = simplifyPath(p)
			if !path.IsAbs(p) {
				return sysErrorf("Path specified in %s is not absolute: %s", name, p)
			}
			if slices.Contains(strings.Split(p, "/"), "..") {
				return sysErrorf("Path specified in %s is not normalized: %s", name, p)
			}
		}
		return nil
	}
}

// simplifyPath is systemd's path_simplify: repeated slashes, a trailing
// one and "." components dropped ("/a//b/./c/" is "/a/b/c"; ".." stays).
func simplifyPath(p string) string {
	var parts []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			parts = append(parts, c)
		}
	}
	if strings.HasPrefix(p, "/") {
		return "/" + strings.Join(parts, "/")
	}
	return strings.Join(parts, "/")
}

func checkUnitList(v any) error {
	for _, n := range v.([]string) {
		if sdbus.ValidateUnitName(n) != nil || strings.Contains(n, "@.") {
			return sysErrorf("Invalid unit name %s", n)
		}
	}
	return nil
}

func checkIOWeights(v any) error {
	// v is as decoded from the wire ([]any per struct) or already
	// normalized (a script's or a test's value).
	ws, ok := v.([]ioEntry)
	if !ok {
		if err := dbus.Store([]any{v}, &ws); err != nil {
			return err
		}
	}
	for _, w := range ws {
		if w.Value < 1 || w.Value > 10000 {
			return sysErrorf("IODeviceWeight= value out of range")
		}
	}
	return nil
}

func checkDeviceAllow(v any) error {
	// v is as decoded from the wire ([]any per struct) or already
	// normalized (a script's or a test's value).
	rules, ok := v.([]devEntry)
	if !ok {
		if err := dbus.Store([]any{v}, &rules); err != nil {
			return err
		}
	}
	for _, r := range rules {
		node := (strings.HasPrefix(r.Specifier, "/dev/") || strings.HasPrefix(r.Specifier, "/run/systemd/inaccessible/")) &&
			path.Clean(r.Specifier) == r.Specifier
		if !node && !strings.HasPrefix(r.Specifier, "char-") && !strings.HasPrefix(r.Specifier, "block-") {
			return sysErrorf("DeviceAllow= requires device node or pattern")
		}
		if strings.Trim(r.Access, "rwm") != "" {
			return sysErrorf("DeviceAllow= requires combination of rwm flags")
		}
	}
	return nil
}

func checkControllers(v any) error {
	for _, c := range v.([]string) {
		if !slices.Contains(cgroupControllers, c) {
			return sysErrorf("Unknown cgroup controller '%s'", c)
		}
	}
	return nil
}

func checkSubgroup(v any) error {
	s := v.(string)
	if s == "" {
		return nil
	}
	if cgNeedsEscape(s) {
		return sysErrorf("Invalid control group name: %s", s)
	}
	return nil
}

// cgNeedsEscape reports whether s is not a cgroup name systemd takes as
// it is (cg_needs_escape, the same on 254-262): a file name (not "." or
// "..", no "/", at most 255 bytes) that does not begin with "_" or ".",
// is not a cgroup-v1 core file, and does not look like a controller's or
// the core's attribute ("cgroup.", "memory.", ...).
func cgNeedsEscape(s string) bool {
	if s == "" || s == "." || s == ".." || strings.Contains(s, "/") || len(s) > 255 ||
		s[0] == '_' || s[0] == '.' || s == "notify_on_release" || s == "release_agent" || s == "tasks" ||
		strings.HasPrefix(s, "cgroup.") {
		return true
	}
	for _, c := range cgroupControllers {
		if strings.HasPrefix(s, c+".") {
			return true
		}
	}
	return false
}

// checkDocumentation refuses a Documentation= list with an entry that is
// not a documentation URL systemd takes (validDocumentationURL).
func checkDocumentation(v any) error {
	for _, u := range v.([]string) {
		if !validDocumentationURL(u) {
			return sysErrorf("Invalid URL in Documentation: %s", u)
		}
	}
	return nil
}

func checkSignal(v any) error {
	if n := v.(int32); n <= 0 || n >= 65 {
		return errInvalidSetting
	}
	return nil
}

// setProp is one decoded (sv) property.
type setProp struct {
	Name  string
	Value dbus.Variant
}

// checkPropsLocked decodes and validates the a(sv) properties of a call for
// a unit of the given kind, in order, as systemd does: each is refused
// (PropertyReadOnly) when the unit type does not take it, nor the played
// release, nor, if live (SetUnitProperties of a loaded unit), a unit that
// is no longer being made (liveSetting); then its type and its value are
// checked. systemd reads the properties twice, checking each, then
// applying each (bus_unit_set_properties): an error its setter meets only
// as it applies a value (errERANGE) comes after every other property's.
func (m *manager) checkPropsLocked(kind string, body any, live bool) ([]setProp, error) {
	var props []setProp
	if err := dbus.Store([]any{body}, &props); err != nil {
		return nil, errInvalidArgs("Invalid properties: %v", err)
	}
	kept := props[:0:0]
	var applying error // the first error of the applying pass
	for _, p := range props {
		if live && (kind == "target" || kind == "device") && !m.behaves(sdversions.AnyTypeSetsProperties) {
			// Before anything of the property is read: the type has
			// no setter of its own (bus_unit_set_properties). Its
			// unit files are read as any other.
			return nil, &callErr{dbusErr + "PropertyReadOnly", "Objects of this type do not support setting properties."}
		}
		if m.ignoredSetting(p.Name, kind) {
			continue
		}
		spec, ok := settableProps[p.Name]
		if (p.Name == "Delegate" || p.Name == "DelegateControllers" || p.Name == "DelegateSubgroup" && m.hasFor(p.Name, "service")) &&
			(kind == "slice" || kind == "socket") && !live {
			// A unit with a control group that cannot delegate it
			// (measured on 247-262 by the differential tester; mounts
			// and swaps not measured; DelegateSubgroup=, from 254, from
			// systemd's source). Only a unit being made takes them:
			// SetUnitProperties finds them read-only, below
			// (bus_cgroup_set_transient_property; 247 seed 241058 of a
			// long run).
			return nil, errInvalidArgs("Delegation not available for unit type")
		}
		if p.Name == "Slice" && !live {
			// Before the value is read, for a unit of any type being
			// made (bus_unit_set_transient_property; measured on
			// 247-262 by the differential tester).
			switch {
			case kind == "slice":
				return nil, errInvalidArgs("Slice may not be set for slice units.")
			case !unitTypes[kind].cgroup:
				return nil, errInvalidArgs("The slice property is only available for units with control groups.")
			}
		}
		scopeOwner := kind == "scope" && (p.Name == "User" || p.Name == "Group") && !live && m.behaves(sdversions.ScopeUser)
		if !scopeOwner && (!ok || !appliesTo(spec.scope, kind) || !m.hasFor(p.Name, kind) || !m.settable(p.Name) || live && !liveSetting(p.Name)) {
			return nil, &callErr{dbusErr + "PropertyReadOnly", "Cannot set property " + p.Name + ", or unknown property."}
		}
		if strings.HasPrefix(p.Name, "ManagedOOM") && p.Name != "ManagedOOMPreference" && !unitTypes[kind].managedOOM {
			// Before the value is read: only these types can set it
			// (can_set_managed_oom; measured on 247-262 by the
			// differential tester: a socket's).
			return nil, errInvalidArgs("Cannot set %s for this unit type", p.Name)
		}
		if got := p.Value.Signature().String(); got != spec.sig {
			// systemd's parser reads the variant as the type it expects
			// and fails with ENXIO (measured on 247, 252, 257, 262).
			msg := "No such device or address"
			if m.behaves(sdversions.SetPropertiesErrnoWrapped) {
				msg = "Failed to set unit properties: Unexpected message contents"
			}
			return nil, &callErr{"System.Error.ENXIO", msg}
		}
		if p.Name == "PIDs" {
			if err := m.checkPIDsLocked(p.Value.Value().([]uint32)); err != nil {
				return nil, err
			}
		}
		if err := m.checkValue(p.Name, spec, p.Value.Value(), kind); err != nil {
			var worded sysError
			switch {
			case errors.As(err, &worded):
				return nil, errInvalidArgs("%s", worded) // systemd's whole text
			case errors.Is(err, errOutOfRange):
				return nil, errInvalidArgs("Value specified in %s is out of range", p.Name)
			case errors.Is(err, errEINVAL):
				if m.behaves(sdversions.SetPropertiesErrnoWrapped) {
					return nil, errInvalidArgs("Failed to set unit properties: Invalid argument")
				}
				return nil, errInvalidArgs("Invalid argument")
			case errors.Is(err, errERANGE):
				msg := "Numerical result out of range"
				if m.behaves(sdversions.SetPropertiesErrnoWrapped) {
					msg = "Failed to set unit properties: " + msg
				}
				if applying == nil {
					applying = &callErr{"System.Error.ERANGE", msg}
				}
				continue
			case errors.Is(err, errInvalidSetting):
				return nil, errInvalidArgs("Invalid %s setting: %v", p.Name, p.Value.Value())
			}
			return nil, errInvalidArgs("%s: %v", p.Name, err)
		}
		kept = append(kept, p) // a ...Scale share as given: setPropLocked, readBackLocked
	}
	if applying != nil {
		return nil, applying
	}
	return kept, nil
}

// setUnitPropertiesLocked is SetUnitProperties of unit name with the
// a(sv) properties body and the runtime flag: the unit is
// loaded for the call if needed (and collected after it unless something
// keeps it), refused when it did not load (loadStateErr), authorized
// (authorize: the caller's check; nil for the test's controls), its
// properties checked as a loaded unit's (checkPropsLocked, live) and
// set, kept with their drop-ins (controldropin.go), and announced
// with a PropertiesChanged of its type's interface that names them.
func (m *manager) setUnitPropertiesLocked(name string, runtime bool, body any, authorize func() error) error {
	u, fresh := m.loadForCallLocked(name)
	if u == nil {
		return errNotFound(name)
	}
	if fresh {
		// Loaded for the call, it is collected after it unless something
		// keeps it (measured on 252 by the differential tester: a slice
		// no one started is NoSuchUnit again at once).
		defer m.collectLocked(u)
	}
	if err := loadStateErr(u); err != nil {
		return err
	}
	if authorize != nil {
		if err := authorize(); err != nil {
			return err
		}
	}
	props, err := m.checkPropsLocked(u.kind, body, true)
	if err != nil {
		return err
	}
	changed := make([]string, 0, len(props))
	for _, p := range props {
		m.setPropLocked(u, p.Name, p.Value)
		changed = append(changed, p.Name)
		if p.Name == "Description" && u.str("Description") == "" {
			// The unit is loaded: a type's own description (a slice's
			// "Slice /a/b" from 252, a mount's Where) was set at its load
			// and is gone, and until the next load it reads its name
			// (unit_set_description; measured on 252-262 by the
			// differential tester, 257 seed 41012).
			u.props["Description"] = dbus.MakeVariant(u.name)
		}
	}
	if len(props) > 0 {
		m.realizeLocked(u)
	}
	m.settingsNoteLocked(u.name, "SetUnitProperties", changed, nil)
	m.setControlLocked(u, props, runtime)
	m.indexLocked(u)
	if iface := unitTypes[u.kind].iface; iface != "" {
		m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
			return []any{iface, map[string]dbus.Variant{}, changed}
		})
	}
	return nil
}

// ignoredSetting reports whether the played release takes name with any
// value and ignores it for a unit of the given kind: 262 does so for the
// cgroup v1 settings CPUShares=, BlockIOWeight= and MemoryLimit=, and for
// BlockIOAccounting= and CPUAccounting= (always on), whatever their
// type, where a unit has a control group (its cgroup setter reads them);
// a timer's or a target's refuses them as any unknown property (measured
// on 262 by the differential tester, seed 96518 of a long run; the
// accounting settings by its edges).
func (m *manager) ignoredSetting(name, kind string) bool {
	switch name {
	case "CPUShares", "BlockIOWeight", "MemoryLimit", "CPUAccounting", "BlockIOAccounting":
		return m.behaves(sdversions.CgroupV1SettingsIgnored) && unitTypes[kind].cgroup
	}
	return false
}

// settable reports whether the played release lets a transient unit set
// name at all (JobTimeoutUSec= only since TransientJobTimeout).
func (m *manager) settable(name string) bool {
	return name != "JobTimeoutUSec" || m.behaves(sdversions.TransientJobTimeout)
}

func (m *manager) checkValue(name string, spec settable, v any, kind string) error {
	switch name {
	case "CPUWeight":
		lo := uint64(1)
		if m.has("CPUWeight=idle") {
			lo = 0
		}
		return rangeU64(lo, 10000, true)(v)
	case "StartupCPUWeight":
		lo := uint64(1)
		if m.has("CPUWeight=idle") {
			lo = 0
		}
		return rangeU64(lo, 10000, true)(v)
	case "MemoryHighScale", "MemoryMaxScale":
		if scaledLimit(name, uint64(v.(uint32)), math.MaxUint32) == 0 {
			return errOutOfRange
		}
		return nil
	case "TasksMaxScale":
		// 0 and 100% are refused; a share that comes to 0 tasks is not.
		if n := v.(uint32); n == 0 || n == math.MaxUint32 {
			return errOutOfRange
		}
		return nil
	case "OnFailureJobMode", "OnSuccessJobMode":
		// Any job mode the release knows, whatever job it fits
		// (bus_set_transient_job_mode; measured on 247-262).
		if s, _ := v.(string); !validModes[s] || !m.has("mode:"+s) {
			return errInvalidSetting
		}
	case "Type":
		if v == "notify-reload" && !m.has("Type=notify-reload") {
			return sysErrorf("Invalid Type setting: %s", v)
		}
	case "Delegate", "DelegateControllers", "DelegateSubgroup":
		if kind == "slice" {
			return sysErrorf("Delegation not available for unit type")
		}
	}
	if spec.check != nil {
		return spec.check(v)
	}
	return nil
}

func (m *manager) setPropLocked(u *unit, name string, v dbus.Variant) {
	if base, ok := strings.CutSuffix(name, "Scale"); ok {
		// A share of the machine's memory or tasks sets the limit it
		// comes to.
		name, v = base, dbus.MakeVariant(scaledLimit(name, uint64(v.Value().(uint32)), math.MaxUint32))
	}
	if u.kind == "timer" && addTimerSetting(u.props, name, v) {
		return
	}
	if stdio, ok := strings.CutSuffix(name, "FileDescriptor"); ok && strings.HasPrefix(stdio, "Standard") {
		// The fake keeps no descriptor (busd closes it): the program
		// that would use it is never run (checkStdioFDs).
		u.props[stdio] = dbus.MakeVariant("fd")
		return
	}
	if name == "PIDs" {
		// Watched from now on; moved into the scope's cgroup, out of
		// the units that held them, when it starts (startScopeLocked).
		for _, pid := range v.Value().([]uint32) {
			// A process named twice is in the scope once (a cgroup's
			// member; measured on 257 by the differential tester, 257
			// seed 261840 of a long run).
			if !zombie(pid) && !slices.Contains(u.pids, pid) {
				u.pids, u.populated = append(u.pids, pid), true
			}
		}
		return
	}
	if exitStatusSetting(name) {
		old, had := u.props[name]
		u.props[name] = joinExitStatusSet(old, had, v)
		return
	}
	switch name {
	case "StandardOutput":
		if v.Value() == "inherit" {
			// Inherited from DefaultStandardOutput=, which is journal.
			v = dbus.MakeVariant("journal")
		}
	case "OnFailure":
		// A unit of a type that cannot fail takes none (unit_add_dependency:
		// "Requested dependency OnFailure= ignored (slice units cannot
		// fail)"; measured on 247-262 by the differential tester).
		if u.kind == "slice" || u.kind == "device" {
			v = dbus.MakeVariant([]string{})
			break
		}
		fallthrough
	case "Wants", "Requires", "Requisite", "BindsTo", "PartOf", "Conflicts", "Before", "After", "OnSuccess":
		// A unit does not depend on itself: systemd drops the name
		// (unit_add_dependency; measured on 247-262 by the differential
		// tester: Wants= of its own name left its start waiting).
		if l, ok := v.Value().([]string); ok && slices.Contains(l, u.name) {
			v = dbus.MakeVariant(slices.DeleteFunc(slices.Clone(l), func(n string) bool { return n == u.name }))
		}
	case "RequiresMountsFor", "WantsMountsFor":
		var paths []string
		for _, p := range v.Value().([]string) {
			paths = append(paths, simplifyPath(p))
		}
		v = dbus.MakeVariant(append([]string{}, paths...))
	case "WorkingDirectory":
		if d, ok := strings.CutPrefix(v.Value().(string), "-"); ok {
			v = dbus.MakeVariant("!" + d) // systemd's form of "missing is fine"
		}
	case "JobTimeoutUSec":
		if v.Value() == uint64(0) {
			v = dbus.MakeVariant(infinity)
		}
	case "AllowedCPUs", "StartupAllowedCPUs", "AllowedMemoryNodes", "StartupAllowedMemoryNodes":
		// systemd keeps a CPU set in whole 64-bit words.
		if b := v.Value().([]byte); len(b)%8 != 0 {
			v = dbus.MakeVariant(append(slices.Clone(b), make([]byte, 8-len(b)%8)...))
		}
	}
	if nv, err := normalize(v); err == nil {
		v = nv
	}
	if isDeviceList(name) {
		m.setDeviceListLocked(u, name, v, false)
		return
	}
	if name == "Delegate" || name == "DelegateControllers" {
		m.setDelegateLocked(u, name, v.Value())
		return
	}
	if name == "DisableControllers" {
		// A mask: the controllers add to those set before, in systemd's
		// order; none resets it (bus_cgroup_set_property).
		old, _ := u.props[name].Value().([]string)
		given, _ := v.Value().([]string)
		u.props[name] = dbus.MakeVariant(controllerMask(old, given))
		return
	}
	old, had := u.props[name]
	v = joinProp(name, old, had, v)
	if name == "RequiresMountsFor" || name == "WantsMountsFor" {
		// A set of paths (systemd's hashmap): one given twice is
		// listed once (measured on 247 by the differential tester,
		// 247 seed 450230 of a long run).
		var paths []string
		for _, p := range v.Value().([]string) {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
		v = dbus.MakeVariant(append([]string{}, paths...))
	}
	u.props[name] = v
	switch name {
	case "Requires", "BindsTo", "PartOf", "Conflicts":
		if !m.reverse[u] {
			m.reverse[u] = true
			m.reverseSorted = nil
		}
	}
}

// joinProp is the value property name has once v is set on old, its
// value before (had: whether it had one): a list appends, as in systemd;
// an empty command list clears it instead. (The per-device lists have
// rules of their own: devicelist.go.)
func joinProp(name string, old dbus.Variant, had bool, v dbus.Variant) dbus.Variant {
	if !appends(name) || !had || old.Signature() != v.Signature() || clearsWhenEmpty(name, v) {
		return v
	}
	joined := reflect.AppendSlice(reflect.ValueOf(old.Value()), reflect.ValueOf(v.Value()))
	return dbus.MakeVariantWithSignature(joined.Interface(), v.Signature())
}

// clearsWhenEmpty reports whether v is an empty list that resets the
// property: systemd's bus_set_transient_exec_command empties a command
// list when it gets none (ExecStart=).
func clearsWhenEmpty(name string, v dbus.Variant) bool {
	switch name {
	case "ExecCondition", "ExecStartPre", "ExecStart", "ExecStartPost", "ExecReload", "ExecStop", "ExecStopPre", "ExecStopPost":
		rv := reflect.ValueOf(v.Value())
		return rv.Kind() == reflect.Slice && rv.Len() == 0
	}
	return false
}

func appends(name string) bool {
	switch name {
	case "Wants", "Requires", "Requisite", "BindsTo", "PartOf", "Conflicts", "Before", "After",
		"OnFailure", "OnSuccess", "Documentation", "Environment",
		"Conditions", "Asserts", "RequiresMountsFor", "WantsMountsFor",
		"ExecCondition", "ExecStartPre", "ExecStart", "ExecStartPost", "ExecReload", "ExecStop", "ExecStopPre", "ExecStopPost":
		return true
	}
	return false
}

// ioEntry and devEntry are the element types of a(st) and a(ss)
// properties (IODeviceWeight and friends; DeviceAllow).
type ioEntry struct {
	Path  string
	Value uint64
}

type devEntry struct {
	Specifier string
	Access    string
}

// normalize turns a property value into Go types godbus can encode again.
// godbus decodes structs as []any, which it cannot re-encode, and values
// built by a client library may use that library's own struct types.
func normalize(v dbus.Variant) (dbus.Variant, error) {
	sig := v.Signature().String()
	var target any
	switch sig {
	case "a(st)":
		target = &[]ioEntry{}
	case "a(ss)":
		target = &[]devEntry{}
	case "a(sasb)":
		target = &[]execCommand{}
	case "a(sbbs)":
		target = &[]condition{}
	default:
		if strings.Contains(sig, "(") {
			return v, fmt.Errorf("unsupported property type %s", sig)
		}
		return v, nil
	}
	// Values decoded from the wire hold structs as []any, which Store
	// converts; a client library's own struct types need a trip over the
	// wire first.
	if err := dbus.Store([]any{v.Value()}, target); err != nil {
		wire, err := roundTrip(v)
		if err != nil {
			return v, err
		}
		if err := dbus.Store([]any{wire.Value()}, target); err != nil {
			return v, err
		}
	}
	return dbus.MakeVariantWithSignature(reflect.ValueOf(target).Elem().Interface(), v.Signature()), nil
}

// roundTrip encodes v as a D-Bus message body and decodes it again.
func roundTrip(v dbus.Variant) (dbus.Variant, error) {
	m := &dbus.Message{Type: dbus.TypeSignal, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:      dbus.MakeVariant(dbus.ObjectPath("/")),
		dbus.FieldInterface: dbus.MakeVariant("x.x"),
		dbus.FieldMember:    dbus.MakeVariant("X"),
		dbus.FieldSignature: dbus.MakeVariant(dbus.SignatureOf(v)),
	}, Body: []any{v}}
	var buf bytes.Buffer
	if err := m.EncodeTo(&buf, binary.LittleEndian); err != nil {
		return v, err
	}
	d, err := dbus.DecodeMessage(&buf)
	if err != nil {
		return v, err
	}
	return d.Body[0].(dbus.Variant), nil
}
