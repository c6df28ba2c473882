package busd

import (
	"io"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
)

// Decoding of D-Bus messages received from clients.
//
// This does what dbus.DecodeMessage does and produces the same Go values
// (string, uint32, dbus.ObjectPath, dbus.Variant, []any for structs, typed
// slices and maps for arrays and dicts), but reads the whole message at once
// and allocates far less: the message bytes are converted to one string and
// every decoded string is a substring of it. It validates what dbus-daemon
// validates (names, paths, signatures, UTF-8, booleans, array lengths,
// nesting) so that invalid input drops the connection.

const (
	maxMessageLen = 1 << 27 // the D-Bus limit on a whole message
	maxArrayLen   = 1 << 26 // the D-Bus limit on an array's bytes
	maxDepth      = 64      // containers, including variants
)

// inMsg is a message received from a client.
type inMsg struct {
	typ    dbus.Type
	flags  dbus.Flags
	serial uint32
	header
	body []any

	raw     string // the whole message as received
	bodyOff int    // where the body starts in raw
	decoded int    // the memory the decoded values take, as estimated
	big     bool   // raw is big-endian

	// unixFDs is the UNIX_FDS header field; fds are the descriptors the
	// message carries (given by Peer.takeFDs, closed once it is routed).
	unixFDs uint32
	fds     []int
}

// decodeError is panicked by the decoder and recovered by parseMessage.
type decodeError string

func (e decodeError) Error() string { return "busd: invalid message: " + string(e) }

// readMessage reads and decodes one message from r: at most maxSize
// bytes, decoded to at most ratio bytes of values per byte (plus
// decodeSlack), every byte held counted with charge (nil: none). It
// returns what it counted, which the caller uncounts once it no longer
// holds the message.
func readMessage(r *reader, maxSize, ratio int, charge func(int) bool) (m *inMsg, counted int, err error) {
	raw, n, err := r.message(maxSize)
	if err != nil {
		return nil, 0, err
	}
	m, spent, err := parseMessageBudget(raw, ratio, charge)
	return m, n + spent, err
}

