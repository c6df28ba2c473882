package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// sliceProps are the properties of a transient slice used throughout.
func sliceProps() []sdbus.Property {
	return []sdbus.Property{sdbus.PropDescription("test slice"), sdbus.PropDefaultDependencies(false)}
}

func oneshot(argv ...string) []sdbus.Property {
	return []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart(argv, false)}
}

// waitIdle waits until tracking state has been freed.
func waitTrackedZero(t *testing.T, c *sdbus.Conn) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		jobs, _ := sdbus.TrackedJobs(c)
		if jobs == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still tracking %d job paths", jobs)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStartTransientUnitWait(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	c := fakebus.New(t).Conn(t)
	j, err := c.StartTransientUnit(ctx, "wait.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	if j.ID() == 0 || j.Path() != sdbus.JobPath(j.ID()) || j.Unit() != "wait.slice" {
		t.Errorf("job = id %d path %s unit %s", j.ID(), j.Path(), j.Unit())
	}
	for i := 0; i < 3; i++ { // Wait can be called again and again
		res, err := j.Wait(ctx)
		if res != sdbus.JobDone || err != nil {
			t.Fatalf("Wait #%d = %q, %v; want done, nil", i, res, err)
		}
	}
	select {
	case <-j.Done():
	default:
		t.Error("Done() not closed after the result arrived")
	}
	waitTrackedZero(t, c)
}

// Every job result comes back as the typed result; only done and skipped
// count as success, any other, including one this package does not know,
// is a *JobError matching ErrJobFailed.
func TestJobResultsTyped(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	results := []sdbus.JobResult{
		sdbus.JobDone, sdbus.JobCanceled, sdbus.JobTimeout, sdbus.JobFailed, sdbus.JobDependency,
		sdbus.JobSkipped, sdbus.JobInvalid, sdbus.JobAssert, sdbus.JobUnsupported, sdbus.JobCollected,
		sdbus.JobOnce, sdbus.JobFrozen, "from-the-future",
	}
	for i, want := range results {
		want := want
		name := fmt.Sprintf("result%d.slice", i)
		t.Run(string(want), func(t *testing.T) {
			if err := s.Script(name, fakebus.Script{Result: want}); err != nil {
				t.Fatal(err)
			}
			j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, sliceProps())
			if err != nil {
				t.Fatal(err)
			}
			got, err := j.Wait(ctx)
			if got != want {
				t.Errorf("result = %q, want %q", got, want)
			}
			if want.Succeeded() {
				if err != nil {
					t.Errorf("err = %v, want nil", err)
				}
				return
			}
			var je *sdbus.JobError
			if !errors.As(err, &je) || !errors.Is(err, sdbus.ErrJobFailed) {
				t.Fatalf("err = %v, want a *JobError matching ErrJobFailed", err)
			}
			if diff := cmp.Diff(sdbus.JobError{Unit: name, JobID: j.ID(), Result: want}, *je); diff != "" {
				t.Errorf("JobError (-want +got):\n%s", diff)
			}
			if want.Known() != (want != "from-the-future") {
				t.Errorf("Known() = %v", want.Known())
			}
		})
	}
}

