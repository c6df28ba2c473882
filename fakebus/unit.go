package fakebus

// The unit model (systemd's src/core/unit.c): a unit's state and
// settings, its loading and garbage collection, references between units,
// start, stop, reset-failed, freeze and clean.

import (
	"crypto/rand"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
	"golang.org/x/sys/unix"
)

// unit is a loaded unit.
type unit struct {
	name string
	kind string // "service", "scope", "slice", "target", "socket", ...
	// base is the manager's own control group, below which the unit's
	// lies ("" for the system manager; WithUserManager), and defSlice the
	// slice of a service or scope without Slice=.
	base, defSlice string
	transient      bool
	fromFile       bool     // loaded from a unit file (or an AddUnitFile one)
	file           string   // the unit file on disk, if any (unitfile.go)
	fragment       string   // FragmentPath: the file's path on the unit path (unitfile.go)
	dropIns        []string // DropInPaths, in the order they apply (unitfile.go)
	fileState      string   // UnitFileState once read, until reloaded (install.go)
	aliases        []string // its other names, from symlinks to file
	perpetual      bool     // -.slice and friends: never stopped or collected
	masked         bool
	unparsed       bool // its unit file failed to parse (unitSource.unparsed)
	load           string
	active         string
	sub            string
	result         string // the type interface's Result
	props          map[string]dbus.Variant
	job            *job
	proc           *process
	left           []*leftover // processes its stops left running (killmode.go)
	control        *control    // the running control commands: ExecCondition=, ExecStartPre=, ExecStartPost= (service.go), ExecReload= (reload.go)
	exec           execMain    // the main process's last run (service.go)
	// afterPost is the rest of the main process's end, which came while
	// ExecStartPost= or ExecReload= ran: systemd handles it once they
	// ended (spawnLocked, startPostLocked, reloadEndedLocked).
	afterPost func()
	// whenStopped are what waits for the running ExecStop= commands and
	// the rest of the stop (execStopLocked): the stop and start jobs that
	// came meanwhile.
	whenStopped []func()
	// execShown: ExecStart='s record shows exec (its times, PID and
	// status) — until a daemon-reload, which makes systemd's command
	// records anew while ExecMain* keep the run (measured on 252), and
	// again once a process that ran at the reload ends (mainEnded).
	execShown bool
	// runs are the last runs of the commands of the Exec* settings but
	// ExecStart='s main process (ExecStartPre=, ExecStop=, ...), by
	// setting, in command order (runCommandsLocked); a daemon-reload
	// forgets them, as it does execShown.
	runs map[string][]execMain
	// A timer's last trigger since it started (zero: none), the
	// generation of its arming (a newer one cancels an older), and the
	// next elapse it waited for when it last entered waiting, its random
	// delay added (CLOCK_MONOTONIC microseconds, 0: none; systemd's
	// next_elapse_monotonic_or_boottime): timer.go.
	lastTrigger dualTime
	timerGen    int
	timerElapse uint64
	timerNext   []uint64 // each TimersMonotonic value's next elapse, as last computed
	// timerDisabled are the one-time TimersMonotonic values disabled
	// since the timer's values were read (systemd's timer_value.disabled;
	// nextElapseLocked).
	timerDisabled map[timerSpec]bool
	// timerStop and runtimeMaxStop stop the pending elapse of a timer and
	// the pending RuntimeMaxUSec= end (afterLocked); nil when none.
	timerStop, runtimeMaxStop func()
	trigger                   string // the unit it is indexed as triggering in m.triggeredBy

	pids []uint32
	// leftPIDs: a scope's stop left pids running in its control group
	// (killmode.go), until they end or move.
	leftPIDs bool
	// realized: SetUnitProperties made u's control group whatever u's
	// state (cgroup.go, realizeLocked), until u next goes inactive or
	// failed.
	realized bool
	// emptying: a scope's stop killed its processes, and it ends once
	// the run queue's pass is over (stopUnitLocked).
	emptying bool
	pidSub   map[uint32]string // the sub-cgroup a process of pids was attached to ("/made"), if any
	// populated: a process has been one of its own (a scope whose cgroup
	// was never populated never empties; see zombie).
	populated   bool
	watches     map[uint32]*procWatch // the watched live processes among pids (procwatch.go)
	invocation  []byte
	condition   bool     // ConditionResult (condition.go)
	assert      bool     // AssertResult
	conditionAt dualTime // ConditionTimestamp
	assertAt    dualTime // AssertTimestamp
	changed     time.Time
	activeAt    time.Time
	gone        bool // removed from m.units
	// notFoundDirs are the name map's unit directory times when it was
	// last found not-found (retryLoadLocked).
	notFoundDirs map[string]time.Time
	// triggering: the start of its OnFailure= or OnSuccess= units is due
	// (onfailure.go).
	triggering bool
	// unannounced: loaded for a call and never announced (UnitNew), so
	// not to be removed with UnitRemoved either (dbus_object.go).
	unannounced bool
	parent      string // the slice it is indexed under in m.members
	objPath     dbus.ObjectPath
	freezer     string             // FreezerState: "running" or "frozen"
	subcgroups  map[string]bool    // sub-cgroups made with MakeSubcgroup (cgroup.go)
	refs        map[*busd.Peer]int // RefUnit references, by client (dbus_manager.go: RefUnit)
	times       stateTimes         // when it last left and entered its states (setStateLocked)
	startWindow startWindow        // its start rate limit's window (startlimit.go)
	restart     restartState       // a service's automatic restarts (restart.go)

	// loaded is what its unit file and drop-ins were on disk when it was
	// loaded (unitfile.go: NeedDaemonReload).
	loaded loadStamp
	// transientProps are a transient unit's settings as its transient
	// file holds them, StartTransientUnit's, which a daemon-reload loads
	// it from again (reloadUnfiledLocked); controlSet are the settings
	// SetUnitProperties set on it, which its drop-ins in the transient
	// directory hold (controldropin.go).
	transientProps []setProp
	controlSet     []controlSetting
}

