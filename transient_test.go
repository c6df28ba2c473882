package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

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
	s := fakebus.New(t, fakebus.WithMadeUpPIDs())
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
	s := fakebus.New(t, fakebus.WithMadeUpPIDs())
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
