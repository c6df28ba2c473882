package conformance

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// The access a caller that is not root gets: every method of the Manager,
// Unit, the unit types' and Job interfaces and every writable property,
// called by uid 65534 over the bus, with arguments valid enough to get
// past systemd's checks and, where systemd checks arguments before it
// asks polkit, with invalid ones too ("/bad-mode" and the like). Measured
// on 247, 252, 257 and 262 in scripts/sandbox (dbus-daemon with systemd's
// bus policy, no polkit): polkit's refusal is AccessDenied "Permission
// denied", the bus policy's dbus-daemon's "Rejected send message".

// accessChildEnv makes the test binary (TestAccessChild) the unprivileged
// client of testUnprivilegedAccess: it calls accessCalls on the bus at
// the address the variable holds and prints each answer.
const accessChildEnv = "SDBUS_CONFORMANCE_ACCESS_CHILD"

// accessPrintEnv makes testUnprivilegedAccess log every answer (to
// measure a release).
const accessPrintEnv = "SDBUS_CONFORMANCE_ACCESS_PRINT"

// nobody is the uid and gid the unprivileged client runs as.
const nobody = 65534

// accessTarget is what the client is given to call methods on: a running
// service, a unit whose start job stays queued (running ExecStartPre=) and
// that job, the release (for the methods only some releases have).
type accessTarget struct {
	Service, JobUnit string
	Job              uint32
	Release          sdversions.Release
}

// accessCall is one call the unprivileged client makes.
type accessCall struct {
	name string // "Interface.Method", with a "/variant" for other arguments
	// obj is the object called: "" the manager, "unit" the service's,
	// "job" the job's, else a path.
	obj    string
	iface  string // the interface, without org.freedesktop.systemd1.
	method string
	// manager is the Manager method whose presence in a release decides
	// whether the call is made ("" always).
	manager string
	args    func(a accessTarget) []any
}

func args(v ...any) func(accessTarget) []any { return func(accessTarget) []any { return v } }

func svc(v ...any) func(accessTarget) []any {
	return func(a accessTarget) []any { return append([]any{a.Service}, v...) }
}

func jobID(v ...any) func(accessTarget) []any {
	return func(a accessTarget) []any { return append([]any{a.Job}, v...) }
}

// noFileUnit is a valid unit name with no unit file anywhere.
const noFileUnit = "sdbus-conf-access-nofile.service"

type propValue struct {
	Name  string
	Value dbus.Variant
}