func (m *manager) newUnitLocked(name string) *unit {
	u := m.makeUnitLocked(name)
	u.changed = time.Now()
	m.units[name] = u
	m.indexLocked(u)
	m.signalLocked(managerPath, managerIface, "UnitNew", func() []any { return []any{name, u.path()} })
	return u
}

// makeUnitLocked returns a unit named name, loaded and inactive, not yet
// in m.units.
func (m *manager) makeUnitLocked(name string) *unit {
	u := &unit{
		name: name, kind: name[strings.LastIndexByte(name, '.')+1:], load: "loaded",
		active: "inactive", sub: "dead", props: map[string]dbus.Variant{},
		freezer: "running", base: m.cgroupBase(), defSlice: "system.slice",
	}
	if m.cfg.user >= 0 {
		u.defSlice = "app.slice"
	}
	if u.kind == "service" || u.kind == "scope" {
		u.result = "success"
	}
	return u
}

// indexLocked records u under its slice in m.members and under the unit
// it triggers in m.triggeredBy; call it again when u's Slice property or
// what it triggers changes, and once it is gone.
func (m *manager) indexLocked(u *unit) {
	if set := m.triggeredBy[u.trigger]; set != nil {
		delete(set, u)
		if len(set) == 0 {
			delete(m.triggeredBy, u.trigger)
		}
	}
	u.trigger = ""
	if t := u.triggers(); t != "" && !u.gone {
		u.trigger = t
		set := m.triggeredBy[t]
		if set == nil {
			set = map[*unit]bool{}
			m.triggeredBy[t] = set
		}
		set[u] = true
	}
	if set := m.members[u.parent]; set != nil {
		delete(set, u)
		if len(set) == 0 {
			delete(m.members, u.parent)
		}
	}
	u.parent = u.slice()
	if u.parent == "" || u.gone {
		return
	}
	set := m.members[u.parent]
	if set == nil {
		set = map[*unit]bool{}
		m.members[u.parent] = set
	}
	set[u] = true
}

func (u *unit) path() dbus.ObjectPath {
	if u.objPath == "" {
		u.objPath = sdbus.UnitPath(u.name)
	}
	return u.objPath
}

func (u *unit) str(name string) string {
	if v, ok := u.props[name]; ok {
		s, _ := v.Value().(string)
		return s
	}
	return ""
}

func (u *unit) boolProp(name string, def bool) bool {
	if v, ok := u.props[name]; ok {
		if b, ok := v.Value().(bool); ok {
			return b
		}
	}
	return def
}

func (u *unit) list(name string) []string {
	if v, ok := u.props[name]; ok {
		s, _ := v.Value().([]string)
		return s
	}
	return nil
}

// requirements returns the units whose start jobs a start of u pulls in and
// waits for: Requires= and BindsTo= (with After= ordering assumed), and
// its slice. wants are pulled in without failing u.
func (u *unit) requirements() (requires, wants []string) {
	if s := u.slice(); s != "" {
		requires = append(requires, s)
	}
	requires = append(requires, u.list("Requires")...)
	requires = append(requires, u.list("BindsTo")...)
	return requires, u.list("Wants")
}

func (u *unit) isActive() bool { return u.active == "active" || u.active == "reloading" }

// idleStarting reports whether sub is a state of service u's start that
// reads active, not activating: a Type=idle service's ExecCondition=,
// ExecStartPre=, start and ExecStartPost= (systemd's
// state_translation_table_idle, 247 to 262), so its start job ends done
// as it enters the first of them (measured on 247 and 252 by the
// differential tester, 247 seeds 210506 and 211978 of a long run).
func idleStarting(u *unit, sub string) bool {
	switch sub {
	case "condition", "start-pre", "start", "start-post":
		return u.kind == "service" && serviceType(u) == string(sdbus.ServiceIdle)
	}
	return false
}

// setState changes the unit's state and tells subscribers.
func (m *manager) setStateLocked(u *unit, active, sub string) {
	if active == "activating" && idleStarting(u, sub) {
		active = "active"
	}
	if u.active == active && u.sub == sub {
		return
	}
	wasActive, wasInactive := u.isActive(), u.active == "inactive" || u.active == "failed"
	u.active, u.sub, u.changed = active, sub, time.Now()
	u.times.record(m.clock.dual(u.changed), wasActive, wasInactive, u.isActive(), active == "inactive" || active == "failed")
	if active == "inactive" || active == "failed" {
		u.freezer = "running"
		u.realized = false // unit_notify's unit_prune_cgroup
		m.disarmLocked(u)
	}
	if u.isActive() && !wasActive {
		u.activeAt = u.changed
		m.armRuntimeMaxLocked(u)
	}
	if (active == "activating" || u.isActive()) && u.invocation == nil {
		u.invocation = make([]byte, 16)
		_, _ = rand.Read(u.invocation)
	}
	m.cgroupDirLocked(u)
	m.unitStateSignalLocked(u, active, sub)
	if u.kind == "service" {
		m.socketsFollowLocked(u)
	}
	if u.kind != "timer" {
		m.timersFollowLocked(u)
	}
	m.checkUnneededLocked(u)
	if u.isActive() && m.behaves(sdversions.StopWhenBound) && len(u.list("BindsTo")) > 0 {
		m.bound = append(m.bound, u)
	}
	if active == "inactive" || active == "failed" {
		m.checkUnneededDepsLocked(u)
	}
}

// stateTimes are the moments a unit last left and entered the inactive
// (or failed) and the active (or reloading) states, as systemd's
// unit_notify keeps them (its Inactive/Active Exit/Enter Timestamp
// properties and their Monotonic forms: systemd-run --wait prints the
// service's runtime from InactiveExitTimestampMonotonic and
// InactiveEnterTimestampMonotonic).
type stateTimes struct {
	inactiveExit, activeEnter, activeExit, inactiveEnter dualTime
}

// dualTime is a moment on the realtime and the monotonic clock, in
// microseconds, as systemd's dual_timestamp; zero is never.
type dualTime struct{ real, mono uint64 }

