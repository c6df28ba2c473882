package fakebus

// The org.freedesktop.systemd1.Manager interface (systemd's
// src/core/dbus-manager.c): the dispatch of its methods, with systemd's
// checks, order and errors, and its properties. The unit-file methods are
// in dbus_manager_unitfiles.go; the model they act on in unit.go, job.go,
// transaction.go and the files named after it.

import (
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// managerVtable is org.freedesktop.systemd1.Manager (bus_manager_vtable
// in systemd's src/core/dbus-manager.c), every method of every release
// the fake plays, in systemd 262's order (257's for StartAuxiliaryScope); sdversions.Methods says which
// release has which. The handlers are grouped as the methods' checks and
// errors are shared.
var managerVtable = newVtable(managerIface, []vmethod{
	{"GetUnit", "s", "o", "name", "unit", (*manager).managerCall},
	{"GetUnitByPID", "u", "o", "pid", "unit", (*manager).managerCall},
	{"GetUnitByInvocationID", "ay", "o", "invocation_id", "unit", (*manager).moreCall},
	{"GetUnitByControlGroup", "s", "o", "cgroup", "unit", (*manager).moreCall},
	{"GetUnitByPIDFD", "h", "osay", "pidfd", "unit,unit_id,invocation_id", (*manager).versionedCall},
	{"LoadUnit", "s", "o", "name", "unit", (*manager).managerCall},
	{"StartUnit", "ss", "o", "name,mode", "job", (*manager).managerCall},
	{"StartUnitWithFlags", "sst", "o", "name,mode,flags", "job", (*manager).versionedCall},
	{"StartUnitReplace", "sss", "o", "old_unit,new_unit,mode", "job", (*manager).moreCall},
	{"StopUnit", "ss", "o", "name,mode", "job", (*manager).managerCall},
	{"ReloadUnit", "ss", "o", "name,mode", "job", (*manager).managerCall},
	{"RestartUnit", "ss", "o", "name,mode", "job", (*manager).managerCall},
	{"TryRestartUnit", "ss", "o", "name,mode", "job", (*manager).managerCall},
	{"ReloadOrRestartUnit", "ss", "o", "name,mode", "job", (*manager).managerCall},
	{"ReloadOrTryRestartUnit", "ss", "o", "name,mode", "job", (*manager).managerCall},
	{"EnqueueUnitJob", "sss", "uososa(uosos)", "name,job_type,job_mode", "job_id,job_path,unit_id,unit_path,job_type,affected_jobs", (*manager).unitFileMoreCall},
	{"EnqueueUnitJobMany", "assst", "a(uosos)", "units,job_type,job_mode,flags", "jobs", (*manager).versionedCall},
	{"KillUnit", "ssi", "", "name,whom,signal", "", (*manager).managerCall},
	{"KillUnitSubgroup", "sssi", "", "name,whom,subgroup,signal", "", (*manager).versionedCall},
	{"QueueSignalUnit", "ssii", "", "name,whom,signal,value", "", (*manager).versionedCall},
	{"CleanUnit", "sas", "", "name,mask", "", (*manager).cleanCall},
	{"FreezeUnit", "s", "", "name", "", (*manager).managerCall},
	{"ThawUnit", "s", "", "name", "", (*manager).managerCall},
	{"ResetFailedUnit", "s", "", "name", "", (*manager).managerCall},
	{"SetUnitProperties", "sba(sv)", "", "name,runtime,properties", "", (*manager).managerCall},
	{"BindMountUnit", "sssbb", "", "name,source,destination,read_only,mkdir", "", (*manager).versionedCall},
	{"MountImageUnit", "sssbba(ss)", "", "name,source,destination,read_only,mkdir,options", "", (*manager).versionedCall},
	{"RefUnit", "s", "", "name", "", (*manager).moreCall},
	{"UnrefUnit", "s", "", "name", "", (*manager).moreCall},
	{"StartTransientUnit", "ssa(sv)a(sa(sv))", "o", "name,mode,properties,aux", "job", (*manager).managerCall},
	{"GetUnitProcesses", "s", "a(sus)", "name", "processes", (*manager).moreCall},
	{"AttachProcessesToUnit", "ssau", "", "unit_name,subcgroup,pids", "", (*manager).managerCall},
	{"RemoveSubgroupFromUnit", "sst", "", "unit_name,subcgroup,flags", "", (*manager).versionedCall},
	{"AbandonScope", "s", "", "name", "", (*manager).moreCall},
	{"GetJob", "u", "o", "id", "job", (*manager).managerCall},
	{"GetJobAfter", "u", "a(usssoo)", "id", "jobs", (*manager).moreCall},
	{"GetJobBefore", "u", "a(usssoo)", "id", "jobs", (*manager).moreCall},
	{"CancelJob", "u", "", "id", "", (*manager).managerCall},
	{"ClearJobs", "", "", "", "", (*manager).moreCall},
	{"ResetFailed", "", "", "", "", (*manager).managerCall},
	{"SetShowStatus", "s", "", "mode", "", (*manager).unitFileMoreCall},
	{"ListUnits", "", "a(ssssssouso)", "", "units", (*manager).managerCall},
	{"ListUnitsFiltered", "as", "a(ssssssouso)", "states", "units", (*manager).managerCall},
	{"ListUnitsByPatterns", "asas", "a(ssssssouso)", "states,patterns", "units", (*manager).managerCall},
	{"ListUnitsByNames", "as", "a(ssssssouso)", "names", "units", (*manager).managerCall},
	{"ListJobs", "", "a(usssoo)", "", "jobs", (*manager).managerCall},
	{"Subscribe", "", "", "", "", (*manager).managerCall},
	{"Unsubscribe", "", "", "", "", (*manager).managerCall},
	{"Dump", "", "s", "", "output", (*manager).dumpCall},
	{"DumpUnitsMatchingPatterns", "as", "s", "patterns", "output", (*manager).dumpCall},
	{"DumpByFileDescriptor", "", "h", "", "fd", (*manager).dumpCall},
	{"DumpUnitsMatchingPatternsByFileDescriptor", "as", "h", "patterns", "fd", (*manager).dumpCall},
	{"Reload", "", "", "", "", (*manager).managerCall},
	{"Reexecute", "", "", "", "", (*manager).managerCall},
	{"Exit", "", "", "", "", (*manager).moreCall},
	{"Reboot", "", "", "", "", (*manager).moreCall},
	{"SoftReboot", "s", "", "new_root", "", (*manager).moreCall},
	{"PowerOff", "", "", "", "", (*manager).moreCall},
	{"Halt", "", "", "", "", (*manager).moreCall},
	{"KExec", "", "", "", "", (*manager).moreCall},
	{"SwitchRoot", "ss", "", "new_root,init", "", (*manager).moreCall},
	{"SetEnvironment", "as", "", "assignments", "", (*manager).moreCall},
	{"UnsetEnvironment", "as", "", "names", "", (*manager).moreCall},
	{"UnsetAndSetEnvironment", "asas", "", "names,assignments", "", (*manager).moreCall},
	{"EnqueueMarkedJobs", "", "ao", "", "jobs", (*manager).versionedCall},
	{"ListUnitFiles", "", "a(ss)", "", "unit_files", (*manager).unitFileCall},
	{"ListUnitFilesByPatterns", "asas", "a(ss)", "states,patterns", "unit_files", (*manager).unitFileCall},
	{"GetUnitFileState", "s", "s", "file", "state", (*manager).unitFileCall},
	{"EnableUnitFiles", "asbb", "ba(sss)", "files,runtime,force", "carries_install_info,changes", (*manager).unitFileCall},
	{"DisableUnitFiles", "asb", "a(sss)", "files,runtime", "changes", (*manager).unitFileCall},
	{"EnableUnitFilesWithFlags", "ast", "ba(sss)", "files,flags", "carries_install_info,changes", (*manager).moreCall},
	{"DisableUnitFilesWithFlags", "ast", "a(sss)", "files,flags", "changes", (*manager).moreCall},
	{"DisableUnitFilesWithFlagsAndInstallInfo", "ast", "ba(sss)", "files,flags", "carries_install_info,changes", (*manager).unitFileDepsCall},
	{"ReenableUnitFiles", "asbb", "ba(sss)", "files,runtime,force", "carries_install_info,changes", (*manager).unitFileCall},
	{"LinkUnitFiles", "asbb", "a(sss)", "files,runtime,force", "changes", (*manager).unitFileCall},
	{"PresetUnitFiles", "asbb", "ba(sss)", "files,runtime,force", "carries_install_info,changes", (*manager).unitFileCall},
	{"PresetUnitFilesWithMode", "assbb", "ba(sss)", "files,mode,runtime,force", "carries_install_info,changes", (*manager).unitFileMoreCall},
	{"MaskUnitFiles", "asbb", "a(sss)", "files,runtime,force", "changes", (*manager).unitFileCall},
	{"UnmaskUnitFiles", "asb", "a(sss)", "files,runtime", "changes", (*manager).unitFileCall},
	{"RevertUnitFiles", "as", "a(sss)", "files", "changes", (*manager).unitFileMoreCall},
	{"SetDefaultTarget", "sb", "a(sss)", "name,force", "changes", (*manager).unitFileMoreCall},
	{"GetDefaultTarget", "", "s", "", "name", (*manager).unitFileMoreCall},
	{"PresetAllUnitFiles", "sbb", "a(sss)", "mode,runtime,force", "changes", (*manager).unitFileMoreCall},
	{"AddDependencyUnitFiles", "asssbb", "a(sss)", "files,target,type,runtime,force", "changes", (*manager).unitFileDepsCall},
	{"GetUnitFileLinks", "sb", "as", "name,runtime", "links", (*manager).unitFileMoreCall},
	{"SetExitCode", "y", "", "number", "", (*manager).unitFileMoreCall},
	{"LookupDynamicUserByName", "s", "u", "name", "uid", (*manager).dynamicUserCall},
	{"LookupDynamicUserByUID", "u", "s", "uid", "name", (*manager).dynamicUserCall},
	{"GetDynamicUsers", "", "a(us)", "", "users", (*manager).dynamicUserCall},
	{"DumpUnitFileDescriptorStore", "s", "a(suuutuusu)", "name", "entries", (*manager).cleanCall},
	{"StartAuxiliaryScope", "sahta(sv)", "o", "name,pidfds,flags,properties", "job", (*manager).versionedCall},
}, []vsignal{
	{"UnitNew", "so", "id,unit"},
	{"UnitRemoved", "so", "id,unit"},
	{"JobNew", "uos", "id,job,unit"},
	{"JobRemoved", "uoss", "id,job,unit,result"},
	{"StartupFinished", "tttttt", "firmware,loader,kernel,initrd,userspace,total"},
	{"UnitFilesChanged", "", ""},
	{"Reloading", "b", "active"},
}).annotate(map[string]string{
	"Reexecute": noReply, "Exit": privileged, "Reboot": privileged, "SoftReboot": privileged,
	"PowerOff": privileged, "Halt": privileged, "KExec": privileged, "SwitchRoot": privileged,
	"StartAuxiliaryScope": deprecated,
})

var jobMethods = map[string]jobType{
	"StartUnit": jobStart, "StopUnit": jobStop, "ReloadUnit": jobReload, "RestartUnit": jobRestart,
	"TryRestartUnit": "try-restart", "ReloadOrRestartUnit": "reload-or-restart",
	"ReloadOrTryRestartUnit": "reload-or-try-restart",
}

// managerCall answers the Manager's unit and job methods.
func (m *manager) managerCall(c *call) ([]any, error) {
	if typ, ok := jobMethods[c.Member]; ok {
		return nil, m.unitJobLocked(c.Call, c.Body[0].(string), c.Body[1].(string), typ, pathReply)
	}
	switch c.Member {
	case "StartTransientUnit":
		return nil, m.startTransientLocked(c)
	case "GetUnit":
		name := c.Body[0].(string)
		if u := m.unitLocked(name); u != nil {
			return []any{u.path()}, nil
		}
		return nil, errNoSuchUnit(name)
	case "LoadUnit":
		name := c.Body[0].(string)
		if err := validName(name); err != nil {
			return nil, err
		}
		_, loaded := m.units[m.primaryLocked(name)]
		if u := m.loadLocked(name); u != nil {
			if !loaded {
				// systemd collects a unit loaded this way soon after,
				// unless it is needed; the fake once it has answered.
				defer m.collectLocked(u)
			}
			return []any{u.path()}, nil
		}
		// A unit without a file is "loaded" as not-found and collected
		// later; the fake collects it at once.
		return []any{sdbus.UnitPath(name)}, nil
	case "GetUnitByPID":
		pid := c.Body[0].(uint32)
		if pid == 0 {
			pid = c.Peer.PID() // the caller's, from its bus credentials, as systemd's
		}
		if u := m.unitByPIDLocked(pid); u != nil {
			return []any{u.path()}, nil
		}
		return nil, &callErr{errPrefix + "NoUnitForPID", fmt.Sprintf("PID %d does not belong to any loaded unit.", pid)}
	case "ResetFailedUnit":
		name := c.Body[0].(string)
		u := m.unitLocked(name)
		if u == nil {
			return nil, errNoSuchUnit(name)
		}
		m.resetFailedLocked(u)
		return []any{}, nil
	case "ResetFailed":
		for _, u := range m.sortedUnitsLocked() {
			m.resetFailedLocked(u)
		}
		return []any{}, nil
	case "KillUnit":
		return m.killLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(int32), false)
	case "SetUnitProperties":
		name := c.Body[0].(string)
		u := m.unitLocked(name)
		if u == nil {
			if u = m.loadLocked(name); u == nil {
				return nil, errNotFound(name)
			}
		}
		props, err := m.checkPropsLocked(u.kind, c.Body[2])
		if err != nil {
			return nil, err
		}
		changed := make([]string, 0, len(props))
		for _, p := range props {
			m.setPropLocked(u, p.Name, p.Value)
			changed = append(changed, p.Name)
		}
		m.settingsNoteLocked(u.name, "SetUnitProperties", changed, nil)
		if u.fromFile {
			// systemd keeps them in a drop-in (system.control), which
			// outlives daemon-reload and the unit's unloading.
			m.control[u.name] = append(m.control[u.name], props...)
		}
		m.indexLocked(u)
		if iface := typeIface(u.kind); iface != "" {
			m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
				return []any{iface, map[string]dbus.Variant{}, changed}
			})
		}
		return []any{}, nil
	case "AttachProcessesToUnit":
		if !m.has("AttachProcessesToUnit") {
			return nil, errUnknownMethod(c.Call)
		}
		return m.attachLocked(c.Call, c.Body[0].(string), c.Body[1].(string), c.Body[2].([]uint32))
	case "ListUnits":
		return []any{m.listLocked(nil, nil, nil)}, nil
	case "ListUnitsFiltered":
		return []any{m.listLocked(c.Body[0].([]string), nil, nil)}, nil
	case "ListUnitsByPatterns":
		return []any{m.listLocked(c.Body[0].([]string), c.Body[1].([]string), nil)}, nil
	case "ListUnitsByNames":
		return []any{m.listLocked(nil, nil, c.Body[0].([]string))}, nil
	case "ListJobs":
		var out []jobRow
		ids := make([]int, 0, len(m.jobs))
		for id := range m.jobs {
			ids = append(ids, int(id))
		}
		sort.Ints(ids)
		for _, id := range ids {
			j := m.jobs[uint32(id)]
			out = append(out, jobRow{j.id, j.unit.name, string(j.typ), j.state, j.path(), j.unit.path()})
		}
		return []any{nonNilRows(out)}, nil
	case "GetJob":
		id := c.Body[0].(uint32)
		if _, ok := m.jobs[id]; !ok {
			return nil, noSuchJob(id)
		}
		return []any{jobPath(id)}, nil
	case "CancelJob":
		return m.cancelJobLocked(c.Body[0].(uint32))
	case "Subscribe":
		if c.Peer.Mode() == busd.BusMode {
			if m.subscribed[c.Peer] {
				return nil, &callErr{errPrefix + "AlreadySubscribed", "Client is already subscribed."}
			}
			m.subscribed[c.Peer] = true
		}
		return []any{}, nil
	case "Unsubscribe":
		if c.Peer.Mode() == busd.BusMode {
			if !m.subscribed[c.Peer] {
				return nil, &callErr{errPrefix + "NotSubscribed", "Client is not subscribed."}
			}
			delete(m.subscribed, c.Peer)
		}
		return []any{}, nil
	case "FreezeUnit", "ThawUnit":
		if !m.has(c.Member) {
			return nil, errUnknownMethod(c.Call)
		}
		return m.freezeLocked(c.Body[0].(string), c.Member == "FreezeUnit")
	case "Reload":
		m.reloadLocked(c.Call)
		return nil, nil
	case "Reexecute":
		m.reexecLocked(Reexec{})
		return nil, nil
	}
	return nil, errUnknownMethod(c.Call)
}

