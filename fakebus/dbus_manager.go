package fakebus

// The org.freedesktop.systemd1.Manager interface (systemd's
// src/core/dbus-manager.c): its table, one handler per method with
// systemd's checks, order and errors (unit lookups, the job methods,
// kill, clean, freeze, SetUnitProperties, StartTransientUnit, processes,
// jobs, lists, subscriptions, dumps, reload and reexecute, the power
// methods, the environment, dynamic users), and its properties. The
// unit-file methods are in dbus_manager_unitfiles.go; the model the
// handlers act on in unit.go, job.go, transaction.go and the files named
// after what they model.

import (
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"runtime"
	"slices"
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
// the fake plays, in systemd 262's order (257's for StartAuxiliaryScope);
// sdversions.Methods says which release has which. Each row names its
// method's handler.
var managerVtable = newVtable(managerIface, []vmethod{
	{"GetUnit", "s", "o", "name", "unit", (*manager).getUnit},
	{"GetUnitByPID", "u", "o", "pid", "unit", (*manager).getUnitByPID},
	{"GetUnitByInvocationID", "ay", "o", "invocation_id", "unit", (*manager).getUnitByInvocationID},
	{"GetUnitByControlGroup", "s", "o", "cgroup", "unit", (*manager).getUnitByControlGroup},
	{"GetUnitByPIDFD", "h", "osay", "pidfd", "unit,unit_id,invocation_id", (*manager).getUnitByPIDFD},
	{"LoadUnit", "s", "o", "name", "unit", (*manager).loadUnit},
	{"StartUnit", "ss", "o", "name,mode", "job", (*manager).startUnit},
	{"StartUnitWithFlags", "sst", "o", "name,mode,flags", "job", (*manager).startUnitWithFlags},
	{"StartUnitReplace", "sss", "o", "old_unit,new_unit,mode", "job", (*manager).startUnitReplace},
	{"StopUnit", "ss", "o", "name,mode", "job", (*manager).stopUnit},
	{"ReloadUnit", "ss", "o", "name,mode", "job", (*manager).reloadUnit},
	{"RestartUnit", "ss", "o", "name,mode", "job", (*manager).restartUnit},
	{"TryRestartUnit", "ss", "o", "name,mode", "job", (*manager).tryRestartUnit},
	{"ReloadOrRestartUnit", "ss", "o", "name,mode", "job", (*manager).reloadOrRestartUnit},
	{"ReloadOrTryRestartUnit", "ss", "o", "name,mode", "job", (*manager).reloadOrTryRestartUnit},
	{"EnqueueUnitJob", "sss", "uososa(uosos)", "name,job_type,job_mode", "job_id,job_path,unit_id,unit_path,job_type,affected_jobs", (*manager).enqueueUnitJob},
	{"EnqueueUnitJobMany", "assst", "a(uosos)", "units,job_type,job_mode,flags", "jobs", (*manager).enqueueUnitJobMany},
	{"KillUnit", "ssi", "", "name,whom,signal", "", (*manager).killUnit},
	{"KillUnitSubgroup", "sssi", "", "name,whom,subgroup,signal", "", (*manager).killUnitSubgroup},
	{"QueueSignalUnit", "ssii", "", "name,whom,signal,value", "", (*manager).queueSignalUnit},
	{"CleanUnit", "sas", "", "name,mask", "", (*manager).cleanUnit},
	{"FreezeUnit", "s", "", "name", "", (*manager).freezeUnit},
	{"ThawUnit", "s", "", "name", "", (*manager).thawUnit},
	{"ResetFailedUnit", "s", "", "name", "", (*manager).resetFailedUnit},
	{"SetUnitProperties", "sba(sv)", "", "name,runtime,properties", "", (*manager).setUnitProperties},
	{"BindMountUnit", "sssbb", "", "name,source,destination,read_only,mkdir", "", (*manager).bindMountUnit},
	{"MountImageUnit", "sssbba(ss)", "", "name,source,destination,read_only,mkdir,options", "", (*manager).mountImageUnit},
	{"RefUnit", "s", "", "name", "", (*manager).refUnit},
	{"UnrefUnit", "s", "", "name", "", (*manager).unrefUnit},
	{"StartTransientUnit", "ssa(sv)a(sa(sv))", "o", "name,mode,properties,aux", "job", (*manager).startTransientUnit},
	{"GetUnitProcesses", "s", "a(sus)", "name", "processes", (*manager).getUnitProcesses},
	{"AttachProcessesToUnit", "ssau", "", "unit_name,subcgroup,pids", "", (*manager).attachProcessesToUnit},
	{"RemoveSubgroupFromUnit", "sst", "", "unit_name,subcgroup,flags", "", (*manager).removeSubgroupFromUnit},
	{"AbandonScope", "s", "", "name", "", (*manager).abandonScope},
	{"GetJob", "u", "o", "id", "job", (*manager).getJob},
	{"GetJobAfter", "u", "a(usssoo)", "id", "jobs", (*manager).getJobAfter},
	{"GetJobBefore", "u", "a(usssoo)", "id", "jobs", (*manager).getJobBefore},
	{"CancelJob", "u", "", "id", "", (*manager).cancelJob},
	{"ClearJobs", "", "", "", "", (*manager).clearJobs},
	{"ResetFailed", "", "", "", "", (*manager).resetFailed},
	{"SetShowStatus", "s", "", "mode", "", (*manager).setShowStatus},
	{"ListUnits", "", "a(ssssssouso)", "", "units", (*manager).listUnits},
	{"ListUnitsFiltered", "as", "a(ssssssouso)", "states", "units", (*manager).listUnitsFiltered},
	{"ListUnitsByPatterns", "asas", "a(ssssssouso)", "states,patterns", "units", (*manager).listUnitsByPatterns},
	{"ListUnitsByNames", "as", "a(ssssssouso)", "names", "units", (*manager).listUnitsByNames},
	{"ListJobs", "", "a(usssoo)", "", "jobs", (*manager).listJobs},
	{"Subscribe", "", "", "", "", (*manager).subscribe},
	{"Unsubscribe", "", "", "", "", (*manager).unsubscribe},
	{"Dump", "", "s", "", "output", (*manager).dump},
	{"DumpUnitsMatchingPatterns", "as", "s", "patterns", "output", (*manager).dumpUnitsMatchingPatterns},
	{"DumpByFileDescriptor", "", "h", "", "fd", (*manager).dumpByFileDescriptor},
	{"DumpUnitsMatchingPatternsByFileDescriptor", "as", "h", "patterns", "fd", (*manager).dumpUnitsMatchingPatternsByFileDescriptor},
	{"Reload", "", "", "", "", (*manager).reload},
	{"Reexecute", "", "", "", "", (*manager).reexecute},
	{"Exit", "", "", "", "", (*manager).exit},
	{"Reboot", "", "", "", "", (*manager).reboot},
	{"SoftReboot", "s", "", "new_root", "", (*manager).softReboot},
	{"PowerOff", "", "", "", "", (*manager).powerOff},
	{"Halt", "", "", "", "", (*manager).halt},
	{"KExec", "", "", "", "", (*manager).kExec},
	{"SwitchRoot", "ss", "", "new_root,init", "", (*manager).switchRoot},
	{"SetEnvironment", "as", "", "assignments", "", (*manager).setEnvironment},
	{"UnsetEnvironment", "as", "", "names", "", (*manager).unsetEnvironment},
	{"UnsetAndSetEnvironment", "asas", "", "names,assignments", "", (*manager).unsetAndSetEnvironment},
	{"EnqueueMarkedJobs", "", "ao", "", "jobs", (*manager).enqueueMarkedJobs},
	{"ListUnitFiles", "", "a(ss)", "", "unit_files", (*manager).listUnitFiles},
	{"ListUnitFilesByPatterns", "asas", "a(ss)", "states,patterns", "unit_files", (*manager).listUnitFilesByPatterns},
	{"GetUnitFileState", "s", "s", "file", "state", (*manager).getUnitFileState},
	{"EnableUnitFiles", "asbb", "ba(sss)", "files,runtime,force", "carries_install_info,changes", (*manager).enableUnitFiles},
	{"DisableUnitFiles", "asb", "a(sss)", "files,runtime", "changes", (*manager).disableUnitFiles},
	{"EnableUnitFilesWithFlags", "ast", "ba(sss)", "files,flags", "carries_install_info,changes", (*manager).enableUnitFilesWithFlags},
	{"DisableUnitFilesWithFlags", "ast", "a(sss)", "files,flags", "changes", (*manager).disableUnitFilesWithFlags},
	{"DisableUnitFilesWithFlagsAndInstallInfo", "ast", "ba(sss)", "files,flags", "carries_install_info,changes", (*manager).disableUnitFilesWithFlagsAndInstallInfo},
	{"ReenableUnitFiles", "asbb", "ba(sss)", "files,runtime,force", "carries_install_info,changes", (*manager).reenableUnitFiles},
	{"LinkUnitFiles", "asbb", "a(sss)", "files,runtime,force", "changes", (*manager).linkUnitFiles},
	{"PresetUnitFiles", "asbb", "ba(sss)", "files,runtime,force", "carries_install_info,changes", (*manager).presetUnitFiles},
	{"PresetUnitFilesWithMode", "assbb", "ba(sss)", "files,mode,runtime,force", "carries_install_info,changes", (*manager).presetUnitFilesWithMode},
	{"MaskUnitFiles", "asbb", "a(sss)", "files,runtime,force", "changes", (*manager).maskUnitFiles},
	{"UnmaskUnitFiles", "asb", "a(sss)", "files,runtime", "changes", (*manager).unmaskUnitFiles},
	{"RevertUnitFiles", "as", "a(sss)", "files", "changes", (*manager).revertUnitFiles},
	{"SetDefaultTarget", "sb", "a(sss)", "name,force", "changes", (*manager).setDefaultTarget},
	{"GetDefaultTarget", "", "s", "", "name", (*manager).getDefaultTarget},
	{"PresetAllUnitFiles", "sbb", "a(sss)", "mode,runtime,force", "changes", (*manager).presetAllUnitFiles},
	{"AddDependencyUnitFiles", "asssbb", "a(sss)", "files,target,type,runtime,force", "changes", (*manager).addDependencyUnitFiles},
	{"GetUnitFileLinks", "sb", "as", "name,runtime", "links", (*manager).getUnitFileLinks},
	{"SetExitCode", "y", "", "number", "", (*manager).setExitCode},
	{"LookupDynamicUserByName", "s", "u", "name", "uid", (*manager).lookupDynamicUserByName},
	{"LookupDynamicUserByUID", "u", "s", "uid", "name", (*manager).lookupDynamicUserByUID},
	{"GetDynamicUsers", "", "a(us)", "", "users", (*manager).getDynamicUsers},
	{"DumpUnitFileDescriptorStore", "s", "a(suuutuusu)", "name", "entries", (*manager).dumpUnitFileDescriptorStore},
	{"StartAuxiliaryScope", "sahta(sv)", "o", "name,pidfds,flags,properties", "job", (*manager).startAuxiliaryScope},
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

// The handlers of the Manager's methods, one per method, in the table's
// order (systemd's method_* functions in dbus-manager.c). Each checks the
// arguments as systemd does, in its order, and calls the model; the
// dispatcher has checked the signature and that the played release has
// the method.

// Unit lookups.

func (m *manager) getUnit(c *call) ([]any, error) {
	name := c.Body[0].(string)
	if u := m.unitLocked(name); u != nil {
		return []any{u.path()}, nil
	}
	return nil, errNoSuchUnit(name)
}

func (m *manager) getUnitByPID(c *call) ([]any, error) {
	pid := c.Body[0].(uint32)
	if pid == 0 {
		pid = c.Peer.PID() // the caller's, from its bus credentials, as systemd's
	}
	if u := m.unitByPIDLocked(pid); u != nil {
		return []any{u.path()}, nil
	}
	return nil, &callErr{errPrefix + "NoUnitForPID", fmt.Sprintf("PID %d does not belong to any loaded unit.", pid)}
}

func (m *manager) getUnitByInvocationID(c *call) ([]any, error) {
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
}

func (m *manager) getUnitByControlGroup(c *call) ([]any, error) {
	cg := c.Body[0].(string)
	if u := m.unitByCgroupLocked(cg); u != nil {
		return []any{u.path()}, nil
	}
	return nil, &callErr{errPrefix + "NoSuchUnit", "Control group '" + cg + "' is not valid or not managed by this instance"}
}

// getUnitByPIDFD needs the pidfd, which no connection to the fake can
// pass.
func (m *manager) getUnitByPIDFD(*call) ([]any, error) { return nil, errNoFD() }

func (m *manager) loadUnit(c *call) ([]any, error) {
	name := c.Body[0].(string)
	if err := validName(name); err != nil {
		return nil, err
	}
	if u, fresh := m.loadForCallLocked(name); u != nil {
		if fresh {
			// systemd collects a unit loaded this way soon after, unless
			// it is needed; the fake once it has answered.
			defer m.collectLocked(u)
		}
		return []any{u.path()}, nil
	}
	// A unit without a file is "loaded" as not-found and collected later;
	// the fake collects it at once.
	return []any{sdbus.UnitPath(name)}, nil
}

// Jobs for units (transaction.go).

func (m *manager) startUnit(c *call) ([]any, error) { return m.unitJob(c, jobStart) }

// startUnitWithFlags checks the name, the mode, the flags, then is
// StartUnit.
func (m *manager) startUnitWithFlags(c *call) ([]any, error) {
	name, mode, flags := c.Body[0].(string), c.Body[1].(string), c.Body[2].(uint64)
	if err := validName(name); err != nil {
		return nil, err
	}
	if err := m.checkModeLocked(mode, jobStart); err != nil {
		return nil, err
	}
	// No release measured accepts any flag (systemd's public mask is
	// empty); with 0 the call is StartUnit.
	if flags != 0 {
		return nil, errInvalidArgs("Invalid 'flags' parameter '%d'", flags)
	}
	return nil, m.unitJobLocked(c.Call, name, mode, jobStart, pathReply)
}

func (m *manager) startUnitReplace(c *call) ([]any, error) {
	old := c.Body[0].(string)
	u, err := m.loadedLocked(old)
	if err != nil {
		return nil, err
	}
	if u.job == nil || u.job.typ != jobStart {
		return nil, &callErr{errPrefix + "NoSuchJob", "No job queued for unit " + old}
	}
	return nil, m.unitJobLocked(c.Call, c.Body[1].(string), c.Body[2].(string), jobStart, pathReply)
}

func (m *manager) stopUnit(c *call) ([]any, error)    { return m.unitJob(c, jobStop) }
func (m *manager) reloadUnit(c *call) ([]any, error)  { return m.unitJob(c, jobReload) }
func (m *manager) restartUnit(c *call) ([]any, error) { return m.unitJob(c, jobRestart) }
func (m *manager) tryRestartUnit(c *call) ([]any, error) {
	return m.unitJob(c, "try-restart")
}
func (m *manager) reloadOrRestartUnit(c *call) ([]any, error) {
	return m.unitJob(c, "reload-or-restart")
}
func (m *manager) reloadOrTryRestartUnit(c *call) ([]any, error) {
	return m.unitJob(c, "reload-or-try-restart")
}

// unitJob answers StartUnit and its siblings, (name, mode): the job's
// path, once the transaction is in (systemd's method_start_unit_generic).
func (m *manager) unitJob(c *call, typ jobType) ([]any, error) {
	return nil, m.unitJobLocked(c.Call, c.Body[0].(string), c.Body[1].(string), typ, pathReply)
}

func (m *manager) enqueueUnitJob(c *call) ([]any, error) {
	name, typ, mode := c.Body[0].(string), c.Body[1].(string), c.Body[2].(string)
	t, known := enqueueJobTypes[typ]
	if !known {
		return nil, errInvalidArgs("Invalid job type: %s", typ)
	}
	return nil, m.unitJobLocked(c.Call, name, mode, t, enqueueReply)
}

func (m *manager) enqueueUnitJobMany(c *call) ([]any, error) {
	return nil, m.enqueueManyLocked(c.Call, c.Body[0].([]string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(uint64))
}

// Signals to a unit's processes (kill.go).

func (m *manager) killUnit(c *call) ([]any, error) {
	return m.killLocked(c.Call, c.Body[0].(string), c.Body[1].(string), c.Body[2].(int32), false)
}

func (m *manager) killUnitSubgroup(c *call) ([]any, error) {
	return m.killSubgroupLocked(c.Call, c.Body[0].(string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(int32))
}

func (m *manager) queueSignalUnit(c *call) ([]any, error) {
	return m.killLocked(c.Call, c.Body[0].(string), c.Body[1].(string), c.Body[2].(int32), true)
}

// A unit's state and settings (unit.go, settings.go).

func (m *manager) cleanUnit(c *call) ([]any, error) {
	return m.cleanLocked(c.Call, c.Body[0].(string), c.Body[1].([]string))
}

func (m *manager) freezeUnit(c *call) ([]any, error) {
	return m.freezeLocked(c.Call, c.Body[0].(string), true)
}

func (m *manager) thawUnit(c *call) ([]any, error) {
	return m.freezeLocked(c.Call, c.Body[0].(string), false)
}

func (m *manager) resetFailedUnit(c *call) ([]any, error) {
	name := c.Body[0].(string)
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	if err := m.authorizeLocked(c.Call); err != nil {
		return nil, err
	}
	m.resetFailedLocked(u)
	return []any{}, nil
}

func (m *manager) setUnitProperties(c *call) ([]any, error) {
	if err := m.setUnitPropertiesLocked(c.Body[0].(string), c.Body[1].(bool), c.Body[2], func() error { return m.authorizeLocked(c.Call) }); err != nil {
		return nil, err
	}
	return []any{}, nil
}

// bindMountUnit and mountImageUnit answer as systemd answers for a unit
// without a mount namespace of its own (service.go).
func (m *manager) bindMountUnit(c *call) ([]any, error) {
	return m.liveMountLocked(c.Call, "BindMountUnit", c.Body[0].(string), c.Body[1].(string), c.Body[2].(string))
}

func (m *manager) mountImageUnit(c *call) ([]any, error) {
	return m.liveMountLocked(c.Call, "MountImageUnit", c.Body[0].(string), c.Body[1].(string), c.Body[2].(string))
}

func (m *manager) refUnit(c *call) ([]any, error) {
	u, err := m.loadedLocked(c.Body[0].(string))
	if err != nil {
		return nil, err
	}
	if u.refs == nil {
		u.refs = map[*busd.Peer]int{}
	}
	u.refs[c.Peer]++
	return []any{}, nil
}

func (m *manager) unrefUnit(c *call) ([]any, error) {
	u, err := m.loadedLocked(c.Body[0].(string))
	if err != nil {
		return nil, err
	}
	if u.refs[c.Peer] == 0 {
		return nil, &callErr{errPrefix + "NotReferenced", "Unit has not been referenced yet."}
	}
	if u.refs[c.Peer]--; u.refs[c.Peer] == 0 {
		delete(u.refs, c.Peer)
	}
	m.collectLocked(u)
	return []any{}, nil
}

func (m *manager) startTransientUnit(c *call) ([]any, error) {
	name, mode := c.Body[0].(string), c.Body[1].(string)
	var aux []auxUnit
	if err := dbus.Store([]any{c.Body[3]}, &aux); err != nil {
		return nil, errInvalidArgs("Invalid auxiliary units: %v", err)
	}
	u, err := m.makeTransientLocked(c.Peer, name, mode, c.Body[2], aux)
	if err != nil {
		return nil, err
	}
	err = m.queueAndReplyLocked(c.Call, u, jobStart, sdbus.JobMode(mode), pathReply)
	// An auxiliary unit nothing refers to once the job is queued (a
	// timer whose drop-in names another unit in Unit=) is collected, as
	// systemd's collection of unreferenced units does (measured on 252
	// by the differential tester, 252 seed 251610 of a long run).
	for _, a := range aux {
		if au := m.units[a.Name]; au != nil && au != u {
			m.collectLocked(au)
		}
	}
	return nil, err
}

// A unit's processes and control group (cgroup.go).

func (m *manager) getUnitProcesses(c *call) ([]any, error) {
	u, err := m.loadedLocked(c.Body[0].(string))
	if err != nil {
		return nil, err
	}
	return []any{m.processesLocked(u)}, nil
}

func (m *manager) attachProcessesToUnit(c *call) ([]any, error) {
	return m.attachLocked(c.Call, c.Body[0].(string), c.Body[1].(string), c.Body[2].([]uint32))
}

func (m *manager) removeSubgroupFromUnit(c *call) ([]any, error) {
	return m.removeSubgroupLocked(c.Call, c.Body[0].(string), c.Body[1].(string), c.Body[2].(uint64))
}

func (m *manager) abandonScope(c *call) ([]any, error) {
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
}

// Jobs (job.go).

func (m *manager) getJob(c *call) ([]any, error) {
	id := c.Body[0].(uint32)
	if _, ok := m.jobs[id]; !ok {
		return nil, noSuchJob(id)
	}
	return []any{jobPath(id)}, nil
}

// getJobAfter answers the jobs that run after the job: those waiting for
// it by order (ordering.go) or otherwise.
func (m *manager) getJobAfter(c *call) ([]any, error) {
	id := c.Body[0].(uint32)
	j, ok := m.jobs[id]
	if !ok {
		return nil, noSuchJob(id)
	}
	after := m.orderedJobsLocked(j, false)
	for _, d := range j.dependents {
		if d.waits[j] {
			after = append(after, d)
		}
	}
	return []any{jobRows(after)}, nil
}

// getJobBefore answers the jobs the job waits for, by order (ordering.go)
// or otherwise.
func (m *manager) getJobBefore(c *call) ([]any, error) {
	id := c.Body[0].(uint32)
	j, ok := m.jobs[id]
	if !ok {
		return nil, noSuchJob(id)
	}
	rel := m.orderedJobsLocked(j, true)
	for w := range j.waits {
		rel = append(rel, w)
	}
	return []any{jobRows(rel)}, nil
}

// jobRows are the unfinished jobs of rel, each once, by ID.
func jobRows(rel []*job) []jobRow {
	rows := []jobRow{}
	seen := map[*job]bool{}
	for _, o := range rel {
		if !o.finished && !seen[o] {
			seen[o] = true
			rows = append(rows, jobRow{o.id, o.unit.name, string(o.typ), o.state, o.path(), o.unit.path()})
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].ID < rows[b].ID })
	return rows
}

// cancelJob finds the job, then asks polkit (measured on 247-262: a job
// that does not exist is NoSuchJob for anyone).
func (m *manager) cancelJob(c *call) ([]any, error) {
	id := c.Body[0].(uint32)
	if _, ok := m.jobs[id]; !ok {
		return nil, noSuchJob(id)
	}
	if err := m.authorizeLocked(c.Call); err != nil {
		return nil, err
	}
	return m.cancelJobLocked(id)
}

func (m *manager) clearJobs(*call) ([]any, error) {
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
}

func (m *manager) resetFailed(*call) ([]any, error) {
	for _, u := range m.sortedUnitsLocked() {
		m.resetFailedLocked(u)
	}
	return []any{}, nil
}

// setShowStatus checks the mode and has no effect.
func (m *manager) setShowStatus(c *call) ([]any, error) {
	if mode := c.Body[0].(string); mode != "" && !showStatusValue(mode) {
		return nil, errInvalidArgs("Invalid show status '%s'", mode)
	}
	return []any{}, nil
}

// Lists.

func (m *manager) listUnits(*call) ([]any, error) { return []any{m.listLocked(nil, nil, nil)}, nil }

func (m *manager) listUnitsFiltered(c *call) ([]any, error) {
	return []any{m.listLocked(c.Body[0].([]string), nil, nil)}, nil
}

func (m *manager) listUnitsByPatterns(c *call) ([]any, error) {
	return []any{m.listLocked(c.Body[0].([]string), c.Body[1].([]string), nil)}, nil
}

func (m *manager) listUnitsByNames(c *call) ([]any, error) {
	return []any{m.listLocked(nil, nil, c.Body[0].([]string))}, nil
}

func (m *manager) listJobs(*call) ([]any, error) {
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
}

// Subscriptions (dbus.go says who receives which signal).

func (m *manager) subscribe(c *call) ([]any, error) {
	if c.Peer.Mode() == busd.BusMode {
		if m.subscribed[c.Peer] {
			return nil, &callErr{errPrefix + "AlreadySubscribed", "Client is already subscribed."}
		}
		m.subscribed[c.Peer] = true
	}
	return []any{}, nil
}

func (m *manager) unsubscribe(c *call) ([]any, error) {
	if c.Peer.Mode() == busd.BusMode {
		if !m.subscribed[c.Peer] {
			return nil, &callErr{errPrefix + "NotSubscribed", "Client is not subscribed."}
		}
		delete(m.subscribed, c.Peer)
	}
	return []any{}, nil
}

// Dumps (dump.go).

func (m *manager) dump(*call) ([]any, error) { return []any{m.dumpLocked(nil)}, nil }

func (m *manager) dumpUnitsMatchingPatterns(c *call) ([]any, error) {
	return []any{m.dumpLocked(c.Body[0].([]string))}, nil
}

// dumpByFileDescriptor replies with what Dump answers in a file
// descriptor (type h): a sealed memfd, or /dev/null for nothing, as
// systemd's acquire_data_fd (dataFD). A connection that did not negotiate
// unix fds gets no reply: systemd's reply to it never arrives, as
// dbus-daemon refuses to forward it and sd-bus on the private socket
// cannot build it (measured on 247, 252 and 262: the client's timeout
// ends the call).
func (m *manager) dumpByFileDescriptor(c *call) ([]any, error) {
	out, err := m.dump(c)
	if err != nil {
		return nil, err
	}
	return replyDataFD(c, out[0].(string))
}

// dumpUnitsMatchingPatternsByFileDescriptor is DumpUnitsMatchingPatterns
// in a file descriptor, as dumpByFileDescriptor.
func (m *manager) dumpUnitsMatchingPatternsByFileDescriptor(c *call) ([]any, error) {
	out, err := m.dumpUnitsMatchingPatterns(c)
	if err != nil {
		return nil, err
	}
	return replyDataFD(c, out[0].(string))
}

// replyDataFD replies with a file descriptor holding data (dataFD), to a
// client that takes file descriptors; to any other, not at all.
func replyDataFD(c *call, data string) ([]any, error) {
	if !c.Peer.UnixFDs() {
		return nil, nil
	}
	f, err := dataFD(data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c.Reply(dbus.UnixFD(f.Fd()))
	return nil, nil
}

// The manager's life (manager.go, reexec.go).

// reload replies once the reload is done.
func (m *manager) reload(c *call) ([]any, error) {
	m.reloadLocked(c.Call)
	return nil, nil
}

// reexecute never replies (NoReply).
func (m *manager) reexecute(*call) ([]any, error) {
	m.reexecLocked(Reexec{})
	return nil, nil
}

// The power methods end or replace the manager. sd-bus refuses methods
// without SD_BUS_VTABLE_UNPRIVILEGED to callers that are not root; the
// fake never plays root here.

func (m *manager) exit(*call) ([]any, error)       { return nil, errNotRoot() }
func (m *manager) reboot(*call) ([]any, error)     { return nil, errNotRoot() }
func (m *manager) softReboot(*call) ([]any, error) { return nil, errNotRoot() }
func (m *manager) powerOff(*call) ([]any, error)   { return nil, errNotRoot() }
func (m *manager) halt(*call) ([]any, error)       { return nil, errNotRoot() }
func (m *manager) kExec(*call) ([]any, error)      { return nil, errNotRoot() }
func (m *manager) switchRoot(*call) ([]any, error) { return nil, errNotRoot() }

// The manager's environment (manager.go).

func (m *manager) setEnvironment(c *call) ([]any, error) {
	return m.setEnvironmentLocked(c.Call, nil, c.Body[0].([]string))
}

func (m *manager) unsetEnvironment(c *call) ([]any, error) {
	return m.setEnvironmentLocked(c.Call, c.Body[0].([]string), nil)
}

func (m *manager) unsetAndSetEnvironment(c *call) ([]any, error) {
	return m.setEnvironmentLocked(c.Call, c.Body[0].([]string), c.Body[1].([]string))
}

// setEnvironmentLocked checks the assignments set, then the names unset,
// then unsets and sets.
func (m *manager) setEnvironmentLocked(c *busd.Call, unset, set []string) ([]any, error) {
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
	// polkit after the checks (measured on 257 and 262).
	if err := m.authorizeLocked(c); err != nil {
		return nil, err
	}
	m.environment = setEnv(unsetEnv(m.environment, unset), set)
	return []any{}, nil
}

// enqueueMarkedJobs enqueues nothing: the fake has no Markers=, so no
// unit is ever marked.
func (m *manager) enqueueMarkedJobs(*call) ([]any, error) {
	return []any{[]dbus.ObjectPath{}}, nil
}

// setExitCode is accepted without effect.
func (m *manager) setExitCode(*call) ([]any, error) { return []any{}, nil }

// Dynamic users (dynamicusers.go): the fake has none.

func (m *manager) lookupDynamicUserByName(c *call) ([]any, error) {
	name := c.Body[0].(string)
	if !relaxedUserName(name) {
		return nil, errInvalidArgs("User name invalid: %s", name)
	}
	return nil, &callErr{errPrefix + "NoSuchDynamicUser", "Dynamic user " + name + " does not exist."}
}

func (m *manager) lookupDynamicUserByUID(c *call) ([]any, error) {
	uid := c.Body[0].(uint32)
	if uid == 0xffffffff || uid == 0xffff { // systemd's uid_is_valid
		return nil, errInvalidArgs("User ID invalid: %d", uid)
	}
	return nil, &callErr{errPrefix + "NoSuchDynamicUser", "Dynamic user ID " + strconv.FormatUint(uint64(uid), 10) + " does not exist."}
}

func (m *manager) getDynamicUsers(*call) ([]any, error) { return []any{[]dynamicUser{}}, nil }

// dumpUnitFileDescriptorStore: the fake's services have no file
// descriptor store.
func (m *manager) dumpUnitFileDescriptorStore(c *call) ([]any, error) {
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

// startAuxiliaryScope checks a plain unit name (no template or instance),
// a scope, then the processes, none of which a connection to the fake can
// pass; from 258 it answers that it has been removed.
func (m *manager) startAuxiliaryScope(c *call) ([]any, error) {
	if sdversions.Behaves(m.release, sdversions.AuxiliaryScopeRemoved) {
		return nil, &callErr{dbusErr + "NotSupported", "StartAuxiliaryScope() method has been removed."}
	}
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
		if len(states) > 0 && !slices.Contains(states, u.active) && !slices.Contains(states, u.load) && !slices.Contains(states, u.sub) {
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
		"Virtualization":  dbus.MakeVariant(virt),
		"Architecture":    dbus.MakeVariant(goarchToSystemd(runtime.GOARCH)),
		"Tainted":         dbus.MakeVariant(""),
		"ControlGroup":    dbus.MakeVariant(m.cgroupBase()),
		"SystemState":     dbus.MakeVariant(m.managerStateLocked()),
		"NNames":          dbus.MakeVariant(uint32(len(m.units))),
		"NFailedUnits":    dbus.MakeVariant(m.nFailedLocked()),
		"NJobs":           dbus.MakeVariant(uint32(len(m.jobs))),
		"DefaultTasksMax": dbus.MakeVariant(m.defaultTasksMax),
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

// enqueueManyLocked is EnqueueUnitJobMany: the list, the flags, the job
// type, the mode, then each unit checked (all before any job is queued);
// one job of one type for each
// unit, all checked before any is queued, answered with the jobs of the
// named units (a unit named twice has one). The jobs' scripts may set
// their results; reply faults (a delay, JobRemoved first) apply to the
// single-job methods only.
func (m *manager) enqueueManyLocked(c *busd.Call, names []string, typ, mode string, flags uint64) error {
	if len(names) == 0 {
		return errInvalidArgs("No units specified.")
	}
	if flags != 0 {
		return errInvalidArgs("Invalid flags parameter, must be 0.")
	}
	t, known := enqueueJobTypes[typ]
	if !known {
		return errInvalidArgs("Job type %s invalid", typ)
	}
	type planned struct {
		u   *unit
		typ jobType
	}
	var plan []planned
	for _, name := range names {
		u, jt, err := m.checkUnitJobLocked(c, name, mode, t)
		if err != nil {
			return err
		}
		plan = append(plan, planned{u, jt})
	}
	rows := []affectedJob{}
	var fresh []*job
	seen := map[*job]bool{}
	for _, p := range plan {
		j, merged, err := m.installLocked(p.u, p.typ, sdbus.JobMode(mode), c.Peer)
		if err != nil {
			return err
		}
		if !merged {
			j.caller = c.Peer
			fresh = append(fresh, j)
		}
		if !seen[j] {
			seen[j] = true
			rows = append(rows, affectedJob{j.id, j.path(), j.unit.name, j.unit.path(), string(j.typ)})
		}
	}
	c.Reply(rows)
	for _, j := range fresh {
		m.repliedLocked(j)
	}
	for _, j := range fresh {
		m.maybeRunLocked(j)
	}
	return nil
}

// reloadLocked models daemon-reload: Reloading(true), JobRemoved held back
// while the reload lasts, the reply, Reloading(false), then the held
// signals, then the calls received meanwhile: systemd reads no message
// while it reloads, so none is answered before the reload is over (a
// ListJobs, say, never lists a job without its JobRemoved having gone
// out first when it ended).
func (m *manager) reloadLocked(c *busd.Call) {
	m.reloading = true
	m.reloadUnitsLocked()
	reloading := func(active bool) {
		m.signalLocked(managerPath, managerIface, "Reloading", func() []any { return []any{active} })
	}
	reloading(true)
	m.reloads++
	this := m.reloads
	finish := func() {
		if !m.reloading || m.reloads != this {
			return // ended already (a daemon-reexec came first)
		}
		m.reloadEnd = nil
		c.Reply()
		m.reloading = false
		reloading(false)
		held := m.held
		m.held = nil
		for _, s := range held {
			m.emitJobRemovedLocked(s)
		}
		calls := m.reloadCalls
		m.reloadCalls = nil
		for _, w := range calls {
			m.answer(w)
		}
		m.catchupLocked()
	}
	m.reloadEnd = finish
	if m.reloadFor > 0 {
		m.afterLocked(m.reloadFor, finish)
		return
	}
	finish()
}