// clock gives a moment on both of systemd's clocks: the realtime clock,
// and CLOCK_MONOTONIC as read once when the manager started plus the time
// elapsed since by Go's monotonic clock (CLOCK_MONOTONIC too), so that no
// state change costs a system call.
type clock struct {
	at   time.Time // when mono was read, with Go's monotonic reading
	mono uint64    // CLOCK_MONOTONIC then, in microseconds
}

func newClock() clock {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return clock{at: time.Now(), mono: uint64(ts.Nano() / 1000)}
}

// dual is the moment now on both clocks.
func (c clock) dual(now time.Time) dualTime {
	return dualTime{real: uint64(now.UnixMicro()), mono: c.mono + uint64(max(now.Sub(c.at), 0)/time.Microsecond)}
}

// record notes a state change at d, from the states the was flags
// describe to those the is flags do. A change is recorded at least a
// microsecond after the unit's previous one, as systemd's are (each is
// an event-loop iteration apart), so a command the fake runs at once
// still has a runtime (InactiveEnter after InactiveExit).
func (st *stateTimes) record(d dualTime, wasActive, wasInactive, isActive, isInactive bool) {
	for _, prev := range []dualTime{st.inactiveExit, st.activeEnter, st.activeExit, st.inactiveEnter} {
		d.real, d.mono = max(d.real, prev.real+1), max(d.mono, prev.mono+1)
	}
	switch {
	case wasInactive && !isInactive:
		st.inactiveExit = d
	case !wasInactive && isInactive:
		st.inactiveEnter = d
	}
	switch {
	case !wasActive && isActive:
		st.activeEnter = d
	case wasActive && !isActive:
		st.activeExit = d
	}
}

// failLocked puts u into the failed state with the given Result; a
// service may then restart (restart.go).
func (m *manager) failLocked(u *unit, result string) { m.failedLocked(u, result, true) }

// failNoRestartLocked is failLocked without the automatic restart: a
// start the start rate limit refused, a restart that could not be queued.
func (m *manager) failNoRestartLocked(u *unit, result string) { m.failedLocked(u, result, false) }

// failedLocked is failLocked, with the automatic restart allowed or not.
func (m *manager) failedLocked(u *unit, result string, mayRestart bool) {
	u.result = result
	if m.restartsDirect(u, mayRestart) {
		m.restartDirectLocked(u)
		return
	}
	m.setStateLocked(u, "failed", "failed")
	u.invocation = nil
	m.stopDependentsLocked(u)
	// From 257 its OnFailure= units start whether or not it restarts,
	// before only when it does not (onfailure.go).
	always := m.behaves(sdversions.OnTerminationWhenRestarting)
	if always {
		m.onFailureLocked(u)
	}
	if m.autoRestartLocked(u, mayRestart) {
		return
	}
	if !always {
		m.onFailureLocked(u)
	}
	m.collectLocked(u)
}

// deactivateLocked puts u into inactive/dead (after a clean exit or stop);
// a service may then restart (restart.go).
func (m *manager) deactivateLocked(u *unit) {
	if m.restartsDirect(u, true) {
		m.restartDirectLocked(u)
		return
	}
	was := u.active
	m.setStateLocked(u, "inactive", "dead")
	u.invocation = nil
	m.stopDependentsLocked(u)
	always := m.behaves(sdversions.OnTerminationWhenRestarting) // as in failedLocked
	if always {
		m.onSuccessLocked(u, was, false)
	}
	if m.autoRestartLocked(u, true) {
		return
	}
	if !always {
		m.onSuccessLocked(u, was, false)
	}
	m.collectLocked(u)
}

// restartDirectLocked is the end of service u with RestartMode=direct
// when it restarts: from its state straight to auto-restart, not by
// failed or inactive, so that neither its dependents' stops nor its
// OnFailure= or OnSuccess= units follow (service_enter_dead skips the
// state; unit_notify acts on entering failed or inactive).
func (m *manager) restartDirectLocked(u *unit) {
	u.invocation = nil
	m.autoRestartLocked(u, true)
	u.restart.direct = true
}

// disarmLocked stops what u's activity armed: a timer's next elapse, its
// RuntimeMaxUSec= end.
func (m *manager) disarmLocked(u *unit) {
	m.timerDisarmLocked(u)
	if u.runtimeMaxStop != nil {
		u.runtimeMaxStop()
		u.runtimeMaxStop = nil
	}
}

// armRuntimeMaxLocked makes a service or scope with RuntimeMaxUSec= end
// once it has been active that long, as systemd does (measured on 247 to
// 262 by the differential tester with 0 and 1 µs): it fails with result
// timeout, no job. A service stops as a stop would stop it
// (service_enter_stop with SERVICE_FAILURE_TIMEOUT), its result timeout
// from the start: ExecStop= (deactivating/stop while they run: 247 seed
// 360276 of a long run), its main process killed (SIGTERM: ExecMainCode
// 2, ExecMainStatus 15), ExecStopPost=; and unlike a stop asked for, it
// may restart. The fake signals no process: a scope's processes keep
// running.
func (m *manager) armRuntimeMaxLocked(u *unit) {
	v, ok := u.props["RuntimeMaxUSec"]
	if !ok || u.kind != "service" && u.kind != "scope" {
		return
	}
	usec, _ := v.Value().(uint64)
	if usec >= uint64(math.MaxInt64/int64(time.Microsecond)) {
		return // infinity, or beyond what a timer can wait
	}
	at := u.activeAt
	if u.runtimeMaxStop != nil {
		u.runtimeMaxStop()
	}
	u.runtimeMaxStop = m.afterLocked(time.Duration(usec)*time.Microsecond, func() {
		if u.gone || u.sub != "running" || !u.activeAt.Equal(at) {
			// Stopped, or started again, meanwhile; or not running:
			// exited (RemainAfterExit=), reloading, abandoned, where
			// systemd's timer is off or times something else
			// (service_set_state, scope_set_state).
			return
		}
		if u.kind == "service" {
			u.failFirst("timeout")
			m.execStopLocked(u, func(string) { m.endStopLocked(u, stopHow{}, "timeout") })
			return
		}
		m.killForStopLocked(u)
		m.failLocked(u, "timeout")
	})
}

