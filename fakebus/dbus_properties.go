package fakebus

import (
	"maps"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

func errUnknownProperty() *callErr {
	return &callErr{dbusErr + "UnknownProperty", "Unknown property or interface."}
}

// propertiesVtable is org.freedesktop.DBus.Properties, which sd-bus
// answers for every object from its vtables.
var propertiesVtable = newVtable(propsIface, []vmethod{
	{"Get", "ss", "v", "interface_name,property_name", "value", (*manager).propertiesCall},
	{"GetAll", "s", "a{sv}", "interface_name", "props", (*manager).propertiesCall},
	{"Set", "ssv", "", "interface_name,property_name,value", "", (*manager).propertiesCall},
}, []vsignal{
	{"PropertiesChanged", "sa{sv}as", "interface_name,changed_properties,invalidated_properties"},
})

// propertiesCall answers org.freedesktop.DBus.Properties. GetAll with
// the empty interface name answers the properties of all the object's
// interfaces, as sd-bus does.
func (m *manager) propertiesCall(c *call) ([]any, error) {
	switch c.Member {
	case "Get":
		iface := c.Body[0].(string)
		if iface == "" {
			return nil, errUnknownProperty()
		}
		props, err := m.objectPropsLocked(c.Path, iface)
		if err != nil {
			return nil, err
		}
		v, ok := props[c.Body[1].(string)]
		if !ok {
			return nil, errUnknownProperty()
		}
		return []any{v}, nil
	case "GetAll":
		props, err := m.objectPropsLocked(c.Path, c.Body[0].(string))
		if err != nil {
			return nil, err
		}
		for name := range props {
			if m.hidden(name) {
				delete(props, name) // Get still answers it
			}
		}
		return []any{props}, nil
	case "Set":
		return nil, &callErr{dbusErr + "PropertyReadOnly", "Property '" + c.Body[1].(string) + "' is not writable."}
	}
	return nil, errUnknownMethod(c.Call)
}

// objectPropsLocked returns the properties of one interface of an object,
// or, for iface "", of all its interfaces.
func (m *manager) objectPropsLocked(p dbus.ObjectPath, iface string) (map[string]dbus.Variant, error) {
	switch {
	case p == managerPath:
		if iface != managerIface && iface != "" {
			return nil, errUnknownProperty()
		}
		props := m.readPropsLocked(nil, managerIface, m.managerPropsLocked())
		for name, v := range m.measuredManagerPropsLocked() {
			if _, ok := props[name]; !ok {
				props[name] = v
			}
		}
		return props, nil
	case strings.HasPrefix(string(p), jobPathBase):
		j, ok := m.jobs[jobIDOf(p)]
		if !ok {
			return nil, &callErr{dbusErr + "UnknownObject", "Unknown object '" + string(p) + "'."}
		}
		if iface != jobIface && iface != "" {
			return nil, errUnknownProperty()
		}
		return map[string]dbus.Variant{
			"Id": dbus.MakeVariant(j.id),
			"Unit": dbus.MakeVariant(struct {
				Name string
				Path dbus.ObjectPath
			}{j.unit.name, j.unit.path()}),
			"JobType": dbus.MakeVariant(string(j.typ)),
			"State":   dbus.MakeVariant(j.state),
		}, nil
	}
	name, err := sdbus.UnitNameFromPath(p)
	if u := m.unitByInvocationPathLocked(p); u != nil {
		name, err = u.name, nil // a unit's object by its invocation ID
	}
	if err != nil {
		return nil, &callErr{dbusErr + "UnknownObject", "Unknown object '" + string(p) + "'."}
	}
	// Reading a unit's properties loads it; a unit without a file shows
	// up as not-found (and is collected again). systemd collects a unit
	// loaded this way soon after; the fake does it once it has answered.
	_, loaded := m.units[m.primaryLocked(name)]
	u := m.loadLocked(name)
	if u != nil && !loaded {
		defer m.collectLocked(u)
	}
	if u == nil {
		if sdbus.ValidateUnitName(name) != nil {
			return nil, &callErr{dbusErr + "UnknownObject", "Unknown object '" + string(p) + "'."}
		}
		u = &unit{name: name, kind: name[strings.LastIndexByte(name, '.')+1:], load: "not-found",
			active: "inactive", sub: "dead", props: map[string]dbus.Variant{}, condition: true, assert: true}
	}
	switch iface {
	case "":
		props := m.readPropsLocked(u, unitIface, m.unitPropsLocked(u))
		if t := typeIface(u.kind); t != "" {
			maps.Copy(props, m.readPropsLocked(u, t, m.typePropsLocked(u)))
		}
		return props, nil
	case unitIface:
		return m.readPropsLocked(u, iface, m.unitPropsLocked(u)), nil
	case typeIface(u.kind):
		return m.readPropsLocked(u, iface, m.typePropsLocked(u)), nil
	}
	return nil, errUnknownProperty()
}

// readPropsLocked adds the properties programs read for status and
// install state to the properties of one interface: u is nil for the
// manager. Types are systemd 252's.
func (m *manager) readPropsLocked(u *unit, iface string, props map[string]dbus.Variant) map[string]dbus.Variant {
	switch {
	case u == nil:
		props["DefaultStandardOutput"] = dbus.MakeVariant("journal")
		props["DefaultStandardError"] = dbus.MakeVariant("inherit")
		props["LogLevel"] = dbus.MakeVariant("info")
		props["LogTarget"] = dbus.MakeVariant("journal-or-kmsg")
		props["Environment"] = dbus.MakeVariant(append([]string{}, m.environment...))
		props["UserspaceTimestamp"] = dbus.MakeVariant(usec(m.started))
		props["FinishTimestamp"] = dbus.MakeVariant(usec(m.started))
	case iface == unitIface:
		state := ""
		switch {
		case u.load == "masked" || u.masked:
			state = "masked"
		case u.transient:
			state = "transient"
		case u.fromFile:
			state = "static"
		}
		props["UnitFileState"] = dbus.MakeVariant(state)
		props["SourcePath"] = dbus.MakeVariant("")
		props["TriggeredBy"] = dbus.MakeVariant([]string{})
	case u.kind == "service":
		props["ExecMainPID"] = dbus.MakeVariant(u.exec.pid)
		props["ExecMainCode"] = dbus.MakeVariant(u.exec.code)
		props["ExecMainStatus"] = dbus.MakeVariant(u.exec.status)
		props["ExecMainStartTimestamp"] = dbus.MakeVariant(usec(u.exec.start))
		props["ExecMainExitTimestamp"] = dbus.MakeVariant(usec(u.exec.exit))
	}
	return props
}
