package fakebus

// The unit-file operations of systemd's src/shared/install.c, on the
// fake's unit directories (unitfile.go), as systemd 252 does them:
//
//   - LinkUnitFiles symlinks a unit file from any absolute path into the
//     directory; EnableUnitFiles (and PresetUnitFiles: the fake has no
//     preset files, so its policy enables everything, as systemd's
//     default) links a file given by path, then creates the symlinks of
//     its [Install] section: Alias= in the directory, WantedBy= in
//     <target>.wants/, RequiredBy= in <target>.requires/ (247 links the
//     file after them). DisableUnitFiles removes every symlink of the
//     unit's name or leading to its file (the link included), masks
//     excepted, in the order the directories list them;
//     ReenableUnitFiles disables, then enables.
//   - MaskUnitFiles symlinks the name to /dev/null; UnmaskUnitFiles
//     removes that symlink.
//   - A symlink in the way is replaced when the call has force or when it
//     dangles; otherwise the call fails with UnitExists.
//   - GetUnitFileState, ListUnitFiles and ListUnitFilesByPatterns report
//     the states systemd reports (enabled, linked, alias, masked, static,
//     disabled, their -runtime forms, transient). Units added with
//     AddUnitFile are static (masked when Masked, indirect when they have
//     aliases, as systemd says of a unit file without [Install] that
//     symlinks point to), their aliases alias;
//     ListUnitFiles lists them under /usr/lib/systemd/system, behind the
//     two directories, where systemd lists its vendor units.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// unitFileChange is one element of a change list, (sss).
type unitFileChange struct{ Type, Filename, Destination string }

// installOf returns the [Install] settings of a unit file ("" for none)
// and its drop-ins (an [Install] section in a drop-in counts, measured
// on 252).
func (m *manager) installOf(name, file string) parsedUnit {
	if file == "" {
		return parsedUnit{}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return parsedUnit{}
	}
	return m.parseUnitFile(name, append([][]byte{data}, readDropIns(m.dropInsLocked([]string{name}))...)...)
}

// symlinkLocked makes link point to dest, reporting the changes: nothing
// when it does already; an existing symlink elsewhere is replaced when
// force is set or it dangles. From 257 the error quotes the existing
// file and ends without a period (sdversions.ExistingFileQuoted).
func (m *manager) symlinkLocked(link, dest string, force bool, changes *[]unitFileChange) error {
	fi, err := os.Lstat(link)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink == 0:
		if m.behaves(sdversions.ExistingFileQuoted) {
			return &callErr{errPrefix + "UnitExists", "File '" + link + "' already exists"}
		}
		return &callErr{errPrefix + "UnitExists", "File " + link + " already exists."}
	case err == nil:
		old, _ := os.Readlink(link)
		if old == dest {
			return nil
		}
		if _, serr := os.Stat(link); serr == nil && !force {
			if m.behaves(sdversions.ExistingFileQuoted) {
				return &callErr{errPrefix + "UnitExists", "File '" + link + "' already exists and is a symlink to " + old}
			}
			return &callErr{errPrefix + "UnitExists", "File " + link + " already exists and is a symlink to " + old + "."}
		}
		if err := os.Remove(link); err != nil {
			return fmt.Errorf("unlink %s: %w", link, err)
		}
		*changes = append(*changes, unitFileChange{"unlink", link, ""})
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(dest, link); err != nil {
		return fmt.Errorf("symlink %s: %w", link, err)
	}
	*changes = append(*changes, unitFileChange{"symlink", link, dest})
	return nil
}

// resolveUnitFileLocked finds the unit file an Enable-like call names (a
// unit name or an absolute path), linking a file outside the unit
// directories into dir.
func (m *manager) resolveUnitFileLocked(f, dir string, force bool, changes *[]unitFileChange) (name, file string, err error) {
	name, file, outside, err := m.findUnitFileLocked(f)
	if err != nil || !outside {
		return name, file, err
	}
	return name, file, m.symlinkLocked(filepath.Join(dir, name), file, force, changes)
}

