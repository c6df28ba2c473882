package fakebus

// The org.freedesktop.systemd1.Unit interface of every unit object
// (systemd's src/core/dbus-unit.c): its properties.

import (
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// loadError is a unit's LoadError: why it did not load, as a D-Bus error
// name and message ("" and "" when it loaded). A unit no file defines is
// NoSuchUnit "Unit X not found.", one with a bad setting BadUnitSetting
// "Unit X has a bad unit file setting.", a masked one UnitMasked "Unit X
// is masked." (measured on 252, and 247-262, by the differential tester).
func loadError(u *unit) struct{ Name, Message string } {
	if err := loadStateErr(u); err != nil {
		return struct{ Name, Message string }{err.name, err.msg}
	}
	return struct{ Name, Message string }{}
}

// unitPropsLocked returns the Unit interface's properties the fake
// models for u; with only set, the dependency lists only if only is one
// (objectPropsLocked).
func (m *manager) unitPropsLocked(u *unit, only string) map[string]dbus.Variant {
	job := jobRef{0, "/"}
	if u.job != nil {
		job = jobRef{u.job.id, u.job.path()}
	}
	inv := u.invocation
	if inv == nil {
		inv = []byte{}
	}
	collect := u.str("CollectMode")
	if collect == "" {
		collect = "inactive"
	}
	ts := func(t bool) uint64 {
		if !t || u.activeAt.IsZero() {
			return 0
		}
		return uint64(u.activeAt.UnixMicro())
	}
	props := map[string]dbus.Variant{
		"Id":                  dbus.MakeVariant(u.name),
		"Names":               dbus.MakeVariant(m.namesLocked(u)),
		"Following":           dbus.MakeVariant(""),
		"Description":         dbus.MakeVariant(m.descriptionLocked(u)),
		"LoadState":           dbus.MakeVariant(u.load),
		"LoadError":           dbus.MakeVariant(loadError(u)),
		"ActiveState":         dbus.MakeVariant(u.active),
		"SubState":            dbus.MakeVariant(u.sub),
		"FreezerState":        dbus.MakeVariant(strOr(u.freezer, "running")),
		"FragmentPath":        dbus.MakeVariant(u.fragment),
		"Transient":           dbus.MakeVariant(u.transient),
		"CollectMode":         dbus.MakeVariant(collect),
		"Job":                 dbus.MakeVariant(job),
		"InvocationID":        dbus.MakeVariant(inv),
		"ConditionResult":     dbus.MakeVariant(u.condition),
		"AssertResult":        dbus.MakeVariant(u.assert),
		"DefaultDependencies": dbus.MakeVariant(u.boolProp("DefaultDependencies", true)),
		"RefuseManualStart":   dbus.MakeVariant(u.boolProp("RefuseManualStart", false)),
		"RefuseManualStop":    dbus.MakeVariant(u.boolProp("RefuseManualStop", false)),
		"StopWhenUnneeded":    dbus.MakeVariant(u.boolProp("StopWhenUnneeded", false)),
		// A scope is made, not started (false on 247-262); devices,
		// swaps and automounts are not supported (unitType.unsupported).
		"CanStart":             dbus.MakeVariant(u.load == "loaded" && u.kind != "scope" && !unitTypes[u.kind].unsupported),
		"CanStop":              dbus.MakeVariant(u.load == "loaded" && !u.perpetual && !unitTypes[u.kind].unsupported),
		"CanReload":            dbus.MakeVariant(u.props["ExecReload"].Value() != nil || u.kind == "mount" && u.load == "loaded"),
		"ActiveEnterTimestamp": dbus.MakeVariant(ts(true)),
		"StateChangeTimestamp": dbus.MakeVariant(usec(u.changed)),
		"NeedDaemonReload":     dbus.MakeVariant(m.needDaemonReloadLocked(u)),
		"RequiresMountsFor":    dbus.MakeVariant(m.mountPathsLocked(u)),
		"Refs":                 dbus.MakeVariant(refNames(u)),
	}
	props["ActiveEnterTimestampMonotonic"] = dbus.MakeVariant(u.times.activeEnter.mono)
	props["ActiveExitTimestamp"] = dbus.MakeVariant(u.times.activeExit.real)
	props["ActiveExitTimestampMonotonic"] = dbus.MakeVariant(u.times.activeExit.mono)
	props["InactiveExitTimestamp"] = dbus.MakeVariant(u.times.inactiveExit.real)
	props["InactiveExitTimestampMonotonic"] = dbus.MakeVariant(u.times.inactiveExit.mono)
	props["InactiveEnterTimestamp"] = dbus.MakeVariant(u.times.inactiveEnter.real)
	props["InactiveEnterTimestampMonotonic"] = dbus.MakeVariant(u.times.inactiveEnter.mono)
	props["ConditionTimestamp"] = dbus.MakeVariant(u.conditionAt.real)
	props["ConditionTimestampMonotonic"] = dbus.MakeVariant(u.conditionAt.mono)
	props["AssertTimestamp"] = dbus.MakeVariant(u.assertAt.real)
	props["AssertTimestampMonotonic"] = dbus.MakeVariant(u.assertAt.mono)
	// The dependency lists (the later ones where the release has them).
	for i, name := range unitDepProps {
		if (only == "" || only == name) && (i < firstReleaseDep || m.has(name)) {
			props[name] = dbus.MakeVariant(m.depsLocked(u, name))
		}
	}
	if m.has("WantsMountsFor") {
		props["WantsMountsFor"] = dbus.MakeVariant(append([]string{}, m.wantsMountPathsLocked(u)...))
	}
	if !m.has("CollectMode") {
		delete(props, "CollectMode")
	}
	return props
}

// unitDepProps are the Unit interface's dependency lists but TriggeredBy
// (readPropsLocked): every release's, then from firstReleaseDep on those
// a release may lack.
var unitDepProps = []string{"Requires", "Wants", "BindsTo", "After", "Before", "Conflicts", "Triggers",
	"Requisite", "PartOf", "OnFailure", "OnSuccess", "RequiredBy", "RequisiteOf", "WantedBy",
	"BoundBy", "ConsistsOf", "ConflictedBy", "OnFailureOf", "OnSuccessOf"}

const firstReleaseDep = 7

// descriptionLocked is u's Description property: its own, else, for a
// slice from 252 on, "Slice " and the path its name stands for ("Slice
// /capture" for capture.slice; measured on 252, 257, 262: 247 answers the
// name, as for other units), for a mount its Where, a swap its What, a
// device its path (measured on 247-262; an automount answers its name),
// else its name.
func (m *manager) descriptionLocked(u *unit) string {
	if u.str("Description") == "" {
		switch u.kind {
		case "slice":
			if !m.release.AtLeast(sdversions.R("252")) {
				break
			}
			if p, err := sdbus.UnescapeUnitPath(strings.TrimSuffix(u.name, ".slice")); err == nil {
				return "Slice " + p
			}
		case "mount", "swap":
			if w := u.where(); w != "" {
				return w
			}
		case "device":
			if p := namedPath(u); p != "" {
				return p
			}
		}
	}
	return description(u)
}

func (u *unit) bytesProp(name string) []byte {
	if v, ok := u.props[name]; ok {
		if b, ok := v.Value().([]byte); ok {
			return b
		}
	}
	return []byte{}
}

func int32Or(u *unit, name string, def int32) int32 {
	if v, ok := u.props[name]; ok {
		if n, ok := v.Value().(int32); ok {
			return n
		}
	}
	return def
}

// unitVtable is org.freedesktop.systemd1.Unit (bus_unit_vtable in
// systemd's src/core/dbus-unit.c): the methods of every unit object, each
// answered as the Manager method it stands for.
var unitVtable = newRoutedVtable(unitIface, map[string]string{
	"Start": "StartUnit", "Stop": "StopUnit", "Reload": "ReloadUnit", "Restart": "RestartUnit",
	"TryRestart": "TryRestartUnit", "ReloadOrRestart": "ReloadOrRestartUnit",
	"ReloadOrTryRestart": "ReloadOrTryRestartUnit", "EnqueueJob": "EnqueueUnitJob", "Kill": "KillUnit",
	"QueueSignal": "QueueSignalUnit", "ResetFailed": "ResetFailedUnit", "SetProperties": "SetUnitProperties",
	"Ref": "RefUnit", "Unref": "UnrefUnit", "Clean": "CleanUnit", "Freeze": "FreezeUnit", "Thaw": "ThawUnit",
	"KillSubgroup": "KillUnitSubgroup",
}, map[string][]any{
	"KillSubgroup": {"cgroup"}, // the subgroup's processes
}, []vmethod{
	{"Start", "s", "o", "mode", "job", nil},
	{"Stop", "s", "o", "mode", "job", nil},
	{"Reload", "s", "o", "mode", "job", nil},
	{"Restart", "s", "o", "mode", "job", nil},
	{"TryRestart", "s", "o", "mode", "job", nil},
	{"ReloadOrRestart", "s", "o", "mode", "job", nil},
	{"ReloadOrTryRestart", "s", "o", "mode", "job", nil},
	{"EnqueueJob", "ss", "uososa(uosos)", "job_type,job_mode", "job_id,job_path,unit_id,unit_path,job_type,affected_jobs", nil},
	{"Kill", "si", "", "whom,signal", "", nil},
	{"KillSubgroup", "si", "", "subgroup,signal", "", nil},
	{"QueueSignal", "sii", "", "whom,signal,value", "", nil},
	{"ResetFailed", "", "", "", "", nil},
	{"SetProperties", "ba(sv)", "", "runtime,properties", "", nil},
	{"Ref", "", "", "", "", nil},
	{"Unref", "", "", "", "", nil},
	{"Clean", "as", "", "mask", "", nil},
	{"Freeze", "", "", "", "", nil},
	{"Thaw", "", "", "", "", nil},
}, nil)

// cgroupStands and cgroupMethods are the methods every unit type with a
// control group has (bus_unit_cgroup_vtable in systemd's
// src/core/dbus-unit.c); each type's table lists them after its own.
var cgroupStands = map[string]string{
	"GetProcesses": "GetUnitProcesses", "AttachProcesses": "AttachProcessesToUnit",
	"RemoveSubgroup": "RemoveSubgroupFromUnit",
}

func cgroupMethods() []vmethod {
	return []vmethod{
		{"GetProcesses", "", "a(sus)", "", "processes", nil},
		{"AttachProcesses", "sau", "", "subcgroup,pids", "", nil},
		{"RemoveSubgroup", "st", "", "subcgroup,flags", "", nil},
	}
}

// refNames is a unit's Refs: the unique name of each client holding a
// reference on it (RefUnit, AddRef=), once per reference, as systemd
// lists its bus track (sorted here; systemd's order is its hash table's).
func refNames(u *unit) []string {
	names := []string{}
	for p, n := range u.refs {
		for i := 0; i < n; i++ {
			names = append(names, p.UniqueName())
		}
	}
	sort.Strings(names)
	return names
}
