package fakebus

// What an object path names, resolved once per call: sd-bus's object
// tree as systemd's src/core/dbus.c registers it (the manager's object,
// the job and unit fallbacks with their find functions and enumerators,
// LogControl1) and as sd-bus's bus-objects.c answers what none of them
// finds. Methods, Properties and Introspect all read the one resolution
// (call.obj), so a path gets one answer from every interface.
//
// Measured with dbus-send on 247, 252, 257 and 262, all alike
// (conformance ObjectPaths):
//
//	path                          object       a call on it
//	/org/freedesktop/systemd1     the manager  its interfaces
//	/org/freedesktop/LogControl1  log control  its interfaces
//	…/systemd1/job/ID             a job        its interfaces; no such job: UnknownObject, Introspect too
//	…/systemd1/unit/NAME          a unit       loaded for the call, found or not; collected after if
//	                                           nothing keeps it (a Ref does)
//	…/systemd1/unit/INVOCATION    a unit       by its invocation ID
//	…/systemd1/unit/self          a unit       the caller's (unitSelfPath)
//	…/systemd1/unit/OTHER         none         the unit lookup's error: InvalidArgs "Unit name OTHER is
//	                                           neither a valid invocation ID nor unit name." (an ID no
//	                                           unit has: NoUnitForInvocationID) for Introspect, GetAll
//	                                           and the members of the unit interfaces; for other members
//	                                           its errno: "Invalid argument" (FileNotFound "No such file
//	                                           or directory")
//	…/systemd1/unit, …/job        a directory  no interface: Introspect lists the children, Get and Set
//	                                           UnknownProperty, GetAll("") {}, GetAll(I)
//	                                           UnknownInterface, methods UnknownMethod
//	/, /org, /org/freedesktop     a parent     Introspect lists the children; else UnknownObject
//	anything else                 none         UnknownObject, Introspect too
//
// org.freedesktop.DBus.Peer answers on every path (busd).

