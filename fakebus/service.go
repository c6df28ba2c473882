package fakebus

// What is special to services (systemd's src/core/service.c): the type,
// the main process and what is kept of it after it ended, ExecStartPost,
// live mounts into its namespace.

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// serviceType is a service's Type: as set, else as systemd figures it
// (service_add_extras): dbus with BusName=, simple with ExecStart=, else
// oneshot (measured on 247-262 by the differential tester: a file
// without ExecStart= loads as bad-setting with Type oneshot).
func serviceType(u *unit) string {
	if t := u.str("Type"); t != "" {
		return t
	}
	switch {
	case u.str("BusName") != "":
		return string(sdbus.ServiceDBus)
	case len(u.commands("ExecStart")) == 0:
		return string(sdbus.ServiceOneshot)
	}
	return string(sdbus.ServiceSimple)
}

// badService reports whether systemd's service_verify refuses service u
// (its load state is bad-setting; a transient one's start is refused
// BadUnitSetting). What it logs, in brackets; measured on 247, 252, 257
// and 262 by the differential tester, for unit files and transient
// units alike:
//   - no ExecStart= and no ExecStop= ("Service has no ExecStart=,
//     ExecStop=, or SuccessAction=. Refusing.");
//   - no ExecStart= unless Type=oneshot ("… which is only allowed for
//     Type=oneshot services"; with ExecStop= alone the type is oneshot);
//   - no ExecStart= unless RemainAfterExit=yes ("Service has no
//     ExecStart= and no SuccessAction= settings and does not have
//     RemainAfterExit=yes set");
//   - more than one ExecStart= unless Type=oneshot;
//   - Type=oneshot with Restart=always or on-success;
//   - Type=dbus without BusName= (from 252; 247's PID 1 aborts).
//
// systemd accepts a SuccessAction= in place of the commands in the first
// and third, a setting the fake does not take.
func (m *manager) badService(u *unit) bool {
	start, stop := len(u.commands("ExecStart")), len(u.commands("ExecStop"))
	typ := serviceType(u)
	restart := u.str("Restart")
	switch {
	case start == 0 && stop == 0,
		start == 0 && typ != string(sdbus.ServiceOneshot),
		start == 0 && !u.boolProp("RemainAfterExit", false),
		start > 1 && typ != string(sdbus.ServiceOneshot),
		typ == string(sdbus.ServiceOneshot) && (restart == "always" || restart == "on-success"),
		typ == string(sdbus.ServiceDBus) && u.str("BusName") == "" && m.behaves(sdversions.DBusTypeNeedsBusName):
		return true
	}
	return false
}

// startServiceLocked starts service u for its start (or restart) job j,
// as systemd's service_start: the ExecCondition= commands, then the
// ExecStartPre= ones, run one after another as the control process
// (activating/condition, activating/start-pre), each as long as the fake
// says it runs (exec.go: sleep N lasts N seconds; a command it does not
// know ends at once, successfully). The first ExecCondition= command
// that exits 1 to 254 without "-" skips the start (startSkippedLocked);
// one that fails otherwise, or an ExecStartPre= command that fails
// without "-", fails the unit (exit-code) and the job. Then the main process
// starts (activating/start): a oneshot service's start job ends when its
// last ExecStart= command exits (spawnLocked runs them in turn), any other
// type's once it runs, after ExecStartPost=. Meanwhile the job runs and the unit is activating, as
// on systemd (measured on 252: systemctl is-active says activating,
// list-jobs lists the job running). The fake models no sd_notify: a
// Type=notify service counts as started once its main process runs,
// unless that is a program the fake interprets (waitsForReadinessLocked).
func (m *manager) startServiceLocked(u *unit, j *job) {
	// The runs of the last start are forgotten, the main process's too
	// (service_start; measured on 247-262 by the differential tester:
	// ExecStopPost='s run of the stop before reads 0 again, and so does
	// ExecMainCode of a oneshot service without ExecStart=).
	u.runs, u.exec, u.afterPost = nil, execMain{}, nil
	if u.restart.flush {
		// It ended without restarting last time: NRestarts counts
		// afresh (service_start's flush_n_restarts).
		u.restart.count, u.restart.flush = 0, false
	}
	// A Type=idle service is active from its first start state on
	// (idleStarting): its start job is done then.
	idleDone := func() {
		if u.isActive() {
			m.finishJobLocked(j, "done")
		}
	}
	failed := func(code int32) {
		m.runCommandsLocked(u, "ExecStopPost")
		if code == cldExited {
			m.failLocked(u, "exit-code")
		} else {
			m.failLocked(u, "signal") // killed (KillUnit)
		}
		m.finishJobLocked(j, "failed")
	}
	pre := func() {
		if len(u.commands("ExecStartPre")) == 0 {
			m.startMainLocked(u, j)
			return
		}
		m.setStateLocked(u, "activating", "start-pre")
		idleDone()
		m.runControlLocked(u, "ExecStartPre", func(code, status int32) {
			if code != cldExited || status != 0 {
				failed(code)
				return
			}
			m.startMainLocked(u, j)
		})
	}
	if len(u.commands("ExecCondition")) == 0 {
		pre()
		return
	}
	m.setStateLocked(u, "activating", "condition")
	idleDone()
	m.runControlLocked(u, "ExecCondition", func(code, status int32) {
		switch {
		case code == cldExited && status == 0:
			pre()
		case code == cldExited && status < 255:
			m.startSkippedLocked(u, j)
		default:
			failed(code)
		}
	})
}

