package capture

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Varies says why a property's value differs from boot to boot (or host
// to host), "" when it does not: the marker sdversions.Prop.Varies.
//
//   - "time": timestamps (every name with Timestamp in it; the timers'
//     NextElapseUSec* and LastTriggerUSec*, and TimersMonotonic and
//     TimersCalendar, which carry the next elapse).
//   - "order": a unit's dependency lists (Requires, After, ..., Names):
//     systemd lists them in hash order, which differs from boot to boot;
//     these values are recorded sorted (the only value changed).
//   - "pid": process IDs (MainPID, ControlPID, ExecMainPID) and the exec
//     command lists (ExecStart, ...) once a command ran (their PID and
//     timestamp fields are not zero).
//   - "id": InvocationID, ControlGroupId, a job's Id, a unit's Job.
//   - "usage": what a unit or the manager uses (Memory*Current,
//     Memory*Peak, MemoryAvailable, CPUUsageNSec, TasksCurrent, IO and IP
//     counters).
//   - "count": the manager's counts of names, jobs and failures.
//   - "host": what the host decides (architecture, virtualization,
//     taint, the manager's cgroup, environment, unit path, resource
//     limits, the Effective* limits of the machine, the default tasks
//     limit, the timer slack).
func Varies(kind string, p sdversions.Prop) string {
	n := p.Name
	switch {
	case strings.Contains(n, "Timestamp"),
		strings.HasPrefix(n, "NextElapseUSec"), strings.HasPrefix(n, "LastTriggerUSec"),
		n == "TimersMonotonic" || n == "TimersCalendar":
		return "time"
	case p.Interface == "org.freedesktop.systemd1.Unit" && p.Type == "as" && dependencies[n]:
		return "order"
	case n == "MainPID" || n == "ControlPID" || n == "ExecMainPID":
		return "pid"
	case strings.HasPrefix(n, "Exec") && strings.HasPrefix(p.Type, "a(sas") && ran(p.Value):
		return "pid"
	case n == "InvocationID" || n == "ControlGroupId",
		kind == "job" && n == "Id",
		n == "Job" && p.Type == "(uo)":
		return "id"
	case strings.HasPrefix(n, "Memory") && (strings.HasSuffix(n, "Current") || strings.HasSuffix(n, "Peak")),
		n == "MemoryAvailable", n == "CPUUsageNSec", n == "TasksCurrent",
		strings.HasPrefix(n, "IO") && (strings.HasSuffix(n, "Bytes") || strings.HasSuffix(n, "Operations")),
		strings.HasPrefix(n, "IP") && (strings.HasSuffix(n, "Bytes") || strings.HasSuffix(n, "Packets")):
		return "usage"
	case kind == "manager" && (strings.HasPrefix(n, "N") && n != "NRestarts" || n == "Progress" || n == "SystemState"):
		return "count"
	case kind == "manager" && (n == "Architecture" || n == "Virtualization" || n == "Tainted" ||
		n == "ControlGroup" || n == "Environment" || n == "UnitPath" || n == "TimerSlackNSec" ||
		n == "DefaultTasksMax" || strings.HasPrefix(n, "DefaultLimit") || n == "ConfidentialVirtualization"),
		strings.HasPrefix(n, "Limit"), n == "TimerSlackNSec",
		strings.HasPrefix(n, "Effective"):
		return "host"
	}
	return ""
}

// dependencies are the Unit properties that list a set of units in
// systemd's hash order.
var dependencies = map[string]bool{
	"Names": true, "Requires": true, "Requisite": true, "Wants": true, "BindsTo": true, "PartOf": true,
	"Upholds": true, "RequiredBy": true, "RequisiteOf": true, "WantedBy": true, "BoundBy": true,
	"UpheldBy": true, "ConsistsOf": true, "Conflicts": true, "ConflictedBy": true, "Before": true,
	"After": true, "OnSuccess": true, "OnSuccessOf": true, "OnFailure": true, "OnFailureOf": true,
	"Triggers": true, "TriggeredBy": true, "PropagatesReloadTo": true, "ReloadPropagatedFrom": true,
	"PropagatesStopTo": true, "StopPropagatedFrom": true, "JoinsNamespaceOf": true, "SliceOf": true,
	"RequiresMountsFor": true, "WantsMountsFor": true,
}

// settle sets p.Varies, and sorts a value whose order varies.
func settle(kind string, p *sdversions.Prop) {
	p.Varies = Varies(kind, *p)
	if p.Varies != "order" {
		return
	}
	var names []string
	if json.Unmarshal(p.Value, &names) != nil {
		return
	}
	sort.Strings(names)
	if b, err := json.Marshal(names); err == nil {
		p.Value = b
	}
}

// ran reports whether an exec command list (a(sasbttttuii) or
// a(sasasttttuii)) has a command with a PID or timestamp.
func ran(v json.RawMessage) bool {
	var cmds [][]json.RawMessage
	if json.Unmarshal(v, &cmds) != nil {
		return false
	}
	for _, c := range cmds {
		for _, f := range c[3:] {
			if !bytes.Equal(f, []byte("0")) {
				return true
			}
		}
	}
	return false
}
