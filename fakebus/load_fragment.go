package fakebus

// Parsing unit files and their drop-ins, as the fake reads them
// (systemd's src/core/load-fragment.c); where it finds them is
// unitfile.go's. See "Unit files" in docs/fakebus.md.

import (
	"bufio"
	"bytes"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// parsedUnit is what the fake takes from a unit file.
type parsedUnit struct {
	props []sdbus.Property
	// install holds the [Install] settings; hasInstall is set when any of
	// them is present.
	wantedBy, requiredBy, alias []string
	// also is Also=: units enabled and disabled with this one
	// (enableLocked, disableLocked); as the only [Install] setting it
	// makes the unit indirect.
	also []string
	// ignored are the assignments the fake did not use, "Section.Key".
	ignored []string
	// bad is set by an assignment that makes the unit fail to load
	// (bad-setting): systemd's parser returns -ENOEXEC for it.
	bad bool
	// reset are the list settings an empty assignment reset: their value
	// here replaces the one before these files (a transient unit's, for
	// its drop-ins) where the others' is appended to it.
	reset map[string]bool
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
	self := name // (name names a property in the loop)
	var out parsedUnit
	lists := map[string][]string{} // list properties, in order
	devLists := map[string][]any{} // DeviceAllow= and the per-device IO lists: devEntry, ioEntry
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
	exitSets := map[string]exitStatusSet{} // SuccessExitStatus= and the like (exitstatus.go)
	conds := map[string][][]any{}          // Conditions and Asserts, as the bus gives them: (sbbs)
	out.reset = map[string]bool{}
	var tl typeLists
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
			directive := section + "." + key // as written, for ignored
			sec, key := legacyDirective(kind, section, key)
			used := true
			switch {
			case sec == "Install":
				switch key {
				case "WantedBy":
					out.wantedBy = resetOrAppend(out.wantedBy, val)
				case "RequiredBy":
					out.requiredBy = resetOrAppend(out.requiredBy, val)
				case "Alias":
					// Devices, slices and scopes take no alias
					// (unit_type_may_alias): a scope's Alias= is ignored
					// and it lists static; a service's alias of another
					// type still counts (disabled). Measured on 247-262 by
					// the differential tester.
					if kind != "device" && kind != "slice" && kind != "scope" {
						out.alias = resetOrAppend(out.alias, val)
					} else {
						used = false
					}
				case "Also":
					out.also = resetOrAppend(out.also, val)
				default:
					used = false
				}
			case sec != "Unit" && sec != typeSection(kind):
				used = false
			case sec == typeSection(kind) && isTypeSetting(kind, key):
				used = tl.read(kind, key, val, set)
			case strings.HasPrefix(key, "Exec"):
				spec, ok := settableProps[key]
				if !ok || spec.sig != "a(sasb)" || !appliesTo(spec.scope, kind) {
					used = false
					break
				}
				if val == "" {
					delete(execs, key)
					out.reset[key] = true
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
			case sec == "Unit" && conditionList(key) != "":
				list := conditionList(key)
				if _, seen := conds[list]; !seen {
					order = append(order, list)
				}
				if val == "" {
					conds[list] = [][]any{}
					out.reset[list] = true
					break
				}
				c, ok := parseConditionLine(key, val)
				if !ok {
					used = false
					break
				}
				conds[list] = append(conds[list], []any{c.Type, c.Trigger, c.Negate, c.Param})
			case sec == typeSection(kind) && key == "WorkingDirectory" && appliesTo(forExecCtx, kind):
				// A path that is not absolute fails the unit's load,
				// unless it may be missing ("-"); "~" is the user's home.
				d, missingOK := strings.CutPrefix(val, "-")
				switch {
				case d == "~" || strings.HasPrefix(d, "/"):
					used = m.useValue(kind, key, dbus.MakeVariant(val), set)
				case missingOK:
					used = false
				default:
					used, out.bad = false, true
				}
			case sec == typeSection(kind) && strings.HasSuffix(key, "Signal") && settableSig(key) == "i":
				sig, ok := parseSignal(val)
				used = ok && m.useValue(kind, key, dbus.MakeVariant(sig), set)
			case sec == "Unit" && key == "OnFailureIsolate":
				// The older spelling of OnFailureJobMode=: yes is
				// isolate, no replace (onfailure.go).
				b, ok := parseBool(val)
				mode := sdbus.ModeReplace
				if b {
					mode = sdbus.ModeIsolate
				}
				used = ok && m.useValue(kind, "OnFailureJobMode", dbus.MakeVariant(string(mode)), set)
			case sec == typeSection(kind) && key == "Delegate" && appliesTo(forExec, kind):
				used = m.parseDelegate(kind, val, set)
			case sec == typeSection(kind) && (key == "AllowedCPUs" || key == "AllowedMemoryNodes" || key == "StartupAllowedCPUs" || key == "StartupAllowedMemoryNodes"):
				bits, ok := parseCPUSet(val)
				for _, p := range out.props {
					if b, isSet := p.Value.Value().([]byte); isSet && p.Name == key {
						bits = unionCPUSet(b, bits) // a line adds to the lines before it
					}
				}
				used = ok && m.useValue(kind, key, dbus.MakeVariant(bits), set)
			case sec == typeSection(kind) && kind == "service" && exitStatusSetting(key):
				// Its lines add up; an empty one empties it.
				s, reset := m.parseExitStatusLineLocked(val)
				if _, seen := exitSets[key]; !seen {
					order = append(order, key)
				}
				switch {
				case reset:
					exitSets[key] = exitStatusSet{Status: []int32{}, Signal: []int32{}}
					out.reset[key] = true
				case s.empty():
					used = false
				default:
					exitSets[key] = exitSets[key].join(s)
				}
			case sec == "Service" && kind == "service" && key == "TimeoutAbortSec" && val == "":
				// config_parse_service_timeout_abort: empty unsets it (the
				// abort timeout reads the stop timeout again); a value is a
				// time span, 0 is 0 (numericSetting).
				out.props = slices.DeleteFunc(out.props, func(p sdbus.Property) bool { return p.Name == "TimeoutAbortUSec" })
				out.reset["TimeoutAbortUSec"] = true
			case numericDirective(key):
				props, ok := m.numericSetting(key, val)
				used = ok
				for _, p := range props {
					if strings.HasPrefix(p.Name, "Limit") && strings.HasSuffix(p.Name, "Soft") {
						set(p.Name, p.Value) // no D-Bus setting: read back as it is
						continue
					}
					spec, known := settableProps[p.Name]
					used = used && known && appliesTo(spec.scope, kind) && (sec == "Unit") == (spec.scope == forUnit) &&
						m.useValue(kind, p.Name, p.Value, set)
				}
			default:
				name := key
				if key == "IODeviceLatencyTargetSec" {
					name = "IODeviceLatencyTargetUSec" // its lines' list
				}
				spec, ok := settableProps[name]
				if !ok || !appliesTo(spec.scope, kind) || (sec == "Unit") != (spec.scope == forUnit) {
					used = false
					break
				}
				switch spec.sig {
				case "s":
					used = m.useValue(kind, name, dbus.MakeVariant(val), set)
				case "b":
					b, ok := parseBool(val)
					used = ok && m.useValue(kind, name, dbus.MakeVariant(b), set)
				case "as":
					if _, seen := lists[name]; !seen {
						order = append(order, name)
					}
					if val == "" {
						out.reset[name] = true
					}
					if name == "Environment" {
						lists[name] = resetOrAppendWords(lists[name], val)
					} else if name == "Documentation" {
						// Each word that is a URL systemd takes
						// (documentation_url_is_valid); the others are dropped.
						lists[name] = keepWords(lists[name], val, func(w string) (string, bool) { return w, validDocumentationURL(w) })
					} else if name == "RequiresMountsFor" || name == "WantsMountsFor" {
						// Word by word: one that is not an absolute,
						// normalized path is passed over
						// (config_parse_unit_mounts_for; measured on 257
						// by the differential tester).
						lists[name] = keepWords(lists[name], val, func(w string) (string, bool) {
							return simplifyPath(w), checkMountPaths(name)([]string{w}) == nil
						})
					} else if slices.Contains(depLists, name) {
						// Word by word: a name that is not a unit's is
						// passed over, the others kept
						// (config_parse_unit_deps: "Failed to add
						// dependency", and on; 252 seed 555046 of a long
						// run, measured on 247-262); a template's is
						// instantiated for this unit (resolve_template).
						lists[name] = keepWords(lists[name], val, func(w string) (string, bool) {
							w = resolveTemplate(self, w)
							return w, checkUnitList([]string{w}) == nil
						})
					} else {
						lists[name] = resetOrAppend(lists[name], val)
					}
				case "a(ss)", "a(st)":
					e, ok := parseDeviceEntry(name, val)
					if !ok {
						used = false
						break
					}
					if _, seen := devLists[name]; !seen {
						order = append(order, name)
					}
					if e == nil {
						devLists[name] = nil // "DeviceAllow=": the list empties
						out.reset[name] = true
						break
					}
					devLists[name] = append(devLists[name], e)
				default:
					used = false
				}
			}
			if !used {
				out.ignored = append(out.ignored, directive)
			}
		}
	}
	tl.apply(m, kind, set)
	for key := range tl.reset {
		out.reset[key] = true
	}
	for _, key := range order {
		if l, ok := lists[key]; ok && len(l) > 0 {
			m.useValue(kind, key, dbus.MakeVariant(l), set)
		}
		if c, ok := execs[key]; ok && len(c) > 0 {
			m.useValue(kind, key, dbus.MakeVariant(c), set)
		}
		if l := devLists[key]; len(l) > 0 {
			m.useValue(kind, key, deviceList(l), set)
		}
		if e, ok := exitSets[key]; ok {
			m.useValue(kind, key, dbus.MakeVariant(e), set)
		}
		if c, ok := conds[key]; ok && len(c) > 0 {
			set(key, dbus.MakeVariantWithSignature(c, dbus.ParseSignatureMust("a(sbbs)")))
		}
	}
	return out
}

