package fakebus

// Jobs enter the manager as a transaction (systemd's src/core/transaction.c
// and manager_add_job): checks of unit and mode, the jobs a job pulls in
// through requirements, conflicts and propagation, merging with installed
// jobs, and the reply that names the job and the other jobs it brought.

import (
	"slices"
	"sort"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

func validName(name string) error {
	if err := sdbus.ValidateUnitName(name); err != nil {
		return errInvalidArgs("Unit name %s is not valid.", name)
	}
	return nil
}

// validModes are the job modes systemd knows; the per-version table
// (sdversions.JobModes) says since when.
var validModes = map[string]bool{
	"replace": true, "fail": true, "isolate": true, "ignore-dependencies": true, "ignore-requirements": true,
	"replace-irreversibly": true, "flush": true, "triggering": true, "restart-dependencies": true,
}

// checkModeLocked checks a job mode: a mode the release knows
// (validModeLocked), and one the job type takes (modeFits).
func (m *manager) checkModeLocked(mode string, typ jobType) error {
	if err := m.validModeLocked(mode); err != nil {
		return err
	}
	return modeFits(mode, typ)
}

// validModeLocked checks that the played release knows mode; systemd
// reads it before it looks at the unit it loaded.
func (m *manager) validModeLocked(mode string) error {
	if !validModes[mode] || !m.has("mode:"+mode) {
		return errInvalidArgs("Job mode %s invalid", mode)
	}
	return nil
}

// modeFits checks that a job of type typ takes mode; systemd checks it
// when it adds the job, once the unit is found (a stop in isolate mode
// of a unit not loaded is NoSuchUnit: measured on 247-262 by the
// differential tester).
func modeFits(mode string, typ jobType) error {
	if mode == "isolate" && typ != jobStart {
		return errInvalidArgs("Isolate is only valid for start.")
	}
	if mode == "triggering" && typ != jobStop {
		return errInvalidArgs("--job-mode=triggering is only valid for stop.")
	}
	if mode == "restart-dependencies" && typ != jobStart {
		return errInvalidArgs("--job-mode=restart-dependencies is only valid for start.")
	}
	return nil
}

// isolateRefused reports whether a job in mode may not be queued for u
// (nil: no such unit): systemd isolates only to a unit with
// AllowIsolate=yes, refusing a method's job with NoIsolation and a
// handler's (OnFailure=, OnSuccess=) in its log.
func isolateRefused(mode string, u *unit) bool {
	return mode == "isolate" && (u == nil || !u.boolProp("AllowIsolate", false))
}

// checkUnitJobLocked makes systemd's checks of a job method c in
// systemd's order (polkit after the name and the mode, before the unit
// is found missing: a caller that may not start units is refused for a
// unit that does not exist) and returns the unit and the job type the job
// gets (a try-restart of an inactive unit is a nop, ...).
func (m *manager) checkUnitJobLocked(c *busd.Call, name, mode string, typ jobType) (_ *unit, _ jobType, err error) {
	if err := validName(name); err != nil {
		return nil, "", err
	}
	base := typ
	switch typ {
	case "try-restart", "reload-or-restart", "reload-or-try-restart":
		base = jobRestart
	}
	// systemd loads the unit first (method_start_unit_generic), a unit
	// not found too, which has it build its name map again if a unit
	// directory changed (measured on 252 by the differential tester, 252
	// seed 464070 of a long run: a job in a bogus mode for a unit not
	// loaded made another unit need a daemon-reload, its new drop-in
	// seen), then reads the mode, then asks polkit.
	u, fresh := m.loadForCallLocked(name)
	if fresh {
		// Loaded for the call: a refused job leaves nothing to keep it
		// (measured by the differential tester: a slice refused an
		// isolate job is NoSuchUnit after, 247-262).
		defer func() {
			if err != nil {
				m.collectLocked(u)
			}
		}()
	}
	if err := m.validModeLocked(mode); err != nil {
		return nil, "", err
	}
	if err := m.authorizeLocked(c); err != nil {
		return nil, "", err
	}
	if typ == jobStop && (u == nil || loadFailed(u) && u.active == "inactive") {
		// systemd refuses to stop a unit it could not load that is
		// not running (unit_queue_job_check_and_mangle_type).
		return nil, "", errNoSuchUnit(name)
	}
	if u != nil {
		if err := refuseManual(u, name, typ); err != nil {
			return nil, "", err
		}
	}
	if err := modeFits(mode, base); err != nil {
		return nil, "", err
	}
	// An isolate job for a unit without AllowIsolate=yes is refused after
	// RefuseManualStart=, before the unit's load state is looked at (a
	// unit not found or masked has no AllowIsolate=yes; measured on
	// 247-262 by the differential tester).
	refuseIsolate := isolateRefused(mode, u)
	if u == nil {
		if refuseIsolate {
			return nil, "", errNoIsolation()
		}
		return nil, "", errNotFound(name)
	}
	if u.masked && typ != jobStop {
		// A stop job is not checked for the unit's load state: a masked
		// unit is stopped (transaction_add_job_and_dependencies; measured
		// on 247-262 by the differential tester: replay "stop of a masked
		// unit").
		if refuseIsolate {
			return nil, "", errNoIsolation()
		}
		return nil, "", loadStateErr(u)
	}
	switch typ {
	case "try-restart":
		typ = m.tryRestartLocked(u)
	case "reload-or-restart":
		typ = jobRestart
		if canReload(u) && u.isActive() {
			typ = jobReload
		}
	case "reload-or-try-restart":
		// A try-reload where the unit can reload, else a try-restart
		// (unit_queue_job_check_and_mangle_type, job_type_collapse).
		switch {
		case !canReload(u):
			typ = m.tryRestartLocked(u)
		case u.isActive():
			typ = jobReload
		default:
			typ = jobNop
		}
	case "reload-or-start":
		typ = jobReload
		if !u.isActive() && u.active != "activating" {
			typ = jobStart
		}
	case "try-reload":
		typ = jobReload
		if !u.isActive() && u.active != "activating" {
			typ = jobNop
		}
	}
	if typ != jobStop && !refuseIsolate && u.load != "stub" {
		// Any job but a stop of a unit that did not load is refused
		// for its load state before its type's applicability
		// (transaction_add_job_and_dependencies; measured on 257 by
		// the differential tester, 257 seed 441782 of a long run: a
		// reload of a bad-setting service is BadUnitSetting).
		if err := loadStateErr(u); err != nil {
			return nil, "", err
		}
	}
	if typ == jobReload && !canReload(u) {
		return nil, "", &callErr{errPrefix + "JobTypeNotApplicable", "Job type reload is not applicable for unit " + name + "."}
	}
	if typ == jobRestart && u.kind == "scope" {
		// A scope's processes are not systemd's to start again (measured
		// on 247, 252, 257 and 262 by the differential tester), once the
		// refusal above is looked at (262 seed 19002).
		return nil, "", &callErr{errPrefix + "JobTypeNotApplicable", "Job type restart is not applicable for unit " + name + "."}
	}
	if refuseIsolate {
		return nil, "", errNoIsolation()
	}
	if u.load == "stub" {
		// Any job, a stop too, of a unit never loaded (stubLocked;
		// transaction_add_job_and_dependencies' !UNIT_IS_LOAD_COMPLETE;
		// measured on 247-262 by the differential tester).
		return nil, "", &callErr{errPrefix + "LoadFailed", "Unit " + u.name + " is not loaded properly."}
	}
	if typ == jobStop && u.perpetual {
		return nil, "", &callErr{errPrefix + "JobTypeNotApplicable", "Job type stop is not applicable for unit " + name + "."}
	}
	if typ == jobStart || typ == jobRestart {
		if err := loadStateErr(u); err != nil {
			return nil, "", err
		}
		if u.load != "loaded" {
			return nil, "", errNotFound(u.name)
		}
	}
	return u, typ, nil
}

// refuseManual refuses a job of type typ asked for u by a client
// when u's RefuseManualStart= or RefuseManualStop= says so, as systemd's
// bus_unit_queue_job does, before manager_add_job looks at the job mode
// (262 seed 390460 of a long run: a stop in isolate mode is
// OnlyByDependency). A restart, or a try-restart even of an inactive
// unit, stops and starts: either setting refuses it (measured on 247-262
// by the differential tester: replay "restart refused by
// RefuseManualStop").
func refuseManual(u *unit, name string, typ jobType) error {
	// The type systemd checks RefuseManualStart= and RefuseManualStop=
	// against: reload-or-restart and reload-or-try-restart become
	// reload-or-start and try-reload when the unit can reload
	// (unit_queue_job_check_and_mangle_type), nothing collapses yet.
	asked := typ
	switch typ {
	case "reload-or-restart":
		asked = jobRestart
		if canReload(u) {
			asked = "reload-or-start"
		}
	case "reload-or-try-restart":
		asked = "try-restart"
		if canReload(u) {
			asked = "try-reload"
		}
	}
	refuseStart, refuseStop := u.boolProp("RefuseManualStart", false), u.boolProp("RefuseManualStop", false)
	switch {
	case asked == jobStart && refuseStart, asked == jobStop && refuseStop,
		(asked == jobRestart || asked == "try-restart") && (refuseStart || refuseStop),
		asked == "reload-or-start" && !u.isActive() && refuseStart: // a start then (job_type_collapse; not measured)
		return errOnlyByDependency(name)
	}
	return nil
}

// tryRestartLocked is what a try-restart of u collapses to
// (job_type_collapse): a restart of an active unit, from 252 of an
// activating one too (sdversions.TryRestartActivating), else nothing.
func (m *manager) tryRestartLocked(u *unit) jobType {
	if u.isActive() || u.active == "activating" && m.behaves(sdversions.TryRestartActivating) {
		return jobRestart
	}
	return jobNop
}

// canReload reports whether u has a reload to run: a service with
// ExecReload=.
func canReload(u *unit) bool {
	return u.kind == "service" && u.props["ExecReload"].Value() != nil
}

// loadFailed reports whether u did not load (UNIT_IS_LOAD_ERROR): not
// found, or a bad setting.
func loadFailed(u *unit) bool { return u.load == "not-found" || u.load == "bad-setting" }

// installedWithLocked returns the jobs other than j that the call which
// installed j queued (those numbered after last: still queued, or that j
// waits for), by ID.
func (m *manager) installedWithLocked(j *job, last uint32) []*job {
	seen := map[*job]bool{j: true}
	var out []*job
	var walk func(o *job)
	walk = func(o *job) {
		if seen[o] || o.id <= last {
			return
		}
		seen[o] = true
		out = append(out, o)
		for w := range o.waits {
			walk(w)
		}
	}
	for w := range j.waits {
		walk(w)
	}
	for _, o := range m.jobs {
		walk(o)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].id < out[b].id })
	return out
}

