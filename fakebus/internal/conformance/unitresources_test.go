package conformance

import (
	"testing"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testCleanUnit: CleanUnit of a service without RuntimeDirectory= and the
// like has nothing to clean, of a running one is UnitBusy; bad resource
// types ("fdstore" before sdversions.CleanFDStore), unit types that
// cannot be cleaned, unknown and invalid units are refused.
func testCleanUnit(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("clean", "service")
	e.unitFile(t, e, aliasedService{name: name})
	cleanup(t, e, name)
	fdstore := "org.freedesktop.DBus.Error.InvalidArgs"
	if sdversions.Behaves(e.release, sdversions.CleanFDStore) {
		fdstore = "org.freedesktop.systemd1.NothingToClean"
	}
	check := func(unit string, mask []string, want string) {
		t.Helper()
		if got := managerCall(t, e, raw, "CleanUnit", nil, unit, mask); errPrefix(got) != want {
			t.Errorf("CleanUnit(%s, %q) = %s, want %s", unit, mask, got, want)
		}
	}
	check(name, []string{"all"}, "org.freedesktop.systemd1.NothingToClean")
	check(name, []string{"state", "cache"}, "org.freedesktop.systemd1.NothingToClean")
	check(name, []string{"fdstore"}, fdstore)
	check(name, []string{"all", "bogus"}, "org.freedesktop.DBus.Error.InvalidArgs")
	check("-.slice", []string{"bogus"}, "org.freedesktop.DBus.Error.InvalidArgs")
	check("-.slice", []string{"all"}, "org.freedesktop.DBus.Error.NotSupported")
	check(e.unit("cleannone", "service"), []string{"all"}, "org.freedesktop.systemd1.NoSuchUnit")
	check("bogus", []string{"all"}, "org.freedesktop.DBus.Error.InvalidArgs")
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := j.Wait(e.ctx); err != nil || r != sdbus.JobDone {
		t.Fatalf("start %s: %v, %v", name, r, err)
	}
	check(name, []string{"all"}, "org.freedesktop.systemd1.UnitBusy")
}

// testDumpUnitFileDescriptorStore: where the release has it, a service
// without FileDescriptorStoreMax= answers FileDescriptorStoreDisabled, a
// slice NotSupported, a unit not loaded NoSuchUnit; elsewhere it is
// UnknownMethod.
func testDumpUnitFileDescriptorStore(t *testing.T, e *env) {
	raw := e.rawBus(t)
	const method = "DumpUnitFileDescriptorStore"
	var entries []struct {
		Name             string
		Type, Dev, Maj   uint32
		Ino              uint64
		RDevMaj, RDevMin uint32
		Path             string
		Flags            uint32
	}
	if !sdversions.HasMethod(e.release, method) {
		if got := managerCall(t, e, raw, method, []any{&entries}, "-.slice"); errPrefix(got) != "org.freedesktop.DBus.Error.UnknownMethod" {
			t.Errorf("%s on %s = %s, want UnknownMethod", method, e.release, got)
		}
		return
	}
	name := e.unit("fdstore", "service")
	e.unitFile(t, e, aliasedService{name: name})
	cleanup(t, e, name)
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := j.Wait(e.ctx); err != nil || r != sdbus.JobDone {
		t.Fatalf("start %s: %v, %v", name, r, err)
	}
	for _, tc := range []struct{ unit, want string }{
		{name, "org.freedesktop.systemd1.FileDescriptorStoreDisabled"},
		{"-.slice", "org.freedesktop.DBus.Error.NotSupported"},
		{e.unit("fdstorenone", "service"), "org.freedesktop.systemd1.NoSuchUnit"},
	} {
		if got := managerCall(t, e, raw, method, []any{&entries}, tc.unit); errPrefix(got) != tc.want {
			t.Errorf("%s(%s) = %s, want %s", method, tc.unit, got, tc.want)
		}
	}
}

// testDynamicUsers: no unit runs with DynamicUser=, so there are no
// dynamic users and lookups answer NoSuchDynamicUser; an empty name and
// UID 65535 are InvalidArgs.
func testDynamicUsers(t *testing.T, e *env) {
	raw := e.rawBus(t)
	var users []struct {
		UID  uint32
		Name string
	}
	if got := managerCall(t, e, raw, "GetDynamicUsers", []any{&users}); got != "ok" || len(users) != 0 {
		t.Errorf("GetDynamicUsers = %s, %v; want none", got, users)
	}
	var uid uint32
	var name string
	for _, tc := range []struct {
		method string
		arg    any
		out    any
		want   string
	}{
		{"LookupDynamicUserByName", "sdbus-conf-nouser", &uid, "org.freedesktop.systemd1.NoSuchDynamicUser"},
		{"LookupDynamicUserByName", "", &uid, "org.freedesktop.DBus.Error.InvalidArgs"},
		{"LookupDynamicUserByUID", uint32(61234), &name, "org.freedesktop.systemd1.NoSuchDynamicUser"},
		{"LookupDynamicUserByUID", uint32(65535), &name, "org.freedesktop.DBus.Error.InvalidArgs"},
	} {
		if got := managerCall(t, e, raw, tc.method, []any{tc.out}, tc.arg); errPrefix(got) != tc.want {
			t.Errorf("%s(%v) = %s, want %s", tc.method, tc.arg, got, tc.want)
		}
	}
}