// collectLocked unloads u if it is no longer needed, as systemd's garbage
// collector does (unit_gc_sweep): u may go when nothing pins it (see
// pinnedLocked) and every loaded unit that refers to it (by a dependency
// setting or a .wants/ symlink, as the slice of its members, as the socket
// that triggers it) may go too; a cycle of such units goes as a whole.
// systemd collects from a queue that its main loop runs before each
// event-loop iteration: after the job that ended has been announced
// (JobRemoved) and before it reads the next message. The fake does it at
// once, after announcing the state change and the job's end, which
// clients cannot tell apart; a unit with a job, even one still on the run
// queue (runqueue.go), stays. The units u kept loaded are collected in
// turn.
func (m *manager) collectLocked(u *unit) {
	if u.gone || m.keptLocked(u, map[*unit]bool{}) {
		return
	}
	m.removeUnitLocked(u)
	for _, o := range m.referencedByLocked(u) {
		m.collectLocked(o)
	}
	// And the units whose OnFailure= or OnSuccess= names it: kept while it
	// had a job, they linger until systemd's sweep looks at them again, as
	// it does at this removal (onfailure.go). What else refers to it was
	// not kept by it.
	var handled []*unit
	for _, o := range m.units {
		if !o.gone && handles(u, o) {
			handled = append(handled, o)
		}
	}
	sort.Slice(handled, func(i, j int) bool { return handled[i].name < handled[j].name })
	for _, o := range handled {
		m.collectLocked(o)
	}
}

// pinnedLocked reports whether u stays loaded whatever refers to it: it
// has a job, a client's reference (RefUnit), processes a stop left
// running in its control group (killmode.go), is perpetual, has no
// configuration to load it again from (neither transient nor from a
// file, not a slice or a device, and not a unit no file defines), or is
// not inactive (failed units
// stay, unless CollectMode=inactive-or-failed), or its OnFailure= or
// OnSuccess= units are about to start or have a job (onfailure.go).
func (m *manager) pinnedLocked(u *unit) bool {
	if u.job != nil || u.perpetual || len(u.refs) > 0 || holdsProcesses(u) || !(u.transient || u.fromFile || u.load == "not-found" || u.kind == "slice" || u.kind == "device") {
		return true
	}
	if m.handlersBusyLocked(u) {
		return true
	}
	switch {
	case u.active == "inactive":
		return false
	case u.active == "failed" && u.str("CollectMode") == string(sdbus.CollectInactiveOrFailed):
		return false
	}
	return true
}

// keptLocked reports whether u must stay loaded: it is pinned, or a unit
// referring to it must stay. seen holds the units already on the path
// (a cycle keeps nothing by itself).
func (m *manager) keptLocked(u *unit, seen map[*unit]bool) bool {
	if m.pinnedLocked(u) {
		return true
	}
	seen[u] = true
	for _, o := range m.units {
		if o != u && !seen[o] && m.refersLocked(o, u) && m.keptLocked(o, seen) {
			return true
		}
	}
	return false
}

// refersLocked reports whether o refers to u: by a dependency setting,
// as a member of slice u, as the unit that triggers u.
func (m *manager) refersLocked(o, u *unit) bool {
	return o.parent == u.name || o.triggers() == u.name || refersTo(o, u.name)
}

// referencedByLocked returns the loaded units u refers to.
func (m *manager) referencedByLocked(u *unit) []*unit {
	names := []string{u.parent, u.triggers()}
	for _, d := range depLists {
		names = append(names, u.list(d)...)
	}
	var out []*unit
	for _, n := range names {
		if o := m.units[m.primaryLocked(n)]; o != nil && o != u {
			out = append(out, o)
		}
	}
	return out
}

func refersTo(o *unit, name string) bool {
	for _, d := range depLists {
		if slices.Contains(o.list(d), name) {
			return true
		}
	}
	return false
}

func (m *manager) removeUnitLocked(u *unit) {
	u.gone = true
	m.disarmLocked(u)
	m.unwatchLocked(u)
	if m.reverse[u] {
		delete(m.reverse, u)
		m.reverseSorted = nil
	}
	m.indexLocked(u)
	delete(m.units, u.name)
	if u.transient {
		m.transientFreedLocked()
	}
	if u.unannounced {
		return
	}
	m.signalLocked(managerPath, managerIface, "UnitRemoved", func() []any { return []any{u.name, u.path()} })
}

// stopDependentsLocked stops the units inside a slice that stopped, and
// the units bound to a unit that stopped (BindsTo=). While u still has a
// job (its end comes with this state change), those of BindsTo= are
// stopped once it ended, before the lock is released (stopBoundLocked):
// systemd stops them from its stop-when-bound queue then, and at once
// only when the change came without a job (retroactively_stop_dependencies;
// measured on 252 by the differential tester, 252 seed 130138 of a long
// run: JobRemoved of a simple service's start job, done, comes before
// the JobNew of its bound socket's stop when its program fails to run).
func (m *manager) stopDependentsLocked(u *unit) {
	for _, o := range m.reverseLocked() {
		if o != u && !o.perpetual && o.isActive() && o.job == nil && slices.Contains(o.list("BindsTo"), u.name) {
			if u.job != nil {
				m.bound = append(m.bound, o)
				continue
			}
			m.queueLocked(o, jobStop, sdbus.ModeReplace)
		}
	}
	if u.kind != "slice" {
		return
	}
	for _, o := range m.membersLocked(u.name) {
		if (o.isActive() || o.active == "activating") && o.job == nil {
			m.queueLocked(o, jobStop, sdbus.ModeReplace)
		}
	}
}

// boundAfterDownLocked reports whether u is bound to (BindsTo=), and
// ordered after (After=), a unit that is neither active nor reloading
// (not loaded: systemd has it loaded, not-found and inactive), which
// keeps u from starting (unit_verify_deps).
func (m *manager) boundAfterDownLocked(u *unit) bool {
	after := u.list("After")
	for _, n := range u.list("BindsTo") {
		if !slices.Contains(after, n) {
			continue
		}
		if d := m.units[m.primaryLocked(n)]; d == nil || !d.isActive() {
			return true
		}
	}
	return false
}

