package fakebus

// The org.freedesktop.systemd1.Scope interface's methods and signal
// (systemd's src/core/dbus-scope.c), each method answered as the Manager
// method it stands for. Its properties are in dbus_unit_type.go.

var scopeVtable = newRoutedVtable("org.freedesktop.systemd1.Scope", map[string]string{
	"Abandon": "AbandonScope", "GetProcesses": "GetUnitProcesses",
	"AttachProcesses": "AttachProcessesToUnit", "RemoveSubgroup": "RemoveSubgroupFromUnit",
}, []vmethod{
	{"Abandon", "", "", "", "", nil},
	{"GetProcesses", "", "a(sus)", "", "processes", nil},
	{"AttachProcesses", "sau", "", "subcgroup,pids", "", nil},
	{"RemoveSubgroup", "st", "", "subcgroup,flags", "", nil},
}, []vsignal{
	{"RequestStop", "", ""},
})
