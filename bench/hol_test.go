package bench

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
)

const (
	// abandoned is the number of other jobs whose waiters gave up.
	abandoned = 1000
	// blockedCap is how long a healthy caller may be stuck before the
	// benchmark calls it blocked and unblocks it.
	blockedCap = 5 * time.Second
	// heldPattern matches the slices of the abandoned jobs, which the
	// fake keeps queued until the benchmark finishes them.
	heldPattern = "held_*.slice"
)

// BenchmarkHeadOfLine measures the start+wait latency (p50, p99) of
// healthy callers while 1,000 other jobs have abandoned waiters.
//
// The fake systemd runs in a child process and keeps the abandoned jobs
// queued until told to finish one. Two connections of the same client
// library are open: L, on which 1,000 jobs have been started and
// abandoned, and C, a control without any. Three sets of b.N samples each
// (bench/run uses -benchtime 2000x):
//
//   - idle: on C, before any abandoned job exists (the unloaded latency);
//   - control: on C, once the abandoned jobs exist;
//   - loaded: on L, the connection whose dispatcher carries the abandoned
//     waiters.
//
// control and loaded samples alternate (C then L, then L then C, ...), and
// before each sample one abandoned job is finished, so that its JobRemoved
// is dispatched right ahead of the healthy job's (both connections receive
// every JobRemoved, as on a real bus); L starts a new batch of 1,000 when
// they are used up. After each sample the slice is stopped, untimed.
//
// Abandoned means, for sdbus, a Wait whose context was canceled; for
// go-systemd, a buffered(1) result channel that nobody reads (what
// go-systemd's documentation allows). go-systemd/unread-channel makes one
// of the abandoned channels unbuffered: go-systemd's dispatcher blocks on
// that send, holding the lock every job call of that Conn takes. The
// benchmark declares the caller blocked 5 s after the loaded phase began,
// then reads the channel to release it; blocked-s is how long the caller
// had waited.
//
// Metrics: p50-ns, p99-ns (idle); p50-control-ns, p99-control-ns;
// p50-loaded-ns, p99-loaded-ns; p99-ratio = p99-loaded / p99 (idle);
// p99-loaded/control.
func BenchmarkHeadOfLine(b *testing.B) {
	b.Run("sdbus", func(b *testing.B) { holRun(b, newSdbusHOL) })
	b.Run("go-systemd", func(b *testing.B) { holRun(b, newGsdHOL(false)) })
	b.Run("go-systemd/unread-channel", func(b *testing.B) { holRun(b, newGsdHOL(true)) })
}

// holClient is a client for BenchmarkHeadOfLine.
type holClient interface {
	Client
	// abandon starts held slices and gives up waiting for their jobs,
	// returning the job ids.
	abandon(ctx context.Context, n int) ([]uint32, error)
	// release unblocks a blocked dispatcher, if the client can be blocked.
	release()
}

func holRun(b *testing.B, newClient func(b *testing.B, addr string) holClient) {
	fake := startFakeProcess(b)
	ctl, ld := newClient(b, fake.Address), newClient(b, fake.Address)
	ctx := context.Background()
	for i := 0; i < 50; i++ { // warm up
		if err := cycle(ctx, ctl); err != nil {
			b.Fatal(err)
		}
		if err := cycle(ctx, ld); err != nil {
			b.Fatal(err)
		}
	}
	var ids []uint32 // abandoned jobs not finished yet
	finishOne := func() {
		if len(ids) == 0 { // keep 1,000 abandoned jobs queued
			b.StopTimer()
			var err error
			if ids, err = ld.abandon(ctx, abandoned); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if err := fake.Finish(ids[0]); err != nil {
			b.Fatal(err)
		}
		ids = ids[1:]
	}
	sample := func(c Client) time.Duration {
		name := sliceName()
		t0 := time.Now()
		if err := c.StartSlice(ctx, name); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		if err := c.Stop(ctx, name); err != nil {
			b.Fatal(err)
		}
		return d
	}

	idle := make([]time.Duration, 0, b.N)
	control := make([]time.Duration, 0, b.N)
	loaded := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idle = append(idle, sample(ctl))
	}
	// Nothing in this benchmark takes seconds unless a caller is blocked.
	var blocked atomic.Bool
	watchdog := time.AfterFunc(blockedCap, func() { blocked.Store(true); ld.release() })
	defer watchdog.Stop()
	for i := 0; i < b.N; i++ {
		for k := 0; k < 2; k++ {
			finishOne()
			if (i+k)%2 == 0 {
				control = append(control, sample(ctl))
				continue
			}
			d := sample(ld)
			if blocked.Load() {
				b.StopTimer()
				b.ReportMetric(d.Seconds(), "blocked-s") // how long it waited
				return
			}
			loaded = append(loaded, d)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(idle, 50)), "p50-ns")
	b.ReportMetric(float64(percentile(idle, 99)), "p99-ns")
	b.ReportMetric(float64(percentile(control, 50)), "p50-control-ns")
	b.ReportMetric(float64(percentile(control, 99)), "p99-control-ns")
	b.ReportMetric(float64(percentile(loaded, 50)), "p50-loaded-ns")
	b.ReportMetric(float64(percentile(loaded, 99)), "p99-loaded-ns")
	b.ReportMetric(float64(percentile(loaded, 99))/float64(percentile(idle, 99)), "p99-ratio")
	b.ReportMetric(float64(percentile(loaded, 99))/float64(percentile(control, 99)), "p99-loaded/control")
}

// percentile returns the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(i-1, 0)]
}

type sdbusHOL struct{ *Sdbus }

func newSdbusHOL(b *testing.B, addr string) holClient {
	return sdbusHOL{dial(b, "sdbus", addr).(*Sdbus)}
}

func (s sdbusHOL) abandon(ctx context.Context, n int) ([]uint32, error) {
	gaveUp, cancel := context.WithCancel(ctx)
	cancel()
	ids := make([]uint32, 0, n)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("held_%d.slice", nameSeq.Add(1))
		j, err := s.C.StartTransientUnit(ctx, name, sdbus.ModeReplace, sdbusProps)
		if err != nil {
			return nil, err
		}
		if _, err := j.Wait(gaveUp); err == nil {
			return nil, fmt.Errorf("%s: held job ended early", name)
		}
		ids = append(ids, j.ID())
	}
	return ids, nil
}

func (sdbusHOL) release() {}

type gsdHOL struct {
	*GoSystemd
	unread bool
	ch     chan string // the unread unbuffered channel, if unread
}

func newGsdHOL(unread bool) func(b *testing.B, addr string) holClient {
	return func(b *testing.B, addr string) holClient {
		return &gsdHOL{GoSystemd: dial(b, "go-systemd", addr).(*GoSystemd), unread: unread}
	}
}

func (g *gsdHOL) abandon(ctx context.Context, n int) ([]uint32, error) {
	ids := make([]uint32, 0, n)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("held_%d.slice", nameSeq.Add(1))
		ch := make(chan string, 1) // nobody will read it
		if g.unread && g.ch == nil {
			g.ch = make(chan string) // nor this one, which blocks
			ch = g.ch
		}
		id, err := g.C.StartTransientUnitContext(ctx, name, "replace", gsdProps, ch)
		if err != nil {
			return nil, err
		}
		ids = append(ids, uint32(id))
	}
	return ids, nil
}

// release reads the unread channel once, which lets go-systemd's
// dispatcher go on.
func (g *gsdHOL) release() {
	if g.ch != nil {
		<-g.ch
	}
}