import (
	"encoding/hex"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// objectKind is what a path names.
type objectKind int

const (
	objNone      objectKind = iota // nothing: UnknownObject
	objParent                      // a parent of objects: only Introspect
	objDirectory                   // …/unit, …/job: introspectable, no interface
	objManager                     // the manager
	objLogControl
	objJob
	objUnit
	objBadUnit // a unit path naming no unit: err and errno
)

// object is a resolved object path.
type object struct {
	path   dbus.ObjectPath
	kind   objectKind
	ifaces []*vtable // its interfaces but Peer and Introspectable, in Introspect's order
	// captured is the captured kind whose declarations its properties
	// follow (declaredLocked): "manager", "logcontrol", "job", a unit's
	// capturedKind.
	captured string
	job      *job
	// unit is the unit (objUnit), loaded; not-found when no file
	// defines it.
	unit *unit
	// loaded is set when the call loaded unit: it is collected once the
	// call is answered, unless something keeps it.
	loaded bool
	// err is the unit lookup's error (objBadUnit), errno the answer
	// to a member no unit interface has.
	err, errno *callErr
}

func errUnknownObject(p dbus.ObjectPath) *callErr {
	return &callErr{dbusErr + "UnknownObject", "Unknown object '" + string(p) + "'."}
}

// parents are the paths above the objects, which sd-bus lets a client
// introspect to find them.
var parents = map[dbus.ObjectPath]bool{"/": true, "/org": true, "/org/freedesktop": true}

// resolveLocked returns what path p names for a call from peer pid (unit/self).
func (m *manager) resolveLocked(p dbus.ObjectPath, pid func() uint32) *object {
	o := &object{path: p}
	rest, isUnit := strings.CutPrefix(string(p), unitPathBase)
	isJob := strings.HasPrefix(string(p), jobPathBase)
	switch {
	case p == managerPath:
		o.kind, o.ifaces, o.captured = objManager, managerObject, "manager"
	case p == logControlPath:
		o.kind, o.ifaces, o.captured = objLogControl, logControlObject, "logcontrol"
	case p == managerPath+"/unit", p == managerPath+"/job":
		o.kind, o.ifaces = objDirectory, otherObject
	case parents[p]:
		o.kind = objParent
	case isJob:
		if n, ok := jobIDFromPath(p); ok {
			if j := m.jobs[n]; j != nil {
				o.kind, o.ifaces, o.captured, o.job = objJob, jobObject, "job", j
			}
		}
	case isUnit:
		m.resolveUnitLocked(o, rest, pid)
	}
	return o
}

// resolveUnitLocked resolves o, a unit path: rest is the path below
// unitPathBase.
func (m *manager) resolveUnitLocked(o *object, rest string, pid func() uint32) {
	if o.path == unitSelfPath {
		if u := m.unitByPIDLocked(pid()); u != nil {
			m.setUnitObject(o, u)
		}
		return
	}
	name := labelUnescape(rest)
	if id, ok := parseID128(name); ok {
		for _, u := range m.units {
			if u.invocation != nil && string(u.invocation) == string(id) {
				m.setUnitObject(o, u)
				return
			}
		}
		o.kind = objBadUnit
		o.err = &callErr{errPrefix + "NoUnitForInvocationID", "No unit with the specified invocation ID " + hex.EncodeToString(id) + " known."}
		o.errno = &callErr{dbusErr + "FileNotFound", "No such file or directory"}
		return
	}
	if sdbus.ValidateUnitName(name) != nil {
		o.kind = objBadUnit
		o.err = errInvalidArgs("Unit name %s is neither a valid invocation ID nor unit name.", name)
		o.errno = errInvalidArgs("Invalid argument")
		return
	}
	u, fresh := m.loadForCallLocked(name)
	if u == nil {
		u, fresh = m.notFoundUnitLocked(name, false), true
	}
	o.loaded = fresh
	m.setUnitObject(o, u)
}

func (m *manager) setUnitObject(o *object, u *unit) {
	o.kind, o.unit, o.captured = objUnit, u, capturedKind(u)
	o.ifaces = unitObject
	if ifaces, ok := unitObjects[u.kind]; ok {
		o.ifaces = ifaces
	}
}

// unitMemberLocked reports whether a unit interface has the member c
// calls (a method, or the property a Properties.Get or Set names) on the
// played release: on a unit path naming no unit, systemd's unit lookup
// answers those, sd-bus the others.
func (m *manager) unitMemberLocked(c *call) bool {
	kinds := []string{"service-file"}
	for k := range unitObjects {
		kinds = append(kinds, k)
	}
	if c.Interface == propsIface && (c.Member == "Get" || c.Member == "Set") {
		if len(c.Body) < 2 {
			return false
		}
		iface, _ := c.Body[0].(string)
		name, _ := c.Body[1].(string)
		for _, k := range kinds {
			if _, ok := declaredProp(m.declaredLocked(k, iface), name); ok {
				return true
			}
		}
		return false
	}
	for _, k := range kinds {
		for _, t := range unitObjects[strings.TrimSuffix(k, "-file")] {
			if t != propertiesVtable && m.methodLocked(t, c) != nil {
				return true
			}
		}
	}
	return false
}

// labelUnescape undoes sd-bus's escaping of an object path label
// (bus_label_unescape): "_" alone is the empty string, "_XX" the byte
// with hex code XX, anything else, a "/" or an "_" not followed by two
// hex digits included, itself.
func labelUnescape(s string) string {
	if s == "_" {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+2 < len(s) {
			if v, err := hex.DecodeString(s[i+1 : i+3]); err == nil {
				b.WriteByte(v[0])
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseID128 parses an ID as sd_id128_from_string does: 32 hex digits,
// or the UUID form with dashes.
func parseID128(s string) ([]byte, bool) {
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		s = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	}
	if len(s) != 32 {
		return nil, false
	}
	id, err := hex.DecodeString(s)
	return id, err == nil
}