// stopBoundLocked queues the stops of the units of m.bound that are
// bound to a unit that is down (boundToInactiveLocked), and reports
// whether it queued one (manager_dispatch_stop_when_bound_queue).
func (m *manager) stopBoundLocked() bool {
	queued := false
	for len(m.bound) > 0 {
		o := m.bound[0]
		m.bound = m.bound[1:]
		if !o.gone && m.boundToInactiveLocked(o) {
			m.queueLocked(o, jobStop, sdbus.ModeReplace)
			queued = true
		}
	}
	m.bound = nil
	return queued
}

// boundToInactiveLocked reports whether u, active and without a job, is
// bound (BindsTo=) to a unit without a job that is inactive or failed, or
// not loaded (systemd has it loaded, not-found and inactive):
// unit_is_bound_by_inactive.
func (m *manager) boundToInactiveLocked(u *unit) bool {
	if u.active != "active" || u.job != nil {
		return false
	}
	for _, n := range u.list("BindsTo") {
		d := m.units[m.primaryLocked(n)]
		if d == nil || d.job == nil && (d.active == "inactive" || d.active == "failed") {
			return true
		}
	}
	return false
}

// reverseLocked returns the units of m.reverse, sorted by name. The
// slice is shared until m.reverse changes: callers must not change it.
func (m *manager) reverseLocked() []*unit {
	if m.reverseSorted != nil || len(m.reverse) == 0 {
		return m.reverseSorted
	}
	out := make([]*unit, 0, len(m.reverse))
	for u := range m.reverse {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	m.reverseSorted = out
	return out
}

func (m *manager) sortedUnitsLocked() []*unit {
	out := make([]*unit, 0, len(m.units))
	for _, u := range m.units {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// loadStateErr is systemd's bus_unit_validate_load_state: a unit that
// did not load is refused by the methods that change it (measured on
// 247-262 by the differential tester: SetUnitProperties of a masked unit
// is UnitMasked "Unit X is masked.").
func loadStateErr(u *unit) *callErr {
	switch {
	case u.masked:
		return &callErr{errPrefix + "UnitMasked", "Unit " + u.name + " is masked."}
	case u.load == "not-found":
		return errNotFound(u.name)
	case u.load == "bad-setting":
		return &callErr{errPrefix + "BadUnitSetting", "Unit " + u.name + " has a bad unit file setting."}
	case u.load == "stub":
		// Its other states (measured on 252, 257 and 262 by the
		// differential tester: SetUnitProperties and LoadError of a
		// pristine slice whose transient settings were refused; 262
		// seed 50005). A job is refused LoadFailed (checkUnitJobLocked).
		return &callErr{errPrefix + "NoSuchUnit", "Unexpected load state of unit " + u.name}
	}
	return nil
}

// loadLocked returns the loaded unit name, loading it from a unit file,
// or creating an implicit slice, when needed. It returns nil when no such
// unit exists.
func (m *manager) loadLocked(name string) *unit {
	u, _ := m.loadForCallLocked(name)
	return u
}

// loadForCallLocked loads a unit as loadLocked does and reports whether
// this call loaded it: a unit loaded for a call is collected again when
// the call leaves nothing that keeps it.
func (m *manager) loadForCallLocked(name string) (_ *unit, fresh bool) {
	name = m.primaryLocked(name)
	if u := m.units[name]; u != nil {
		m.retryLoadLocked(u)
		return u, false
	}
	if !strings.HasSuffix(name, ".scope") {
		m.refreshNameMapLocked()
	}
	stale := m.staleTransientNameLocked(name)
	if stale && !m.behaves(sdversions.CollectedTransientNameLoads) {
		return nil, false
	}
	// systemd loads no scope from a file: only transient ones (scope_load;
	// measured on 247-262 by the differential tester: LoadUnit of a
	// scope with a file is not-found).
	if src, ok := m.sourceLocked(name); ok && !stale && !strings.HasSuffix(name, ".scope") {
		if u := m.units[src.name]; u != nil {
			return u, false // name is a new alias of a loaded unit
		}
		u := m.newUnitLocked(src.name)
		m.applySourceLocked(u, src)
		return u, true
	}
	if (strings.HasSuffix(name, ".slice") || strings.HasSuffix(name, ".device") && namedPath(&unit{name: name, kind: "device"}) != "") &&
		sdbus.ValidateUnitName(name) == nil {
		// Slices and devices need no unit file; SetUnitProperties'
		// drop-ins apply to them too, and load the units they name
		// (measured on 247-262 by the differential tester: a slice
		// loaded again with a drop-in's After= loads that unit
		// not-found).
		u := m.newUnitLocked(name)
		m.applyDropInsLocked(u)
		m.applyControlLocked(u)
		m.loadTriggeredLocked(u)
		return u, true
	}
	return nil, false
}

func (m *manager) addFileLocked(f UnitFile) error {
	if err := sdbus.ValidateUnitName(f.Name); err != nil {
		return fmt.Errorf("fakebus: unit file: %w", err)
	}
	kind := f.Name[strings.LastIndexByte(f.Name, '.')+1:]
	props := make([]sdbus.Property, len(f.Properties))
	for i, p := range f.Properties {
		if err := p.Err(); err != nil {
			return &UnitFileError{Unit: f.Name, Property: p.Name, Err: err}
		}
		// The same checks as for transient units, on the value as it
		// would arrive over the wire.
		v, err := normalize(p.Value)
		if err == nil {
			_, err = m.checkPropsLocked(kind, []setProp{{p.Name, v}}, false)
		}
		if err != nil {
			return &UnitFileError{Unit: f.Name, Property: p.Name, Err: err}
		}
		props[i] = sdbus.Property{Name: p.Name, Value: v}
	}
	if err := m.checkAliasesLocked(f); err != nil {
		return err
	}
	if c := m.fileConflictLocked(f.Name, props); c != nil {
		return c
	}
	f.Properties = props
	f.Aliases = append([]string(nil), f.Aliases...)
	if old, ok := m.files[f.Name]; ok {
		for _, a := range old.Aliases {
			delete(m.aliases, a)
		}
	}
	for _, a := range f.Aliases {
		m.aliases[a] = f.Name
	}
	m.files[f.Name] = f
	return nil
}

// resetFailedLocked is ResetFailedUnit of u: each type's reset_failed
// makes its result success in any state (a service waiting to restart, or
// whose main process failed while ExecStartPost= runs, reads Result
// success: measured on 247-262 and on 262 by the differential tester, 262
// seed 351288 of a long run), and a failed unit inactive.
func (m *manager) resetFailedLocked(u *unit) {
	u.startWindow = startWindow{} // of an active unit too (unit_reset_failed)
	if u.kind == "service" {
		u.restart.count, u.restart.flush = 0, false // service_reset_failed
	}
	if u.result != "" {
		u.result = "success"
	}
	if u.active != "failed" {
		return
	}
	m.setStateLocked(u, "inactive", "dead")
	m.collectLocked(u)
}

// freezeLocked freezes or thaws an active unit's processes.
func (m *manager) freezeLocked(c *busd.Call, name string, freeze bool) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	if err := m.authorizeLocked(c); err != nil {
		return nil, err
	}
	switch {
	case !unitTypes[u.kind].freeze:
		return nil, &callErr{dbusErr + "NotSupported", "Unit '" + name + "' does not support freezing."}
	case !u.isActive():
		return nil, &callErr{errPrefix + "UnitInactive", "Unit '" + name + "' is not active."}
	}
	state := "running"
	if freeze {
		state = "frozen"
	}
	if u.freezer != state {
		u.freezer = state
		m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
			return []any{unitIface, map[string]dbus.Variant{"FreezerState": dbus.MakeVariant(state)}, []string{}}
		})
	}
	return []any{}, nil
}

