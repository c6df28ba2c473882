package fakebus_test

import (
	"testing"

	"github.com/sdbus-go/sdbus/fakebus"
)

// TestDynamicUsers: no dynamic users; the lookups answer
// NoSuchDynamicUser, or InvalidArgs for what systemd does not take for a
// user name or UID.
func TestDynamicUsers(t *testing.T) {
	r := rawBus(t, fakebus.New(t))
	var users []struct {
		UID  uint32
		Name string
	}
	r.mustManager(t, "GetDynamicUsers", nil, &users)
	if len(users) != 0 {
		t.Errorf("GetDynamicUsers = %v, want none", users)
	}
	const (
		noSuch  = "org.freedesktop.systemd1.NoSuchDynamicUser"
		invalid = "org.freedesktop.DBus.Error.InvalidArgs"
	)
	for _, tc := range []struct {
		method string
		arg    any
		want   string
	}{
		{"LookupDynamicUserByName", "nobodyhere", noSuch},
		{"LookupDynamicUserByName", "bad name", noSuch},
		{"LookupDynamicUserByName", "0abc", noSuch},
		{"LookupDynamicUserByName", "-abc", noSuch},
		{"LookupDynamicUserByName", "", invalid},
		{"LookupDynamicUserByName", "1234", invalid},
		{"LookupDynamicUserByName", "a/b", invalid},
		{"LookupDynamicUserByName", " a", invalid},
		{"LookupDynamicUserByUID", uint32(61234), noSuch},
		{"LookupDynamicUserByUID", uint32(0), noSuch},
		{"LookupDynamicUserByUID", uint32(4294967294), noSuch},
		{"LookupDynamicUserByUID", uint32(65535), invalid},
		{"LookupDynamicUserByUID", uint32(4294967295), invalid},
	} {
		t.Run(tc.method, func(t *testing.T) {
			var out any
			if got := errName(r.manager(tc.method, []any{tc.arg}, &out)); got != tc.want {
				t.Errorf("%s(%v) = %q, want %q", tc.method, tc.arg, got, tc.want)
			}
		})
	}
}
