package fakebus

// SetUnitProperties' drop-ins (systemd's unit_write_setting, measured on
// 247, 252, 257 and 262 by the differential tester: replay "set
// properties' drop-ins"). Each setting SetUnitProperties sets on a loaded
// unit is written to a drop-in of its own, NAME.d/50-SETTING.conf (SETTING
// the property's name; CPUQuotaPerSecUSec's is CPUQuota,
// CPUQuotaPeriodUSec's CPUQuotaPeriodSec): in the transient
// directory for a transient unit, whatever the runtime flag, else in
// system.control beside the configuration directory, or beside the
// runtime one with runtime set. A setting the release ignores (262's
// cgroup v1 ones) writes none. The fake keeps the settings and lists the
// drop-ins where systemd does; it writes no file, as it writes no
// transient file.
//
// DropInPaths lists a drop-in as soon as it is written: before 257 after
// the ones the unit was loaded with, in the order written (a setting
// written again keeps its place), and NeedDaemonReload is then true while
// that order is not the one a load finds (systemd compares the two lists:
// CPUWeight= set after Description= needs a daemon-reload, set before it
// does not); from 257 the list is kept in the load's order
// (sdversions.ControlDropInsSorted). A load (the unit's first, a
// daemon-reload's) lists them with the unit's other drop-ins, sorted by
// file name; of drop-ins with the same file name the first of
// system.control, the runtime system.control and the transient directory
// wins, as their places on the unit path say. In that order they apply: a
// drop-in of the unit directories whose name sorts after 50-SETTING.conf
// and sets the setting overrides it once the unit is loaded again. A
// setting reads back from its drop-in as from a transient unit's file
// (readBackLocked: measured for CPUQuotaPerSecUSec=, TasksMaxScale= and
// ManagedOOMMemoryPressureLimit= on 252-262).

