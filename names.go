package sdbus

import (
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
)

// UnitType is the type of a unit: the suffix of its name after the last
// "." (systemd's UnitType, see unit_type_from_string in
// src/basic/unit-def.c).
type UnitType string

// The unit types systemd knows, in systemd's order.
const (
	UnitTypeService   UnitType = "service"   // UnitTypeService is a service unit, "foo.service".
	UnitTypeMount     UnitType = "mount"     // UnitTypeMount is a mount unit, "home.mount".
	UnitTypeSwap      UnitType = "swap"      // UnitTypeSwap is a swap unit, "dev-sda2.swap".
	UnitTypeSocket    UnitType = "socket"    // UnitTypeSocket is a socket unit, "foo.socket".
	UnitTypeTarget    UnitType = "target"    // UnitTypeTarget is a target unit, "multi-user.target".
	UnitTypeDevice    UnitType = "device"    // UnitTypeDevice is a device unit, "dev-sda.device".
	UnitTypeAutomount UnitType = "automount" // UnitTypeAutomount is an automount unit, "proc-sys-fs-binfmt_misc.automount".
	UnitTypeTimer     UnitType = "timer"     // UnitTypeTimer is a timer unit, "foo.timer".
	UnitTypePath      UnitType = "path"      // UnitTypePath is a path unit, "foo.path".
	UnitTypeSlice     UnitType = "slice"     // UnitTypeSlice is a slice unit, "user.slice".
	UnitTypeScope     UnitType = "scope"     // UnitTypeScope is a scope unit, "session-1.scope".
)

// known reports whether t is one of the unit types systemd knows.
func (t UnitType) known() bool {
	switch t {
	case UnitTypeService, UnitTypeMount, UnitTypeSwap, UnitTypeSocket,
		UnitTypeTarget, UnitTypeDevice, UnitTypeAutomount, UnitTypeTimer,
		UnitTypePath, UnitTypeSlice, UnitTypeScope:
		return true
	}
	return false
}

const (
	// unitObjectPathPrefix is where systemd publishes its unit objects.
	unitObjectPathPrefix = "/org/freedesktop/systemd1/unit/"
	// unitNameMaxLen is the longest valid unit name: systemd's
	// UNIT_NAME_MAX (256) counts the terminating NUL.
	unitNameMaxLen = 255
	// unitPathMaxLen is the longest path unit_name_path_unescape accepts
	// (PATH_MAX, 4096, counts the terminating NUL).
	unitPathMaxLen = 4095
	// unitPathNameMax is the longest path component (NAME_MAX).
	unitPathNameMax = 255
	// rootSliceName is the root of the slice tree.
	rootSliceName = "-.slice"
	// sliceSuffix is the suffix of slice units.
	sliceSuffix = ".slice"
	// lowerHexDigits are the digits systemd's hexchar() produces.
	lowerHexDigits = "0123456789abcdef"
)

