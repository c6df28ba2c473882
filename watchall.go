package sdbus

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// UnitEvent is a change of one unit, as WatchUnits reports it.
type UnitEvent struct {
	UnitState
	// Removed is set when the manager unloaded the unit (UnitRemoved);
	// the other fields then hold its last known state.
	Removed bool
}

// unitPathPrefix is the object path every unit lives under.
const unitPathPrefix = "/org/freedesktop/systemd1/unit"

// WatchUnits reports the state of every loaded unit whose name match
// accepts (every unit when match is nil), then each change of such a
// unit, until ctx ends or the connection closes; then the channel is
// closed, after the events that arrived before the connection ended. It is
// the signal-driven replacement of go-systemd's SubscribeUnits and
// subscription sets: no polling.
//
// The first events are the state of each matching unit as ListUnits
// reports it; the match rules are in place before that list is read and
// signal sequence numbers order each change against it, so no change is
// lost or applied twice. A unit loaded later is reported when it appears
// (UnitNew) or changes; an unloaded one with Removed set. Result is filled
// in from the changes of the unit type's Result property only (ListUnits
// does not carry it).
//
// Coalescing: signal dispatch never waits for the reader. Each unit has at
// most one event waiting, always its newest state, so a slow reader sees
// fewer intermediate states of a busy unit but never a stale one, and what
// is waiting is bounded by the number of units the manager has loaded.
//
// match runs on the stream's own goroutine, once per unit name, never on
// the Conn's signal dispatch. A reconnecting Conn does not resume the stream: watch
// again.
func (c *Conn) WatchUnits(ctx context.Context, match func(name string) bool) (<-chan UnitEvent, error) {
	const op = "WatchUnits"
	if match == nil {
		match = func(string) bool { return true }
	}
	s, err := c.current(ctx, op, "")
	if err != nil {
		return nil, err
	}
	sent := s.ownerMark()
	if err := s.subscribe(ctx); err != nil {
		return nil, c.opError(s, sent, "Subscribe", "", err, true)
	}
	ok := false
	defer func() {
		if !ok {
			s.unsubscribe()
		}
	}()
	rules := [][]dbus.MatchOption{
		// No sender: see the JobRemoved rule in setup.
		{dbus.WithMatchPathNamespace(unitPathPrefix), dbus.WithMatchInterface(propsIface), dbus.WithMatchMember("PropertiesChanged")},
		{dbus.WithMatchObjectPath(managerPath), dbus.WithMatchInterface(managerIface), dbus.WithMatchMember("UnitNew")},
		{dbus.WithMatchObjectPath(managerPath), dbus.WithMatchInterface(managerIface), dbus.WithMatchMember("UnitRemoved")},
	}
	var added [][]dbus.MatchOption
	removeRules := func() {
		if s.p2p {
			return
		}
		rctx, cancel := context.WithTimeout(s.bus.Context(), 5*time.Second)
		defer cancel()
		for _, r := range added {
			_ = s.bus.RemoveMatchSignalContext(rctx, r...)
		}
	}
	if !s.p2p {
		for _, r := range rules {
			if err := s.bus.AddMatchSignalContext(ctx, r...); err != nil {
				removeRules()
				return nil, c.opError(s, ownerMark{}, "AddMatch", "", err, true)
			}
			added = append(added, r)
		}
	}
	w := &allWatch{match: match, matched: map[string]bool{}, notify: make(chan struct{}, 1),
		units: map[dbus.ObjectPath]*watchedUnit{}, queued: map[dbus.ObjectPath]bool{}}
	if err := s.watches.addAll(w); err != nil {
		removeRules()
		return nil, &Error{Op: op, Err: err}
	}
	for attempt := 1; ; attempt++ {
		var rows []unitStatusWire
		sent := s.ownerMark()
		call := s.mgr.CallWithContext(ctx, managerIface+".ListUnits", c.flags())
		err := storeCall(call, &rows)
		if err == nil && w.applySnapshot(rows, call.ResponseSequence) {
			break
		}
		if err == nil && attempt == maxSnapshots {
			err = &Error{Op: op, Message: "units changed faster than they could be listed"}
		}
		if err != nil {
			s.watches.removeAll(w)
			removeRules()
			return nil, c.opError(s, sent, "ListUnits", "", err, true)
		}
	}
	out := make(chan UnitEvent)
	if !c.goTracked(func() {
		defer s.unsubscribe()
		defer removeRules()
		defer s.watches.removeAll(w)
		defer close(out)
		w.pump(ctx, out, c.stop.Done())
	}) {
		s.watches.removeAll(w)
		removeRules()
		return nil, &Error{Op: op, Err: ErrClosed}
	}
	ok = true
	return out, nil
}

