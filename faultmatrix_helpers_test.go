package sdbus_test

// Plumbing for TestFaultMatrix (faultmatrix_test.go): the fault kinds and
// the plan of schedules, counters, a trace of what the fake bus really
// delivered, and the judgements every actor shares.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// fault is one kind of fault the matrix injects; faultmatrix_test.go has
// the actor that injects and checks each.
type fault uint

const (
	fNeverRead         fault = iota // 1: a job whose result nobody reads
	fCtxCancel                      // 2: ctx cancelled before, during and after the start call
	fWaitCancel                     // 3: ctx cancelled during Wait
	fEarlyRemoved                   // 4: JobRemoved before the reply
	fDuplicate                      // 5: duplicate JobRemoved
	fForged                         // 6: JobRemoved from another sender, or on another path
	fMalformed                      // 7: JobRemoved with a malformed body
	fMerged                         // 8: one merged job, several callers and waiters on several Conns
	fConflict                       // 9: a queued start job replaced by a stop job
	fLateReply                      // 10: the reply comes after the caller's deadline
	fReload                         // 11: daemon-reload holding JobRemoved back
	fDisconnect                     // 12: the connections drop mid-call and mid-wait
	fBadArg                         // 13: calls with strings D-Bus cannot carry, mid-traffic
	fDropBeforeInstall              // 14: a reconnecting Conn's new connection drops after setup, before install
	fDropAfterRemoved               // 15: a connection drops right after a job's JobRemoved
	fReexec                         // 16: daemon-reexec: the name released, a job ended before it is taken back
	numFaults
)

var faultNames = [numFaults]string{
	"never-read", "ctx-cancel", "wait-cancel", "early-removed", "duplicate", "forged",
	"malformed", "merged", "conflict", "late-reply", "reload", "disconnect",
	"bad-arg", "drop-before-install", "drop-after-removed", "reexec",
}

func (f fault) String() string { return faultNames[f] }

// faultSet is a set of faults, one bit per fault.
type faultSet uint32

func (s faultSet) has(f fault) bool { return s&(1<<f) != 0 }

