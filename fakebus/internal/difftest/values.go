package difftest

import "math"

// The settable properties the generator draws from, with the D-Bus type
// systemd's parsers take (src/core/dbus-unit.c, dbus-execute.c,
// dbus-kill.c, dbus-cgroup.c, dbus-service.c, dbus-scope.c) and the
// values worth trying: each range's ends and their neighbours, 0, 1, the
// largest value and infinity, empty and odd strings. The table is this
// package's own, written from systemd's documentation and parsers, not
// read from the fake's: a property the fake does not know belongs here
// as much as one it does.

// unitKind is a unit type the pool has.
type unitKind string

const (
	kService unitKind = "service"
	kScope   unitKind = "scope"
	kSlice   unitKind = "slice"
	kSocket  unitKind = "socket"
	kTimer   unitKind = "timer"
	kTarget  unitKind = "target"
)

// propScope is which unit types take a property.
type propScope int

const (
	onUnit   propScope = iota // every type (dbus-unit.c)
	onExec                    // services and scopes: kill and cgroup-placement settings
	onCgroup                  // services, scopes, slices (and sockets)
	onService
	onScope
	onTimer
)

func (s propScope) takes(k unitKind) bool {
	switch s {
	case onUnit:
		return true
	case onExec:
		return k == kService || k == kScope
	case onCgroup:
		return k == kService || k == kScope || k == kSlice || k == kSocket
	case onService:
		return k == kService
	case onScope:
		return k == kScope
	case onTimer:
		return k == kTimer
	}
	return false
}

// propSpec is one settable property: its name, where it is read back (the
// unit's type interface or org.freedesktop.systemd1.Unit), which unit
// types take it and the values to try, each already of the D-Bus type
// systemd expects.
type propSpec struct {
	name   string
	onUnit bool // read back on the Unit interface
	scope  propScope
	values []any
}

const inf = uint64(math.MaxUint64)

var (
	memoryValues = []any{uint64(0), uint64(1), uint64(4095), uint64(4096), uint64(1 << 30), inf - 1, inf}
	weightValues = []any{uint64(0), uint64(1), uint64(100), uint64(10000), uint64(10001), inf}
	// A finite time is an hour: no sequence lasts that long, so a
	// RuntimeMaxUSec= or a timer never elapses during a run by chance (a
	// second did, on a loaded machine, on one backend and not the other).
	usecValues = []any{uint64(0), uint64(1), uint64(3600000000), inf}
	// A percentage as systemd's *Scale properties take it: a fraction
	// of UINT32_MAX.
	scaleValues = []any{uint32(0), uint32(1), uint32(math.MaxUint32 / 2), uint32(math.MaxUint32)}
	boolValues  = []any{true, false}
	// Exit status sets (aiai): exit statuses, then signals.
	exitStatusValues = []any{
		ExitStatusValue{[]int32{}, []int32{}}, ExitStatusValue{[]int32{1}, nil}, ExitStatusValue{[]int32{3, 0, 3}, []int32{15}},
		ExitStatusValue{[]int32{255}, []int32{9, 1}}, ExitStatusValue{[]int32{256}, nil}, ExitStatusValue{[]int32{-1}, nil},
		ExitStatusValue{nil, []int32{0}}, ExitStatusValue{nil, []int32{64}}, ExitStatusValue{nil, []int32{65, 1000}}, ExitStatusValue{nil, []int32{-1}},
	}
)

