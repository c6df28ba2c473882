package difftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// The unit-file steps of a run, and what the records show of unit files.

// setPaths makes the replacer that shows the manager's unit directories
// and the run's Outside directory as $CONFIG, $RUNTIME and $DIR: where
// they are differs between backends.
func (r *run) setPaths() {
	var pairs []string
	if r.dir != "" {
		pairs = append(pairs, r.dir, "$DIR")
	}
	if r.b.ConfigDir != "" {
		pairs = append(pairs, r.b.ConfigDir, "$CONFIG")
	}
	if r.b.RuntimeDir != "" {
		pairs = append(pairs, r.b.RuntimeDir, "$RUNTIME")
	}
	r.paths = strings.NewReplacer(pairs...)
}

// outside returns the run's Outside directory, made on first use.
func (r *run) outside() (string, error) {
	if r.dir == "" {
		d, err := os.MkdirTemp(r.b.FilesBase, "difftest-"+r.prefix+"-")
		if err != nil {
			return "", err
		}
		r.dir = d
		r.setPaths()
	}
	return r.dir, nil
}

// expand replaces the placeholders of a unit file line (Directive) for
// unit i.
func (r *run) expand(i int) func(string) string {
	return func(s string) string {
		for j := range pool {
			s = strings.ReplaceAll(s, fmt.Sprintf("{u%d}", j), unitName(r.prefix, j))
		}
		s = strings.ReplaceAll(s, "{a}", aliasName(r.prefix, i))
		return strings.ReplaceAll(s, "{dir}", r.dir)
	}
}

// aliasName is the name an Alias= line of unit i gives it.
func aliasName(prefix string, i int) string {
	i %= len(pool)
	return fmt.Sprintf("%sa%d.%s", prefix, i, pool[i])
}

// filePath is where a WriteUnitFile step in dir writes the file of the
// unit named name.
func (r *run) filePath(dir FileDir, name string) (string, error) {
	switch dir {
	case InConfig:
		return filepath.Join(r.b.ConfigDir, name), nil
	case InRuntime:
		return filepath.Join(r.b.RuntimeDir, name), nil
	case InDropIn:
		d := filepath.Join(r.b.ConfigDir, name+".d")
		return filepath.Join(d, "difftest.conf"), os.MkdirAll(d, 0o755)
	}
	d, err := r.outside()
	return filepath.Join(d, name), err
}

// fileOp runs a unit-file step on the unit named name and returns its
// outcome, not yet normalized.
func (r *run) fileOp(o Op, name string) string {
	r.files = true
	switch o.Kind {
	case OpLink, OpEnable, OpDisable, OpMask, OpUnmask:
		r.installed = true
	}
	i := o.Unit % len(pool)
	m := r.s.manager()
	var call *dbus.Call
	switch o.Kind {
	case OpWriteFile:
		p, err := r.filePath(o.Dir, name)
		if err == nil {
			err = os.WriteFile(p, []byte(fileText(o.Lines, r.expand(i))), 0o644)
		}
		if err != nil {
			return "error: " + err.Error()
		}
		if o.Dir != InDropIn {
			r.written[i] = p
		}
		return "ok"
	case OpRemoveFile:
		p, ok := r.written[i]
		if !ok {
			return "no file"
		}
		delete(r.written, i)
		if err := os.Remove(p); err != nil {
			return "error: " + err.Error()
		}
		return "ok"
	case OpLink:
		p, err := r.filePath(Outside, name)
		if err != nil {
			return "error: " + err.Error()
		}
		call = m.CallWithContext(r.ctx, managerIf+".LinkUnitFiles", 0, []string{p}, o.Runtime, o.Force)
	case OpEnable:
		arg := name
		if o.ByPath {
			p, ok := r.written[i]
			if !ok {
				var err error
				if p, err = r.filePath(Outside, name); err != nil {
					return "error: " + err.Error()
				}
			}
			arg = p
		}
		call = m.CallWithContext(r.ctx, managerIf+".EnableUnitFiles", 0, []string{arg}, o.Runtime, o.Force)
	case OpDisable:
		call = m.CallWithContext(r.ctx, managerIf+".DisableUnitFiles", 0, []string{name}, o.Runtime)
	case OpMask:
		call = m.CallWithContext(r.ctx, managerIf+".MaskUnitFiles", 0, []string{name}, o.Runtime, o.Force)
	case OpUnmask:
		call = m.CallWithContext(r.ctx, managerIf+".UnmaskUnitFiles", 0, []string{name}, o.Runtime)
	case OpReload:
		call = m.CallWithContext(r.ctx, managerIf+".Reload", 0)
	case OpFileState:
		call = m.CallWithContext(r.ctx, managerIf+".GetUnitFileState", 0, name)
	case OpReadFileState:
		var path dbus.ObjectPath
		if err := m.CallWithContext(r.ctx, managerIf+".LoadUnit", 0, name).Store(&path); err != nil {
			return r.reply(&dbus.Call{Err: err})
		}
		call = r.s.conn.Object(busName, path).CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, unitIf, "UnitFileState")
	case OpListFiles:
		// systemd lists the files in the order of a hash table: sorted
		// here.
		var rows []struct{ Path, State string }
		err := m.CallWithContext(r.ctx, managerIf+".ListUnitFilesByPatterns", 0, []string{}, []string{r.prefix + "*"}).Store(&rows)
		if err != nil {
			return r.reply(&dbus.Call{Err: err})
		}
		out := make([]string, len(rows))
		for k, row := range rows {
			// Normalized before sorting: the directories' real names
			// sort differently on each backend.
			out[k] = r.paths.Replace(row.Path) + " " + row.State
		}
		sort.Strings(out)
		return "[" + strings.Join(out, ", ") + "]"
	default:
		return "unknown operation " + string(o.Kind)
	}
	return r.reply(call)
}