import (
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// controlSetting is a setting SetUnitProperties set, with the drop-in
// systemd writes it to, as the drop-in holds it: the value the call gave,
// or with whole the unit's whole list after the call (the per-device
// lists, devicelist.go: bus_cgroup_set_property writes "NAME=", then each
// entry).
type controlSetting struct {
	setProp
	path  string
	whole bool
}

// controlDropInLocked returns the drop-in systemd writes setting name of
// u to.
func (m *manager) controlDropInLocked(u *unit, name string, runtime bool) string {
	dir := m.dirs.persistent + ".control"
	switch {
	case u.transient:
		dir = m.transientUnitDirLocked()
	case runtime:
		dir = m.dirs.runtime + ".control"
	}
	// systemd's setters name the drop-in after the property but for
	// these two, named after the unit-file setting they write
	// (bus_cgroup_set_property; 247 seed 460046 of a long run).
	switch name {
	case "CPUQuotaPerSecUSec":
		name = "CPUQuota"
	case "CPUQuotaPeriodUSec":
		name = "CPUQuotaPeriodSec"
	}
	return filepath.Join(dir, u.name+".d", "50-"+name+".conf")
}

// setControlLocked keeps the settings SetUnitProperties set on loaded
// unit u (its values are set already) and lists their drop-ins: a
// transient unit's go with it; the others stay with the name, across
// daemon-reloads and the unit's unloading, and apply to a unit of the
// name loaded again (a slice without a file or a transient unit too:
// replay "set properties outlive the unit").
func (m *manager) setControlLocked(u *unit, props []setProp, runtime bool) {
	if len(props) == 0 {
		// Nothing written, nothing looked at: the drop-ins are listed
		// as they were (measured on 257 and 262 by the differential
		// tester, 262 seed 467794 of a long run).
		return
	}
	for _, p := range props {
		s := controlSetting{setProp: p, path: m.controlDropInLocked(u, p.Name, runtime)}
		if _, ok := u.props[p.Name]; ok && isDeviceList(p.Name) {
			s.Value, s.whole = deviceListValue(u, p.Name), true
		}
		// The drop-in is written anew: it holds this setting only.
		if u.transient {
			u.controlSet = replaceControl(u.controlSet, s)
		} else {
			m.control[u.name] = replaceControl(m.control[u.name], s)
		}
		if !slices.Contains(u.dropIns, s.path) {
			u.dropIns = append(u.dropIns, s.path)
		}
	}
	if m.behaves(sdversions.ControlDropInsSorted) {
		// The drop-ins a load would find (in the directories the name
		// map knows) join the list, which is kept in a load's order, and
		// count as just loaded: one of the unit directories written
		// since the unit loaded is listed now, NeedDaemonReload false
		// again once the name map saw its directory; one removed since
		// stays listed, and NeedDaemonReload true, as a changed unit
		// file keeps it (measured on 257 and 262 by the differential
		// tester, 257 seed 431966 of a long run; the new drop-in's
		// settings apply at the next load).
		names := append([]string{u.name}, u.aliases...)
		found := slices.Clone(u.dropIns)
		for _, p := range m.seenDropInsLocked(names) {
			if !slices.Contains(found, p) {
				found = append(found, p)
			}
		}
		u.dropIns = m.loadOrderLocked(found)
		if u.loaded.mtimes != nil {
			stamp := map[string]time.Time{}
			if t, ok := u.loaded.mtimes[stampFile(u)]; ok && u.fromFile {
				stamp[stampFile(u)] = t
			}
			for _, p := range u.dropIns {
				if !m.controlPathLocked(u, p) {
					maps.Copy(stamp, mtimes([]string{p}))
				}
			}
			u.loaded = loadStamp{mtimes: stamp}
		}
	}
}

// controlPathLocked reports whether drop-in p of u is one
// SetUnitProperties wrote (setControlLocked).
func (m *manager) controlPathLocked(u *unit, p string) bool {
	for _, s := range append(slices.Clone(m.control[u.name]), u.controlSet...) {
		if s.path == p {
			return true
		}
	}
	return false
}

// replaceControl is settings with s in place of the one written to the
// same drop-in, or after them.
func replaceControl(settings []controlSetting, s controlSetting) []controlSetting {
	if i := slices.IndexFunc(settings, func(o controlSetting) bool { return o.path == s.path }); i >= 0 {
		settings[i] = s
		return settings
	}
	return append(settings, s)
}

// applyControlLocked applies what SetUnitProperties set on a unit of u's
// name (and, a transient unit, on u) to u, just loaded with the drop-ins
// of the unit directories (u.dropIns), and lists their drop-ins with
// those, in a load's order. They apply in that order too (50-MemoryMax.conf
// before 50-MemoryMaxScale.conf, whichever was set last), and one a
// drop-in of the same name shadows does not apply (system.control's
// before the runtime one's). A setting a drop-in of the unit directories
// that sorts after its own sets too keeps that drop-in's value.
func (m *manager) applyControlLocked(u *unit) {
	settings := append(slices.Clone(m.control[u.name]), u.controlSet...)
	if len(settings) == 0 {
		return
	}
	byPath := map[string]controlSetting{}
	for _, s := range settings {
		byPath[s.path] = s
	}
	sets := map[string]map[string]bool{} // a drop-in of the unit directories -> the settings it sets
	for _, p := range u.dropIns {
		names := map[string]bool{}
		for _, q := range m.parseUnitFile(u.name, readDropIns([]string{p})...).props {
			names[q.Name] = true
		}
		sets[p] = names
	}
	paths := slices.Clone(u.dropIns)
	for _, s := range settings {
		paths = append(paths, s.path)
	}
	order := m.loadOrderLocked(paths)
	for _, path := range order {
		s, ok := byPath[path]
		if !ok {
			continue
		}
		overridden := false
		for p, names := range sets {
			overridden = overridden || names[s.Name] && filepath.Base(p) > filepath.Base(s.path)
		}
		if overridden {
			continue
		}
		if s.whole {
			m.readDeviceListLocked(u, s.Name, s.Value)
			continue
		}
		p := m.readBackLocked(u.kind, s.setProp) // as the drop-in holds it
		if p.Name != "" {
			p = m.writtenCPUSetLocked(u, p)
			m.setPropLocked(u, p.Name, p.Value)
		}
	}
	if u.masked && m.behaves(sdversions.MaskedUnitNoDropIns) {
		return // lists none (unitfile.go)
	}
	u.dropIns = order
}

// loadOrderLocked is drop-ins as a load lists them: one per file name
// (the control directories' and the transient directory's first, in that
// order, then the others in theirs), sorted by file name.
func (m *manager) loadOrderLocked(paths []string) []string {
	rank := func(p string) int {
		switch filepath.Dir(filepath.Dir(p)) {
		case m.dirs.persistent + ".control":
			return 0
		case m.dirs.runtime + ".control":
			return 1
		case m.transientUnitDirLocked():
			return 2
		}
		return 3
	}
	byRank := slices.Clone(paths)
	sort.SliceStable(byRank, func(i, j int) bool { return rank(byRank[i]) < rank(byRank[j]) })
	seen := map[string]bool{}
	out := make([]string, 0, len(paths))
	for _, p := range byRank {
		if b := filepath.Base(p); !seen[b] {
			seen[b] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return filepath.Base(out[i]) < filepath.Base(out[j]) })
	return out
}

// dropInsUnorderedLocked reports whether u lists its drop-ins otherwise
// than a load would: before 257, after SetUnitProperties wrote one out of
// order, NeedDaemonReload is true.
func (m *manager) dropInsUnorderedLocked(u *unit) bool {
	return !slices.Equal(u.dropIns, m.loadOrderLocked(u.dropIns))
}
