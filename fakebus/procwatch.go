package fakebus

// Watching the real processes placed in units (what systemd learns from
// its cgroups: src/core/cgroup.c's cgroup-empty notification, scope.c's
// scope_notify_cgroup_empty_event). The fake moves no process into a
// control group; it records the PIDs a unit was given (a scope's PIDs=,
// AttachProcessesToUnit) and watches each one that is a live process, with
// a pidfd (pidfd_open(2)) the Go runtime's poller waits on, or where the
// kernel has no pidfd (before 5.3) by asking every pollInterval whether
// the PID still exists (kill(2) with signal 0). When a process has ended
// and been reaped (a zombie stays in its cgroup, and its scope runs on, as
// on systemd), its PID leaves the unit; a scope whose last PID has gone
// ends as on systemd: active/running to inactive/dead, Result success whatever the processes'
// exit statuses, then collected (measured on 252: no job, no JobNew or
// JobRemoved; PropertiesChanged of the Scope and Unit interfaces, then
// UnitRemoved).
//
// Only the processes of the caller's own tree are watched: the caller
// that placed the PIDs (systemd-run --scope places itself) and its
// descendants (a test's child processes). Any other PID is recorded and
// never watched, and keeps its unit running as before: a PID that names no
// process, and a test's made-up PID (4242) that happens to name an
// unrelated live process, which systemd would have moved into the unit
// but which must not end a fake's scope when it exits.
//
// The lifecycle of a watch, written down once:
//
//	watching --process ends and is reaped--> ended: under mu, the PID leaves its unit
//	                           (processExitedLocked)
//	watching --unwatch (unit collected, manager closed)--> closed: the
//	                           pidfd and stop are closed, which ends the
//	                           wait; nothing else happens
//
// Each watch is one goroutine that waits without the manager's lock, then
// takes it to report the end; m.watchers counts them and the manager's
// close waits for them, so the Server's Close joins every watch.

import (
	"errors"
	"os"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// pollInterval is how often a watch without a pidfd asks whether its
// process still exists.
const pollInterval = 100 * time.Millisecond

// procWatch is the watch of one real process placed in a unit.
type procWatch struct {
	unit *unit
	pid  uint32
	// f is the process's pidfd, registered with the runtime's poller; nil
	// where the kernel has none. stop ends the polling that follows (or
	// replaces) the wait on it.
	f    *os.File
	stop chan struct{}
}

// watchPIDsLocked starts watching those of pids that are caller or live
// descendants of it (see above) and not yet watched in u.
func (m *manager) watchPIDsLocked(u *unit, pids []uint32, caller uint32) {
	for _, pid := range pids {
		if m.closed || pid <= 1 || u.watches[pid] != nil || !descendsFrom(pid, caller) {
			continue
		}
		w := openWatch(u, pid)
		if w == nil {
			continue // no such process: recorded, never watched
		}
		if u.watches == nil {
			u.watches = map[uint32]*procWatch{}
		}
		u.watches[pid] = w
		m.watchers.Add(1)
		go m.watch(w)
	}
}

// descendsFrom reports whether pid is root or a live descendant of it.
func descendsFrom(pid, root uint32) bool {
	for depth := 0; depth < 64 && pid > 1; depth++ { // a bound on the walk up the process tree
		if pid == root {
			return true
		}
		pid = parentPID(pid)
	}
	return false
}

// openWatch opens the watch of pid, or returns nil when no process has
// that PID.
func openWatch(u *unit, pid uint32) *procWatch {
	w := &procWatch{unit: u, pid: pid, stop: make(chan struct{})}
	fd, err := unix.PidfdOpen(int(pid), unix.PIDFD_NONBLOCK)
	if errors.Is(err, unix.EINVAL) {
		// Before Linux 5.10: no PIDFD_NONBLOCK; the descriptor is made
		// non-blocking so that the runtime's poller takes it.
		if fd, err = unix.PidfdOpen(int(pid), 0); err == nil {
			err = unix.SetNonblock(fd, true)
			if err != nil {
				unix.Close(fd)
			}
		}
	}
	switch {
	case err == nil:
		w.f = os.NewFile(uintptr(fd), "pidfd")
		return w
	case errors.Is(err, unix.ESRCH):
		return nil
	}
	// No pidfd here (ENOSYS before Linux 5.3, or refused): poll.
	if unix.Kill(int(pid), 0) == unix.ESRCH {
		return nil
	}
	return w
}

// watch waits, without the manager's lock, until w's process ends or the
// watch is closed, then reports an end under the lock.
func (m *manager) watch(w *procWatch) {
	defer m.watchers.Done()
	ended := w.wait()
	m.lock()
	defer m.unlock()
	if m.closed || w.unit.watches[w.pid] != w {
		return // closed meanwhile
	}
	w.close()
	if ended {
		m.processExitedLocked(w.unit, w.pid)
	}
}

// wait blocks until w's process has ended and been reaped (true) or w is
// closed (false). A process that exited stays in its cgroup as a zombie
// until its parent reaps it, and systemd's scope with it (measured on
// 252, 257 and 262 by the differential tester: a scope of a zombie is
// active/running): the pidfd says the process exited, and kill(2) with
// signal 0 then says, every pollInterval, whether the PID is still taken.
func (w *procWatch) wait() bool {
	if w.f != nil && !w.exited() {
		return false
	}
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		if unix.Kill(int(w.pid), 0) == unix.ESRCH {
			return true
		}
		select {
		case <-w.stop:
			return false
		case <-t.C:
		}
	}
}

