package fakebus

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
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
	"golang.org/x/sys/unix"
)

// The fake's unit directories. Two directories play the parts of
// /etc/systemd/system (the persistent configuration, WithUnitDir) and
// /run/systemd/system (the runtime configuration, WithRuntimeUnitDir);
// both are on the fake's unit path, the persistent one first, ahead of
// the unit files added with AddUnitFile (which play the vendor units of
// /usr/lib/systemd/system and have no file). The unit-file methods work
// on them as systemd 252 does on its own:
//
//   - LinkUnitFiles symlinks a unit file from any absolute path into the
//     directory; EnableUnitFiles (and PresetUnitFiles: the fake has no
//     preset files, so its policy enables everything, as systemd's
//     default) links a file given by path, then creates the symlinks of
//     its [Install] section: Alias= in the directory, WantedBy= in
//     <target>.wants/, RequiredBy= in <target>.requires/. DisableUnitFiles
//     removes every symlink to the unit's file (the link included), masks
//     excepted; ReenableUnitFiles disables, then enables.
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
//
// A unit that is not loaded is loaded from the directories as they are
// when it is needed; a loaded unit keeps its settings until daemon-reload
// (Manager.Reload), which reads every file-loaded unit again: changed
// settings apply, a unit whose file is gone is unloaded (or, while it is
// active or has a job, keeps running with LoadState not-found). Masking
// affects a loaded unit only after the reload, as in systemd. Units
// loaded from files are garbage-collected like systemd's: unloaded as
// soon as they are inactive with no job (failed ones stay until
// ResetFailedUnit, unless CollectMode=inactive-or-failed) unless another
// loaded unit depends on them. A unit loaded from a file also gets the
// Wants= and Requires= of the symlinks in its .wants/ and .requires/
// directories, so a unit enabled for a target is pulled in by the
// target's start once the target has been (re)loaded.

// unitDirs are the fake's unit directories.
type unitDirs struct {
	persistent, runtime string
	// temp is a directory the fake made for them and removes on Close.
	temp string
}

// hostUnitDirs are directories the fake must never use while they are
// the host's own systemd configuration (see hostManaged).
var hostUnitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"}

// hostManaged reports whether systemd manages this host's unit directories
// as this process sees them: systemd is PID 1 (or its private socket
// exists), and the process shares PID 1's mount namespace as far as it can
// tell (unshare -m with a tmpfs over /run/systemd/system gives a directory
// of its own). Where PID 1's mount namespace cannot be read (a process
// in a user namespace of its own, such as fakesystemd run's as non-root),
// only the private socket tells: systemd always makes it.
func hostManaged() bool {
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	init, err2 := os.Readlink("/proc/1/ns/mnt")
	if err1 == nil && err2 == nil && self != init {
		return false
	}
	if comm, err := os.ReadFile("/proc/1/comm"); err2 == nil && err == nil && strings.TrimSpace(string(comm)) == "systemd" {
		return true
	}
	_, err := os.Stat("/run/systemd/private")
	return err == nil
}

// setupUnitDirs makes the unit directories of cfg, in a new temporary
// directory unless configured.
func setupUnitDirs(cfg config) (unitDirs, error) {
	d := unitDirs{persistent: cfg.unitDir, runtime: cfg.runtimeUnitDir}
	if d.persistent == "" || d.runtime == "" {
		tmp, err := os.MkdirTemp("", "fakebus-units")
		if err != nil {
			return d, fmt.Errorf("fakebus: %w", err)
		}
		d.temp = tmp
		if d.persistent == "" {
			d.persistent = filepath.Join(tmp, "system")
		}
		if d.runtime == "" {
			d.runtime = filepath.Join(tmp, "runtime")
		}
	}
	for _, dir := range []*string{&d.persistent, &d.runtime} {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			return d, fmt.Errorf("fakebus: unit directory: %w", err)
		}
		*dir = abs
		isHost := func(p string) bool {
			if !hostManaged() {
				return false
			}
			for _, h := range hostUnitDirs {
				if p == h {
					return true
				}
			}
			return false
		}
		if isHost(abs) {
			return d, fmt.Errorf("fakebus: unit directory %s is the host's systemd configuration", abs)
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return d, fmt.Errorf("fakebus: unit directory: %w", err)
		}
		if real, err := filepath.EvalSymlinks(abs); err != nil || isHost(real) {
			return d, fmt.Errorf("fakebus: unit directory %s is the host's systemd configuration or unusable (%v)", abs, err)
		}
	}
	if d.persistent == d.runtime {
		return d, fmt.Errorf("fakebus: the unit directory and the runtime unit directory are both %s", d.persistent)
	}
	return d, nil
}

