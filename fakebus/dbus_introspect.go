package fakebus

// org.freedesktop.DBus.Introspectable: the introspection XML of every
// object (sd-bus generates it from the vtables).

import (
	"sort"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// introspectableVtable is org.freedesktop.DBus.Introspectable.
var introspectableVtable = newVtable("org.freedesktop.DBus.Introspectable", []vmethod{
	{"Introspect", "", "s", "", "xml_data", func(m *manager, c *call) ([]any, error) {
		return []any{m.introspectLocked(c.Path)}, nil
	}},
}, nil)

// introspectLocked returns the introspection XML of the object at p, as
// sd-bus writes it from the vtables (introspect.c): each interface's
// properties, the methods the played release offers with their
// arguments, its signals, then the child nodes.
func (m *manager) introspectLocked(p dbus.ObjectPath) string {
	var b strings.Builder
	if m.release.AtLeast(sdversions.R("252")) {
		b.WriteString(introspectHead)
	} else {
		b.WriteString(introspectHead247)
	}
	for _, t := range m.interfacesLocked(p) {
		if t == propertiesVtable {
			continue // in introspectHead
		}
		b.WriteString(` <interface name="` + t.name + `">` + "\n")
		m.introspectPropsLocked(&b, p, t.name)
		for i := range t.methods {
			vm := &t.methods[i]
			if !m.offersLocked(t, vm) || m.hiddenMethod(vm.name) && t == managerVtable {
				continue
			}
			b.WriteString(`  <method name="` + vm.name + `">` + "\n")
			writeArgs(&b, vm.in, vm.inNames, "in")
			writeArgs(&b, vm.out, vm.outNames, "out")
			if a := m.annotationLocked(t, vm.name); a != "" {
				b.WriteString(`   <annotation name="` + a + `" value="true"/>` + "\n")
			}
			b.WriteString("  </method>\n")
		}
		for _, s := range t.signals {
			b.WriteString(`  <signal name="` + s.name + `">` + "\n")
			writeArgs(&b, s.sig, s.names, "")
			b.WriteString("  </signal>\n")
		}
		b.WriteString(" </interface>\n")
	}
	for _, n := range m.childrenLocked(p) {
		b.WriteString(` <node name="` + n + `"/>` + "\n")
	}
	b.WriteString("</node>\n")
	return b.String()
}

// annotationLocked returns the annotation of method name of t in the
// played release. Before 252 (measured on 247) Reexecute had no NoReply
// annotation and SetShowStatus was Privileged.
func (m *manager) annotationLocked(t *vtable, name string) string {
	if t == managerVtable && !m.release.AtLeast(sdversions.R("252")) {
		switch name {
		case "Reexecute":
			return ""
		case "SetShowStatus":
			return privileged
		}
	}
	return t.annotations[name]
}

// writeArgs writes the <arg> elements of a signature; dir is "" for a
// signal's.
func writeArgs(b *strings.Builder, sig, argNames, dir string) {
	ns := names(argNames)
	for i, t := range busd.SplitSignature(sig) {
		b.WriteString(`   <arg type="` + t + `" name="` + ns[i] + `"`)
		if dir != "" {
			b.WriteString(` direction="` + dir + `"`)
		}
		b.WriteString("/>\n")
	}
}

// introspectPropsLocked writes the properties of interface iface of the
// object at p, as far as the release shows them (sdversions.Hidden).
func (m *manager) introspectPropsLocked(b *strings.Builder, p dbus.ObjectPath, iface string) {
	props, err := m.objectPropsLocked(p, iface)
	if err != nil {
		return
	}
	names := make([]string, 0, len(props))
	for n := range props {
		if !m.hidden(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(`  <property name="` + n + `" type="` + props[n].Signature().String() + `" access="read">` + "\n  </property>\n")
	}
}

// childrenLocked returns the names of the child nodes of p (sd-bus's
// node enumerators), which busctl tree follows.
func (m *manager) childrenLocked(p dbus.ObjectPath) []string {
	switch p {
	case "/":
		return []string{"org"}
	case "/org":
		return []string{"freedesktop"}
	case "/org/freedesktop":
		return []string{"systemd1"}
	case managerPath:
		return []string{"unit", "job"}
	case managerPath + "/unit":
		var out []string
		for _, u := range m.sortedUnitsLocked() {
			out = append(out, strings.TrimPrefix(string(u.path()), unitPathBase))
		}
		return out
	case managerPath + "/job":
		ids := make([]int, 0, len(m.jobs))
		for id := range m.jobs {
			ids = append(ids, int(id))
		}
		sort.Ints(ids)
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = strconv.Itoa(id)
		}
		return out
	}
	return nil
}

// introspectHead is sd-bus's fixed text for the standard interfaces
// (systemd 252 to 262; 247's names some arguments differently).
const introspectHead = `<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"https://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
 <interface name="org.freedesktop.DBus.Peer">
  <method name="Ping"/>
  <method name="GetMachineId">
   <arg type="s" name="machine_uuid" direction="out"/>
  </method>
 </interface>
 <interface name="org.freedesktop.DBus.Introspectable">
  <method name="Introspect">
   <arg name="xml_data" type="s" direction="out"/>
  </method>
 </interface>
 <interface name="org.freedesktop.DBus.Properties">
  <method name="Get">
   <arg name="interface_name" direction="in" type="s"/>
   <arg name="property_name" direction="in" type="s"/>
   <arg name="value" direction="out" type="v"/>
  </method>
  <method name="GetAll">
   <arg name="interface_name" direction="in" type="s"/>
   <arg name="props" direction="out" type="a{sv}"/>
  </method>
  <method name="Set">
   <arg name="interface_name" direction="in" type="s"/>
   <arg name="property_name" direction="in" type="s"/>
   <arg name="value" direction="in" type="v"/>
  </method>
  <signal name="PropertiesChanged">
   <arg type="s" name="interface_name"/>
   <arg type="a{sv}" name="changed_properties"/>
   <arg type="as" name="invalidated_properties"/>
  </signal>
 </interface>
`

// introspectHead247 is introspectHead as sd-bus wrote it before 252
// (measured on 247).
const introspectHead247 = `<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
 <interface name="org.freedesktop.DBus.Peer">
  <method name="Ping"/>
  <method name="GetMachineId">
   <arg type="s" name="machine_uuid" direction="out"/>
  </method>
 </interface>
 <interface name="org.freedesktop.DBus.Introspectable">
  <method name="Introspect">
   <arg name="data" type="s" direction="out"/>
  </method>
 </interface>
 <interface name="org.freedesktop.DBus.Properties">
  <method name="Get">
   <arg name="interface" direction="in" type="s"/>
   <arg name="property" direction="in" type="s"/>
   <arg name="value" direction="out" type="v"/>
  </method>
  <method name="GetAll">
   <arg name="interface" direction="in" type="s"/>
   <arg name="properties" direction="out" type="a{sv}"/>
  </method>
  <method name="Set">
   <arg name="interface" direction="in" type="s"/>
   <arg name="property" direction="in" type="s"/>
   <arg name="value" direction="in" type="v"/>
  </method>
  <signal name="PropertiesChanged">
   <arg type="s" name="interface"/>
   <arg type="a{sv}" name="changed_properties"/>
   <arg type="as" name="invalidated_properties"/>
  </signal>
 </interface>
`
