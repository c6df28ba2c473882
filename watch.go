package sdbus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// UnitState is a unit's state as WatchUnit reports it.
type UnitState struct {
	Name        string
	LoadState   LoadState
	ActiveState ActiveState
	SubState    string
	// Result is the Result property of the unit's type interface
	// (Service, Scope, Socket, Mount, ...): "success", "exit-code",
	// "oom-kill", .... It is empty for types without one (slices,
	// targets).
	Result string
	// JobID is the unit's queued job, 0 when there is none.
	JobID uint32
}

// watchBuffer is how many states a watch keeps for a slow reader before it
// coalesces (drops the oldest undelivered state).
const watchBuffer = 16

// WatchUnit reports the state of a unit now and whenever it changes, until
// ctx ends or the connection closes; then the channel is closed. States
// that arrived before the connection ended are delivered first. A
// reconnecting Conn does not resume watches: watch again.
//
// It is driven by systemd's PropertiesChanged signals on the unit's path,
// not by polling. An alias (sshd.service for ssh.service) is followed on
// its unit's primary path, which LoadUnit returns, and the states carry
// the primary name. The match rule is installed and the watch registered
// before the current state is read, and signal sequence numbers order each
// change against that read, so no change between the two is lost or
// applied twice: for each property, the newest value that arrived during
// the read is applied on top of it. The first value is the current state.
//
// Coalescing: signal dispatch never waits for the reader. Up to 16 states
// the reader has not taken yet are buffered (besides the one being handed
// over); beyond that the oldest undelivered state is dropped, so a slow
// reader sees fewer intermediate states but always the most recent one. A
// change that does not alter any UnitState field is not reported.
//
// Unloading is not a change WatchUnit reports: systemd announces it with
// UnitRemoved only, and reading the state of a unit that is not loaded
// loads it again. WatchUnits reports it, as an event with Removed set; to
// wait for a unit to be unloaded, start WatchUnits and then ask GetUnit,
// which fails with ErrNoSuchUnit once the unit is gone.
func (c *Conn) WatchUnit(ctx context.Context, name string) (<-chan UnitState, error) {
	const op = "WatchUnit"
	if err := checkUnitName(op, name); err != nil {
		return nil, err
	}
	s, err := c.current(ctx, op, name)
	if err != nil {
		return nil, err
	}
	// systemd broadcasts unit changes only while somebody is subscribed.
	sent := s.ownerMark()
	if err := s.subscribe(ctx); err != nil {
		return nil, c.opError(s, sent, "Subscribe", name, err, true)
	}
	ok := false
	defer func() {
		if !ok {
			s.unsubscribe()
		}
	}()
	// systemd sends PropertiesChanged on the object path of the unit's
	// primary name only; for an alias (sshd.service for ssh.service,
	// dbus-org.*) LoadUnit returns that path.
	var path dbus.ObjectPath
	sent = s.ownerMark()
	if err := storeCall(s.mgr.CallWithContext(ctx, managerIface+".LoadUnit", c.flags(), name), &path); err != nil {
		return nil, c.opError(s, sent, "LoadUnit", name, err, true)
	}
	matchOpts := []dbus.MatchOption{
		// No sender: see the JobRemoved rule in setup.
		dbus.WithMatchObjectPath(path),
		dbus.WithMatchInterface(propsIface), dbus.WithMatchMember("PropertiesChanged"),
	}
	if !s.p2p {
		if err := s.bus.AddMatchSignalContext(ctx, matchOpts...); err != nil {
			return nil, c.opError(s, ownerMark{}, "AddMatch", name, err, true)
		}
	}
	w := &unitWatch{path: path, typeIface: unitTypeIface(name), notify: make(chan struct{}, 1),
		snap: map[string]dbus.Sequence{}, early: map[earlyKey]earlyValue{}}
	removeMatch := func() {
		if s.p2p {
			return
		}
		rctx, cancel := context.WithTimeout(s.bus.Context(), 5*time.Second)
		defer cancel()
		_ = s.bus.RemoveMatchSignalContext(rctx, matchOpts...)
	}
	if err := s.watches.add(w); err != nil {
		removeMatch()
		return nil, &Error{Op: op, Unit: name, Err: err}
	}
	if err := c.snapshot(ctx, s, w, name); err != nil {
		s.watches.remove(w)
		removeMatch()
		return nil, err
	}
	out := make(chan UnitState)
	if !c.goTracked(func() {
		defer s.unsubscribe()
		defer removeMatch()
		defer s.watches.remove(w)
		defer close(out)
		w.pump(ctx, out, c.stop.Done())
	}) {
		s.watches.remove(w)
		return nil, &Error{Op: op, Unit: name, Err: ErrClosed}
	}
	ok = true
	return out, nil
}