func (d unitDirs) remove() {
	if d.temp != "" {
		os.RemoveAll(d.temp)
	}
}

func (d unitDirs) config(runtime bool) string {
	if runtime {
		return d.runtime
	}
	return d.persistent
}

// diskEntry is what a unit directory holds under one unit name.
type diskEntry struct {
	path    string // dir/name
	runtime bool   // in the runtime directory
	target  string // a symlink's target, absolute; "" for a regular file
	file    string // the unit file it stands for
	masked  bool   // a symlink to /dev/null
	alias   bool   // a symlink to a unit file of another name
	linked  bool   // a symlink to a file of the same name outside the directories
}

// lookupDiskLocked returns the first entry for name on the unit path.
func (m *manager) lookupDiskLocked(name string) (diskEntry, bool) {
	for _, runtime := range []bool{false, true} {
		if e, ok := m.entryLocked(m.dirs.config(runtime), name, runtime); ok {
			return e, true
		}
	}
	return diskEntry{}, false
}

// entryLocked reads dir/name; dangling symlinks count as absent.
func (m *manager) entryLocked(dir, name string, runtime bool) (diskEntry, bool) {
	p := filepath.Join(dir, name)
	var st unix.Stat_t // not os.Lstat: no FileInfo to allocate on every lookup
	if unix.Lstat(p, &st) != nil {
		return diskEntry{}, false
	}
	e := diskEntry{path: p, runtime: runtime, file: p}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return e, true
	case unix.S_IFLNK:
	default:
		return diskEntry{}, false
	}
	t, err := os.Readlink(p)
	if err != nil {
		return diskEntry{}, false
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(dir, t)
	}
	e.target = t
	if t == "/dev/null" {
		e.masked = true
		return e, true
	}
	if st, err := os.Stat(t); err != nil || !st.Mode().IsRegular() {
		return diskEntry{}, false
	}
	e.file = t
	e.alias = filepath.Base(t) != name
	e.linked = !e.alias && filepath.Dir(t) != m.dirs.persistent && filepath.Dir(t) != m.dirs.runtime
	return e, true
}

// unitSource is where a unit's configuration comes from.
type unitSource struct {
	name string // the primary name
	file string // the unit file on disk, "" for AddUnitFile units
	// fragment is its FragmentPath: the path on the unit path that
	// names the file (a linked file's symlink, not its target; a masked
	// unit's symlink to /dev/null, on 247 /dev/null itself); dropIns its
	// DropInPaths (a masked unit's too before 257, which apply).
	fragment string
	dropIns  []string
	masked   bool
	bad      bool // LoadState bad-setting
	props    []sdbus.Property
	aliases  []string
	ignored  []string // the unit file's lines the fake did not use
}

