package sdbus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// duringReexec runs call while the fake systemd re-executes, sent after
// the old instance stopped reading: the bus answers it NoReply when the
// old instance leaves, as dbus-daemon does. It returns call's error.
func duringReexec(t *testing.T, s *fakebus.Server, call func() error) error {
	t.Helper()
	begun := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Reexecute(fakebus.Reexec{Pending: 1, Begun: begun})
	}()
	<-begun
	err := call()
	<-done
	return err
}

// awaitUnit waits until the fake has loaded unit.
func awaitUnit(t *testing.T, s *fakebus.Server, unit string) {
	t.Helper()
	for {
		if _, ok := s.Unit(unit); ok {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// An idempotent call systemd never read because it re-executed is sent
// again once systemd owns its name again, on any Conn: it is not a
// timeout.
func TestIdempotentCallSystemdNeverReadIsRetried(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name string
		call func(c *sdbus.Conn, unit string) error
		// check looks at the effect, if any.
		check func(t *testing.T, s *fakebus.Server, c *sdbus.Conn, unit string)
	}{
		{"StopUnit", func(c *sdbus.Conn, unit string) error {
			j, err := c.StopUnit(ctx, unit, sdbus.ModeReplace)
			if err != nil {
				return err
			}
			_, err = j.Wait(ctx)
			return err
		}, func(t *testing.T, s *fakebus.Server, _ *sdbus.Conn, unit string) {
			if u, ok := s.Unit(unit); ok {
				t.Errorf("%s still loaded after its stop: %+v", unit, u)
			}
		}},
		{"ResetFailedUnit", func(c *sdbus.Conn, unit string) error {
			return c.ResetFailedUnit(ctx, unit)
		}, nil},
		{"SetUnitProperties", func(c *sdbus.Conn, unit string) error {
			return c.SetUnitProperties(ctx, unit, true, sdbus.PropDescription("changed"))
		}, func(t *testing.T, _ *fakebus.Server, c *sdbus.Conn, unit string) {
			v, err := c.UnitProperty(ctx, unit, "org.freedesktop.systemd1.Unit", "Description")
			if err != nil || v.Value() != "changed" {
				t.Errorf("Description = %v, %v; want changed", v, err)
			}
		}},
		{"ListUnits", func(c *sdbus.Conn, unit string) error {
			_, err := c.ListUnits(ctx)
			return err
		}, nil},
		{"UnitStatus", func(c *sdbus.Conn, unit string) error {
			_, err := c.UnitStatus(ctx, unit)
			return err
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			c := s.Conn(t)
			unit := "noreply-" + tc.name + ".slice"
			startSlice(ctx, t, c, unit)
			if err := duringReexec(t, s, func() error { return tc.call(c, unit) }); err != nil {
				t.Fatalf("%s across a daemon-reexec = %v, want it sent again and answered", tc.name, err)
			}
			if tc.check != nil {
				tc.check(t, s, c, unit)
			}
		})
	}
}

// A job call systemd left unanswered when it re-executed fails with
// ErrOutcomeUnknown (and ErrDisconnected), not ErrTimeout, and Reconcile
// tells what happened: nothing when systemd never read the call, the
// job when it read the call and left before its reply went out.
func TestJobCallSystemdLeftUnansweredIsOutcomeUnknown(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	check := func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, sdbus.ErrOutcomeUnknown) || !errors.Is(err, sdbus.ErrDisconnected) || errors.Is(err, sdbus.ErrTimeout) {
			t.Fatalf("StartTransientUnit across a daemon-reexec = %v, want ErrOutcomeUnknown and ErrDisconnected, not ErrTimeout", err)
		}
	}
	t.Run("never read", func(t *testing.T) {
		s := fakebus.New(t)
		c := s.Conn(t)
		const unit = "noreply-unread.slice"
		check(t, duringReexec(t, s, func() error {
			_, err := c.StartTransientUnit(ctx, unit, sdbus.ModeReplace, sliceProps())
			return err
		}))
		r, err := c.Reconcile(ctx, unit)
		if err != nil {
			t.Fatal(err)
		}
		if r.Loaded || r.Job != nil {
			t.Errorf("Reconcile = %+v, want the unit never created", r)
		}
	})
	t.Run("read, reply lost", func(t *testing.T) {
		s := fakebus.New(t)
		c := s.Conn(t)
		const unit = "noreply-read.slice"
		if err := s.Script(unit, fakebus.Script{ReplyDelay: time.Hour, Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := c.StartTransientUnit(ctx, unit, sdbus.ModeReplace, sliceProps())
			errc <- err
		}()
		awaitUnit(t, s, unit)
		s.Reexecute(fakebus.Reexec{Pending: 1})
		check(t, <-errc)
		r, err := c.Reconcile(ctx, unit)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Loaded || r.Job == nil {
			t.Fatalf("Reconcile = %+v, want the unit and its start job", r)
		}
		if !s.FinishJob(r.Job.ID(), sdbus.JobDone) {
			t.Fatal("FinishJob")
		}
		if res, err := r.Job.Wait(ctx); res != sdbus.JobDone || err != nil {
			t.Errorf("Wait on the reconciled job = %q, %v", res, err)
		}
	})
}

// A timeout of the bus while systemd stays on it (dbus-daemon's
// reply_timeout) stays ErrTimeout: it is not sent again, and it is not
// an unknown outcome.
func TestBusTimeoutWhileSystemdStaysIsErrTimeout(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	for _, tc := range []struct {
		name  string
		setup bool // start the unit first
		call  func(unit string) error
	}{
		{"StartTransientUnit", false, func(unit string) error {
			_, err := c.StartTransientUnit(ctx, unit, sdbus.ModeReplace, sliceProps())
			return err
		}},
		{"StopUnit", true, func(unit string) error {
			_, err := c.StopUnit(ctx, unit, sdbus.ModeReplace)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unit := "timeout-" + tc.name + ".slice"
			if tc.setup {
				startSlice(ctx, t, c, unit)
			}
			if err := s.Script(unit, fakebus.Script{Faults: fakebus.FaultBusTimeout}); err != nil {
				t.Fatal(err)
			}
			err := tc.call(unit)
			if !errors.Is(err, sdbus.ErrTimeout) || errors.Is(err, sdbus.ErrOutcomeUnknown) || errors.Is(err, sdbus.ErrDisconnected) {
				t.Fatalf("%s answered NoReply by the bus's timeout = %v, want ErrTimeout only", tc.name, err)
			}
			s.ClearScripts()
		})
	}
}

// DestroyUnit and EnsureTransientUnit keep their promises across a
// daemon-reexec that leaves their calls unread.
func TestDestroyAndEnsureAcrossReexec(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	t.Run("DestroyUnit", func(t *testing.T) {
		s := fakebus.New(t)
		c := s.Conn(t)
		const unit = "destroy-reexec.slice"
		startSlice(ctx, t, c, unit)
		if err := duringReexec(t, s, func() error { return c.DestroyUnit(ctx, unit) }); err != nil {
			t.Fatalf("DestroyUnit across a daemon-reexec = %v", err)
		}
		if _, ok := s.Unit(unit); ok {
			t.Errorf("%s still loaded after DestroyUnit", unit)
		}
	})
	t.Run("EnsureTransientUnit never read", func(t *testing.T) {
		s := fakebus.New(t)
		c := s.Conn(t)
		const unit = "ensure-reexec.slice"
		var out sdbus.Outcome
		err := duringReexec(t, s, func() error {
			var err error
			out, err = c.EnsureTransientUnit(ctx, unit, sliceProps(), sdbus.EnsureOptions{KeepFailed: true})
			return err
		})
		if err != nil || out != sdbus.Created {
			t.Fatalf("EnsureTransientUnit across a daemon-reexec = %v, %v; want created", out, err)
		}
		if u, ok := s.Unit(unit); !ok || u.ActiveState != "active" {
			t.Errorf("%s after EnsureTransientUnit: %+v, %v", unit, u, ok)
		}
	})
	t.Run("EnsureTransientUnit reply lost", func(t *testing.T) {
		s := fakebus.New(t)
		c := s.Conn(t)
		const unit = "ensure-lost.slice"
		if err := s.Script(unit, fakebus.Script{ReplyDelay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		type result struct {
			out sdbus.Outcome
			err error
		}
		done := make(chan result, 1)
		go func() {
			out, err := c.EnsureTransientUnit(ctx, unit, sliceProps(), sdbus.EnsureOptions{KeepFailed: true})
			done <- result{out, err}
		}()
		awaitUnit(t, s, unit)
		s.Reexecute(fakebus.Reexec{Pending: 1})
		if r := <-done; r.err != nil || r.out != sdbus.Created {
			t.Fatalf("EnsureTransientUnit across a daemon-reexec = %v, %v; want created", r.out, r.err)
		}
	})
}

// A job call abandoned by its ctx whose late answer is the bus's NoReply
// because systemd re-executed may have created a job all the same: it is
// canceled, as after a lost connection.
func TestAbandonedJobCallSystemdLeftIsCanceled(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	const unit = "noreply-abandoned.slice"
	if err := s.Script(unit, fakebus.Script{ReplyDelay: time.Hour, Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := c.StartTransientUnit(cctx, unit, sdbus.ModeReplace, sliceProps())
		errc <- err
	}()
	awaitUnit(t, s, unit)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("StartTransientUnit = %v, want context.Canceled", err)
	}
	s.Reexecute(fakebus.Reexec{Pending: 1})
	for {
		u, ok := s.Unit(unit)
		if !ok || u.JobID == 0 {
			break // canceled: the slice stays inactive, or is collected
		}
		if ctx.Err() != nil {
			t.Fatalf("the job the abandoned call created is still queued: %+v", u)
		}
		time.Sleep(time.Millisecond)
	}
}

// A NoReply that systemd sends itself, with dbus-daemon's text for a
// departed recipient (polkitd left the bus during the authorization
// check: systemd copies polkit's error into its reply), is the refusal it
// is: systemd never changed owner, so it is not "systemd left the bus".
// A job call is not an unknown outcome (nothing was created), and an
// idempotent call is not sent again after waiting for a systemd that
// never left: both fail at once, matching ErrTimeout with systemd's text.
func TestNoReplyFromSystemdItselfIsARefusal(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	dialed := s.Conn(t, sdbus.WithReconnect(sdbus.ReconnectPolicy{}))
	// A wrapped connection sees signals through a channel, possibly after
	// later replies: it must not take a NoReply for systemd's departure
	// either.
	wrapped, err := sdbus.NewConn(ctx, s.RawConn(t))
	if err != nil {
		t.Fatal(err)
	}
	defer wrapped.Close()
	for _, conn := range []struct {
		name string
		c    *sdbus.Conn
	}{{"dialed", dialed}, {"NewConn", wrapped}} {
		c := conn.c
		t.Run(conn.name, func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				setup bool // start the unit first
				call  func(ctx context.Context, unit string) error
			}{
				{"StartTransientUnit", false, func(ctx context.Context, unit string) error {
					_, err := c.StartTransientUnit(ctx, unit, sdbus.ModeReplace, sliceProps())
					return err
				}},
				{"StartUnit", true, func(ctx context.Context, unit string) error {
					_, err := c.StartUnit(ctx, unit, sdbus.ModeReplace)
					return err
				}},
				{"StopUnit (idempotent)", true, func(ctx context.Context, unit string) error {
					_, err := c.StopUnit(ctx, unit, sdbus.ModeReplace)
					return err
				}},
				{"EnsureTransientUnit", false, func(ctx context.Context, unit string) error {
					_, err := c.EnsureTransientUnit(ctx, unit, sliceProps(), sdbus.EnsureOptions{})
					return err
				}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					unit := "polkit-" + conn.name + "-" + strings.NewReplacer(" ", "", "(", "", ")", "").Replace(tc.name) + ".slice"
					if tc.setup {
						startSlice(ctx, t, c, unit)
					}
					if err := s.Script(unit, fakebus.Script{Faults: fakebus.FaultPolkitNoReply}); err != nil {
						t.Fatal(err)
					}
					defer s.ClearScripts()
					// Far below WaitForConnection (30 s): a call that waits for
					// systemd to come back ends with this deadline instead.
					short, cancel := context.WithTimeout(ctx, 3*time.Second)
					defer cancel()
					err := tc.call(short, unit)
					var e *sdbus.Error
					switch {
					case errors.Is(err, sdbus.ErrOutcomeUnknown), errors.Is(err, sdbus.ErrDisconnected),
						errors.Is(err, sdbus.ErrServiceUnknown), errors.Is(err, context.DeadlineExceeded):
						t.Fatalf("%s refused by systemd with NoReply = %v, want a refusal (systemd never left)", tc.name, err)
					case !errors.Is(err, sdbus.ErrTimeout) || !errors.As(err, &e) || !strings.Contains(e.Message, "disconnected from message bus"):
						t.Fatalf("%s refused by systemd with NoReply = %v, want ErrTimeout with systemd's text", tc.name, err)
					}
					if u, ok := s.Unit(unit); tc.setup && (!ok || u.JobID != 0) || !tc.setup && ok {
						t.Errorf("%s after the refusal: %+v, %v; want it as it was (no job, nothing created)", unit, u, ok)
					}
				})
			}
		})
	}
}