// startSkippedLocked ends the start job j of service u whose
// ExecCondition= says no: ExecStopPost= runs, the unit goes inactive,
// Result exec-condition, and the job is done (skipped on 247; measured on
// 247-262 by the differential tester).
func (m *manager) startSkippedLocked(u *unit, j *job) {
	m.runCommandsLocked(u, "ExecStopPost")
	u.result = "exec-condition"
	m.deactivateLocked(u)
	if m.behaves(sdversions.ExecConditionSkipDone) {
		m.finishJobLocked(j, "done")
	} else {
		m.finishJobLocked(j, "skipped")
	}
}

// startMainLocked starts the main process of service u for job j (which
// may have ended meanwhile: canceled, its unit's start goes on).
func (m *manager) startMainLocked(u *unit, j *job) {
	p, _ := m.command(u, 0)
	m.setStateLocked(u, "activating", "start")
	if u.isActive() {
		m.finishJobLocked(j, "done") // Type=idle (idleStarting)
	}
	typ := serviceType(u)
	switch {
	case typ == string(sdbus.ServiceOneshot) && len(u.commands("ExecStart")) == 0:
		// No main process at all (badService lets only a oneshot
		// service with RemainAfterExit=yes have no ExecStart=):
		// ExecMain* stay as the start reset them.
		m.startPostLocked(u, func(ok bool) {
			result := "done"
			switch {
			case !ok:
				result = "failed"
			case u.boolProp("RemainAfterExit", false):
				m.setStateLocked(u, "active", "exited")
			default:
				m.deactivateLocked(u)
			}
			m.finishJobLocked(j, result)
		})
		return
	case typ == string(sdbus.ServiceOneshot):
		m.spawnLocked(u, p, j)
		return
	case typ != string(sdbus.ServiceSimple) && typ != string(sdbus.ServiceIdle) && m.execFailsLocked(u),
		typ == string(sdbus.ServiceForking) && p.runFor == 0:
		// Every type but simple and idle waits for the program to run
		// at least (exec: its execve; notify, forking, dbus: a sign of
		// it): a program that cannot run fails the start job with the
		// unit (measured on 247-262 by the differential tester). A
		// forking service's first process is its control process, not
		// its main one: ExecMain* stay unset, and when it exits with a
		// failure (false, exit 3) it fails the start job too (measured
		// on 247-262: replay "forking service that fails"). One that
		// exits 0 and forks nothing leaves no main process: the start
		// goes on to ExecStartPost=, then the unit stops as a service
		// whose program ended (or stays exited with RemainAfterExit=),
		// and the start job ends with that stop, failed when
		// ExecStopPost= fails (measured on 247-262: 262 seed 546748 of
		// a long run).
		m.spawnLocked(u, p, j)
		u.exec.control = typ == string(sdbus.ServiceForking)
		return
	}
	if typ == string(sdbus.ServiceSimple) && len(u.commands("ExecStartPost")) > 0 && m.execFailsLocked(u) && !p.ignoreFailure {
		// A main process that fails before it runs (203/EXEC, ...)
		// ends while ExecStartPost= runs: the command completes, the
		// unit fails and so does its start job (10 of 12 runs on
		// 247-262 by the differential tester, 252 seeds 29007-29019;
		// in the others systemd saw ExecStartPost= end first and the
		// job ended done: known difference start-post-race). An idle
		// service's main process is started after its job ended.
		m.spawnLocked(u, p, nil) // its end comes at the next turn
		proc := u.proc
		m.startPostLocked(u, func(ok bool) {
			switch {
			case ok && u.proc == proc && !proc.ended:
				u.dropMain()
				u.mainEnded(cldExited, int32(p.exit))
				m.runCommandsLocked(u, "ExecStopPost")
				m.failLocked(u, "exit-code")
			case ok:
				m.afterPostLocked(u) // it ended while they ran
			}
			m.finishJobLocked(j, "failed")
		})
		return
	}
	if waitsForReady(typ) && p.runFor == 0 {
		// A program that ends at once never got ready: the start job
		// ends with the unit (spawnLocked).
		m.spawnLocked(u, p, j)
		return
	}
	j.started = true
	m.spawnLocked(u, p, nil)
	// The main process may have ended already (the unit failed, or
	// waits to restart).
	starting := (u.active == "activating" || u.active == "active" && idleStarting(u, u.sub)) && u.sub != "auto-restart"
	if starting && u.proc != nil && m.waitsForReadinessLocked(u, j) {
		return
	}
	if starting && u.proc != nil {
		m.startPostLocked(u, func(ok bool) {
			switch {
			case !ok:
				m.finishJobLocked(j, "failed")
				return
			case u.afterPost != nil:
				// The main process ended while ExecStartPost= ran: the
				// service goes on from its end now, and the start job
				// ends with the unit.
				m.afterPostLocked(u)
				if u.active == "failed" {
					m.finishJobLocked(j, "failed")
					return
				}
			default:
				m.setStateLocked(u, "active", "running")
			}
			m.finishJobLocked(j, "done")
		})
		return
	}
	if starting {
		m.setStateLocked(u, "active", "running")
	}
	m.finishJobLocked(j, "done")
}

