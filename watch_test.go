package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestWatchUnit(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "w.service", Properties: []sdbus.Property{
		sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/sleep", "0.05"}, false), sdbus.PropRemainAfterExit(true),
	}}))
	c := s.Conn(t)
	wctx, cancel := context.WithCancel(ctx)
	ch, err := c.WatchUnit(wctx, "w.service")
	if err != nil {
		t.Fatal(err)
	}
	if first := <-ch; first.ActiveState != sdbus.StateInactive || first.Name != "w.service" {
		t.Fatalf("first state %+v, want the current (inactive) one", first)
	}
	j, err := c.StartUnit(ctx, "w.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for st := range ch {
		seen = append(seen, fmt.Sprintf("%s/%s job=%v", st.ActiveState, st.SubState, st.JobID != 0))
		if st.ActiveState == sdbus.StateActive && st.JobID == 0 {
			break
		}
	}
	want := []string{"inactive/dead job=true", "activating/start job=true", "active/exited job=true", "active/exited job=false"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	for range ch { // closed when the watch's ctx ends
	}
}

// A slow reader loses intermediate states, never the latest, and never
// holds up signal dispatch (jobs keep completing meanwhile).
func TestWatchUnitCoalesces(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if _, err := c.EnsureTransientUnit(ctx, "busy.slice", sliceProps(), sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	ch, err := c.WatchUnit(ctx, "busy.slice")
	if err != nil {
		t.Fatal(err)
	}
	// 100 stop/start cycles while nobody reads the watch.
	for i := 0; i < 100; i++ {
		for _, f := range []func(context.Context, string, sdbus.JobMode) (*sdbus.Job, error){c.StopUnit, c.StartUnit} {
			j, err := f(ctx, "busy.slice", sdbus.ModeReplace)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := j.Wait(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	n := 0
	var last sdbus.UnitState
	for {
		select {
		case st := <-ch:
			n++
			last = st
			continue
		case <-time.After(100 * time.Millisecond):
		}
		break
	}
	if n > 18 { // the first state, the one being handed over, and 16 buffered
		t.Errorf("read %d states, want at most 18 (coalesced)", n)
	}
	if last.ActiveState != sdbus.StateActive || last.JobID != 0 {
		t.Errorf("last state %+v, want the current one: active, no job", last)
	}
}

func TestWaitUnitState(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c, err := s.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	j, err := c.StartTransientUnit(ctx, "slowfail.service", sdbus.ModeReplace, oneshot("/bin/sh", "-c", "exit 7"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.WaitUnitState(ctx, "slowfail.service", func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateFailed
	})
	if err != nil || st.Result != "exit-code" {
		t.Fatalf("WaitUnitState = %+v, %v", st, err)
	}
	if _, err := j.Wait(ctx); !errors.Is(err, sdbus.ErrJobFailed) {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := c.WaitUnitState(short, "slowfail.service", func(sdbus.UnitState) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitUnitState with an expiring ctx = %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitUnitState(ctx, "slowfail.service", func(sdbus.UnitState) bool { return false })
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	c.Close()
	if err := <-done; !errors.Is(err, sdbus.ErrClosed) {
		t.Errorf("WaitUnitState across Close = %v, want ErrClosed", err)
	}
}

// managerCalls counts, per method, the Manager calls clients send to a
// fake.
type managerCalls struct {
	mu sync.Mutex
	n  map[string]int
}

func (m *managerCalls) trace(e fakebus.Event) {
	if !e.In || e.Msg.Type != dbus.TypeMethodCall {
		return
	}
	iface, _ := e.Msg.Headers[dbus.FieldInterface].Value().(string)
	member, _ := e.Msg.Headers[dbus.FieldMember].Value().(string)
	if iface != "org.freedesktop.systemd1.Manager" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n[member]++
}

func (m *managerCalls) count(member string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[member]
}

// sdbus costs systemd nothing it need not pay: job calls never subscribe
// (systemd sends a job's JobRemoved to the client that asked for it); a
// watch subscribes while it lasts, however many watches overlap, and the
// last one to end unsubscribes.
func TestSubscribedOnlyWhileWatching(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	calls := &managerCalls{n: map[string]int{}}
	s := fakebus.New(t, fakebus.WithTrace(calls.trace))
	c := s.Conn(t)
	for i := 0; i < 3; i++ {
		startSlice(ctx, t, c, fmt.Sprintf("nosub%d.slice", i))
	}
	if n := calls.count("Subscribe"); n != 0 {
		t.Fatalf("%d Subscribe calls for jobs alone, want 0", n)
	}
	var cancels []context.CancelFunc
	var chans []<-chan sdbus.UnitState
	for i := 0; i < 3; i++ {
		wctx, cancel := context.WithCancel(ctx)
		ch, err := c.WatchUnit(wctx, "nosub0.slice")
		if err != nil {
			t.Fatal(err)
		}
		<-ch
		cancels, chans = append(cancels, cancel), append(chans, ch)
	}
	if n := calls.count("Subscribe"); n != 1 {
		t.Errorf("%d Subscribe calls for 3 overlapping watches, want 1", n)
	}
	for i, cancel := range cancels {
		cancel()
		for range chans[i] {
		}
		want := 0
		if i == len(cancels)-1 {
			want = 1
		}
		waitFor(t, func() bool { return calls.count("Unsubscribe") == want })
	}
	// A new watch subscribes again.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := c.WatchUnit(wctx, "nosub1.slice"); err != nil {
		t.Fatal(err)
	}
	// The trace may see the call after its reply reached the client.
	waitFor(t, func() bool { return calls.count("Subscribe") >= 2 })
	if n := calls.count("Subscribe"); n != 2 {
		t.Errorf("%d Subscribe calls after a new watch, want 2", n)
	}
}

// WaitUnitState right after RestartUnit sees the state from before the
// restart; Job.WaitUnitState sees only the state after the job, and a
// restart that fails is reported as failed.
func TestJobWaitUnitState(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	const name = "restartfail.service"
	props := append(oneshot("/bin/true"), sdbus.PropRemainAfterExit(true))
	j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, props)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// The restart stays queued until the test ends it.
	if err := s.Script(name, fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	restart, err := c.RestartUnit(ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	settled := func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateActive || s.ActiveState == sdbus.StateFailed
	}
	// The race WaitUnitState's documentation warns about.
	stale, err := c.WaitUnitState(ctx, name, settled)
	if err != nil || stale.ActiveState != sdbus.StateActive || stale.JobID != restart.ID() {
		t.Fatalf("WaitUnitState right after RestartUnit = %+v, %v; want the old active state with the restart queued", stale, err)
	}
	type result struct {
		st  sdbus.UnitState
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := restart.WaitUnitState(ctx, settled)
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("Job.WaitUnitState returned before the job ended: %+v, %v", r.st, r.err)
	case <-time.After(20 * time.Millisecond):
	}
	if !s.FinishJob(restart.ID(), sdbus.JobFailed) {
		t.Fatal("the restart job is gone")
	}
	r := <-done
	var jobErr *sdbus.JobError
	if r.st.ActiveState != sdbus.StateFailed || !errors.As(r.err, &jobErr) || jobErr.Result != sdbus.JobFailed {
		t.Fatalf("Job.WaitUnitState of the failed restart = %+v, %v; want failed with the *JobError", r.st, r.err)
	}
	if want := "sdbus: Job.WaitUnitState restartfail.service: the unit is failed (failed) after the job: job"; !strings.HasPrefix(r.err.Error(), want) {
		t.Errorf("error %q, want prefix %q", r.err, want)
	}

	// A restart that succeeds: the state after the job, with no job queued.
	s.ClearScripts()
	if err := c.ResetFailedUnit(ctx, name); err != nil {
		t.Fatal(err)
	}
	if j, err = c.StartTransientUnit(ctx, name, sdbus.ModeReplace, props); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	restart, err = c.RestartUnit(ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	st, err := restart.WaitUnitState(ctx, settled)
	if err != nil || st.ActiveState != sdbus.StateActive || st.JobID != 0 {
		t.Fatalf("Job.WaitUnitState of a good restart = %+v, %v", st, err)
	}
	if _, err := (*sdbus.Job)(nil).WaitUnitState(ctx, nil); !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Errorf("nil Job: %v", err)
	}
}

func ExampleJob_WaitUnitState() {
	// A fake systemd; on a real system: c, err := sdbus.ConnectSystem(ctx).
	srv, err := fakebus.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	c, err := srv.Dial(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// A service that starts, then exits with status 1.
	job, err := c.StartTransientUnit(ctx, "check.service", sdbus.ModeReplace, []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/false"}, false),
	})
	if err != nil {
		log.Fatal(err)
	}
	// Only states after the start job count: not the inactive state the
	// unit had before it ran. (A failed unit stays loaded with its Result;
	// one that ended with success may be unloaded before it is read, as
	// LoadState not-found, inactive, with no Result.)
	st, err := job.WaitUnitState(ctx, func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateInactive || s.ActiveState == sdbus.StateFailed
	})
	fmt.Println(st.ActiveState, st.Result, err)
	// Output: failed exit-code <nil>
}
