package fakebus_test

import (
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestTimerTriggersAgain: a timer whose value is relative to its unit's
// end, with nothing to wait (OnUnitInactiveSec=0), triggers its unit
// again each time it ends: each elapse on a turn of its own, so that the
// fake keeps answering, and the stop of the timer ends it. The service
// has no start rate limit (StartLimitIntervalUSec=0): with systemd's
// default, its sixth start within 10 s would fail.
func TestTimerTriggersAgain(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	type mono struct {
		Base string
		Usec uint64
	}
	j, err := c.StartTransientUnit(ctx, "again.timer", sdbus.ModeReplace,
		[]sdbus.Property{sdbus.PropRaw("TimersMonotonic", []mono{{"OnActiveSec", 0}, {"OnUnitInactiveSec", 0}})},
		sdbus.AuxUnit{Name: "again.service", Properties: []sdbus.Property{
			sdbus.PropExecStart([]string{"/bin/true"}, false), sdbus.PropRaw("StartLimitIntervalUSec", uint64(0)),
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := j.Wait(ctx); err != nil || r != sdbus.JobDone {
		t.Fatalf("start job: %v, %v", r, err)
	}
	first := time.Time{}
	for deadline := time.Now().Add(5 * time.Second); ; {
		sp, err := c.ServiceProperties(ctx, "again.service")
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case first.IsZero():
			first = sp.ExecMainStartTimestamp
		case !sp.ExecMainStartTimestamp.Equal(first):
			// Triggered again after its first run ended.
			stop, err := c.StopUnit(ctx, "again.timer", sdbus.ModeReplace)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := stop.Wait(ctx); err != nil || r != sdbus.JobDone {
				t.Fatalf("stop job: %v, %v", r, err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service ran once only (started %v)", first)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
