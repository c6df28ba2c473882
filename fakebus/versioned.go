package fakebus

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// The Manager methods that only some releases have (sdversions.Methods),
// with the checks, their order and the errors measured on systemd 252,
// 257 and 262. The dispatcher has answered UnknownMethod where the
// release lacks the method. What the fake cannot carry out (mount
// namespaces, file descriptors, a soft reboot) it answers as a
// containerized or unprivileged systemd does; see the package doc.

// versionedCallLocked answers the methods of this file; ok is false for
// other members.
func (m *manager) versionedCallLocked(c *busd.Call) (out []any, ok bool, err error) {
	switch c.Member {
	case "StartUnitWithFlags":
		// The name, the mode, the flags, then StartUnit's checks.
		if err := args(c, "sst"); err != nil {
			return nil, true, err
		}
		name, mode, flags := c.Body[0].(string), c.Body[1].(string), c.Body[2].(uint64)
		if err := validName(name); err != nil {
			return nil, true, err
		}
		if err := m.checkModeLocked(mode, jobStart); err != nil {
			return nil, true, err
		}
		// No release measured accepts any flag (systemd's public mask
		// is empty); with 0 the call is StartUnit.
		if flags != 0 {
			return nil, true, errInvalidArgs("Invalid 'flags' parameter '%d'", flags)
		}
		return nil, true, m.unitJobLocked(c, name, mode, jobStart, pathReply)
	case "EnqueueMarkedJobs":
		if err := args(c, ""); err != nil {
			return nil, true, err
		}
		// The fake has no Markers=: no unit is ever marked.
		return []any{[]dbus.ObjectPath{}}, true, nil
	case "BindMountUnit", "MountImageUnit":
		sig := "sssbb"
		if c.Member == "MountImageUnit" {
			sig = "sssbba(ss)"
		}
		if err := args(c, sig); err != nil {
			return nil, true, err
		}
		out, err := m.liveMountLocked(c.Member, c.Body[0].(string), c.Body[1].(string), c.Body[2].(string))
		return out, true, err
	case "GetUnitByPIDFD":
		if err := args(c, "h"); err != nil {
			return nil, true, err
		}
		return nil, true, errNoFD()
	case "QueueSignalUnit":
		if err := args(c, "ssii"); err != nil {
			return nil, true, err
		}
		out, err := m.killLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(int32), true)
		return out, true, err
	case "StartAuxiliaryScope":
		if err := args(c, "sahta(sv)"); err != nil {
			return nil, true, err
		}
		// A plain unit name (no template or instance), a scope, then
		// the processes.
		name := c.Body[0].(string)
		switch {
		case sdbus.ValidateUnitName(name) != nil || strings.Contains(name, "@"):
			return nil, true, errInvalidArgs("Invalid name \"%s\" for auxiliary scope.", name)
		case !strings.HasSuffix(name, ".scope"):
			return nil, true, errInvalidArgs("Name \"%s\" of auxiliary scope doesn't have .scope suffix.", name)
		case fdCount(c.Body[1]) > 0:
			return nil, true, errNoFD()
		}
		return nil, true, errInvalidArgs("No processes can be migrated to auxiliary scope.")
	case "EnqueueUnitJobMany":
		if err := args(c, "assst"); err != nil {
			return nil, true, err
		}
		return nil, true, m.enqueueManyLocked(c, c.Body[0].([]string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(uint64))
	case "KillUnitSubgroup":
		if err := args(c, "sssi"); err != nil {
			return nil, true, err
		}
		out, err := m.killSubgroupLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(int32))
		return out, true, err
	case "RemoveSubgroupFromUnit":
		if err := args(c, "sst"); err != nil {
			return nil, true, err
		}
		out, err := m.removeSubgroupLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(uint64))
		return out, true, err
	}
	return nil, false, nil
}

// errNoFD is systemd's answer to a call whose unix fd argument did not
// come with it: sd-bus fails to read the message (EBADMSG). Every
// connection to the fake is one that cannot pass file descriptors.
func errNoFD() *callErr { return &callErr{dbusErr + "InconsistentMessage", "Bad message"} }

// fdCount is the number of file descriptors an "ah" argument names.
func fdCount(v any) int {
	switch v := v.(type) {
	case []dbus.UnixFDIndex:
		return len(v)
	case []dbus.UnixFD:
		return len(v)
	}
	return 0
}

