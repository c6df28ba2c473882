package difftest

import (
	"fmt"
	"strings"
)

// Unit files: the grammar WriteUnitFile steps draw from, and how a file's
// text is made. Like the property table (values.go), the grammar is this
// package's own, written from systemd.unit(5), systemd.service(5),
// systemd.socket(5), systemd.timer(5), systemd.slice(5) and
// systemd.resource-control(5): each directive's first value is a plain
// valid one, the others its edge and invalid values.

// FileDir is where a WriteUnitFile step writes the unit's file, or a
// drop-in of it.
type FileDir int

const (
	// Outside is a directory of the run's own, off the unit path: the
	// file is seen once linked or enabled by path.
	Outside FileDir = iota
	// InConfig is the manager's configuration directory
	// (/etc/systemd/system).
	InConfig
	// InRuntime is the manager's runtime directory (/run/systemd/system).
	InRuntime
	// InDropIn is a drop-in of the unit in the manager's configuration
	// directory (NAME.d/difftest.conf): not the unit's file, which
	// RemoveUnitFile and EnableUnitFiles by path keep naming.
	InDropIn
)

func (d FileDir) String() string {
	switch d {
	case Outside:
		return "Outside"
	case InConfig:
		return "InConfig"
	case InRuntime:
		return "InRuntime"
	case InDropIn:
		return "InDropIn"
	}
	return fmt.Sprintf("FileDir(%d)", int(d))
}

// Directive is one line of a unit file: Key=Value in Section; with no
// Key, Value is the line as it is (a malformed one). In Value, {u<i>}
// stands for pool unit i's name, {a<i>} for an alias of it and {dir} for
// the run's outside directory.
type Directive struct {
	Section, Key, Value string
}

