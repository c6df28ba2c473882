package fakebus

// The org.freedesktop.LogControl1 object of systemd
// (src/shared/bus-log-control-api.c): the manager's log level and target
// (the same as the Manager's LogLevel and LogTarget; a Set of either
// changes both), and its syslog identifier.

import (
	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

const (
	logControlPath  = dbus.ObjectPath("/org/freedesktop/LogControl1")
	logControlIface = "org.freedesktop.LogControl1"
)

// logControlVtable is org.freedesktop.LogControl1: properties only.
var logControlVtable = newVtable(logControlIface, nil, nil)

// logControlMembers are its properties as systemd declares them (the
// same on 247, 252 and 262, measured; not in the captured data).
var logControlMembers = func() []sdversions.Member {
	emitsFalse := introspect.Annotation{Name: "org.freedesktop.DBus.Property.EmitsChangedSignal", Value: "false"}
	priv := introspect.Annotation{Name: privileged, Value: "true"}
	return []sdversions.Member{
		{Kind: "property", Name: "LogLevel", Type: "s", Access: "readwrite", Annotations: []introspect.Annotation{emitsFalse, priv}},
		{Kind: "property", Name: "LogTarget", Type: "s", Access: "readwrite", Annotations: []introspect.Annotation{emitsFalse, priv}},
		{Kind: "property", Name: "SyslogIdentifier", Type: "s", Access: "read", Annotations: []introspect.Annotation{emitsFalse}},
	}
}()

// logControlPropsLocked returns the properties of the LogControl1 object:
// the Manager's log level and target, and systemd's syslog identifier.
func (m *manager) logControlPropsLocked() map[string]dbus.Variant {
	mp := m.managerAllPropsLocked()
	return map[string]dbus.Variant{
		"LogLevel":         mp["LogLevel"],
		"LogTarget":        mp["LogTarget"],
		"SyslogIdentifier": dbus.MakeVariant("systemd"),
	}
}
