package sdbus_test

import (
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/sdbus-go/sdbus"
)

// isLabelByte reports whether c may appear in a D-Bus object path element.
func isLabelByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func FuzzPathBusEscape(f *testing.F) {
	for _, s := range []string{"", "_", "foo.service", "1abc", "ä", "\x00", "_41", "_2", "a_zz", "getty@tty1.service", "-.slice"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := sdbus.PathBusEscape(s)
		if e == "" || e[0] >= '0' && e[0] <= '9' {
			t.Fatalf("PathBusEscape(%q) = %q: empty or leading digit", s, e)
		}
		for i := 0; i < len(e); i++ {
			if !isLabelByte(e[i]) {
				t.Fatalf("PathBusEscape(%q) = %q: byte %q", s, e, e[i])
			}
		}
		back, err := sdbus.PathBusUnescape(e)
		if err != nil || back != s {
			t.Fatalf("PathBusUnescape(PathBusEscape(%q)) = %q, %v", s, back, err)
		}
		if p := sdbus.UnitPath(s); !p.IsValid() {
			t.Fatalf("UnitPath(%q) = %q is not a valid object path", s, p)
		}
		// s as a label: whatever decodes must survive a round trip.
		if r, err := sdbus.PathBusUnescape(s); err == nil {
			if back, err := sdbus.PathBusUnescape(sdbus.PathBusEscape(r)); err != nil || back != r {
				t.Fatalf("label %q: round trip of %q = %q, %v", s, r, back, err)
			}
		}
	})
}

