package fakebus

// The unit types, each with what it can do, as systemd's UnitVTable of
// the type says it (src/core/unit.h; each type's table at the end of its
// src/core/TYPE.c): the fake looks them up here instead of listing the
// types that can do a thing where it does it.

// unitType is the part of a type's UnitVTable the fake looks at.
type unitType struct {
	// iface is the type's D-Bus interface (its bus_vtable, dbus-TYPE.c).
	iface string
	// transient: StartTransientUnit makes units of the type
	// (can_transient). systemd makes transient mounts, automounts and
	// paths too; the fake does not.
	transient bool
	// cgroup: the type has a cgroup context (cgroup_context_offset): it
	// takes the control-group settings and, but for a slice, lives in a
	// slice, system.slice (app.slice) unless set (unit_set_default_slice).
	cgroup bool
	// delegate: the type can delegate its control group (can_delegate).
	delegate bool
	// freeze: FreezeUnit and ThawUnit work on the type (its freeze and
	// thaw, freezer_action in later releases).
	freeze bool
	// managedOOM: the type takes ManagedOOM*= settings
	// (can_set_managed_oom).
	managedOOM bool
	// clean: CleanUnit cleans the type's resources (clean and can_clean:
	// the types with an execution context).
	clean bool
	// unsupported: systemd does not support the type where the fake plays
	// it, a container as the sandbox its releases were measured in (247,
	// 252, 257 and 262; the type's supported returns false): devices (no
	// udev; with udev systemd would wait for the kernel to announce the
	// device), swaps and automounts. Such a unit loads, but CanStart and
	// CanStop are false and its start job ends unsupported.
	unsupported bool
	// startLimit: the type has a start rate limit (its can_start calls
	// unit_test_start_limit; startlimit.go).
	startLimit bool
}

// unitTypes are the unit types by their names, the suffix of a unit's
// name.
var unitTypes = map[string]unitType{
	// service.c, dbus-service.c.
	"service": {iface: "org.freedesktop.systemd1.Service", startLimit: true, transient: true, cgroup: true, delegate: true, freeze: true, managedOOM: true, clean: true},
	// scope.c, dbus-scope.c.
	"scope": {iface: "org.freedesktop.systemd1.Scope", transient: true, cgroup: true, delegate: true, freeze: true, managedOOM: true},
	// slice.c, dbus-slice.c.
	"slice": {iface: "org.freedesktop.systemd1.Slice", transient: true, cgroup: true, freeze: true, managedOOM: true},
	// target.c, dbus-target.c.
	"target": {iface: "org.freedesktop.systemd1.Target"},
	// socket.c, dbus-socket.c.
	"socket": {iface: "org.freedesktop.systemd1.Socket", startLimit: true, transient: true, cgroup: true, clean: true},
	// mount.c, dbus-mount.c.
	"mount": {iface: "org.freedesktop.systemd1.Mount", startLimit: true, cgroup: true, clean: true},
	// swap.c, dbus-swap.c: swap_supported.
	"swap": {iface: "org.freedesktop.systemd1.Swap", startLimit: true, cgroup: true, clean: true, unsupported: true},
	// automount.c, dbus-automount.c: automount_supported.
	"automount": {iface: "org.freedesktop.systemd1.Automount", startLimit: true, unsupported: true},
	// device.c, dbus-device.c: device_supported.
	"device": {iface: "org.freedesktop.systemd1.Device", unsupported: true},
	// path.c, dbus-path.c.
	"path": {iface: "org.freedesktop.systemd1.Path", startLimit: true},
	// timer.c, dbus-timer.c.
	"timer": {iface: "org.freedesktop.systemd1.Timer", startLimit: true, transient: true},
}
