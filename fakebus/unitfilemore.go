package fakebus

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// The Manager methods of systemd 252 on the default target, unit-file
// links, revert and presets (src/shared/install.c), EnqueueUnitJob, and
// SetExitCode / SetShowStatus, which the fake accepts without effect.

const defaultTarget = "default.target"

// affectedJob is one element of EnqueueUnitJob's affected jobs, (uosos).
type affectedJob struct {
	ID       uint32
	Path     dbus.ObjectPath
	Unit     string
	UnitPath dbus.ObjectPath
	Type     string
}

// enqueueJobTypes are the job types EnqueueUnitJob and
// EnqueueUnitJobMany take; reload-or-start, try-reload and try-restart
// collapse by the unit's state (systemd's job_type_collapse).
var enqueueJobTypes = map[string]jobType{
	"start": jobStart, "stop": jobStop, "reload": jobReload, "restart": jobRestart, "try-restart": "try-restart",
	"verify-active": jobVerifyActive, "nop": jobNop, "reload-or-start": "reload-or-start", "try-reload": "try-reload",
}

// presetModes are the preset modes of PresetUnitFilesWithMode and
// PresetAllUnitFiles ("" is full).
var presetModes = map[string]bool{"": true, "full": true, "enable-only": true, "disable-only": true}

// unitFileMoreCallLocked answers the methods of this file; ok is false
// for other members.
func (m *manager) unitFileMoreCallLocked(c *busd.Call) (out []any, ok bool, err error) {
	sig := map[string]string{
		"GetDefaultTarget": "", "SetDefaultTarget": "sb", "GetUnitFileLinks": "sb", "RevertUnitFiles": "as",
		"PresetUnitFilesWithMode": "assbb", "PresetAllUnitFiles": "sbb", "EnqueueUnitJob": "sss",
		"SetExitCode": "y", "SetShowStatus": "s",
	}
	want, ok := sig[c.Member]
	if !ok {
		return nil, false, nil
	}
	if err := args(c, want); err != nil {
		return nil, true, err
	}
	changes := []unitFileChange{}
	switch c.Member {
	case "GetDefaultTarget":
		out, err = m.getDefaultTargetLocked()
	case "SetDefaultTarget":
		err = m.setDefaultTargetLocked(c.Body[0].(string), c.Body[1].(bool), &changes)
		out = []any{changes}
	case "GetUnitFileLinks":
		name := c.Body[0].(string)
		if sdbus.ValidateUnitName(name) != nil {
			// systemd answers the errno of its dry-run disable.
			if !sdversions.Behaves(m.release, sdversions.UnitFileLinksEUCLEAN) {
				return nil, true, &callErr{dbusErr + "InvalidArgs", "Invalid argument"}
			}
			return nil, true, &callErr{"System.Error.EUCLEAN", "Structure needs cleaning"}
		}
		if _, ok := m.lookupDiskLocked(name); !ok {
			return []any{[]string{}}, true, nil // no unit file: no links
		}
		if err := m.disableLocked([]string{name}, c.Body[1].(bool), true, &changes); err != nil {
			return nil, true, err
		}
		links := []string{}
		for _, ch := range changes {
			links = append(links, ch.Filename)
		}
		return []any{links}, true, nil
	case "RevertUnitFiles":
		err = m.revertLocked(c.Body[0].([]string), &changes)
		out = []any{changes}
	case "PresetUnitFilesWithMode":
		mode := c.Body[1].(string)
		if !presetModes[mode] {
			return nil, true, errInvalidArgs("Invalid argument")
		}
		var carries bool
		files, runtime, force := c.Body[0].([]string), c.Body[2].(bool), c.Body[3].(bool)
		if mode == "disable-only" {
			// The fake's policy enables everything: nothing to disable.
			err = m.checkUnitFilesLocked(files)
		} else {
			carries, err = m.enableLocked(files, runtime, force, &changes)
		}
		out = []any{carries, changes}
	case "PresetAllUnitFiles":
		mode := c.Body[0].(string)
		if !presetModes[mode] {
			return nil, true, errInvalidArgs("Invalid argument")
		}
		if mode != "disable-only" {
			m.presetAllLocked(c.Body[1].(bool), c.Body[2].(bool), &changes)
		}
		out = []any{changes}
	case "EnqueueUnitJob":
		name, typ, mode := c.Body[0].(string), c.Body[1].(string), c.Body[2].(string)
		t, known := enqueueJobTypes[typ]
		if !known {
			return nil, true, errInvalidArgs("Invalid job type: %s", typ)
		}
		return nil, true, m.unitJobLocked(c, name, mode, t, enqueueReply)
	case "SetExitCode":
		return []any{}, true, nil
	case "SetShowStatus":
		if mode := c.Body[0].(string); mode != "" && !showStatusValue(mode) {
			return nil, true, errInvalidArgs("Invalid show status '%s'", mode)
		}
		return []any{}, true, nil
	}
	if err := m.unitFilesChangedLocked(changes, err); err != nil {
		return nil, true, err
	}
	return out, true, nil
}

// enqueueReply is EnqueueUnitJob's reply, "uosos" and "a(uosos)".
func enqueueReply(j *job, affected []*job) []any {
	rows := []affectedJob{}
	for _, o := range affected {
		rows = append(rows, affectedJob{o.id, o.path(), o.unit.name, o.unit.path(), string(o.typ)})
	}
	return []any{j.id, j.path(), j.unit.name, j.unit.path(), string(j.typ), rows}
}

// showStatusValue reports whether s is a value of ShowStatus= (systemd's
// parse_show_status): a boolean, auto or error.
func showStatusValue(s string) bool {
	switch strings.ToLower(s) {
	case "1", "yes", "y", "true", "t", "on", "0", "no", "n", "false", "f", "off", "auto", "error":
		return true
	}
	return false
}

