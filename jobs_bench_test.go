package sdbus

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// pendingJobs registers n pending jobs on t, each with a goroutine blocked
// in Wait if waiting, and returns a function that ends them and waits for
// the goroutines. Job ids start at 1.
func pendingJobs(t *jobTracker, n int, waiting bool) (stop func()) {
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		path := JobPath(uint32(i))
		st := t.register(t.begin("bench.service"), path, true)
		j := &Job{id: uint32(i), path: path, unit: "pending.slice", st: st}
		if !waiting {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = j.Wait(context.Background())
		}()
	}
	return func() {
		t.fail(ErrClosed)
		wg.Wait()
	}
}

// BenchmarkJobRemovedDispatch measures what one job costs the tracker while
// 10, 1,000 or 10,000 other jobs are pending: a ticket taken before the
// call (begin), the returned path registered (register), and the
// JobRemoved delivered (complete), which is all the signal handler does
// for a JobRemoved once decoded.
//
// waiters=N: each pending job has a goroutine blocked in Wait. pending=N:
// the same jobs without the goroutines, which separates the tracker's cost
// from the garbage collector's (each cycle scans every goroutine stack).
// after-reply is the usual order (the reply, then JobRemoved, with no other
// call in flight: the entry is freed at once); before-reply delivers the
// JobRemoved while the call is still in flight, so that it is kept as a
// finished entry and claimed by register.
func BenchmarkJobRemovedDispatch(b *testing.B) {
	// Paths of the measured jobs, above the pending ones' ids; reused
	// round robin, each is freed before it comes round again.
	paths := make([]dbus.ObjectPath, 4096)
	for i := range paths {
		paths[i] = JobPath(uint32(1_000_000 + i))
	}
	type variant struct {
		waiting bool
		order   string
	}
	variants := []variant{{true, "after-reply"}, {true, "before-reply"}, {false, "after-reply"}}
	for _, v := range variants {
		for _, n := range []int{10, 1000, 10000} {
			kind := "waiters"
			if !v.waiting {
				kind = "pending"
			}
			order := v.order
			b.Run(fmt.Sprintf("%s=%d/%s", kind, n, order), func(b *testing.B) {
				t := newJobTracker()
				stop := pendingJobs(t, n, v.waiting)
				defer stop()
				before := order == "before-reply"
				runtime.GC()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					p := paths[i%len(paths)]
					ev := jobRemoved{id: uint32(1_000_000 + i%len(paths)), path: p, unit: "bench.slice", result: JobDone}
					ticket := t.begin("bench.service")
					if before {
						t.complete(ev)
					}
					st := t.register(ticket, p, true)
					if !before {
						t.complete(ev)
					}
					if !st.finished() {
						b.Fatal("job not finished")
					}
				}
				b.StopTimer()
				if jobs, _ := t.size(); jobs != n {
					b.Fatalf("%d jobs tracked, want %d", jobs, n)
				}
			})
		}
	}
}

// BenchmarkPendingJobMemory measures the memory one pending job costs: the
// tracker's entry, the *Job the caller holds and, in the waiting variant, a
// goroutine blocked in Job.Wait (its stack counted). An op creates one
// pending job; all b.N stay pending until the end. Metrics: heap-B/job is
// the growth of the live heap (HeapAlloc after runtime.GC), stack-B/job
// that of goroutine stacks (StackInuse), total-B/job their sum. bench/run
// uses -benchtime 100000x.
func BenchmarkPendingJobMemory(b *testing.B) {
	for _, waiting := range []bool{false, true} {
		name := "tracked"
		if waiting {
			name = "tracked+waiting-goroutine"
		}
		b.Run(name, func(b *testing.B) {
			t := newJobTracker()
			jobs := make([]*Job, 0, b.N)
			var wg sync.WaitGroup
			before := liveMemory()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				path := JobPath(uint32(i + 1))
				st := t.register(t.begin("bench.service"), path, true)
				j := &Job{id: uint32(i + 1), path: path, unit: "pending.slice", st: st}
				jobs = append(jobs, j)
				if waiting {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, _ = j.Wait(context.Background())
					}()
				}
			}
			b.StopTimer()
			if waiting {
				runtime.Gosched() // let the goroutines reach Wait
			}
			after := liveMemory()
			heap := float64(after.heap-before.heap) / float64(b.N)
			stack := float64(after.stack-before.stack) / float64(b.N)
			b.ReportMetric(heap, "heap-B/job")
			b.ReportMetric(stack, "stack-B/job")
			b.ReportMetric(heap+stack, "total-B/job")
			t.fail(ErrClosed)
			wg.Wait()
			runtime.KeepAlive(jobs)
		})
	}
}

type memSample struct{ heap, stack int64 }

func liveMemory() memSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memSample{int64(ms.HeapAlloc), int64(ms.StackInuse)}
}
