package sdbus_test

// Regression tests for what a connection's end must not break (see the
// state machine in session.go): each names the guarantee it protects.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// startPending starts a slice whose start job stays queued for an hour.
func startPending(ctx context.Context, t *testing.T, s *fakebus.Server, c *sdbus.Conn, name string) *sdbus.Job {
	t.Helper()
	if err := s.Script(name, fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// Job.Cancel never reports success without effect: after the connection
// is lost a reconnecting Conn cancels on its next connection; any other
// Conn says it could not (ErrDisconnected, ErrClosed after Close).
func TestJobCancelNeverSucceedsWithoutEffect(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name      string
		reconnect bool
		close     bool
		want      error // nil: canceled
	}{
		{"disconnected", false, false, sdbus.ErrDisconnected},
		{"closed", false, true, sdbus.ErrClosed},
		{"reconnecting", true, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			var opts []sdbus.Option
			if tc.reconnect {
				opts = append(opts, fastReconnect())
			}
			c := s.Conn(t, opts...)
			j := startPending(ctx, t, s, c, "queued.slice")
			if tc.close {
				c.Close()
			} else {
				s.DropConnections()
			}
			<-j.Done()
			err := j.Cancel(ctx)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("Cancel = %v, want %v", err, tc.want)
				}
				if s.Jobs() != 1 {
					t.Errorf("%d jobs queued; the job must still be there", s.Jobs())
				}
				return
			}
			if err != nil {
				t.Fatalf("Cancel = %v, want nil", err)
			}
			if n := s.Jobs(); n != 0 {
				t.Errorf("%d jobs queued after Cancel on the new connection, want 0", n)
			}
			// Canceling again, or a job that is gone, is not an error.
			if err := j.Cancel(ctx); err != nil {
				t.Errorf("second Cancel = %v", err)
			}
		})
	}
}

// EnsureTransientUnit keeps its promise when the connection drops while it
// waits for the start job: a reconnecting Conn reconciles (success when
// the unit started; the failure reported and the name freed otherwise);
// any other Conn reports ErrOutcomeUnknown.
func TestEnsureTransientUnitSurvivesDisconnectDuringWait(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name      string
		reconnect bool
		result    sdbus.JobResult
		want      error
		outcome   sdbus.Outcome
	}{
		{"reconnecting, started", true, sdbus.JobDone, nil, sdbus.Created},
		{"reconnecting, failed", true, sdbus.JobFailed, sdbus.ErrJobFailed, 0},
		{"not reconnecting", false, sdbus.JobDone, sdbus.ErrOutcomeUnknown, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithMadeUpPIDs())
			var opts []sdbus.Option
			if tc.reconnect {
				opts = append(opts, fastReconnect())
			}
			c := s.Conn(t, opts...)
			// The connection drops right after the start's reply (which
			// reaches the caller first), while the job runs.
			if err := s.Script("ensure.scope", fakebus.Script{Delay: 300 * time.Millisecond, Result: tc.result,
				Faults: fakebus.FaultDropConnection}); err != nil {
				t.Fatal(err)
			}
			type result struct {
				out sdbus.Outcome
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := c.EnsureTransientUnit(ctx, "ensure.scope", scopeProps(4242), sdbus.EnsureOptions{})
				done <- result{out, err}
			}()
			r := <-done
			if r.out != tc.outcome || !errors.Is(r.err, tc.want) || (tc.want == nil) != (r.err == nil) {
				t.Fatalf("EnsureTransientUnit = %v, %v; want %v, %v", r.out, r.err, tc.outcome, tc.want)
			}
			if tc.want == nil {
				if u, ok := s.Unit("ensure.scope"); !ok || u.ActiveState != "active" {
					t.Errorf("unit after success: %+v", u)
				}
			}
			if tc.result == sdbus.JobFailed {
				waitFor(t, func() bool { _, ok := s.Unit("ensure.scope"); return !ok })
			}
		})
	}
}

