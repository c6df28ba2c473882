package fakebus

// The start rate limit (systemd's unit_test_start_limit and
// ratelimit_below, src/basic/ratelimit.c): a unit of a type that has one
// starts at most StartLimitBurst= times within StartLimitIntervalUSec=
// (the manager's DefaultStartLimit* when unset); the start after those
// fails the unit, Result start-limit-hit, and its job. Measured on 247,
// 252, 257 and 262 by the differential tester (replays "start rate
// limit" and "start rate limit across a reload"):
//
//   - what counts is a start that gets past the unit's conditions and
//     asserts: a start job of an active unit, or one that a Condition*=
//     skips, does not count; the start half of a restart does;
//   - the window opens at the first start that counts and lasts the
//     interval from then; a burst or an interval of 0 turns the limit off;
//   - a refused start leaves the unit failed, its job failed; Result reads
//     start-limit-hit only where the unit's result was success (a failed
//     service keeps exit-code), but on 262, where it always does
//     (sdversions.StartLimitHitResult);
//   - ResetFailedUnit and ResetFailed close the window, as does the
//     unit's collection; a daemon-reload or re-execution closes it before
//     257, carries it over from 257 (sdversions.StartLimitSerialized).
//
// Slices, scopes and targets have no start rate limit.

import (
	"math"
	"time"

	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// startWindow is a unit's start rate limit window (systemd's RateLimit
// of the unit: begin and num).
type startWindow struct {
	begin time.Time // when the window opened; zero: none is open
	num   uint32    // the starts counted in it
}

// below counts a start at now and reports whether it is within burst
// starts of the window of interval that holds now, as ratelimit_below
// does.
func (w *startWindow) below(interval time.Duration, burst uint32, now time.Time) bool {
	if interval <= 0 || burst == 0 {
		return true
	}
	if w.begin.IsZero() || now.Sub(w.begin) > interval {
		w.begin, w.num = now, 1
		return true
	}
	if w.num < math.MaxUint32 {
		w.num++
	}
	return w.num <= burst
}

// The manager's defaults, DefaultStartLimitIntervalUSec and
// DefaultStartLimitBurst (the same on every release captured).
const (
	defaultStartLimitInterval = 10_000_000 // µs
	defaultStartLimitBurst    = 5
)

// startLimit returns u's start rate limit: its interval (the longest
// Duration for infinity) and burst.
func (u *unit) startLimit() (time.Duration, uint32) {
	interval := u.u64("StartLimitIntervalUSec", defaultStartLimitInterval)
	burst, ok := u.props["StartLimitBurst"].Value().(uint32)
	if !ok {
		burst = defaultStartLimitBurst
	}
	if interval > uint64(math.MaxInt64/time.Microsecond) {
		return math.MaxInt64, burst
	}
	return time.Duration(interval) * time.Microsecond, burst
}

// startLimitHitLocked counts a start of u against its start rate limit
// and, once that refuses it, fails u and its start job j, as the
// types' can_start does, and reports true.
func (m *manager) startLimitHitLocked(u *unit, j *job) bool {
	if !unitTypes[u.kind].startLimit {
		return false
	}
	interval, burst := u.startLimit()
	if u.startWindow.below(interval, burst, time.Now()) {
		return false
	}
	result := u.result
	if result == "" || result == "success" || m.behaves(sdversions.StartLimitHitResult) {
		result = "start-limit-hit"
	}
	m.failNoRestartLocked(u, result)
	m.finishJobLocked(j, "failed")
	return true
}
