package difftest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus"
	"pgregory.net/rapid"
)

// maxSteps is the longest sequence drawn.
const maxSteps = 50

// defaultShrinkTime is how long rapid shrinks a divergence unless the
// command line says otherwise (-rapid.shrinktime).
const defaultShrinkTime = 2 * time.Minute

func TestMain(m *testing.M) {
	flag.Parse()
	// A failing check writes no fail file into the source tree: the
	// seed and the shrunk sequence it prints reproduce it.
	flag.Set("rapid.nofailfile", "true")
	// 20 sequences per check and 2 minutes to shrink a divergence
	// (sequences on real systemd take seconds each) unless the command
	// line says otherwise.
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["rapid.checks"] {
		flag.Set("rapid.checks", "20")
	}
	if !set["rapid.shrinktime"] {
		flag.Set("rapid.shrinktime", defaultShrinkTime.String())
	}
	os.Exit(m.Run())
}

// fakeBackend starts a fake playing version and returns it as a Backend;
// stop closes it.
func fakeBackend(version string) (b *Backend, stop func(), err error) {
	s, err := fakebus.Start(fakebus.WithVersion(version))
	if err != nil {
		return nil, nil, err
	}
	dial := func() (*dbus.Conn, error) {
		conn, err := dbus.NewConn(s.Pipe())
		if err == nil {
			err = conn.Auth(nil)
		}
		if err == nil {
			err = conn.Hello()
		}
		if err != nil && conn != nil {
			conn.Close()
		}
		return conn, err
	}
	return &Backend{Name: "fakebus " + version, Settle: 5 * time.Millisecond, Dial: dial,
		ConfigDir: s.UnitDir(), RuntimeDir: s.RuntimeUnitDir()}, func() { s.Close() }, nil
}

// differ runs seq on a (the reference) and on a fresh b, both with the
// same unit prefix, and returns the first step where they differ (-1:
// none) with the difference. A difference the package documents
// (known) ends the comparison as agreeing up to there and is returned
// with its entry.
func differ(ctx context.Context, a *Backend, b func() (*Backend, func(), error), seq []Op, prefix string) (int, string, *Known, error) {
	i, want, got, err := runBoth(ctx, a, b, seq, prefix)
	if err != nil || i < 0 {
		return i, "", nil, err
	}
	d := cmp.Diff(want, got)
	return i, d, knownDifference(seq[i], want, got), nil
}

// runBoth runs seq on a and on a fresh b, at the same time (each on its
// own units, processes and connection), and returns the first step that
// differs (-1: none) with what each did there; a step that differs only
// in how it is printed (sameState) is passed over.
func runBoth(ctx context.Context, a *Backend, b func() (*Backend, func(), error), seq []Op, prefix string) (int, Step, Step, error) {
	fb, stop, err := b()
	if err != nil {
		return -1, Step{}, Step{}, err
	}
	defer stop()
	var got []Step
	var gotErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, gotErr = Run(ctx, fb, seq, prefix)
	}()
	want, err := Run(ctx, a, seq, prefix)
	<-done
	if err != nil {
		return -1, Step{}, Step{}, fmt.Errorf("%s: %w", a.Name, err)
	}
	if gotErr != nil {
		return -1, Step{}, Step{}, fmt.Errorf("%s: %w", fb.Name, gotErr)
	}
	for i := range want {
		if i >= len(got) {
			return i, want[i], Step{Op: "(missing)"}, nil
		}
		if !cmp.Equal(want[i], got[i]) && !sameState(seq[i], want[i], got[i]) {
			return i, want[i], got[i], nil
		}
	}
	return -1, Step{}, Step{}, nil
}

// check is the property rapid checks: a drawn sequence does on b what
// it does on a. Divergences are counted in st.
func check(ctx context.Context, a *Backend, b func() (*Backend, func(), error), st *stats, steps int) func(*rapid.T) {
	table := propsFor(a.Major())
	return func(t *rapid.T) {
		seq := drawSeq(t, steps, table)
		key := GoString(seq)
		switch report, runs, over := st.before(key); {
		case runs > 0 && report == "":
			return // it ran and did not diverge
		case runs >= 2:
			// It diverged twice (rapid made it happen again): shrinking
			// and rapid's last run take it as it was.
			t.Log(report)
			t.Fatalf("fakebus differs from %s", a.Name)
		case runs == 0 && over:
			t.SkipNow()
		}
		prefix := fmt.Sprintf("dt%d", st.runs.Add(1))
		i, diff, k, err := differ(ctx, a, b, seq, prefix)
		st.steps.Add(int64(len(seq)))
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if i < 0 || k != nil {
			if k != nil {
				st.known.Add(1)
			}
			st.ran(key, "")
			return
		}
		st.firstFail.CompareAndSwap(0, int64(len(seq)))
		st.lastFail.Store(int64(len(seq)))
		st.lastFailStep.Store(int64(i + 1))
		report := fmt.Sprintf("step %d of %d differs (-%s +fakebus):\n%s\nthe sequence, as a replay case (replays_test.go):\n%s",
			i+1, len(seq), a.Name, diff, GoString(seq[:i+1]))
		st.mu.Lock()
		if st.first == "" {
			st.first = report
			st.shrinkEnd = time.Now().Add(shrinkTime())
		}
		st.mu.Unlock()
		st.ran(key, report)
		t.Log(report)
		// One message for every divergence: rapid shrinks a failing
		// sequence to any shorter one that fails the same way.
		t.Fatalf("fakebus differs from %s", a.Name)
	}
}