// A caller that never reads its job's result, and one that gives up
// waiting, do not delay anybody else's result.
func TestNeverReadWaiterDoesNotBlockOthers(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	// A job nobody ever waits for, and one abandoned mid-Wait.
	if _, err := c.StartTransientUnit(ctx, "ignored.slice", sdbus.ModeReplace, sliceProps()); err != nil {
		t.Fatal(err)
	}
	if err := s.Script("abandoned.slice", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	ab, err := c.StartTransientUnit(ctx, "abandoned.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, time.Millisecond)
	_, err = ab.Wait(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("abandoned Wait = %v, want DeadlineExceeded", err)
	}
	if !s.FinishJob(ab.ID(), sdbus.JobDone) { // its result comes, and nobody reads it
		t.Fatal("FinishJob: the abandoned job is gone")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := c.StartTransientUnit(ctx, fmt.Sprintf("other%d.slice", i), sdbus.ModeReplace, sliceProps())
			if err == nil {
				_, err = j.Wait(ctx)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitTrackedZero(t, c)
}

// 10,000 jobs outstanding at once on one connection, each with its own
// waiter: every waiter gets its own job's result.
func TestTenThousandConcurrentWaiters(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	leakCheck(t)
	// Not testCtx: 10,000 jobs under -race on a loaded 2-core machine
	// can take longer than its 2 minutes (over 90 s at a load of 20);
	// this bounds a hang all the same, and says so apart from wrong
	// results.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := fakebus.New(t)
	c := s.Conn(t)
	// Every third unit fails, so that results differ per job.
	if err := s.Script("w*-fail.slice", fakebus.Script{Result: sdbus.JobFailed, Delay: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := s.Script("w*-ok.slice", fakebus.Script{Delay: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	const n = 10000
	var wg sync.WaitGroup
	var mu sync.Mutex
	wrong, unfinished := 0, 0
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			name, want := fmt.Sprintf("w%d-ok.slice", i), sdbus.JobDone
			if i%3 == 0 {
				name, want = fmt.Sprintf("w%d-fail.slice", i), sdbus.JobFailed
			}
			<-start
			j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, sliceProps())
			var got sdbus.JobResult
			if err == nil {
				got, _ = j.Wait(ctx) // a failed job is a result here; no result is the check below
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ctx.Err() != nil && !got.Known():
				unfinished++
			case got != want:
				wrong++
			}
		}()
	}
	close(start)
	wg.Wait()
	if wrong != 0 || unfinished != 0 {
		t.Fatalf("of %d waiters, %d got a wrong result or error and %d had none within the bound (a hang)", n, wrong, unfinished)
	}
	waitTrackedZero(t, c)
}

// systemd never sends JobRemoved before the reply that names the job, but
// godbus may hand them to different goroutines in either order; a peer that
// does send them in that order must not lose the result either.
func TestJobRemovedBeforeReply(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := s.Script("early-*", fakebus.Script{Faults: fakebus.FaultJobRemovedBeforeReply}); err != nil {
		t.Fatal(err)
	}
	if err := s.Script("early-fail.service", fakebus.Script{Faults: fakebus.FaultJobRemovedBeforeReply, Result: sdbus.JobFailed}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		unit  string
		props []sdbus.Property
		want  sdbus.JobResult
	}{
		{"early-ok.slice", sliceProps(), sdbus.JobDone},
		{"early-fail.service", oneshot("/bin/false"), sdbus.JobFailed},
	} {
		j, err := c.StartTransientUnit(ctx, tc.unit, sdbus.ModeReplace, tc.props)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := j.Wait(ctx); got != tc.want {
			t.Errorf("%s: result %q, want %q", tc.unit, got, tc.want)
		}
	}
	waitTrackedZero(t, c)
}

// Two starts of the same queued unit get the same (merged) job, and both
// waiters get its result.
func TestMergedJobTwoWaiters(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "merge.service",
		Properties: oneshot("/bin/sleep", "0.2")}))
	c1, c2 := s.Conn(t), s.Conn(t)
	for _, second := range []*sdbus.Conn{c1, c2} { // the same and another connection
		j1, err := c1.StartUnit(ctx, "merge.service", sdbus.ModeReplace)
		if err != nil {
			t.Fatal(err)
		}
		j2, err := second.StartUnit(ctx, "merge.service", sdbus.ModeReplace)
		if err != nil {
			t.Fatal(err)
		}
		if j1.Path() != j2.Path() {
			t.Fatalf("paths %s and %s, want one merged job", j1.Path(), j2.Path())
		}
		var wg sync.WaitGroup
		for _, j := range []*sdbus.Job{j1, j2} {
			j := j
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res, err := j.Wait(ctx); res != sdbus.JobDone || err != nil {
					t.Errorf("Wait = %q, %v", res, err)
				}
			}()
		}
		wg.Wait()
	}
	waitTrackedZero(t, c1)
	waitTrackedZero(t, c2)
}

// A ctx that ends while the start call is in flight: the caller gets the
// ctx error at once, and the job systemd created anyway is canceled when
// its late reply arrives, so it never runs unnoticed.
func TestContextExpiresDuringCall(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "late.service",
		Properties: oneshot("/bin/true")}))
	c := s.Conn(t)
	watcher := s.Conn(t)
	// The reply comes a second after the job was made: StartUnit must
	// return when its 10 ms ctx ends, long before that.
	const replyDelay = time.Second
	if err := s.Script("late.service", fakebus.Script{ReplyDelay: replyDelay, Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	began := time.Now()
	j, err := c.StartUnit(short, "late.service", sdbus.ModeReplace)
	if j != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("StartUnit = %v, %v; want nil, DeadlineExceeded", j, err)
	}
	if d := time.Since(began); d >= replyDelay {
		t.Errorf("StartUnit returned after %v, when the reply came, not when its ctx ended", d)
	}
	var se *sdbus.Error
	if !errors.As(err, &se) || se.Op != "StartUnit" || se.Unit != "late.service" {
		t.Errorf("err = %#v", err)
	}
	// The job exists, and is canceled once the reply has arrived.
	st, err := watcher.WaitUnitState(ctx, "late.service", func(s sdbus.UnitState) bool {
		return s.JobID == 0 && s.ActiveState == sdbus.StateInactive
	})
	if err != nil {
		t.Fatalf("the abandoned job was not canceled: %v (state %+v)", err, st)
	}
	if n := s.Jobs(); n != 0 {
		t.Errorf("fake still has %d jobs", n)
	}
	// A ctx that has already ended sends nothing.
	done, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := c.StartUnit(done, "late.service", sdbus.ModeReplace); !errors.Is(err, context.Canceled) {
		t.Errorf("StartUnit with a canceled ctx = %v", err)
	}
	if n := s.Jobs(); n != 0 {
		t.Errorf("a canceled ctx still queued a job (%d jobs)", n)
	}
	waitTrackedZero(t, c)
}

