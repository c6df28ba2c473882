package fakebus

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sdbus-go/sdbus"
)

// Unit aliases, as systemd has them from Alias= (symlinks to a unit file):
// a unit has one primary name (its Id, the name of the file) and any number
// of aliases. Once the unit is loaded, by either name, every name finds it
// (GetUnit, LoadUnit, the job methods, the alias's own object path), but
// the unit is announced, listed and signalled under its primary name only:
// its object path in replies and in PropertiesChanged is the primary
// name's, ListUnits lists the primary name, Names lists them all.

// checkAliasesLocked checks the aliases of a unit file before it is
// added: valid names of the same type as the unit, not taken by another
// unit file or alias.
func (m *manager) checkAliasesLocked(f UnitFile) error {
	kind := f.Name[strings.LastIndexByte(f.Name, '.'):]
	for _, a := range f.Aliases {
		if err := sdbus.ValidateUnitName(a); err != nil {
			return fmt.Errorf("fakebus: unit file %s: alias: %w", f.Name, err)
		}
		if !strings.HasSuffix(a, kind) || a == f.Name {
			return fmt.Errorf("fakebus: unit file %s: alias %s: an alias must be another name of the same unit type", f.Name, a)
		}
		if _, taken := m.files[a]; taken {
			return fmt.Errorf("fakebus: unit file %s: alias %s: a unit file of that name exists", f.Name, a)
		}
		if p, taken := m.aliases[a]; taken && p != f.Name {
			return fmt.Errorf("fakebus: unit file %s: alias %s: already an alias of %s", f.Name, a, p)
		}
	}
	if p, taken := m.aliases[f.Name]; taken {
		return fmt.Errorf("fakebus: unit file %s: already an alias of %s", f.Name, p)
	}
	return nil
}

// primaryLocked returns the primary name of the unit name refers to: name
// itself unless it is an alias.
func (m *manager) primaryLocked(name string) string {
	if p, ok := m.aliases[name]; ok {
		return p
	}
	if _, loaded := m.units[name]; loaded || name == "" {
		// No name (a unit's empty Triggers or parent, for one) is no
		// file: the unit directories are not read for it.
		return name
	}
	// An alias symlink in the unit directories.
	if e, ok := m.lookupDiskLocked(name); ok && e.alias {
		return filepath.Base(e.file)
	}
	return name
}

// unitLocked returns the loaded unit with the given name or alias, or nil.
func (m *manager) unitLocked(name string) *unit { return m.units[m.primaryLocked(name)] }

// namesLocked returns a unit's Names: its primary name, then its aliases
// in order.
func (m *manager) namesLocked(u *unit) []string {
	aliases := append([]string(nil), u.aliases...)
	sort.Strings(aliases)
	return append([]string{u.name}, aliases...)
}
