package fakebus

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// cgroup2Magic is the file system type of a cgroup2 mount (statfs).
const cgroup2Magic = 0x63677270

// setupCgroupRoot checks and makes the directory of WithCgroupRoot.
func setupCgroupRoot(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("fakebus: cgroup root: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("fakebus: cgroup root: %w", err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(abs, &st); err != nil {
		return "", fmt.Errorf("fakebus: cgroup root: %w", err)
	}
	if st.Type == cgroup2Magic || st.Type == 0x27e0eb /* cgroup v1 */ {
		return "", fmt.Errorf("fakebus: cgroup root %s is a real cgroup file system", abs)
	}
	return abs, nil
}

// cgroupDirLocked makes or removes the directory of u's control group
// below the cgroup root, as u's state says (see WithCgroupRoot). Errors
// are ignored: the directory is a convenience for the unit's payload.
func (m *manager) cgroupDirLocked(u *unit) {
	if m.cgroupRoot == "" || (u.kind != "service" && u.kind != "scope" && u.kind != "slice") {
		return
	}
	cg := u.cgroup()
	if cg == "" || cg == "/" {
		return
	}
	p := filepath.Join(m.cgroupRoot, filepath.FromSlash(strings.TrimPrefix(cg, "/")))
	if u.isActive() || u.active == "activating" || u.active == "deactivating" || u.realized {
		_ = os.MkdirAll(p, 0o755)
		return
	}
	if u.kind != "slice" {
		_ = os.RemoveAll(p)
	}
}

// removeCgroupDirLocked removes u's directory below WithCgroupRoot's,
// sub-directories included, whatever u's state (Reset).
func (m *manager) removeCgroupDirLocked(u *unit) {
	if m.cgroupRoot == "" || (u.kind != "service" && u.kind != "scope" && u.kind != "slice") {
		return
	}
	if cg := u.cgroup(); cg != "" && cg != "/" {
		_ = os.RemoveAll(filepath.Join(m.cgroupRoot, filepath.FromSlash(strings.TrimPrefix(cg, "/"))))
	}
}

// subcgroupLocked reports whether sub-cgroup sub exists below u's control
// group: made with MakeSubcgroup, or as a directory below the cgroup root.
func (m *manager) subcgroupLocked(u *unit, sub string) bool {
	sub = strings.TrimSuffix(sub, "/")
	if u.subcgroups[sub] {
		return true
	}
	if m.cgroupRoot == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(m.cgroupRoot, filepath.FromSlash(strings.TrimPrefix(u.cgroup(), "/")), filepath.FromSlash(sub)))
	return err == nil && fi.IsDir()
}

// attachLocked is Manager.AttachProcessesToUnit, with systemd's checks in
// systemd's order (method_attach_processes_to_unit and
// bus_unit_method_attach_processes in src/core/dbus-manager.c and
// dbus-unit.c): the unit must be loaded (it is not loaded for this) and in
// a load state that takes methods (loadStateErr), the sub-cgroup absolute
// and normalized, the unit delegated (Delegate= or
// DelegateControllers=, services and scopes only) and not inactive or
// failed, a sub-cgroup created (MakeSubcgroup, or a directory below
// WithCgroupRoot's); PID 0 is the caller, PID
// 1 is refused. The PIDs are recorded, not moved, and watched while they
// live (procwatch.go).
func (m *manager) attachLocked(c *busd.Call, name, sub string, pids []uint32) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	// Its load state first (bus_unit_validate_load_state): a stub left by
	// a refused StartTransientUnit is NoSuchUnit "Unexpected load state"
	// (measured on 247 and 252 by the differential tester, 247 seeds
	// 56001 and 56008).
	if err := loadStateErr(u); err != nil {
		return nil, err
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
	// polkit after the delegation (measured on 247-262).
	if err := m.authorizeLocked(c); err != nil {
		return nil, err
	}
	if sub != "" && sub != "/" && !m.subcgroupLocked(u, sub) {
		// systemd moves the processes into the sub-cgroup, which the
		// unit's delegated payload must have created.
		return nil, &callErr{dbusErr + "FileNotFound", "Failed to attach processes to control group: No such file or directory"}
	}
	add := make([]uint32, 0, len(pids))
	var moved []uint32
	for _, pid := range pids {
		if pid == 0 {
			pid = c.Peer.PID()
		}
		if err := m.checkPIDLocked(pid, ""); err != nil {
			return nil, err
		}
		// A process the unit holds already stays one of its processes,
		// once (systemd moves it into the cgroup asked for); a zombie
		// joins no cgroup (zombie).
		switch {
		case zombie(pid):
		case slices.Contains(u.pids, pid):
			moved = append(moved, pid)
		case !slices.Contains(add, pid):
			add = append(add, pid)
		}
	}
	for _, pid := range add {
		m.takePIDLocked(u, pid)
	}
	// The sub-cgroup each is in now, which GetUnitProcesses names
	// (measured on 247-262: conformance AttachProcessesChecks).
	for _, pid := range append(moved, add...) {
		if sub == "" || sub == "/" {
			delete(u.pidSub, pid)
			continue
		}
		if u.pidSub == nil {
			u.pidSub = map[uint32]string{}
		}
		u.pidSub[pid] = sub
	}
	u.pids = append(u.pids, add...)
	u.populated = u.populated || len(add) > 0
	m.watchPIDsLocked(u, add, c.Peer.PID())
	return []any{}, nil
}

