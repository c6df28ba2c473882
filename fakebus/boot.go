package fakebus

// The units a booted system has: systemd's standard targets (its units/
// directory; systemd.special(7)), as vendor unit files, and the ones
// multi-user.target pulls in active, as after a boot to it. They are the
// targets the default dependencies name (dependencies.go), so that
// sysinit.target, basic.target or shutdown.target is a unit a client can
// read, as on systemd. A unit file given with WithUnitFile of the same
// name replaces one.

import (
	"slices"

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
		conflicts: []string{"rescue.service", "rescue.target"}, after: []string{"basic.target", "rescue.service", "rescue.target"},
		allowIsolate: true, booted: true},
	{name: "basic.target", description: "Basic System", requires: []string{"sysinit.target"},
		wants: []string{"sockets.target", "timers.target", "paths.target", "slices.target", "tmp.mount"},
		after: []string{"sysinit.target", "sockets.target", "paths.target", "slices.target", "tmp.mount"}, booted: true},
	{name: "sysinit.target", description: "System Initialization", wants: []string{"local-fs.target", "swap.target"},
		after: []string{"local-fs.target", "swap.target"}, conflicts: []string{"emergency.service", "emergency.target"},
		before: []string{"emergency.service", "emergency.target"}, booted: true},
	{name: "sockets.target", description: "Socket Units", old: "Sockets", booted: true},
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
// the names of those active from the start.
func standardUnitFiles(r sdversions.Release, user bool) (files []UnitFile, booted []string) {
	targets := standardTargets
	if user {
		targets = userTargets
	}
	for _, t := range targets {
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
		files = append(files, UnitFile{Name: t.name, Properties: props})
		if t.booted {
			booted = append(booted, t.name)
		}
	}
	return files, booted
}
