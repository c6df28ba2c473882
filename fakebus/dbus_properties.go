package fakebus

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
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
		for name, v := range m.measuredPropsLocked("manager", managerIface) {
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
		props := map[string]dbus.Variant{
			"Id": dbus.MakeVariant(j.id),
			"Unit": dbus.MakeVariant(struct {
				Name string
				Path dbus.ObjectPath
			}{j.unit.name, j.unit.path()}),
			"JobType": dbus.MakeVariant(string(j.typ)),
			"State":   dbus.MakeVariant(j.state),
		}
		for name, v := range m.measuredPropsLocked("job", jobIface) {
			if _, ok := props[name]; !ok {
				props[name] = v
			}
		}
		return props, nil
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
		props := m.withMeasuredLocked(u, unitIface, m.readPropsLocked(u, unitIface, m.unitPropsLocked(u)))
		if t := typeIface(u.kind); t != "" {
			maps.Copy(props, m.withMeasuredLocked(u, t, m.readPropsLocked(u, t, m.typePropsLocked(u))))
		}
		return props, nil
	case unitIface:
		return m.withMeasuredLocked(u, iface, m.readPropsLocked(u, iface, m.unitPropsLocked(u))), nil
	case typeIface(u.kind):
		return m.withMeasuredLocked(u, iface, m.readPropsLocked(u, iface, m.typePropsLocked(u))), nil
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
		props["UnitFileState"] = dbus.MakeVariant(m.unitFileStatePropLocked(u))
		props["UnitFilePreset"] = dbus.MakeVariant(m.unitFilePresetLocked(u))
		props["DropInPaths"] = dbus.MakeVariant(append([]string{}, u.dropIns...))
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

// measuredPropsLocked returns the properties of interface iface of the
// object of a captured kind ("manager", "service-file", "socket", "job",
// ...) on the captured release nearest the played one
// (sdversions.CapturedObject), for those the fake does not model: a value
// that is the same on every boot as measured; one that varies
// (timestamps, PIDs, counts, what the host decides) or that names the
// captured unit itself (its name, paths, listen addresses, commands) as
// systemd's "never": zero, "", "/", empty; usage counters (CPU, memory,
// IO, IP, tasks) as its "not measured", infinity, as on a unit that never
// ran.
func (m *manager) measuredPropsLocked(kind, iface string) map[string]dbus.Variant {
	if m.measuredFor != m.release {
		m.measured, m.measuredFor = nil, m.release
	}
	key := kind + " " + iface
	if out, ok := m.measured[key]; ok {
		return out
	}
	// The captured release nearest the played one may have properties
	// the played one lacks (235 takes 247's capture): the release table
	// decides which exist.
	unitKind := strings.TrimSuffix(kind, "-file")
	if kind == "manager" {
		unitKind = ""
	}
	out := map[string]dbus.Variant{}
	if o, err := sdversions.CapturedObject(m.release, kind); err == nil {
		for _, p := range append(o.Properties, o.GetOnly...) {
			if p.Interface != iface || (kind != "job" && !m.hasFor(p.Name, unitKind)) {
				continue
			}
			switch {
			case p.Varies == "usage" && p.Type == "t":
				// Counters read as systemd's "not measured" (a unit
				// that never ran shows it; systemctl prints nothing).
				p.Value = json.RawMessage("18446744073709551615")
			case p.Varies != "" || (o.Unit != "" && ownsValue(p)):
				p.Value = json.RawMessage(neverJSON(p.Type))
			}
			if v, err := p.Variant(); err == nil {
				out[p.Name] = v
			}
		}
	}
	if m.measured == nil {
		m.measured = map[string]map[string]dbus.Variant{}
	}
	m.measured[key] = out
	return out
}

// ownsValue reports whether a captured unit property's value is the
// captured unit's own (its name or paths, which the capture made
// "capture..."; the commands it was given), not a default of its type.
func ownsValue(p sdversions.Prop) bool {
	if strings.Contains(string(p.Value), "capture") {
		return true
	}
	return strings.HasPrefix(p.Name, "Exec") && strings.HasPrefix(p.Type, "a(sas")
}

// capturedKind is the captured object (sdversions data) whose measured
// values a unit takes for what the fake does not model: a service loaded
// from a file that never ran for services from files, the transient one
// for transient services, the unit of the same type for the others.
func capturedKind(u *unit) string {
	if u.kind == "service" && !u.transient {
		return "service-file"
	}
	return u.kind
}

// withMeasuredLocked adds to props, the properties of interface iface the
// fake models for u, the ones it does not: as the unit's settings give
// them (unit file, transient or runtime properties) where they carry the
// release's type, else as measured (measuredPropsLocked).
func (m *manager) withMeasuredLocked(u *unit, iface string, props map[string]dbus.Variant) map[string]dbus.Variant {
	for name, v := range m.measuredPropsLocked(capturedKind(u), iface) {
		if _, ok := props[name]; ok {
			continue
		}
		if own, ok := u.props[name]; ok && own.Signature() == v.Signature() {
			v = own
		} else if strings.HasPrefix(name, "Exec") {
			// ExecStartEx and the like show the commands of ExecStart.
			if own, ok := u.props[strings.TrimSuffix(name, "Ex")]; ok {
				if cmds, ok := execProp(own, v.Signature().String()); ok {
					v = cmds
				}
			}
		}
		props[name] = v
	}
	return props
}

// execProp turns the commands of an Exec* setting (a(sasb), as unit files
// and StartTransientUnit give them) into the property systemd answers for
// a unit that has not run them: a(sasbttttuii), or, for the Ex forms,
// a(sasasttttuii) with "ignore-failure" for a "-" prefix.
func execProp(setting dbus.Variant, sig string) (dbus.Variant, bool) {
	var cmds []execCommand
	if setting.Signature().String() != "a(sasb)" || dbus.Store([]any{setting.Value()}, &cmds) != nil {
		return dbus.Variant{}, false
	}
	switch sig {
	case "a(sasbttttuii)":
		out := make([]struct {
			Path                                 string
			Argv                                 []string
			IgnoreFailure                        bool
			StartRT, StartMono, ExitRT, ExitMono uint64
			PID                                  uint32
			Code, Status                         int32
		}, len(cmds))
		for i, c := range cmds {
			out[i].Path, out[i].Argv, out[i].IgnoreFailure = c.Path, c.Argv, c.IgnoreFailure
		}
		return dbus.MakeVariant(out), true
	case "a(sasasttttuii)":
		out := make([]struct {
			Path                                 string
			Argv                                 []string
			Flags                                []string
			StartRT, StartMono, ExitRT, ExitMono uint64
			PID                                  uint32
			Code, Status                         int32
		}, len(cmds))
		for i, c := range cmds {
			out[i].Path, out[i].Argv, out[i].Flags = c.Path, c.Argv, []string{}
			if c.IgnoreFailure {
				out[i].Flags = []string{"ignore-failure"}
			}
		}
		return dbus.MakeVariant(out), true
	}
	return dbus.Variant{}, false
}

// neverJSON is the JSON form (sdversions.Prop) of the "never" value of a
// D-Bus type.
func neverJSON(sig string) string {
	switch sig[0] {
	case 'a':
		return "[]"
	case 's', 'g':
		return `""`
	case 'o':
		return `"/"`
	case 'b':
		return "false"
	case 'v':
		return `{"type":"s","data":""}`
	case '(':
		parts := busd.SplitSignature(sig[1 : len(sig)-1])
		for i, p := range parts {
			parts[i] = neverJSON(p)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "0"
}
