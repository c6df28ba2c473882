package fakebus

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

const (
	managerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
	managerIface = "org.freedesktop.systemd1.Manager"
	unitIface    = "org.freedesktop.systemd1.Unit"
	jobIface     = "org.freedesktop.systemd1.Job"
	propsIface   = "org.freedesktop.DBus.Properties"
	jobPathBase  = "/org/freedesktop/systemd1/job/"
	unitPathBase = "/org/freedesktop/systemd1/unit/"

	errPrefix = "org.freedesktop.systemd1."
	dbusErr   = "org.freedesktop.DBus.Error."

	infinity = ^uint64(0)
)

// manager is the fake systemd. Like PID 1 it does one thing at a time: mu
// is held while a method call, a timer or a fault runs, and every signal
// and reply is queued (never written) under it, so each client sees them
// in the order the manager produced them.
type manager struct {
	bus *busd.Bus
	// release is the systemd release the fake plays (release.go: from the
	// per-version table fakebus/internal/sdversions).
	release sdversions.Release
	cfg     config
	dirs    unitDirs // the unit directories (unitfile.go); read-only
	// cgroupRoot is the directory of WithCgroupRoot (cgroup.go), or "".
	cgroupRoot string
	// started is when the manager started (UserspaceTimestamp).
	started time.Time
	// clock reads moments on the realtime and monotonic clocks (unit.go).
	clock clock
	// defaultTasksMax is DefaultTasksMax, read from the host at start
	// (cgroup.go).
	defaultTasksMax uint64
	// rlimits are the limits of a unit that sets none (defaultRlimits),
	// read from the host at start; read-only.
	rlimits map[string]uint64
	// nameMap is the unit name map of the last daemon-reload
	// (unitfile.go).
	nameMap nameMap

	// timersRunning counts the timers that are set or running; close
	// waits for it.
	timersRunning sync.WaitGroup
	// watchers counts the goroutines that watch units' processes
	// (procwatch.go); close waits for them.
	watchers sync.WaitGroup

	// waitMu guards tickets, waiting and queuedAt: who waits for mu, in
	// the order they came (runqueue.go). It may be taken under mu; mu is
	// never taken under it.
	waitMu   sync.Mutex
	tickets  uint64          // the last ticket handed out by lock
	waiting  map[uint64]bool // the tickets of the callers waiting for mu
	queuedAt uint64          // the last ticket handed out when the run queue became non-empty
	// inputOf is the connection whose next message the run queue waits
	// for, or nil (runqueue.go). Written under mu only; inputDrained
	// reads it without mu to skip the lock when it is not p.
	inputOf atomic.Pointer[busd.Peer]

	// mu guards every field below. Take it with lock and release it with
	// unlock, which runs the run queue.
	mu       sync.Mutex
	runQueue []*job // jobs whose turn has come (runqueue.go)
	passes   int    // how many times in a row the run queue was passed over
	// goOn: the run queue's last pass queued a job that must run in it
	// too, before any other caller (runqueue.go).
	goOn bool
	// exits are the ends of processes that exit at once: systemd sees
	// them (SIGCHLD) once its run queue's pass is over (reapLocked,
	// runqueue.go).
	exits   []func()
	version string
	units   map[string]*unit
	members map[string]map[*unit]bool // slice name -> the loaded units in it
	// triggeredBy: unit name -> the loaded units that trigger it (sockets,
	// timers, paths, automounts; trigger.go), so that a unit's state
	// change reaches its triggers without a scan of every unit.
	triggeredBy map[string]map[*unit]bool
	files       map[string]UnitFile
	// environment is the manager's Environment (SetEnvironment).
	environment []string
	// reverse are the loaded units with Requires=, BindsTo=, PartOf= or
	// Conflicts=, the ones a stop, restart or start may act on in reverse.
	reverse map[*unit]bool
	// unneeded are the units to check for StopWhenUnneeded= before the
	// lock is released (unneeded.go).
	unneeded []*unit
	// triggered are the units OnFailure= and OnSuccess= start before the
	// lock is released (onfailure.go).
	triggered []trigger
	// recollect are the units to collect once the jobs their stop's
	// OnSuccess= queued ran (onfailure.go).
	recollect []*unit
	// bound are the units to stop, before the lock is released, if one
	// they are bound to is down (systemd's stop-when-bound queue,
	// stopBoundLocked): bound to one that stopped while it had a job, or
	// active at a daemon-reload.
	bound []*unit
	// reverseSorted is reverse sorted by name, nil when reverse changed
	// since (reverseLocked); never changed in place.
	reverseSorted []*unit
	control       map[string][]controlSetting // SetUnitProperties on units not transient, by name (controldropin.go)
	aliases       map[string]string           // alias -> primary name (aliases.go)
	jobs          map[uint32]*job
	lastJob       uint32
	// lateReply holds the jobs whose reply a script delays, with the
	// reply, until it is sent (reexec.go releases their JobRemoved when
	// the bus drops it, Reset sends it).
	lateReply  map[*job]func()
	subscribed map[*busd.Peer]bool          // bus clients that called Subscribe (dbus_signals.go)
	requested  map[*busd.Peer]map[*job]bool // bus clients -> the jobs they requested (dbus_signals.go)
	reloading  bool
	// unitFilesChanged: a unit-file method changed something since the
	// last daemon-reload (sdversions.UnitFileChangesNeedReload).
	unitFilesChanged bool
	held             []jobSignal // JobRemoved held back while reloading
	// reloadCalls are the calls received while reloading, answered once the
	// reload is over (systemd reads nothing meanwhile); reloadEnd ends
	// the reload in progress at once (nil when none is); reloads counts
	// the reloads, so that a reload's timer does not end a later one.
	reloadCalls []*busd.Call
	reloadEnd   func()
	reloads     uint64
	// answer is answerLocked (dbus.go), through which a reload answers
	// the calls it held (a field, set by New: the method tables refer to
	// reload).
	answer    func(*busd.Call)
	reloadFor time.Duration
	reexecFor time.Duration // SetReexecDuration (reexec.go)
	scripts   []scriptRule
	conflicts []ScriptConflict // found as jobs ran (scriptcheck.go)
	timers    map[*time.Timer]struct{}
	// resets counts the Resets (reset.go): a timer armed before one does
	// nothing (afterLocked).
	resets uint64
	// idle are closed once no job is left, or the manager closes
	// (Server.WaitIdle).
	idle   []chan struct{}
	closed bool
	// measured are the properties measured on the captured release
	// nearest measuredFor, by captured kind and interface
	// (dbus_properties.go).
	measured    map[string]map[string]dbus.Variant
	measuredFor sdversions.Release
	// declared are the members of each interface as the release nearest
	// measuredFor declares them, by captured kind and interface
	// (declaredLocked, dbus_vtable.go).
	declared map[string][]sdversions.Member
	// standard are the standard targets the manager has (boot.go), whose
	// settings are not noted.
	standard map[string]bool
	// settings are the Manager properties a client Set (LogLevel,
	// LogTarget, the watchdogs; dbus_properties.go).
	settings map[string]dbus.Variant
}

