package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// BenchmarkFakeProperties measures what reading a unit's properties
// costs on fakebus, in one process over its in-memory pipe, with a raw
// godbus client: Get of one property of the Service and of the Unit
// interface, GetAll of the Service interface, and, as the floor of any
// call, Peer.Ping. An op is one call. units is how many other units are
// loaded (transient slices): a unit's dependency lists look at each of
// them (the inverse ones: WantedBy=, RequiredBy=, ...).
func BenchmarkFakeProperties(b *testing.B) {
	for _, units := range []int{0, 200} {
		b.Run(fmt.Sprintf("units=%d", units), func(b *testing.B) {
			ctx := context.Background()
			s := fakebus.New(b)
			c := s.Conn(b)
			start := func(name string, props []sdbus.Property) {
				j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, props)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := j.Wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < units; i++ {
				start(fmt.Sprintf("bench-props-%d.slice", i), nil)
			}
			start("bench-props.service", []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "1000"}, false)})
			raw := s.RawConn(b)
			var path dbus.ObjectPath
			if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").
				Call("org.freedesktop.systemd1.Manager.GetUnit", 0, "bench-props.service").Store(&path); err != nil {
				b.Fatal(err)
			}
			obj := raw.Object("org.freedesktop.systemd1", path)
			for _, bc := range []struct {
				name, method string
				args         []any
			}{
				{"Get/Service.MainPID", "org.freedesktop.DBus.Properties.Get", []any{"org.freedesktop.systemd1.Service", "MainPID"}},
				{"Get/Unit.ActiveState", "org.freedesktop.DBus.Properties.Get", []any{"org.freedesktop.systemd1.Unit", "ActiveState"}},
				{"Get/Unit.WantedBy", "org.freedesktop.DBus.Properties.Get", []any{"org.freedesktop.systemd1.Unit", "WantedBy"}},
				{"GetAll/Service", "org.freedesktop.DBus.Properties.GetAll", []any{"org.freedesktop.systemd1.Service"}},
				{"Ping", "org.freedesktop.DBus.Peer.Ping", nil},
			} {
				b.Run(bc.name, func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						if err := obj.Call(bc.method, 0, bc.args...).Err; err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