// afterPostLocked goes on with the end of u's main process that came
// while its ExecStartPost= commands ran, if one did.
func (m *manager) afterPostLocked(u *unit) {
	if f := u.afterPost; f != nil {
		u.afterPost = nil
		f()
	}
}

// control is a service's running control process: the commands of one
// Exec*= setting, run in turn (runControlLocked). A stop kills it
// (dropControl), which stops its timers.
type control struct {
	cmds []execCommand // a field: pointers to distinct zero-size values may be equal
	// name is their setting, running the command running; a stop ends
	// its run killed (killLocked).
	name    string
	running int
	pid     uint32 // the running command's (made up, as the main process's)
	// ends is when the running command ends by itself; zero: never.
	ends time.Time
	// done is runControlLocked's.
	done func(code, status int32)
	// stopRunning stops the timer of the running command's end, for one
	// that takes time; stopTimeout the timer of the commands' timeout,
	// for a reload's or a stop's (dropControl).
	stopRunning, stopTimeout func()
}

// dropControl forgets u's control process, if it runs, and returns it:
// its commands ended, failed or were killed, and the ends the fake
// planned for them no longer come.
func (u *unit) dropControl() *control {
	c := u.control
	if c == nil {
		return nil
	}
	u.control = nil
	for _, stop := range []func(){c.stopRunning, c.stopTimeout} {
		if stop != nil {
			stop()
		}
	}
	return c
}

// inStartPost reports whether service u's ExecStartPost= commands run: a
// main process that ends meanwhile is handled once they ended
// (u.afterPost; systemd's service_sigchld_event in START_POST).
func (u *unit) inStartPost() bool { return u.control != nil && u.control.name == "ExecStartPost" }

// killLocked records that u's control process c was killed by a stop
// (its KillSignal=, SIGTERM unless set), as its command's run shows
// (measured on 247-262 by the differential tester: ExecStartPre='s
// "sleep 1000" reads 2/15).
func (c *control) killLocked(u *unit) { c.endedLocked(u, cldKilled, killSignal(u)) }

// killSignal is the signal a stop of u sends its processes first
// (KillSignal=).
func killSignal(u *unit) int32 {
	if n, ok := u.props["KillSignal"].Value().(int32); ok {
		return n
	}
	return 15 // SIGTERM
}

// endedLocked records the end of c's running command in its run. A
// daemon-reload while it ran made the run's record anew: only the end
// shows, its start times 0 (measured on 257 by the differential tester,
// seed 49010).
func (c *control) endedLocked(u *unit, code, status int32) {
	if runs := u.runs[c.name]; c.running < len(runs) && !runs[c.running].start.IsZero() {
		runs[c.running].ended(code, status)
		return
	}
	u.keepRun(c.name, c.running, execMain{pid: c.pid, code: code, status: status, exit: time.Now()})
}

// signaledLocked ends u's control process c, killed by signal sig
// (KillUnit): its command failed, whatever the signal (a command's end
// by SIGTERM is no clean exit: is_clean_exit, EXIT_CLEAN_COMMAND).
func (c *control) signaledLocked(u *unit, sig int32) {
	c.endedLocked(u, cldKilled, sig)
	u.dropControl()
	c.done(cldKilled, sig)
}

