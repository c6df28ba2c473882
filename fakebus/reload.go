package fakebus

import (
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// A service's reload, as systemd's service_enter_reload runs it.
//
// A reload job of an active service runs its ExecReload= commands as the
// service's control process, the unit reloading/reload meanwhile, for as
// long as they take (a sleep its time; the fake knows no other command
// that takes time). Then the service goes on as systemd's
// service_enter_running does, whatever the commands did:
//
//   - its main process runs: active again (running, or exited);
//   - its main process ended meanwhile (its end waited for the reload,
//     as one during ExecStartPost= does: u.afterPost): it goes on from
//     that end now: failed by a failure (ExecStopPost=, not ExecStop=),
//     else exited with RemainAfterExit=, else stopped (ExecStop= too).
//
// The reload job ends with the unit (unit_process_job): done or failed by
// the commands' success when the unit is active, failed when it failed,
// done when it stopped (failed on 262 when the commands failed:
// sdversions.ReloadFailureFailsStopped).
//
// A command that fails, that KillUnit kills, or that outlasts
// TimeoutStartUSec= (90 s unless set, none for a oneshot service; 0 set
// over D-Bus times out at once) fails the reload. A timed-out command is killed and no longer
// watched: its record never shows an end. A stop meanwhile kills the
// commands and the main process (the reload job was canceled: Result
// signal, as a stop during ExecStartPost=: stopUnitLocked). A job merged
// into the running reload (a start or a reload: job_install's "Merged
// into running job, re-running") runs it again once it ended; a restart
// takes the job over (transaction.go). Measured on 247, 252, 257 and 262
// by the differential tester.

// reloadServiceLocked runs reload job j of active service u.
func (m *manager) reloadServiceLocked(u *unit, j *job) {
	m.setStateLocked(u, "reloading", "reload")
	m.runControlLocked(u, "ExecReload", func(code, status int32) {
		m.reloadEndedLocked(u, j, code == cldExited && status == 0)
	})
	c := u.control
	if c == nil {
		return // ended at once
	}
	timeout, finite := timeoutProp(u, "TimeoutStartUSec")
	if _, set := u.props["TimeoutStartUSec"]; !set && serviceType(u) == string(sdbus.ServiceOneshot) {
		finite = false // a oneshot service has no start timeout unless set (service_add_extras)
	}
	if !finite {
		return
	}
	c.stopTimeout = m.afterLocked(timeout, func() {
		if u.control != c {
			return // ended, killed or stopped meanwhile
		}
		u.dropControl() // killed and no longer watched (service_kill_control_process)
		m.reloadEndedLocked(u, j, false)
	})
}

// inReload reports whether service u's ExecReload= commands run: a main
// process that ends meanwhile is handled once they ended (u.afterPost).
func (u *unit) inReload() bool { return u.control != nil && u.control.name == "ExecReload" }

// reloadEndedLocked goes on once u's reload commands ended, ok when they
// succeeded, and ends reload job j with the unit (see above).
func (m *manager) reloadEndedLocked(u *unit, j *job, ok bool) {
	if u.afterPost != nil {
		m.afterPostLocked(u)
	} else {
		m.setStateLocked(u, "active", activeSub(u))
	}
	if j.finished || j.typ != jobReload {
		return // canceled, or taken over by a restart
	}
	if j.rerun {
		// Merged into while it ran (waiting since): it runs again (a
		// unit no longer active makes it invalid).
		j.rerun = false
		m.maybeRunLocked(j)
		return
	}
	finish := func() {
		switch {
		case u.isActive() && ok:
			m.finishJobLocked(j, "done")
		case u.isActive(), u.active == "failed", !ok && m.behaves(sdversions.ReloadFailureFailsStopped):
			m.finishJobLocked(j, "failed")
		default:
			m.finishJobLocked(j, "done")
		}
	}
	if u.active == "deactivating" {
		m.whenStoppedLocked(u, func() {
			if !j.finished {
				finish()
			}
		})
		return
	}
	finish()
}
