// Command benchtab turns the output of interleaved benchmark runs into one
// Markdown table: for each benchmark and metric, the median and the range
// (min–max) over the runs of each client, and the ratio of sdbus's median
// to go-systemd's and to the raw loop's. Below the table it checks the
// targets of BENCHMARKS.md.
//
//	benchtab FILE...   (or standard input)
//
// Benchmark names are Benchmark<Family>[/<client>][/<variant>...] where
// client is one of clients (below); a benchmark
// without a client measures sdbus alone. A benchmark that runs several
// clients itself (SystemdPaired) names the client in the metric instead:
// "raw-jobs/s" is the raw loop's jobs/s.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

var clients = []string{"sdbus", "go-systemd", "raw", "raw+subscribe", "sdbus+watch"}

// metricOrder orders a benchmark's metrics in the table; others follow.
var metricOrder = []string{
	"jobs/s", "fakesystemd-cycles/s", "dbusmock-cycles/s", "fakesystemd/dbusmock", "fake-cpu-µs/job", "cpu-ns/job", "cpu-ns/change", "others/change", "ns/op",
	"p50-ns", "p99-ns", "p50-control-ns", "p99-control-ns", "p50-loaded-ns", "p99-loaded-ns",
	"p99-ratio", "p99-loaded/control", "blocked-s", "sdbus/raw", "sdbus/go-systemd", "steal-%",
	"heap-100k-B", "heap-250k-B", "heap-500k-B", "heap-1M-B", "heap-1M/100k",
	"heap-B/job", "stack-B/job", "total-B/job", "B/op", "allocs/op",
}

// skipped metrics say nothing these benchmarks are about: per-op wall time
// where the op is a whole run or where a throughput metric says it better.
var skipped = map[string][]string{
	"HeadOfLine":       {"ns/op", "B/op", "allocs/op"},
	"Systemd":          {"ns/op", "B/op"},
	"SystemdPaired":    {"ns/op", "B/op", "allocs/op"}, // of all clients together
	"WatchCost":        {"ns/op"},
	"Fakebus":          {"ns/op"},
	"FakeCost":         {"ns/op"},
	"MockServers":      {"ns/op", "B/op", "allocs/op"}, // of the client, not the servers
	"MillionJobs":      {"ns/op", "B/op", "allocs/op"},
	"PendingJobMemory": {"ns/op", "B/op", "allocs/op"},
}

type key struct{ family, variant, metric string }

type table struct {
	rows []key                        // in order of first appearance
	vals map[key]map[string][]float64 // key -> client -> values
}

func main() {
	t := &table{vals: map[key]map[string][]float64{}}
	if len(os.Args) == 1 {
		t.read(os.Stdin)
	}
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		t.read(f)
		f.Close()
	}
	if len(t.rows) == 0 {
		fmt.Fprintln(os.Stderr, "benchtab: no benchmark results")
		os.Exit(1)
	}
	t.sortRows()
	t.print(os.Stdout)
	fmt.Println()
	t.targets(os.Stdout)
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

func (t *table) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		parts := strings.Split(procsSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), ""), "/")
		family, client, rest := parts[0], "sdbus", parts[1:]
		if len(rest) > 0 && slices.Contains(clients, rest[0]) {
			client, rest = rest[0], rest[1:]
		}
		variant := strings.Join(rest, "/")
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			k, c := key{family, variant, f[i+1]}, client
			for _, name := range clients {
				if m, ok := strings.CutPrefix(k.metric, name+"-"); ok {
					k.metric, c = m, name
				}
			}
			if slices.Contains(skipped[family], k.metric) {
				continue
			}
			if t.vals[k] == nil {
				t.vals[k] = map[string][]float64{}
				t.rows = append(t.rows, k)
			}
			t.vals[k][c] = append(t.vals[k][c], v)
		}
	}
}

