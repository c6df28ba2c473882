package fakebus

import (
	"sort"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Reexec says how a daemon-reexec started with Server.Reexecute unfolds.
// Between the new instance connecting (with a new unique name) and it
// owning org.freedesktop.systemd1 it can end jobs and let a forger speak.
type Reexec struct {
	// ReleaseName makes the old instance release org.freedesktop.systemd1
	// and disconnect before the new one connects (NameOwnerChanged old →
	// "", then "" → new once the new instance takes the name), as systemd
	// 262 and later do. Otherwise the name goes from the old unique name
	// to the new one directly, as in 247 to 257. A Server playing 262 or
	// later (WithVersion) always releases first, also for
	// Manager.Reexecute.
	ReleaseName bool
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
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
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
	oldName, newName = m.bus.ReconnectService(r.ReleaseName || m.major >= 262)
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