// hasProcessIn reports whether a process was attached to u's sub-cgroup
// sub ("/a", "a/") or one below it.
func (u *unit) hasProcessIn(sub string) bool {
	p := "/" + strings.Trim(sub, "/")
	for _, s := range u.pidSub {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}

// delegated reports whether systemd would delegate u's cgroup: a service
// or scope with Delegate=yes or a DelegateControllers= list (which turns
// Delegate on: setDelegateLocked).
func (u *unit) delegated() bool {
	if !unitTypes[u.kind].delegate {
		return false
	}
	return u.boolProp("Delegate", false)
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

// removeSubgroupLocked is RemoveSubgroupFromUnit: it forgets the
// sub-cgroup (and those below it) and removes its directory below
// WithCgroupRoot's; a sub-cgroup that does not exist is no error.
func (m *manager) removeSubgroupLocked(c *busd.Call, name, sub string, flags uint64) ([]any, error) {
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
	case m.authorizeLocked(c) != nil:
		return nil, m.refusal()
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

// process is one element of GetUnitProcesses, (sus).
type processRow struct {
	Cgroup  string
	PID     uint32
	Cmdline string
}

// processesLocked lists the processes the fake knows in u: its main
// process (with the command line it started with), unless the fake plays
// none (PID 0: startedWithoutProcess), its running control command (an
// ExecCondition=, ExecStartPre= or ExecStartPost= that takes time:
// measured on 252 by the differential tester, seeds 59000 and 59002),
// the processes its stops left running (killmode.go), and the PIDs it
// recorded.
func (m *manager) processesLocked(u *unit) []processRow {
	rows := []processRow{}
	for _, l := range u.left {
		rows = append(rows, processRow{u.cgroup(), l.pid, l.cmdline})
	}
	if u.proc != nil && u.proc.pid != 0 {
		rows = append(rows, processRow{u.cgroup(), u.proc.pid, strings.Join(u.proc.argv, " ")})
	}
	if c := u.control; c != nil && c.pid != 0 && c.running < len(c.cmds) {
		rows = append(rows, processRow{u.cgroup(), c.pid, strings.Join(c.cmds[c.running].Argv, " ")})
	}
	for _, p := range u.pids {
		rows = append(rows, processRow{u.cgroup() + u.pidSub[p], p, cmdline(p)})
	}
	return rows
}

// takePIDLocked takes pid out of every unit other than u that holds it,
// as moving a process into u's cgroup takes it out of its old one: a
// scope it leaves empty ends (processExitedLocked), as systemd's does
// once its cgroup is empty.
func (m *manager) takePIDLocked(u *unit, pid uint32) {
	for _, o := range m.units {
		if o == u || !slices.Contains(o.pids, pid) {
			continue
		}
		if w := o.watches[pid]; w != nil {
			w.close()
		}
		m.processExitedLocked(o, pid)
	}
}

// zombie reports whether pid is a process that has exited and is not yet
// reaped. Moving it into a cgroup moves nothing (the kernel takes the
// write and leaves the process where it is), so a scope made for it has
// no process, lists none, and, never having been populated, never
// reports empty: it runs until stopped, before and after the zombie is
// reaped (measured on 247, 252, 257 and 262: conformance
// ZombieKeepsScope), or from 252 until systemd looks at its cgroup again
// after a reload (catchupLocked).
func zombie(pid uint32) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

// processExists reports whether pid names a process (a zombie too).
func processExists(pid uint32) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

// cmdline is a real process's command line as systemd shows it
// (get_process_cmdline): its arguments joined by spaces, or, for a
// process without any (a zombie, a kernel thread), its name in brackets;
// "" if there is no such process.
func cmdline(pid uint32) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err == nil && len(bytes.TrimRight(b, "\x00")) > 0 {
		return strings.Join(strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00"), " ")
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return "[" + strings.TrimSpace(string(comm)) + "]"
}

// cgroup returns the unit's control group path.
func (u *unit) cgroup() string {
	if u.kind == "slice" {
		p, _ := sdbus.ExpandSlice(u.name)
		if u.base != "" {
			p = u.base + strings.TrimSuffix(p, "/")
		}
		return p
	}
	if s := u.slice(); s != "" {
		p, _ := sdbus.ExpandSlice(s)
		return u.base + strings.TrimSuffix(p, "/") + "/" + u.name
	}
	return ""
}

// cgroupBase is the manager's own control group: "" for the system
// manager, /user.slice/user-UID.slice/user@UID.service for a user manager.
func (m *manager) cgroupBase() string {
	if m.cfg.user < 0 {
		return ""
	}
	return fmt.Sprintf("/user.slice/user-%d.slice/user@%d.service", m.cfg.user, m.cfg.user)
}

// realizeLocked makes u's control group, as the SetUnitProperties that
// set something does for a unit that has one, in whatever state
// (bus_*_commit_properties: unit_realize_cgroup): it lasts until u next
// goes inactive or failed, so that an inactive or failed service has
// one meanwhile, and on 247 to 257 KillUnit's all-fail of it succeeds
// (killFindsLocked; measured on 247 and 252 by the differential tester,
// 247 seed 611196 of a long run: TasksMaxScale=, MemoryMax= of a failed
// service).
func (m *manager) realizeLocked(u *unit) {
	if !unitTypes[u.kind].cgroup || u.perpetual {
		return
	}
	u.realized = true
	m.cgroupDirLocked(u)
}

// controlGroupLocked is the control group u has now (its ControlGroup
// property), "" if none: a service's, scope's, slice's or mount's while
// it is active, activating or deactivating or holds what a stop left,
// but a service whose program has ended (exited: systemd pruned its
// empty group; measured on 252); an active socket's before 262 (the
// fake's sockets run no commands); any of these a SetUnitProperties
// realized (realizeLocked).
func (m *manager) controlGroupLocked(u *unit) string {
	if u.realized {
		return u.cgroup()
	}
	if u.kind == "service" && u.sub == "exited" && !holdsProcesses(u) {
		return ""
	}
	switch u.kind {
	case "socket":
		if u.isActive() && !sdversions.Behaves(m.release, sdversions.SocketCgroupWithProcesses) {
			return u.cgroup()
		}
	case "mount":
		// -.mount ran no mount command: "" on 252, 257 and 262, and on
		// 247 until another mount starts (then /-.mount).
		if u.perpetual {
			return ""
		}
		fallthrough
	case "service", "scope", "slice":
		if u.isActive() || u.active == "activating" || u.active == "deactivating" || holdsProcesses(u) {
			return u.cgroup()
		}
	}
	return ""
}

// slice returns the slice a unit lives in ("" for -.slice).
func (u *unit) slice() string {
	if u.kind == "slice" {
		p, _ := sdbus.SliceParent(u.name)
		return p
	}
	if s := u.str("Slice"); s != "" {
		return s
	}
	if unitTypes[u.kind].cgroup {
		// systemd's default slice of the units with a control group
		// (unit_set_default_slice): system.slice, app.slice in a user
		// manager; -.mount sets -.slice.
		return u.defSlice
	}
	return ""
}

// membersLocked returns the units in slice, sorted by name.
func (m *manager) membersLocked(slice string) []*unit {
	out := make([]*unit, 0, len(m.members[slice]))
	for u := range m.members[slice] {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// effectiveLocked computes EffectiveMemoryMax, EffectiveMemoryHigh and
// EffectiveTasksMax: the minimum over the unit and its ancestor slices.
func (m *manager) effectiveLocked(u *unit) (mem, high, tasks uint64) {
	mem, high, tasks = infinity, infinity, infinity
	for x := u; x != nil; {
		mem = min(mem, x.u64("MemoryMax", infinity))
		high = min(high, x.u64("MemoryHigh", infinity))
		tasks = min(tasks, m.tasksMaxLocked(x))
		parent := x.slice()
		if parent == "" {
			break
		}
		x = m.units[parent]
	}
	return mem, high, tasks
}

// unitByPIDLocked returns the unit whose processes include pid, as
// systemd's manager_get_unit_by_pid (src/core/cgroup.c), or nil. The fake
// moves no process into a control group: a PID is a unit's when the unit
// recorded it (a scope's PIDs, AttachProcessesToUnit, a service's main
// process or one its stop left running, init.scope's PID 1), or when it is a live process forked from
// one (it would have stayed in its parent's control group). A process of
// no unit, as one in the root control group on systemd, has none.
func (m *manager) unitByPIDLocked(pid uint32) *unit {
	for depth := 0; depth < 64; depth++ { // a bound on the walk up the process tree
		for _, u := range m.sortedUnitsLocked() {
			if slices.Contains(u.pids, pid) || u.proc != nil && u.proc.pid == pid ||
				slices.ContainsFunc(u.left, func(l *leftover) bool { return l.pid == pid }) {
				return u
			}
		}
		// PID 1 is init.scope's; every process descends from it,
		// none belongs to init.scope for that.
		if pid <= 1 {
			return nil
		}
		if pid = parentPID(pid); pid <= 1 {
			return nil
		}
	}
	return nil
}

// parentPID returns the parent of the live process pid, from
// /proc/PID/stat ("PID (COMM) STATE PPID ..."), or 0.
func parentPID(pid uint32) uint32 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return 0
	}
	return uint32(ppid)
}

// processUID returns the real uid of process pid (the first Uid: of
// /proc/PID/status, as systemd's get_process_uid), false if it has none.
func processUID(pid uint32) (uint32, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			uid, err := strconv.ParseUint(f[0], 10, 32)
			return uint32(uid), err == nil
		}
	}
	return 0, false
}

// foreignProcessLocked returns a process placed in u that an unprivileged
// user manager cannot move into its cgroup: one of another user's, among
// the watched ones (procwatch.go: the caller's own tree; made-up PIDs are
// never checked). 0 for the system manager and root's user manager.
func (m *manager) foreignProcessLocked(u *unit) uint32 {
	if m.cfg.user <= 0 {
		return 0
	}
	for _, pid := range u.pids {
		if u.watches[pid] == nil {
			continue
		}
		if uid, ok := processUID(pid); ok && uid != uint32(m.cfg.user) {
			return pid
		}
	}
	return 0
}

// scopeOwnerTakesLocked reports whether systemd's start of scope u gets
// past its start-chown step (scope_enter_start_chown, from 252:
// sdversions.ScopeUser): a delegated scope given User= has its control
// group handed to that user, and to Group= when given (else to the
// user's group), by a helper that resolves them here as get_user_creds
// and get_group_creds do (root, 0, nobody and 65534 without a lookup; a
// number by its id; a name by its name). A name or an id this machine
// does not have fails the helper, and the scope fails, Result resources
// (measured on 252, 257 and 262 by the differential tester: nosuchuser,
// -bad, "bad name", nosuchgroup). Group= without User= hands nothing
// over. An unprivileged user manager's helper can hand the group only to
// its own user and groups (chown(2)).
func (m *manager) scopeOwnerTakesLocked(u *unit) bool {
	name := u.str("User")
	if name == "" || !u.delegated() || !m.behaves(sdversions.ScopeUser) {
		return true
	}
	uid, gid, ok := lookupUserCreds(name)
	if !ok {
		return false
	}
	if g := u.str("Group"); g != "" {
		if gid, ok = lookupGroupCreds(g); !ok {
			return false
		}
	}
	if m.cfg.user <= 0 {
		return true
	}
	if uid != strconv.Itoa(m.cfg.user) {
		return false
	}
	self, err := user.LookupId(uid)
	if err != nil {
		return false
	}
	groups, err := self.GroupIds()
	return err == nil && slices.Contains(groups, gid)
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

// tasksMaxLocked is u's TasksMax: its setting, else the manager's
// DefaultTasksMax; a slice's is infinity unless set (systemd's
// unit_get_cgroup_context defaults every cgroup unit but slices).
func (m *manager) tasksMaxLocked(u *unit) uint64 {
	if u.kind == "slice" {
		return u.u64("TasksMax", infinity)
	}
	return u.u64("TasksMax", m.defaultTasksMax)
}

// systemTasksMax is TASKS_MAX, systemd's bound on the tasks a system can
// have (a PID is below 2²²).
const systemTasksMax = 4194303

// defaultTasksMax is the manager's DefaultTasksMax: 15% of the tasks the
// system allows, systemd's default (DefaultTasksMax=15%, resolved by
// system_tasks_max_scale), that is of the smaller of kernel.threads-max
// and kernel.pid_max minus one, as this process reads them (a pid
// namespace has its own pid_max on recent kernels, so a systemd booted in
// a new one reads another than the host's). systemd also bounds it by
// its root cgroup's pids.max (in a container), which the fake does not
// read. Measured on 247, 252 and 262 in the sandbox: 28908, with
// threads-max 192725 and pid_max 4194304.
func defaultTasksMax() uint64 {
	n := uint64(systemTasksMax)
	if v, ok := readProcUint("/proc/sys/kernel/threads-max"); ok && v > 0 {
		n = min(n, v)
	}
	if v, ok := readProcUint("/proc/sys/kernel/pid_max"); ok && v > 1 {
		n = min(n, v-1)
	}
	return n * 15 / 100
}

// readProcUint reads a number from a file of /proc.
func readProcUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}

// cgroupControllers are systemd's cgroup controllers in the order of its
// mask (CGroupController), the order DelegateControllers reads back in.
var cgroupControllers = []string{"cpu", "cpuacct", "cpuset", "io", "blkio", "memory", "devices", "pids",
	"bpf-firewall", "bpf-devices", "bpf-foreign", "bpf-socket-bind", "bpf-restrict-network-interfaces"}

// controllerMask is a controller list set to given over old, as systemd
// sets a mask of them (DelegateControllers=, DisableControllers=): the
// union of both in systemd's order, or none when given is empty.
func controllerMask(old, given []string) []string {
	mask := []string{}
	if len(given) == 0 {
		return mask
	}
	for _, c := range cgroupControllers {
		if slices.Contains(given, c) || slices.Contains(old, c) {
			mask = append(mask, c)
		}
	}
	return mask
}

// delegatedAll is what Delegate=yes delegates on release r: from 252 the
// cgroup-v2 controllers (CGROUP_MASK_DELEGATE), before every controller
// 247 knew (measured on 247, 252, 257, 262, system and user managers).
func delegatedAll(r sdversions.Release) []string {
	if sdversions.Behaves(r, sdversions.DelegateV2Controllers) {
		return []string{"cpu", "cpuset", "io", "memory", "pids"}
	}
	return slices.Clone(cgroupControllers[:10])
}

// setDelegateLocked sets Delegate or DelegateControllers as systemd keeps
// them, a flag and a mask: Delegate=yes delegates delegatedAll, no none;
// a DelegateControllers list turns Delegate on and adds to the mask (an
// empty one clears it); the mask reads back in cgroupControllers' order.
func (m *manager) setDelegateLocked(u *unit, name string, v any) {
	var mask []string
	switch name {
	case "Delegate":
		if on, _ := v.(bool); on {
			mask = delegatedAll(m.release)
		}
		u.props["Delegate"] = dbus.MakeVariant(v)
	default:
		given, _ := v.([]string)
		old, _ := u.props["DelegateControllers"].Value().([]string)
		mask = controllerMask(old, given)
		u.props["Delegate"] = dbus.MakeVariant(true)
	}
	u.props["DelegateControllers"] = dbus.MakeVariant(append([]string{}, mask...))
}

// scaledLimit is the limit a fraction v/max of a limit stands for (the
// D-Bus MemoryMaxScale=, TasksMaxScale=: of UINT32_MAX; a unit file's
// percentage: of 10000), as systemd computes it: of the machine's memory
// in whole pages (physical_memory_scale) or of the most tasks the kernel
// allows (system_tasks_max_scale: the smaller of pid_max - 1 and
// threads-max). name is the setting, with or without "Scale".
func scaledLimit(name string, v, max uint64) uint64 {
	scale := func(total uint64) uint64 {
		return new(big.Int).Div(new(big.Int).Mul(new(big.Int).SetUint64(total), new(big.Int).SetUint64(v)),
			new(big.Int).SetUint64(max)).Uint64()
	}
	if strings.TrimSuffix(name, "Scale") == "TasksMax" {
		pidMax, threadsMax := readUint("/proc/sys/kernel/pid_max"), readUint("/proc/sys/kernel/threads-max")
		return scale(min(pidMax-1, threadsMax))
	}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	page := uint64(os.Getpagesize())
	return scale(uint64(si.Totalram)*uint64(si.Unit)/page) * page
}

// readUint reads a file holding one decimal number (0 if it cannot).
func readUint(file string) uint64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n
}
