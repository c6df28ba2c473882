package fakebus

// Transient units (StartTransientUnit; systemd's
// transient_unit_from_message in dbus-manager.c and unit_make_transient
// in unit.c): a unit made from properties and its auxiliary units.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// auxUnit is an auxiliary unit of StartTransientUnit: its name and its
// settings.
type auxUnit struct {
	Name  string
	Props []setProp
}

// makeTransientLocked makes the units of a StartTransientUnit call from
// caller, in systemd's order of checks: the main unit name with its
// settings props (the call's a(sv), as sent), and the auxiliary units. It
// returns the main unit, whose start job the call queues.
func (m *manager) makeTransientLocked(caller *busd.Peer, name, mode string, props any, aux []auxUnit) (_ *unit, err error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	if !validModes[mode] || !m.has("mode:"+mode) {
		// Worded otherwise than StartUnit's "Job mode X invalid"
		// (measured on 252 by the differential tester).
		return nil, errInvalidArgs("Job mode %s is invalid.", mode)
	}
	// systemd asks polkit right after reading the name and the mode.
	if err := m.polkitNoReplyLocked(name); err != nil {
		return nil, err
	}
	todo := make([]newUnit, 0, 1+len(aux))
	todo = append(todo, newUnit{name: name})
	for _, a := range aux {
		if err := validName(a.Name); err != nil {
			return nil, err
		}
		todo = append(todo, newUnit{name: a.Name})
	}
	// made counts the units systemd has made for the call so far
	// (unit_make_transient, once a name passed as pristine): a refusal
	// frees those the fake did not keep.
	made := 0
	defer func() {
		if err != nil {
			m.refusedTransientLocked(todo[:made])
		}
	}()
	for i := range todo {
		nu := &todo[i]
		nu.kind = nu.name[strings.LastIndexByte(nu.name, '.')+1:]
		if !unitTypes[nu.kind].transient {
			return nil, errInvalidArgs("Unit type %s does not support transient units.", nu.kind)
		}
		// Loaded, or with a unit file, under its name or as an alias (the
		// primary name is looked up once: it reads the unit directories);
		// a mask is a fragment too (measured on 247, 252, 257 and 262 by
		// the differential tester: the name is refused, nothing loaded).
		// A unit loaded without any of these, and without a job, is
		// pristine: it becomes the transient unit (unit_is_pristine;
		// measured on 247-262 by the differential tester: a slice started
		// with no file, active, is taken over).
		primary, onDisk, stale := nu.name, false, false
		if p, ok := m.aliases[nu.name]; ok {
			primary = p
		} else if m.units[nu.name] == nil {
			if nu.kind != "scope" {
				m.refreshNameMapLocked() // the name is loaded first
			}
			// The name map, built while a transient unit of this name
			// was loaded, names the file the unit took with it, first
			// of the unit directories (changes of the transient one are
			// not looked at): systemd opens no file, and the name is
			// not found and so pristine, whatever file another unit
			// directory holds (measured on 247, 252, 257 and 262 by the
			// differential tester: an empty file written in /etc while
			// the unit ran, then another unit loaded). Otherwise one
			// read of the unit directories: a file, a mask or an alias
			// symlink of the name (primaryLocked's lookup).
			stale = nu.kind != "scope" && m.nameMap.transient[nu.name]
			if e, ok := m.lookupDiskLocked(nu.name); ok && !stale {
				onDisk = true
				if e.alias {
					primary = filepath.Base(e.file)
				}
			}
		}
		_, exists := m.files[primary]
		exists = exists && !stale
		if !exists && !onDisk && primary != nu.name && m.units[primary] == nil {
			_, exists = m.lookupDiskLocked(primary)
		}
		exists = exists || onDisk
		if nu.kind == "scope" {
			// systemd loads no scope from a file (scope_load): a file or
			// mask of its name is not looked at (measured on 247 and
			// 252 by the differential tester).
			exists = false
		}
		if u := m.units[primary]; u != nil && (primary != nu.name || !m.pristineLocked(u)) {
			exists = true
		} else if u == nil && !stale && !m.behaves(sdversions.TransientOverDropIns) && m.implicitDropInsLocked(primary) {
			// 247 loads the name first: a slice or device with drop-ins
			// is not pristine. One whose name the name map gives a
			// transient file gone since fails to load, and so is
			// (measured on 247 by the differential tester, 247 seed
			// 121518 of a long run: a transient slice given a drop-in,
			// a reload, a stop, StartTransientUnit again).
			exists = true
		}
		if exists {
			// systemd loads the name before it finds it not pristine
			// (transient_unit_from_message: manager_load_unit), and
			// the unit it loaded is collected unless something keeps
			// it (measured on 252, 257 and 262 by the differential
			// tester: a socket with a file whose OnFailure= unit has a
			// job stays loaded).
			if m.units[primary] == nil {
				if u, fresh := m.loadForCallLocked(primary); fresh {
					m.collectLocked(u)
				}
			}
			if !m.behaves(sdversions.UnitExistsExplained) {
				return nil, &callErr{errPrefix + "UnitExists", "Unit " + nu.name + " already exists."}
			}
			return nil, &callErr{errPrefix + "UnitExists", "Unit " + nu.name + " was already loaded or has a fragment file."}
		}
		made++
		body := props
		if i > 0 {
			body = aux[i-1].Props
		}
		var err error
		if nu.props, err = m.checkPropsLocked(nu.kind, body, false); err == nil && caller.Mode() == busd.PeerMode && addsRef(nu.props) {
			// systemd tracks a reference by the sender's bus name, which a
			// private-socket client has none of (measured on 247, 252 and
			// 262: InvalidArgs "Invalid argument", nothing created).
			err = errInvalidArgs("Invalid argument")
		}
		if err != nil {
			m.stubLocked(todo[:i+1])
			return nil, err
		}
	}
	// Check what makes the units unloadable before creating any. A
	// start the main unit refuses is refused before its load state is
	// looked at (a socket without Listen= too, measured on 252 by the
	// differential tester), once the units are made: a pristine unit
	// keeps the settings (a slice started with no file, active, is
	// transient now, no longer pristine); a new one is collected at once
	// (GetUnit: NoSuchUnit). Measured on 247-262.
	var refused error
	for i, nu := range todo {
		// What the unit loads with: its settings, then its drop-ins'
		// and SetUnitProperties' (applyDropInsLocked).
		view := m.transientViewLocked(nu.name, nu.kind, nu.props)
		has := func(n string) bool {
			_, ok := view.props[n]
			return ok
		}
		if i == 0 && view.boolProp("RefuseManualStart", false) {
			refused = errOnlyByDependency(nu.name)
			break
		}
		if i == 0 && isolateRefused(mode, view) {
			refused = errNoIsolation()
			break
		}
		if i == 0 {
			// A mode a start does not take (triggering) is refused as
			// the job is added, after the unit is made (measured on 252
			// and 262 by the differential tester, seeds 57000-57003 and
			// 59003: a target is refused as a transient unit, an
			// existing scope is UnitExists, first).
			if err := modeFits(mode, jobStart); err != nil {
				refused = err
				break
			}
		}
		// What systemd's unit verification refuses (its log says why;
		// the caller gets the generic error), measured on 247, 252, 257
		// and 262 by the differential tester.
		badSetting := &callErr{errPrefix + "BadUnitSetting", "Unit " + nu.name + " has a bad unit file setting."}
		switch {
		case nu.kind == "scope" && !has("PIDs"):
			if m.behaves(sdversions.LoadErrorAdvice) {
				return nil, &callErr{dbusErr + "FileNotFound", "Unit " + nu.name + " failed to load properly, please adjust/correct and reload service manager: No such file or directory"}
			}
			return nil, &callErr{dbusErr + "FileNotFound", "Unit " + nu.name + " failed to load properly: No such file or directory."}
		case nu.kind == "socket" && !has("Listen"),
			nu.kind == "service" && m.badService(view),
			nu.kind == "timer" && !m.timerLoadsWithValuesLocked(nu.name, nu.props), // "Timer unit lacks value setting. Refusing."
			isolatesMany(view): // onfailure.go
			m.badTransientLocked(nu)
			return nil, badSetting
		}
		if err := checkStdioFDs(nu.props); err != nil {
			return nil, err
		}
		for _, p := range nu.props {
			if p.Name != "Requires" && p.Name != "BindsTo" && p.Name != "Requisite" {
				continue
			}
			for _, dep := range p.Value.Value().([]string) {
				if m.loadLocked(dep) == nil && !inTodo(dep, todo) {
					return nil, errNotFound(dep)
				}
			}
		}
	}
	var main *unit
	for i := len(todo) - 1; i >= 0; i-- { // auxiliary units first
		nu := todo[i]
		u := m.units[nu.name] // pristine
		made := u == nil
		if made {
			u = m.newUnitLocked(nu.name)
		}
		u.load, u.transient = "loaded", true
		// Where systemd writes the unit's settings; the fake writes no
		// file there.
		u.fragment = m.transientUnitDirLocked() + "/" + u.name
		names := make([]string, 0, len(nu.props))
		u.transientProps = nil
		for _, p := range nu.props {
			names = append(names, p.Name)
			if p.Name == "AddRef" {
				m.addRefLocked(u, caller, p.Value.Value().(bool))
				continue
			}
			if p.Name != "PIDs" {
				u.transientProps = append(u.transientProps, p)
			}
			m.setPropLocked(u, p.Name, p.Value)
		}
		m.applyDropInsLocked(u)
		// SetUnitProperties' drop-ins of the name come after the
		// transient file, a pristine unit's too: it loads them again
		// (measured on 252, 257 and 262 by the differential tester:
		// DropInPaths lists them).
		m.applyControlLocked(u)
		m.settingsNoteLocked(u.name, "StartTransientUnit", names, nil)
		m.watchPIDsLocked(u, u.pids, caller.PID())
		m.indexLocked(u)
		main = u
	}
	for _, nu := range todo {
		m.loadTriggeredLocked(m.units[nu.name])
	}
	if refused != nil {
		for _, nu := range todo {
			if u := m.units[nu.name]; u != nil {
				m.collectLocked(u)
			}
		}
		return nil, refused
	}
	return main, nil
}