// unhexDigit is systemd's unhexchar: the value of a hex digit of either
// case.
func unhexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// isAlnumByte reports whether c is an ASCII letter or digit.
func isAlnumByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isUnitNameByte reports whether c is in systemd's VALID_CHARS: ASCII
// letters and digits and ":-_.\".
func isUnitNameByte(c byte) bool {
	return isAlnumByte(c) || strings.IndexByte(`:-_.\`, c) >= 0
}

// quoteByte renders one byte for an error message: "a", "\x00", "\xc3".
func quoteByte(c byte) string {
	return strconv.Quote(string([]byte{c}))
}

// UnitPath returns the D-Bus object path of the unit named name, as systemd's
// unit_dbus_path_from_name computes it: "/org/freedesktop/systemd1/unit/"
// followed by PathBusEscape(name), so "foo.service" becomes
// "/org/freedesktop/systemd1/unit/foo_2eservice". name is not validated.
func UnitPath(name string) dbus.ObjectPath {
	return dbus.ObjectPath(unitObjectPathPrefix + PathBusEscape(name))
}

// PathBusEscape escapes s for use as one element of a D-Bus object path,
// like systemd's bus_label_escape (src/basic/bus-label.c, sd_bus_path_encode):
// every byte outside [A-Za-z0-9], and a digit in first position, becomes
// "_" and two lowercase hex digits; the empty string becomes "_".
//
// The name is go-systemd's, kept to ease migration. PathBusUnescape reverses
// it.
func PathBusEscape(s string) string {
	if s == "" {
		return "_"
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnumByte(c) && (i > 0 || c < '0' || c > '9') {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('_')
		b.WriteByte(lowerHexDigits[c>>4])
		b.WriteByte(lowerHexDigits[c&0xf])
	}
	return b.String()
}

// PathBusUnescape reverses PathBusEscape, like systemd's bus_label_unescape:
// "_" followed by two hex digits (of either case) becomes that byte, and the
// label "_" alone becomes the empty string.
//
// Unlike systemd, which copies a malformed escape literally, it returns an
// error matching ErrInvalidArgs for an empty label, for a "_" that is not
// followed by two hex digits and for a byte that cannot appear in an object
// path element (anything outside [A-Za-z0-9_]). It accepts escapes that
// PathBusEscape would not produce, such as "_41" for "A" or a leading digit.
func PathBusUnescape(label string) (string, error) {
	return pathBusUnescape("PathBusUnescape", label)
}

func pathBusUnescape(op, label string) (string, error) {
	switch label {
	case "":
		return "", invalidArg(op, "", "empty object path label")
	case "_":
		return "", nil
	}
	var b strings.Builder
	b.Grow(len(label))
	for i := 0; i < len(label); i++ {
		c := label[i]
		switch {
		case c == '_':
			if i+2 >= len(label) {
				return "", invalidArg(op, "", "truncated escape at offset %d in label %q", i, label)
			}
			hi, ok1 := unhexDigit(label[i+1])
			lo, ok2 := unhexDigit(label[i+2])
			if !ok1 || !ok2 {
				return "", invalidArg(op, "", "malformed escape %q at offset %d in label %q", label[i:i+3], i, label)
			}
			b.WriteByte(hi<<4 | lo)
			i += 2
		case isAlnumByte(c):
			b.WriteByte(c)
		default:
			return "", invalidArg(op, "", "byte %s at offset %d cannot appear in an object path label", quoteByte(c), i)
		}
	}
	return b.String(), nil
}

// UnitNameFromPath returns the name of the unit whose object path is p,
// reversing UnitPath like systemd's unit_name_from_dbus_path. It returns an
// error matching ErrInvalidArgs when p is not a single element under
// "/org/freedesktop/systemd1/unit/", when that element is not a valid
// escaped label (see PathBusUnescape), or when the name it decodes to is
// not a valid unit name (see ValidateUnitName): such paths, like
// ".../unit/self", do not name a unit.
func UnitNameFromPath(p dbus.ObjectPath) (string, error) {
	const op = "UnitNameFromPath"
	label, ok := strings.CutPrefix(string(p), unitObjectPathPrefix)
	if !ok || label == "" || strings.Contains(label, "/") {
		return "", invalidArg(op, "", "%q is not a unit object path (%s<escaped name>)", p, unitObjectPathPrefix)
	}
	name, err := pathBusUnescape(op, label)
	if err != nil {
		return "", err
	}
	if err := checkUnitName(op, name); err != nil {
		return "", err
	}
	return name, nil
}

// appendUnitNameEscape appends s escaped like systemd's do_escape.
func appendUnitNameEscape(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '/':
			b.WriteByte('-')
		case c == '-' || c == '\\' || (c == '.' && i == 0) || !isUnitNameByte(c):
			b.WriteString(`\x`)
			b.WriteByte(lowerHexDigits[c>>4])
			b.WriteByte(lowerHexDigits[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
}

// EscapeUnitName escapes s for use in a unit name, like `systemd-escape
// STRING` (systemd's unit_name_escape): "/" becomes "-", and "-", "\", a
// leading "." and every byte outside [A-Za-z0-9:_.] become "\xNN" with two
// lowercase hex digits. "foo/bar-baz" becomes `foo-bar\x2dbaz`. The result
// may be empty or too long for a unit name; UnescapeUnitName reverses it.
func EscapeUnitName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	appendUnitNameEscape(&b, s)
	return b.String()
}

// EscapeUnitPath escapes a file system path for use in a unit name, like
// `systemd-escape --path PATH` (systemd's unit_name_path_escape): the path
// is simplified (repeated "/" and "." components dropped), leading and
// trailing "/" are removed and the rest is escaped with EscapeUnitName;
// "/" (and "") becomes "-". "/dev/sda" becomes "dev-sda", "//foo/./bar/"
// becomes "foo-bar".
//
// systemd-escape refuses paths that are not normalized after that
// simplification: those with a ".." component, a component longer than 255
// bytes, a simplified length of 4096 bytes or more, or relative ones that
// simplify to "." such as "./". EscapeUnitPath escapes them all the same
// (".." components verbatim, "." alone as "-"), and UnescapeUnitPath cannot
// reverse the result. Like systemd-escape it accepts a relative path and
// escapes it as if it were absolute.
func EscapeUnitPath(path string) string {
	parts := strings.Split(path, "/")
	kept := parts[:0]
	for _, part := range parts {
		if part != "" && part != "." {
			kept = append(kept, part)
		}
	}
	if len(kept) == 0 {
		return "-"
	}
	return EscapeUnitName(strings.Join(kept, "/"))
}

// UnescapeUnitName reverses EscapeUnitName, like `systemd-escape --unescape
// STRING` (systemd's unit_name_unescape): "-" becomes "/" and "\xNN" (hex
// digits of either case) becomes that byte; every other byte is kept. It
// returns an error matching ErrInvalidArgs for a "\" that does not start a
// "\xNN" escape.
//
// "\x00" decodes to a NUL byte, where systemd-escape's output ends at it.
func UnescapeUnitName(s string) (string, error) {
	return unescapeUnitName("UnescapeUnitName", s)
}

func unescapeUnitName(op, s string) (string, error) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '-':
			b.WriteByte('/')
		case '\\':
			if i+3 >= len(s) || s[i+1] != 'x' {
				return "", invalidArg(op, "", `"\" at offset %d of %q does not start a \xNN escape`, i, s)
			}
			hi, ok1 := unhexDigit(s[i+2])
			lo, ok2 := unhexDigit(s[i+3])
			if !ok1 || !ok2 {
				return "", invalidArg(op, "", `malformed escape %q at offset %d of %q`, s[i:i+4], i, s)
			}
			b.WriteByte(hi<<4 | lo)
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// UnescapeUnitPath reverses EscapeUnitPath, like `systemd-escape --unescape
// --path STRING` (systemd's unit_name_path_unescape): "-" becomes "/",
// otherwise s is unescaped with UnescapeUnitName and prefixed with "/", so
// "dev-sda" becomes "/dev/sda".
//
// Like systemd it returns an error matching ErrInvalidArgs for an empty s,
// for a leading or trailing "-" (or "\x2f"), and when the result is not a
// normalized absolute path: an empty, "." or ".." component ("a--b",
// "a-.-b"), a component longer than 255 bytes, or a path of 4096 bytes or
// more. It also rejects an escaped NUL byte, where systemd-escape cuts the
// path short.
func UnescapeUnitPath(s string) (string, error) {
	const op = "UnescapeUnitPath"
	switch s {
	case "":
		return "", invalidArg(op, "", "empty string is not an escaped path")
	case "-":
		return "/", nil
	}
	p, err := unescapeUnitName(op, s)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return "", invalidArg(op, "", "%q has a leading or trailing slash", s)
	}
	p = "/" + p
	if len(p) > unitPathMaxLen {
		return "", invalidArg(op, "", "path is %d bytes long, the maximum is %d", len(p), unitPathMaxLen)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", invalidArg(op, "", "%q contains an escaped NUL byte", s)
	}
	for _, part := range strings.Split(p[1:], "/") {
		switch {
		case part == "":
			return "", invalidArg(op, "", "%q unescapes to %q, which has an empty path component", s, p)
		case part == "." || part == "..":
			return "", invalidArg(op, "", "%q unescapes to %q, which has a %q component", s, p, part)
		case len(part) > unitPathNameMax:
			return "", invalidArg(op, "", "%q has a path component of %d bytes, the maximum is %d", s, len(part), unitPathNameMax)
		}
	}
	return p, nil
}