// sourceLocked finds the configuration of unit name: a file in the unit
// directories, else an AddUnitFile unit.
func (m *manager) sourceLocked(name string) (unitSource, bool) {
	e, ok := m.lookupDiskLocked(name)
	if ok && e.alias {
		name = filepath.Base(e.file)
		if e, ok = m.lookupDiskLocked(name); ok && e.alias {
			return unitSource{}, false // an alias of an alias: not modelled
		}
	}
	if ok {
		src := unitSource{name: name, file: e.file, fragment: e.path, masked: e.masked}
		if e.linked && !sdversions.Behaves(m.release, sdversions.LinkedUnitFragmentIsLink) {
			src.fragment = e.file
		}
		if e.masked {
			if !sdversions.Behaves(m.release, sdversions.MaskedUnitFragmentIsLink) {
				src.fragment = "/dev/null"
			}
			if !sdversions.Behaves(m.release, sdversions.MaskedUnitNoDropIns) {
				src.dropIns = m.dropInsLocked([]string{name})
				src.props = m.parseUnitFile(name, readDropIns(src.dropIns)...).props
			}
			return src, true
		}
		data, err := os.ReadFile(e.file)
		if err != nil {
			return unitSource{}, false
		}
		src.aliases = m.diskAliasesLocked(name, e.file)
		src.dropIns = m.dropInsLocked(append([]string{name}, src.aliases...))
		pu := m.parseUnitFile(name, append([][]byte{data}, readDropIns(src.dropIns)...)...)
		src.props = append(pu.props, m.wantsDirsLocked(name)...)
		src.ignored = pu.ignored
		src.bad = badSetting(name, pu.props)
		return src, true
	}
	if f, ok := m.files[name]; ok {
		// The .wants/ and .requires/ directories in the unit directories
		// add to a vendor unit's dependencies too: `systemctl enable` of a
		// unit WantedBy=multi-user.target, then daemon-reload, and
		// multi-user.target wants it (measured on 252).
		props := append(slices.Clone(f.Properties), m.wantsDirsLocked(name)...)
		return unitSource{name: name, masked: f.Masked, props: props, aliases: f.Aliases}, true
	}
	return unitSource{}, false
}

// wantsDirsLocked returns the dependencies the <name>.wants/ and
// <name>.requires/ directories add to unit name, as Wants and Requires
// properties.
func (m *manager) wantsDirsLocked(name string) []sdbus.Property {
	var out []sdbus.Property
	for _, d := range []struct{ suffix, prop string }{{".wants", "Wants"}, {".requires", "Requires"}} {
		var deps []string
		for _, dir := range []string{m.dirs.persistent, m.dirs.runtime} {
			ents, _ := os.ReadDir(filepath.Join(dir, name+d.suffix))
			for _, de := range ents {
				if sdbus.ValidateUnitName(de.Name()) == nil && !slices.Contains(deps, de.Name()) {
					deps = append(deps, de.Name())
				}
			}
		}
		if len(deps) > 0 {
			out = append(out, sdbus.Property{Name: d.prop, Value: dbus.MakeVariant(deps)})
		}
	}
	return out
}

