package fakebus_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

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
