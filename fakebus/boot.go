package fakebus

// The units a booted system has: systemd's standard targets (its units/
// directory; systemd.special(7)), as vendor unit files, and the ones
// multi-user.target pulls in active, as after a boot to it. They are the
// targets the default dependencies name (dependencies.go), so that
// sysinit.target, basic.target or shutdown.target is a unit a client can
// read, as on systemd. Besides the targets, the system manager has the
// units of the system bus and of the journal that a booted system runs
// and clients look for (bootedServices). A unit file given with
// WithUnitFile of the same name replaces one.

import (
	"slices"
	"strings"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// standardTarget is one of systemd's standard targets, with the settings
// of its unit file that the fake takes.
type standardTarget struct {
	name string
	// description is its Description=, old its description before
	// sdversions.TargetDescriptionsRenamed ("" if the same).
	description, old string
	nodef            bool // DefaultDependencies=no
	requires, wants  []string
	after, before    []string
	conflicts        []string
	onFailure        []string
	refuseStart      bool // RefuseManualStart=yes
	allowIsolate     bool
	booted           bool // active from the start: multi-user.target pulls it in
}

// standardTargets are systemd's units/*.target for the targets that the
// default dependencies name and the boot to multi-user.target, as
// Debian's systemd 252 to 262 ship them (247's differ in the
// descriptions and in sysinit.target's order against emergency.target:
// standardUnitFiles). The fake does not take basic.target's
// RequiresMountsFor= nor local-fs.target's OnFailureJobMode=.
var standardTargets = []standardTarget{
	{name: "multi-user.target", description: "Multi-User System", requires: []string{"basic.target"},
		wants:     []string{"dbus.service"}, // its .wants/ symlink, Debian's dbus package's
		conflicts: []string{"rescue.service", "rescue.target"}, after: []string{"basic.target", "rescue.service", "rescue.target"},
		allowIsolate: true, booted: true},
	{name: "basic.target", description: "Basic System", requires: []string{"sysinit.target"},
		wants: []string{"sockets.target", "timers.target", "paths.target", "slices.target", "tmp.mount"},
		after: []string{"sysinit.target", "sockets.target", "paths.target", "slices.target", "tmp.mount"}, booted: true},
	{name: "sysinit.target", description: "System Initialization", wants: []string{"local-fs.target", "swap.target", "systemd-journald.service"},
		after: []string{"local-fs.target", "swap.target"}, conflicts: []string{"emergency.service", "emergency.target"},
		before: []string{"emergency.service", "emergency.target"}, booted: true},
	{name: "sockets.target", description: "Socket Units", old: "Sockets", booted: true}, // wants: bootedSockets
	{name: "timers.target", description: "Timer Units", old: "Timers", nodef: true, conflicts: []string{"shutdown.target"}, booted: true},
	{name: "paths.target", description: "Path Units", old: "Paths", booted: true},
	{name: "slices.target", description: "Slice Units", old: "Slices", wants: []string{"-.slice", "system.slice"}, after: []string{"-.slice", "system.slice"}, booted: true},
	{name: "local-fs.target", description: "Local File Systems", nodef: true, conflicts: []string{"shutdown.target"},
		after: []string{"local-fs-pre.target"}, onFailure: []string{"emergency.target"}, booted: true},
	{name: "local-fs-pre.target", description: "Preparation for Local File Systems", old: "Local File Systems (Pre)", refuseStart: true},
	{name: "swap.target", description: "Swaps", old: "Swap", booted: true},
	{name: "shutdown.target", description: "System Shutdown", old: "Shutdown", nodef: true, refuseStart: true},
	{name: "umount.target", description: "Unmount All Filesystems", nodef: true, refuseStart: true},
	{name: "network.target", description: "Network", after: []string{"network-pre.target"}, refuseStart: true},
	{name: "network-online.target", description: "Network is Online", after: []string{"network.target"}},
	{name: "remote-fs-pre.target", description: "Preparation for Remote File Systems", refuseStart: true},
	{name: "remote-fs.target", description: "Remote File Systems", nodef: true, conflicts: []string{"shutdown.target"}, after: []string{"remote-fs-pre.target"}},
	{name: "time-set.target", description: "System Time Set", refuseStart: true},
	{name: "time-sync.target", description: "System Time Synchronized", refuseStart: true, wants: []string{"time-set.target"}, after: []string{"time-set.target"}},
}

// userTargets are systemd's units/user/*.target for the targets a user
// manager's default dependencies name and its boot to default.target,
// the same on 247, 252, 257 and 262 (their descriptions were not
// renamed). A booted user manager has the five marked booted active and
// shutdown.target inactive.
var userTargets = []standardTarget{
	{name: "default.target", description: "Main User Target", requires: []string{"basic.target"},
		after: []string{"basic.target"}, allowIsolate: true, booted: true},
	{name: "basic.target", description: "Basic System", wants: []string{"sockets.target", "timers.target", "paths.target"},
		after: []string{"sockets.target", "timers.target", "paths.target"}, booted: true},
	{name: "sockets.target", description: "Sockets", booted: true},
	{name: "timers.target", description: "Timers", nodef: true, conflicts: []string{"shutdown.target"}, booted: true},
	{name: "paths.target", description: "Paths", booted: true},
	{name: "shutdown.target", description: "Shutdown", nodef: true, refuseStart: true},
}

// standardUnitFiles returns the standard targets as vendor unit files
// for release r, the system manager's or with user a user manager's, and
// the names of those active from the start; for the system manager also
// the booted system's services and their sockets (bootedServices), last,
// sockets first.
func standardUnitFiles(r sdversions.Release, user bool) (files []UnitFile, booted []string) {
	targets := standardTargets
	if user {
		targets = userTargets
	}
	var services []UnitFile
	if !user {
		services = bootedServices(r)
	}
	for _, t := range targets {
		if !user && t.name == "sockets.target" {
			// The sockets' .wants/ symlinks (Debian's dbus and systemd
			// packages).
			for _, f := range services {
				if strings.HasSuffix(f.Name, ".socket") {
					t.wants = append(slices.Clone(t.wants), f.Name)
				}
			}
		}
		desc := t.description
		if !user && !sdversions.Behaves(r, sdversions.TargetDescriptionsRenamed) {
			if t.old != "" {
				desc = t.old
			}
			if t.name == "sysinit.target" {
				// 247's orders it after emergency.service and
				// emergency.target, not before.
				t.after = append(slices.Clone(t.after), t.before...)
				t.before = nil
			}
		}
		props := []sdbus.Property{sdbus.PropDescription(desc)}
		add := func(name string, v []string) {
			if len(v) > 0 {
				props = append(props, sdbus.PropRaw(name, v))
			}
		}
		add("Requires", t.requires)
		add("Wants", t.wants)
		add("After", t.after)
		add("Before", t.before)
		add("Conflicts", t.conflicts)
		add("OnFailure", t.onFailure)
		if t.nodef {
			props = append(props, sdbus.PropRaw("DefaultDependencies", false))
		}
		if t.refuseStart {
			props = append(props, sdbus.PropRaw("RefuseManualStart", true))
		}
		if t.allowIsolate {
			props = append(props, sdbus.PropRaw("AllowIsolate", true))
		}
		f := UnitFile{Name: t.name, Properties: props}
		if t.name == "multi-user.target" && !user {
			// The system the fake boots is booted to multi-user.target:
			// default.target stands for it (GetDefaultTarget, systemctl
			// get-default), as the sandbox's systemd answers on 247, 252,
			// 257 and 262. (A user manager's default.target is a unit of
			// its own.)
			f.Aliases = []string{"default.target"}
		}
		files = append(files, f)
		if t.booted {
			booted = append(booted, t.name)
		}
	}
	for _, f := range services {
		files = append(files, f)
		booted = append(booted, f.Name)
	}
	return files, booted
}

// bootedServices are the units besides the targets that a booted Debian
// system has running and that clients look for (a D-Bus client checks
// that the system bus runs, a logging library that the journal does):
// dbus.socket and dbus.service, of Debian's dbus package, and
// systemd-journald.service with the sockets it takes (Sockets=), of
// systemd, as vendor unit files of release r with the settings the fake
// takes (descriptions, dependencies, Type=, ExecStart=, Listen=, ...; not
// the sandboxing, limits, buffers, Condition*= and the like), sockets
// first. All are active from the start, the services running and the
// sockets running with them (socketsFollowLocked), as 247, 252,
// 257 and 262 show them in scripts/sandbox with their Debian unit files
// (static; UnitFilePreset enabled): systemctl show -p
// ActiveState,SubState dbus.service dbus.socket systemd-journald.service
// systemd-journald.socket gives active/running for each. No process of
// the fake plays their services: their MainPID is 0 (startedWithoutProcess).
// systemd-journald-audit.socket (ConditionSecurity=audit,
// ConditionCapability=CAP_AUDIT_READ) is one of journald's sockets, pulled
// in by sockets.target, until 257 (JournalAuditSocketOptional): the fake
// has it active on 247 and 252, where the sandbox's conditions held, and
// not at all from 257 on, where a boot leaves it inactive.
func bootedServices(r sdversions.Release) []UnitFile {
	journalDoc := sdbus.PropRaw("Documentation", []string{"man:systemd-journald.service(8)", "man:journald.conf(5)"})
	listen := func(typ, addr string) struct{ Type, Address string } {
		return struct{ Type, Address string }{typ, addr}
	}
	journalSocket := func(name, desc string, listens ...struct{ Type, Address string }) UnitFile {
		return UnitFile{Name: name, Properties: []sdbus.Property{
			sdbus.PropDescription(desc), journalDoc, sdbus.PropDefaultDependencies(false), sdbus.PropBefore("sockets.target"),
			sdbus.PropRaw("Listen", listens), sdbus.PropRaw("Service", "systemd-journald.service"),
		}}
	}
	audit := !sdversions.Behaves(r, sdversions.JournalAuditSocketOptional)
	socketDesc := "Journal Socket"
	if sdversions.Behaves(r, sdversions.JournalSocketsDescribed) {
		socketDesc = "Journal Sockets"
	}
	files := []UnitFile{
		{Name: "dbus.socket", Properties: []sdbus.Property{
			sdbus.PropDescription("D-Bus System Message Bus Socket"),
			sdbus.PropRaw("Listen", []struct{ Type, Address string }{listen("Stream", "/run/dbus/system_bus_socket")}),
		}},
		journalSocket("systemd-journald.socket", socketDesc,
			listen("Datagram", "/run/systemd/journal/socket"), listen("Stream", "/run/systemd/journal/stdout")),
		journalSocket("systemd-journald-dev-log.socket", "Journal Socket (/dev/log)",
			listen("Datagram", "/run/systemd/journal/dev-log")),
	}
	if audit {
		files = append(files, journalSocket("systemd-journald-audit.socket", "Journal Audit Socket", listen("Netlink", "audit 1")))
	}

	busType := sdbus.ServiceSimple
	if sdversions.Behaves(r, sdversions.BusServiceNotify) {
		busType = sdbus.ServiceNotify // with NotifyAccess=main, which the fake does not take
	}
	bus := []sdbus.Property{
		sdbus.PropDescription("D-Bus System Message Bus"),
		sdbus.PropRaw("Documentation", []string{"man:dbus-daemon(1)"}),
		sdbus.PropRequires("dbus.socket"),
		sdbus.PropType(busType),
		sdbus.PropExecStart([]string{"/usr/bin/dbus-daemon", "--system", "--address=systemd:", "--nofork", "--nopidfile", "--systemd-activation", "--syslog-only"}, false),
		sdbus.PropRaw("ExecReload", []execCommand{{Path: "/usr/bin/dbus-send", Argv: []string{"/usr/bin/dbus-send", "--print-reply", "--system", "--type=method_call", "--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.ReloadConfig"}}}),
		sdbus.PropRaw("OOMScoreAdjust", int32(-900)),
	}
	if sdversions.Behaves(r, sdversions.BusServiceUser) {
		bus = append(bus, sdbus.PropRaw("User", "messagebus"), sdbus.PropRaw("Group", "messagebus"))
	}

	journalType, journald := sdbus.ServiceNotify, "/lib/systemd/systemd-journald"
	if sdversions.Behaves(r, sdversions.JournalNotifyReload) {
		journalType = sdbus.ServiceNotifyReload
	}
	if sdversions.Behaves(r, sdversions.SystemdBinariesInUsr) {
		journald = "/usr/lib/systemd/systemd-journald"
	}
	journal := []sdbus.Property{
		sdbus.PropDescription("Journal Service"), journalDoc, sdbus.PropDefaultDependencies(false),
		sdbus.PropRequires("systemd-journald.socket"),
		sdbus.PropAfter("systemd-journald.socket", "systemd-journald-dev-log.socket", "systemd-journald-audit.socket", "syslog.socket"),
		sdbus.PropBefore("sysinit.target"),
		sdbus.PropType(journalType),
		sdbus.PropExecStart([]string{journald}, false),
		sdbus.PropRaw("Restart", "always"), sdbus.PropRaw("RestartUSec", uint64(0)),
		sdbus.PropRaw("OOMScoreAdjust", int32(-250)),
	}
	return append(files, UnitFile{Name: "dbus.service", Properties: bus}, UnitFile{Name: "systemd-journald.service", Properties: journal})
}

// addStandardFileLocked adds one of standardUnitFiles' files: the
// settings a transient unit could be given are checked as any unit
// file's (addFileLocked), those only a unit file has (fileOnlySetting)
// are added as they are.
func (m *manager) addStandardFileLocked(f UnitFile) error {
	var fileOnly []sdbus.Property
	f.Properties = slices.DeleteFunc(slices.Clone(f.Properties), func(p sdbus.Property) bool {
		if fileOnlySetting(p.Name) {
			fileOnly = append(fileOnly, p)
			return true
		}
		return false
	})
	if err := m.addFileLocked(f); err != nil {
		return err
	}
	added := m.files[f.Name]
	added.Properties = append(added.Properties, fileOnly...)
	m.files[f.Name] = added
	return nil
}

// fileOnlySetting reports whether a setting of the standard unit files
// is one no transient unit takes: a socket's Service= (a transient
// socket's service is the auxiliary unit of its name).
func fileOnlySetting(name string) bool { return name == "Service" }

// startedWithoutProcess makes a service of the booted system, active
// from the start (activateAtStartLocked), one whose main process the fake
// does not play: MainPID and ExecMainPID 0, no process in
// GetUnitProcesses, none GetUnitByPID finds it by. A made-up PID, as the
// fake gives the services it starts, could name a real process of the
// client's, where PIDs are few (fakesystemd run's PID namespace); under
// fakesystemd run the fake answers on the bus socket itself, but the
// process it runs in is PID 1 (init.scope's) or, as another user, one
// CMD descends from. Started again by a client, it runs as any service
// the fake starts.
func startedWithoutProcess(u *unit) {
	if u.kind == "service" && u.proc != nil {
		u.proc.pid, u.exec.pid = 0, 0
	}
}
