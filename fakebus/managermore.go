package fakebus

import (
	"encoding/hex"
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// More Manager methods of systemd 252, with its checks and errors
// (src/core/dbus-manager.c): unit lookups, references, jobs, the
// manager's environment, and the power methods, which the fake
// answers as systemd answers a caller that is not root.

// powerMethods are the Manager methods that end or replace the manager.
var powerMethods = map[string]string{
	"Reboot": "", "PowerOff": "", "Halt": "", "KExec": "", "Exit": "", "SwitchRoot": "ss", "SoftReboot": "s",
}

// moreCallLocked answers the methods of this file; ok is false for other
// members.
func (m *manager) moreCallLocked(c *busd.Call) (out []any, ok bool, err error) {
	if sig, power := powerMethods[c.Member]; power {
		if err := args(c, sig); err != nil {
			return nil, true, err
		}
		// sd-bus refuses methods without SD_BUS_VTABLE_UNPRIVILEGED to
		// callers that are not root; the fake never plays root here.
		return nil, true, &callErr{dbusErr + "AccessDenied", "Access denied"}
	}
	switch c.Member {
	case "GetUnitByInvocationID":
		if err := args(c, "ay"); err != nil {
			return nil, true, err
		}
		id := c.Body[0].([]byte)
		if len(id) != 16 {
			return nil, true, errInvalidArgs("Invalid invocation ID")
		}
		for _, u := range m.sortedUnitsLocked() {
			if u.invocation != nil && string(u.invocation) == string(id) {
				return []any{invocationPath(u.invocation)}, true, nil
			}
		}
		return nil, true, &callErr{errPrefix + "NoUnitForInvocationID",
			"No unit with the specified invocation ID " + hex.EncodeToString(id) + " known."}
	case "GetUnitByControlGroup":
		if err := args(c, "s"); err != nil {
			return nil, true, err
		}
		cg := c.Body[0].(string)
		if u := m.unitByCgroupLocked(cg); u != nil {
			return []any{u.path()}, true, nil
		}
		return nil, true, &callErr{errPrefix + "NoSuchUnit", "Control group '" + cg + "' is not valid or not managed by this instance"}
	case "GetUnitProcesses":
		if err := args(c, "s"); err != nil {
			return nil, true, err
		}
		u, err := m.loadedLocked(c.Body[0].(string))
		if err != nil {
			return nil, true, err
		}
		return []any{m.processesLocked(u)}, true, nil
	case "RefUnit", "UnrefUnit":
		if err := args(c, "s"); err != nil {
			return nil, true, err
		}
		u, err := m.loadedLocked(c.Body[0].(string))
		if err != nil {
			return nil, true, err
		}
		if c.Member == "RefUnit" {
			if u.refs == nil {
				u.refs = map[*busd.Peer]int{}
			}
			u.refs[c.Peer]++
			return []any{}, true, nil
		}
		if u.refs[c.Peer] == 0 {
			return nil, true, &callErr{errPrefix + "NotReferenced", "Unit has not been referenced yet."}
		}
		if u.refs[c.Peer]--; u.refs[c.Peer] == 0 {
			delete(u.refs, c.Peer)
		}
		m.collectLocked(u)
		return []any{}, true, nil
	case "ClearJobs":
		if err := args(c, ""); err != nil {
			return nil, true, err
		}
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
		return []any{}, true, nil
	case "GetJobAfter", "GetJobBefore":
		if err := args(c, "u"); err != nil {
			return nil, true, err
		}
		id := c.Body[0].(uint32)
		j, ok := m.jobs[id]
		if !ok {
			return nil, true, noSuchJob(id)
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
		return []any{rows}, true, nil
	case "StartUnitReplace":
		if err := args(c, "sss"); err != nil {
			return nil, true, err
		}
		old := c.Body[0].(string)
		u, err := m.loadedLocked(old)
		if err != nil {
			return nil, true, err
		}
		if u.job == nil || u.job.typ != jobStart {
			return nil, true, &callErr{errPrefix + "NoSuchJob", "No job queued for unit " + old}
		}
		return nil, true, m.unitJobLocked(c, c.Body[1].(string), c.Body[2].(string), jobStart, pathReply)
	case "AbandonScope":
		if err := args(c, "s"); err != nil {
			return nil, true, err
		}
		name := c.Body[0].(string)
		u, err := m.loadedLocked(name)
		if err != nil {
			return nil, true, err
		}
		if u.kind != "scope" {
			return nil, true, errInvalidArgs("Unit '%s' is not a scope unit, refusing.", name)
		}
		if u.active != "active" || u.sub != "running" {
			return nil, true, &callErr{errPrefix + "ScopeNotRunning", "Scope " + name + " is not running, cannot abandon."}
		}
		m.setStateLocked(u, "active", "abandoned")
		return []any{}, true, nil
	case "SetEnvironment", "UnsetEnvironment", "UnsetAndSetEnvironment":
		sig := map[string]string{"SetEnvironment": "as", "UnsetEnvironment": "as", "UnsetAndSetEnvironment": "asas"}[c.Member]
		if err := args(c, sig); err != nil {
			return nil, true, err
		}
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
				return nil, true, errInvalidArgs("Invalid environment assignments")
			}
		}
		for _, n := range unset {
			k, _, _ := strings.Cut(n, "=")
			if !envName(k) {
				return nil, true, errInvalidArgs("Invalid environment variable names or assignments")
			}
		}
		m.environment = setEnv(unsetEnv(m.environment, unset), set)
		return []any{}, true, nil
	case "EnableUnitFilesWithFlags", "DisableUnitFilesWithFlags":
		// The flags of systemd's public mask: runtime (1), force (2),
		// portable (4, which the fake has no portable images for).
		if err := args(c, "ast"); err != nil {
			return nil, true, err
		}
		flags := c.Body[1].(uint64)
		if flags&^7 != 0 {
			return nil, true, errInvalidArgs("Invalid 'flags' parameter '%d'", flags)
		}
		runtime, force := flags&1 != 0, flags&2 != 0
		if c.Member == "EnableUnitFilesWithFlags" {
			out, _, err := m.unitFileCallLocked("EnableUnitFiles", []any{c.Body[0], runtime, force}, "asbb")
			return out, true, err
		}
		out, _, err := m.unitFileCallLocked("DisableUnitFiles", []any{c.Body[0], runtime}, "asb")
		return out, true, err
	}
	return nil, false, nil
}