// getDefaultTargetLocked is GetDefaultTarget: the unit default.target
// stands for, following its symlink on the unit path.
func (m *manager) getDefaultTargetLocked() ([]any, error) {
	e, ok := m.lookupDiskLocked(defaultTarget)
	switch {
	case ok && e.masked:
		return nil, &callErr{errPrefix + "UnitMasked", "Unit file is masked."}
	case ok:
		return []any{filepath.Base(e.file)}, nil
	}
	if f, ok := m.files[defaultTarget]; ok {
		if f.Masked {
			return nil, &callErr{errPrefix + "UnitMasked", "Unit file is masked."}
		}
		return []any{defaultTarget}, nil
	}
	names := make([]string, 0, len(m.files))
	for n := range m.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if contains(m.files[n].Aliases, defaultTarget) {
			return []any{n}, nil
		}
	}
	return nil, &callErr{dbusErr + "FileNotFound", "No such file or directory"}
}

// setDefaultTargetLocked is SetDefaultTarget: default.target in the
// persistent directory becomes a symlink to the unit's file.
func (m *manager) setDefaultTargetLocked(name string, force bool, changes *[]unitFileChange) error {
	if name == defaultTarget || !strings.HasSuffix(name, ".target") || strings.Contains(name, "/") || sdbus.ValidateUnitName(name) != nil {
		return errInvalidArgs("Invalid argument")
	}
	if e, ok := m.lookupDiskLocked(name); ok && (e.linked || e.alias) {
		return &callErr{errPrefix + "UnitLinked", "Refusing to operate on alias name or linked unit file: " + name}
	}
	_, file, err := m.resolveUnitFileLocked(name, m.dirs.persistent, force, changes)
	if err != nil {
		return err
	}
	if file == "" {
		return &callErr{dbusErr + "NotSupported", "fakebus has no file for unit " + name + " (AddUnitFile) to link default.target to."}
	}
	return symlinkLocked(filepath.Join(m.dirs.persistent, defaultTarget), file, force, changes)
}

// checkUnitFilesLocked checks that each of files (names or absolute
// paths) has a unit file that is not masked, as a preset does before it
// changes anything.
func (m *manager) checkUnitFilesLocked(files []string) error {
	for _, f := range files {
		if strings.HasPrefix(f, "/") {
			if sdbus.ValidateUnitName(filepath.Base(f)) != nil || filepath.Clean(f) != f {
				return errFileInvalid(f)
			}
			if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
				return errNoUnitFile(f)
			}
			continue
		}
		var scratch []unitFileChange
		if _, _, err := m.resolveUnitFileLocked(f, m.dirs.persistent, false, &scratch); err != nil {
			return err
		}
	}
	return nil
}

// presetAllLocked is PresetAllUnitFiles under the fake's policy (enable
// everything): every unit file in the directories with an [Install]
// section that is not enabled gets enabled; as in systemd, a unit that
// cannot be enabled is skipped.
func (m *manager) presetAllLocked(runtime, force bool, changes *[]unitFileChange) {
	for _, row := range m.listUnitFilesLocked([]string{"disabled", "linked", "linked-runtime"}, nil) {
		name := filepath.Base(row.Path)
		var ch []unitFileChange
		if _, err := m.enableLocked([]string{name}, runtime, force, &ch); err == nil || len(ch) > 0 {
			*changes = append(*changes, ch...)
		}
	}
}

// revertLocked is RevertUnitFiles as systemd 252 does it: the drop-in
// directories (<name>.d/) of each unit go, and, for a unit that has a
// vendor version (an AddUnitFile unit), every file or symlink of its name
// in the two directories (overrides, links, masks); then every symlink to
// a removed path. Enablement symlinks to the vendor unit stay.
func (m *manager) revertLocked(names []string, changes *[]unitFileChange) error {
	var todo []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			todo = append(todo, p)
		}
	}
	dirs := []string{m.dirs.persistent, m.dirs.runtime}
	for _, name := range names {
		if sdbus.ValidateUnitName(name) != nil {
			return errInvalidArgs("Invalid argument")
		}
		for _, dir := range dirs {
			if fi, err := os.Lstat(filepath.Join(dir, name+".d")); err == nil && fi.IsDir() {
				add(filepath.Join(dir, name+".d"))
			}
		}
		if _, vendor := m.files[name]; !vendor {
			continue
		}
		for _, dir := range dirs {
			p := filepath.Join(dir, name)
			if fi, err := os.Lstat(p); err == nil && (fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0) {
				add(p)
			}
		}
	}
	removed := map[string]bool{}
	for _, p := range todo {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			ents, _ := os.ReadDir(p)
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			for _, de := range ents {
				*changes = append(*changes, unitFileChange{"unlink", filepath.Join(p, de.Name()), ""})
			}
		} else if err := os.Remove(p); err != nil {
			return err
		}
		*changes = append(*changes, unitFileChange{"unlink", p, ""})
		removed[p] = true
	}
	if len(removed) == 0 {
		return nil
	}
	for _, dir := range []string{m.dirs.runtime, m.dirs.persistent} {
		var links []string
		_ = filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			t, err := os.Readlink(p)
			if err != nil {
				return nil
			}
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(p), t)
			}
			if removed[filepath.Clean(t)] {
				links = append(links, p)
			}
			return nil
		})
		for _, p := range links {
			if err := os.Remove(p); err != nil {
				return err
			}
			*changes = append(*changes, unitFileChange{"unlink", p, ""})
			if d := filepath.Dir(p); d != dir {
				os.Remove(d) // only when empty
			}
		}
	}
	return nil
}