// findUnitFileLocked finds the unit file an Enable-like call names (a
// unit name or an absolute path); outside reports a file outside the unit
// directories, given by its path or found by a name linked to it, which
// the call links into its directory (systemd's install_info_symlink_link:
// a unit linked into /etc and enabled at runtime is linked into /run too;
// measured on 247-262 by the differential tester, 262 seed 310138 of a
// long run).
func (m *manager) findUnitFileLocked(f string) (name, file string, outside bool, err error) {
	if strings.HasPrefix(f, "/") {
		name = filepath.Base(f)
		if sdbus.ValidateUnitName(name) != nil || filepath.Clean(f) != f {
			return "", "", false, errFileInvalid(f)
		}
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() && st.Mode()&fs.ModeDevice == 0 {
			return "", "", false, m.errNoUnitFileLocked(f)
		}
		d := filepath.Dir(f)
		return name, f, d != m.dirs.persistent && d != m.dirs.runtime, nil
	}
	if sdbus.ValidateUnitName(f) != nil {
		return "", "", false, errFileInvalid(f)
	}
	if u := m.units[f]; u != nil && u.transient {
		// Its file is in the transient directory, which comes before
		// /etc and /run on the unit path: it hides a file or mask of
		// the name there (247-262, the differential tester). A stub's
		// is empty: a mask (emptyTransientFile).
		if u.emptyTransientFile() {
			return "", "", false, m.errMaskedFileLocked(u.fragment)
		}
		msg := "Unit " + u.fragment + " is transient or generated."
		if m.behaves(sdversions.NoUnitFileWordedAsUnit) {
			msg = strings.TrimSuffix(msg, ".")
		}
		return "", "", false, &callErr{errPrefix + "UnitGenerated", msg}
	}
	if e, ok := m.lookupDiskLocked(f); ok {
		if e.masked {
			return "", "", false, m.errMaskedFileLocked(e.path)
		}
		return f, e.file, e.linked, nil
	}
	if uf, ok := m.files[f]; ok {
		if uf.Masked {
			return "", "", false, m.errMaskedFileLocked(f)
		}
		return f, "", false, nil
	}
	if u := m.units[m.primaryLocked(f)]; u != nil && u.transient {
		// An alias of a transient unit.
		msg := "Unit " + u.fragment + " is transient or generated."
		if m.behaves(sdversions.NoUnitFileWordedAsUnit) {
			msg = strings.TrimSuffix(msg, ".")
		}
		return "", "", false, &callErr{errPrefix + "UnitGenerated", msg}
	}
	return "", "", false, m.errNoUnitFileLocked(f)
}

// linkLocked implements LinkUnitFiles: each file, an absolute path, is
// symlinked into the configuration directory unless it is in one of the
// unit directories already.
func (m *manager) linkLocked(files []string, runtime, force bool, changes *[]unitFileChange) error {
	dir := m.dirs.config(runtime)
	for _, f := range files {
		if !strings.HasPrefix(f, "/") {
			return errFileInvalid(f)
		}
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) && !m.behaves(sdversions.LinkMissingFileNoSuchUnit) {
			return &callErr{dbusErr + "FileNotFound", "No such file or directory"}
		}
		if _, _, err := m.resolveUnitFileLocked(f, dir, force, changes); err != nil {
			return err
		}
	}
	return nil
}