func (s faultSet) String() string {
	var names []string
	for f := fault(0); f < numFaults; f++ {
		if s.has(f) {
			names = append(names, f.String())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// A schedule's seed carries its fault set in its low bits and the seed of
// its random choices in the others, so that SDBUS_FAULT_SEED alone replays
// one schedule.
const maskBits = 16

func scheduleSeed(faults faultSet, random uint64) uint64 { return random<<maskBits | uint64(faults) }

func seedFaults(seed uint64) faultSet { return faultSet(seed & (1<<maskBits - 1)) }

// coverage counts the schedules each fault and each pair of faults ran in.
type coverage struct {
	single [numFaults]int
	pair   [numFaults][numFaults]int
}

func (c *coverage) add(s faultSet) {
	for f := fault(0); f < numFaults; f++ {
		if !s.has(f) {
			continue
		}
		c.single[f]++
		for g := f + 1; g < numFaults; g++ {
			if s.has(g) {
				c.pair[f][g]++
			}
		}
	}
}

// pairRange returns the smallest and largest pair counts, and a pair with
// the smallest.
func (c *coverage) pairRange() (lo, hi int, f, g fault) {
	lo = -1
	for a := fault(0); a < numFaults; a++ {
		for b := a + 1; b < numFaults; b++ {
			n := c.pair[a][b]
			if lo < 0 || n < lo {
				lo, f, g = n, a, b
			}
			if n > hi {
				hi = n
			}
		}
	}
	return lo, hi, f, g
}

func (c *coverage) minSingle() int {
	n := -1
	for _, k := range c.single {
		if n < 0 || k < n {
			n = k
		}
	}
	return n
}

// plan returns the seeds of the schedules to run: every fault alone, every
// pair alone, then random subsets of the faults (each fault in with
// probability pIn) until every pair has run in at least minPair
// schedules. The plan depends on base only.
func plan(base int64, minPair int, pIn float64) (seeds []uint64, cov coverage, singles, pairs int) {
	r := rand.New(rand.NewSource(base))
	add := func(s faultSet) {
		seeds = append(seeds, scheduleSeed(s, uint64(r.Int63())>>maskBits))
		cov.add(s)
	}
	for f := fault(0); f < numFaults; f++ {
		add(1 << f)
		singles++
	}
	for f := fault(0); f < numFaults; f++ {
		for g := f + 1; g < numFaults; g++ {
			add(1<<f | 1<<g)
			pairs++
		}
	}
	for {
		if lo, _, _, _ := cov.pairRange(); lo >= minPair {
			break
		}
		var s faultSet
		for f := fault(0); f < numFaults; f++ {
			if r.Float64() < pIn {
				s |= 1 << f
			}
		}
		if s&(s-1) != 0 { // at least two faults: pairs are what these are for
			add(s)
		}
	}
	// Interleave, so that every worker gets a mix.
	r.Shuffle(len(seeds), func(i, j int) { seeds[i], seeds[j] = seeds[j], seeds[i] })
	return seeds, cov, singles, pairs
}

// counters counts what the matrix did, by key; a key's prefix up to '/'
// names its line in the summary.
type counters struct {
	mu sync.Mutex
	m  map[string]int
}

func newCounters() *counters { return &counters{m: map[string]int{}} }

func (c *counters) add(key string, n int) {
	c.mu.Lock()
	c.m[key] += n
	c.mu.Unlock()
}

func (c *counters) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *counters) merge(o *counters) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range o.m {
		c.m[k] += v
	}
}

// section formats the counters under prefix as "a=1 b=2", sorted by name,
// and returns their sum.
func (c *counters) section(prefix string) (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []string
	for k := range c.m {
		if strings.HasPrefix(k, prefix+"/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	total := 0
	for _, k := range keys {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", strings.TrimPrefix(k, prefix+"/"), c.m[k])
		total += c.m[k]
	}
	if b.Len() == 0 {
		return "-", 0
	}
	return b.String(), total
}

const (
	// fakeForger is the sender of the fake's FaultForgedJobRemoved,
	// sprayForger ours.
	fakeForger  = ":1.999"
	sprayForger = ":1.4242"
	// forgedResult is what our forged and malformed signals claim: no
	// oracle ever expects it.
	forgedResult = "forged-result"
	jobPathBase  = "/org/freedesktop/systemd1/job/"
	managerIface = "org.freedesktop.systemd1.Manager"
	managerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
)

// wireMsg names a message by its client ("" on the peer-to-peer
// connection; a schedule has at most one) and its serial (for a reply,
// the serial of the call it answers).
type wireMsg struct {
	client string
	serial uint32
}

type clientJob struct {
	client string
	path   dbus.ObjectPath
}

// tracer records what the fake bus really delivered to clients
// (fakebus.WithTrace, called synchronously as the bus queues each
// message), so that the matrix counts faults that were injected, not
// faults it asked for, and knows every job's true result and the wire
// order of replies.
type tracer struct {
	mu      sync.Mutex
	maxJob  uint32
	n       map[string]int                // delivered faults, by kind
	removed map[clientJob]int             // well-formed JobRemoved from systemd, per client and job
	results map[string][]string           // unit -> results its jobs ended with (systemd's JobRemoved)
	lastJob map[string]uint32             // unit -> job of its last recorded result
	calls   map[string][]wireMsg          // unit -> job calls naming it, in arrival order
	replies map[dbus.ObjectPath][]wireMsg // job path -> replies naming it, in delivery order
	reloads [2]int                        // Reloading(true), Reloading(false) delivered
}

func newTracer() *tracer {
	return &tracer{
		n: map[string]int{}, removed: map[clientJob]int{}, results: map[string][]string{},
		lastJob: map[string]uint32{}, calls: map[string][]wireMsg{}, replies: map[dbus.ObjectPath][]wireMsg{},
	}
}

func header(m *dbus.Message, f dbus.HeaderField) string {
	switch v := m.Headers[f].Value().(type) {
	case string:
		return v
	case dbus.ObjectPath:
		return string(v)
	}
	return ""
}

func (tr *tracer) trace(e fakebus.Event) {
	m := e.Msg
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if e.In {
		switch header(m, dbus.FieldMember) {
		case "StartUnit", "StartTransientUnit", "StopUnit":
			if len(m.Body) > 0 {
				if u, ok := m.Body[0].(string); ok {
					tr.calls[u] = append(tr.calls[u], wireMsg{e.Client, e.Serial})
				}
			}
		}
		return
	}
	switch m.Type {
	case dbus.TypeMethodReply:
		if len(m.Body) != 1 {
			return
		}
		p, ok := m.Body[0].(dbus.ObjectPath)
		if !ok || !strings.HasPrefix(string(p), jobPathBase) {
			return
		}
		rs, _ := m.Headers[dbus.FieldReplySerial].Value().(uint32)
		tr.replies[p] = append(tr.replies[p], wireMsg{e.Client, rs})
		if tr.removed[clientJob{e.Client, p}] > 0 {
			tr.n["early-removed"]++ // the client had the job's result before the reply naming it
		}
		tr.noteJob(p)
	case dbus.TypeSignal:
		if header(m, dbus.FieldInterface) != managerIface {
			return
		}
		switch header(m, dbus.FieldMember) {
		case "Reloading":
			if len(m.Body) == 1 {
				if b, ok := m.Body[0].(bool); ok && b {
					tr.reloads[0]++
				} else if ok {
					tr.reloads[1]++
				}
			}
		case "JobRemoved":
			switch sender := header(m, dbus.FieldSender); {
			case sender == fakeForger || sender == sprayForger:
				tr.n["forged-sender"]++
			case dbus.ObjectPath(header(m, dbus.FieldPath)) != managerPath:
				tr.n["wrong-path"]++
			case dbus.SignatureOf(m.Body...).String() != "uoss":
				tr.n["malformed"]++
			default:
				id, p, unit, res := m.Body[0].(uint32), m.Body[1].(dbus.ObjectPath), m.Body[2].(string), m.Body[3].(string)
				k := clientJob{e.Client, p}
				if tr.removed[k]++; tr.removed[k] == 2 {
					tr.n["duplicate"]++
				}
				if tr.lastJob[unit] != id {
					tr.lastJob[unit] = id
					tr.results[unit] = append(tr.results[unit], res)
				}
				tr.noteJob(p)
			}
		}
	}
}

func (tr *tracer) noteJob(p dbus.ObjectPath) {
	var id uint32
	if _, err := fmt.Sscanf(strings.TrimPrefix(string(p), jobPathBase), "%d", &id); err == nil && id > tr.maxJob {
		tr.maxJob = id
	}
}

func (tr *tracer) maxJobID() uint32 {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.maxJob
}

func (tr *tracer) count(kind string) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.n[kind]
}

// sawCall reports whether the bus received a job call naming unit.
func (tr *tracer) sawCall(unit string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.calls[unit]) > 0
}

// sawResult reports whether a job of unit ended with result, as systemd
// announced it to some client.
func (tr *tracer) sawResult(unit, result string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, r := range tr.results[unit] {
		if r == result {
			return true
		}
	}
	return false
}

func (tr *tracer) unitResults(unit string) []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.results[unit]...)
}

