package fakebus_test

import (
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// recorder is a connection to the fake's bus socket that keeps every
// byte it reads: the order of a{sv} entries, which godbus decodes into a
// map.
type recorder struct {
	net.Conn
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	r.mu.Lock()
	r.buf.Write(p[:n])
	r.mu.Unlock()
	return n, err
}

// take returns the bytes read since the last take.
func (r *recorder) take() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := bytes.Clone(r.buf.Bytes())
	r.buf.Reset()
	return b
}

// TestGetAllOrder: GetAll of each interface, and GetAll(""), answer on
// the wire in the order the played release declares the properties and
// registers the interfaces (its captured introspection data), as sd-bus
// does, for the manager, a job and a unit of each type the fake makes.
func TestGetAllOrder(t *testing.T) {
	forEachCapture(t, func(t *testing.T, capt *sdversions.Capture) {
		s := fakebus.New(t, fakebus.WithVersion(capt.Release), fakebus.WithUnitFile(fakebus.UnitFile{
			Name:       "capture-file.service",
			Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)},
		}))
		addr, err := s.Address()
		if err != nil {
			t.Fatal(err)
		}
		nc, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:path="))
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{Conn: nc}
		conn, err := dbus.NewConn(rec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		if err := conn.Auth(nil); err != nil {
			t.Fatal(err)
		}
		if err := conn.Hello(); err != nil {
			t.Fatal(err)
		}
		for kind, path := range map[string]dbus.ObjectPath{
			"manager":      managerPath,
			"service-file": sdbus.UnitPath("capture-file.service"),
			"target":       sdbus.UnitPath("multi-user.target"),
			"scope":        sdbus.UnitPath("init.scope"),
			"slice":        sdbus.UnitPath("system.slice"),
		} {
			want := capt.Objects[kind]
			var ifaces []string
			for _, n := range want.InterfaceNames() {
				if !strings.HasPrefix(n, "org.freedesktop.DBus.") {
					ifaces = append(ifaces, n)
				}
			}
			declared := func(ifaces ...string) []string {
				var out []string
				for _, i := range ifaces {
					for _, m := range want.Members(i) {
						if m.Kind == "property" {
							out = append(out, m.Name)
						}
					}
				}
				return out
			}
			for _, iface := range append([]string{""}, ifaces...) {
				wantOrder := declared(iface)
				if iface == "" {
					wantOrder = declared(ifaces...)
				}
				rec.take()
				call := conn.Object(systemd1, path).Call("org.freedesktop.DBus.Properties.GetAll", 0, iface)
				if call.Err != nil {
					t.Fatalf("%s GetAll(%q): %v", kind, iface, call.Err)
				}
				got := keyOrder(rec.take(), call.Body[0].(map[string]dbus.Variant))
				if diff := cmp.Diff(wantOrder, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s: GetAll(%q) order (-want +got):\n%s", kind, iface, diff)
				}
			}
		}
	})
}

// keyOrder returns the keys of props in the order they appear in data
// (the raw reply, little-endian), each found as a D-Bus string (length,
// bytes, NUL)
// followed by a variant's signature.
func keyOrder(data []byte, props map[string]dbus.Variant) []string {
	type at struct {
		name string
		pos  int
	}
	var found []at
	for name, v := range props {
		sig := v.Signature().String()
		key := binary.LittleEndian.AppendUint32(nil, uint32(len(name)))
		key = append(append(key, name...), 0, byte(len(sig)))
		key = append(key, sig...)
		if i := bytes.Index(data, key); i >= 0 {
			found = append(found, at{name, i})
		}
	}
	for i := 1; i < len(found); i++ {
		for j := i; j > 0 && found[j].pos < found[j-1].pos; j-- {
			found[j], found[j-1] = found[j-1], found[j]
		}
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}
