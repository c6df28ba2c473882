package fakebus

import (
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// A unit's resources outside its configuration, as systemd 252 answers
// for them: CleanUnit (systemctl clean) and, from 254,
// DumpUnitFileDescriptorStore. The fake models none of them: no unit has
// RuntimeDirectory=, StateDirectory=, CacheDirectory=, LogsDirectory=,
// ConfigurationDirectory= or FileDescriptorStoreMax=, so CleanUnit of a
// unit it would clean answers NothingToClean and
// DumpUnitFileDescriptorStore of a service FileDescriptorStoreDisabled,
// after the same checks and errors as systemd's.

// cleanMasks are CleanUnit's resource types (ExecCleanMask), "fdstore"
// from sdversions.CleanFDStore on.
var cleanMasks = map[string]bool{"runtime": true, "state": true, "cache": true, "logs": true, "configuration": true, "all": true}

// cleanKinds are the unit types systemd can clean (those with an
// execution context).
var cleanKinds = map[string]bool{"service": true, "socket": true, "mount": true, "swap": true}

// cleanCallLocked answers the methods of this file; ok is false for
// other members.
func (m *manager) cleanCallLocked(c *busd.Call) (out []any, ok bool, err error) {
	switch c.Member {
	case "CleanUnit":
		if err := args(c, "sas"); err != nil {
			return nil, true, err
		}
		return m.cleanLocked(c.Body[0].(string), c.Body[1].([]string))
	case "DumpUnitFileDescriptorStore":
		if err := args(c, "s"); err != nil {
			return nil, true, err
		}
		name := c.Body[0].(string)
		u := m.unitLocked(name)
		switch {
		case u == nil:
			return nil, true, errNoSuchUnit(name)
		case u.kind != "service":
			return nil, true, &callErr{dbusErr + "NotSupported", "DumpUnitFileDescriptorStore operation is not supported for unit type '" + u.kind + "'"}
		}
		return nil, true, &callErr{errPrefix + "FileDescriptorStoreDisabled", "File descriptor store not enabled for " + u.name + "."}
	}
	return nil, false, nil
}

// cleanLocked is CleanUnit: the unit is loaded (and collected again when
// nothing holds it), then the checks of systemd's unit_clean in its
// order: resource types, unit type, an empty mask, a unit that is not
// inactive or has a job, and what there is to clean.
func (m *manager) cleanLocked(name string, mask []string) ([]any, bool, error) {
	if err := validName(name); err != nil {
		return nil, true, err
	}
	_, loaded := m.units[m.primaryLocked(name)]
	u := m.loadLocked(name)
	if u == nil {
		return nil, true, errNotFound(name)
	}
	if !loaded {
		defer m.collectLocked(u)
	}
	switch u.load {
	case "masked":
		return nil, true, &callErr{errPrefix + "UnitMasked", "Unit " + name + " is masked."}
	case "bad-setting":
		return nil, true, &callErr{errPrefix + "BadUnitSetting", "Unit " + name + " has a bad unit file setting."}
	}
	some := false
	for _, t := range mask {
		switch {
		case t == "":
		case cleanMasks[t], t == "fdstore" && sdversions.Behaves(m.release, sdversions.CleanFDStore):
			some = true
		default:
			return nil, true, errInvalidArgs("Invalid resource type: %s", t)
		}
	}
	if !cleanKinds[u.kind] {
		return nil, true, &callErr{dbusErr + "NotSupported", "Unit '" + u.name + "' does not support cleaning."}
	}
	nothing := &callErr{errPrefix + "NothingToClean", "No matching resources found."}
	if !some {
		return nil, true, nothing
	}
	if u.job != nil || u.active != "inactive" && u.active != "failed" {
		return nil, true, &callErr{errPrefix + "UnitBusy", "Unit is not inactive or has pending job."}
	}
	return nil, true, nothing // the fake's units have no directories, no fd store
}
