package fakebus

import (
	"fmt"
	"strings"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// attachLocked is Manager.AttachProcessesToUnit, with systemd's checks in
// systemd's order (method_attach_processes_to_unit and
// bus_unit_method_attach_processes in src/core/dbus-manager.c and
// dbus-unit.c): the unit must be loaded (it is not loaded for this), the
// sub-cgroup absolute and normalized, the unit delegated (Delegate= or
// DelegateControllers=, services and scopes only) and not inactive or
// failed, a sub-cgroup created (MakeSubcgroup, or a directory below
// WithCgroupRoot's); PID 0 is the caller, PID
// 1 is refused. The PIDs are recorded, not moved.
func (m *manager) attachLocked(c *busd.Call, name, sub string, pids []uint32) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	if sub != "" {
		if !strings.HasPrefix(sub, "/") {
			return nil, errInvalidArgs("Control group path is not absolute: %s", sub)
		}
		if !normalizedPath(sub) {
			return nil, errInvalidArgs("Control group path is not normalized: %s", sub)
		}
	}
	if !u.delegated() {
		return nil, errInvalidArgs("Process migration not available on non-delegated units.")
	}
	if !u.isActive() && u.active != "activating" && u.active != "deactivating" {
		return nil, errInvalidArgs("Unit is not active, refusing.")
	}
	if sub != "" && sub != "/" && !m.subcgroupLocked(u, sub) {
		// systemd moves the processes into the sub-cgroup, which the
		// unit's delegated payload must have created.
		return nil, &callErr{dbusErr + "FileNotFound", "Failed to attach processes to control group: No such file or directory"}
	}
	add := make([]uint32, 0, len(pids))
	for _, pid := range pids {
		if pid == 0 {
			pid = c.Peer.PID()
		}
		if pid == 1 {
			return nil, errInvalidArgs("Process %d is a manager process, refusing.", pid)
		}
		add = append(add, pid)
	}
	u.pids = append(u.pids, add...)
	return []any{}, nil
}

// delegated reports whether systemd would delegate u's cgroup: a service
// or scope with Delegate=yes or any DelegateControllers=.
func (u *unit) delegated() bool {
	if u.kind != "service" && u.kind != "scope" {
		return false
	}
	_, controllers := u.props["DelegateControllers"]
	return u.boolProp("Delegate", false) || controllers
}

// normalizedPath reports whether an absolute path has no "." or ".."
// components and no repeated slashes (systemd's path_is_normalized).
func normalizedPath(p string) bool {
	for _, elem := range strings.Split(strings.TrimSuffix(p[1:], "/"), "/") {
		if elem == "" && p != "/" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}

// MakeSubcgroup creates the sub-cgroup sub (an absolute, normalized path
// such as "/payload") and its parents below a loaded unit's control group,
// as the payload of a delegated unit does with mkdir, so that
// AttachProcessesToUnit can move processes into it.
func (s *Server) MakeSubcgroup(unit, sub string) error {
	if !strings.HasPrefix(sub, "/") || !normalizedPath(sub) || sub == "/" {
		return fmt.Errorf("fakebus: sub-cgroup %q: want an absolute, normalized path below the unit's cgroup", sub)
	}
	s.m.lock()
	defer s.m.unlock()
	u := s.m.unitLocked(unit)
	if u == nil {
		return fmt.Errorf("fakebus: unit %s is not loaded", unit)
	}
	if u.subcgroups == nil {
		u.subcgroups = map[string]bool{}
	}
	for p := strings.TrimSuffix(sub, "/"); p != ""; p = p[:strings.LastIndexByte(p, '/')] {
		u.subcgroups[p] = true
	}
	return nil
}
