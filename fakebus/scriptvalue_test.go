package fakebus

import (
	"math"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

func TestParseTyped(t *testing.T) {
	variant := func(sig string, v any) dbus.Variant {
		return dbus.MakeVariantWithSignature(v, dbus.ParseSignatureMust(sig))
	}
	tests := []struct {
		in   string
		sig  string
		want any
	}{
		{`s "oneshot"`, "s", "oneshot"},
		{`s 'oneshot'`, "s", "oneshot"},
		{`s 'it\'s "x"\n\u00e9\U0001F600\\'`, "s", "it's \"x\"\né\U0001F600\\"},
		{`s ''`, "s", ""},
		{`b true`, "b", true},
		{`b   false  `, "b", false},
		{`y 255`, "y", byte(255)},
		{`n -32768`, "n", int16(math.MinInt16)},
		{`q 0xffff`, "q", uint16(math.MaxUint16)},
		{`i -5`, "i", int32(-5)},
		{`u 4294967295`, "u", uint32(math.MaxUint32)},
		{`x -9223372036854775808`, "x", int64(math.MinInt64)},
		{`t 18446744073709551615`, "t", uint64(math.MaxUint64)},
		{`t 536870912`, "t", uint64(536870912)},
		{`d 1.5`, "d", 1.5},
		{`o '/org/freedesktop/systemd1'`, "o", dbus.ObjectPath("/org/freedesktop/systemd1")},
		{`g 'a(sv)'`, "g", dbus.ParseSignatureMust("a(sv)")},
		{`as []`, "as", []string{}},
		{`as ['a.service', "b.service"]`, "as", []string{"a.service", "b.service"}},
		{`au [1,2 , 3]`, "au", []uint32{1, 2, 3}},
		{`aay [[1], []]`, "aay", [][]byte{{1}, {}}},
		{`a(sasb) [('/bin/true', ['/bin/true'], false)]`, "a(sasb)", [][]any{{"/bin/true", []string{"/bin/true"}, false}}},
		{`a(ss) [('/dev/null', 'rw'), ('/dev/zero', 'r')]`, "a(ss)", [][]any{{"/dev/null", "rw"}, {"/dev/zero", "r"}}},
		{`(s) ('x',)`, "(s)", []any{"x"}},
		{`(s) ('x')`, "(s)", []any{"x"}},
		{`(ib) (1, true,)`, "(ib)", []any{int32(1), true}},
		{`a{sv} {}`, "a{sv}", map[string]dbus.Variant{}},
		{`a{sv} {'a': <t 5>, 'b': <@s 'x'>, 'c': <as ['y']>}`, "a{sv}", map[string]dbus.Variant{
			"a": variant("t", uint64(5)), "b": variant("s", "x"), "c": variant("as", []string{"y"})}},
		{`a{ut} {1: 2, 3: 4}`, "a{ut}", map[uint32]uint64{1: 2, 3: 4}},
		{`v <(su) ('a', 1)>`, "v", variant("(su)", []any{"a", uint32(1)})},
	}
	for _, tt := range tests {
		v, err := parseTyped(tt.in)
		if err != nil {
			t.Errorf("parseTyped(%q): %v", tt.in, err)
			continue
		}
		if got := v.Signature().String(); got != tt.sig {
			t.Errorf("parseTyped(%q): signature %q, want %q", tt.in, got, tt.sig)
		}
		if diff := cmp.Diff(tt.want, v.Value(), cmp.Comparer(func(a, b dbus.Variant) bool {
			return a.Signature() == b.Signature() && cmp.Equal(a.Value(), b.Value())
		}), cmp.Comparer(func(a, b dbus.Signature) bool { return a == b })); diff != "" {
			t.Errorf("parseTyped(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestParseTypedStore checks that struct values come out as godbus decodes
// them, so that dbus.Store (which fakebus uses) fills Go structs.
func TestParseTypedStore(t *testing.T) {
	v, err := parseTyped(`a(sasb) [('/bin/sleep', ['/bin/sleep', '5'], true)]`)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []struct {
		Path          string
		Argv          []string
		IgnoreFailure bool
	}
	if err := dbus.Store([]any{v.Value()}, &cmds); err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 1 || cmds[0].Path != "/bin/sleep" || !cmp.Equal(cmds[0].Argv, []string{"/bin/sleep", "5"}) || !cmds[0].IgnoreFailure {
		t.Errorf("stored %+v", cmds)
	}
}

func TestParseTypedErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `want "TYPE VALUE" (a D-Bus type, a space, GVariant text), e.g. "t 536870912"`},
		{`512`, `want "TYPE VALUE" (a D-Bus type, a space, GVariant text), e.g. "t 536870912"`},
		{` t 512`, `want "TYPE VALUE" (a D-Bus type, a space, GVariant text), e.g. "t 536870912"`},
		{`uint64 512`, `invalid D-Bus type "uint64"`},
		{`ss 'a' 'b'`, `D-Bus type "ss" is not one complete type`},
		{`h 0`, `D-Bus type "h": unix fds (h) are not supported`},
		{`t -1`, `column 3: want a uint64, got "-1"`},
		{`y 256`, `column 3: want a byte (0 to 255), got "256"`},
		{`i 2147483648`, `column 3: want an int32, got "2147483648"`},
		{`t `, `column 3: want a uint64, got the end`},
		{`b yes`, `column 3: want a boolean (true or false), got "yes"`},
		{`d x`, `column 3: want a double, got "x"`},
		{`s oneshot`, `column 3: want a quoted string, got "oneshot"`},
		{`s 'oneshot`, `column 3: unterminated string`},
		{`s 'a\qb'`, `column 5: unknown escape \q`},
		{`s '\u12'`, `column 4: invalid \u escape`},
		{`s 'a\u0000'`, `column 3: a D-Bus string must be UTF-8 without NUL`},
		{`s 'a' 'b'`, `column 7: unexpected "'b'" after the value`},
		{`t 1 2`, `column 5: unexpected "2" after the value`},
		{`o 'relative'`, `column 3: invalid object path "relative"`},
		{`g 'a'`, `column 3: invalid signature "a"`},
		{`as ['a' 'b']`, `column 9: want "," or "]" in the array, got "'b']"`},
		{`as ['a',]`, `column 9: want a quoted string, got "]"`},
		{`as ['a'`, `column 8: want "," or "]" in the array, got the end`},
		{`a{su} {'a': 1, 'a': 2}`, `column 16: duplicate key a`},
		{`a{su} {'a' 1}`, `column 12: want ":" after the key, got "1}"`},
		{`(su) ('a')`, `column 10: want "," between struct fields, got ")"`},
		{`(su) ('a', 1, 2)`, `column 15: want ")" to end the struct, got "2)"`},
		{`v 5`, `column 3: want "<" to start a variant <TYPE VALUE>, got "5"`},
		{`v <5>`, `column 4: variant: invalid D-Bus type "5"`},
		{`v <t 5`, `column 7: want ">" to end the variant, got the end`},
	}
	for _, tt := range tests {
		_, err := parseTyped(tt.in)
		if err == nil {
			t.Errorf("parseTyped(%q): no error, want %q", tt.in, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("parseTyped(%q):\n got %s\nwant %s", tt.in, err, tt.want)
		}
	}
}
