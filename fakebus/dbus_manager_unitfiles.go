package fakebus

// The unit-file methods of the Manager (the part of systemd's
// src/core/dbus-manager.c that calls src/shared/install.c): enable,
// disable, mask, link, preset, revert, dependencies, file state. The
// logic on the unit directories is in install.go.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sdbus-go/sdbus"
)

// unitFileCall answers the unit-file methods of install.go's first
// kind (enable, disable, link, mask, file state, lists).
func (m *manager) unitFileCall(c *call) ([]any, error) {
	out, _, err := m.unitFileCallLocked(c.Member, c.Body, c.Signature.String())
	return out, err
}

// unitFileCallLocked answers the unit-file methods of unitFileCall, and
// EnableUnitFilesWithFlags and DisableUnitFilesWithFlags through them;
// ok is false for other methods.
func (m *manager) unitFileCallLocked(member string, body []any, sig string) (out []any, ok bool, err error) {
	want := map[string]string{
		"EnableUnitFiles": "asbb", "ReenableUnitFiles": "asbb", "PresetUnitFiles": "asbb",
		"LinkUnitFiles": "asbb", "MaskUnitFiles": "asbb", "DisableUnitFiles": "asb",
		"UnmaskUnitFiles": "asb", "GetUnitFileState": "s", "ListUnitFiles": "",
		"ListUnitFilesByPatterns": "asas",
	}[member]
	if want == "" && member != "ListUnitFiles" {
		return nil, false, nil
	}
	if sig != want {
		return nil, true, errInvalidArgs("Invalid arguments '%s' to call %s.%s(), expecting '%s'.", sig, managerIface, member, want)
	}
	changes := []unitFileChange{}
	var carries bool
	switch member {
	case "GetUnitFileState":
		name := body[0].(string)
		if sdbus.ValidateUnitName(name) != nil {
			return nil, true, errInvalidArgs("Invalid argument")
		}
		st, found := m.unitFileStateLocked(name)
		if !found {
			return nil, true, &callErr{dbusErr + "FileNotFound", "No such file or directory"}
		}
		return []any{st}, true, nil
	case "ListUnitFiles":
		return []any{m.listUnitFilesLocked(nil, nil)}, true, nil
	case "ListUnitFilesByPatterns":
		return []any{m.listUnitFilesLocked(body[0].([]string), body[1].([]string))}, true, nil
	}
	files, runtime := body[0].([]string), body[1].(bool)
	force := len(body) > 2 && body[2].(bool)
	dir := m.dirs.config(runtime)
	switch member {
	case "EnableUnitFiles", "PresetUnitFiles":
		carries, err = m.enableLocked(files, runtime, force, &changes)
	case "ReenableUnitFiles":
		var names []string
		for _, f := range files {
			n := filepath.Base(f)
			if _, ok := m.lookupDiskLocked(n); ok {
				names = append(names, n)
			}
		}
		if err = m.disableLocked(names, runtime, false, &changes); err == nil {
			carries, err = m.enableLocked(files, runtime, force, &changes)
		}
	case "DisableUnitFiles":
		err = m.disableLocked(files, runtime, false, &changes)
	case "LinkUnitFiles":
		for _, f := range files {
			if !strings.HasPrefix(f, "/") {
				err = errFileInvalid(f)
				break
			}
			if _, _, err = m.resolveUnitFileLocked(f, dir, force, &changes); err != nil {
				break
			}
		}
	case "MaskUnitFiles":
		for _, n := range files {
			if sdbus.ValidateUnitName(n) != nil {
				err = errFileInvalid(n)
				break
			}
			if err = symlinkLocked(filepath.Join(dir, n), "/dev/null", force, &changes); err != nil {
				break
			}
		}
	case "UnmaskUnitFiles":
		for _, n := range files {
			if sdbus.ValidateUnitName(n) != nil {
				err = errFileInvalid(n)
				break
			}
			if e, ok := m.entryLocked(dir, n, runtime); ok && e.masked {
				if err = os.Remove(e.path); err != nil {
					break
				}
				changes = append(changes, unitFileChange{"unlink", e.path, ""})
			}
		}
	}
	if err := m.unitFilesChangedLocked(changes, err); err != nil {
		return nil, true, err
	}
	if member == "EnableUnitFiles" || member == "ReenableUnitFiles" || member == "PresetUnitFiles" {
		return []any{carries, changes}, true, nil
	}
	return []any{changes}, true, nil
}

// unitFileDepsCall answers AddDependencyUnitFiles and
// DisableUnitFilesWithFlagsAndInstallInfo.
func (m *manager) unitFileDepsCall(c *call) (out []any, err error) {
	changes := []unitFileChange{}
	switch c.Member {
	case "AddDependencyUnitFiles":
		err = m.addDependencyLocked(c.Body[0].([]string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(bool), c.Body[4].(bool), &changes)
		out = []any{changes}
	case "DisableUnitFilesWithFlagsAndInstallInfo":
		// runtime (1) and portable (4): force (2) is refused (measured on
		// 257 and 262), as are unknown flags.
		flags := c.Body[1].(uint64)
		if flags&^5 != 0 {
			return nil, errInvalidArgs("Invalid argument")
		}
		var carries bool
		carries, err = m.disableWithInstallInfoLocked(c.Body[0].([]string), flags&1 != 0, &changes)
		out = []any{carries, changes}
	default:
		return nil, errUnknownMethod(c.Call)
	}
	if err := m.unitFilesChangedLocked(changes, err); err != nil {
		return nil, err
	}
	return out, nil
}

// unitFilesChangedLocked ends a unit-file method: UnitFilesChanged when
// it changed anything (also when it failed part-way), and its error as a
// D-Bus error (Failed for a file-system error).
func (m *manager) unitFilesChangedLocked(changes []unitFileChange, err error) error {
	if len(changes) > 0 {
		m.signalLocked(managerPath, managerIface, "UnitFilesChanged", func() []any { return nil })
	}
	if err == nil {
		return nil
	}
	if _, ok := err.(*callErr); !ok {
		return &callErr{dbusErr + "Failed", err.Error()}
	}
	return err
}

// presetModes are the preset modes of PresetUnitFilesWithMode and
// PresetAllUnitFiles ("" is full).
var presetModes = map[string]bool{"": true, "full": true, "enable-only": true, "disable-only": true}
