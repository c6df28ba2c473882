package fakebus

// Reset: the manager back to its state right after Start, for a test
// that shares one fake between its cases (a fakesystemd serving a whole
// test suite). The manager is reset in place, under its lock: its
// connections, the bus and the lock's run queue machinery stay, and no
// caller can see a state in between.

import (
	"errors"
	"sort"
	"time"
)

// Reset returns the Server to its state right after Start, as if it had
// just started with the same options, and keeps its clients connected:
//
//   - A daemon-reload under way ends first (the calls it held are
//     answered). Every job is then canceled, in ID order, as CancelJob
//     cancels it: its JobRemoved says "canceled" (after its reply, for a
//     reply a script delays: that reply is sent now). Waiters of WaitIdle
//     return.
//   - Every unit is unloaded (UnitRemoved for each), its processes
//     forgotten (watches and timers stopped, the control groups of
//     WithCgroupRoot removed), the references of RefUnit with it; then the
//     units of the start are loaded again as Start loads them (UnitNew,
//     and the activation of the booted units and of WithUnitFile's Active
//     ones).
//   - The unit files AddUnitFile and ApplyScriptFile gave are removed and
//     those of WithUnitFile and WithScriptFile given again; what
//     SetUnitProperties set and the manager's Environment are forgotten.
//     The temporary unit directories (without WithUnitDir,
//     WithRuntimeUnitDir) are emptied, as they were at start, so the
//     symlinks of the unit-file methods go; directories of the test's
//     own are left as they are.
//   - Scripts, the conflicts found, DropAfterReply counts, the reload and
//     reexec durations, SetVersion's version and the Manager properties
//     a client set (LogLevel, ...) are cleared, and WithScript's and
//     WithScriptFile's scripts and reload duration set again.
//   - The call log's calls kept in memory are forgotten (ClearCalls).
//
// What stays: client connections, their subscriptions (Subscribe) and
// their bus names, the manager's unique name (after a Reexecute, the new
// one), and the counters clients may hold on to: job IDs go on from the
// last one (a JobRemoved of a job from before cannot name a new job),
// and so does the call log's seq. The clock is not reset: the manager's
// UserspaceTimestamp stays that of Start.
//
// Reset fails when the Server is closed, and when what Start did cannot
// be done again: a temporary unit directory cannot be emptied, or a
// start-up script now contradicts a unit file the test wrote into its
// own unit directory (Start's error). The manager is then left as far as
// it got: without units, or with those loaded before the error.
func (s *Server) Reset() error {
	s.m.lock()
	defer s.m.unlock()
	if err := s.m.resetLocked(); err != nil {
		return err
	}
	s.bus.ClearDropAfterReply()
	s.ClearCalls()
	return nil
}

// resetLocked is Reset's part of the manager.
func (m *manager) resetLocked() error {
	if m.closed {
		return errors.New("fakebus: server closed")
	}
	for m.reloadEnd != nil {
		// A held call may be a Reload: that one ends too.
		m.reloadEnd()
	}
	for len(m.jobs) > 0 {
		m.finishJobLocked(m.jobs[lowestJob(m.jobs)], "canceled")
	}
	late := make([]*job, 0, len(m.lateReply))
	for j := range m.lateReply {
		late = append(late, j)
	}
	sort.Slice(late, func(i, k int) bool { return late[i].id < late[k].id })
	for _, j := range late {
		reply := m.lateReply[j]
		delete(m.lateReply, j)
		reply()
	}
	for _, u := range m.sortedUnitsLocked() {
		u.gone = true
		m.disarmLocked(u)
		m.unwatchLocked(u)
		m.removeCgroupDirLocked(u)
		if !u.unannounced {
			m.signalLocked(managerPath, managerIface, "UnitRemoved", func() []any { return []any{u.name, u.path()} })
		}
	}
	// Timers armed for what is gone: stopped, or, already firing, they
	// find the generation changed (afterLocked).
	m.resets++
	for t := range m.timers {
		if t.Stop() {
			m.timersRunning.Done() // it will never run
		}
	}
	m.wakeIdleLocked()
	// Every field the model changes as it runs, as newManager and init
	// leave it (reset_internal_test.go checks that none is forgotten).
	m.runQueue, m.passes, m.goOn, m.exits = nil, 0, false, nil
	m.version = m.cfg.version
	m.units, m.members, m.triggeredBy = map[string]*unit{}, map[string]map[*unit]bool{}, map[string]map[*unit]bool{}
	m.files, m.aliases, m.control = map[string]UnitFile{}, map[string]string{}, map[string][]controlSetting{}
	m.environment = defaultEnvironment()
	m.reverse, m.reverseSorted, m.unneeded, m.triggered, m.recollect, m.bound = map[*unit]bool{}, nil, nil, nil, nil, nil
	m.jobs, m.lateReply = map[uint32]*job{}, nil
	m.reloading, m.unitFilesChanged, m.held, m.reloadCalls, m.reloadEnd = false, false, nil, nil, nil
	m.reloadFor, m.reexecFor = 0, 0
	m.scripts, m.conflicts = nil, nil
	m.timers = map[*time.Timer]struct{}{}
	m.idle = nil
	m.standard = nil
	m.settings = nil
	m.nameMap = nameMap{}
	if err := m.dirs.emptyTemp(); err != nil {
		return err
	}
	return m.initLocked()
}

// lowestJob is the lowest ID of jobs, which is not empty.
func lowestJob(jobs map[uint32]*job) uint32 {
	first := true
	var low uint32
	for id := range jobs {
		if first || id < low {
			low, first = id, false
		}
	}
	return low
}