// allWatch is one WatchUnits. Until the ListUnits snapshot is applied,
// signals are kept as early changes (the newest per unit and property);
// then each change updates the unit's state and queues the unit once.
type allWatch struct {
	notify chan struct{} // capacity 1: "units are queued"
	// match is the caller's filter. It runs on the pump goroutine only,
	// never on signal dispatch (a slow filter delays its own stream, no
	// one else's), and matched caches its answers; both belong to pump.
	match   func(string) bool
	matched map[string]bool

	// mu guards the fields below.
	mu sync.Mutex
	// units holds every unit seen, by object path, with its state.
	units map[dbus.ObjectPath]*watchedUnit
	// snapped is set once the snapshot, read at sequence snapSeq, is
	// applied; early holds the changes that arrived before.
	snapped  bool
	snapSeq  dbus.Sequence
	early    []earlyUnitChange
	overflow bool // early changes were dropped: read the snapshot again
	// order and queued are the units with an event waiting, oldest
	// first, each at most once; its newest state is taken when it is
	// handed over.
	order  []dbus.ObjectPath
	queued map[dbus.ObjectPath]bool
	gone   error
}

// watchedUnit is what an allWatch knows of a unit.
type watchedUnit struct {
	ev UnitEvent
}

// earlyUnitChange is a signal that arrived before the snapshot was
// applied, reduced to what it changes.
type earlyUnitChange struct {
	seq     dbus.Sequence
	path    dbus.ObjectPath
	name    string // UnitNew, UnitRemoved
	removed bool
	changed map[string]dbus.Variant // PropertiesChanged
}

// maxEarly bounds the changes kept while the snapshot is read; when more
// arrive, they are dropped and the snapshot is read again.
const maxEarly = 4096

// maxSnapshots bounds how often WatchUnits reads the snapshot again
// because more than maxEarly changes arrived while it was read.
const maxSnapshots = 5

// applySnapshot records the ListUnits rows read at sequence seq, applies
// the newer early changes on top and queues every matching unit. It
// reports false, and applies nothing, when early changes were dropped
// while the rows were read: the caller reads them again.
func (w *allWatch) applySnapshot(rows []unitStatusWire, seq dbus.Sequence) bool {
	w.mu.Lock()
	if w.overflow {
		w.overflow = false
		w.mu.Unlock()
		return false
	}
	for _, r := range rows {
		u, _ := w.unitLocked(r.Path, r.Name)
		u.ev.LoadState, u.ev.ActiveState, u.ev.SubState, u.ev.JobID = LoadState(r.LoadState), ActiveState(r.ActiveState), r.SubState, r.JobID
	}
	w.snapped, w.snapSeq = true, seq
	early := w.early
	w.early = nil
	for p := range w.units {
		w.queueLocked(p)
	}
	for _, e := range early {
		if e.seq > seq || e.seq == dbus.NoSequence {
			w.applyLocked(e)
		}
	}
	w.mu.Unlock()
	w.wake()
	return true
}

// unitLocked returns the entry of the unit at path, made if needed
// (then created is set).
func (w *allWatch) unitLocked(path dbus.ObjectPath, name string) (u *watchedUnit, created bool) {
	u = w.units[path]
	if u == nil {
		created = true
		if name == "" {
			name, _ = UnitNameFromPath(path)
		}
		u = &watchedUnit{ev: UnitEvent{UnitState: UnitState{Name: name}}}
		w.units[path] = u
	}
	return u, created
}

