package fakebus

// A job method's call on the D-Bus surface: the model's checks and job
// (transaction.go), then the reply, as the job's script shapes it (a
// delayed reply, JobRemoved before the reply, a bus timeout, a dropped
// connection).

import (
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// unitJobLocked handles StartUnit and the other job methods; reply makes
// the call's reply from its job (pathReply for the job methods).
func (m *manager) unitJobLocked(c *busd.Call, name, mode string, typ jobType, reply jobReply) error {
	u, typ, err := m.checkUnitJobLocked(c, name, mode, typ)
	if err != nil {
		return err
	}
	// systemd asks polkit once the unit is loaded, before the job.
	if err := m.polkitNoReplyLocked(name); err != nil {
		return err
	}
	return m.queueAndReplyLocked(c, u, typ, sdbus.JobMode(mode), reply)
}

// jobReply builds the reply of a job method from its job and the other
// jobs the call installed.
type jobReply func(j *job, affected []*job) []any

func pathReply(j *job, _ []*job) []any { return []any{j.path()} }

// queueAndReplyLocked installs a job for the caller and replies with its
// path, honouring the job's script: a delayed reply, JobRemoved before
// the reply, a dropped connection.
func (m *manager) queueAndReplyLocked(c *busd.Call, u *unit, typ jobType, mode sdbus.JobMode, build jobReply) error {
	last := m.lastJob
	j, merged, err := m.installLocked(u, typ, mode, c.Peer)
	if err != nil {
		// The transaction failed (a dependency not found, a conflict):
		// the unit, if inactive and kept by nothing (a transient unit
		// made for the call, a unit file loaded for it), is collected,
		// with the units it alone kept, the dependencies it loaded
		// (measured on 247-262 by the differential tester, 252 seed
		// 40002 and TestDifferentialEdges' unit files).
		m.collectLocked(u)
		return err
	}
	p := build(j, m.installedWithLocked(j, last))
	if !merged {
		j.caller = c.Peer
	}
	if merged {
		// Merged into a queued job: the caller gets its path too.
		c.Reply(p...)
		return nil
	}
	sc := j.script
	reply := func() {
		if sc.Faults&FaultBusTimeout != 0 {
			c.TimeOut()
		} else {
			c.Reply(p...)
		}
		m.repliedLocked(j)
		if sc.Faults&FaultDropConnection != 0 {
			c.Peer.CloseAfterFlush() // the reply still arrives
		}
	}
	switch {
	case sc.Faults&FaultJobRemovedBeforeReply != 0:
		// The reply goes out right after the job's JobRemoved.
		j.replyAfter = reply
	case sc.ReplyDelay > 0:
		// The job runs; its JobRemoved waits for the late reply.
		if m.lateReply == nil {
			m.lateReply = make(map[*job]func())
		}
		m.lateReply[j] = reply
		m.afterLocked(sc.ReplyDelay, func() {
			delete(m.lateReply, j)
			reply()
		})
	default:
		reply()
	}
	m.maybeRunLocked(j)
	return nil
}
