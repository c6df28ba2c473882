package bench

import (
	"context"
	"fmt"
	"os"
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
