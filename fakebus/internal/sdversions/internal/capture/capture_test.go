package capture

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

func TestVaries(t *testing.T) {
	for _, c := range []struct {
		kind  string
		p     sdversions.Prop
		want  string
		value string
	}{
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Unit", Name: "ActiveEnterTimestamp", Type: "t", Value: json.RawMessage("5")}, "time", "5"},
		{"timer", sdversions.Prop{Interface: "org.freedesktop.systemd1.Timer", Name: "TimersMonotonic", Type: "a(stt)", Value: json.RawMessage(`[]`)}, "time", "[]"},
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Service", Name: "MainPID", Type: "u", Value: json.RawMessage("57")}, "pid", "57"},
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Service", Name: "ExecStart", Type: "a(sasbttttuii)",
			Value: json.RawMessage(`[["/bin/sleep",["/bin/sleep","1"],false,1,2,0,0,57,0,0]]`)}, "pid", ""},
		{"service-file", sdversions.Prop{Interface: "org.freedesktop.systemd1.Service", Name: "ExecStart", Type: "a(sasbttttuii)",
			Value: json.RawMessage(`[["/bin/sleep",["/bin/sleep","1"],false,0,0,0,0,0,0,0]]`)}, "", ""},
		{"job", sdversions.Prop{Interface: "org.freedesktop.systemd1.Job", Name: "Id", Type: "u", Value: json.RawMessage("42")}, "id", ""},
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Unit", Name: "Id", Type: "s", Value: json.RawMessage(`"a.service"`)}, "", ""},
		{"slice", sdversions.Prop{Interface: "org.freedesktop.systemd1.Slice", Name: "MemoryCurrent", Type: "t", Value: json.RawMessage("1")}, "usage", ""},
		{"manager", sdversions.Prop{Interface: "org.freedesktop.systemd1.Manager", Name: "NNames", Type: "u", Value: json.RawMessage("9")}, "count", ""},
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Service", Name: "NRestarts", Type: "u", Value: json.RawMessage("0")}, "", ""},
		{"manager", sdversions.Prop{Interface: "org.freedesktop.systemd1.Manager", Name: "Virtualization", Type: "s", Value: json.RawMessage(`""`)}, "host", ""},
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Service", Name: "LimitNOFILE", Type: "t", Value: json.RawMessage("1024")}, "host", ""},
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Unit", Name: "After", Type: "as", Value: json.RawMessage(`["b","a"]`)}, "order", `["a","b"]`},
		{"service", sdversions.Prop{Interface: "org.freedesktop.systemd1.Unit", Name: "Documentation", Type: "as", Value: json.RawMessage(`["b","a"]`)}, "", `["b","a"]`},
	} {
		t.Run(c.kind+"/"+c.p.Name, func(t *testing.T) {
			p := c.p
			settle(c.kind, &p)
			if p.Varies != c.want {
				t.Errorf("varies %q, want %q", p.Varies, c.want)
			}
			if c.value != "" && string(p.Value) != c.value {
				t.Errorf("value %s, want %s", p.Value, c.value)
			}
		})
	}
}

func TestSortChildren(t *testing.T) {
	in := "<node>\n <interface name=\"x\"/>\n <node name=\"b\"/>\n <node name=\"a\"/>\n</node>\n"
	want := "<node>\n <interface name=\"x\"/>\n <node name=\"a\"/>\n <node name=\"b\"/>\n</node>\n"
	if diff := cmp.Diff(want, sortChildren(in)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