// WaitUnitState waits until the unit's state satisfies pred and returns
// that state. It checks the current state first, then every change (see
// WatchUnit). For example, to wait until a unit has stopped:
//
//	st, err := c.WaitUnitState(ctx, "x.service", func(s sdbus.UnitState) bool {
//		return s.ActiveState == sdbus.StateInactive || s.ActiveState == sdbus.StateFailed
//	})
//
// Do not use it to wait for the outcome of a job you just queued: the
// current state is the state from before the job ran. Right after
// RestartUnit, a predicate such as "active or failed" holds at once, for
// the old run, even when the restart then fails. Wait for the state after
// the job with Job.WaitUnitState instead:
//
//	job, err := c.RestartUnit(ctx, "x.service", sdbus.ModeReplace)
//	if err != nil {
//		return err
//	}
//	st, err := job.WaitUnitState(ctx, func(s sdbus.UnitState) bool {
//		return s.ActiveState == sdbus.StateActive || s.ActiveState == sdbus.StateFailed
//	})
//
// When ctx ends first, the error matches ctx.Err() and the last state
// seen is returned with it.
func (c *Conn) WaitUnitState(ctx context.Context, name string, pred func(UnitState) bool) (UnitState, error) {
	return c.waitUnitState(ctx, "WaitUnitState", name, pred)
}

func (c *Conn) waitUnitState(ctx context.Context, op, name string, pred func(UnitState) bool) (UnitState, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := c.WatchUnit(ctx, name)
	if err != nil {
		return UnitState{}, err
	}
	var last UnitState
	seen := false
	for st := range ch {
		if pred == nil || pred(st) {
			return st, nil
		}
		last, seen = st, true
	}
	msg := "no state read"
	if seen {
		msg = fmt.Sprintf("gave up waiting; the unit is %s (%s)", last.ActiveState, last.SubState)
	}
	if err := ctx.Err(); err != nil {
		return last, &Error{Op: op, Unit: name, Message: msg, Err: err}
	}
	return last, &Error{Op: op, Unit: name, Message: msg, Err: c.goneErr()}
}

// WaitUnitState waits for the job to end, then until its unit's state
// satisfies pred, and returns that state. Only states read after the
// job's JobRemoved arrived count: never the state the unit had before the
// job ran (see Conn.WaitUnitState for that race). A nil pred takes the
// first state after the job.
//
// When the job does not succeed, the unit's state after it is returned
// (pred is not consulted) with an error that wraps the *JobError and
// matches ErrJobFailed. A job that succeeded says only that the unit got
// there: a service can fail a moment after its start job is done (a
// Type=simple service whose program exits at once), which is what pred is
// for ("active and running, or failed").
//
// When ctx ends first, the error matches ctx.Err() and says whether the
// job was still running (it is left to run; Job.Cancel stops it); when
// the connection ends, ErrDisconnected or ErrClosed.
func (j *Job) WaitUnitState(ctx context.Context, pred func(UnitState) bool) (UnitState, error) {
	const op = "Job.WaitUnitState"
	if !j.valid() {
		return UnitState{}, errNoJob(op)
	}
	_, werr := j.Wait(ctx)
	var jobErr *JobError
	switch {
	case errors.As(werr, &jobErr):
		pred = nil
	case werr != nil:
		var e *Error
		if errors.As(werr, &e) {
			return UnitState{}, &Error{Op: op, Unit: j.unit, Message: e.Message, Err: e.Err}
		}
		return UnitState{}, &Error{Op: op, Unit: j.unit, Err: werr}
	}
	st, err := j.c.waitUnitState(ctx, op, j.unit, pred)
	var e *Error
	if err != nil && errors.As(err, &e) && e.Op == op {
		e.Message = fmt.Sprintf("job %d ended (%s); %s", j.id, j.st.result, e.Message)
	}
	if err != nil || jobErr == nil {
		return st, err
	}
	return st, &Error{Op: op, Unit: j.unit, Message: fmt.Sprintf("the unit is %s (%s) after the job", st.ActiveState, st.SubState), Err: jobErr}
}

// snapshot reads the current state into w, recording the reply sequences
// so that older signals are not applied on top.
func (c *Conn) snapshot(ctx context.Context, s *session, w *unitWatch, name string) error {
	read := func(iface string) (map[string]dbus.Variant, dbus.Sequence, error) {
		sent := s.ownerMark()
		call := s.bus.Object(systemdName, w.path).CallWithContext(ctx, propsIface+".GetAll", c.flags(), iface)
		var m map[string]dbus.Variant
		if err := call.Store(&m); err != nil {
			return nil, 0, c.opError(s, sent, "GetAll "+iface, name, err, true)
		}
		return m, call.ResponseSequence, nil
	}
	um, useq, err := read(unitIface)
	if err != nil {
		return err
	}
	var tm map[string]dbus.Variant
	var tseq dbus.Sequence
	if w.typeIface != "" {
		if tm, tseq, err = read(w.typeIface); err != nil {
			return err
		}
	}
	w.applySnapshot(um, useq, tm, tseq)
	return nil
}

