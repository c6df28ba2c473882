package fakebus

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// errUnknownProperty is sd-bus's answer to Get or Set of a property the
// interface lacks, or of an interface the object lacks (measured on 252).
func errUnknownProperty(iface, name string) *callErr {
	return &callErr{dbusErr + "UnknownProperty", "Unknown interface " + iface + " or property " + name + "."}
}

// errNoInterface is objectPropsLocked's answer for an interface the
// object lacks; propertyLocked and propertiesGetAll word it as sd-bus
// does.
var errNoInterface = &callErr{dbusErr + "UnknownInterface", ""}

// propertiesVtable is org.freedesktop.DBus.Properties, which sd-bus
// answers for every object from its vtables.
var propertiesVtable = newVtable(propsIface, []vmethod{
	{"Get", "ss", "v", "interface_name,property_name", "value", (*manager).propertiesGet},
	{"GetAll", "s", "a{sv}", "interface_name", "props", (*manager).propertiesGetAll},
	{"Set", "ssv", "", "interface_name,property_name,value", "", (*manager).propertiesSet},
}, []vsignal{
	{"PropertiesChanged", "sa{sv}as", "interface_name,changed_properties,invalidated_properties"},
})

// The handlers of org.freedesktop.DBus.Properties answer as sd-bus does
// (measured on 252): Get and Set of an unknown interface or property
// answer UnknownProperty, GetAll of an interface the object lacks
// UnknownInterface; GetAll answers in the order systemd declares the
// properties, and with the empty interface name the properties of all
// the object's interfaces (a unit's type's, then Unit's).

// propertyLocked finds the property a Get or Set names: its value, and
// the unit the object is (nil for another object).
func (m *manager) propertyLocked(c *call) (u *unit, v dbus.Variant, err error) {
	iface, name := c.Body[0].(string), c.Body[1].(string)
	if iface == "" {
		return nil, v, errUnknownProperty(iface, name)
	}
	props, u, err := m.objectPropsLocked(c.obj, iface, name)
	if err == errNoInterface {
		return nil, v, errUnknownProperty(iface, name)
	} else if err != nil {
		return nil, v, err
	}
	v, ok := props[name]
	if !ok {
		return nil, v, errUnknownProperty(iface, name)
	}
	return u, v, nil
}

// propertiesGet is Properties.Get. A Get of UnitFileState fixes it (as
// systemd computes it once, when read); a Set of it does not.
func (m *manager) propertiesGet(c *call) ([]any, error) {
	u, v, err := m.propertyLocked(c)
	if err != nil {
		return nil, err
	}
	if c.Body[1].(string) == "UnitFileState" && u != nil {
		m.unitFileStateReadLocked(u)
	}
	return []any{v}, nil
}

// propertiesSet is Properties.Set, of the properties systemd lets a
// client write (setLocked).
func (m *manager) propertiesSet(c *call) ([]any, error) {
	_, v, err := m.propertyLocked(c)
	if err != nil {
		return nil, err
	}
	iface, name := c.Body[0].(string), c.Body[1].(string)
	if err := m.setLocked(c.obj.captured, iface, name, v, c.Body[2].(dbus.Variant)); err != nil {
		return nil, err
	}
	return []any{}, nil
}

// propertiesGetAll is Properties.GetAll: the properties of one interface,
// or with "" of all the object's interfaces, in systemd's order, without
// those GetAll hides on the played release (Get still answers them).
func (m *manager) propertiesGetAll(c *call) ([]any, error) {
	iface := c.Body[0].(string)
	kind := c.obj.captured
	props, u, err := m.objectPropsLocked(c.obj, iface, "")
	if err == errNoInterface {
		return nil, &callErr{dbusErr + "UnknownInterface", "Unknown interface '" + iface + "'."}
	} else if err != nil {
		return nil, err
	}
	if _, ok := props["UnitFileState"]; ok && u != nil {
		m.unitFileStateReadLocked(u)
	}
	for name := range props {
		if m.hidden(name) {
			delete(props, name)
		}
	}
	ifaces := []string{iface}
	if iface == "" {
		ifaces = m.propIfacesLocked(kind)
	}
	return []any{m.orderLocked(kind, ifaces, props)}, nil
}