// parseDeviceEntry parses a line of DeviceAllow= ("PATH [rwm]", access
// rwm when not given) or of a per-device IO list (IODeviceWeight=
// "PATH WEIGHT", IOReadBandwidthMax= and the like "PATH SIZE" or
// "PATH infinity"), as systemd's config_parse_device_allow and
// config_parse_io_* do: a devEntry or an ioEntry, nil for an empty value
// (which empties the list), and false for a line systemd ignores.
func parseDeviceEntry(key, val string) (any, bool) {
	if val == "" {
		return nil, true
	}
	f := strings.Fields(val)
	if key == "DeviceAllow" {
		e := devEntry{Specifier: f[0], Access: "rwm"}
		if len(f) > 1 {
			e.Access = f[1]
		}
		return e, len(f) <= 2 && checkDeviceAllow([]devEntry{e}) == nil
	}
	if len(f) != 2 || !strings.HasPrefix(f[0], "/") {
		return nil, false
	}
	e := ioEntry{Path: f[0]}
	var ok bool
	switch key {
	case "IODeviceWeight":
		w, err := strconv.ParseUint(f[1], 10, 64)
		e.Value = w
		ok = err == nil && checkIOWeights([]ioEntry{e}) == nil
	case "IODeviceLatencyTargetUSec":
		// IODeviceLatencyTargetSec=: a time span (parse_sec).
		e.Value, ok = parseTimespan(f[1])
	default:
		// In bytes or operations, suffixes of 1000; 0 is refused.
		e.Value, ok = parseSizeBase(f[1], 1000)
		ok = ok && e.Value > 0
	}
	return e, ok
}

