package fakebus

// Transient timers (systemd's src/core/dbus-timer.c): the settings
// StartTransientUnit takes for a timer, as `systemd-run --on-active=`,
// `--on-calendar=` and `--timer-property=` send them, and how they add to
// the timer's TimersMonotonic and TimersCalendar, the properties a timer
// loaded from a file has too (load_fragment.go).

import (
	"strings"

	"github.com/godbus/dbus/v5"
)

// monotonicBases are the bases TimersMonotonic takes, as a unit file
// names them; the property reads them back with "USec"
// (OnActiveSec -> OnActiveUSec).
var monotonicBases = []string{"OnActiveSec", "OnBootSec", "OnStartupSec", "OnUnitActiveSec", "OnUnitInactiveSec"}

// monotonicBase returns the base of a TimersMonotonic element as the
// property reads it back, false for one systemd refuses.
func monotonicBase(base string) (string, bool) {
	for _, b := range monotonicBases {
		if base == b || base == strings.TrimSuffix(b, "Sec")+"USec" {
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
		return sysErrorf("Failed to parse calendar specification: %s", s)
	}
	return nil
}

// addTimerSetting adds a timer setting of StartTransientUnit to a timer's
// TimersMonotonic or TimersCalendar in props, reporting whether name is
// one. The lists of a timer loaded from a file, already in the form the
// properties read back (a(stt), a(sst)), are not such settings.
func addTimerSetting(props map[string]dbus.Variant, name string, v dbus.Variant) bool {
	var mono []timerSpec
	var cal []calendarSpec
	switch sig := v.Signature().String(); {
	case name == "TimersMonotonic" && sig != "a(st)", name == "TimersCalendar" && sig != "a(ss)":
		return false
	}
	switch name {
	case "TimersMonotonic":
		var ts []struct {
			Base string
			Usec uint64
		}
		if dbus.Store([]any{v.Value()}, &ts) != nil {
			return true
		}
		for _, t := range ts {
			b, _ := monotonicBase(t.Base)
			mono = append(mono, timerSpec{b, t.Usec, 0})
		}
	case "OnActiveSec", "OnBootSec", "OnStartupSec", "OnUnitActiveSec", "OnUnitInactiveSec":
		b, _ := monotonicBase(name)
		mono = append(mono, timerSpec{b, v.Value().(uint64), 0})
	case "TimersCalendar":
		var cs []struct{ Base, Spec string }
		if dbus.Store([]any{v.Value()}, &cs) != nil {
			return true
		}
		for _, c := range cs {
			spec, _ := normalizeCalendar(c.Spec)
			cal = append(cal, calendarSpec{"OnCalendar", spec, 0})
		}
	case "OnCalendar":
		spec, _ := normalizeCalendar(v.Value().(string))
		cal = append(cal, calendarSpec{"OnCalendar", spec, 0})
	default:
		return false
	}
	if mono != nil {
		var old []timerSpec
		if cur, ok := props["TimersMonotonic"]; ok {
			_ = dbus.Store([]any{cur.Value()}, &old)
		}
		props["TimersMonotonic"] = dbus.MakeVariant(append(old, mono...))
	}
	if cal != nil {
		var old []calendarSpec
		if cur, ok := props["TimersCalendar"]; ok {
			_ = dbus.Store([]any{cur.Value()}, &old)
		}
		props["TimersCalendar"] = dbus.MakeVariant(append(old, cal...))
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

// monotonicTimersLocked is a timer's TimersMonotonic as read: each value
// with its next elapse while the timer waits, from the base systemd
// takes (timer_enter_waiting): the timer's activation for OnActiveUSec,
// the manager's start for OnStartupUSec, boot (monotonic 0) for
// OnBootUSec. The values relative to the triggered unit
// (OnUnitActiveUSec, OnUnitInactiveUSec) and those of a timer not
// waiting read 0, as a timer whose unit never ran. The fake elapses no
// timer.
func (m *manager) monotonicTimersLocked(u *unit) (dbus.Variant, bool) {
	v, ok := u.props["TimersMonotonic"]
	if !ok {
		return v, false
	}
	var ts []timerSpec
	if dbus.Store([]any{v.Value()}, &ts) != nil {
		return v, false
	}
	for i := range ts {
		ts[i].Next = 0
		if !u.isActive() {
			continue
		}
		switch ts[i].Base {
		case "OnActiveUSec":
			ts[i].Next = u.times.inactiveExit.mono + ts[i].Value
		case "OnStartupUSec":
			ts[i].Next = m.clock.dual(m.started).mono + ts[i].Value
		case "OnBootUSec":
			ts[i].Next = ts[i].Value
		}
	}
	return dbus.MakeVariant(ts), true
}