// installLocked queues a job of type typ for u, merging it into u's queued
// job of the same type or replacing a conflicting one as mode says, and
// records requester (nil for a job nobody asked for) as a requester of the
// job. The new job goes on the run queue once nothing holds it back, and
// runs when the manager is idle (runqueue.go), never before the call that
// queued it has replied.
func (m *manager) installLocked(u *unit, typ jobType, mode sdbus.JobMode, requester *busd.Peer) (j *job, merged bool, err error) {
	// ignore-dependencies and ignore-requirements add no job for another
	// unit (transaction_add_job_and_dependencies with
	// TRANSACTION_IGNORE_REQUIREMENTS: measured on 247-262 with
	// OnSuccessJobMode=ignore-requirements).
	deps := mode != sdbus.ModeIgnoreDependencies && mode != sdbus.ModeIgnoreRequirements
	starts := (typ == jobStart || typ == jobRestart) && deps
	if starts && (u.job == nil || u.job.typ != typ) {
		// systemd builds the whole transaction first: a requirement
		// that cannot be loaded fails the call, the unit's slice too
		// (its implicit Requires=: a collected transient slice whose
		// name the unit name map still names the file of is not found,
		// sdversions.CollectedTransientNameLoads; measured on 247-257
		// by the differential tester).
		requires, _ := u.requirements()
		for _, name := range append(requires, u.list("Requisite")...) {
			switch d := m.loadLocked(name); {
			case d == nil || d.load == "not-found":
				return nil, false, errNotFound(name)
			case d.masked:
				return nil, false, &callErr{errPrefix + "UnitMasked", "Unit " + name + " is masked."}
			case d.load == "bad-setting":
				// BadUnitSetting, as for the unit itself (measured
				// on 247-262 by the differential tester: Requires=,
				// BindsTo= and Requisite= of a service without
				// ExecStart=).
				return nil, false, loadStateErr(d)
			}
		}
	}
	if old := u.job; old != nil && typ != jobNop {
		// A nop job is not the unit's job: it leaves the one there is
		// as it is (systemd keeps it apart, the unit's nop_job; 247's
		// try-restart of an activating unit). Measured on 247 by the
		// differential tester, 247 seed 442092 of a long run.
		//
		// A restart merges into a start job of a unit not yet active:
		// the caller gets the start job (measured on 247-262 by the
		// differential tester, in replace and fail mode). A waiting
		// one stays a start: the restart's stop half of a unit that
		// is not running would do nothing.
		// A reload merges into a start of a unit not yet active (the
		// two make a reload-or-start, which collapses to the start),
		// running or not, and into a restart, waiting or running (the
		// restart holds it; a running one is "re-run", which in its
		// stop half changes nothing): job_install, job_type_lookup_merge
		// (measured on 247-262 by the differential tester: a reload of
		// a service in its ExecStartPre= gets the start job, one during
		// a restart's ExecStop= the restart job).
		reloadMerges := typ == jobReload && (old.typ == jobStart && !u.isActive() || old.typ == jobRestart)
		// Into a running reload (a service's that takes time: reload.go)
		// a start or reload merges and has it run again, a restart
		// merges and takes it over (job_install: "Merged into running
		// job, re-running"; measured on 247-262 by the differential
		// tester).
		intoReload := old.typ == jobReload && u.inReload() && (typ == jobStart || typ == jobReload || typ == jobRestart)
		// A start merges into a restart, waiting or running (the restart
		// is its superset, and a start may merge late: job_install;
		// 247 seed 591564 of a long run: a restart running ExecStop=).
		startMerges := typ == jobStart && old.typ == jobRestart
		if old.typ == typ || typ == jobRestart && old.typ == jobStart && !u.isActive() || reloadMerges || intoReload || startMerges {
			switch {
			case intoReload && typ == jobRestart:
				old.typ, old.state, old.started, old.rerun = jobRestart, "waiting", false, false
				m.maybeRunLocked(old)
			case intoReload:
				old.rerun, old.state = true, "waiting"
			case typ == jobRestart && old.typ == jobStart && u.sub == "auto-restart" && old.state == "waiting":
				// A start job waiting for the service's restart
				// (restart.go) becomes the restart, and runs (measured
				// on 247 and 252 by the differential tester: replay
				// "restart").
				old.typ = jobRestart
				u.restart.due = true
				m.maybeRunLocked(old)
			case typ == jobRestart && old.typ == jobStart && old.state == "running":
				// A running start is not safe to merge into: systemd's
				// job_install makes it the restart and runs it again
				// ("Merged into running job, re-running"): its stop
				// half kills the start's commands, and the start runs
				// them anew (measured on 252 and 262 by the
				// differential tester, 262 seeds 230184 and 231380 of
				// long runs: a command's record read after a reload).
				old.typ, old.state, old.started = jobRestart, "waiting", false
				m.maybeRunLocked(old)
			}
			if mode == sdbus.ModeIgnoreDependencies && !old.ignoreOrder {
				// The merged job keeps the order it ignores
				// (job_merge_into_installed).
				old.ignoreOrder = true
				m.maybeRunLocked(old)
			}
			m.trackLocked(old, requester)
			return old, true, nil // merged: the caller gets the existing job
		}
		if mode == sdbus.ModeFail || old.irreversible {
			return nil, false, &callErr{errPrefix + "TransactionIsDestructive",
				"Transaction for " + u.name + "/" + string(typ) + " is destructive (" + u.name +
					" has '" + string(old.typ) + "' job queued, but '" + string(typ) + "' is included in transaction)."}
		}
		// systemd cancels the conflicting job at once, before it replies.
		m.finishJobLocked(old, "canceled")
	}
	m.lastJob++
	// A job nobody asked for has no reply to wait for.
	j = &job{id: m.lastJob, typ: typ, unit: u, state: "waiting", waits: map[*job]bool{}, deps: map[*job]bool{}, replied: requester == nil}
	j.script, j.rule, j.ruled = m.scriptForLocked(u.name, typ)
	if j.ruled {
		m.noteLocked(Note{Kind: NoteScript, Unit: u.name, Job: j.id, JobType: string(typ), Rule: j.rule, Result: j.script.Result, Script: j.script})
	}
	j.irreversible = mode == sdbus.ModeReplaceIrreversibly
	j.ignoreOrder = mode == sdbus.ModeIgnoreDependencies
	m.jobs[j.id] = j
	if typ != jobNop {
		u.job = j
	}
	m.armJobTimeoutLocked(j)
	m.trackLocked(j, requester)
	m.jobSignalLocked(j, managerPath, managerIface, "JobNew", func() []any { return []any{j.id, j.path(), u.name} })
	if typ != jobNop {
		m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
			return []any{unitIface, map[string]dbus.Variant{"Job": dbus.MakeVariant(jobRef{j.id, j.path()})}, []string{}}
		})
	}
	if typ == jobStop && deps {
		m.propagateStopLocked(j, mode)
	}
	if typ == jobRestart && deps {
		m.propagateRestartLocked(j, mode)
	}
	if starts {
		m.requisitesLocked(j, mode)
		m.conflictsLocked(j, mode)
		// A pulled job is waited for only if ordered before j
		// (ordering.go); a requirement's failure fails j while j is
		// still queued (systemd's job_fail_dependencies).
		requires, wants := u.requirements()
		for _, name := range requires {
			if d := m.pullLocked(name, mode); d != nil {
				j.deps[d] = true
				d.dependents = append(d.dependents, j)
				if d.finished && d.result != "done" {
					j.depFailed = true
				}
			}
		}
		for _, name := range wants {
			if d := m.loadLocked(name); d != nil && (d.load == "bad-setting" || d.load == "stub") {
				// No job for it: a wanted unit that did not load is
				// passed over ("Cannot add dependency job, ignoring";
				// measured on 247-262 by the differential tester, 247
				// seed 48044).
				continue
			}
			m.pullLocked(name, mode)
		}
	}
	return j, false, nil
}

