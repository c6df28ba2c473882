package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// systemdKinds are the clients compared on a real systemd. sdbus does not
// call Manager.Subscribe for jobs; go-systemd and the raw loop do not
// either. Two controls show what a subscription costs (once anybody is
// subscribed, systemd broadcasts every unit change and job on the bus):
// raw+subscribe is the raw loop plus Subscribe, and sdbus+watch is sdbus
// while one WatchUnit is open on a slice nothing changes (a watch makes
// sdbus subscribe, see dialSdbusWatching).
var systemdKinds = []string{"sdbus", "go-systemd", "raw", "raw+subscribe", "sdbus+watch"}

// SdbusWatching is sdbus holding one WatchUnit, open for the client's
// whole life, on a transient slice of its own that nothing changes.
type SdbusWatching struct {
	*Sdbus
	unit   string
	cancel context.CancelFunc
	done   chan struct{} // closed when the watch channel is closed
}

// dialSdbusWatching connects sdbus, starts a fresh slice and watches it:
// from then on the connection is subscribed to the manager, as any sdbus
// client that watches a unit is.
func dialSdbusWatching(ctx context.Context, address string) (*SdbusWatching, error) {
	s, err := DialSdbus(ctx, address)
	if err != nil {
		return nil, err
	}
	unit := watchedName()
	if err := s.StartSlice(ctx, unit); err != nil {
		s.Close()
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	ch, err := s.C.WatchUnit(wctx, unit)
	if err != nil {
		cancel()
		s.Close()
		return nil, err
	}
	select {
	case <-ch: // the current state
	case <-ctx.Done():
		cancel()
		s.Close()
		return nil, ctx.Err()
	}
	w := &SdbusWatching{Sdbus: s, unit: unit, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for range ch {
		}
	}()
	return w, nil
}

// Close ends the watch, stops the watched slice and closes the connection.
func (w *SdbusWatching) Close() {
	w.cancel()
	<-w.done
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = w.Stop(ctx, w.unit)
	w.Sdbus.Close()
}

// watchedName returns a fresh name for a slice that a benchmark watches.
func watchedName() string {
	return fmt.Sprintf("benchwatched_%d_%d.slice", os.Getpid(), nameSeq.Add(1))
}

// BenchmarkSystemd measures job throughput on a real systemd: start+wait
// and stop+wait of fresh transient slices, with 1 and 16 workers sharing
// one client. An op is one job; jobs/s is the throughput. It runs only
// inside scripts/sandbox (SDBUS_SANDBOX=1), where it talks to the sandbox's
// systemd 252 over its dbus-daemon; see bench/run.
//
// The sandbox runs no systemd-logind, so nobody is subscribed to the
// manager unless the client is (raw+subscribe, sdbus+watch). On a usual
// host logind (and machined) are subscribed, so systemd broadcasts every
// change whatever the client does:
// the workers=16/other-subscriber variant reproduces that with an idle
// godbus connection that has called Subscribe (see subscribeIdle).
func BenchmarkSystemd(b *testing.B) {
	if os.Getenv("SDBUS_SANDBOX") != "1" {
		b.Skip("needs a real systemd: run inside scripts/sandbox (bench/run -systemd)")
	}
	addr := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS")
	for _, kind := range systemdKinds {
		for _, v := range []string{"workers=1", "workers=16", "workers=16/other-subscriber"} {
			workers := 1
			if v != "workers=1" {
				workers = 16
			}
			b.Run(kind+"/"+v, func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				if v == "workers=16/other-subscriber" {
					subscribeIdle(b, ctx, addr)
				}
				c := dial(b, kind, addr)
				warmUp(b, ctx, c, 10)
				t0 := time.Now()
				cpu0 := cpuTime(b)
				runJobs(b, ctx, c, workers)
				cpu := cpuTime(b) - cpu0
				elapsed := time.Since(t0)
				b.StopTimer()
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/job")
			})
		}
	}
}

