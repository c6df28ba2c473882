package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/sdbus-go/sdbus"
)

// testWatchUnits: WatchUnits on a name prefix reports a unit that was
// active before the watch, a unit started during it and the unloading of
// a stopped transient unit, and nothing of other units.
func testWatchUnits(t *testing.T, e *env) {
	before, during := e.unit("streambefore", "service"), e.unit("streamduring", "service")
	prefix := before[:strings.Index(before, "streambefore")]
	cleanup(t, e, before)
	cleanup(t, e, during)
	wait(t, e, start(t, e, e.c, before, longRunning()), sdbus.JobDone)

	wctx, stop := context.WithCancel(e.ctx)
	defer stop()
	ch, err := e.c.WatchUnits(wctx, func(name string) bool {
		return strings.HasPrefix(name, prefix+"stream")
	})
	if err != nil {
		t.Fatal(err)
	}
	// A watch keeps only the latest state of a unit the reader has not
	// taken yet: take the first event before anything changes.
	sawBeforeActive := false
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		sawBeforeActive = ev.Name == before && ev.ActiveState == sdbus.StateActive
	case <-e.ctx.Done():
		t.Fatal("no event for the unit active before the watch")
	}
	wait(t, e, start(t, e, e.c, during, longRunning()), sdbus.JobDone)
	j, err := e.c.StopUnit(e.ctx, before, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	last := map[string]sdbus.UnitEvent{}
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.Name != before && ev.Name != during {
				t.Errorf("event of %s, which the filter refuses", ev.Name)
			}
			last[ev.Name] = ev
		case <-e.ctx.Done():
			t.Fatalf("events so far: %+v", last)
		}
		if d, b := last[during], last[before]; d.ActiveState == sdbus.StateActive && d.SubState == "running" && b.Removed {
			break
		}
	}
	if !sawBeforeActive {
		t.Error("the unit active before the watch was not reported first as active")
	}
}

// longRunning is a simple service that runs until stopped.
func longRunning() []sdbus.Property {
	return []sdbus.Property{
		sdbus.PropDescription("sdbus conformance"),
		sdbus.PropType(sdbus.ServiceSimple),
		sdbus.PropExecStart([]string{"/bin/sleep", "300"}, false),
	}
}