// requisitesLocked makes start job j depend on its unit's Requisite=
// units being active: one that is neither active nor starting gets a
// verify-active job, which ends skipped, so j ends with "dependency"
// without starting anything (systemd's JOB_VERIFY_ACTIVE).
func (m *manager) requisitesLocked(j *job, mode sdbus.JobMode) {
	for _, name := range j.unit.list("Requisite") {
		d := m.loadLocked(name)
		switch {
		case d == nil, d == j.unit:
			continue
		case d.job != nil && d.job.typ != jobStop:
			j.waits[d.job], j.deps[d.job] = true, true
			d.job.dependents = append(d.job.dependents, j)
			continue
		case d.isActive() && d.job == nil:
			continue
		case d.job != nil:
			j.depFailed = true // stopping
			continue
		}
		v, _, err := m.installLocked(d, jobVerifyActive, mode, nil)
		if err != nil {
			j.depFailed = true
			continue
		}
		j.waits[v], j.deps[v] = true, true
		v.dependents = append(v.dependents, j)
		m.maybeRunLocked(v)
		if v.finished && v.result != "done" {
			j.depFailed = true
		}
	}
}

// conflictsLocked queues stop jobs for the units start job j's unit
// conflicts with (Conflicts=, either way round) that are active or about
// to be; j waits for them only if ordered so (ordering.go).
func (m *manager) conflictsLocked(j *job, mode sdbus.JobMode) {
	u := j.unit
	names := append([]string(nil), u.list("Conflicts")...)
	for _, o := range m.reverseLocked() {
		if o != u && slices.Contains(o.list("Conflicts"), u.name) {
			names = append(names, o.name)
		}
	}
	for _, name := range names {
		o := m.units[m.primaryLocked(name)]
		if o == nil || o == u || o.perpetual || !(o.isActive() || o.active == "activating" || (o.job != nil && o.job.typ != jobStop)) {
			continue
		}
		m.queueStopLocked(o, mode)
	}
}

