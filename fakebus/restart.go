package fakebus

// Automatic restarts (systemd's Restart=, RestartSec=: service_enter_dead,
// service_shall_restart, service_enter_restart in src/core/service.c).
// Measured on 247, 252, 257 and 262 by the differential tester (replays
// "restart"):
//
//	running --main process ends, Restart= says so--> failed (or dead), then
//	    activating/auto-restart: the unit stays loaded, its start job (if
//	    still running) ended with the failure, Result is kept
//	auto-restart --RestartUSec= later (100 ms unless set)--> a restart job,
//	    mode replace, counted in NRestarts: its stop half leaves
//	    auto-restart (inactive/dead, no ExecStop=), its start half starts
//	    the service again, unless the start rate limit refuses it, which
//	    fails the unit for good (startlimit.go)
//	auto-restart --StopUnit--> inactive/dead (no ExecStopPost=), Result kept,
//	    its OnSuccess= units started (onfailure.go)
//	auto-restart --StartUnit--> the start job waits for the restart (it
//	    merges into it); from 257 the restart happens now, as the job's
//	    start (counted in NRestarts; sdversions.StartRestartsNow)
//	auto-restart --ResetFailedUnit--> Result success, NRestarts 0, still waiting
//
// A service restarts after a failure (Restart=on-failure: any result but
// success; on-abnormal: not exit-code either; on-abort: signal or
// core-dump; on-watchdog: watchdog), after a success (on-success), or
// either (always), but never after a stop asked for (StopUnit, the stop
// half of a restart, a stop job queued) nor after the start rate limit
// refused a start; RestartPreventExitStatus= and RestartForceExitStatus=
// overrule Restart= (exitstatus.go). From 254 the hold-off grows with
// each restart (RestartSteps=, RestartMaxDelayUSec=: restartUSecNext),
// and RestartMode=direct goes from running to auto-restart without
// failed or inactive between (restartsDirect), keeping a start job that
// still ran (keptByDirectRestart), measured on 257 and 262.