// runControlLocked runs the commands of Exec* setting name as u's control
// process and calls done with CLD_EXITED and 0 once they all succeeded (a
// command that fails with IgnoreFailure, "-", counts as a success), or
// with how the first that failed ended (a KillUnit kills it:
// signaledLocked). A command the fake
// says runs until stopped (sleep infinity) holds the rest until u is
// stopped: done is never called then. Each run is recorded, from its
// start while it runs (recordRunLocked).
func (m *manager) runControlLocked(u *unit, name string, done func(code, status int32)) {
	cmds := u.commands(name)
	c := &control{cmds: cmds, name: name, done: done}
	u.control = c
	var run func(i int)
	run = func(i int) {
		for ; i < len(cmds); i++ {
			p, known := m.controlProcess(u, cmds[i])
			start := time.Now()
			if known && p.runFor != 0 {
				c.running, c.pid, c.ends = i, 1000+m.lastJob, time.Time{}
				if p.runFor > 0 {
					c.ends = start.Add(p.runFor)
				}
				u.keepRun(name, i, execMain{pid: c.pid, start: start})
			}
			switch {
			case !known:
				m.recordRunLocked(u, name, i, time.Now(), 0)
				continue // ends at once, successfully
			case p.runFor < 0:
				return // until stopped
			case p.runFor > 0:
				i, exit := i, p.exit
				c.stopRunning = m.afterLocked(p.runFor, func() {
					if u.control != c {
						return // stopped meanwhile
					}
					if runs := u.runs[name]; i < len(runs) && runs[i].start.Equal(start) {
						runs[i].ended(cldExited, int32(exit)) // its run, PID kept
					} else {
						c.endedLocked(u, cldExited, int32(exit)) // made anew by a reload
					}
					if !u.cleanExit(cldExited, int32(exit)) && !cmds[i].IgnoreFailure {
						u.dropControl()
						done(cldExited, int32(exit))
						return
					}
					run(i + 1)
				})
				return
			}
			m.recordRunLocked(u, name, i, time.Now(), p.exit)
			if !u.cleanExit(cldExited, int32(p.exit)) && !cmds[i].IgnoreFailure {
				u.dropControl()
				done(cldExited, int32(p.exit))
				return
			}
		}
		u.dropControl()
		done(cldExited, 0)
	}
	run(0)
}

// spawnLocked starts u's main process p. For a oneshot service startJob is
// its start job, which ends when the process of its last ExecStart=
// command exits: each that succeeds spawns the next.
func (m *manager) spawnLocked(u *unit, p process, startJob *job) {
	proc := p
	if proc.argv == nil {
		if c, ok := u.mainCommand(proc.index); ok {
			proc.argv = c.Argv // a process SetUnitState made up
		}
	}
	proc.started = time.Now()
	proc.pid = 1000 + startJobID(startJob, m)
	u.proc = &proc
	u.exec = execMain{pid: proc.pid, start: proc.started, index: proc.index}
	u.execShown = true
	exited := func() {
		if u.proc != &proc || proc.ended {
			return
		}
		u.dropMain()
		u.mainEnded(cldExited, int32(proc.exit))
		// A command with "-" fails as a success (ExecMain* keep its
		// status), and so does an exit status of SuccessExitStatus=. A oneshot service's start runs its ExecStart=
		// commands in turn, each once the one before it succeeded
		// (measured on 247-262 by the differential tester: the first
		// that fails fails the unit, the later ones do not run, and
		// ExecMain* are the last one's).
		failed := !u.cleanExit(cldExited, int32(proc.exit)) && !proc.ignoreFailure
		if next, ok := m.command(u, proc.index+1); ok && !failed && startJob != nil && serviceType(u) == string(sdbus.ServiceOneshot) {
			u.keepRun("ExecStart", proc.index, u.exec)
			m.spawnLocked(u, next, startJob)
			return
		}
		if u.inExecStop() {
			// systemd waits for the running ExecStop= (service_sigchld_event
			// in STOP); a failure is the result at once, unless the
			// stop's own (RuntimeMaxUSec=) came first.
			if failed {
				u.failFirst("exit-code")
			}
			return
		}
		if (u.inStartPost() || u.inReload()) && startJob == nil {
			// systemd waits for the running ExecStartPost= or
			// ExecReload= before it handles the end
			// (service_sigchld_event in START_POST and RELOAD):
			// startPostLocked or reloadEndedLocked goes on from here
			// once they ended. A failure is the unit's result at once
			// (measured on 252).
			if failed {
				u.failFirst("exit-code")
			}
			u.afterPost = func() { m.mainEndSettleLocked(u, failed, nil) }
			return
		}
		m.mainEndSettleLocked(u, failed, startJob)
	}
	switch {
	case proc.runFor < 0:
	case proc.runFor == 0:
		// It ends once the run queue's pass is over (runqueue.go): its
		// ExecStartPost= runs first (startMainLocked; measured on
		// 247-262 by the differential tester: /bin/true with
		// ExecStartPost=/bin/false fails the start job), and the jobs
		// ordered after its start have run.
		m.exitLocked(exited)
	default:
		proc.stopEnd = m.afterLocked(proc.runFor, exited)
	}
}