func (tr *tracer) reloadCounts() (started, ended int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.reloads[0], tr.reloads[1]
}

// otherReplyFirst tells, for the first job call naming unit, whether its
// client got another reply naming path before the reply to that call. ok
// is false when the reply to the first call was not delivered.
func (tr *tracer) otherReplyFirst(unit string, path dbus.ObjectPath) (other, ok bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.calls[unit]) == 0 {
		return false, false
	}
	first := tr.calls[unit][0]
	for _, r := range tr.replies[path] {
		if r.client != first.client {
			continue
		}
		if r.serial == first.serial {
			return other, true
		}
		other = true
	}
	return false, false
}

// tconn is one of a schedule's connections.
type tconn struct {
	kind string // "bus" (sdbus.Connect), "broad" (sdbus.NewConn, sees forged signals), "p2p"
	c    *sdbus.Conn
	// disc is set when an operation on it reported ErrDisconnected; the
	// schedule then checks that the connection really ended.
	disc atomic.Bool
}

func ended(tc *tconn) bool {
	select {
	case <-tc.c.Done():
		return true
	default:
		return false
	}
}

// dialBroad connects through sdbus.NewConn, on a godbus connection with
// extra match rules that deliver every JobRemoved and Reloading signal,
// from any sender and on any path, to sdbus's handler (with sdbus's own
// rules the bus would filter forged and misplaced ones out).
func dialBroad(ctx context.Context, s *fakebus.Server, sequential bool) (*sdbus.Conn, error) {
	var opts []dbus.ConnOption
	if sequential {
		opts = append(opts, dbus.WithSignalHandler(dbus.NewSequentialSignalHandler()))
	}
	bus, err := dbus.NewConn(s.Pipe(), opts...)
	if err != nil {
		return nil, err
	}
	err = bus.Auth(nil)
	if err == nil {
		err = bus.Hello()
	}
	for _, member := range []string{"JobRemoved", "Reloading"} {
		if err == nil {
			err = bus.AddMatchSignalContext(ctx, dbus.WithMatchInterface(managerIface), dbus.WithMatchMember(member))
		}
	}
	if err != nil {
		bus.Close()
		return nil, err
	}
	return sdbus.NewConn(ctx, bus) // closes bus on failure
}

