package fakebus

// Timers (systemd's src/core/timer.c and dbus-timer.c): the settings
// StartTransientUnit takes for a timer, as `systemd-run --on-active=`,
// `--on-calendar=` and `--timer-property=` send them, and how they add to
// the timer's TimersMonotonic and TimersCalendar, the properties a timer
// loaded from a file has too (load_fragment.go); and how a timer waits,
// elapses and starts its unit. Monotonic values elapse as on systemd in
// a container (the releases were measured in the sandbox): OnBootSec=
// counts from the manager's start, as OnStartupSec= does. Calendar values
// keep a timer waiting but never elapse, and their next elapse reads 0
// (the fake computes no calendar's next time).

import (
	"hash/fnv"
	"math"
	"math/rand"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// monotonicBases are the bases TimersMonotonic takes, as a unit file
// names them; the property reads them back with "USec"
// (OnActiveSec -> OnActiveUSec).
var monotonicBases = []string{"OnActiveSec", "OnBootSec", "OnStartupSec", "OnUnitActiveSec", "OnUnitInactiveSec"}

// monotonicBase returns the base of a TimersMonotonic element as the
// property reads it back, false for one systemd refuses (the property's
// own names, OnActiveUSec and the like, too: "Invalid timer base").
func monotonicBase(base string) (string, bool) {
	for _, b := range monotonicBases {
		if base == b {
			return strings.TrimSuffix(b, "Sec") + "USec", true
		}
	}
	return "", false
}

func checkMonotonicTimers(v any) error {
	var ts []struct {
		Base string
		Usec uint64
	}
	if err := dbus.Store([]any{v}, &ts); err != nil {
		return err
	}
	for _, t := range ts {
		if _, ok := monotonicBase(t.Base); !ok {
			return sysErrorf("Invalid timer base: %s", t.Base)
		}
	}
	return nil
}

func checkCalendarTimers(v any) error {
	var cs []struct{ Base, Spec string }
	if err := dbus.Store([]any{v}, &cs); err != nil {
		return err
	}
	for _, c := range cs {
		if c.Base != "OnCalendar" {
			return sysErrorf("Invalid timer base: %s", c.Base)
		}
		if err := checkCalendar(c.Spec); err != nil {
			return err
		}
	}
	return nil
}

func checkCalendar(v any) error {
	s, _ := v.(string)
	if _, ok := normalizeCalendar(s); !ok {
		return sysErrorf("Invalid calendar spec")
	}
	return nil
}

// addTimerSetting adds a timer setting of StartTransientUnit, or the
// values of a unit file and its drop-ins (already in the form the
// properties read back, a(stt) and a(sst)), to a timer's TimersMonotonic
// or TimersCalendar in props, reporting whether name is one. As
// systemd's, each value goes before the ones set already (a list
// prepended one element at a time), and an empty list removes every
// value, monotonic and calendar alike (measured on 247, 252, 257 and 262
// by the differential tester).
func addTimerSetting(props map[string]dbus.Variant, name string, v dbus.Variant) bool {
	var mono []timerSpec
	var cal []calendarSpec
	sig := v.Signature().String()
	switch {
	case name == "TimersMonotonic" && sig == "a(stt)", name == "TimersCalendar" && sig == "a(sst)":
		// A unit file's values (and its drop-ins'), in the order of
		// their lines: each goes before the ones before it too
		// (measured on 247-262 by the differential tester).
		var ts []timerSpec
		var cs []calendarSpec
		if name == "TimersMonotonic" && dbus.Store([]any{v.Value()}, &ts) == nil {
			for _, t := range ts {
				mono = append([]timerSpec{t}, mono...)
			}
		}
		if name == "TimersCalendar" && dbus.Store([]any{v.Value()}, &cs) == nil {
			for _, c := range cs {
				cal = append([]calendarSpec{c}, cal...)
			}
		}
		name = "" // merged below
	case name == "TimersMonotonic" && sig != "a(st)", name == "TimersCalendar" && sig != "a(ss)":
		return false
	}
	empty := false
	switch name {
	case "":
	case "TimersMonotonic":
		var ts []struct {
			Base string
			Usec uint64
		}
		if dbus.Store([]any{v.Value()}, &ts) != nil {
			return true
		}
		empty = len(ts) == 0
		for _, t := range ts {
			b, _ := monotonicBase(t.Base)
			mono = append([]timerSpec{{b, t.Usec, 0}}, mono...)
		}
	case "OnActiveSec", "OnBootSec", "OnStartupSec", "OnUnitActiveSec", "OnUnitInactiveSec":
		b, _ := monotonicBase(name)
		mono = append(mono, timerSpec{b, v.Value().(uint64), 0})
	case "TimersCalendar":
		var cs []struct{ Base, Spec string }
		if dbus.Store([]any{v.Value()}, &cs) != nil {
			return true
		}
		empty = len(cs) == 0
		for _, c := range cs {
			spec, _ := normalizeCalendar(c.Spec)
			cal = append([]calendarSpec{{"OnCalendar", spec, 0}}, cal...)
		}
	case "OnCalendar":
		spec, _ := normalizeCalendar(v.Value().(string))
		cal = append(cal, calendarSpec{"OnCalendar", spec, 0})
	default:
		return false
	}
	if empty {
		delete(props, "TimersMonotonic")
		delete(props, "TimersCalendar")
		return true
	}
	if mono != nil {
		var old []timerSpec
		if cur, ok := props["TimersMonotonic"]; ok {
			_ = dbus.Store([]any{cur.Value()}, &old)
		}
		props["TimersMonotonic"] = dbus.MakeVariant(append(mono, old...))
	}
	if cal != nil {
		var old []calendarSpec
		if cur, ok := props["TimersCalendar"]; ok {
			_ = dbus.Store([]any{cur.Value()}, &old)
		}
		props["TimersCalendar"] = dbus.MakeVariant(append(cal, old...))
	}
	return true
}

// timerHasValues reports whether a transient timer's settings give it
// something to elapse on: a monotonic or calendar value, or
// OnClockChange= or OnTimezoneChange= (timer_verify).
func timerHasValues(props []setProp) bool {
	timers := map[string]dbus.Variant{}
	for _, p := range props {
		if !addTimerSetting(timers, p.Name, p.Value) && (p.Name == "OnClockChange" || p.Name == "OnTimezoneChange") && p.Value.Value() == true {
			return true
		}
	}
	var mono []timerSpec
	var cal []calendarSpec
	if v, ok := timers["TimersMonotonic"]; ok {
		_ = dbus.Store([]any{v.Value()}, &mono)
	}
	if v, ok := timers["TimersCalendar"]; ok {
		_ = dbus.Store([]any{v.Value()}, &cal)
	}
	return len(mono)+len(cal) > 0
}

// timerLoadsWithValuesLocked reports whether a transient timer made with
// settings props has something to elapse on once its drop-ins are read
// after them (an empty value there empties its own; measured on 252 by
// the differential tester, seed 47000: a drop-in's OnActiveSec=0 lets a
// timer made with an empty TimersMonotonic load).
func (m *manager) timerLoadsWithValuesLocked(name string, props []setProp) bool {
	all := slices.Clone(props)
	if paths := m.seenDropInsLocked([]string{name}); len(paths) > 0 {
		pu := m.parseUnitFile(name, readDropIns(paths)...)
		if pu.reset["TimersMonotonic"] {
			// The values go; OnClockChange= and OnTimezoneChange=,
			// which a timer may elapse on alone, stay (measured on 252
			// by the differential tester, 252 seed 482736 of a long run).
			all = slices.DeleteFunc(all, func(p setProp) bool {
				return addTimerSetting(map[string]dbus.Variant{}, p.Name, p.Value)
			})
		}
		for _, p := range pu.props {
			all = append(all, setProp{p.Name, p.Value})
		}
	}
	return timerHasValues(all)
}

// monotonicTimersLocked is a timer's TimersMonotonic as read: each
// value with the next elapse computed for it when the timer last waited
// (timerWaitLocked), kept after it stopped or failed, as systemd keeps
// it; 0 if never computed.
func (m *manager) monotonicTimersLocked(u *unit) (dbus.Variant, bool) {
	ts, ok := monotonicValues(u)
	if !ok {
		return dbus.Variant{}, false
	}
	for i := range ts {
		ts[i].Next = 0
		if i < len(u.timerNext) {
			ts[i].Next = u.timerNext[i]
		}
	}
	return dbus.MakeVariant(ts), true
}

func monotonicValues(u *unit) ([]timerSpec, bool) {
	v, ok := u.props["TimersMonotonic"]
	if !ok {
		return nil, false
	}
	var ts []timerSpec
	if dbus.Store([]any{v.Value()}, &ts) != nil {
		return nil, false
	}
	return ts, true
}

// nextElapseLocked is when monotonic value v of timer u next elapses, in
// CLOCK_MONOTONIC microseconds, as systemd's timer_enter_waiting computes
// it from the value's base: the timer's activation (OnActiveSec=; now when
// fromNow: the timer is being started or coldplugged, dead in systemd's
// eyes as timer_enter_waiting computes),
// the manager's start (OnStartupSec=, and OnBootSec= in a container), the
// triggered unit's last activation or deactivation, or the timer's last
// trigger if later (OnUnitActiveSec=, OnUnitInactiveSec=). False: the
// value is disabled, its base never was (the unit never ran), or it is a
// one-time value (OnActiveSec=, OnBootSec=, OnStartupSec=) due before now
// while the timer has a last trigger, which disables it (u.timerDisabled,
// systemd's v->disabled) until the values are read again (a daemon-reload
// or re-execution) or, for OnActiveSec=, the timer starts again
// (startUnitLocked). A disabled value's next elapse is not computed again
// (0: the caller keeps the last).
func (m *manager) nextElapseLocked(u *unit, v timerSpec, now uint64, fromNow bool) (uint64, bool) {
	if u.timerDisabled[v] {
		return 0, false
	}
	var base uint64
	switch v.Base {
	case "OnActiveUSec":
		base = u.times.inactiveExit.mono
		if fromNow || !u.isActive() {
			base = now
		}
	case "OnBootUSec", "OnStartupUSec":
		base = m.clock.dual(m.started).mono
	case "OnUnitActiveUSec", "OnUnitInactiveUSec":
		t := m.units[m.primaryLocked(u.triggers())]
		if t != nil {
			base = t.times.inactiveExit.mono
			if v.Base == "OnUnitInactiveUSec" {
				base = t.times.inactiveEnter.mono
			}
		}
		base = max(base, u.lastTrigger.mono)
		if base == 0 {
			return 0, false
		}
		next := base + v.Value
		if next < base {
			next = infinity
		}
		return next, true
	default:
		return 0, false
	}
	next := base + v.Value
	if next < base {
		next = infinity
	}
	if u.lastTrigger.mono != 0 && next < now {
		if u.timerDisabled == nil {
			u.timerDisabled = map[timerSpec]bool{}
		}
		u.timerDisabled[v] = true
		return next, false
	}
	return next, true
}

// timerComputeNextLocked records each monotonic value's next elapse, as
// systemd computes them before it arms the timer (also when arming then
// fails).
func (m *manager) timerComputeNextLocked(u *unit) {
	ts, _ := monotonicValues(u)
	now := m.clock.dual(time.Now()).mono
	u.timerNext = timerNextSized(u.timerNext, len(ts))
	for i, v := range ts {
		if next, _ := m.nextElapseLocked(u, v, now, false); next != 0 {
			u.timerNext[i] = next
		}
	}
}

// timerNextSized returns next with n elements, those it had kept: a
// value's next elapse stays what it was last computed as while the value
// is disabled or relative to a unit that never ran (systemd keeps
// v->next_elapse until it reads the values again).
func timerNextSized(next []uint64, n int) []uint64 {
	if len(next) >= n {
		return next[:n]
	}
	return append(next, make([]uint64, n-len(next))...)
}

// timerStartFails reports the result a timer's start fails with where
// systemd cannot arm it: "resources" for AccuracyUSec=infinity, and for
// WakeSystem=yes, which a container may not use (measured in the sandbox
// on 247, 252, 257 and 262; 262 started such a timer on one boot of two).
// Only a timer that arms a time source fails (timerArmsLocked).
func timerStartFails(u *unit) string {
	if v, ok := u.props["AccuracyUSec"]; ok && v.Value() == uint64(infinity) || u.boolProp("WakeSystem", false) {
		return "resources"
	}
	return ""
}

// timerArmsLocked reports whether timer u, entering waiting now, arms a
// time source: it has a value with a next elapse, or a calendar one. One
// whose values are all relative to a unit that never ran arms none, and so
// cannot fail to (timer_enter_waiting; measured on 247-262 by the
// differential tester, 247 seed 24006: WakeSystem=yes with
// OnUnitActiveSec= and OnUnitInactiveSec= only is elapsed).
func (m *manager) timerArmsLocked(u *unit) bool {
	ts, _ := monotonicValues(u)
	now := m.clock.dual(time.Now()).mono
	for _, v := range ts {
		if _, ok := m.nextElapseLocked(u, v, now, false); ok {
			return true
		}
	}
	return hasCalendar(u)
}

// hasCalendar reports whether timer u has OnCalendar= values.
func hasCalendar(u *unit) bool {
	v, ok := u.props["TimersCalendar"]
	if !ok {
		return false
	}
	var cs []calendarSpec
	_ = dbus.Store([]any{v.Value()}, &cs)
	return len(cs) > 0
}

// timerWaitLocked is systemd's timer_enter_waiting: the timer waits for
// the earliest of its values' next elapses, or elapses at once when that
// is past; with no value left to wait for it is elapsed (it stays active,
// sub-state elapsed, with RemainAfterElapse=yes, the default, or when a
// value is relative to its unit) or ends. fromNow: the timer is being
// started (timer_start), or waits again after a daemon-reload or
// re-execution (timer_coldplug); its OnActiveSec= values count from now
// (nextElapseLocked).
func (m *manager) timerWaitLocked(u *unit, fromNow bool) {
	m.timerDisarmLocked(u)
	u.timerElapse = 0
	ts, _ := monotonicValues(u)
	earliest, found, relative := uint64(0), false, false
	now := m.clock.dual(time.Now()).mono
	u.timerNext = timerNextSized(u.timerNext, len(ts))
	for i, v := range ts {
		relative = relative || v.Base == "OnUnitActiveUSec" || v.Base == "OnUnitInactiveUSec"
		next, ok := m.nextElapseLocked(u, v, now, fromNow)
		if next != 0 {
			u.timerNext[i] = next
		}
		if ok && (!found || next < earliest) {
			earliest, found = next, true
		}
	}
	calendar := hasCalendar(u)
	if !found && !calendar && !u.boolProp("OnClockChange", false) && !u.boolProp("OnTimezoneChange", false) {
		if u.boolProp("RemainAfterElapse", true) || relative {
			m.setStateLocked(u, "active", "elapsed")
			return
		}
		m.deactivateLocked(u)
		return
	}
	m.setStateLocked(u, "active", "waiting")
	if !found {
		return // only calendar values: the fake computes no calendar time
	}
	earliest = randomDelayed(u, earliest)
	u.timerElapse = earliest
	// A value due now elapses on the next turn, as on systemd's event
	// loop, not within this call: a unit that ends at once and a value
	// relative to its end (OnUnitInactiveSec=0) would recurse. (systemd
	// stops such a loop by the unit's start rate limit, which the fake
	// does not model: the timer keeps triggering.)
	var wait time.Duration
	if earliest > now {
		if earliest == infinity || earliest-now > uint64(math.MaxInt64/int64(time.Microsecond)) {
			return
		}
		wait = time.Duration(earliest-now) * time.Microsecond
	}
	gen := u.timerGen
	u.timerStop = m.afterLocked(wait, func() {
		if !u.gone && u.timerGen == gen && u.isActive() {
			m.timerTriggerLocked(u)
		}
	})
}

// randomDelayed is when timer u elapses for a value due at next: later by
// a delay drawn below RandomizedDelayUSec=, as systemd's add_random draws
// it (at random, or with FixedRandomDelay=yes from the unit's name, the
// same each time; systemd hashes its machine ID in too), the value's own
// next elapse unchanged (measured on 247-262 by the differential tester:
// OnActiveSec=0 with a delay of 1 h waits, next elapse set).
func randomDelayed(u *unit, next uint64) uint64 {
	v, _ := u.props["RandomizedDelayUSec"].Value().(uint64)
	if v == 0 || next == infinity {
		return next
	}
	var add uint64
	if u.boolProp("FixedRandomDelay", false) {
		h := fnv.New64a()
		h.Write([]byte(u.name))
		add = h.Sum64() % v
	} else {
		add = rand.Uint64() % v
	}
	if next+add < next {
		return infinity - 1 // the latest time that is not "never"
	}
	return next + add
}

// timerDisarmLocked stops u's pending elapse, if any: a newer arming
// replaces it.
func (m *manager) timerDisarmLocked(u *unit) {
	u.timerGen++
	if u.timerStop != nil {
		u.timerStop()
		u.timerStop = nil
	}
}

// timerTriggerLocked is systemd's timer_enter_running: the timer elapsed;
// its unit gets a start job (mode replace) and the timer runs while the
// unit does (timersFollowLocked). A unit that cannot be started fails the
// timer with result resources.
func (m *manager) timerTriggerLocked(u *unit) {
	m.timerDisarmLocked(u)
	u.lastTrigger = m.clock.dual(time.Now())
	t := m.loadLocked(u.triggers())
	if t == nil || t.load != "loaded" {
		m.failLocked(u, "resources")
		return
	}
	j, _, err := m.installLocked(t, jobStart, sdbus.ModeReplace, nil)
	if err != nil {
		m.failLocked(u, "resources")
		return
	}
	m.setStateLocked(u, "active", "running")
	m.maybeRunLocked(j)
}

// timersFollowLocked is systemd's timer_trigger_notify for the unit t
// that changed state: a timer running for it waits again once t is
// inactive or failed with no start job; a waiting or elapsed one
// computes its next elapse anew (its unit-relative values moved).
func (m *manager) timersFollowLocked(t *unit) {
	for _, u := range m.triggeringLocked(t, "timer") {
		if !u.isActive() {
			continue
		}
		switch u.sub {
		case "running":
			if (t.active == "inactive" || t.active == "failed") && (t.job == nil || t.job.typ != jobStart && t.job.typ != jobRestart) {
				m.timerWaitLocked(u, false)
			}
		case "waiting", "elapsed":
			m.timerWaitLocked(u, false)
		}
	}
}
