package fakebus

import (
	"sort"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Reexec says how a daemon-reexec started with Server.Reexecute unfolds.
// As on real systemd (252 and 262 alike), the old instance releases
// org.freedesktop.systemd1 and disconnects (NameOwnerChanged old → ""),
// the new one connects with a new unique name and later takes the name
// ("" → new). The calls the old instance has not answered get NoReply
// from the bus ("Message recipient disconnected from message bus without
// replying") right after it left, as dbus-daemon answers them; the
// manager never acts on those it had not read. In between it can end
// jobs and let a forger speak.
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
	// Pending makes the old instance wait, before it leaves the bus,
	// until at least this many method calls sent on the bus wait for its
	// answer, as calls pile up unread in systemd's socket while it
	// serializes its state (at most 10 s). Every call still unanswered
	// when the old instance leaves gets NoReply from the bus, and the
	// manager never acts on it.
	Pending int
	// Begun, if not nil, is closed once the old instance reads no more
	// calls, before it waits for Pending: a test sends the calls to be
	// left unread after that.
	Begun chan<- struct{}
	// Lose ends these jobs with these results while the manager
	// re-executes, and no instance sends their JobRemoved: the old one
	// no longer sends, the new one never had them. A client that tracks
	// such a job hears nothing of its end; the manager no longer lists
	// it. (How a client copes with a JobRemoved that never comes.)
	Lose map[uint32]sdbus.JobResult
}

// Reexecute runs a daemon-reexec as r says: private connections are
// dropped, the manager moves to a new unique name, queued jobs survive
// and keep their requesters. It returns the old and the new unique name.
func (s *Server) Reexecute(r Reexec) (oldName, newName string) {
	s.m.lock()
	defer s.m.unlock()
	return s.m.reexecLocked(r)
}

// pendingWait bounds how long Reexec.Pending waits for calls.
const pendingWait = 10 * time.Second

// SetReexecDuration makes each daemon-reexec take d before the old
// instance leaves the bus, as systemd takes a while (0.1 to 0.5 s seen) to
// serialize its state: the calls sent to the manager meanwhile wait
// unread, and get NoReply from the bus when it leaves.
func (s *Server) SetReexecDuration(d time.Duration) {
	s.m.lock()
	defer s.m.unlock()
	s.m.reexecFor = d
}

// reexecLocked models daemon-reexec: systemd drops its private-socket clients and reconnects
// to the bus under a new unique name without replying. The bus answers
// every call on the bus the old instance has not answered with NoReply,
// as dbus-daemon does when a connection leaves with calls queued to it:
// the Reexecute call itself, the calls that wait for the manager's lock (sent, never read
// by the old instance; HandleCall drops them) and replies a script
// delays. Jobs survive; units are loaded again from their files, as by
// a reload.
func (m *manager) reexecLocked(r Reexec) (oldName, newName string) {
	if m.reloadEnd != nil {
		// systemd does one thing at a time: a reload under way ends
		// before the re-execution begins.
		m.reloadEnd()
	}
	if r.Begun != nil {
		close(r.Begun)
	}
	if m.reexecFor > 0 {
		// Serializing: the old instance reads nothing meanwhile.
		time.Sleep(m.reexecFor)
	}
	for deadline := time.Now().Add(pendingWait); m.bus.PendingCalls() < r.Pending && time.Now().Before(deadline); {
		// The calls block on the manager's lock, after the bus counted them.
		time.Sleep(time.Millisecond)
	}
	for _, p := range m.bus.Peers() {
		if p.Mode() == busd.PeerMode {
			p.Close()
		}
	}
	lost := make([]uint32, 0, len(r.Lose))
	for id := range r.Lose {
		lost = append(lost, id)
	}
	sort.Slice(lost, func(i, k int) bool { return lost[i] < lost[k] })
	for _, id := range lost {
		if j, ok := m.jobs[id]; ok {
			j.unannounced = true
			m.scriptedLocked(j, r.Lose[id])
		}
	}
	oldName, newName = m.bus.ReconnectService()
	// The bus has answered the calls whose replies a script delays: the
	// JobRemoved of their jobs no longer wait for those replies.
	late := make([]*job, 0, len(m.lateReply))
	for j := range m.lateReply {
		late = append(late, j)
	}
	sort.Slice(late, func(i, k int) bool { return late[i].id < late[k].id })
	for _, j := range late {
		delete(m.lateReply, j)
		m.repliedLocked(j)
	}
	var ids []uint32
	if len(r.Forge) > 0 {
		forger := m.bus.ReserveUniqueName()
		for _, id := range r.Forge {
			if j, ok := m.jobs[id]; ok {
				m.bus.EmitFrom(forger, managerPath, managerIface, "JobRemoved", j.id, j.path(), j.unit.name, string(sdbus.JobDone))
			}
		}
	}
	for id := range r.Finish {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	for _, id := range ids {
		if j, ok := m.jobs[id]; ok {
			m.scriptedLocked(j, r.Finish[id])
		}
	}
	// The new instance loads the units again, from their files as they
	// are now (a changed file applies, NeedDaemonReload is false again),
	// and looks at their cgroups, as after a reload (measured on 247-262
	// by the differential tester: replay "reexec reloads").
	m.reloadUnitsLocked()
	m.catchupLocked()
	m.bus.TakeServiceName()
	return oldName, newName
}
