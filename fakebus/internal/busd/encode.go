package busd

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
)

// Encoding of the messages busd sends.
//
// Body values are Go values as godbus takes them: the signature is derived
// from their types exactly like dbus.SignatureOf does (uint32 → u,
// dbus.ObjectPath → o, a Go struct → (…), []T → aT, []any → av,
// map[K]V → a{KV}, dbus.Variant → v, int → i, uint → u, …). The encoding
// itself is directed by the signature, which lets a dbus.Variant carry a
// decoded struct ([]any) under a struct signature, as godbus cannot.

// outMsg is a message busd sends. Empty fields are omitted.
type outMsg struct {
	typ         dbus.Type
	flags       dbus.Flags
	path        dbus.ObjectPath
	iface       string
	member      string
	errName     string
	dest        string
	sender      string
	replySerial uint32
	sig         string // body signature; derived from body if empty
	body        []any

	// A relayed message keeps the body bytes it arrived with.
	rawBody string
	rawBig  bool
	// fds are the unix fds the message carries (UNIX_FDS): a relayed
	// message's, or those of the dbus.UnixFD values of body, collected by
	// encode. They belong to whoever built the message; each queue the
	// message enters holds duplicates (fds.go).
	fds []int

	traced *dbus.Message // built for the trace on first use
}

// sizeHint is about the length of m's wire form, so that encoding it
// mostly takes one allocation: the fixed header, each header field with
// its padding, and the body (a relayed one's bytes, or an estimate of
// the values' sizes).
func (m *outMsg) sizeHint() int {
	n := 16 + 8*8 + len(m.path) + len(m.iface) + len(m.member) + len(m.errName) + len(m.dest) + len(m.sender) + len(m.sig)
	if m.rawBody != "" {
		return n + len(m.rawBody)
	}
	for _, v := range m.body {
		n += valueSizeHint(v)
	}
	return n
}

// valueSizeHint estimates the encoded size of a body value: strings and
// object paths their length plus a length word, padding and NUL, numbers
// 8, anything else a guess.
func valueSizeHint(v any) int {
	switch v := v.(type) {
	case string:
		return 8 + len(v)
	case dbus.ObjectPath:
		return 8 + len(v)
	case uint32, int32, bool, uint64, int64, float64, byte, int16, uint16:
		return 8
	}
	return 64
}

// encodeError is panicked by the encoder and recovered by encode.
type encodeError struct{ err error }

// encode returns the wire form of m with the given serial.
func (m *outMsg) encode(serial uint32) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			ee, ok := r.(encodeError)
			if !ok {
				panic(r)
			}
			data, err = nil, ee.err
		}
	}()
	if m.sig == "" && len(m.body) > 0 {
		if m.sig, err = signatureOfValues(m.body); err != nil {
			return nil, err
		}
	}
	e := encoder{big: m.rawBig, buf: make([]byte, 0, m.sizeHint())}
	order := byte('l')
	if e.big {
		order = 'B'
	}
	e.buf = append(e.buf, order, byte(m.typ), byte(m.flags), 1)
	e.u32(0) // body length, patched below
	e.u32(serial)
	e.u32(0) // header fields length, patched below
	if m.path != "" {
		e.field(1, "o", string(m.path))
	}
	if m.iface != "" {
		e.field(2, "s", m.iface)
	}
	if m.member != "" {
		e.field(3, "s", m.member)
	}
	if m.errName != "" {
		e.field(4, "s", m.errName)
	}
	if m.replySerial != 0 {
		e.align(8)
		e.buf = append(e.buf, 5, 1, 'u', 0)
		e.u32(m.replySerial)
	}
	if m.dest != "" {
		e.field(6, "s", m.dest)
	}
	if m.sender != "" {
		e.field(7, "s", m.sender)
	}
	if m.sig != "" {
		e.align(8)
		e.buf = append(e.buf, 8, 1, 'g', 0)
		e.signature(m.sig)
	}
	if len(m.fds) > 0 {
		e.align(8)
		e.buf = append(e.buf, 9, 1, 'u', 0)
		e.u32(uint32(len(m.fds)))
	}
	e.put32(12, uint32(len(e.buf)-16))
	e.align(8)
	start := len(e.buf)
	if m.rawBody != "" {
		e.buf = append(e.buf, m.rawBody...)
	} else {
		sig := m.sig
		for _, v := range m.body {
			if sig == "" {
				return nil, fmt.Errorf("busd: more values than the signature %q has", m.sig)
			}
			n := sigLen(sig)
			e.value(sig[:n], v, 0)
			sig = sig[n:]
		}
		if sig != "" {
			return nil, fmt.Errorf("busd: fewer values than the signature %q has", m.sig)
		}
		if len(e.fds) != len(m.fds) {
			// The body holds unix fds: encode again with their
			// number in the header (the second pass finds as many).
			m.fds = e.fds
			return m.encode(serial)
		}
	}
	if len(e.buf) > maxMessageLen {
		return nil, fmt.Errorf("busd: message is too long")
	}
	e.put32(4, uint32(len(e.buf)-start))
	return e.buf, nil
}