// applySnapshot applies the snapshot replies (the Unit interface's, read
// at sequence useq, and the type interface's, at tseq) and, on top of
// them, the changes that arrived while they were read and are newer,
// each property at its newest value; then it queues the first state.
func (w *unitWatch) applySnapshot(um map[string]dbus.Variant, useq dbus.Sequence, tm map[string]dbus.Variant, tseq dbus.Sequence) {
	w.mu.Lock()
	w.applyLocked(um)
	w.snap[unitIface] = useq
	if w.typeIface != "" {
		w.applyLocked(tm)
		w.snap[w.typeIface] = tseq
	}
	newer := map[string]dbus.Variant{}
	for k, e := range w.early {
		if e.seq > w.snap[k.iface] {
			newer[k.prop] = e.v
		}
	}
	w.applyLocked(newer)
	w.early = nil
	w.queueLocked(true)
	w.mu.Unlock()
	w.wake()
}

// unitTypeIface returns the D-Bus interface that carries a unit type's
// Result, or "" for types without one (slices, targets, devices).
func unitTypeIface(name string) string {
	switch t, _ := UnitTypeOf(name); t {
	case UnitTypeService, UnitTypeScope, UnitTypeSocket, UnitTypeMount, UnitTypeAutomount,
		UnitTypeSwap, UnitTypeTimer, UnitTypePath:
		return typeInterface(t)
	}
	return ""
}

// unitWatch is one WatchUnit.
type unitWatch struct {
	path      dbus.ObjectPath
	typeIface string
	notify    chan struct{} // capacity 1: "pending has states"

	// mu guards the fields below.
	mu  sync.Mutex
	cur UnitState
	// snap holds, per interface, the sequence of the snapshot reply once
	// it has been applied; signals up to it are already in the snapshot.
	snap map[string]dbus.Sequence
	// early holds, until the snapshot is applied, the newest value of
	// each property UnitState is made of that signals changed, with the
	// signal's sequence: bounded by the number of such properties, however
	// many signals arrive, and always the newest state.
	early   map[earlyKey]earlyValue
	pending []UnitState // states not yet taken by pump, oldest first
	last    UnitState   // the newest state queued
	queued  bool        // last is valid
	gone    error       // the connection ended
}

type earlyKey struct{ iface, prop string }

type earlyValue struct {
	v   dbus.Variant
	seq dbus.Sequence
}

// stateProps are the properties UnitState is made of, per interface
// (Result on the unit type's interface).
func stateProp(iface, prop string, typeIface string) bool {
	if iface == unitIface {
		switch prop {
		case "Id", "LoadState", "ActiveState", "SubState", "Job":
			return true
		}
		return false
	}
	return iface == typeIface && prop == "Result"
}

// applyLocked merges changed properties of the Unit or type interface.
func (w *unitWatch) applyLocked(changed map[string]dbus.Variant) {
	d := propDecoder{m: changed}
	d.str("Id", &w.cur.Name)
	applyState(&w.cur, changed)
}

// applyState merges the changed properties a UnitState is made of (of the
// Unit interface, and Result of the type interface) into st; others are
// ignored, and so are values of the wrong type.
func applyState(st *UnitState, changed map[string]dbus.Variant) {
	d := propDecoder{m: changed}
	d.typed("LoadState", (*string)(&st.LoadState))
	d.typed("ActiveState", (*string)(&st.ActiveState))
	d.str("SubState", &st.SubState)
	d.str("Result", &st.Result)
	if v, ok := changed["Job"]; ok {
		var job struct {
			ID   uint32
			Path dbus.ObjectPath
		}
		if dbus.Store([]any{v.Value()}, &job) == nil {
			st.JobID = job.ID
		}
	}
}

// queueLocked appends the current state for the reader if it differs from
// the last one queued (always when force is set). It reports whether it
// did; the caller then wakes the pump, after unlocking.
func (w *unitWatch) queueLocked(force bool) bool {
	if !force && w.queued && w.last == w.cur {
		return false
	}
	if len(w.pending) == watchBuffer {
		copy(w.pending, w.pending[1:])
		w.pending = w.pending[:watchBuffer-1]
	}
	w.pending = append(w.pending, w.cur)
	w.last, w.queued = w.cur, true
	return true
}