// dropMain forgets service u's main process, if it runs, and returns it:
// it ended, was killed or left the unit, and the end the fake planned
// for it no longer comes.
func (u *unit) dropMain() *process {
	p := u.proc
	if p == nil {
		return nil
	}
	u.proc, p.ended = nil, true
	if p.stopEnd != nil {
		p.stopEnd()
	}
	return p
}

// mainEndSettleLocked is what follows the end of service u's main
// process (failed: not a clean exit): the unit changes state first;
// startJob, a oneshot service's start job or a start job waiting for
// readiness, ends with it. A service that ends stops as if stopped:
// ExecStop= after a success, ExecStopPost= in any case, and either
// failing fails it (measured on 247-262 by the differential tester).
// One that ends before it got ready (its start job still waits) stops at
// once: a notify service fails (Result protocol), a dbus one without its
// name ends (measured on 247-262 by the differential tester).
func (m *manager) mainEndSettleLocked(u *unit, failed bool, startJob *job) {
	finish := func(result string) {
		if startJob != nil && !startJob.finished {
			m.finishJobLocked(startJob, result)
		}
	}
	switch {
	case failed:
		m.runCommandsLocked(u, "ExecStopPost")
		m.failLocked(u, "exit-code")
		finish("failed")
	case startJob != nil && waitsForReady(serviceType(u)):
		// A dbus one goes on as a service whose program ended
		// (service_enter_running): exited with RemainAfterExit=, its
		// ExecStartPost= never run (257 seed 560782 of a long run), else
		// ExecStop= first, then service_enter_stop (measured on 252 by
		// the differential tester, 252 seed 55004: an ExecStop= that
		// fails fails it).
		if serviceType(u) != string(sdbus.ServiceDBus) {
			m.runCommandsLocked(u, "ExecStopPost")
			m.failLocked(u, "protocol")
			finish("failed")
			break
		}
		m.mainEndedCleanLocked(u, finish)
	case startJob != nil:
		// It goes on once ExecStartPost= (of a oneshot service, which
		// runs them after its main process) succeeded.
		m.startPostLocked(u, func(ok bool) {
			if !ok {
				finish("failed")
				return
			}
			m.mainEndedCleanLocked(u, finish)
		})
	default:
		m.mainEndedCleanLocked(u, finish)
	}
}

// mainEndedCleanLocked goes on after service u's main process ended
// cleanly: with RemainAfterExit= it is active/exited, else it stops as if
// stopped (stopAfterMainLocked). finish is called with the result of the
// job that waits for it: done, or failed when a stop command failed.
func (m *manager) mainEndedCleanLocked(u *unit, finish func(jobResult string)) {
	if u.boolProp("RemainAfterExit", false) {
		m.setStateLocked(u, "active", "exited")
		finish("done")
		return
	}
	m.stopAfterMainLocked(u, finish)
}

// stopAfterMainLocked stops service u, whose main process ended cleanly,
// as if stopped: ExecStop= (execStopLocked: deactivating/stop while they
// run, no job), then ExecStopPost=; either failing fails it (Result
// exit-code; signal or timeout when ExecStop= was killed), else it goes
// inactive. done is called with the result of the job that waits for it:
// done when they succeeded, else failed. (Measured on
// 247-262 by the differential tester; a main process KillUnit ended with
// SIGHUP too, 247 seed 120276 of a long run; ExecStop= that takes time on
// 252 and 262.)
func (m *manager) stopAfterMainLocked(u *unit, done func(jobResult string)) {
	m.execStopLocked(u, func(result string) {
		if !m.runCommandsLocked(u, "ExecStopPost") || result != "" {
			if result == "" {
				result = "exit-code"
			}
			m.failLocked(u, result)
			done("failed")
			return
		}
		m.deactivateLocked(u)
		done("done")
	})
}

