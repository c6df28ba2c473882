package fakebus

// Units that trigger others and units named for a path (systemd's
// src/core/socket.c, timer.c, path.c and automount.c; mount.c, swap.c and
// device.c): which unit a socket, timer, path or automount triggers, how
// loading one loads that unit, and what the fake takes from a mount's,
// swap's, automount's or device's name.
//
// The fake listens on no socket, watches no path and mounts nothing:
// starting such a unit makes it active in its type's sub-state
// (listening, mounted), and it never triggers its unit. Timers elapse
// (timer.go).

import (
	"slices"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// triggers returns the unit u triggers, "" for none: a socket's Service=,
// else the service of its name (none with Accept=yes, whose services are
// instances made per connection); a timer's or path unit's Unit=, else
// the service of its name; an automount's mount of its name.
func (u *unit) triggers() string {
	switch u.kind {
	case "socket":
		if u.boolProp("Accept", false) {
			return ""
		}
		if s := u.str("Service"); s != "" {
			return s
		}
		return u.name[:len(u.name)-len("socket")] + "service"
	case "timer", "path":
		if s := u.str("Unit"); s != "" {
			return s
		}
		return u.name[:len(u.name)-len(u.kind)] + "service"
	case "automount":
		return u.name[:len(u.name)-len("automount")] + "mount"
	}
	return ""
}

// socketsFollowLocked makes the sockets that trigger the service svc
// follow its state, as systemd's socket_trigger_notify does whenever a
// service changes state: an active socket (listening or running, not
// Accept=yes) whose service runs is running; once the service is dead or
// failed with no start or restart job to bring it back, it listens
// again. A socket started while its service runs listens until the
// service next changes state, as on systemd.
func (m *manager) socketsFollowLocked(svc *unit) {
	sub := ""
	switch {
	case svc.sub == "running":
		sub = "running"
	case svc.active == "inactive" || svc.active == "failed":
		if j := svc.job; j != nil && (j.typ == jobStart || j.typ == jobRestart) {
			return
		}
		sub = "listening"
	default:
		return
	}
	for _, u := range m.triggeringLocked(svc, "socket") {
		if u.active == "active" && u.sub != sub {
			m.setStateLocked(u, "active", sub)
		}
	}
}

// triggeringLocked returns the loaded units of kind that trigger t, in
// the order of their names.
func (m *manager) triggeringLocked(t *unit, kind string) []*unit {
	set := m.triggeredBy[t.name]
	if len(set) == 0 {
		return nil
	}
	out := make([]*unit, 0, len(set))
	for u := range set {
		if u.kind == kind && m.units[u.name] == u {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b *unit) int { return strings.Compare(a.name, b.name) })
	return out
}

// loadTriggeredLocked loads the unit u triggers, as systemd loads a
// unit's dependencies with it, not-found where no file defines it. A
// unit its type refuses (bad-setting) loads them too: systemd's type
// load adds them before it verifies the unit (socket_add_extras, then
// socket_verify; measured on 247-262 by the differential tester:
// OnFailure= of a service with two ExecStart= loads its unit
// not-found), but not one whose file failed to parse.
func (m *manager) loadTriggeredLocked(u *unit) {
	if u.load != "loaded" && (u.load != "bad-setting" || u.unparsed) {
		return
	}
	if t := u.triggers(); t != "" {
		// (Measured on 247-262 by the differential tester: a drop-in's
		// Unit= of a timer, then a daemon-reload.)
		m.loadOrNotFoundLocked(t)
	}
	// And every unit it names in a dependency, as systemd adds a
	// dependency: a name no file defines loads as not-found, and stays
	// while u refers to it (measured on 247-262 by the differential
	// tester: GetUnit of a Wants= target with no file answers it,
	// not-found, inactive).
	for _, d := range depLists {
		for _, name := range u.list(d) {
			m.loadOrNotFoundLocked(name)
		}
	}
}

// loadOrNotFoundLocked loads the unit a valid name names, not-found
// where no file defines it; an invalid name loads nothing (and does not
// make the fake read the unit directories).
func (m *manager) loadOrNotFoundLocked(name string) {
	if sdbus.ValidateUnitName(name) == nil && m.loadLocked(name) == nil {
		m.notFoundUnitLocked(name, true)
	}
}

// namedPath returns the path a mount's, automount's, swap's or device's
// name stands for (run-capture.mount: /run/capture), "" for other types
// or a name that does not unescape to an absolute path.
func namedPath(u *unit) string {
	switch u.kind {
	case "mount", "automount", "swap", "device":
	default:
		return ""
	}
	p, err := sdbus.UnescapeUnitPath(strings.TrimSuffix(u.name, "."+u.kind))
	if err != nil || !strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}

// where is a mount's or automount's Where, a swap's What: its setting,
// else the path of its name.
func (u *unit) where() string {
	prop := "Where"
	if u.kind == "swap" {
		prop = "What"
	}
	if s := u.str(prop); s != "" {
		return s
	}
	return namedPath(u)
}

// badSetting reports whether systemd refuses to load unit file name
// with these settings (LoadState bad-setting; what it logs in brackets):
// a service service_verify refuses (badService), a socket without
// a Listen setting, or with Accept=yes and a Service= ("Explicit service
// configuration for accepting socket units not supported. Refusing.") or
// a socket that accepts no connections ("Unit configured for accepting
// sockets, but sockets are non-accepting. Refusing."), a timer without a timer, a path unit without a path,
// a mount without What= ("What= setting is missing. Refusing."), a mount
// or automount whose Where= is not the path of its name ("Where= setting
// doesn't match unit name. Refusing."), and a unit of any type whose
// OnFailure= or OnSuccess= names more than one unit with its job mode
// isolate (onfailure.go).
func (m *manager) badSetting(name string, props []sdbus.Property) bool {
	u := &unit{name: name, kind: name[strings.LastIndexByte(name, '.')+1:], props: map[string]dbus.Variant{}}
	for _, p := range props {
		u.props[p.Name] = p.Value
	}
	return m.badUnit(u)
}

// badUnit is badSetting of u's settings as they are.
func (m *manager) badUnit(u *unit) bool {
	return isolatesMany(u) || m.typeRefuses(u)
}

// typeRefuses reports whether u's type refuses to load it (systemd's
// unit vtable load: service_verify, socket_verify, ...), which comes
// before unit_load's other checks.
func (m *manager) typeRefuses(u *unit) bool {
	has := func(n string) bool { _, ok := u.props[n]; return ok }
	switch u.kind {
	case "service":
		return m.badService(u)
	case "socket":
		return !has("Listen") || u.boolProp("Accept", false) && (u.str("Service") != "" || !acceptsAll(u))
	case "timer":
		// OnClockChange= or OnTimezoneChange= is something to elapse on
		// too (timer_verify; measured on 252 by the differential tester,
		// 252 seed 130368 of a long run: such a timer loaded again after
		// a re-execution).
		return !has("TimersMonotonic") && !has("TimersCalendar") &&
			!u.boolProp("OnClockChange", false) && !u.boolProp("OnTimezoneChange", false)
	case "path":
		return !has("Paths")
	case "mount":
		return !has("What") || u.where() != namedPath(u)
	case "automount":
		return u.where() != namedPath(u)
	}
	return false
}

// acceptsAll reports whether every socket of socket unit u accepts
// connections, as Accept=yes needs (socket_verify's
// have_non_accept_socket): stream and sequential-packet sockets do,
// datagram and netlink sockets, FIFOs, special files and message queues
// do not.
func acceptsAll(u *unit) bool {
	for _, l := range stringPairs(u.props["Listen"]) {
		if l[0] != "Stream" && l[0] != "SequentialPacket" {
			return false
		}
	}
	return true
}