// unitPlan is one unit an actor uses, with the result the oracle expects
// of its start job.
type unitPlan struct {
	name      string
	transient bool // a transient slice (StartTransientUnit); else a unit-file service (StartUnit)
	want      sdbus.JobResult
	script    fakebus.Script
}

func (u *unitPlan) op() string {
	if u.transient {
		return "StartTransientUnit"
	}
	return "StartUnit"
}

func fmSliceProps() []sdbus.Property {
	return []sdbus.Property{sdbus.PropDescription("fault matrix"), sdbus.PropDefaultDependencies(false)}
}

// fmServiceFile is a service whose jobs its script decides: its command is
// one the fake does not interpret, so that no scripted result contradicts
// it.
func fmServiceFile(name string) fakebus.UnitFile {
	return fakebus.UnitFile{Name: name, Properties: []sdbus.Property{
		sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/usr/libexec/fault-matrix-payload"}, false),
	}}
}

// resultPool are the results scripted jobs end with. The fake's forged
// and misplaced signals claim "done", so units whose own script forges
// get one of the others.
var resultPool = []sdbus.JobResult{
	sdbus.JobDone, sdbus.JobDone, sdbus.JobFailed, sdbus.JobDependency, sdbus.JobTimeout,
	sdbus.JobSkipped, sdbus.JobInvalid, sdbus.JobCollected, "from-the-future",
}

// junkBodies are JobRemoved bodies of the wrong length or types that name
// a real job, each claiming a result no oracle expects.
func junkBodies(id uint32, path dbus.ObjectPath, unit string) [][]any {
	return [][]any{
		{},
		{id},
		{id, path, unit},
		{id, path, unit, forgedResult, "extra"},
		{id, string(path), unit, forgedResult},
		{int32(id), path, unit, forgedResult},
		{uint64(id), path, unit, forgedResult},
		{id, path, unit, []string{forgedResult}},
		{id, path, unit, dbus.MakeVariant(forgedResult)},
		{id, path, []byte(unit), forgedResult},
	}
}

// isCallError reports whether err is an *sdbus.Error for op on unit that
// matches target.
func isCallError(err error, op, unit string, target error) bool {
	var se *sdbus.Error
	return errors.As(err, &se) && se.Op == op && se.Unit == unit && errors.Is(err, target)
}

// sleepOrStop sleeps d, or less if stop is closed; it reports whether stop
// is still open.
func sleepOrStop(d time.Duration, stop <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	}
}

// randDur returns a duration in [lo, hi).
func randDur(r *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(r.Int63n(int64(hi-lo)))
}

