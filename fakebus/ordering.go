package fakebus

import (
	"slices"
	"sort"
)

// Job ordering: which queued job waits for which, as systemd's
// job_is_runnable and job_compare decide it.
//
// Ordering comes from After= and Before= alone (a unit's own settings and
// its implicit and default dependencies: ownDepsLocked), never from a
// requirement: a job pulled in by Wants= or Requires= without an order
// runs beside the job that pulled it (measured on 252 by the differential
// tester, seed 110092: a slice with Wants= of a service whose start ran
// on ended its own start job at once). Between the jobs of two ordered
// units:
//
//   - a start, verify-active or reload job of the unit ordered after waits
//     for the other unit's job, whatever its type;
//   - a stop job of the unit ordered after does not wait: the job of the
//     unit ordered before waits for it, if that one stops too, so stops
//     go in reverse order;
//   - a nop job, or one queued with mode ignore-dependencies (systemd's
//     ignore_order, kept by a job merged into it), neither waits nor is
//     waited for.
//
// A job held back is checked again when it comes to run (runJobLocked),
// and put back on the run queue when a job of a unit ordered with its own
// ends (finishJobLocked: requeueOrderedLocked), as systemd does.
//
// A restart job is a stop first (job_compare puts JOB_RESTART with the
// stops) that becomes a start job once its unit stopped (runLocked), and
// is ordered as a start from then on: a restart of a unit ordered after
// another whose start runs on stops the unit at once and waits to start
// it (measured on 252 and 257 by the differential tester, replay
// "restart held by an order"), and the restarts a restart propagates to
// units ordered after it stop before it does and start after it. A
// service's own restart after its hold-off stops and starts in one step.
//
// The fake's other waits (job.waits: a requisite's verify-active job,
// and the restarts a restart propagates) come on top of these, for a
// start or a restart's start half. The stops of conflicting units and the
// stops a stop propagates wait by order alone.

// orderedAfterLocked reports whether unit a is ordered after unit b: a's
// After= names b, or b's Before= names a (each by name or alias).
func (m *manager) orderedAfterLocked(a, b *unit) bool {
	return namesUnit(m.ownDepsLocked(a, "After"), b) || namesUnit(m.ownDepsLocked(b, "Before"), a)
}

// namesUnit reports whether list names u, by its name or an alias.
func namesUnit(list []string, u *unit) bool {
	for _, n := range list {
		if n == u.name || slices.Contains(u.aliases, n) {
			return true
		}
	}
	return false
}

// stopsFirst reports whether j is a stop job, or a restart before its
// stop half ran, which systemd's job_compare puts before the job of a unit
// ordered before its own.
func (j *job) stopsFirst() bool { return j.typ == jobStop || j.typ == jobRestart }

// unordered reports whether j takes no part in ordering.
func (j *job) unordered() bool { return j.typ == jobNop || j.ignoreOrder }

// waitsForLocked reports whether job j must wait for job o by the order of
// their units (job_compare(j, o, ...) > 0).
func (m *manager) waitsForLocked(j, o *job) bool {
	if o == j || o.finished || o.unit == j.unit || j.unordered() || o.unordered() {
		return false
	}
	if !j.stopsFirst() && m.orderedAfterLocked(j.unit, o.unit) {
		return true
	}
	return o.stopsFirst() && m.orderedAfterLocked(o.unit, j.unit)
}

// heldByOrderLocked reports whether queued job j must wait for another
// job by the order of their units.
func (m *manager) heldByOrderLocked(j *job) bool {
	if j.unordered() {
		return false
	}
	for _, o := range m.jobs {
		if m.waitsForLocked(j, o) {
			return true
		}
	}
	return false
}

// orderedJobsLocked returns the queued jobs j waits for by order (before)
// or that wait for it (after), by ID (systemd's job_get_before and
// job_get_after).
func (m *manager) orderedJobsLocked(j *job, before bool) []*job {
	var out []*job
	for _, o := range m.jobs {
		if before && m.waitsForLocked(j, o) || !before && m.waitsForLocked(o, j) {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].id < out[b].id })
	return out
}

// requeueOrderedLocked puts back on the run queue the jobs of units
// ordered with u (either way) that nothing holds back any more, by ID, as
// u's job ends.
func (m *manager) requeueOrderedLocked(u *unit) {
	var next []*job
	for _, o := range m.jobs {
		if o.unit != u && (m.orderedAfterLocked(o.unit, u) || m.orderedAfterLocked(u, o.unit)) {
			next = append(next, o)
		}
	}
	sort.Slice(next, func(a, b int) bool { return next[a].id < next[b].id })
	for _, o := range next {
		m.maybeRunLocked(o)
	}
}