// propIfacesLocked returns the interfaces with properties of an object
// of a captured kind, in the order GetAll("") answers them: the order the
// played release registers them (ifaceOrderLocked; 252 answers a unit's
// type's before Unit's, measured).
func (m *manager) propIfacesLocked(kind string) []string {
	var out []string
	for _, n := range m.ifaceOrderLocked(kind) {
		if !strings.HasPrefix(n, "org.freedesktop.DBus.") {
			out = append(out, n)
		}
	}
	if out != nil {
		return out
	}
	switch kind {
	case "manager":
		return []string{managerIface}
	case "logcontrol":
		return []string{logControlIface}
	case "job":
		return []string{jobIface}
	}
	if t := unitTypes[strings.TrimSuffix(kind, "-file")].iface; t != "" {
		return []string{t, unitIface}
	}
	return []string{unitIface}
}

// orderLocked returns props in the order the interfaces ifaces of an
// object of a captured kind declare them (declaredLocked); properties the
// declarations lack, if any, follow by name.
func (m *manager) orderLocked(kind string, ifaces []string, props map[string]dbus.Variant) busd.PropDict {
	out := make(busd.PropDict, 0, len(props))
	seen := make(map[string]bool, len(props))
	for _, iface := range ifaces {
		for _, d := range m.declaredLocked(kind, iface) {
			if v, ok := props[d.Name]; ok && d.Kind == "property" && !seen[d.Name] {
				out = append(out, busd.PropEntry{Name: d.Name, Value: v})
				seen[d.Name] = true
			}
		}
	}
	rest := make([]string, 0, len(props)-len(out))
	for name := range props {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, busd.PropEntry{Name: name, Value: props[name]})
	}
	return out
}

// objectPropsLocked returns the properties of one interface of object o,
// or, for iface "", of all its interfaces, and its unit (nil for the
// manager, a job, ...). An interface the object lacks is errNoInterface.
// With only set (Properties.Get), a unit's map holds that property if
// the interface has it, and others may be missing: the costly ones
// (dependency lists, which look at every loaded unit; the release's
// measured values) are computed for it alone.
func (m *manager) objectPropsLocked(o *object, iface, only string) (map[string]dbus.Variant, *unit, error) {
	switch o.kind {
	case objManager:
		if iface != managerIface && iface != "" {
			return nil, nil, errNoInterface
		}
		return m.managerAllPropsLocked(), nil, nil
	case objLogControl:
		if iface != logControlIface && iface != "" {
			return nil, nil, errNoInterface
		}
		return m.logControlPropsLocked(), nil, nil
	case objJob:
		if iface != jobIface && iface != "" {
			return nil, nil, errNoInterface
		}
		j := o.job
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
		return props, nil, nil
	case objUnit:
		u := o.unit
		switch iface {
		case "":
			props := m.withMeasuredLocked(u, unitIface, m.readPropsLocked(u, unitIface, m.unitPropsLocked(u, only), only), only)
			if t := unitTypes[u.kind].iface; t != "" {
				maps.Copy(props, m.withMeasuredLocked(u, t, m.readPropsLocked(u, t, m.typePropsLocked(u), only), only))
			}
			return props, u, nil
		case unitIface:
			return m.withMeasuredLocked(u, iface, m.readPropsLocked(u, iface, m.unitPropsLocked(u, only), only), only), u, nil
		case unitTypes[u.kind].iface:
			return m.withMeasuredLocked(u, iface, m.readPropsLocked(u, iface, m.typePropsLocked(u), only), only), u, nil
		}
		return nil, u, errNoInterface
	case objDirectory:
		if iface == "" {
			return map[string]dbus.Variant{}, nil, nil
		}
	}
	return nil, nil, errNoInterface
}

// managerAllPropsLocked returns the Manager's properties.
func (m *manager) managerAllPropsLocked() map[string]dbus.Variant {
	props := m.readPropsLocked(nil, managerIface, m.managerPropsLocked(), "")
	for name, v := range m.measuredPropsLocked("manager", managerIface) {
		if _, ok := props[name]; !ok {
			props[name] = v
		}
	}
	maps.Copy(props, m.settings)
	return props
}