// propagateStopLocked queues stop jobs for the units that stop job j's
// unit stops too (Requires=, BindsTo= or PartOf= it: systemd's
// UNIT_ATOM_PROPAGATE_STOP) and are active or about to be; those ordered
// after j's unit stop first (ordering.go).
func (m *manager) propagateStopLocked(j *job, mode sdbus.JobMode) {
	u := j.unit
	for _, o := range m.dependentsLocked(u) {
		if o == u || o.perpetual || !m.propagatesFromLocked(o, u) {
			continue
		}
		if o.isActive() || o.active == "activating" || (o.job != nil && o.job.typ != jobStop) {
			m.queueStopLocked(o, mode)
		}
	}
}

// dependentsLocked returns, sorted by name, the units that may depend on
// u: those whose dependency lists name units (m.reverse), and a slice's
// members, which require it implicitly.
func (m *manager) dependentsLocked(u *unit) []*unit {
	out := m.reverseLocked()
	if u.kind != "slice" || len(m.members[u.name]) == 0 {
		return out
	}
	out = slices.Clone(out)
	for _, o := range m.membersLocked(u.name) {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// propagatesFromLocked reports whether a stop or restart of u propagates
// to o: o has Requires=, BindsTo= or PartOf= u, the implicit Requires=
// of its slice included (unit_add_slice_dependencies: a slice's stop
// stops the units in it within its transaction, ordered before it;
// measured on 247-262 by the differential tester).
func (m *manager) propagatesFromLocked(o, u *unit) bool {
	return namesUnit(m.ownDepsLocked(o, "Requires"), u) || slices.Contains(o.list("BindsTo"), u.name) || slices.Contains(o.list("PartOf"), u.name)
}

// propagateRestartLocked queues try-restart jobs for the units that a
// restart of job j's unit restarts too (Requires=, BindsTo= or PartOf= it:
// systemd's UNIT_ATOM_PROPAGATE_RESTART). As in systemd, a try-restart of
// a unit that is not active (or reloading) is a no-op and queues nothing;
// of an active one it is a restart job, which propagates in turn. Its
// stop half waits by order alone; its start half waits for j (the
// requirement ordered before it) and, like systemd, ends "dependency"
// when j fails and it is a requirement. A unit that already has a job
// keeps it.
func (m *manager) propagateRestartLocked(j *job, mode sdbus.JobMode) {
	u := j.unit
	for _, o := range m.dependentsLocked(u) {
		if o == u || o.perpetual || o.job != nil || !o.isActive() || !m.propagatesFromLocked(o, u) {
			continue
		}
		r, _, err := m.installLocked(o, jobRestart, mode, nil)
		if err != nil {
			continue
		}
		if !r.waits[j] {
			// PartOf= only: ordered after j, not failed by it.
			r.waits[j] = true
			j.dependents = append(j.dependents, r)
		}
		// Its stop half waits by order alone (ordering.go): a unit
		// ordered after u stops before u does.
		m.maybeRunLocked(r)
	}
}

// queueStopLocked queues a stop job for o beside the job that stops it.
// Which of the two waits for the other is their units' order alone
// (ordering.go):
// a unit that requires another and is ordered after it stops first; with
// no order they run side by side (a unit that requires one it is ordered
// before, as basic.target and a service with RequiredBy=basic.target,
// stops after it).
func (m *manager) queueStopLocked(o *unit, mode sdbus.JobMode) {
	s, merged, err := m.installLocked(o, jobStop, mode, nil)
	if err == nil && !merged {
		m.maybeRunLocked(s)
	}
}

// pullLocked queues a start job for a dependency that is not active.
func (m *manager) pullLocked(name string, mode sdbus.JobMode) *job {
	d := m.loadLocked(name)
	if d == nil || d.masked || d.load == "not-found" {
		return nil
	}
	if d.job == nil && d.isActive() {
		return nil
	}
	if d.job != nil && d.job.typ != jobStop {
		return d.job
	}
	j, _, err := m.installLocked(d, jobStart, mode, nil)
	if err != nil {
		return nil
	}
	m.maybeRunLocked(j)
	return j
}

// queueLocked queues a job of typ for u that no caller asked for (a
// trigger's, the stop of a unit bound to one that stopped) and runs it
// when it can; it reports whether a job was queued or merged. Such a job
// has no reply to wait for (installLocked); one it merged into still
// waits for its own caller's.
func (m *manager) queueLocked(u *unit, typ jobType, mode sdbus.JobMode) bool {
	j, _, err := m.installLocked(u, typ, mode, nil)
	if err != nil {
		return false
	}
	m.maybeRunLocked(j)
	return true
}
