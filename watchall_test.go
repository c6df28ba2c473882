package sdbus_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// WatchUnits reports every matching unit's state first, then each change
// of a matching unit (also of units loaded later, and their unloading),
// never a unit match refuses; it subscribes only while it runs.
func TestWatchUnits(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	calls := &managerCalls{n: map[string]int{}}
	s := fakebus.New(t, fakebus.WithTrace(calls.trace))
	c := s.Conn(t)
	startSlice(ctx, t, c, "wa_before.slice")
	startSlice(ctx, t, c, "other_before.slice")

	wctx, cancel := context.WithCancel(ctx)
	ch, err := c.WatchUnits(wctx, func(name string) bool { return strings.HasPrefix(name, "wa_") })
	if err != nil {
		t.Fatal(err)
	}
	first := <-ch
	if diff := cmp.Diff(sdbus.UnitEvent{UnitState: sdbus.UnitState{Name: "wa_before.slice", LoadState: sdbus.LoadLoaded,
		ActiveState: sdbus.StateActive, SubState: "active"}}, first); diff != "" {
		t.Errorf("first event (-want +got):\n%s", diff)
	}
	startSlice(ctx, t, c, "other_after.slice")
	startSlice(ctx, t, c, "wa_after.slice")
	j, err := c.StopUnit(ctx, "wa_before.slice", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// Reading until both settle: wa_after active, wa_before removed
	// (a stopped transient unit is unloaded).
	last := map[string]sdbus.UnitEvent{}
	for ev := range ch {
		if !strings.HasPrefix(ev.Name, "wa_") {
			t.Errorf("event of %s, which match refuses", ev.Name)
		}
		last[ev.Name] = ev
		if a, b := last["wa_after.slice"], last["wa_before.slice"]; a.ActiveState == sdbus.StateActive && a.JobID == 0 && b.Removed {
			break
		}
	}
	if n := calls.count("Subscribe"); n != 1 {
		t.Errorf("%d Subscribe calls, want 1", n)
	}
	cancel()
	for range ch {
	}
	waitFor(t, func() bool { return calls.count("Unsubscribe") == 1 })
}

// A reader that takes nothing while one unit changes thousands of times
// holds up nothing (jobs complete meanwhile) and then gets that unit's
// newest state, once.
func TestWatchUnitsCoalescesPerUnit(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := c.WatchUnits(wctx, func(name string) bool { return name == "busy.slice" })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		mode := sdbus.ModeReplace
		var j *sdbus.Job
		if i%2 == 0 {
			j, err = c.StartTransientUnit(ctx, "busy.slice", mode, sliceProps())
		} else {
			j, err = c.StopUnit(ctx, "busy.slice", mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	startSlice(ctx, t, c, "busy.slice")
	// The newest state is active with no job; everything before it was
	// coalesced away or is older.
	var n int
	for ev := range ch {
		n++
		if ev.ActiveState == sdbus.StateActive && ev.JobID == 0 && !ev.Removed {
			break
		}
	}
	if n > 3 {
		t.Errorf("%d events for one unit read after 401 changes, want it coalesced to its newest state", n)
	}
}

// When the connection ends, the events that arrived before are delivered,
// then the channel closes.
func TestWatchUnitsDeliversBeforeEnd(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	ch, err := c.WatchUnits(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	startSlice(ctx, t, c, "ending.slice")
	s.DropConnections()
	seen := false
	for ev := range ch {
		if ev.Name == "ending.slice" && ev.ActiveState == sdbus.StateActive {
			seen = true
		}
	}
	if !seen {
		t.Error("the state that arrived before the disconnect was not delivered")
	}
}

// The filter runs on the stream's own goroutine: one that blocks holds up
// its stream only, never signal dispatch (jobs keep completing).
func TestWatchUnitsSlowFilterBlocksNobody(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	release := make(chan struct{})
	wctx, cancel := context.WithCancel(ctx)
	ch, err := c.WatchUnits(wctx, func(string) bool { <-release; return true })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		startSlice(ctx, t, c, "slowfilter"+strings.Repeat("x", i)+".slice")
	}
	close(release)
	<-ch
	cancel()
	for range ch {
	}
}