// enableLocked implements EnableUnitFiles and PresetUnitFiles. The units
// the files' Also= name are enabled after them, and theirs in turn, each
// once (systemd's install context). One that is missing is reported as
// "auxiliary unit failed" from 252, once however often it is named, fails
// the call on 247 (measured by the differential tester; 252 seed 29023);
// one that is a transient unit is passed over.
func (m *manager) enableLocked(files []string, runtime, force bool, changes *[]unitFileChange) (bool, error) {
	dir := m.dirs.config(runtime)
	carries := false
	todo, seen := slices.Clone(files), map[string]bool{}
	named := map[string]bool{} // the Also= names already in todo
	linkFirst := m.behaves(sdversions.LinkBeforeSymlinks)
	for k := 0; k < len(todo); k++ {
		name, file, outside, err := m.findUnitFileLocked(todo[k])
		if st, serr := os.Stat(file); err == nil && strings.HasPrefix(todo[k], "/") && serr == nil && nullOrEmpty(st) {
			// An empty file given by path masks its name
			// (null_or_empty), as on the unit path: UnitMasked, nothing
			// linked (measured on 247-262 by the differential tester;
			// 252 seed 44002). LinkUnitFiles links it. So does a
			// symlink to /dev/null, a mask (247 seed 320460 of a long
			// run: the fake answered NoSuchUnit).
			err = m.errMaskedFileLocked(file)
		}
		if err == nil && outside && linkFirst {
			err = m.symlinkLocked(filepath.Join(dir, name), file, force, changes)
		}
		var ce *callErr
		switch {
		case err != nil && k >= len(files) && errors.As(err, &ce) && ce.name == errPrefix+"UnitGenerated":
			// An Also= unit whose file is a transient unit's is
			// passed over, nothing reported, on every release
			// (measured on 247-262 by the differential tester; 257
			// seeds 90460 and 91426 of a long run).
			continue
		case err != nil && k >= len(files) && m.behaves(sdversions.AuxiliaryUnitFailed):
			*changes = append(*changes, unitFileChange{"auxiliary unit failed", todo[k], ""})
			continue
		case err != nil:
			return carries, err
		case seen[name]:
			continue
		}
		seen[name] = true
		inst := m.installOf(name, file)
		for _, a := range inst.also {
			if sdbus.ValidateUnitName(a) == nil && !seen[a] && !named[a] {
				todo, named[a] = append(todo, a), true
			}
		}
		if inst.hasInstall() {
			carries = true
			if err := m.installSymlinksLocked(dir, name, file, inst, force, changes); err != nil {
				return carries, err
			}
		}
		if outside && !linkFirst {
			if err := m.symlinkLocked(filepath.Join(dir, name), file, force, changes); err != nil {
				return carries, err
			}
		}
	}
	return carries, nil
}

// nullOrEmpty reports whether a unit file so found masks its unit
// (systemd's null_or_empty): an empty file, or a device (/dev/null).
func nullOrEmpty(st fs.FileInfo) bool {
	return st.Mode()&fs.ModeDevice != 0 || st.Mode().IsRegular() && st.Size() == 0
}

// installSymlinksLocked makes the symlinks of a unit's [Install] section
// in dir: its Alias= names, then its WantedBy= and RequiredBy= entries.
func (m *manager) installSymlinksLocked(dir, name, file string, inst parsedUnit, force bool, changes *[]unitFileChange) (err error) {
	aliasTo := file
	if sdversions.Behaves(m.release, sdversions.AliasPointsToLink) &&
		filepath.Dir(file) != m.dirs.persistent && filepath.Dir(file) != m.dirs.runtime {
		aliasTo = filepath.Join(dir, name) // the link
	}
	var refused error // an alias of another type: the other symlinks are made all the same
	for _, a := range inst.alias {
		if sdbus.ValidateUnitName(a) != nil {
			continue
		}
		if path.Ext(a) != path.Ext(name) {
			if refused == nil && sdversions.Behaves(m.release, sdversions.AliasTypeRefused) {
				msg := "Cannot alias " + name + " as " + a
				if !sdversions.Behaves(m.release, sdversions.ExistingFileQuoted) {
					msg += "."
				}
				refused = &callErr{errPrefix + "BadUnitSetting", msg}
			}
			continue
		}
		if err := m.symlinkLocked(filepath.Join(dir, a), aliasTo, force, changes); err != nil {
			return err
		}
	}
	defer func() {
		if refused != nil && err == nil {
			err = refused
		}
	}()
	for _, w := range []struct {
		targets []string
		suffix  string
	}{{inst.wantedBy, ".wants"}, {inst.requiredBy, ".requires"}} {
		for _, t := range w.targets {
			if sdbus.ValidateUnitName(t) != nil {
				continue
			}
			if err := m.symlinkLocked(filepath.Join(dir, t+w.suffix, name), file, force, changes); err != nil {
				return err
			}
			if !m.unitFileExistsLocked(t) && sdversions.Behaves(m.release, sdversions.DestinationNotPresent) {
				*changes = append(*changes, unitFileChange{"destination not present", t, file})
			}
		}
	}
	return nil
}