// liveMountLocked is BindMountUnit and MountImageUnit: the fake runs no
// service in a mount namespace of its own, so each answers, after its
// checks, that the unit is not running in one.
func (m *manager) liveMountLocked(method, name, src, dst string) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	if sdversions.Behaves(m.release, sdversions.LiveMountChecks) {
		if u.kind != "service" {
			return nil, &callErr{dbusErr + "NotSupported", method + " operation is not supported for unit type '" + u.kind + "'"}
		}
		return nil, errInvalidArgs("Unit '%s' not running in private mount namespace, cannot live mount.", name)
	}
	switch {
	case !strings.HasPrefix(src, "/") || !normalizedPath(src):
		return nil, errInvalidArgs("Source path must be absolute and normalized.")
	case !strings.HasPrefix(dst, "/") || !normalizedPath(dst):
		return nil, errInvalidArgs("Destination path must be absolute and normalized.")
	case u.kind != "service":
		return nil, errInvalidArgs("Unit is not of type .service")
	}
	return nil, errInvalidArgs("Unit not running in private mount namespace, cannot activate bind mount")
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
		u, jt, err := m.checkUnitJobLocked(name, mode, t)
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

// killSubgroupLocked is KillUnitSubgroup. The fake keeps no processes in
// sub-cgroups: a signal to one reaches nothing, one to the unit's own
// cgroup ("" or "/") is KillUnit's to all of its processes.
func (m *manager) killSubgroupLocked(name, whom, sub string, sig int32) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	w, err := m.killWhom(whom)
	if err != nil {
		return nil, err
	}
	if whom != "" && whom != "cgroup" && whom != "cgroup-fail" {
		return nil, errInvalidArgs("Subgroup can only be specified in combination with 'cgroup' or 'cgroup-fail'.")
	}
	if sub != "" && !normalizedPath("/"+strings.TrimPrefix(sub, "/")) {
		return nil, errInvalidArgs("Specified cgroup sub-path is not valid.")
	}
	if !u.delegated() {
		return nil, &callErr{dbusErr + "NotSupported", "Killing by subgroup is only available for units with control group delegation enabled."}
	}
	if sig <= 0 || sig >= 65 {
		return nil, errInvalidArgs("Signal number out of range.")
	}
	if strings.Trim(sub, "/") == "" {
		return m.signalProcessesLocked(u, w, sig)
	}
	if w == "all-fail" {
		return nil, &callErr{errPrefix + "NoSuchProcess", "No matching processes to kill"}
	}
	return []any{}, nil
}

// removeSubgroupLocked is RemoveSubgroupFromUnit: it forgets the
// sub-cgroup (and those below it) and removes its directory below
// WithCgroupRoot's; a sub-cgroup that does not exist is no error.
func (m *manager) removeSubgroupLocked(name, sub string, flags uint64) ([]any, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	u := m.loadLocked(name)
	if u == nil {
		return nil, errNotFound(name)
	}
	switch {
	case flags != 0:
		return nil, errInvalidArgs("Invalid 'flags' parameter '%d'", flags)
	case !u.delegated():
		return nil, errInvalidArgs("Subcgroup removal not available on non-delegated units.")
	case !strings.HasPrefix(sub, "/"):
		return nil, errInvalidArgs("Control group path is not absolute: %s", sub)
	case !normalizedPath(sub):
		return nil, errInvalidArgs("Control group path is not normalized: %s", sub)
	case !u.isActive() && u.active != "activating" && u.active != "deactivating":
		// Its control group is gone.
		return nil, &callErr{"System.Error.EOWNERDEAD", "Failed to remove subgroup " + sub + ": Owner died"}
	}
	p := strings.TrimSuffix(sub, "/")
	for s := range u.subcgroups {
		if p == "" || s == p || strings.HasPrefix(s, p+"/") {
			delete(u.subcgroups, s)
		}
	}
	if m.cgroupRoot != "" && p != "" {
		_ = os.RemoveAll(filepath.Join(m.cgroupRoot, filepath.FromSlash(strings.TrimPrefix(u.cgroup(), "/")), filepath.FromSlash(p)))
	}
	return []any{}, nil
}