// encoder appends D-Bus values to buf. Offsets are relative to the start of
// the message. It panics with encodeError on bad values.
type encoder struct {
	buf []byte
	big bool
	fds []int // the dbus.UnixFD values encoded, in order
}

func (e *encoder) fail(format string, args ...any) {
	panic(encodeError{fmt.Errorf("busd: cannot encode: "+format, args...)})
}

func (e *encoder) align(n int) {
	for len(e.buf)%n != 0 {
		e.buf = append(e.buf, 0)
	}
}

func (e *encoder) put32(at int, v uint32) {
	b := e.buf[at : at+4]
	if e.big {
		b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	} else {
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
}

func (e *encoder) u16(v uint16) {
	e.align(2)
	if e.big {
		e.buf = append(e.buf, byte(v>>8), byte(v))
	} else {
		e.buf = append(e.buf, byte(v), byte(v>>8))
	}
}

func (e *encoder) u32(v uint32) {
	e.align(4)
	e.buf = append(e.buf, 0, 0, 0, 0)
	e.put32(len(e.buf)-4, v)
}

func (e *encoder) u64(v uint64) {
	e.align(8)
	for i := 0; i < 8; i++ {
		if e.big {
			e.buf = append(e.buf, byte(v>>(56-8*i)))
		} else {
			e.buf = append(e.buf, byte(v>>(8*i)))
		}
	}
}

func (e *encoder) str(s string) {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		e.fail("string %q is not valid UTF-8 without NUL", s)
	}
	e.u32(uint32(len(s)))
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, 0)
}

func (e *encoder) signature(s string) {
	e.buf = append(e.buf, byte(len(s)))
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, 0)
}

// field appends a string-like header field.
func (e *encoder) field(code byte, sig, s string) {
	e.align(8)
	e.buf = append(e.buf, code, 1, sig[0], 0)
	e.str(s)
}