// unitFileExistsLocked reports whether a unit file of name is on the unit
// path: on disk (masked or not) or a vendor unit (unit_file_exists).
func (m *manager) unitFileExistsLocked(name string) bool {
	if _, ok := m.lookupDiskLocked(name); ok {
		return true
	}
	_, ok := m.files[name]
	return ok
}

// disableLocked implements DisableUnitFiles: it marks the unit's name and
// those of the units its Also= names (measured on 247-262 by the
// differential tester), then removes every symlink in the configuration
// directory that a mark names (removeMarked); a masked unit is
// skipped. With dryRun it only reports what it would remove
// (GetUnitFileLinks).
func (m *manager) disableLocked(names []string, runtime, dryRun bool, changes *[]unitFileChange) error {
	marked := map[string]bool{}
	todo, seen := slices.Clone(names), map[string]bool{}
	for k := 0; k < len(todo); k++ {
		name := todo[k]
		if sdbus.ValidateUnitName(name) != nil {
			return errFileInvalid(name)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		if u := m.units[name]; u != nil && u.emptyTransientFile() {
			*changes = append(*changes, unitFileChange{"masked", u.fragment, ""})
			continue
		} else if u == nil || !u.transient {
			// A transient unit's file is in the transient directory,
			// which comes before /etc and /run on the unit path: the
			// name's links go, and so does a mask of the name there (a
			// symlink of the name; measured on 247-262 by the
			// differential tester: replay "transient unit hides a mask").
			e, ok := m.lookupDiskLocked(name)
			if !ok {
				// An alias of a transient unit, or a unit added with
				// AddUnitFile: no file on disk.
				u := m.units[m.primaryLocked(name)]
				if _, vendor := m.files[name]; !vendor && (u == nil || !u.transient) && k < len(names) {
					return m.errNoUnitFileLocked(name)
				}
				continue // a unit Also= names without a file: skipped
			}
			if e.masked {
				// Skipped, and said so with the mask's path, wherever the
				// mask is (install_context_mark_for_removal's
				// INSTALL_CHANGE_IS_MASKED; measured on 247-262 by the
				// differential tester: replay "disable of a masked unit").
				*changes = append(*changes, unitFileChange{"masked", e.path, ""})
				continue
			}
			todo = append(todo, m.installOf(name, e.file).also...)
		}
		marked[name] = true
	}
	if len(marked) == 0 {
		return nil
	}
	return removeMarked(m.dirs.config(runtime), marked, dryRun, changes)
}

// removeMarked is systemd's remove_marked_symlinks: it walks dir and
// every directory under it in directory order, as readdir lists them,
// and removes each symlink with a unit's name that is marked: by its
// name, its template's name, or where it leads (the path its chain of
// symlinks ends at, or that path's base name). A removed symlink's path
// is marked in turn, and the walk starts again while that marks a path
// (not in a dry run). The changes come in that order, so they depend on
// the filesystem as systemd's do: tmpfs lists the newest entry first
// (measured on 247-262 by the differential tester).
func removeMarked(dir string, marked map[string]bool, dryRun bool, changes *[]unitFileChange) error {
	for {
		restart, err := removeMarkedIn(dir, dir, marked, dryRun, changes)
		if err != nil || !restart {
			return err
		}
	}
}

// removeMarkedIn is one walk of removeMarked, in sub (dir or below it).
func removeMarkedIn(dir, sub string, marked map[string]bool, dryRun bool, changes *[]unitFileChange) (restart bool, err error) {
	d, err := os.Open(sub)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	ents, err := d.ReadDir(-1) // in directory order, unlike os.ReadDir
	d.Close()
	if err != nil {
		return false, err
	}
	for _, de := range ents {
		p := filepath.Join(sub, de.Name())
		if de.IsDir() {
			r, err := removeMarkedIn(dir, p, marked, dryRun, changes)
			if err != nil {
				return false, err
			}
			restart = restart || r
			continue
		}
		if de.Type()&fs.ModeSymlink == 0 || sdbus.ValidateUnitName(de.Name()) != nil {
			continue
		}
		if !marked[de.Name()] && !marked[templateOf(de.Name())] {
			dest := chaseSymlinks(p)
			if !marked[dest] && !marked[filepath.Base(dest)] {
				continue
			}
		}
		if !dryRun {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, err
			}
			for q := filepath.Dir(p); q != dir && strings.HasPrefix(q, dir+"/"); q = filepath.Dir(q) {
				if os.Remove(q) != nil { // only when empty
					break
				}
			}
		}
		*changes = append(*changes, unitFileChange{"unlink", p, ""})
		if !marked[p] {
			marked[p] = true
			restart = restart || !dryRun
		}
	}
	return restart, nil
}