// sortRows keeps benchmarks in order of first appearance and orders each
// one's metrics by metricOrder.
func (t *table) sortRows() {
	first := map[string]int{}
	for i, k := range t.rows {
		if _, ok := first[k.family+"/"+k.variant]; !ok {
			first[k.family+"/"+k.variant] = i
		}
	}
	rank := func(m string) int {
		if i := slices.Index(metricOrder, m); i >= 0 {
			return i
		}
		return len(metricOrder)
	}
	sort.SliceStable(t.rows, func(i, j int) bool {
		a, b := t.rows[i], t.rows[j]
		fa, fb := first[a.family+"/"+a.variant], first[b.family+"/"+b.variant]
		if fa != fb {
			return fa < fb
		}
		return rank(a.metric) < rank(b.metric)
	})
}

// stats are the median, min and max of vs.
func stats(vs []float64) (med, lo, hi float64) {
	s := slices.Clone(vs)
	sort.Float64s(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

func (t *table) median(k key, client string) (float64, bool) {
	vs := t.vals[k][client]
	if len(vs) == 0 {
		return 0, false
	}
	m, _, _ := stats(vs)
	return m, true
}

func (t *table) print(w io.Writer) {
	present := []string{}
	for _, c := range clients {
		for _, k := range t.rows {
			if len(t.vals[k][c]) > 0 {
				present = append(present, c)
				break
			}
		}
	}
	head := []string{"benchmark", "metric"}
	for _, c := range present {
		head = append(head, c+" median [min–max] (n)")
	}
	head = append(head, "sdbus / go-systemd", "sdbus / raw")
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(head)))
	for _, k := range t.rows {
		name := k.family
		if k.variant != "" {
			name += " " + k.variant
		}
		row := []string{name, k.metric}
		for _, c := range present {
			vs := t.vals[k][c]
			if len(vs) == 0 {
				row = append(row, "")
				continue
			}
			med, lo, hi := stats(vs)
			cell := format(med, k.metric)
			if len(vs) > 1 {
				cell += fmt.Sprintf(" [%s–%s]", format(lo, k.metric), format(hi, k.metric))
			}
			row = append(row, fmt.Sprintf("%s (%d)", cell, len(vs)))
		}
		s, ok := t.median(k, "sdbus")
		for _, other := range []string{"go-systemd", "raw"} {
			o, ok2 := t.median(k, other)
			if ok && ok2 && o != 0 {
				row = append(row, fmt.Sprintf("%.2f×", s/o))
			} else {
				row = append(row, "")
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
}

// spread is the range of ratios vs, "0.95–1.04×".
func spread(vs []float64) string {
	_, lo, hi := stats(vs)
	return fmt.Sprintf("%.2f–%.2f×", lo, hi)
}

// format writes v in the unit its metric implies.
func format(v float64, metric string) string {
	switch {
	case strings.HasSuffix(metric, "-s"):
		return fmt.Sprintf("%.2f s", v)
	case strings.HasPrefix(metric, "ns/") || strings.HasSuffix(metric, "ns") || strings.Contains(metric, "-ns/"):
		switch {
		case v >= 1e9:
			return fmt.Sprintf("%.2f s", v/1e9)
		case v >= 1e6:
			return fmt.Sprintf("%.2f ms", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.1f µs", v/1e3)
		}
		return fmt.Sprintf("%.0f ns", v)
	case strings.HasPrefix(metric, "B/") || strings.Contains(metric, "-B"):
		switch {
		case v >= 1<<20:
			return fmt.Sprintf("%.1f MiB", v/(1<<20))
		case v >= 10<<10:
			return fmt.Sprintf("%.1f KiB", v/(1<<10))
		}
		return fmt.Sprintf("%.0f B", v)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// targets checks the targets of BENCHMARKS.md that the results cover.
func (t *table) targets(w io.Writer) {
	fmt.Fprintln(w, "| target | measured | verdict |")
	fmt.Fprintln(w, "|---|---|---|")
	line := func(target, measured string, ok bool) {
		verdict := "met"
		if !ok {
			verdict = "**missed**"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", target, measured, verdict)
	}
	for _, k := range t.rows {
		s, ok := t.median(k, "sdbus")
		if !ok {
			continue
		}
		g, hasG := t.median(k, "go-systemd")
		name := strings.TrimSpace(k.family + " " + k.variant)
		switch {
		case k.family == "ClientCPU" && k.metric == "cpu-ns/job" && hasG:
			line("client CPU/job, "+name+": sdbus ≤ 0.5× go-systemd", fmt.Sprintf("%.2f×", s/g), s <= 0.5*g)
		case k.family == "SystemdPaired" && k.metric == "sdbus/raw":
			line("systemd jobs/s, "+name+": sdbus ≥ 0.98× the raw loop (never subscribes), paired turns",
				fmt.Sprintf("%.3f× (median of %d runs; range %s)", s, len(t.vals[k]["sdbus"]), spread(t.vals[k]["sdbus"])), s >= 0.98)
		case k.family == "SystemdPaired" && k.metric == "sdbus/go-systemd":
			line("systemd jobs/s, "+name+": sdbus ≥ go-systemd, paired turns",
				fmt.Sprintf("%.3f× (median of %d runs; range %s)", s, len(t.vals[k]["sdbus"]), spread(t.vals[k]["sdbus"])), s >= 1)
		case k.family == "HeadOfLine" && k.metric == "p99-ratio":
			line("head-of-line: sdbus loaded p99 ≤ 1.1× unloaded (idle) p99", fmt.Sprintf("%.2f×", s), s <= 1.1)
		case k.family == "HeadOfLine" && k.metric == "p99-loaded/control":
			line("head-of-line: sdbus loaded p99 ≤ 1.1× control p99 (same traffic, no abandoned waiters)", fmt.Sprintf("%.2f×", s), s <= 1.1)
		case k.family == "Fakebus" && k.metric == "jobs/s":
			line("fakebus in-process, "+name+": ≥ 50,000 jobs/s", fmt.Sprintf("%.0f/s", s), s >= 50000)
		case k.family == "MillionJobs" && k.metric == "heap-1M/100k":
			line("heap after GC at 1M jobs ≤ 1.1× at 100k", fmt.Sprintf("%.3f×", s), s <= 1.1)
		case k.family == "PendingJobMemory" && k.metric == "total-B/job":
			line("memory per waiting job ("+name+") ≤ 1 KiB", format(s, k.metric), s <= 1024)
		}
	}
	// The cost of a watch: watching one unit must not make sdbus receive
	// every unit's changes; the clients that do are the yardstick.
	if none, ok := t.median(key{"WatchCost", "no-watch", "cpu-ns/change"}, "sdbus"); ok && none > 0 {
		if one, ok := t.median(key{"WatchCost", "watch-one", "cpu-ns/change"}, "sdbus"); ok {
			measured := fmt.Sprintf("%s against %s (%.2f×)", format(one, "cpu-ns/change"), format(none, "cpu-ns/change"), one/none)
			for _, c := range []struct{ variant, client string }{{"broad-match", "raw"}, {"watch-one", "go-systemd"}} {
				if v, ok := t.median(key{"WatchCost", c.variant, "cpu-ns/change"}, c.client); ok {
					measured += fmt.Sprintf("; %s %s: %s (%.2f×)", c.client, c.variant, format(v, "cpu-ns/change"), v/none)
				}
			}
			line("watch cost: sdbus watching one unit ≤ 1.1× the CPU per other unit's change of sdbus watching none", measured, one <= 1.1*none)
		}
	}
	// Dispatch cost: flat within 1.2× from 10 to 10,000 outstanding.
	for _, prefix := range []string{"waiters", "pending"} {
		for _, order := range []string{"after-reply", "before-reply"} {
			var meds []float64
			for _, n := range []string{"10", "1000", "10000"} {
				if m, ok := t.median(key{"JobRemovedDispatch", prefix + "=" + n + "/" + order, "ns/op"}, "sdbus"); ok {
					meds = append(meds, m)
				}
			}
			if len(meds) == 3 {
				lo, hi := slices.Min(meds), slices.Max(meds)
				ratio := hi / lo
				line(fmt.Sprintf("dispatch ns/JobRemoved, %s=10…10000/%s: flat within 1.2×", prefix, order),
					fmt.Sprintf("%.0f / %.0f / %.0f ns (max/min %.2f×)", meds[0], meds[1], meds[2], ratio), ratio <= 1.2 && !math.IsNaN(ratio))
			}
		}
	}
}