// deviceList is the D-Bus value of a list of devEntry or ioEntry.
func deviceList(l []any) dbus.Variant {
	if _, ok := l[0].(devEntry); ok {
		out := make([]devEntry, len(l))
		for i, e := range l {
			out[i] = e.(devEntry)
		}
		return dbus.MakeVariant(out)
	}
	out := make([]ioEntry, len(l))
	for i, e := range l {
		out[i] = e.(ioEntry)
	}
	return dbus.MakeVariant(out)
}

// settableSig is the D-Bus signature of settable property name, "" for
// none.
func settableSig(name string) string { return settableProps[name].sig }

// validDocumentationURL reports whether a Documentation= word is a URL
// systemd keeps (documentation_url_is_valid, the same on 247-262):
// http(s)://, file:/, info: or man:, with something after it, all ASCII.
func validDocumentationURL(w string) bool {
	for _, p := range []string{"http://", "https://", "file:/", "info:", "man:"} {
		if rest, ok := strings.CutPrefix(w, p); ok {
			return rest != "" && strings.IndexFunc(rest, func(r rune) bool { return r >= utf8.RuneSelf }) < 0
		}
	}
	return false
}

// parseDelegate sets Delegate= of a unit file as config_parse_delegate
// does: a boolean turns delegation on for every controller or off, a list
// of controllers adds those it names (unknown names are ignored; none
// known, the line changes nothing the fake shows), empty resets the list
// and turns delegation on.
func (m *manager) parseDelegate(kind, val string, set func(string, dbus.Variant)) bool {
	if b, ok := parseBool(val); ok {
		return m.useValue(kind, "Delegate", dbus.MakeVariant(b), set)
	}
	known := []string{}
	for _, w := range strings.Fields(val) {
		if slices.Contains(cgroupControllers, w) {
			known = append(known, w)
		}
	}
	if val != "" && len(known) == 0 {
		return false
	}
	return m.useValue(kind, "DelegateControllers", dbus.MakeVariant(known), set)
}

