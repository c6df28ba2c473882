package sdbus

// Regression tests for the session's state machine that need its insides:
// each drives one transition, or one reaction to it, deterministically.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// systemd's natural order is reply, JobRemoved, then (on a disconnect)
// EOF: the result arrived before the end and must reach the caller that
// registers its path afterwards, not ErrDisconnected.
func TestResultThatArrivedSurvivesDisconnect(t *testing.T) {
	for _, cause := range []error{ErrDisconnected, ErrClosed} {
		t.Run(cause.Error(), func(t *testing.T) {
			tr := newJobTracker()
			const path = dbus.ObjectPath("/org/freedesktop/systemd1/job/7")
			ticket := tr.begin("a.service")
			tr.complete(jobRemoved{id: 7, path: path, unit: "a.service", result: JobDone})
			tr.fail(cause)
			st := tr.register(ticket, path, true)
			if !st.finished() || st.err != nil || st.result != JobDone {
				t.Fatalf("after the end: result %q, err %v; want done", st.result, st.err)
			}
			// A path nobody reported fails with the cause.
			st = tr.register(tr.begin("b.service"), "/org/freedesktop/systemd1/job/8", true)
			if !errors.Is(st.err, cause) {
				t.Errorf("unknown path after the end: err %v, want %v", st.err, cause)
			}
			if jobs, retired := tr.size(); jobs != 0 || retired != 0 {
				t.Errorf("tracked after every ticket ended: %d jobs, %d retired", jobs, retired)
			}
		})
	}
}

// A job call whose reply never comes keeps its ticket forever: tracking
// memory stays bounded all the same (the tickets in flight, and at most
// maxRetired finished entries).
func TestTrackingBoundedWhileOneCallNeverReturns(t *testing.T) {
	tr := newJobTracker()
	stuck := tr.begin("stuck.service") // never ends
	const n = 3 * maxRetired
	for i := 0; i < n; i++ {
		ticket := tr.begin("x.service")
		path := JobPath(uint32(i + 1))
		tr.complete(jobRemoved{id: uint32(i + 1), path: path, unit: "x.service", result: JobDone})
		if st := tr.register(ticket, path, true); st.result != JobDone {
			t.Fatalf("job %d: result %q", i, st.result)
		}
	}
	tr.mu.Lock()
	inFlight, retired, jobs := len(tr.inFlight), len(tr.retired), len(tr.jobs)
	tr.mu.Unlock()
	if inFlight != 1 || retired > maxRetired || jobs > maxRetired {
		t.Errorf("after %d jobs beside a stuck call: %d tickets in flight, %d retired, %d jobs; want 1, <= %d", n, inFlight, retired, jobs, maxRetired)
	}
	tr.end(stuck)
	if jobs, retired := tr.size(); jobs != 0 || retired != 0 {
		t.Errorf("after the stuck call ended: %d jobs, %d retired", jobs, retired)
	}
}

// A Reconcile that looks a job up does not count as a request for it: a
// late cancel on behalf of a caller who gave up still happens.
func TestObserverClaimDoesNotStopLateCancel(t *testing.T) {
	tr := newJobTracker()
	const path = dbus.ObjectPath("/org/freedesktop/systemd1/job/3")
	late := tr.begin("a.service")
	observer := tr.begin("a.service")
	tr.register(observer, path, false)
	st := tr.register(late, path, true)
	if !tr.soleClaim(st, "a.service", nil) {
		t.Error("soleClaim = false with one request and one observer; the late job would run")
	}
	merged := tr.begin("a.service")
	tr.register(merged, path, true)
	if tr.soleClaim(st, "a.service", nil) {
		t.Error("soleClaim = true with two requests; another caller's job would be canceled")
	}
}

func signal(sender, member string, seq dbus.Sequence, body ...any) *dbus.Signal {
	iface := managerIface
	path := managerPath
	if member == "PropertiesChanged" {
		iface, path = propsIface, UnitPath("a.service")
	}
	return &dbus.Signal{Sender: sender, Path: path, Name: iface + "." + member, Body: body, Sequence: seq}
}