// A Wait whose ctx ends returns the ctx error; the job goes on, and a
// later Wait gets its result.
func TestContextExpiresDuringWait(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := s.Script("slow.slice", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, "slow.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel()
	res, err := j.Wait(short)
	if res != "" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %q, %v; want DeadlineExceeded", res, err)
	}
	if !s.FinishJob(j.ID(), sdbus.JobDone) {
		t.Fatal("FinishJob: the job is gone")
	}
	if res, err := j.Wait(ctx); res != sdbus.JobDone || err != nil {
		t.Fatalf("second Wait = %q, %v; want done", res, err)
	}
}

// JobRemoved signals from anyone but systemd, on another path, or with a
// malformed body, are ignored: no panic, no wrong result.
func TestForgedAndMalformedJobRemovedIgnored(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault fakebus.Fault
	}{
		{"forged sender", fakebus.FaultForgedJobRemoved},
		{"wrong path", fakebus.FaultWrongPathJobRemoved},
		{"malformed body", fakebus.FaultMalformedJobRemoved},
		{"duplicate", fakebus.FaultDuplicateJobRemoved},
		{"all", fakebus.FaultForgedJobRemoved | fakebus.FaultWrongPathJobRemoved | fakebus.FaultMalformedJobRemoved | fakebus.FaultDuplicateJobRemoved},
	} {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			for _, private := range []bool{false, true} {
				leakCheck(t)
				ctx := testCtx(t)
				s := fakebus.New(t)
				c := s.Conn(t)
				if private {
					c = s.PrivateConn(t)
				}
				if err := s.Script("victim.service", fakebus.Script{Faults: tc.fault, Result: sdbus.JobFailed, Delay: 10 * time.Millisecond}); err != nil {
					t.Fatal(err)
				}
				j, err := c.StartTransientUnit(ctx, "victim.service", sdbus.ModeReplace, oneshot("/bin/false"))
				if err != nil {
					t.Fatal(err)
				}
				// Garbage between the start and the real result.
				s.EmitJobRemoved()
				s.EmitJobRemoved("x")
				s.EmitJobRemoved(j.ID(), j.Path(), "victim.service")
				s.EmitJobRemoved(j.ID(), string(j.Path()), "victim.service", "done")
				s.EmitJobRemoved(j.ID(), j.Path(), "victim.service", []string{"done"})
				s.EmitJobRemovedFrom(":1.4242", j.ID(), j.Path(), "victim.service", "done")
				res, err := j.Wait(ctx)
				if res != sdbus.JobFailed || !errors.Is(err, sdbus.ErrJobFailed) {
					t.Errorf("private=%v: Wait = %q, %v; want the real result, failed", private, res, err)
				}
			}
		})
	}
}

