package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// clientEnv, when set in the environment of this test binary, makes it a
// job client (see TestMain) on the bus at its value: a raw godbus client
// (Raw) that obeys one command on stdin, "jobs N W", doing N jobs (start
// and stop of fresh slices) with W workers, and answers "done" (or the
// error) on stdout.
const clientEnv = "SDBUS_BENCH_CLIENT"

// BenchmarkFakeCost measures what a job costs the fake alone: fakebus
// serves its unix socket in this process, and the client, a raw godbus
// loop (Raw) in a child process, does the jobs. The allocations and B/op
// that -benchmem reports, and fake-cpu-µs/job (this process's user and
// system CPU time), are then the fake's, its message bus's included; an
// op is one job (a start or a stop).
func BenchmarkFakeCost(b *testing.B) {
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			_, addr := startFakeInProcess(b)
			stdin, stdout := startChild(b, clientEnv+"="+addr, "job client")
			jobs := func(n int) {
				if _, err := fmt.Fprintf(stdin, "jobs %d %d\n", n, workers); err != nil {
					b.Fatal(err)
				}
				line, err := stdout.ReadString('\n')
				if err != nil || line != "done\n" {
					b.Fatalf("job client: %q, %v", line, err)
				}
			}
			jobs(100) // warm up: connection buffers, maps
			runtime.GC()
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			b.ResetTimer()
			t0 := time.Now()
			jobs(b.N)
			elapsed := time.Since(t0)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "fake-cpu-µs/job")
		})
	}
}

// serveJobs is the job client of BenchmarkFakeCost.
func serveJobs(addr string) error {
	ctx := context.Background()
	c, err := DialRaw(ctx, addr, false)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() { // until the parent closes stdin or dies
		var n, workers int
		if _, err := fmt.Sscanf(in.Text(), "jobs %d %d", &n, &workers); err != nil {
			return err
		}
		if err := doJobs(ctx, c, workers, n); err != nil {
			fmt.Println(strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Println("done")
	}
	return in.Err()
}