// unionCPUSet is what a unit file's line of a CPU or memory node set
// makes of the set the lines before it made: their union; an empty line
// empties it (systemd's parse_cpu_set_extend, on every release; a D-Bus
// setting replaces the set, and what it writes: writtenCPUSetLocked).
// Measured on 247-262 by the differential tester (replay "CPU sets after
// a reload": a unit file's and its drop-in's lines add up).
func unionCPUSet(old, line []byte) []byte {
	if len(line) == 0 || len(old) == 0 {
		return line
	}
	out := make([]byte, max(len(old), len(line)))
	copy(out, old)
	for i, b := range line {
		out[i] |= b
	}
	return out
}

// cpuSetSetting reports whether name is a CPU or memory node set.
func cpuSetSetting(name string) bool {
	switch name {
	case "AllowedCPUs", "StartupAllowedCPUs", "AllowedMemoryNodes", "StartupAllowedMemoryNodes":
		return true
	}
	return false
}

// cpuSetLine is value v of setting name as a unit-file line of it makes
// it on top of u's (unionCPUSet): v itself unless name is a CPU or memory
// node set u has already.
func cpuSetLine(u *unit, name string, v dbus.Variant) dbus.Variant {
	if old, ok := u.props[name]; ok && cpuSetSetting(name) {
		return dbus.MakeVariant(unionCPUSet(old.Value().([]byte), v.Value().([]byte)))
	}
	return v
}

// parseCPUSet parses a CPU or NUMA node list ("0-3 5,7") into systemd's
// bitmap, whole 64-bit words; empty is the empty set.
func parseCPUSet(s string) ([]byte, bool) {
	var bits []byte
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.ParseUint(lo, 10, 16)
		if err != nil {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 16); err != nil || b < a {
				return nil, false
			}
		}
		for c := a; c <= b; c++ {
			for int(c/8) >= len(bits) {
				bits = append(bits, 0)
			}
			bits[c/8] |= 1 << (c % 8)
		}
	}
	for len(bits)%8 != 0 {
		bits = append(bits, 0)
	}
	return bits, true
}

// validListen reports whether a Listen*= value is an address systemd's
// socket parser takes for its type: a stream, datagram or sequential
// packet socket's absolute path, abstract name (@), port, IPv4 or [IPv6]
// address with a port, or vsock: address; the other types' absolute
// paths (a netlink family for ListenNetlink).
func validListen(typ, val string) bool {
	switch typ {
	case "Stream", "Datagram", "SequentialPacket":
		if strings.HasPrefix(val, "/") || strings.HasPrefix(val, "@") || strings.HasPrefix(val, "vsock:") {
			return len(val) > 1
		}
		host, port := "", val
		if i := strings.LastIndexByte(val, ':'); i >= 0 {
			host, port = strings.Trim(val[:i], "[]"), val[i+1:]
			if net.ParseIP(host) == nil {
				return false
			}
		}
		n, err := strconv.ParseUint(port, 10, 16)
		return err == nil && n > 0
	case "Netlink":
		return val != ""
	}
	return strings.HasPrefix(val, "/")
}

// useValue sets a property when its value passes the checks of
// StartTransientUnit for the release modelled.
// legacyDirective is the section and key a directive's older spelling
// stands for (systemd's load-fragment-gperf.gperf, 247 to 262): a
// service's start rate limit in [Service], StartLimitInterval= for
// StartLimitIntervalSec=.
func legacyDirective(kind, section, key string) (string, string) {
	if section == "Service" && kind == "service" && (key == "StartLimitBurst" || key == "StartLimitInterval") {
		section = "Unit"
	}
	if section == "Unit" && key == "StartLimitInterval" {
		key = "StartLimitIntervalSec"
	}
	return section, key
}