type stats struct {
	runs, steps, known atomic.Int64
	mu                 sync.Mutex // guards first, shrinkEnd and outcomes
	// first is the report of the first divergence (of the current seed,
	// in a long run): when it does not happen again (rapid calls the
	// check flaky), it is all there is.
	first string
	// shrinkEnd is when -rapid.shrinktime after the first divergence is
	// over (before).
	shrinkEnd time.Time
	// outcomes are the current seed's sequences (GoString) that ran:
	// how often, and the report of their divergence ("" for none).
	outcomes map[string]*outcome
	// The length of the first diverging sequence, and of the last one
	// (rapid runs the shrunk one last) with its diverging step.
	firstFail, lastFail, lastFailStep atomic.Int64
}

// outcome is what a sequence did: how often it ran, and the report of
// its divergence ("" for none).
type outcome struct {
	runs   int
	report string
}

// newSeed forgets the sequences of the seed before.
func (s *stats) newSeed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.first, s.shrinkEnd, s.outcomes = "", time.Time{}, nil
}

// before returns what the sequence key did before (runs 0: it never
// ran), and whether rapid's shrinking time is over. rapid's shrinker
// tries many changes of the values drawn that draw the same sequence
// again, and looks at its clock only between the values it minimizes:
// minimizing one may take a hundred sequences (minutes on real systemd).
// So a sequence runs at most once, or twice when it diverged (rapid runs
// a divergence again to see it happen again), and once shrinking's time
// is over, no new sequence runs (rapid drops it as invalid).
func (s *stats) before(key string) (report string, runs int, over bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	over = s.first != "" && time.Now().After(s.shrinkEnd)
	if o := s.outcomes[key]; o != nil {
		return o.report, o.runs, over
	}
	return "", 0, over
}

// ran records that the sequence key ran, with the report of its
// divergence ("" for none).
func (s *stats) ran(key, report string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outcomes == nil {
		s.outcomes = map[string]*outcome{}
	}
	o := s.outcomes[key]
	if o == nil {
		o = &outcome{}
		s.outcomes[key] = o
	}
	o.runs++
	o.report = report
}

// shrinkTime is -rapid.shrinktime.
func shrinkTime() time.Duration {
	if f := flag.Lookup("rapid.shrinktime"); f != nil {
		if d, ok := f.Value.(flag.Getter).Get().(time.Duration); ok {
			return d
		}
	}
	return defaultShrinkTime
}

func (s *stats) String() string {
	return fmt.Sprintf("%d sequences, %d steps, %d ended at a known difference", s.runs.Load(), s.steps.Load(), s.known.Load())
}

// TestDifferential runs drawn sequences on the sandbox's systemd and on
// fakebus playing its release (SDBUS_SANDBOX=1, set by scripts/sandbox;
// scripts/conformance-systemd runs it on each release). -rapid.seed and
// -rapid.checks choose the sequences; SDBUS_DIFFTEST_DURATION=30m keeps
// drawing new seeds for that long and prints each shrunk divergence
// between "=== divergence" and "=== end" lines (make differential-fuzz).
func TestDifferential(t *testing.T) {
	real, fake := sandboxBackends(t)
	ctx := context.Background()
	version := strings.TrimPrefix(real.Name, "systemd ")
	st := &stats{}
	began := time.Now()
	d := os.Getenv("SDBUS_DIFFTEST_DURATION")
	if d == "" {
		// Deferred: rapid ends the test with t.Fatal when a divergence
		// does not happen again (flaky), and its first report is then
		// all there is.
		defer func() {
			if t.Failed() {
				st.mu.Lock()
				t.Logf("the first divergence:\n%s", st.first)
				st.mu.Unlock()
			}
			t.Logf("differential on %s: %s (%.0f s)", real.Name, st, time.Since(began).Seconds())
		}()
		rapid.Check(t, check(ctx, real, fake, st, maxSteps))
		return
	}
	dur, err := time.ParseDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	if s := flag.Lookup("rapid.seed"); s != nil && s.Value.String() != "0" {
		fmt.Sscan(s.Value.String(), &seed)
	}
	found := 0
	span := seedSpan()
	for end := time.Now().Add(dur); time.Now().Before(end); seed += span {
		flag.Set("rapid.seed", fmt.Sprint(seed))
		st.newSeed()
		rec := &recorder{name: fmt.Sprintf("seed%d", seed)}
		rec.run(func() { rapid.Check(rec, check(ctx, real, fake, st, maxSteps)) })
		if rec.failed.Load() {
			found++
			// rapid prints nothing of a divergence it could not make
			// happen again (flaky): the first one seen says what it was.
			st.mu.Lock()
			first := st.first
			st.mu.Unlock()
			// Between markers, for scripts/differential-fuzz to cut out.
			t.Errorf("seed %d diverges\n=== divergence %s seed %d\n%s\nthe first divergence seen:\n%s\n=== end", seed, strings.Fields(version)[0], seed, rec.text(), first)
		}
	}
	t.Logf("differential on %s for %s: %s; %d diverging seeds", real.Name, dur, st, found)
}

