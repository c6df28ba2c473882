package fakebus

// The unit-file methods of the Manager (the part of systemd's
// src/core/dbus-manager.c that calls src/shared/install.c), one handler
// per method: ListUnitFiles, ListUnitFilesByPatterns, GetUnitFileState,
// EnableUnitFiles, DisableUnitFiles, EnableUnitFilesWithFlags,
// DisableUnitFilesWithFlags, DisableUnitFilesWithFlagsAndInstallInfo,
// ReenableUnitFiles, LinkUnitFiles, PresetUnitFiles,
// PresetUnitFilesWithMode, MaskUnitFiles, UnmaskUnitFiles,
// RevertUnitFiles, SetDefaultTarget, GetDefaultTarget,
// PresetAllUnitFiles, AddDependencyUnitFiles and GetUnitFileLinks. Each
// decodes its call, does its work with one operation of install.go and
// replies (unitFilesReplyLocked).

import "slices"

func (m *manager) listUnitFiles(*call) ([]any, error) {
	return []any{m.listUnitFilesLocked(nil, nil)}, nil
}

func (m *manager) listUnitFilesByPatterns(c *call) ([]any, error) {
	return []any{m.listUnitFilesLocked(c.Body[0].([]string), c.Body[1].([]string))}, nil
}

func (m *manager) getUnitFileState(c *call) ([]any, error) {
	st, err := m.getUnitFileStateLocked(c.Body[0].(string))
	if err != nil {
		return nil, err
	}
	return []any{st}, nil
}

func (m *manager) enableUnitFiles(c *call) ([]any, error) {
	return m.enableUnitFilesLocked(c.Body[0].([]string), c.Body[1].(bool), c.Body[2].(bool))
}

// enableUnitFilesLocked answers EnableUnitFiles.
func (m *manager) enableUnitFilesLocked(files []string, runtime, force bool) ([]any, error) {
	changes := []unitFileChange{}
	carries, err := m.enableLocked(files, runtime, force, &changes)
	return m.unitFilesReplyLocked(changes, err, carries)
}

func (m *manager) disableUnitFiles(c *call) ([]any, error) {
	return m.disableUnitFilesLocked(c.Body[0].([]string), c.Body[1].(bool))
}

func (m *manager) disableUnitFilesLocked(files []string, runtime bool) ([]any, error) {
	changes := []unitFileChange{}
	err := m.disableLocked(files, runtime, false, &changes)
	return m.unitFilesReplyLocked(changes, err)
}

func (m *manager) enableUnitFilesWithFlags(c *call) ([]any, error) {
	runtime, force, err := unitFileFlags(c.Body[1].(uint64))
	if err != nil {
		return nil, err
	}
	// polkit after the flags (measured on 257 and 262).
	if err := m.authorizeLocked(c.Call); err != nil {
		return nil, err
	}
	return m.enableUnitFilesLocked(c.Body[0].([]string), runtime, force)
}

// disableUnitFilesWithFlags is DisableUnitFiles, force or not.
func (m *manager) disableUnitFilesWithFlags(c *call) ([]any, error) {
	runtime, _, err := unitFileFlags(c.Body[1].(uint64))
	if err != nil {
		return nil, err
	}
	if err := m.authorizeLocked(c.Call); err != nil {
		return nil, err
	}
	return m.disableUnitFilesLocked(c.Body[0].([]string), runtime)
}

// unitFileFlags checks the flags of the *WithFlags methods against
// systemd's public mask: runtime (1), force (2), portable (4, which the
// fake has no portable images for).
func unitFileFlags(flags uint64) (runtime, force bool, err error) {
	if flags&^7 != 0 {
		return false, false, errInvalidArgs("Invalid argument") // -EINVAL (measured on 257, 262)
	}
	return flags&1 != 0, flags&2 != 0, nil
}

func (m *manager) disableUnitFilesWithFlagsAndInstallInfo(c *call) ([]any, error) {
	// runtime (1) and portable (4): force (2) is refused (measured on 257
	// and 262), as are unknown flags.
	flags := c.Body[1].(uint64)
	if flags&^5 != 0 {
		return nil, errInvalidArgs("Invalid argument")
	}
	if err := m.authorizeLocked(c.Call); err != nil {
		return nil, err
	}
	changes := []unitFileChange{}
	carries, err := m.disableWithInstallInfoLocked(c.Body[0].([]string), flags&1 != 0, &changes)
	return m.unitFilesReplyLocked(changes, err, carries)
}

func (m *manager) reenableUnitFiles(c *call) ([]any, error) {
	changes := []unitFileChange{}
	carries, err := m.reenableLocked(c.Body[0].([]string), c.Body[1].(bool), c.Body[2].(bool), &changes)
	return m.unitFilesReplyLocked(changes, err, carries)
}

