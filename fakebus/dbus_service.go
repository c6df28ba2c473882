package fakebus

// The org.freedesktop.systemd1.Service interface's methods (systemd's
// src/core/dbus-service.c), each answered as the Manager method it stands
// for. Its properties are in dbus_unit_type.go.

var serviceVtable = newRoutedVtable("org.freedesktop.systemd1.Service", map[string]string{
	"BindMount": "BindMountUnit", "MountImage": "MountImageUnit",
	"DumpFileDescriptorStore": "DumpUnitFileDescriptorStore", "GetProcesses": "GetUnitProcesses",
	"AttachProcesses": "AttachProcessesToUnit", "RemoveSubgroup": "RemoveSubgroupFromUnit",
}, []vmethod{
	{"BindMount", "ssbb", "", "source,destination,read_only,mkdir", "", nil},
	{"MountImage", "ssbba(ss)", "", "source,destination,read_only,mkdir,options", "", nil},
	{"DumpFileDescriptorStore", "", "a(suuutuusu)", "", "entries", nil},
	{"GetProcesses", "", "a(sus)", "", "processes", nil},
	{"AttachProcesses", "sau", "", "subcgroup,pids", "", nil},
	{"RemoveSubgroup", "st", "", "subcgroup,flags", "", nil},
}, nil)
