package fakebus

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Property values in a script file are "TYPE VALUE": a D-Bus signature of
// one complete type, a space, and the value in GVariant text format
// directed by that type. godbus's dbus.ParseVariant cannot parse tuples,
// so the command has its own, small parser.
//
// The Go values are those godbus's decoder produces for the same type (and
// so what the fake receives from StartTransientUnit): structs are []any,
// arrays typed slices, dicts typed maps, variants dbus.Variant. The fake's
// message encoder takes []any under a struct signature, and dbus.Store
// converts them to Go structs.

// parseTyped parses "TYPE VALUE".
func parseTyped(text string) (dbus.Variant, error) {
	sigText, _, ok := strings.Cut(text, " ")
	if !ok || sigText == "" {
		return dbus.Variant{}, fmt.Errorf(`want "TYPE VALUE" (a D-Bus type, a space, GVariant text), e.g. "t 536870912"`)
	}
	sig, err := parseSingleType(sigText)
	if err != nil {
		return dbus.Variant{}, err
	}
	p := &valueParser{s: text, pos: len(sigText) + 1}
	v, err := p.value(sigText)
	if err != nil {
		return dbus.Variant{}, err
	}
	p.skipSpace()
	if p.pos < len(p.s) {
		return dbus.Variant{}, p.errorf("unexpected %q after the value", p.rest())
	}
	return dbus.MakeVariantWithSignature(v, sig), nil
}

// parseSingleType parses a D-Bus signature that must be one complete type.
func parseSingleType(s string) (dbus.Signature, error) {
	sig, err := dbus.ParseSignature(s)
	if err != nil {
		return dbus.Signature{}, fmt.Errorf("invalid D-Bus type %q", s)
	}
	// Not sig.Single(): godbus v5.2.4's is inverted.
	if busd.TypeLen(s) != len(s) {
		return dbus.Signature{}, fmt.Errorf("D-Bus type %q is not one complete type", s)
	}
	if strings.ContainsRune(s, 'h') {
		return dbus.Signature{}, fmt.Errorf("D-Bus type %q: unix fds (h) are not supported", s)
	}
	return sig, nil
}

// valueParser parses GVariant text directed by a type.
type valueParser struct {
	s   string
	pos int
}

func (p *valueParser) errorf(format string, args ...any) error {
	return fmt.Errorf("column %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

// rest returns a short excerpt of the unparsed text.
func (p *valueParser) rest() string {
	r := p.s[p.pos:]
	if len(r) > 20 {
		r = r[:20] + "..."
	}
	return r
}

func (p *valueParser) skipSpace() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (p *valueParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *valueParser) expect(c byte, what string) error {
	if p.peek() != c {
		if p.pos >= len(p.s) {
			return p.errorf("want %q %s, got the end", string(c), what)
		}
		return p.errorf("want %q %s, got %q", string(c), what, p.rest())
	}
	p.pos++
	return nil
}

// word returns the run of characters up to a delimiter.
func (p *valueParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n,:()[]{}<>\"'", p.s[p.pos]) < 0 {
		p.pos++
	}
	return p.s[start:p.pos]
}

var typeNames = map[byte]string{
	'b': "a boolean (true or false)", 'y': "a byte (0 to 255)", 'n': "an int16", 'q': "a uint16",
	'i': "an int32", 'u': "a uint32", 'x': "an int64", 't': "a uint64", 'd': "a double",
}

// value parses a value of the single complete type sig.
func (p *valueParser) value(sig string) (any, error) {
	switch c := sig[0]; c {
	case 'b':
		start := p.pos
		switch w := p.word(); w {
		case "true":
			return true, nil
		case "false":
			return false, nil
		default:
			p.pos = start
			return nil, p.wantGot(typeNames[c])
		}
	case 'y', 'n', 'q', 'i', 'u', 'x', 't':
		return p.integer(c)
	case 'd':
		p.skipSpace()
		start := p.pos
		f, err := strconv.ParseFloat(p.word(), 64)
		if err != nil {
			p.pos = start
			return nil, p.wantGot(typeNames[c])
		}
		return f, nil
	case 's', 'o', 'g':
		return p.stringValue(c)
	case 'v':
		return p.variant()
	case 'a':
		if sig[1] == '{' {
			return p.dict(sig)
		}
		return p.array(sig)
	case '(':
		return p.tuple(sig)
	}
	return nil, p.errorf("unsupported type %q", sig)
}

func (p *valueParser) wantGot(want string) error {
	if p.peek() == 0 {
		return p.errorf("want %s, got the end", want)
	}
	return p.errorf("want %s, got %q", want, p.rest())
}

func (p *valueParser) integer(c byte) (any, error) {
	p.skipSpace()
	start := p.pos
	w := p.word()
	fail := func() (any, error) {
		p.pos = start
		return nil, p.wantGot(typeNames[c])
	}
	switch c {
	case 'n', 'i', 'x':
		bits := map[byte]int{'n': 16, 'i': 32, 'x': 64}[c]
		n, err := strconv.ParseInt(w, 0, bits)
		if err != nil {
			return fail()
		}
		switch c {
		case 'n':
			return int16(n), nil
		case 'i':
			return int32(n), nil
		}
		return n, nil
	default:
		bits := map[byte]int{'y': 8, 'q': 16, 'u': 32, 't': 64}[c]
		n, err := strconv.ParseUint(w, 0, bits)
		if err != nil {
			return fail()
		}
		switch c {
		case 'y':
			return byte(n), nil
		case 'q':
			return uint16(n), nil
		case 'u':
			return uint32(n), nil
		}
		return n, nil
	}
}

// stringValue parses a quoted string ("…" or '…', with C escapes and
// \uXXXX, \UXXXXXXXX) as a string, object path or signature.
func (p *valueParser) stringValue(c byte) (any, error) {
	q := p.peek()
	if q != '"' && q != '\'' {
		return nil, p.wantGot(map[byte]string{'s': "a quoted string", 'o': "a quoted object path", 'g': "a quoted signature"}[c])
	}
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.s) {
			p.pos = start
			return nil, p.errorf("unterminated string")
		}
		ch := p.s[p.pos]
		if ch == q {
			p.pos++
			break
		}
		if ch != '\\' {
			b.WriteByte(ch)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.s) {
			p.pos = start
			return nil, p.errorf("unterminated string")
		}
		e := p.s[p.pos+1]
		p.pos += 2
		switch e {
		case '\\', '"', '\'':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if p.pos+n > len(p.s) {
				p.pos -= 2
				return nil, p.errorf("invalid \\%c escape", e)
			}
			r, err := strconv.ParseUint(p.s[p.pos:p.pos+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				p.pos -= 2
				return nil, p.errorf("invalid \\%c escape", e)
			}
			b.WriteRune(rune(r))
			p.pos += n
		default:
			p.pos -= 2
			return nil, p.errorf("unknown escape \\%c", e)
		}
	}
	s := b.String()
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		p.pos = start
		return nil, p.errorf("a D-Bus string must be UTF-8 without NUL")
	}
	switch c {
	case 'o':
		if !dbus.ObjectPath(s).IsValid() {
			p.pos = start
			return nil, p.errorf("invalid object path %q", s)
		}
		return dbus.ObjectPath(s), nil
	case 'g':
		sig, err := dbus.ParseSignature(s)
		if err != nil {
			p.pos = start
			return nil, p.errorf("invalid signature %q", s)
		}
		return sig, nil
	}
	return s, nil
}

