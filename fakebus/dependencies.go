package fakebus

// Dependencies as systemd shows them (src/core/unit-dependency-atom.c and
// unit_dependency_inverse_table in unit.c): every dependency is a pair,
// recorded on both units, so a unit's lists hold what its own settings
// name, the dependencies systemd adds by itself that the fake models, and
// the inverse of every other loaded unit's (a's Requires=b is b's
// RequiredBy a, a's Before=b is b's After a).
//
// The implicit dependencies modelled: a unit's slice (Requires= and
// After=, as systemd's unit_add_slice_dependencies adds them whatever
// DefaultDependencies= says); the unit a socket, timer, path unit or
// automount triggers (Triggers and Before=, trigger.go), named whether or
// not it is loaded (systemd loads a unit without a file as not-found;
// the fake does not load it); the mount units of the paths a unit needs
// (RequiresMountsFor: its setting and the paths its type's settings name;
// After= each loaded mount unit of such a path or one of its parents,
// and Requires= it when the mount has a unit file, as systemd's
// unit_add_mount_dependencies). The default dependencies on
// sysinit.target, basic.target, sockets.target, shutdown.target and the
// like are not: the fake has none of those units.

import (
	"path"
	"reflect"
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// inverseDeps maps each dependency list to its inverse.
var inverseDeps = map[string]string{
	"Requires": "RequiredBy", "RequiredBy": "Requires",
	"Requisite": "RequisiteOf", "RequisiteOf": "Requisite",
	"Wants": "WantedBy", "WantedBy": "Wants",
	"BindsTo": "BoundBy", "BoundBy": "BindsTo",
	"PartOf": "ConsistsOf", "ConsistsOf": "PartOf",
	"Conflicts": "ConflictedBy", "ConflictedBy": "Conflicts",
	"Before": "After", "After": "Before",
	"OnFailure": "OnFailureOf", "OnFailureOf": "OnFailure",
	"Triggers": "TriggeredBy", "TriggeredBy": "Triggers",
}

// ownDepsLocked returns the units u's dependency list name holds by u's
// own settings and the implicit dependencies above, without the inverses
// of other units'.
func (m *manager) ownDepsLocked(u *unit, name string) []string {
	out := u.list(name)
	add := func(n string) {
		if n != "" && n != u.name && !contains(out, n) {
			out = append(out[:len(out):len(out)], n)
		}
	}
	switch name {
	case "Requires", "After":
		add(u.slice())
		for _, mnt := range m.mountUnitsLocked(u) {
			if name == "After" || mnt.fromFile {
				add(mnt.name)
			}
		}
	case "Before", "Triggers":
		add(u.triggers())
	}
	return out
}

// mountPaths is u's RequiresMountsFor: its setting, then the paths its
// type's settings name: a socket's file system addresses, a path unit's
// paths, a swap's What, the directory a mount's or automount's Where is
// in.
func (u *unit) mountPaths() []string {
	out := append([]string{}, u.list("RequiresMountsFor")...)
	add := func(p string) {
		if strings.HasPrefix(p, "/") && !contains(out, p) {
			out = append(out, p)
		}
	}
	switch u.kind {
	case "socket":
		for _, l := range stringPairs(u.props["Listen"]) {
			if l[0] != "Netlink" && l[0] != "MessageQueue" {
				add(l[1])
			}
		}
	case "path":
		for _, p := range stringPairs(u.props["Paths"]) {
			add(p[1])
		}
	case "swap":
		add(u.where())
	case "mount", "automount":
		if w := u.where(); w != "" && w != "/" {
			add(path.Dir(w))
		}
	}
	return out
}

// mountUnitsLocked returns the loaded mount units of u's mountPaths and of
// their parent directories, up to -.mount, each once; a mount is not its
// own.
func (m *manager) mountUnitsLocked(u *unit) []*unit {
	var out []*unit
	for _, p := range u.mountPaths() {
		for {
			if o := m.units[sdbus.EscapeUnitPath(p)+".mount"]; o != nil && o != u && !containsUnit(out, o) {
				out = append(out, o)
			}
			if p == "/" {
				break
			}
			p = path.Dir(p)
		}
	}
	return out
}

// stringPairs reads an a(ss) property's value (Listen, Paths), whatever Go
// type holds it.
func stringPairs(v dbus.Variant) [][2]string {
	rv := reflect.ValueOf(v.Value())
	if rv.Kind() != reflect.Slice {
		return nil
	}
	out := make([][2]string, 0, rv.Len())
	for i := 0; i < rv.Len(); i++ {
		e := reflect.Indirect(rv.Index(i))
		if e.Kind() == reflect.Interface {
			e = e.Elem()
		}
		switch {
		case e.Kind() == reflect.Struct && e.NumField() == 2 && e.Field(0).Kind() == reflect.String && e.Field(1).Kind() == reflect.String:
			out = append(out, [2]string{e.Field(0).String(), e.Field(1).String()})
		case e.Kind() == reflect.Slice && e.Len() == 2:
			a, _ := e.Index(0).Interface().(string)
			b, _ := e.Index(1).Interface().(string)
			out = append(out, [2]string{a, b})
		}
	}
	return out
}

func containsUnit(l []*unit, u *unit) bool {
	for _, o := range l {
		if o == u {
			return true
		}
	}
	return false
}

// depsLocked returns u's dependency list name as systemd answers it: its
// own (ownDeps), then, sorted, the loaded units whose inverse list names u
// (by its name or an alias).
func (m *manager) depsLocked(u *unit, name string) []string {
	out := append([]string{}, m.ownDepsLocked(u, name)...)
	inv, ok := inverseDeps[name]
	if !ok {
		return out
	}
	var more []string
	for _, o := range m.units {
		if o == u || contains(out, o.name) {
			continue
		}
		for _, n := range m.ownDepsLocked(o, inv) {
			if n == u.name || contains(u.aliases, n) {
				more = append(more, o.name)
				break
			}
		}
	}
	sort.Strings(more)
	return append(out, more...)
}
