package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gsd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
)

// churnEnv, when set in the environment of this test binary, makes it a
// churn process instead (see TestMain): it connects to the system bus with
// the raw loop, calls Manager.Subscribe (so that systemd broadcasts every
// unit's changes, as it does on a usual host where logind is subscribed),
// prints "ready" and obeys commands on stdin: "run N" does N jobs (starts
// and stops of fresh transient slices, 16 workers) and answers "done"; it
// exits when its stdin closes.
const churnEnv = "SDBUS_BENCH_CHURN"

func serveChurn() error {
	ctx := context.Background()
	c, err := DialRaw(ctx, os.Getenv("DBUS_SYSTEM_BUS_ADDRESS"), true)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(in.Text(), "run "))
		if err != nil {
			return fmt.Errorf("churn: bad command %q", in.Text())
		}
		if err := doJobs(ctx, c, 16, n); err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println("done")
	}
	return in.Err()
}

// churnProcess is a churn process (see churnEnv) run by a benchmark.
type churnProcess struct {
	stdin  io.WriteCloser
	stdout *bufio.Reader
}

// startChurn runs a churn process; tb's cleanup ends it.
func startChurn(tb testing.TB) *churnProcess {
	tb.Helper()
	stdin, stdout, _ := startChild(tb, churnEnv+"=1", "churn process")
	return &churnProcess{stdin: stdin, stdout: stdout}
}

// run makes the churn process do n jobs and waits until they are done.
func (p *churnProcess) run(tb testing.TB, n int) {
	tb.Helper()
	if _, err := fmt.Fprintf(p.stdin, "run %d\n", n); err != nil {
		tb.Fatal(err)
	}
	if line, err := p.stdout.ReadString('\n'); err != nil || line != "done\n" {
		tb.Fatalf("churn: %q, %v", line, err)
	}
}

// settle waits until this process has caught up with what the bus sent
// it: until it uses less than 2 ms of CPU in 100 ms (at most 10 s). The
// signals of the churn's last jobs may still be queued for this process
// when the churn reports done.
func settle(tb testing.TB) {
	for i := 0; i < 100; i++ {
		c0 := cpuTime(tb)
		time.Sleep(100 * time.Millisecond)
		if cpuTime(tb)-c0 < 2*time.Millisecond {
			return
		}
	}
}

// watchCostKinds are the watching clients of BenchmarkWatchCost, as
// client/variant.
var watchCostKinds = []string{"sdbus/no-watch", "sdbus/watch-one", "go-systemd/watch-one", "raw/broad-match"}

// watcher is a client of BenchmarkWatchCost; it counts the signals or
// updates it receives about units other than the one it watches, where it
// can see them.
type watcher struct {
	close  func()
	others *atomic.Int64 // nil: the client does not say
}

