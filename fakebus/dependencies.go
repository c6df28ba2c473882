package fakebus

// Dependencies as systemd shows them (src/core/unit-dependency-atom.c and
// unit_dependency_inverse_table in unit.c): every dependency is a pair,
// recorded on both units, so a unit's lists hold what its own settings
// name, the dependencies systemd adds by itself that the fake models, and
// the inverse of every other loaded unit's (a's Requires=b is b's
// RequiredBy a, a's Before=b is b's After a).
//
// The implicit dependencies modelled: a unit's slice (Requires= and
// After=, as systemd's unit_add_slice_dependencies adds them whatever
// DefaultDependencies= says, to a unit that loaded: not to one that is
// bad-setting, unless only its OnFailureJobMode=isolate refused it, as
// unit_load checks that after); the unit a socket, timer, path unit or
// automount triggers (Triggers and Before=, trigger.go); the mount units
// of the paths a unit needs (RequiresMountsFor: its setting and the paths
// its type's settings name; After= each loaded mount unit of such a path
// or one of its parents, and Requires= it when the mount has a unit file,
// as systemd's unit_add_mount_dependencies, which unit_load runs with the
// slice's); After=systemd-journald.socket
// of a unit whose commands log to the journal (exec context, below);
// Requires= and After=dbus.socket of a D-Bus service (busService); and
// with DefaultDependencies=yes the default dependencies of its type
// (defaultDepsLocked, below), as systemd 247 to 262 add them for the system
// manager in a container (the sandbox's: devices unsupported, swaps
// without default dependencies). A masked unit has none of these. A
// named unit that is not loaded stays unloaded in the fake (systemd
// loads it as not-found).

