package fakebus

import "maps"

// The org.freedesktop.systemd1.Service interface's methods (systemd's
// src/core/dbus-service.c), each answered as the Manager method it stands
// for. Its properties are in dbus_unit_type.go.

var serviceVtable = newRoutedVtable("org.freedesktop.systemd1.Service", withCgroupStands(map[string]string{
	"BindMount": "BindMountUnit", "MountImage": "MountImageUnit",
	"DumpFileDescriptorStore": "DumpUnitFileDescriptorStore",
}), nil, append([]vmethod{
	{"BindMount", "ssbb", "", "source,destination,read_only,mkdir", "", nil},
	{"MountImage", "ssbba(ss)", "", "source,destination,read_only,mkdir,options", "", nil},
	{"DumpFileDescriptorStore", "", "a(suuutuusu)", "", "entries", nil},
}, cgroupMethods()...), nil)

// withCgroupStands adds cgroupStands to a type's own methods.
func withCgroupStands(own map[string]string) map[string]string {
	out := maps.Clone(cgroupStands)
	maps.Copy(out, own)
	return out
}