// props are the settable properties the generator draws from.
var props = []propSpec{
	{name: "Description", onUnit: true, scope: onUnit, values: []any{"", "a unit", "ümlaut\ttab"}},
	{name: "CollectMode", onUnit: true, scope: onUnit, values: []any{"inactive", "inactive-or-failed", "", "bogus"}},
	{name: "OnFailureJobMode", onUnit: true, scope: onUnit, values: []any{"fail", "isolate", "ignore-requirements", "triggering", "restart-dependencies", "", "bogus"}},
	{name: "OnSuccessJobMode", onUnit: true, scope: onUnit, values: []any{"replace", "ignore-dependencies", "restart-dependencies", "bogus"}},
	{name: "DefaultDependencies", onUnit: true, scope: onUnit, values: boolValues},
	{name: "RefuseManualStop", onUnit: true, scope: onUnit, values: boolValues},
	{name: "RefuseManualStart", onUnit: true, scope: onUnit, values: boolValues},
	{name: "JobTimeoutUSec", onUnit: true, scope: onUnit, values: usecValues},
	{name: "StartLimitBurst", onUnit: true, scope: onUnit, values: []any{uint32(0), uint32(1), uint32(5)}},
	{name: "StartLimitIntervalUSec", onUnit: true, scope: onUnit, values: []any{uint64(0), uint64(1), uint64(3600000000), uint64(math.MaxUint64)}},
	{name: "Wants", onUnit: true, scope: onUnit, values: []any{[]string{}, []string{"basic.target"}, []string{"bad name"}, []string{"nosuch.service"}}},
	{name: "RequiresMountsFor", onUnit: true, scope: onUnit, values: []any{[]string{}, []string{"/nonexistent"}, []string{"relative"}, []string{"/a//b/../c/"}}},
	{name: "WantsMountsFor", onUnit: true, scope: onUnit, values: []any{[]string{}, []string{"/nonexistent", "/tmp/x"}, []string{"relative"}, []string{"/a//b/../c/"}}},
	{name: "After", onUnit: true, scope: onUnit, values: []any{[]string{}, []string{"basic.target"}, []string{"-.slice"}}},
	{name: "Documentation", onUnit: true, scope: onUnit, values: []any{[]string{}, []string{"https://example.com/doc"}, []string{"man:systemd(1)", "file:/x"}, []string{"bogus"}, []string{""}}},
	// Not true: a service that may be isolated, started in isolate mode,
	// stops every other unit, the sandbox's bus among them (measured on
	// 247: the sandbox ended).
	{name: "AllowIsolate", onUnit: true, scope: onUnit, values: []any{false}},
	{name: "Slice", scope: onExec, values: []any{"", "-.slice", "system.slice", "bogus", "nosuch.slice", "a-b.slice", "init.scope"}},

	{name: "Type", scope: onService, values: []any{"simple", "exec", "oneshot", "forking", "notify", "dbus", "idle", "", "bogus"}},
	{name: "BusName", scope: onService, values: []any{"", "org.example.X", ":1.5", "x", "bogus name"}},
	{name: "RemainAfterExit", scope: onService, values: boolValues},
	{name: "Restart", scope: onService, values: []any{"no", "on-failure", "bogus", ""}},
	// From 254: how a restarting service goes (direct: not by failed),
	// and its hold-offs growing from RestartUSec= to the maximum in so
	// many steps.
	{name: "RestartMode", scope: onService, values: []any{"normal", "direct", "debug", "", "bogus"}},
	{name: "RestartSteps", scope: onService, values: []any{uint32(0), uint32(3), uint32(math.MaxUint32)}},
	{name: "RestartMaxDelayUSec", scope: onService, values: []any{uint64(0), uint64(1), uint64(50000), uint64(math.MaxUint64)}},
	// Exit statuses 1 and 3 and SIGKILL and SIGTERM are those of
	// commands and KillUnit; 256 and -1 out of range; signal 0 and
	// those past SIGRTMAX no process ends by.
	{name: "SuccessExitStatus", scope: onService, values: exitStatusValues},
	{name: "RestartPreventExitStatus", scope: onService, values: exitStatusValues},
	{name: "RestartForceExitStatus", scope: onService, values: exitStatusValues},
	// The hold-off before a restart: none, 100 ms, an hour, never.
	{name: "RestartUSec", scope: onService, values: []any{uint64(0), uint64(100000), uint64(3600000000), inf}},
	{name: "TimeoutStopUSec", scope: onExec, values: usecValues},
	// A service's watchdog abort timeout (the stop timeout when unset).
	{name: "TimeoutAbortUSec", scope: onService, values: usecValues},
	{name: "RuntimeMaxUSec", scope: onExec, values: usecValues},
	// A scope takes User= and Group= from 252 (the owner of its delegated
	// cgroup); 12345 is an id no account has, a:b a name systemd refuses.
	{name: "User", scope: onExec, values: []any{"root", "nobody", "0", "65534", "nosuchuser", "", "-bad", "4294967295", "12345", "a:b"}},
	{name: "Group", scope: onExec, values: []any{"root", "nogroup", "nosuchgroup", "", "12345"}},
	{name: "WorkingDirectory", scope: onService, values: []any{"/", "/nonexistent", "relative", "~", "", "-/nonexistent"}},
	{name: "Environment", scope: onService, values: []any{[]string{"A=1"}, []string{}, []string{"A"}, []string{"=x"}, []string{""}, []string{"A=1", "A=2"}}},
	{name: "Nice", scope: onService, values: []any{int32(-21), int32(-20), int32(0), int32(19), int32(20)}},
	{name: "OOMScoreAdjust", scope: onService, values: []any{int32(-1001), int32(-1000), int32(0), int32(1000), int32(1001)}},
	{name: "LimitNOFILE", scope: onService, values: []any{uint64(0), uint64(1024), inf}},
	{name: "StandardOutput", scope: onService, values: []any{"null", "journal", "inherit", "file:/dev/null", "bogus"}},

	{name: "StandardError", scope: onService, values: []any{"inherit", "null", "journal", "bogus"}},
	{name: "LimitNPROC", scope: onService, values: []any{uint64(0), uint64(1024), inf}},
	{name: "LimitCORE", scope: onService, values: []any{uint64(0), uint64(1 << 20), inf - 1, inf}},
	{name: "OOMPolicy", scope: onExec, values: []any{"continue", "stop", "kill", "bogus"}},
	{name: "KillMode", scope: onExec, values: []any{"control-group", "process", "mixed", "none", "bogus"}},
	{name: "KillSignal", scope: onExec, values: []any{int32(0), int32(1), int32(9), int32(15), int32(64), int32(65)}},
	{name: "SendSIGKILL", scope: onExec, values: boolValues},
	{name: "SendSIGHUP", scope: onExec, values: boolValues},
	{name: "IgnoreSIGPIPE", scope: onService, values: boolValues},
	{name: "FinalKillSignal", scope: onExec, values: []any{int32(0), int32(1), int32(9), int32(15), int32(64), int32(65)}},

	{name: "MemoryMin", scope: onCgroup, values: memoryValues},
	{name: "MemoryLow", scope: onCgroup, values: memoryValues},
	{name: "MemoryHigh", scope: onCgroup, values: memoryValues},
	{name: "MemoryMax", scope: onCgroup, values: memoryValues},
	{name: "MemorySwapMax", scope: onCgroup, values: memoryValues},
	{name: "MemoryMaxScale", scope: onCgroup, values: scaleValues},
	{name: "MemoryHighScale", scope: onCgroup, values: scaleValues},
	{name: "TasksMax", scope: onCgroup, values: []any{uint64(0), uint64(1), uint64(4096), inf}},
	{name: "TasksMaxScale", scope: onCgroup, values: scaleValues},
	{name: "CPUWeight", scope: onCgroup, values: weightValues},
	{name: "StartupCPUWeight", scope: onCgroup, values: weightValues},
	{name: "IOWeight", scope: onCgroup, values: weightValues},
	{name: "CPUQuotaPerSecUSec", scope: onCgroup, values: []any{uint64(0), uint64(1), uint64(10000), uint64(1000000), inf}},
	{name: "CPUShares", scope: onCgroup, values: []any{uint64(0), uint64(1), uint64(2), uint64(262144), uint64(262145), inf}},
	{name: "AllowedCPUs", scope: onCgroup, values: []any{[]byte{}, []byte{1}, []byte{0xff, 0xff}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1}}},
	{name: "MemoryAccounting", scope: onCgroup, values: boolValues},
	{name: "CPUAccounting", scope: onCgroup, values: boolValues},
	{name: "IOAccounting", scope: onCgroup, values: boolValues},
	{name: "BlockIOAccounting", scope: onCgroup, values: boolValues},
	{name: "IPAccounting", scope: onCgroup, values: boolValues},
	// The period CPUQuota= applies to: systemd clamps it to 1 ms-1 s
	// as it writes the cgroup, and stores what it was given.
	{name: "CPUQuotaPeriodUSec", scope: onCgroup, values: []any{uint64(0), uint64(1), uint64(1000), uint64(100000), uint64(1000000), uint64(1000001), inf}},
	{name: "StartupIOWeight", scope: onCgroup, values: weightValues},
	{name: "StartupAllowedCPUs", scope: onCgroup, values: []any{[]byte{}, []byte{1}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1}}},
	{name: "AllowedMemoryNodes", scope: onCgroup, values: []any{[]byte{}, []byte{1}, []byte{0xff}}},
	// From 253.
	{name: "MemoryZSwapMax", scope: onCgroup, values: memoryValues},
	{name: "DisableControllers", scope: onCgroup, values: []any{[]string{}, []string{"cpu"}, []string{"memory", "io"}, []string{"bogus"}}},
	{name: "ManagedOOMSwap", scope: onCgroup, values: []any{"auto", "kill", "bogus"}},
	{name: "ManagedOOMMemoryPressure", scope: onCgroup, values: []any{"auto", "kill", "bogus"}},
	{name: "ManagedOOMMemoryPressureLimit", scope: onCgroup, values: []any{uint32(0), uint32(1), uint32(math.MaxUint32)}},
	{name: "ManagedOOMMemoryPressureDurationUSec", scope: onCgroup, values: []any{uint64(0), uint64(999999), uint64(1000000), inf}},
	{name: "ManagedOOMPreference", scope: onCgroup, values: []any{"none", "avoid", "omit", "", "bogus"}},
	{name: "BlockIOWeight", scope: onCgroup, values: []any{uint64(0), uint64(10), uint64(1000), uint64(1001)}},
	{name: "MemoryLimit", scope: onCgroup, values: []any{uint64(0), uint64(4096), inf}},
	{name: "TasksAccounting", scope: onCgroup, values: boolValues},
	{name: "Delegate", scope: onExec, values: boolValues},
	// From 254: the subgroup of a delegated cgroup the main process
	// goes to.
	{name: "DelegateSubgroup", scope: onExec, values: []any{"", "sub", "a/b", "..", "-bad"}},
	{name: "DelegateControllers", scope: onExec, values: []any{[]string{}, []string{"cpu"}, []string{"memory", "pids"}, []string{"bogus"}}},
	{name: "DevicePolicy", scope: onCgroup, values: []any{"auto", "closed", "strict", "bogus"}},
	// The per-device lists, which a SetUnitProperties call adds to and
	// its drop-in writes whole.
	{name: "DeviceAllow", scope: onCgroup, values: []any{
		[]DeviceValue{{"/dev/null", "r"}}, []DeviceValue{}, []DeviceValue{{"/dev/zero", "rw"}, {"char-pts", "rwm"}},
		[]DeviceValue{{"/dev/null", ""}}, []DeviceValue{{"bogus", "r"}}, []DeviceValue{{"/dev/null", "x"}}}},
	{name: "IODeviceWeight", scope: onCgroup, values: []any{
		[]IOValue{{"/dev/null", 100}}, []IOValue{}, []IOValue{{"/dev/zero", 1}, {"/dev/null", 10000}},
		[]IOValue{{"/dev/null", 0}}, []IOValue{{"/dev/null", 10001}}, []IOValue{{"relative", 5}}}},
	{name: "IOReadBandwidthMax", scope: onCgroup, values: []any{
		[]IOValue{{"/dev/null", 1 << 20}}, []IOValue{}, []IOValue{{"/dev/zero", 0}, {"/dev/null", inf}}, []IOValue{{"relative", 5}}}},
	{name: "IOWriteIOPSMax", scope: onCgroup, values: []any{
		[]IOValue{{"/dev/null", 1000}}, []IOValue{}, []IOValue{{"/dev/zero", 0}, {"/dev/null", inf}}, []IOValue{{"relative", 5}}}},
	{name: "IODeviceLatencyTargetUSec", scope: onCgroup, values: []any{
		[]IOValue{{"/dev/null", 1000}}, []IOValue{}, []IOValue{{"/dev/zero", 0}, {"/dev/null", inf}}, []IOValue{{"relative", 5}}}},

	// Timers (dbus-timer.c): the monotonic and calendar lists, and the
	// single-value forms systemd-run and older clients send.
	{name: "TimersMonotonic", scope: onTimer, values: []any{
		[]TimerValue{{"OnActiveSec", 3600000000}}, []TimerValue{{"OnActiveSec", 0}}, []TimerValue{{"OnBootSec", 1}},
		[]TimerValue{{"OnUnitActiveSec", 3600000000}, {"OnUnitInactiveSec", 3600000000}}, []TimerValue{{"OnStartupSec", 3600000000}},
		[]TimerValue{{"OnActiveUSec", 3600000000}}, []TimerValue{{"OnCalendar", 1}}, []TimerValue{{"Bogus", 1}}, []TimerValue{}}},
	{name: "TimersCalendar", scope: onTimer, values: []any{
		[]CalendarValue{{"OnCalendar", "daily"}}, []CalendarValue{{"OnCalendar", "*-*-* 00:00:00"}}, []CalendarValue{{"OnCalendar", "bogus"}},
		[]CalendarValue{{"OnActiveSec", "daily"}}, []CalendarValue{{"OnCalendar", ""}}, []CalendarValue{}}},
	{name: "OnActiveSec", scope: onTimer, values: []any{uint64(3600000000), uint64(0)}},
	{name: "OnCalendar", scope: onTimer, values: []any{"daily", "bogus", ""}},
	{name: "AccuracyUSec", scope: onTimer, values: []any{uint64(0), uint64(1), uint64(60000000), inf}},
	// A delay is drawn below the value, by each backend on its own: 1 µs
	// draws 0, infinity (or the hour the replays use) never elapses
	// during a run; a second elapsed on one backend before the tester
	// looked and not on the other (252 seed 64011 of a long run).
	{name: "RandomizedDelayUSec", scope: onTimer, values: []any{uint64(0), uint64(1), inf}},
	{name: "Persistent", scope: onTimer, values: boolValues},
	{name: "WakeSystem", scope: onTimer, values: boolValues},
	{name: "RemainAfterElapse", scope: onTimer, values: boolValues},
	{name: "OnClockChange", scope: onTimer, values: boolValues},
	{name: "OnTimezoneChange", scope: onTimer, values: boolValues},
	{name: "FixedRandomDelay", scope: onTimer, values: boolValues},
}