func newManager(cfg config) (*manager, error) {
	v, err := sdbus.ParseVersion(cfg.version)
	if err != nil {
		return nil, fmt.Errorf("fakebus: %w", err)
	}
	dirs, err := setupUnitDirs(cfg)
	if err != nil {
		dirs.remove()
		return nil, err
	}
	cgroupRoot, err := setupCgroupRoot(cfg.cgroupRoot)
	if err != nil {
		dirs.remove()
		return nil, err
	}
	m := &manager{
		cfg: cfg, dirs: dirs, cgroupRoot: cgroupRoot, release: sdversions.Release{Major: v.Major, Minor: v.Minor},
		environment: defaultEnvironment(), version: cfg.version, started: time.Now(), clock: newClock(), defaultTasksMax: defaultTasksMax(), rlimits: defaultRlimits(cfg.user < 0),
		units: map[string]*unit{}, members: map[string]map[*unit]bool{}, triggeredBy: map[string]map[*unit]bool{}, files: map[string]UnitFile{}, reverse: map[*unit]bool{}, control: map[string][]controlSetting{}, aliases: map[string]string{}, jobs: map[uint32]*job{},
		waiting: map[uint64]bool{}, subscribed: map[*busd.Peer]bool{}, requested: map[*busd.Peer]map[*job]bool{}, timers: map[*time.Timer]struct{}{},
	}
	return m, nil
}

