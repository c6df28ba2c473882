package fakebus

import (
	"strings"

	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// The fake plays a release from the repository's one per-version table,
// fakebus/internal/sdversions; these accessors add WithBackport to it.

// has reports whether the modelled release offers name: a unit property
// or value form ("CPUWeight=idle"), a Manager method or a job mode
// ("mode:triggering"), or a backport of it.
func (m *manager) has(name string) bool {
	if mode, ok := strings.CutPrefix(name, "mode:"); ok {
		return sdversions.HasJobMode(m.release, mode)
	}
	if _, ok := sdversions.Methods[name]; ok {
		return sdversions.HasMethod(m.release, name) || m.cfg.backports[name]
	}
	return m.hasFor(name, "")
}

// hasFor is has for a property set on a unit of the given kind. A
// percentage form (MemoryMaxScale) is there with its limit.
func (m *manager) hasFor(name, kind string) bool {
	if base, ok := strings.CutSuffix(name, "Scale"); ok && kind != "" {
		name = base
	}
	return sdversions.HasProperty(m.release, name, kind) || m.cfg.backports[name]
}

// behaves reports whether the played release has behaviour b.
func (m *manager) behaves(b sdversions.Behaviour) bool { return sdversions.Behaves(m.release, b) }

// hidden reports whether the modelled release leaves property name out of
// GetAll and introspection (while Get still answers it).
func (m *manager) hidden(name string) bool { return sdversions.Hidden(m.release, name) }

// hiddenMethod reports whether the played release still answers Manager
// method name although its introspection no longer lists it
// (SD_BUS_VTABLE_HIDDEN): StartAuxiliaryScope from 262, to say it has
// been removed.
func (m *manager) hiddenMethod(name string) bool {
	return name == "StartAuxiliaryScope" && sdversions.Behaves(m.release, sdversions.AuxiliaryScopeRemoved)
}
