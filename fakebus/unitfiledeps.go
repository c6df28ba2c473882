package fakebus

import (
	"path/filepath"
	"strings"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Unit-file methods beyond enable and disable, with the checks and
// errors of systemd 252 (src/shared/install.c), and of 257 for the
// method it added: AddDependencyUnitFiles writes .wants/ or .requires/
// symlinks to a target as if the units' [Install] sections said so;
// DisableUnitFilesWithFlagsAndInstallInfo disables and says whether the
// units carry install information.

// unitFileDepsCallLocked answers the methods of this file; ok is false
// for other members.
func (m *manager) unitFileDepsCallLocked(c *busd.Call) (out []any, ok bool, err error) {
	changes := []unitFileChange{}
	switch c.Member {
	case "AddDependencyUnitFiles":
		if err := args(c, "asssbb"); err != nil {
			return nil, true, err
		}
		err = m.addDependencyLocked(c.Body[0].([]string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(bool), c.Body[4].(bool), &changes)
		out = []any{changes}
	case "DisableUnitFilesWithFlagsAndInstallInfo":
		if err := args(c, "ast"); err != nil {
			return nil, true, err
		}
		// runtime (1) and portable (4): force (2) is refused (measured on
		// 257 and 262), as are unknown flags.
		flags := c.Body[1].(uint64)
		if flags&^5 != 0 {
			return nil, true, errInvalidArgs("Invalid argument")
		}
		var carries bool
		carries, err = m.disableWithInstallInfoLocked(c.Body[0].([]string), flags&1 != 0, &changes)
		out = []any{carries, changes}
	default:
		return nil, false, nil
	}
	if err := m.unitFilesChangedLocked(changes, err); err != nil {
		return nil, true, err
	}
	return out, true, nil
}

// addDependencyLocked is AddDependencyUnitFiles: every file (a unit name
// or an absolute path) gets a symlink in target.wants/ (typ "Wants") or
// target.requires/ ("Requires") of the configuration directory, to its
// unit file; a file outside the unit directories is linked into the
// directory first. Nothing changes unless the type, the target and every
// file are good.
func (m *manager) addDependencyLocked(files []string, target, typ string, runtime, force bool, changes *[]unitFileChange) error {
	suffix := map[string]string{"Wants": ".wants", "Requires": ".requires"}[typ]
	if suffix == "" {
		return errInvalidArgs("Invalid argument")
	}
	if sdbus.ValidateUnitName(target) != nil {
		if !sdversions.Behaves(m.release, sdversions.AddDependencyBadUnitSetting) {
			return errInvalidArgs("Invalid argument")
		}
		return &callErr{errPrefix + "BadUnitSetting", `"` + target + `" is not a valid unit name.`}
	}
	switch e, ok := m.lookupDiskLocked(target); {
	case ok && e.masked:
		return &callErr{errPrefix + "UnitMasked", "Unit file " + e.path + " is masked."}
	case ok && e.alias:
		target = filepath.Base(e.file)
	case ok:
	case m.files[target].Masked:
		return &callErr{errPrefix + "UnitMasked", "Unit file " + target + " is masked."}
	default:
		if _, vendor := m.files[target]; !vendor {
			return errNoUnitFile(target)
		}
	}
	if err := m.checkUnitFilesLocked(files); err != nil {
		return err
	}
	dir := m.dirs.config(runtime)
	for _, f := range files {
		name, file, err := m.resolveUnitFileLocked(f, dir, force, changes)
		if err != nil {
			return err
		}
		if file == "" {
			return &callErr{dbusErr + "NotSupported", "fakebus has no file for unit " + name + " (AddUnitFile) to link " + target + suffix + "/ to."}
		}
		if d := filepath.Dir(file); !strings.HasPrefix(f, "/") && d != m.dirs.persistent && d != m.dirs.runtime {
			// A unit linked into the other directory: linked here too.
			if err := symlinkLocked(filepath.Join(dir, name), file, force, changes); err != nil {
				return err
			}
		}
		if err := symlinkLocked(filepath.Join(dir, target+suffix, name), file, force, changes); err != nil {
			return err
		}
	}
	return nil
}

// disableWithInstallInfoLocked is DisableUnitFilesWithFlagsAndInstallInfo:
// DisableUnitFiles, and whether any of the units has an [Install]
// section or is a linked unit file (measured on 257: a linked file
// without [Install] counts, a static one does not). An invalid name is
// BadUnitSetting there.
func (m *manager) disableWithInstallInfoLocked(names []string, runtime bool, changes *[]unitFileChange) (bool, error) {
	carries := false
	for _, n := range names {
		if sdbus.ValidateUnitName(n) != nil {
			return false, &callErr{errPrefix + "BadUnitSetting", "Invalid unit name " + n}
		}
		if e, ok := m.lookupDiskLocked(n); ok && !e.masked {
			carries = carries || e.linked || m.installOf(n, e.file).hasInstall()
		}
	}
	if err := m.disableLocked(names, runtime, false, changes); err != nil {
		return false, err
	}
	return carries, nil
}
