package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func fastReconnect() sdbus.Option {
	return sdbus.WithReconnect(sdbus.ReconnectPolicy{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond})
}

// A reconnecting Conn survives the loss of its connection: pending waits
// end with ErrDisconnected, later calls work on the new connection, and
// job results arrive again.
func TestReconnect(t *testing.T) {
	for _, private := range []bool{false, true} {
		private := private
		t.Run(map[bool]string{false: "bus", true: "private"}[private], func(t *testing.T) {
			leakCheck(t)
			ctx := testCtx(t)
			s := fakebus.New(t)
			dial := s.Dial
			if private {
				dial = s.DialPrivate
			}
			c, err := dial(ctx, fastReconnect())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := s.Script("pending.slice", fakebus.Script{Delay: time.Hour}); err != nil {
				t.Fatal(err)
			}
			pending, err := c.StartTransientUnit(ctx, "pending.slice", sdbus.ModeReplace, sliceProps())
			if err != nil {
				t.Fatal(err)
			}
			s.DropConnections()
			if _, err := pending.Wait(ctx); !errors.Is(err, sdbus.ErrDisconnected) {
				t.Fatalf("pending Wait = %v, want ErrDisconnected", err)
			}
			// Calls wait for the new connection and go through.
			startSlice(ctx, t, c, "after.slice")
			select {
			case <-c.Done():
				t.Fatal("a reconnecting Conn reported Done")
			default:
			}
			// The job from before is still queued in the manager: Reconcile
			// finds it and hands out a Job that gets its result.
			r, err := c.Reconcile(ctx, "pending.slice")
			if err != nil {
				t.Fatal(err)
			}
			if !r.Loaded || r.Job == nil || r.Job.ID() != pending.ID() {
				t.Fatalf("Reconcile = %+v, want the pending job %d", r, pending.ID())
			}
			if !s.FinishJob(pending.ID(), sdbus.JobDone) {
				t.Fatal("FinishJob")
			}
			if res, err := r.Job.Wait(ctx); res != sdbus.JobDone || err != nil {
				t.Errorf("reconciled Wait = %q, %v", res, err)
			}
		})
	}
}

