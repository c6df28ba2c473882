package conformance

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// The calls a daemon-reexec leaves unread: systemd leaves the bus without
// reading the calls queued to it, and the bus answers them NoReply
// ("Message recipient disconnected from message bus without replying").
// A raw client calling in a loop witnesses that; sdbus calls made
// alongside must not fail with ErrTimeout.

// reexecRace runs work in workers goroutines, each in a loop, while the
// manager re-executes reexecs times, and more until a raw client calling
// alongside has seen the bus answer NoReply (up to five re-executions),
// every worker finishing two rounds after each. work's errors are collected. It
// fails the case when no re-execution left a call unread: the case would
// prove nothing.
func reexecRace(t *testing.T, e *env, workers, reexecs int, work func(worker, round int) error) []error {
	t.Helper()
	var (
		mu   sync.Mutex
		errs []error
	)
	var noReply, rounds atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	witness := e.rawBus(t)
	mgr := witness.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1")
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager.GetUnit", 0, "-.slice").Store(new(dbus.ObjectPath))
			var de dbus.Error
			if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.NoReply" {
				noReply.Add(1)
			} else if err != nil && e.ctx.Err() != nil {
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for round := 0; ; round++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := work(w, round); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
				rounds.Add(1)
				if e.ctx.Err() != nil {
					return
				}
			}
		}(w)
	}
	// Not e.c: the fake's bus reads one call at a time per connection, so
	// nothing e.c sends would be read while its Reexecute call is.
	ctl := e.connect(t)
	defer ctl.Close()
	for attempt := 0; attempt < reexecs || attempt < 5 && noReply.Load() == 0; attempt++ {
		if err := ctl.Reexecute(e.ctx); err != nil {
			t.Error(err)
			break
		}
		// Every worker finishes a round with the new instance.
		for after := rounds.Load() + int64(2*workers); rounds.Load() < after && e.ctx.Err() == nil; {
			if _, err := ctl.UnitStatus(e.ctx, "-.slice"); err != nil {
				t.Errorf("UnitStatus -.slice after the reexec: %v", err)
				break
			}
		}
	}
	close(stop)
	wg.Wait()
	if noReply.Load() == 0 {
		t.Fatal("no daemon-reexec left a call unread (the raw client never got NoReply): the case proves nothing")
	}
	t.Logf("the raw client got NoReply %d times", noReply.Load())
	mu.Lock()
	defer mu.Unlock()
	return errs
}

// Idempotent calls systemd never read are sent again once it owns its
// name again: none fails, in particular none with ErrTimeout.
func testReexecUnreadIdempotent(t *testing.T, e *env) {
	slice := e.unit("unread", "slice")
	cleanup(t, e, slice)
	wait(t, e, start(t, e, e.c, slice, sliceProps()), sdbus.JobDone)
	errs := reexecRace(t, e, 4, 1, func(w, round int) error {
		var err error
		switch (w + round) % 4 {
		case 0:
			_, err = e.c.ListUnits(e.ctx)
		case 1:
			_, err = e.c.UnitStatus(e.ctx, slice)
		case 2:
			err = e.c.SetUnitProperties(e.ctx, slice, true, sdbus.PropDescription(fmt.Sprintf("round %d", round)))
		case 3:
			err = e.c.ResetFailedUnit(e.ctx, slice)
		}
		return err
	})
	for _, err := range errs {
		t.Errorf("an idempotent call across daemon-reexec failed: %v (ErrTimeout: %v)", err, errors.Is(err, sdbus.ErrTimeout))
	}
}

// Job calls systemd left unanswered fail with ErrOutcomeUnknown, never
// ErrTimeout, and Reconcile tells what became of them; EnsureTransientUnit
// and DestroyUnit keep their promises: every unit created, then gone.
func testReexecJobCalls(t *testing.T, e *env) {
	var unknown atomic.Int64
	errs := reexecRace(t, e, 6, 3, func(w, round int) error {
		name := e.unit("reexecjob", "slice")
		if round%2 == 0 {
			out, err := e.c.EnsureTransientUnit(e.ctx, name, sliceProps(), sdbus.EnsureOptions{})
			if err != nil || out != sdbus.Created {
				return fmt.Errorf("EnsureTransientUnit %s = %v, %v; want created", name, out, err)
			}
		} else {
			j, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, sliceProps())
			switch {
			case errors.Is(err, sdbus.ErrOutcomeUnknown) && !errors.Is(err, sdbus.ErrTimeout):
				unknown.Add(1)
				r, rerr := e.c.Reconcile(e.ctx, name)
				if rerr != nil {
					return fmt.Errorf("Reconcile %s: %v", name, rerr)
				}
				if r.Job != nil {
					if res, werr := r.Job.Wait(e.ctx); res != sdbus.JobDone {
						return fmt.Errorf("the reconciled job of %s: %q, %v", name, res, werr)
					}
				}
			case err != nil:
				return fmt.Errorf("StartTransientUnit %s: %v (ErrTimeout: %v)", name, err, errors.Is(err, sdbus.ErrTimeout))
			default:
				if res, werr := j.Wait(e.ctx); res != sdbus.JobDone {
					return fmt.Errorf("start job of %s: %q, %v", name, res, werr)
				}
			}
		}
		if err := e.c.DestroyUnit(e.ctx, name); err != nil {
			return fmt.Errorf("DestroyUnit %s: %v", name, err)
		}
		// Gone, or inactive until systemd collects it.
		if _, err := e.c.GetUnit(e.ctx, name); err == nil {
			if st, err := e.c.UnitStatus(e.ctx, name); err != nil || st.ActiveState != sdbus.StateInactive {
				return fmt.Errorf("%s after DestroyUnit: %+v, %v", name, st, err)
			}
		} else if !errors.Is(err, sdbus.ErrNoSuchUnit) {
			return fmt.Errorf("GetUnit %s after DestroyUnit: %v", name, err)
		}
		return nil
	})
	t.Logf("%d job calls had an unknown outcome", unknown.Load())
	for _, err := range errs {
		t.Error(err)
	}
}
