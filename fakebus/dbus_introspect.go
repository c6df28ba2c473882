package fakebus

// org.freedesktop.DBus.Introspectable: the introspection XML of every
// object (sd-bus generates it from the vtables).

import (
	"slices"
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
		return []any{m.introspectLocked(c.obj)}, nil
	}},
}, nil)

// introspectLocked returns the introspection XML of object o, as sd-bus
// writes it from the vtables (introspect.c): each interface's properties,
// the methods the played release offers with their arguments, its
// signals, then the child nodes.
func (m *manager) introspectLocked(o *object) string {
	var b strings.Builder
	if m.release.AtLeast(sdversions.R("252")) {
		b.WriteString(introspectHead)
	} else {
		b.WriteString(introspectHead247)
	}
	for _, t := range m.introspectOrderLocked(o) {
		b.WriteString(` <interface name="` + t.name + `">` + "\n")
		m.introspectIfaceLocked(&b, o, t)
		b.WriteString(" </interface>\n")
	}
	for _, n := range m.childrenLocked(o.path) {
		b.WriteString(` <node name="` + n + `"/>` + "\n")
	}
	b.WriteString("</node>\n")
	return b.String()
}

// introspectOrderLocked returns the interfaces of object o but the
// standard ones (introspectHead) in the order the played release
// registers them (ifaceOrderLocked).
func (m *manager) introspectOrderLocked(o *object) []*vtable {
	var ts []*vtable
	for _, t := range o.ifaces {
		if t != propertiesVtable {
			ts = append(ts, t)
		}
	}
	if len(ts) < 2 {
		return ts
	}
	order := m.ifaceOrderLocked(o.captured)
	rank := func(t *vtable) int {
		if i := slices.Index(order, t.name); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(ts, func(a, b *vtable) int { return rank(a) - rank(b) })
	return ts
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

// introspectIfaceLocked writes the members of interface t of object o
// in the order the played release declares them (declaredLocked):
// the methods it offers, from t, with their arguments and annotations;
// the properties it has (the model's, less those it hides from
// introspection, sdversions.Hidden) with their signature, access and
// annotations as declared; the signals, from t. Members of t the
// declarations lack, if any, follow.
func (m *manager) introspectIfaceLocked(b *strings.Builder, o *object, t *vtable) {
	kind := o.captured
	props, _, err := m.objectPropsLocked(o, t.name, "")
	if err != nil {
		props = nil
	}
	done := map[string]bool{}
	method := func(vm *vmethod) {
		done["m "+vm.name] = true
		if !m.offersLocked(t, vm) || m.hiddenMethod(vm.name) && t == managerVtable {
			return
		}
		b.WriteString(`  <method name="` + vm.name + `">` + "\n")
		writeArgs(b, vm.in, vm.inNames, "in")
		writeArgs(b, vm.out, vm.outNames, "out")
		if a := m.annotationLocked(t, vm.name); a != "" {
			b.WriteString(`   <annotation name="` + a + `" value="true"/>` + "\n")
		}
		b.WriteString("  </method>\n")
	}
	signal := func(s vsignal) {
		done["s "+s.name] = true
		b.WriteString(`  <signal name="` + s.name + `">` + "\n")
		writeArgs(b, s.sig, s.names, "")
		b.WriteString("  </signal>\n")
	}
	prop := func(d sdversions.Member) {
		done["p "+d.Name] = true
		v, ok := props[d.Name]
		if !ok || m.hidden(d.Name) {
			return
		}
		access := d.Access
		if access == "" {
			access = "read"
		}
		b.WriteString(`  <property name="` + d.Name + `" type="` + v.Signature().String() + `" access="` + access + `">` + "\n")
		for _, a := range d.Annotations {
			b.WriteString(`   <annotation name="` + a.Name + `" value="` + a.Value + `"/>` + "\n")
		}
		b.WriteString("  </property>\n")
	}
	for _, d := range m.declaredLocked(kind, t.name) {
		switch d.Kind {
		case "method":
			if vm, ok := t.byName[d.Name]; ok {
				method(vm)
			}
		case "property":
			prop(d)
		case "signal":
			for _, s := range t.signals {
				if s.name == d.Name {
					signal(s)
				}
			}
		}
	}
	for i := range t.methods {
		if !done["m "+t.methods[i].name] {
			method(&t.methods[i])
		}
	}
	rest := make([]string, 0, len(props))
	for n := range props {
		if !done["p "+n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	for _, n := range rest {
		prop(sdversions.Member{Kind: "property", Name: n})
	}
	for _, s := range t.signals {
		if !done["s "+s.name] {
			signal(s)
		}
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
		return []string{"LogControl1", "systemd1"}
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
