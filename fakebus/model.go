package fakebus

import (
	"crypto/rand"
	"fmt"
	"path"
	"sort"
	"strconv"
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
	// release is the systemd release the fake plays (versions.go: from the
	// per-version table fakebus/internal/sdversions).
	release sdversions.Release
	cfg     config
	dirs    unitDirs // the unit directories (unitdir.go); read-only
	// cgroupRoot is the directory of WithCgroupRoot (cgroupdir.go), or "".
	cgroupRoot string
	// started is when the manager started (UserspaceTimestamp).
	started time.Time

	// timersRunning counts the timers that are set or running; close
	// waits for it.
	timersRunning sync.WaitGroup

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
	runQueue []*job // jobs whose turn has come, in order (runqueue.go)
	passes   int    // how many times in a row the run queue was passed over
	version  string
	units    map[string]*unit
	members  map[string]map[*unit]bool // slice name -> the loaded units in it
	files    map[string]UnitFile
	// environment is the manager's Environment (SetEnvironment).
	environment []string
	// reverse are the loaded units with Requires=, BindsTo=, PartOf= or
	// Conflicts=, the ones a stop, restart or start may act on in reverse.
	reverse map[*unit]bool
	control map[string][]setProp // SetUnitProperties on units from files, by name (unitdir.go)
	aliases map[string]string    // alias -> primary name (aliases.go)
	jobs    map[uint32]*job
	lastJob uint32
	// lateReply holds the jobs whose reply a script delays, until it is
	// sent (reexec.go releases their JobRemoved when the bus drops it).
	lateReply  map[*job]bool
	subscribed map[*busd.Peer]bool          // bus clients that called Subscribe (signals.go)
	requested  map[*busd.Peer]map[*job]bool // bus clients -> the jobs they requested (signals.go)
	reloading  bool
	held       []jobSignal // JobRemoved held back while reloading
	reloadFor  time.Duration
	reexecFor  time.Duration // SetReexecDuration (reexec.go)
	scripts    []scriptRule
	conflicts  []ScriptConflict // found as jobs ran (scriptcheck.go)
	timers     map[*time.Timer]struct{}
	closed     bool
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
		environment: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, version: cfg.version, started: time.Now(),
		units: map[string]*unit{}, members: map[string]map[*unit]bool{}, files: map[string]UnitFile{}, reverse: map[*unit]bool{}, control: map[string][]setProp{}, aliases: map[string]string{}, jobs: map[uint32]*job{},
		waiting: map[uint64]bool{}, subscribed: map[*busd.Peer]bool{}, requested: map[*busd.Peer]map[*job]bool{}, timers: map[*time.Timer]struct{}{},
	}
	return m, nil
}

// init loads the units every manager has, and the configured unit files.
// It runs once the bus exists.
func (m *manager) init() error {
	m.lock()
	defer m.unlock()
	// The units of a booted system that are never stopped: the root and
	// system slices, the root mount, and init.scope, which holds PID 1.
	for _, h := range hostUnits {
		u := m.newUnitLocked(h.name)
		u.active, u.sub = "active", h.sub
		u.perpetual = true
		u.activeAt = m.started
		for k, v := range h.props {
			u.props[k] = dbus.MakeVariant(v)
		}
		if u.kind == "scope" {
			u.pids = []uint32{1}
		}
		m.indexLocked(u)
		m.cgroupDirLocked(u)
	}
	for _, f := range m.cfg.units {
		if err := m.addFileLocked(f); err != nil {
			return err
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
		if p, ok := u.command(); ok && serviceType(u) != string(sdbus.ServiceOneshot) && p.runFor != 0 {
			m.spawnLocked(u, p, nil)
			m.setStateLocked(u, "active", "running")
			return
		}
		m.setStateLocked(u, "active", "exited")
	case "scope":
		m.setStateLocked(u, "active", "running")
	case "socket":
		m.setStateLocked(u, "active", "listening")
	default:
		m.setStateLocked(u, "active", "active")
	}
}

// hostUnits are the perpetual units every manager has loaded and active.
var hostUnits = []struct {
	name, sub string
	props     map[string]any
}{
	{"-.slice", "active", map[string]any{"Description": "Root Slice"}},
	{"system.slice", "active", map[string]any{"Description": "System Slice"}},
	{"-.mount", "mounted", map[string]any{"Description": "Root Mount", "Where": "/"}},
	{"init.scope", "running", map[string]any{"Description": "System and Service Manager", "Slice": "-.slice"}},
}

// close stops the manager: no timer fires after it returns.
func (m *manager) close() {
	m.mu.Lock()
	m.closed = true
	for t := range m.timers {
		if t.Stop() {
			m.timersRunning.Done() // it will never run
		}
	}
	m.timers = nil
	m.mu.Unlock()
	m.timersRunning.Wait() // for callbacks already started
}

// afterLocked runs f under mu after d, unless the manager is closed by
// then.
func (m *manager) afterLocked(d time.Duration, f func()) {
	if m.closed {
		return
	}
	m.timersRunning.Add(1)
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		defer m.timersRunning.Done()
		m.lock()
		defer m.unlock()
		if m.closed {
			return
		}
		delete(m.timers, t)
		f()
	})
	m.timers[t] = struct{}{}
}