// systemd 262 releases org.freedesktop.systemd1 on daemon-reexec; its new
// instance may send JobRemoved from its new unique name before it owns the
// name again. Such a result is held and delivered when that sender becomes
// the owner; one from anybody else (forged) never is.
func TestResultSentBeforeNameReacquiredIsDelivered(t *testing.T) {
	c := newConn(newConfig(nil), "test")
	s := c.newSession()
	const old, reexeced, forger = ":1.1", ":1.7", ":1.9"
	s.setOwner(old, 1)
	ticket := s.jobs.begin("a.service")
	st := s.jobs.register(ticket, JobPath(5), true)
	forgedSt := s.jobs.register(s.jobs.begin("b.service"), JobPath(6), true)

	deliver := func(sig *dbus.Signal) {
		signalHandler{s}.DeliverSignal(interfaceOf(sig.Name), memberOf(sig.Name), sig)
	}
	owner := func(from, to string, seq dbus.Sequence) *dbus.Signal {
		return &dbus.Signal{Sender: busName, Path: busPath, Name: busName + ".NameOwnerChanged",
			Body: []any{systemdName, from, to}, Sequence: seq}
	}
	deliver(owner(old, "", 2))
	deliver(signal(forger, "JobRemoved", 3, uint32(6), JobPath(6), "b.service", "done"))
	deliver(signal(reexeced, "JobRemoved", 4, uint32(5), JobPath(5), "a.service", "done"))
	if st.finished() {
		t.Fatal("a result from a sender that does not own the name was taken at once")
	}
	deliver(owner("", reexeced, 5))
	if !st.finished() || st.result != JobDone {
		t.Errorf("after the new instance took the name: finished %v, result %q; want done", st.finished(), st.result)
	}
	if forgedSt.finished() {
		t.Errorf("the forger's JobRemoved was delivered: result %q", forgedSt.result)
	}
	// Once owned, only the owner is heard.
	deliver(signal(forger, "JobRemoved", 6, uint32(6), JobPath(6), "b.service", "done"))
	if forgedSt.finished() {
		t.Error("a JobRemoved from a non-owner was delivered while the name is owned")
	}
}

// While the name has no owner, at most maxHeld signals are held.
func TestHeldSignalsBounded(t *testing.T) {
	c := newConn(newConfig(nil), "test")
	s := c.newSession()
	for i := 0; i < 3*maxHeld; i++ {
		s.admit(signal(":1.5", "JobRemoved", dbus.Sequence(i+1), uint32(i), JobPath(uint32(i)), "a.service", "done"))
	}
	if got := len(s.held); got != maxHeld {
		t.Errorf("held %d signals, want %d", got, maxHeld)
	}
	out, _ := s.setOwner(":1.5", dbus.Sequence(3*maxHeld+1))
	if len(out) != maxHeld || out[len(out)-1].Sequence != dbus.Sequence(3*maxHeld) {
		t.Errorf("replayed %d signals, last %v; want the newest %d", len(out), out[len(out)-1].Sequence, maxHeld)
	}
}

func unitChange(active, sub string) map[string]dbus.Variant {
	return map[string]dbus.Variant{"ActiveState": dbus.MakeVariant(active), "SubState": dbus.MakeVariant(sub)}
}

// However many changes arrive while the snapshot is read, the watch ends
// up with the newest state, never stuck on an older one.
func TestWatchKeepsNewestStateAfterBurst(t *testing.T) {
	for _, n := range []int{1, 255, 256, 257, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := &unitWatch{path: UnitPath("a.service"), typeIface: unitTypeIface("a.service"),
				notify: make(chan struct{}, 1), snap: map[string]dbus.Sequence{}, early: map[earlyKey]earlyValue{}}
			states := []string{"activating", "active", "deactivating", "inactive"}
			for i := 0; i < n; i++ {
				st := states[i%len(states)]
				w.signal(signal(":1.1", "PropertiesChanged", dbus.Sequence(10+i), unitIface, unitChange(st, st), []string{}))
			}
			// The snapshot was read at sequence 5, before every change.
			um := map[string]dbus.Variant{"Id": dbus.MakeVariant("a.service"), "LoadState": dbus.MakeVariant("loaded")}
			for k, v := range unitChange("inactive", "dead") {
				um[k] = v
			}
			w.applySnapshot(um, 5, map[string]dbus.Variant{"Result": dbus.MakeVariant("success")}, 6)
			newest := states[(n-1)%len(states)]
			want := UnitState{Name: "a.service", LoadState: LoadLoaded, ActiveState: ActiveState(newest), SubState: newest, Result: "success"}
			if diff := cmp.Diff(want, w.pending[len(w.pending)-1]); diff != "" {
				t.Errorf("state after %d early changes (-want +got):\n%s", n, diff)
			}
		})
	}
}

