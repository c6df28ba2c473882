package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testDefaultDependencies: the dependencies systemd adds by itself, by
// unit type, with DefaultDependencies=yes and =no: a service's on
// sysinit.target, basic.target and shutdown.target, a socket's, timer's
// and path unit's on their type's target, a calendar timer's on
// time-sync.target, a target's ordering after the units it wants, a
// slice's on shutdown.target, a mount's on local-fs.target
// (remote-fs.target and the network for NFS, swap.target for a tmpfs)
// and umount.target, an automount's, a swap file's on
// systemd-remount-fs.service; and, whatever DefaultDependencies= says, a
// service's, mount's and swap's ordering after systemd-journald.socket
// unless its output goes elsewhere; the paths a mount needs: its
// directory's, a bind mount's source. Each list is compared sorted
// (systemd gives some in hash order), without the names of this case's
// other units that it does not expect (inverse entries that come and go
// as they are loaded and collected). A calendar timer's specs read back
// normalized (OnCalendar=daily as "*-*-* 00:00:00"), an invalid one is
// ignored.
func testDefaultDependencies(t *testing.T, e *env) {
	raw := e.rawBus(t)
	base := func(kind string) string { n := e.unit(kind, "x"); return n[:len(n)-2] }
	svc, svcNodef, svcNull := base("ddsvc")+".service", base("ddsvcnodef")+".service", base("ddsvcnull")+".service"
	target, targetNodef := base("ddtgt")+".target", base("ddtgtnodef")+".target"
	sock, sockNodef := base("ddsock")+".socket", base("ddsocknodef")+".socket"
	calendar, mono, timerNodef := base("ddcal")+".timer", base("ddmono")+".timer", base("ddtimernodef")+".timer"
	pathU, pathNodef := base("ddpath")+".path", base("ddpathnodef")+".path"
	slice, sliceNodef := e.unit("ddslice", "slice"), e.unit("ddslicenodef", "slice")
	run := func(kind string) string { return "/run/" + base(kind) }
	tmpfs, bind, mountNodef, nfs, auto, swapFile, swapNodef := run("ddtmpfs"), run("ddbind"), run("ddmntnodef"), run("ddnfs"), run("ddauto"), run("ddswap"), run("ddswapnodef")
	bindSrc := run("ddbindsrc")
	unitOf := func(p, kind string) string { return sdbus.EscapeUnitPath(p) + "." + kind }
	sockPath, sockNodefPath := run("ddsockpath")+".sock", run("ddsocknodefpath")+".sock"
	never := run("ddnever")
	nodef := "[Unit]\nDefaultDependencies=no\n"
	sleeper := "[Service]\nExecStart=/bin/sleep 300\n"
	files := map[string]string{
		svc:                         sleeper,
		svcNodef:                    nodef + sleeper,
		svcNull:                     sleeper + "StandardOutput=null\n",
		target:                      "[Unit]\nWants=" + svc + " " + svcNodef + "\n",
		targetNodef:                 nodef + "Wants=" + svc + "\n",
		sock:                        "[Socket]\nListenStream=" + sockPath + "\n",
		sockNodef:                   nodef + "[Socket]\nListenStream=" + sockNodefPath + "\n",
		calendar:                    "[Timer]\nOnCalendar=daily\nOnCalendar=Wed..Fri,Mon 9:00\nOnCalendar=junk\nUnit=" + svc + "\n",
		mono:                        "[Timer]\nOnActiveSec=1h\nUnit=" + svc + "\n",
		timerNodef:                  nodef + "[Timer]\nOnActiveSec=1h\nUnit=" + svc + "\n",
		pathU:                       "[Path]\nPathExists=" + never + "\nUnit=" + svc + "\n",
		pathNodef:                   nodef + "[Path]\nPathExists=" + never + "\nUnit=" + svc + "\n",
		slice:                       "[Unit]\n",
		sliceNodef:                  nodef,
		unitOf(tmpfs, "mount"):      "[Mount]\nWhat=tmpfs\nWhere=" + tmpfs + "\nType=tmpfs\n",
		unitOf(bind, "mount"):       "[Mount]\nWhat=" + bindSrc + "\nWhere=" + bind + "\nOptions=bind\n",
		unitOf(mountNodef, "mount"): nodef + "[Mount]\nWhat=tmpfs\nWhere=" + mountNodef + "\nType=tmpfs\n",
		unitOf(nfs, "mount"):        "[Mount]\nWhat=server:/export\nWhere=" + nfs + "\nType=nfs\n",
		unitOf(auto, "automount"):   "[Automount]\nWhere=" + auto + "\n",
		unitOf(swapFile, "swap"):    "[Swap]\nWhat=" + swapFile + "\n",
		unitOf(swapNodef, "swap"):   nodef + "[Swap]\nWhat=" + swapNodef + "\n",
	}
	writeUnitFiles(t, e, files)
	// The services the targets want run, so that they are loaded when
	// the targets load (a target is ordered after a loaded unit only).
	for _, n := range []string{svc, svcNodef} {
		cleanup(t, e, n)
		j, err := e.c.StartUnit(e.ctx, n, sdbus.ModeReplace)
		if err != nil {
			t.Fatalf("StartUnit %s: %v", n, err)
		}
		wait(t, e, j, sdbus.JobDone)
	}

	if _, err := e.c.LoadUnit(e.ctx, calendar); err != nil {
		t.Fatalf("LoadUnit %s: %v", calendar, err)
	}
	var calendars []struct {
		Base, Spec string
		Next       uint64
	}
	if err := dbus.Store([]any{unitProp(t, e, raw, calendar, "org.freedesktop.systemd1.Timer", "TimersCalendar")}, &calendars); err != nil {
		t.Fatal(err)
	}
	var specs []string
	for _, c := range calendars {
		specs = append(specs, c.Base+" "+c.Spec)
	}
	slices.Sort(specs)
	if diff := cmp.Diff([]string{"OnCalendar *-*-* 00:00:00", "OnCalendar Mon,Wed..Fri *-*-* 09:00:00"}, specs); diff != "" {
		t.Errorf("%s: TimersCalendar (-want +got):\n%s", calendar, diff)
	}

	calendarAfter := []string{"sysinit.target", "time-sync.target"}
	if sdversions.Behaves(e.release, sdversions.TimerAfterTimeSet) {
		calendarAfter = append(calendarAfter, "time-set.target")
	}
	type lists struct{ Requires, Wants, After, Before, Conflicts, RequiresMountsFor []string }
	shutdown := []string{"shutdown.target"}
	umount := []string{"umount.target"}
	for _, tc := range []struct {
		unit string
		want lists
	}{
		{svc, lists{Requires: []string{"sysinit.target", "system.slice"}, After: []string{"basic.target", "sysinit.target", "system.slice", "systemd-journald.socket"}, Before: shutdown, Conflicts: shutdown}},
		{svcNodef, lists{Requires: []string{"system.slice"}, After: []string{"system.slice", "systemd-journald.socket"}}},
		{svcNull, lists{Requires: []string{"sysinit.target", "system.slice"}, After: []string{"basic.target", "sysinit.target", "system.slice"}, Before: shutdown, Conflicts: shutdown}},
		{target, lists{Wants: []string{svc, svcNodef}, After: []string{svc}, Before: shutdown, Conflicts: shutdown}},
		{targetNodef, lists{Wants: []string{svc}}},
		{sock, lists{Requires: []string{"sysinit.target", "system.slice"}, After: []string{"-.mount", "sysinit.target", "system.slice"}, Before: []string{"shutdown.target", "sockets.target", strings.TrimSuffix(sock, ".socket") + ".service"}, Conflicts: shutdown, RequiresMountsFor: []string{sockPath}}},
		{sockNodef, lists{Requires: []string{"system.slice"}, After: []string{"-.mount", "system.slice"}, Before: []string{strings.TrimSuffix(sockNodef, ".socket") + ".service"}, RequiresMountsFor: []string{sockNodefPath}}},
		{calendar, lists{Requires: []string{"sysinit.target"}, After: calendarAfter, Before: []string{"shutdown.target", "timers.target", svc}, Conflicts: shutdown}},
		{mono, lists{Requires: []string{"sysinit.target"}, After: []string{"sysinit.target"}, Before: []string{"shutdown.target", "timers.target", svc}, Conflicts: shutdown}},
		{timerNodef, lists{Before: []string{svc}}},
		{pathU, lists{Requires: []string{"sysinit.target"}, After: []string{"-.mount", "sysinit.target"}, Before: []string{"paths.target", "shutdown.target", svc}, Conflicts: shutdown, RequiresMountsFor: []string{never}}},
		{pathNodef, lists{After: []string{"-.mount"}, Before: []string{svc}, RequiresMountsFor: []string{never}}},
		{slice, lists{Requires: []string{"-.slice"}, After: []string{"-.slice"}, Before: shutdown, Conflicts: shutdown}},
		{sliceNodef, lists{Requires: []string{"-.slice"}, After: []string{"-.slice"}}},
		{unitOf(tmpfs, "mount"), lists{Requires: []string{"system.slice"}, After: []string{"-.mount", "local-fs-pre.target", "swap.target", "system.slice", "systemd-journald.socket"}, Before: []string{"local-fs.target", "umount.target"}, Conflicts: umount, RequiresMountsFor: []string{"/run"}}},
		{unitOf(bind, "mount"), lists{Requires: []string{"system.slice"}, After: []string{"-.mount", "local-fs-pre.target", "system.slice", "systemd-journald.socket"}, Before: []string{"local-fs.target", "umount.target"}, Conflicts: umount, RequiresMountsFor: []string{"/run", bindSrc}}},
		{unitOf(mountNodef, "mount"), lists{Requires: []string{"system.slice"}, After: []string{"-.mount", "system.slice", "systemd-journald.socket"}, RequiresMountsFor: []string{"/run"}}},
		{unitOf(nfs, "mount"), lists{Requires: []string{"system.slice"}, Wants: []string{"network-online.target"}, After: []string{"-.mount", "network-online.target", "network.target", "remote-fs-pre.target", "system.slice", "systemd-journald.socket"}, Before: []string{"remote-fs.target", "umount.target"}, Conflicts: umount, RequiresMountsFor: []string{"/run"}}},
		{unitOf(auto, "automount"), lists{After: []string{"-.mount", "local-fs-pre.target"}, Before: []string{"local-fs.target", unitOf(auto, "mount"), "umount.target"}, Conflicts: umount, RequiresMountsFor: []string{"/run"}}},
		{unitOf(swapFile, "swap"), lists{Requires: []string{"system.slice"}, After: []string{"-.mount", "system.slice", "systemd-journald.socket", "systemd-remount-fs.service"}, RequiresMountsFor: []string{swapFile}}},
		{unitOf(swapNodef, "swap"), lists{Requires: []string{"system.slice"}, After: []string{"-.mount", "system.slice", "systemd-journald.socket", "systemd-remount-fs.service"}, RequiresMountsFor: []string{swapNodef}}},
	} {
		t.Run(tc.unit, func(t *testing.T) {
			if _, err := e.c.LoadUnit(e.ctx, tc.unit); err != nil {
				t.Fatalf("LoadUnit: %v", err)
			}
			get := func(name string, want []string) []string {
				var out []string
				for _, n := range unitProp(t, e, raw, tc.unit, "org.freedesktop.systemd1.Unit", name).([]string) {
					if !strings.Contains(n, "sdbus") || slices.Contains(want, n) {
						out = append(out, n)
					}
				}
				slices.Sort(out)
				return out
			}
			sorted := func(l []string) []string {
				out := slices.Clone(l)
				slices.Sort(out)
				return out
			}
			want := lists{sorted(tc.want.Requires), sorted(tc.want.Wants), sorted(tc.want.After), sorted(tc.want.Before), sorted(tc.want.Conflicts), sorted(tc.want.RequiresMountsFor)}
			got := lists{
				Requires: get("Requires", want.Requires), Wants: get("Wants", want.Wants), After: get("After", want.After),
				Before: get("Before", want.Before), Conflicts: get("Conflicts", want.Conflicts),
				RequiresMountsFor: sorted(unitProp(t, e, raw, tc.unit, "org.freedesktop.systemd1.Unit", "RequiresMountsFor").([]string)),
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("dependencies (-want +got):\n%s", diff)
			}
		})
	}
}