// seedSpan is how far apart the long run's seeds are, so that no two
// draw the same sequence: rapid's i-th check of seed s draws from seed
// s+0+1+...+i (findBug), so seed s covers s to s+n(n-1)/2 for n
// -rapid.checks. One apart, ten checks each, consecutive seeds drew the
// same sequences up to ten times.
func seedSpan() uint64 {
	n := uint64(100) // rapid's default
	if f := flag.Lookup("rapid.checks"); f != nil {
		fmt.Sscan(f.Value.String(), &n)
	}
	return n*(n-1)/2 + 1
}

// sandboxBackends returns the sandbox's systemd, on the system bus, and
// a function starting a fakebus playing its release; outside the sandbox
// (SDBUS_SANDBOX=1, set by scripts/sandbox) it skips t.
func sandboxBackends(t *testing.T) (*Backend, func() (*Backend, func(), error)) {
	if os.Getenv("SDBUS_SANDBOX") != "1" {
		t.Skip("not in the systemd sandbox (SDBUS_SANDBOX=1); see scripts/conformance-systemd")
	}
	real := &Backend{Name: "systemd", Settle: 30 * time.Millisecond, Dial: func() (*dbus.Conn, error) { return dbus.ConnectSystemBus() },
		// /tmp is private to each of the sandbox's services: the run's
		// own files go to /run, as the conformance suite's do.
		ConfigDir: "/etc/systemd/system", RuntimeDir: "/run/systemd/system", FilesBase: "/run", LivePIDs: true}
	conn, err := real.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	v, err := conn.Object(busName, managerPath).GetProperty(managerIf + ".Version")
	if err != nil {
		t.Fatal(err)
	}
	version, _ := v.Value().(string)
	real.Name = "systemd " + version
	return real, func() (*Backend, func(), error) { return fakeBackend(version) }
}

// TestDifferentialEdges runs every one-step sequence of the property
// table on the sandbox's systemd and on fakebus: StartTransientUnit of
// each unit type taking the property, with each of its values and with
// each wrong-typed value, and reports every step that differs (not only
// the first, as rapid does).
func TestDifferentialEdges(t *testing.T) {
	real, fake := sandboxBackends(t)
	runEdges(t, real, fake, append(edgeSequences(propsFor(real.Major()), real.Major()), fileEdgeSequences(real.Major())...))
}

// runEdges runs independent short sequences on real and on fakes of
// fake's, edgeWorkers at a time, and reports each that differs.
func runEdges(t *testing.T, real *Backend, fake func() (*Backend, func(), error), seqs [][]Op) {
	ctx := context.Background()
	st := &stats{}
	began := time.Now()
	// The runs share the manager: none reloads it while others run
	// (Backend.NoCleanupReload); it is reloaded once they are done.
	quiet := *real
	quiet.NoCleanupReload = true
	real = &quiet
	defer func() {
		if conn, err := real.Dial(); err == nil {
			conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(ctx, managerIf+".Reload", 0)
			conn.Close()
		}
	}()
	fake = func(fake func() (*Backend, func(), error)) func() (*Backend, func(), error) {
		return func() (*Backend, func(), error) {
			fb, stop, err := fake()
			if fb != nil {
				fb.NoCleanupReload = true
			}
			return fb, stop, err
		}
	}(fake)
	// The sequences are independent (each has its own units and
	// connection): edgeWorkers run at once, each on a fake of its own
	// that its sequences share, as they all share the real systemd.
	var mu sync.Mutex // guards t's log order: one report at a time
	work := make(chan []Op)
	var wg sync.WaitGroup
	for w := 0; w < edgeWorkers; w++ {
		fb, stop, err := fake()
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		shared := func() (*Backend, func(), error) { return fb, func() {}, nil }
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := range work {
				prefix := fmt.Sprintf("de%d", st.runs.Add(1))
				i, want, got, err := runBoth(ctx, real, shared, seq, prefix)
				st.steps.Add(int64(len(seq)))
				mu.Lock()
				switch {
				case err != nil:
					t.Error(err)
				case i < 0:
				case knownDifference(seq[i], want, got) != nil:
					st.known.Add(1)
				default:
					t.Errorf("%s differs:\n-%s\n+fakebus:\n%s", edgeSteps(seq[:i+1]), want, got)
				}
				mu.Unlock()
			}
		}()
	}
	for _, seq := range seqs {
		work <- seq
	}
	close(work)
	wg.Wait()
	t.Logf("edges on %s: %s (%.0f s)", real.Name, st, time.Since(began).Seconds())
}

