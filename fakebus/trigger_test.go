package fakebus_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestTriggers: the unit a socket, timer, path unit or automount
// triggers, loaded with it, as its Triggers and that unit's TriggeredBy
// show: Service= or Unit= over the service of its name (a Service= that
// is not a service ignored), none for a socket with Accept=yes; a
// daemon-reload that changes Service= moves the relation.
func TestTriggers(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	r := rawBus(t, s)
	svc := "[Service]\nExecStart=/bin/sleep 300\n"
	write := func(files map[string]string) {
		t.Helper()
		writeRuntimeUnits(t, s, files)
		if err := c.Reload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(map[string]string{
		"a.socket": "[Socket]\nListenStream=/run/a.sock\nService=b.service\n", "b.service": svc, "a.service": svc,
		"acc.socket": "[Socket]\nListenStream=/run/acc.sock\nAccept=yes\n",
		"t.timer":    "[Timer]\nOnBootSec=5min\n", "t.service": svc,
		"p.path":      "[Path]\nPathChanged=/run/p\nUnit=a.service\n",
		"x.automount": "[Automount]\n", "x.mount": "[Mount]\nWhat=tmpfs\nType=tmpfs\n",
		"keep.target": "[Unit]\nWants=x.automount\n",
		// Service= names a service; another type is ignored.
		"y.socket": "[Socket]\nListenStream=/run/y.sock\nService=x.mount\n", "y.service": svc,
	})
	type rel struct{ Triggers, TriggeredBy []string }
	read := func(name string) rel {
		t.Helper()
		return rel{r.unitList(t, name, "Triggers"), r.unitList(t, name, "TriggeredBy")}
	}
	// Each trigger is started, so that it stays loaded while the units it
	// triggers are read; the automount, which cannot start (unsupported, as
	// in a container), by a started target that wants it.
	for _, n := range []string{"a.socket", "acc.socket", "t.timer", "p.path", "y.socket", "keep.target"} {
		j, err := c.StartUnit(ctx, n, sdbus.ModeReplace)
		runJob(ctx, t, j, err)
	}
	for _, tc := range []struct {
		unit string
		want rel
	}{
		{"a.socket", rel{[]string{"b.service"}, []string{}}},
		{"b.service", rel{[]string{}, []string{"a.socket"}}},
		{"acc.socket", rel{[]string{}, []string{}}},
		{"t.timer", rel{[]string{"t.service"}, []string{}}},
		{"t.service", rel{[]string{}, []string{"t.timer"}}},
		{"p.path", rel{[]string{"a.service"}, []string{}}},
		{"a.service", rel{[]string{}, []string{"p.path"}}},
		{"x.automount", rel{[]string{"x.mount"}, []string{}}},
		{"x.mount", rel{[]string{}, []string{"x.automount"}}},
		{"y.socket", rel{[]string{"y.service"}, []string{}}},
	} {
		if diff := cmp.Diff(tc.want, read(tc.unit)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.unit, diff)
		}
	}
	write(map[string]string{"a.socket": "[Socket]\nListenStream=/run/a.sock\n"})
	for _, tc := range []struct {
		unit string
		want rel
	}{
		{"a.socket", rel{[]string{"a.service"}, []string{}}},
		{"a.service", rel{[]string{}, []string{"a.socket", "p.path"}}},
	} {
		if diff := cmp.Diff(tc.want, read(tc.unit)); diff != "" {
			t.Errorf("after daemon-reload: %s (-want +got):\n%s", tc.unit, diff)
		}
	}
}