func FuzzEscapeUnitName(f *testing.F) {
	for _, s := range []string{"", "foo", "/.hidden", "a/b-c", "ä", `a\x2db`, "\x00\xff", "@", "-", ".", `\x`, `\x2e`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := sdbus.EscapeUnitName(s)
		if strings.HasPrefix(e, ".") {
			t.Fatalf("EscapeUnitName(%q) = %q starts with a dot", s, e)
		}
		for i := 0; i < len(e); i++ {
			c := e[i]
			if !(isLabelByte(c) || strings.IndexByte(`:-.\`, c) >= 0) {
				t.Fatalf("EscapeUnitName(%q) = %q: byte %q", s, e, c)
			}
		}
		if e != "" && len(e)+len("@x.service") <= 255 {
			for _, name := range []string{e + ".service", e + "@.service", e + "@x.service", "x@" + e + ".service"} {
				if err := sdbus.ValidateUnitName(name); err != nil {
					t.Fatalf("EscapeUnitName(%q): %v", s, err)
				}
			}
		}
		back, err := sdbus.UnescapeUnitName(e)
		if err != nil || back != s {
			t.Fatalf("UnescapeUnitName(EscapeUnitName(%q)) = %q, %v", s, back, err)
		}
		if r, err := sdbus.UnescapeUnitName(s); err == nil {
			if back, err := sdbus.UnescapeUnitName(sdbus.EscapeUnitName(r)); err != nil || back != r {
				t.Fatalf("escaped %q: round trip of %q = %q, %v", s, r, back, err)
			}
		}
	})
}

// normalizedAbs reports whether p is an absolute path that
// UnescapeUnitPath(EscapeUnitPath(p)) must return simplified.
func normalizedAbs(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	n := 0
	for _, c := range strings.Split(p, "/") {
		if c == ".." || len(c) > 255 {
			return false
		}
		if c != "" && c != "." {
			n += 1 + len(c)
		}
	}
	return n <= 4095
}

// isNormalized reports whether p is "/" or an absolute path whose every
// component is non-empty, not "." or "..", without NUL and at most 255
// bytes long, and that is at most 4095 bytes long.
func isNormalized(p string) bool {
	if p == "/" {
		return true
	}
	if !strings.HasPrefix(p, "/") || len(p) > 4095 || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	for _, c := range strings.Split(p[1:], "/") {
		if c == "" || c == "." || c == ".." || len(c) > 255 {
			return false
		}
	}
	return true
}

func FuzzEscapeUnitPath(f *testing.F) {
	for _, s := range []string{"", "/", "//", "/dev/sda", "/foo/../bar", "./", "/.x/", "a--b", "-", "a-", `\x2e`, "/a\x00b", "/ä-x/y z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := sdbus.EscapeUnitPath(s)
		if e == "" {
			t.Fatalf("EscapeUnitPath(%q) is empty", s)
		}
		back, err := sdbus.UnescapeUnitPath(e)
		if normalizedAbs(s) {
			if err != nil {
				t.Fatalf("UnescapeUnitPath(EscapeUnitPath(%q) = %q): %v", s, e, err)
			}
			if again := sdbus.EscapeUnitPath(back); again != e {
				t.Fatalf("EscapeUnitPath(%q) = %q, but of its round trip %q = %q", s, e, back, again)
			}
		}
		if err == nil && !isNormalized(back) {
			t.Fatalf("UnescapeUnitPath(%q) = %q, not normalized", e, back)
		}
		if r, err := sdbus.UnescapeUnitPath(s); err == nil {
			if !isNormalized(r) {
				t.Fatalf("UnescapeUnitPath(%q) = %q, not normalized", s, r)
			}
			if back, err := sdbus.UnescapeUnitPath(sdbus.EscapeUnitPath(r)); err != nil || back != r {
				t.Fatalf("escaped path %q: round trip of %q = %q, %v", s, r, back, err)
			}
		}
	})
}

func FuzzSliceAncestors(f *testing.F) {
	for _, s := range []string{"-.slice", "a.slice", "a-b-c.slice", "-a.slice", "a--b.slice", "a-.slice", "cpu-x.slice", "_x.slice", "..slice", "a@b.slice", "foo.service", `a\x2db.slice`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		anc, err := sdbus.SliceAncestors(s)
		parent, perr := sdbus.SliceParent(s)
		cg, cerr := sdbus.ExpandSlice(s)
		if (err == nil) != (perr == nil) || (err == nil) != (cerr == nil) {
			t.Fatalf("%q: SliceAncestors: %v, SliceParent: %v, ExpandSlice: %v", s, err, perr, cerr)
		}
		if err != nil {
			return
		}
		if anc[0] != s || anc[len(anc)-1] != "-.slice" {
			t.Fatalf("SliceAncestors(%q) = %q", s, anc)
		}
		if len(anc) > 1 && parent != anc[1] || len(anc) == 1 && parent != "" {
			t.Fatalf("SliceParent(%q) = %q, SliceAncestors = %q", s, parent, anc)
		}
		for i, a := range anc {
			if err := sdbus.ValidateUnitName(a); err != nil {
				t.Fatalf("ancestor %q of %q: %v", a, s, err)
			}
			if tp, err := sdbus.UnitTypeOf(a); err != nil || tp != sdbus.UnitTypeSlice {
				t.Fatalf("UnitTypeOf(%q) = %q, %v", a, tp, err)
			}
			if p, err := sdbus.SliceParent(a); err != nil || i+1 < len(anc) && p != anc[i+1] {
				t.Fatalf("SliceParent(%q) = %q, %v; ancestors %q", a, p, err, anc)
			}
		}
		if !strings.HasPrefix(cg, "/") {
			t.Fatalf("ExpandSlice(%q) = %q", s, cg)
		}
		var dirs []string
		if cg != "/" {
			dirs = strings.Split(cg[1:], "/")
		}
		if len(dirs) != len(anc)-1 {
			t.Fatalf("ExpandSlice(%q) = %q, SliceAncestors = %q", s, cg, anc)
		}
		for i, d := range dirs {
			if a := anc[len(anc)-2-i]; d != a && d != "_"+a {
				t.Fatalf("ExpandSlice(%q) = %q: directory %q for slice %q", s, cg, d, a)
			}
		}
	})
}

func FuzzUnitNameFromPath(f *testing.F) {
	for _, s := range []string{"/org/freedesktop/systemd1/unit/foo_2eservice", "/org/freedesktop/systemd1/unit/self", "/org/freedesktop/systemd1/unit/_", "/org/freedesktop/systemd1/unit/a/b", "/org/freedesktop/systemd1/unit/", "foo.service", "getty@.service", "-.slice", "x@y.timer"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if name, err := sdbus.UnitNameFromPath(dbus.ObjectPath(s)); err == nil {
			if err := sdbus.ValidateUnitName(name); err != nil {
				t.Fatalf("UnitNameFromPath(%q) = %q: %v", s, name, err)
			}
			if back, err := sdbus.UnitNameFromPath(sdbus.UnitPath(name)); err != nil || back != name {
				t.Fatalf("UnitNameFromPath(%q) = %q, but its UnitPath gives %q, %v", s, name, back, err)
			}
			if !dbus.ObjectPath(s).IsValid() {
				t.Fatalf("UnitNameFromPath accepted %q, not a valid object path", s)
			}
		}
		// s as a unit name.
		verr := sdbus.ValidateUnitName(s)
		tp, terr := sdbus.UnitTypeOf(s)
		if (verr == nil) != (terr == nil) {
			t.Fatalf("%q: ValidateUnitName: %v, UnitTypeOf: %v", s, verr, terr)
		}
		if verr != nil {
			return
		}
		if !strings.HasSuffix(s, "."+string(tp)) {
			t.Fatalf("UnitTypeOf(%q) = %q", s, tp)
		}
		p := sdbus.UnitPath(s)
		if !p.IsValid() {
			t.Fatalf("UnitPath(%q) = %q is not a valid object path", s, p)
		}
		if back, err := sdbus.UnitNameFromPath(p); err != nil || back != s {
			t.Fatalf("UnitNameFromPath(UnitPath(%q)) = %q, %v", s, back, err)
		}
		if back, err := sdbus.UnescapeUnitName(sdbus.EscapeUnitName(s)); err != nil || back != s {
			t.Fatalf("escape round trip of %q = %q, %v", s, back, err)
		}
	})
}
