package difftest

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// replays are sequences on which fakebus once differed from systemd, as
// the tester printed them after shrinking: TestDifferentialReplays runs
// each on the sandbox's systemd and on fakebus playing its release.
var replays = []struct {
	name string
	seq  []Op
}{
	// StartTransientUnit of a unit not found that another's Wants= keeps
	// (pristine) with settings that make a bad setting: systemd made it
	// transient and it stays so, bad-setting, its fragment the transient
	// file, no longer pristine (247 seed 101932 of a long run; the fake
	// left the stub as it was).
	{"a pristine stub made a transient bad setting", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Unit", "Wants", "{u0}"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// A job waits for another only by the order of their units: a slice
	// whose Wants= pulls in a service whose start runs (its
	// ExecStartPre= sleeps) ends its own start job at once (252 seed
	// 110092 of a long run; the fake waited for every job a job pulled
	// in).
	{"Wants= without an order", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InDropIn, Lines: []Directive{{"Unit", "Wants", "{u0}"}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
	}},
	// Requires= without After= does not hold the start back either. (A
	// stop of the requirement then stops both side by side: which ends
	// first is the order of their processes' ends, on systemd as well.)
	{"Requires= without an order", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Unit", "Requires", "{u0}"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
	}},
	// After= holds a start job back while the other unit's job runs,
	// whoever queued it, until that job ends (here by a stop).
	{"After= holds a start back", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Unit", "After", "{u0}"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// Before= of the other unit holds it back the same way; mode
	// ignore-dependencies ignores the order.
	{"Before= holds a start back", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Unit", "Before", "{u0}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "ignore-dependencies"},
	}},
	// A stop of a KillMode=none service leaves its program running in its
	// control group, the unit loaded, inactive, until it ends (257 seed
	// 90920 of a long run; the fake collected it).
	{"KillMode=none", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillMode", "none"}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// The program a KillMode=none stop left is listed, a start runs a
	// second, KillUnit ends both, and the unit is collected.
	{"KillMode=none leftovers", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillMode", "none"}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "GetUnitProcesses", Unit: 0},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 15},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "GetUnitProcesses", Unit: 0},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "all", Signal: 15},
	}},
	// A KillMode=none stop kills no ExecStartPre= and no oneshot
	// program either: the start is not failed, ExecStopPost= runs.
	{"KillMode=none stop of a start", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}, {"ExecStopPost", Command(1)}, {"KillMode", "none"}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "GetUnitProcesses", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"Type", "oneshot"}, {"ExecStart", Command(0)}, {"KillMode", "none"}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "all", Signal: 9},
		{Kind: "KillUnit", Unit: 0, Whom: "all", Signal: 1},
	}},
	// A unit not found that another's Wants= keeps loaded is loaded
	// again from its file once a unit directory changed, at its next
	// load (manager_unit_cache_should_retry_load): a property read, a
	// LoadUnit, a job.
	{"a kept not-found unit loads its new file", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Unit", "Wants", "{u0}"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
	}},
	// A scope's stop with KillMode=none leaves its processes: the scope,
	// inactive, stays loaded with them until they end.
	{"KillMode=none scope", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}, {"KillMode", "none"}}},
		{Kind: "StopUnit", Unit: 2, Mode: "replace"},
		{Kind: "GetUnitProcesses", Unit: 2},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "GetUnitProcesses", Unit: 2},
	}},
	// A job that ends "dependency" starts its unit's OnFailure= units,
	// as one that times out does (job_finish_and_invalidate).
	{"OnFailure= of a job that ends dependency", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "handler"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Unit", "Requires", "{u0}"}, {"Unit", "After", "{u0}"}, {"Unit", "OnFailure", "{u7}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
	}},
	// A job times out by its unit's JobTimeoutSec= before it runs (1 µs:
	// the unit never starts) and starts the unit's OnFailure= units. 262
	// takes JobTimeoutUSec= over D-Bus too. (A timeout while the job runs:
	// conformance case JobTimeout; the tester cannot wait for it.)
	{"JobTimeoutSec=", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "handler"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "JobTimeoutSec", "1us"}, {"Unit", "OnFailure", "{u7}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"JobTimeoutUSec", uint64(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"JobTimeoutUSec", uint64(3600000000)}}},
	}},
	// A timer whose only trigger is OnTimezoneChange= (or OnClockChange=)
	// loads again after a re-execution or reload (the fake made it
	// bad-setting: 252 seed 130368 of a long run).
	{"timer on a time zone change only, reloaded", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"OnTimezoneChange", true}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "Reload", Unit: 0},
	}},
	// A restart is a stop first, then a start job ordered as a start: u0,
	// ordered after u1 whose start runs on (a oneshot that sleeps), stops
	// at once and its job waits, as a start, for u1's; it starts when
	// u1's start is canceled. The fake restarted in one step ordered as a
	// start, so u0 ran on with a restart job waiting.
	{"restart held by an order", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "After", "{u1}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "Before", "{u1}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// A waiting timer's OnBootSec=1us started its service at the timer's
	// start; armed again at a daemon-reload with its last trigger kept, it
	// stays elapsed (252 seed 170230 of a long run: the fake, which armed
	// it as if it never elapsed, started the service again), where
	// OnActiveSec=0 counts from the reload (replay "waiting timer armed
	// again at a reload").
	{"one-time value elapsed before a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnBootSec", Usec: 1}}}, {"TimersMonotonic", []TimerValue{{Base: "OnStartupSec", Usec: 0xd693a400}}}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "Reload", Unit: 1},
		{Kind: "Reexecute", Unit: 1},
	}},
	// A timer with Persistent=yes needs the directory of its stamp file
	// (RequiresMountsFor=/var/lib/systemd/timers), so is ordered after
	// the mount units on its way (252 seed 131196 of a long run): -.mount
	// on the fake, and the sandbox's own mounts too on systemd (known
	// difference machine-mounts).
	{"Persistent= timer's stamp directory", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0xd693a400}}}, {"Persistent", true}, {"After", []string{"basic.target"}}}, Aux: []Prop{{"ExecStart", Command(0)}}},
	}},
	// A transient slice given a drop-in, then a reload: once stopped, its
	// name is StartTransientUnit's again on 247 too, the name map giving
	// it the transient file it took with it (247 seed 121518 of a long
	// run; the fake answered UnitExists, as 247 does for a slice with
	// drop-ins otherwise).
	{"transient slice with a drop-in, stopped after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InDropIn, Lines: []Directive{{"Slice", "MemoryMax", "50%"}, {"Slice", "CPUWeight", "100"}, {"Unit", "StartLimitIntervalSec", "1h"}, {"Slice", "TasksMax", "10%"}}},
		{Kind: "Reload", Unit: 2},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}, {"TasksMax", uint64(0xffffffffffffffff)}}},
	}},
	// A socket (Accept=yes) bound (BindsTo=) to a service whose program
	// fails to run (203/EXEC with LimitNOFILE=0) is stopped after the
	// JobRemoved of that service's start job, done (252 seed 130138 of a
	// long run: the fake queued the stop first).
	{"BindsTo= of a unit whose program fails to run", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"LimitNOFILE", uint64(0)}}},
		{Kind: "WriteUnitFile", Unit: 5, Dir: InConfig, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Socket", "Accept", "yes"}, {"Unit", "BindsTo", "{u1}"}}},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
	}},
	// A main process KillUnit ends cleanly (SIGHUP) stops its service as
	// an exit 0 does: ExecStop=, then ExecStopPost=, either failing fails
	// it (247 seed 120276 of a long run: the fake ran neither and
	// collected the unit).
	{"KillUnit main with SIGHUP, ExecStopPost=", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStopPost", Command(2)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(1)}, {"ExecStopPost", Command(1)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 1},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 1},
	}},
	// A main process KillUnit ends with a signal that is no clean exit
	// fails its service after ExecStopPost= ran, not ExecStop= (257 seed
	// 180184, 262 seed 190598 of long runs: the fake ran neither).
	{"KillUnit main with SIGKILL, ExecStop= and ExecStopPost=", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(1)}, {"ExecStopPost", Command(1)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 9},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStopPost", Command(2)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 64},
	}},
	// ManagedOOM*=kill wants systemd-oomd.service and is ordered after
	// it on 247; from 252 only where the memory controller is, which the
	// sandbox has not (247 seed 160184 of a long run).
	{"ManagedOOM*=kill wants systemd-oomd", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ManagedOOMMemoryPressure", "kill"}, {"Wants", []string{"nosuch.service"}}, {"After", []string{"basic.target"}}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"ManagedOOMSwap", "kill"}, {"Wants", []string{"nosuch.service"}}}},
	}},
	// An Alias= of another unit type is refused (252 seed 170506 of a
	// long run: the fake passed over it).
	{"Alias= of another type", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Install", "Alias", "{u0}"}, {"Install", "WantedBy", "multi-user.target"}}},
		{Kind: "EnableUnitFiles", Unit: 7, ByPath: true},
		{Kind: "EnableUnitFiles", Unit: 7},
	}},
	// A stub (a transient unit whose settings were refused): its empty
	// transient file reads masked-runtime (GetUnitFileState), and so does
	// its UnitFileState property before 262; 262's reads transient (262
	// seed 151380 of a long run).
	{"UnitFileState of a stub", []Op{
		{Kind: "RestartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "x"}, {"CollectMode", ""}}},
		{Kind: "GetUnitFileState", Unit: 4},
		{Kind: "Get UnitFileState", Unit: 4},
	}},
	// KillMode=process kills the main program, not what an earlier stop
	// left; mixed and control-group kill all.
	{"KillMode= changed by a reload", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "KillMode", "none"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "KillMode", "process"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "GetUnitProcesses", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "KillMode", "mixed"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// An Also= unit that is a transient unit (running or failed) is
	// passed over by EnableUnitFiles, nothing reported; named itself it
	// is refused UnitGenerated. The fake reported it as an auxiliary
	// unit that failed (247: the call failed UnitGenerated; 257 seeds
	// 90460 and 91426 of a long run).
	{"Also= a transient unit", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "WriteUnitFile", Unit: 3, Dir: InRuntime, Lines: []Directive{{"Install", "WantedBy", "multi-user.target"}, {"Install", "Also", "{u1}"}}},
		{Kind: "EnableUnitFiles", Unit: 3, Runtime: true},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Install", "Also", "{u0} {u1}"}}},
		{Kind: "EnableUnitFiles", Unit: 7},
		{Kind: "EnableUnitFiles", Unit: 0, Runtime: true},
	}},
	// 262 takes and ignores the cgroup v1 settings only where a unit has
	// a control group: a timer refuses CPUShares= as an unknown
	// property (262 seed 96518 of a long run; the fake ignored it for
	// any type).
	{"cgroup v1 settings of a unit without a control group", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0xd693a400}}}, {"CPUShares", uint32(0x7)}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0xd693a400}}}}, Aux: []Prop{{"ExecStart", Command(0)}, {"CPUShares", uint32(0x7)}, {"MemoryLimit", uint64(0x100000)}}},
		{Kind: "StartTransientUnit", Unit: 7, Mode: "replace", Props: []Prop{{"BlockIOWeight", uint64(0x3e8)}}},
	}},
	// The unit name map built while a transient unit was loaded (here by
	// another unit's load, once a unit directory changed) names the
	// transient file the unit takes with it when it is collected: the
	// name is then not found, and so pristine for StartTransientUnit,
	// whatever file another directory holds, until a unit directory
	// changes again. The fake found the file in /etc and answered
	// UnitExists (252 seed 81564 of a long run).
	{"a transient name the name map still names", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
	}},
	// A dependency named twice (in two properties, in one list, in two
	// lines of a file) is one: systemd keeps a set. The fake listed it
	// as often as it was named (247 seed 70828 of a long run).
	{"a dependency named twice", []Op{
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}, {"After", []string{"basic.target"}}, {"After", []string{"basic.target", "basic.target"}}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Unit", "Wants", "{u7} {u7}"}, {"Unit", "Wants", "{u7}"}, {"Unit", "Before", "{u7}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
	}},
	// A scope starts once: StartUnit of one that ran and failed (a
	// runtime maximum elapsed) ends its job once, the scope stays failed
	// (unit_start's once_only); RestartUnit of a scope that ran is
	// refused JobTypeNotApplicable. The fake started it again (252 seed
	// 80920 of a long run).
	{"a scope starts once", []Op{
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "RestartUnit", Unit: 3, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{1}}, {"RuntimeMaxUSec", uint64(1)}}},
		{Kind: "StartUnit", Unit: 2, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 2, Mode: "replace"},
	}},
	// SetUnitProperties of a target: before 252 a type with no setter
	// of its own refuses every property ("Objects of this type do not
	// support setting properties."); from 252 it takes the unit-wide
	// ones. The fake answered each property as from 252 (247 seeds
	// 70966 and 71058 of a long run).
	{"SetUnitProperties of a target", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "t"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "SetUnitProperties", Unit: 7, Runtime: true, Props: []Prop{{"Description", "x"}}},
		{Kind: "SetUnitProperties", Unit: 7, Runtime: true, Props: []Prop{{"OnFailureJobMode", "fail"}}},
		{Kind: "SetUnitProperties", Unit: 7, Props: []Prop{{"Wants", []string{"nosuch.service"}}}},
		{Kind: "SetUnitProperties", Unit: 7, Props: []Prop{{"NoSuchProperty", "x"}}},
		{Kind: "SetUnitProperties", Unit: 7, Props: []Prop{}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
	}},
	// A start whose unit requires a unit with a bad setting (Requires=,
	// BindsTo=, Requisite=) is refused BadUnitSetting, and the units
	// loaded for the call go; the fake started both (the bad one done,
	// as for Wants=).
	{"a requirement with a bad setting", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "Type", "simple"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Unit", "BindsTo", "{u0}"}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Requires", "{u0}"}, {"Unit", "Requisite", "{u0}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "fail"},
	}},
	// An IO limit of 0 (which D-Bus takes) in SetUnitProperties'
	// drop-in is refused when a reload reads the drop-in ("Invalid IO
	// limit"); the fake kept it (252 seed 64049 of a long run).
	{"IO limit of 0 in a drop-in after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"IOReadBandwidthMax", []IOValue{{Path: "/dev/zero", Value: 0}, {Path: "/dev/null", Value: inf}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"IOWriteBandwidthMax", []IOValue{{Path: "/dev/zero", Value: 5}}}}},
		{Kind: "Reload", Unit: 0},
	}},
	// A start ExecCondition= skipped (result exec-condition) restarts
	// with Restart=always before 251 only, never with on-failure or
	// on-abnormal. The fake named the result skip-condition where it
	// decided, and so restarted the service each time until the start
	// rate limit failed it (247 seed 63010 of a long run).
	{"Restart= after ExecCondition= skipped a start", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecCondition", Command(2)}, {"Restart", "on-failure"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecCondition", Command(3)}, {"Restart", "always"}, {"RestartUSec", uint64(3600000000)}}},
	}},
	// A stop that ends a unit at once (a target; a service with
	// RemainAfterExit=yes and nothing left running; one waiting to
	// restart, whatever its result) starts its OnSuccess= units, and the
	// unit goes once their jobs ran. The fake started none for a service
	// waiting to restart, and kept the others loaded as it does a unit
	// whose process's end (SIGCHLD) ended it.
	{"OnSuccess= after a stop that ends the unit at once", []Op{
		{Kind: "WriteUnitFile", Unit: 4, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "s"}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "OnSuccess", "{u4}"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/false"}, {"Service", "Restart", "always"}, {"Service", "RestartSec", "1h"}, {"Unit", "OnSuccess", "{u7}"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}, {"Service", "RemainAfterExit", "yes"}, {"Unit", "OnSuccess", "{u4}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 7, Mode: "replace"},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// RestartMode=direct (from 254) with a start job still running (a
	// oneshot's): the job runs on through the wait, StartUnit and
	// RestartUnit merge into it, each restart runs it again (no new job)
	// until the start rate limit fails it. The fake failed it at the
	// first end and queued a new job at each restart.
	{"RestartMode=direct keeps a oneshot's start job", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/false"}, {"Service", "Restart", "on-failure"}, {"Service", "RestartMode", "direct"}, {"Service", "RestartSec", "1h"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/false"}, {"Service", "Restart", "on-failure"}, {"Service", "RestartMode", "direct"}, {"Service", "RestartSec", "300ms"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// TimeoutAbortUSec= (a service's): settable over D-Bus and by
	// TimeoutAbortSec=, 0 stays 0 (no infinity as for the stop timeout),
	// and unset (an empty or bad line) it reads TimeoutStopUSec=. The fake
	// refused it (PropertyReadOnly) and read 90 s.
	{"TimeoutAbortUSec=", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"TimeoutAbortUSec", uint64(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"TimeoutStopUSec", uint64(0)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "TimeoutStopSec", "3"}, {"Service", "TimeoutAbortSec", "bogus"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "TimeoutAbortSec", "5"}, {"Service", "TimeoutAbortSec", ""}, {"Service", "TimeoutSec", "4"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
	}},
	// A service's TimeoutStartUSec= or TimeoutStopUSec= of 0 reads
	// infinity after a reload (its transient file's TimeoutStopSec=0 is
	// no timeout), a scope's 0 (262 seeds 62004 and 62010: the fake read
	// 0 for the service).
	{"timeouts of 0 after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"TimeoutStopUSec", uint64(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"TimeoutStartUSec", uint64(0)}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"TimeoutStopUSec", uint64(0)}}},
		{Kind: "Reload", Unit: 0},
	}},
	// RestartSteps= and RestartMaxDelayUSec= (from 254): the hold-off
	// grows from RestartUSec= to the maximum in so many steps, and a
	// maximum below RestartUSec= lowers it; RestartMode= takes normal,
	// direct and (257) debug. The fake refused all three
	// (PropertyReadOnly) and restarted after RestartUSec= each time.
	{"RestartSteps= and RestartMaxDelayUSec=", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RestartMode", "debug"}, {"RestartSteps", uint32(3)}, {"RestartMaxDelayUSec", uint64(800000)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RestartMode", "bogus"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RestartSteps", uint32(0xffffffff)}, {"RestartMaxDelayUSec", uint64(0)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"Restart", "on-failure"}, {"RestartUSec", uint64(1000000)}, {"RestartSteps", uint32(2)}, {"RestartMaxDelayUSec", uint64(100000000)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"Restart", "on-failure"}, {"RestartUSec", uint64(500000)}, {"RestartMaxDelayUSec", uint64(300000)}}},
	}},
	// RestartMode=direct: a failing service restarts without passing
	// through failed, so its OnFailure= unit starts only once it fails
	// for good (the start rate limit); with normal it starts at each
	// failure from 257.
	{"RestartMode=direct", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "t"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/false"}, {"Service", "Restart", "on-failure"}, {"Service", "RestartMode", "direct"}, {"Service", "RestartSec", "1h"}, {"Service", "RestartSteps", "2"}, {"Service", "RestartMaxDelaySec", "4h"}, {"Unit", "OnFailure", "{u7}"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/false"}, {"Service", "Restart", "on-failure"}, {"Service", "RestartMode", "normal"}, {"Service", "RestartSec", "1h"}, {"Unit", "OnFailure", "{u7}"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 7, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/false"}, {"Service", "Restart", "on-failure"}, {"Service", "RestartMode", "direct"}, {"Service", "RestartSec", "100ms"}, {"Service", "StartLimitBurst", "2"}, {"Unit", "OnFailure", "{u7}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
	}},
	// A unit that fails to load gets no slice and no mount dependencies
	// (unit_load adds them once the type loaded it), but one refused for
	// isolate with two OnFailure= units, which is checked after them (257
	// seed 58000: the fake listed After=system.slice of a transient
	// service a drop-in made bad-setting).
	{"bad-setting units' slice and mount dependencies", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "t"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", "-/bin/false"}, {"Unit", "After", "{u7}"}, {"Unit", "RequiresMountsFor", "/nonexistent"}}},
		{Kind: "Reload", Unit: 1},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}, {"Service", "ExecStart", "/bin/false"}, {"Unit", "After", "{u7}"}, {"Unit", "RequiresMountsFor", "/nonexistent"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 5, Dir: InRuntime, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Unit", "OnFailure", "{u0} {u1}"}, {"Unit", "OnFailureJobMode", "isolate"}, {"Unit", "After", "{u7}"}}},
		{Kind: "LoadUnit", Unit: 5},
	}},
	// A unit refused by its type and by the isolate check gets no slice
	// dependency (its type's check comes first; the fake asked only the
	// isolate check), and the units its dependencies name are loaded as
	// they are for a unit that loaded (the type adds them before it
	// checks the unit), after a reload too: u1.service, which no file
	// defines, is not-found (the fake loaded none of them).
	{"units refused by their type and by the isolate check", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "t"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", "-/bin/false"}, {"Unit", "OnFailure", "{u1} {u7}"}, {"Unit", "OnFailureJobMode", "isolate"}, {"Unit", "After", "{u7}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Unit", "OnFailure", "{u0} {u7}"}, {"Unit", "OnFailureJobMode", "isolate"}, {"Unit", "After", "{u7}"}}},
		{Kind: "Reload", Unit: 1},
	}},
	// systemd checks every property, then applies each: an exit status
	// set's signal out of range (-ERANGE as it is applied) is answered
	// only when no other property is refused (247 seed 60001: the fake
	// answered ERANGE before a later property's InvalidArgs).
	{"an error met as a value is applied comes last", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"RestartForceExitStatus", ExitStatusValue{nil, []int32{-1}}}, {"OnFailureJobMode", ""}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"SuccessExitStatus", ExitStatusValue{nil, []int32{-1}}}, {"NoSuchProperty", uint64(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"SuccessExitStatus", ExitStatusValue{nil, []int32{-1}}}, {"SuccessExitStatus", ExitStatusValue{[]int32{300}, nil}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"SuccessExitStatus", ExitStatusValue{nil, []int32{-1}}}, {"Description", "a unit"}}},
	}},
	// A StartTransientUnit in a mode a start does not take (triggering)
	// is refused as its job is added, after the unit is looked up and
	// made: a type without transient units and an existing unit are
	// refused first (the fake refused the mode first; 252 seed 59003,
	// 262 seeds 57000-57003). And a service's running control command
	// is one of its processes (GetUnitProcesses; the fake listed none:
	// 252 seeds 59000, 59002).
	{"triggering start of a transient unit; control process listed", []Op{
		{Kind: "StartTransientUnit", Unit: 7, Mode: "triggering"},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "triggering", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "triggering", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecCondition", Command(0)}}},
		{Kind: "GetUnitProcesses", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}}},
		{Kind: "GetUnitProcesses", Unit: 1},
	}},
	// The job modes ignore-requirements and ignore-dependencies queue no
	// job for another unit, a start's requirements nor a stop's units
	// that require it (the fake pulled in Requires= under
	// ignore-requirements); triggering is a mode 247 knows, only for a
	// stop, restart-dependencies only for a start (measured on 247-262).
	{"ignore-requirements and mode checks", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "t"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Unit", "Requires", "{u7}"}, {"Unit", "Wants", "{u0}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "ignore-requirements"},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "StopUnit", Unit: 7, Mode: "ignore-requirements"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "ignore-dependencies"},
		{Kind: "StopUnit", Unit: 7, Mode: "ignore-dependencies"},
		{Kind: "RestartUnit", Unit: 7, Mode: "ignore-requirements"},
		{Kind: "StopUnit", Unit: 1, Mode: "triggering"},
		{Kind: "StartUnit", Unit: 1, Mode: "triggering"},
		{Kind: "StopUnit", Unit: 0, Mode: "restart-dependencies"},
		{Kind: "RestartUnit", Unit: 0, Mode: "restart-dependencies"},
	}},
	// OnFailureJobMode= and OnSuccessJobMode= (the fake refused them
	// PropertyReadOnly and queued every job with replace; measured on
	// 247-262): any job mode the release knows (restart-dependencies
	// from 254, triggering on 247 too), the mode of the jobs a failure or
	// a clean end queues (isolate of a unit without AllowIsolate=yes
	// starts nothing, ignore-dependencies and ignore-requirements pull in
	// no requirement); isolate with two units named is a bad setting, in
	// a unit file as OnFailureIsolate=yes too; an unknown mode in a file
	// is ignored.
	{"OnFailure= and OnSuccess= job modes", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"OnFailureJobMode", "fail"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"OnFailureJobMode", "bogus"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"OnSuccessJobMode", "isolate"}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"OnFailureJobMode", "triggering"}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"OnSuccessJobMode", "restart-dependencies"}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"OnFailureJobMode", "isolate"}, {"OnFailure", []string{"a.service", "b.service"}}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "t"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Unit", "Requires", "{u7}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnFailure", "{u1}"}, {"Unit", "OnFailureJobMode", "ignore-dependencies"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnFailure", "{u1}"}, {"Unit", "OnFailureJobMode", "isolate"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnFailure", "{u1} {u7}"}, {"Unit", "OnFailureIsolate", "yes"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnFailure", "{u1}"}, {"Unit", "OnFailureJobMode", "bogus"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 7, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnSuccess", "{u1}"}, {"Unit", "OnSuccessJobMode", "ignore-requirements"}, {"Service", "ExecStart", "/bin/true"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
	}},
	// A Type=dbus service (BusName= makes it one) whose program ends
	// cleanly before its name appears runs ExecStop= as any service that
	// ended does, and fails when that fails (the fake ran only
	// ExecStopPost=; 252 seeds 55004, 55011, 55017, measured on 247-262).
	{"dbus service's ExecStop", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStop", Command(3)}, {"BusName", ":1.5"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStop", Command(1)}, {"ExecStopPost", Command(1)}, {"Type", "dbus"}, {"BusName", "org.example.X"}}},
	}},
	// AttachProcessesToUnit of a unit left a stub by a refused
	// StartTransientUnit: NoSuchUnit "Unexpected load state", before the
	// delegation is looked at (the fake answered InvalidArgs "Process
	// migration not available"; 247 seeds 56001 and 56008, measured on
	// 247 and 252).
	{"attach to a stub", []Op{
		{Kind: "RestartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"JobTimeoutUSec", uint64(0x1)}}},
		{Kind: "AttachProcessesToUnit", Unit: 4, Spawn: []ProcKind{0}, PIDs: []int{0}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
	}},
	// WantsMountsFor= (from 257; the fake refused it PropertyReadOnly):
	// checked as RequiresMountsFor= is, its mount units ordered before the
	// unit; a working directory that may be missing ("-") is wanted so;
	// in a unit file a word that is no absolute path is passed over
	// (measured on 247-262).
	{"WantsMountsFor", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"WantsMountsFor", []string{"/nonexistent", "/tmp/x"}}, {"WantsMountsFor", []string{"/a//b/../c/"}}, {"After", []string{}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"WantsMountsFor", []string{"relative"}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"WantsMountsFor", []string{}}, {"WorkingDirectory", "-/nonexistent"}, {"After", []string{}}, {"Wants", []string{}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Unit", "WantsMountsFor", "/nonexistent /tmp/y"}, {"Unit", "WantsMountsFor", "relative"}, {"Unit", "After", "{u7}"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"WantsMountsFor", []string{"/nonexistent"}}, {"After", []string{}}}},
	}},
	// OnFailure= and OnSuccess= (the fake started nothing; measured on
	// 247-262): a unit that fails starts its OnFailure= units (one not
	// found is passed over), one that ends cleanly or is stopped its
	// OnSuccess= units (from 252), after its own job's JobRemoved; a
	// service that restarts does so only at its last failure before 257
	// and at each from 257; the unit stays loaded until the unit it
	// started changes again (on systemd sometimes collected sooner:
	// known difference handler-collection-race, 262 in 2 of 15 runs).
	{"OnFailure and OnSuccess", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnFailure", "{u1} {u7}"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnFailure", "{u1}"}, {"Unit", "StartLimitBurst", "2"}, {"Service", "ExecStart", "/bin/false"}, {"Service", "Restart", "on-failure"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnSuccess", "{u1}"}, {"Service", "ExecStart", "/bin/true"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "OnSuccess", "{u1}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"OnFailure", []string{"nosuch.service"}}, {"RuntimeMaxUSec", uint64(1)}}},
	}},
	// A oneshot service's main process killed by SIGTERM or SIGHUP
	// fails it (is_clean_exit's EXIT_CLEAN_COMMAND): the fake ended it
	// cleanly as any other service's (found reading exit-status.c,
	// measured on 247-262).
	{"oneshot killed", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "oneshot"}}},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 15},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "oneshot"}}},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 1},
	}},
	// SuccessExitStatus=, RestartPreventExitStatus= and
	// RestartForceExitStatus= (the fake refused them PropertyReadOnly;
	// measured on 247-262): a status or signal of the first ends the
	// main process cleanly, the second keeps a service from restarting
	// before the third restarts it whatever Restart= says; the same
	// setting twice adds up, an empty one empties it, and a signal
	// written as a number reads back as an exit status at a reload.
	{"exit status sets", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"Type", "oneshot"}, {"SuccessExitStatus", ExitStatusValue{[]int32{3}, nil}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "oneshot"}, {"SuccessExitStatus", ExitStatusValue{nil, []int32{15}}}}},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 15},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"Restart", "on-failure"}, {"RestartPreventExitStatus", ExitStatusValue{[]int32{1}, nil}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"StartLimitBurst", uint32(2)}, {"RestartForceExitStatus", ExitStatusValue{[]int32{0}, nil}}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"SuccessExitStatus", ExitStatusValue{[]int32{7, 1}, []int32{15}}}, {"SuccessExitStatus", ExitStatusValue{[]int32{3}, []int32{9, 64, 65, 1000}}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"SuccessExitStatus", ExitStatusValue{[]int32{7}, nil}}, {"SuccessExitStatus", ExitStatusValue{nil, nil}}, {"SuccessExitStatus", ExitStatusValue{nil, []int32{0}}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 9},
	}},
	// The same in unit files: exit statuses by number or name (BPF from
	// 252, KSM from 257), signals by name, number, RTMIN+n or RTMAX-n;
	// and the start rate limit's older spellings (StartLimitBurst= and
	// StartLimitInterval= in [Service], StartLimitInterval= in [Unit]),
	// which the fake ignored (measured on 247-262).
	{"exit status sets in files", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sh -c 'exit 3'"}, {"Service", "SuccessExitStatus", "TEMPFAIL BPF KSM SIGUSR1 RTMIN+2 RTMAX-1 RTMIN+31"}, {"Service", "SuccessExitStatus", "bogus 300 -1"}, {"Service", "SuccessExitStatus", "3 FAILURE CHDIR"}, {"Service", "RestartPreventExitStatus", "1"}, {"Service", "RestartPreventExitStatus", ""}, {"Service", "RestartPreventExitStatus", "SIGTERM 0"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "RestartForceExitStatus", "SIGKILL"}, {"Service", "StartLimitBurst", "2"}, {"Service", "StartLimitInterval", "1h"}, {"Service", "KillSignal", "SIGRTMIN"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 9},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "StartLimitInterval", "5s"}, {"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "SuccessExitStatus", "SIGKILL"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 9},
	}},
	// A control process running at a daemon-reload has its command's
	// record made anew: when a stop kills it, its end shows (2/15, exit
	// time and PID) with its start times 0 (the fake showed nothing; 257
	// seed 49010).
	{"control process killed after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStartPre", Command(0)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStartPre", Command(0)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 9},
	}},
	// An IO limit of 0, which D-Bus takes, is written to the transient
	// file and refused when a reload reads it back: the device's entry
	// goes (262 seed 50001). SetUnitProperties of a stub (a pristine slice
	// whose transient settings were refused) is refused NoSuchUnit
	// "Unexpected load state" (the fake: LoadFailed, as a job's; 262 seed
	// 50005).
	{"IO limit of 0 after a reload; settings of a stub", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IOReadBandwidthMax", []IOValue{{"/dev/zero", 0}, {"/dev/null", inf}}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IOWriteIOPSMax", []IOValue{{"/dev/zero", 0}, {"/dev/null", 5}}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"ManagedOOMSwap", uint32(7)}}},
		{Kind: "SetUnitProperties", Unit: 4, Props: []Prop{{"RefuseManualStart", false}}},
		{Kind: "SetUnitProperties", Unit: 4, Runtime: true, Props: []Prop{{"CPUWeight", uint64(100)}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
	}},
	// A transient timer loads with its drop-ins' values too: one made
	// with an empty TimersMonotonic over a drop-in's OnActiveSec=0 is made
	// (its start fails: no service to trigger); the fake refused it
	// BadUnitSetting (252 seed 47000).
	{"transient timer with its drop-in's value", []Op{
		{Kind: "WriteUnitFile", Unit: 6, Dir: InDropIn, Lines: []Directive{{"Timer", "OnActiveSec", "0"}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{}}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{}}}, Aux: []Prop{{"ExecStart", Command(1)}}},
	}},
	// A unit wanted that did not load (bad-setting) gets no job: the
	// start of a target that wants it starts the others (the fake queued
	// a start job for it; 247 seed 48044).
	{"wanted unit with a bad setting", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "User", "nosuchuser"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Wants", "{u1} {u0}"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
	}},
	// A pristine slice with drop-ins (SetUnitProperties' and the unit
	// directories'), taken over by StartTransientUnit, loads them again
	// after its transient file: DropInPaths lists both (the fake left out
	// SetUnitProperties'); one whose settings are refused is a stub that
	// lists none until a reload, LoadError NoSuchUnit "Unexpected load
	// state of unit X" (262 seed 46020).
	{"pristine slice's drop-ins", []Op{
		{Kind: "SetUnitProperties", Unit: 4, Props: []Prop{{"TasksMaxScale", uint32(0x7fffffff)}}},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InDropIn, Lines: []Directive{{"Slice", "CPUWeight", "300"}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"MemoryHighScale", uint32(0x1)}}},
		{Kind: "LoadUnit", Unit: 4},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 4, Runtime: true, Props: []Prop{{"CPUWeight", uint64(200)}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "x"}, {"CPUWeight", uint64(100)}}},
		{Kind: "Reload", Unit: 0},
	}},
	// Restart=: a service whose program ends as Restart= says fails (or
	// ends), waits in activating/auto-restart for RestartUSec= (100 ms
	// unless set) and restarts, a restart job each time, until the start
	// rate limit refuses one: failed for good, Result kept (262:
	// start-limit-hit); a oneshot's start and restart jobs fail each time.
	// While it waits, a reload keeps it waiting, a StartUnit waits for the
	// restart (247, 252) or restarts it now (257, 262), a RestartUnit
	// restarts it, ResetFailedUnit makes Result success, a StopUnit ends
	// the wait. A killed service restarts (Restart=on-failure: SIGKILL is
	// a failure), a stopped one does not. (The fake restarted nothing:
	// known difference "restart".)
	{"restart", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"Restart", "on-failure"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"Restart", "always"}, {"StartLimitBurst", uint32(2)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"OnActiveSec", uint64(3600000000)}}, Aux: []Prop{{"ExecStart", Command(3)}, {"Restart", "on-failure"}, {"RestartUSec", uint64(3600000000)}}},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"Restart", "on-failure"}, {"RestartUSec", uint64(3600000000)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "KillUnit", Unit: 0, Whom: "all", Signal: 9},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Restart", "on-failure"}, {"RestartUSec", uint64(0)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 9},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 15},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// An empty unit file masks its name, given by path too:
	// EnableUnitFiles of it is refused UnitMasked and links nothing; a
	// link of it is made, and the name reads masked (the fake linked it
	// at the enable; 252 seed 44002).
	{"enable of an empty file by path", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: Outside, Lines: []Directive{}},
		{Kind: "EnableUnitFiles", Unit: 1, ByPath: true},
		{Kind: "LinkUnitFiles", Unit: 1},
		{Kind: "EnableUnitFiles", Unit: 1, ByPath: true, Runtime: true, Force: true},
		{Kind: "GetUnitFileState", Unit: 1},
		{Kind: "LoadUnit", Unit: 1},
	}},
	// A transient unit is checked again at a reload, with its drop-ins:
	// a second ExecStart= of a service that is not oneshot, or a timer's
	// values emptied (an empty OnActiveSec= empties both kinds), make it
	// bad-setting in whatever state it is, and its start or restart is
	// refused BadUnitSetting (the fake loaded it; 257 seeds 45002, 45007).
	// Its NeedDaemonReload is true on 247 and 252 (drop-ins read by a unit
	// that did not load), false from 257.
	{"drop-in makes a transient unit bad", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}, {"Service", "RemainAfterExit", "yes"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"OnActiveSec", uint64(3600000000)}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 6, Dir: InDropIn, Lines: []Directive{{"Timer", "OnBootSec", "2h"}, {"Timer", "OnCalendar", ""}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
	}},
	// A scope takes User= and Group= when made (252 on; 247:
	// PropertyReadOnly) and, delegated, hands its control group to them
	// before its processes move in: an account this machine has not
	// fails it, Result resources, its process left where it was (the
	// fake refused the property, and moved a scope's processes when the
	// scope was made). A service's or scope's User= or Group= by an id no
	// account has fails as a name would (217/216; the fake ran the
	// service), and a name with ':' is refused (252 seed 44000).
	{"scope owner", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}, {"User", "nobody"}, {"Delegate", true}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Props: []Prop{{"PIDs", PIDList{0}}, {"User", "nosuchuser"}, {"Delegate", true}}},
		{Kind: "GetUnitProcesses", Unit: 2},
		{Kind: "ResetFailedUnit", Unit: 3},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Props: []Prop{{"PIDs", PIDList{0}}, {"User", "root"}, {"Group", "12345"}, {"Delegate", true}}},
		{Kind: "ResetFailedUnit", Unit: 3},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Props: []Prop{{"PIDs", PIDList{0}}, {"User", "a:b"}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Props: []Prop{{"PIDs", PIDList{0}}, {"User", "nosuchuser"}, {"Group", "nosuchgroup"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"User", "12345"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Group", "12345"}}},
	}},
	// A timer's values go first as they are added, from a unit file's
	// lines and its drop-ins' as from StartTransientUnit: the newest
	// first; a waiting timer computes each one's next elapse again after
	// a daemon-reload, with the values it reads then (247 seed 42001).
	{"timer values newest first", []Op{
		{Kind: "WriteUnitFile", Unit: 6, Dir: InDropIn, Lines: []Directive{{"Timer", "OnActiveSec", "1h"}, {"Timer", "OnBootSec", "2h"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnUnitActiveSec", Usec: 0xd693a400}, {Base: "OnUnitInactiveSec", Usec: 0xd693a400}}}}, Aux: []Prop{{"ExecStart", Command(3)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 6, Dir: InRuntime, Lines: []Directive{{"Timer", "OnActiveSec", "1h"}, {"Timer", "OnBootSec", "2h"}, {"Timer", "Unit", "{u0}"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 6, Dir: InDropIn, Lines: []Directive{{"Timer", "OnUnitActiveSec", "3h"}}},
		{Kind: "Reload", Unit: 0},
	}},
	// A StartTransientUnit whose start's transaction fails (a
	// dependency not found) leaves no unit: inactive and kept by
	// nothing, it is collected (252 seed 40002).
	{"failed transaction of a new unit", []Op{
		{Kind: "WriteUnitFile", Unit: 3, Dir: InDropIn, Lines: []Directive{{"Unit", "Requires", "nosuch.service"}}},
		{Kind: "WriteUnitFile", Unit: 2, Dir: InDropIn, Lines: []Directive{{"Unit", "Requires", "nosuch.service"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Zombie}, Props: []Prop{{"PIDs", PIDList{1}}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Unit", "Requires", "nosuch.service"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Requires", []string{"nosuch.service"}}}},
	}},
	// An empty Description= set on a loaded unit reads the unit's name,
	// not its type's own ("Slice /a" from 252), until the next load
	// (257 seed 41012).
	{"description set empty", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 4, Props: []Prop{{"Description", "x"}}},
		{Kind: "SetUnitProperties", Unit: 4, Runtime: true, Props: []Prop{{"Description", ""}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"Description", ""}}},
		{Kind: "Reload", Unit: 0},
	}},
	// SetUnitProperties writes each setting's drop-in anew: a reload
	// reads the last call's value (a list whole), the drop-ins in file
	// name order (50-MemoryMax.conf before 50-MemoryMaxScale.conf,
	// whichever was set last), and system.control's hides the runtime
	// one of the same name.
	{"set properties again", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"DeviceAllow", []DeviceValue{{"/dev/full", "r"}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"DeviceAllow", []DeviceValue{{"/dev/null", "r"}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"IODeviceWeight", []IOValue{{"/dev/null", 100}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"IODeviceWeight", []IOValue{{"/dev/zero", 200}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"MemoryMaxScale", uint32(2147483647)}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"MemoryMax", uint64(1 << 30)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 1, Props: []Prop{{"CPUWeight", uint64(10000)}}},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: true, Props: []Prop{{"CPUWeight", uint64(5)}}},
		{Kind: "Reload", Unit: 0},
	}},
	// The per-device lists (devicelist.go): an entry of a path set
	// over D-Bus again changes in place; new DeviceAllow= entries go
	// first, new IO entries last (247: first); the IO limits share one
	// list, a limit of infinity hides its entry; a reload reads each
	// list back whole from the transient file and the drop-ins, with a
	// unit file's rules (DeviceAllow= reversed).
	{"device lists", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"DeviceAllow", []DeviceValue{{"/dev/full", "r"}, {"/dev/null", "w"}, {"/dev/full", "m"}}}, {"IOReadBandwidthMax", []IOValue{{"/dev/full", 1000}, {"/dev/null", 2000}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"DeviceAllow", []DeviceValue{{"/dev/null", "r"}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"IODeviceWeight", []IOValue{{"/dev/null", 100}, {"/dev/zero", 300}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"IODeviceWeight", []IOValue{{"/dev/null", 200}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"IOReadBandwidthMax", []IOValue{{"/dev/zero", 3000}, {"/dev/full", 4000}}}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"IOReadBandwidthMax", []IOValue{{"/dev/null", 18446744073709551615}}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"IOReadBandwidthMax", []IOValue{}}}},
		{Kind: "Reload", Unit: 0},
	}},
	// A unit file's device lines: each adds an entry (none replaces
	// another), DeviceAllow= first; IO limits in sizes of 1000, 0
	// refused; a bad line ignored. An IO device path need not be
	// absolute over D-Bus.
	{"device lists in files", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "DeviceAllow", "/dev/full"}, {"Service", "DeviceAllow", "/dev/null r"}, {"Service", "IODeviceWeight", "/dev/null 100"}, {"Service", "IODeviceWeight", "/dev/zero 200"}, {"Service", "IOReadBandwidthMax", "/dev/null 1M"}, {"Service", "IOReadBandwidthMax", "/dev/zero infinity"}, {"Service", "IOReadBandwidthMax", "/dev/full 0"}, {"Service", "IODeviceWeight", "/dev/null 0"}, {"Service", "DeviceAllow", "bogus r"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 1, Props: []Prop{{"DeviceAllow", []DeviceValue{{"/dev/zero", "rw"}}}, {"IODeviceWeight", []IOValue{{"/dev/full", 1}}}, {"IOReadBandwidthMax", []IOValue{{"/dev/full", 1}}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IODeviceWeight", []IOValue{{"relative", 5}}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IODeviceWeight", []IOValue{{"/dev/../dev/null", 5}}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IOReadBandwidthMax", []IOValue{{"/dev/null", 0}}}}},
	}},
	// EnableUnitFiles of a file outside the unit path, by its path,
	// links it before its [Install] symlinks, on 247 after them; a
	// disable removes them in the order the directory lists them
	// (newest first on the sandbox's tmpfs), on every release.
	{"enable by path: where the link comes", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: Outside, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Install", "WantedBy", "{u7}"}}},
		{Kind: "EnableUnitFiles", Unit: 1, ByPath: true},
		{Kind: "DisableUnitFiles", Unit: 1},
		{Kind: "EnableUnitFiles", Unit: 1, ByPath: true, Runtime: true},
		{Kind: "DisableUnitFiles", Unit: 1, Runtime: true},
		{Kind: "WriteUnitFile", Unit: 0, Dir: Outside, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Install", "WantedBy", "multi-user.target"}, {"Install", "Alias", "{a}"}}},
		{Kind: "EnableUnitFiles", Unit: 0, ByPath: true},
		{Kind: "DisableUnitFiles", Unit: 0},
	}},
	// MemoryMaxScale= and MemoryHighScale= are written to a transient
	// unit's file as a percentage of memory, from 252 in hundredths,
	// rounded, on 247 in tenths, rounded up: after a reload (or
	// re-execution) 50% reads one page more than the share gave, 1%
	// (0x28f5c29) 1.1% on 247 (262 seed 39003, measured on 247-262).
	{"memory share after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"MemoryMaxScale", uint32(0x7fffffff)}, {"MemoryHighScale", uint32(0x1000000)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"MemoryMaxScale", uint32(42949673)}, {"MemoryHighScale", uint32(0xfffffffe)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "Reexecute", Unit: 0},
	}},
	// A unit's drop-ins are read only from the directories the manager's
	// unit name map found when it was last built, and loading a scope
	// builds none: a transient scope started after a drop-in directory was
	// made for it has none of its drop-ins until a daemon-reload (from 257
	// it reads NeedDaemonReload=true), one started after another unit's
	// load has them (252 seed 36000, measured on 247-262).
	{"scope's drop-in directory", []Op{
		{Kind: "WriteUnitFile", Unit: 3, Dir: InDropIn, Lines: []Directive{{"Unit", "Description", "from a drop-in"}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "WriteUnitFile", Unit: 2, Dir: InDropIn, Lines: []Directive{{"Unit", "Description", "from a drop-in"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{1}}}},
		{Kind: "Reload", Unit: 0},
	}},
	// ManagedOOMMemoryPressureLimit= (a share of 2^32-1) is written to a
	// transient unit's file in hundredths of a percent, rounded, and a
	// reload reads it back from them: 1 reads 0, 0x7fffffff 0x80000000
	// (252, 257, 262; 247 has no such setting). A SetUnitProperties
	// drop-in's line reads back as the transient file's, a unit file's
	// too (CPUQuotaPerSecUSec= in whole percents before 257, TasksMaxScale=
	// a tenth before 257). The fake kept the values (257 seed 37002).
	{"OOM pressure limit after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ManagedOOMMemoryPressureLimit", uint32(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ManagedOOMMemoryPressureLimit", uint32(0x7fffffff)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"CPUQuotaPerSecUSec", uint64(15000)}, {"ManagedOOMMemoryPressureLimit", uint32(42949)}, {"TasksMaxScale", uint32(0x7fffffff)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: true, Props: []Prop{{"CPUQuotaPerSecUSec", uint64(15000)}, {"ManagedOOMMemoryPressureLimit", uint32(4294968)}, {"TasksMaxScale", uint32(0x7fffffff)}}},
		{Kind: "Reload", Unit: 0},
	}},
	// Before 257 systemd looks for a loaded unit's drop-ins only in the
	// directories its unit name map found when it was last built: at a
	// daemon-reload, or when it loads a unit not loaded (LoadUnit, a
	// StartTransientUnit of a new name; a target, which cannot be
	// transient, refused first) once a unit directory changed. A drop-in
	// directory made for a loaded unit makes it need a daemon-reload at
	// the next such load, not before (247 seed 34001, measured on
	// 247-262; from 257 at once).
	{"drop-in directory seen at the next load", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InDropIn, Lines: []Directive{{"Slice", "MemoryMax", "1G"}}},
		{Kind: "StartTransientUnit", Unit: 7, Mode: "replace", Props: []Prop{{"DefaultDependencies", false}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "Reload", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Unit", "Description", "d"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Unit", "Description", "d"}}},
		{Kind: "LoadUnit", Unit: 7},
	}},
	// TimeoutStopUSec= limits ExecStopPost= too: with 1 µs, systemd
	// killed the command of a program that exited by itself and failed
	// the unit, Result timeout (262 seed 35004, once), where the command
	// mostly ends first: known difference stop-timeout-race.
	{"stop-post with no time to run", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStopPost", Command(3)}, {"TimeoutStopUSec", uint64(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStopPost", Command(3)}, {"TimeoutStopUSec", uint64(0)}}},
	}},
	// SetUnitProperties writes each setting to a drop-in of its own,
	// NAME.d/50-SETTING.conf (50-CPUQuota.conf for CPUQuotaPerSecUSec;
	// none for 262's ignored cgroup v1 settings): a transient unit's in
	// the transient directory, a unit file's in $CONFIG.control, or
	// $RUNTIME.control with runtime set. DropInPaths lists each at once,
	// before 257 in the order written, NeedDaemonReload true while that
	// is not sorted by file name; from 257 sorted; after a daemon-reload
	// sorted, and applied in that order (a drop-in named difftest.conf
	// overrides 50-Description.conf). The fake listed none (known
	// difference set-property-drop-ins, now fixed; 247 seed 32001:
	// NeedDaemonReload; measured on 247-262).
	{"set properties' drop-ins", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "x"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"CPUWeight", uint64(100)}}},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"Description", "y"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: false, Props: []Prop{{"Description", "y"}, {"CPUWeight", uint64(100)}}},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: false, Props: []Prop{{"Description", "z"}, {"CPUQuotaPerSecUSec", uint64(10000)}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{}},
		{Kind: "SetUnitProperties", Unit: 4, Runtime: true, Props: []Prop{{"MemoryMax", uint64(1 << 30)}, {"CPUWeight", uint64(100)}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "SetUnitProperties", Unit: 2, Runtime: true, Props: []Prop{{"TasksMax", uint64(100)}, {"CPUShares", uint64(100)}, {"BlockIOWeight", uint64(100)}, {"MemoryLimit", uint64(1 << 30)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: false, Props: []Prop{{"MemoryMax", uint64(1 << 30)}}},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: false, Props: []Prop{{"AllowedCPUs", []byte{1}}}},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "LoadUnit", Unit: 4},
	}},
	{"set properties' drop-ins of a unit file", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Unit", "Description", "d"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"CPUWeight", uint64(100)}}},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: false, Props: []Prop{{"Description", "y"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: true, Props: []Prop{{"Description", "y"}}},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: false, Props: []Prop{{"CPUWeight", uint64(100)}}},
		{Kind: "Reload", Unit: 0},
	}},
	// A process systemd killed (KillUnit of its scope, or the scope's
	// stop) is gone when a later step places it in a scope:
	// UnixProcessIdUnknown on every release; the fake signals no process
	// and starts the scope: known difference kill-scope-processes (247
	// seed 32002).
	{"scope with a process systemd killed", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StopUnit", Unit: 2, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Props: []Prop{{"PIDs", PIDList{0}}}},
	}},
	// A stop with TimeoutStopUSec= 0 or 1 µs set over D-Bus (0 is no
	// time at all there): systemd's stop timer and the death of sleep by
	// SIGTERM race, the unit fails with Result timeout or stops (2 of 6
	// stops timed out on 247 and on 252, none of 6 on 257 and 262; 257
	// seeds 31006, 31011): known difference stop-timeout-race. The fake
	// stops it.
	{"stop with no time to stop", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"TimeoutStopUSec", uint64(0)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"TimeoutStopUSec", uint64(1)}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// A simple service whose program fails before it runs (203/EXEC)
	// ends while ExecStartPost= runs: the command completes, the unit
	// fails and so does its start job (an idle service's program starts
	// after its job ended: done). The fake ended the job done (252
	// seeds 29007-29019; measured on 247-262: 10 of 12 runs, the others
	// known difference start-post-race).
	{"program that fails before it runs, with ExecStartPost=", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(4)}, {"ExecStartPost", Command(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(4)}, {"ExecStartPost", Command(1)}, {"Type", "idle"}}},
	}},
	// A unit Also= names twice that does not exist is reported once,
	// "auxiliary unit failed" (252 seed 29023, measured on 247-262).
	{"Also= twice", []Op{
		{Kind: "WriteUnitFile", Unit: 5, Dir: InRuntime, Lines: []Directive{{"Socket", "ListenStream", ""}, {"Install", "Also", "{u1}"}, {"Install", "Also", "{u1}"}}},
		{Kind: "EnableUnitFiles", Unit: 5},
	}},
	// StopWhenUnneeded=: an active unit with it that nothing needs gets a
	// stop job once the job that started it ended (a target started by
	// hand); a service a running one wants stays until that one stops or
	// fails; from 252 a daemon-reload that gives an active unit the
	// setting stops it. The fake stored the setting only (262 rapid seed
	// 28043, measured on 247-262).
	{"stop when unneeded", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "StopWhenUnneeded", "yes"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "StopWhenUnneeded", "yes"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Unit", "Wants", "{u0}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Unit", "Wants", "{u0}"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "x"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "StopWhenUnneeded", "yes"}}},
		{Kind: "Reload", Unit: 7},
		{Kind: "RestartUnit", Unit: 7, Mode: "replace"},
	}},
	// TasksMaxScale= after a reload is what the transient file holds, a
	// percentage: in hundredths from 257; before, rounded up to a whole
	// percent and written a tenth as large (50% reads 5%, 0.39% reads
	// 0.1%). The fake kept the value (252 seed 1, measured on 247-262).
	{"tasks share after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"TasksMaxScale", uint32(0x7fffffff)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"TasksMaxScale", uint32(0x1000000)}}},
		{Kind: "Reload", Unit: 4},
	}},
	// The start rate limit: the start after StartLimitBurst= starts
	// within StartLimitIntervalUSec= fails the unit (Result
	// start-limit-hit where it was success, on 262 always) and its job,
	// for services, sockets and timers, not slices; a socket whose
	// service is not loaded fails its start job and stays inactive; a
	// unit file's Condition*= (here "|!", a triggering negated one) is
	// evaluated. The fake modelled no limit, started such a socket, and
	// ignored a file's conditions (252 rapid seed 27009, measured on
	// 247-262).
	{"start rate limit", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnActiveSec", Usec: 0xd693a400}}}, {"StartLimitBurst", uint32(1)}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"StartLimitBurst", uint32(1)}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"StartLimitBurst", uint32(1)}}},
		{Kind: "RestartUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 5, Dir: InConfig, Lines: []Directive{{"Unit", "StartLimitBurst", "1"}, {"Socket", "ListenStream", "{dir}/socket"}}},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "StartLimitBurst", "2"}, {"Unit", "ConditionPathExists", "|!/nonexistent"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 5, Mode: "replace"},
	}},
	// What the start rate limit counts: a start that gets past the
	// unit's conditions (not one a condition skips, not a start of an
	// active unit), the start half of a restart; ResetFailedUnit of an
	// active unit closes the window; an interval of 0 turns the limit
	// off (measured on 247-262).
	{"start rate limit counts", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "StartLimitBurst", "2"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Unit", "StartLimitBurst", "1"}, {"Unit", "ConditionPathExists", "/nonexistent"}, {"Unit", "ConditionPathExists", "/"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Wants", "{u1}"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnActiveSec", Usec: 0xd693a400}}}, {"StartLimitBurst", uint32(1)}, {"StartLimitIntervalUSec", uint64(0)}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "RestartUnit", Unit: 6, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 6, Mode: "replace"},
	}},
	// A daemon-reload or re-execution closes the start rate limit's
	// window before 257 and carries it over from 257 (measured on
	// 247-262).
	{"start rate limit across a reload", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "StartLimitBurst", "2"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "Reload", Unit: 0},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
	}},
	// Slice= of a transient slice, or of a timer, is InvalidArgs with
	// systemd's text, before the value is read; the fake answered
	// PropertyReadOnly (252 rapid seed 27020, measured on 247-262).
	{"Slice of a slice or timer", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Slice", "bogus"}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnActiveSec", Usec: 0xd693a400}}}, {"Slice", "-.slice"}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Slice", "-.slice"}}},
	}},
	// A transient unit's CPUQuotaPerSecUSec= after a reload is what its
	// file holds: a percentage, whole before 257 (15000 µs/s reads
	// 10000), in hundredths from 257; one that comes to 0 reads
	// infinity. The fake kept the value (247 seed 26013, measured on
	// 247-262).
	{"CPU quota after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"CPUQuotaPerSecUSec", uint64(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"CPUQuotaPerSecUSec", uint64(15000)}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"CPUQuotaPerSecUSec", uint64(1234567)}}},
		{Kind: "Reload", Unit: 0},
	}},
	// A timer that arms no time source (its values are all relative to
	// a unit that never ran) cannot fail to arm one: WakeSystem=yes or
	// AccuracyUSec=infinity leave it elapsed; one that arms a source
	// fails, Result resources (the fake failed both; 247 seed 24006,
	// measured on 247-262).
	{"timer that arms nothing", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnUnitActiveSec", Usec: 0xd693a400}, TimerValue{Base: "OnUnitInactiveSec", Usec: 0xd693a400}}}, {"WakeSystem", true}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnUnitActiveSec", Usec: 0xd693a400}}}, {"AccuracyUSec", uint64(0xffffffffffffffff)}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0xd693a400}}}, {"AccuracyUSec", uint64(0xffffffffffffffff)}}, Aux: []Prop{{"ExecStart", Command(1)}}},
	}},
	// RequiresMountsFor= of a transient unit of any type: each path,
	// simplified, must be absolute and hold no ".."; the paths add up
	// and their mounts become dependencies. The fake refused the
	// property (found reading the model; measured on 247-262).
	{"RequiresMountsFor", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RequiresMountsFor", []string{"relative"}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RequiresMountsFor", []string{"/a//b/../c/"}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RequiresMountsFor", []string{"/nonexistent"}}, {"RequiresMountsFor", []string{}}, {"After", []string{}}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"RequiresMountsFor", []string{"/"}}, {"After", []string{}}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"RequiresMountsFor", []string{"/x//./y/"}}, {"RequiresMountsFor", []string{"/z"}}}},
	}},
	// A unit-file method whose only change is a report ("masked": a
	// disable that leaves a runtime mask) changes nothing: no
	// UnitFilesChanged, and on 257 and 262 units do not need a
	// daemon-reload after it (install_changes_have_modification). The
	// fake counted it a change (257 seed 21025).
	{"report-only unit-file change", []Op{
		{Kind: "MaskUnitFiles", Unit: 0, Runtime: true, Force: true},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"MemoryAccounting", false}}},
		{Kind: "DisableUnitFiles", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "LoadUnit", Unit: 1},
		{Kind: "DisableUnitFiles", Unit: 0},
	}},
	// A command's program may be a file name without a slash, which
	// systemd looks for in its search path when it runs it: the unit
	// loads (the fake said bad-setting; 257 seed 21005, measured on
	// 247-262).
	{"program by file name", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "true"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "true"}, {"Service", "Type", "oneshot"}, {"Service", "RemainAfterExit", "yes"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
	}},
	// A unit's working directory needs its mount (RequiresMountsFor,
	// After= the mount unit of it or a parent: -.mount), unless it may
	// be missing ("-") or is the home directory ("~"). The fake added
	// none (257 seed 21057, measured on 247-262).
	{"working directory's mount", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"WorkingDirectory", "/nonexistent"}, {"After", []string{}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"WorkingDirectory", "-/nonexistent"}, {"After", []string{}}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"WorkingDirectory", "/"}, {"After", []string{}}, {"Requires", []string{}}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"WorkingDirectory", "~"}, {"After", []string{}}}},
	}},
	// A scope's result is not carried over a daemon-reload or
	// re-execution (scope_serialize keeps none): a failed scope reads
	// Result success; a service keeps its own. The fake kept timeout
	// (252 seeds 22000-22010, flaky as the scope there held zombies
	// only; measured on 247-262).
	{"failed scope after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"RuntimeMaxUSec", uint64(1)}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RuntimeMaxUSec", uint64(1)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{1}}, {"RuntimeMaxUSec", uint64(1)}}},
		{Kind: "Reexecute", Unit: 0},
	}},
	// KillUnit of a running ExecCondition= or ExecStartPre= command (the
	// control process, or all processes) fails the start, Result
	// signal, whatever the signal but those that do not end a process
	// and SIGPIPE; its run reads 2/N and ExecStopPost= runs. The fake
	// answered that there was no control process. Measured on 252 and
	// 262 (found reading the model).
	{"KillUnit of a control process", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}, {"ExecStopPost", Command(1)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 9},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecCondition", Command(0)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "all", Signal: 15},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 28},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 15},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 13},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 1},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecCondition", Command(0)}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// ExecCondition= runs before ExecStartPre=: a command that exits 1
	// to 254 (a program that does not exist too, 203) skips the start:
	// ExecStopPost= runs, the unit goes inactive, Result exec-condition,
	// the job is done (skipped on 247); 255 fails it (exit-code). The
	// fake kept the setting and ran nothing. Measured on 247-262 (found
	// reading the model).
	{"ExecCondition= skips a start", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "ExecCondition", "/bin/false"}, {"Service", "ExecStopPost", "/bin/true"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "ExecCondition", "/bin/sh -c 'exit 255'"}, {"Service", "ExecStopPost", "/bin/true"}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Wants", "{u0}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "ExecCondition", "-/bin/false"}, {"Service", "ExecCondition", "/bin/true"}, {"Service", "ExecStartPre", "/bin/true"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/true"}, {"Service", "ExecCondition", "/bin/true"}, {"Service", "ExecCondition", "/bin/sh -c 'exit 254'"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecCondition", Command(2)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecCondition", Command(4)}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecCondition", Command(3)}}},
	}},
	// A transient service's control command whose program does not exist
	// fails 203/EXEC, as its main process does: ExecStartPre= and
	// ExecStartPost= fail the start, ExecStop= and ExecStopPost= the
	// stop. The fake ran it as a program it does not know (exit 0).
	// Measured on 252 and 257 (found reading the model).
	{"control command that does not exist", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(4)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(4)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(4)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStopPost", Command(4)}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// A oneshot service's start runs its ExecStart= commands in turn,
	// each once the one before it succeeded: the first that fails fails
	// the unit and the later ones do not run; ExecMain* are the last
	// one's, ExecStart= shows each run. The fake ran the first alone.
	// Measured on 247-262 (found reading the model).
	{"a oneshot's commands in turn", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"Type", "oneshot"}, {"ExecStart", Command(1)}, {"ExecStart", Command(3)}, {"ExecStart", Command(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"Type", "oneshot"}, {"ExecStart", Command(1)}, {"ExecStart", Command(1)}, {"RemainAfterExit", true}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"Type", "oneshot"}, {"ExecStart", Command(1)}, {"ExecStart", Command(2)}, {"RemainAfterExit", true}, {"ExecStopPost", Command(1)}}},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"Type", "oneshot"}, {"ExecStart", Command(4)}, {"ExecStart", Command(1)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"Type", "oneshot"}, {"ExecStart", Command(1)}, {"ExecStart", Command(0)}, {"ExecStopPost", Command(1)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// A command with "-" that fails counts as a success, for the main
	// process of every type and for each of a oneshot's commands;
	// ExecMain* keep its status. The fake failed the unit. Measured on
	// 247-262 (found reading the model).
	{"a command with '-' fails as a success", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "-/bin/false"}, {"Service", "ExecStop", "/bin/true"}, {"Service", "ExecStopPost", "/bin/true"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "-/bin/false"}, {"Service", "ExecStartPost", "/bin/true"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "Type", "notify"}, {"Service", "ExecStart", "-/bin/false"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "Type", "exec"}, {"Service", "ExecStart", "-/bin/sh -c 'exit 3'"}, {"Service", "RemainAfterExit", "yes"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/true"}, {"Service", "ExecStart", "-/bin/false"}, {"Service", "ExecStart", "/bin/sh -c 'exit 3'"}, {"Service", "ExecStart", "/bin/true"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/true"}, {"Service", "ExecStart", "-/bin/false"}, {"Service", "ExecStart", "/bin/true"}, {"Service", "RemainAfterExit", "yes"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 1, Mode: "replace"},
	}},
	// A start forgets the runs of the start before it (service_start):
	// ExecStopPost='s run reads 0 again, and ExecMain* too for a oneshot
	// without ExecStart=. A stop during ExecStartPre= kills it (its run
	// reads 2/15, and read "running" before) and runs ExecStopPost=, not
	// ExecStop=. The fake kept the runs and recorded a control process
	// once it ended. Measured on 247-262 (found reading the model).
	{"a start forgets the runs before it", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStopPost", Command(2)}, {"ExecStartPre", Command(1)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/false"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "RemainAfterExit", "yes"}, {"Service", "ExecStop", "/bin/true"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStartPre", Command(0)}, {"ExecStart", Command(0)}, {"ExecStopPost", Command(2)}, {"ExecStop", Command(1)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// KillUnit of a service's main process: every signal that ends a
	// process that does not handle it does, SIGHUP as a clean exit, a
	// core-dumping one as "signal" (no core with LimitCORE=0); SIGPIPE is
	// ignored (IgnoreSIGPIPE=yes) and SIGWINCH harmless. The fake ended
	// it only on SIGKILL, SIGTERM, SIGINT and realtime signals (247 seeds
	// 20002, 20005 and 20007: SIGHUP; the same on 247-262).
	{"signals to a service's main process", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 10},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 3},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 13},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 28},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "KillUnit", Unit: 3, Whom: "all", Signal: 10},
	}},
	// A scope has no main or control process to kill (the fake said
	// there was none running; 247 seed 20004, the same on 247-262).
	{"kill of a scope's main process", []Op{
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "KillUnit", Unit: 3, Whom: "main", Signal: 9},
		{Kind: "KillUnit", Unit: 3, Whom: "main", Signal: 15},
		{Kind: "KillUnit", Unit: 3, Whom: "control", Signal: 15},
	}},
	// A daemon-reload or re-execution arms a waiting timer again as if
	// it never elapsed: OnActiveSec=0 beside OnActiveSec=1h elapses again
	// and starts its unit (the fake kept the elapsed value; 262 seed
	// 19005, measured three times on each release; 262's re-execution
	// did so once in three, known difference timer-reexec-262).
	{"waiting timer armed again at a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0x0}}}, {"RemainAfterElapse", true}, {"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0xd693a400}}}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "Reload", Unit: 0},
		{Kind: "Reexecute", Unit: 0},
	}},
	// RefuseManualStart= or RefuseManualStop= refuses a scope's restart
	// before the job type is found not applicable (the fake answered
	// JobTypeNotApplicable; 262 seed 19002, the same on 247-262).
	{"restart of a scope refused by its settings", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"RefuseManualStop", true}}},
		{Kind: "RestartUnit", Unit: 2, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{1}}, {"RefuseManualStart", true}}},
		{Kind: "RestartUnit", Unit: 3, Mode: "replace"},
	}},
	// A transient socket takes the execution settings, the kill settings
	// and Slice= (the fake refused them as unknown; 252 seed 18007, the
	// same on 247-262; a wrong type is ENXIO, worded per release).
	{"socket execution and kill settings", []Op{
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"StandardError", "journal"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"User", "root"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"Environment", []string{"A=1"}}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"Nice", int32(1)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"LimitNOFILE", uint64(1024)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"WorkingDirectory", "/"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"KillMode", "process"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"KillSignal", int32(15)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"SendSIGKILL", true}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"FinalKillSignal", int32(9)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"TimeoutStopUSec", uint64(1)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"RuntimeMaxUSec", uint64(1)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"OOMPolicy", "stop"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"OOMScoreAdjust", int32(1)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"Group", "root"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"StandardOutput", "journal"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"Slice", "system.slice"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"Delegate", true}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"StandardError", uint32(7)}}},
	}},
	// KillUnit of a timer or target: NotSupported, worded per release
	// (the fake signalled nothing and answered ok; 252 seed 18000, the
	// same on 247-262); a slice's processes are signalled.
	{"kill of a unit type without processes", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0xd693a400}}}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "KillUnit", Unit: 6, Whom: "all", Signal: 15},
		{Kind: "KillUnit", Unit: 6, Whom: "main", Signal: 15},
		{Kind: "KillUnit", Unit: 6, Whom: "control", Signal: 15},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "KillUnit", Unit: 4, Whom: "all", Signal: 15},
		{Kind: "KillUnit", Unit: 4, Whom: "main", Signal: 15},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "difftest unit"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "KillUnit", Unit: 7, Whom: "all", Signal: 15},
		{Kind: "KillUnit", Unit: 7, Whom: "all", Signal: 0},
		{Kind: "KillUnit", Unit: 6, Whom: "all", Signal: 0},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "KillUnit", Unit: 6, Whom: "all", Signal: 15},
	}},
	// A daemon-reload reads the drop-ins of a transient unit and of a
	// slice made implicitly again: one added since applies, one removed
	// no longer does; NeedDaemonReload says so before (from 257 for a
	// drop-in directory made since the unit loaded). The fake read them
	// at load only (found by a read of the model, the same on 247-262).
	{"drop-ins of units without a file at a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Environment", []string{"A=1"}}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "Environment", "B=2"}, {"Service", "MemoryMax", "1G"}}},
		{Kind: "Reload"},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InDropIn, Lines: []Directive{{"Slice", "MemoryMax", "1G"}}},
		{Kind: "Reload"},
		{Kind: "RemoveUnitFile", Unit: 4},
		{Kind: "Reload"},
	}},
	// A unit file's percentages of memory and tasks, soft:hard limits
	// and empty assignments (MemoryMax= resets to infinity, TasksMax= to
	// DefaultTasksMax, LimitX= is ignored); the fake ignored all three
	// forms (found by a read of the parser, the same on 247-262).
	{"unit-file percentages, soft:hard limits and resets", []Op{
		{Kind: "WriteUnitFile", Unit: 4, Dir: InConfig, Lines: []Directive{{"Slice", "MemoryMax", "50%"}, {"Slice", "TasksMax", "10%"}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InConfig, Lines: []Directive{{"Slice", "MemoryMax", "1G"}, {"Slice", "MemoryMax", ""}, {"Slice", "TasksMax", "10"}, {"Slice", "TasksMax", ""}}},
		{Kind: "Reload"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "LimitNOFILE", "1024:4096"}, {"Service", "LimitCORE", "0:infinity"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "LimitNOFILE", "5"}, {"Service", "LimitNOFILE", ""}, {"Service", "LimitCORE", "5"}, {"Service", "LimitCORE", ""}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "LimitNOFILE", "8M:bogus"}, {"Service", "LimitCORE", "2:1"}}},
		{Kind: "Reload"},
	}},
	// EnableUnitFiles and DisableUnitFiles act on the units Also= names
	// too, and on theirs in turn (the fake did not; found by a read of
	// the model, the same on 247-262 but for a missing one: "auxiliary
	// unit failed" from 252, NoSuchUnit on 247).
	{"Also= enables and disables the units it names", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}, {"Install", "WantedBy", "multi-user.target"}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Install", "Also", "{u0}"}}},
		{Kind: "EnableUnitFiles", Unit: 7},
		{Kind: "GetUnitFileState", Unit: 0},
		{Kind: "ListUnitFilesByPatterns", Unit: 0},
		{Kind: "DisableUnitFiles", Unit: 7},
		{Kind: "GetUnitFileState", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}, {"Install", "WantedBy", "multi-user.target"}, {"Install", "Also", "{u0}"}}},
		{Kind: "EnableUnitFiles", Unit: 1},
		{Kind: "GetUnitFileState", Unit: 0},
		{Kind: "Reload"},
		{Kind: "DisableUnitFiles", Unit: 1},
		{Kind: "GetUnitFileState", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 6, Dir: InConfig, Lines: []Directive{{"Timer", "OnActiveSec", "1h"}, {"Install", "Also", "{u7}"}, {"Install", "Also", "nosuch.service"}}},
		{Kind: "EnableUnitFiles", Unit: 6},
	}},
	// A notify or dbus service whose program ends before it is ready
	// fails its start job with the unit (a notify one Result protocol
	// on exit 0, RemainAfterExit= or not); a dbus one that exits 0 ends
	// (the fake finished the job done; 257 seed 17003, the same on
	// 247-262). Not here: Type=exec with /bin/false, whose job systemd
	// ends done or failed as its processes race.
	{"program that ends before it is ready", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"BusName", "org.example.X"}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"BusName", "org.example.X"}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"Type", "notify"}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "notify"}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"Type", "notify"}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "notify"}, {"RemainAfterExit", true}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
	}},
	// A restart of a unit whose start job runs gets that job (the fake
	// canceled it for a restart job; 257 seed 17002, the same on
	// 247-262).
	{"restart while starting", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "notify"}}},
		{Kind: "RestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 1, Mode: "fail"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// RandomizedDelayUSec= delays a timer's elapse (the fake ignored it
	// and elapsed OnActiveSec=0 at once; 257 seed 17005, the same on
	// 247-262).
	{"timer random delay", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0x0}}}, {"RandomizedDelayUSec", uint64(0xffffffffffffffff)}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0x0}}}, {"RandomizedDelayUSec", uint64(0xd693a400)}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0x0}}}, {"RandomizedDelayUSec", uint64(1)}}, Aux: []Prop{{"ExecStart", Command(1)}}},
	}},
	// A service that ends by itself runs ExecStop= (after a success) and
	// ExecStopPost= (in any case, after a failed ExecStartPre= too), and
	// fails if one fails; each command's run shows in its record (the
	// fake ran none of them and showed none; found by a read of the
	// model, the same on 247-262). Not here: a main process that exits at
	// once while ExecStartPost= fails, which ends killed or exited as
	// systemd's processes race.
	{"stop commands", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStopPost", Command(2)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"ExecStopPost", Command(1)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStop", Command(2)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"ExecStop", Command(2)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStartPre", Command(2)}, {"ExecStopPost", Command(2)}}},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"ExecStopPost", Command(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(2)}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(1)}, {"ExecStop", Command(1)}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "ExecStop", "/bin/true"}, {"Service", "ExecStartPre", "/bin/true"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
	}},
	// A start refused by the unit's settings (RefuseManualStart=,
	// isolate without AllowIsolate=) is refused once the unit is made
	// transient: a pristine unit (a slice started with no file) keeps
	// the settings and is no longer pristine (the fake refused before it
	// applied them; 262 seed 16002, the same on 247-262).
	{"refused transient start keeps the settings", []Op{
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"RefuseManualStop", true}, {"CPUShares", uint64(0x40000)}, {"RefuseManualStart", true}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
	}},
	{"refused isolate of a transient unit keeps the settings", []Op{
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "isolate", Props: []Prop{{"Description", "a unit"}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
	}},
	// A transient service's drop-ins append to its commands and lists
	// (an empty ExecStart= resets them) and the unit is verified with
	// them: more than one ExecStart= is bad-setting unless oneshot (the
	// fake replaced the commands and started it; 262 seed 16003, the same
	// on 247-262).
	{"drop-ins of a transient service", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", ""}, {"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "Environment", "B=2"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Environment", []string{"A=1"}}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/true"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}}},
	}},
	// What service_verify refuses (badService): no ExecStart= unless a
	// oneshot with RemainAfterExit=yes and ExecStop=, more than one unless
	// oneshot, a oneshot with Restart=always or on-success; the same for
	// unit files. A oneshot without ExecStart= has no main process
	// (ExecMainCode 0). The fake refused only a service with neither
	// ExecStart= nor ExecStop= (found with 16003; the same on 247-262).
	{"service verification", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStop", Command(1)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStop", Command(1)}, {"RemainAfterExit", true}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"Restart", "always"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"Restart", "on-success"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"Restart", "on-failure"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStart", Command(1)}, {"Type", "oneshot"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"Type", "oneshot"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStop", Command(1)}, {"Type", "oneshot"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStop", Command(1)}, {"Type", "forking"}, {"RemainAfterExit", true}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "simple"}, {"Restart", "always"}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	{"service verification of unit files", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "Type", "oneshot"}, {"Service", "ExecStart", "/bin/true"}, {"Service", "Restart", "always"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStop", "/bin/true"}, {"Service", "RemainAfterExit", "yes"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}}},
		{Kind: "Reload"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
	}},
	// What [Install] lists: a scope takes no Alias= (static; a service's
	// alias of another type still makes it disabled), Also= alone makes a
	// unit indirect (the fake: disabled and static; 247, found by a
	// 20-minute run, seeds 15001 and 15004, the same on 247-262).
	{"install states of Alias= and Also=", []Op{
		{Kind: "WriteUnitFile", Unit: 3, Dir: InConfig, Lines: []Directive{{"Install", "Alias", "{u0}"}, {"Unit", "Description", ""}}},
		{Kind: "ListUnitFilesByPatterns", Unit: 3},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}, {"Install", "Alias", "{u4}"}}},
		{Kind: "ListUnitFilesByPatterns", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 6, Dir: InRuntime, Lines: []Directive{{"Timer", "OnActiveSec", "1h"}, {"Install", "Also", "{u1}"}}},
		{Kind: "ListUnitFilesByPatterns", Unit: 6},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Install", "Also", "{u0}"}}},
		{Kind: "ListUnitFilesByPatterns", Unit: 7},
	}},
	// A unit file's numeric settings apply: sizes (1G, 1.5M), time spans,
	// numbers, infinity; values systemd rejects (MemoryMax=0, bogus,
	// CPUWeight=10001) are ignored (the fake ignored every numeric
	// directive: MemoryMax=1G read infinity, TimeoutStartSec=5 90 s;
	// found by a read of the parser, the same on 247-262).
	{"unit-file numeric settings", []Op{
		{Kind: "WriteUnitFile", Unit: 4, Dir: InConfig, Lines: []Directive{{"Slice", "MemoryMax", "1G"}, {"Slice", "CPUWeight", "100"}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "MemoryMax", "1G"}, {"Service", "TimeoutStartSec", "5"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "MemoryMax", "0"}, {"Service", "TimeoutStartSec", "infinity"}, {"Service", "MemoryMax", "bogus"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InConfig, Lines: []Directive{{"Slice", "MemoryMax", "1.5M"}, {"Slice", "CPUWeight", "10001"}}},
		{Kind: "Reload", Unit: 0},
	}},
	// A name with drop-ins in the unit directories but no unit file can
	// become a transient unit, which has their settings and lists them
	// (the fake refused the name UnitExists and read none); 247 refuses a
	// slice's name (loaded, with drop-ins, it is not pristine), not a
	// service's (not found, it loads none). sdversions.TransientOverDropIns.
	{"transient unit over drop-ins", []Op{
		{Kind: "WriteUnitFile", Unit: 4, Dir: InDropIn, Lines: []Directive{{"Slice", "MemoryMax", "1G"}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "Nice", "5"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: true, Props: []Prop{{"Description", "b"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
	}},
	// The same for SetUnitProperties' drop-ins: 252-262 take the name, 247
	// refuses it UnitExists (the fake took it on 247 too).
	{"transient unit over SetUnitProperties drop-ins", []Op{
		{Kind: "SetUnitProperties", Unit: 4, Runtime: true, Props: []Prop{{"MemoryMax", uint64(0x40000000)}}},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
	}},
	// StartTransientUnit whose settings are refused, of a unit loaded
	// from no file (a slice started implicitly, active): systemd made it
	// transient before looking at the settings and leaves it a stub: any
	// job of it, a stop too, is refused LoadFailed, its name is taken
	// (UnitExists), its empty transient file lists as masked-runtime, and
	// a daemon-reload loads it (the fake kept it loaded; 252, found by a
	// 15-minute run, seed 13000, the same on 247-262). An empty unit file
	// masks its name (the fake: static; 252 seed 13004).
	{"settings refused on a pristine unit leave a stub", []Op{
		{Kind: "RestartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"DevicePolicy", "bogus"}}},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"DevicePolicy", "bogus"}}},
		{Kind: "ListUnitFilesByPatterns", Unit: 4},
		{Kind: "ResetFailedUnit", Unit: 4},
		{Kind: "KillUnit", Unit: 4, Whom: "all", Signal: 0},
		{Kind: "Reload", Unit: 0},
		{Kind: "ListUnitFilesByPatterns", Unit: 4},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{}},
		{Kind: "ListUnitFilesByPatterns", Unit: 0},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "EnableUnitFiles", Unit: 0},
		{Kind: "UnmaskUnitFiles", Unit: 0},
		{Kind: "ListUnitFilesByPatterns", Unit: 0},
	}},
	// A stub (replay above) loads at a re-execution too; collected, its
	// name is not found on 247-257 (sdversions.CollectedTransientNameLoads).
	{"a stub loads at a re-execution", []Op{
		{Kind: "RestartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}, {"NoSuchProperty", uint64(1)}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
	}},
	// A transient unit loaded at the last daemon-reload, once collected,
	// leaves its name not found on 247-257 until a unit directory changes
	// (a slice is made again on 262: sdversions.CollectedTransientNameLoads;
	// found while measuring the stub above).
	{"collected transient name after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "LoadUnit", Unit: 4},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
	}},
	// A unit that sets no limit on open files has systemd's: a hard limit
	// of 524288 (HIGH_RLIMIT_NOFILE, or what systemd inherited if higher),
	// a soft one of 1024 (the fake: 0; 262, found by a 15-minute run, seed
	// 14000, the same on 247-262).
	{"limits a unit does not set", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"LimitNOFILE", uint64(1024)}}},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"LimitNOFILE", uint64(1024)}}},
	}},
	// SetUnitProperties of a unit from no file (a slice) keeps its
	// settings in a drop-in that outlives the unit: loaded again, it has
	// them (the fake lost them with the unit; 252, found by a 15-minute
	// run, seed 13003, the same on 247-262). 252-262 apply them to a
	// transient unit of the name too; 247 refuses that name UnitExists
	// (replay "transient unit over SetUnitProperties drop-ins").
	{"set properties outlive the unit", []Op{
		{Kind: "SetUnitProperties", Unit: 4, Props: []Prop{{"Description", "a unit"}}},
		{Kind: "LoadUnit", Unit: 4},
		{Kind: "SetUnitProperties", Unit: 4, Runtime: true, Props: []Prop{{"MemoryMax", uint64(0x40000000)}}},
		{Kind: "LoadUnit", Unit: 4},
	}},

	// A restart of a unit with RefuseManualStop= is refused
	// OnlyByDependency (the fake: queued), and a stop of a masked unit is
	// a stop job (the fake: UnitMasked). Found by a 30-minute run on 262
	// (seeds 12000, 12001), the same on 247-257.
	{"restart refused by RefuseManualStop", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RefuseManualStop", true}}},
		{Kind: "RestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"RefuseManualStop", true}}},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"RefuseManualStart", true}}},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
	}},
	{"stop of a masked unit", []Op{
		{Kind: "MaskUnitFiles", Unit: 4},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "MaskUnitFiles", Unit: 1},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},

	// After a daemon-reload or daemon-reexec an elapsed or running
	// timer's TimersMonotonic values read next elapse 0, a waiting
	// timer's are computed again (the fake kept them). Found by a
	// 30-minute run on 257 (seed 11003), the same on every release.
	{"timer next elapse after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0x0}}}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0x0}}}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0xd693a400}}}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "Reload", Unit: 0},
	}},

	// The same with a unit that failed and so stays loaded: systemd
	// reads next elapse 0 or computes it again, in the order of its
	// coldplug (known difference timer-coldplug-order; 262 seed 16004).
	{"timer next elapse after a reload, its unit failed", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{TimerValue{Base: "OnActiveSec", Usec: 0x0}}}}, Aux: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "Reload", Unit: 0},
	}},

	// A forking service's ExecStart= is its control process: one that
	// exits with a failure fails the start job, and ExecMain* stay unset
	// (the fake: job done, ExecMain 1/N). Found by a 30-minute run on
	// 247 (seed 10018), the same on 252-262.
	{"forking service that fails", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"Type", "forking"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"Type", "forking"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "forking"}}},
	}},

	// A transient unit's file, in the transient directory, comes before a
	// mask of its name in /etc on the unit path: EnableUnitFiles answers
	// UnitGenerated (the fake: UnitMasked), DisableUnitFiles removes the
	// mask (the fake: nothing). Found by make check's seed with drop-ins
	// drawn, the same on 247-262.
	{"transient unit hides a mask", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "MaskUnitFiles", Unit: 0},
		{Kind: "EnableUnitFiles", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "EnableUnitFiles", Unit: 0},
		{Kind: "DisableUnitFiles", Unit: 0},
	}},
	// DisableUnitFiles of a masked unit answers the change "masked" with
	// the mask's path, wherever the mask is and whatever its runtime
	// flag (the fake: no change). Found by make check's seed with drop-ins
	// drawn, the same on 247-262.
	{"disable of a masked unit", []Op{
		{Kind: "MaskUnitFiles", Unit: 7, Force: true},
		{Kind: "DisableUnitFiles", Unit: 7, Runtime: true},
		{Kind: "MaskUnitFiles", Unit: 0, Runtime: true},
		{Kind: "DisableUnitFiles", Unit: 0},
	}},
	// A masked name is refused to a transient unit, UnitExists (the fake
	// created the unit; 257, found by an 8-minute run, the same on 247,
	// 252 and 262).
	{"transient name masked", []Op{
		{Kind: "MaskUnitFiles", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}}},
	}},
	// A service file without ExecStart= loads as bad-setting with
	// LoadError BadUnitSetting and Type oneshot (the fake: "" and
	// simple), and a stop of it is NoSuchUnit "not loaded." (247-262).
	{"bad setting's load error and stop", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "x"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
	}},
	// Only services, scopes and slices take the ManagedOOM settings,
	// refused before their value is read (the fake: taken, and the socket
	// failed to load); ManagedOOMMemoryPressureLimit and
	// ManagedOOMPreference are settable from 252, with
	// ManagedOOMMemoryPressureDurationUSec from 257 at least a second
	// (the fake: unknown). Found by a 25-minute run on 262.
	{"managed OOM settings", []Op{
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"ManagedOOMSwap", "kill"}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"ManagedOOMMemoryPressureLimit", uint32(0)}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"ManagedOOMMemoryPressureDurationUSec", uint64(1500)}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"ManagedOOMMemoryPressureLimit", uint32(1)}, {"ManagedOOMPreference", "avoid"}}},
	}},
	// A service whose program cannot run fails its start job unless it
	// is Type=simple or idle (the fake: done for exec, notify, forking);
	// a forking one's ExecMain* stay unset. Found by a 25-minute run on
	// 262, the same on 247, 252 and 257.
	{"program that cannot run", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(4)}, {"Type", "exec"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(4)}, {"Type", "forking"}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(4)}, {"Type", "notify"}}},
	}},
	// BusName= takes a bus name, unique or well-known, and a Type=dbus
	// service waits for it (the fake refused BusName=; 252-262, 247
	// aborts without one).
	{"bus names", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"BusName", "bogus name"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"BusName", ":1.5"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "dbus"}, {"BusName", "org.example.X"}}},
	}},
	// A control command's exit status in SuccessExitStatus= is a success
	// (service_sigchld_event's is_clean_exit for every command): an
	// ExecCondition= or ExecStartPre= exiting 3 lets the start go on (247
	// seed 280184 of a long run: the fake skipped or failed it).
	{"SuccessExitStatus= of control commands", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecCondition", Command(3)}, {"SuccessExitStatus", ExitStatusValue{Status: []int32{3, 0, 3}, Signal: []int32{15}}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"ExecStartPre", Command(3)}, {"SuccessExitStatus", ExitStatusValue{Status: []int32{3}}}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(3)}, {"ExecStop", Command(3)}, {"ExecStopPost", Command(3)}, {"SuccessExitStatus", ExitStatusValue{Status: []int32{3}}}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(3)}}},
	}},
	// A unit not loaded (not found, masked) has no slice: systemd gives a
	// unit its default slice as its type loads it (252 seed 290782 of a
	// long run: a scope's OnSuccess= naming a service that does not
	// exist; the fake read system.slice).
	{"Slice of a unit not loaded", []Op{
		{Kind: "WriteUnitFile", Unit: 3, Dir: InDropIn, Lines: []Directive{{"Unit", "OnSuccess", "{u1}"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Slice", ""}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Slice", "system.slice"}}},
		{Kind: "MaskUnitFiles", Unit: 0, Runtime: true},
		{Kind: "LoadUnit", Unit: 0},
	}},
	// A running main process keeps its command line when a reload
	// changes ExecStart= (257 seed 301196 of a long run: a drop-in that
	// resets ExecStart=; the fake listed the process with none).
	{"command line of a process across a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", ""}}},
		{Kind: "Reload", Unit: 1},
		{Kind: "GetUnitProcesses", Unit: 1},
	}},
	// An auxiliary unit of StartTransientUnit that nothing refers to once
	// the job is queued is collected: a timer whose drop-in names another
	// unit in Unit= does not trigger its auxiliary service (252 seed
	// 251610 of a long run: the fake kept the service loaded, and the
	// next StartTransientUnit of it was UnitExists).
	{"auxiliary unit nothing refers to", []Op{
		{Kind: "WriteUnitFile", Unit: 6, Dir: InDropIn, Lines: []Directive{{"Timer", "OnActiveSec", "1h"}, {"Timer", "Unit", "{u1}"}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{}}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnActiveSec", Usec: 3600000000}}}}, Aux: []Prop{{"ExecStart", Command(0)}}},
	}},
	// A process named twice in a scope's PIDs= is in it once (257 seed
	// 261840 of a long run: the fake listed it twice).
	{"a PID named twice", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0, 0}}}},
		{Kind: "GetUnitProcesses", Unit: 2},
	}},
	// A stop kills the main process with KillSignal=: one that does not
	// end it cleanly (SIGKILL, a realtime signal) fails the unit, Result
	// signal, unless a failed ExecStop= came first; SIGHUP is clean (257
	// seed 261380 of a long run: the fake killed with SIGTERM whatever
	// KillSignal= said, and the unit ended inactive).
	{"KillSignal= at a stop", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillSignal", int32(9)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillSignal", int32(1)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillSignal", int32(64)}, {"ExecStopPost", Command(2)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillSignal", int32(9)}, {"ExecStop", Command(2)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillSignal", int32(9)}, {"ExecStartPre", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"KillSignal", int32(9)}, {"KillMode", "mixed"}, {"Restart", "always"}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// Delegate= and DelegateControllers= are taken by a unit being made
	// only: SetUnitProperties finds them read-only, a slice's and a
	// socket's too (247 seed 241058 of a long run: the fake answered a
	// slice's InvalidArgs). A delegating service or scope's OOMPolicy=
	// is continue unless set (252 seed 250506: the fake read stop).
	{"Delegate= of a live unit; OOMPolicy= of a delegating one", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "x"}}},
		{Kind: "SetUnitProperties", Unit: 4, Runtime: true, Props: []Prop{{"Delegate", true}}},
		{Kind: "SetUnitProperties", Unit: 4, Props: []Prop{{"DelegateControllers", []string{"cpu"}}}},
		{Kind: "SetUnitProperties", Unit: 5, Props: []Prop{{"Delegate", true}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"OOMPolicy", "bogus"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"DelegateControllers", []string{"cpu"}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"OOMPolicy", "bogus"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Delegate", true}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"OOMPolicy", "bogus"}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}, {"Delegate", true}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"Delegate", false}}},
	}},
	// ExecStartPost= commands take their time (activating/start-post, the
	// start job running): a stop kills them (failed, signal), KillUnit of
	// the control process fails the start; a main process that ends
	// meanwhile is handled once they ended, its failure the result at
	// once; a restart merged into the start runs it again, and a
	// service's own restart after a failed ExecStartPost= is a start job
	// again (the fake ran them at once).
	{"ExecStartPost= that takes time", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStartPost", Command(0)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 15},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"RemainAfterExit", true}, {"ExecStartPost", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"ExecStartPost", Command(0)}, {"ExecStopPost", Command(1)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(0)}}},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 15},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 9},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStartPost", Command(0)}, {"Restart", "always"}, {"RestartUSec", uint64(1000)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 1},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "idle"}, {"ExecStartPost", Command(0)}}},
	}},
	// A restart merged into a running start job makes it the restart and
	// runs it again (job_install: "Merged into running job,
	// re-running"): the start's command is killed and runs anew, as its
	// record shows once a reload made it read 0 (262 seeds 230184 and
	// 231380 of long runs: the fake's start ran on). In fail mode too.
	{"restart merged into a running start", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStartPre", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecCondition", Command(0)}, {"ExecStopPost", Command(1)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 1, Mode: "fail"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "oneshot"}, {"ExecStopPost", Command(2)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
	}},
	// A Type=idle service reads active from its ExecCondition= on
	// (systemd's state_translation_table_idle): its start job is done
	// then, so an ExecCondition= that skips the start ends no job (247
	// seeds 210506 and 211978 of a long run: the fake's job ended
	// skipped), and a stop or kill in the start's commands kills them.
	// The fake read activating/condition with the job running.
	{"Type=idle is active from its condition on", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "idle"}, {"ExecCondition", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "idle"}, {"ExecCondition", Command(3)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "idle"}, {"ExecCondition", Command(1)}, {"ExecStartPre", Command(0)}}},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "all", Signal: 15},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "idle"}, {"ExecStartPre", Command(2)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "idle"}, {"ExecCondition", Command(0)}, {"RestartUSec", uint64(1000)}, {"Restart", "always"}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// A Type=dbus service with a bus name requires and is ordered after
	// dbus.socket, whatever DefaultDependencies= says; a service of
	// another type with BusName= is not (the fake added neither: 252 seed
	// 202392 and 262 seed 231288 of long runs, where the recorded After=
	// showed it).
	{"D-Bus service after dbus.socket", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"BusName", ":1.5"}, {"After", []string{"basic.target"}}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "dbus"}, {"BusName", "org.example.X"}, {"DefaultDependencies", false}, {"Requires", []string{"basic.target"}}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Type", "simple"}, {"BusName", "org.example.Y"}, {"After", []string{"basic.target"}}, {"Requires", []string{"basic.target"}}}},
	}},
	// A unit loaded with no file, a slice started or a Wants= target
	// (loaded as not-found while its wanting unit is), has no job and
	// no fragment: StartTransientUnit makes it the transient unit (the
	// fake: UnitExists; and it did not load the Wants= target). Found
	// by a 25-minute run on 262, the same on 247, 252 and 257.
	{"pristine units become transient", []Op{
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"ManagedOOMSwap", "auto"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Wants", []string{"{u0}"}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
	}},
	// systemd loads no scope from a file, nor looks at a mask of its
	// name: a transient scope of that name is made as any other, and
	// LoadUnit finds it not-found (the fake: UnitExists, loaded). Found
	// by make check's seed on 247 and 252 once the masked-name check
	// read the unit directories; the same on 257 and 262.
	{"scope files are not loaded", []Op{
		{Kind: "WriteUnitFile", Unit: 3, Dir: InRuntime, Lines: []Directive{{"Unit", "Description", "difftest unit"}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace"},
		{Kind: "Reload", Unit: 3},
		{Kind: "LoadUnit", Unit: 3},
		{Kind: "MaskUnitFiles", Unit: 2},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
	}},
	// SetUnitProperties of a masked unit is UnitMasked (the fake set
	// it). Found by a 15-minute run on 247, the same on 252, 257, 262.
	{"set properties of a masked unit", []Op{
		{Kind: "MaskUnitFiles", Unit: 6},
		{Kind: "SetUnitProperties", Unit: 6, Runtime: true},
		{Kind: "MaskUnitFiles", Unit: 0},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"Description", "a unit"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"Wants", []string{"{u7}"}}}},
		{Kind: "SetUnitProperties", Unit: 7, Runtime: true, Props: []Prop{{"Description", "a unit"}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// A masked unit's LoadError is UnitMasked (the fake: empty); a slice
	// or socket cannot delegate, "Delegation not available for unit
	// type" (the fake: PropertyReadOnly). Found by 15-minute runs on 247
	// and 257, the same on every release.
	{"masked load error, delegation", []Op{
		{Kind: "MaskUnitFiles", Unit: 7},
		{Kind: "LoadUnit", Unit: 7},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Delegate", true}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"Delegate", false}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"DelegateControllers", []string{"cpu"}}}},
	}},
	// A scope of a zombie runs on until the zombie is reaped (the fake
	// ended it at once; 257, 262).
	{"zombie scope", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{1}, Props: []Prop{{"PIDs", PIDList{0}}}},
	}},
	// A daemon-reload ends a scope of zombies only (its cgroup was never
	// populated, and systemd looks at it again after the reload), not one
	// with a live process too; 247 keeps both (the fake kept both
	// everywhere; found by a 15-minute run on 257, seed 8004).
	// A daemon-reexec loads the units again from their files (a changed
	// file applies), shows a running service's ExecStart= without its
	// run (times, PID), as a reload does, and ends a scope of zombies
	// (252-262) as a reload does (the fake did none of these; the same on
	// every release).
	// Delegate= and DelegateControllers= are not live settings:
	// SetUnitProperties of a loaded unit answers PropertyReadOnly,
	// delegated or not (the fake set them); a masked service's Type is ""
	// (the fake: oneshot). Found by a 30-minute run on 252 (seeds 9001,
	// 9003), the same on every release.
	{"delegation not live, masked type", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "SetUnitProperties", Unit: 2, Runtime: true, Props: []Prop{{"DelegateControllers", []string{"cpu"}}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{1}}, {"Delegate", true}}},
		{Kind: "SetUnitProperties", Unit: 3, Runtime: false, Props: []Prop{{"Delegate", false}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"Delegate", true}}},
		{Kind: "MaskUnitFiles", Unit: 1},
		{Kind: "LoadUnit", Unit: 1},
	}},
	{"reexec reloads", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "x"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "y"}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{1}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "LoadUnit", Unit: 1},
		{Kind: "LoadUnit", Unit: 2},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	{"zombie scope ends at a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{1}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{1, 0}, Props: []Prop{{"PIDs", PIDList{1, 2}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "LoadUnit", Unit: 2},
	}},
	// UnitExists for the name of a failed transient unit (247's text
	// differs).
	{"failed unit's name taken", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"CollectMode", "inactive"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace"},
	}},
	// A unit no file defines: LoadError NoSuchUnit, Result success,
	// Type "" (the fake: "", "" and simple).
	{"not-found unit", []Op{
		{Kind: "LoadUnit", Unit: 0},
	}},
	// SetUnitProperties loads a slice no one started, which is
	// collected at once (the fake kept it loaded).
	{"set on a slice not loaded", []Op{
		{Kind: "SetUnitProperties", Unit: 4},
	}},
	// A transient timer with unit settings but no timer settings fails
	// to load (the fake refused any timer with settings as unsupported).
	{"timer without triggers", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
	}},
	// SetUnitProperties of a setting only a transient unit being made
	// takes (the fake set it on the loaded unit).
	{"not a live setting", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"CollectMode", ""}}},
	}},
	// StartTransientUnit words an unknown job mode otherwise than
	// StartUnit.
	{"transient job mode", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "bogus", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "StartUnit", Unit: 1, Mode: "bogus"},
	}},
	// Transient units' files are listed, failed ones too (the fake
	// listed none).
	{"transient unit files listed", []Op{
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(4)}}},
		{Kind: "ListUnitFilesByPatterns", Unit: 1},
	}},
	// A daemon-reload makes the command records anew: ExecStart= shows
	// no run any more, ExecMain* keep it (the fake kept both).
	{"command records after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(4)}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "Reload", Unit: 2},
	}},
	// Enabled into multi-user.target, the unit is in its Wants= after a
	// daemon-reload, and stays loaded when stopped (the fake: neither).
	{"enabled unit wanted after a reload", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Install", "WantedBy", "multi-user.target"}}},
		{Kind: "EnableUnitFiles", Unit: 0},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// UnitFileState is fixed when first read, not by reading other
	// properties (the fake fixed it at any read).
	{"unit file state when read", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: Outside, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Install", "WantedBy", "{u7}"}}},
		{Kind: "LinkUnitFiles", Unit: 1},
		{Kind: "Reload", Unit: 1},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "EnableUnitFiles", Unit: 1},
		{Kind: "Get UnitFileState", Unit: 1},
		{Kind: "DisableUnitFiles", Unit: 1},
		{Kind: "Get UnitFileState", Unit: 1},
		{Kind: "GetUnitFileState", Unit: 1},
	}},
	// From 257, once a unit-file method changed anything, every unit
	// loaded from a file needs a daemon-reload (the fake looked at each
	// unit's own files only, as 247 and 252 do).
	{"unit-file change needs a reload", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Install", "WantedBy", "multi-user.target"}}},
		{Kind: "Reload", Unit: 1},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "EnableUnitFiles", Unit: 0},
		{Kind: "EnableUnitFiles", Unit: 1},
		{Kind: "Reload", Unit: 1},
		{Kind: "EnableUnitFiles", Unit: 1},
		{Kind: "MaskUnitFiles", Unit: 3},
	}},
	// Restarting a running scope (257 refuses it: JobTypeNotApplicable;
	// the fake restarted it).
	{"scope restart", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "RestartUnit", Unit: 2, Mode: "fail"},
		{Kind: "RestartUnit", Unit: 2, Mode: "replace"},
		{Kind: "StopUnit", Unit: 2, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 2, Mode: "replace"},
	}},
	// RefuseManualStart= refuses the start before the unit's load state
	// is looked at (the fake answered BadUnitSetting first).
	{"refused before verified", []Op{
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"RefuseManualStart", true}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Props: []Prop{{"RefuseManualStart", true}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"RefuseManualStart", true}}},
	}},
	// A timer whose unit is not loaded is refused a start: its job
	// fails and it stays inactive (the fake started it, then failed it
	// with result resources when it elapsed).
	{"timer without its unit", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{"OnBootSec", 1}}}}},
	}},
	// Enabling a name no unit file has (257 words it otherwise).
	{"enable without a file", []Op{
		{Kind: "EnableUnitFiles", Unit: 2},
	}},
	// A transient timer as systemd-run --on-active makes it, with the
	// service it triggers (the fake refused transient timers).
	// From 257 a unit-file method's change makes every unit need a
	// daemon-reload, transient and not-found ones too (the fake: only
	// units from files; a 20-minute run on 257).
	{"every unit needs a reload", []Op{
		{Kind: "MaskUnitFiles", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "LoadUnit", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "EnableUnitFiles", Unit: 1},
	}},
	// An isolate job for a unit without AllowIsolate=yes is refused
	// after RefuseManualStart=, before load errors and masking, and the
	// unit loaded for it is collected (the fake queued a transient unit's
	// job and kept a slice loaded; a 20-minute run on 257); 257 quotes a
	// file in the way of a mask.
	{"isolate refused", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "isolate", Props: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "isolate"},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "isolate", Spawn: []ProcKind{0}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "StartTransientUnit", Unit: 7, Mode: "isolate"},
		{Kind: "StartUnit", Unit: 4, Mode: "isolate"},
		{Kind: "StartUnit", Unit: 1, Mode: "isolate"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "isolate", Props: []Prop{{"RefuseManualStart", true}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "RefuseManualStart", "yes"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "Bogus", "yes"}, {"Service", "Type", "bogus"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "isolate"},
		{Kind: "StartUnit", Unit: 1, Mode: "isolate"},
		{Kind: "MaskUnitFiles", Unit: 1},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 1, Mode: "isolate"},
		{Kind: "StopUnit", Unit: 0, Mode: "isolate"},
	}},
	// LinkUnitFiles of a path no file has: 247 answers FileNotFound
	// (the fake answered as 252 does); and the rows ListUnitFiles
	// answers sorted once their directories are named alike (the tester
	// sorted them before, differently per backend).
	{"link of a missing file", []Op{
		{Kind: "EnableUnitFiles", Unit: 1, ByPath: true},
		{Kind: "LinkUnitFiles", Unit: 0, Force: true},
		{Kind: "LinkUnitFiles", Unit: 1},
		{Kind: "LinkUnitFiles", Unit: 1, Runtime: true},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "WriteUnitFile", Unit: 3, Dir: InRuntime, Lines: []Directive{{"Scope", "Slice", "system.slice"}}},
		{Kind: "ListUnitFilesByPatterns", Unit: 0},
	}},
	// Enabling a masked unit names the mask's path (the fake: the unit's
	// name), from 257 worded as a unit (seed 22 on every release).
	{"enable a masked unit", []Op{
		{Kind: "MaskUnitFiles", Unit: 7},
		{Kind: "EnableUnitFiles", Unit: 7, Runtime: true, Force: true},
		{Kind: "EnableUnitFiles", Unit: 7},
	}},
	// A transient unit has no unit file to disable (nothing to do) or
	// enable (UnitGenerated); the fake answered NoSuchUnit to both.
	{"transient unit's file", []Op{
		{Kind: "DisableUnitFiles", Unit: 1},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "DisableUnitFiles", Unit: 0},
		{Kind: "DisableUnitFiles", Unit: 0, Runtime: true},
		{Kind: "EnableUnitFiles", Unit: 0},
	}},
	// A stop in isolate mode of a unit not loaded is NoSuchUnit: the
	// mode's fit to the job type is checked once the unit is found (the
	// fake checked it first; an 8-minute run on 247).
	{"stop in isolate mode", []Op{
		{Kind: "StopUnit", Unit: 0, Mode: "isolate"},
		{Kind: "RestartUnit", Unit: 0, Mode: "isolate"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "isolate"},
		{Kind: "StopUnit", Unit: 1, Mode: "bogus"},
	}},
	// A unit linked into one directory from outside the unit path and
	// enabled in the other is linked there too (install_info_symlink_link:
	// its file is not on the unit path); enabled where it is linked, the
	// link is kept as it is (the fake linked nothing; 262 seed 310138 of
	// a long run, the same on 247-262).
	{"enable of a linked unit", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: Outside, Lines: []Directive{}},
		{Kind: "LinkUnitFiles", Unit: 1},
		{Kind: "EnableUnitFiles", Unit: 1, Runtime: true},
		{Kind: "EnableUnitFiles", Unit: 1},
		{Kind: "ListUnitFilesByPatterns", Unit: 1},
		{Kind: "WriteUnitFile", Unit: 0, Dir: Outside, Lines: []Directive{{"Install", "WantedBy", "multi-user.target"}}},
		{Kind: "LinkUnitFiles", Unit: 0, Runtime: true},
		{Kind: "EnableUnitFiles", Unit: 0},
		{Kind: "DisableUnitFiles", Unit: 0},
		{Kind: "ListUnitFilesByPatterns", Unit: 0},
	}},
	// A transient unit freed (a scope refused for want of PIDs or for a
	// setting out of range, a scope stopped and collected) has 262 build
	// its unit name map again: a scope started after that lists the
	// drop-ins of directories made before it, where 247-257 list none,
	// as their scope loads build no map (262 seeds 272162 and 310184 of
	// long runs: the fake listed none on 262).
	{"drop-ins of a scope after a transient unit was freed", []Op{
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "WriteUnitFile", Unit: 2, Dir: InDropIn, Lines: []Directive{{"Unit", "OnSuccessJobMode", "bogus"}}},
		{Kind: "StopUnit", Unit: 3, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{1}}}},
		{Kind: "StopUnit", Unit: 2, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 3, Dir: InDropIn, Lines: []Directive{{"Unit", "OnSuccessJobMode", "bogus"}}},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{2}}, {"MemoryMax", uint64(0)}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{3}}}},
	}},
	// ExecStop= commands take their time as the stop's control process:
	// the stop job runs meanwhile (deactivating/stop), a second stop is
	// that job, a start in fail mode is destructive, one in replace mode
	// (or a restart) cancels it and waits; KillUnit of the command fails
	// the unit, Result signal, and the start goes on; a main process
	// killed meanwhile is the result at once; after a reload the command
	// is killed too; a main process that exits 0 is followed by ExecStop=
	// with no job, and a oneshot's start job waits through it (measured
	// on 252 and 262; the fake ran them at once).
	{"ExecStop= that takes time", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(0)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 15},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(0)}, {"ExecStopPost", Command(1)}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "fail"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 9},
		{Kind: "ResetFailedUnit", Unit: 1}, // a new start window: known difference waiting-start-tries
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 1},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 9},
		{Kind: "KillUnit", Unit: 1, Whom: "all", Signal: 15},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStop", Command(0)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "Reload", Unit: 0},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 15},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"ExecStop", Command(0)}}},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 15},
	}},
	// A socket whose service is not dead, failed or waiting to restart
	// (running, exited with RemainAfterExit=, stopping) is refused
	// ("Socket service X already active, refusing."): its start job
	// fails, the socket stays inactive and is collected (the fake
	// started it; 252 seed 331426 of a long run, the same on 247-262).
	{"socket of an active service", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 5, Dir: InConfig, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Socket", "Service", "{u0}"}}},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"RemainAfterExit", true}}},
		{Kind: "WriteUnitFile", Unit: 5, Dir: InConfig, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Socket", "Service", "{u1}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
		{Kind: "StopUnit", Unit: 5, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 5, Dir: InConfig, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Socket", "Service", "{u0}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
	}},
	// A unit file path that is a mask (a symlink to /dev/null, written
	// through, so still one) is masked for EnableUnitFiles by path, as an
	// empty file is: UnitMasked (the fake: NoSuchUnit, not a regular file;
	// 247 seed 320460 of a long run, the same on 247-262).
	{"enable of a mask by path", []Op{
		{Kind: "MaskUnitFiles", Unit: 2, Runtime: true},
		{Kind: "WriteUnitFile", Unit: 2, Dir: InRuntime, Lines: []Directive{{"Unit", "Wants", "nosuch.service"}}},
		{Kind: "EnableUnitFiles", Unit: 2, Force: true, ByPath: true},
		{Kind: "EnableUnitFiles", Unit: 2, ByPath: true, Runtime: true},
		{Kind: "LinkUnitFiles", Unit: 2},
		{Kind: "MaskUnitFiles", Unit: 1, Runtime: true},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InRuntime, Lines: []Directive{}},
		{Kind: "EnableUnitFiles", Unit: 1, ByPath: true},
	}},
	// A timer's start keeps its last trigger from 257 (systemd commit
	// 3fc44a0f): restarted while the unit it started runs, a one-time
	// value that elapsed before stays elapsed; 247 and 252 forget the
	// trigger and elapse it again, starting the unit (a job, done), the
	// timer running. Once the unit ended, the value is spent on all (262
	// seed 350506 of a long run: the fake elapsed it again on 262).
	{"restart of a timer whose unit runs", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnBootSec", Usec: 1}}}, {"CollectMode", "inactive-or-failed"}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "RestartUnit", Unit: 6, Mode: "replace"},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
	}},
	// A main process that failed while ExecStartPost= ran is the result
	// when ExecStartPost= then fails too (KillUnit): the first failure
	// stays (the fake: signal; found while measuring 262 seed 351288,
	// the same on 252-262).
	{"main process failed before ExecStartPost= was killed", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"ExecStartPost", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}, {"ExecStartPost", Command(0)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 15},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 9},
	}},
	{"transient timer", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "fail", Props: []Prop{{"TimersMonotonic", []TimerValue{{"OnActiveSec", 3600000000}}}, {"RemainAfterElapse", false}},
			Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
	}},
	// RuntimeMaxUSec= stops a service as a stop does, its result timeout
	// from the start: ExecStop= first (deactivating/stop while it runs),
	// ExecStopPost= after; a stop meanwhile waits for it; unlike a stop
	// asked for, it restarts (247 seed 360276 of a long run: the fake
	// killed the unit without ExecStop=).
	{"runtime limit through ExecStop=", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(0)}, {"RuntimeMaxUSec", uint64(1)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 15},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStopPost", Command(2)}, {"RuntimeMaxUSec", uint64(1)}, {"Restart", "on-failure"}}},
	}},
	// socket_verify refuses Accept=yes with Service=, or with a socket
	// that accepts no connections (262 seed 390092 of a long run: the
	// fake loaded the socket and answered SetUnitProperties).
	{"accepting socket with Service=", []Op{
		{Kind: "WriteUnitFile", Unit: 5, Dir: InConfig, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Socket", "Accept", "yes"}, {"Socket", "Service", "{u1}"}}},
		{Kind: "SetUnitProperties", Unit: 5, Runtime: true, Props: []Prop{{"Description", "x"}}},
		{Kind: "StartUnit", Unit: 5, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 5, Dir: InConfig, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Socket", "ListenFIFO", "{dir}/fifo"}, {"Socket", "Accept", "yes"}}},
		{Kind: "Reload", Unit: 5},
		{Kind: "LoadUnit", Unit: 5},
	}},
	// RefuseManualStop= is looked at before the job mode (262 seed
	// 390460 of a long run: the fake answered "Isolate is only valid for
	// start").
	{"refused stop in isolate mode", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RefuseManualStop", true}}},
		{Kind: "StopUnit", Unit: 1, Mode: "isolate"},
		{Kind: "RestartUnit", Unit: 1, Mode: "isolate"},
		{Kind: "StopUnit", Unit: 1, Mode: "restart-dependencies"},
	}},
	// A slice loaded without a file that StartTransientUnit made
	// transient and then refused a setting of is a stub, whose transient
	// file stays empty until a daemon-reload: a mask to the unit file
	// operations (252 seed 370276 of a long run: the fake disabled it).
	{"empty transient file of a stub", []Op{
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"CollectMode", ""}}},
		{Kind: "DisableUnitFiles", Unit: 4, Runtime: true},
		{Kind: "EnableUnitFiles", Unit: 4},
		{Kind: "GetUnitFileState", Unit: 4},
		{Kind: "Reload", Unit: 4},
		{Kind: "DisableUnitFiles", Unit: 4, Runtime: true},
	}},
	// A unit file's lines of a CPU set add up, its drop-ins' too; a
	// D-Bus setting replaces the set, and what it wrote is read back as
	// the set it set from 252, added to the set before on 247 (247 seed
	// 425896 of a long run: AllowedCPUs= given twice read the union after
	// a reload).
	{"CPU sets after a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"AllowedCPUs", []byte{0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x1}}, {"AllowedCPUs", []byte{0xff, 0xff}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"AllowedCPUs", []byte{0x2}}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "AllowedCPUs", "64"}, {"Service", "AllowedCPUs", "0-15"}}},
		{Kind: "LoadUnit", Unit: 1},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "AllowedCPUs", "20"}}},
		{Kind: "Reload", Unit: 1},
	}},
	// A slice started by name, loaded without a file, linked to a file
	// that binds it to a service: the reload loads it from the file, and
	// from 252 stops it, bound to a unit that is down; on a
	// re-execution too, whose stop 262 was not seen to announce (247 seed
	// 430000 of a long run: the fake kept it as it was).
	{"a started slice gets its file", []Op{
		{Kind: "WriteUnitFile", Unit: 4, Dir: Outside, Lines: []Directive{{"Unit", "BindsTo", "{u1}"}, {"Unit", "StartLimitBurst", "1"}}},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "LinkUnitFiles", Unit: 4},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "Reexecute", Unit: 0},
	}},
	// BindsTo=: a unit started ignoring its dependencies is stopped at
	// once from 252, bound to a unit that is down; one ordered after a
	// oneshot service it is bound to does not start, its job ends
	// dependency (unit_verify_deps, every release); a target a file
	// gives BindsTo= to a missing unit is stopped by a reload from 252.
	{"bound to an inactive unit", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "BindsTo", "{u1}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "x"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "ignore-dependencies"},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Unit", "BindsTo", "{u1}"}, {"Unit", "After", "{u1}"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}, {"Service", "Type", "oneshot"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "BindsTo", "nosuch.service"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
	}},
	// A unit that did not load is refused for its load state before
	// its job type's applicability: a reload, try-restart and
	// reload-or-(try-)restart of a bad-setting service are
	// BadUnitSetting (257 seed 441782 of a long run: the fake said
	// JobTypeNotApplicable); and from 257 NeedDaemonReload of a unit that
	// loaded bad-setting does not look at its drop-ins' times (262 seed
	// 442650 of a long run).
	{"jobs of a bad-setting unit", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "true"}, {"Service", "ExecStart", ""}}},
		{Kind: "Reload", Unit: 5},
		{Kind: "LoadUnit", Unit: 1},
		{Kind: "ReloadUnit", Unit: 1, Mode: "replace"},
		{Kind: "TryRestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "ReloadOrTryRestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "ReloadOrRestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", "/nonexistent/program"}}},
		{Kind: "Reload", Unit: 5},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "ExecStart", ""}}},
	}},
	// The reload family on an activating service: a try-restart (and a
	// reload-or-try-restart without ExecReload=) restarts it from 252,
	// on 247 it is a nop job, which leaves the start job as it is; a
	// reload merges into the start job (247 seed 442092 of a long run:
	// the fake canceled the start).
	{"try-restart of an activating unit", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(0)}}},
		{Kind: "TryRestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPost", Command(0)}}},
		{Kind: "ReloadOrTryRestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "ReloadOrRestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "ReloadUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStartPre", Command(0)}, {"ExecReload", Command(1)}}},
		{Kind: "ReloadOrTryRestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "TryRestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
	}},
	// Mount paths are a set: one given twice, in one call or two, or on
	// two lines of a file, is listed once (247 seed 450230 of a long run:
	// the fake listed it twice).
	{"mount paths given twice", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RequiresMountsFor", []string{"/nonexistent"}}, {"RequiresMountsFor", []string{"/nonexistent", "/tmp/x"}}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"RequiresMountsFor", []string{"/a//b/../c/", "/a/b/../c"}}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "RequiresMountsFor", "/nonexistent /nonexistent"}, {"Unit", "RequiresMountsFor", "/nonexistent"}}},
		{Kind: "LoadUnit", Unit: 7},
	}},
	// SetUnitProperties from 257: the drop-ins a load would find join
	// the unit's list, a drop-in written since it loaded among them
	// once the name map saw its directory, and one removed since stays
	// listed (257 seed 431966 of a long run). And on every release a
	// unit whose file went while it ran reads, after a reload, as one
	// without settings (not-found), SetUnitProperties' too.
	{"set properties lists the drop-ins found", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "Restart", "no"}}},
		{Kind: "SetUnitProperties", Unit: 1, Props: []Prop{{"MemoryAccounting", false}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"CollectMode", "inactive"}}},
		{Kind: "SetUnitProperties", Unit: 1, Props: []Prop{{"MemoryAccounting", true}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InDropIn, Lines: []Directive{{"Service", "Nice", "5"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "RemoveUnitFile", Unit: 0},
		{Kind: "LoadUnit", Unit: 7},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"MemoryAccounting", false}}},
		{Kind: "Reload", Unit: 1},
	}},
	// A masked unit has none of the dependencies systemd adds by itself:
	// a slice started, masked and reloaded is no longer after -.slice
	// (257 seed 451092 of a long run: the fake kept them).
	{"a masked slice has no implicit dependencies", []Op{
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "MaskUnitFiles", Unit: 4},
		{Kind: "Reload", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"After", []string{}}}},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "UnmaskUnitFiles", Unit: 4},
	}},
	// A timer's start counts OnActiveSec= from then: restarted, by a
	// restart or a try-restart, OnActiveSec=0 elapses again and starts
	// the unit, which is running (257 seed 451598 of a long run: the
	// fake, from 257 keeping the last trigger, counted from the
	// activation before and stayed elapsed).
	{"a restarted timer elapses again", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnActiveSec", Usec: 0}}}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "RestartUnit", Unit: 6, Mode: "replace"},
		{Kind: "TryRestartUnit", Unit: 6, Mode: "replace"},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
	}},
	// A unit file written for a transient unit while it runs is not read
	// once the unit is collected if the name map was built meanwhile
	// (it names the transient file): the service is not found, on 262
	// too, where the slice is made again without its file; a unit file
	// written elsewhere has the map built again (262 seed 453478 of a
	// long run: the fake, playing 262, read the file).
	{"a file written for a running transient unit", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}}},
		{Kind: "WriteUnitFile", Unit: 4, Dir: InConfig, Lines: []Directive{{"Unit", "Description", "difftest unit"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "LoadUnit", Unit: 1},
		{Kind: "LoadUnit", Unit: 4},
		{Kind: "StartUnit", Unit: 4, Mode: "replace"},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}}},
		{Kind: "LoadUnit", Unit: 1},
		{Kind: "LoadUnit", Unit: 4},
	}},
	// SetUnitProperties writes CPUQuotaPeriodUSec= to
	// 50-CPUQuotaPeriodSec.conf, named after the unit-file setting, as
	// CPUQuotaPerSecUSec= to 50-CPUQuota.conf (247 seed 460046 of a long
	// run: the fake named it after the property).
	{"drop-in of CPUQuotaPeriodUSec", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
		{Kind: "SetUnitProperties", Unit: 4, Props: []Prop{{"CPUQuotaPeriodUSec", uint64(0xffffffffffffffff)}}},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "SetUnitProperties", Unit: 0, Runtime: true, Props: []Prop{{"CPUQuotaPeriodUSec", uint64(10000)}, {"CPUQuotaPerSecUSec", uint64(10000)}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// SetUnitProperties with no properties writes nothing, and from 257
	// lists no drop-in it found (262 seed 467794 of a long run: the fake
	// listed a drop-in written for the unit since it loaded).
	{"set properties with none", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "Nice", "5"}}},
		{Kind: "LoadUnit", Unit: 0},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: true},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: true, Props: []Prop{{"Description", "a unit"}}},
	}},
	// A job method loads its unit before it reads the mode: one in a
	// bogus mode for a unit not loaded has systemd build its name map
	// again, and another unit's drop-in written since is seen (252 seed
	// 464070 of a long run: the fake read the mode first, and the unit
	// did not need a daemon-reload).
	{"a job in a bogus mode loads its unit", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InDropIn, Lines: []Directive{{"Service", "Nice", "5"}}},
		{Kind: "RestartUnit", Unit: 7, Mode: "bogus"},
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/true"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "bogus"},
		{Kind: "StopUnit", Unit: 4, Mode: "isolate"},
	}},
	// A drop-in's empty OnBootSec= empties a transient timer's values;
	// with OnClockChange=yes it still loads and waits, without it it is a
	// bad setting (252 seed 482736 of a long run: the fake dropped
	// OnClockChange= with the values).
	{"a drop-in empties a timer's values", []Op{
		{Kind: "WriteUnitFile", Unit: 6, Dir: InDropIn, Lines: []Directive{{"Timer", "OnBootSec", ""}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnBootSec", Usec: 1}}}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnBootSec", Usec: 1}}}, {"OnClockChange", true}}, Aux: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
	}},
	// A mask in the runtime directory behind a link in the configuration
	// directory makes the linked unit enabled-runtime: its file is the
	// one outside the unit directories, so systemd looks for enabling
	// symlinks in every directory (247 seed 482024 of a long run; the
	// probe showed the same on 252, 257 and 262).
	{"a runtime mask behind a link", []Op{
		{Kind: "MaskUnitFiles", Unit: 7, Runtime: true},
		{Kind: "WriteUnitFile", Unit: 7, Dir: Outside, Lines: []Directive{{"Unit", "Description", "x"}}},
		{Kind: "LinkUnitFiles", Unit: 7},
		{Kind: "ListUnitFilesByPatterns", Unit: 7},
		{Kind: "GetUnitFileState", Unit: 7},
		{Kind: "Get UnitFileState", Unit: 7},
	}},
	// StartTransientUnit loads a name with a file before it refuses it
	// UnitExists; from 252 the unit stays loaded while its OnFailure=
	// unit has a job (252 seed 483150 of a long run: the fake loaded
	// nothing).
	{"a refused transient name is loaded", []Op{
		{Kind: "WriteUnitFile", Unit: 5, Dir: InRuntime, Lines: []Directive{{"Socket", "ListenStream", "{dir}/socket"}, {"Unit", "OnFailure", "{u1}"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"ExecCondition", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 5, Mode: "replace", Props: []Prop{{"After", []string{}}}},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
		{Kind: "LoadUnit", Unit: 5},
	}},
	// A slice loaded again without a file loads the units its drop-in's
	// After= names, not-found (247 and 257 seed 498702 of a long run: the
	// fake loaded them only with a transient slice).
	{"a slice loaded again loads its drop-in's units", []Op{
		{Kind: "WriteUnitFile", Unit: 4, Dir: InDropIn, Lines: []Directive{{"Unit", "After", "{u0}"}}},
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 4, Mode: "replace"},
	}},
	// KillUnit of a scope made for a zombie ends nothing: the scope never
	// held the process and runs on (252 seed 512736 of a long run: the
	// fake ended it on SIGHUP).
	{"KillUnit of a scope of a zombie", []Op{
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Zombie}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "KillUnit", Unit: 3, Whom: "all", Signal: 1},
		{Kind: "KillUnit", Unit: 3, Whom: "all", Signal: 9},
		{Kind: "StopUnit", Unit: 3, Mode: "replace"},
	}},
	// A drop-in's Unit= of a transient timer applies at a daemon-reload:
	// the unit it names loads, not-found without a file, and the service
	// the timer triggered before is collected (252 seed 513012 of a long
	// run: the fake loaded neither and kept the service).
	{"a timer's Unit= changed by a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnActiveSec", Usec: 3600000000}}}}, Aux: []Prop{{"ExecStart", Command(1)}}},
		{Kind: "WriteUnitFile", Unit: 6, Dir: InDropIn, Lines: []Directive{{"Timer", "Unit", "{u7}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 6, Mode: "replace"},
	}},
	// KillUnit's all-fail kills a scope's processes, and the scope ends,
	// as with all (the fake ended it for all only). A scope made for a
	// zombie holds no process: all-fail answers ok up to 257, whose
	// kill counts the scope's control group, and NoSuchProcess on 262,
	// which counts the processes signalled, but for SIGKILL (the group's
	// cgroup.kill). Probed on 247-262.
	{"KillUnit all-fail of a scope", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "KillUnit", Unit: 2, Whom: "all-fail", Signal: 1},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Zombie}, Props: []Prop{{"PIDs", PIDList{1}}}},
		{Kind: "KillUnit", Unit: 3, Whom: "all-fail", Signal: 15},
		{Kind: "KillUnit", Unit: 3, Whom: "all-fail", Signal: 9},
	}},
	// A service whose program exited (RemainAfterExit=) has no control
	// group: systemd pruned it, and all-fail finds nothing to signal on
	// any release (probed on 247-262).
	{"KillUnit all-fail of an exited service", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "oneshot"}, {"RemainAfterExit", true}}},
		{Kind: "KillUnit", Unit: 0, Whom: "all-fail", Signal: 1},
		{Kind: "KillUnit", Unit: 0, Whom: "all-fail", Signal: 9},
	}},
	// KillUnit of a slice signals the processes of the units in it: its
	// control group holds theirs (probed on 247-262: the fake signalled
	// none, and all-fail of a slice without processes answers as for a
	// scope).
	{"KillUnit of a slice", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "Slice", "{u4}"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "Slice", "{u4}"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 4, Whom: "all", Signal: 1},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 4, Whom: "all-fail", Signal: 9},
		{Kind: "KillUnit", Unit: 4, Whom: "all-fail", Signal: 9},
		{Kind: "KillUnit", Unit: 4, Whom: "all-fail", Signal: 15},
	}},
	// A forking service whose program exits 0 and forks nothing has no
	// main process: it stops as a service whose program ended, its start
	// job waiting for the stop (failed when ExecStopPost= fails), and
	// ExecMain* stay unset (262 seed 546748 of a long run: the fake's
	// job ended done); with RemainAfterExit= it stays exited.
	{"forking service that exits 0", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStopPost", Command(3)}, {"Type", "forking"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "forking"}, {"RemainAfterExit", true}, {"ExecStopPost", Command(3)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// A program that exits at once ends after the run queue's pass that
	// started it (systemd sees its SIGCHLD in a later iteration of its
	// loop): the target ordered after the service has started by then,
	// and stops when the service it is bound to fails (247 seed 552070
	// of a long run: the fake ended the program inside the pass, before
	// the target's job ran, and the target stayed active). Probed on
	// 247-262, also with a missing binary and a Type=exec service.
	{"bound target ordered after a program that exits at once", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "BindsTo", "{u1}"}, {"Unit", "After", "{u1}"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 7, Mode: "replace"},
	}},
	// The same without ordering: the target's job runs first, in the
	// same pass as the service's (the fake differed on 247 only).
	{"bound target unordered, a program that exits at once", []Op{
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "BindsTo", "{u1}"}}},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(3)}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
	}},
	// A reload whose ExecReload= takes time (the fake ran it at once):
	// the unit reloading meanwhile; a stop kills it (Result signal,
	// ExecStopPost= run, ExecStop= not; the reload job canceled); a
	// KillUnit of it fails the reload job and leaves the unit running; a
	// start or reload merged into it runs it again once it ended; a
	// restart takes the job over; TimeoutStartUSec= 0 times it out at
	// once, its command no longer watched. Probed on 247-262.
	{"reload that takes time", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}, {"ExecStop", Command(2)}, {"ExecStopPost", Command(1)}}},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}}},
		{Kind: "ReloadUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 15},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 9},
		{Kind: "ReloadUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}, {"TimeoutStartUSec", uint64(0)}}},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 1},
	}},
	// A main process that ends during the reload: its end waits for the
	// reload; then the service fails by a failure (Result signal), stays
	// exited with RemainAfterExit=, or stops (ExecStop= run); the reload
	// job ends with the unit (done when it stopped, failed on 262 when
	// the reload failed). Probed on 247-262.
	{"main process ends during a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}}},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 9},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 15},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}, {"RemainAfterExit", true}, {"ExecStop", Command(2)}}},
		{Kind: "ReloadUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 1, Mode: "fail"},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 15},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 15},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}, {"ExecStop", Command(2)}}},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 15},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 15},
		{Kind: "ResetFailedUnit", Unit: 0},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}, {"ExecReload", Command(2)}}},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "main", Signal: 15},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 9},
	}},
	// A template named in a dependency line is instantiated with the
	// unit's prefix (resolve_template: Wants=nosuch@.service in
	// PREFIXu0.service wants nosuch@PREFIXu0.service); the fake passed
	// over the word. Probed on 247-262.
	{"template in a dependency line", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InRuntime, Lines: []Directive{{"Unit", "Wants", "nosuch@.service"}, {"Unit", "After", "nosuch@.service"}, {"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Requires", "nosuch@.service {u1}"}, {"Unit", "BindsTo", "nosuch@.target"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
	}},
	// A start or a reload while a restart runs its stop half (ExecStop=
	// running) merges into the restart: the caller gets the restart job,
	// which goes on to start the unit once ExecStop= ended (killed here);
	// the fake canceled the restart for a start or a reload (247 seed
	// 591564 of a long run). Probed on 247-262.
	{"start or reload during a restart's stop", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(0)}}},
		{Kind: "RestartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "fail"},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 9},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecStop", Command(0)}, {"ExecReload", Command(1)}}},
		{Kind: "RestartUnit", Unit: 0, Mode: "replace"},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 9},
	}},
	// A unit file in the configuration directory, and a symlink of its
	// name in the runtime directory to a file of that name (a runtime
	// link of another file): the symlink enables it, enabled-runtime
	// until it goes; a runtime mask behind it does not (252 seed 596150
	// of a long run: the fake said static). Probed on 247-262.
	{"runtime link behind a configuration file", []Op{
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/false"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: Outside, Lines: []Directive{{"Service", "ExecStart", "-/bin/false"}}},
		{Kind: "LinkUnitFiles", Unit: 1, Runtime: true},
		{Kind: "GetUnitFileState", Unit: 1},
		{Kind: "DisableUnitFiles", Unit: 1},
		{Kind: "Get UnitFileState", Unit: 1},
		{Kind: "ListUnitFilesByPatterns", Unit: 1},
		{Kind: "DisableUnitFiles", Unit: 1, Runtime: true},
		{Kind: "GetUnitFileState", Unit: 1},
		{Kind: "MaskUnitFiles", Unit: 1, Runtime: true},
		{Kind: "GetUnitFileState", Unit: 1},
	}},
	// A re-execution while ExecReload= runs: the reload job survives
	// it, running; a reload merged into it then waits to run it again,
	// and does once KillUnit ended the command; a second re-execution
	// keeps the waiting job. Probed on 247-262, where the fake was equal
	// already: a guard for what a re-execution keeps of a reload.
	{"re-execution during a reload", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"ExecReload", Command(0)}}},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "KillUnit", Unit: 0, Whom: "control", Signal: 9},
		{Kind: "ReloadUnit", Unit: 0, Mode: "replace"},
		{Kind: "Reexecute", Unit: 0},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// A timer that fails at each start (WakeSystem=yes in a container:
	// resources) hits its start limit: the refused start does not get to
	// timer_start, which resets the result, so the timer keeps resources
	// (start-limit-hit on 262, as a service's); the fake reset it first
	// (247 seed 610368 of a long run). Probed on 247-262.
	{"timer that failed at its start limit", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"TimersMonotonic", []TimerValue{{Base: "OnActiveSec", Usec: 0}}}, {"StartLimitBurst", uint32(2)}, {"WakeSystem", true}}, Aux: []Prop{{"ExecStart", Command(3)}}},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
		{Kind: "ResetFailedUnit", Unit: 6},
		{Kind: "StartUnit", Unit: 6, Mode: "replace"},
	}},
	// SetUnitProperties that sets something realizes the unit's control
	// group whatever its state (bus_*_commit_properties): a failed
	// service has one until it next goes inactive or failed, or a reload
	// or re-execution, and KillUnit's all-fail of it succeeds before 262
	// (247 seed 611196 of a long run). Probed on 247-262.
	{"set properties realize a control group", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "all-fail", Signal: 13},
		{Kind: "SetUnitProperties", Unit: 1, Runtime: true, Props: []Prop{{"TasksMaxScale", uint32(1)}}},
		{Kind: "KillUnit", Unit: 1, Whom: "all-fail", Signal: 13},
		{Kind: "Reload", Unit: 1},
		{Kind: "KillUnit", Unit: 1, Whom: "all-fail", Signal: 13},
		{Kind: "SetUnitProperties", Unit: 1, Props: []Prop{{"Description", "a unit"}}},
		{Kind: "KillUnit", Unit: 1, Whom: "all-fail", Signal: 13},
		{Kind: "ResetFailedUnit", Unit: 1},
		{Kind: "KillUnit", Unit: 1, Whom: "all-fail", Signal: 13},
	}},
	// A slice's stop stops the units in it in its own transaction
	// (their implicit Requires=), ordered before it: the members' jobs
	// end first, the slice's last, and a member's ExecStop= holds the
	// slice's job; the fake stopped the members once the slice had
	// stopped. A start of a member then fails when its collected
	// transient slice is not found (the unit name map still names its
	// file; made again on 262); the fake started it. Probed on 247-262.
	{"a slice's stop stops its units first", []Op{
		{Kind: "StartTransientUnit", Unit: 4, Mode: "replace"},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "ExecStop", "/bin/sleep 1000"}, {"Service", "Slice", "{u4}"}}},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "StopUnit", Unit: 4, Mode: "replace"},
		{Kind: "KillUnit", Unit: 1, Whom: "control", Signal: 9},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "RestartUnit", Unit: 4, Mode: "replace"},
	}},
	// A service and a scope bound to it (a drop-in's BindsTo=), stopped
	// together: systemd sees the service's program end by SIGCHLD
	// before the scope's process by its control group's empty
	// notification, mostly (known difference scope-end-race), so the
	// service's stop job ends first; the fake ended the scope's first
	// (252 seed 616150 of a long run). Probed on 247-262.
	{"a service and the scope bound to it stopped together", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "WriteUnitFile", Unit: 3, Dir: InDropIn, Lines: []Directive{{"Unit", "BindsTo", "{u1}"}}},
		{Kind: "Reload", Unit: 0},
		{Kind: "StopUnit", Unit: 1, Mode: "replace"},
	}},
	// IgnoreSIGPIPE= (over D-Bus; the fake refused it PropertyReadOnly):
	// with no, SIGPIPE ends a service's program, cleanly but for a
	// oneshot service (Result signal); set, or by default, it is ignored.
	// Probed on 247-262.
	{"IgnoreSIGPIPE", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IgnoreSIGPIPE", false}}},
		{Kind: "KillUnit", Unit: 0, Whom: "all", Signal: 13},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IgnoreSIGPIPE", true}}},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 13},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}, {"IgnoreSIGPIPE", false}, {"Type", "oneshot"}}},
		{Kind: "KillUnit", Unit: 0, Whom: "all", Signal: 13},
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{Live}, Props: []Prop{{"PIDs", PIDList{0}}, {"IgnoreSIGPIPE", false}}},
	}},
	// IgnoreSIGPIPE= in a unit file; a slice's SIGPIPE reaches each of
	// its services as its own (probed on 247-262).
	{"IgnoreSIGPIPE in a unit file", []Op{
		{Kind: "WriteUnitFile", Unit: 0, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "IgnoreSIGPIPE", "no"}, {"Service", "Slice", "{u4}"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}, {"Service", "IgnoreSIGPIPE", "bogus"}, {"Service", "Slice", "{u4}"}}},
		{Kind: "StartUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartUnit", Unit: 1, Mode: "replace"},
		{Kind: "KillUnit", Unit: 4, Whom: "all", Signal: 13},
		{Kind: "KillUnit", Unit: 1, Whom: "main", Signal: 13},
	}},
	// A dbus service (BusName= set, Type= not) whose program exits 0
	// before it took its name stays exited with RemainAfterExit=, its
	// ExecStartPost= never run (257 seed 560782 of a long run: the fake
	// stopped it); probed on 247-262.
	{"dbus service that exits, RemainAfterExit=", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"ExecStartPost", Command(3)}, {"BusName", ":1.5"}, {"RemainAfterExit", true}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(1)}, {"Type", "dbus"}, {"BusName", "org.example.Dt"}, {"RemainAfterExit", true}, {"ExecStopPost", Command(2)}}},
		{Kind: "StopUnit", Unit: 0, Mode: "replace"},
	}},
	// A dependency line of a unit file is taken word by word: a word
	// that is no unit name is passed over, the others kept (252 seed
	// 555046 of a long run: the fake dropped the whole list); probed on
	// 247-262.
	{"dependency words that are no unit names", []Op{
		{Kind: "WriteUnitFile", Unit: 3, Dir: InDropIn, Lines: []Directive{{"Unit", "Wants", "not a name"}, {"Unit", "Wants", "{u0}"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "StartTransientUnit", Unit: 3, Mode: "replace", Spawn: []ProcKind{Zombie}, Props: []Prop{{"PIDs", PIDList{0}}}},
		{Kind: "WriteUnitFile", Unit: 7, Dir: InConfig, Lines: []Directive{{"Unit", "Requires", "bogus {u1}"}, {"Unit", "After", "{u1} bogus"}, {"Unit", "BindsTo", "not-a-unit"}}},
		{Kind: "WriteUnitFile", Unit: 1, Dir: InConfig, Lines: []Directive{{"Service", "ExecStart", "/bin/sleep 1000"}}},
		{Kind: "StartUnit", Unit: 7, Mode: "replace"},
	}},
}

// TestDifferentialReplays runs every replay on the sandbox's systemd and
// on a fresh fake each, and reports each that differs.
func TestDifferentialReplays(t *testing.T) {
	real, fake := sandboxBackends(t)
	ctx := context.Background()
	replay := func(n int) {
		r := replays[n]
		t.Run(r.name, func(t *testing.T) {
			i, want, got, err := runBoth(ctx, real, fake, r.seq, fmt.Sprintf("dr%d", n))
			if err != nil {
				t.Fatal(err)
			}
			if i < 0 {
				return
			}
			if k := knownDifference(r.seq[i], want, got); k != nil {
				t.Logf("step %d: known difference %s", i+1, k.ID)
			} else {
				t.Errorf("step %d differs:\n-%s\n+fakebus:\n%s", i+1, want, got)
			}
		})
	}
	// The replays that act beyond their own units one after the other,
	// then the others replayWorkers at a time, each on its own units and
	// a fake of its own, as the edges run.
	var alone, others []int
	for n, r := range replays {
		if sharedEffects(r.seq) {
			alone = append(alone, n)
		} else {
			others = append(others, n)
		}
	}
	for _, n := range alone {
		replay(n)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < replayWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range work {
				replay(n)
			}
		}()
	}
	for _, n := range others {
		work <- n
	}
	close(work)
	wg.Wait()
}

// replayWorkers is how many replays without shared effects run at once.
const replayWorkers = 4

// sharedEffects reports whether seq acts beyond its own units: a reload
// or re-execution of the manager, or a unit-file operation (the unit
// directories and their name map are every lookup's). Such a replay runs
// alone.
func sharedEffects(seq []Op) bool {
	for _, o := range seq {
		switch o.Kind {
		case OpReload, OpReexec, OpWriteFile, OpRemoveFile, OpLink, OpEnable, OpDisable, OpMask, OpUnmask,
			OpFileState, OpReadFileState, OpListFiles:
			return true
		}
	}
	return false
}
