package fakebus

// The disk side of the loader (systemd's src/basic/path-lookup.c,
// src/basic/unit-file.c, src/shared/dropin.c and src/core/load-dropin.c):
// the unit directories, the lookup of a unit's name on them, its aliases
// and drop-ins on disk, loading a unit from what they hold (the parsing
// is load_fragment.go's), loading it again at daemon-reload, and what
// NeedDaemonReload compares. The unit-file methods that change the
// directories are install.go's.
//
// The fake's unit directories. Two directories play the parts of
// /etc/systemd/system (the persistent configuration, WithUnitDir) and
// /run/systemd/system (the runtime configuration, WithRuntimeUnitDir);
// both are on the fake's unit path, the persistent one first, ahead of
// the unit files added with AddUnitFile (which play the vendor units of
// /usr/lib/systemd/system and have no file).
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

import (
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
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

// emptyTemp empties the unit directories made in the temporary
// directory, which were empty at start (Reset); the caller's own are
// left as they are.
func (d unitDirs) emptyTemp() error {
	if d.temp == "" {
		return nil
	}
	temp, err := filepath.Abs(d.temp)
	if err != nil {
		return fmt.Errorf("fakebus: unit directory: %w", err)
	}
	for _, dir := range []string{d.persistent, d.runtime} {
		if filepath.Dir(dir) != temp {
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("fakebus: unit directory: %w", err)
		}
		for _, e := range ents {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("fakebus: unit directory: %w", err)
			}
		}
	}
	return nil
}

func (d unitDirs) config(runtime bool) string {
	if runtime {
		return d.runtime
	}
	return d.persistent
}

// vendorUnitDir is the directory the units added with AddUnitFile (and a
// script's units) play: they have no file, but ListUnitFiles lists them
// there, behind the unit directories, as systemd lists its vendor units.
const vendorUnitDir = "/usr/lib/systemd/system"

