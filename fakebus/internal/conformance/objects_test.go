package conformance

import (
	"errors"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// objectCall is one call on an object path and its answer: "ok", "ok "
// and a read value or "ok {}" for an empty GetAll, or the error's name and
// message.
func objectCall(e *env, conn *dbus.Conn, path dbus.ObjectPath, method string, args ...any) string {
	call := conn.Object("org.freedesktop.systemd1", path).CallWithContext(e.ctx, method, 0, args...)
	var de dbus.Error
	if errors.As(call.Err, &de) {
		msg := ""
		if len(de.Body) > 0 {
			msg, _ = de.Body[0].(string)
		}
		return de.Name + ": " + msg
	} else if call.Err != nil {
		return "error: " + call.Err.Error()
	}
	switch method {
	case "org.freedesktop.DBus.Properties.Get":
		var v dbus.Variant
		if err := call.Store(&v); err != nil {
			return "error: " + err.Error()
		}
		return "ok " + v.String()
	case "org.freedesktop.DBus.Properties.GetAll":
		var all map[string]dbus.Variant
		if err := call.Store(&all); err != nil {
			return "error: " + err.Error()
		}
		if len(all) == 0 {
			return "ok {}"
		}
	}
	return "ok"
}

// testObjectPaths: every path gets one answer from every interface, as
// sd-bus gives it from systemd's object tree (measured with dbus-send on
// 247, 252, 257 and 262, all alike): a job that does not exist and a path
// no object has are UnknownObject for every call, Introspect too; the
// parents of the objects (/, /org/freedesktop) can only be introspected;
// the unit and job directories are objects without interfaces; a unit
// path of a valid name loads the unit, found or not; a unit path whose
// name is not valid answers the unit lookup's InvalidArgs for the unit
// interfaces' members and "Invalid argument" for the others, one of an
// invocation ID no unit has NoUnitForInvocationID and "No such file or
// directory". On a unit not found, Unit methods act as on a loaded one:
// Ref holds it loaded for the caller, ResetFailed and Kill succeed.
func testObjectPaths(t *testing.T, e *env) {
	raw := e.rawBus(t)
	const (
		m        = dbus.ObjectPath("/org/freedesktop/systemd1")
		props    = "org.freedesktop.DBus.Properties."
		derr     = "org.freedesktop.DBus.Error."
		unitI    = "org.freedesktop.systemd1.Unit"
		jobI     = "org.freedesktop.systemd1.Job"
		serviceI = "org.freedesktop.systemd1.Service"
		invID    = "0123456789abcdef0123456789abcdef"
	)
	nf := e.unit("objects", "service") // never loaded, no file
	type call struct {
		what, method string
		args         []any
	}
	calls := []call{
		{"introspect", "org.freedesktop.DBus.Introspectable.Introspect", nil},
		{"get job's", props + "Get", []any{jobI, "Id"}},
		{"get unit's", props + "Get", []any{unitI, "Id"}},
		{"get no interface", props + "Get", []any{"", "Id"}},
		{"getall", props + "GetAll", []any{""}},
		{"getall service's", props + "GetAll", []any{serviceI}},
		{"set unit's", props + "Set", []any{unitI, "Id", dbus.MakeVariant("x")}},
		{"job method", jobI + ".Cancel", nil},
		{"unknown method", "org.freedesktop.DBus.Nope.X", nil},
	}
	// each gives the answers to calls, in order.
	each := func(answers ...string) []string { return answers }
	all := func(answer string) []string {
		out := make([]string, len(calls))
		for i := range out {
			out[i] = answer
		}
		return out
	}
	unknownObject := func(p dbus.ObjectPath) string { return derr + "UnknownObject: Unknown object '" + string(p) + "'." }
	onlyIntrospect := func(p dbus.ObjectPath) []string { return append([]string{"ok"}, all(unknownObject(p))[1:]...) }
	unknownProp := func(iface, name string) string {
		return derr + "UnknownProperty: Unknown interface " + iface + " or property " + name + "."
	}
	unknownMethods := []string{
		derr + "UnknownMethod: Unknown method Cancel or interface " + jobI + ".",
		derr + "UnknownMethod: Unknown method X or interface org.freedesktop.DBus.Nope.",
	}
	directory := append(each("ok", unknownProp(jobI, "Id"), unknownProp(unitI, "Id"), unknownProp("", "Id"), "ok {}",
		derr+"UnknownInterface: Unknown interface '"+serviceI+"'.", unknownProp(unitI, "Id")), unknownMethods...)
	badName := func(name string) []string {
		bad := derr + "InvalidArgs: Unit name " + name + " is neither a valid invocation ID nor unit name."
		inval := derr + "InvalidArgs: Invalid argument"
		return each(bad, inval, bad, inval, bad, bad, bad, inval, inval)
	}
	noInv := "org.freedesktop.systemd1.NoUnitForInvocationID: No unit with the specified invocation ID " + invID + " known."
	noent := derr + "FileNotFound: No such file or directory"
	readOnly := derr + "PropertyReadOnly: Property 'Id' is not writable."
	unitAnswers := func(name string, service bool) []string {
		getAllService := "ok"
		if !service {
			getAllService = derr + "UnknownInterface: Unknown interface '" + serviceI + "'."
		}
		return append(each("ok", unknownProp(jobI, "Id"), "ok "+dbus.MakeVariant(name).String(), unknownProp("", "Id"), "ok",
			getAllService, readOnly), unknownMethods...)
	}
	for _, tc := range []struct {
		path dbus.ObjectPath
		want []string
	}{
		{m + "/job/4294967295", all(unknownObject(m + "/job/4294967295"))},
		{m + "/job/0", all(unknownObject(m + "/job/0"))},
		{m + "/job/x", all(unknownObject(m + "/job/x"))},
		{m + "/job/1/x", all(unknownObject(m + "/job/1/x"))},
		{m + "/nope", all(unknownObject(m + "/nope"))},
		{"/", onlyIntrospect("/")},
		{"/org/freedesktop", onlyIntrospect("/org/freedesktop")},
		{m + "/unit", directory},
		{m + "/job", directory},
		{sdbus.UnitPath(nf), unitAnswers(nf, true)},
		{sdbus.UnitPath("-.slice"), unitAnswers("-.slice", false)},
		{m + "/unit/nosuch", badName("nosuch")},
		{sdbus.UnitPath(nf) + "/sub", badName(nf + "/sub")},
		{m + "/unit/" + invID, each(noInv, noent, noInv, noent, noInv, noInv, noInv, noent, noent)},
	} {
		want, got := make([]string, len(calls)), make([]string, len(calls))
		for i, c := range calls {
			want[i] = c.what + ": " + tc.want[i]
			got[i] = c.what + ": " + objectCall(e, raw, tc.path, c.method, c.args...)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("calls on %s (-want +got):\n%s", tc.path, diff)
		}
	}

	// The Unit methods on a unit no file defines, through its path.
	name := e.unit("objects-ref", "service")
	p := sdbus.UnitPath(name)
	unitCall := func(method string, args ...any) string { return objectCall(e, raw, p, unitI+"."+method, args...) }
	getUnit := func() string {
		var q dbus.ObjectPath
		return managerCall(t, e, raw, "GetUnit", []any{&q}, name)
	}
	notLoaded := "org.freedesktop.systemd1.NoSuchUnit: Unit " + name + " not loaded."
	var got []string
	for _, f := range []func() string{
		func() string { return "unref: " + unitCall("Unref") },
		func() string { return "reset-failed: " + unitCall("ResetFailed") },
		func() string { return "kill: " + unitCall("Kill", "all", int32(15)) },
		func() string { return "stop: " + unitCall("Stop", "replace") },
		func() string { return "start: " + unitCall("Start", "replace") },
		func() string { return "GetUnit: " + getUnit() },
		func() string { return "ref: " + unitCall("Ref") },
		func() string { return "GetUnit while referenced: " + getUnit() },
		func() string {
			return "LoadState: " + objectCall(e, raw, p, props+"Get", unitI, "LoadState")
		},
		func() string { return "unref again: " + unitCall("Unref") },
	} {
		got = append(got, f())
	}
	want := []string{
		"unref: org.freedesktop.systemd1.NotReferenced: Unit has not been referenced yet.",
		"reset-failed: ok",
		"kill: ok",
		"stop: " + notLoaded,
		"start: org.freedesktop.systemd1.NoSuchUnit: Unit " + name + " not found.",
		"GetUnit: " + notLoaded,
		"ref: ok",
		"GetUnit while referenced: ok",
		`LoadState: ok "not-found"`,
		"unref again: ok",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unit methods on %s, not found (-want +got):\n%s", name, diff)
	}
	// Once the last reference is gone, the unit is collected.
	if got := getUnit(); got != notLoaded {
		t.Errorf("GetUnit after the last Unref = %s; want %s", got, notLoaded)
	}
}