// init loads the units every manager has and the configured unit files,
// and sets the configured scripts. It runs once the bus exists.
func (m *manager) init() error {
	m.lock()
	defer m.unlock()
	return m.initLocked()
}

// initLocked is init, for a manager without units (new, or reset).
func (m *manager) initLocked() error {
	// The units of a booted system that are never stopped: the root and
	// system slices, the root mount, and init.scope, which holds PID 1.
	for _, h := range hostUnits {
		if m.cfg.user >= 0 && h.name == "system.slice" {
			// A user manager has app.slice instead (its init.scope
			// holds the manager's process, not PID 1).
			h.name, h.props = "app.slice", map[string]any{"Description": "User Application Slice", "DefaultDependencies": false}
		}
		u := m.newUnitLocked(h.name)
		u.active, u.sub = "active", h.sub
		u.perpetual = true
		u.activeAt = m.started
		for k, v := range h.props {
			u.props[k] = dbus.MakeVariant(v)
		}
		if u.kind == "scope" && m.cfg.user < 0 {
			u.pids = []uint32{1}
		}
		m.indexLocked(u)
		m.cgroupDirLocked(u)
	}
	// The standard targets, unless a unit file of the same name is given.
	given := map[string]bool{}
	for _, f := range m.cfg.units {
		given[f.Name] = true
	}
	standard, booted := standardUnitFiles(m.release, m.cfg.user >= 0)
	m.standard = map[string]bool{}
	for _, f := range standard {
		if given[f.Name] {
			continue
		}
		if err := m.addStandardFileLocked(f); err != nil {
			return err
		}
		m.standard[f.Name] = true
	}
	for _, f := range m.cfg.units {
		if err := m.addFileLocked(f); err != nil {
			return err
		}
	}
	for _, name := range booted {
		if u := m.loadLocked(name); u != nil && !given[name] {
			m.activateAtStartLocked(u)
			startedWithoutProcess(u)
		}
	}
	for _, f := range m.cfg.units {
		if !f.Active {
			continue
		}
		if f.Masked {
			return fmt.Errorf("fakebus: unit file %s: a masked unit cannot be active", f.Name)
		}
		u := m.loadLocked(f.Name)
		if u == nil {
			return fmt.Errorf("fakebus: unit file %s: cannot be loaded", f.Name)
		}
		m.activateAtStartLocked(u)
	}
	for i, ps := range m.cfg.scripts {
		if err := m.scriptLocked(ps.Pattern, ps.Script); err != nil {
			return fmt.Errorf("scripts[%d]: %w", i, err)
		}
	}
	m.reloadFor = m.cfg.reloadFor
	return nil
}

// activateAtStartLocked makes u active without a job, as the units a
// booted system started before any client came: its slices first.
func (m *manager) activateAtStartLocked(u *unit) {
	if u.isActive() {
		return
	}
	if s := u.slice(); s != "" {
		if p := m.loadLocked(s); p != nil {
			m.activateAtStartLocked(p)
		}
	}
	switch u.kind {
	case "service":
		if p, ok := m.command(u, 0); ok && serviceType(u) != string(sdbus.ServiceOneshot) && p.runFor != 0 {
			m.spawnLocked(u, p, nil)
			m.setStateLocked(u, "active", "running")
			return
		}
		m.setStateLocked(u, "active", "exited")
	default:
		m.setStateLocked(u, "active", activeSub(u))
	}
}

// defaultEnvironment is the manager's Environment at start.
func defaultEnvironment() []string {
	return []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
}

// hostUnits are the perpetual units every manager has loaded and active.
var hostUnits = []struct {
	name, sub string
	props     map[string]any
}{
	{"-.slice", "active", map[string]any{"Description": "Root Slice", "DefaultDependencies": false}},
	{"system.slice", "active", map[string]any{"Description": "System Slice", "DefaultDependencies": false}},
	{"-.mount", "mounted", map[string]any{"Description": "Root Mount", "Where": "/", "Slice": "-.slice", "DefaultDependencies": false}},
	{"init.scope", "running", map[string]any{"Description": "System and Service Manager", "Slice": "-.slice", "DefaultDependencies": false}},
}