// applyLocked applies one change to its unit and queues the unit if its
// event changed (pump leaves out the units match refuses).
func (w *allWatch) applyLocked(e earlyUnitChange) {
	u, created := w.unitLocked(e.path, e.name)
	if created && e.removed {
		delete(w.units, e.path) // never reported: nothing to say
		return
	}
	before := u.ev
	switch {
	case e.removed:
		u.ev.Removed = true
	case e.changed != nil:
		u.ev.Removed = false
		applyState(&u.ev.UnitState, e.changed)
	default: // UnitNew
		u.ev.Removed = false
	}
	if created || u.ev != before {
		w.queueLocked(e.path)
	}
}

func (w *allWatch) queueLocked(p dbus.ObjectPath) {
	if !w.queued[p] {
		w.queued[p] = true
		w.order = append(w.order, p)
	}
}

func (w *allWatch) wake() {
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// signal takes one PropertiesChanged, UnitNew or UnitRemoved. Called by
// the signal handler; never blocks.
func (w *allWatch) signal(sig *dbus.Signal) {
	var e earlyUnitChange
	switch sig.Name {
	case propsIface + ".PropertiesChanged":
		if len(sig.Body) != 3 || !strings.HasPrefix(string(sig.Path), unitPathPrefix+"/") {
			return
		}
		iface, _ := sig.Body[0].(string)
		changed, ok := sig.Body[1].(map[string]dbus.Variant)
		if !ok || !strings.HasPrefix(iface, "org.freedesktop.systemd1.") {
			return
		}
		if iface != unitIface {
			// A type interface: only its Result is part of the state.
			v, ok := changed["Result"]
			if !ok {
				return
			}
			changed = map[string]dbus.Variant{"Result": v}
		}
		e = earlyUnitChange{seq: sig.Sequence, path: sig.Path, changed: changed}
	case managerIface + ".UnitNew", managerIface + ".UnitRemoved":
		if sig.Path != managerPath || len(sig.Body) != 2 {
			return
		}
		name, ok1 := sig.Body[0].(string)
		path, ok2 := sig.Body[1].(dbus.ObjectPath)
		if !ok1 || !ok2 || name == "" {
			return
		}
		e = earlyUnitChange{seq: sig.Sequence, path: path, name: name, removed: sig.Name == managerIface+".UnitRemoved"}
	default:
		return
	}
	w.mu.Lock()
	if !w.snapped {
		if len(w.early) == maxEarly {
			// Too many to keep: the snapshot is read again (see
			// WatchUnits), and covers what is dropped here.
			w.early, w.overflow = w.early[:0], true
		}
		w.early = append(w.early, e)
		w.mu.Unlock()
		return
	}
	n := len(w.order)
	w.applyLocked(e)
	queued := len(w.order) > n
	w.mu.Unlock()
	if queued {
		w.wake()
	}
}

// accepts reports whether match accepts ev's unit, asking it once per
// name. Called by pump only.
func (w *allWatch) accepts(ev UnitEvent) bool {
	ok, known := w.matched[ev.Name]
	if !known {
		ok = ev.Name != "" && w.match(ev.Name)
		w.matched[ev.Name] = ok
	}
	if ev.Removed {
		delete(w.matched, ev.Name)
	}
	return ok
}

// pump hands queued events to out, one at a time, until ctx ends or the
// Conn is closed; when the connection has ended it first hands over what
// arrived before the end.
func (w *allWatch) pump(ctx context.Context, out chan<- UnitEvent, closed <-chan struct{}) {
	pumpEvents(ctx, out, closed, w.notify, func() (ev UnitEvent, have, gone bool) {
		for {
			w.mu.Lock()
			have = false
			for len(w.order) > 0 && !have {
				p := w.order[0]
				w.order = w.order[1:]
				delete(w.queued, p)
				if u := w.units[p]; u != nil {
					ev, have = u.ev, true
					if ev.Removed {
						delete(w.units, p)
					}
				}
			}
			gone = w.gone != nil
			w.mu.Unlock()
			if !have || w.accepts(ev) {
				return ev, have, gone
			}
		}
	})
}
