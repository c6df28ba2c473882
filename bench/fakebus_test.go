package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus/fakebus"
)

// BenchmarkFakebus measures the throughput of sdbus and fakebus together in
// one process (Server.Dial, an in-memory pipe): start+wait and stop+wait
// of fresh transient slices, with several workers sharing one Conn. An op
// is one job; jobs/s counts both starts and stops.
//
// unix-socket/workers=16 is the same over the fake's unix socket
// (Server.Address), still in one process: godbus then uses its unix
// transport, which reuses its decoder, where over the pipe it uses its
// generic transport, which allocates a 4 KiB decoder buffer per message.
func BenchmarkFakebus(b *testing.B) {
	for _, workers := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			s := fakebus.New(b)
			fakebusThroughput(b, &Sdbus{s.Conn(b)}, workers)
		})
	}
	b.Run("unix-socket/workers=16", func(b *testing.B) {
		_, addr := startFakeInProcess(b)
		fakebusThroughput(b, dial(b, "sdbus", addr), 16)
	})
}

func fakebusThroughput(b *testing.B, c Client, workers int) {
	ctx := context.Background()
	warmUp(b, ctx, c, 50)
	t0 := time.Now()
	runJobs(b, ctx, c, workers)
	elapsed := time.Since(t0)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
}

// BenchmarkMillionJobs runs 1,000,000 jobs (500,000 start+stop cycles of
// fresh slices, 16 workers) through sdbus and fakebus in one process and
// records the live heap (HeapAlloc right after runtime.GC) after 100k, 250k,
// 500k and 1M jobs, and its growth from 100k to 1M. Each op is a whole run;
// bench/run uses -benchtime 1x.
func BenchmarkMillionJobs(b *testing.B) {
	const workers = 16
	checkpoints := []int{100_000, 250_000, 500_000, 1_000_000}
	for n := 0; n < b.N; n++ {
		ctx := context.Background()
		s := fakebus.New(b)
		c := &Sdbus{s.Conn(b)}
		heap := make([]uint64, len(checkpoints))
		var jobs atomic.Int64
		done := 0
		for k, target := range checkpoints {
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for jobs.Add(2) <= int64(target) {
						if err := cycle(ctx, c); err != nil {
							b.Error(err)
							return
						}
					}
					jobs.Add(-2) // this cycle was not run
				}()
			}
			wg.Wait()
			if b.Failed() {
				return
			}
			done = target
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap[k] = ms.HeapAlloc
		}
		if s.Jobs() != 0 {
			b.Fatalf("after %d jobs the fake has %d queued", done, s.Jobs())
		}
		b.ReportMetric(float64(heap[0]), "heap-100k-B")
		b.ReportMetric(float64(heap[1]), "heap-250k-B")
		b.ReportMetric(float64(heap[2]), "heap-500k-B")
		b.ReportMetric(float64(heap[3]), "heap-1M-B")
		b.ReportMetric(float64(heap[3])/float64(heap[0]), "heap-1M/100k")
	}
}
