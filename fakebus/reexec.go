package fakebus

import (
	"sort"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Reexec says how a daemon-reexec started with Server.Reexecute unfolds.
// As on real systemd (252 and 262 alike), the old instance releases
// org.freedesktop.systemd1 and disconnects (NameOwnerChanged old → ""),
// the new one connects with a new unique name and later takes the name
// ("" → new). In between it can end jobs and let a forger speak.
type Reexec struct {
	// Finish ends these jobs with these results after the new instance has
	// connected and before it owns the name: their JobRemoved come from
	// the new unique name first, then the name changes owner.
	Finish map[uint32]sdbus.JobResult
	// Forge sends, in the same gap and before Finish ends any job, a
	// JobRemoved with result "done" for each of these queued jobs from a
	// unique name that never owns org.freedesktop.systemd1 (a forger
	// racing the new instance).
	Forge []uint32
}

// Reexecute runs a daemon-reexec as r says: private connections are
// dropped, the manager moves to a new unique name, queued jobs survive
// and keep their requesters. It returns the old and the new unique name.
func (s *Server) Reexecute(r Reexec) (oldName, newName string) {
	s.m.lock()
	defer s.m.unlock()
	return s.m.reexecLocked(nil, r)
}

// reexecLocked models daemon-reexec, called by c (nil when the test
// calls for it): systemd drops its private-socket clients and reconnects
// to the bus under a new unique name without replying; the bus answers
// the pending call with NoReply. Jobs survive.
func (m *manager) reexecLocked(c *busd.Call, r Reexec) (oldName, newName string) {
	if c != nil && c.Peer.Mode() == busd.BusMode {
		c.ReplyError(dbusErr+"NoReply", "Message recipient disconnected from message bus without replying")
	}
	for _, p := range m.bus.Peers() {
		if p.Mode() == busd.PeerMode {
			p.Close()
		}
	}
	oldName, newName = m.bus.ReconnectService()
	if len(r.Forge) > 0 {
		forger := m.bus.ReserveUniqueName()
		for _, id := range r.Forge {
			if j, ok := m.jobs[id]; ok {
				m.bus.EmitFrom(forger, managerPath, managerIface, "JobRemoved", j.id, j.path(), j.unit.name, string(sdbus.JobDone))
			}
		}
	}
	ids := make([]uint32, 0, len(r.Finish))
	for id := range r.Finish {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	for _, id := range ids {
		if j, ok := m.jobs[id]; ok {
			m.scriptedLocked(j, r.Finish[id])
		}
	}
	m.bus.TakeServiceName()
	return oldName, newName
}