// subscribeIdle opens a godbus connection that calls Manager.Subscribe and
// then does nothing until tb's cleanup closes it. It adds no match rule, so
// it receives none of the signals systemd then broadcasts and costs this
// process nothing while the benchmark runs.
func subscribeIdle(tb testing.TB, ctx context.Context, addr string) {
	tb.Helper()
	conn, err := DialGodbus(ctx, addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	if err := conn.Object(systemdName, managerPath).CallWithContext(ctx, managerIface+".Subscribe", 0).Err; err != nil {
		tb.Fatal(err)
	}
}

// pairedKinds are the clients BenchmarkSystemdPaired compares: those that
// never subscribe, so that none changes what systemd does for the others.
var pairedKinds = []string{"sdbus", "raw", "go-systemd"}

// pairedSlice is how many jobs a client runs in one turn of
// BenchmarkSystemdPaired: about a quarter of a second on systemd 252.
const pairedSlice = 250

// BenchmarkSystemdPaired measures what BenchmarkSystemd measures, with the
// clients interleaved finely enough that the machine's drift cancels out:
// b.N jobs per client, run in turns of pairedSlice jobs, the clients taking
// turns in an order that changes every turn (see pairedOrders). BenchmarkSystemd gives each client one run of 2,000 jobs (2 s) at
// a time, and on a virtual machine whose CPU is stolen by its neighbours
// (the steal-% metric below; 30-50% measured on the 2-core machine of
// BENCHMARKS.md) the speed of systemd itself moves by 2x between two such
// runs, whichever client runs; turns of a quarter of a second see the same
// machine.
//
// Only one client is connected during its turn (it connects, does two
// warm-up cycles, runs its turn and closes, and only the turn is timed), so
// no idle client decodes the active one's JobRemoved signals, which systemd
// broadcasts, and the process's CPU time during a turn is the active
// client's. An op is one job of each client.
//
// Metrics, per client C: C-jobs/s (its jobs over its turns' wall time),
// C-cpu-ns/job (this process's CPU time over its turns, per job), and
// sdbus/raw and sdbus/go-systemd, the ratios of the jobs/s; steal-% is the
// share of the machine's CPU time stolen by the hypervisor while it ran
// (/proc/stat).
func BenchmarkSystemdPaired(b *testing.B) {
	if os.Getenv("SDBUS_SANDBOX") != "1" {
		b.Skip("needs a real systemd: run inside scripts/sandbox (bench/run -systemd)")
	}
	addr := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS")
	for _, v := range []string{"workers=1", "workers=16", "workers=16/other-subscriber"} {
		workers := 1
		if v != "workers=1" {
			workers = 16
		}
		b.Run(v, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			if v == "workers=16/other-subscriber" {
				subscribeIdle(b, ctx, addr)
			}
			type total struct {
				wall, cpu time.Duration
				jobs      int
			}
			totals := make([]total, len(pairedKinds))
			steal0 := readSteal(b)
			b.ResetTimer()
			for turn := 0; turn*pairedSlice < b.N; turn++ {
				n := min(pairedSlice, b.N-turn*pairedSlice)
				for _, i := range pairedOrder(turn) {
					wall, cpu, err := pairedTurn(ctx, pairedKinds[i], addr, workers, n)
					if err != nil {
						b.Fatalf("%s: %v", pairedKinds[i], err)
					}
					totals[i].wall += wall
					totals[i].cpu += cpu
					totals[i].jobs += n
				}
			}
			b.StopTimer()
			steal := readSteal(b).since(steal0)
			rate := map[string]float64{}
			for i, k := range pairedKinds {
				t := totals[i]
				rate[k] = float64(t.jobs) / t.wall.Seconds()
				b.ReportMetric(rate[k], k+"-jobs/s")
				b.ReportMetric(float64(t.cpu.Nanoseconds())/float64(t.jobs), k+"-cpu-ns/job")
			}
			b.ReportMetric(rate["sdbus"]/rate["raw"], "sdbus/raw")
			b.ReportMetric(rate["sdbus"]/rate["go-systemd"], "sdbus/go-systemd")
			b.ReportMetric(steal, "steal-%")
		})
	}
}

// pairedOrders are the orders of the three pairedKinds in a turn: every
// permutation, so that each client goes first, and follows each other
// client, equally often over six turns. A client leaves work behind when
// it closes (dbus-daemon and systemd drop its match rules and tracking), and
// the client that comes next must not always be the same one.
var pairedOrders = [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}

// pairedOrder returns the order of the clients in the given turn.
func pairedOrder(turn int) []int { return pairedOrders[turn%len(pairedOrders)] }

// pairedTurn connects a client of the given kind, warms it up with two
// cycles, runs n jobs with workers workers and closes it. It returns the
// wall and CPU time of the n jobs alone.
func pairedTurn(ctx context.Context, kind, addr string, workers, n int) (wall, cpu time.Duration, err error) {
	c, err := connect(ctx, kind, addr)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	for range 2 {
		if err := cycle(ctx, c); err != nil {
			return 0, 0, err
		}
	}
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	t0 := time.Now()
	err = doJobs(ctx, c, workers, n)
	wall = time.Since(t0)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu = time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	return wall, cpu, err
}

// cpuTicks are the machine's CPU times from /proc/stat, in clock ticks.
type cpuTicks struct{ steal, total uint64 }

// readSteal reads the first line of /proc/stat: "cpu user nice system idle
// iowait irq softirq steal guest guest_nice".
func readSteal(tb testing.TB) cpuTicks {
	tb.Helper()
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		tb.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		tb.Fatalf("/proc/stat: unexpected first line %q", line)
	}
	var t cpuTicks
	for i, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			tb.Fatalf("/proc/stat: %q: %v", line, err)
		}
		if i >= 8 { // guest and guest_nice are already in user and nice
			break
		}
		t.total += v
		if i == 7 {
			t.steal = v
		}
	}
	return t
}

// since is the percentage of the CPU time between t0 and t that was stolen.
func (t cpuTicks) since(t0 cpuTicks) float64 {
	if t.total == t0.total {
		return 0
	}
	return 100 * float64(t.steal-t0.steal) / float64(t.total-t0.total)
}
