package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
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
// op is one job (a start or a stop). client-cpu-µs/job is the client
// process's CPU time (/proc, in clock ticks: run enough jobs that 10 ms is
// small), the floor any server's comparison with this client stands on.
func BenchmarkFakeCost(b *testing.B) {
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			_, addr := startFakeInProcess(b)
			stdin, stdout, client := startChild(b, clientEnv+"="+addr, "job client")
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
			cpu0, ccpu0 := cpuTime(b), processCPU(b, client)
			b.ResetTimer()
			t0 := time.Now()
			jobs(b.N)
			elapsed := time.Since(t0)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "fake-cpu-µs/job")
			b.ReportMetric(float64((processCPU(b, client)-ccpu0).Microseconds())/float64(b.N), "client-cpu-µs/job")
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

// processCPU returns the CPU time (user plus system) process pid has used,
// from /proc/PID/stat, in clock ticks of 10 ms (USER_HZ 100 on Linux).
func processCPU(tb testing.TB, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14 and stime 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			tb.Fatalf("/proc/%d/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