// execStopLocked runs service u's ExecStop= commands as its control
// process, u deactivating/stop, and calls done with how they ended: ""
// when they succeeded (or there are none), "exit-code" when one failed,
// "signal" when KillUnit killed it, "timeout" when TimeoutStopUSec=
// passed first (systemd's stop timer: the command is killed with
// KillSignal=). Commands that end at once end before it returns; one that
// takes time keeps u in its stop, and what waits for the stop
// (whenStoppedLocked) goes on once done returned. Measured on 252 and 262
// by the differential tester: a stop job runs meanwhile, a second stop
// merges into it, a start (replace) cancels it and waits, a restart
// likewise; KillUnit of the command fails the unit, Result signal, its
// main process killed as by a stop; a main process killed meanwhile is
// the result at once, the unit still stopping.
func (m *manager) execStopLocked(u *unit, done func(result string)) {
	if len(u.commands("ExecStop")) == 0 {
		done("")
		return
	}
	m.setStateLocked(u, "deactivating", "stop")
	m.runControlLocked(u, "ExecStop", func(code, status int32) {
		switch {
		case code == cldExited && status == 0:
			done("")
		case code == cldExited:
			done("exit-code")
		default:
			done("signal")
		}
		m.stoppedLocked(u)
	})
	c := u.control
	d, finite := stopTimeout(u)
	if c == nil || !finite {
		return // ended at once, or no timeout
	}
	c.stopTimeout = m.afterLocked(d, func() {
		if u.control != c {
			return // ended meanwhile
		}
		u.dropControl()
		c.killLocked(u)
		done("timeout")
		m.stoppedLocked(u)
	})
}

// failFirst makes result u's result unless u failed already: the first
// failure stays the result (service.c's "if (s->result ==
// SERVICE_SUCCESS) s->result = f").
func (u *unit) failFirst(result string) {
	if u.result == "" || u.result == "success" {
		u.result = result
	}
}

// inExecStop reports whether service u's ExecStop= commands run.
func (u *unit) inExecStop() bool { return u.control != nil && u.control.name == "ExecStop" }

// whenStoppedLocked calls f once the stop of u that runs its ExecStop=
// commands ended (execStopLocked).
func (m *manager) whenStoppedLocked(u *unit, f func()) {
	u.whenStopped = append(u.whenStopped, f)
}

// stoppedLocked calls what waited for u's stop.
func (m *manager) stoppedLocked(u *unit) {
	waiting := u.whenStopped
	u.whenStopped = nil
	for _, f := range waiting {
		f()
	}
}

// stopTimeout is service u's TimeoutStopUSec= (90 s unless set), and
// whether it is finite: set to 0 over D-Bus it is no time at all (a
// reload reads it back as no timeout: readBackLocked).
func stopTimeout(u *unit) (time.Duration, bool) { return timeoutProp(u, "TimeoutStopUSec") }

// timeoutProp is the timeout service u's property name sets (90 s
// unless set), and whether it is finite.
func timeoutProp(u *unit, name string) (time.Duration, bool) {
	usec := u.u64(name, 90_000_000)
	if usec >= uint64(math.MaxInt64/int64(time.Microsecond)) {
		return 0, false
	}
	return time.Duration(usec) * time.Microsecond, true
}

// waitsForReady reports whether a service of type typ is started only
// once its main process says so (sd_notify READY=1, its bus name), not
// once it runs.
func waitsForReady(typ string) bool {
	return typ == string(sdbus.ServiceNotify) || typ == string(sdbus.ServiceNotifyReload) || typ == string(sdbus.ServiceDBus)
}

// startPostLocked runs u's ExecStartPost= commands once its main
// process runs (for a oneshot service: once it exited successfully), as
// its control process (activating/start-post, the start job running on),
// and calls done with whether they succeeded: at once for commands that
// end at once, else when the last ends. When one fails (or KillUnit
// kills it), the main process is killed and u fails (exit-code) before
// done. A stop meanwhile kills them, and done is never called: the stop
// ends the start job.
func (m *manager) startPostLocked(u *unit, done func(ok bool)) {
	if len(u.commands("ExecStartPost")) == 0 {
		done(true)
		return
	}
	m.setStateLocked(u, "activating", "start-post")
	m.runControlLocked(u, "ExecStartPost", func(code, status int32) {
		if code == cldExited && status == 0 {
			done(true)
			return
		}
		u.afterPost = nil // the main process's end is the failure's now
		m.killForStopLocked(u)
		m.runCommandsLocked(u, "ExecStopPost")
		switch {
		case u.result != "" && u.result != "success":
			// The main process failed while they ran: the first
			// failure stays the result (measured on 252, 257 and 262
			// by the differential tester: a main process that exited 3,
			// then ExecStartPost= killed by KillUnit).
			m.failLocked(u, u.result)
		case code == cldExited:
			m.failLocked(u, "exit-code")
		default:
			m.failLocked(u, "signal") // killed (KillUnit)
		}
		done(false)
	})
}