// TimerValue and CalendarValue are the elements of a timer's
// TimersMonotonic (a(st)) and TimersCalendar (a(ss)) settings,
// DeviceValue and IOValue those of DeviceAllow (a(ss)) and the per-device
// IO lists (a(st)).
type (
	TimerValue struct {
		Base string
		Usec uint64
	}
	CalendarValue struct{ Base, Spec string }
	// ExitStatusValue is an exit status set (aiai): SuccessExitStatus=,
	// RestartPreventExitStatus=, RestartForceExitStatus=.
	ExitStatusValue struct{ Status, Signal []int32 }
	DeviceValue     struct{ Path, Access string }
	IOValue         struct {
		Path  string
		Value uint64
	}
)

// wrongValues are values of a type no settable property above has as its
// own, to try each property with the wrong type.
var wrongValues = []any{"x", uint32(7), int64(-1), []int32{1}}

// commands are the ExecStart= commands a service is given: programs whose
// outcome does not depend on timing (a sleep long enough to be stopped
// first, programs that exit at once) and a program that does not exist.
var commands = [][]string{
	{"/bin/sleep", "1000"},
	{"/bin/true"},
	{"/bin/false"},
	{"/bin/sh", "-c", "exit 3"},
	{"/nonexistent/program"},
}

// controlSettings are the settings of a service's control commands the
// tester gives a transient service, from commands. The fake runs
// ExecStopPost= at once, whatever the program (docs/fakebus.md): only
// those of controlTimed are given commands that take time.
var (
	controlSettings = []string{"ExecCondition", "ExecStartPre", "ExecStartPost", "ExecReload", "ExecStop", "ExecStopPost"}
	controlTimed    = map[string]bool{"ExecCondition": true, "ExecStartPre": true, "ExecStartPost": true, "ExecReload": true, "ExecStop": true}
)