func (m *manager) useValue(kind, key string, v dbus.Variant, set func(string, dbus.Variant)) bool {
	if !m.settable(key) {
		// Not settable over D-Bus on this release (JobTimeoutUSec=
		// before 262), but a unit file's directive all the same.
		set(key, v)
		return true
	}
	if _, err := m.checkPropsLocked(kind, []setProp{{key, v}}, false); err != nil {
		return false
	}
	set(key, v)
	return true
}

// keepWords is list l after a unit-file line val of a list that systemd
// parses word by word: each word keep takes (in the form it returns)
// appended, a word it refuses passed over; an empty val empties it.
func keepWords(l []string, val string, keep func(string) (string, bool)) []string {
	if val == "" {
		return nil
	}
	for _, w := range strings.Fields(val) {
		if k, ok := keep(w); ok {
			l = append(l, k)
		}
	}
	return l
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

// parseExec parses one Exec*= command line. Its program is an absolute
// path or a file name without a slash, kept as written: systemd looks for
// it in its search path when it runs the command (measured on 247-262 by
// the differential tester: "true" loads and runs, "nosuchprogram" loads
// and fails 203/EXEC; 257 seed 21005).
func parseExec(val string) (execCommand, bool) {
	ignore := false
	for len(val) > 0 && strings.IndexByte("-@+!:", val[0]) >= 0 {
		if val[0] == '-' {
			ignore = true
		}
		val = val[1:]
	}
	argv, ok := splitQuoted(val)
	if !ok || len(argv) == 0 || !strings.HasPrefix(argv[0], "/") && strings.Contains(argv[0], "/") {
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

// The settings of the type sections of sockets, timers, paths, mounts,
// swaps and automounts that the fake reads from unit files (systemd's
// load-fragment-gperf.gperf.in), by unit type: each sets the property of
// the type's D-Bus interface that shows it, or, for a list setting, adds
// to it (an empty assignment resets the list).
var typeSettings = map[string]map[string]string{
	"socket": {
		"ListenStream": "Listen", "ListenDatagram": "Listen", "ListenSequentialPacket": "Listen",
		"ListenFIFO": "Listen", "ListenSpecial": "Listen", "ListenNetlink": "Listen",
		"ListenMessageQueue": "Listen", "ListenUSBFunction": "Listen",
		"Service": "Service", "Accept": "Accept", "FileDescriptorName": "FileDescriptorName",
	},
	"timer": {
		"OnActiveSec": "TimersMonotonic", "OnBootSec": "TimersMonotonic", "OnStartupSec": "TimersMonotonic",
		"OnUnitActiveSec": "TimersMonotonic", "OnUnitInactiveSec": "TimersMonotonic",
		"OnCalendar": "TimersCalendar",
		"Unit":       "Unit", "Persistent": "Persistent", "WakeSystem": "WakeSystem",
		"RemainAfterElapse": "RemainAfterElapse", "AccuracySec": "AccuracyUSec",
		"RandomizedDelaySec": "RandomizedDelayUSec",
	},
	"path": {
		"PathExists": "Paths", "PathExistsGlob": "Paths", "PathChanged": "Paths",
		"PathModified": "Paths", "DirectoryNotEmpty": "Paths",
		"Unit": "Unit", "MakeDirectory": "MakeDirectory",
	},
	"mount":     {"What": "What", "Where": "Where", "Type": "Type", "Options": "Options"},
	"swap":      {"What": "What", "Options": "Options"},
	"automount": {"Where": "Where"},
}

func isTypeSetting(kind, key string) bool {
	_, ok := typeSettings[kind][key]
	return ok
}

// socketListen, pathSpec, timerSpec and calendarSpec are the elements of
// a socket's Listen (a(ss)), a path unit's Paths (a(ss)), a timer's
// TimersMonotonic (a(stt): the setting as systemd names it, its span
// and the next elapse, as last computed: timer.go) and TimersCalendar
// (a(sst): "OnCalendar", the calendar spec, the next elapse, which the
// fake does not compute: 0).
type (
	socketListen struct{ Type, Address string }
	pathSpec     struct{ Type, Path string }
	timerSpec    struct {
		Base        string
		Value, Next uint64
	}
	calendarSpec struct {
		Base, Spec string
		Next       uint64
	}
)

// typeLists gathers the list settings of a type section while a unit
// file and its drop-ins are read; apply sets them once all are read.
type typeLists struct {
	listen    []socketListen
	paths     []pathSpec
	timers    []timerSpec
	calendars []calendarSpec
	// set records the lists assigned (even if emptied again).
	set map[string]bool
	// reset records the lists an empty assignment emptied.
	reset map[string]bool
}

// read takes one setting of a type section (isTypeSetting), reporting
// whether its value was usable.
func (tl *typeLists) read(kind, key, val string, set func(string, dbus.Variant)) bool {
	prop := typeSettings[kind][key]
	if tl.set == nil {
		tl.set = map[string]bool{}
	}
	switch prop {
	case "Listen", "Paths", "TimersMonotonic", "TimersCalendar":
		tl.set[prop] = true
		if val == "" {
			// The list empties, what files before these gave too (a
			// transient unit's, for its drop-ins): a timer's values of
			// both kinds (timer_free_values; measured on 247-262 by the
			// differential tester), a socket's listens, a path unit's
			// paths (socket_free_ports, path_free_specs).
			if tl.reset == nil {
				tl.reset = map[string]bool{}
			}
			switch prop {
			case "Listen":
				tl.listen, tl.reset["Listen"] = nil, true
			case "Paths":
				tl.paths, tl.reset["Paths"] = nil, true
			default:
				tl.timers, tl.calendars = nil, nil
				tl.reset["TimersMonotonic"], tl.reset["TimersCalendar"] = true, true
			}
			return true
		}
		switch prop {
		case "TimersCalendar":
			spec, ok := normalizeCalendar(val)
			if !ok {
				return false // systemd: "Failed to parse calendar specification, ignoring"
			}
			tl.calendars = append(tl.calendars, calendarSpec{key, spec, 0})
		case "Listen":
			if !validListen(strings.TrimPrefix(key, "Listen"), val) {
				return false // systemd: "Failed to parse address value, ignoring"
			}
			tl.listen = append(tl.listen, socketListen{strings.TrimPrefix(key, "Listen"), val})
		case "Paths":
			if !strings.HasPrefix(val, "/") {
				return false // systemd: "Path is not absolute"
			}
			tl.paths = append(tl.paths, pathSpec{key, path.Clean(val)})
		default:
			usec, ok := parseTimespan(val)
			if !ok {
				return false
			}
			tl.timers = append(tl.timers, timerSpec{strings.TrimSuffix(key, "Sec") + "USec", usec, 0})
		}
		return true
	}
	switch prop {
	case "Accept", "Persistent", "WakeSystem", "RemainAfterElapse", "MakeDirectory":
		b, ok := parseBool(val)
		if ok {
			set(prop, dbus.MakeVariant(b))
		}
		return ok
	case "AccuracyUSec", "RandomizedDelayUSec":
		usec, ok := parseTimespan(val)
		if ok {
			set(prop, dbus.MakeVariant(usec))
		}
		return ok
	case "Service", "Unit":
		// A socket's Service= is a service; a timer's or path unit's
		// Unit= any unit of another type (systemd: "Unit must be of type
		// service", "Unit cannot be of the same type").
		if sdbus.ValidateUnitName(val) != nil || strings.HasSuffix(val, "."+kind) ||
			prop == "Service" && !strings.HasSuffix(val, ".service") {
			return false
		}
		set(prop, dbus.MakeVariant(val))
		return true
	case "Where":
		if !strings.HasPrefix(val, "/") {
			return false
		}
		val = path.Clean(val)
	}
	set(prop, dbus.MakeVariant(val))
	return true
}

// apply sets the list properties gathered: Listen with the checks
// StartTransientUnit makes.
func (tl *typeLists) apply(m *manager, kind string, set func(string, dbus.Variant)) {
	if len(tl.listen) > 0 {
		m.useValue(kind, "Listen", dbus.MakeVariant(tl.listen), set)
	}
	if len(tl.paths) > 0 {
		set("Paths", dbus.MakeVariant(tl.paths))
	}
	if len(tl.timers) > 0 {
		set("TimersMonotonic", dbus.MakeVariant(tl.timers))
	}
	if len(tl.calendars) > 0 {
		set("TimersCalendar", dbus.MakeVariant(tl.calendars))
	}
}

// timeUnits are the units of a time span, in microseconds
// (parse_time in systemd's src/basic/time-util.c), longest name first
// where one is the prefix of another.
var timeUnits = []struct {
	name string
	usec float64
}{
	{"seconds", 1e6}, {"second", 1e6}, {"sec", 1e6}, {"s", 1e6},
	{"minutes", 60e6}, {"minute", 60e6}, {"min", 60e6},
	{"months", 2629800e6}, {"month", 2629800e6},
	{"msec", 1e3}, {"ms", 1e3}, {"m", 60e6}, {"M", 2629800e6},
	{"hours", 3600e6}, {"hour", 3600e6}, {"hr", 3600e6}, {"h", 3600e6},
	{"days", 86400e6}, {"day", 86400e6}, {"d", 86400e6},
	{"weeks", 604800e6}, {"week", 604800e6}, {"w", 604800e6},
	{"years", 31557600e6}, {"year", 31557600e6}, {"y", 31557600e6},
	{"usec", 1}, {"us", 1}, {"µs", 1}, {"μs", 1},
}

// parseTimespan parses a time span as systemd does ("1d", "5min 30s",
// "1.5h", "90": seconds when no unit is given), in microseconds;
// "infinity" is 2^64-1.
func parseTimespan(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if s == "infinity" {
		return infinity, true
	}
	if s == "" {
		return 0, false
	}
	var total float64
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if i == 0 || err != nil {
			return 0, false
		}
		s = strings.TrimLeft(s[i:], " ")
		mult := 0.0
		for _, u := range timeUnits {
			if rest, ok := strings.CutPrefix(s, u.name); ok && (rest == "" || rest[0] == ' ' || rest[0] >= '0' && rest[0] <= '9') {
				mult, s = u.usec, rest
				break
			}
		}
		if mult == 0 {
			if s != "" && !(s[0] >= '0' && s[0] <= '9') {
				return 0, false
			}
			mult = 1e6 // no unit: seconds
		}
		total += n * mult
		s = strings.TrimLeft(s, " ")
	}
	if total >= float64(infinity) {
		return 0, false
	}
	return uint64(total), true
}

// numericDirectives are the unit-file directives of numeric settings the
// fake models, by how systemd parses their values: a size in bytes with
// an optional K, M, G, T, P or E suffix (base 1024), a time span, a plain
// number, or "infinity" where the setting takes it.
var numericDirectives = map[string]string{
	"MemoryMin": "size", "MemoryLow": "size", "MemoryHigh": "size", "MemoryMax": "size",
	"MemorySwapMax": "size", "MemoryZSwapMax": "size", "MemoryLimit": "size",
	"LimitCORE": "size", "LimitMEMLOCK": "size", "LimitNOFILE": "count", "LimitNPROC": "count",
	"TasksMax": "count", "CPUWeight": "number", "StartupCPUWeight": "number", "IOWeight": "number",
	"StartupIOWeight": "number", "CPUShares": "number", "BlockIOWeight": "number",
	"Nice": "int", "OOMScoreAdjust": "int", "StartLimitBurst": "uint32",
	"TimeoutSec": "timeout", "TimeoutStartSec": "timeout", "TimeoutStopSec": "timeout",
	"TimeoutAbortSec": "span", "RuntimeMaxSec": "span", "RestartSec": "span", "RestartMaxDelaySec": "span", "RestartSteps": "uint32",
	"JobTimeoutSec": "span", "StartLimitIntervalSec": "span",
	"CPUQuotaPeriodSec": "span", "ManagedOOMMemoryPressureDurationSec": "span", "CPUQuota": "percent",
}

func numericDirective(key string) bool {
	_, ok := numericDirectives[key]
	return ok
}

// numericSetting parses the value of a numeric directive (numericDirectives)
// as systemd's config parsers do (config_parse_memory_limit,
// config_parse_tasks_max, config_parse_sec, config_parse_service_timeout,
// config_parse_rlimit, config_parse_cpu_quota, ...), into the properties
// it sets: the directive's name, "...Sec" ones as their "...USec"
// property, TimeoutSec= both timeouts, CPUQuota= CPUQuotaPerSecUSec. A
// timeout of 0 is infinity (no timeout), as systemd fixes it. A memory
// size or TasksMax= may be a percentage, of the machine's memory or of
// the tasks the kernel allows (scaledLimit); empty, it resets the limit
// (MemoryMin= and MemoryLow= to 0, TasksMax= to DefaultTasksMax, the
// others to infinity). A Limit*= takes "soft:hard" (LimitXSoft, LimitX);
// empty, it is ignored. ok is false for a value systemd rejects (it logs
// and ignores the line). Measured on 247, 252 and 262 by the
// differential tester.
func (m *manager) numericSetting(key, val string) (props []setProp, ok bool) {
	names := []string{key}
	switch key {
	case "TimeoutSec":
		names = []string{"TimeoutStartUSec", "TimeoutStopUSec"}
	case "CPUQuota":
		names = []string{"CPUQuotaPerSecUSec"}
	default:
		if p, isSec := strings.CutSuffix(key, "Sec"); isSec {
			names = []string{p + "USec"}
		}
	}
	all := func(v any, ok bool) ([]setProp, bool) {
		if !ok {
			return nil, false
		}
		for _, n := range names {
			props = append(props, setProp{n, dbus.MakeVariant(v)})
		}
		return props, true
	}
	val = strings.TrimSpace(val)
	kind := numericDirectives[key]
	if soft, hard, pair := strings.Cut(val, ":"); pair && strings.HasPrefix(key, "Limit") {
		s, okSoft := parseLimit(kind, soft)
		h, okHard := parseLimit(kind, hard)
		if !okSoft || !okHard || s > h {
			return nil, false
		}
		return []setProp{{key + "Soft", dbus.MakeVariant(s)}, {key, dbus.MakeVariant(h)}}, true
	}
	switch {
	case val == "" && strings.HasPrefix(key, "Limit"):
		return nil, false
	case val == "" && key == "TasksMax":
		return all(m.defaultTasksMax, true)
	case val == "" && (key == "MemoryMin" || key == "MemoryLow"):
		return all(uint64(0), true)
	case val == "" && kind == "size":
		return all(infinity, true)
	case strings.HasSuffix(val, "%") && (kind == "size" || key == "TasksMax") && !strings.HasPrefix(key, "Limit"):
		pm, ok := parsePermyriad(val)
		if !ok || pm == 0 && key != "TasksMax" {
			return nil, false
		}
		return all(scaledLimit(key, pm, 10000), true)
	}
	switch kind {
	case "size", "count":
		return all(parseLimit(kind, val))
	case "number":
		n, err := strconv.ParseUint(val, 10, 64)
		if strings.HasSuffix(key, "Weight") && n == 0 {
			// cg_weight_parse: 1 to 10000 (idle is CPUWeight=idle, not 0).
			return nil, false
		}
		return all(n, err == nil)
	case "int":
		n, err := strconv.ParseInt(val, 10, 32)
		return all(int32(n), err == nil)
	case "uint32":
		n, err := strconv.ParseUint(val, 10, 32)
		return all(uint32(n), err == nil)
	case "timeout", "span":
		n, ok := parseTimespan(val)
		if n == 0 && kind == "timeout" {
			n = infinity
		}
		return all(n, ok)
	case "percent":
		p, isPercent := strings.CutSuffix(val, "%")
		n, err := strconv.ParseUint(p, 10, 64)
		return all(n*10000, isPercent && err == nil && n != 0) // per second: n% of 1 s in µs
	}
	return nil, false
}

// parseLimit parses a size (parseSize) or a count: a number or infinity.
func parseLimit(kind, val string) (uint64, bool) {
	if kind == "size" {
		return parseSize(val)
	}
	if val == "infinity" {
		return infinity, true
	}
	n, err := strconv.ParseUint(val, 10, 64)
	return n, err == nil
}

// parsePermyriad parses a percentage with at most two decimals ("50%",
// "12.5%") in 1/10000, as systemd's parse_permyriad.
func parsePermyriad(s string) (uint64, bool) {
	s = strings.TrimSuffix(s, "%")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 || whole == "" {
		return 0, false
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseUint(whole+frac, 10, 64)
	if err != nil || n > 10000 {
		return 0, false
	}
	return n, true
}

// parseSize parses a size in bytes as systemd's parse_size with base
// 1024 does: a number, decimals allowed, with an optional suffix B, K, M,
// G, T, P or E; "infinity" is 2^64-1.
func parseSize(s string) (uint64, bool) {
	return parseSizeBase(s, 1024)
}

// parseSizeBase is parseSize with suffixes of powers of base (systemd's
// parse_size(s, base): an IO limit's are of 1000).
func parseSizeBase(s string, base float64) (uint64, bool) {
	if s == "infinity" {
		return infinity, true
	}
	mult := 1.0
	if s != "" {
		if i := strings.IndexByte("BKMGTPE", s[len(s)-1]); i >= 0 {
			for ; i > 0; i-- {
				mult *= base
			}
			s = strings.TrimSpace(s[:len(s)-1])
		}
	}
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f*mult >= float64(infinity) {
		return 0, false
	}
	return uint64(f * mult), true
}
