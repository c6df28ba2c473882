// Package soak runs many goroutines on one reconnecting sdbus Conn for
// minutes while the manager re-executes, reloads and loses its bus, and
// checks every outcome the Conn reported against the manager's own record.
// It is not part of `make check`: `make soak` runs it on fakebus and on
// real systemd releases in the sandbox (scripts/soak).
//
// Each worker loops over three kinds of work on unit names of its own:
//
//   - ensure: EnsureTransientUnit of a oneshot whose every run is
//     recorded (a line in a file on systemd, a start job the fake ran);
//     "created" must mean exactly one run, ErrOutcomeUnknown at most one;
//   - forgotten: StartTransientUnit of a slow oneshot whose Job is kept
//     and never waited for; at the end every such Job's Done must be
//     closed, with its result or a typed error;
//   - waited: StartTransientUnit of a oneshot and Job.Wait; a result must
//     be the run's (done, and the command ran).
//
// Meanwhile the manager re-executes (every 5 s), reloads (7 s), loses its
// bus (dbus-daemon restarted, every 30 s; on fakebus every connection is
// dropped) and sees bursts of other units (every second), and a
// WatchUnits consumer keeps the Conn subscribed.
//
// At the end the manager's jobs are waited out, and the soak reports in
// one line: lost results (a Done never closed), duplicated runs,
// contradicting outcomes, hung calls, units left loaded, and goroutines
// left after Close.
package soak

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// settings are read from the environment (see scripts/soak).
type settings struct {
	duration  time.Duration // SDBUS_SOAK_DURATION, default 60s
	workers   int           // SDBUS_SOAK_WORKERS, default 32
	reexec    time.Duration // SDBUS_SOAK_REEXEC, default 5s; 0: none
	reload    time.Duration // SDBUS_SOAK_RELOAD, default 7s; 0: none
	busDown   time.Duration // SDBUS_SOAK_BUS_RESTART, default 30s; 0: none
	burst     time.Duration // SDBUS_SOAK_BURST, default 1s; 0: none
	watch     bool          // SDBUS_SOAK_WATCH, default 1: a WatchUnits consumer on the Conn
	callLimit time.Duration // a call or wait still running this long is hung
}

func readSettings(t *testing.T) settings {
	s := settings{duration: time.Minute, workers: 32, reexec: 5 * time.Second, reload: 7 * time.Second,
		busDown: 30 * time.Second, burst: time.Second, callLimit: 2 * time.Minute, watch: os.Getenv("SDBUS_SOAK_WATCH") != "0"}
	dur := func(name string, into *time.Duration) {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				t.Fatalf("%s=%q: %v", name, v, err)
			}
			*into = d
		}
	}
	dur("SDBUS_SOAK_DURATION", &s.duration)
	dur("SDBUS_SOAK_REEXEC", &s.reexec)
	dur("SDBUS_SOAK_RELOAD", &s.reload)
	dur("SDBUS_SOAK_BUS_RESTART", &s.busDown)
	dur("SDBUS_SOAK_BURST", &s.burst)
	if v := os.Getenv("SDBUS_SOAK_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SDBUS_SOAK_WORKERS=%q: want a positive number", v)
		}
		s.workers = n
	}
	return s
}

// backend is the manager under test.
type backend interface {
	// label names the backend in the summary ("fakebus 262.1-1",
	// "systemd 262.1-1").
	label() string
	// dial connects a reconnecting Conn.
	dial(ctx context.Context) (*sdbus.Conn, error)
	// reexec, reload and restartBus inject the faults.
	reexec(ctx context.Context) error
	reload(ctx context.Context) error
	restartBus(ctx context.Context) error
	// recorded returns the properties of a oneshot whose runs are
	// recorded, and runs how often each unit's command ran.
	recorded(unit string) []sdbus.Property
	slow(unit string) []sdbus.Property
	runs() (map[string]int, error)
	// witness connects a raw client that sees every JobRemoved on the bus
	// (the soaked Conn is subscribed): where a result goes missing, it
	// tells whether systemd sent it.
	witness(t *testing.T) (*dbus.Conn, error)
	close()
}

