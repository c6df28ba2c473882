package fakebus

// Who may do what: systemd's access control as an unprivileged caller
// meets it (measured on 247, 252, 257 and 262 as uid 65534 through
// dbus-daemon, with no polkit; the conformance case UnprivilegedAccess):
//
//  1. The bus policy systemd ships (org.freedesktop.systemd1.conf): a
//     caller that is not root may send the manager only the methods it
//     lists (busPolicy); dbus-daemon rejects the others before systemd
//     sees them (busPolicyLocked).
//  2. sd-bus refuses a method or property declared without
//     SD_BUS_VTABLE_UNPRIVILEGED (annotated org.freedesktop.systemd1.Privileged:
//     Exit, Reboot, ..., SetShowStatus on 247) after the signature check
//     (callLocked).
//  3. The methods that change something ask polkit, after the checks
//     systemd makes first (a job method's name and mode, KillUnit's whom
//     and signal, a job or unit that does not exist, ...): with no polkit
//     (or polkit's default rules and no agent) the answer is AccessDenied
//     "Permission denied" (authorizeLocked, called by each handler at
//     systemd's point).

import (
	"fmt"
	"os"
	"strings"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Access is who the fake treats as privileged: who may call the methods
// systemd reserves for root (starting and stopping units, enabling unit
// files, daemon-reload, ...) and send the manager what the bus policy
// keeps from other users. An unprivileged caller gets what systemd
// answers a user that is not root (docs/fakebus.md in the repository,
// "Access control", has the table).
type Access uint8

const (
	// AccessOwner, the default of New, treats as privileged uid 0, the
	// user of a user manager (WithUserManager) and the uid the fake's
	// own process runs as: the test's own connections (Conn, Dial,
	// RawConn, Pipe, and any client of the test's uid on Address) act as
	// the root the code under test runs as in production, whoever runs
	// the tests, while a client running as another uid is refused as
	// systemd refuses it.
	AccessOwner Access = iota
	// AccessRoot treats as privileged only uid 0 and the user of a user
	// manager, as systemd does: a client of the fake's own uid is refused
	// too unless that uid is 0. fakesystemd plays it by default.
	AccessRoot
	// AccessEveryone treats every caller as privileged: nothing is
	// refused for want of privilege, nor by the system bus's policy on
	// names and calls between clients (the fake before access control).
	AccessEveryone
)

// String returns the access's name as fakesystemd's flags spell it
// ("owner", "root", "everyone").
func (a Access) String() string {
	switch a {
	case AccessOwner:
		return "owner"
	case AccessRoot:
		return "root"
	case AccessEveryone:
		return "everyone"
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}

// WithAccess sets who the fake treats as privileged (default
// AccessOwner). WithAccess(AccessEveryone) lets every caller do
// everything.
func WithAccess(a Access) Option { return func(c *config) { c.access = a } }

// privilegedLocked reports whether the fake treats the caller on p as
// privileged: its uid as the bus knows it (SO_PEERCRED on a socket, the
// uid the client names in AUTH EXTERNAL on an in-memory Pipe, which on a
// socket must agree with the kernel's).
func (m *manager) privilegedLocked(p *busd.Peer) bool { return m.cfg.privileged(p) }

// privileged is privilegedLocked for the configuration c.
func (c *config) privileged(p *busd.Peer) bool {
	if c.access == AccessEveryone || p == nil {
		return true
	}
	uid := p.UID()
	switch {
	case uid == 0:
		return true
	case c.user >= 0 && uid == uint32(c.user):
		// systemd --user trusts its own user (sd-bus: a sender of the
		// service's own uid).
		return true
	case c.access == AccessOwner && uid == uint32(os.Getuid()):
		return true
	}
	return false
}

// setBusPolicy gives the system manager's bus what dbus-daemon's system
// bus policy (Debian's system.conf, systemd's org.freedesktop.systemd1.conf)
// lets clients do besides calling the bus and the manager, measured on
// 252 as root and as uid 65534: nobody may own a name but root
// org.freedesktop.systemd1 (which the manager owns: EXISTS), and no
// client may call another's methods (Peer.Ping, Introspect and
// Properties included); signals, unicast ones too, and requested
// replies pass. Other programs' policy files (/usr/share/dbus-1/system.d)
// are not read: on a real system only those they name may own a name
// or be called. A user manager's bus is a session bus, which allows
// both, and AccessEveryone lifts the policy.
func (c *config) setBusPolicy(b *busd.Config) {
	if c.user >= 0 || c.access == AccessEveryone {
		return
	}
	b.MayOwn = func(p *busd.Peer, name string) bool {
		return name == "org.freedesktop.systemd1" && c.privileged(p)
	}
	b.MayCall = func(sender, target *busd.Peer) bool { return false }
}

// WithPolkit makes the fake answer an unprivileged caller as systemd
// does where the release's polkit (Debian's) runs with its default rules
// and no agent can ask the user: from 252 InteractiveAuthorizationRequired
// (sdversions.PolkitInteractive, PolkitInteractiveExplained), whether or
// not the call allows interactive authorization, where by default the
// fake answers as systemd with no polkit, AccessDenied "Permission
// denied" (as 247 with its polkit does too).
func WithPolkit() Option { return func(c *config) { c.polkit = true } }

// refusal is systemd's answer when polkit does not authorize a call:
// with no polkit on the bus AccessDenied "Permission denied", with polkit
// and no agent what WithPolkit says.
func (m *manager) refusal() *callErr {
	switch {
	case !m.cfg.polkit || !sdversions.Behaves(m.release, sdversions.PolkitInteractive):
		return &callErr{dbusErr + "AccessDenied", "Permission denied"}
	case sdversions.Behaves(m.release, sdversions.PolkitInteractiveExplained):
		return &callErr{dbusErr + "InteractiveAuthorizationRequired", "Access denied as the requested operation requires interactive authentication. " +
			"However, interactive authentication has not been enabled by the calling program."}
	}
	return &callErr{dbusErr + "InteractiveAuthorizationRequired", "Interactive authentication required."}
}

// authorizeLocked is systemd's polkit check of c
// (bus_verify_polkit_async): nil for a privileged caller, else
// refusal's answer.
func (m *manager) authorizeLocked(c *busd.Call) error {
	if c == nil || m.privilegedLocked(c.Peer) {
		return nil
	}
	return m.refusal()
}

// authorizeFirst are the methods that ask polkit before any check of
// their arguments (measured: StartTransientUnit with an invalid name,
// SetShowStatus with an invalid mode, the unit-file methods with a unit
// that has no file are refused). The other methods that ask call
// authorizeLocked themselves, where systemd does.
var authorizeFirst = map[string]bool{
	"StartTransientUnit": true, "ClearJobs": true, "ResetFailed": true, "Reload": true, "Reexecute": true,
	"SetShowStatus": true, "SetExitCode": true, "EnqueueMarkedJobs": true,
	"EnableUnitFiles": true, "DisableUnitFiles": true, "ReenableUnitFiles": true, "LinkUnitFiles": true,
	"PresetUnitFiles": true, "MaskUnitFiles": true, "UnmaskUnitFiles": true, "RevertUnitFiles": true,
	"SetDefaultTarget": true, "AddDependencyUnitFiles": true, "RefUnit": true,
	"AbandonScope": true,
}

// errNotPermitted is sd-bus's refusal of a privileged member (check_access).
func errNotPermitted(iface, member string) *callErr {
	return &callErr{dbusErr + "AccessDenied", "Access to " + iface + "." + member + "() not permitted."}
}

// policyMember is one method the bus policy lets every user send the
// manager, from the release that first allowed it.
type policyMember struct {
	iface, member string
	since         string
}

// busPolicy is the default context of systemd's
// /usr/share/dbus-1/system.d/org.freedesktop.systemd1.conf, as Debian's
// systemd 247, 252, 257 and 262 ship it: everything else a user that is
// not root sends org.freedesktop.systemd1 is rejected by dbus-daemon.
var busPolicy = func() map[string]string {
	const (
		intro = "org.freedesktop.DBus.Introspectable"
		peer  = "org.freedesktop.DBus.Peer"
		props = "org.freedesktop.DBus.Properties"
		mgr   = "org.freedesktop.systemd1.Manager"
		unit  = "org.freedesktop.systemd1.Unit"
		job   = "org.freedesktop.systemd1.Job"
		pre   = "org.freedesktop.systemd1."
	)
	rows := []policyMember{
		{intro, "", "247"}, {peer, "", "247"}, {props, "Get", "247"}, {props, "GetAll", "247"},
		{job, "Cancel", "247"}, {job, "GetAfter", "247"}, {job, "GetBefore", "247"},
		{pre + "Service", "AttachProcesses", "247"}, {pre + "Scope", "AttachProcesses", "247"},
		{pre + "Service", "BindMount", "252"}, {pre + "Service", "MountImage", "252"},
		{unit, "QueueSignal", "257"},
		{unit, "KillSubgroup", "262"}, {unit, "Freeze", "262"}, {unit, "Thaw", "262"},
	}
	for _, t := range []string{"Service", "Slice", "Scope", "Socket", "Mount", "Swap"} {
		rows = append(rows, policyMember{pre + t, "GetProcesses", "247"})
	}
	for _, m := range strings.Fields("Start Stop Reload Restart TryRestart ReloadOrRestart ReloadOrTryRestart Kill ResetFailed SetProperties Ref Unref") {
		rows = append(rows, policyMember{unit, m, "247"})
	}
	for since, ms := range map[string]string{
		"247": "GetUnit GetUnitByPID GetUnitByInvocationID GetUnitByControlGroup LoadUnit GetUnitProcesses " +
			"GetJob GetJobAfter GetJobBefore ListUnits ListUnitsFiltered ListUnitsByPatterns ListUnitsByNames ListJobs " +
			"Subscribe Unsubscribe Dump DumpByFileDescriptor ListUnitFiles ListUnitFilesByPatterns GetUnitFileState " +
			"GetDefaultTarget GetUnitFileLinks LookupDynamicUserByName LookupDynamicUserByUID GetDynamicUsers " +
			"StartUnit StartUnitReplace StopUnit ReloadUnit RestartUnit TryRestartUnit ReloadOrRestartUnit " +
			"ReloadOrTryRestartUnit KillUnit ResetFailedUnit SetUnitProperties RefUnit UnrefUnit StartTransientUnit " +
			"AttachProcessesToUnit CancelJob ClearJobs ResetFailed Reload Reexecute EnableUnitFiles DisableUnitFiles " +
			"ReenableUnitFiles LinkUnitFiles PresetUnitFiles PresetUnitFilesWithMode MaskUnitFiles UnmaskUnitFiles " +
			"RevertUnitFiles SetDefaultTarget PresetAllUnitFiles AddDependencyUnitFiles SetShowStatus",
		"252": "DumpUnitsMatchingPatterns DumpUnitsMatchingPatternsByFileDescriptor BindMountUnit MountImageUnit",
		"257": "GetUnitByPIDFD QueueSignalUnit EnableUnitFilesWithFlags DisableUnitFilesWithFlags " +
			"DisableUnitFilesWithFlagsAndInstallInfo SetEnvironment UnsetEnvironment UnsetAndSetEnvironment",
		"262": "KillUnitSubgroup RemoveSubgroupFromUnit FreezeUnit ThawUnit",
	} {
		for _, m := range strings.Fields(ms) {
			rows = append(rows, policyMember{mgr, m, since})
		}
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.iface+" "+r.member] = r.since
	}
	return out
}()

// policyAllowsLocked reports whether the bus policy of the played
// release lets anyone send c.
func (m *manager) policyAllowsLocked(c *busd.Call) bool {
	if c.Interface == "" {
		// dbus-daemon skips allow rules that name an interface for a
		// message without one.
		return false
	}
	since, ok := busPolicy[c.Interface+" "]
	if !ok {
		since, ok = busPolicy[c.Interface+" "+c.Member]
	}
	return ok && m.release.AtLeast(sdversions.R(since))
}

// busPolicyLocked is dbus-daemon's check of a call to the system
// manager on the bus: nil when the policy lets the caller send it, else
// dbus-daemon's AccessDenied, worded as dbus-daemon words it.
func (m *manager) busPolicyLocked(c *busd.Call) error {
	if c.Peer == nil || c.Peer.Mode() != busd.BusMode || m.cfg.user >= 0 || m.privilegedLocked(c.Peer) || m.policyAllowsLocked(c) {
		return nil
	}
	unset := func(s string) string {
		if s == "" {
			return "(unset)"
		}
		return s
	}
	return &callErr{dbusErr + "AccessDenied", fmt.Sprintf(
		`Rejected send message, 2 matched rules; type="method_call", sender="%s" (%s) interface="%s" member="%s" error name="(unset)" requested_reply="0" destination="%s" (%s)`,
		c.Peer.UniqueName(), busd.Credentials(c.Peer.UID(), c.Peer.PID()), unset(c.Interface), c.Member,
		c.Destination(), busd.Credentials(uint32(os.Getuid()), uint32(os.Getpid())))}
}