// invocationPath is the object path of a unit by its invocation ID, the
// one GetUnitByInvocationID answers (systemd's
// unit_dbus_path_invocation_id): the ID's hex digits, bus-escaped.
func invocationPath(id []byte) dbus.ObjectPath {
	return sdbus.UnitPath(hex.EncodeToString(id))
}

// unitByInvocationPathLocked returns the loaded unit whose invocation path
// p is, or nil.
func (m *manager) unitByInvocationPathLocked(p dbus.ObjectPath) *unit {
	prefix := string(sdbus.UnitPath(""))
	prefix = prefix[:len(prefix)-1] // without the escaped empty name
	if !strings.HasPrefix(string(p), prefix) {
		return nil
	}
	name := strings.TrimPrefix(string(p), prefix)
	if len(name) == 34 && strings.HasPrefix(name, "_3") {
		name = name[2:] // a leading digit, escaped
	}
	if len(name) != 32 {
		return nil
	}
	id, err := hex.DecodeString(name)
	if err != nil {
		return nil
	}
	for _, u := range m.units {
		if u.invocation != nil && string(u.invocation) == string(id) {
			return u
		}
	}
	return nil
}

// loadedLocked returns the loaded unit name, or systemd's error for a
// unit that is not loaded.
func (m *manager) loadedLocked(name string) (*unit, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	if u := m.unitLocked(name); u != nil {
		return u, nil
	}
	return nil, errNoSuchUnit(name)
}

// unitByCgroupLocked returns the unit whose control group is cg, or the
// closest one above it below the root, as systemd's
// manager_get_unit_by_cgroup; nil when none contains it.
func (m *manager) unitByCgroupLocked(cg string) *unit {
	byCgroup := map[string]*unit{}
	for _, u := range m.units {
		if u.isActive() || u.active == "activating" || u.active == "deactivating" {
			if p := u.cgroup(); p != "" && p != "/" {
				byCgroup[p] = u
			}
		}
	}
	for p := cg; ; {
		if u := byCgroup[p]; u != nil {
			return u
		}
		i := strings.LastIndexByte(p, '/')
		if i <= 0 {
			if cg == "/" {
				return m.units["-.slice"]
			}
			return nil
		}
		p = p[:i]
	}
}

// process is one element of GetUnitProcesses, (sus).
type processRow struct {
	Cgroup  string
	PID     uint32
	Cmdline string
}

// processesLocked lists the processes the fake knows in u: its main
// process (with its ExecStart= command line) and the PIDs it recorded.
func (m *manager) processesLocked(u *unit) []processRow {
	rows := []processRow{}
	if u.proc != nil {
		cmd := ""
		if v, ok := u.props["ExecStart"]; ok {
			var cmds []execCommand
			if dbus.Store([]any{v.Value()}, &cmds) == nil && len(cmds) > 0 {
				cmd = strings.Join(cmds[0].Argv, " ")
			}
		}
		rows = append(rows, processRow{u.cgroup(), u.proc.pid, cmd})
	}
	for _, p := range u.pids {
		rows = append(rows, processRow{u.cgroup(), p, ""})
	}
	return rows
}

// envName reports whether s is a valid environment variable name.
func envName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func unsetEnv(env, names []string) []string {
	out := env[:0:0]
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		drop := false
		for _, n := range names {
			if n == k || n == e {
				drop = true
			}
		}
		if !drop {
			out = append(out, e)
		}
	}
	return out
}

func setEnv(env, assignments []string) []string {
	for _, a := range assignments {
		k, _, _ := strings.Cut(a, "=")
		env = unsetEnv(env, []string{k})
		env = append(env, a)
	}
	sort.Strings(env)
	return env
}