// refusedTransientLocked is the end of a StartTransientUnit call refused
// once systemd had made the units of made: a unit the fake did not keep
// (none is loaded under its name now) was freed, which has 262 look at
// its unit name map again (removeUnitLocked, transientFreedLocked).
func (m *manager) refusedTransientLocked(made []newUnit) {
	for _, nu := range made {
		if m.units[nu.name] == nil {
			m.transientFreedLocked()
			return
		}
	}
}

// transientFreedLocked is what the manager does once it freed a transient
// unit: 262 builds its unit name map again if a unit directory changed
// (sdversions.TransientFreeRefreshesNameMap).
func (m *manager) transientFreedLocked() {
	if m.behaves(sdversions.TransientFreeRefreshesNameMap) {
		m.refreshNameMapLocked()
	}
}

// badTransientLocked leaves nu's unit, which its settings make a bad
// setting, as systemd does: a pristine unit that is loaded (a unit not
// found that another's Wants= keeps) was made transient with nu's
// settings, failed to load and stays, bad-setting, its fragment the
// transient file, while it is kept; a new one is never seen (247 seed
// 101932 of a long run; its replay passes on 247, 252, 257 and 262).
func (m *manager) badTransientLocked(nu newUnit) {
	u := m.units[nu.name]
	if u == nil {
		return
	}
	u.load, u.transient = "bad-setting", true
	u.fragment = m.transientUnitDirLocked() + "/" + u.name
	u.transientProps = nil
	m.takeSettingsLocked(u, nu.props)
	m.applyDropInsLocked(u)
	m.applyControlLocked(u)
	m.collectLocked(u)
}