// jobModes are the modes jobs are started, stopped and restarted with:
// those of every release, one refused everywhere.
var jobModes = []string{"replace", "fail", "ignore-dependencies", "ignore-requirements", "isolate", "replace-irreversibly", "triggering", "bogus"}

// killWhom and killSignals are KillUnit's arguments.
var (
	killWhom    = []string{"all", "all-fail", "main", "control", "bogus"}
	killSignals = []int32{0, 1, 9, 13, 15, 64, 65}
)

// hazards are settings a release cannot be sent at all: the tester leaves
// them out for it (docs/fakesystemd.md lists them with the known
// differences).
var hazards = []struct {
	major int // the release
	prop  string
	value any
	why   string
}{
	// Measured: PID 1 of 247 aborts (assertion 'name' failed in
	// unit_watch_bus_name) at StartTransientUnit of a Type=dbus service
	// without BusName=.
	{247, "Type", "dbus", "PID 1 aborts"},
	// Measured: 262 fails the start of a timer with WakeSystem=yes
	// (result resources, as 247 to 257 do in the sandbox) on some boots
	// and starts it on others.
	{262, "WakeSystem", true, "262's outcome differs from boot to boot"},
}

// propsFor is the property table without the values that are hazards for
// release major.
func propsFor(major int) []propSpec {
	out := make([]propSpec, 0, len(props))
	for _, p := range props {
		var vals []any
		for _, v := range p.values {
			bad := false
			for _, h := range hazards {
				bad = bad || h.major == major && h.prop == p.name && h.value == v
			}
			if !bad {
				vals = append(vals, v)
			}
		}
		p.values = vals
		out = append(out, p)
	}
	return out
}
