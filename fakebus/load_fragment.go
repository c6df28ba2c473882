package fakebus

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// Unit files on disk, as the fake reads them: see "Unit files" in the
// package documentation.

// parsedUnit is what the fake takes from a unit file.
type parsedUnit struct {
	props []sdbus.Property
	// install holds the [Install] settings; hasInstall is set when any of
	// them is present.
	wantedBy, requiredBy, alias []string
	// ignored are the assignments the fake did not use, "Section.Key".
	ignored []string
}

func (p parsedUnit) hasInstall() bool {
	return len(p.wantedBy)+len(p.requiredBy)+len(p.alias) > 0
}

// typeSection is the section name of a unit type's settings.
func typeSection(kind string) string {
	if kind == "" {
		return ""
	}
	return strings.ToUpper(kind[:1]) + kind[1:]
}

// parseUnitFile parses the text of unit file name (its kind is the name's
// suffix), then that of its drop-ins in order, each one's assignments
// after the ones before as systemd reads them (an empty assignment resets
// a list set by an earlier file; an assignment before a file's first
// section header is ignored). m checks values as StartTransientUnit
// would.
func (m *manager) parseUnitFile(name string, files ...[]byte) parsedUnit {
	kind := name[strings.LastIndexByte(name, '.')+1:]
	var out parsedUnit
	lists := map[string][]string{} // list properties, in order
	var order []string
	set := func(key string, v dbus.Variant) {
		for i, p := range out.props {
			if p.Name == key {
				out.props = append(out.props[:i], out.props[i+1:]...)
				break
			}
		}
		out.props = append(out.props, sdbus.Property{Name: key, Value: v})
	}
	var execs = map[string][]execCommand{}
	for _, data := range files {
		section := ""
		sc := bufio.NewScanner(bytes.NewReader(data))
		var cont strings.Builder
		for sc.Scan() {
			line := sc.Text()
			if strings.HasSuffix(line, "\\") {
				cont.WriteString(strings.TrimSuffix(line, "\\"))
				cont.WriteByte(' ')
				continue
			}
			if cont.Len() > 0 {
				cont.WriteString(line)
				line = cont.String()
				cont.Reset()
			}
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
			if line[0] == '[' && line[len(line)-1] == ']' {
				section = line[1 : len(line)-1]
				continue
			}
			key, val, ok := strings.Cut(line, "=")
			if !ok {
				continue // systemd: "Missing '=', ignoring line."
			}
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			used := true
			switch {
			case section == "Install":
				switch key {
				case "WantedBy":
					out.wantedBy = resetOrAppend(out.wantedBy, val)
				case "RequiredBy":
					out.requiredBy = resetOrAppend(out.requiredBy, val)
				case "Alias":
					out.alias = resetOrAppend(out.alias, val)
				default:
					used = false
				}
			case section != "Unit" && section != typeSection(kind):
				used = false
			case strings.HasPrefix(key, "Exec"):
				spec, ok := settableProps[key]
				if !ok || spec.sig != "a(sasb)" || !appliesTo(spec.scope, kind) {
					used = false
					break
				}
				if val == "" {
					delete(execs, key)
					break
				}
				cmd, ok := parseExec(val)
				if !ok {
					used = false
					break
				}
				if _, seen := execs[key]; !seen {
					order = append(order, key)
				}
				execs[key] = append(execs[key], cmd)
			default:
				spec, ok := settableProps[key]
				if !ok || !appliesTo(spec.scope, kind) || (section == "Unit") != (spec.scope == forUnit) {
					used = false
					break
				}
				switch spec.sig {
				case "s":
					used = m.useValue(kind, key, dbus.MakeVariant(val), set)
				case "b":
					b, ok := parseBool(val)
					used = ok && m.useValue(kind, key, dbus.MakeVariant(b), set)
				case "as":
					if _, seen := lists[key]; !seen {
						order = append(order, key)
					}
					if key == "Environment" {
						lists[key] = resetOrAppendWords(lists[key], val)
					} else {
						lists[key] = resetOrAppend(lists[key], val)
					}
				default:
					used = false
				}
			}
			if !used {
				out.ignored = append(out.ignored, section+"."+key)
			}
		}
	}
	for _, key := range order {
		if l, ok := lists[key]; ok && len(l) > 0 {
			m.useValue(kind, key, dbus.MakeVariant(l), set)
		}
		if c, ok := execs[key]; ok && len(c) > 0 {
			m.useValue(kind, key, dbus.MakeVariant(c), set)
		}
	}
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
	seen := map[string]bool{}
	var out []string
	for _, dir := range []string{m.dirs.persistent, m.dirs.runtime} {
		for _, d := range dropInDirs(dir, names) {
			ents, _ := os.ReadDir(d)
			for _, de := range ents {
				n := de.Name()
				if !strings.HasSuffix(n, ".conf") || seen[n] || !(de.Type().IsRegular() || de.Type()&fs.ModeSymlink != 0) {
					continue
				}
				seen[n] = true
				out = append(out, filepath.Join(d, n))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return filepath.Base(out[i]) < filepath.Base(out[j]) })
	return out
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

// useValue sets a property when its value passes the checks of
// StartTransientUnit for the release modelled.
func (m *manager) useValue(kind, key string, v dbus.Variant, set func(string, dbus.Variant)) bool {
	if _, err := m.checkPropsLocked(kind, []setProp{{key, v}}); err != nil {
		return false
	}
	set(key, v)
	return true
}

func resetOrAppend(l []string, val string) []string {
	if val == "" {
		return nil
	}
	return append(l, strings.Fields(val)...)
}

func resetOrAppendWords(l []string, val string) []string {
	if val == "" {
		return nil
	}
	words, ok := splitQuoted(val)
	if !ok {
		return l
	}
	return append(l, words...)
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "1", "yes", "y", "true", "t", "on":
		return true, true
	case "0", "no", "n", "false", "f", "off":
		return false, true
	}
	return false, false
}

// parseExec parses one Exec*= command line.
func parseExec(val string) (execCommand, bool) {
	ignore := false
	for len(val) > 0 && strings.IndexByte("-@+!:", val[0]) >= 0 {
		if val[0] == '-' {
			ignore = true
		}
		val = val[1:]
	}
	argv, ok := splitQuoted(val)
	if !ok || len(argv) == 0 || !strings.HasPrefix(argv[0], "/") {
		return execCommand{}, false
	}
	return execCommand{Path: argv[0], Argv: argv, IgnoreFailure: ignore}, true
}

// splitQuoted splits s into words at white space, honouring double and
// single quotes and backslash escapes.
func splitQuoted(s string) ([]string, bool) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(unescapeByte(s[i]))
			inWord = true
		case quote == 0 && (c == ' ' || c == '\t'):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}

func unescapeByte(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return c
}