// stubLocked leaves the units of made, a StartTransientUnit call's main
// unit and the auxiliary units up to the one whose settings were refused,
// as systemd leaves them: each was made transient before its settings
// were applied (unit_make_transient: load state "stub", its fragment the
// transient file) and is never loaded. A unit made for the call, or that
// nothing keeps, is collected at once; one that stays is a stub: its start
// is refused LoadFailed, it needs a daemon-reload, which loads it from its
// transient file. Settings are applied all or none (bus_unit_set_properties
// checks them all first): the refused unit keeps what it had, the units
// before it take theirs. Measured on 247, 252, 257 and 262 by the
// differential tester (an active slice started with no file).
func (m *manager) stubLocked(made []newUnit) {
	for i, nu := range made {
		u := m.units[nu.name]
		if u == nil {
			continue
		}
		u.load, u.transient = "stub", true
		u.fragment = m.transientUnitDirLocked() + "/" + u.name
		// Made transient, its drop-ins are forgotten until it loads
		// (unit_make_transient): a pristine unit whose transient
		// settings were refused lists none until a reload (262 seed
		// 46020).
		u.dropIns = nil
		if i < len(made)-1 {
			m.takeSettingsLocked(u, nu.props)
		}
		m.collectLocked(u)
	}
}

// emptyTransientFile reports whether u's transient file is empty: u is a
// stub (stubLocked), made transient and never loaded. systemd writes
// the file through a buffer it flushes when the unit loads, or is freed
// at a daemon-reload; until then the file is empty, which the unit file
// operations take for a mask (GetUnitFileState masked-runtime;
// DisableUnitFiles says "masked" with its path, EnableUnitFiles refuses
// it UnitMasked). Measured on 247, 252, 257 and 262 by the differential
// tester (252 seed 370276 of a long run: an active slice started with no
// file, then StartTransientUnit of it with a setting refused).
func (u *unit) emptyTransientFile() bool { return u.transient && u.load == "stub" }

