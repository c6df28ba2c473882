package fakebus_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestDependencyLists: a unit's dependency lists as systemd shows them:
// its settings, then the implicit dependencies on its slice, on the
// mount units of its paths, on the journal and its type's default ones,
// and the inverse of the other loaded units' (a.service
// Requires=b.service is b.service RequiredBy a.service). The conformance
// case DefaultDependencies holds the default ones of every type against
// systemd.
func TestDependencyLists(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	r := rawBus(t, s)
	files := map[string]string{
		"a.service": "[Unit]\nRequires=b.service\nAfter=b.service\nWants=c.service\nPartOf=d.service\nConflicts=e.service\n" +
			"[Service]\nExecStart=/bin/sleep 300\n",
		"s.socket":    "[Socket]\nListenStream=/run/x/s.sock\nListenNetlink=route 1\n",
		"s.service":   "[Service]\nExecStart=/bin/sleep 300\n",
		"run-x.mount": "[Mount]\nWhat=tmpfs\nWhere=/run/x\nType=tmpfs\n",
	}
	writeRuntimeUnits(t, s, files)
	if err := c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b.service", "c.service", "d.service", "e.service"} {
		j, err := c.StartTransientUnit(ctx, n, sdbus.ModeReplace, []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "300"}, false)})
		runJob(ctx, t, j, err)
	}
	for _, n := range []string{"run-x.mount", "s.socket"} {
		j, err := c.StartUnit(ctx, n, sdbus.ModeReplace)
		runJob(ctx, t, j, err)
	}
	// a.service is started, so that it stays loaded: the inverse lists of
	// the others name the loaded units only.
	j, err := c.StartUnit(ctx, "a.service", sdbus.ModeReplace)
	runJob(ctx, t, j, err)
	for _, tc := range []struct {
		unit, name string
		want       []string
	}{
		{"a.service", "Requires", []string{"b.service", "system.slice", "sysinit.target"}},
		{"a.service", "After", []string{"b.service", "system.slice", "systemd-journald.socket", "sysinit.target", "basic.target"}},
		{"a.service", "Wants", []string{"c.service"}},
		{"a.service", "RequiresMountsFor", []string{}},
		{"b.service", "RequiredBy", []string{"a.service"}},
		{"b.service", "Before", []string{"shutdown.target", "a.service"}},
		{"c.service", "WantedBy", []string{"a.service"}},
		{"d.service", "ConsistsOf", []string{"a.service"}},
		{"e.service", "ConflictedBy", []string{"a.service"}},
		// A socket's file system addresses (not its netlink one) need
		// their mounts: run-x.mount, from a file, is required; -.mount
		// only ordered.
		{"s.socket", "RequiresMountsFor", []string{"/run/x/s.sock"}},
		{"s.socket", "Requires", []string{"system.slice", "run-x.mount", "sysinit.target"}},
		{"s.socket", "After", []string{"system.slice", "run-x.mount", "-.mount", "sysinit.target"}},
		{"s.socket", "Before", []string{"s.service", "sockets.target", "shutdown.target"}},
		{"s.service", "After", []string{"system.slice", "systemd-journald.socket", "sysinit.target", "basic.target", "s.socket"}},
		{"run-x.mount", "RequiresMountsFor", []string{"/run"}},
		{"run-x.mount", "After", []string{"system.slice", "-.mount", "systemd-journald.socket", "local-fs-pre.target", "swap.target"}},
		{"run-x.mount", "RequiredBy", []string{"s.socket"}},
		// The booted system's sockets listen on /run too (boot.go).
		{"-.mount", "Before", []string{"dbus.socket", "run-x.mount", "s.socket", "systemd-journald-dev-log.socket", "systemd-journald.socket"}},
	} {
		if diff := cmp.Diff(tc.want, r.unitList(t, tc.unit, tc.name)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.unit, tc.name, diff)
		}
	}
}