// exited waits on w's pidfd until its process has exited (true) or the
// pidfd is closed (false).
func (w *procWatch) exited() bool {
	rc, err := w.f.SyscallConn()
	if err != nil {
		return false
	}
	ended := false
	err = rc.Read(func(fd uintptr) bool {
		// A pidfd reads as ready once its process has ended.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, perr := unix.Poll(fds, 0)
		ended = perr == nil && n > 0
		return ended || perr != nil && perr != unix.EINTR
	})
	return err == nil && ended
}

// close ends w's wait. It is called under the manager's lock, once.
func (w *procWatch) close() {
	delete(w.unit.watches, w.pid)
	if w.f != nil {
		w.f.Close() // wakes the poller's wait
	}
	close(w.stop)
}

// unwatchLocked closes the watches of u's processes.
func (m *manager) unwatchLocked(u *unit) {
	for _, w := range u.watches {
		w.close()
	}
}

// processExitedLocked is the end of process pid of u: its PID leaves u,
// and a scope whose last process has gone ends (see the top of the file).
func (m *manager) processExitedLocked(u *unit, pid uint32) {
	u.pids = slices.DeleteFunc(u.pids, func(p uint32) bool { return p == pid })
	delete(u.pidSub, pid)
	m.scopeEmptyLocked(u)
	if u.leftPIDs && len(u.pids) == 0 {
		u.leftPIDs = false
		m.collectLocked(u) // a stop left them (killmode.go); its cgroup is empty now
	}
}

// catchupLocked is what systemd looks at again after a reload or a
// re-execution, having dropped its cgroup watches meanwhile
// (unit_cgroup_catchup, sdversions.CgroupCatchup): a running scope
// without a process ends. Only a scope made for zombies gets here (one
// whose processes ended has ended already): its cgroup was never
// populated, so nothing reported it empty until this check. A scope
// whose live process has since become a zombie keeps it until it is
// reaped, here as between reloads (not measured across a reload).
//
// On every release, an inactive or failed unit no longer has the control
// group a SetUnitProperties realized (realizeLocked; measured on 247, 252
// and 257 by the differential tester: KillUnit's all-fail of such a
// service fails again after a reload or a re-execution).
func (m *manager) catchupLocked() {
	for _, u := range m.units {
		u.realized = false // an active unit has its control group anyway
	}
	if !m.behaves(sdversions.CgroupCatchup) {
		return
	}
	for _, u := range m.sortedUnitsLocked() {
		if u.kind == "scope" && !u.gone && !u.perpetual && len(u.pids) == 0 && u.isActive() {
			u.result = "success"
			m.deactivateLocked(u)
		}
	}
}

// scopeEmptyLocked ends u if it is a running scope with no process left.
func (m *manager) scopeEmptyLocked(u *unit) {
	if u.kind != "scope" || u.gone || u.perpetual || len(u.pids) > 0 || !u.populated || !u.isActive() {
		return
	}
	u.result = "success"
	m.deactivateLocked(u)
}
