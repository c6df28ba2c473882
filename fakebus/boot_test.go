package fakebus_test

import (
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestStandardTargets: the fake starts as a system booted to
// multi-user.target: it and the targets it pulls in are active, the other
// standard targets load from their vendor unit files, inactive, with the
// played release's descriptions; ListUnitFiles lists them static; one
// refuses a manual start as systemd's does; sysinit.target is ordered
// before emergency.target, after it on 247, as their files say; a unit
// file of the same name given to the fake replaces the standard one.
func TestStandardTargets(t *testing.T) {
	type state struct{ Load, Active, Description string }
	for _, tc := range []struct {
		version string
		want    map[string]state
		// emergency is the list of sysinit.target that names
		// emergency.target: Before from 252, After on 247.
		emergency string
	}{
		{"252.38-1~deb12u1", map[string]state{
			"multi-user.target": {"loaded", "active", "Multi-User System"},
			"basic.target":      {"loaded", "active", "Basic System"},
			"sysinit.target":    {"loaded", "active", "System Initialization"},
			"sockets.target":    {"loaded", "active", "Socket Units"},
			"swap.target":       {"loaded", "active", "Swaps"},
			"shutdown.target":   {"loaded", "inactive", "System Shutdown"},
			"umount.target":     {"loaded", "inactive", "Unmount All Filesystems"},
			"time-sync.target":  {"loaded", "inactive", "System Time Synchronized"},
		}, "Before"},
		{"247.3-7+deb11u8", map[string]state{
			"sockets.target":      {"loaded", "active", "Sockets"},
			"swap.target":         {"loaded", "active", "Swap"},
			"shutdown.target":     {"loaded", "inactive", "Shutdown"},
			"local-fs-pre.target": {"loaded", "inactive", "Local File Systems (Pre)"},
		}, "After"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(tc.version))
			c := s.Conn(t)
			ctx := ctxFor(t)
			for name, want := range tc.want {
				if _, err := c.LoadUnit(ctx, name); err != nil {
					t.Fatalf("LoadUnit %s: %v", name, err)
				}
				st, err := c.UnitStatus(ctx, name)
				if err != nil {
					t.Fatal(err)
				}
				got := state{string(st.LoadState), string(st.ActiveState), st.Description}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
			r := rawBus(t, s)
			for _, list := range []string{"Before", "After"} {
				if got := slices.Contains(r.unitList(t, "sysinit.target", list), "emergency.target"); got != (list == tc.emergency) {
					t.Errorf("sysinit.target: emergency.target in %s is %v", list, got)
				}
			}
		})
	}

	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "sysinit.target", Properties: []sdbus.Property{sdbus.PropDescription("Mine")}}))
	c := s.Conn(t)
	ctx := ctxFor(t)
	if st, err := c.UnitStatus(ctx, "sysinit.target"); err != nil || st.Description != "Mine" || st.ActiveState != "inactive" {
		t.Errorf("sysinit.target given as a unit file: %+v, %v; want Mine, inactive", st, err)
	}
	if _, err := c.StartUnit(ctx, "shutdown.target", sdbus.ModeReplace); !errors.Is(err, sdbus.ErrOnlyByDependency) {
		t.Errorf("StartUnit(shutdown.target) = %v, want ErrOnlyByDependency", err)
	}
	files, err := c.ListUnitFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var static []string
	for _, f := range files {
		if strings.HasPrefix(f.Path, "/usr/lib/systemd/system/") && f.State == sdbus.UnitFileStatic {
			static = append(static, strings.TrimPrefix(f.Path, "/usr/lib/systemd/system/"))
		}
	}
	for _, name := range []string{"basic.target", "shutdown.target", "time-sync.target"} {
		if !slices.Contains(static, name) {
			t.Errorf("ListUnitFiles: no static /usr/lib/systemd/system/%s in %q", name, static)
		}
	}
	// The one given is a vendor unit file too: listed once.
	if n := len(slices.DeleteFunc(slices.Clone(static), func(n string) bool { return n != "sysinit.target" })); n != 1 {
		t.Errorf("ListUnitFiles lists sysinit.target %d times, want once", n)
	}
}

// bootedState is what TestBootedServices reads of a unit.
type bootedState struct {
	Load, Active, Sub, FileState, Description string
	Type                                      string // a service's
	MainPID                                   uint32 // a service's
}

// readBooted loads name and reads its bootedState.
func readBooted(t *testing.T, r *raw, name string) bootedState {
	t.Helper()
	var path dbus.ObjectPath
	r.mustManager(t, "LoadUnit", []any{name}, &path)
	obj := r.Object(systemd1, path)
	str := func(prop string) string {
		v, err := obj.GetProperty(prop)
		if err != nil {
			t.Fatalf("%s of %s: %v", prop, name, err)
		}
		s, _ := v.Value().(string)
		return s
	}
	const unit = "org.freedesktop.systemd1.Unit."
	st := bootedState{Load: str(unit + "LoadState"), Active: str(unit + "ActiveState"), Sub: str(unit + "SubState"),
		FileState: str(unit + "UnitFileState"), Description: str(unit + "Description")}
	if strings.HasSuffix(name, ".service") && st.Load == "loaded" {
		st.Type = str("org.freedesktop.systemd1.Service.Type")
		v, err := obj.GetProperty("org.freedesktop.systemd1.Service.MainPID")
		if err != nil {
			t.Fatal(err)
		}
		st.MainPID, _ = v.Value().(uint32)
	}
	return st
}