// activeSub is the sub-state of an active u: its type's (systemd's
// *_state_table of each type).
func activeSub(u *unit) string {
	switch u.kind {
	case "service", "scope":
		if u.proc == nil && u.kind == "service" {
			return "exited"
		}
		return "running"
	case "socket":
		return "listening"
	case "timer", "path", "automount":
		return "waiting"
	case "mount":
		return "mounted"
	case "device":
		return "plugged"
	}
	return "active"
}

// startUnitLocked activates u for a start (or restart) job.
func (m *manager) startUnitLocked(j *job) {
	u := j.unit
	if u.kind == "scope" && u.times.inactiveEnter != (dualTime{}) {
		// A scope starts once: one that was inactive after it ran
		// (stopped, failed) refuses, the job ends once (unit_start's
		// once_only, before its conditions).
		m.finishJobLocked(j, "once")
		return
	}
	if ok, failedAssert := testConditions(u, m.clock.dual(time.Now())); !ok {
		if failedAssert {
			m.finishJobLocked(j, "assert")
		} else {
			m.finishJobLocked(j, "done")
		}
		return
	}
	if unitTypes[u.kind].unsupported {
		// The start job ends unsupported, the unit stays inactive.
		m.finishJobLocked(j, "unsupported")
		return
	}
	if m.boundAfterDownLocked(u) {
		// unit_start's unit_verify_deps: the job ends dependency, the
		// unit stays inactive (measured on 247-262 by the differential
		// tester: a unit bound to a oneshot service, after it).
		m.finishJobLocked(j, "dependency")
		return
	}
	if u.kind != "timer" {
		if m.startLimitHitLocked(u, j) {
			return
		}
		u.result = "success" // as each type's start sets it (service_start, socket_start, ...)
	}
	switch u.kind {
	case "service":
		m.startServiceLocked(u, j)
	case "scope":
		m.startScopeLocked(u, j)
	case "timer":
		if t := m.loadLocked(u.triggers()); t == nil || t.load != "loaded" {
			// "Refusing to start, unit to trigger not loaded.": the job
			// fails, the timer stays inactive (measured on 252 by the
			// differential tester).
			m.finishJobLocked(j, "failed")
			return
		}
		if m.startLimitHitLocked(u, j) {
			// After the trigger's check (timer_can_start). Neither
			// check got to timer_start, which sets the result: a
			// timer that failed keeps its result, but on 262
			// (sdversions.StartLimitHitResult; measured on 247-262 by
			// the differential tester, 247 seed 610368 of a long run:
			// resources, of WakeSystem=yes).
			return
		}
		u.result = "success" // timer_start
		// timer_start: no last trigger before 257 (from 257 the last
		// trigger stays, so a one-time value that elapsed before is not
		// due again: sdversions.TimerStartKeepsLastTrigger), OnActiveSec=
		// values enabled again (the others stay disabled until a reload).
		// Those count from now, as the timer is dead while systemd
		// computes, so OnActiveSec=0 is due again on every release: a
		// restarted timer starts its unit again (measured on 247-262 by
		// the differential tester, 257 seed 451598 of a long run).
		if !m.behaves(sdversions.TimerStartKeepsLastTrigger) {
			u.lastTrigger = dualTime{}
		}
		for v := range u.timerDisabled {
			if v.Base == "OnActiveUSec" {
				delete(u.timerDisabled, v)
			}
		}
		if result := timerStartFails(u); result != "" && m.timerArmsLocked(u) {
			m.timerComputeNextLocked(u)
			m.failLocked(u, result)
			m.finishJobLocked(j, "failed")
			return
		}
		// Waiting, then (after the start job ended, as on systemd)
		// elapsed at once, armed or elapsed for good (timer.go).
		m.setStateLocked(u, "active", "waiting")
		m.finishJobLocked(j, "done")
		m.timerWaitLocked(u, true)
	default:
		if t := u.triggers(); (u.kind == "socket" || u.kind == "path") && t != "" {
			t := m.loadLocked(t)
			if t == nil || t.load != "loaded" {
				// As a timer's (unit_test_trigger_loaded; measured on
				// 247-262 by the differential tester for sockets).
				m.finishJobLocked(j, "failed")
				return
			}
			if u.kind == "socket" && t.kind == "service" && t.active != "inactive" && t.active != "failed" && t.sub != "auto-restart" {
				// "Socket service X already active, refusing."
				// (socket_start): the job fails, the socket stays as it
				// was (measured on 247 and 252 by the differential
				// tester, 252 seed 331426 of a long run).
				m.finishJobLocked(j, "failed")
				return
			}
		}
		// The fake opens no socket, watches no path and mounts nothing
		// (trigger.go).
		m.setStateLocked(u, "active", activeSub(u))
		m.finishJobLocked(j, "done")
	}
}