// value appends v as the single complete type sig.
func (e *encoder) value(sig string, v any, depth int) {
	if depth > maxDepth {
		e.fail("too deeply nested")
	}
	// Fast paths for what services send most.
	switch x := v.(type) {
	case string:
		switch sig[0] {
		case 's':
			e.str(x)
			return
		case 'o':
			e.path(x)
			return
		}
	case uint32:
		if sig[0] == 'u' {
			e.u32(x)
			return
		}
	case dbus.ObjectPath:
		if sig[0] == 'o' {
			e.path(string(x))
			return
		}
	case bool:
		if sig[0] == 'b' {
			if x {
				e.u32(1)
			} else {
				e.u32(0)
			}
			return
		}
	case dbus.Variant:
		if sig[0] == 'v' {
			e.variant(x.Signature().String(), x.Value(), depth)
			return
		}
	case map[string]dbus.Variant:
		if sig == "a{sv}" {
			lenAt, start := e.arrayStart(8)
			for k, val := range x {
				e.align(8)
				e.str(k)
				e.variant(val.Signature().String(), val.Value(), depth+2)
			}
			e.arrayEnd(lenAt, start)
			return
		}
	case PropDict:
		if sig == "a{sv}" {
			lenAt, start := e.arrayStart(8)
			for _, en := range x {
				e.align(8)
				e.str(en.Name)
				e.variant(en.Value.Signature().String(), en.Value.Value(), depth+2)
			}
			e.arrayEnd(lenAt, start)
			return
		}
	case []string:
		if sig == "as" {
			lenAt, start := e.arrayStart(4)
			for _, s := range x {
				e.str(s)
			}
			e.arrayEnd(lenAt, start)
			return
		}
	}
	e.reflectValue(sig, reflect.ValueOf(v), depth)
}

func (e *encoder) path(s string) {
	if !validPath(s) {
		e.fail("invalid object path %q", s)
	}
	e.str(s)
}

// variant appends a VARIANT holding v; sig is v's signature, or "" to derive
// it from v's type (a plain Go value in an av array or a{sv} map).
func (e *encoder) variant(sig string, v any, depth int) {
	if sig == "" {
		var err error
		if sig, err = signatureOfValues([]any{v}); err != nil {
			panic(encodeError{err})
		}
	}
	if !validSignature(sig) || sigLen(sig) != len(sig) {
		e.fail("invalid variant signature %q", sig)
	}
	e.signature(sig)
	e.value(sig, v, depth+1)
}

// arrayStart appends an array length placeholder and the padding for
// elements aligned to a. It returns where the length is and where the
// elements start.
func (e *encoder) arrayStart(a int) (lenAt, start int) {
	e.u32(0)
	lenAt = len(e.buf) - 4
	e.align(a)
	return lenAt, len(e.buf)
}

// arrayEnd patches the length of an array.
func (e *encoder) arrayEnd(lenAt, start int) {
	n := len(e.buf) - start
	if n > maxArrayLen {
		e.fail("array is too long")
	}
	e.put32(lenAt, uint32(n))
}

// reflectValue appends rv as the single complete type sig.
func (e *encoder) reflectValue(sig string, rv reflect.Value, depth int) {
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			e.fail("nil value for %s", sig)
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		e.fail("nil value for %s", sig)
	}
	k := rv.Kind()
	if sig[0] != 'v' && (rv.Type() == reflect.TypeOf(dbus.UnixFD(0)) || rv.Type() == reflect.TypeOf(dbus.UnixFDIndex(0))) {
		if sig[0] != 'h' || rv.Type() != reflect.TypeOf(dbus.UnixFD(0)) || rv.Int() < 0 {
			e.fail("%s value for signature %s", rv.Type(), sig)
		}
		// An fd goes as its index among the message's fds.
		e.u32(uint32(len(e.fds)))
		e.fds = append(e.fds, int(rv.Int()))
		return
	}
	mismatch := func() { e.fail("%s value for signature %s", rv.Type(), sig) }
	switch sig[0] {
	case 'y':
		if k != reflect.Uint8 {
			mismatch()
		}
		e.buf = append(e.buf, byte(rv.Uint()))
	case 'b':
		if k != reflect.Bool {
			mismatch()
		}
		if rv.Bool() {
			e.u32(1)
		} else {
			e.u32(0)
		}
	case 'n':
		if k != reflect.Int16 {
			mismatch()
		}
		e.u16(uint16(rv.Int()))
	case 'q':
		if k != reflect.Uint16 {
			mismatch()
		}
		e.u16(uint16(rv.Uint()))
	case 'i':
		if k != reflect.Int32 && k != reflect.Int {
			mismatch()
		}
		e.u32(uint32(int32(rv.Int())))
	case 'u':
		if k != reflect.Uint32 && k != reflect.Uint {
			mismatch()
		}
		e.u32(uint32(rv.Uint()))
	case 'x':
		if k != reflect.Int64 {
			mismatch()
		}
		e.u64(uint64(rv.Int()))
	case 't':
		if k != reflect.Uint64 {
			mismatch()
		}
		e.u64(rv.Uint())
	case 'd':
		if k != reflect.Float64 {
			mismatch()
		}
		e.u64(math.Float64bits(rv.Float()))
	case 's':
		if k != reflect.String {
			mismatch()
		}
		e.str(rv.String())
	case 'o':
		if k != reflect.String {
			mismatch()
		}
		e.path(rv.String())
	case 'g':
		s, ok := rv.Interface().(dbus.Signature)
		if !ok {
			mismatch()
		}
		e.signature(s.String())
	case 'v':
		if v, ok := rv.Interface().(dbus.Variant); ok {
			e.variant(v.Signature().String(), v.Value(), depth)
		} else {
			e.variant("", rv.Interface(), depth)
		}
	case 'a':
		e.array(sig, rv, depth)
	case '(':
		e.structure(sig, rv, depth)
	default:
		e.fail("unsupported signature %s", sig)
	}
}