// counts are the soak's tallies, by name.
type counts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counts) add(name string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name] += n
}

func (c *counts) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

func (c *counts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.n))
	for k := range c.n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, c.n[k])
	}
	return b.String()
}

// ensured is what EnsureTransientUnit said of a unit.
type ensured struct {
	unit    string
	created bool // "created"
	unknown bool // ErrOutcomeUnknown
}

// forgotten is a job nobody waits for.
type forgotten struct {
	unit string
	job  *sdbus.Job
}

// waited is what a waited job's result said.
type waited struct {
	unit   string
	result sdbus.JobResult
}

func TestSoak(t *testing.T) {
	if os.Getenv("SDBUS_SOAK") == "" {
		t.Skip("the soak runs with `make soak` (SDBUS_SOAK=1)")
	}
	cfg := readSettings(t)
	var b backend
	var err error
	if os.Getenv("SDBUS_SANDBOX") == "1" {
		b, err = newSystemd()
	} else {
		b, err = newFake(t)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	baseline := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.duration+10*time.Minute)
	defer cancel()

	c, err := b.dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The witness: every JobRemoved on the bus, with its sender.
	wit, err := b.witness(t)
	if err != nil {
		t.Fatal(err)
	}
	defer wit.Close()
	if err := wit.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.systemd1.Manager"), dbus.WithMatchMember("JobRemoved")); err != nil {
		t.Fatal(err)
	}
	if err := wit.AddMatchSignal(dbus.WithMatchSender("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, "org.freedesktop.systemd1")); err != nil {
		t.Fatal(err)
	}
	witCh := make(chan *dbus.Signal, 4096)
	wit.Signal(witCh)
	var witMu sync.Mutex
	witSeen := map[dbus.ObjectPath]string{}
	var witOwners []string // systemd's owner changes, in order
	witDone := make(chan struct{})
	go func() {
		defer close(witDone)
		for sig := range witCh {
			if sig.Name == "org.freedesktop.DBus.NameOwnerChanged" && len(sig.Body) == 3 {
				witMu.Lock()
				witOwners = append(witOwners, fmt.Sprintf("%v→%v", sig.Body[1], sig.Body[2]))
				witMu.Unlock()
				continue
			}
			if len(sig.Body) == 4 {
				if p, ok := sig.Body[1].(dbus.ObjectPath); ok {
					witMu.Lock()
					witSeen[p] += fmt.Sprintf("%v from %s after owner change %d; ", sig.Body[3], sig.Sender, len(witOwners))
					witMu.Unlock()
				}
			}
		}
	}()
	var (
		cnt      counts
		mu       sync.Mutex
		ens      []ensured
		forgot   []forgotten
		waits    []waited
		inFlight = map[int]time.Time{} // call id -> start
		nextCall atomic.Int64
		prefix   = fmt.Sprintf("sdbus-soak-%d", os.Getpid())
	)
	track := func() func() {
		id := int(nextCall.Add(1))
		mu.Lock()
		inFlight[id] = time.Now()
		mu.Unlock()
		return func() {
			mu.Lock()
			delete(inFlight, id)
			mu.Unlock()
		}
	}
	end := time.Now().Add(cfg.duration)
	var wg sync.WaitGroup
	if cfg.watch {
		// A consumer of every unit's changes, as a node agent has: the
		// Conn is subscribed, and systemd broadcasts every unit's
		// changes to it, across each re-execution too.
		wctx, wcancel := context.WithCancel(ctx)
		defer wcancel()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				ch, err := c.WatchUnits(wctx, func(string) bool { return true })
				if err != nil {
					cnt.add("watch/error", 1)
					time.Sleep(100 * time.Millisecond)
					continue
				}
				stop := time.AfterFunc(time.Until(end), wcancel)
				for range ch {
					cnt.add("watch/events", 1)
				}
				stop.Stop()
				cnt.add("watch/restarted", 1)
			}
		}()
	}
	for w := 0; w < cfg.workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; time.Now().Before(end); i++ {
				// -r: a recorded run; -s: a slow one (see the backends).
				kind := "r"
				if i%3 == 1 {
					kind = "s"
				}
				unit := fmt.Sprintf("%s-w%d-%d-%s.service", prefix, w, i, kind)
				cctx, ccancel := context.WithTimeout(ctx, cfg.callLimit)
				done := track()
				switch i % 3 {
				case 0:
					out, err := c.EnsureTransientUnit(cctx, unit, b.recorded(unit), sdbus.EnsureOptions{})
					e := ensured{unit: unit, created: err == nil && out == sdbus.Created, unknown: errors.Is(err, sdbus.ErrOutcomeUnknown)}
					switch {
					case e.created:
						cnt.add("ensure/created", 1)
					case e.unknown:
						cnt.add("ensure/unknown", 1)
					default:
						cnt.add("ensure/error", 1)
						t.Logf("EnsureTransientUnit %s: %v, %v", unit, out, err)
					}
					mu.Lock()
					ens = append(ens, e)
					mu.Unlock()
				case 1:
					j, err := c.StartTransientUnit(cctx, unit, sdbus.ModeReplace, b.slow(unit))
					if err != nil {
						cnt.add("forgotten/call-failed", 1)
						t.Logf("StartTransientUnit %s: %v", unit, err)
						break
					}
					cnt.add("forgotten/started", 1)
					mu.Lock()
					forgot = append(forgot, forgotten{unit, j})
					mu.Unlock()
				case 2:
					j, err := c.StartTransientUnit(cctx, unit, sdbus.ModeReplace, b.recorded(unit))
					if err != nil {
						cnt.add("waited/call-failed", 1)
						t.Logf("StartTransientUnit %s: %v", unit, err)
						break
					}
					res, err := j.Wait(cctx)
					switch {
					case res != "":
						cnt.add("waited/"+string(res), 1)
						mu.Lock()
						waits = append(waits, waited{unit, res})
						mu.Unlock()
					case errors.Is(err, sdbus.ErrDisconnected):
						cnt.add("waited/disconnected", 1)
					default:
						cnt.add("waited/error", 1)
						t.Logf("Wait %s: %v", unit, err)
					}
				}
				done()
				ccancel()
			}
		}(w)
	}

	// The faults, on a Conn of their own.
	ctl, err := b.dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	faults := func(every time.Duration, name string, f func(context.Context) error) {
		if every <= 0 {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(every)
			defer tick.Stop()
			for time.Now().Before(end) {
				<-tick.C
				if err := f(ctx); err != nil {
					cnt.add("fault/"+name+"-failed", 1)
					t.Logf("%s: %v", name, err)
				} else {
					cnt.add("fault/"+name, 1)
				}
			}
		}()
	}
	faults(cfg.reexec, "reexec", b.reexec)
	faults(cfg.reload, "reload", b.reload)
	faults(cfg.busDown, "bus-restart", b.restartBus)
	faults(cfg.burst, "burst", func(ctx context.Context) error {
		// Other units come and go, on another Conn.
		var names []string
		for i := 0; i < 20; i++ {
			name := fmt.Sprintf("sdbusburst%d_%d.slice", os.Getpid(), nextCall.Add(1))
			if _, err := ctl.StartTransientUnit(ctx, name, sdbus.ModeReplace, []sdbus.Property{sdbus.PropDescription("burst")}); err == nil {
				names = append(names, name)
			}
		}
		for _, name := range names {
			_ = ctl.DestroyUnit(ctx, name)
		}
		return nil
	})

	// Hung calls: still running callLimit after they began.
	watchdog := make(chan struct{})
	var hung atomic.Int64
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-watchdog:
				return
			case <-tick.C:
			}
			mu.Lock()
			for id, at := range inFlight {
				if time.Since(at) > cfg.callLimit {
					hung.Add(1)
					delete(inFlight, id)
				}
			}
			mu.Unlock()
		}
	}()
	wg.Wait()
	close(watchdog)

	// The manager's jobs end (the slow ones within seconds).
	settle, scancel := context.WithTimeout(ctx, 2*time.Minute)
	for {
		jobs, err := ctl.ListJobs(settle)
		mine := 0
		for _, j := range jobs {
			if strings.HasPrefix(j.Unit, prefix) {
				mine++
			}
		}
		if err == nil && mine == 0 || settle.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	scancel()

	// Every forgotten job's Done is closed by now, or soon.
	lost := 0
	deadline := time.After(30 * time.Second)
	for _, f := range forgot {
		select {
		case <-f.job.Done():
			res, err := f.job.Wait(ctx)
			switch {
			case res != "":
				cnt.add("forgotten/"+string(res), 1)
			case errors.Is(err, sdbus.ErrOutcomeUnknown):
				// Ended while systemd re-executed, unannounced.
				cnt.add("forgotten/unannounced", 1)
				witMu.Lock()
				seen := witSeen[f.job.Path()]
				witMu.Unlock()
				t.Logf("unannounced: %v (the witness saw: %q)", err, seen)
			case errors.Is(err, sdbus.ErrDisconnected):
				cnt.add("forgotten/disconnected", 1)
			default:
				cnt.add("forgotten/error", 1)
			}
		case <-deadline:
			lost++
			witMu.Lock()
			seen := witSeen[f.job.Path()]
			witMu.Unlock()
			t.Logf("lost: the result of forgotten job %d (%s) never came (the witness saw: %q)", f.job.ID(), f.unit, seen)
		}
	}

	runs, err := b.runs()
	if err != nil {
		t.Fatal(err)
	}
	duplicated, contradicting := 0, 0
	for _, e := range ens {
		n := runs[e.unit]
		switch {
		case n > 1:
			duplicated++
			t.Logf("duplicated: %s ran %d times (EnsureTransientUnit created=%v unknown=%v)", e.unit, n, e.created, e.unknown)
		case e.created && n != 1:
			contradicting++
			t.Logf("contradicting: EnsureTransientUnit created %s, which ran %d times", e.unit, n)
		}
	}
	for _, w := range waits {
		n := runs[w.unit]
		switch {
		case n > 1:
			duplicated++
			t.Logf("duplicated: %s ran %d times", w.unit, n)
		case w.result == sdbus.JobDone && n != 1, w.result != sdbus.JobDone && n == 1:
			contradicting++
			t.Logf("contradicting: the start job of %s ended %q, and it ran %d times", w.unit, w.result, n)
		}
	}

	// Units left: everything the soak made ends inactive and is unloaded.
	left := 0
	units, err := ctl.ListUnitsByPatterns(ctx, nil, []string{prefix + "-*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		left++
		t.Logf("left: %s %s/%s", u.Name, u.ActiveState, u.SubState)
		_ = ctl.DestroyUnit(ctx, u.Name)
	}

	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if err := ctl.Close(); err != nil {
		t.Error(err)
	}
	wit.Close()
	<-witDone
	goroutines := 0
	for wait := time.Now().Add(5 * time.Second); ; {
		goroutines = runtime.NumGoroutine() - baseline
		if goroutines <= 0 || time.Now().After(wait) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	goroutines = max(goroutines, 0)

	calls := cnt.get("ensure/created") + cnt.get("ensure/unknown") + cnt.get("ensure/error") + len(forgot) +
		cnt.get("forgotten/call-failed") + cnt.get("waited/call-failed") + len(waits) + cnt.get("waited/disconnected") + cnt.get("waited/error")
	if lost+cnt.get("forgotten/unannounced") > 0 {
		witMu.Lock()
		t.Logf("systemd's owner changes (numbered from 1): %v", witOwners)
		witMu.Unlock()
	}
	t.Logf("counts:%s", &cnt)
	summary := fmt.Sprintf("soak on %s: %s, %d workers, %d job calls, %d reexecs, %d reloads, %d bus restarts: %d lost, %d duplicated, %d contradicting, %d hung, %d units left, %d goroutines left",
		b.label(), cfg.duration, cfg.workers, calls, cnt.get("fault/reexec"), cnt.get("fault/reload"), cnt.get("fault/bus-restart"),
		lost, duplicated, contradicting, hung.Load(), left, goroutines)
	t.Log(summary)
	fmt.Println(summary)
	if lost+duplicated+contradicting+left+goroutines > 0 || hung.Load() > 0 {
		t.Fail()
	}
}
