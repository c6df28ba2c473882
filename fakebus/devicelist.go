package fakebus

// The per-device lists of a unit's cgroup settings, as systemd's
// CGroupContext keeps them (src/core/dbus-cgroup.c, load-fragment.c;
// measured on 247, 252, 257 and 262 by the differential tester: replay
// "device lists"):
//
//   - DeviceAllow= (device_allow): a setting over D-Bus changes the entry
//     of its path in place, its access replaced, or puts a new one first;
//     a unit file's line always adds one, first. An empty access is rwm,
//     and an access reads back in the order rwm.
//   - IODeviceWeight= and IODeviceLatencyTargetUSec= (io_device_weights,
//     io_device_latencies): over D-Bus in place, or a new entry last; a
//     unit file's line adds one last. 247 puts new entries first
//     (sdversions.IODevicesInOrder).
//   - IOReadBandwidthMax=, IOWriteBandwidthMax=, IOReadIOPSMax= and
//     IOWriteIOPSMax= (io_device_limits) share one list of paths, each
//     with its four limits, infinity where not set, and each property
//     reads the entries whose limit is set. A path is set in place, over
//     D-Bus and in unit files alike; a new one goes last (247: first). The
//     fake keeps that list in all four properties, the same paths in the
//     same order, infinity included (ioLimitsSet hides those).
//   - An empty list empties it; for one of the limits it sets that limit
//     to infinity on every entry.
//
// SetUnitProperties' drop-in and a transient unit's file hold the whole
// list ("NAME=", then each entry), which a load reads with a unit file's
// rules (readDeviceListLocked): DeviceAllow= reads back reversed, and so
// do 247's IO lists.

