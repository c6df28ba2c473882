package fakebus

// org.freedesktop.DBus.Introspectable: the introspection XML of every
// object (sd-bus generates it from the vtables).

import (
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// introspectLocked returns the introspection XML of an object: the
// Manager interface's methods (as far as the modelled release has them)
// for the manager, the standard interfaces for everything.
func (m *manager) introspectLocked(p dbus.ObjectPath) string {
	var b strings.Builder
	b.WriteString(introspectHead)
	if p == managerPath {
		b.WriteString(` <interface name="org.freedesktop.systemd1.Manager">` + "\n")
		names := append(append([]string{}, managerMethods...), versionedMethods...)
		sort.Strings(names[len(managerMethods):])
		for _, name := range names {
			if m.has(name) {
				b.WriteString(`  <method name="` + name + `"/>` + "\n")
			}
		}
		b.WriteString(` </interface>` + "\n")
	}
	if name, err := sdbus.UnitNameFromPath(p); err == nil && p != managerPath {
		// A unit: its Unit and type interfaces with their properties, as
		// far as the release shows them (sdversions.Hidden).
		kind := name[strings.LastIndexByte(name, '.')+1:]
		for _, iface := range []string{unitIface, typeIface(kind)} {
			if iface == "" {
				continue
			}
			props, err := m.objectPropsLocked(p, iface)
			if err != nil {
				continue
			}
			names := make([]string, 0, len(props))
			for n := range props {
				if !m.hidden(n) {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			b.WriteString(` <interface name="` + iface + `">` + "\n")
			for _, n := range names {
				b.WriteString(`  <property name="` + n + `" type="` + props[n].Signature().String() + `" access="read"/>` + "\n")
			}
			b.WriteString(` </interface>` + "\n")
		}
	}
	b.WriteString("</node>\n")
	return b.String()
}

const introspectHead = `<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
 <interface name="org.freedesktop.DBus.Peer"><method name="Ping"/><method name="GetMachineId"><arg type="s" name="machine_uuid" direction="out"/></method></interface>
 <interface name="org.freedesktop.DBus.Introspectable"><method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method></interface>
 <interface name="org.freedesktop.DBus.Properties"><method name="Get"><arg name="interface_name" direction="in" type="s"/><arg name="property_name" direction="in" type="s"/><arg name="value" direction="out" type="v"/></method><method name="GetAll"><arg name="interface_name" direction="in" type="s"/><arg name="props" direction="out" type="a{sv}"/></method></interface>
`