// States that arrived before the connection ended are handed to the
// reader before the channel closes.
func TestWatchDeliversStatesBeforeEnd(t *testing.T) {
	w := &unitWatch{notify: make(chan struct{}, 1)}
	for _, st := range []ActiveState{StateActivating, StateActive} {
		w.cur.ActiveState = st
		w.queueLocked(false)
	}
	w.gone = ErrDisconnected
	out := make(chan UnitState)
	go func() {
		w.pump(context.Background(), out, make(chan struct{}))
		close(out)
	}()
	var got []ActiveState
	for st := range out {
		got = append(got, st.ActiveState)
	}
	if diff := cmp.Diff([]ActiveState{StateActivating, StateActive}, got); diff != "" {
		t.Errorf("states delivered after the end (-want +got):\n%s", diff)
	}
}

// An answer asked before a reconnect installed a new session is not
// cached: it may describe the manager before a re-execution.
func TestProbeAnsweredBeforeReconnectNotCached(t *testing.T) {
	c := newConn(newConfig(nil), "test")
	gen := c.gen
	c.gen++ // a reconnect installed a new session meanwhile
	c.cacheIfCurrent(gen, func() { c.version, c.versionOK = Version{Major: 1}, true })
	if c.versionOK {
		t.Error("an answer from before the reconnect was cached")
	}
	c.cacheIfCurrent(c.gen, func() { c.version, c.versionOK = Version{Major: 2}, true })
	if !c.versionOK || c.version.Major != 2 {
		t.Errorf("a current answer was not cached: %+v", c.version)
	}
}

// A message godbus refuses to encode never left: the refusal is the
// caller's error (ErrInvalidArgs), not a transport failure, so it neither
// ends the connection nor makes a call be sent again — also for a value
// that slipped past checkWire.
func TestEncodingRefusalIsCallerError(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	go func() { _, _ = io.Copy(io.Discard, server) }()
	bus, err := dbus.NewConn(client)
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	obj := bus.Object(systemdName, managerPath)
	for _, arg := range []any{"caf\xe9", []string{"a\x00b"}, dbus.ObjectPath("not/a/path"), dbus.MakeVariant("\xff")} {
		err := storeCall(obj.Call(managerIface+".Anything", 0, arg))
		if transportError(err) || !notSent(err) {
			t.Errorf("%q: %v counts as a transport failure or as sent", arg, err)
		}
		if got := callError("Op", "", err, ErrDisconnected); !errors.Is(got, ErrInvalidArgs) {
			t.Errorf("%q: callError = %v, want ErrInvalidArgs", arg, got)
		}
	}
	if !bus.Connected() {
		t.Error("the connection ended")
	}
}

// More changes than WatchUnits can keep while it lists the units make it
// list them again (the new list covers what was dropped); changes newer
// than the list are applied on top of it, older ones are not.
func TestWatchUnitsSnapshotAfterEarlyOverflow(t *testing.T) {
	newWatch := func() *allWatch {
		return &allWatch{match: func(string) bool { return true }, matched: map[string]bool{}, notify: make(chan struct{}, 1),
			units: map[dbus.ObjectPath]*watchedUnit{}, queued: map[dbus.ObjectPath]bool{}}
	}
	path := UnitPath("a.service")
	change := func(seq dbus.Sequence, sub string) *dbus.Signal {
		sig := signal(":1.1", "PropertiesChanged", seq, unitIface,
			map[string]dbus.Variant{"ActiveState": dbus.MakeVariant("active"), "SubState": dbus.MakeVariant(sub)}, []string{})
		sig.Name, sig.Path = propsIface+".PropertiesChanged", path
		return sig
	}
	rows := []unitStatusWire{{Name: "a.service", LoadState: "loaded", ActiveState: "activating", SubState: "start", Path: path}}

	w := newWatch()
	for i := 0; i <= maxEarly; i++ {
		w.signal(change(dbus.Sequence(i+1), "old"))
	}
	if w.applySnapshot(rows, dbus.Sequence(maxEarly+1)) {
		t.Fatal("the snapshot was applied although early changes were dropped")
	}

	w = newWatch()
	w.signal(change(5, "older-than-list"))
	w.signal(change(20, "newer-than-list"))
	if !w.applySnapshot(rows, 10) {
		t.Fatal("the snapshot was not applied")
	}
	got := w.units[path].ev
	if got.ActiveState != StateActive || got.SubState != "newer-than-list" || len(w.order) != 1 {
		t.Errorf("after the snapshot: %+v, %d queued; want active/newer-than-list once", got, len(w.order))
	}
}