// UnitTypeOf returns the type of the unit named name, from its suffix, like
// systemd's unit_name_to_type. Like systemd it first validates the whole
// name, so it returns an error matching ErrInvalidArgs for an unknown
// suffix and for any name ValidateUnitName rejects.
func UnitTypeOf(name string) (UnitType, error) {
	if err := checkUnitName("UnitTypeOf", name); err != nil {
		return "", err
	}
	return UnitType(name[strings.LastIndexByte(name, '.')+1:]), nil
}

// ValidateUnitName reports whether name is a valid unit name, like systemd's
// unit_name_is_valid(name, UNIT_NAME_ANY): at most 255 bytes, a non-empty
// prefix of [A-Za-z0-9:_.\-] and "@" (escape anything else with
// EscapeUnitName), then "." and a known UnitType. A prefix with an "@" is
// a template ("foo@.service") or an instance ("foo@bar.service"); the part
// before the first "@" must not be empty. The error, nil for a valid name,
// matches ErrInvalidArgs and says what is wrong.
func ValidateUnitName(name string) error {
	return checkUnitName("ValidateUnitName", name)
}

func checkUnitName(op, name string) error {
	if name == "" {
		return invalidArg(op, name, "empty unit name")
	}
	if len(name) > unitNameMaxLen {
		return invalidArg(op, "", "unit name is %d bytes long, the maximum is %d", len(name), unitNameMaxLen)
	}
	dot := strings.LastIndexByte(name, '.')
	switch {
	case dot < 0:
		return invalidArg(op, name, "unit name has no type suffix such as \".service\"")
	case dot == 0:
		return invalidArg(op, name, "unit name has an empty prefix")
	}
	if t := UnitType(name[dot+1:]); !t.known() {
		return invalidArg(op, name, "unknown unit type %q", string(t))
	}
	for i := 0; i < dot; i++ {
		if c := name[i]; c != '@' && !isUnitNameByte(c) {
			return invalidArg(op, name, "invalid byte %s at offset %d (allowed are ASCII letters, digits, \":-_.\\\" and \"@\"; see EscapeUnitName)", quoteByte(c), i)
		}
	}
	if name[0] == '@' {
		return invalidArg(op, name, "unit name has an empty prefix before \"@\"")
	}
	return nil
}