// startScopeLocked starts scope u for job j as scope_start does: its
// control group handed to its User= (cgroup.go), then its processes moved
// into it, out of the units that held them (until then they stay where
// they are: a scope whose start fails moves none). A start that fails
// fails the scope, Result resources, and its job, and the scope lets go
// of its processes.
func (m *manager) startScopeLocked(u *unit, j *job) {
	// An unprivileged user manager cannot move another user's process
	// into its cgroup, nor may the system manager it then asks (measured
	// on 247, 252, 257 and 262); the helper that hands the control group
	// to User= and Group= fails for an account this machine has not
	// (measured on 252, 257 and 262).
	if m.foreignProcessLocked(u) != 0 || !m.scopeOwnerTakesLocked(u) {
		m.unwatchLocked(u)
		u.pids, u.pidSub = nil, nil
		m.failLocked(u, "resources")
		m.finishJobLocked(j, "failed")
		return
	}
	for _, pid := range u.pids {
		m.takePIDLocked(u, pid)
	}
	m.setStateLocked(u, "active", "running")
	m.finishJobLocked(j, "done")
	m.scopeEmptyLocked(u) // its processes ended before it started
}

// stopUnitLocked deactivates u, ending its process. A service stopped
// while its ExecStartPre= commands run, or a oneshot service while its
// command runs, ends failed, Result signal: the command was killed before
// it could succeed (measured on 252 for ExecStartPre=, of a simple and of
// a oneshot service). An active service's ExecStop= commands run first,
// as its control process (execStopLocked): one that takes time keeps the
// unit deactivating/stop, and the stop goes on once they ended; the
// caller then waits for it (inExecStop, whenStoppedLocked). A stop while
// they run does nothing more.
func (m *manager) stopUnitLocked(u *unit) {
	if u.sub == "auto-restart" {
		// Nothing runs: the wait ends, Result kept (service_stop), and
		// as it goes from activating to inactive its OnSuccess= units
		// start, whatever its result (measured on 252, 257 and 262 by
		// the differential tester, RestartMode= normal and direct).
		u.cancelRestart()
		m.setStateLocked(u, "inactive", "dead")
		u.invocation = nil
		m.onSuccessLocked(u, "activating", true)
		return
	}
	if u.stopRuns() {
		return // stopping already (service_stop in SERVICE_STOP, scope_stop in SCOPE_STOP_SIGTERM)
	}
	if !u.isActive() && u.active != "activating" && u.active != "deactivating" {
		return // inactive or failed: nothing to stop
	}
	atOnce := stopsAtOnce(u)
	// A stop during the start's commands or a reload's kills them
	// (service_stop: "If there's already something running we go
	// directly into kill mode").
	killedStart := u.kind == "service" && (u.active == "activating" || u.isActive() && idleStarting(u, u.sub) || u.inReload()) && !stopKillsNothing(u) &&
		(u.control != nil || u.proc != nil && serviceType(u) == string(sdbus.ServiceOneshot))
	if u.kind == "service" && !killedStart && u.isActive() && len(u.commands("ExecStop")) > 0 {
		// ExecStop= runs before the remaining processes are killed. A
		// main process that ends not cleanly meanwhile fails the unit
		// first: that is the result (measured on 252 and 262).
		before := u.result
		m.execStopLocked(u, func(result string) {
			if r := u.result; r != before && r != "" && r != "success" {
				result = r
			}
			m.endStopLocked(u, stopHow{asked: true, atOnce: atOnce}, result)
		})
		return
	}
	if u.kind == "scope" && m.scopeStopKillsLocked(u) {
		// systemd sees the scope's processes end by its control group's
		// empty notification, which it handles after the SIGCHLD of
		// each service process the same pass killed, mostly: the scope
		// ends, and its stop job with it, after those services
		// (measured on 247-262 by the differential tester, 252 seed
		// 616150 of a long run: a service and the scope bound to it,
		// stopped together; the scope ended first in 1 of 3 runs on
		// 252, 2 of 8 on 257, 3 of 8 on 262: known difference
		// scope-end-race).
		m.setStateLocked(u, "deactivating", "stop-sigterm")
		u.emptying = true
		m.exitLocked(func() {
			u.emptying = false
			m.endStopLocked(u, stopHow{asked: true, atOnce: atOnce}, "")
			m.stoppedLocked(u)
		})
		return
	}
	m.endStopLocked(u, stopHow{asked: true, atOnce: atOnce, killedStart: killedStart}, "")
}

// stopRuns reports whether a stop of u runs and has not ended: its
// ExecStop= commands, or a scope's wait for its killed processes.
func (u *unit) stopRuns() bool { return u.inExecStop() || u.emptying }

// scopeStopKillsLocked reports whether a stop of scope u kills a process
// of its: its KillMode= ends them (control-group, mixed), and one is a
// process a signal ends (a zombie is not: a scope made for zombies ends
// at once).
func (m *manager) scopeStopKillsLocked(u *unit) bool {
	_, rest := killsOnStop(u)
	return rest && slices.ContainsFunc(u.pids, m.signalableLocked)
}