// templateOf is the template an instance's name is of ("a@b.service":
// "a@.service"), the name itself for a template, and "" for another.
func templateOf(name string) string {
	at := strings.IndexByte(name, '@')
	if at < 0 {
		return ""
	}
	return name[:at+1] + path.Ext(name)
}

// resolveTemplate is the unit a dependency on dep in unit name's file
// names: a template's instance named by name's instance, or by name's
// prefix when name is no instance ("a@.service" in b.service: a@b.service;
// systemd's resolve_template); dep itself when it is no template.
func resolveTemplate(name, dep string) string {
	if templateOf(dep) != dep {
		return dep
	}
	inst := strings.TrimSuffix(name, path.Ext(name)) // the prefix
	if at := strings.IndexByte(inst, '@'); at >= 0 {
		inst = inst[at+1:]
	}
	return strings.TrimSuffix(dep, path.Ext(dep)) + inst + path.Ext(dep)
}

// chaseSymlinks follows the chain of symlinks p starts as far as it
// leads (CHASE_NONEXISTENT: a target that does not exist ends it).
func chaseSymlinks(p string) string {
	for i := 0; i < 32; i++ {
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	return p
}

// reenableLocked implements ReenableUnitFiles: it disables the files
// that are on disk by their names, then enables them all.
func (m *manager) reenableLocked(files []string, runtime, force bool, changes *[]unitFileChange) (bool, error) {
	var names []string
	for _, f := range files {
		n := filepath.Base(f)
		if _, ok := m.lookupDiskLocked(n); ok {
			names = append(names, n)
		}
	}
	if err := m.disableLocked(names, runtime, false, changes); err != nil {
		return false, err
	}
	return m.enableLocked(files, runtime, force, changes)
}

// maskLocked implements MaskUnitFiles: each name is symlinked to
// /dev/null in the configuration directory.
func (m *manager) maskLocked(names []string, runtime, force bool, changes *[]unitFileChange) error {
	dir := m.dirs.config(runtime)
	for _, n := range names {
		if sdbus.ValidateUnitName(n) != nil {
			return errFileInvalid(n)
		}
		if err := m.symlinkLocked(filepath.Join(dir, n), "/dev/null", force, changes); err != nil {
			return err
		}
	}
	return nil
}

// unmaskLocked implements UnmaskUnitFiles: the symlink of each name to
// /dev/null in the configuration directory goes.
func (m *manager) unmaskLocked(names []string, runtime bool, changes *[]unitFileChange) error {
	dir := m.dirs.config(runtime)
	for _, n := range names {
		if sdbus.ValidateUnitName(n) != nil {
			return errFileInvalid(n)
		}
		if e, ok := m.entryLocked(dir, n, runtime); ok && e.masked {
			if err := os.Remove(e.path); err != nil {
				return err
			}
			*changes = append(*changes, unitFileChange{"unlink", e.path, ""})
		}
	}
	return nil
}

// unitFileStateLocked returns the UnitFileState of name, or false when it
// has no unit file.
func (m *manager) unitFileStateLocked(name string) (string, bool) {
	if u := m.units[name]; u != nil && u.emptyTransientFile() {
		// A mask in the runtime directory.
		return "masked-runtime", true
	} else if u != nil && u.transient {
		return "transient", true
	}
	// The first entry on the unit path decides, as in systemd.
	e, ok := m.lookupDiskLocked(name)
	switch {
	case ok && e.masked && e.runtime:
		return "masked-runtime", true
	case ok && e.masked:
		return "masked", true
	case !ok:
		if f, vendor := m.files[name]; vendor {
			switch {
			case f.Masked:
				return "masked", true
			case len(f.Aliases) > 0:
				// No [Install] section, but symlinks to it: systemd
				// 247 to 262 say indirect (measured).
				return "indirect", true
			}
			return "static", true
		}
		if p, ok := m.aliases[name]; ok {
			if _, vendor := m.files[p]; vendor {
				return "alias", true // a symlink next to the vendor unit
			}
		}
		return "", false
	}
	if e.alias {
		return "alias", true
	}
	switch {
	case m.enabledInLocked(m.dirs.persistent, name, e.file):
		return "enabled", true
	case m.enabledInLocked(m.dirs.runtime, name, e.file), !e.runtime && runtimeSymlinkEnables(m.dirs.runtime, name, e):
		return "enabled-runtime", true
	case e.linked && e.runtime:
		return "linked-runtime", true
	case e.linked:
		return "linked", true
	}
	inst := m.installOf(name, e.file)
	switch {
	case inst.hasInstall():
		return "disabled", true
	case len(inst.also) > 0:
		// Only Also=: measured on 247-262 by the differential tester.
		return "indirect", true
	}
	return "static", true
}

// getUnitFileStateLocked is GetUnitFileState: the state of name's unit
// file (unitFileStateLocked).
func (m *manager) getUnitFileStateLocked(name string) (string, error) {
	if sdbus.ValidateUnitName(name) != nil {
		return "", errInvalidArgs("Invalid argument")
	}
	st, found := m.unitFileStateLocked(name)
	if !found {
		return "", &callErr{dbusErr + "FileNotFound", "No such file or directory"}
	}
	return st, nil
}

// runtimeSymlinkEnables reports whether dir, the runtime directory,
// holds a symlink named name that enables the unit whose entry e is in
// the configuration directory, which comes before it on the unit path.
// systemd looks for the symlinks that enable a unit in every unit
// directory (find_symlinks_in_scope). One counts when its own name is the
// unit's or its target's name is (find_symlinks_in_directory), except
// that one with both is a same-name link (linked, not enabled), and in
// the directories after the one that holds the unit's file a symlink's
// own name is not looked at (ignore_same_name). So:
//
//   - the file of a linked unit is the one outside the unit directories:
//     same-name entries count, and a symlink of name to something of
//     another name (a mask) enables (measured on 247, 252, 257 and 262 by
//     the differential tester: `systemctl mask --runtime`, then
//     `systemctl link`);
//   - a unit file in the configuration directory has the runtime
//     directory's same names ignored, and a symlink of name to a file of
//     that name (a runtime link) enables by its target (measured likewise,
//     252 seed 596150 of a long run: a file in the configuration
//     directory, then `systemctl link --runtime` of another).
func runtimeSymlinkEnables(dir, name string, e diskEntry) bool {
	t, err := os.Readlink(filepath.Join(dir, name))
	return err == nil && (filepath.Base(t) == name) != e.linked
}

// enabledInLocked reports whether dir holds a .wants/ or .requires/ entry
// for name, or an alias of file.
func (m *manager) enabledInLocked(dir, name, file string) bool {
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		p := filepath.Join(dir, de.Name())
		if de.IsDir() && (strings.HasSuffix(de.Name(), ".wants") || strings.HasSuffix(de.Name(), ".requires")) {
			if _, err := os.Lstat(filepath.Join(p, name)); err == nil {
				return true
			}
			continue
		}
		if de.Type()&fs.ModeSymlink != 0 && de.Name() != name {
			if t, err := os.Readlink(p); err == nil && t == file {
				return true
			}
		}
	}
	return false
}