// checkWire is on every call's path: valid arguments cost no allocation
// (the path of a fault is built only when there is one).
func TestCheckWireAllocatesNothingForValidArgs(t *testing.T) {
	props, err := encodeProperties("StartTransientUnit", "a.service", []Property{
		PropDescription("d"), PropExecStart([]string{"/bin/true", "x"}, false), PropDefaultDependencies(false)})
	if err != nil {
		t.Fatal(err)
	}
	args := []any{"a.service", "replace", props, []auxUnitWire{}}
	names := wireArgNames("StartTransientUnit")
	if n := testing.AllocsPerRun(100, func() {
		if err := checkWire("StartTransientUnit", "a.service", names, args); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("checkWire allocates %v times per call on valid arguments, want 0", n)
	}
}

// The backoff after n failed attempts in a row: MinDelay doubled n-1
// times, at most MaxDelay, without overflow.
func TestReconnectBackoff(t *testing.T) {
	p := ReconnectPolicy{MinDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	huge := ReconnectPolicy{MinDelay: time.Hour, MaxDelay: math.MaxInt64}
	for _, tc := range []struct {
		p      ReconnectPolicy
		failed int
		want   time.Duration
	}{
		{p, 1, 100 * time.Millisecond},
		{p, 2, 200 * time.Millisecond},
		{p, 3, 400 * time.Millisecond},
		{p, 4, 800 * time.Millisecond},
		{p, 5, time.Second},
		{p, 1000, time.Second},
		{huge, 2, 2 * time.Hour},
		{huge, 1000, math.MaxInt64},
	} {
		t.Run(fmt.Sprintf("%v..%v/%d", tc.p.MinDelay, tc.p.MaxDelay, tc.failed), func(t *testing.T) {
			if got := tc.p.backoff(tc.failed); got != tc.want {
				t.Errorf("backoff(%d) = %v, want %v", tc.failed, got, tc.want)
			}
		})
	}
}

// A session is stable when it ended StableAfter or more after it was
// installed; one that ended sooner, or was never installed, is not.
func TestSessionStable(t *testing.T) {
	at := time.Now()
	for _, tc := range []struct {
		name             string
		installed, ended time.Time
		want             bool
	}{
		{"lasted StableAfter", at, at.Add(time.Second), true},
		{"lasted longer", at, at.Add(time.Hour), true},
		{"ended sooner", at, at.Add(time.Second - 1), false},
		{"ended before install", at, at.Add(-time.Millisecond), false},
		{"never installed", time.Time{}, at, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{installed: tc.installed, endedAt: tc.ended}
			if got := s.stable(time.Second); got != tc.want {
				t.Errorf("stable = %v, want %v", got, tc.want)
			}
		})
	}
}

// jitter spreads a delay by ±50% for every Duration, the largest
// included: no panic, no negative or overflowed delay.
func TestJitterBounds(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, 0, 1, 2, 3, 100 * time.Millisecond, time.Hour,
		math.MaxInt64 / 3 * 2, math.MaxInt64/3*2 + 12345, math.MaxInt64 - 1, math.MaxInt64} {
		t.Run(fmt.Sprint(int64(d)), func(t *testing.T) {
			lo, hi := d/2, d+d/2
			if d <= 0 {
				lo, hi = 0, 0
			}
			if hi < d { // d+d/2 overflowed
				hi = math.MaxInt64
			}
			for i := 0; i < 1000; i++ {
				if got := jitter(d); got < lo || got > hi {
					t.Fatalf("jitter(%d) = %d, want within [%d, %d]", int64(d), int64(got), int64(lo), int64(hi))
				}
			}
		})
	}
}

