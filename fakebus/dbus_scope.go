package fakebus

// The org.freedesktop.systemd1.Scope interface's methods and signal
// (systemd's src/core/dbus-scope.c), each method answered as the Manager
// method it stands for. Its properties are in dbus_unit_type.go.

var scopeVtable = newRoutedVtable("org.freedesktop.systemd1.Scope", withCgroupStands(map[string]string{
	"Abandon": "AbandonScope",
}), nil, append([]vmethod{
	{"Abandon", "", "", "", "", nil},
}, cgroupMethods()...), []vsignal{
	{"RequestStop", "", ""},
})