// wake tells the pump that states are queued. It never blocks: notify
// holds at most one pending wake-up.
func (w *unitWatch) wake() {
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// signal applies one PropertiesChanged. Called by the signal handler.
func (w *unitWatch) signal(s *dbus.Signal) {
	if len(s.Body) != 3 {
		return
	}
	iface, ok1 := s.Body[0].(string)
	changed, ok2 := s.Body[1].(map[string]dbus.Variant)
	if !ok1 || !ok2 || (iface != unitIface && iface != w.typeIface) {
		return
	}
	w.mu.Lock()
	snap, ok := w.snap[iface]
	switch {
	case !ok:
		for prop, v := range changed {
			if stateProp(iface, prop, w.typeIface) {
				k := earlyKey{iface, prop}
				if e, seen := w.early[k]; !seen || e.seq <= s.Sequence {
					w.early[k] = earlyValue{v, s.Sequence}
				}
			}
		}
		w.mu.Unlock()
		return
	case s.Sequence <= snap && s.Sequence != dbus.NoSequence:
		// The snapshot already has it.
		w.mu.Unlock()
		return
	}
	w.applyLocked(changed)
	queued := w.queueLocked(false)
	w.mu.Unlock()
	if queued {
		w.wake()
	}
}

// pump hands queued states to out, one at a time, until ctx ends or the
// Conn is closed; when the connection has ended it first hands over every
// state that arrived before the end, then returns.
func (w *unitWatch) pump(ctx context.Context, out chan<- UnitState, closed <-chan struct{}) {
	pumpEvents(ctx, out, closed, w.notify, func() (st UnitState, have, gone bool) {
		// One state at a time: the rest stay in pending, where the
		// coalescing bound applies.
		w.mu.Lock()
		defer w.mu.Unlock()
		if have = len(w.pending) > 0; have {
			st = w.pending[0]
			w.pending = w.pending[1:]
		}
		return st, have, w.gone != nil
	})
}

// pumpEvents is the reader side of a watch: it hands what next takes from
// the watch to out, one at a time, until ctx ends or closed is closed;
// when nothing is left it waits for notify, or returns if the connection
// has ended (gone), so what arrived before the end is delivered first.
func pumpEvents[T any](ctx context.Context, out chan<- T, closed, notify <-chan struct{}, next func() (v T, have, gone bool)) {
	for {
		v, have, gone := next()
		if have {
			select {
			case out <- v:
				continue
			case <-ctx.Done():
				return
			case <-closed:
				return
			}
		}
		if gone {
			return
		}
		select {
		case <-notify:
		case <-ctx.Done():
			return
		case <-closed:
			return
		}
	}
}

// watchSet routes unit signals to watches: PropertiesChanged to the
// WatchUnit watches of its object path, and it, UnitNew and UnitRemoved
// to every WatchUnits stream.
type watchSet struct {
	// mu guards byPath, all and gone.
	mu     sync.Mutex
	byPath map[dbus.ObjectPath][]*unitWatch
	all    []*allWatch
	gone   error
}

func (s *watchSet) addAll(w *allWatch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone != nil {
		return s.gone
	}
	s.all = append(s.all, w)
	return nil
}

func (s *watchSet) removeAll(w *allWatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.all {
		if x == w {
			s.all = append(s.all[:i:i], s.all[i+1:]...)
			return
		}
	}
}

func newWatchSet() *watchSet { return &watchSet{byPath: make(map[dbus.ObjectPath][]*unitWatch)} }

func (s *watchSet) add(w *unitWatch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone != nil {
		return s.gone
	}
	s.byPath[w.path] = append(s.byPath[w.path], w)
	return nil
}

func (s *watchSet) remove(w *unitWatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.byPath[w.path]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(s.byPath, w.path)
	} else {
		s.byPath[w.path] = ws
	}
}

func (s *watchSet) deliver(sig *dbus.Signal) {
	s.mu.Lock()
	var ws []*unitWatch
	if sig.Name == propsIface+".PropertiesChanged" {
		ws = s.byPath[sig.Path]
	}
	all := s.all
	s.mu.Unlock()
	for _, w := range ws {
		w.signal(sig)
	}
	for _, w := range all {
		w.signal(sig)
	}
}

func (s *watchSet) fail(err error) {
	s.mu.Lock()
	if s.gone == nil {
		s.gone = err
	}
	var all []*unitWatch
	for _, ws := range s.byPath {
		all = append(all, ws...)
	}
	streams := s.all
	s.mu.Unlock()
	for _, w := range all {
		w.mu.Lock()
		w.gone = err
		w.mu.Unlock()
		w.wake()
	}
	for _, w := range streams {
		w.mu.Lock()
		w.gone = err
		w.mu.Unlock()
		w.wake()
	}
}