// A result systemd sent is never dropped at a daemon-reexec. The soak saw
// it on 262: a forgotten job's JobRemoved ("done") went out on the bus
// (a witness client saw it) and the Conn never delivered it. The two
// ways a session could drop one: sent by the old instance after it
// released the name (262 releases it before it stops sending), or by
// the new one before it owns the name, then pushed out of the held
// signals by a flood of unit changes (a subscribed Conn). Forgers stay
// unheard.
func TestSystemdResultNeverDroppedAtReexec(t *testing.T) {
	deliver := func(s *session, sig *dbus.Signal) {
		signalHandler{s}.DeliverSignal(interfaceOf(sig.Name), memberOf(sig.Name), sig)
	}
	owner := func(from, to string, seq dbus.Sequence) *dbus.Signal {
		return &dbus.Signal{Sender: busName, Path: busPath, Name: busName + ".NameOwnerChanged",
			Body: []any{systemdName, from, to}, Sequence: seq}
	}
	const old, reexeced, forger = ":1.1", ":1.7", ":1.9"
	t.Run("from the old instance after it released the name", func(t *testing.T) {
		s := newConn(newConfig(nil), "test").newSession()
		s.setOwner(old, 1)
		st := s.jobs.register(s.jobs.begin("a.service"), JobPath(5), true)
		late := s.jobs.register(s.jobs.begin("c.service"), JobPath(7), true)
		forged := s.jobs.register(s.jobs.begin("b.service"), JobPath(6), true)
		deliver(s, owner(old, "", 2))
		deliver(s, signal(old, "JobRemoved", 3, uint32(5), JobPath(5), "a.service", "done"))
		deliver(s, signal(forger, "JobRemoved", 4, uint32(6), JobPath(6), "b.service", "done"))
		deliver(s, owner("", reexeced, 5))
		// Even after the new instance owns the name, the old one's word
		// on a job it ended counts.
		deliver(s, signal(old, "JobRemoved", 6, uint32(7), JobPath(7), "c.service", "failed"))
		if !st.finished() || st.result != JobDone {
			t.Errorf("the old instance's JobRemoved after it released the name: finished %v, result %q; want done", st.finished(), st.result)
		}
		if !late.finished() || late.result != JobFailed {
			t.Errorf("the old instance's JobRemoved after the new one took the name: finished %v, result %q; want failed", late.finished(), late.result)
		}
		if forged.finished() {
			t.Errorf("the forger's JobRemoved was delivered: %q", forged.result)
		}
	})
	t.Run("from the new instance before the old one's connection closed", func(t *testing.T) {
		// Seen in a 30-minute soak on 262: the witness saw :1.120 send
		// JobRemoved while :1.119 still owned the name.
		s := newConn(newConfig(nil), "test").newSession()
		s.setOwner(old, 1)
		st := s.jobs.register(s.jobs.begin("a.service"), JobPath(5), true)
		forged := s.jobs.register(s.jobs.begin("b.service"), JobPath(6), true)
		deliver(s, signal(reexeced, "JobRemoved", 2, uint32(5), JobPath(5), "a.service", "done"))
		deliver(s, signal(forger, "JobRemoved", 3, uint32(6), JobPath(6), "b.service", "done"))
		deliver(s, owner(old, "", 4))
		deliver(s, owner("", reexeced, 5))
		if !st.finished() || st.result != JobDone {
			t.Errorf("the new instance's JobRemoved before the old one left: finished %v, result %q; want done", st.finished(), st.result)
		}
		if forged.finished() {
			t.Errorf("the forger's JobRemoved was delivered: %q", forged.result)
		}
	})
	t.Run("from the new instance under a flood of unit changes", func(t *testing.T) {
		s := newConn(newConfig(nil), "test").newSession()
		s.setOwner(old, 1)
		st := s.jobs.register(s.jobs.begin("a.service"), JobPath(5), true)
		deliver(s, owner(old, "", 2))
		deliver(s, signal(reexeced, "JobRemoved", 3, uint32(5), JobPath(5), "a.service", "done"))
		for i := 0; i < 3*maxHeld; i++ {
			deliver(s, signal(reexeced, "PropertiesChanged", dbus.Sequence(4+i), unitIface, unitChange("active", "running"), []string{}))
		}
		deliver(s, owner("", reexeced, dbus.Sequence(4+3*maxHeld)))
		if !st.finished() || st.result != JobDone {
			t.Errorf("a JobRemoved held under %d unit changes: finished %v, result %q; want done", 3*maxHeld, st.finished(), st.result)
		}
	})
}
