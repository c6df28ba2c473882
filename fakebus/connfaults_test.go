package fakebus_test

import (
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus"
)

// closedSoon fails t unless c's connection ends within 5s.
func closedSoon(t *testing.T, c *dbus.Conn) {
	t.Helper()
	select {
	case <-c.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection is still open 5s after the reply")
	}
}

// alive makes a call that no test arms a fault for.
func alive(r *raw) error {
	var id string
	return r.BusObject().Call("org.freedesktop.DBus.GetId", 0).Store(&id)
}

func TestDropAfterReply(t *testing.T) {
	for _, tc := range []struct {
		member string
		call   func(r *raw) error
	}{
		{"Hello", nil},
		{"AddMatch", func(r *raw) error { return r.AddMatchSignal(dbus.WithMatchMember("JobRemoved")) }},
		{"GetNameOwner", func(r *raw) error {
			var owner string
			return r.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, systemd1).Store(&owner)
		}},
		{"Subscribe", func(r *raw) error { return r.manager("Subscribe", nil) }},
		{"GetUnit", func(r *raw) error {
			var p dbus.ObjectPath
			return r.manager("GetUnit", []any{"-.slice"}, &p)
		}},
		{"Unsubscribe", func(r *raw) error { // an error reply counts
			if err := r.manager("Unsubscribe", nil); errName(err) != "org.freedesktop.systemd1.NotSubscribed" {
				t.Errorf("Unsubscribe = %v, want NotSubscribed", err)
			}
			return nil
		}},
	} {
		t.Run(tc.member, func(t *testing.T) {
			s := fakebus.New(t)
			first := rawBus(t, s)
			s.DropAfterReply(tc.member, 2)
			for i := 0; i < 3; i++ {
				var r *raw
				if tc.member == "Hello" {
					r = rawBus(t, s) // Hello's reply arrives, then the connection ends
				} else {
					r = rawBus(t, s)
					if err := tc.call(r); err != nil {
						t.Fatalf("call %d: the reply did not arrive: %v", i, err)
					}
				}
				if i < 2 {
					closedSoon(t, r.Conn)
				} else if err := alive(r); err != nil {
					t.Fatalf("a third %s ended its connection too (%v); want only two", tc.member, err)
				}
			}
			if err := alive(first); err != nil {
				t.Errorf("a connection made before the fault was armed: %v", err)
			}
		})
	}
}
