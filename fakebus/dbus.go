package fakebus

import (
	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
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