import (
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// depLists are the dependency settings that reference another unit.
var depLists = []string{"Wants", "Requires", "Requisite", "BindsTo", "PartOf", "Conflicts", "Before", "After", "OnFailure", "OnSuccess"}

// inverseDeps maps each dependency list to its inverse.
var inverseDeps = map[string]string{
	"Requires": "RequiredBy", "RequiredBy": "Requires",
	"Requisite": "RequisiteOf", "RequisiteOf": "Requisite",
	"Wants": "WantedBy", "WantedBy": "Wants",
	"BindsTo": "BoundBy", "BoundBy": "BindsTo",
	"PartOf": "ConsistsOf", "ConsistsOf": "PartOf",
	"Conflicts": "ConflictedBy", "ConflictedBy": "Conflicts",
	"Before": "After", "After": "Before",
	"OnFailure": "OnFailureOf", "OnFailureOf": "OnFailure",
	"OnSuccess": "OnSuccessOf", "OnSuccessOf": "OnSuccess",
	"Triggers": "TriggeredBy", "TriggeredBy": "Triggers",
}

// ownDepsLocked returns the units u's dependency list name holds by u's
// own settings and the implicit dependencies above, without the inverses
// of other units'.
func (m *manager) ownDepsLocked(u *unit, name string) []string {
	if u.load == "not-found" {
		return nil // nothing loaded to depend on: only the inverses of others'
	}
	// A unit depends on another once however often it is named (in
	// one list, in two properties or lines of it: systemd keeps a set).
	var out []string
	for _, n := range u.list(name) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if u.load == "masked" {
		// systemd adds none of the implicit and default dependencies
		// to a masked unit: each type's load returns before them, and
		// unit_load adds its slice's and mounts' only to a loaded unit
		// (measured on 247 to 262 by the differential tester: a slice
		// started, masked and reloaded is no longer after -.slice,
		// 257 seed 451092 of a long run).
		return out
	}
	add := func(n string) {
		if n != "" && n != u.name && !slices.Contains(out, n) {
			out = append(out[:len(out):len(out)], n)
		}
	}
	// systemd adds a unit's slice and mount dependencies once its type
	// loaded it (unit_load: unit_add_slice_dependencies,
	// unit_add_mount_dependencies), not to one that failed to
	// (bad-setting: a file line that does not parse, the type's
	// verification), but to one the isolate check that comes after them
	// alone refused (measured on 257 by the differential tester, seed
	// 58000).
	loaded := u.load != "bad-setting" || !u.unparsed && !m.typeRefuses(u) && isolatesMany(u)
	switch name {
	case "Requires", "After":
		if !loaded {
			break
		}
		add(u.slice())
		for _, mnt := range m.mountUnitsLocked(u, m.mountPathsLocked(u)) {
			if name == "After" || mnt.fromFile {
				add(mnt.name)
			}
		}
	case "Before", "Triggers":
		add(u.triggers())
	}
	if loaded && (name == "Wants" || name == "After") {
		for _, mnt := range m.mountUnitsLocked(u, m.wantsMountPathsLocked(u)) {
			if name == "After" || mnt.fromFile {
				add(mnt.name)
			}
		}
	}
	if name == "After" && logsToJournal(u) {
		add("systemd-journald.socket")
	}
	if (name == "Requires" || name == "After") && busService(u) {
		add("dbus.socket")
	}
	if name == "After" && u.kind == "swap" && !strings.HasPrefix(u.where(), "/dev/") {
		// A swap file may need a writable file system (systemd's
		// swap_add_device_dependencies); a device's swap would be
		// bound to its device, which a container has none of.
		add("systemd-remount-fs.service")
	}
	if u.boolProp("DefaultDependencies", true) {
		for _, n := range m.defaultDepsLocked(u, name) {
			add(n)
		}
		if loaded && (name == "Wants" || name == "After") && m.wantsOomdLocked(u) {
			add("systemd-oomd.service")
		}
	}
	return out
}

// wantsOomdLocked reports whether u wants and is ordered after
// systemd-oomd.service (unit_add_oomd_dependencies): a unit with a
// control group one of whose ManagedOOMSwap= and
// ManagedOOMMemoryPressure= is kill, before 252 only; from 252 systemd
// adds them only where the memory controller is there, which the
// sandbox's cgroup2 has not (sdversions.OomdNeedsMemoryController;
// measured on 247 by the differential tester, 247 seed 160184 of a long
// run).
func (m *manager) wantsOomdLocked(u *unit) bool {
	switch u.kind {
	case "service", "scope", "slice", "socket", "mount", "swap":
	default:
		return false
	}
	return !m.behaves(sdversions.OomdNeedsMemoryController) &&
		(u.str("ManagedOOMSwap") == "kill" || u.str("ManagedOOMMemoryPressure") == "kill")
}

// busService reports whether u is a D-Bus service, which systemd's
// service_setup_bus_name makes require and be ordered after dbus.socket
// (UNIT_DEPENDENCY_FILE: whatever DefaultDependencies= says): a service
// of Type=dbus, set or figured from BusName= (serviceType), with a bus
// name (247 adds them to any Type=dbus service, but its PID 1 aborts on
// one without BusName=). service_add_extras adds them before
// service_verify, so a service that verification refuses (bad-setting)
// has them too, one whose file failed to load has not (measured on 252
// and 262 by the differential tester, seeds 202392 and 231288 of long
// runs).
func busService(u *unit) bool {
	return u.kind == "service" && (u.load == "loaded" || u.load == "bad-setting" && !u.unparsed) &&
		u.str("BusName") != "" && serviceType(u) == string(sdbus.ServiceDBus)
}

// logsToJournal reports whether u's commands log to the journal, for
// which systemd orders it after systemd-journald.socket
// (unit_add_exec_dependencies): a service, mount or swap (a socket with
// commands too, which the fake does not read) whose StandardOutput= or
// StandardError= is the journal, syslog or kmsg (alone or with the
// console), which they are unless set otherwise (StandardError= inherits
// StandardOutput=).
func logsToJournal(u *unit) bool {
	switch u.kind {
	case "service", "mount", "swap":
	default:
		return false
	}
	out := u.str("StandardOutput")
	if out == "" {
		out = "journal"
	}
	errOut := u.str("StandardError")
	if errOut == "" || errOut == "inherit" {
		errOut = out
	}
	journal := func(s string) bool {
		switch strings.TrimSuffix(s, "+console") {
		case "journal", "syslog", "kmsg":
			return true
		}
		return false
	}
	return journal(out) || journal(errOut)
}

// defaultDepsLocked is what list name of u holds by DefaultDependencies=yes
// (each type's *_add_default_dependencies in src/core). Every unit but a
// mount, automount, swap or device conflicts with shutdown.target and is
// ordered before it; a service, socket, timer and path unit requires
// sysinit.target and is ordered after it (the system manager's only; a
// user manager's service requires basic.target), and is ordered before its type's
// target (sockets.target, timers.target, paths.target) or, a service,
// after basic.target; a calendar timer is ordered after time-sync.target
// (and time-set.target, sdversions.TimerAfterTimeSet); a target is
// ordered after every loaded unit it requires or wants that has default
// dependencies itself, unless ordered before it. A mount or automount
// is ordered after local-fs-pre.target and before local-fs.target, a
// network file system's mount (Type=nfs and the like, or _netdev) after
// network.target, network-online.target (which it wants) and
// remote-fs-pre.target and before remote-fs.target instead; a tmpfs
// after swap.target; all three conflict with umount.target and are
// ordered before it, except the mounts of / and /usr, which have none.
func (m *manager) defaultDepsLocked(u *unit, name string) []string {
	type deps struct{ requires, wants, after, before, conflicts []string }
	var d deps
	shutdown := func(target string) {
		d.conflicts = append(d.conflicts, target)
		d.before = append(d.before, target)
	}
	// A user manager has no sysinit.target: its services require
	// basic.target instead.
	user := m.cfg.user >= 0
	sysinit := func() {
		if !user {
			d.requires = append(d.requires, "sysinit.target")
			d.after = append(d.after, "sysinit.target")
		}
	}
	switch u.kind {
	case "service":
		sysinit()
		if user {
			d.requires = append(d.requires, "basic.target")
		}
		d.after = append(d.after, "basic.target")
		shutdown("shutdown.target")
	case "socket", "path", "timer":
		sysinit()
		if _, ok := u.props["TimersCalendar"]; ok && u.kind == "timer" {
			d.after = append(d.after, "time-sync.target")
			if sdversions.Behaves(m.release, sdversions.TimerAfterTimeSet) {
				d.after = append(d.after, "time-set.target")
			}
		}
		d.before = append(d.before, u.kind+"s.target") // sockets.target, paths.target, timers.target
		shutdown("shutdown.target")
	case "target":
		if name == "After" {
			d.after = m.targetOrderLocked(u)
		}
		if u.name != "shutdown.target" {
			shutdown("shutdown.target")
		}
	case "slice", "scope":
		shutdown("shutdown.target")
	case "mount":
		switch w := u.where(); {
		case w == "/", w == "/usr", w == "/run/initramfs", strings.HasPrefix(w, "/run/initramfs/"):
			return nil
		case isNetworkMount(u):
			d.wants = append(d.wants, "network-online.target")
			d.after = append(d.after, "network-online.target", "network.target", "remote-fs-pre.target")
			d.before = append(d.before, "remote-fs.target")
		default:
			d.after = append(d.after, "local-fs-pre.target")
			d.before = append(d.before, "local-fs.target")
		}
		if u.str("Type") == "tmpfs" {
			d.after = append(d.after, "swap.target")
		}
		shutdown("umount.target")
	case "automount":
		d.after = append(d.after, "local-fs-pre.target")
		d.before = append(d.before, "local-fs.target")
		shutdown("umount.target")
	}
	switch name {
	case "Requires":
		return d.requires
	case "Wants":
		return d.wants
	case "After":
		return d.after
	case "Before":
		return d.before
	case "Conflicts":
		return d.conflicts
	}
	return nil
}

// targetOrderLocked returns the units target t is ordered after by its
// default dependencies (unit_add_default_target_dependency): the loaded
// units it requires, requisites, wants, binds to or is part of, that have
// default dependencies themselves and that t is not ordered before ("Don't
// create loops"), by t's Before= or by their After=, their default
// dependencies' included: a service with RequiredBy=basic.target is
// ordered after basic.target by its own, and basic.target not after it.
// (A target's After= from its own default dependencies is not looked at:
// its Before= as a unit t wants is not modelled either.)
func (m *manager) targetOrderLocked(t *unit) []string {
	var out []string
	for _, list := range []string{"Requires", "Requisite", "Wants", "BindsTo", "PartOf"} {
		for _, n := range t.list(list) {
			o := m.units[m.primaryLocked(n)]
			if o == nil || o == t || o.load != "loaded" || !o.boolProp("DefaultDependencies", true) ||
				slices.Contains(t.list("Before"), o.name) || slices.Contains(out, o.name) {
				continue
			}
			after := o.list("After")
			if o.kind != "target" {
				after = m.ownDepsLocked(o, "After")
			}
			if namesUnit(after, t) {
				continue
			}
			out = append(out, o.name)
		}
	}
	return out
}

// networkFileSystems are the file system types systemd mounts over the
// network (fstype_is_network in src/basic/mountpoint-util.c).
var networkFileSystems = []string{
	"afs", "ceph", "cifs", "smb3", "smbfs", "sshfs", "ncpfs", "ncp", "nfs", "nfs4",
	"gfs", "gfs2", "glusterfs", "gpfs", "pvfs2", "ocfs2", "lustre", "davfs",
}

// hasOption reports whether a mount's or swap's Options= names opt.
func (u *unit) hasOption(opt string) bool {
	return slices.Contains(strings.Split(u.str("Options"), ","), opt)
}

// isNetworkMount reports whether mount u is a network file system's: by
// its Type= (a FUSE type by what follows "fuse.") or the _netdev option.
func isNetworkMount(u *unit) bool {
	if u.hasOption("_netdev") {
		return true
	}
	return slices.Contains(networkFileSystems, strings.TrimPrefix(u.str("Type"), "fuse."))
}

// mountPathsLocked is u's RequiresMountsFor: its setting, then the paths
// its type's settings name: the working directory of a unit with an exec
// context, a socket's file system addresses, a path unit's
// paths, a swap's What, the directory a mount's or automount's Where is
// in, and the system manager's directory of timer stamps for a timer
// with Persistent=yes (timer_setup_persistent; measured on 252 by the
// differential tester, 252 seed 131196 of a long run).
func (m *manager) mountPathsLocked(u *unit) []string {
	out := append([]string{}, u.list("RequiresMountsFor")...)
	add := func(p string) {
		if strings.HasPrefix(p, "/") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	switch u.kind {
	case "service", "socket", "mount", "swap":
		// The exec context's working directory, unless it may be
		// missing ("!", from "-") or is the user's home ("~")
		// (unit_add_exec_dependencies; measured on 247-262 by the
		// differential tester, 257 seed 21057).
		add(u.str("WorkingDirectory"))
	}
	switch u.kind {
	case "socket":
		for _, l := range stringPairs(u.props["Listen"]) {
			if l[0] != "Netlink" && l[0] != "MessageQueue" {
				add(l[1])
			}
		}
	case "path":
		for _, p := range stringPairs(u.props["Paths"]) {
			add(p[1])
		}
	case "timer":
		if u.boolProp("Persistent", false) && m.cfg.user < 0 {
			add("/var/lib/systemd/timers")
		}
	case "swap":
		add(u.where())
	case "mount", "automount":
		if w := u.where(); w != "" && w != "/" {
			add(path.Dir(w))
		}
		// The source of a mount that is not a network file system's
		// (a bind mount's directory, a device node).
		if u.kind == "mount" && (!isNetworkMount(u) || u.hasOption("bind")) {
			add(path.Clean(u.str("What")))
		}
	}
	return out
}

// wantsMountPathsLocked is u's WantsMountsFor (from 257; nil before): its
// setting, then the working directory of a unit with an exec context that
// may be missing ("!", from "-"), which 256 on asks for so
// (unit_add_exec_dependencies' UNIT_MOUNT_WANTS; measured on 257 and 262
// by the differential tester). Its mount units are ordered before u (and
// wanted by it if they have a file), as RequiresMountsFor's are required.
func (m *manager) wantsMountPathsLocked(u *unit) []string {
	if !m.has("WantsMountsFor") {
		return nil
	}
	out := append([]string{}, u.list("WantsMountsFor")...)
	switch u.kind {
	case "service", "socket", "mount", "swap":
		if d, ok := strings.CutPrefix(u.str("WorkingDirectory"), "!"); ok && strings.HasPrefix(d, "/") && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// mountUnitsLocked returns the loaded mount units of paths (u's) and of
// their parent directories, up to -.mount, each once; a mount is not its
// own.
func (m *manager) mountUnitsLocked(u *unit, paths []string) []*unit {
	var out []*unit
	for _, p := range paths {
		for {
			if o := m.units[sdbus.EscapeUnitPath(p)+".mount"]; o != nil && o != u && !slices.Contains(out, o) {
				out = append(out, o)
			}
			if p == "/" {
				break
			}
			p = path.Dir(p)
		}
	}
	return out
}

// stringPairs reads an a(ss) property's value (Listen, Paths), whatever Go
// type holds it.
func stringPairs(v dbus.Variant) [][2]string {
	rv := reflect.ValueOf(v.Value())
	if rv.Kind() != reflect.Slice {
		return nil
	}
	out := make([][2]string, 0, rv.Len())
	for i := 0; i < rv.Len(); i++ {
		e := reflect.Indirect(rv.Index(i))
		if e.Kind() == reflect.Interface {
			e = e.Elem()
		}
		switch {
		case e.Kind() == reflect.Struct && e.NumField() == 2 && e.Field(0).Kind() == reflect.String && e.Field(1).Kind() == reflect.String:
			out = append(out, [2]string{e.Field(0).String(), e.Field(1).String()})
		case e.Kind() == reflect.Slice && e.Len() == 2:
			a, _ := e.Index(0).Interface().(string)
			b, _ := e.Index(1).Interface().(string)
			out = append(out, [2]string{a, b})
		}
	}
	return out
}

// depsLocked returns u's dependency list name as systemd answers it: its
// own (ownDeps), then, sorted, the loaded units whose inverse list names u
// (by its name or an alias).
func (m *manager) depsLocked(u *unit, name string) []string {
	out := append([]string{}, m.ownDepsLocked(u, name)...)
	inv, ok := inverseDeps[name]
	if !ok {
		return out
	}
	var more []string
	for _, o := range m.units {
		if o == u || slices.Contains(out, o.name) {
			continue
		}
		for _, n := range m.ownDepsLocked(o, inv) {
			if n == u.name || slices.Contains(u.aliases, n) {
				more = append(more, o.name)
				break
			}
		}
	}
	sort.Strings(more)
	return append(out, more...)
}