// noEOF turns io.EOF in the middle of a message into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func get32(b []byte, big bool) uint32 {
	if big {
		return uint32(b[3]) | uint32(b[2])<<8 | uint32(b[1])<<16 | uint32(b[0])<<24
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// parseMessage decodes the complete message raw, within the default
// DecodeRatio and without counting.
func parseMessage(raw string) (*inMsg, error) {
	m, _, err := parseMessageBudget(raw, DefaultDecodeRatio, nil)
	return m, err
}

// decodeSlack is what a message may decode to beyond its ratio.
const decodeSlack = 4 << 10

// chargeStep is how much decoding counts at a time.
const chargeStep = 16 << 10

// parseMessageBudget decodes the complete message raw; its values may take
// ratio bytes per byte of raw, plus decodeSlack (a *ratioError if not).
// What they take is counted with charge (nil: not counted) in steps of
// chargeStep; spent is what was counted, also on error.
func parseMessageBudget(raw string, ratio int, charge func(int) bool) (m *inMsg, spent int, err error) {
	d := decoder{s: raw, pos: 4, charge: charge}
	d.limit = decodeSlack
	if ratio > 0 && len(raw) <= (int(^uint(0)>>1)-decodeSlack)/ratio {
		d.limit += ratio * len(raw)
	} else {
		d.limit = int(^uint(0) >> 1)
	}
	defer func() {
		spent = d.charged
		if r := recover(); r != nil {
			switch e := r.(type) {
			case decodeError:
				m, err = nil, e
			case *ratioError:
				e.size = len(raw)
				m, err = nil, e
			case limitPanic:
				m, err = nil, errLimit
			default:
				panic(r)
			}
		}
	}()
	if len(raw) < 16 || (raw[0] != 'l' && raw[0] != 'B') {
		return nil, 0, decodeError("short message")
	}
	m = &inMsg{raw: raw, big: raw[0] == 'B'}
	d.big = m.big
	m.typ = dbus.Type(raw[1])
	// Unknown flags must be ignored (D-Bus specification).
	m.flags = dbus.Flags(raw[2]) & (dbus.FlagNoReplyExpected | dbus.FlagNoAutoStart | dbus.FlagAllowInteractiveAuthorization)
	if raw[3] != 1 {
		d.fail("unsupported protocol version")
	}
	bodyLen := int(d.u32())
	m.serial = d.u32()
	fieldsEnd := 16 + int(d.u32())
	m.bodyOff = (fieldsEnd + 7) &^ 7
	if m.bodyOff+bodyLen != len(raw) {
		d.fail("wrong length")
	}
	if m.serial == 0 {
		d.fail("serial is zero")
	}
	d.s = raw[:fieldsEnd]
	var unixFDs uint32
	for d.pos < fieldsEnd {
		d.align(8)
		code := d.u8()
		sig := d.sig()
		if want := fieldSig(code); want != "" && sig != want {
			d.fail("header field has the wrong type")
		}
		switch code {
		case 1:
			m.path = dbus.ObjectPath(d.str())
		case 2:
			m.iface = d.str()
		case 3:
			m.member = d.str()
		case 4:
			m.errName = d.str()
		case 5:
			m.replySerial = d.u32()
		case 6:
			m.dest = d.str()
		case 7:
			m.sender = d.str()
		case 8:
			m.sig = d.sig()
		case 9:
			unixFDs = d.u32()
		default:
			// Unknown header fields must be ignored.
			if sig == "" || sigLen(sig) != len(sig) {
				d.fail("invalid header field signature")
			}
			d.value(sig, 0)
		}
	}
	m.validateHeader(&d, bodyLen)
	m.unixFDs = unixFDs
	if m.sig != "" {
		d.s, d.pos = raw, m.bodyOff
		for sig := m.sig; sig != ""; {
			n := sigLen(sig)
			m.body = append(m.body, d.value(sig[:n], 0))
			sig = sig[n:]
		}
		if d.pos != len(raw) {
			d.fail("body is longer than its signature")
		}
	}
	m.decoded = d.cost
	return m, d.charged, nil
}

// ratioError is a message whose values would take more memory than
// Limits.DecodeRatio allows.
type ratioError struct{ size int }

func (e *ratioError) Error() string { return "busd: message decodes to too much memory" }

// limitPanic is panicked by the decoder when counting its memory passed a
// limit (the connection is closed already).
type limitPanic struct{}

// spend counts n bytes of decoded values: against the ratio, and with
// d.charge.
func (d *decoder) spend(n int) {
	d.cost += n
	if d.cost > d.limit {
		panic(&ratioError{})
	}
	if d.charge != nil && d.cost > d.charged {
		step := max(chargeStep, d.cost-d.charged)
		if !d.charge(step) {
			panic(limitPanic{})
		}
		d.charged += step
	}
}

// fieldSig returns the signature of a known header field.
func fieldSig(code byte) string {
	switch code {
	case 1:
		return "o"
	case 2, 3, 4, 6, 7:
		return "s"
	case 5, 9:
		return "u"
	case 8:
		return "g"
	}
	return ""
}

// validateHeader checks the header fields like dbus-daemon does.
func (m *inMsg) validateHeader(d *decoder, bodyLen int) {
	switch m.typ {
	case dbus.TypeMethodCall:
		if m.path == "" || m.member == "" {
			d.fail("method call without path or member")
		}
	case dbus.TypeMethodReply:
		if m.replySerial == 0 {
			d.fail("reply without reply serial")
		}
	case dbus.TypeError:
		if m.replySerial == 0 || m.errName == "" {
			d.fail("error without reply serial or error name")
		}
	case dbus.TypeSignal:
		if m.path == "" || m.iface == "" || m.member == "" {
			d.fail("signal without path, interface or member")
		}
	default:
		d.fail("invalid message type")
	}
	switch {
	case m.path != "" && !validPath(string(m.path)):
		d.fail("invalid path")
	case m.iface != "" && !validInterface(m.iface):
		d.fail("invalid interface")
	case m.member != "" && !validMember(m.member):
		d.fail("invalid member")
	case m.errName != "" && !validInterface(m.errName):
		d.fail("invalid error name")
	case m.dest != "" && !validBusName(m.dest):
		d.fail("invalid destination")
	case m.sig == "" && bodyLen != 0:
		d.fail("body without signature")
	}
}

// decoder reads D-Bus values from s. Offsets are relative to the start of
// the message, so alignment is too. It panics with decodeError on bad input.
type decoder struct {
	s   string
	pos int
	big bool

	// cost is the memory the values decoded so far take (an estimate,
	// garbage included), limit what they may take, charged what was
	// counted with charge (nil: nothing is).
	cost, limit, charged int
	charge               func(int) bool
}

func (d *decoder) fail(msg string) { panic(decodeError(msg)) }

// need checks that n more bytes are available.
func (d *decoder) need(n int) {
	if n > len(d.s)-d.pos {
		d.fail("truncated")
	}
}

func (d *decoder) align(n int) {
	p := (d.pos + n - 1) &^ (n - 1)
	if p > len(d.s) {
		d.fail("truncated")
	}
	d.pos = p
}

func (d *decoder) u8() byte {
	d.need(1)
	d.pos++
	return d.s[d.pos-1]
}

func (d *decoder) u16() uint16 {
	d.align(2)
	d.need(2)
	s := d.s[d.pos : d.pos+2]
	d.pos += 2
	if d.big {
		return uint16(s[1]) | uint16(s[0])<<8
	}
	return uint16(s[0]) | uint16(s[1])<<8
}

func (d *decoder) u32() uint32 {
	d.align(4)
	d.need(4)
	s := d.s[d.pos : d.pos+4]
	d.pos += 4
	if d.big {
		return uint32(s[3]) | uint32(s[2])<<8 | uint32(s[1])<<16 | uint32(s[0])<<24
	}
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func (d *decoder) u64() uint64 {
	d.align(8)
	d.need(8)
	s := d.s[d.pos : d.pos+8]
	d.pos += 8
	var v uint64
	for i := 0; i < 8; i++ {
		if d.big {
			v = v<<8 | uint64(s[i])
		} else {
			v = v<<8 | uint64(s[7-i])
		}
	}
	return v
}

// str reads a STRING (or OBJECT_PATH).
func (d *decoder) str() string {
	n := int(d.u32())
	d.need(n + 1)
	s := d.s[d.pos : d.pos+n]
	if d.s[d.pos+n] != 0 {
		d.fail("string is not nul-terminated")
	}
	d.pos += n + 1
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		d.fail("string is not valid UTF-8")
	}
	return s
}

// sig reads a SIGNATURE and checks that it is valid.
func (d *decoder) sig() string {
	n := int(d.u8())
	d.need(n + 1)
	s := d.s[d.pos : d.pos+n]
	if d.s[d.pos+n] != 0 {
		d.fail("signature is not nul-terminated")
	}
	d.pos += n + 1
	if !validSignature(s) {
		d.fail("invalid signature")
	}
	return s
}

// value decodes one value of the single complete type sig.
func (d *decoder) value(sig string, depth int) any {
	switch sig[0] {
	case 'y':
		return d.u8()
	case 'b':
		switch d.u32() {
		case 0:
			return false
		case 1:
			return true
		}
		d.fail("invalid boolean")
	case 'n':
		d.spend(costWord)
		return int16(d.u16())
	case 'q':
		d.spend(costWord)
		return d.u16()
	case 'i':
		d.spend(costWord)
		return int32(d.u32())
	case 'u':
		d.spend(costWord)
		return d.u32()
	case 'h':
		d.spend(costWord)
		return dbus.UnixFDIndex(d.u32())
	case 'x':
		d.spend(costWord)
		return int64(d.u64())
	case 't':
		d.spend(costWord)
		return d.u64()
	case 'd':
		d.spend(costWord)
		return math.Float64frombits(d.u64())
	case 's':
		d.spend(costString)
		return d.str()
	case 'o':
		d.spend(costString)
		return d.path()
	case 'g':
		d.spend(costString + costSignature)
		return mustSignature(d.sig())
	case 'v':
		d.spend(costVariant)
		return d.variant(depth)
	case 'a':
		if depth >= maxDepth {
			d.fail("too deeply nested")
		}
		d.spend(costSlice)
		n := d.u32()
		if n > maxArrayLen {
			d.fail("array is too long")
		}
		d.align(sigAlign(sig[1]))
		end := d.pos + int(n)
		if end > len(d.s) {
			d.fail("truncated")
		}
		v := d.array(sig[1:], end, depth+1)
		if d.pos != end {
			d.fail("array elements do not fill the array")
		}
		return v
	case '(':
		if depth >= maxDepth {
			d.fail("too deeply nested")
		}
		d.align(8)
		fields := sig[1 : len(sig)-1]
		d.spend(costSlice + costAny*max(4, len(fields)))
		v := make([]any, 0, 4)
		for fields != "" {
			n := sigLen(fields)
			v = append(v, d.value(fields[:n], depth+1))
			fields = fields[n:]
		}
		return v
	}
	d.fail("invalid signature")
	return nil
}

// The decoder's estimates of the memory its values take, garbage
// included (a value is boxed in an interface, then copied into its
// array). Elements of arrays count twice their size: a slice grown by
// append has up to as much room again.
const (
	costWord      = 8  // a number in an interface
	costString    = 16 // a string (or object path) header in an interface
	costSignature = 32 // dbus.ParseSignature's allocations
	costVariant   = 32 // a dbus.Variant in an interface
	costSlice     = 24 // a slice header in an interface
	costAny       = 16 // an interface in a struct's []any
	costMapEntry  = 16 // a map entry beyond its key and value
)

// path reads an OBJECT_PATH.
func (d *decoder) path() dbus.ObjectPath {
	s := d.str()
	if !validPath(s) {
		d.fail("invalid object path")
	}
	return dbus.ObjectPath(s)
}

// variant reads a VARIANT.
func (d *decoder) variant(depth int) dbus.Variant {
	if depth >= maxDepth {
		d.fail("too deeply nested")
	}
	s := d.sig()
	if s == "" || sigLen(s) != len(s) {
		d.fail("variant signature is not a single type")
	}
	d.spend(costSignature)
	return dbus.MakeVariantWithSignature(d.value(s, depth+1), mustSignature(s))
}

// array decodes array elements of type elem until end.
func (d *decoder) array(elem string, end, depth int) any {
	switch elem {
	case "y":
		d.spend(end - d.pos)
		b := []byte(d.s[d.pos:end])
		d.pos = end
		return b
	case "s":
		v := []string{}
		for d.pos < end {
			d.spend(2 * 16)
			v = append(v, d.str())
		}
		return v
	case "o":
		v := []dbus.ObjectPath{}
		for d.pos < end {
			d.spend(2 * 16)
			v = append(v, d.path())
		}
		return v
	case "u":
		v := []uint32{}
		for d.pos < end {
			d.spend(2 * 4)
			v = append(v, d.u32())
		}
		return v
	case "v":
		v := []dbus.Variant{}
		for d.pos < end {
			d.spend(2 * 32)
			v = append(v, d.variant(depth))
		}
		return v
	case "{sv}":
		v := map[string]dbus.Variant{}
		for d.pos < end {
			d.align(8)
			d.spend(2 * (16 + 32 + costMapEntry))
			k := d.str()
			v[k] = d.variant(depth + 1)
		}
		return v
	}
	if elem[0] == '{' {
		ksig, vsig := elem[1:2], elem[2:len(elem)-1]
		kt, vt := GoType(ksig), GoType(vsig)
		v := reflect.MakeMap(reflect.MapOf(kt, vt))
		entry := 2 * (int(kt.Size()+vt.Size()) + costMapEntry)
		for d.pos < end {
			d.align(8)
			d.spend(entry)
			k := d.value(ksig, depth+1)
			v.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(d.value(vsig, depth+1)))
		}
		return v.Interface()
	}
	et := GoType(elem)
	size := 2 * int(et.Size())
	v := reflect.MakeSlice(reflect.SliceOf(et), 0, 0)
	for d.pos < end {
		d.spend(size)
		v = reflect.Append(v, reflect.ValueOf(d.value(elem, depth)))
	}
	return v.Interface()
}