type jobRow struct {
	ID       uint32
	Unit     string
	Type     string
	State    string
	Path     dbus.ObjectPath
	UnitPath dbus.ObjectPath
}

func nonNilRows(r []jobRow) []jobRow {
	if r == nil {
		return []jobRow{}
	}
	return r
}

type unitRow struct {
	Name, Description, LoadState, ActiveState, SubState, Following string
	Path                                                           dbus.ObjectPath
	JobID                                                          uint32
	JobType                                                        string
	JobPath                                                        dbus.ObjectPath
}

func (m *manager) row(u *unit) unitRow {
	r := unitRow{Name: u.name, Description: description(u), LoadState: u.load, ActiveState: u.active,
		SubState: u.sub, Path: u.path(), JobPath: "/"}
	if u.job != nil {
		r.JobID, r.JobType, r.JobPath = u.job.id, string(u.job.typ), u.job.path()
	}
	return r
}

func description(u *unit) string {
	if d := u.str("Description"); d != "" {
		return d
	}
	return u.name
}

// listLocked implements the ListUnits family: states filters on any of
// the three states, patterns on the name, names loads and lists.
func (m *manager) listLocked(states, patterns, names []string) []unitRow {
	out := []unitRow{}
	if names != nil {
		for _, n := range names {
			if u := m.loadLocked(n); u != nil {
				out = append(out, m.row(u))
			} else if sdbus.ValidateUnitName(n) == nil {
				out = append(out, unitRow{Name: n, Description: n, LoadState: "not-found", ActiveState: "inactive",
					SubState: "dead", Path: sdbus.UnitPath(n), JobPath: "/"})
			}
		}
		return out
	}
	for _, u := range m.sortedUnitsLocked() {
		if len(states) > 0 && !contains(states, u.active) && !contains(states, u.load) && !contains(states, u.sub) {
			continue
		}
		if len(patterns) > 0 {
			ok := false
			for _, p := range patterns {
				if match, _ := path.Match(p, u.name); match {
					ok = true
				}
			}
			if !ok {
				continue
			}
		}
		out = append(out, m.row(u))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// powerMethods are the Manager methods that end or replace the manager.
var powerMethods = map[string]bool{
	"Reboot": true, "PowerOff": true, "Halt": true, "KExec": true, "Exit": true, "SwitchRoot": true, "SoftReboot": true,
}

// moreCall answers the unit lookups (GetUnitByInvocationID,
// GetUnitByControlGroup, GetUnitProcesses), RefUnit and UnrefUnit,
// ClearJobs, GetJobAfter and GetJobBefore, StartUnitReplace, AbandonScope,
// the environment methods, EnableUnitFilesWithFlags and
// DisableUnitFilesWithFlags, and the power methods, which the fake
// answers as systemd answers a caller that is not root.
func (m *manager) moreCall(c *call) ([]any, error) {
	if powerMethods[c.Member] {
		// sd-bus refuses methods without SD_BUS_VTABLE_UNPRIVILEGED to
		// callers that are not root; the fake never plays root here.
		return nil, &callErr{dbusErr + "AccessDenied", "Access denied"}
	}
	switch c.Member {
	case "GetUnitByInvocationID":
		id := c.Body[0].([]byte)
		if len(id) != 16 {
			return nil, errInvalidArgs("Invalid invocation ID")
		}
		for _, u := range m.sortedUnitsLocked() {
			if u.invocation != nil && string(u.invocation) == string(id) {
				return []any{invocationPath(u.invocation)}, nil
			}
		}
		return nil, &callErr{errPrefix + "NoUnitForInvocationID",
			"No unit with the specified invocation ID " + hex.EncodeToString(id) + " known."}
	case "GetUnitByControlGroup":
		cg := c.Body[0].(string)
		if u := m.unitByCgroupLocked(cg); u != nil {
			return []any{u.path()}, nil
		}
		return nil, &callErr{errPrefix + "NoSuchUnit", "Control group '" + cg + "' is not valid or not managed by this instance"}
	case "GetUnitProcesses":
		u, err := m.loadedLocked(c.Body[0].(string))
		if err != nil {
			return nil, err
		}
		return []any{m.processesLocked(u)}, nil
	case "RefUnit", "UnrefUnit":
		u, err := m.loadedLocked(c.Body[0].(string))
		if err != nil {
			return nil, err
		}
		if c.Member == "RefUnit" {
			if u.refs == nil {
				u.refs = map[*busd.Peer]int{}
			}
			u.refs[c.Peer]++
			return []any{}, nil
		}
		if u.refs[c.Peer] == 0 {
			return nil, &callErr{errPrefix + "NotReferenced", "Unit has not been referenced yet."}
		}
		if u.refs[c.Peer]--; u.refs[c.Peer] == 0 {
			delete(u.refs, c.Peer)
		}
		m.collectLocked(u)
		return []any{}, nil
	case "ClearJobs":
		ids := make([]uint32, 0, len(m.jobs))
		for id := range m.jobs {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			if _, ok := m.jobs[id]; ok {
				_, _ = m.cancelJobLocked(id)
			}
		}
		return []any{}, nil
	case "GetJobAfter", "GetJobBefore":
		id := c.Body[0].(uint32)
		j, ok := m.jobs[id]
		if !ok {
			return nil, noSuchJob(id)
		}
		var rel []*job
		if c.Member == "GetJobAfter" {
			// The jobs that run after j: those waiting for it.
			rel = append(rel, j.dependents...)
		} else {
			for w := range j.waits {
				rel = append(rel, w)
			}
		}
		rows := []jobRow{}
		seen := map[*job]bool{}
		for _, o := range rel {
			if !o.finished && !seen[o] {
				seen[o] = true
				rows = append(rows, jobRow{o.id, o.unit.name, string(o.typ), o.state, o.path(), o.unit.path()})
			}
		}
		sort.Slice(rows, func(a, b int) bool { return rows[a].ID < rows[b].ID })
		return []any{rows}, nil
	case "StartUnitReplace":
		old := c.Body[0].(string)
		u, err := m.loadedLocked(old)
		if err != nil {
			return nil, err
		}
		if u.job == nil || u.job.typ != jobStart {
			return nil, &callErr{errPrefix + "NoSuchJob", "No job queued for unit " + old}
		}
		return nil, m.unitJobLocked(c.Call, c.Body[1].(string), c.Body[2].(string), jobStart, pathReply)
	case "AbandonScope":
		name := c.Body[0].(string)
		u, err := m.loadedLocked(name)
		if err != nil {
			return nil, err
		}
		if u.kind != "scope" {
			return nil, errInvalidArgs("Unit '%s' is not a scope unit, refusing.", name)
		}
		if u.active != "active" || u.sub != "running" {
			return nil, &callErr{errPrefix + "ScopeNotRunning", "Scope " + name + " is not running, cannot abandon."}
		}
		m.setStateLocked(u, "active", "abandoned")
		return []any{}, nil
	case "SetEnvironment", "UnsetEnvironment", "UnsetAndSetEnvironment":
		var unset, set []string
		switch c.Member {
		case "SetEnvironment":
			set = c.Body[0].([]string)
		case "UnsetEnvironment":
			unset = c.Body[0].([]string)
		default:
			unset, set = c.Body[0].([]string), c.Body[1].([]string)
		}
		for _, a := range set {
			if k, _, ok := strings.Cut(a, "="); !ok || !envName(k) {
				return nil, errInvalidArgs("Invalid environment assignments")
			}
		}
		for _, n := range unset {
			k, _, _ := strings.Cut(n, "=")
			if !envName(k) {
				return nil, errInvalidArgs("Invalid environment variable names or assignments")
			}
		}
		m.environment = setEnv(unsetEnv(m.environment, unset), set)
		return []any{}, nil
	case "EnableUnitFilesWithFlags", "DisableUnitFilesWithFlags":
		// The flags of systemd's public mask: runtime (1), force (2),
		// portable (4, which the fake has no portable images for).
		flags := c.Body[1].(uint64)
		if flags&^7 != 0 {
			return nil, errInvalidArgs("Invalid 'flags' parameter '%d'", flags)
		}
		runtime, force := flags&1 != 0, flags&2 != 0
		if c.Member == "EnableUnitFilesWithFlags" {
			out, _, err := m.unitFileCallLocked("EnableUnitFiles", []any{c.Body[0], runtime, force}, "asbb")
			return out, err
		}
		out, _, err := m.unitFileCallLocked("DisableUnitFiles", []any{c.Body[0], runtime}, "asb")
		return out, err
	}
	return nil, errUnknownMethod(c.Call)
}

// dumpCall answers Dump and its variants. (nil, nil) means no reply.
func (m *manager) dumpCall(c *call) ([]any, error) {
	switch c.Member {
	case "Dump":
		return []any{m.dumpLocked(nil)}, nil
	case "DumpUnitsMatchingPatterns":
		return []any{m.dumpLocked(c.Body[0].([]string))}, nil
	}
	// systemd replies with a memfd (type h). Its reply to a connection
	// that did not negotiate unix fds never arrives: dbus-daemon refuses
	// to forward it, sd-bus on the private socket cannot build it
	// (measured on 247, 252 and 262: no reply, the client's timeout
	// ends the call). No connection to the fake passes fds.
	return nil, nil
}

// cleanCall answers CleanUnit and DumpUnitFileDescriptorStore.
func (m *manager) cleanCall(c *call) ([]any, error) {
	switch c.Member {
	case "CleanUnit":
		return m.cleanLocked(c.Body[0].(string), c.Body[1].([]string))
	case "DumpUnitFileDescriptorStore":
		name := c.Body[0].(string)
		u := m.unitLocked(name)
		switch {
		case u == nil:
			return nil, errNoSuchUnit(name)
		case u.kind != "service":
			return nil, &callErr{dbusErr + "NotSupported", "DumpUnitFileDescriptorStore operation is not supported for unit type '" + u.kind + "'"}
		}
		return nil, &callErr{errPrefix + "FileDescriptorStoreDisabled", "File descriptor store not enabled for " + u.name + "."}
	}
	return nil, errUnknownMethod(c.Call)
}

// dynamicUserCall answers the dynamic-user lookups.
func (m *manager) dynamicUserCall(c *call) ([]any, error) {
	switch c.Member {
	case "GetDynamicUsers":
		return []any{[]dynamicUser{}}, nil
	case "LookupDynamicUserByName":
		name := c.Body[0].(string)
		if !relaxedUserName(name) {
			return nil, errInvalidArgs("User name invalid: %s", name)
		}
		return nil, &callErr{errPrefix + "NoSuchDynamicUser", "Dynamic user " + name + " does not exist."}
	case "LookupDynamicUserByUID":
		uid := c.Body[0].(uint32)
		if uid == 0xffffffff || uid == 0xffff { // systemd's uid_is_valid
			return nil, errInvalidArgs("User ID invalid: %d", uid)
		}
		return nil, &callErr{errPrefix + "NoSuchDynamicUser", "Dynamic user ID " + strconv.FormatUint(uint64(uid), 10) + " does not exist."}
	}
	return nil, errUnknownMethod(c.Call)
}

// versionedCall answers the methods that only some releases have
// (sdversions.Methods), with the checks, their order and the errors
// measured on systemd 252, 257 and 262. What the fake cannot carry out
// (mount namespaces, file descriptors) it answers as a containerized or
// unprivileged systemd does; see the package doc.
func (m *manager) versionedCall(c *call) ([]any, error) {
	switch c.Member {
	case "StartUnitWithFlags":
		// The name, the mode, the flags, then StartUnit's checks.
		name, mode, flags := c.Body[0].(string), c.Body[1].(string), c.Body[2].(uint64)
		if err := validName(name); err != nil {
			return nil, err
		}
		if err := m.checkModeLocked(mode, jobStart); err != nil {
			return nil, err
		}
		// No release measured accepts any flag (systemd's public mask
		// is empty); with 0 the call is StartUnit.
		if flags != 0 {
			return nil, errInvalidArgs("Invalid 'flags' parameter '%d'", flags)
		}
		return nil, m.unitJobLocked(c.Call, name, mode, jobStart, pathReply)
	case "EnqueueMarkedJobs":
		// The fake has no Markers=: no unit is ever marked.
		return []any{[]dbus.ObjectPath{}}, nil
	case "BindMountUnit", "MountImageUnit":
		out, err := m.liveMountLocked(c.Member, c.Body[0].(string), c.Body[1].(string), c.Body[2].(string))
		return out, err
	case "GetUnitByPIDFD":
		return nil, errNoFD()
	case "QueueSignalUnit":
		out, err := m.killLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(int32), true)
		return out, err
	case "StartAuxiliaryScope":
		if sdversions.Behaves(m.release, sdversions.AuxiliaryScopeRemoved) {
			return nil, &callErr{dbusErr + "NotSupported", "StartAuxiliaryScope() method has been removed."}
		}
		// A plain unit name (no template or instance), a scope, then
		// the processes.
		name := c.Body[0].(string)
		switch {
		case sdbus.ValidateUnitName(name) != nil || strings.Contains(name, "@"):
			return nil, errInvalidArgs("Invalid name \"%s\" for auxiliary scope.", name)
		case !strings.HasSuffix(name, ".scope"):
			return nil, errInvalidArgs("Name \"%s\" of auxiliary scope doesn't have .scope suffix.", name)
		case fdCount(c.Body[1]) > 0:
			return nil, errNoFD()
		}
		return nil, errInvalidArgs("No processes can be migrated to auxiliary scope.")
	case "EnqueueUnitJobMany":
		return nil, m.enqueueManyLocked(c.Call, c.Body[0].([]string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(uint64))
	case "KillUnitSubgroup":
		out, err := m.killSubgroupLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(int32))
		return out, err
	case "RemoveSubgroupFromUnit":
		out, err := m.removeSubgroupLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(uint64))
		return out, err
	}
	return nil, errUnknownMethod(c.Call)
}