// unitFileStatePropLocked is the UnitFileState property of u: the state
// of its unit file as GetUnitFileState found it when a client first read
// the property (Get of it, or a GetAll of its interface) after u was
// loaded, kept until u is loaded again (daemon-reload), as systemd
// caches it in unit_get_unit_file_state (measured on 252: after
// `systemctl enable --no-reload` the property still says disabled if it
// was read before, enabled if not; reading another property does not fix
// it); "" for a unit with no unit file (one made implicitly, -.slice and
// its kind). Until it is read, the value is the state found now.
func (m *manager) unitFileStatePropLocked(u *unit) string {
	switch {
	case u.load == "stub" && m.behaves(sdversions.StubFileStateTransient):
		return "transient"
	case u.load == "stub":
		return "masked-runtime" // unitFileStateLocked
	case u.transient:
		return "transient"
	case !u.fromFile:
		return ""
	case u.fileState != "":
		return u.fileState
	}
	st, _ := m.unitFileStateLocked(u.name)
	return st
}

// unitFileStateReadLocked fixes u's UnitFileState property: a client
// read it.
func (m *manager) unitFileStateReadLocked(u *unit) {
	if u.fileState == "" && !u.transient && u.fromFile {
		u.fileState, _ = m.unitFileStateLocked(u.name)
	}
}