// schedule is one run of the matrix: a server, its Conns, a fault set, and
// what its actors found.
type schedule struct {
	seed   uint64
	faults faultSet
	strict bool            // known bugs fail the schedule
	hang   context.Context // ends at the schedule's deadline
	srv    *fakebus.Server
	tr     *tracer
	conns  []*tconn
	broad  *tconn // the NewConn-made Conn that receives forged and misplaced signals
	cnt    *counters
	// leftByReexec is set once a daemon-reexec left a call unanswered:
	// its job, and the signal faults scripted on it, never came to be.
	leftByReexec atomic.Bool
	// Conns of single actors, dialed before the actors start (a Conn's
	// setup must not race fDropBeforeInstall's armed drop): rc for
	// fDropBeforeInstall, with dials counting its connections; cut for
	// fDropAfterRemoved (plain ones and a reconnecting one).
	rc    *tconn
	dials *atomic.Int32
	cut   []*tconn

	mu    sync.Mutex
	errs  []string
	notes []bugNote // known bugs observed
	late  []lateJob // jobs whose callers gave up during the start call
	ends  []string  // units whose jobs nobody reads: the fake must end them
	never []string  // units whose start had a cancelled ctx: never sent
}

// lateJob is a job created by a call whose ctx ended first. At the end of
// the schedule the fake must not have it queued any more: the Conn cancels
// it when the late reply arrives (unless the Conn ended first).
type lateJob struct {
	u  *unitPlan
	tc *tconn
}

func (sc *schedule) failf(format string, args ...any) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.errs = append(sc.errs, fmt.Sprintf(format, args...))
}

func (sc *schedule) hangf(format string, args ...any) {
	sc.cnt.add("hang/hangs", 1)
	sc.failf("HANG: "+format+fmt.Sprintf(" (no return within %v)", hangAfter), args...)
}

// bugNote is one observation of a known bug.
type bugNote struct{ key, msg string }

// knownBug records an observation of a fixed bug coming back (see the
// Regression tests): counted, noted, and a failure unless lenient.
func (sc *schedule) knownBug(key, format string, args ...any) {
	sc.cnt.add("known-bug/"+key, 1)
	msg := "REGRESSION " + key + ": " + fmt.Sprintf(format, args...)
	if sc.strict {
		sc.failf("%s", msg)
		return
	}
	sc.mu.Lock()
	sc.notes = append(sc.notes, bugNote{key, msg})
	sc.mu.Unlock()
}

func (sc *schedule) addLate(l lateJob) {
	sc.mu.Lock()
	sc.late = append(sc.late, l)
	sc.mu.Unlock()
}

// isHang reports whether err is the schedule's deadline.
func (sc *schedule) isHang(err error) bool {
	return sc.hang.Err() != nil && errors.Is(err, context.DeadlineExceeded)
}

// disconnected reports whether err matches ErrDisconnected. That is an
// accepted outcome only in schedules with the disconnect fault, only as an
// *sdbus.Error, and only on a Conn that really ended (checked at the end).
func (sc *schedule) disconnected(tc *tconn, what string, err error) bool {
	if !errors.Is(err, sdbus.ErrDisconnected) {
		return false
	}
	var se *sdbus.Error
	switch {
	case sc.leftAtReexec(err):
		// The daemon-reexec left the call unanswered (the bus said
		// NoReply): an unknown outcome, the connection is fine.
		sc.cnt.add("effect/reexec-left-call-unanswered", 1)
		sc.leftByReexec.Store(true)
	case !sc.faults.has(fDisconnect):
		sc.failf("%s on the %s Conn: %v, but nothing disconnected it", what, tc.kind, err)
	case !errors.As(err, &se):
		sc.failf("%s: %v is not an *sdbus.Error", what, err)
	default:
		tc.disc.Store(true)
	}
	return true
}

// leftAtReexec reports whether err is a call that a daemon-reexec left
// unanswered (the bus said NoReply), in a schedule with the reexec fault.
func (sc *schedule) leftAtReexec(err error) bool {
	var se *sdbus.Error
	return sc.faults.has(fReexec) && errors.As(err, &se) && se.Name == "org.freedesktop.DBus.Error.NoReply"
}

