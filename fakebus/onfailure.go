package fakebus

// OnFailure= and OnSuccess=: the units a unit starts when it fails, or
// (from 252) when it ends after it ran (systemd's unit_notify and
// unit_start_on_failure). Measured on 247, 252, 257 and 262 by the
// differential tester:
//   - a unit that enters the failed state queues a start job for each
//     unit of its OnFailure= that is loaded (one not found is passed over),
//     of mode OnFailureJobMode= (replace unless set), and so does a job of
//     it that ends dependency or timeout (job.go: finishJobLocked); a
//     slice (or device), which cannot fail, takes no OnFailure=
//     (settings.go);
//   - a unit that becomes inactive from any state but failed (its program
//     ended cleanly, a stop) queues one for each unit of its OnSuccess=,
//     of mode OnSuccessJobMode= (fail unless set); 247 has neither;
//   - the mode is any the release knows (settings.go); a job it does not
//     fit is refused as a method's would be, and so is isolate for a unit
//     without AllowIsolate=yes: nothing starts (systemd logs "Failed to
//     enqueue OnFailure= job, ignoring"); isolate is refused for a unit
//     whose list names more than one unit: it does not load
//     (unit_validate_on_failure_job_mode; trigger.go's badUnit). Unit
//     files take OnFailureIsolate= too, yes for isolate and no for replace;
//   - a service about to restart (Restart=) queues none before 257, and
//     does at each failure or end from 257 (OnTerminationWhenRestarting);
//   - the jobs are queued once what failed or stopped the unit is done:
//     the JobRemoved of its own job comes first; from 251 the unit stays
//     loaded while they have a job, and until one of them changes state
//     (handlersBusyLocked), unless its stop job ended it at once: then
//     it is collected once their jobs ran (collectAfterHandlersLocked);
//   - a service waiting to restart that a stop ends starts its
//     OnSuccess= units, whatever its result (it goes from activating to
//     inactive).
//
// What isolate does beyond its refusal (stop the units it does not pull
// in) is not modelled for these jobs, as it is not for a method's.