import (
	"slices"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// ioLimitNames are the properties of io_device_limits.
var ioLimitNames = []string{"IOReadBandwidthMax", "IOWriteBandwidthMax", "IOReadIOPSMax", "IOWriteIOPSMax"}

// isDeviceList reports whether name is one of the per-device lists.
func isDeviceList(name string) bool {
	switch name {
	case "DeviceAllow", "IODeviceWeight", "IODeviceLatencyTargetUSec":
		return true
	}
	return slices.Contains(ioLimitNames, name)
}

// deviceAccess is access as systemd keeps it: flags, read back in the
// order rwm; none is all three.
func deviceAccess(access string) string {
	if access == "" {
		return "rwm"
	}
	var b strings.Builder
	for _, c := range "rwm" {
		if strings.ContainsRune(access, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// devEntries and ioEntries are a list property's value (normalized).
func devEntries(u *unit, name string) []devEntry {
	l, _ := u.props[name].Value().([]devEntry)
	return l
}

func ioEntries(u *unit, name string) []ioEntry {
	l, _ := u.props[name].Value().([]ioEntry)
	return l
}

// setDeviceListLocked sets list property name of u from v, over D-Bus
// (fromFile false) or from a unit file's lines (fromFile true): see the
// rules above.
func (m *manager) setDeviceListLocked(u *unit, name string, v dbus.Variant, fromFile bool) {
	first := !m.behaves(sdversions.IODevicesInOrder)
	switch given := v.Value().(type) {
	case []devEntry:
		l := slices.Clone(devEntries(u, name))
		if len(given) == 0 {
			l = nil
		}
		for _, e := range given {
			e.Access = deviceAccess(e.Access)
			if i := slices.IndexFunc(l, func(o devEntry) bool { return o.Specifier == e.Specifier }); i >= 0 && !fromFile {
				l[i].Access = e.Access
				continue
			}
			l = append([]devEntry{e}, l...)
		}
		u.props[name] = dbus.MakeVariant(append([]devEntry{}, l...))
	case []ioEntry:
		if slices.Contains(ioLimitNames, name) {
			m.setIOLimitsLocked(u, name, given, first)
			return
		}
		l := slices.Clone(ioEntries(u, name))
		if len(given) == 0 {
			l = nil
		}
		for _, e := range given {
			if i := slices.IndexFunc(l, func(o ioEntry) bool { return o.Path == e.Path }); i >= 0 && !fromFile {
				l[i].Value = e.Value
				continue
			}
			if first {
				l = append([]ioEntry{e}, l...)
			} else {
				l = append(l, e)
			}
		}
		u.props[name] = dbus.MakeVariant(append([]ioEntry{}, l...))
	}
}

// setIOLimitsLocked sets limit name of the given paths in u's shared list
// of IO limits, adding a path not in it first or last; none given sets
// the limit to infinity on every entry.
func (m *manager) setIOLimitsLocked(u *unit, name string, given []ioEntry, first bool) {
	lists := map[string][]ioEntry{}
	for _, n := range ioLimitNames {
		lists[n] = slices.Clone(ioEntries(u, n))
	}
	if len(given) == 0 {
		for i := range lists[name] {
			lists[name][i].Value = infinity
		}
	}
	for _, e := range given {
		i := slices.IndexFunc(lists[name], func(o ioEntry) bool { return o.Path == e.Path })
		if i < 0 {
			for _, n := range ioLimitNames {
				add := ioEntry{Path: e.Path, Value: infinity}
				if first {
					lists[n] = append([]ioEntry{add}, lists[n]...)
				} else {
					lists[n] = append(lists[n], add)
				}
			}
			i = len(lists[name]) - 1
			if first {
				i = 0
			}
		}
		lists[name][i].Value = e.Value
	}
	for _, n := range ioLimitNames {
		u.props[n] = dbus.MakeVariant(append([]ioEntry{}, lists[n]...))
	}
}

// ioLimitsSet is an IO limit's entries as the property reads: those whose
// limit is set.
func ioLimitsSet(l []ioEntry) []ioEntry {
	out := []ioEntry{}
	for _, e := range l {
		if e.Value != infinity {
			out = append(out, e)
		}
	}
	return out
}

// deviceListValue is list property name of u as it reads back (and as a
// drop-in writes it).
func deviceListValue(u *unit, name string) dbus.Variant {
	if slices.Contains(ioLimitNames, name) {
		return dbus.MakeVariant(ioLimitsSet(ioEntries(u, name)))
	}
	return u.props[name]
}

// clearDeviceListLocked empties list property name of u, as "NAME=" does.
func (m *manager) clearDeviceListLocked(u *unit, name string) {
	if name == "DeviceAllow" {
		m.setDeviceListLocked(u, name, dbus.MakeVariant([]devEntry{}), true)
		return
	}
	m.setDeviceListLocked(u, name, dbus.MakeVariant([]ioEntry{}), true)
}

// readDeviceListLocked sets list property name of u as a load reads the
// whole list a drop-in or a transient unit's file holds ("NAME=", then
// each entry of v): emptied, then each entry as a unit file's line, an
// IO limit of 0 (which D-Bus takes) refused as such a line is ("Invalid
// IO limit"; measured on 247-262 by the differential tester, 252 seed
// 64049 of a long run: SetUnitProperties' drop-in of a transient service).
func (m *manager) readDeviceListLocked(u *unit, name string, v dbus.Variant) {
	if l, ok := v.Value().([]ioEntry); ok && slices.Contains(ioLimitNames, name) {
		v = dbus.MakeVariant(slices.DeleteFunc(slices.Clone(l), func(e ioEntry) bool { return e.Value == 0 }))
	}
	m.clearDeviceListLocked(u, name)
	m.setDeviceListLocked(u, name, v, true)
}

// reloadDeviceListsLocked reads u's lists back as a reload of its
// transient file does, the file holding each list whole.
func (m *manager) reloadDeviceListsLocked(u *unit) {
	for _, name := range []string{"DeviceAllow", "IODeviceWeight", "IODeviceLatencyTargetUSec"} {
		if v, ok := u.props[name]; ok {
			m.readDeviceListLocked(u, name, v)
		}
	}
	// The limits' list keeps its order: each limit's lines set its paths
	// in place. Entries with no limit set are not written, and a limit of
	// 0 (which D-Bus takes) is written but refused when read back ("Invalid
	// IO limit"; measured on 262 by the differential tester, seed 50001).
	if _, ok := u.props[ioLimitNames[0]]; !ok {
		return
	}
	readBack := func(v uint64) uint64 {
		if v == 0 {
			return infinity
		}
		return v
	}
	keep := func(i int) bool {
		for _, n := range ioLimitNames {
			if l := ioEntries(u, n); i < len(l) && readBack(l[i].Value) != infinity {
				return true
			}
		}
		return false
	}
	lists := map[string][]ioEntry{}
	for i := range ioEntries(u, ioLimitNames[0]) {
		if keep(i) {
			for _, n := range ioLimitNames {
				e := ioEntry{Path: ioEntries(u, ioLimitNames[0])[i].Path, Value: infinity}
				if l := ioEntries(u, n); i < len(l) {
					e = ioEntry{Path: l[i].Path, Value: readBack(l[i].Value)}
				}
				lists[n] = append(lists[n], e)
			}
		}
	}
	for _, n := range ioLimitNames {
		if !m.behaves(sdversions.IODevicesInOrder) {
			slices.Reverse(lists[n])
		}
		u.props[n] = dbus.MakeVariant(append([]ioEntry{}, lists[n]...))
	}
}
