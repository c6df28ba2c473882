package fakebus

// The sending of the manager's signals to subscribers and job requesters
// (systemd's src/core/dbus.c): the one part of the D-Bus surface the
// model calls (a layering test, layering_test.go, keeps it so).
//
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

import (
	"slices"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

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
	if p == nil || p.Mode() != busd.BusMode || slices.Contains(j.requesters, p) {
		return
	}
	j.requesters = append(j.requesters, p)
	jobs := m.requested[p]
	if jobs == nil {
		jobs = map[*job]bool{}
		m.requested[p] = jobs
	}
	jobs[j] = true
}

// untrackLocked forgets j's requesters once its JobRemoved has gone out.
// A client's set of jobs stays, empty, until it disconnects (PeerGone).
func (m *manager) untrackLocked(j *job) {
	for _, p := range j.requesters {
		delete(m.requested[p], j)
	}
	j.requesters = nil
}

// unitStateSignalLocked sends the PropertiesChanged of a unit's new
// ActiveState and SubState, and of its type's Result where the type has
// one that changes with the state (services, scopes, timers).
func (m *manager) unitStateSignalLocked(u *unit, active, sub string) {
	m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
		return []any{unitIface, map[string]dbus.Variant{
			"ActiveState": dbus.MakeVariant(active),
			"SubState":    dbus.MakeVariant(sub),
		}, []string{}}
	})
	if iface := unitTypes[u.kind].iface; iface != "" && (u.kind == "service" || u.kind == "scope" || u.kind == "timer") {
		m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
			return []any{iface, map[string]dbus.Variant{"Result": dbus.MakeVariant(strOr(u.result, "success"))}, []string{}}
		})
	}
}