// takeSettingsLocked applies the settings of a StartTransientUnit call to
// u, a unit made transient that does not load, and adds them to its
// transient file's (PIDs= is none of the file's; AddRef= is the caller's,
// not a setting).
func (m *manager) takeSettingsLocked(u *unit, props []setProp) {
	for _, p := range props {
		if p.Name == "AddRef" {
			continue
		}
		if p.Name != "PIDs" {
			u.transientProps = append(u.transientProps, p)
		}
		m.setPropLocked(u, p.Name, p.Value)
	}
}

// pristineLocked reports whether loaded unit u can become a transient
// unit (systemd's unit_is_pristine): loaded or not found, from no file,
// not transient already, with no job; before 252 with no drop-in either,
// SetUnitProperties' included (sdversions.TransientOverDropIns). A
// perpetual unit (-.slice) is not taken over (not measured).
func (m *manager) pristineLocked(u *unit) bool {
	dropIns := len(u.dropIns) > 0 || len(m.control[u.name]) > 0
	return (u.load == "loaded" || u.load == "not-found") && u.fragment == "" && !u.fromFile && !u.transient &&
		(!dropIns || m.behaves(sdversions.TransientOverDropIns)) && u.job == nil && !u.perpetual
}

// implicitDropInsLocked reports whether name, not loaded, is a slice or
// a device that would load with drop-ins (in the unit directories, or
// SetUnitProperties'): units that need no file, whose drop-ins are read.
func (m *manager) implicitDropInsLocked(name string) bool {
	if !strings.HasSuffix(name, ".slice") && !strings.HasSuffix(name, ".device") {
		return false
	}
	return len(m.control[name]) > 0 || len(m.dropInsLocked([]string{name})) > 0
}

// addsRef reports whether props set AddRef=true.
func addsRef(props []setProp) bool {
	for _, p := range props {
		if p.Name == "AddRef" {
			if b, ok := p.Value.Value().(bool); ok && b {
				return true
			}
		}
	}
	return false
}

func inTodo(n string, todo []newUnit) bool {
	for _, t := range todo {
		if t.name == n {
			return true
		}
	}
	return false
}

// transientUnitDirLocked is the directory systemd writes transient
// units' files to, their FragmentPath's: /run/systemd/transient, a user
// manager's in its runtime directory, /run/user/UID/systemd/transient
// (measured on 247-262).
func (m *manager) transientUnitDirLocked() string {
	if m.cfg.user >= 0 {
		return fmt.Sprintf("/run/user/%d/systemd/transient", m.cfg.user)
	}
	return "/run/systemd/transient"
}

// newUnit is a unit StartTransientUnit is about to create.
type newUnit struct {
	name  string
	kind  string
	props []setProp
}

// addRefLocked is a transient unit's AddRef= (systemd's
// bus_unit_set_transient_property): true adds a reference on u held by
// the calling client, as RefUnit does, so u stays loaded after it ends
// until the client disconnects (systemd-run --wait reads the result of
// its unit that way); false drops nothing, as a new unit has no
// reference yet.
func (m *manager) addRefLocked(u *unit, p *busd.Peer, ref bool) {
	if !ref {
		return
	}
	if u.refs == nil {
		u.refs = map[*busd.Peer]int{}
	}
	u.refs[p]++
}

// transientViewLocked is a scratch unit with the settings transient unit
// name of this kind loads with, for the checks made before it is created:
// props, then its drop-ins', then SetUnitProperties' if it is not loaded
// yet, joined as applyDropInsLocked and setPropLocked join them.
func (m *manager) transientViewLocked(name, kind string, props []setProp) *unit {
	view := &unit{name: name, kind: kind, props: map[string]dbus.Variant{}}
	set := func(n string, v dbus.Variant) {
		if nv, err := normalize(v); err == nil {
			v = nv
		}
		old, had := view.props[n]
		view.props[n] = joinProp(n, old, had, v)
	}
	for _, p := range props {
		set(p.Name, p.Value)
	}
	if paths := m.seenDropInsLocked([]string{name}); len(paths) > 0 {
		pu := m.parseUnitFile(name, readDropIns(paths)...)
		for n := range pu.reset {
			delete(view.props, n)
		}
		for _, p := range pu.props {
			set(p.Name, p.Value)
		}
	}
	if m.units[name] == nil {
		for _, p := range m.control[name] {
			set(p.Name, p.Value)
		}
	}
	return view
}
