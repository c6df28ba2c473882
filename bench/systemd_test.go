package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
)

// dialSdbusUnsubscribed connects sdbus through NewConn on a godbus
// connection of its own, then unsubscribes that connection from systemd.
// Unlike Connect, NewConn receives signals through a godbus channel and a
// goroutine.
func dialSdbusUnsubscribed(ctx context.Context, address string) (Client, error) {
	bus, err := DialGodbus(ctx, address)
	if err != nil {
		return nil, err
	}
	c, err := sdbus.NewConn(ctx, bus)
	if err != nil {
		bus.Close()
		return nil, err
	}
	if err := bus.Object(systemdName, managerPath).CallWithContext(ctx, managerIface+".Unsubscribe", 0).Err; err != nil {
		c.Close()
		return nil, err
	}
	return &Sdbus{c}, nil
}

// systemdKinds are the clients compared on a real systemd. Two are
// controls that separate the cost of Manager.Subscribe (once anybody is
// subscribed, systemd broadcasts every unit change and job on the bus) from
// the cost of the client: raw+subscribe is the raw loop plus Subscribe, and
// sdbus-nosub is sdbus whose connection calls Unsubscribe right after
// sdbus's own Subscribe.
var systemdKinds = []string{"sdbus", "go-systemd", "raw", "raw+subscribe", "sdbus-nosub"}

// BenchmarkSystemd measures job throughput on a real systemd: start+wait
// and stop+wait of fresh transient slices, with 1 and 16 workers sharing
// one client. An op is one job; jobs/s is the throughput. It runs only
// inside scripts/sandbox (SDBUS_SANDBOX=1), where it talks to the sandbox's
// systemd 252 over its dbus-daemon; see bench/run.
//
// The sandbox runs no systemd-logind, so nobody but the client itself is
// subscribed to the manager. On a usual host logind (and machined) are
// subscribed, so systemd broadcasts every change whatever the client does:
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