// When the connection drops, every pending Wait returns ErrDisconnected
// promptly.
func TestDisconnectMidWait(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := s.Script("*", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	var jobs []*sdbus.Job
	for i := 0; i < 10; i++ {
		j, err := c.StartTransientUnit(ctx, fmt.Sprintf("hang%d.slice", i), sdbus.ModeReplace, sliceProps())
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	s.DropConnections()
	for _, j := range jobs {
		res, err := j.Wait(ctx)
		if res != "" || !errors.Is(err, sdbus.ErrDisconnected) {
			t.Errorf("Wait = %q, %v; want ErrDisconnected", res, err)
		}
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("Conn.Done not closed after the disconnect")
	}
	if _, err := c.StartTransientUnit(ctx, "after.slice", sdbus.ModeReplace, sliceProps()); !errors.Is(err, sdbus.ErrDisconnected) {
		t.Errorf("call after disconnect = %v, want ErrDisconnected", err)
	}
	if jobs, _ := sdbus.TrackedJobs(c); jobs != 0 {
		t.Errorf("%d job paths still tracked after disconnect", jobs)
	}
}

// Close ends pending waits with ErrClosed, joins every goroutine the Conn
// started (checked by leakCheck), and can be called again.
func TestCloseEndsWaitsAndJoins(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	if err := s.Script("*", fakebus.Script{Delay: time.Hour, ReplyDelay: 0}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, "pending.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	// A call abandoned by its ctx leaves a goroutine waiting for the late
	// reply; Close must end it too.
	if err := s.Script("never.slice", fakebus.Script{ReplyDelay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel()
	if _, err := c.StartTransientUnit(short, "never.slice", sdbus.ModeReplace, sliceProps()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("StartTransientUnit = %v", err)
	}
	waitErr := make(chan error, 1)
	go func() {
		_, err := j.Wait(ctx)
		waitErr <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if err := <-waitErr; !errors.Is(err, sdbus.ErrClosed) {
		t.Errorf("Wait after Close = %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := c.StartUnit(ctx, "x.service", sdbus.ModeReplace); !errors.Is(err, sdbus.ErrClosed) {
		t.Errorf("call after Close = %v, want ErrClosed", err)
	}
}

// Cancel cancels a queued job; Wait reports canceled.
func TestJobCancel(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := s.Script("cancel.slice", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, "cancel.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := j.Wait(ctx); res != sdbus.JobCanceled || !errors.Is(err, sdbus.ErrJobFailed) {
		t.Errorf("Wait = %q, %v; want canceled", res, err)
	}
	if err := j.Cancel(ctx); err != nil {
		t.Errorf("Cancel of a finished job = %v, want nil", err)
	}
}

// Tracking state does not grow with the number of jobs.
func TestTrackingStateFreed(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	for i := 0; i < 2000; i++ {
		j, err := c.StartTransientUnit(ctx, fmt.Sprintf("gc%d.slice", i), sdbus.ModeReplace, sliceProps())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitTrackedZero(t, c)
}

func TestListJobs(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	if err := s.Script("queued.slice", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, "queued.slice", sdbus.ModeReplace, sliceProps())
	if err != nil {
		t.Fatal(err)
	}
	// The job waits in the run queue until the manager is idle; a call
	// right behind the start (this ListJobs) may find it still waiting, on
	// systemd too. It is running from when the unit is activating.
	if _, err := c.WaitUnitState(ctx, "queued.slice", func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateActivating
	}); err != nil {
		t.Fatal(err)
	}
	jobs, err := c.ListJobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []sdbus.JobStatus{{ID: j.ID(), Unit: "queued.slice", JobType: "start", State: "running",
		Path: j.Path(), UnitPath: sdbus.UnitPath("queued.slice")}}
	if diff := cmp.Diff(want, jobs); diff != "" {
		t.Errorf("ListJobs (-want +got):\n%s", diff)
	}
}
