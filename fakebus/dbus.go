package fakebus

// The fake's one D-Bus entry point (HandleCall, under the manager's lock)
// and its error replies (systemd's src/core/dbus.c); the signals are in
// dbus_signals.go.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// PeerGone forgets a disconnected client: its subscription and its part
// in the jobs it requested (busd.Handler).
func (m *manager) PeerGone(p *busd.Peer) {
	m.lock()
	defer m.unlock()
	delete(m.subscribed, p)
	m.inputOf.CompareAndSwap(p, nil)
	for j := range m.requested[p] {
		j.requesters = slices.DeleteFunc(j.requesters, func(q *busd.Peer) bool { return q == p })
	}
	delete(m.requested, p)
	// Its references on units go with it (RefUnit).
	for _, u := range m.sortedUnitsLocked() {
		if _, ok := u.refs[p]; ok {
			delete(u.refs, p)
			m.collectLocked(u)
		}
	}
}

func errUnknownMethod(c *busd.Call) *callErr {
	return &callErr{dbusErr + "UnknownMethod", fmt.Sprintf("Unknown method %s or interface %s.", c.Member, c.Interface)}
}

// fdCount is the number of file descriptors an "ah" argument names.
func fdCount(v any) int {
	switch v := v.(type) {
	case []dbus.UnixFDIndex:
		return len(v)
	case []dbus.UnixFD:
		return len(v)
	}
	return 0
}

// unitSelfPath is the caller's own unit, as systemd's find_unit
// (src/core/dbus.c) resolves it: the unit of the PID in the caller's bus
// credentials (unitByPIDLocked), every interface and method of that
// unit's object; UnknownObject when the PID is in no unit (measured on
// 252 from the root control group). systemd has no job/self.
const unitSelfPath = dbus.ObjectPath(unitPathBase + "self")

// HandleCall answers one method call (busd.Handler).
func (m *manager) HandleCall(c *busd.Call) {
	m.lock()
	defer func() {
		m.callEndedLocked(c)
		// Once the lock is released, a job's end can reply to c from
		// another goroutine before this one has returned.
		c.Handled()
		m.unlock()
	}()
	// dbus-daemon refuses what the bus policy keeps from the caller
	// before the manager sees it (access.go).
	if err := m.busPolicyLocked(c); err != nil {
		ce := err.(*callErr)
		c.ReplyError(ce.name, ce.msg)
		return
	}
	if m.closed {
		c.ReplyError(dbusErr+"Disconnected", "The manager is shutting down.")
		return
	}
	if m.reloading {
		m.reloadCalls = append(m.reloadCalls, c) // answered after the reload (manager.go)
		return
	}
	m.answerLocked(c)
}

// answerLocked answers c, unless the bus answered it already.
func (m *manager) answerLocked(c *busd.Call) {
	if c.Dropped() {
		// Queued to an instance that re-executed before reading it: the
		// bus answered NoReply (reexec.go), and systemd never acts on it.
		return
	}
	obj := m.resolveLocked(c.Path, c.Peer.PID)
	out, err := m.routeLocked(&call{Call: c, Member: c.Member, Body: c.Body, Signature: c.Signature, obj: obj})
	if obj.loaded {
		m.collectLocked(obj.unit) // loaded for the call, unless something keeps it
	}
	if out == nil && err == nil {
		return // replied by the method itself, or not at all
	}
	if err != nil {
		if ce, ok := err.(*callErr); ok {
			c.ReplyError(ce.name, ce.msg)
		} else {
			c.ReplyError(dbusErr+"Failed", err.Error())
		}
		return
	}
	c.Reply(out...)
}

// routeLocked finds the called method in the tables of the object's
// interfaces (dbus_vtable.go), checks that the release has it and the
// signature, and calls its handler; what the object is decides what a
// call it has no method for gets (dbus_object.go). A call without an
// interface goes to the first interface that has the member, as sd-bus
// does.
func (m *manager) routeLocked(c *call) ([]any, error) {
	o := c.obj
	if o.kind == objNone {
		return nil, errUnknownObject(c.Path)
	}
	if vm := m.methodLocked(introspectableVtable, c); vm != nil {
		if o.err != nil {
			return nil, o.err
		}
		return m.callLocked(introspectableVtable, vm, c)
	}
	if o.kind == objParent {
		return nil, errUnknownObject(c.Path)
	}
	if o.kind == objBadUnit {
		if c.Interface == propsIface && c.Member == "GetAll" || m.unitMemberLocked(c) {
			return nil, o.err
		}
		return nil, o.errno
	}
	for _, t := range o.ifaces {
		if vm := m.methodLocked(t, c); vm != nil {
			return m.callLocked(t, vm, c)
		}
	}
	return nil, errUnknownMethod(c.Call)
}

// methodLocked returns the method c calls in interface t, or nil.
func (m *manager) methodLocked(t *vtable, c *call) *vmethod {
	if c.Interface != "" && c.Interface != t.name {
		return nil
	}
	vm := t.byName[c.Member]
	if vm == nil || !m.offersLocked(t, vm) {
		return nil
	}
	return vm
}

// callLocked checks c's signature and the caller's privilege where
// sd-bus checks it (a method annotated Privileged) or systemd asks polkit
// before anything else (authorizeFirst), and calls vm's handler, method
// vm of interface t.
func (m *manager) callLocked(t *vtable, vm *vmethod, c *call) ([]any, error) {
	if err := checkSignature(c.Call, vm); err != nil {
		return nil, err
	}
	if m.annotationLocked(t, vm.name) == privileged && !m.privilegedLocked(c.Peer) {
		return nil, errNotPermitted(t.name, vm.name)
	}
	if name := t.gate(vm); name != "" && authorizeFirst[name] {
		if err := m.authorizeLocked(c.Call); err != nil {
			return nil, err
		}
	}
	return vm.call(m, c)
}

// The interfaces of each kind of object (dbus_object.go), in the order
// Introspect lists them, but for org.freedesktop.DBus.Peer (busd's) and
// Introspectable (every object's; routeLocked); read-only.
var (
	managerObject = []*vtable{propertiesVtable, managerVtable}
	jobObject     = []*vtable{propertiesVtable, jobVtable}
	// logControlObject is /org/freedesktop/LogControl1's (dbus_log_control.go).
	logControlObject = []*vtable{propertiesVtable, logControlVtable}
	unitObject       = []*vtable{propertiesVtable, unitVtable}
	otherObject      = []*vtable{propertiesVtable}
	// unitObjects are a unit's by its type.
	unitObjects = func() map[string][]*vtable {
		out := map[string][]*vtable{}
		for kind := range unitTypes {
			out[kind] = []*vtable{propertiesVtable, typeVtable(kind), unitVtable}
		}
		return out
	}()
)

// jobIDFromPath returns the ID of the job whose object p is.
func jobIDFromPath(p dbus.ObjectPath) (uint32, bool) {
	s, ok := strings.CutPrefix(string(p), jobPathBase)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 32)
	return uint32(n), err == nil
}
