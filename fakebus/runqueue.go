package fakebus

import (
	"math"
	"slices"
	"time"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// The run queue: when jobs run.
//
// systemd does not run a job inside the call that queued it. The call
// installs the job (JobNew), replies and returns to the event loop; the
// job waits in the run queue, an event source of idle priority, which
// sd-event dispatches only when no other source is pending: in
// particular when sd-bus has no message left to read. A call another
// client sent meanwhile (or the same client, right behind the first) is
// therefore answered with the job still queued, and runs before the job.
//
// The fake does the same. maybeRunLocked puts a job whose turn has come
// on m.runQueue instead of running it; each time the manager's lock is
// released (the end of a call, a timer, PeerGone, a Server method: see
// unlock), the queue is run, unless the manager is not idle:
//
//   - a caller that was already waiting for the lock when the queue
//     became non-empty (a call from another connection that arrived
//     meanwhile, a timer that fired) goes first, or
//   - the connection whose call just ended has another message waiting,
//     read or still in the kernel's socket buffer (busd.Call.MoreInput):
//     the queue waits for that connection's next message, or for busd to
//     report the connection drained (busd.Config.InputDrained), or
//     inputGrace at most (a message whose rest never comes).
//
// Whoever goes first runs the queue when it releases the lock in turn, so
// a job is never left behind. A caller that starts waiting after the job
// was queued does not hold it back: a client that answers the reply with
// its next call sees the job done, as it does on systemd, whose loop runs
// the queue long before such a call can arrive. The queue is passed over
// at most maxPasses times in a row; then it runs whatever is pending, so
// a steady stream of calls cannot starve the jobs (sd-event has no such
// bound, but systemd's calls come from clients that wait for their
// replies, and so do not form an endless stream).
//
// A job queued while the queue runs runs in the same pass: systemd's
// run queue is a priority queue it empties in one dispatch, the jobs a
// job's end queues with the rest. The jobs the OnSuccess= of a unit
// stopped in the pass queues (onfailure.go) are queued once the pass
// ended (startTriggeredLocked), and the pass goes on for them (goOn), so
// no caller goes first. The queue runs in systemd's order of priority
// (runsBefore), not in the order the jobs came.
//
// A process that exits at once (true, false, exit 3, a missing binary)
// ends after the pass that started it: systemd forks it in the job's
// run, and sees its SIGCHLD in a later iteration of its loop, whose
// signal sources go before the run queue but never into a pass. The
// jobs the start released (ordered After= it) have run by then, so a
// target bound to the service is active when the service fails, and
// stops (measured on 247-262: 247 seed 552070 of a long run). unlock
// delivers these ends (reapLocked) after the queues a pass leaves
// (bound, triggered, unneeded units), as systemd's loop dispatches its
// queues before its event sources, and runs the queue again for the
// jobs they queue.
//
// Units are collected at once (collectLocked), not from the run queue:
// systemd's main loop runs its GC queue before each sd-event iteration,
// so a unit is gone before the next message is read.

// maxPasses is how many times in a row the run queue lets another caller
// of the manager go first.
const maxPasses = 16

// inputGrace is how long at most the run queue waits for a connection's
// next message (callEndedLocked).
const inputGrace = 10 * time.Millisecond

// lock takes the manager's lock, counting the caller as waiting for it
// meanwhile.
func (m *manager) lock() {
	m.waitMu.Lock()
	m.tickets++
	t := m.tickets
	m.waiting[t] = true
	m.waitMu.Unlock()
	m.mu.Lock()
	m.waitMu.Lock()
	delete(m.waiting, t)
	m.waitMu.Unlock()
}

// unlock runs the run queue if the manager is idle (see above), and
// stops the units bound to one that ended with its job (unit.go:
// stopBoundLocked), starts the units OnFailure= and OnSuccess= name
// (onfailure.go) and stops the units that became unneeded (unneeded.go)
// until that queues no more jobs, then releases the lock.
func (m *manager) unlock() {
	m.dispatchLocked()
	for {
		bound := m.stopBoundLocked()
		triggered := m.startTriggeredLocked()
		unneeded := m.stopUnneededLocked()
		if !m.reapLocked() && !unneeded && !triggered && !bound {
			break
		}
		m.dispatchLocked()
	}
	m.collectAfterHandlersLocked()
	m.mu.Unlock()
}

// exitLocked delivers end, the end of a process that exits at once, when
// the run queue's pass is over (reapLocked).
func (m *manager) exitLocked(end func()) {
	m.exits = append(m.exits, end)
}

// reapLocked delivers the ends of the processes that exited at once, in
// the order they were spawned, and reports whether there was one. An end
// may spawn the next process (a oneshot service's next ExecStart=), whose
// end comes in unlock's next round, after the jobs this one's queued.
func (m *manager) reapLocked() bool {
	exits := m.exits
	m.exits = nil
	for _, end := range exits {
		if !m.closed {
			end()
		}
	}
	return len(exits) > 0
}

// queueJobLocked puts j, whose turn has come, on the run queue.
func (m *manager) queueJobLocked(j *job) {
	if j.queued {
		return
	}
	j.queued = true
	if len(m.runQueue) == 0 {
		m.waitMu.Lock()
		m.queuedAt = m.tickets
		m.waitMu.Unlock()
	}
	m.runQueue = append(m.runQueue, j)
}

// dispatchLocked runs the run queue, unless another caller goes first.
func (m *manager) dispatchLocked() {
	if len(m.runQueue) == 0 || m.closed {
		m.passes = 0
		m.inputOf.Store(nil)
		return
	}
	if !m.goOn && m.passes < maxPasses && (m.inputOf.Load() != nil || m.earlyWaiterLocked()) {
		m.passes++
		return
	}
	m.passes, m.goOn = 0, false
	m.inputOf.Store(nil)
	for len(m.runQueue) > 0 {
		i := 0
		for k, o := range m.runQueue {
			if runsBefore(o.unit, m.runQueue[i].unit) {
				i = k
			}
		}
		j := m.runQueue[i]
		m.runQueue = slices.Delete(m.runQueue, i, i+1)
		j.queued = false
		m.runJobLocked(j)
	}
	m.runQueue = nil
}

// unitTypeEnum is systemd's UnitType enumeration, in order.
var unitTypeEnum = []string{"service", "mount", "swap", "socket", "target", "device", "automount", "timer", "path", "slice", "scope"}

// runsBefore reports whether the job of unit a runs before that of unit b
// when both are on the run queue (systemd's compare_job_priority,
// unit_compare_priority from 256): the later type in systemd's
// enumeration first (a scope's job before a slice's, a target's before a
// service's), then the greater CPU weight, then the lower Nice=, then the
// name.
func runsBefore(a, b *unit) bool {
	if ta, tb := slices.Index(unitTypeEnum, a.kind), slices.Index(unitTypeEnum, b.kind); ta != tb {
		return ta > tb
	}
	if wa, wb := cpuWeight(a), cpuWeight(b); wa != wb {
		return wa > wb
	}
	if na, nb := nice(a), nice(b); na != nb {
		return na < nb
	}
	return a.name < b.name
}

// cpuWeight is the CPU weight systemd orders u's job by: its CPUWeight=,
// 100 unset or without a control group (the fake's manager is never
// starting up, where StartupCPUWeight= would count).
func cpuWeight(u *unit) uint64 {
	if !unitTypes[u.kind].cgroup {
		return 100
	}
	if w := u.u64("CPUWeight", math.MaxUint64); w != math.MaxUint64 {
		return w
	}
	return 100
}

// nice is u's Nice=, 0 unset or without an execution context.
func nice(u *unit) int32 {
	if !unitTypes[u.kind].clean {
		return 0
	}
	n, _ := u.props["Nice"].Value().(int32)
	return n
}

// earlyWaiterLocked reports whether a caller that was waiting for the
// lock when the run queue became non-empty still waits.
func (m *manager) earlyWaiterLocked() bool {
	m.waitMu.Lock()
	defer m.waitMu.Unlock()
	for t := range m.waiting {
		if t <= m.queuedAt {
			return true
		}
	}
	return false
}

// callEndedLocked records, as call c ends, whether its connection has
// another message waiting; the run queue then waits for it.
func (m *manager) callEndedLocked(c *busd.Call) {
	switch {
	case len(m.runQueue) > 0 && c.MoreInput():
		if m.inputOf.Swap(c.Peer) == c.Peer {
			return
		}
		// A message cut short (its rest never sent) would hold the
		// queue for ever: it waits inputGrace at most.
		p := c.Peer
		m.afterLocked(inputGrace, func() { m.inputOf.CompareAndSwap(p, nil) })
	case m.inputOf.Load() == c.Peer:
		m.inputOf.Store(nil)
	}
}

// inputDrained runs the run queue if it waited for p's next message and p
// has none left (busd.Config.InputDrained).
func (m *manager) inputDrained(p *busd.Peer) {
	if m.inputOf.Load() != p || p.MoreInput() {
		return // the queue does not wait for p (inputOf changes under mu only), or p's next message is on its way
	}
	m.lock()
	m.inputOf.CompareAndSwap(p, nil)
	m.unlock()
}