// startWatcher connects the client kind (see watchCostKinds) to the bus at
// addr and has it watch the slice unit.
func startWatcher(tb testing.TB, ctx context.Context, kind, addr, unit string) watcher {
	tb.Helper()
	switch kind {
	case "sdbus/no-watch":
		s, err := DialSdbus(ctx, addr)
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.StartSlice(ctx, unit); err != nil {
			tb.Fatal(err)
		}
		return watcher{close: s.Close}
	case "sdbus/watch-one":
		s, err := DialSdbus(ctx, addr)
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.StartSlice(ctx, unit); err != nil {
			tb.Fatal(err)
		}
		wctx, cancel := context.WithCancel(context.Background())
		ch, err := s.C.WatchUnit(wctx, unit)
		if err != nil {
			tb.Fatal(err)
		}
		<-ch // the current state
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range ch {
			}
		}()
		return watcher{close: func() { cancel(); <-done; s.Close() }}
	case "go-systemd/watch-one":
		// go-systemd watches units by signals through Subscribe and
		// SetPropertiesSubscriber: every unit's PropertiesChanged of the
		// Unit interface reaches the caller, who keeps the unit's own.
		g, err := DialGoSystemd(ctx, addr)
		if err != nil {
			tb.Fatal(err)
		}
		if err := g.StartSlice(ctx, unit); err != nil {
			tb.Fatal(err)
		}
		updates := make(chan *gsd.PropertiesUpdate, 4096)
		errs := make(chan error, 16)
		g.C.SetPropertiesSubscriber(updates, errs)
		if err := g.C.Subscribe(); err != nil {
			tb.Fatal(err)
		}
		others := new(atomic.Int64)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for u := range updates {
				if u.UnitName != unit {
					others.Add(1)
				}
			}
		}()
		return watcher{others: others, close: func() {
			g.C.SetPropertiesSubscriber(nil, nil)
			g.Close()
			close(updates) // go-systemd sends under the lock SetPropertiesSubscriber took
			<-done
		}}
	case "raw/broad-match":
		// One godbus connection with go-systemd's match rule for
		// PropertiesChanged (every object, every interface) and a reader
		// that keeps the unit's own: the least a client can do that
		// receives every unit's changes.
		r, err := DialRaw(ctx, addr, false)
		if err != nil {
			tb.Fatal(err)
		}
		if err := r.StartSlice(ctx, unit); err != nil {
			tb.Fatal(err)
		}
		var path dbus.ObjectPath
		if err := r.obj.CallWithContext(ctx, managerIface+".GetUnit", 0, unit).Store(&path); err != nil {
			tb.Fatal(err)
		}
		sigs := make(chan *dbus.Signal, 4096)
		r.conn.Signal(sigs)
		if err := r.conn.AddMatchSignalContext(ctx, dbus.WithMatchInterface("org.freedesktop.DBus.Properties"),
			dbus.WithMatchMember("PropertiesChanged")); err != nil {
			tb.Fatal(err)
		}
		others := new(atomic.Int64)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for s := range sigs {
				if s.Name == "org.freedesktop.DBus.Properties.PropertiesChanged" && s.Path != path {
					others.Add(1)
				}
			}
		}()
		return watcher{others: others, close: func() { r.Close(); <-done }}
	}
	tb.Fatalf("unknown watching client %q", kind)
	return watcher{}
}

// BenchmarkWatchCost measures what watching one unit costs a client while
// other units change: the watching process's CPU time (getrusage
// RUSAGE_SELF) while a churn process (this binary re-executed, see
// churnEnv) starts and stops fresh transient slices. An op is one change
// of another unit: one job (a start or a stop) of the churn; bench/run
// uses -benchtime 2000x, 1,000 slices started and stopped. The churn
// process is subscribed to the manager, so systemd broadcasts every
// unit's changes whatever the watching client does, as on a usual host
// where logind is subscribed.
//
// Clients: sdbus/no-watch (connected, having run one job, watching
// nothing: the baseline); sdbus/watch-one (one WatchUnit on a slice
// nothing changes); go-systemd/watch-one (go-systemd's Subscribe and
// SetPropertiesSubscriber, the caller keeping the unit's own updates);
// raw/broad-match (a godbus connection with a match rule for every
// PropertiesChanged, as go-systemd's Subscribe adds). cpu-ns/change is the
// watching process's CPU per change of another unit, its garbage
// collection included; others/change is, where the client can count them,
// the signals (raw) or updates (go-systemd) about other units it received
// per change. Runs only inside scripts/sandbox.
func BenchmarkWatchCost(b *testing.B) {
	if os.Getenv("SDBUS_SANDBOX") != "1" {
		b.Skip("needs a real systemd: run inside scripts/sandbox (bench/run systemd)")
	}
	addr := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS")
	for _, kind := range watchCostKinds {
		b.Run(kind, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			churn := startChurn(b)
			w := startWatcher(b, ctx, kind, addr, watchedName())
			defer w.close()
			churn.run(b, 20) // warm-up: connection buffers, maps
			settle(b)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			var others0 int64
			if w.others != nil {
				others0 = w.others.Load()
			}
			cpu0 := cpuTime(b)
			churn.run(b, b.N)
			settle(b)
			cpu := cpuTime(b) - cpu0
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/change")
			if w.others != nil {
				b.ReportMetric(float64(w.others.Load()-others0)/float64(b.N), "others/change")
			}
		})
	}
}