// unit is a loaded unit.
type unit struct {
	name       string
	kind       string // "service", "scope", "slice", "target", "socket", ...
	transient  bool
	fromFile   bool     // loaded from a unit file (or an AddUnitFile one)
	file       string   // the unit file on disk, if any (unitdir.go)
	aliases    []string // its other names, from symlinks to file
	perpetual  bool     // -.slice and friends: never stopped or collected
	masked     bool
	load       string
	active     string
	sub        string
	result     string // the type interface's Result
	props      map[string]dbus.Variant
	job        *job
	proc       *process
	exec       execMain // the main process's last run (readprops.go)
	pids       []uint32
	invocation []byte
	condition  bool // ConditionResult
	assert     bool // AssertResult
	changed    time.Time
	activeAt   time.Time
	gone       bool   // removed from m.units
	parent     string // the slice it is indexed under in m.members
	objPath    dbus.ObjectPath
	freezer    string             // FreezerState: "running" or "frozen"
	subcgroups map[string]bool    // sub-cgroups made with MakeSubcgroup (attach.go)
	refs       map[*busd.Peer]int // RefUnit references, by client (managermore.go)
}

func (m *manager) newUnitLocked(name string) *unit {
	u := &unit{
		name: name, kind: name[strings.LastIndexByte(name, '.')+1:], load: "loaded",
		active: "inactive", sub: "dead", props: map[string]dbus.Variant{}, condition: true, assert: true,
		changed: time.Now(), freezer: "running",
	}
	if u.kind == "service" || u.kind == "scope" {
		u.result = "success"
	}
	m.units[name] = u
	m.indexLocked(u)
	m.signalLocked(managerPath, managerIface, "UnitNew", func() []any { return []any{name, u.path()} })
	return u
}

// indexLocked records u under its slice in m.members; call it again when
// u's Slice property changes.
func (m *manager) indexLocked(u *unit) {
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

// membersLocked returns the units in slice, sorted by name.
func (m *manager) membersLocked(slice string) []*unit {
	out := make([]*unit, 0, len(m.members[slice]))
	for u := range m.members[slice] {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
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

// slice returns the slice a unit lives in ("" for -.slice).
func (u *unit) slice() string {
	if u.kind == "slice" {
		p, _ := sdbus.SliceParent(u.name)
		return p
	}
	if s := u.str("Slice"); s != "" {
		return s
	}
	if u.kind == "service" || u.kind == "scope" {
		return "system.slice"
	}
	return ""
}

// triggers returns the unit a socket triggers ("" for other kinds): its
// service of the same name.
func (u *unit) triggers() string {
	if u.kind != "socket" {
		return ""
	}
	return strings.TrimSuffix(u.name, ".socket") + ".service"
}

// cgroup returns the unit's control group path.
func (u *unit) cgroup() string {
	if u.kind == "slice" {
		p, _ := sdbus.ExpandSlice(u.name)
		return p
	}
	if s := u.slice(); s != "" {
		p, _ := sdbus.ExpandSlice(s)
		return strings.TrimSuffix(p, "/") + "/" + u.name
	}
	return ""
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

// setState changes the unit's state and tells subscribers.
func (m *manager) setStateLocked(u *unit, active, sub string) {
	if u.active == active && u.sub == sub {
		return
	}
	wasActive := u.isActive()
	u.active, u.sub, u.changed = active, sub, time.Now()
	if active == "inactive" || active == "failed" {
		u.freezer = "running"
	}
	if u.isActive() && !wasActive {
		u.activeAt = u.changed
	}
	if (active == "activating" || u.isActive()) && u.invocation == nil {
		u.invocation = make([]byte, 16)
		_, _ = rand.Read(u.invocation)
	}
	m.cgroupDirLocked(u)
	m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
		return []any{unitIface, map[string]dbus.Variant{
			"ActiveState": dbus.MakeVariant(active),
			"SubState":    dbus.MakeVariant(sub),
		}, []string{}}
	})
	if iface := typeIface(u.kind); iface != "" && (u.kind == "service" || u.kind == "scope") {
		m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
			return []any{iface, map[string]dbus.Variant{"Result": dbus.MakeVariant(u.result)}, []string{}}
		})
	}
}