import (
	"math"
	"math/big"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// defaultRestartUSec is RestartSec='s default, 100 ms.
const defaultRestartUSec = 100_000

// restartUSec is service u's RestartUSec=, lowered to its
// RestartMaxDelayUSec= (from 254) where that is smaller, as systemd's
// verification of the unit lowers it (service_verify).
func restartUSec(u *unit) uint64 {
	return min(u.u64("RestartUSec", defaultRestartUSec), u.u64("RestartMaxDelayUSec", math.MaxUint64))
}

// restartUSecNext is the hold-off before service u's next restart
// (RestartUSecNext, service_restart_usec_next): RestartUSec= for the
// first, growing from there to RestartMaxDelayUSec= in RestartSteps=
// steps, r·(max/r)^(i/steps) for the i-th restart after the first, and
// the maximum after the last step; RestartUSec= unless both are set
// (from 254).
func restartUSecNext(u *unit) uint64 {
	r, most := restartUSec(u), u.u64("RestartMaxDelayUSec", math.MaxUint64)
	steps, _ := u.props["RestartSteps"].Value().(uint32)
	next := uint64(u.restart.count) + 1 // restarts counted when queued
	if next <= 1 || steps == 0 || r == 0 || most == math.MaxUint64 || r >= most {
		return r
	}
	if next > uint64(steps) {
		return most
	}
	return growHold(r, most, next-1, uint64(steps))
}

// growHold is r·(most/r)^(i/steps), 0 < i < steps and r < most, in
// whole microseconds rounded down. systemd computes it in long double;
// float64 is less precise: where its result is near a whole microsecond,
// the exact value decides (r·(most/r)^(i/steps) ≥ c exactly when
// most^i·r^(steps−i) ≥ c^steps), for steps small enough to compute it.
// Where the exact value is a whole number and i/steps has no exact
// binary form (1000^(1/3)), long double may fall just below it and
// systemd round down one more: not measured.
func growHold(r, most, i, steps uint64) uint64 {
	g := float64(r) * math.Pow(float64(most)/float64(r), float64(i)/float64(steps))
	t := min(uint64(g), most)
	if steps > 1024 {
		return t
	}
	atLeast := func(c uint64) bool {
		lhs := new(big.Int).Exp(new(big.Int).SetUint64(most), new(big.Int).SetUint64(i), nil)
		lhs.Mul(lhs, new(big.Int).Exp(new(big.Int).SetUint64(r), new(big.Int).SetUint64(steps-i), nil))
		return lhs.Cmp(new(big.Int).Exp(new(big.Int).SetUint64(c), new(big.Int).SetUint64(steps), nil)) >= 0
	}
	switch {
	case t < most && atLeast(t+1):
		return t + 1
	case t > r && !atLeast(t):
		return t - 1
	}
	return t
}

// restartState is a service's automatic-restart state.
type restartState struct {
	// stopping is set while a stop asked for runs (stopUnitLocked): the
	// service does not restart after it (systemd's forbid_restart).
	stopping bool
	// count is NRestarts; flush makes the next start reset it (a
	// service that ended without restarting keeps its count until then).
	count uint32
	flush bool
	// due is set once the hold-off ended: the start job a StartUnit left
	// waiting (before 257) may run.
	due bool
	// direct is set while the service waits to restart by
	// RestartMode=direct (from 254): it never left activating, so a start
	// job that ran when it ended keeps running through the wait
	// (keptByDirectRestart) and runs again at the restart.
	direct bool
	// cancel stops the pending hold-off (afterLocked); nil when none.
	// gen is the generation of its arming: a newer one, or a cancel,
	// voids an older.
	cancel func()
	gen    int
}

// shallRestart reports whether service u, which just ended with result
// u.result, restarts: not if its main process's end is in
// RestartPreventExitStatus=, else if it is in RestartForceExitStatus=,
// else as Restart= says (service_shall_restart; exitstatus.go).
func (m *manager) shallRestart(u *unit) bool {
	if main := u.exec; !main.control {
		switch {
		case u.inExitSet("RestartPreventExitStatus", main.code, main.status):
			return false
		case u.inExitSet("RestartForceExitStatus", main.code, main.status):
			return true
		}
	}
	r := u.result
	switch u.str("Restart") {
	case "always":
		// Before 251 a start ExecCondition= skipped restarts too.
		return r != "exec-condition" || !m.behaves(sdversions.AlwaysSkipsExecCondition)
	case "on-success":
		return r == "success"
	case "on-failure":
		return r != "success" && r != "exec-condition"
	case "on-abnormal":
		return r != "success" && r != "exit-code" && r != "exec-condition"
	case "on-abort":
		return r == "signal" || r == "core-dump"
	case "on-watchdog":
		return r == "watchdog"
	}
	return false
}

// autoRestartLocked is the end of service u (failed or dead, its state set
// already): if it restarts (it may, and nothing forbids it), it waits in
// activating/auto-restart for its RestartUSec= and reports true (the
// caller then leaves it loaded); otherwise its NRestarts is reset at its
// next start.
func (m *manager) autoRestartLocked(u *unit, may bool) bool {
	if u.kind != "service" {
		return false
	}
	if !m.willRestart(u, may) {
		u.restart.flush = true
		return false
	}
	m.setStateLocked(u, "activating", "auto-restart")
	u.restart.due, u.restart.direct = false, false
	hold := restartUSecNext(u)
	if hold > uint64(maxTimer/time.Microsecond) {
		return true // infinity: it waits for good
	}
	u.restart.gen++
	gen := u.restart.gen
	u.restart.cancel = m.afterLocked(time.Duration(hold)*time.Microsecond, func() {
		if u.restart.gen == gen && !u.gone && u.sub == "auto-restart" {
			u.restart.cancel = nil
			m.restartDueLocked(u)
		}
	})
	return true
}

// willRestart reports whether service u, which just ended with result
// u.result, restarts (autoRestartLocked): it may, no stop asked for
// forbids it, and its settings say so.
func (m *manager) willRestart(u *unit, may bool) bool {
	stopQueued := u.job != nil && u.job.typ == jobStop
	return u.kind == "service" && may && !u.restart.stopping && !stopQueued && m.shallRestart(u)
}

// restartsDirect reports whether service u, which just ended with result
// u.result, restarts without passing through failed or inactive
// (RestartMode=direct, from 254): its OnFailure= and OnSuccess= units do
// not start then.
func (m *manager) restartsDirect(u *unit, may bool) bool {
	return u.str("RestartMode") == "direct" && m.willRestart(u, may)
}

// keptByDirectRestart reports whether start job j (or a restart's start
// half) runs on although its service ended: the service waits to restart
// by RestartMode=direct, still activating, and systemd ends a start job
// only once its unit is active, inactive or failed (job_finish_and_invalidate
// from unit_notify; measured on 257 and 262 by the differential tester
// with a oneshot service and an exec one whose program is missing).
func keptByDirectRestart(j *job) bool {
	u := j.unit
	return (j.typ == jobStart || j.typ == jobRestart) && !j.started && u.sub == "auto-restart" && u.restart.direct
}

// maxTimer is the longest hold-off the fake arms a timer for; a longer
// one (infinity) never ends.
const maxTimer = 100 * 365 * 24 * time.Hour

// restartDueLocked is the end of service u's hold-off: a restart job,
// mode replace, unless a stop job is queued (service_enter_restart). A
// start job left waiting merges into it.
func (m *manager) restartDueLocked(u *unit) {
	if u.job != nil && u.job.typ == jobStop {
		return
	}
	if j := u.job; j != nil && keptByDirectRestart(j) {
		// The start job the wait kept runs again: no new job (measured
		// on 257 and 262 by the differential tester: no JobNew,
		// NRestarts counts each restart, and the job fails once the
		// start rate limit refuses one).
		u.restart.direct = false
		u.restart.count++
		u.restart.flush = false
		m.startUnitLocked(j)
		return
	}
	u.restart.due = true
	j, _, err := m.installLocked(u, jobRestart, sdbus.ModeReplace, nil)
	if err != nil {
		// "Failed to schedule restart job": the unit fails for good.
		u.restart.due = false
		m.failNoRestartLocked(u, "resources")
		return
	}
	u.restart.count++
	u.restart.flush = false
	m.maybeRunLocked(j)
}

// cancelRestart ends service u's wait to restart, if any.
func (u *unit) cancelRestart() {
	u.restart.direct = false
	u.restart.gen++
	if u.restart.cancel != nil {
		u.restart.cancel()
		u.restart.cancel = nil
	}
	u.restart.due = false
}

// startWaitsForRestartLocked is a start job j of service u run while u
// waits to restart: before 257 the job stays queued until the restart
// (service_start's EAGAIN), which it merges into, and it reports true;
// from 257 the restart happens now, the job's start (NRestarts counts it),
// and it reports false (sdversions.StartRestartsNow).
func (m *manager) startWaitsForRestartLocked(u *unit, j *job) bool {
	if u.sub != "auto-restart" || u.restart.due {
		return false
	}
	if m.behaves(sdversions.StartRestartsNow) {
		u.cancelRestart()
		u.restart.count++
		u.restart.flush = false
		return false
	}
	j.state = "waiting"
	return true
}