// No job result is lost across a daemon-reexec: a job that ends while
// systemd re-executes, announced by neither instance (the old one has
// stopped sending, the new one never had it), ends the Conn's Job with a
// typed error once the new instance owns the name and no longer lists
// it; Done never stays open. A job still queued is left alone.
func TestJobEndedUnannouncedAtReexecEnds(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := s.Script("unannounced-*", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	lost, err := c.StartTransientUnit(ctx, "unannounced-lost.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	kept, err := c.StartTransientUnit(ctx, "unannounced-kept.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	s.Reexecute(fakebus.Reexec{Lose: map[uint32]sdbus.JobResult{lost.ID(): sdbus.JobDone}})
	select {
	case <-lost.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the Done of a job that ended unannounced during a daemon-reexec is still open after 30 s")
	}
	res, err := lost.Wait(ctx)
	if res != "" || !errors.Is(err, sdbus.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "re-executed") {
		t.Errorf("Wait on the job that ended unannounced = %q, %v; want ErrOutcomeUnknown saying it ended while systemd re-executed", res, err)
	}
	if err := lost.Cancel(ctx); err != nil {
		t.Errorf("Cancel of the ended job = %v, want nil (it has ended)", err)
	}
	select {
	case <-kept.Done():
		t.Errorf("the job still queued ended too: %v", errOf(kept.Wait(ctx)))
	default:
	}
	if !s.FinishJob(kept.ID(), sdbus.JobDone) {
		t.Fatal("FinishJob")
	}
	if res, err := kept.Wait(ctx); res != sdbus.JobDone || err != nil {
		t.Errorf("Wait on the job that survived the daemon-reexec = %q, %v", res, err)
	}
}

func errOf(_ sdbus.JobResult, err error) error { return err }