// failLocked puts u into the failed state with the given Result.
func (m *manager) failLocked(u *unit, result string) {
	u.result = result
	m.setStateLocked(u, "failed", "failed")
	u.invocation = nil
	m.stopDependentsLocked(u)
	m.collectLocked(u)
}

// deactivateLocked puts u into inactive/dead (after a clean exit or stop).
func (m *manager) deactivateLocked(u *unit) {
	m.setStateLocked(u, "inactive", "dead")
	u.invocation = nil
	m.stopDependentsLocked(u)
	m.collectLocked(u)
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
}

// pinnedLocked reports whether u stays loaded whatever refers to it: it
// has a job, a client's reference (RefUnit), is perpetual, has no
// configuration to load it again from (neither transient nor from a
// file, and not a slice), or is not inactive (failed units stay, unless
// CollectMode=inactive-or-failed).
func pinnedLocked(u *unit) bool {
	if u.job != nil || u.perpetual || len(u.refs) > 0 || !(u.transient || u.fromFile || u.kind == "slice") {
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
	if pinnedLocked(u) {
		return true
	}
	seen[u] = true
	for _, o := range m.referrersLocked(u) {
		if !seen[o] && m.keptLocked(o, seen) {
			return true
		}
	}
	return false
}

// referrersLocked returns the loaded units that refer to u: by a
// dependency setting, as a member of slice u, as the socket that
// triggers u.
func (m *manager) referrersLocked(u *unit) []*unit {
	var out []*unit
	for _, o := range m.sortedUnitsLocked() {
		if o == u {
			continue
		}
		if o.parent == u.name || o.triggers() == u.name || refersTo(o, u.name) {
			out = append(out, o)
		}
	}
	return out
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
		if contains(o.list(d), name) {
			return true
		}
	}
	return false
}

func (m *manager) removeUnitLocked(u *unit) {
	u.gone = true
	delete(m.reverse, u)
	m.indexLocked(u)
	delete(m.units, u.name)
	m.signalLocked(managerPath, managerIface, "UnitRemoved", func() []any { return []any{u.name, u.path()} })
}

// stopDependentsLocked stops the units inside a slice that stopped, and
// the units bound to a unit that stopped (BindsTo=).
func (m *manager) stopDependentsLocked(u *unit) {
	for _, o := range m.reverseLocked() {
		if o != u && !o.perpetual && o.isActive() && o.job == nil && contains(o.list("BindsTo"), u.name) {
			if j, _, err := m.installLocked(o, jobStop, sdbus.ModeReplace, nil); err == nil {
				j.replied = true
				m.maybeRunLocked(j)
			}
		}
	}
	if u.kind != "slice" {
		return
	}
	for _, o := range m.membersLocked(u.name) {
		if (o.isActive() || o.active == "activating") && o.job == nil {
			if j, _, err := m.installLocked(o, jobStop, sdbus.ModeReplace, nil); err == nil {
				j.replied = true
				m.maybeRunLocked(j)
			}
		}
	}
}

