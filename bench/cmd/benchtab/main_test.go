package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func render(input string) string {
	t := &table{vals: map[key]map[string][]float64{}}
	t.read(strings.NewReader(input))
	t.sortRows()
	var b strings.Builder
	t.print(&b)
	b.WriteString("\n")
	t.targets(&b)
	return b.String()
}

func TestRender(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{{
		name: "medians ranges and ratios",
		// Three rounds; noise lines and a skipped metric (ns/op of
		// Fakebus) are left out; metrics are ordered by metricOrder.
		input: `# round 1
goos: linux
BenchmarkClientCPU/sdbus/workers=16-2   	10000	  40000 ns/op	  30000 cpu-ns/job	  300 allocs/op
BenchmarkClientCPU/go-systemd/workers=16-2	10000	 100000 ns/op	  80000 cpu-ns/job	  308 allocs/op
BenchmarkClientCPU/sdbus/workers=16-2   	10000	  50000 ns/op	  45000 cpu-ns/job	  300 allocs/op
BenchmarkClientCPU/go-systemd/workers=16-2	10000	 110000 ns/op	  70000 cpu-ns/job	  308 allocs/op
BenchmarkClientCPU/sdbus/workers=16-2   	10000	  45000 ns/op	  35000 cpu-ns/job	  300 allocs/op
BenchmarkClientCPU/go-systemd/workers=16-2	10000	 105000 ns/op	  60000 cpu-ns/job	  308 allocs/op
BenchmarkFakebus/workers=16-2	50000	20000 ns/op	51000 jobs/s	13000 B/op
PASS
`,
		want: `| benchmark | metric | sdbus median [min–max] (n) | go-systemd median [min–max] (n) | sdbus / go-systemd | sdbus / raw |
|---|---|---|---|---|---|
| ClientCPU workers=16 | cpu-ns/job | 35.0 µs [30.0 µs–45.0 µs] (3) | 70.0 µs [60.0 µs–80.0 µs] (3) | 0.50× |  |
| ClientCPU workers=16 | ns/op | 45.0 µs [40.0 µs–50.0 µs] (3) | 105.0 µs [100.0 µs–110.0 µs] (3) | 0.43× |  |
| ClientCPU workers=16 | allocs/op | 300 [300–300] (3) | 308 [308–308] (3) | 0.97× |  |
| Fakebus workers=16 | jobs/s | 51000 (1) |  |  |  |
| Fakebus workers=16 | B/op | 12.7 KiB (1) |  |  |  |

| target | measured | verdict |
|---|---|---|
| client CPU/job, ClientCPU workers=16: sdbus ≤ 0.5× go-systemd | 0.50× | met |
| fakebus in-process, Fakebus workers=16: ≥ 50,000 jobs/s | 51000/s | met |
`,
	}, {
		name: "misses and the dispatch flatness check",
		// An even number of rounds: the median is the mean of the middle two.
		input: `BenchmarkSystemd/sdbus/workers=1-2	2000	1 ns/op	1500 jobs/s
BenchmarkSystemd/raw/workers=1-2	2000	1 ns/op	1800 jobs/s
BenchmarkSystemd/go-systemd/workers=1-2	2000	1 ns/op	1400 jobs/s
BenchmarkJobRemovedDispatch/waiters=10/after-reply-2	200000	100 ns/op
BenchmarkJobRemovedDispatch/waiters=10/after-reply-2	200000	120 ns/op
BenchmarkJobRemovedDispatch/waiters=1000/after-reply-2	200000	115 ns/op
BenchmarkJobRemovedDispatch/waiters=10000/after-reply-2	200000	300 ns/op
`,
		want: `| benchmark | metric | sdbus median [min–max] (n) | go-systemd median [min–max] (n) | raw median [min–max] (n) | sdbus / go-systemd | sdbus / raw |
|---|---|---|---|---|---|---|
| Systemd workers=1 | jobs/s | 1500 (1) | 1400 (1) | 1800 (1) | 1.07× | 0.83× |
| JobRemovedDispatch waiters=10/after-reply | ns/op | 110 ns [100 ns–120 ns] (2) |  |  |  |  |
| JobRemovedDispatch waiters=1000/after-reply | ns/op | 115 ns (1) |  |  |  |  |
| JobRemovedDispatch waiters=10000/after-reply | ns/op | 300 ns (1) |  |  |  |  |

| target | measured | verdict |
|---|---|---|
| dispatch ns/JobRemoved, waiters=10…10000/after-reply: flat within 1.2× | 110 / 115 / 300 ns (max/min 2.73×) | **missed** |
`,
	}, {
		name: "systemd: the controls, and paired turns within 0.98× of the raw loop",
		// The unpaired runs are shown, not checked; the paired ones name
		// their client in the metric, and the check takes the median of
		// the per-run ratios (1.01, 0.97, 0.99 -> 0.99).
		input: `BenchmarkSystemd/sdbus/workers=16/other-subscriber-2	2000	1 ns/op	2450 jobs/s
BenchmarkSystemd/raw/workers=16/other-subscriber-2	2000	1 ns/op	2480 jobs/s
BenchmarkSystemd/raw+subscribe/workers=16/other-subscriber-2	2000	1 ns/op	2400 jobs/s
BenchmarkSystemd/sdbus+watch/workers=16/other-subscriber-2	2000	1 ns/op	2300 jobs/s
BenchmarkSystemdPaired/workers=1-2	3000	1 ns/op	300000 go-systemd-cpu-ns/job	900 go-systemd-jobs/s	280000 raw-cpu-ns/job	1000 raw-jobs/s	290000 sdbus-cpu-ns/job	1010 sdbus-jobs/s	1.122 sdbus/go-systemd	1.01 sdbus/raw	30 steal-%	33000 B/op	900 allocs/op
BenchmarkSystemdPaired/workers=1-2	3000	1 ns/op	310000 go-systemd-cpu-ns/job	1000 go-systemd-jobs/s	290000 raw-cpu-ns/job	600 raw-jobs/s	300000 sdbus-cpu-ns/job	582 sdbus-jobs/s	0.582 sdbus/go-systemd	0.97 sdbus/raw	50 steal-%	33000 B/op	900 allocs/op
BenchmarkSystemdPaired/workers=1-2	3000	1 ns/op	320000 go-systemd-cpu-ns/job	800 go-systemd-jobs/s	300000 raw-cpu-ns/job	900 raw-jobs/s	310000 sdbus-cpu-ns/job	891 sdbus-jobs/s	1.114 sdbus/go-systemd	0.99 sdbus/raw	10 steal-%	33000 B/op	900 allocs/op
`,
		want: `| benchmark | metric | sdbus median [min–max] (n) | go-systemd median [min–max] (n) | raw median [min–max] (n) | raw+subscribe median [min–max] (n) | sdbus+watch median [min–max] (n) | sdbus / go-systemd | sdbus / raw |
|---|---|---|---|---|---|---|---|---|
| Systemd workers=16/other-subscriber | jobs/s | 2450 (1) |  | 2480 (1) | 2400 (1) | 2300 (1) |  | 0.99× |
| SystemdPaired workers=1 | jobs/s | 891 [582–1010] (3) | 900 [800–1000] (3) | 900 [600–1000] (3) |  |  | 0.99× | 0.99× |
| SystemdPaired workers=1 | cpu-ns/job | 300.0 µs [290.0 µs–310.0 µs] (3) | 310.0 µs [300.0 µs–320.0 µs] (3) | 290.0 µs [280.0 µs–300.0 µs] (3) |  |  | 0.97× | 1.03× |
| SystemdPaired workers=1 | sdbus/raw | 0.99 [0.97–1.01] (3) |  |  |  |  |  |  |
| SystemdPaired workers=1 | sdbus/go-systemd | 1.11 [0.582–1.12] (3) |  |  |  |  |  |  |
| SystemdPaired workers=1 | steal-% | 30 [10–50] (3) |  |  |  |  |  |  |

| target | measured | verdict |
|---|---|---|
| systemd jobs/s, SystemdPaired workers=1: sdbus ≥ 0.98× the raw loop (never subscribes), paired turns | 0.990× (median of 3 runs; range 0.97–1.01×) | met |
| systemd jobs/s, SystemdPaired workers=1: sdbus ≥ go-systemd, paired turns | 1.114× (median of 3 runs; range 0.58–1.12×) | met |
`,
	}, {
		name: "the cost of a watch",
		input: `BenchmarkWatchCost/sdbus/no-watch-2	2000	1240025 ns/op	50000 cpu-ns/change	3950 B/op	102 allocs/op
BenchmarkWatchCost/sdbus/watch-one-2	2000	886569 ns/op	52000 cpu-ns/change	3946 B/op	102 allocs/op
BenchmarkWatchCost/go-systemd/watch-one-2	2000	1759814 ns/op	500000 cpu-ns/change	4.5 others/change	66853 B/op	1403 allocs/op
BenchmarkWatchCost/raw/broad-match-2	2000	1579147 ns/op	300000 cpu-ns/change	4.5 others/change	53954 B/op	1125 allocs/op
`,
		want: `| benchmark | metric | sdbus median [min–max] (n) | go-systemd median [min–max] (n) | raw median [min–max] (n) | sdbus / go-systemd | sdbus / raw |
|---|---|---|---|---|---|---|
| WatchCost no-watch | cpu-ns/change | 50.0 µs (1) |  |  |  |  |
| WatchCost no-watch | B/op | 3950 B (1) |  |  |  |  |
| WatchCost no-watch | allocs/op | 102 (1) |  |  |  |  |
| WatchCost watch-one | cpu-ns/change | 52.0 µs (1) | 500.0 µs (1) |  | 0.10× |  |
| WatchCost watch-one | others/change |  | 4.5 (1) |  |  |  |
| WatchCost watch-one | B/op | 3946 B (1) | 65.3 KiB (1) |  | 0.06× |  |
| WatchCost watch-one | allocs/op | 102 (1) | 1403 (1) |  | 0.07× |  |
| WatchCost broad-match | cpu-ns/change |  |  | 300.0 µs (1) |  |  |
| WatchCost broad-match | others/change |  |  | 4.5 (1) |  |  |
| WatchCost broad-match | B/op |  |  | 52.7 KiB (1) |  |  |
| WatchCost broad-match | allocs/op |  |  | 1125 (1) |  |  |

| target | measured | verdict |
|---|---|---|
| watch cost: sdbus watching one unit ≤ 1.1× the CPU per other unit's change of sdbus watching none | 52.0 µs against 50.0 µs (1.04×); raw broad-match: 300.0 µs (6.00×); go-systemd watch-one: 500.0 µs (10.00×) | met |
`,
	}}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, render(tt.input)); diff != "" {
				t.Errorf("benchtab output (-want +got):\n%s", diff)
			}
		})
	}
}