import (
	"slices"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// trigger is the start of the units a unit's OnFailure= or OnSuccess=
// names, due once the lock is released.
type trigger struct {
	from  *unit
	names []string
	mode  sdbus.JobMode
	// sync: from ended inside the job that stopped it (nothing to wait
	// for: stopsAtOnce), so it is collected once the jobs queued for its
	// units ran (collectAfterHandlersLocked).
	sync bool
}

// onFailureLocked queues the start of u's OnFailure= units: u just failed.
func (m *manager) onFailureLocked(u *unit) {
	m.triggerLocked(u, u.list("OnFailure"), sdbus.JobMode(strOr(u.str("OnFailureJobMode"), string(sdbus.ModeReplace))), false)
}

// onSuccessLocked queues the start of u's OnSuccess= units: u just became
// inactive from state was; sync when its stop job stopped it without
// waiting for anything (stopsAtOnce: trigger.sync).
func (m *manager) onSuccessLocked(u *unit, was string, sync bool) {
	if was != "inactive" && was != "failed" {
		m.triggerLocked(u, u.list("OnSuccess"), sdbus.JobMode(strOr(u.str("OnSuccessJobMode"), string(sdbus.ModeFail))), sync)
	}
}

// triggerLocked queues the start of names for u, in job mode mode; u
// stays loaded until startTriggeredLocked ran.
func (m *manager) triggerLocked(u *unit, names []string, mode sdbus.JobMode, sync bool) {
	if len(names) > 0 {
		m.triggered = append(m.triggered, trigger{u, names, mode, sync})
		u.triggering = true
	}
}

// isolatesMany reports whether u's OnFailure= or OnSuccess= names more
// than one unit while its job mode is isolate: systemd refuses to load
// it ("More than one OnFailure= dependencies specified but
// OnFailureJobMode=isolate set. Refusing."; measured on 247-262 for a
// unit file and a transient timer).
func isolatesMany(u *unit) bool {
	for _, d := range []string{"OnFailure", "OnSuccess"} {
		if u.str(d+"JobMode") != string(sdbus.ModeIsolate) {
			continue
		}
		names := slices.Clone(u.list(d))
		slices.Sort(names)
		if len(slices.Compact(names)) > 1 {
			return true
		}
	}
	return false
}

// handlersBusyLocked reports whether u must stay loaded for its OnFailure=
// and OnSuccess= units: their start is due, or one of them has a job
// (unit_success_failure_handler_has_jobs). As on systemd, which looks at
// a unit again only when something else brings it up, nothing collects u
// when their jobs end (measured on 252: the unit is still loaded,
// inactive, after its OnSuccess= unit started). Before 251 their jobs
// keep nothing (sdversions.HandlerJobsKeepUnit).
func (m *manager) handlersBusyLocked(u *unit) bool {
	if u.triggering {
		return true
	}
	if !m.behaves(sdversions.HandlerJobsKeepUnit) {
		return false
	}
	for _, d := range []string{"OnFailure", "OnSuccess"} {
		for _, name := range u.list(d) {
			if t := m.units[m.primaryLocked(name)]; t != nil && t.job != nil {
				return true
			}
		}
	}
	return false
}

// handles reports whether o's OnFailure= or OnSuccess= names h.
func handles(h, o *unit) bool {
	return slices.Contains(o.list("OnFailure"), h.name) || slices.Contains(o.list("OnSuccess"), h.name)
}

// startTriggeredLocked queues the start jobs onFailureLocked and
// onSuccessLocked asked for, and reports whether it queued one. A unit
// whose units got no job is collected now, if nothing else keeps it.
func (m *manager) startTriggeredLocked() bool {
	queued := false
	for len(m.triggered) > 0 {
		tr := m.triggered[0]
		m.triggered = m.triggered[1:]
		tr.from.triggering = false
		for _, name := range tr.names {
			t := m.units[m.primaryLocked(name)]
			if t == nil || t.load != "loaded" {
				continue // "Unit X not found." in systemd's log only
			}
			if modeFits(string(tr.mode), jobStart) != nil || isolateRefused(string(tr.mode), t) {
				continue // refused, in systemd's log only
			}
			if m.queueLocked(t, jobStart, tr.mode) {
				queued = true
				// Queued in the run queue's pass that stopped tr.from
				// on systemd: it runs in that pass (runqueue.go).
				m.goOn = m.goOn || tr.sync
			}
		}
		m.collectLocked(tr.from)
		if tr.sync && !tr.from.gone {
			m.recollect = append(m.recollect, tr.from)
		}
	}
	m.triggered = nil
	return queued
}

// collectAfterHandlersLocked collects, once, the units a stop job ended
// at once whose OnSuccess= units it queued jobs for (startTriggeredLocked),
// now that those jobs ran. On systemd the stop job's end puts the unit on
// the GC queue, which the main loop runs after the run queue, where the
// units' jobs run in the same pass; a unit whose end a process's exit
// brought (SIGCHLD) is looked at before its units' jobs run, and stays
// (handlersBusyLocked). Measured on 252, 257 and 262 by the differential
// tester and the conformance suite: a target, a service with
// RemainAfterExit=yes whose program has ended and one waiting to restart
// are gone after their stop, a service whose process the stop killed
// stays (so does one whose program had not yet ended when the stop came:
// the fake's end at once). Those jobs run in the pass that ran the stop,
// before any other caller (runqueue.go: goOn); one that waits for
// another job is not waited for: the unit stays, as a unit whose units'
// jobs wait does on systemd.
func (m *manager) collectAfterHandlersLocked() {
	for _, u := range m.recollect {
		m.collectLocked(u)
	}
	m.recollect = nil
}