// DestroyUnit keeps its promise when the connection drops while it waits
// for the stop job: a reconnecting Conn stops again (idempotent) and
// finishes; any other Conn reports ErrOutcomeUnknown. When the connection
// drops before the stop's reply, a Conn that does not reconnect reports
// DestroyUnit's ErrDisconnected, saying the stop may have reached
// systemd (a reconnecting one sends StopUnit again, as every idempotent
// call: TestReconnectNeverReplaysJobCalls).
func TestDestroyUnitSurvivesDisconnectDuringWait(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name        string
		reconnect   bool
		beforeReply bool // drop before the StopUnit reply
		want        error
	}{
		{"reconnecting", true, false, nil},
		{"not reconnecting", false, false, sdbus.ErrOutcomeUnknown},
		{"not reconnecting, before the reply", false, true, sdbus.ErrDisconnected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			var opts []sdbus.Option
			if tc.reconnect {
				opts = append(opts, fastReconnect())
			}
			c := s.Conn(t, opts...)
			startSlice(ctx, t, c, "destroy.slice")
			script := fakebus.Script{Delay: 300 * time.Millisecond}
			if tc.beforeReply {
				script.ReplyDelay = time.Hour
			}
			if err := s.Script("destroy.slice", script); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.DestroyUnit(ctx, "destroy.slice") }()
			waitFor(t, func() bool { return s.Jobs() == 1 })
			if !tc.beforeReply {
				// The reply to StopUnit has reached the Conn once that
				// of a later call on it has.
				if _, err := c.ListJobs(ctx); err != nil {
					t.Fatal(err)
				}
			}
			s.DropConnections()
			err := <-done
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("DestroyUnit = %v, want %v", err, tc.want)
			}
			var e *sdbus.Error
			if err != nil && (!errors.As(err, &e) || e.Op != "DestroyUnit") {
				t.Errorf("DestroyUnit = %v, want DestroyUnit's error", err)
			}
			if tc.want == nil {
				if u, ok := s.Unit("destroy.slice"); ok && u.ActiveState != "inactive" {
					t.Errorf("unit after DestroyUnit: %+v", u)
				}
			}
		})
	}
}