// variant parses <TYPE VALUE>; GVariant's <@TYPE VALUE> is accepted too.
func (p *valueParser) variant() (any, error) {
	if err := p.expect('<', "to start a variant <TYPE VALUE>"); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == '@' {
		p.pos++
	}
	start := p.pos
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n>", p.s[p.pos]) < 0 {
		p.pos++
	}
	sigText := p.s[start:p.pos]
	sig, err := parseSingleType(sigText)
	if err != nil {
		p.pos = start
		return nil, p.errorf("variant: %v", err)
	}
	v, err := p.value(sigText)
	if err != nil {
		return nil, err
	}
	if err := p.expect('>', "to end the variant"); err != nil {
		return nil, err
	}
	return dbus.MakeVariantWithSignature(v, sig), nil
}

func (p *valueParser) array(sig string) (any, error) {
	elem := sig[1:]
	out := reflect.MakeSlice(busd.GoType(sig), 0, 0)
	if err := p.expect('[', "to start an array"); err != nil {
		return nil, err
	}
	if p.peek() == ']' {
		p.pos++
		return out.Interface(), nil
	}
	for {
		v, err := p.value(elem)
		if err != nil {
			return nil, err
		}
		out = reflect.Append(out, reflect.ValueOf(v))
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return out.Interface(), nil
		default:
			return nil, p.wantGot(`"," or "]" in the array`)
		}
	}
}

func (p *valueParser) dict(sig string) (any, error) {
	ksig, vsig := sig[2:3], sig[3:len(sig)-1]
	out := reflect.MakeMap(busd.GoType(sig))
	if err := p.expect('{', "to start a dictionary"); err != nil {
		return nil, err
	}
	if p.peek() == '}' {
		p.pos++
		return out.Interface(), nil
	}
	for {
		p.skipSpace()
		kpos := p.pos
		k, err := p.value(ksig)
		if err != nil {
			return nil, err
		}
		kv := reflect.ValueOf(k)
		if out.MapIndex(kv).IsValid() {
			p.pos = kpos
			return nil, p.errorf("duplicate key %v", k)
		}
		if err := p.expect(':', "after the key"); err != nil {
			return nil, err
		}
		v, err := p.value(vsig)
		if err != nil {
			return nil, err
		}
		out.SetMapIndex(kv, reflect.ValueOf(v))
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return out.Interface(), nil
		default:
			return nil, p.wantGot(`"," or "}" in the dictionary`)
		}
	}
}

// tuple parses (v1, v2, …); a trailing comma is allowed, as GVariant
// requires for a one-element tuple.
func (p *valueParser) tuple(sig string) (any, error) {
	inner := sig[1 : len(sig)-1]
	if err := p.expect('(', "to start a struct"); err != nil {
		return nil, err
	}
	var out []any
	for len(inner) > 0 {
		n := busd.TypeLen(inner)
		v, err := p.value(inner[:n])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		inner = inner[n:]
		if len(inner) > 0 {
			if err := p.expect(',', "between struct fields"); err != nil {
				return nil, err
			}
		} else if p.peek() == ',' {
			p.pos++
		}
	}
	if err := p.expect(')', "to end the struct"); err != nil {
		return nil, err
	}
	return out, nil
}