// fileRecord is what a unit line adds once the sequence worked on unit
// files: the unit's fragment, its drop-ins and whether it needs a
// daemon-reload; a target's Wants= too.
func (r *run) fileRecord(obj dbus.BusObject, k unitKind, set []string) string {
	line := " File=" + r.get(obj, unitIf, "FragmentPath") + " DropIns=" + r.get(obj, unitIf, "DropInPaths") +
		" NeedDaemonReload=" + r.get(obj, unitIf, "NeedDaemonReload")
	if k == kTarget && !slices.Contains(set, "Wants") {
		line += " Wants=" + r.get(obj, unitIf, "Wants")
	}
	return line
}

// wantedByDefault is the line of multi-user.target: which of the
// sequence's units it wants (enabling with WantedBy=multi-user.target and
// a daemon-reload add them).
func (r *run) wantedByDefault() string {
	var path dbus.ObjectPath
	if err := r.s.manager().CallWithContext(r.ctx, managerIf+".GetUnit", 0, "multi-user.target").Store(&path); err != nil {
		return "multi-user.target: " + r.reply(&dbus.Call{Err: err})
	}
	var wants []string
	if err := r.s.conn.Object(busName, path).CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, unitIf, "Wants").Store(&wants); err != nil {
		return "multi-user.target: " + r.reply(&dbus.Call{Err: err})
	}
	var mine []string
	for _, w := range wants {
		if r.ours(w) {
			mine = append(mine, w[len(r.prefix):])
		}
	}
	sort.Strings(mine)
	return "multi-user.target: Wants(sequence's)=[" + strings.Join(mine, " ") + "]"
}

// cleanupFiles undoes the sequence's unit-file steps: every pool unit
// (and its alias) unmasked and disabled, persistent and runtime, the files
// it wrote removed, and the manager reloaded (unless b.NoCleanupReload).
func (r *run) cleanupFiles(ctx context.Context) {
	m := r.s.manager()
	for i := range pool {
		if !r.installed {
			break // nothing linked, enabled or masked (an Also= included)
		}
		names := []string{unitName(r.prefix, i), aliasName(r.prefix, i)}
		for _, runtime := range []bool{false, true} {
			m.CallWithContext(ctx, managerIf+".UnmaskUnitFiles", 0, names, runtime)
			m.CallWithContext(ctx, managerIf+".DisableUnitFiles", 0, names, runtime)
		}
	}
	for _, p := range r.written {
		os.Remove(p)
	}
	// Anything else of the sequence's in the unit directories (a symlink
	// an Alias= naming another unit made).
	for _, dir := range []string{r.b.ConfigDir, r.b.RuntimeDir} {
		if dir == "" {
			continue
		}
		for _, pattern := range []string{r.prefix + "u*", r.prefix + "a*"} {
			matches, _ := filepath.Glob(filepath.Join(dir, pattern))
			deeper, _ := filepath.Glob(filepath.Join(dir, "*", pattern))
			for _, p := range append(matches, deeper...) {
				os.RemoveAll(p)
			}
		}
	}
	if r.dir != "" {
		os.RemoveAll(r.dir)
	}
	for ctx.Err() == nil && !r.b.NoCleanupReload {
		if err := m.CallWithContext(ctx, managerIf+".Reload", 0).Err; err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}