// diskAliasesLocked returns the names symlinked to file in the unit
// directories other than name, sorted.
func (m *manager) diskAliasesLocked(name, file string) []string {
	var out []string
	for _, runtime := range []bool{false, true} {
		dir := m.dirs.config(runtime)
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			n := de.Name()
			if n == name || de.Type()&fs.ModeSymlink == 0 || sdbus.ValidateUnitName(n) != nil {
				continue
			}
			if e, ok := m.entryLocked(dir, n, runtime); ok && e.alias && e.file == file {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// applySourceLocked gives u the configuration of src.
func (m *manager) applySourceLocked(u *unit, src unitSource) {
	u.fromFile = true
	u.file, u.fragment, u.dropIns = src.file, src.fragment, src.dropIns
	u.fileState = "" // read again when asked for (unitFileStatePropLocked)
	u.masked = src.masked
	u.loaded = loadStamp{mtimes: mtimes(append([]string{stampFile(u)}, src.dropIns...)), dirs: m.dropInDirsLocked(u.name, src.aliases)}
	u.aliases = src.aliases
	switch {
	case src.masked:
		u.load = "masked"
	case src.bad:
		u.load = "bad-setting"
	default:
		u.load = "loaded"
	}
	u.props = map[string]dbus.Variant{}
	names := make([]string, 0, len(src.props))
	for _, p := range src.props {
		m.setPropLocked(u, p.Name, p.Value)
		names = append(names, p.Name)
	}
	from := src.file
	if from == "" {
		from = "AddUnitFile"
	}
	if !src.masked && !m.standard[src.name] {
		m.settingsNoteLocked(u.name, from, names, src.ignored)
	}
	for _, p := range m.control[src.name] {
		m.setPropLocked(u, p.Name, p.Value)
	}
	m.indexLocked(u)
	m.loadTriggeredLocked(u)
	m.loadDepsLocked(u)
}

// loadDepsLocked loads the units u's dependency settings name, as systemd
// loads every unit a dependency names with the unit: after `systemctl
// enable` and a daemon-reload, the unit multi-user.target now wants is
// loaded (inactive) though nothing started it (measured on 252 by the
// differential tester). A name without a file stays unloaded (systemd
// loads it as not-found).
func (m *manager) loadDepsLocked(u *unit) {
	if u.load != "loaded" {
		return
	}
	for _, d := range depLists {
		for _, n := range u.list(d) {
			if m.units[m.primaryLocked(n)] == nil {
				m.loadLocked(n)
			}
		}
	}
}

// reloadUnitsLocked is the unit part of daemon-reload: every unit loaded
// from a file reads its configuration again, and every unit's command
// records are made anew (unit.execShown).
func (m *manager) reloadUnitsLocked() {
	m.unitFilesChanged = false
	for _, u := range m.sortedUnitsLocked() {
		u.execShown = false
		if !u.fromFile {
			continue
		}
		src, ok := m.sourceLocked(u.name)
		if !ok || src.name != u.name {
			if u.isActive() || u.active == "activating" || u.active == "failed" || u.job != nil {
				u.load, u.file, u.fragment, u.dropIns, u.fileState, u.aliases = "not-found", "", "", nil, "", nil
				continue
			}
			m.removeUnitLocked(u)
			continue
		}
		m.applySourceLocked(u, src)
		m.collectLocked(u)
	}
}

// depLists are the dependency settings that reference another unit.
var depLists = []string{"Wants", "Requires", "Requisite", "BindsTo", "PartOf", "Conflicts", "Before", "After", "OnFailure"}

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
	if strings.HasPrefix(f, "/") {
		name = filepath.Base(f)
		if sdbus.ValidateUnitName(name) != nil || filepath.Clean(f) != f {
			return "", "", errFileInvalid(f)
		}
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			return "", "", m.errNoUnitFileLocked(f)
		}
		if d := filepath.Dir(f); d == m.dirs.persistent || d == m.dirs.runtime {
			return name, f, nil
		}
		return name, f, m.symlinkLocked(filepath.Join(dir, name), f, force, changes)
	}
	if sdbus.ValidateUnitName(f) != nil {
		return "", "", errFileInvalid(f)
	}
	if e, ok := m.lookupDiskLocked(f); ok {
		if e.masked {
			return "", "", m.errMaskedFileLocked(e.path)
		}
		return f, e.file, nil
	}
	if uf, ok := m.files[f]; ok {
		if uf.Masked {
			return "", "", m.errMaskedFileLocked(f)
		}
		return f, "", nil
	}
	if u := m.units[m.primaryLocked(f)]; u != nil && u.transient {
		// Its file is in the transient directory (247-262, the
		// differential tester).
		msg := "Unit " + u.fragment + " is transient or generated."
		if m.behaves(sdversions.NoUnitFileWordedAsUnit) {
			msg = strings.TrimSuffix(msg, ".")
		}
		return "", "", &callErr{errPrefix + "UnitGenerated", msg}
	}
	return "", "", m.errNoUnitFileLocked(f)
}

// enableLocked implements EnableUnitFiles and PresetUnitFiles.
func (m *manager) enableLocked(files []string, runtime, force bool, changes *[]unitFileChange) (bool, error) {
	dir := m.dirs.config(runtime)
	carries := false
	for _, f := range files {
		name, file, err := m.resolveUnitFileLocked(f, dir, force, changes)
		if err != nil {
			return carries, err
		}
		inst := m.installOf(name, file)
		if !inst.hasInstall() {
			continue
		}
		carries = true
		aliasTo := file
		if sdversions.Behaves(m.release, sdversions.AliasPointsToLink) &&
			filepath.Dir(file) != m.dirs.persistent && filepath.Dir(file) != m.dirs.runtime {
			aliasTo = filepath.Join(dir, name) // the link
		}
		for _, a := range inst.alias {
			if sdbus.ValidateUnitName(a) != nil || path.Ext(a) != path.Ext(name) {
				continue
			}
			if err := m.symlinkLocked(filepath.Join(dir, a), aliasTo, force, changes); err != nil {
				return carries, err
			}
		}
		for _, w := range []struct {
			targets []string
			suffix  string
		}{{inst.wantedBy, ".wants"}, {inst.requiredBy, ".requires"}} {
			for _, t := range w.targets {
				if sdbus.ValidateUnitName(t) != nil {
					continue
				}
				if err := m.symlinkLocked(filepath.Join(dir, t+w.suffix, name), file, force, changes); err != nil {
					return carries, err
				}
				if !m.unitFileExistsLocked(t) && sdversions.Behaves(m.release, sdversions.DestinationNotPresent) {
					*changes = append(*changes, unitFileChange{"destination not present", t, file})
				}
			}
		}
	}
	return carries, nil
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

// disableLocked implements DisableUnitFiles: it removes from the
// configuration directory every symlink to the unit's file and every
// .wants/ or .requires/ entry of its name, masks excepted. With dryRun it
// only reports what it would remove (GetUnitFileLinks).
func (m *manager) disableLocked(names []string, runtime, dryRun bool, changes *[]unitFileChange) error {
	dir := m.dirs.config(runtime)
	for _, name := range names {
		if sdbus.ValidateUnitName(name) != nil {
			return errFileInvalid(name)
		}
		e, ok := m.lookupDiskLocked(name)
		if !ok {
			// A transient unit's file is in the transient directory,
			// which no link points into: nothing to remove (247-262,
			// the differential tester).
			u := m.units[m.primaryLocked(name)]
			if _, vendor := m.files[name]; !vendor && (u == nil || !u.transient) {
				return m.errNoUnitFileLocked(name)
			}
			continue
		}
		file := e.file
		var wants, top []string
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			p := filepath.Join(dir, de.Name())
			if de.IsDir() && (strings.HasSuffix(de.Name(), ".wants") || strings.HasSuffix(de.Name(), ".requires")) {
				if fi, err := os.Lstat(filepath.Join(p, name)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
					wants = append(wants, filepath.Join(p, name))
				}
				continue
			}
			if de.Type()&fs.ModeSymlink == 0 {
				continue
			}
			// The link itself, and aliases: symlinks to the file, or
			// (sdversions.AliasPointsToLink) to the link in this directory.
			if t, err := os.Readlink(p); err == nil && file != p && (t == file || t == filepath.Join(dir, name) && p != t) {
				top = append(top, p)
			}
		}
		sort.Strings(wants)
		sort.Strings(top)
		for _, p := range append(wants, top...) {
			if dryRun {
				*changes = append(*changes, unitFileChange{"unlink", p, ""})
				continue
			}
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

// unitFileStateLocked returns the UnitFileState of name, or false when it
// has no unit file.
func (m *manager) unitFileStateLocked(name string) (string, bool) {
	if u := m.units[name]; u != nil && u.transient {
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
	case m.enabledInLocked(m.dirs.runtime, name, e.file):
		return "enabled-runtime", true
	case e.linked && e.runtime:
		return "linked-runtime", true
	case e.linked:
		return "linked", true
	}
	if m.installOf(name, e.file).hasInstall() {
		return "disabled", true
	}
	return "static", true
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

// loadStamp is what a unit's unit file and drop-ins were on disk when it
// was loaded: their modification times, and the drop-in directories that
// existed.
type loadStamp struct {
	mtimes map[string]time.Time
	dirs   map[string]bool
}

// dropInDirsLocked returns the drop-in directories of a unit that exist.
func (m *manager) dropInDirsLocked(name string, aliases []string) map[string]bool {
	out := map[string]bool{}
	for _, dir := range []string{m.dirs.persistent, m.dirs.runtime} {
		for _, d := range dropInDirs(dir, append([]string{name}, aliases...)) {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				out[d] = true
			}
		}
	}
	return out
}

// needDaemonReloadLocked is the NeedDaemonReload property of u: whether
// its unit file or drop-ins changed on disk since it was loaded (a file
// modified or removed, a drop-in added or removed), as systemd's
// unit_need_daemon_reload finds it from the files' modification times;
// systemctl then warns to run daemon-reload. Before 257 a drop-in in a
// directory made since the unit was loaded goes unseen (systemd looks
// only in the directories it found at its last reload;
// sdversions.DropInDirsSeenAtOnce). From 257 every unit loaded from a file
// needs one once a unit-file method changed anything
// (sdversions.UnitFileChangesNeedReload). Units not loaded from a file in
// the unit directories never need one.
func (m *manager) needDaemonReloadLocked(u *unit) bool {
	if m.unitFilesChanged && sdversions.Behaves(m.release, sdversions.UnitFileChangesNeedReload) {
		return true
	}
	if u.file == "" || u.loaded.mtimes == nil {
		return false
	}
	var cur []string
	for _, p := range m.dropInsLocked(append([]string{u.name}, u.aliases...)) {
		if u.loaded.dirs[filepath.Dir(p)] || sdversions.Behaves(m.release, sdversions.DropInDirsSeenAtOnce) {
			cur = append(cur, p)
		}
	}
	now := mtimes(append([]string{stampFile(u)}, cur...))
	if len(now) != len(u.loaded.mtimes) {
		return true
	}
	for p, t := range u.loaded.mtimes {
		if n, ok := now[p]; !ok || !n.Equal(t) {
			return true
		}
	}
	return false
}

// stampFile is the file whose modification time says whether u's unit
// file changed: its fragment as found on the unit path (a symlink, for a
// linked unit, followed: removing the link changes it, measured on 252 by
// the differential tester), the file itself for a masked unit.
func stampFile(u *unit) string {
	if u.masked || u.fragment == "" {
		return u.file
	}
	return u.fragment
}

// mtimes returns the modification time of each of paths that exists
// (following symlinks), the zero time for one that does not.
func mtimes(paths []string) map[string]time.Time {
	out := make(map[string]time.Time, len(paths))
	for _, p := range paths {
		if p == "" {
			continue
		}
		var t time.Time
		if fi, err := os.Stat(p); err == nil {
			t = fi.ModTime()
		}
		out[p] = t
	}
	return out
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

// vendorUnitDir is the directory the units added with AddUnitFile (and a
// script's units) play: they have no file, but ListUnitFiles lists them
// there, behind the unit directories, as systemd lists its vendor units.
const vendorUnitDir = "/usr/lib/systemd/system"

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
		if slices.Contains(m.files[n].Aliases, defaultTarget) {
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
		if d := filepath.Dir(file); !strings.HasPrefix(f, "/") && d != m.dirs.persistent && d != m.dirs.runtime {
			// A unit linked into the other directory: linked here too.
			if err := m.symlinkLocked(filepath.Join(dir, name), file, force, changes); err != nil {
				return err
			}
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