func (m *manager) linkUnitFiles(c *call) ([]any, error) {
	changes := []unitFileChange{}
	err := m.linkLocked(c.Body[0].([]string), c.Body[1].(bool), c.Body[2].(bool), &changes)
	return m.unitFilesReplyLocked(changes, err)
}

func (m *manager) presetUnitFiles(c *call) ([]any, error) {
	return m.presetUnitFilesLocked(c.Body[0].([]string), "", c.Body[1].(bool), c.Body[2].(bool))
}

func (m *manager) presetUnitFilesWithMode(c *call) ([]any, error) {
	mode := c.Body[1].(string)
	if !presetModes[mode] {
		return nil, errInvalidArgs("Invalid argument")
	}
	// polkit after the mode (measured on 247-262).
	if err := m.authorizeLocked(c.Call); err != nil {
		return nil, err
	}
	return m.presetUnitFilesLocked(c.Body[0].([]string), mode, c.Body[2].(bool), c.Body[3].(bool))
}

// presetUnitFilesLocked answers PresetUnitFiles (mode "") and
// PresetUnitFilesWithMode.
func (m *manager) presetUnitFilesLocked(files []string, mode string, runtime, force bool) ([]any, error) {
	changes := []unitFileChange{}
	carries, err := m.presetLocked(files, mode, runtime, force, &changes)
	return m.unitFilesReplyLocked(changes, err, carries)
}

func (m *manager) maskUnitFiles(c *call) ([]any, error) {
	changes := []unitFileChange{}
	err := m.maskLocked(c.Body[0].([]string), c.Body[1].(bool), c.Body[2].(bool), &changes)
	return m.unitFilesReplyLocked(changes, err)
}

func (m *manager) unmaskUnitFiles(c *call) ([]any, error) {
	changes := []unitFileChange{}
	err := m.unmaskLocked(c.Body[0].([]string), c.Body[1].(bool), &changes)
	return m.unitFilesReplyLocked(changes, err)
}

func (m *manager) revertUnitFiles(c *call) ([]any, error) {
	changes := []unitFileChange{}
	err := m.revertLocked(c.Body[0].([]string), &changes)
	return m.unitFilesReplyLocked(changes, err)
}

func (m *manager) setDefaultTarget(c *call) ([]any, error) {
	changes := []unitFileChange{}
	err := m.setDefaultTargetLocked(c.Body[0].(string), c.Body[1].(bool), &changes)
	return m.unitFilesReplyLocked(changes, err)
}

func (m *manager) getDefaultTarget(*call) ([]any, error) {
	name, err := m.getDefaultTargetLocked()
	if err := m.unitFilesChangedLocked(nil, err); err != nil {
		return nil, err
	}
	return []any{name}, nil
}

func (m *manager) presetAllUnitFiles(c *call) ([]any, error) {
	mode := c.Body[0].(string)
	if !presetModes[mode] {
		return nil, errInvalidArgs("Invalid argument")
	}
	if err := m.authorizeLocked(c.Call); err != nil {
		return nil, err
	}
	changes := []unitFileChange{}
	m.presetAllLocked(mode, c.Body[1].(bool), c.Body[2].(bool), &changes)
	return m.unitFilesReplyLocked(changes, nil)
}

func (m *manager) addDependencyUnitFiles(c *call) ([]any, error) {
	changes := []unitFileChange{}
	err := m.addDependencyLocked(c.Body[0].([]string), c.Body[1].(string), c.Body[2].(string), c.Body[3].(bool), c.Body[4].(bool), &changes)
	return m.unitFilesReplyLocked(changes, err)
}

func (m *manager) getUnitFileLinks(c *call) ([]any, error) {
	links, err := m.unitFileLinksLocked(c.Body[0].(string), c.Body[1].(bool))
	if err != nil {
		return nil, err
	}
	return []any{links}, nil
}

// unitFilesReplyLocked ends a unit-file method that may have changed
// files: its error (unitFilesChangedLocked), else its reply, the changes
// after carries_install_info where the method answers it.
func (m *manager) unitFilesReplyLocked(changes []unitFileChange, err error, carries ...bool) ([]any, error) {
	if err := m.unitFilesChangedLocked(changes, err); err != nil {
		return nil, err
	}
	if len(carries) > 0 {
		return []any{carries[0], changes}, nil
	}
	return []any{changes}, nil
}

// unitFilesChangedLocked ends a unit-file method: UnitFilesChanged when
// it made or removed a link (also when it failed part-way; a change that
// only reports, "masked" say, is none: install_changes_have_modification,
// measured on 257 by the differential tester with NeedDaemonReload), and
// its error as a D-Bus error (Failed for a file-system error).
func (m *manager) unitFilesChangedLocked(changes []unitFileChange, err error) error {
	if slices.ContainsFunc(changes, func(c unitFileChange) bool { return c.Type == "symlink" || c.Type == "unlink" }) {
		m.unitFilesChanged = true
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
