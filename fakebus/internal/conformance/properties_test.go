package conformance

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// Properties.Get, GetAll and Set answer what sd-bus answers for an
// unknown interface or property, a read-only property and a value of the
// wrong type; the Manager's LogLevel takes a level by name or number and
// refuses an unknown one; /org/freedesktop/LogControl1 shows the same
// level, and its SyslogIdentifier is read-only. The level is restored.
func testPropertiesGetSet(t *testing.T, e *env) {
	raw := e.rawBus(t)
	mgr := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1")
	logc := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/LogControl1")
	slice := raw.Object("org.freedesktop.systemd1", sdbus.UnitPath("-.slice"))
	const (
		mi    = "org.freedesktop.systemd1.Manager"
		props = "org.freedesktop.DBus.Properties."
		derr  = "org.freedesktop.DBus.Error."
	)
	answer := func(obj dbus.BusObject, method string, args ...any) string {
		return objectCall(e, raw, obj.Path(), props+method, args...)
	}
	var lv dbus.Variant
	if err := mgr.CallWithContext(e.ctx, props+"Get", 0, mi, "LogLevel").Store(&lv); err != nil {
		t.Fatal(err)
	}
	level, _ := lv.Value().(string)
	t.Cleanup(func() { answer(mgr, "Set", mi, "LogLevel", dbus.MakeVariant(level)) })
	type step struct {
		what string
		obj  dbus.BusObject
		call string
		args []any
	}
	steps := []step{
		{"get empty name", mgr, "Get", []any{mi, ""}},
		{"get unknown name", mgr, "Get", []any{mi, "NoSuchProperty"}},
		{"get empty interface", mgr, "Get", []any{"", "Version"}},
		{"get unknown interface", mgr, "Get", []any{"org.example.None", "Version"}},
		{"getall unknown interface", mgr, "GetAll", []any{"org.example.None"}},
		{"unit get unknown name", slice, "Get", []any{"org.freedesktop.systemd1.Unit", "NoSuchProperty"}},
		{"unit get other type's", slice, "Get", []any{"org.freedesktop.systemd1.Service", "Id"}},
		{"set read-only", mgr, "Set", []any{mi, "Version", dbus.MakeVariant("x")}},
		{"set unknown", mgr, "Set", []any{mi, "NoSuchProperty", dbus.MakeVariant("x")}},
		{"unit set", slice, "Set", []any{"org.freedesktop.systemd1.Unit", "Id", dbus.MakeVariant("x")}},
		{"set log level wrong type", mgr, "Set", []any{mi, "LogLevel", dbus.MakeVariant(uint32(3))}},
		{"set log level unknown", mgr, "Set", []any{mi, "LogLevel", dbus.MakeVariant("bogus")}},
		{"set log target unknown", mgr, "Set", []any{mi, "LogTarget", dbus.MakeVariant("bogus")}},
		{"set log level by number", mgr, "Set", []any{mi, "LogLevel", dbus.MakeVariant("7")}},
		{"get log level", mgr, "Get", []any{mi, "LogLevel"}},
		{"log control's level", logc, "Get", []any{"org.freedesktop.LogControl1", "LogLevel"}},
		{"log control's identifier", logc, "Get", []any{"org.freedesktop.LogControl1", "SyslogIdentifier"}},
		{"set log control's identifier", logc, "Set", []any{"org.freedesktop.LogControl1", "SyslogIdentifier", dbus.MakeVariant("x")}},
		{"set log control's level", logc, "Set", []any{"org.freedesktop.LogControl1", "LogLevel", dbus.MakeVariant("notice")}},
		{"manager's level after", mgr, "Get", []any{mi, "LogLevel"}},
	}
	want := []string{
		derr + "UnknownProperty: Unknown interface " + mi + " or property .",
		derr + "UnknownProperty: Unknown interface " + mi + " or property NoSuchProperty.",
		derr + "UnknownProperty: Unknown interface  or property Version.",
		derr + "UnknownProperty: Unknown interface org.example.None or property Version.",
		derr + "UnknownInterface: Unknown interface 'org.example.None'.",
		derr + "UnknownProperty: Unknown interface org.freedesktop.systemd1.Unit or property NoSuchProperty.",
		derr + "UnknownProperty: Unknown interface org.freedesktop.systemd1.Service or property Id.",
		derr + "PropertyReadOnly: Property 'Version' is not writable.",
		derr + "UnknownProperty: Unknown interface " + mi + " or property NoSuchProperty.",
		derr + "PropertyReadOnly: Property 'Id' is not writable.",
		derr + "InvalidArgs: Incorrect parameters for property 'LogLevel', expected 's', got 'u'.",
		derr + "InvalidArgs: Invalid log level 'bogus'",
		derr + "InvalidArgs: Invalid log target 'bogus'",
		"ok",
		`ok "debug"`,
		`ok "debug"`,
		`ok "systemd"`,
		derr + "PropertyReadOnly: Property 'SyslogIdentifier' is not writable.",
		"ok",
		`ok "notice"`,
	}
	var got []string
	for _, s := range steps {
		got = append(got, answer(s.obj, s.call, s.args...))
	}
	var names []string
	for _, s := range steps {
		names = append(names, s.what)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers to %q (-want +got):\n%s", names, diff)
	}
}