// accessCalls are the calls, in the order the client makes them.
var accessCalls = []accessCall{
	// Manager: lookups and reads.
	{name: "GetUnit", method: "GetUnit", args: svc()},
	{name: "GetUnitByPID", method: "GetUnitByPID", args: args(uint32(1))},
	{name: "GetUnitByControlGroup", method: "GetUnitByControlGroup", args: args("/init.scope")},
	{name: "LoadUnit", method: "LoadUnit", args: svc()},
	{name: "GetUnitProcesses", method: "GetUnitProcesses", args: svc()},
	{name: "GetJob", method: "GetJob", args: jobID()},
	{name: "GetJobAfter", method: "GetJobAfter", args: jobID()},
	{name: "GetJobBefore", method: "GetJobBefore", args: jobID()},
	{name: "ListUnits", method: "ListUnits", args: args()},
	{name: "ListUnitsFiltered", method: "ListUnitsFiltered", args: args([]string{"active"})},
	{name: "ListUnitsByPatterns", method: "ListUnitsByPatterns", args: args([]string{}, []string{"init.scope"})},
	{name: "ListUnitsByNames", method: "ListUnitsByNames", args: svc2list},
	{name: "ListJobs", method: "ListJobs", args: args()},
	{name: "Subscribe", method: "Subscribe", args: args()},
	{name: "Unsubscribe", method: "Unsubscribe", args: args()},
	{name: "Dump", method: "Dump", args: args()},
	{name: "DumpUnitsMatchingPatterns", method: "DumpUnitsMatchingPatterns", manager: "DumpUnitsMatchingPatterns", args: args([]string{"init.scope"})},
	{name: "ListUnitFiles", method: "ListUnitFiles", args: args()},
	{name: "ListUnitFilesByPatterns", method: "ListUnitFilesByPatterns", args: args([]string{}, []string{"none*"})},
	{name: "GetUnitFileState", method: "GetUnitFileState", args: args("multi-user.target")},
	{name: "GetDefaultTarget", method: "GetDefaultTarget", args: args()},
	{name: "GetUnitFileLinks", method: "GetUnitFileLinks", args: args(noFileUnit, false)},
	{name: "LookupDynamicUserByName", method: "LookupDynamicUserByName", args: args("sdbusconf")},
	{name: "LookupDynamicUserByUID", method: "LookupDynamicUserByUID", args: args(uint32(61000))},
	{name: "GetDynamicUsers", method: "GetDynamicUsers", args: args()},
	{name: "DumpUnitFileDescriptorStore", method: "DumpUnitFileDescriptorStore", manager: "DumpUnitFileDescriptorStore", args: svc()},

	// Manager: jobs.
	{name: "StartUnit", method: "StartUnit", args: svc("replace")},
	{name: "StartUnit/bad-mode", method: "StartUnit", args: svc("bogus")},
	{name: "StartUnit/bad-name", method: "StartUnit", args: args("bogus", "replace")},
	{name: "StartUnit/no-file", method: "StartUnit", args: args(noFileUnit, "replace")},
	{name: "StartUnitWithFlags", method: "StartUnitWithFlags", manager: "StartUnitWithFlags", args: svc("replace", uint64(0))},
	{name: "StartUnitWithFlags/bad-flags", method: "StartUnitWithFlags", manager: "StartUnitWithFlags", args: svc("replace", uint64(1))},
	{name: "StartUnitReplace", method: "StartUnitReplace", args: func(a accessTarget) []any { return []any{a.JobUnit, a.Service, "replace"} }},
	{name: "StartUnitReplace/no-job", method: "StartUnitReplace", args: func(a accessTarget) []any { return []any{a.Service, a.Service, "replace"} }},
	{name: "StopUnit", method: "StopUnit", args: svc("replace")},
	{name: "ReloadUnit", method: "ReloadUnit", args: svc("replace")},
	{name: "RestartUnit", method: "RestartUnit", args: svc("replace")},
	{name: "TryRestartUnit", method: "TryRestartUnit", args: svc("replace")},
	{name: "ReloadOrRestartUnit", method: "ReloadOrRestartUnit", args: svc("replace")},
	{name: "ReloadOrTryRestartUnit", method: "ReloadOrTryRestartUnit", args: svc("replace")},
	{name: "EnqueueUnitJob", method: "EnqueueUnitJob", args: svc("start", "replace")},
	{name: "EnqueueUnitJob/bad-type", method: "EnqueueUnitJob", args: svc("bogus", "replace")},
	{name: "EnqueueUnitJobMany", method: "EnqueueUnitJobMany", manager: "EnqueueUnitJobMany", args: func(a accessTarget) []any { return []any{[]string{a.Service}, "start", "replace", uint64(0)} }},
	{name: "EnqueueMarkedJobs", method: "EnqueueMarkedJobs", manager: "EnqueueMarkedJobs", args: args()},
	{name: "CancelJob", method: "CancelJob", args: jobID()},
	{name: "CancelJob/no-job", method: "CancelJob", args: args(uint32(4000000))},
	{name: "ClearJobs", method: "ClearJobs", args: args()},
	{name: "StartTransientUnit", method: "StartTransientUnit", args: args("sdbus-conf-access-transient.service", "replace",
		[]propValue{{"ExecStart", dbus.MakeVariant([]execCommand{{"/bin/true", []string{"/bin/true"}, false}})}}, []auxUnit{})},
	{name: "StartTransientUnit/bad-name", method: "StartTransientUnit", args: args("bogus", "replace", []propValue{}, []auxUnit{})},
	{name: "StartTransientUnit/bad-property", method: "StartTransientUnit", args: args("sdbus-conf-access-transient.service", "replace",
		[]propValue{{"Bogus", dbus.MakeVariant("x")}}, []auxUnit{})},

	// Manager: units.
	{name: "KillUnit", method: "KillUnit", args: svc("all", int32(18))},
	{name: "KillUnit/bad-whom", method: "KillUnit", args: svc("bogus", int32(18))},
	{name: "KillUnit/bad-signal", method: "KillUnit", args: svc("all", int32(0))},
	{name: "QueueSignalUnit", method: "QueueSignalUnit", manager: "QueueSignalUnit", args: svc("main", int32(34), int32(0))},
	{name: "KillUnitSubgroup", method: "KillUnitSubgroup", manager: "KillUnitSubgroup", args: svc("cgroup", "/x", int32(18))},
	{name: "RemoveSubgroupFromUnit", method: "RemoveSubgroupFromUnit", manager: "RemoveSubgroupFromUnit", args: svc("/x", uint64(0))},
	{name: "CleanUnit", method: "CleanUnit", args: svc([]string{"runtime"})},
	{name: "CleanUnit/bad-type", method: "CleanUnit", args: svc([]string{"bogus"})},
	{name: "FreezeUnit", method: "FreezeUnit", args: svc()},
	{name: "ThawUnit", method: "ThawUnit", args: svc()},
	{name: "ResetFailedUnit", method: "ResetFailedUnit", args: svc()},
	{name: "ResetFailedUnit/no-unit", method: "ResetFailedUnit", args: args(noFileUnit)},
	{name: "SetUnitProperties", method: "SetUnitProperties", args: svc(true, []propValue{{"CPUWeight", dbus.MakeVariant(uint64(100))}})},
	{name: "SetUnitProperties/bad-property", method: "SetUnitProperties", args: svc(true, []propValue{{"Bogus", dbus.MakeVariant("x")}})},
	{name: "BindMountUnit", method: "BindMountUnit", manager: "BindMountUnit", args: svc("/tmp", "/tmp", false, false)},
	{name: "MountImageUnit", method: "MountImageUnit", manager: "MountImageUnit", args: svc("/nonexistent.img", "/mnt", false, false, []mountOption{})},
	{name: "RefUnit", method: "RefUnit", args: svc()},
	{name: "UnrefUnit", method: "UnrefUnit", args: svc()},
	{name: "AttachProcessesToUnit", method: "AttachProcessesToUnit", args: svc("/", []uint32{})},
	{name: "AbandonScope", method: "AbandonScope", args: args("init.scope")},
	{name: "AbandonScope/no-unit", method: "AbandonScope", args: args("sdbus-conf-access-none.scope")},

	// Manager: the manager itself.
	{name: "Reload", method: "Reload", args: args()},
	{name: "Reexecute", method: "Reexecute", args: args()},
	{name: "Exit", method: "Exit", args: args()},
	{name: "Reboot", method: "Reboot", args: args()},
	{name: "SoftReboot", method: "SoftReboot", manager: "SoftReboot", args: args("")},
	{name: "PowerOff", method: "PowerOff", args: args()},
	{name: "Halt", method: "Halt", args: args()},
	{name: "KExec", method: "KExec", args: args()},
	{name: "SwitchRoot", method: "SwitchRoot", args: args("", "")},
	{name: "ResetFailed", method: "ResetFailed", args: args()},
	{name: "SetEnvironment", method: "SetEnvironment", args: args([]string{"SDBUS_CONF_ACCESS=1"})},
	{name: "SetEnvironment/bad", method: "SetEnvironment", args: args([]string{"=1"})},
	{name: "UnsetEnvironment", method: "UnsetEnvironment", args: args([]string{"SDBUS_CONF_ACCESS"})},
	{name: "UnsetAndSetEnvironment", method: "UnsetAndSetEnvironment", args: args([]string{}, []string{"SDBUS_CONF_ACCESS=1"})},
	{name: "SetExitCode", method: "SetExitCode", args: args(uint8(0))},
	{name: "SetShowStatus", method: "SetShowStatus", args: args("")},
	{name: "SetShowStatus/bad", method: "SetShowStatus", args: args("bogus")},

	// Manager: unit files.
	{name: "EnableUnitFiles", method: "EnableUnitFiles", args: args([]string{noFileUnit}, false, false)},
	{name: "EnableUnitFilesWithFlags", method: "EnableUnitFilesWithFlags", args: args([]string{noFileUnit}, uint64(0))},
	{name: "EnableUnitFilesWithFlags/bad-flags", method: "EnableUnitFilesWithFlags", args: args([]string{noFileUnit}, uint64(1<<40))},
	{name: "DisableUnitFiles", method: "DisableUnitFiles", args: args([]string{noFileUnit}, false)},
	{name: "DisableUnitFilesWithFlags", method: "DisableUnitFilesWithFlags", args: args([]string{noFileUnit}, uint64(0))},
	{name: "DisableUnitFilesWithFlagsAndInstallInfo", method: "DisableUnitFilesWithFlagsAndInstallInfo", manager: "DisableUnitFilesWithFlagsAndInstallInfo", args: args([]string{noFileUnit}, uint64(0))},
	{name: "ReenableUnitFiles", method: "ReenableUnitFiles", args: args([]string{noFileUnit}, false, false)},
	{name: "LinkUnitFiles", method: "LinkUnitFiles", args: args([]string{"/nonexistent/" + noFileUnit}, false, false)},
	{name: "PresetUnitFiles", method: "PresetUnitFiles", args: args([]string{noFileUnit}, false, false)},
	{name: "PresetUnitFilesWithMode", method: "PresetUnitFilesWithMode", args: args([]string{noFileUnit}, "full", false, false)},
	{name: "PresetUnitFilesWithMode/bad-mode", method: "PresetUnitFilesWithMode", args: args([]string{noFileUnit}, "bogus", false, false)},
	{name: "MaskUnitFiles", method: "MaskUnitFiles", args: args([]string{noFileUnit}, false, false)},
	{name: "UnmaskUnitFiles", method: "UnmaskUnitFiles", args: args([]string{noFileUnit}, false)},
	{name: "RevertUnitFiles", method: "RevertUnitFiles", args: args([]string{noFileUnit})},
	{name: "SetDefaultTarget", method: "SetDefaultTarget", args: args("multi-user.target", false)},
	{name: "PresetAllUnitFiles", method: "PresetAllUnitFiles", args: args("full", false, false)},
	{name: "PresetAllUnitFiles/bad-mode", method: "PresetAllUnitFiles", args: args("bogus", false, false)},
	{name: "AddDependencyUnitFiles", method: "AddDependencyUnitFiles", args: args([]string{noFileUnit}, "multi-user.target", "Wants", false, false)},

	// Unit and the unit types' methods, on the service's object.
	{name: "Unit.Start", obj: "unit", iface: "Unit", method: "Start", args: args("replace")},
	{name: "Unit.Start/bad-mode", obj: "unit", iface: "Unit", method: "Start", args: args("bogus")},
	{name: "Unit.Stop", obj: "unit", iface: "Unit", method: "Stop", args: args("replace")},
	{name: "Unit.Reload", obj: "unit", iface: "Unit", method: "Reload", args: args("replace")},
	{name: "Unit.Restart", obj: "unit", iface: "Unit", method: "Restart", args: args("replace")},
	{name: "Unit.TryRestart", obj: "unit", iface: "Unit", method: "TryRestart", args: args("replace")},
	{name: "Unit.ReloadOrRestart", obj: "unit", iface: "Unit", method: "ReloadOrRestart", args: args("replace")},
	{name: "Unit.ReloadOrTryRestart", obj: "unit", iface: "Unit", method: "ReloadOrTryRestart", args: args("replace")},
	{name: "Unit.EnqueueJob", obj: "unit", iface: "Unit", method: "EnqueueJob", args: args("start", "replace")},
	{name: "Unit.Kill", obj: "unit", iface: "Unit", method: "Kill", args: args("all", int32(18))},
	{name: "Unit.Kill/bad-whom", obj: "unit", iface: "Unit", method: "Kill", args: args("bogus", int32(18))},
	{name: "Unit.QueueSignal", obj: "unit", iface: "Unit", method: "QueueSignal", manager: "QueueSignalUnit", args: args("main", int32(34), int32(0))},
	{name: "Unit.ResetFailed", obj: "unit", iface: "Unit", method: "ResetFailed", args: args()},
	{name: "Unit.SetProperties", obj: "unit", iface: "Unit", method: "SetProperties", args: args(true, []propValue{{"CPUWeight", dbus.MakeVariant(uint64(100))}})},
	{name: "Unit.Ref", obj: "unit", iface: "Unit", method: "Ref", args: args()},
	{name: "Unit.Unref", obj: "unit", iface: "Unit", method: "Unref", args: args()},
	{name: "Unit.Clean", obj: "unit", iface: "Unit", method: "Clean", args: args([]string{"runtime"})},
	{name: "Unit.Freeze", obj: "unit", iface: "Unit", method: "Freeze", args: args()},
	{name: "Unit.Thaw", obj: "unit", iface: "Unit", method: "Thaw", args: args()},
	{name: "Service.GetProcesses", obj: "unit", iface: "Service", method: "GetProcesses", args: args()},
	{name: "Service.AttachProcesses", obj: "unit", iface: "Service", method: "AttachProcesses", args: args("/", []uint32{})},
	{name: "Service.BindMount", obj: "unit", iface: "Service", method: "BindMount", manager: "BindMountUnit", args: args("/tmp", "/tmp", false, false)},
	{name: "Service.MountImage", obj: "unit", iface: "Service", method: "MountImage", manager: "MountImageUnit", args: args("/nonexistent.img", "/mnt", false, false, []mountOption{})},
	{name: "Service.DumpFileDescriptorStore", obj: "unit", iface: "Service", method: "DumpFileDescriptorStore", manager: "DumpUnitFileDescriptorStore", args: args()},

	// Job.
	{name: "Job.GetAfter", obj: "job", iface: "Job", method: "GetAfter", args: args()},
	{name: "Job.GetBefore", obj: "job", iface: "Job", method: "GetBefore", args: args()},
	{name: "Job.Cancel", obj: "job", iface: "Job", method: "Cancel", args: args()},

	// Property writes (org.freedesktop.DBus.Properties.Set).
	{name: "Set Manager.LogLevel", iface: "Manager", method: "Set", args: args("info")},
	{name: "Set Manager.LogTarget", iface: "Manager", method: "Set", args: args("console")},
	{name: "Set Manager.RuntimeWatchdogUSec", iface: "Manager", method: "Set", args: args(uint64(0))},
	{name: "Set Manager.RebootWatchdogUSec", iface: "Manager", method: "Set", args: args(uint64(0))},
	{name: "Set Manager.KExecWatchdogUSec", iface: "Manager", method: "Set", args: args(uint64(0))},
	{name: "Set Manager.ServiceWatchdogs", iface: "Manager", method: "Set", args: args(true)},
	{name: "Set Manager.Version", iface: "Manager", method: "Set", args: args("1")},
	{name: "Set Unit.Description", obj: "unit", iface: "Unit", method: "Set", args: args("x")},
	{name: "Set LogControl1.LogLevel", obj: "/org/freedesktop/LogControl1", iface: "org.freedesktop.LogControl1", method: "Set", args: args("info")},
}