// reverseLocked returns the units of m.reverse, sorted by name.
func (m *manager) reverseLocked() []*unit {
	out := make([]*unit, 0, len(m.reverse))
	for u := range m.reverse {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
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

// loadLocked returns the loaded unit name, loading it from a unit file,
// or creating an implicit slice, when needed. It returns nil when no such
// unit exists.
func (m *manager) loadLocked(name string) *unit {
	name = m.primaryLocked(name)
	if u := m.units[name]; u != nil {
		return u
	}
	if src, ok := m.sourceLocked(name); ok {
		if u := m.units[src.name]; u != nil {
			return u // name is a new alias of a loaded unit
		}
		u := m.newUnitLocked(src.name)
		m.applySourceLocked(u, src)
		return u
	}
	if strings.HasSuffix(name, ".slice") && sdbus.ValidateUnitName(name) == nil {
		// Slices need no unit file.
		return m.newUnitLocked(name)
	}
	return nil
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
			_, err = m.checkPropsLocked(kind, []setProp{{p.Name, v}})
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

// process is the main process of a running service.
type process struct {
	exit    int           // exit status when it ends by itself
	runFor  time.Duration // how long it runs; < 0: until stopped
	started time.Time
	pid     uint32
	ended   bool
}

// command interprets the first ExecStart= command of a service: the fake
// runs no programs, it knows what a few do. true exits 0, false exits 1,
// sleep N runs N seconds and exits 0, sh -c 'exit N' exits N, sh -c
// 'sleep N' sleeps; anything else runs until it is stopped.
func (u *unit) command() (p process, ok bool) {
	v, found := u.props["ExecStart"]
	if !found {
		return process{}, false
	}
	var cmds []execCommand
	if dbus.Store([]any{v.Value()}, &cmds) != nil || len(cmds) == 0 {
		return process{}, false
	}
	return interpret(cmds[0].Argv), true
}

// commands returns the commands of an Exec* property other than
// ExecStart (ExecStartPre, ExecStartPost, ExecReload).
func (u *unit) commands(name string) []execCommand {
	v, found := u.props[name]
	if !found {
		return nil
	}
	var cmds []execCommand
	if dbus.Store([]any{v.Value()}, &cmds) != nil {
		return nil
	}
	return cmds
}

// runCommands runs the commands of an Exec* property other than ExecStart
// the way the fake runs them: at once, in order, each with the exit status
// interpret gives it (a command it does not know exits 0), stopping at the
// first that fails without a "-" prefix (IgnoreFailure). It reports
// whether they all succeeded.
func (u *unit) runCommands(name string) bool {
	for _, c := range u.commands(name) {
		if interpret(c.Argv).exit != 0 && !c.IgnoreFailure {
			return false
		}
	}
	return true
}

type execCommand struct {
	Path          string
	Argv          []string
	IgnoreFailure bool
}

// interpret returns what a command does in the fake: a command it does
// not know runs until it is stopped.
func interpret(argv []string) process {
	p, _ := interpretKnown(argv)
	return p
}

// interpretKnown is interpret, reporting whether the fake knows the
// command (known false: it runs until stopped).
func interpretKnown(argv []string) (p process, known bool) {
	if len(argv) == 0 {
		return process{runFor: -1}, false
	}
	switch path.Base(argv[0]) {
	case "true":
		return process{}, true
	case "false":
		return process{exit: 1}, true
	case "sleep":
		if len(argv) == 2 {
			if d, ok := parseSleep(argv[1]); ok {
				return process{runFor: d}, true
			}
		}
	case "sh", "bash", "dash":
		if len(argv) == 3 && argv[1] == "-c" {
			f := strings.Fields(argv[2])
			switch {
			case len(f) == 2 && f[0] == "exit":
				if n, err := strconv.Atoi(f[1]); err == nil {
					return process{exit: n}, true
				}
			case len(f) == 2 && f[0] == "sleep":
				if d, ok := parseSleep(f[1]); ok {
					return process{runFor: d}, true
				}
			case len(f) == 1 && (f[0] == "true" || f[0] == ":"):
				return process{}, true
			case len(f) == 1 && f[0] == "false":
				return process{exit: 1}, true
			}
		}
	}
	return process{runFor: -1}, false
}

func parseSleep(s string) (time.Duration, bool) {
	if s == "infinity" {
		return -1, true
	}
	s = strings.TrimSuffix(s, "s")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// jobPath returns a job's object path.
func jobPath(id uint32) dbus.ObjectPath {
	return dbus.ObjectPath(jobPathBase + strconv.FormatUint(uint64(id), 10))
}

// UnitFileError is the error of WithUnitFile and AddUnitFile for a property
// the release the fake plays refuses in a unit file: an unknown name, a
// wrong D-Bus type or a value out of range, checked as StartTransientUnit
// checks them.
type UnitFileError struct {
	Unit, Property string
	Err            error
}

func (e *UnitFileError) Error() string {
	return fmt.Sprintf("fakebus: unit file %s: property %s: %v", e.Unit, e.Property, e.Err)
}

func (e *UnitFileError) Unwrap() error { return e.Err }