// setLocked answers Properties.Set of property name of interface iface
// (current value cur) of an object of a captured kind to v, as systemd
// does (measured on 252): a property its declaration does not make
// writable is PropertyReadOnly, a value of another type InvalidArgs; the
// writable ones of the Manager and LogControl1 take the value (the log
// level and target checked as systemd checks them; the two objects share
// them).
func (m *manager) setLocked(kind, iface, name string, cur, v dbus.Variant) error {
	d, ok := declaredProp(m.declaredLocked(kind, iface), name)
	if !ok || d.Access != "readwrite" || kind != "manager" && kind != "logcontrol" {
		return &callErr{dbusErr + "PropertyReadOnly", "Property '" + name + "' is not writable."}
	}
	if got, want := v.Signature().String(), cur.Signature().String(); got != want {
		return errInvalidArgs("Incorrect parameters for property '%s', expected '%s', got '%s'.", name, want, got)
	}
	switch name {
	case "LogLevel":
		level, ok := logLevel(v.Value().(string))
		if !ok {
			return errInvalidArgs("Invalid log level '%s'", v.Value())
		}
		v = dbus.MakeVariant(level)
	case "LogTarget":
		if !slices.Contains(logTargets, v.Value().(string)) {
			return errInvalidArgs("Invalid log target '%s'", v.Value())
		}
	case "RuntimeWatchdogPreGovernor":
		// Setting a pretimeout governor opens the watchdog device, which
		// the sandbox (and the fake) does not have.
		return &callErr{"System.Error.EBADF", "Bad file descriptor"}
	}
	if m.settings == nil {
		m.settings = map[string]dbus.Variant{}
	}
	m.settings[name] = v
	return nil
}

// logLevels are systemd's log levels by number (log_level_from_string).
var logLevels = []string{"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"}

// logTargets are systemd's log targets (log_target_from_string).
var logTargets = []string{"console", "console-prefixed", "kmsg", "journal", "journal-or-kmsg", "syslog", "syslog-or-kmsg", "auto", "null"}