// unitFileMoreCall answers the default target, GetUnitFileLinks,
// RevertUnitFiles, the presets with a mode, EnqueueUnitJob, and
// SetExitCode and SetShowStatus (accepted without effect).
func (m *manager) unitFileMoreCall(c *call) (out []any, err error) {
	changes := []unitFileChange{}
	switch c.Member {
	case "GetDefaultTarget":
		out, err = m.getDefaultTargetLocked()
	case "SetDefaultTarget":
		err = m.setDefaultTargetLocked(c.Body[0].(string), c.Body[1].(bool), &changes)
		out = []any{changes}
	case "GetUnitFileLinks":
		name := c.Body[0].(string)
		if sdbus.ValidateUnitName(name) != nil {
			// systemd answers the errno of its dry-run disable.
			if !sdversions.Behaves(m.release, sdversions.UnitFileLinksEUCLEAN) {
				return nil, &callErr{dbusErr + "InvalidArgs", "Invalid argument"}
			}
			return nil, &callErr{"System.Error.EUCLEAN", "Structure needs cleaning"}
		}
		if _, ok := m.lookupDiskLocked(name); !ok {
			return []any{[]string{}}, nil // no unit file: no links
		}
		if err := m.disableLocked([]string{name}, c.Body[1].(bool), true, &changes); err != nil {
			return nil, err
		}
		links := []string{}
		for _, ch := range changes {
			links = append(links, ch.Filename)
		}
		return []any{links}, nil
	case "RevertUnitFiles":
		err = m.revertLocked(c.Body[0].([]string), &changes)
		out = []any{changes}
	case "PresetUnitFilesWithMode":
		mode := c.Body[1].(string)
		if !presetModes[mode] {
			return nil, errInvalidArgs("Invalid argument")
		}
		var carries bool
		files, runtime, force := c.Body[0].([]string), c.Body[2].(bool), c.Body[3].(bool)
		if mode == "disable-only" {
			// The fake's policy enables everything: nothing to disable.
			err = m.checkUnitFilesLocked(files)
		} else {
			carries, err = m.enableLocked(files, runtime, force, &changes)
		}
		out = []any{carries, changes}
	case "PresetAllUnitFiles":
		mode := c.Body[0].(string)
		if !presetModes[mode] {
			return nil, errInvalidArgs("Invalid argument")
		}
		if mode != "disable-only" {
			m.presetAllLocked(c.Body[1].(bool), c.Body[2].(bool), &changes)
		}
		out = []any{changes}
	case "EnqueueUnitJob":
		name, typ, mode := c.Body[0].(string), c.Body[1].(string), c.Body[2].(string)
		t, known := enqueueJobTypes[typ]
		if !known {
			return nil, errInvalidArgs("Invalid job type: %s", typ)
		}
		return nil, m.unitJobLocked(c.Call, name, mode, t, enqueueReply)
	case "SetExitCode":
		return []any{}, nil
	case "SetShowStatus":
		if mode := c.Body[0].(string); mode != "" && !showStatusValue(mode) {
			return nil, errInvalidArgs("Invalid show status '%s'", mode)
		}
		return []any{}, nil
	}
	if err := m.unitFilesChangedLocked(changes, err); err != nil {
		return nil, err
	}
	return out, nil
}

