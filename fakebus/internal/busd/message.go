package busd

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// msgInfo is what match rules look at.
type msgInfo struct {
	typ    dbus.Type
	sender string // unique name, driverName, or a forged name; "" if none
	dest   string // DESTINATION header, "" if none
	path   dbus.ObjectPath
	iface  string
	member string
	body   []any
}

// header holds the header fields of a received message.
type header struct {
	path        dbus.ObjectPath
	iface       string
	member      string
	errName     string
	dest        string
	sender      string
	sig         string
	replySerial uint32
}

// info describes m for match rules, as sent by sender.
func (m *inMsg) info(sender string) msgInfo {
	return msgInfo{typ: m.typ, sender: sender, dest: m.dest, path: m.path, iface: m.iface, member: m.member, body: m.body}
}

// relay returns m as busd forwards it: with SENDER set to sender and the
// body bytes unchanged.
func (m *inMsg) relay(sender string) *outMsg {
	return &outMsg{
		typ: m.typ, flags: m.flags,
		path: m.path, iface: m.iface, member: m.member, errName: m.errName,
		dest: m.dest, sender: sender, replySerial: m.replySerial, sig: m.sig,
		body: m.body, rawBody: m.raw[m.bodyOff:], rawBig: m.big, fds: m.fds,
	}
}

// message returns m as a godbus message (for the trace).
func (m *inMsg) message() *dbus.Message {
	return m.relay(m.sender).message()
}

// info describes m for match rules.
func (m *outMsg) info() msgInfo {
	return msgInfo{typ: m.typ, sender: m.sender, dest: m.dest, path: m.path, iface: m.iface, member: m.member, body: m.body}
}

// message returns m as a godbus message (for the trace), built once.
func (m *outMsg) message() *dbus.Message {
	if m.traced != nil {
		return m.traced
	}
	msg := &dbus.Message{Type: m.typ, Flags: m.flags, Headers: make(map[dbus.HeaderField]dbus.Variant, 8), Body: m.body}
	set := func(f dbus.HeaderField, v any) { msg.Headers[f] = dbus.MakeVariant(v) }
	if m.path != "" {
		set(dbus.FieldPath, m.path)
	}
	if m.iface != "" {
		set(dbus.FieldInterface, m.iface)
	}
	if m.member != "" {
		set(dbus.FieldMember, m.member)
	}
	if m.errName != "" {
		set(dbus.FieldErrorName, m.errName)
	}
	if m.replySerial != 0 {
		set(dbus.FieldReplySerial, m.replySerial)
	}
	if m.dest != "" {
		set(dbus.FieldDestination, m.dest)
	}
	if m.sender != "" {
		set(dbus.FieldSender, m.sender)
	}
	sig := m.sig
	if sig == "" && len(m.body) > 0 {
		sig, _ = signatureOfValues(m.body)
	}
	if sig != "" {
		if s, err := dbus.ParseSignature(sig); err == nil {
			set(dbus.FieldSignature, s)
		}
	}
	m.traced = msg
	return msg
}

// newReply builds a method return. dest and sender are omitted when empty.
func newReply(replySerial uint32, dest, sender string, body []any) *outMsg {
	return &outMsg{typ: dbus.TypeMethodReply, replySerial: replySerial, dest: dest, sender: sender, body: body}
}

// newError builds an error reply. dest and sender are omitted when empty.
func newError(replySerial uint32, dest, sender, name string, body []any) *outMsg {
	return &outMsg{typ: dbus.TypeError, replySerial: replySerial, dest: dest, sender: sender, errName: name, body: body}
}

// newSignal builds a signal. dest and sender are omitted when empty.
func newSignal(path dbus.ObjectPath, iface, member, dest, sender string, body []any) *outMsg {
	return &outMsg{typ: dbus.TypeSignal, path: path, iface: iface, member: member, dest: dest, sender: sender, body: body}
}

// checkSignal validates a signal the service emits and returns its body's
// signature. It panics on invalid input: that is a bug in the service.
func checkSignal(path dbus.ObjectPath, iface, member string, body []any) string {
	if !validPath(string(path)) {
		panic(fmt.Sprintf("busd: invalid signal path %q", path))
	}
	if !validInterface(iface) {
		panic(fmt.Sprintf("busd: invalid signal interface %q", iface))
	}
	if !validMember(member) {
		panic(fmt.Sprintf("busd: invalid signal member %q", member))
	}
	sig, err := signatureOfValues(body)
	if err != nil {
		panic(fmt.Sprintf("busd: signal %s.%s: %v", iface, member, err))
	}
	return sig
}