func svc2list(a accessTarget) []any { return []any{[]string{a.Service}} }

type execCommand struct {
	Path   string
	Argv   []string
	Ignore bool
}

type auxUnit struct {
	Name  string
	Props []propValue
}

type mountOption struct{ Partition, Options string }

// testUnprivilegedAccess: what a caller that is not root (uid 65534, a
// re-executed test binary, TestAccessChild) gets for each call of
// accessCalls on the bus, as accessWant has it for the release. The
// backend's bus must let uid 65534 connect (the fake's socket is 0666 in
// a directory anyone may search).
func testUnprivilegedAccess(t *testing.T, e *env) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a client as uid 65534")
	}
	addr := e.busAddress(t)
	svcName := e.unit("access", "service")
	cleanup(t, e, svcName)
	wait(t, e, start(t, e, e.c, svcName, []sdbus.Property{
		sdbus.PropDescription("sdbus conformance"),
		sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false),
	}), sdbus.JobDone)
	jobUnit := e.unit("access-job", "service")
	cleanup(t, e, jobUnit)
	j := start(t, e, e.c, jobUnit, []sdbus.Property{
		sdbus.PropDescription("sdbus conformance"),
		{Name: "ExecStartPre", Value: dbus.MakeVariant([]execCommand{{"/bin/sleep", []string{"/bin/sleep", "3600"}, false}})},
		sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false),
	})
	tgt := accessTarget{Service: svcName, JobUnit: jobUnit, Job: j.ID(), Release: e.release}

	got := runAccessChild(t, addr, tgt)
	if os.Getenv(accessPrintEnv) != "" {
		var b strings.Builder
		for _, c := range accessCalls {
			if r, ok := got[c.name]; ok {
				fmt.Fprintf(&b, "%s\t%s\n", c.name, r)
			}
		}
		t.Logf("systemd %s, uid %d:\n%s", e.release, nobody, b.String())
	}
	want := accessWant(e.release, tgt)
	for _, c := range accessCalls {
		if c.manager != "" && !sdversions.HasMethod(e.release, c.manager) {
			continue
		}
		g, ran := got[c.name]
		if !ran {
			t.Errorf("%s: no answer from the client", c.name)
			continue
		}
		g = normalizeAccess(g)
		w, ok := want[c.name]
		if !ok {
			// Answered as to root: whatever it is, not a refusal.
			if strings.HasPrefix(g, "DBus.Error.AccessDenied") || strings.HasPrefix(g, "DBus.Error.InteractiveAuthorizationRequired") {
				t.Errorf("%s as uid %d = %s, want it answered", c.name, nobody, g)
			}
			continue
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s as uid %d (-want +got):\n%s", c.name, nobody, diff)
		}
	}
}