// unitFilePresetLocked is the UnitFilePreset property of u: what the
// fake's preset policy, which enables everything (there are no preset
// files), says of it, as systemd's Debian policy says of every unit no
// rule names: "enabled", for the units of the booted system and
// transient units too (measured on 247, 252 and 257; 262 has a preset
// only for units loaded from a unit file, sdversions.PresetOnlyUnitFiles);
// "" for a unit that is not found, a device (which has no file, measured
// on 247-262), and on 247 for a masked one.
func (m *manager) unitFilePresetLocked(u *unit) string {
	switch {
	case u.load == "not-found", u.kind == "device" && !u.fromFile:
		return ""
	case !u.fromFile && sdversions.Behaves(m.release, sdversions.PresetOnlyUnitFiles):
		return ""
	case u.masked && !sdversions.Behaves(m.release, sdversions.MaskedUnitFragmentIsLink):
		return ""
	}
	return "enabled"
}

type unitFileRow struct{ Path, State string }

// listUnitFilesLocked lists the unit files of every directory on the unit
// path: the transient units', the persistent and runtime directories, then the vendor units
// (AddUnitFile, with their aliases), each name once (the first on the
// unit path), sorted by path.
func (m *manager) listUnitFilesLocked(states, patterns []string) []unitFileRow {
	out := []unitFileRow{}
	seen := map[string]bool{}
	add := func(dir, n string) {
		seen[n] = true
		st, ok := m.unitFileStateLocked(n)
		if !ok || len(states) > 0 && !slices.Contains(states, st) {
			return
		}
		if len(patterns) > 0 {
			match := false
			for _, p := range patterns {
				if ok, _ := path.Match(p, n); ok {
					match = true
				}
			}
			if !match {
				return
			}
		}
		out = append(out, unitFileRow{filepath.Join(dir, n), st})
	}
	// Transient units' files come first on the unit path: systemd lists
	// them while the unit is loaded, failed ones included (measured on
	// 252 by the differential tester).
	for _, u := range m.sortedUnitsLocked() {
		if u.transient {
			add(m.transientUnitDirLocked(), u.name)
		}
	}
	for _, runtime := range []bool{false, true} {
		dir := m.dirs.config(runtime)
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			n := de.Name()
			if de.IsDir() || seen[n] || sdbus.ValidateUnitName(n) != nil {
				continue
			}
			if _, ok := m.entryLocked(dir, n, runtime); !ok {
				continue
			}
			add(dir, n)
		}
	}
	for _, f := range m.files {
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if !seen[n] {
				add(vendorUnitDir, n)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

const defaultTarget = "default.target"

// getDefaultTargetLocked is GetDefaultTarget: the unit default.target
// stands for, following its symlink on the unit path.
func (m *manager) getDefaultTargetLocked() (string, error) {
	e, ok := m.lookupDiskLocked(defaultTarget)
	switch {
	case ok && e.masked:
		return "", &callErr{errPrefix + "UnitMasked", "Unit file is masked."}
	case ok:
		return filepath.Base(e.file), nil
	}
	if f, ok := m.files[defaultTarget]; ok {
		if f.Masked {
			return "", &callErr{errPrefix + "UnitMasked", "Unit file is masked."}
		}
		return defaultTarget, nil
	}
	names := make([]string, 0, len(m.files))
	for n := range m.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if slices.Contains(m.files[n].Aliases, defaultTarget) {
			return n, nil
		}
	}
	return "", &callErr{dbusErr + "FileNotFound", "No such file or directory"}
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
	return m.symlinkLocked(filepath.Join(m.dirs.persistent, defaultTarget), file, force, changes)
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
				return m.errNoUnitFileLocked(f)
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

// presetModes are the preset modes of PresetUnitFilesWithMode and
// PresetAllUnitFiles ("" is full).
var presetModes = map[string]bool{"": true, "full": true, "enable-only": true, "disable-only": true}

// presetLocked implements PresetUnitFiles and PresetUnitFilesWithMode
// under the fake's policy, which enables everything: EnableUnitFiles,
// except that mode disable-only has nothing to disable and only checks
// the files.
func (m *manager) presetLocked(files []string, mode string, runtime, force bool, changes *[]unitFileChange) (bool, error) {
	if mode == "disable-only" {
		return false, m.checkUnitFilesLocked(files)
	}
	return m.enableLocked(files, runtime, force, changes)
}

// presetAllLocked is PresetAllUnitFiles under the fake's policy (enable
// everything): every unit file in the directories with an [Install]
// section that is not enabled gets enabled; as in systemd, a unit that
// cannot be enabled is skipped. Mode disable-only has nothing to do.
func (m *manager) presetAllLocked(mode string, runtime, force bool, changes *[]unitFileChange) {
	if mode == "disable-only" {
		return
	}
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

// addDependencyLocked is AddDependencyUnitFiles: every file (a unit name
// or an absolute path) gets a symlink in target.wants/ (typ "Wants") or
// target.requires/ ("Requires") of the configuration directory, to its
// unit file; a file outside the unit directories (given by its path, or
// linked into the other directory) is linked into the directory first.
// Nothing changes unless the type, the target and every file are good.
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
		return m.errMaskedFileLocked(e.path)
	case ok && e.alias:
		target = filepath.Base(e.file)
	case ok:
	case m.files[target].Masked:
		return m.errMaskedFileLocked(target)
	default:
		if _, vendor := m.files[target]; !vendor {
			return m.errNoUnitFileLocked(target)
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
		if err := m.symlinkLocked(filepath.Join(dir, target+suffix, name), file, force, changes); err != nil {
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

// unitFileLinksLocked is GetUnitFileLinks: the links a disable of name
// would remove, from a dry run of it.
func (m *manager) unitFileLinksLocked(name string, runtime bool) ([]string, error) {
	if sdbus.ValidateUnitName(name) != nil {
		// systemd answers the errno of its dry-run disable.
		if !sdversions.Behaves(m.release, sdversions.UnitFileLinksEUCLEAN) {
			return nil, &callErr{dbusErr + "InvalidArgs", "Invalid argument"}
		}
		return nil, &callErr{"System.Error.EUCLEAN", "Structure needs cleaning"}
	}
	if _, ok := m.lookupDiskLocked(name); !ok {
		return []string{}, nil // no unit file: no links
	}
	if m.cfg.user >= 0 && !sdversions.Behaves(m.release, sdversions.UnitFileLinksOwnScope) {
		// 247 looks in the system's directories, which a user manager's
		// fake does not have: none of its own links.
		return []string{}, nil
	}
	changes := []unitFileChange{}
	if err := m.disableLocked([]string{name}, runtime, true, &changes); err != nil {
		return nil, err
	}
	links := []string{}
	for _, ch := range changes {
		if ch.Type == "unlink" {
			links = append(links, ch.Filename)
		}
	}
	return links, nil
}
