package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func scopeProps(pids ...uint32) []sdbus.Property {
	return []sdbus.Property{sdbus.PropDescription("test scope"), sdbus.PropPIDs(pids...),
		sdbus.PropSlice("system.slice"), sdbus.PropDelegate(true)}
}

// failLingering leaves a failed transient service named name behind.
func failLingering(ctx context.Context, t *testing.T, c *sdbus.Conn, name string) {
	t.Helper()
	j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, oneshot("/bin/false"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); !errors.Is(err, sdbus.ErrJobFailed) {
		t.Fatalf("Wait = %v, want a failed job", err)
	}
}

func TestEnsureTransientUnitPolicies(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)

	t.Run("created, with CollectMode added", func(t *testing.T) {
		out, err := c.EnsureTransientUnit(ctx, "new.scope", scopeProps(100), sdbus.EnsureOptions{})
		if out != sdbus.Created || err != nil {
			t.Fatalf("EnsureTransientUnit = %v, %v", out, err)
		}
		p, err := c.UnitProperties(ctx, "new.scope")
		if err != nil || p.CollectMode != sdbus.CollectInactiveOrFailed {
			t.Errorf("CollectMode = %q, %v; want inactive-or-failed", p.CollectMode, err)
		}
	})
	t.Run("fail", func(t *testing.T) {
		_, err := c.EnsureTransientUnit(ctx, "new.scope", scopeProps(101), sdbus.EnsureOptions{Exists: sdbus.ExistsFail})
		if !errors.Is(err, sdbus.ErrUnitExists) {
			t.Fatalf("err = %v, want ErrUnitExists", err)
		}
	})
	t.Run("reset and retry a failed unit", func(t *testing.T) {
		failLingering(ctx, t, c, "linger.service")
		out, err := c.EnsureTransientUnit(ctx, "linger.service", oneshot("/bin/true"), sdbus.EnsureOptions{Exists: sdbus.ExistsResetAndRetry})
		if out != sdbus.Recreated || err != nil {
			t.Fatalf("EnsureTransientUnit = %v, %v; want recreated", out, err)
		}
	})
	t.Run("reset and retry leaves a live unit alone", func(t *testing.T) {
		_, err := c.EnsureTransientUnit(ctx, "new.scope", scopeProps(102), sdbus.EnsureOptions{Exists: sdbus.ExistsResetAndRetry})
		if !errors.Is(err, sdbus.ErrUnitExists) {
			t.Fatalf("err = %v, want ErrUnitExists", err)
		}
		if info, _ := s.Unit("new.scope"); info.ActiveState != "active" {
			t.Errorf("the live unit was touched: %+v", info)
		}
	})
	t.Run("join", func(t *testing.T) {
		out, err := c.EnsureTransientUnit(ctx, "new.scope", scopeProps(103), sdbus.EnsureOptions{Exists: sdbus.ExistsJoin})
		if out != sdbus.Joined || err != nil {
			t.Fatalf("EnsureTransientUnit = %v, %v; want joined", out, err)
		}
		info, _ := s.Unit("new.scope")
		if diff := cmp.Diff([]uint32{100, 103}, info.PIDs); diff != "" {
			t.Errorf("PIDs of the joined unit (-want +got):\n%s", diff)
		}
	})
	t.Run("ignore refused with PIDs", func(t *testing.T) {
		_, err := c.EnsureTransientUnit(ctx, "new.scope", scopeProps(104), sdbus.EnsureOptions{Exists: sdbus.ExistsIgnore})
		var se *sdbus.Error
		if !errors.Is(err, sdbus.ErrInvalidArgs) || !errors.As(err, &se) || se.Name != "" {
			t.Fatalf("err = %v, want a local ErrInvalidArgs", err)
		}
	})
	t.Run("ignore without PIDs", func(t *testing.T) {
		for i := 0; i < 2; i++ {
			out, err := c.EnsureTransientUnit(ctx, "kubepods.slice", sliceProps(), sdbus.EnsureOptions{Exists: sdbus.ExistsIgnore})
			want := []sdbus.Outcome{sdbus.Created, sdbus.Existed}[i]
			if out != want || err != nil {
				t.Fatalf("#%d: EnsureTransientUnit = %v, %v; want %v", i, out, err, want)
			}
		}
	})
	t.Run("failed job resets the unit", func(t *testing.T) {
		_, err := c.EnsureTransientUnit(ctx, "broken.service", oneshot("/bin/false"), sdbus.EnsureOptions{KeepFailed: true})
		var je *sdbus.JobError
		if !errors.As(err, &je) || je.Result != sdbus.JobFailed {
			t.Fatalf("err = %v, want a JobError", err)
		}
		if _, ok := s.Unit("broken.service"); ok {
			t.Error("the failed unit was not reset; its name is still taken")
		}
	})
	t.Run("timeout cancels the job and resets the unit", func(t *testing.T) {
		if err := s.Script("stuck.scope", fakebus.Script{Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		_, err := c.EnsureTransientUnit(short, "stuck.scope", scopeProps(105), sdbus.EnsureOptions{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		// Where the ctx ended during the wait, the job was canceled before
		// the return; where it ended during StartTransientUnit itself (a
		// loaded machine), the job is canceled when the call's late reply
		// comes. Either way it ends, and the name is freed.
		for s.Jobs() != 0 {
			if ctx.Err() != nil {
				t.Fatalf("%d jobs still queued", s.Jobs())
			}
			time.Sleep(time.Millisecond)
		}
		if _, err := c.WaitUnitState(ctx, "stuck.scope", func(st sdbus.UnitState) bool { return st.LoadState != sdbus.LoadLoaded }); err != nil {
			t.Errorf("stuck.scope still loaded: %v", err)
		}
	})
}

// On a manager without CollectMode the property is not sent (it would fail
// the whole StartTransientUnit).
func TestEnsureTransientUnitOldManager(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithVersion("235"))
	c := s.Conn(t)
	out, err := c.EnsureTransientUnit(ctx, "old.slice", sliceProps(), sdbus.EnsureOptions{})
	if out != sdbus.Created || err != nil {
		t.Fatalf("EnsureTransientUnit = %v, %v", out, err)
	}
	// And the manager would indeed have refused it.
	_, err = c.StartTransientUnit(ctx, "old2.slice", sdbus.ModeReplace, []sdbus.Property{sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed)})
	if !errors.Is(err, sdbus.ErrNotSupported) {
		t.Errorf("CollectMode on 235 = %v, want ErrNotSupported", err)
	}
}

func TestDestroyUnit(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if _, err := c.EnsureTransientUnit(ctx, "victim.scope", scopeProps(200), sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	failLingering(ctx, t, c, "failed.service")
	for _, name := range []string{"victim.scope", "failed.service", "never-existed.scope"} {
		if err := c.DestroyUnit(ctx, name); err != nil {
			t.Errorf("DestroyUnit(%s) = %v", name, err)
		}
		if _, ok := s.Unit(name); ok {
			t.Errorf("%s is still loaded", name)
		}
	}
}

// Every public call that waits names itself, the unit, and what was done
// about the job when it gives up or the job fails.
func TestWaitErrorsNameTheCall(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	// untilWait retries call with a longer deadline until the deadline
	// ended the wait for the job rather than the call that queued it (a
	// loaded machine can be slower than the first deadline).
	untilWait := func(t *testing.T, marker string, call func(ctx context.Context, try int) error) error {
		t.Helper()
		for try, d := 0, 100*time.Millisecond; ; try, d = try+1, d*2 {
			short, cancel := context.WithTimeout(ctx, d)
			err := call(short, try)
			cancel()
			if err == nil || strings.Contains(err.Error(), marker) || d > 20*time.Second {
				return err
			}
		}
	}
	if err := s.Script("held-*", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	held, err := c.StartTransientUnit(ctx, "held-a.service", sdbus.ModeReplace, oneshot("/bin/true"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		call   func() error
		want   string // the whole error, with N for ids and STATE for a unit's state
		target error
	}{
		{"Job.Wait", func() error {
			_, err := held.Wait(canceled)
			return err
		}, "sdbus: Job.Wait held-a.service: stopped waiting; job N keeps running (Job.Cancel stops it): context canceled", context.Canceled},
		{"Job.WaitUnitState", func() error {
			_, err := held.WaitUnitState(canceled, nil)
			return err
		}, "sdbus: Job.WaitUnitState held-a.service: stopped waiting; job N keeps running (Job.Cancel stops it): context canceled", context.Canceled},
		{"WaitUnitState", func() error {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			_, err := c.WaitUnitState(ctx, "held-a.service", func(sdbus.UnitState) bool { cancel(); return false })
			return err
		}, "sdbus: WaitUnitState held-a.service: gave up waiting; the unit is STATE: context canceled", context.Canceled},
		{"EnsureTransientUnit canceled", func() error {
			return untilWait(t, "start job", func(ctx context.Context, try int) error {
				_, err := c.EnsureTransientUnit(ctx, fmt.Sprintf("held-x%d.service", try), oneshot("/bin/true"), sdbus.EnsureOptions{})
				if err != nil && strings.Contains(err.Error(), "start job") {
					if _, ok := s.Unit(fmt.Sprintf("held-x%d.service", try)); ok {
						t.Errorf("the name is still taken after %v", err)
					}
				}
				return err
			})
		}, "sdbus: EnsureTransientUnit held-xN.service: start job canceled, name freed: context deadline exceeded", context.DeadlineExceeded},
		{"EnsureTransientUnit failed", func() error {
			_, err := c.EnsureTransientUnit(ctx, "broken.service", oneshot("/bin/false"), sdbus.EnsureOptions{})
			return err
		}, "sdbus: EnsureTransientUnit broken.service: start job failed, name freed: job N for broken.service: failed", sdbus.ErrJobFailed},
		{"DestroyUnit", func() error {
			return untilWait(t, "stop job", func(ctx context.Context, try int) error {
				return c.DestroyUnit(ctx, "held-a.service")
			})
		}, "sdbus: DestroyUnit held-a.service: stopped waiting; stop job N keeps running, failed state reset: context deadline exceeded", context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			got := regexp.MustCompile(`job [0-9]+`).ReplaceAllString(fmt.Sprint(err), "job N")
			got = regexp.MustCompile(`x[0-9]+\.`).ReplaceAllString(got, "xN.")
			got = regexp.MustCompile(`unit is [a-z]+ \([a-z-]+\)`).ReplaceAllString(got, "unit is STATE")
			if got != tc.want || !errors.Is(err, tc.target) {
				t.Errorf("error (-want +got):\n%s\nmatches %v: %v", cmp.Diff(tc.want, got), tc.target, errors.Is(err, tc.target))
			}
		})
	}
}

// countCalls returns a fakebus option that counts the calls of member
// for unit (their first argument) the fake receives, and the count.
func countCalls(member, unit string) (fakebus.Option, func() int) {
	var mu sync.Mutex
	n := 0
	return fakebus.WithTrace(func(e fakebus.Event) {
			if e.In && e.Msg.Type == dbus.TypeMethodCall {
				m, _ := e.Msg.Headers[dbus.FieldMember].Value().(string)
				if m == member && len(e.Msg.Body) > 0 && e.Msg.Body[0] == unit {
					mu.Lock()
					n++
					mu.Unlock()
				}
			}
		}), func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}
}

// A unit is never started twice. systemd carried out StartTransientUnit
// and only its reply was lost (systemd left the bus, daemon-reexec),
// and the oneshot ran and ended meanwhile, so a unit unloaded once
// inactive would read "not loaded" as if never created: the reference
// EnsureTransientUnit holds keeps it loaded, so that it is not created
// again. The reference is dropped afterwards, and the unit unloaded.
func TestEnsureNeverStartsAUnitTwice(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	const unit = "once.service"
	opt, calls := countCalls("StartTransientUnit", unit)
	s := fakebus.New(t, opt)
	c := s.Conn(t, sdbus.WithReconnect(sdbus.ReconnectPolicy{}))
	if err := s.Script(unit, fakebus.Script{ReplyDelay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	before := calls()
	type result struct {
		out sdbus.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.EnsureTransientUnit(ctx, unit, oneshot("/bin/true"), sdbus.EnsureOptions{})
		done <- result{out, err}
	}()
	// The oneshot has run: its start job is done, its reply an hour away.
	for calls() == before || s.Jobs() > 0 {
		if ctx.Err() != nil {
			t.Fatal("the start job never ran")
		}
		time.Sleep(time.Millisecond)
	}
	s.ClearScripts()
	s.Reexecute(fakebus.Reexec{Pending: 1})
	r := <-done
	if got := calls() - before; got != 1 {
		t.Errorf("the fake received %d StartTransientUnit calls for %s, want 1 (EnsureTransientUnit = %v, %v)", got, unit, r.out, r.err)
	}
	if r.err != nil || r.out != sdbus.Created {
		t.Errorf("EnsureTransientUnit = %v, %v; want created (the oneshot ran and exited 0)", r.out, r.err)
	}
	if u, ok := s.Unit(unit); ok {
		t.Errorf("%s still loaded after EnsureTransientUnit returned (its reference not dropped?): %+v", unit, u)
	}
}

// Without the evidence of a reference (the connection that sent the
// call dropped before its reply), a unit that is not loaded may have
// run and been collected: EnsureTransientUnit reports ErrOutcomeUnknown
// and does not create it again.
func TestEnsureOutcomeUnknownAfterDisconnect(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	const unit = "once-dropped.service"
	opt, calls := countCalls("StartTransientUnit", unit)
	s := fakebus.New(t, opt)
	c := s.Conn(t, sdbus.WithReconnect(sdbus.ReconnectPolicy{}))
	if err := s.Script(unit, fakebus.Script{ReplyDelay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	before := calls()
	errc := make(chan error, 1)
	go func() {
		_, err := c.EnsureTransientUnit(ctx, unit, oneshot("/bin/true"), sdbus.EnsureOptions{})
		errc <- err
	}()
	for calls() == before || s.Jobs() > 0 {
		if ctx.Err() != nil {
			t.Fatal("the start job never ran")
		}
		time.Sleep(time.Millisecond)
	}
	s.ClearScripts()
	s.DropConnections()
	err := <-errc
	if !errors.Is(err, sdbus.ErrOutcomeUnknown) {
		t.Errorf("EnsureTransientUnit after its reply was lost with the connection = %v, want ErrOutcomeUnknown", err)
	}
	if got := calls() - before; got != 1 {
		t.Errorf("the fake received %d StartTransientUnit calls for %s, want 1", got, unit)
	}
}

// EnsureTransientUnit never calls a name free while its start job may
// still be queued: the connection drops once the job is queued, the
// caller's ctx ends while the Conn reconnects; the job is canceled on the
// new connection and its end seen before "name freed" is said, or the
// error says the job may still run (ErrOutcomeUnknown).
func TestEnsureNeverCallsANameFreeWhileItsJobIsQueued(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t, sdbus.WithReconnect(sdbus.ReconnectPolicy{}))
	const unit = "slow.slice"
	if err := s.Script(unit, fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.EnsureTransientUnit(short, unit, sliceProps(), sdbus.EnsureOptions{})
		errc <- err
	}()
	for {
		if u, ok := s.Unit(unit); ok && u.JobID != 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// Mostly the reply has reached the caller by now, which then waits
	// for the job; either way the rule below holds.
	time.Sleep(20 * time.Millisecond)
	s.DropConnections()
	err := <-errc
	if err == nil {
		t.Fatal("EnsureTransientUnit succeeded with its start job an hour away")
	}
	u, loaded := s.Unit(unit)
	queued := loaded && u.JobID != 0
	switch {
	case strings.Contains(err.Error(), "name freed") && (queued || loaded):
		t.Errorf("EnsureTransientUnit said %q, but the fake has %s: %+v", err, unit, u)
	case queued && !errors.Is(err, sdbus.ErrOutcomeUnknown):
		t.Errorf("EnsureTransientUnit = %v with the start job still queued; want ErrOutcomeUnknown", err)
	}
}