// abandonLateStart starts name with a ctx that ends before the reply,
// which comes a second after the job (queued for an hour) is created,
// and returns once the fake holds that job: the call may reach the fake
// after the caller gave up.
func abandonLateStart(ctx context.Context, t *testing.T, s *fakebus.Server, c *sdbus.Conn, name string) {
	t.Helper()
	if err := s.Script(name, fakebus.Script{ReplyDelay: time.Second, Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := c.StartTransientUnit(short, name, sdbus.ModeReplace, sliceProps()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("StartTransientUnit = %v, want DeadlineExceeded", err)
	}
	waitFor(t, func() bool { return s.Jobs() == 1 })
}

// A start abandoned by its ctx whose late reply is cut by a disconnect:
// the job systemd created anyway is canceled on the next connection.
func TestLateJobCanceledAcrossReconnect(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t, fastReconnect())
	abandonLateStart(ctx, t, s, c, "late.slice")
	s.DropConnections() // the late reply never arrives
	waitFor(t, func() bool { return s.Jobs() == 0 })
	if u, ok := s.Unit("late.slice"); ok && u.ActiveState == "active" {
		t.Errorf("the abandoned start ran: %+v", u)
	}
}

// Reconcile only looks a job up: a late cancel on behalf of a caller who
// gave up still happens, and the Reconcile's Job reports it.
func TestReconcileDoesNotStopLateCancel(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t, fastReconnect())
	abandonLateStart(ctx, t, s, c, "late.slice")
	r, err := c.Reconcile(ctx, "late.slice")
	if err != nil || r.Job == nil {
		t.Fatalf("Reconcile = %+v, %v; want the queued job", r, err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if res, err := r.Job.Wait(wctx); res != sdbus.JobCanceled {
		t.Errorf("reconciled Wait = %q, %v; want canceled (the caller gave up)", res, err)
	}
}

// ExistsIgnore is refused whenever the properties place processes,
// decided by the D-Bus type: a named slice type of PIDs counts too; and
// ExistsJoin moves such PIDs.
func TestExistsPolicyGoesByDBusTypeOfPIDs(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithMadeUpPIDs())
	c := s.Conn(t)
	type pidList []uint32
	props := func(pids pidList) []sdbus.Property {
		return []sdbus.Property{sdbus.PropRaw("PIDs", pids), sdbus.PropDelegate(true)}
	}
	if _, err := c.EnsureTransientUnit(ctx, "named.scope", props(pidList{7}), sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnsureTransientUnit(ctx, "named.scope", props(pidList{8}), sdbus.EnsureOptions{Exists: sdbus.ExistsIgnore}); !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Errorf("ExistsIgnore with a named PID slice type = %v, want ErrInvalidArgs", err)
	}
	out, err := c.EnsureTransientUnit(ctx, "named.scope", props(pidList{9}), sdbus.EnsureOptions{Exists: sdbus.ExistsJoin})
	if out != sdbus.Joined || err != nil {
		t.Fatalf("ExistsJoin = %v, %v", out, err)
	}
	if u, _ := s.Unit("named.scope"); !reflect.DeepEqual(u.PIDs, []uint32{7, 9}) {
		t.Errorf("PIDs = %v, want [7 9]", u.PIDs)
	}
}

// A reconnecting Conn that cannot connect fails a call whose ctx has no
// deadline after ReconnectPolicy.WaitForConnection, with ErrDisconnected.
func TestReconnectingCallWaitIsBounded(t *testing.T) {
	leakCheck(t)
	s, err := fakebus.Start()
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Dial(context.Background(), sdbus.WithReconnect(sdbus.ReconnectPolicy{
		MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, WaitForConnection: 100 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.GetUnit(context.Background(), "-.slice")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, sdbus.ErrDisconnected) {
			t.Errorf("GetUnit = %v, want ErrDisconnected", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a call with context.Background() waited 20 s for a connection that never came")
	}
}

// API misuse never panics: a nil or zero Job and a nil or zero Conn fail
// with ErrInvalidArgs (their channels are closed, Close is a no-op).
func TestNilAndZeroReceiversDoNotPanic(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for name, j := range map[string]*sdbus.Job{"nil Job": nil, "zero Job": {}} {
		t.Run(name, func(t *testing.T) {
			if j.ID() != 0 || j.Path() != "" || j.Unit() != "" {
				t.Errorf("ID, Path, Unit = %d, %q, %q", j.ID(), j.Path(), j.Unit())
			}
			select {
			case <-j.Done():
			default:
				t.Error("Done is not closed")
			}
			if _, err := j.Wait(ctx); !errors.Is(err, sdbus.ErrInvalidArgs) {
				t.Errorf("Wait = %v", err)
			}
			if err := j.Cancel(ctx); !errors.Is(err, sdbus.ErrInvalidArgs) {
				t.Errorf("Cancel = %v", err)
			}
		})
	}
	for name, c := range map[string]*sdbus.Conn{"nil Conn": nil, "zero Conn": {}} {
		t.Run(name, func(t *testing.T) {
			if err := c.Close(); err != nil {
				t.Errorf("Close = %v", err)
			}
			select {
			case <-c.Done():
			default:
				t.Error("Done is not closed")
			}
			calls := map[string]func() error{
				"Version":     func() error { _, err := c.Version(ctx); return err },
				"Supports":    func() error { _, err := c.Supports(ctx, sdbus.FeatureCollectMode); return err },
				"StartUnit":   func() error { _, err := c.StartUnit(ctx, "a.service", sdbus.ModeReplace); return err },
				"StopUnit":    func() error { _, err := c.StopUnit(ctx, "a.service", sdbus.ModeReplace); return err },
				"CancelJob":   func() error { return c.CancelJob(ctx, 1) },
				"ListJobs":    func() error { _, err := c.ListJobs(ctx); return err },
				"ListUnits":   func() error { _, err := c.ListUnits(ctx); return err },
				"GetUnit":     func() error { _, err := c.GetUnit(ctx, "a.service"); return err },
				"UnitByPID":   func() error { _, err := c.UnitByPID(ctx, 1); return err },
				"UnitStatus":  func() error { _, err := c.UnitStatus(ctx, "a.service"); return err },
				"ResetFailed": func() error { return c.ResetFailedUnit(ctx, "a.service") },
				"Reload":      func() error { return c.Reload(ctx) },
				"Reexecute":   func() error { return c.Reexecute(ctx) },
				"Reconcile":   func() error { _, err := c.Reconcile(ctx, "a.service"); return err },
				"Ensure": func() error {
					_, err := c.EnsureTransientUnit(ctx, "a.scope", scopeProps(1), sdbus.EnsureOptions{})
					return err
				},
				"DestroyUnit":     func() error { return c.DestroyUnit(ctx, "a.service") },
				"UnitProperties":  func() error { _, err := c.UnitProperties(ctx, "a.service"); return err },
				"EffectiveLimits": func() error { _, err := c.EffectiveLimits(ctx, "a.scope"); return err },
				"WatchUnit":       func() error { _, err := c.WatchUnit(ctx, "a.service"); return err },
				"WaitUnitState": func() error {
					_, err := c.WaitUnitState(ctx, "a.service", func(sdbus.UnitState) bool { return true })
					return err
				},
				"SetUnitProperties": func() error { return c.SetUnitProperties(ctx, "a.service", true, sdbus.PropDescription("x")) },
				"KillUnit":          func() error { return c.KillUnit(ctx, "a.service", sdbus.KillAll, 15) },
			}
			for call, f := range calls {
				if err := f(); !errors.Is(err, sdbus.ErrInvalidArgs) {
					t.Errorf("%s = %v, want ErrInvalidArgs", call, err)
				}
			}
		})
	}
	var e *sdbus.Error
	var je *sdbus.JobError
	_ = e.Error() + je.Error()
}

// A reconnecting Conn never stops reconnecting by itself: when a fresh
// connection drops right after its setup, before it is installed, the Conn
// redials again and calls go through.
func TestReconnectSurvivesDropBetweenSetupAndInstall(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	// Each Conn's second connection is cut right after the reply to one
	// of the calls a connection's setup may make; the last of them leaves
	// a connection that was set up but not yet installed.
	for _, member := range []string{"Hello", "AddMatch", "GetNameOwner", "Subscribe"} {
		member := member
		t.Run(member, func(t *testing.T) {
			s := fakebus.New(t)
			const n = 8
			conns := make([]*sdbus.Conn, n)
			for i := range conns {
				conns[i] = s.Conn(t, fastReconnect())
			}
			s.DropAfterReply(member, n)
			s.DropConnections()
			errs := make(chan error, n)
			for i, c := range conns {
				i, c := i, c
				go func() {
					cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					defer cancel()
					_, err := c.GetUnit(cctx, "-.slice")
					if err != nil {
						err = fmt.Errorf("Conn %d: %w", i, err)
					}
					errs <- err
				}()
			}
			stuck := 0
			for range conns {
				if err := <-errs; err != nil {
					stuck++
					t.Log(err)
				}
			}
			if stuck > 0 {
				t.Errorf("%d of %d Conns stuck after their new connection was cut after %s", stuck, n, member)
			}
		})
	}
}

// systemd's natural order at a disconnect is reply, JobRemoved, EOF: the
// result that arrived is the one Wait reports, never ErrDisconnected.
func TestResultArrivedBeforeDisconnectIsReported(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, reconnect := range []bool{false, true} {
		t.Run(fmt.Sprintf("reconnect=%v", reconnect), func(t *testing.T) {
			s := fakebus.New(t)
			if err := s.Script("last-*", fakebus.Script{Faults: fakebus.FaultDropAfterJobRemoved}); err != nil {
				t.Fatal(err)
			}
			if err := s.Script("last-fail-*", fakebus.Script{Faults: fakebus.FaultDropAfterJobRemoved, Result: sdbus.JobFailed}); err != nil {
				t.Fatal(err)
			}
			var opts []sdbus.Option
			if reconnect {
				opts = append(opts, fastReconnect())
			}
			lost := 0
			const rounds = 40
			for i := 0; i < rounds; i++ {
				c := s.Conn(t, opts...)
				name, want, cmd := fmt.Sprintf("last-%d.service", i), sdbus.JobDone, "/bin/true"
				if i%2 == 1 {
					name, want, cmd = fmt.Sprintf("last-fail-%d.service", i), sdbus.JobFailed, "/bin/false"
				}
				j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, oneshot(cmd))
				if err != nil {
					t.Fatal(err)
				}
				if res, _ := j.Wait(ctx); res != want {
					lost++
				}
				c.Close()
			}
			if lost != 0 {
				t.Errorf("%d of %d results that arrived before the disconnect were lost", lost, rounds)
			}
		})
	}
}

// systemd 262 releases org.freedesktop.systemd1 on daemon-reexec and its
// new instance may send JobRemoved before it owns the name again: that
// result is delivered; a forger's, sent in the same gap, is not.
func TestResultSentBeforeNameReacquiredIsDeliveredOnTheWire(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithVersion("262.1-1"))
	c := s.Conn(t)
	real := startPending(ctx, t, s, c, "reexec-real.slice")
	forged := startPending(ctx, t, s, c, "reexec-forged.slice")
	s.Reexecute(fakebus.Reexec{Forge: []uint32{forged.ID()},
		Finish: map[uint32]sdbus.JobResult{real.ID(): sdbus.JobFailed}})
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if res, err := real.Wait(wctx); res != sdbus.JobFailed {
		t.Errorf("Wait = %q, %v; want the new instance's result, failed", res, err)
	}
	select {
	case <-forged.Done():
		res, err := forged.Wait(ctx)
		t.Errorf("the forged result was delivered: %q, %v", res, err)
	default:
	}
	if !s.FinishJob(forged.ID(), sdbus.JobDone) {
		t.Fatal("FinishJob")
	}
	if res, err := forged.Wait(wctx); res != sdbus.JobDone || err != nil {
		t.Errorf("Wait after the real result = %q, %v", res, err)
	}
}

// cutAfter wraps a connection and closes it right after the client wrote
// a message containing marker, once: the call reaches systemd and takes
// effect, its reply is lost. The client reads nothing once that message
// is on its way: the reply can come before the connection is closed.
type cutAfter struct {
	io.ReadWriteCloser
	marker []byte
	armed  *atomic.Bool
	cut    *atomic.Bool
}

func (c cutAfter) Write(p []byte) (int, error) {
	last := bytes.Contains(p, c.marker) && c.armed.CompareAndSwap(true, false)
	if last {
		c.cut.Store(true)
	}
	n, err := c.ReadWriteCloser.Write(p)
	if last {
		c.ReadWriteCloser.Close()
	}
	return n, err
}

func (c cutAfter) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	if c.cut.Load() {
		return 0, io.ErrClosedPipe
	}
	return n, err
}

// SetUnitProperties whose reply was lost is sent again on the next
// connection only when that is safe: a property that sets a value
// (MemoryMax) is, one that appends to a list (DeviceAllow) is not, and
// reports ErrOutcomeUnknown instead; the rule is then there once.
func TestSetUnitPropertiesThatAppendsIsNotReplayed(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name    string
		prop    sdbus.Property
		want    error
		devices int
	}{
		{"sets a value", sdbus.PropMemoryMax(1 << 30), nil, 0},
		{"appends to a list", sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/null", Access: "rw"}), sdbus.ErrOutcomeUnknown, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			var armed atomic.Bool
			c, err := sdbus.Connect(ctx, "fakebus:cut", fastReconnect(), sdbus.WithDialer(func(ctx context.Context) (io.ReadWriteCloser, error) {
				// The fake handles the cut connection's last call before
				// it forgets it: the next connection's calls come after.
				for s.Clients() > 0 {
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(time.Millisecond):
					}
				}
				return cutAfter{s.Pipe(), []byte("SetUnitProperties"), &armed, new(atomic.Bool)}, nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			startSlice(ctx, t, c, "props.slice")
			armed.Store(true)
			err = c.SetUnitProperties(ctx, "props.slice", true, tc.prop)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("SetUnitProperties with its reply lost = %v, want %v", err, tc.want)
			}
			p, err := c.SliceProperties(ctx, "props.slice")
			if err != nil {
				t.Fatal(err)
			}
			if len(p.DeviceAllow) != tc.devices {
				t.Errorf("DeviceAllow = %v: want %d rule(s)", p.DeviceAllow, tc.devices)
			}
			if tc.want == nil && p.MemoryMax.Value != 1<<30 {
				t.Errorf("MemoryMax = %+v after the replay", p.MemoryMax)
			}
		})
	}
}