// waitsForReadinessLocked handles a Type=notify, notify-reload, forking or
// dbus service whose main process is one the fake interprets and that
// runs (sleep N): such a program never notifies, forks or takes its bus
// name, so, as on systemd (measured on 247 to 262 by the differential
// tester; dbus on 252-262), the unit stays activating/start and its start job running until
// TimeoutStartUSec= (90 s unless set), when the main process is killed
// and unit and job fail with timeout. It reports whether it took the
// start over. For a program the fake does not know, it assumes it
// notifies (or forks) at once.
func (m *manager) waitsForReadinessLocked(u *unit, j *job) bool {
	switch serviceType(u) {
	case "notify", "notify-reload", "forking", "dbus":
	default:
		return false
	}
	cmd, _ := u.mainCommand(0)
	if p, known := interpretKnown(cmd.Argv); !known || p.runFor == 0 {
		return false
	}
	timeout := 90 * time.Second
	if v, ok := u.props["TimeoutStartUSec"]; ok {
		usec, _ := v.Value().(uint64)
		if usec == 0 || usec >= uint64(math.MaxInt64/int64(time.Microsecond)) {
			return true // no timeout: activating until stopped
		}
		timeout = time.Duration(usec) * time.Microsecond
	}
	proc := u.proc
	m.afterLocked(timeout, func() {
		if u.proc != proc || u.active != "activating" {
			return // stopped, or ended by itself, meanwhile
		}
		m.killForStopLocked(u)
		m.failLocked(u, "timeout")
		m.finishJobLocked(j, "timeout")
	})
	return true
}

func startJobID(j *job, m *manager) uint32 {
	if j != nil {
		return j.id
	}
	return m.lastJob
}

// si_code values of a child's end (ExecMainCode).
const (
	cldExited int32 = 1
	cldKilled int32 = 2
	cldDumped int32 = 3
)

// Signals by their action when not handled (signal(7)): those that
// dump core, and those that do not end a process (ignored, or stopping
// it). The realtime signals end it.
var (
	coreSignals      = map[int32]bool{3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 11: true, 24: true, 25: true, 31: true}
	harmlessSignals  = map[int32]bool{17: true, 18: true, 19: true, 20: true, 21: true, 22: true, 23: true, 28: true}
	cleanExitSignals = map[int32]bool{1: true, 2: true, 13: true, 15: true} // HUP, INT, PIPE, TERM
)

// checkExitStatus checks status, how a service's main process ended,
// against the service's Result after it: exit-code takes an exit
// status (1 to 255: 0 is a success), signal a signal that ends a process
// (1 to 64 but those that are ignored or stop it, and 32 and 33, which
// the C library keeps), core-dump one whose default action dumps core.
// With signal, SIGHUP, SIGINT, SIGPIPE and SIGTERM are refused unless
// oneshot: systemd counts them a clean exit of any other service's main
// process (is_clean_exit, EXIT_CLEAN_DAEMON). Other results take none.
func checkExitStatus(result string, status int32, oneshot bool) error {
	sig := func() error {
		switch {
		case status < 1 || status > sigRTMax || status > 31 && status < sigRTMin:
			return fmt.Errorf("exit status %d with unit result %s: want a signal number, 1 to 31 or %d to %d", status, result, sigRTMin, sigRTMax)
		case harmlessSignals[status]:
			return fmt.Errorf("exit status %d with unit result %s: SIG%s does not end a process", status, result, signalName(status))
		}
		return nil
	}
	switch result {
	case "exit-code":
		if status < 1 || status > 255 {
			return fmt.Errorf("exit status %d with unit result exit-code: want 1 to 255", status)
		}
	case "signal":
		if err := sig(); err != nil {
			return err
		}
		if cleanExitSignals[status] && !oneshot {
			return fmt.Errorf("exit status %d with unit result signal: SIG%s ends a service's main process cleanly unless it is Type=oneshot", status, signalName(status))
		}
	case "core-dump":
		if err := sig(); err != nil {
			return err
		}
		if !coreSignals[status] {
			return fmt.Errorf("exit status %d with unit result core-dump: SIG%s dumps no core", status, signalName(status))
		}
	default:
		return fmt.Errorf("exit status %d with unit result %s: only exit-code, signal and core-dump take one", status, result)
	}
	return nil
}