// edgeWorkers is how many edge sequences run at once.
const edgeWorkers = 8

// edgeSteps names an edge sequence's steps up to the one that differs.
func edgeSteps(seq []Op) string {
	var b strings.Builder
	for i, o := range seq {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(o.String())
	}
	return b.String()
}

// fileEdgeSequences are TestDifferentialEdges' unit files on release
// major: for each type and each value of each directive of its section,
// and for a service and one other type each value of each [Unit]
// directive, a file with that line (after the line the type needs, unless
// it is that directive) written to the runtime directory, loaded and
// started. The other type turns with the value and major: the releases
// played, 5 apart, take four of the five in turn (the [Unit] directives
// on every type took two thirds of the edges' steps).
func fileEdgeSequences(major int) [][]Op {
	var seqs [][]Op
	other := 0 // the types but a service so far
	for i, k := range pool {
		if i > 0 && pool[i-1] == k {
			continue // one unit of each type
		}
		own := kindDirectives[k]
		add := func(d directiveSpec, v string) {
			var lines []Directive
			if len(own) > 0 && own[0].key != d.key && k != kTarget {
				lines = append(lines, Directive{own[0].section, own[0].key, own[0].values[0]})
			}
			lines = append(lines, Directive{d.section, d.key, v})
			seqs = append(seqs, []Op{
				{Kind: OpWriteFile, Unit: i, Dir: InRuntime, Lines: lines},
				{Kind: OpLoad, Unit: i},
				{Kind: OpStart, Unit: i, Mode: "replace"},
			})
		}
		for _, d := range own {
			for _, v := range d.values {
				add(d, v)
			}
		}
		n := 0 // the [Unit] values so far
		for _, d := range unitDirectives {
			for _, v := range d.values {
				if k == kService || (n+major/5)%5 == other%5 {
					add(d, v)
				}
				n++
			}
		}
		if k != kService {
			other++
		}
	}
	return seqs
}

// edgeSequences are the one-step sequences of TestDifferentialEdges on
// release major. Each property is tried on each unit type taking it with
// each of its values, the wrong values of its own Go type (a string
// property given "x"), and one wrong-typed value, which one turning with
// the property, the type and major: the releases played, 5 apart, try the
// four in turn, so that a run of the four tries each property with each
// wrong type, in a quarter less time than each release trying all four.
func edgeSequences(table []propSpec, major int) [][]Op {
	base := map[unitKind][]Prop{
		kService: {{"ExecStart", Command(0)}},
		kScope:   {{"PIDs", PIDList{0}}},
		kTimer:   {{"TimersMonotonic", []TimerValue{{"OnActiveSec", 3600000000}}}},
	}
	unitOf := map[unitKind]int{}
	for i := len(pool) - 1; i >= 0; i-- {
		unitOf[pool[i]] = i
	}
	var seqs [][]Op
	for _, k := range []unitKind{kService, kScope, kSlice, kSocket, kTimer} {
		seqs = append(seqs, []Op{{Kind: OpStartTransient, Unit: unitOf[k], Mode: "replace"}})
	}
	for pi, p := range table {
		for ki, k := range []unitKind{kService, kScope, kSlice, kTimer} {
			if !p.scope.takes(k) || k == kTimer && p.scope != onTimer {
				continue
			}
			values := append([]any{}, p.values...)
			for wi, w := range wrongValues {
				if len(p.values) > 0 && reflect.TypeOf(w) == reflect.TypeOf(p.values[0]) || wi == (pi+ki+major)%len(wrongValues) {
					values = append(values, w)
				}
			}
			for _, v := range values {
				o := Op{Kind: OpStartTransient, Unit: unitOf[k], Mode: "replace",
					Props: append(append([]Prop{}, base[k]...), Prop{p.name, v})}
				switch k {
				case kScope:
					o.Spawn = []ProcKind{Live}
				case kTimer:
					// The service it triggers, as systemd-run makes it.
					o.Aux = []Prop{{"ExecStart", Command(1)}}
				}
				seqs = append(seqs, []Op{o})
			}
		}
	}
	return seqs
}