// endStopLocked ends the stop of u (stopUnitLocked) once its ExecStop=
// commands ended as execStop says ("" if they succeeded or there are
// none): ExecStopPost= runs, the remaining processes are killed, and u
// ends inactive, or failed when a command failed or its main process's
// end was not clean.
func (m *manager) endStopLocked(u *unit, how stopHow, execStop string) {
	atOnce, killedStart := how.atOnce, how.killedStart
	if how.asked {
		u.restart.stopping = true
		defer func() { u.restart.stopping = false }()
	}
	// A main process that its KillSignal= ends not cleanly (SIGKILL,
	// SIGUSR1, ...: is_clean_exit) fails the unit, Result signal
	// (measured on 257 by the differential tester, 257 seed 261380 of
	// a long run, and on 247, 252 and 262).
	killedMain := u.kind == "service" && u.proc != nil && !stopKillsNothing(u) && !u.cleanExit(cldKilled, killSignal(u))
	execStopFailed := execStop != ""
	stopFailed := execStopFailed
	if u.kind == "service" && !killedStart && len(u.commands("ExecStopPost")) > 0 {
		// ExecStopPost= runs after ExecStop=; a failure of either fails
		// the unit.
		stopFailed = !m.runCommandsLocked(u, "ExecStopPost") || stopFailed
	}
	m.killForStopLocked(u)
	m.setStateLocked(u, "deactivating", "stop")
	if killedStart {
		// ExecStop= does not run, ExecStopPost= does; the unit has
		// failed already, whatever it does (measured on 247-262 by the
		// differential tester).
		m.runCommandsLocked(u, "ExecStopPost")
		result := "signal"
		if u.result != "" && u.result != "success" {
			// A failure the start saw first stays its result
			// (service_enter_signal): a main process that failed
			// while ExecStartPost= ran (measured on 252).
			result = u.result
		}
		m.failLocked(u, result)
		return
	}
	switch {
	case killedMain && !execStopFailed:
		// The main process's end comes before ExecStopPost='s, and the
		// first failure is the result.
		m.failLocked(u, "signal")
		return
	case execStop == "signal" || execStop == "timeout":
		// ExecStop= killed (KillUnit) or stopped by TimeoutStopUSec=,
		// or the main process killed while it ran.
		m.failLocked(u, execStop)
		return
	case stopFailed:
		m.failLocked(u, "exit-code")
		return
	}
	if u.kind == "service" || u.kind == "scope" {
		u.result = "success"
	}
	m.setStateLocked(u, "inactive", "dead")
	u.invocation = nil
	m.stopDependentsLocked(u)
	m.onSuccessLocked(u, "deactivating", atOnce)
}

// stopHow is what kind of stop endStopLocked ends.
type stopHow struct {
	asked       bool // a stop asked for, after which u does not restart (not RuntimeMaxUSec='s)
	atOnce      bool // the stop ends u inside its stop job (stopsAtOnce)
	killedStart bool // the stop killed u's start
}

// stopsAtOnce reports whether a stop of u ends it at once, inside its stop
// job, on systemd: nothing runs that it waits for (a target, slice, timer
// or path unit; a service without a main or control process and without
// ExecStop= or ExecStopPost=). A stop that kills a process ends the unit
// when systemd sees the process's end, later (onfailure.go:
// collectAfterHandlersLocked).
func stopsAtOnce(u *unit) bool {
	switch u.kind {
	case "target", "slice", "timer", "path":
		return true
	case "service":
		return (u.proc == nil && u.control == nil || stopKillsNothing(u)) &&
			len(u.commands("ExecStop")) == 0 && len(u.commands("ExecStopPost")) == 0
	}
	return false
}

// cleanMasks are CleanUnit's resource types (ExecCleanMask), "fdstore"
// from sdversions.CleanFDStore on.
var cleanMasks = map[string]bool{"runtime": true, "state": true, "cache": true, "logs": true, "configuration": true, "all": true}

// cleanLocked is CleanUnit: the unit is loaded (and collected again when
// nothing holds it), then the checks of systemd's unit_clean in its
// order: resource types, unit type, an empty mask, a unit that is not
// inactive or has a job, and what there is to clean.
func (m *manager) cleanLocked(c *busd.Call, name string, mask []string) ([]any, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	u, fresh := m.loadForCallLocked(name)
	if u == nil {
		return nil, errNotFound(name)
	}
	if fresh {
		defer m.collectLocked(u)
	}
	if err := loadStateErr(u); err != nil {
		return nil, err
	}
	some := false
	for _, t := range mask {
		switch {
		case t == "":
		case cleanMasks[t], t == "fdstore" && sdversions.Behaves(m.release, sdversions.CleanFDStore):
			some = true
		default:
			return nil, errInvalidArgs("Invalid resource type: %s", t)
		}
	}
	if err := m.authorizeLocked(c); err != nil {
		return nil, err
	}
	if !unitTypes[u.kind].clean {
		return nil, &callErr{dbusErr + "NotSupported", "Unit '" + u.name + "' does not support cleaning."}
	}
	nothing := &callErr{errPrefix + "NothingToClean", "No matching resources found."}
	if !some {
		return nil, nothing
	}
	if u.job != nil || u.active != "inactive" && u.active != "failed" {
		return nil, &callErr{errPrefix + "UnitBusy", "Unit is not inactive or has pending job."}
	}
	return nil, nothing // the fake's units have no directories, no fd store
}

// u64 returns a t property or its default.
func (u *unit) u64(name string, def uint64) uint64 {
	if v, ok := u.props[name]; ok {
		if n, ok := v.Value().(uint64); ok {
			return n
		}
	}
	return def
}

func strOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func description(u *unit) string {
	if d := u.str("Description"); d != "" {
		return d
	}
	return u.name
}

// notFoundUnitLocked loads a unit no file defines: not-found, inactive,
// collected once nothing refers to it (a unit's dependency, a client's
// Ref). One loaded for its object path is collected within the call,
// unless referenced, before systemd would announce it: without UnitNew
// and UnitRemoved unless announce.
func (m *manager) notFoundUnitLocked(name string, announce bool) *unit {
	u := m.makeUnitLocked(name)
	u.load, u.unannounced = "not-found", !announce
	u.notFoundDirs = m.nameMap.dirs
	m.units[name] = u
	m.indexLocked(u)
	if announce {
		m.signalLocked(managerPath, managerIface, "UnitNew", func() []any { return []any{name, u.path()} })
	}
	return u
}