// mainExit is how a service's main process ended in a failure with
// Result result (ExecMainCode and ExecMainStatus): with status (checked
// by checkExitStatus) its code; with none (0) as the fake ends it for
// that result: exit-code exits 1 (as /bin/false), signal is SIGKILL,
// core-dump SIGSEGV, watchdog SIGABRT dumping core (WatchdogSignal='s
// default), oom-kill the kernel's SIGKILL, and the others (timeout,
// resources, protocol, ...) the SIGTERM of systemd's stop.
func mainExit(result string, status int32) (code, st int32) {
	or := func(def int32) int32 {
		if status != 0 {
			return status
		}
		return def
	}
	switch result {
	case "exit-code":
		return cldExited, or(1)
	case "signal":
		return cldKilled, or(9)
	case "core-dump":
		return cldDumped, or(11)
	case "watchdog":
		return cldDumped, 6
	case "oom-kill":
		return cldKilled, 9
	}
	return cldKilled, 15
}

// mainFailedLocked records the end of service u's main process as u
// fails with Result result: a running main process ends as mainExit says;
// with none running, a status (not 0) records a run that ended so, its
// PID numbered as spawnLocked numbers them (after job j, or the last
// job), and 0 leaves ExecMain* as they are. For the start job j of a
// Type=forking service, the process that failed is its control process
// (startMainLocked): ExecStart='s record shows it, ExecMain* do not.
func (m *manager) mainFailedLocked(u *unit, result string, status int32, j *job) {
	if u.kind != "service" {
		return
	}
	switch {
	case u.proc != nil:
		u.dropMain()
	case status != 0:
		now := time.Now()
		u.exec = execMain{pid: 1000 + startJobID(j, m), start: now}
		u.execShown = true
		u.exec.control = j != nil && (j.typ == jobStart || j.typ == jobRestart) && serviceType(u) == string(sdbus.ServiceForking)
	default:
		return
	}
	u.mainEnded(mainExit(result, status))
}

// execMain is what systemd keeps of a service's main process after it
// ended: ExecMainPID, ExecMainCode, ExecMainStatus and the timestamps.
type execMain struct {
	pid          uint32
	code, status int32
	start, exit  time.Time
	index        int // the ExecStart= command it ran
	// control: it ran as the control process (a forking service's
	// ExecStart= that failed): ExecStart='s record shows it, ExecMain*
	// do not.
	control bool
}

// mainEnded records that u's main process ended (code, status).
// ExecStart='s record shows it again, even after a daemon-reload forgot
// the records (measured on 247-262 by the differential tester: a main
// process started before the reload and stopped after it).
func (u *unit) mainEnded(code, status int32) {
	u.exec.ended(code, status)
	u.execShown = true
}

func (e *execMain) ended(code, status int32) {
	e.code, e.status, e.exit = code, status, time.Now()
}

// times are when the process started and ended, realtime and monotonic
// in microseconds (0: not yet), as an Exec* property gives them.
func (e *execMain) times(c clock) (startRT, startMono, exitRT, exitMono uint64) {
	if !e.start.IsZero() {
		d := c.dual(e.start)
		startRT, startMono = d.real, d.mono
	}
	if !e.exit.IsZero() {
		d := c.dual(e.exit)
		exitRT, exitMono = d.real, d.mono
	}
	return startRT, startMono, exitRT, exitMono
}

func usec(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixMicro())
}

// liveMountLocked is BindMountUnit and MountImageUnit: the fake runs no
// service in a mount namespace of its own, so each answers, after its
// checks, that the unit is not running in one.
func (m *manager) liveMountLocked(c *busd.Call, method, name, src, dst string) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	if sdversions.Behaves(m.release, sdversions.LiveMountChecks) {
		if u.kind != "service" {
			return nil, &callErr{dbusErr + "NotSupported", method + " operation is not supported for unit type '" + u.kind + "'"}
		}
		return nil, errInvalidArgs("Unit '%s' not running in private mount namespace, cannot live mount.", name)
	}
	// Before 257, polkit before the paths (measured on 252).
	if err := m.authorizeLocked(c); err != nil {
		return nil, err
	}
	switch {
	case !strings.HasPrefix(src, "/") || !normalizedPath(src):
		return nil, errInvalidArgs("Source path must be absolute and normalized.")
	case !strings.HasPrefix(dst, "/") || !normalizedPath(dst):
		return nil, errInvalidArgs("Destination path must be absolute and normalized.")
	case u.kind != "service":
		return nil, errInvalidArgs("Unit is not of type .service")
	}
	return nil, errInvalidArgs("Unit not running in private mount namespace, cannot activate bind mount")
}
