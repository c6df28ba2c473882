package fakebus

// StopWhenUnneeded= (systemd's unit_is_unneeded and its stop-when-unneeded
// queue, src/core/unit.c and manager.c): a unit with it that is active,
// with no job, and that no unit pins (one that wants, requires, requisites
// or binds to it and is not inactive or failed, or has a job) gets a stop
// job, mode fail. A unit is checked after its own state changes, its
// dependencies after it goes inactive or fails, and, from 252, every unit
// at a daemon-reload or re-execution (sdversions.UnneededAtReload): once
// the job that changed the state has ended (JobRemoved), as systemd
// dispatches the queue in a later turn of its event loop. Measured on
// 247, 252, 257 and 262 by the differential tester (replay "stop when
// unneeded"): a target started by hand with nothing to need it is stopped
// at once; a service a running one wants stays, and is stopped once that
// one stops or fails. systemd's rate limit on these stops (16 in 10 s) is
// not modelled.

import (
	"slices"

	"github.com/sdbus-go/sdbus"
)

// pinLists are the dependencies that keep a StopWhenUnneeded= unit
// (UNIT_ATOM_PINS_STOP_WHEN_UNNEEDED: their reverse, RequiredBy= and so
// on).
var pinLists = []string{"Requires", "Requisite", "Wants", "BindsTo"}

// checkUnneededLocked submits u to the stop-when-unneeded check.
func (m *manager) checkUnneededLocked(u *unit) {
	if u.boolProp("StopWhenUnneeded", false) && !slices.Contains(m.unneeded, u) {
		m.unneeded = append(m.unneeded, u)
	}
}

// checkUnneededDepsLocked submits the units u pins, as it goes inactive
// or fails.
func (m *manager) checkUnneededDepsLocked(u *unit) {
	for _, l := range pinLists {
		for _, n := range u.list(l) {
			if d := m.units[m.primaryLocked(n)]; d != nil {
				m.checkUnneededLocked(d)
			}
		}
	}
}

// unneededLocked reports whether u is to be stopped as unneeded.
func (m *manager) unneededLocked(u *unit) bool {
	if !u.boolProp("StopWhenUnneeded", false) || u.gone || u.perpetual || u.active != "active" || u.job != nil {
		return false
	}
	for _, o := range m.units {
		if o == u || !(o.job != nil || o.active != "inactive" && o.active != "failed") {
			continue
		}
		for _, l := range pinLists {
			for _, n := range o.list(l) {
				if m.primaryLocked(n) == u.name {
					return false
				}
			}
		}
	}
	return true
}

// stopUnneededLocked stops the submitted units that are unneeded, and
// reports whether it queued a job.
func (m *manager) stopUnneededLocked() bool {
	queued := false
	for len(m.unneeded) > 0 {
		u := m.unneeded[0]
		m.unneeded = m.unneeded[1:]
		if !m.unneededLocked(u) {
			continue
		}
		if m.queueLocked(u, jobStop, sdbus.ModeFail) {
			queued = true
		}
	}
	m.unneeded = nil
	return queued
}