// checkWait judges a Wait for job j on tc against the oracle want: the
// result (with a *JobError matching ErrJobFailed unless it counts as
// success), or ErrDisconnected in a schedule that disconnects.
func (sc *schedule) checkWait(tc *tconn, j *sdbus.Job, want, res sdbus.JobResult, err error) {
	var je *sdbus.JobError
	switch {
	case err == nil:
		if res != want || !want.Succeeded() {
			sc.wrong(j, want, res, err)
			return
		}
	case errors.As(err, &je):
		if res != want || je.Result != want || want.Succeeded() || je.JobID != j.ID() || je.Unit != j.Unit() ||
			!errors.Is(err, sdbus.ErrJobFailed) {
			sc.wrong(j, want, res, err)
			return
		}
	case sc.disconnected(tc, "Wait "+j.Unit(), err):
		if res != "" {
			sc.wrong(j, want, res, err)
		}
		sc.cnt.add("disconnect/waits-ended", 1)
		return
	case sc.isHang(err):
		sc.hangf("Wait for job %d of %s on the %s Conn", j.ID(), j.Unit(), tc.kind)
		return
	default:
		sc.wrong(j, want, res, err)
		return
	}
	sc.cnt.add("result/"+string(want), 1)
}

func (sc *schedule) wrong(j *sdbus.Job, want, res sdbus.JobResult, err error) {
	sc.cnt.add("wrong/results", 1)
	sc.failf("WRONG RESULT: %s job %d: Wait = %q, %v; the oracle says %q", j.Unit(), j.ID(), res, err, want)
}

// callFailed judges a call that failed where it should not have: only a
// disconnect (in a schedule that has one) is acceptable.
func (sc *schedule) callFailed(tc *tconn, what string, err error) {
	switch {
	case sc.disconnected(tc, what, err):
		sc.cnt.add("disconnect/calls-ended", 1)
	case sc.isHang(err):
		sc.hangf("%s on the %s Conn", what, tc.kind)
	default:
		sc.failf("%s on the %s Conn: unexpected error %v", what, tc.kind, err)
	}
}

// checkAbandoned judges a Wait whose ctx ended while the job was certainly
// still queued: it must return that ctx's error, and nothing else.
func (sc *schedule) checkAbandoned(tc *tconn, j *sdbus.Job, res sdbus.JobResult, err, ctxErr error) {
	switch {
	case res == "" && isCallError(err, "Job.Wait", j.Unit(), ctxErr):
		sc.cnt.add("abandoned/waits", 1)
	case sc.disconnected(tc, "Wait "+j.Unit(), err):
		sc.cnt.add("disconnect/waits-ended", 1)
	default:
		sc.failf("abandoned Wait for %s job %d = %q, %v; want %v", j.Unit(), j.ID(), res, err, ctxErr)
	}
}

// expectDisconnected judges a Wait for a job queued for an hour in a
// schedule that drops the connections: only ErrDisconnected can end it.
func (sc *schedule) expectDisconnected(tc *tconn, j *sdbus.Job, res sdbus.JobResult, err error) {
	switch {
	case sc.isHang(err):
		sc.hangf("Wait for job %d of %s after the disconnect", j.ID(), j.Unit())
	case res != "" || !isCallError(err, "Job.Wait", j.Unit(), sdbus.ErrDisconnected):
		sc.failf("Wait for %s job %d after the disconnect = %q, %v; want ErrDisconnected", j.Unit(), j.ID(), res, err)
	default:
		tc.disc.Store(true)
		sc.cnt.add("disconnect/waits-ended", 1)
	}
}