// A job-creating call in flight when the connection drops is never
// replayed: its outcome is reported as unknown, and Reconcile tells it.
// StopUnit, which is idempotent, is sent again on the new connection.
func TestReconnectNeverReplaysJobCalls(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t, fastReconnect())
	if err := s.Script("inflight.slice", fakebus.Script{ReplyDelay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.StartTransientUnit(ctx, "inflight.slice", sdbus.ModeReplace, sliceProps())
		errc <- err
	}()
	waitFor(t, func() bool { _, ok := s.Unit("inflight.slice"); return ok })
	s.DropConnections()
	err := <-errc
	if !errors.Is(err, sdbus.ErrOutcomeUnknown) || !errors.Is(err, sdbus.ErrDisconnected) {
		t.Fatalf("in-flight StartTransientUnit = %v, want ErrOutcomeUnknown", err)
	}
	r, err := c.Reconcile(ctx, "inflight.slice")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Loaded {
		t.Fatalf("Reconcile = %+v: the unit was created, the call reached the manager", r)
	}
	if r.Job != nil {
		if _, err := r.Job.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A unit nobody created reconciles as not loaded: safe to start.
	if r, err := c.Reconcile(ctx, "never.slice"); err != nil || r.Loaded || r.Job != nil {
		t.Errorf("Reconcile(never.slice) = %+v, %v", r, err)
	}

	// StopUnit in flight is retried.
	if err := s.Script("inflight.slice", fakebus.Script{ReplyDelay: 200 * time.Millisecond, Delay: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	stopErr := make(chan error, 1)
	go func() {
		j, err := c.StopUnit(ctx, "inflight.slice", sdbus.ModeReplace)
		if err == nil {
			_, err = j.Wait(ctx)
		}
		stopErr <- err
	}()
	waitFor(t, func() bool { info, _ := s.Unit("inflight.slice"); return info.JobID != 0 })
	s.DropConnections()
	if err := <-stopErr; err != nil && !errors.Is(err, sdbus.ErrDisconnected) {
		t.Fatalf("StopUnit across a reconnect = %v", err)
	}
	if _, err := c.WaitUnitState(ctx, "inflight.slice", func(st sdbus.UnitState) bool {
		return st.ActiveState == sdbus.StateInactive && st.JobID == 0
	}); err != nil {
		t.Errorf("the unit did not stop: %v", err)
	}
}

// With MaxAttempts, a Conn whose manager is gone for good gives up: Done
// closes and calls fail with ErrDisconnected. Close during reconnecting
// returns promptly and leaks nothing.
func TestReconnectGivesUp(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s, err := fakebus.Start()
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Dial(ctx, sdbus.WithReconnect(sdbus.ReconnectPolicy{MinDelay: time.Millisecond, MaxAttempts: 3}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s.Close()
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the Conn never gave up")
	}
	if _, err := c.GetUnit(ctx, "x.service"); !errors.Is(err, sdbus.ErrDisconnected) {
		t.Errorf("call after giving up = %v, want ErrDisconnected", err)
	}

	// The Conn's only session was short-lived (it lasted less than
	// StableAfter): that attempt failed, and the next is an hour away.
	gone := func() *sdbus.Conn {
		s, err := fakebus.Start()
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Dial(ctx, sdbus.WithReconnect(sdbus.ReconnectPolicy{MinDelay: time.Hour}))
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		return c
	}
	c2 := gone()
	waiting := make(chan error, 1)
	go func() {
		_, err := c2.GetUnit(ctx, "-.slice") // waits for a reconnect that is an hour away
		waiting <- err
	}()
	time.Sleep(10 * time.Millisecond)
	// Close must not wait for the redial an hour away: a Close still
	// waiting after a minute is that hang.
	closed := make(chan error, 1)
	go func() { closed <- c2.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close still waits for the reconnect (an hour away) after a minute")
	}
	if err := <-waiting; !errors.Is(err, sdbus.ErrClosed) {
		t.Errorf("call waiting for the reconnect = %v, want ErrClosed", err)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	c3 := gone()
	defer c3.Close()
	if _, err := c3.GetUnit(short, "-.slice"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call waiting with a short ctx = %v, want DeadlineExceeded", err)
	}
}

// Cached answers about the manager are dropped on reconnect: it may have
// been upgraded meanwhile.
func TestReconnectForgetsVersion(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t, fastReconnect())
	if v, err := c.Version(ctx); err != nil || v.Major != 252 {
		t.Fatalf("Version = %v, %v", v, err)
	}
	if err := s.SetVersion("253.1"); err != nil {
		t.Fatal(err)
	}
	s.DropConnections()
	waitFor(t, func() bool {
		v, err := c.Version(ctx)
		return err == nil && v.Major == 253
	})
}

func TestNewConnRefusesReconnect(t *testing.T) {
	if _, err := sdbus.NewConn(context.Background(), nil, fastReconnect()); !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Fatalf("NewConn with WithReconnect = %v", err)
	}
}

// waitFor polls cond for up to a minute (a bound on a hang, not a speed).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// dbus-daemon refuses more than 128 pending replies per connection
// (LimitsExceeded; fakebus does the same). A Conn keeps its calls in
// flight below that and queues the rest.
func TestPendingCallsBounded(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	if err := s.Script("slowreply-*", fakebus.Script{ReplyDelay: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	c := s.Conn(t)
	errs := make(chan error, 300)
	for i := 0; i < 300; i++ {
		i := i
		go func() {
			j, err := c.StartTransientUnit(ctx, fmt.Sprintf("slowreply-%d.slice", i), sdbus.ModeReplace, sliceProps())
			if err == nil {
				_, err = j.Wait(ctx)
			}
			errs <- err
		}()
	}
	for i := 0; i < 300; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Without the bound, the bus refuses. These replies wait long enough
	// for all 300 calls to be pending at once, however loaded the machine.
	if err := s.Script("slowreply-raw-*", fakebus.Script{ReplyDelay: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	raw := s.Conn(t, sdbus.WithMaxPendingCalls(500))
	var refused int
	for i := 0; i < 300; i++ {
		i := i
		go func() {
			_, err := raw.StartTransientUnit(ctx, fmt.Sprintf("slowreply-raw-%d.slice", i), sdbus.ModeReplace, sliceProps())
			errs <- err
		}()
	}
	for i := 0; i < 300; i++ {
		if err := <-errs; err != nil {
			var se *sdbus.Error
			if !errors.As(err, &se) || se.Name != "org.freedesktop.DBus.Error.LimitsExceeded" {
				t.Fatalf("err = %v", err)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Error("300 concurrent calls on one connection were all accepted; the bus should refuse beyond 128")
	}
}

// WithFallback: the first connection, and every reconnect, tries the
// Conn's own address first and then the fallback (systemd's private
// socket, peer-to-peer), as go-systemd's NewWithContext does once. A
// reconnecting Conn so keeps working while the bus is down, and returns
// to the bus when its direct connection is dropped (daemon-reexec).
func TestFallbackToPrivateSocketAndBack(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	private, err := s.PrivateAddress()
	if err != nil {
		t.Fatal(err)
	}
	var busDown atomic.Bool
	var busDials atomic.Int32
	bus := sdbus.WithDialer(func(context.Context) (io.ReadWriteCloser, error) {
		if busDown.Load() {
			return nil, errors.New("connection refused (the bus is down)")
		}
		busDials.Add(1)
		return s.Pipe(), nil
	})
	// run starts a slice and waits for it. A call made just as the old
	// connection drops may have been sent on it (ErrOutcomeUnknown): then
	// Reconcile tells whether it ran, and it is started again if not.
	run := func(c *sdbus.Conn, name string) {
		t.Helper()
		for attempt := 0; ; attempt++ {
			j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, sliceProps())
			if errors.Is(err, sdbus.ErrOutcomeUnknown) && attempt < 3 {
				r, rerr := c.Reconcile(ctx, name)
				switch {
				case rerr != nil:
					t.Fatalf("Reconcile %s: %v", name, rerr)
				case r.Job != nil:
					j, err = r.Job, nil
				case r.State.ActiveState == sdbus.StateActive:
					return
				default:
					continue
				}
			}
			if err != nil {
				t.Fatalf("start %s: %v", name, err)
			}
			if res, err := j.Wait(ctx); err != nil || res != sdbus.JobDone {
				t.Fatalf("%s: %q, %v", name, res, err)
			}
			return
		}
	}

	// The bus is down from the start: the fallback answers.
	busDown.Store(true)
	c, err := sdbus.Connect(ctx, "fakebus:bus", bus, sdbus.WithFallback(private, true), fastReconnect())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run(c, "fallback_first.slice")
	if n := busDials.Load(); n != 0 {
		t.Fatalf("%d bus connections while the bus is down", n)
	}

	// Back on the bus after the direct connection drops.
	busDown.Store(false)
	s.Reexecute(fakebus.Reexec{}) // systemd drops its private connections
	run(c, "back_on_bus.slice")
	if n := busDials.Load(); n != 1 {
		t.Fatalf("%d bus connections after the private one dropped, want 1", n)
	}

	// The bus goes down under a Conn that uses it: the first redial
	// goes to the private socket, and calls keep working.
	busDown.Store(true)
	s.DropConnections()
	run(c, "bus_restart.slice")
	if n := busDials.Load(); n != 1 {
		t.Fatalf("%d bus connections while the bus is down, want still 1", n)
	}
	select {
	case <-c.Done():
		t.Fatal("the Conn ended")
	default:
	}

	// Without a reconnect policy, Connect still falls back; when nothing
	// answers, the error names the first address and the fallback's.
	other, err := sdbus.Connect(ctx, "fakebus:bus", bus, sdbus.WithFallback(private, true))
	if err != nil {
		t.Fatal(err)
	}
	run(other, "fallback_once.slice")
	other.Close()
	_, err = sdbus.Connect(ctx, "fakebus:bus", bus, sdbus.WithFallback("unix:path=/nonexistent/sdbus-private", true))
	if err == nil || !strings.Contains(err.Error(), "the bus is down") || !strings.Contains(err.Error(), "/nonexistent/sdbus-private") {
		t.Errorf("Connect with nothing answering: %v; want the bus's and the fallback's failures", err)
	}
}

// countingDialer dials the fake's bus and counts the connections. While
// refuse is set, it hands out a stream whose other end is closed: a bus
// that accepts a client and drops it at once.
type countingDialer struct {
	s      *fakebus.Server
	dials  atomic.Int64
	refuse atomic.Bool
}

func (d *countingDialer) dial(context.Context) (io.ReadWriteCloser, error) {
	d.dials.Add(1)
	if d.refuse.Load() {
		client, server := net.Pipe()
		server.Close()
		return client, nil
	}
	return d.s.Pipe(), nil
}

// awaitDone waits until c is done, or fails t when it is not within ten
// seconds.
func (d *countingDialer) awaitDone(t *testing.T, c *sdbus.Conn) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the Conn never gave up: %d connections in 10 s", d.dials.Load())
	}
}

// A bus that drops every new connection right after its setup, or after
// one of its setup steps, makes a reconnecting Conn back off across those
// short-lived sessions and give up after MaxAttempts attempts in a row,
// its first connection included (every session here is short-lived:
// StableAfter is an hour), with ErrDisconnected. Without that, a session
// that could be set up counted as a success, and the Conn redialed as fast
// as the bus dropped it, forever: 175 to 816 connections a second after
// GetNameOwner or Subscribe, with MinDelay 200 ms and MaxAttempts 3.
func TestReconnectBacksOffShortLivedSessions(t *testing.T) {
	for _, fault := range []string{"accept and drop", "Hello", "AddMatch", "GetNameOwner", "Subscribe"} {
		fault := fault
		t.Run(fault, func(t *testing.T) {
			leakCheck(t)
			ctx := testCtx(t)
			s := fakebus.New(t)
			d := &countingDialer{s: s}
			const maxAttempts = 4
			c, err := sdbus.Connect(ctx, "fakebus:bus", sdbus.WithDialer(d.dial), sdbus.WithReconnect(sdbus.ReconnectPolicy{
				MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, StableAfter: time.Hour, MaxAttempts: maxAttempts}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if fault == "accept and drop" {
				d.refuse.Store(true)
			} else {
				s.DropAfterReply(fault, 1<<20)
			}
			if fault == "Subscribe" {
				// A watch subscribes on each new connection.
				go func() {
					for {
						select {
						case <-c.Done():
							return
						case <-ctx.Done():
							return
						default:
						}
						if ch, err := c.WatchUnit(ctx, "-.slice"); err == nil {
							for range ch {
							}
						}
					}
				}()
			}
			s.DropConnections()
			d.awaitDone(t, c)
			if n := d.dials.Load(); n != maxAttempts {
				t.Errorf("%d connections, want MaxAttempts = %d", n, maxAttempts)
			}
			if _, err := c.GetUnit(ctx, "-.slice"); !errors.Is(err, sdbus.ErrDisconnected) {
				t.Errorf("call after giving up = %v, want ErrDisconnected", err)
			}
		})
	}
}

// A stable session resets the count: after each one, the first redial is
// made at once (MinDelay is an hour, so a call that goes through proves
// it), however many of them end, MaxAttempts or more.
func TestReconnectAfterStableSessionIsImmediate(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	d := &countingDialer{s: s}
	const stable = time.Millisecond
	c, err := sdbus.Connect(ctx, "fakebus:bus", sdbus.WithDialer(d.dial), sdbus.WithReconnect(sdbus.ReconnectPolicy{
		MinDelay: time.Hour, StableAfter: stable, MaxAttempts: 2, WaitForConnection: -1}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const drops = 5
	for i := 0; i < drops; i++ {
		time.Sleep(10 * stable) // the session is stable now
		s.DropConnections()
		var err error
		waitFor(t, func() bool {
			_, err = c.GetUnit(ctx, "-.slice")
			return err == nil || !errors.Is(err, sdbus.ErrDisconnected)
		})
		if err != nil {
			t.Fatalf("drop %d: %v", i+1, err)
		}
	}
	select {
	case <-c.Done():
		t.Fatal("the Conn gave up after stable sessions")
	default:
	}
	if n := d.dials.Load(); n != 1+drops {
		t.Errorf("%d connections, want %d: one per stable session", n, 1+drops)
	}
}

// Every value of a ReconnectPolicy works: the longest durations make the
// supervisor wait (a Close ends it) instead of panicking on the jitter of
// the backoff or redialing at once on an overflowed, negative delay; a
// negative MaxAttempts is no limit, as 0.
func TestReconnectPolicyExtremeValues(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	const longest = time.Duration(math.MaxInt64)
	for _, tc := range []struct {
		name string
		p    sdbus.ReconnectPolicy
	}{
		{"longest durations", sdbus.ReconnectPolicy{MinDelay: longest, MaxDelay: longest, AttemptTimeout: longest,
			StableAfter: longest, WaitForConnection: 20 * time.Millisecond}},
		{"two thirds of the longest", sdbus.ReconnectPolicy{MinDelay: longest / 3 * 2, MaxDelay: longest / 3 * 2,
			StableAfter: longest, WaitForConnection: 20 * time.Millisecond}},
		{"negative MaxAttempts", sdbus.ReconnectPolicy{MinDelay: time.Hour, MaxAttempts: -1,
			StableAfter: longest, WaitForConnection: 20 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := fakebus.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c, err := s.Dial(ctx, sdbus.WithReconnect(tc.p))
			if err != nil {
				t.Fatal(err)
			}
			s.DropConnections()
			// The session was short-lived (StableAfter is never reached):
			// the next attempt waits the backoff, far away, and the Conn is
			// not done (no limit on attempts).
			time.Sleep(50 * time.Millisecond)
			if _, err := c.GetUnit(ctx, "-.slice"); !errors.Is(err, sdbus.ErrDisconnected) {
				t.Errorf("call while the redial is far away = %v, want ErrDisconnected after WaitForConnection", err)
			}
			select {
			case <-c.Done():
				t.Error("the Conn gave up reconnecting")
			default:
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
