package fakebus_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestStopWhenUnneeded: a unit with StopWhenUnneeded=yes that nothing
// needs is stopped once its start ended; one a running unit wants stays
// until that unit stops. What each step is measured against is the
// differential tester's replay "stop when unneeded".
func TestStopWhenUnneeded(t *testing.T) {
	sleep := sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)
	unneeded := sdbus.PropRaw("StopWhenUnneeded", true)
	s := fakebus.New(t,
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "alone.target", Properties: []sdbus.Property{unneeded}}),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "helper.service", Properties: []sdbus.Property{sleep, unneeded}}),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "app.service", Properties: []sdbus.Property{sleep, sdbus.PropWants("helper.service")}}))
	c := s.Conn(t)
	ctx := ctxFor(t)
	state := func(name string) string {
		t.Helper()
		p, err := c.UnitProperties(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return name + " " + string(p.ActiveState)
	}
	var got []string
	for _, st := range []struct{ op, unit string }{
		{"start", "alone.target"},
		{"start", "app.service"},
		{"restart", "helper.service"},
		{"stop", "app.service"},
	} {
		var j *sdbus.Job
		var err error
		switch st.op {
		case "start":
			j, err = c.StartUnit(ctx, st.unit, sdbus.ModeReplace)
		case "restart":
			j, err = c.RestartUnit(ctx, st.unit, sdbus.ModeReplace)
		case "stop":
			j, err = c.StopUnit(ctx, st.unit, sdbus.ModeReplace)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		// The stop job of an unneeded unit is queued as the job that made
		// it unneeded ends: wait until no job is left.
		for {
			jobs, err := c.ListJobs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) == 0 {
				break
			}
		}
		got = append(got, st.op+" "+st.unit+": "+state("alone.target")+", "+state("helper.service"))
	}
	want := []string{
		"start alone.target: alone.target inactive, helper.service inactive",
		"start app.service: alone.target inactive, helper.service active",
		"restart helper.service: alone.target inactive, helper.service active",
		"stop app.service: alone.target inactive, helper.service inactive",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
