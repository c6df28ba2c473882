package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time (user plus system) this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runJobs does b.N jobs with the given number of workers sharing c (see
// doJobs).
func runJobs(b *testing.B, ctx context.Context, c Client, workers int) {
	if err := doJobs(ctx, c, workers, b.N); err != nil {
		b.Error(err)
	}
}

// doJobs does n jobs with the given number of workers sharing c: each
// worker starts a fresh slice and waits, stops it and waits, and so on,
// until n jobs have been done in all. Every job is a start or a stop of a
// transient slice with the same property on every client. It returns the
// first error.
func doJobs(ctx context.Context, c Client, workers, n int) error {
	var next atomic.Int64 // jobs handed out
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// Take two jobs (a start and its stop), or the last one.
				k := next.Add(2)
				if k-2 >= int64(n) {
					return
				}
				name := sliceName()
				err := c.StartSlice(ctx, name)
				if err == nil && k <= int64(n) {
					err = c.Stop(ctx, name)
				}
				if err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n)) // the others stop too
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// BenchmarkClientCPU measures what one job costs the client: CPU time and
// allocations. The fake systemd runs in a child process (see TestMain), so
// the benchmark process's CPU time (getrusage RUSAGE_SELF) and its
// allocations are the client's alone. Each client connects to its own
// fresh fake over a unix socket, exactly as to the system bus. An op is one
// job (start+wait or stop+wait of a transient slice); 1 or 16 workers share
// the client's connection.
//
// Metrics: ns/op is wall time per job (mostly the fake and the socket
// round trips); cpu-ns/job is the client's CPU time per job, garbage
// collection included; B/op and allocs/op are the client's.
func BenchmarkClientCPU(b *testing.B) {
	for _, kind := range clientKinds {
		for _, workers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/workers=%d", kind, workers), func(b *testing.B) {
				ctx := context.Background()
				c := dial(b, kind, startFakeProcess(b).Address)
				warmUp(b, ctx, c, 50)
				cpu0 := cpuTime(b)
				runJobs(b, ctx, c, workers)
				cpu := cpuTime(b) - cpu0
				b.StopTimer()
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/job")
			})
		}
	}
}