// accessWant returns the answers measured on release r for the calls
// of testUnprivilegedAccess that are refused, or fail a check systemd
// makes before it asks polkit: the others are answered as to root (not
// compared here, only checked not to be refused). Unit names in messages
// are tgt's; dbus-daemon's rejections are normalized (normalizeAccess).
func accessWant(r sdversions.Release, tgt accessTarget) map[string]string {
	const (
		denied  = "DBus.Error.AccessDenied: Permission denied"
		invalid = "DBus.Error.InvalidArgs: "
	)
	rejected := func(iface, member string) string {
		return `DBus.Error.AccessDenied: Rejected send message, 2 matched rules; type="method_call", sender=S interface="org.freedesktop.` +
			iface + `" member="` + member + `" error name="(unset)" requested_reply="0" destination=D`
	}
	w := map[string]string{
		"StartUnit/bad-mode":               invalid + "Job mode bogus invalid",
		"StartUnit/bad-name":               invalid + "Unit name bogus is not valid.",
		"StartUnitReplace/no-job":          "systemd1.NoSuchJob: No job queued for unit " + tgt.Service,
		"CancelJob/no-job":                 "systemd1.NoSuchJob: Job 4000000 does not exist.",
		"KillUnit/bad-signal":              invalid + "Signal number out of range.",
		"ResetFailedUnit/no-unit":          "systemd1.NoSuchUnit: Unit " + noFileUnit + " not loaded.",
		"UnrefUnit":                        "systemd1.NotReferenced: Unit has not been referenced yet.",
		"Unit.Unref":                       "systemd1.NotReferenced: Unit has not been referenced yet.",
		"AttachProcessesToUnit":            invalid + "Process migration not available on non-delegated units.",
		"Service.AttachProcesses":          invalid + "Process migration not available on non-delegated units.",
		"PresetUnitFilesWithMode/bad-mode": invalid + "Invalid argument",
		"PresetAllUnitFiles/bad-mode":      invalid + "Invalid argument",
		"Unit.Start/bad-mode":              invalid + "Job mode bogus invalid",
		"RemoveSubgroupFromUnit":           invalid + "Subcgroup removal not available on non-delegated units.",
	}
	for _, n := range []string{
		"StartUnit", "StartUnit/no-file", "StartUnitReplace", "StopUnit", "ReloadUnit", "RestartUnit",
		"TryRestartUnit", "ReloadOrRestartUnit", "ReloadOrTryRestartUnit", "CancelJob", "ClearJobs",
		"StartTransientUnit", "StartTransientUnit/bad-name", "StartTransientUnit/bad-property", "KillUnit",
		"ResetFailedUnit", "SetUnitProperties", "SetUnitProperties/bad-property", "RefUnit", "Reload",
		"Reexecute", "ResetFailed", "EnableUnitFiles", "DisableUnitFiles", "ReenableUnitFiles", "LinkUnitFiles",
		"PresetUnitFiles", "PresetUnitFilesWithMode", "MaskUnitFiles", "UnmaskUnitFiles", "RevertUnitFiles",
		"SetDefaultTarget", "PresetAllUnitFiles", "AddDependencyUnitFiles", "Unit.Start", "Unit.Stop",
		"Unit.Reload", "Unit.Restart", "Unit.TryRestart", "Unit.ReloadOrRestart", "Unit.ReloadOrTryRestart",
		"Unit.Kill", "Unit.ResetFailed", "Unit.SetProperties", "Unit.Ref", "Job.Cancel",
		"QueueSignalUnit", "Unit.QueueSignal", "DisableUnitFilesWithFlagsAndInstallInfo", "KillUnitSubgroup",
	} {
		w[n] = denied
	}
	for _, n := range []string{
		"EnqueueUnitJob", "EnqueueUnitJob/bad-type", "CleanUnit", "CleanUnit/bad-type", "AbandonScope",
		"AbandonScope/no-unit", "Exit", "Reboot", "SoftReboot", "PowerOff", "Halt", "KExec", "SwitchRoot",
		"SetExitCode", "StartUnitWithFlags", "StartUnitWithFlags/bad-flags", "EnqueueMarkedJobs",
		"DumpUnitFileDescriptorStore", "EnqueueUnitJobMany",
	} {
		w[n] = rejected("systemd1.Manager", strings.SplitN(n, "/", 2)[0])
	}
	w["Unit.EnqueueJob"] = rejected("systemd1.Unit", "EnqueueJob")
	w["Unit.Clean"] = rejected("systemd1.Unit", "Clean")
	w["Service.DumpFileDescriptorStore"] = rejected("systemd1.Service", "DumpFileDescriptorStore")
	for _, c := range accessCalls {
		if c.method == "Set" {
			w[c.name] = rejected("DBus.Properties", "Set")
		}
	}
	whom := invalid + "Invalid who argument bogus"
	if r.AtLeast(sdversions.R("257")) {
		whom = invalid + "Invalid whom argument: bogus"
	}
	w["KillUnit/bad-whom"], w["Unit.Kill/bad-whom"] = whom, whom
	// SetShowStatus: sd-bus's check on 247 (Privileged), polkit's after.
	w["SetShowStatus"], w["SetShowStatus/bad"] = denied, denied
	if !r.AtLeast(sdversions.R("252")) {
		msg := "DBus.Error.AccessDenied: Access to org.freedesktop.systemd1.Manager.SetShowStatus() not permitted."
		w["SetShowStatus"], w["SetShowStatus/bad"] = msg, msg
	}
	// The bus policy lets everyone send these from 257 (polkit decides).
	for _, n := range []string{"SetEnvironment", "UnsetEnvironment", "UnsetAndSetEnvironment", "EnableUnitFilesWithFlags", "DisableUnitFilesWithFlags"} {
		w[n] = rejected("systemd1.Manager", n)
		if r.AtLeast(sdversions.R("257")) {
			w[n] = denied
		}
	}
	w["SetEnvironment/bad"] = rejected("systemd1.Manager", "SetEnvironment")
	w["EnableUnitFilesWithFlags/bad-flags"] = rejected("systemd1.Manager", "EnableUnitFilesWithFlags")
	if r.AtLeast(sdversions.R("257")) {
		w["SetEnvironment/bad"] = invalid + "Invalid environment assignments"
		w["EnableUnitFilesWithFlags/bad-flags"] = invalid + "Invalid argument"
	}
	// ... and these from 262.
	for _, n := range []string{"FreezeUnit", "ThawUnit", "Unit.Freeze", "Unit.Thaw"} {
		iface, member := "systemd1.Manager", n
		if m, ok := strings.CutPrefix(n, "Unit."); ok {
			iface, member = "systemd1.Unit", m
		}
		w[n] = rejected(iface, member)
		if r.AtLeast(sdversions.R("262")) {
			w[n] = denied
		}
	}
	// Live mounts: polkit first on 252, the unit's namespace first
	// after.
	for _, n := range []string{"BindMountUnit", "MountImageUnit", "Service.BindMount", "Service.MountImage"} {
		w[n] = denied
		if r.AtLeast(sdversions.R("257")) {
			w[n] = invalid + "Unit '" + tgt.Service + "' not running in private mount namespace, cannot live mount."
		}
	}
	return w
}

