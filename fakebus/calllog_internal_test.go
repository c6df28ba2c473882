package fakebus

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestJSONValue: the JSON of each D-Bus type, from the Go values godbus
// decodes and those the fake replies with.
func TestJSONValue(t *testing.T) {
	type pair struct {
		ID   uint32
		Path dbus.ObjectPath
		priv int // unexported fields are not the struct's
	}
	for _, tt := range []struct {
		name string
		sig  string
		v    any
		want string
	}{
		{"bool", "b", true, `true`},
		{"byte", "y", byte(7), `7`},
		{"int16", "n", int16(-3), `-3`},
		{"uint64 past 2^53", "t", uint64(math.MaxUint64), `18446744073709551615`},
		{"int64", "x", int64(math.MinInt64), `-9223372036854775808`},
		{"fd", "h", dbus.UnixFDIndex(2), `2`},
		{"double", "d", 1.5, `1.5`},
		{"NaN", "d", math.NaN(), `"NaN"`},
		{"infinity", "d", math.Inf(-1), `"-Infinity"`},
		{"string", "s", "a.service", `"a.service"`},
		{"path", "o", dbus.ObjectPath("/x"), `"/x"`},
		{"signature", "g", dbus.ParseSignatureMust("a{sv}"), `"a{sv}"`},
		{"variant", "v", dbus.MakeVariant(uint64(5)), `{"type":"t","value":5}`},
		{"bytes", "ay", []byte{1, 2}, `[1,2]`},
		{"strings", "as", []string{"a", "b"}, `["a","b"]`},
		{"empty array", "as", []string{}, `[]`},
		{"struct as []any", "(sb)", []any{"x", true}, `["x",true]`},
		{"struct as Go struct", "(uo)", pair{1, "/j/1", 0}, `[1,"/j/1"]`},
		{"properties", "a(sv)", [][]any{{"Description", dbus.MakeVariant("d")}, {"MemoryMax", dbus.MakeVariant(uint64(1))}},
			`[["Description",{"type":"s","value":"d"}],["MemoryMax",{"type":"t","value":1}]]`},
		{"ExecStart", "v", dbus.MakeVariantWithSignature([][]any{{"/bin/true", []string{"/bin/true"}, false}}, dbus.ParseSignatureMust("a(sasb)")),
			`{"type":"a(sasb)","value":[["/bin/true",["/bin/true"],false]]}`},
		{"dict", "a{sv}", map[string]dbus.Variant{"b": dbus.MakeVariant(true), "a": dbus.MakeVariant("x")},
			`{"a":{"type":"s","value":"x"},"b":{"type":"b","value":true}}`},
		{"dict with number keys", "a{us}", map[uint32]string{2: "failed"}, `{"2":"failed"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonValue(tt.sig, reflect.ValueOf(tt.v))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSONValueMismatch(t *testing.T) {
	for _, tt := range []struct {
		sig string
		v   any
	}{{"s", uint32(1)}, {"u", "x"}, {"(ss)", []any{"x"}}, {"as", "x"}, {"v", "x"}, {"a{sv}", 3}} {
		if _, err := jsonValue(tt.sig, reflect.ValueOf(tt.v)); err == nil {
			t.Errorf("jsonValue(%s, %#v): no error", tt.sig, tt.v)
		}
	}
}
