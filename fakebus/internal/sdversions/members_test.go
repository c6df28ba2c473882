package sdversions

import (
	"testing"

	"github.com/godbus/dbus/v5/introspect"
	"github.com/google/go-cmp/cmp"
)

// TestMembers: the Job interface of 252 as its introspection declares it,
// in order, with each property's type, access and annotations.
func TestMembers(t *testing.T) {
	o, err := CapturedObject(R("252"), "job")
	if err != nil {
		t.Fatal(err)
	}
	konst := []introspect.Annotation{{Name: "org.freedesktop.DBus.Property.EmitsChangedSignal", Value: "const"}}
	want := []Member{
		{Kind: "method", Name: "Cancel"},
		{Kind: "method", Name: "GetAfter"},
		{Kind: "method", Name: "GetBefore"},
		{Kind: "property", Name: "Id", Type: "u", Access: "read", Annotations: konst},
		{Kind: "property", Name: "Unit", Type: "(so)", Access: "read", Annotations: konst},
		{Kind: "property", Name: "JobType", Type: "s", Access: "read", Annotations: konst},
		{Kind: "property", Name: "State", Type: "s", Access: "read"},
		{Kind: "property", Name: "ActivationDetails", Type: "a(ss)", Access: "read", Annotations: konst},
	}
	if diff := cmp.Diff(want, o.Members("org.freedesktop.systemd1.Job")); diff != "" {
		t.Errorf("Members (-want +got):\n%s", diff)
	}
	// 262 registers a unit's type's interface after Unit, 252 before.
	for release, want := range map[string][]string{
		"252": {"org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.freedesktop.systemd1.Service", "org.freedesktop.systemd1.Unit"},
		"262": {"org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.freedesktop.systemd1.Unit", "org.freedesktop.systemd1.Service"},
	} {
		s, err := CapturedObject(R(release), "service")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, s.InterfaceNames()); diff != "" {
			t.Errorf("%s: InterfaceNames (-want +got):\n%s", release, diff)
		}
	}
	if got := o.Members("org.example.None"); got != nil {
		t.Errorf("Members of an absent interface = %v, want nil", got)
	}
}