// normalizeAccess takes out of an answer what differs from run to run:
// the connections' credentials in dbus-daemon's rejections.
// A command line (comm="...") may hold any character, parentheses and
// quotes included (a -test.run pattern): the sender's ends where the
// interface starts, the destination's at the end of the message.
func normalizeAccess(s string) string {
	s = rejectedSender.ReplaceAllString(s, "sender=S interface=")
	return rejectedDest.ReplaceAllString(s, "destination=D")
}

var (
	rejectedSender = regexp.MustCompile(`sender="[^"]*" \(uid=.*?\) interface=`)
	rejectedDest   = regexp.MustCompile(`destination="[^"]*" \(uid=.*\)$`)
)

// runAccessChild runs this test binary as uid 65534 (TestAccessChild)
// against the bus at addr and returns its answers by call name.
func runAccessChild(t *testing.T, addr string, tgt accessTarget) map[string]string {
	t.Helper()
	base := reexecAs(t)
	var cmd *exec.Cmd
	var stdout io.ReadCloser
	for attempt := 0; ; attempt++ {
		args := append(append([]string{}, base.Args[1:]...), "-test.run=^TestAccessChild$", "-test.v=false")
		cmd = exec.Command(base.Path, args...)
		cmd.Args[0] = base.Args[0]
		cmd.Env = append(os.Environ(),
			accessChildEnv+"="+addr,
			fmt.Sprintf("SDBUS_CONFORMANCE_ACCESS_TARGET=%s %s %d %d %d", tgt.Service, tgt.JobUnit, tgt.Job, tgt.Release.Major, tgt.Release.Minor))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Dir = "/"
		cmd.Stderr = os.Stderr
		var err error
		if stdout, err = cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
		err = cmd.Start()
		if errors.Is(err, syscall.ETXTBSY) && attempt < 50 {
			// The binary's copy was still open for writing in a child
			// another case forked meanwhile (the managers' cases run in
			// parallel; golang.org/issue/22315): it closes at that
			// child's exec.
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("running the client as uid %d: %v", nobody, err)
		}
		break
	}
	stop := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer stop.Stop()
	got := map[string]string{}
	var other strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "access\t")
		if name, r, ok2 := strings.Cut(line, "\t"); ok && ok2 {
			got[name] = r
		} else {
			fmt.Fprintln(&other, sc.Text())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the client as uid %d: %v\n%s", nobody, err, other.String())
	}
	if len(got) == 0 {
		t.Fatalf("the client as uid %d answered nothing", nobody)
	}
	return got
}