// logLevel returns the name of a log level given by name or number, as
// systemd answers it after a Set (Set "7", Get "debug"; measured on 252).
func logLevel(s string) (string, bool) {
	if slices.Contains(logLevels, s) {
		return s, true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < len(logLevels) {
		return logLevels[n], true
	}
	return "", false
}

// readPropsLocked adds the properties programs read for status and
// install state to the properties of one interface: u is nil for the
// manager. Types are systemd 252's.
func (m *manager) readPropsLocked(u *unit, iface string, props map[string]dbus.Variant, only string) map[string]dbus.Variant {
	switch {
	case u == nil:
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
		if only == "" || only == "TriggeredBy" {
			props["TriggeredBy"] = dbus.MakeVariant(m.depsLocked(u, "TriggeredBy"))
		}
	case u.kind == "timer":
		if v, ok := m.monotonicTimersLocked(u); ok {
			props["TimersMonotonic"] = v
		}
		// What the timer waits for and when it last started its unit
		// (since it started), as systemctl list-timers shows them:
		// infinity unless it waits (timer_set_state); waiting, the next
		// monotonic elapse (0 if none) and 0 for the calendar's, which
		// the fake does not compute (known difference
		// calendar-next-elapse). Measured on 247-262 (conformance case
		// TransientTimer).
		monotonic, realtime := uint64(infinity), uint64(infinity)
		if u.isActive() && u.sub == "waiting" {
			monotonic, realtime = u.timerElapse, 0
		}
		props["NextElapseUSecMonotonic"] = dbus.MakeVariant(monotonic)
		props["NextElapseUSecRealtime"] = dbus.MakeVariant(realtime)
		props["LastTriggerUSec"] = dbus.MakeVariant(u.lastTrigger.real)
		props["LastTriggerUSecMonotonic"] = dbus.MakeVariant(u.lastTrigger.mono)
	case u.kind == "service":
		main := u.exec
		if main.control {
			main = execMain{}
		}
		props["ExecMainPID"] = dbus.MakeVariant(main.pid)
		props["ExecMainCode"] = dbus.MakeVariant(main.code)
		props["ExecMainStatus"] = dbus.MakeVariant(main.status)
		props["ExecMainStartTimestamp"] = dbus.MakeVariant(usec(main.start))
		props["ExecMainExitTimestamp"] = dbus.MakeVariant(usec(main.exit))
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
		m.measured, m.declared, m.measuredFor = nil, nil, m.release
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
			case p.Varies == "host" && p.Type == "t" && m.hasRlimit(p.Name):
				// The limits a unit sets none of: the manager's
				// (defaultRlimits).
				r, _ := rlimitProp(p.Name)
				p.Value = json.RawMessage(strconv.FormatUint(m.rlimits[r], 10))
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

// hasRlimit reports whether name is a LimitX or DefaultLimitX property
// (or its Soft form) of a resource defaultRlimits gave a value.
func (m *manager) hasRlimit(name string) bool {
	r, ok := rlimitProp(name)
	_, has := m.rlimits[r]
	return ok && has
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
// release's type, else as measured (measuredPropsLocked); with only set,
// that one alone.
func (m *manager) withMeasuredLocked(u *unit, iface string, props map[string]dbus.Variant, only string) map[string]dbus.Variant {
	measured := m.measuredPropsLocked(capturedKind(u), iface)
	if only != "" {
		if v, ok := measured[only]; ok {
			if _, ok := props[only]; !ok {
				props[only] = m.measuredValueLocked(u, only, v)
			}
		}
		return props
	}
	for name, v := range measured {
		if _, ok := props[name]; !ok {
			props[name] = m.measuredValueLocked(u, name, v)
		}
	}
	return props
}

// measuredValueLocked is property name of u, which the fake does not
// model and the release measured as v: as u's settings give it where
// they carry v's type (withMeasuredLocked).
func (m *manager) measuredValueLocked(u *unit, name string, v dbus.Variant) dbus.Variant {
	if own, ok := u.props[name]; ok && own.Signature() == v.Signature() {
		v = own
	} else if own, ok := u.props[strings.TrimSuffix(name, "Soft")]; ok && strings.HasPrefix(name, "Limit") &&
		strings.HasSuffix(name, "Soft") && own.Signature() == v.Signature() {
		// LimitX given alone sets the soft limit too.
		v = own
	} else if strings.HasPrefix(name, "Exec") {
		// ExecStartEx and the like show the commands of ExecStart.
		if own, ok := u.props[strings.TrimSuffix(name, "Ex")]; ok {
			runs := u.runs[strings.TrimSuffix(name, "Ex")]
			if strings.TrimSuffix(name, "Ex") == "ExecStart" && u.exec.pid != 0 && u.execShown {
				// The main process's command shows its start, PID
				// and exit; a oneshot's earlier ones their runs.
				runs = append(make([]execMain, 0, u.exec.index+1), runs...)
				for len(runs) <= u.exec.index {
					runs = append(runs, execMain{})
				}
				runs[u.exec.index] = u.exec
			}
			if cmds, ok := execProp(own, v.Signature().String(), runs, m.clock); ok {
				v = cmds
			}
		}
	}
	return v
}

// execProp turns the commands of an Exec* setting (a(sasb), as unit files
// and StartTransientUnit give them) into the property systemd answers:
// a(sasbttttuii), or, for the Ex forms, a(sasasttttuii) with
// "ignore-failure" for a "-" prefix. runs are the commands' runs, in
// order: when each started and ended (realtime and monotonic), its PID,
// how it ended; a command without one has not run and those are 0. c
// gives the monotonic times.
func execProp(setting dbus.Variant, sig string, runs []execMain, c clock) (dbus.Variant, bool) {
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
		for i := 0; i < len(out) && i < len(runs); i++ {
			o, run := &out[i], &runs[i]
			o.StartRT, o.StartMono, o.ExitRT, o.ExitMono = run.times(c)
			o.PID, o.Code, o.Status = run.pid, run.code, run.status
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
		for i := 0; i < len(out) && i < len(runs); i++ {
			o, run := &out[i], &runs[i]
			o.StartRT, o.StartMono, o.ExitRT, o.ExitMono = run.times(c)
			o.PID, o.Code, o.Status = run.pid, run.code, run.status
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