// diskEntry is what a unit directory holds under one unit name.
type diskEntry struct {
	path    string // dir/name
	runtime bool   // in the runtime directory
	target  string // a symlink's target, absolute; "" for a regular file
	file    string // the unit file it stands for
	masked  bool   // a symlink to /dev/null, or an empty file
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
		// An empty unit file masks its name as a symlink to /dev/null
		// does (null_or_empty; measured on 247-262 by the differential
		// tester: listed masked).
		e.masked = st.Size == 0
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
	st2, err := os.Stat(t)
	if err != nil || !st2.Mode().IsRegular() {
		return diskEntry{}, false
	}
	e.file, e.masked = t, st2.Size() == 0
	e.alias = filepath.Base(t) != name
	e.linked = !e.alias && filepath.Dir(t) != m.dirs.persistent && filepath.Dir(t) != m.dirs.runtime
	return e, true
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

// dropInDirs returns the drop-in directories below unit directory dir of
// a unit with these names (its primary name first, then its aliases), in
// systemd's order (unit_file_find_dirs in src/shared/dropin.c): for each
// name NAME.d/, its template's (a@.service.d/ for a@b.service) and its
// prefixes', longest first (a-b-.service.d/, a-.service.d/ for
// a-b-c.service); then the type's (service.d/).
func dropInDirs(dir string, names []string) []string {
	var out []string
	add := func(n string) {
		d := filepath.Join(dir, n+".d")
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	kind := ""
	for _, n := range names {
		dot := strings.LastIndexByte(n, '.')
		if dot < 0 {
			continue
		}
		base, suffix := n[:dot], n[dot:]
		kind = suffix[1:]
		add(n)
		if at := strings.IndexByte(base, '@'); at >= 0 {
			base = base[:at+1]
			add(base + suffix)
			base = base[:at]
		}
		for i := len(base) - 1; i > 0; i-- {
			if base[i] == '-' && i < len(base)-1 {
				add(base[:i+1] + suffix)
			}
		}
	}
	if kind != "" {
		add(kind)
	}
	return out
}

// dropInsLocked returns the drop-ins of a unit with these names (its
// primary name first), as systemd's DropInPaths: the *.conf files (and
// symlinks: one to /dev/null reads empty) of its drop-in directories
// (dropInDirs) in each unit directory, the persistent one first; of those
// with the same file name only the first found, which overrides the
// others; sorted by file name, the order they apply in (measured on 252).
func (m *manager) dropInsLocked(names []string) []string {
	var seen map[string]bool
	var out []string
	for _, dir := range []string{m.dirs.persistent, m.dirs.runtime} {
		for _, d := range dropInDirs(dir, names) {
			var st unix.Stat_t // the usual case, no such directory, without os.ReadDir's error value
			if unix.Stat(d, &st) != nil {
				continue
			}
			ents, _ := os.ReadDir(d)
			for _, de := range ents {
				n := de.Name()
				if !strings.HasSuffix(n, ".conf") || seen[n] || !(de.Type().IsRegular() || de.Type()&fs.ModeSymlink != 0) {
					continue
				}
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[n] = true
				out = append(out, filepath.Join(d, n))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return filepath.Base(out[i]) < filepath.Base(out[j]) })
	return out
}

// seenDropInsLocked is dropInsLocked as the manager sees them when it
// loads a unit: only in the directories its name map found (nameMap), so
// a scope, whose load builds no name map, started after a drop-in
// directory was made for it has none of its drop-ins until a daemon-reload
// (measured on 247-262 by the differential tester, 252 seed 36000: replay
// "drop-in directory seen at the next load"; from 257 NeedDaemonReload
// says so at once).
func (m *manager) seenDropInsLocked(names []string) []string {
	paths := m.dropInsLocked(names)
	seen := paths[:0]
	for _, p := range paths {
		if m.dirSeenLocked(filepath.Dir(p)) {
			seen = append(seen, p)
		}
	}
	return seen
}

// dirSeenLocked reports whether the name map found directory d in a unit
// directory (every directory before the map was first built).
func (m *manager) dirSeenLocked(d string) bool {
	return m.nameMap.dropInDirs == nil || m.nameMap.dropInDirs[d]
}

// readDropIns returns the text of each drop-in; one that cannot be read
// (a dangling symlink) counts as empty.
func readDropIns(paths []string) [][]byte {
	out := make([][]byte, len(paths))
	for i, p := range paths {
		out[i], _ = os.ReadFile(p)
	}
	return out
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
	// unparsed: a directive failed the file's parse (bad too), before
	// the type's own load gave it its defaults.
	unparsed bool
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
			if e.target == "/dev/null" && !sdversions.Behaves(m.release, sdversions.MaskedUnitFragmentIsLink) {
				src.fragment = "/dev/null"
			}
			if !sdversions.Behaves(m.release, sdversions.MaskedUnitNoDropIns) {
				src.dropIns = m.seenDropInsLocked([]string{name})
				src.props = m.parseUnitFile(name, readDropIns(src.dropIns)...).props
			}
			return src, true
		}
		data, err := os.ReadFile(e.file)
		if err != nil {
			return unitSource{}, false
		}
		src.aliases = m.diskAliasesLocked(name, e.file)
		src.dropIns = m.seenDropInsLocked(append([]string{name}, src.aliases...))
		pu := m.parseUnitFile(name, append([][]byte{data}, readDropIns(src.dropIns)...)...)
		src.props = append(pu.props, m.wantsDirsLocked(name)...)
		src.ignored = pu.ignored
		src.bad, src.unparsed = pu.bad || m.badSetting(name, pu.props), pu.bad
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

// applySourceLocked gives u the configuration of src.
func (m *manager) applySourceLocked(u *unit, src unitSource) {
	u.fromFile = true
	u.file, u.fragment, u.dropIns = src.file, src.fragment, src.dropIns
	u.fileState = "" // read again when asked for (unitFileStatePropLocked)
	u.masked, u.unparsed = src.masked, src.unparsed
	u.loaded = loadStamp{mtimes: mtimes(append([]string{stampFile(u)}, src.dropIns...))}
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
		m.setLoadedLocked(u, p.Name, p.Value)
		names = append(names, p.Name)
	}
	from := src.file
	if from == "" {
		from = "AddUnitFile"
	}
	if !src.masked && !m.standard[src.name] {
		m.settingsNoteLocked(u.name, from, names, src.ignored)
	}
	m.applyControlLocked(u)
	m.indexLocked(u)
	m.loadTriggeredLocked(u)
	m.loadDepsLocked(u)
}

// applyDropInsLocked applies the drop-ins of u's name in the unit
// directories to a unit loaded from no unit file of its own (a transient
// unit, a slice or device made implicitly), after its own settings, as
// systemd reads them for every unit it loads (unit_load_dropin): a list
// setting appends to the unit's own (ExecStart=, Environment=) unless an
// empty assignment resets it. Its DropInPaths lists them (measured on
// 252 and 262 by the differential tester: a transient slice and service
// over a drop-in have its settings). They are read when the unit loads,
// and at each daemon-reload (reloadUnfiledLocked); NeedDaemonReload says
// when they changed since.
func (m *manager) applyDropInsLocked(u *unit) {
	paths := m.seenDropInsLocked([]string{u.name})
	u.loaded = loadStamp{mtimes: mtimes(paths)}
	if len(paths) == 0 {
		return
	}
	u.dropIns = paths
	pu := m.parseUnitFile(u.name, readDropIns(paths)...)
	for name := range pu.reset {
		if isDeviceList(name) {
			m.clearDeviceListLocked(u, name) // for a limit, one of a shared list
			continue
		}
		delete(u.props, name)
	}
	for _, p := range pu.props {
		m.setLoadedLocked(u, p.Name, p.Value)
	}
}

// setLoadedLocked sets a setting of u read from a unit file or drop-in:
// as setPropLocked, but a per-device list's lines add entries as a unit
// file's do (devicelist.go), and a CPU set's add to the set
// (unionCPUSet).
func (m *manager) setLoadedLocked(u *unit, name string, v dbus.Variant) {
	v = cpuSetLine(u, name, v)
	if isDeviceList(name) {
		if nv, err := normalize(v); err == nil {
			v = nv
		}
		m.setDeviceListLocked(u, name, v, true)
		return
	}
	m.setPropLocked(u, name, v)
}

// reloadUnfiledLocked loads a unit that has no unit file of its own again,
// as a daemon-reload does: a transient unit from its settings
// (transientProps), a slice or device made implicitly from none, then
// the drop-ins of its name as they are now and SetUnitProperties' (measured
// on 247, 252 and 262 by the differential tester: a drop-in added to a
// running transient service or an active slice applies at the reload).
// A transient unit is checked as a unit file is (badUnit): a drop-in that
// gives a service a second ExecStart=, or empties a timer's values, makes
// it bad-setting, in whatever state it is, and a reload without that
// drop-in loads it again (measured on 247-262 by the differential
// tester). A perpetual unit and one that is not loaded (but a transient
// one that loaded bad-setting) are left alone.
func (m *manager) reloadUnfiledLocked(u *unit) {
	if u.perpetual || !u.transient && u.kind != "slice" && u.kind != "device" {
		return
	}
	if u.load != "loaded" && (!u.transient || u.load != "bad-setting") {
		return
	}
	u.props = map[string]dbus.Variant{}
	for _, p := range u.transientProps {
		if p = m.readBackLocked(u.kind, p); p.Name == "" {
			continue // a line the reload cannot read
		}
		p = m.writtenCPUSetLocked(u, p)
		m.setPropLocked(u, p.Name, p.Value)
	}
	m.reloadDeviceListsLocked(u) // the file holds each list whole
	u.dropIns = nil
	m.applyDropInsLocked(u)
	m.applyControlLocked(u)
	if u.transient {
		u.load = "loaded"
		if m.badUnit(u) {
			u.load = "bad-setting"
		}
	}
	m.indexLocked(u)
	m.loadTriggeredLocked(u)
}

// readBackLocked is transient setting p as a reload reads it from the
// unit's transient file: CPUQuotaPerSecUSec= was written as a percentage,
// whole before 257, in hundredths of a percent from 257, and one that comes
// to 0 is refused (infinity). Measured on 247-262 by the differential
// tester (247 seed 26013: 1 µs/s reads infinity after a reload; 15000
// reads 10000 on 247 and 252); a SetUnitProperties drop-in's line reads
// back the same (replay "OOM pressure limit after a reload"). TasksMaxScale= was written as TasksMax= in
// percent (tasksMaxWritten). ManagedOOMMemoryPressureLimit= (a share of
// 2³²-1) was written in hundredths of a percent, rounded, and is read
// back from them (measured on 252, 257 and 262 by the differential
// tester, 257 seed 37002: 1 and 42949 read 0, 0x7fffffff reads
// 0x80000000; 247 has no such setting; replay "OOM pressure limit after
// a reload"). An exit status set reads as exitStatusSet.readBack says; one
// none of whose lines reads back comes back with no Name (left as it is).
// A service's TimeoutStartUSec= or TimeoutStopUSec= of 0 was written as
// TimeoutStartSec=0, which a service's file reads as no timeout
// (config_parse_service_timeout: infinity); a scope's reads 0 (measured on
// 247-262 by the differential tester, 262 seeds 62004 and 62010).
func (m *manager) readBackLocked(kind string, p setProp) setProp {
	if v, ok := p.Value.Value().(uint64); ok && v == 0 && kind == "service" && (p.Name == "TimeoutStartUSec" || p.Name == "TimeoutStopUSec") {
		return setProp{p.Name, dbus.MakeVariant(infinity)}
	}
	if exitStatusSetting(p.Name) {
		s, _ := decodeExitStatusSet(p.Value.Value())
		if s, ok := s.readBack(); ok {
			return setProp{p.Name, dbus.MakeVariant(s)}
		}
		return setProp{}
	}
	if share, ok := p.Value.Value().(uint32); ok && p.Name == "TasksMaxScale" {
		return setProp{"TasksMax", dbus.MakeVariant(scaledLimit("TasksMax", m.tasksMaxWritten(share), 10000))}
	}
	if share, ok := p.Value.Value().(uint32); ok && (p.Name == "MemoryMaxScale" || p.Name == "MemoryHighScale") {
		// Written as MemoryMax=/MemoryHigh= in percent: from 252 in
		// hundredths, rounded; 247 in tenths, rounded up (measured on
		// 247-262 by the differential tester, 262 seed 39003: 50% of
		// memory reads one page more after a re-execution; replay
		// "memory share after a reload").
		base := strings.TrimSuffix(p.Name, "Scale")
		if m.behaves(sdversions.MemoryScalePermyriad) {
			return setProp{base, dbus.MakeVariant(scaledLimit(base, (uint64(share)*10000+math.MaxUint32/2)/math.MaxUint32, 10000))}
		}
		return setProp{base, dbus.MakeVariant(scaledLimit(base, (uint64(share)*1000+math.MaxUint32-1)/math.MaxUint32, 1000))}
	}
	if share, ok := p.Value.Value().(uint32); ok && p.Name == "ManagedOOMMemoryPressureLimit" {
		permyriad := (uint64(share)*10000 + math.MaxUint32/2) / math.MaxUint32
		return setProp{p.Name, dbus.MakeVariant(uint32((permyriad*math.MaxUint32 + 5000) / 10000))}
	}
	v, ok := p.Value.Value().(uint64)
	if p.Name != "CPUQuotaPerSecUSec" || !ok || v == infinity {
		return p
	}
	step := uint64(10000)
	if m.behaves(sdversions.CPUQuotaHundredths) {
		step = 100
	}
	if v = v / step * step; v == 0 {
		v = infinity
	}
	return setProp{p.Name, dbus.MakeVariant(v)}
}

// tasksMaxWritten is the percentage, in hundredths (permyriad), that
// systemd writes to a transient unit's file for TasksMaxScale=share (of
// 2³²-1). From 257, share rounded to hundredths of a percent; before, it
// rounded share up to a whole percent and printed it with one decimal
// too few (50% as "5.0%": systemd issue 41009), so a reload reads a tenth
// of it. Measured on 247-262 by the differential tester (252 seed 1:
// 0x7fffffff, 50%, reads 5% after a reload on 247 and 252, and 0x1000000,
// 0.39%, reads 0.1%; replay "tasks share after a reload").
func (m *manager) tasksMaxWritten(share uint32) uint64 {
	if m.behaves(sdversions.TasksMaxScaleHundredths) {
		return (uint64(share)*10000 + math.MaxUint32/2) / math.MaxUint32
	}
	percent := (uint64(share)*100 + math.MaxUint32 - 1) / math.MaxUint32
	return percent/10*100 + percent%10*10
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

// reloadUnitsLocked is the unit part of daemon-reload and of
// daemon-reexec: every unit loaded from a file reads its
// configuration again, one loaded from none its drop-ins, every unit's
// command records are made anew (unit.execShown), a scope's result is
// forgotten, and waiting timers are armed again.
func (m *manager) reloadUnitsLocked() {
	m.unitFilesChanged = false
	m.buildNameMapLocked() // the units load from what it finds
	var rearm []*unit
	for _, u := range m.sortedUnitsLocked() {
		u.execShown = false
		u.runs = nil
		if !m.behaves(sdversions.StartLimitSerialized) {
			u.startWindow = startWindow{} // not serialized before 257 (startlimit.go)
		}
		if u.kind == "scope" && u.result != "" {
			// A scope's result is not carried over (scope_serialize
			// keeps none): a failed one reads Result success (measured
			// on 247-262 by the differential tester, replay "failed
			// scope after a reload").
			u.result = "success"
		}
		if u.kind == "timer" {
			// Its values are read again, none disabled, their next
			// elapses not carried over: only a waiting timer computes
			// them again (timer_coldplug; measured on 247-262 by the
			// differential tester for elapsed and running timers: replay
			// "timer next elapse after a reload").
			clear(u.timerNext)
			u.timerDisabled = nil
			if u.sub == "waiting" {
				rearm = append(rearm, u) // once its settings are read again
			}
		}
		if u.load == "stub" {
			// A transient unit whose settings were refused loads from
			// its transient file now (stubLocked).
			u.load = "loaded"
		}
		if !u.fromFile {
			if src, ok := m.sourceLocked(u.name); ok && src.name == u.name && !u.transient && !u.perpetual && u.load == "loaded" {
				// A slice or device loaded without a file that has
				// one now (linked, written) loads from it (measured
				// on 247-262 by the differential tester, 247 seed
				// 430000 of a long run).
				m.applySourceLocked(u, src)
				continue
			}
			m.reloadUnfiledLocked(u)
			continue
		}
		src, ok := m.sourceLocked(u.name)
		if !ok || src.name != u.name {
			if u.isActive() || u.active == "activating" || u.active == "failed" || u.job != nil {
				// Kept for its state; its settings are gone, a
				// SetUnitProperties drop-in's too: each reads as a unit
				// without them (measured on 247-262 by the differential
				// tester: replay "set properties lists the drop-ins
				// found").
				u.load, u.file, u.fragment, u.dropIns, u.fileState, u.aliases = "not-found", "", "", nil, "", nil
				u.props = map[string]dbus.Variant{}
				u.notFoundDirs = m.nameMap.dirs
				continue
			}
			m.removeUnitLocked(u)
			continue
		}
		m.applySourceLocked(u, src)
	}
	// Every unit loaded again goes to systemd's collection queue
	// (unit_load), which systemd runs once all are loaded: one nothing
	// keeps now goes, such as the service a timer triggered before a
	// drop-in's Unit= named another (measured on 247-262 by the
	// differential tester, after a daemon-reload and a re-execution).
	for _, u := range m.sortedUnitsLocked() {
		m.collectLocked(u)
	}
	for _, u := range rearm {
		if u.gone || u.sub != "waiting" {
			continue
		}
		// A waiting timer is armed again, with the values it reads now
		// (timer_coldplug), its last trigger kept: a one-time value
		// due before now is disabled, but one counted from the timer's
		// activation counts from now, the timer being dead at coldplug,
		// so OnActiveSec=0 beside a later value elapses again and starts
		// its unit, where OnBootSec=1us does not (measured on 247-262 by
		// the differential tester after a daemon-reload and a
		// re-execution, 252 seed 170230; 262's re-execution did so once
		// in three: known difference timer-reexec-262).
		m.timerWaitLocked(u, true)
	}
	m.buildNameMapLocked()
	if m.behaves(sdversions.UnneededAtReload) {
		for _, u := range m.sortedUnitsLocked() {
			m.checkUnneededLocked(u)
		}
	}
	if m.behaves(sdversions.StopWhenBound) {
		for _, u := range m.sortedUnitsLocked() {
			if u.active == "active" && len(u.list("BindsTo")) > 0 {
				m.bound = append(m.bound, u)
			}
		}
	}
}

// nameMap is what systemd's unit name map (unit_file_build_name_map),
// built at a daemon-reload or re-execution and again when a unit
// directory changed since (refreshNameMapLocked), holds that the fake
// does not read from disk at each lookup: the transient units loaded then,
// whose files it names (sdversions.CollectedTransientNameLoads), the
// unit directories' modification times then, and the directories in them
// then, the only ones where systemd before 257 looks for a unit's
// drop-ins (needDaemonReloadLocked).
type nameMap struct {
	transient  map[string]bool
	dirs       map[string]time.Time
	dropInDirs map[string]bool
}

// buildNameMapLocked builds the name map as a daemon-reload does.
func (m *manager) buildNameMapLocked() {
	m.nameMap = nameMap{transient: map[string]bool{}, dirs: m.unitDirTimes(), dropInDirs: map[string]bool{}}
	for name, u := range m.units {
		if u.transient {
			m.nameMap.transient[name] = true
		}
	}
	for _, dir := range []string{m.dirs.persistent, m.dirs.runtime} {
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			if de.IsDir() {
				m.nameMap.dropInDirs[filepath.Join(dir, de.Name())] = true
			}
		}
	}
}

// refreshNameMapLocked builds the name map again if a unit directory
// changed since it was built, as systemd does whenever it loads a unit
// that is not loaded (unit_load_fragment; a scope excepted, which it
// loads from no file): a LoadUnit, a job or SetUnitProperties of a unit
// not loaded, a dependency's load, a StartTransientUnit of a new name.
// Measured on 247 and 252 by the differential tester (247 seed 34001: a
// drop-in directory made for a loaded unit makes it need a daemon-reload
// only once another unit was loaded; replay "drop-in directory seen at
// the next load").
func (m *manager) refreshNameMapLocked() {
	if !maps.Equal(m.unitDirTimes(), m.nameMap.dirs) {
		m.buildNameMapLocked()
	}
}

// unitDirTimes are the unit directories' modification times, which the
// name map is built again on (systemd's lookup paths' timestamp hash).
func (m *manager) unitDirTimes() map[string]time.Time {
	return mtimes([]string{m.dirs.persistent, m.dirs.runtime})
}

// retryLoadLocked loads u, a unit not found that something kept loaded,
// again when the name map was built anew, or a unit directory changed,
// since it was found missing, as systemd does at any load of a loaded
// unit (manager_load_unit_prepare, manager_unit_cache_should_retry_load):
// a file written for it since makes it loaded, with no daemon-reload. A
// scope, which loads from no file, stays as it is, and so does a name
// whose file is now an alias of another unit (not modelled).
// Measured on 247, 252, 257 and 262 by the differential tester (replay
// "a kept not-found unit loads its new file": the read of a property
// loads it).
func (m *manager) retryLoadLocked(u *unit) {
	if u.load != "not-found" || u.kind == "scope" ||
		maps.Equal(u.notFoundDirs, m.nameMap.dirs) && maps.Equal(m.unitDirTimes(), m.nameMap.dirs) {
		return
	}
	m.refreshNameMapLocked()
	u.notFoundDirs = m.nameMap.dirs
	if m.staleTransientNameLocked(u.name) {
		return
	}
	if src, ok := m.sourceLocked(u.name); ok && src.name == u.name {
		m.applySourceLocked(u, src)
	}
}

// staleTransientNameLocked reports whether name, which no loaded unit
// has, is one the name map names the transient file of: a unit collected
// since the map was built took its file with it. A unit directory changed
// since then (a unit file written, removed, linked) has systemd build it
// again first (measured on 247, 252 and 257 by the differential tester: a
// unit file written clears it, another transient unit does not). Such a
// name has no file, even where one was written for it meanwhile in a
// directory the transient one shadowed (measured on 247-262: a service
// given a unit file while it ran as a transient unit is not found once
// collected, 262 seed 453478 of a long run); 247-257 answer it not-found
// whatever its type (sdversions.CollectedTransientNameLoads).
func (m *manager) staleTransientNameLocked(name string) bool {
	if !m.nameMap.transient[name] {
		return false
	}
	m.refreshNameMapLocked()
	return m.nameMap.transient[name]
}

// loadStamp is what a unit's unit file and drop-ins were on disk when it
// was loaded: their modification times.
type loadStamp struct {
	mtimes map[string]time.Time
}

// needDaemonReloadLocked is the NeedDaemonReload property of u: whether
// its unit file or drop-ins changed on disk since it was loaded (a file
// modified or removed, a drop-in added or removed), as systemd's
// unit_need_daemon_reload finds it from the files' modification times;
// systemctl then warns to run daemon-reload. Before 257 a drop-in in a
// directory made since the unit was loaded goes unseen until the name
// map is built again (systemd looks only in the directories it found
// then: at a daemon-reload, or the load of another unit once a unit
// directory changed, refreshNameMapLocked; sdversions.DropInDirsSeenAtOnce). From 257 every unit loaded from a file
// needs one once a unit-file method changed anything
// (sdversions.UnitFileChangesNeedReload). Units not loaded from a file in
// the unit directories never need one.
func (m *manager) needDaemonReloadLocked(u *unit) bool {
	if u.load == "stub" {
		return true // its transient file was never loaded (stubLocked)
	}
	if u.load == "bad-setting" && len(u.dropIns) > 0 && !m.behaves(sdversions.BadSettingDropInsCompared) {
		return true // it looked for no drop-ins to compare with
	}
	if m.unitFilesChanged && sdversions.Behaves(m.release, sdversions.UnitFileChangesNeedReload) {
		return true
	}
	if m.dropInsUnorderedLocked(u) {
		return true // SetUnitProperties wrote one out of order (controldropin.go)
	}
	if u.file == "" && !u.transient && u.kind != "slice" && u.kind != "device" || u.loaded.mtimes == nil {
		return false // its drop-ins are looked at for units loaded from no file (applyDropInsLocked)
	}
	var cur []string
	for _, p := range m.dropInsLocked(append([]string{u.name}, u.aliases...)) {
		if m.dirSeenLocked(filepath.Dir(p)) || sdversions.Behaves(m.release, sdversions.DropInDirsSeenAtOnce) {
			cur = append(cur, p)
		}
	}
	if u.fromFile {
		cur = append(cur, stampFile(u))
	}
	now := mtimes(cur)
	if len(now) != len(u.loaded.mtimes) {
		return true
	}
	// From 257 a unit that loaded bad-setting compares which drop-ins
	// there are, not their times: one written again since reads false
	// (measured on 257 and 262 by the differential tester, 262 seed
	// 442650 of a long run; 247 and 252 read true, above).
	pathsOnly := u.load == "bad-setting" && m.behaves(sdversions.BadSettingDropInsCompared)
	for p, t := range u.loaded.mtimes {
		n, ok := now[p]
		if !ok || !n.Equal(t) && !(pathsOnly && (!u.fromFile || p != stampFile(u))) {
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

// writtenCPUSetLocked is setting p, which a D-Bus setter wrote to a unit
// file (the transient file, a SetUnitProperties drop-in), as a load of u
// reads it: a CPU or memory node set's line adds to the set u has so far
// (unionCPUSet) unless the setter wrote an empty line before it
// (sdversions.CPUSetWrittenWhole).
func (m *manager) writtenCPUSetLocked(u *unit, p setProp) setProp {
	if !m.behaves(sdversions.CPUSetWrittenWhole) {
		p.Value = cpuSetLine(u, p.Name, p.Value)
	}
	return p
}