// checkSliceName is systemd's slice_name_is_valid.
func checkSliceName(op, slice string) error {
	if err := checkUnitName(op, slice); err != nil {
		return err
	}
	if slice == rootSliceName {
		return nil
	}
	prefix, ok := strings.CutSuffix(slice, sliceSuffix)
	switch {
	case !ok:
		return invalidArg(op, slice, "not a slice unit")
	case strings.IndexByte(prefix, '@') >= 0:
		return invalidArg(op, slice, "a slice cannot be a template or an instance")
	case prefix[0] == '-':
		return invalidArg(op, slice, "slice name starts with \"-\" (the root slice is %q)", rootSliceName)
	case prefix[len(prefix)-1] == '-':
		return invalidArg(op, slice, "slice name ends with \"-\"")
	case strings.Contains(prefix, "--"):
		return invalidArg(op, slice, "slice name contains \"--\"")
	}
	return nil
}

// sliceParent returns the parent of a valid slice other than the root.
func sliceParent(slice string) string {
	prefix := strings.TrimSuffix(slice, sliceSuffix)
	if i := strings.LastIndexByte(prefix, '-'); i >= 0 {
		return prefix[:i] + sliceSuffix
	}
	return rootSliceName
}

// SliceParent returns the slice that contains slice, like systemd's
// slice_build_parent_slice: "a-b-c.slice" is in "a-b.slice", "a.slice" in
// the root slice "-.slice", and the root has no parent (""). It returns an
// error matching ErrInvalidArgs when slice is not a valid slice name: a
// valid unit name ending in ".slice", without "@", whose prefix neither
// starts nor ends with "-" nor contains "--" (except "-.slice").
func SliceParent(slice string) (string, error) {
	if err := checkSliceName("SliceParent", slice); err != nil {
		return "", err
	}
	if slice == rootSliceName {
		return "", nil
	}
	return sliceParent(slice), nil
}

