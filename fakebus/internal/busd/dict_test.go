package busd

import (
	"bytes"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestPropDictOrder: a PropDict is sent as a{sv} in the order of its
// entries, alone in a body and inside a struct.
func TestPropDictOrder(t *testing.T) {
	d := PropDict{{"Zeta", dbus.MakeVariant("z")}, {"Alpha", dbus.MakeVariant(uint32(1))}, {"Mid", dbus.MakeVariant(true)}}
	for name, body := range map[string][]any{
		"body":     {d},
		"in-slice": {[]PropDict{d}},
	} {
		t.Run(name, func(t *testing.T) {
			m := newSignal("/a", "org.example.I", "M", ":1.5", ":1.1", body)
			data, err := m.encode(7)
			if err != nil {
				t.Fatal(err)
			}
			// The keys appear in the body's bytes in the entries' order.
			b := bodyBytes(data)
			z, a, mid := bytes.Index(b, []byte("Zeta")), bytes.Index(b, []byte("Alpha")), bytes.Index(b, []byte("Mid"))
			if z < 0 || !(z < a && a < mid) {
				t.Errorf("keys at %d, %d, %d; want in the order Zeta, Alpha, Mid", z, a, mid)
			}
			got, err := dbus.DecodeMessage(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]dbus.Variant{"Zeta": dbus.MakeVariant("z"), "Alpha": dbus.MakeVariant(uint32(1)), "Mid": dbus.MakeVariant(true)}
			var gotMap map[string]dbus.Variant
			if name == "body" {
				gotMap, _ = got.Body[0].(map[string]dbus.Variant)
			} else if l, ok := got.Body[0].([]map[string]dbus.Variant); ok && len(l) == 1 {
				gotMap = l[0]
			}
			if diff := cmp.Diff(want, gotMap, cmpDBus); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}