// close stops the manager: no timer fires and no watch of a process
// (procwatch.go) runs after it returns.
func (m *manager) close() {
	m.mu.Lock()
	m.closed = true
	for t := range m.timers {
		if t.Stop() {
			m.timersRunning.Done() // it will never run
		}
	}
	m.timers = nil
	m.wakeIdleLocked()
	for _, u := range m.units {
		m.unwatchLocked(u)
	}
	m.mu.Unlock()
	m.timersRunning.Wait() // for callbacks already started
	m.watchers.Wait()
}

// afterLocked runs f under mu after d, unless the manager is closed or
// reset by then or stop (called under mu) stopped it first: a model that re-arms
// (a timer unit, RuntimeMaxUSec=) stops the arming it replaces, so a
// client cannot make pending timers pile up.
func (m *manager) afterLocked(d time.Duration, f func()) (stop func()) {
	if m.closed {
		return func() {}
	}
	m.timersRunning.Add(1)
	var t *time.Timer
	gen := m.resets
	t = time.AfterFunc(d, func() {
		defer m.timersRunning.Done()
		m.lock()
		defer m.unlock()
		if m.closed || m.resets != gen {
			return // closed, or reset: what it was armed for is gone
		}
		delete(m.timers, t)
		f()
	})
	m.timers[t] = struct{}{}
	return func() {
		// Not in m.timers: fired (f has run or waits for mu, and
		// removes it), or the manager closed.
		if _, ok := m.timers[t]; ok && t.Stop() {
			delete(m.timers, t)
			m.timersRunning.Done()
		}
	}
}

// managerStateLocked is the Manager's SystemState, as systemd's
// manager_state (src/core/manager.c) computes it once the boot has
// finished: "stopping" while shutdown.target is active or has a job,
// "maintenance" while rescue.target or emergency.target does, "degraded"
// while any unit is failed, else "running". Jobs do not change it once
// booted (measured on 252: "running" with a start job running, "degraded"
// with a failed unit and jobs running). The fake starts booted, so it
// never says "initializing" or "starting".
func (m *manager) managerStateLocked() string {
	pending := func(name string) bool {
		u := m.units[name]
		return u != nil && (u.isActive() || u.active == "activating" || u.job != nil)
	}
	switch {
	case pending("shutdown.target"):
		return "stopping"
	case pending("rescue.target"), pending("emergency.target"):
		return "maintenance"
	case m.nFailedLocked() > 0:
		return "degraded"
	}
	return "running"
}

// nFailedLocked is the number of failed units (NFailedUnits, systemd's
// set of failed units).
func (m *manager) nFailedLocked() uint32 {
	n := uint32(0)
	for _, u := range m.units {
		if u.active == "failed" {
			n++
		}
	}
	return n
}

// invocationPath is the object path of a unit by its invocation ID, the
// one GetUnitByInvocationID answers (systemd's
// unit_dbus_path_invocation_id): the ID's hex digits, bus-escaped.
func invocationPath(id []byte) dbus.ObjectPath {
	return sdbus.UnitPath(hex.EncodeToString(id))
}

// loadedLocked returns the loaded unit name, or systemd's error for a
// unit that is not loaded.
func (m *manager) loadedLocked(name string) (*unit, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	if u := m.unitLocked(name); u != nil {
		return u, nil
	}
	return nil, errNoSuchUnit(name)
}

// envName reports whether s is a valid environment variable name.
func envName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func unsetEnv(env, names []string) []string {
	out := env[:0:0]
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		drop := false
		for _, n := range names {
			if n == k || n == e {
				drop = true
			}
		}
		if !drop {
			out = append(out, e)
		}
	}
	return out
}

func setEnv(env, assignments []string) []string {
	for _, a := range assignments {
		k, _, _ := strings.Cut(a, "=")
		env = unsetEnv(env, []string{k})
		env = append(env, a)
	}
	sort.Strings(env)
	return env
}
