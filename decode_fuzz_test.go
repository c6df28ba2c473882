package sdbus

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/godbus/dbus/v5"
)

// bodyFromWire decodes raw bytes as a D-Bus message body of signature sig,
// the way godbus decodes what a peer sends. ok is false when godbus
// refuses them.
func bodyFromWire(sig string, raw []byte) (body []any, ok bool) {
	s, err := dbus.ParseSignature(sig)
	if err != nil {
		return nil, false
	}
	m := &dbus.Message{Type: dbus.TypeSignal, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:      dbus.MakeVariant(dbus.ObjectPath("/org/freedesktop/systemd1")),
		dbus.FieldInterface: dbus.MakeVariant("org.freedesktop.systemd1.Manager"),
		dbus.FieldMember:    dbus.MakeVariant("JobRemoved"),
	}}
	if sig != "" {
		m.Headers[dbus.FieldSignature] = dbus.MakeVariant(s)
	}
	var buf bytes.Buffer
	if err := m.EncodeTo(&buf, binary.LittleEndian); err != nil {
		return nil, false
	}
	wire := append(buf.Bytes(), raw...)
	binary.LittleEndian.PutUint32(wire[4:8], uint32(len(raw)))
	binary.LittleEndian.PutUint32(wire[8:12], 1) // serial
	d, err := dbus.DecodeMessage(bytes.NewReader(wire))
	if err != nil {
		return nil, false
	}
	return d.Body, true
}

// seed adds the wire form of body to f's corpus.
func seed(f *testing.F, body ...any) {
	sig, raw := encodeBody(body...)
	f.Add(sig, raw)
}

// encodeBody returns the wire form of a body.
func encodeBody(body ...any) (string, []byte) {
	m := &dbus.Message{Type: dbus.TypeSignal, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:      dbus.MakeVariant(dbus.ObjectPath("/org/freedesktop/systemd1")),
		dbus.FieldInterface: dbus.MakeVariant("org.freedesktop.systemd1.Manager"),
		dbus.FieldMember:    dbus.MakeVariant("JobRemoved"),
		dbus.FieldSignature: dbus.MakeVariant(dbus.SignatureOf(body...)),
	}, Body: body}
	var full, head bytes.Buffer
	_ = m.EncodeTo(&full, binary.LittleEndian)
	m.Body = nil
	_ = m.EncodeTo(&head, binary.LittleEndian)
	return dbus.SignatureOf(body...).String(), full.Bytes()[head.Len():]
}

// JobRemoved bodies from anyone: decodeJobRemoved accepts exactly (uoss)
// with a valid path, and the tracker never panics on what it accepts.
func FuzzDecodeJobRemoved(f *testing.F) {
	seed(f, uint32(7), dbus.ObjectPath("/org/freedesktop/systemd1/job/7"), "a.service", "done")
	seed(f, uint32(7), "/org/freedesktop/systemd1/job/7", "a.service", "done")
	seed(f, "done")
	seed(f, uint32(1), dbus.ObjectPath("/"), "", "", int32(4))
	f.Fuzz(func(t *testing.T, sig string, raw []byte) {
		body, ok := bodyFromWire(sig, raw)
		if !ok {
			return
		}
		ev, ok := decodeJobRemoved(body)
		// godbus does not check object paths; decodeJobRemoved does.
		want := sig == "uoss" && body[1].(dbus.ObjectPath).IsValid()
		if ok != want {
			t.Fatalf("decodeJobRemoved accepted=%v a %q body %v", ok, sig, body)
		}
		tr := newJobTracker()
		ticket := tr.begin("x.service")
		tr.complete(ev)
		st := tr.register(ticket, ev.path, true)
		if ok && !st.finished() {
			t.Fatalf("a JobRemoved before the reply was lost: %+v", ev)
		}
	})
}

// PropertiesChanged bodies from anyone never upset a watch.
func FuzzPropertiesChanged(f *testing.F) {
	seed(f, unitIface, map[string]dbus.Variant{"ActiveState": dbus.MakeVariant("active")}, []string{})
	seed(f, unitIface, map[string]dbus.Variant{"ActiveState": dbus.MakeVariant(uint32(1)), "Job": dbus.MakeVariant("x")}, []string{"SubState"})
	seed(f, "org.freedesktop.systemd1.Service", map[string]dbus.Variant{"Result": dbus.MakeVariant([]byte{1})}, []string{})
	seed(f, uint32(1))
	f.Fuzz(func(t *testing.T, sig string, raw []byte) {
		body, ok := bodyFromWire(sig, raw)
		if !ok {
			return
		}
		w := &unitWatch{path: "/x", typeIface: "org.freedesktop.systemd1.Service", notify: make(chan struct{}, 1),
			snap: map[string]dbus.Sequence{unitIface: 1, "org.freedesktop.systemd1.Service": 1}}
		w.signal(&dbus.Signal{Path: "/x", Body: body, Sequence: 2})
		if len(w.pending) > watchBuffer {
			t.Fatalf("%d pending states", len(w.pending))
		}
	})
}

// Property maps as any manager (or impostor) could send them: decoding
// reports wrong types as errors and never panics.
func FuzzDecodeProperties(f *testing.F) {
	seed(f, map[string]dbus.Variant{
		"MemoryMax": dbus.MakeVariant(^uint64(0)), "AllowedCPUs": dbus.MakeVariant([]byte{3}),
		"DeviceAllow": dbus.MakeVariant([]DeviceRule{{"/dev/null", "rw"}}), "KillSignal": dbus.MakeVariant(int32(15)),
	})
	seed(f, map[string]dbus.Variant{"MemoryMax": dbus.MakeVariant("infinity"), "Job": dbus.MakeVariant(uint32(1))})
	seed(f, map[string]dbus.Variant{"InvocationID": dbus.MakeVariant([]byte{1, 2}), "Names": dbus.MakeVariant([]uint32{1})})
	f.Fuzz(func(t *testing.T, sig string, raw []byte) {
		body, ok := bodyFromWire(sig, raw)
		if !ok || len(body) != 1 {
			return
		}
		m, ok := body[0].(map[string]dbus.Variant)
		if !ok {
			return
		}
		_, _ = decodeUnitProperties("fuzz", "x.service", m)
		_, _ = decodeServiceProperties("fuzz", "x.service", m)
		var p CgroupProperties
		d := propDecoder{op: "fuzz", unit: "x.slice", m: m}
		d.cgroup(&p)
	})
}
