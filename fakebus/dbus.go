package fakebus

// The fake's one D-Bus entry point (HandleCall, under the manager's lock),
// its error replies, and the sending of signals to subscribers and job
// requesters (systemd's src/core/dbus.c).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// Who receives the manager's signals, as systemd decides it
// (bus_foreach_bus in src/core/dbus.c, bus_job_track_sender in
// src/core/dbus-job.c):
//
//   - Direct (private socket) connections receive every signal.
//   - On the bus, unit and manager signals (PropertiesChanged, UnitNew,
//     UnitRemoved, Reloading) go out only while some bus client is
//     subscribed; job signals (JobNew, JobRemoved) go out while some bus
//     client is subscribed or the job has a requester: the bus client that
//     asked for it, or one whose request was merged into it. A requester
//     that disconnects stops counting; requesters survive daemon-reload
//     and daemon-reexec. Once out, a signal reaches every bus client with
//     a matching rule, requester or not.
//   - Subscriptions are per bus connection and end with it.

// signalLocked sends a unit or manager signal: to the bus while somebody
// is subscribed, to direct connections always.
func (m *manager) signalLocked(path dbus.ObjectPath, iface, member string, body func() []any) {
	m.broadcastLocked(len(m.subscribed) > 0, path, iface, member, body)
}

// jobSignalLocked sends a signal about job j: to the bus while somebody is
// subscribed or j has a requester, to direct connections always.
func (m *manager) jobSignalLocked(j *job, path dbus.ObjectPath, iface, member string, body func() []any) {
	m.broadcastLocked(len(m.subscribed) > 0 || len(j.requesters) > 0, path, iface, member, body)
}

// broadcastLocked sends a signal whose body is built only if some
// connection will receive it: to the bus (and direct connections) if
// toBus, else to direct connections only.
func (m *manager) broadcastLocked(toBus bool, path dbus.ObjectPath, iface, member string, body func() []any) {
	switch {
	case toBus:
		if m.bus.Listening(path, iface, member) {
			m.bus.Emit(path, iface, member, body()...)
		}
	case m.bus.HasPeers():
		m.bus.EmitPeers(path, iface, member, body()...)
	}
}

// trackLocked records p as a requester of j. Direct connections are not
// tracked: they receive every signal anyway.
func (m *manager) trackLocked(j *job, p *busd.Peer) {
	if p == nil || p.Mode() != busd.BusMode || j.requesters[p] {
		return
	}
	if j.requesters == nil {
		j.requesters = map[*busd.Peer]bool{}
	}
	j.requesters[p] = true
	jobs := m.requested[p]
	if jobs == nil {
		jobs = map[*job]bool{}
		m.requested[p] = jobs
	}
	jobs[j] = true
}

// untrackLocked forgets j's requesters once its JobRemoved has gone out.
func (m *manager) untrackLocked(j *job) {
	for p := range j.requesters {
		if jobs := m.requested[p]; jobs != nil {
			delete(jobs, j)
			if len(jobs) == 0 {
				delete(m.requested, p)
			}
		}
	}
	j.requesters = nil
}

// PeerGone forgets a disconnected client: its subscription and its part
// in the jobs it requested (busd.Handler).
func (m *manager) PeerGone(p *busd.Peer) {
	m.lock()
	defer m.unlock()
	delete(m.subscribed, p)
	m.inputOf.CompareAndSwap(p, nil)
	for j := range m.requested[p] {
		delete(j.requesters, p)
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

// callErr is a D-Bus error reply.
type callErr struct{ name, msg string }

func (e *callErr) Error() string { return e.name + ": " + e.msg }

func errInvalidArgs(format string, args ...any) *callErr {
	return &callErr{dbusErr + "InvalidArgs", fmt.Sprintf(format, args...)}
}

func errNoSuchUnit(name string) *callErr {
	return &callErr{errPrefix + "NoSuchUnit", "Unit " + name + " not loaded."}
}

func errNotFound(name string) *callErr {
	return &callErr{errPrefix + "NoSuchUnit", "Unit " + name + " not found."}
}

// errNoIsolation refuses an isolate job for a unit without
// AllowIsolate=yes.
func errNoIsolation() *callErr {
	return &callErr{errPrefix + "NoIsolation", "Operation refused, unit may not be isolated."}
}

func errUnknownMethod(c *busd.Call) *callErr {
	return &callErr{dbusErr + "UnknownMethod", fmt.Sprintf("Unknown method %s or interface %s.", c.Member, c.Interface)}
}

func noSuchJob(id uint32) *callErr {
	return &callErr{errPrefix + "NoSuchJob", fmt.Sprintf("Job %d does not exist.", id)}
}

// errNoFD is systemd's answer to a call whose unix fd argument did not
// come with it: sd-bus fails to read the message (EBADMSG). The fake
// gives it for pidfds too, which it does not resolve.
func errNoFD() *callErr { return &callErr{dbusErr + "InconsistentMessage", "Bad message"} }

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
// interfaces (vtable.go), checks that the release has it and the
// signature, and calls its handler; what the object is decides what a
// call it has no method for gets (object.go). A call without an
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

// The interfaces of each kind of object (object.go), in the order
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
		for _, kind := range []string{"service", "scope", "slice", "target", "socket", "mount", "swap", "automount", "device", "path", "timer"} {
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

func errFileInvalid(f string) *callErr {
	return errInvalidArgs("File %s: Invalid argument", f)
}

// errNoUnitFileLocked is a unit-file method's answer for a unit that has
// no file: "Unit file F does not exist." before 257, "Unit F does not
// exist" from 257 (sdversions.NoUnitFileWordedAsUnit).
func (m *manager) errNoUnitFileLocked(f string) *callErr {
	if m.behaves(sdversions.NoUnitFileWordedAsUnit) {
		return &callErr{errPrefix + "NoSuchUnit", "Unit " + f + " does not exist"}
	}
	return &callErr{errPrefix + "NoSuchUnit", "Unit file " + f + " does not exist."}
}

// errMaskedFileLocked refuses a unit-file method for a masked unit file:
// path is the mask (its symlink to /dev/null) on the unit path. From 257
// worded as a unit, without a period (sdversions.NoUnitFileWordedAsUnit:
// the same rewording; measured by the differential tester).
func (m *manager) errMaskedFileLocked(path string) *callErr {
	if m.behaves(sdversions.NoUnitFileWordedAsUnit) {
		return &callErr{errPrefix + "UnitMasked", "Unit " + path + " is masked"}
	}
	return &callErr{errPrefix + "UnitMasked", "Unit file " + path + " is masked."}
}

// sysError is an error text worded as systemd words it.
type sysError string

func (e sysError) Error() string { return string(e) }

func sysErrorf(format string, args ...any) error { return sysError(fmt.Sprintf(format, args...)) }