// TestBootedServices: the system manager starts with the units of the
// system bus and of the journal that a booted Debian system runs, as
// systemctl show reads them on 247, 252, 257 and 262 booted by
// scripts/sandbox with their Debian unit files: loaded, static, active
// and running (the sockets too, their services running), with the
// release's types and descriptions; systemd-journald-audit.socket is one
// of them until 257, which does not pull it in. No process plays the
// services (MainPID 0). A user manager has none of them.
func TestBootedServices(t *testing.T) {
	running := func(desc, typ string) bootedState {
		return bootedState{"loaded", "active", "running", "static", desc, typ, 0}
	}
	base := map[string]bootedState{
		"dbus.socket":                     running("D-Bus System Message Bus Socket", ""),
		"dbus.service":                    running("D-Bus System Message Bus", "notify"),
		"systemd-journald.socket":         running("Journal Socket", ""),
		"systemd-journald-dev-log.socket": running("Journal Socket (/dev/log)", ""),
		"systemd-journald-audit.socket":   running("Journal Audit Socket", ""),
		"systemd-journald.service":        running("Journal Service", "notify"),
	}
	with := func(changes map[string]bootedState) map[string]bootedState {
		out := maps.Clone(base)
		maps.Copy(out, changes)
		return out
	}
	const noAudit = "systemd-journald-audit.socket"
	notFound := bootedState{"not-found", "inactive", "dead", "", noAudit, "", 0}
	for _, tc := range []struct {
		version string
		want    map[string]bootedState
	}{
		{"247.3-7+deb11u8", with(map[string]bootedState{"dbus.service": running("D-Bus System Message Bus", "simple")})},
		{"252.38-1~deb12u1", base},
		{"257.13-1~deb13u1", with(map[string]bootedState{"systemd-journald.socket": running("Journal Sockets", ""), noAudit: notFound})},
		{"262.1-1", with(map[string]bootedState{"systemd-journald.socket": running("Journal Sockets", ""), noAudit: notFound,
			"systemd-journald.service": running("Journal Service", "notify-reload")})},
	} {
		t.Run(tc.version, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(tc.version))
			r := rawBus(t, s)
			got := map[string]bootedState{}
			for name := range tc.want {
				got[name] = readBooted(t, r, name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var procs []struct {
				Cgroup  string
				PID     uint32
				Cmdline string
			}
			r.mustManager(t, "GetUnitProcesses", []any{"dbus.service"}, &procs)
			if len(procs) != 0 {
				t.Errorf("GetUnitProcesses(dbus.service) = %v, want none", procs)
			}
		})
	}

	t.Run("user manager", func(t *testing.T) {
		s := fakebus.New(t, fakebus.WithUserManager(os.Getuid()))
		r := rawBus(t, s)
		for _, name := range []string{"dbus.service", "systemd-journald.service"} {
			if got := readBooted(t, r, name); got.Load != "not-found" {
				t.Errorf("%s: %+v, want not-found", name, got)
			}
		}
	})
}

// TestSocketFollowsService: a socket runs while the service it triggers
// runs and listens again once it is stopped, as systemd's
// socket_trigger_notify has it; a restart leaves it running. A service
// of the booted system that a client starts again runs as any the fake
// starts (a made-up MainPID).
func TestSocketFollowsService(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	r := rawBus(t, s)
	type both struct{ Service, Socket state }
	read := func() both {
		return both{unitState(ctx, t, c, "dbus.service"), unitState(ctx, t, c, "dbus.socket")}
	}
	steps := []struct {
		name string
		do   func() (*sdbus.Job, error)
		want both
	}{
		{"booted", nil, both{state{"loaded", "active", "running"}, state{"loaded", "active", "running"}}},
		{"stop", func() (*sdbus.Job, error) { return c.StopUnit(ctx, "dbus.service", sdbus.ModeReplace) },
			both{state{"loaded", "inactive", "dead"}, state{"loaded", "active", "listening"}}},
		{"start", func() (*sdbus.Job, error) { return c.StartUnit(ctx, "dbus.service", sdbus.ModeReplace) },
			both{state{"loaded", "active", "running"}, state{"loaded", "active", "running"}}},
		{"restart", func() (*sdbus.Job, error) { return c.RestartUnit(ctx, "dbus.service", sdbus.ModeReplace) },
			both{state{"loaded", "active", "running"}, state{"loaded", "active", "running"}}},
	}
	for _, st := range steps {
		if st.do != nil {
			j, err := st.do()
			if res := runJob(ctx, t, j, err); res != sdbus.JobDone {
				t.Fatalf("%s: %s", st.name, res)
			}
		}
		if diff := cmp.Diff(st.want, read()); diff != "" {
			t.Errorf("after %s (-want +got):\n%s", st.name, diff)
		}
	}
	if got := readBooted(t, r, "dbus.service"); got.MainPID == 0 {
		t.Errorf("dbus.service started by a client: MainPID 0, want one of the fake's made-up PIDs")
	}
}