// array appends rv (a slice, array or map) as the array type sig.
func (e *encoder) array(sig string, rv reflect.Value, depth int) {
	elem := sig[1:]
	if d, ok := rv.Interface().(PropDict); ok && sig == "a{sv}" {
		e.value(sig, d, depth)
		return
	}
	if elem[0] == '{' {
		if rv.Kind() != reflect.Map {
			e.fail("%s value for signature %s", rv.Type(), sig)
		}
		ksig, vsig := elem[1:2], elem[2:len(elem)-1]
		lenAt, start := e.arrayStart(8)
		iter := rv.MapRange()
		for iter.Next() {
			e.align(8)
			e.reflectValue(ksig, iter.Key(), depth+2)
			e.reflectValue(vsig, iter.Value(), depth+2)
		}
		e.arrayEnd(lenAt, start)
		return
	}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		e.fail("%s value for signature %s", rv.Type(), sig)
	}
	if elem == "y" && rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		lenAt, start := e.arrayStart(1)
		e.buf = append(e.buf, rv.Bytes()...)
		e.arrayEnd(lenAt, start)
		return
	}
	lenAt, start := e.arrayStart(sigAlign(elem[0]))
	for i := 0; i < rv.Len(); i++ {
		e.reflectValue(elem, rv.Index(i), depth+1)
	}
	e.arrayEnd(lenAt, start)
}

// structure appends rv (a Go struct, or []any as godbus decodes structs) as
// the struct type sig.
func (e *encoder) structure(sig string, rv reflect.Value, depth int) {
	e.align(8)
	fields := sig[1 : len(sig)-1]
	next := func(v reflect.Value) {
		if fields == "" {
			e.fail("%s has more fields than %s", rv.Type(), sig)
		}
		n := sigLen(fields)
		e.reflectValue(fields[:n], v, depth+1)
		fields = fields[n:]
	}
	switch rv.Kind() {
	case reflect.Struct:
		t := rv.Type()
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.PkgPath == "" && f.Tag.Get("dbus") != "-" {
				next(rv.Field(i))
			}
		}
	case reflect.Slice:
		if rv.Type().Elem().Kind() != reflect.Interface {
			e.fail("%s value for signature %s", rv.Type(), sig)
		}
		for i := 0; i < rv.Len(); i++ {
			next(rv.Index(i))
		}
	default:
		e.fail("%s value for signature %s", rv.Type(), sig)
	}
	if fields != "" {
		e.fail("%s has fewer fields than %s", rv.Type(), sig)
	}
}