// SliceAncestors returns slice followed by its ancestors, innermost first,
// ending with the root slice: "a-b-c.slice" gives "a-b-c.slice",
// "a-b.slice", "a.slice", "-.slice". It rejects the names SliceParent
// rejects.
func SliceAncestors(slice string) ([]string, error) {
	if err := checkSliceName("SliceAncestors", slice); err != nil {
		return nil, err
	}
	out := []string{slice}
	for slice != rootSliceName {
		slice = sliceParent(slice)
		out = append(out, slice)
	}
	return out, nil
}

// cgroupControllers are the names systemd's cg_escape protects, from
// cgroup_controller_table in src/basic/cgroup-util.c.
const cgroupControllers = " cpu cpuacct cpuset io blkio memory devices pids bpf-firewall bpf-devices bpf-foreign bpf-socket-bind bpf-restrict-network-interfaces "

// cgroupEscape is systemd's cg_escape: a "_" is prefixed to a cgroup
// directory name that starts with "_" or ".", or could clash with a file
// the kernel puts in a cgroup ("tasks", "cgroup.*", "cpu.*", ...).
func cgroupEscape(name string) string {
	need := name == "" || name[0] == '_' || name[0] == '.' ||
		name == "notify_on_release" || name == "release_agent" || name == "tasks" ||
		strings.HasPrefix(name, "cgroup.")
	if dot := strings.LastIndexByte(name, '.'); !need && dot >= 0 {
		need = strings.Contains(cgroupControllers, " "+name[:dot]+" ")
	}
	if need {
		return "_" + name
	}
	return name
}

// ExpandSlice returns the path, relative to the root of the cgroup tree,
// of the cgroup systemd creates for slice, like systemd's slice_to_path
// (and runc's ExpandSlice): "a-b-c.slice" becomes
// "/a.slice/a-b.slice/a-b-c.slice" and "-.slice" becomes "/". It rejects
// the names SliceParent rejects.
//
// Like systemd, and unlike runc, it escapes each directory name with
// cg_escape's rule, so "cpu.slice" becomes "/_cpu.slice" and
// "_x.slice" becomes "/__x.slice".
func ExpandSlice(slice string) (string, error) {
	if err := checkSliceName("ExpandSlice", slice); err != nil {
		return "", err
	}
	if slice == rootSliceName {
		return "/", nil
	}
	prefix := strings.TrimSuffix(slice, sliceSuffix)
	var b strings.Builder
	for i := 0; i < len(prefix); i++ {
		if prefix[i] == '-' {
			b.WriteByte('/')
			b.WriteString(cgroupEscape(prefix[:i] + sliceSuffix))
		}
	}
	b.WriteByte('/')
	b.WriteString(cgroupEscape(slice))
	return b.String(), nil
}