// reexecAs returns reexec's command with every file it runs copied where
// uid 65534 may run it: a directory of its own, mode 0755 (the test
// binary is often in a directory only root can enter).
func reexecAs(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := reexec()
	dir, err := os.MkdirTemp("", "sdbus-conf-access-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile := func(src string) string {
		dst := filepath.Join(dir, filepath.Base(src))
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	for i, a := range cmd.Args {
		switch {
		case i == 0:
			cmd.Path = copyFile(cmd.Path)
			cmd.Args[0] = cmd.Path
		case a == os.Args[0]:
			// The test binary, run by the loader (args[0]): not
			// os.Executable, which is the loader then.
			cmd.Args[i] = copyFile(a)
		case i > 0 && cmd.Args[i-1] == "--library-path":
			lib := filepath.Join(dir, "lib")
			if err := os.Mkdir(lib, 0o755); err != nil {
				t.Fatal(err)
			}
			ents, err := os.ReadDir(a)
			if err != nil {
				t.Fatal(err)
			}
			for _, ent := range ents {
				if ent.Type().IsRegular() {
					b, err := os.ReadFile(filepath.Join(a, ent.Name()))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(lib, ent.Name()), b, 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			cmd.Args[i] = lib
		}
	}
	if cmd.Args[0] != cmd.Path {
		cmd.Args[0] = cmd.Path
	}
	return cmd
}

// TestAccessChild is the unprivileged client of testUnprivilegedAccess
// (accessChildEnv); it does nothing otherwise.
func TestAccessChild(t *testing.T) {
	addr := os.Getenv(accessChildEnv)
	if addr == "" {
		t.Skip("the client of UnprivilegedAccess, run by it")
	}
	var tgt accessTarget
	if _, err := fmt.Sscanf(os.Getenv("SDBUS_CONFORMANCE_ACCESS_TARGET"), "%s %s %d %d %d",
		&tgt.Service, &tgt.JobUnit, &tgt.Job, &tgt.Release.Major, &tgt.Release.Minor); err != nil {
		t.Fatal(err)
	}
	conn, err := dbus.Dial(addr)
	if err == nil {
		err = conn.Auth(nil)
	}
	if err == nil {
		err = conn.Hello()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range accessCalls {
		if c.manager != "" && !sdversions.HasMethod(tgt.Release, c.manager) {
			continue
		}
		fmt.Printf("access\t%s\t%s\n", c.name, accessCallOn(conn, tgt, c))
	}
}

// accessCallOn makes call c on conn and returns "ok" or the error's name
// and message.
func accessCallOn(conn *dbus.Conn, tgt accessTarget, c accessCall) string {
	path := dbus.ObjectPath("/org/freedesktop/systemd1")
	switch c.obj {
	case "":
	case "unit":
		path = sdbus.UnitPath(tgt.Service)
	case "job":
		path = dbus.ObjectPath(fmt.Sprintf("/org/freedesktop/systemd1/job/%d", tgt.Job))
	default:
		path = dbus.ObjectPath(c.obj)
	}
	iface := c.iface
	if iface == "" {
		iface = "Manager"
	}
	if !strings.Contains(iface, ".") {
		iface = "org.freedesktop.systemd1." + iface
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	member, a := iface+"."+c.method, c.args(tgt)
	if c.method == "Set" {
		_, p, _ := strings.Cut(c.name, ".")
		member, a = "org.freedesktop.DBus.Properties.Set", []any{iface, p, dbus.MakeVariant(a[0])}
	}
	call := conn.Object("org.freedesktop.systemd1", path).CallWithContext(ctx, member, 0, a...)
	var de dbus.Error
	switch err := call.Err; {
	case err == nil:
		return "ok"
	case errors.As(err, &de):
		msg := ""
		if len(de.Body) > 0 {
			msg, _ = de.Body[0].(string)
		}
		return strings.TrimPrefix(de.Name, "org.freedesktop.") + ": " + msg
	default:
		return err.Error()
	}
}

// testBusPolicy: what the system bus's policy lets a client do besides
// calling the bus and systemd, as root: own no name of its own (systemd's
// own answers EXISTS: systemd owns it), call no other client's methods
// (Peer.Ping included), send another client a unicast signal.
func testBusPolicy(t *testing.T, e *env) {
	a, b := e.rawBus(t), e.rawBus(t)
	type result struct {
		Reply uint32
		Err   string
	}
	errText := func(err error) string {
		var de dbus.Error
		if errors.As(err, &de) {
			return de.Name + ": " + de.Error()
		}
		if err != nil {
			return err.Error()
		}
		return ""
	}
	own := func(name string) result {
		var r uint32
		err := a.BusObject().CallWithContext(e.ctx, "org.freedesktop.DBus.RequestName", 0, name, uint32(4)).Store(&r)
		return result{r, errText(err)}
	}
	name := "org.sdbus.Conformance" + strconv.Itoa(os.Getpid())
	for _, tt := range []struct {
		name string
		want result
	}{
		{name, result{0, "org.freedesktop.DBus.Error.AccessDenied: Connection \"" + a.Names()[0] +
			"\" is not allowed to own the service \"" + name + "\" due to security policies in the configuration file"}},
		{"org.freedesktop.systemd1", result{3, ""}}, // EXISTS
	} {
		if diff := cmp.Diff(tt.want, own(tt.name)); diff != "" {
			t.Errorf("RequestName(%s) (-want +got):\n%s", tt.name, diff)
		}
	}

	rejected := regexp.MustCompile(`^org.freedesktop.DBus.Error.AccessDenied: Rejected send message, 1 matched rules; type="method_call", sender="` +
		regexp.QuoteMeta(a.Names()[0]) + `" \(uid=\d+ pid=\d+ comm="[^"]*"\) interface="org.freedesktop.DBus.Peer" member="Ping" ` +
		`error name="\(unset\)" requested_reply="0" destination="` + regexp.QuoteMeta(b.Names()[0]) + `" \(uid=\d+ pid=\d+ comm="[^"]*"\)$`)
	err := a.Object(b.Names()[0], "/").CallWithContext(e.ctx, "org.freedesktop.DBus.Peer.Ping", 0).Err
	if got := errText(err); !rejected.MatchString(got) {
		t.Errorf("Peer.Ping of another client: %s; want %s", got, rejected)
	}

	sigs := make(chan *dbus.Signal, 16)
	b.Signal(sigs)
	if err := a.SendWithContext(e.ctx, &dbus.Message{Type: dbus.TypeSignal, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:        dbus.MakeVariant(dbus.ObjectPath("/org/sdbus/Conformance")),
		dbus.FieldInterface:   dbus.MakeVariant("org.sdbus.Conformance"),
		dbus.FieldMember:      dbus.MakeVariant("Unicast"),
		dbus.FieldDestination: dbus.MakeVariant(b.Names()[0]),
	}}, nil).Err; err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case s := <-sigs:
			if s.Name == "org.sdbus.Conformance.Unicast" {
				return
			}
		case <-e.ctx.Done():
			t.Fatal("a unicast signal from another client never arrived")
		}
	}
}