// GoType returns the Go type godbus decodes the single complete type sig to
// (a struct decodes to []any).
func GoType(sig string) reflect.Type {
	switch sig[0] {
	case 'y':
		return reflect.TypeOf(byte(0))
	case 'b':
		return reflect.TypeOf(false)
	case 'n':
		return reflect.TypeOf(int16(0))
	case 'q':
		return reflect.TypeOf(uint16(0))
	case 'i':
		return reflect.TypeOf(int32(0))
	case 'u':
		return reflect.TypeOf(uint32(0))
	case 'h':
		return reflect.TypeOf(dbus.UnixFDIndex(0))
	case 'x':
		return reflect.TypeOf(int64(0))
	case 't':
		return reflect.TypeOf(uint64(0))
	case 'd':
		return reflect.TypeOf(float64(0))
	case 's':
		return reflect.TypeOf("")
	case 'o':
		return reflect.TypeOf(dbus.ObjectPath(""))
	case 'g':
		return reflect.TypeOf(dbus.Signature{})
	case 'v':
		return reflect.TypeOf(dbus.Variant{})
	case 'a':
		if sig[1] == '{' {
			return reflect.MapOf(GoType(sig[2:3]), GoType(sig[3:len(sig)-1]))
		}
		return reflect.SliceOf(GoType(sig[1:]))
	}
	return reflect.TypeOf([]any(nil)) // struct
}

// mustSignature converts a validated signature string.
func mustSignature(s string) dbus.Signature {
	sig, err := dbus.ParseSignature(s)
	if err != nil {
		panic(decodeError("invalid signature"))
	}
	return sig
}