// affectedJob is one element of EnqueueUnitJob's affected jobs, (uosos).
type affectedJob struct {
	ID       uint32
	Path     dbus.ObjectPath
	Unit     string
	UnitPath dbus.ObjectPath
	Type     string
}

// enqueueJobTypes are the job types EnqueueUnitJob and
// EnqueueUnitJobMany take; reload-or-start, try-reload and try-restart
// collapse by the unit's state (systemd's job_type_collapse).
var enqueueJobTypes = map[string]jobType{
	"start": jobStart, "stop": jobStop, "reload": jobReload, "restart": jobRestart, "try-restart": "try-restart",
	"verify-active": jobVerifyActive, "nop": jobNop, "reload-or-start": "reload-or-start", "try-reload": "try-reload",
}

// enqueueReply is EnqueueUnitJob's reply, "uosos" and "a(uosos)".
func enqueueReply(j *job, affected []*job) []any {
	rows := []affectedJob{}
	for _, o := range affected {
		rows = append(rows, affectedJob{o.id, o.path(), o.unit.name, o.unit.path(), string(o.typ)})
	}
	return []any{j.id, j.path(), j.unit.name, j.unit.path(), string(j.typ), rows}
}

// showStatusValue reports whether s is a value of ShowStatus= (systemd's
// parse_show_status): a boolean, auto or error.
func showStatusValue(s string) bool {
	switch strings.ToLower(s) {
	case "1", "yes", "y", "true", "t", "on", "0", "no", "n", "false", "f", "off", "auto", "error":
		return true
	}
	return false
}

func (m *manager) managerPropsLocked() map[string]dbus.Variant {
	virt := "none"
	if os.Getenv("container") != "" {
		virt = "container-other"
	}
	return map[string]dbus.Variant{
		"Version":         dbus.MakeVariant(m.version),
		"Features":        dbus.MakeVariant("+PAM -SELINUX default-hierarchy=unified"),
		"Virtualization":  dbus.MakeVariant(virt),
		"Architecture":    dbus.MakeVariant(goarchToSystemd(runtime.GOARCH)),
		"Tainted":         dbus.MakeVariant(""),
		"ControlGroup":    dbus.MakeVariant(""),
		"SystemState":     dbus.MakeVariant(m.managerStateLocked()),
		"NNames":          dbus.MakeVariant(uint32(len(m.units))),
		"NFailedUnits":    dbus.MakeVariant(m.nFailedLocked()),
		"NJobs":           dbus.MakeVariant(uint32(len(m.jobs))),
		"DefaultTasksMax": dbus.MakeVariant(infinity),
	}
}

func goarchToSystemd(a string) string {
	switch a {
	case "amd64":
		return "x86-64"
	case "386":
		return "x86"
	}
	return a
}