// fileText is the unit file of lines: each section once, in the order
// lines first name it, with its lines in order.
func fileText(lines []Directive, expand func(string) string) string {
	var order []string
	by := map[string][]string{}
	for _, l := range lines {
		if _, ok := by[l.Section]; !ok {
			order = append(order, l.Section)
		}
		line := expand(l.Value)
		if l.Key != "" {
			line = l.Key + "=" + line
		}
		by[l.Section] = append(by[l.Section], line)
	}
	var b strings.Builder
	for i, s := range order {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[%s]\n", s)
		for _, l := range by[s] {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// directiveSpec is a directive the grammar draws, with its values (the
// first a plain valid one) and the property it reads back as ("" for
// none the record shows).
type directiveSpec struct {
	section, key string
	values       []string
	prop         string
}

// unitDirectives are the [Unit] and [Install] directives every type
// takes.
var unitDirectives = []directiveSpec{
	{"Unit", "Description", []string{"difftest unit", ""}, "Description"},
	{"Unit", "Wants", []string{"{u0}", "{u7}", "{u1} {u0}", "nosuch.service", "not a name", "nosuch@.service"}, "Wants"},
	{"Unit", "Requires", []string{"{u1}", "nosuch.service"}, "Requires"},
	{"Unit", "After", []string{"{u0}"}, "After"},
	{"Unit", "RefuseManualStart", []string{"yes", "no", "maybe"}, "RefuseManualStart"},
	{"Unit", "StartLimitBurst", []string{"1", "0", "bogus"}, "StartLimitBurst"},
	{"Unit", "StartLimitIntervalSec", []string{"1h", "0", "infinity"}, "StartLimitIntervalUSec"},
	{"Unit", "StartLimitInterval", []string{"1h", "bogus"}, "StartLimitIntervalUSec"},
	{"Unit", "ConditionPathExists", []string{"/", "/nonexistent", "!/nonexistent", "|/nonexistent", "relative", ""}, ""},
	{"Unit", "NoSuchDirective", []string{"1"}, ""},
	{"Unit", "Conflicts", []string{"{u1}", "nosuch.service"}, "Conflicts"},
	{"Unit", "BindsTo", []string{"{u1}"}, "BindsTo"},
	{"Unit", "PartOf", []string{"{u7}"}, "PartOf"},
	{"Unit", "OnFailure", []string{"{u1}", "nosuch.service"}, "OnFailure"},
	{"Unit", "OnSuccess", []string{"{u1}"}, "OnSuccess"},
	{"Unit", "OnFailureJobMode", []string{"ignore-requirements", "isolate", "bogus"}, "OnFailureJobMode"},
	{"Unit", "OnFailureIsolate", []string{"yes", "bogus"}, "OnFailureJobMode"},
	{"Unit", "OnSuccessJobMode", []string{"replace", "bogus"}, "OnSuccessJobMode"},
	{"Unit", "WantsMountsFor", []string{"/nonexistent /tmp/y", "relative", ""}, "WantsMountsFor"},
	{"Unit", "CollectMode", []string{"inactive-or-failed", "bogus"}, "CollectMode"},
	{"Unit", "JobTimeoutSec", []string{"1h", "0", "bogus"}, "JobTimeoutUSec"},
	{"Unit", "DefaultDependencies", []string{"no", "yes", "bogus"}, "DefaultDependencies"},
	{"Unit", "RefuseManualStop", []string{"yes", "bogus"}, "RefuseManualStop"},
	{"Unit", "Documentation", []string{"man:difftest(1)", "bogus", ""}, "Documentation"},
	{"Install", "WantedBy", []string{"{u7}", "multi-user.target", "nosuch.target", ""}, ""},
	{"Install", "RequiredBy", []string{"{u7}"}, ""},
	{"Install", "Alias", []string{"{a}", "{u0}", "other.name"}, ""},
	{"Install", "Also", []string{"{u1}"}, ""},
}

// kindDirectives are each type's own directives; the first is the one a
// unit of the type needs, drawn first and most often.
var kindDirectives = map[unitKind][]directiveSpec{
	kService: {
		{"Service", "ExecStart", []string{"/bin/sleep 1000", "/bin/true", "/bin/false", "/nonexistent/program", "", "true", "-/bin/false"}, "ExecStart"},
		{"Service", "Type", []string{"simple", "oneshot", "exec", "forking", "notify", "idle", "bogus"}, "Type"},
		{"Service", "RemainAfterExit", []string{"yes", "no", "maybe"}, "RemainAfterExit"},
		{"Service", "Restart", []string{"no", "on-failure", "always", "bogus"}, "Restart"},
		{"Service", "RestartMode", []string{"direct", "debug", "bogus"}, "RestartMode"},
		{"Service", "RestartSteps", []string{"3", "0", "bogus"}, "RestartSteps"},
		{"Service", "RestartMaxDelaySec", []string{"1s", "infinity", "0", "bogus"}, "RestartMaxDelayUSec"},
		{"Service", "SuccessExitStatus", []string{"3 TEMPFAIL SIGUSR1", "", "bogus 300", "0 SIGKILL RTMIN+2", "CHDIR"}, "SuccessExitStatus"},
		{"Service", "RestartPreventExitStatus", []string{"1", "SIGKILL", ""}, "RestartPreventExitStatus"},
		{"Service", "RestartForceExitStatus", []string{"3", "SIGTERM 0", "bogus"}, "RestartForceExitStatus"},
		// The start rate limit's older spellings, in [Service] too.
		{"Service", "StartLimitBurst", []string{"2", "bogus"}, "StartLimitBurst"},
		{"Service", "StartLimitInterval", []string{"1h", "0"}, "StartLimitIntervalUSec"},
		{"Service", "User", []string{"root", "nosuchuser", "0"}, "User"},
		{"Service", "MemoryMax", []string{"1G", "0", "infinity", "bogus"}, "MemoryMax"},
		{"Service", "DeviceAllow", []string{"/dev/null r", "/dev/zero", "", "char-pts rw", "bogus r", "/dev/null x"}, "DeviceAllow"},
		{"Service", "IODeviceWeight", []string{"/dev/null 100", "", "/dev/null 0", "/dev/null"}, "IODeviceWeight"},
		{"Service", "IOReadBandwidthMax", []string{"/dev/null 1M", "/dev/null infinity", "", "/dev/null bogus"}, "IOReadBandwidthMax"},
		{"Service", "IODeviceLatencyTargetSec", []string{"/dev/null 25ms", "", "/dev/null bogus", "/dev/null"}, "IODeviceLatencyTargetUSec"},
		{"Service", "TimeoutStartSec", []string{"5", "infinity", "bogus"}, "TimeoutStartUSec"},
		{"Service", "LimitNOFILE", []string{"1024", "1024:4096", "infinity", "", "8M:bogus"}, "LimitNOFILE"},
		{"Service", "LimitCORE", []string{"5", "0:infinity", "", "2:1"}, "LimitCORESoft"},
		{"Service", "ExecCondition", []string{"/bin/true", "/bin/false", "/bin/sh -c 'exit 255'", "-/bin/false"}, "ExecCondition"},
		{"Service", "ExecStartPre", []string{"/bin/true", "/bin/false", "-/bin/false"}, "ExecStartPre"},
		{"Service", "ExecStop", []string{"/bin/true", "/bin/false"}, "ExecStop"},
		{"Service", "ExecReload", []string{"/bin/true", "/bin/false", "-/bin/false"}, "ExecReload"},
		{"Service", "ExecStopPost", []string{"/bin/true", "/bin/false"}, "ExecStopPost"},
		{"Service", "Environment", []string{"A=1", "A=1 B=2", `"A=x y"`, "A", ""}, "Environment"},
		{"Service", "WorkingDirectory", []string{"/", "-/nonexistent", "relative", "~"}, "WorkingDirectory"},
		{"Service", "Nice", []string{"5", "-20", "20", "bogus"}, "Nice"},
		{"Service", "KillSignal", []string{"SIGTERM", "9", "SIGBOGUS", "0"}, "KillSignal"},
		{"Service", "TimeoutStopSec", []string{"5", "infinity", "0", "bogus"}, "TimeoutStopUSec"},
		{"Service", "TimeoutAbortSec", []string{"5", "0", "infinity", "", "bogus"}, "TimeoutAbortUSec"},
		{"Service", "RuntimeMaxSec", []string{"1h", "0", "infinity"}, "RuntimeMaxUSec"},
		{"Service", "OOMScoreAdjust", []string{"100", "-1000", "1001"}, "OOMScoreAdjust"},
		{"Service", "CPUQuota", []string{"50%", "0%", "200%", "bogus"}, "CPUQuotaPerSecUSec"},
		{"Service", "Slice", []string{"{u4}", "bogus", "-.slice"}, "Slice"},
		{"Service", "Delegate", []string{"yes", "cpu memory", "bogus"}, "DelegateControllers"},
		{"Service", "KillMode", []string{"process", "mixed", "none", "bogus"}, "KillMode"},
		{"Service", "OOMPolicy", []string{"stop", "kill", "bogus"}, "OOMPolicy"},
		{"Service", "IgnoreSIGPIPE", []string{"no", "yes", "bogus"}, "IgnoreSIGPIPE"},
		{"Service", "Group", []string{"root", "nosuchgroup"}, "Group"},
	},
	kSocket: {
		{"Socket", "ListenStream", []string{"{dir}/socket", "", "bogus:address"}, ""},
		{"Socket", "Service", []string{"{u0}", "{u1}", "nosuch.service", "{u7}"}, ""},
		{"Socket", "Accept", []string{"no", "yes", "maybe"}, "Accept"},
	},
	kTimer: {
		{"Timer", "OnActiveSec", []string{"1h", "0", "bogus"}, "TimersMonotonic"},
		{"Timer", "OnCalendar", []string{"daily", "bogus"}, "TimersCalendar"},
		{"Timer", "OnBootSec", []string{"2h", ""}, "TimersMonotonic"},
		{"Timer", "Unit", []string{"{u0}", "{u1}", "nosuch.service", "{u7}"}, ""},
		{"Timer", "Persistent", []string{"yes", "no"}, "Persistent"},
	},
	kSlice: {
		{"Slice", "MemoryMax", []string{"1G", "0", "infinity", "bogus", "50%", ""}, "MemoryMax"},
		{"Slice", "CPUWeight", []string{"100", "0", "10001", "bogus"}, "CPUWeight"},
		{"Slice", "TasksMax", []string{"10", "10%", "infinity", "", "0"}, "TasksMax"},
		{"Slice", "MemoryHigh", []string{"1G", "infinity", "bogus"}, "MemoryHigh"},
		{"Slice", "IOWeight", []string{"100", "0", "10001"}, "IOWeight"},
		{"Slice", "CPUQuota", []string{"50%", "bogus"}, "CPUQuotaPerSecUSec"},
		{"Slice", "AllowedCPUs", []string{"0-1", "0", "bogus", ""}, "AllowedCPUs"},
		{"Slice", "DevicePolicy", []string{"closed", "bogus"}, "DevicePolicy"},
		{"Slice", "MemoryLow", []string{"1G", "0", "infinity", "50%", "bogus"}, "MemoryLow"},
		{"Slice", "CPUQuotaPeriodSec", []string{"10ms", "0", "infinity", "", "bogus"}, "CPUQuotaPeriodUSec"},
		{"Slice", "AllowedMemoryNodes", []string{"0", "0-1", "", "bogus"}, "AllowedMemoryNodes"},
	},
	kScope: {
		{"Scope", "RuntimeMaxSec", []string{"1h", "bogus"}, "RuntimeMaxUSec"},
	},
	kTarget: {
		{"Unit", "StopWhenUnneeded", []string{"yes", "no"}, "StopWhenUnneeded"},
	},
}

// malformedLines are lines systemd's parser warns about and skips.
var malformedLines = []Directive{
	{Section: "Unit", Value: "no equals sign"},
	{Section: "NoSuchSection", Key: "Key", Value: "value"},
	{Section: "Service", Key: "ExecStart", Value: "/bin/true"}, // a section of another type
}

// readBack returns the property a file's directive reads back as.
func readBack(k unitKind, key string) string {
	for _, list := range [][]directiveSpec{unitDirectives, kindDirectives[k]} {
		for _, d := range list {
			if d.key == key {
				return d.prop
			}
		}
	}
	return ""
}