// await polls cond until it holds. It gives up, returning false, when one
// of stop is closed or the schedule's deadline passes.
func (sc *schedule) await(cond func() bool, stop ...<-chan struct{}) bool {
	for {
		if cond() {
			return true
		}
		for _, s := range stop {
			select {
			case <-s:
				return cond()
			default:
			}
		}
		if sc.hang.Err() != nil {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// fakeJob returns the id of the unit's job in the fake, 0 if none.
func (sc *schedule) fakeJob(unit string) uint32 {
	info, ok := sc.srv.Unit(unit)
	if !ok {
		return 0
	}
	return info.JobID
}

// act is one actor of a schedule: it drives units of its own through one
// fault, with its own random source (not shared with its goroutines).
type act struct {
	*schedule
	r   *rand.Rand
	tag string
	n   int
}

func (a *act) pickConn() *tconn { return a.conns[a.r.Intn(len(a.conns))] }

// overlay returns a random subset of the schedule's signal faults to add
// to a unit's script. FaultJobRemovedBeforeReply holds the reply until
// the job ends, so it is left out for units whose actor needs the reply
// while the job is queued (or a delayed reply).
func (a *act) overlay(allowEarly bool) fakebus.Fault {
	var f fakebus.Fault
	if allowEarly && a.faults.has(fEarlyRemoved) && a.r.Intn(2) == 0 {
		f |= fakebus.FaultJobRemovedBeforeReply
	}
	if a.faults.has(fDuplicate) && a.r.Intn(2) == 0 {
		f |= fakebus.FaultDuplicateJobRemoved
	}
	if a.faults.has(fForged) && a.r.Intn(2) == 0 {
		f |= fakebus.FaultForgedJobRemoved
	}
	if a.faults.has(fForged) && a.r.Intn(2) == 0 {
		f |= fakebus.FaultWrongPathJobRemoved
	}
	if a.faults.has(fMalformed) && a.r.Intn(2) == 0 {
		f |= fakebus.FaultMalformedJobRemoved
	}
	return f
}

// unit makes a unit for the actor: a transient slice or (always when
// service is set) a unit-file service, scripted with script plus an
// overlay, and a result from the pool unless script has one. That result
// is the oracle.
func (a *act) unit(script fakebus.Script, allowEarly, service bool) *unitPlan {
	a.n++
	u := &unitPlan{name: fmt.Sprintf("fm_%s%d", a.tag, a.n), transient: !service && a.r.Intn(2) == 0}
	script.Faults |= a.overlay(allowEarly)
	if script.Result == "" {
		forges := script.Faults&(fakebus.FaultForgedJobRemoved|fakebus.FaultWrongPathJobRemoved) != 0
		for {
			script.Result = resultPool[a.r.Intn(len(resultPool))]
			if !forges || script.Result != sdbus.JobDone {
				break
			}
		}
	}
	u.want, u.script = script.Result, script
	if u.transient {
		u.name += ".slice"
	} else {
		u.name += ".service"
		if err := a.srv.AddUnitFile(fmServiceFile(u.name)); err != nil {
			a.failf("AddUnitFile: %v", err)
		}
	}
	if err := a.srv.Script(u.name, script); err != nil {
		a.failf("Script: %v", err)
	}
	return u
}

// start makes u's start call on tc.
func (a *act) start(ctx context.Context, tc *tconn, u *unitPlan) (*sdbus.Job, error) {
	var j *sdbus.Job
	var err error
	if u.transient {
		j, err = tc.c.StartTransientUnit(ctx, u.name, sdbus.ModeReplace, fmSliceProps())
	} else {
		j, err = tc.c.StartUnit(ctx, u.name, sdbus.ModeReplace)
	}
	if err == nil {
		a.cnt.add("jobs/started", 1)
		if j.Unit() != u.name || j.ID() == 0 || j.Path() != sdbus.JobPath(j.ID()) {
			a.failf("%s: job id %d path %s unit %s", u.name, j.ID(), j.Path(), j.Unit())
		}
	}
	return j, err
}

// startAndWait starts u's job and checks its result.
func (a *act) startAndWait(tc *tconn, u *unitPlan) {
	j, err := a.start(a.hang, tc, u)
	if err != nil {
		a.callFailed(tc, u.op()+" "+u.name, err)
		return
	}
	res, err := j.Wait(a.hang)
	a.checkWait(tc, j, u.want, res, err)
}

// fmReconnect is the reconnect policy of the matrix's reconnecting Conns.
func fmReconnect() sdbus.Option {
	return sdbus.WithReconnect(sdbus.ReconnectPolicy{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond})
}
