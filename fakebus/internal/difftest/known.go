package difftest

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Known is a difference between fakebus and systemd that the tester
// found and that is not fixed: docs/fakesystemd.md lists each (by ID)
// with its reason. A sequence whose first differing step is a known
// difference counts as agreeing up to that step; what it would have done
// after is not compared, unless the difference is only in how a step is
// printed (same): both runs are then in the same state, and the
// comparison goes on.
type Known struct {
	ID     string // as docs/fakesystemd.md names it
	Reason string
	match  func(o Op, real, fake Step) bool
	same   bool
}

// known are the documented differences.
var known = []Known{
	{
		ID: "dependency-order",
		Reason: "systemd lists a unit's dependencies (After=, Wants=, ...) in the order of its hash table, " +
			"whose key is random per boot: two boots of the same release list them in different orders",
		same: true,
		match: func(_ Op, real, fake Step) bool {
			return real.Op == fake.Op && real.Reply == fake.Reply &&
				strings.Join(real.Signals, "\n") == strings.Join(fake.Signals, "\n") &&
				strings.Join(real.Jobs, "\n") == strings.Join(fake.Jobs, "\n") &&
				strings.Join(sortedLists(real.Units), "\n") == strings.Join(sortedLists(fake.Units), "\n")
		},
	},
	{
		ID: "cgroup-procs-order",
		Reason: "GetUnitProcesses lists a cgroup's processes in the order the kernel's cgroup.procs gives them, " +
			"which is not always the order they were moved in (seen once on 247: two processes a scope's PIDs= " +
			"moved in listed the other way round; 262 seed 66383 the same; rapid could not make either happen again); the fake lists them in " +
			"the order it placed them",
		same: true,
		match: func(o Op, real, fake Step) bool {
			return o.Kind == OpProcesses && real.Op == fake.Op && real.Reply != fake.Reply &&
				strings.Join(real.Signals, "\n") == strings.Join(fake.Signals, "\n") &&
				strings.Join(real.Jobs, "\n") == strings.Join(fake.Jobs, "\n") &&
				strings.Join(real.Units, "\n") == strings.Join(fake.Units, "\n") &&
				procRow.ReplaceAllString(real.Reply, "()") == procRow.ReplaceAllString(fake.Reply, "()") &&
				sortedRows(real.Reply) == sortedRows(fake.Reply)
		},
	},
	{
		ID:     "calendar-next-elapse",
		Reason: "the fake computes no calendar time: a timer's OnCalendar= values keep it waiting, never elapse, and read next elapse 0",
		match: func(_ Op, real, fake Step) bool {
			if real.Op != fake.Op || real.Reply != fake.Reply || len(real.Units) != len(fake.Units) {
				return false
			}
			differs := false
			for i := range real.Units {
				r := calendarNext.ReplaceAllString(real.Units[i], "${1}next=0)")
				if r != fake.Units[i] {
					return false
				}
				differs = differs || r != real.Units[i]
			}
			return differs && strings.Join(real.Signals, "\n") == strings.Join(fake.Signals, "\n") &&
				strings.Join(real.Jobs, "\n") == strings.Join(fake.Jobs, "\n")
		},
	},
	{
		ID: "unit-file-programs",
		Reason: "a unit file describes the system the fake stands in for, whose programs this machine need not have: " +
			"the fake runs its commands as it interprets them, where systemd fails a program it cannot find (203/EXEC)",
		match: func(_ Op, real, fake Step) bool {
			// Only what the program's run decides may differ: its
			// records and the unit's states, result and main status.
			return real.Op == fake.Op && unitsDifferOnly(real, fake, func(r, f string) bool {
				return strings.Contains(r, `("/nonexistent/program"`) && strings.Contains(r, "status=203)") &&
					programOutcome(r) == programOutcome(f)
			})
		},
	},
	{
		ID: "unit-file-accounts",
		Reason: "a unit file describes the system the fake stands in for, whose accounts this machine need not have: " +
			"the fake runs a service of a User= or Group= no account here has, where systemd fails it (217/USER, 216/GROUP)",
		match: func(_ Op, real, fake Step) bool {
			// Only what the run decides may differ: the unit's states,
			// result and main status, and its commands' records.
			return real.Op == fake.Op && unitsDifferOnly(real, fake, func(r, f string) bool {
				return accountFailure.MatchString(r) && fileUnit.MatchString(r) && runOutcome(r) == runOutcome(f)
			})
		},
	},
	{
		ID: "restart-loop",
		Reason: "a service that restarts with no start rate limit (StartLimitBurst=0, an interval of 0 or 1 µs) restarts for ever, " +
			"on systemd as on the fake: how many times it restarted when a step is recorded, and in which state it is, is timing's",
		match: func(_ Op, real, fake Step) bool {
			return real.Op == fake.Op && real.Reply == fake.Reply && len(real.Looping) > 0 && slices.Equal(real.Looping, fake.Looping) &&
				loopingDifferOnly(real, fake)
		},
	},
	{
		ID: "kill-scope-processes",
		Reason: "the fake signals no process: a process systemd killed (KillUnit, or the stop of its scope) lives on in the " +
			"fake's run, which places it in a scope later (or, with a process that does not exist after it in PIDs=, names " +
			"that one as the first that does not exist, or refuses a property that comes after PIDs=, or the start a " +
			"RefuseManualStart= refuses)",
		match: killedPlaced,
	},
	{
		ID: "timer-coldplug-order",
		Reason: "after a daemon-reload or re-execution systemd computes an elapsed timer's next elapse again when the unit it " +
			"triggered, failed and so still loaded, is loaded back after the timer (timer_trigger_notify), in the order of a " +
			"hash table whose key is random per boot; the fake never does (next elapse 0, as systemd when the unit comes first). " +
			"So too for a waiting timer with a one-time value counted from its own start (OnActiveSec=0), which the timer's " +
			"coldplug counts from the reload: systemd starts the unit again when that unit, failed or active, comes first, as the " +
			"fake always does, and counts it from the timer's start, elapsed for good, when the unit comes after",
		match: func(o Op, real, fake Step) bool {
			return (o.Kind == OpReload || o.Kind == OpReexec) && real.Op == fake.Op && real.Reply == fake.Reply &&
				(unitsDifferOnly(real, fake, func(r, f string) bool {
					return strings.Contains(r, `"active"/"elapsed"`) && monotonicNext.ReplaceAllString(r, "${1}next=0)") == f
				}) || timerRetriggered(real, fake))
		},
	},
	{
		ID: "exec-start-race",
		Reason: "a Type=exec service whose program fails at once: systemd's start job ends done or failed as its event " +
			"loop sees the program's execve or its exit first; the fake's ends done",
		match: func(_ Op, real, fake Step) bool {
			if real.Op != fake.Op || real.Reply != fake.Reply || len(real.Signals) != len(fake.Signals) ||
				strings.Join(real.Jobs, "\n") != strings.Join(fake.Jobs, "\n") || strings.Join(real.Units, "\n") != strings.Join(fake.Units, "\n") {
				return false
			}
			differs := false
			for i, r := range real.Signals {
				if r == fake.Signals[i] {
					continue
				}
				name, ok := strings.CutSuffix(r, " failed")
				if !ok || fake.Signals[i] != name+" done" || !strings.HasPrefix(r, "JobRemoved ") {
					return false
				}
				unit := name[strings.LastIndexByte(name, ' ')+1:]
				execFailed := false
				for _, l := range real.Units {
					execFailed = execFailed || strings.HasPrefix(l, unit+": ") && strings.Contains(l, `Type="exec"`) &&
						strings.Contains(l, `"failed"/"failed" Result="exit-code"`)
				}
				if !execFailed {
					return false
				}
				differs = true
			}
			return differs
		},
	},
	{
		ID: "timer-reexec-262",
		Reason: "after a re-execution 262 started the unit of a waiting timer whose one-time value had elapsed (as 247-257 " +
			"do, and every release after a reload) once in three tries, in the same sandbox; the fake always starts it",
		match: func(o Op, real, fake Step) bool {
			if o.Kind != OpReexec || real.Op != fake.Op || real.Reply != fake.Reply || len(fake.Signals) != len(real.Signals)+2 ||
				strings.Join(real.Jobs, "\n") != strings.Join(fake.Jobs, "\n") || strings.Join(real.Units, "\n") != strings.Join(fake.Units, "\n") {
				return false
			}
			// fake's signals are real's and one start job of a service,
			// JobNew then JobRemoved done.
			for i := 0; i+1 < len(fake.Signals); i++ {
				n, done := fake.Signals[i], fake.Signals[i+1]
				id, name, ok := strings.Cut(strings.TrimPrefix(n, "JobNew "), " ")
				if !ok || !strings.HasPrefix(n, "JobNew ") || !strings.HasSuffix(name, ".service") ||
					done != "JobRemoved "+id+" "+name+" done" {
					continue
				}
				rest := append(append([]string{}, fake.Signals[:i]...), fake.Signals[i+2:]...)
				return strings.Join(rest, "\n") == strings.Join(real.Signals, "\n")
			}
			return false
		},
	},
	{
		ID: "reexec-stop-signals-262",
		Reason: "after a re-execution 262 stopped a unit bound (BindsTo=) to an inactive unit, as the fake and 252 and 257 " +
			"do, but a client saw the stop job's JobNew and JobRemoved in one case and not in others, which differ in " +
			"nothing the fake models (whether the unit bound to has a file; measured three times each); the fake always sends them",
		match: func(o Op, real, fake Step) bool {
			if o.Kind != OpReexec || real.Op != fake.Op || real.Reply != fake.Reply || len(fake.Signals) <= len(real.Signals) ||
				strings.Join(real.Jobs, "\n") != strings.Join(fake.Jobs, "\n") || strings.Join(real.Units, "\n") != strings.Join(fake.Units, "\n") {
				return false
			}
			// fake's signals are real's and jobs of units that ended
			// stopped: JobNew then JobRemoved done, each of a unit the
			// records show inactive or gone.
			var rest []string
			for i := 0; i < len(fake.Signals); i++ {
				n := fake.Signals[i]
				id, name, ok := strings.Cut(strings.TrimPrefix(n, "JobNew "), " ")
				if ok && strings.HasPrefix(n, "JobNew ") && i+1 < len(fake.Signals) && fake.Signals[i+1] == "JobRemoved "+id+" "+name+" done" &&
					unitDown(fake.Units, name) {
					i++
					continue
				}
				rest = append(rest, n)
			}
			return strings.Join(rest, "\n") == strings.Join(real.Signals, "\n")
		},
	},
	{
		ID: "timer-elapse-race",
		Reason: "a timer due at once, started with a unit whose program ends at once and that stops the timer when it ends " +
			"(the timer bound to it): systemd's timer elapses first and starts its service, the program's end comes after its " +
			"fork and exec; the fake's program ends within its start, so the timer stops before it elapses",
		match: func(o Op, real, fake Step) bool {
			if o.Kind != OpStartTransient || pool[o.Unit%len(pool)] != kTimer || real.Op != fake.Op || real.Reply != fake.Reply ||
				strings.Join(real.Jobs, "\n") != strings.Join(fake.Jobs, "\n") || strings.Join(real.Units, "\n") != strings.Join(fake.Units, "\n") {
				return false
			}
			// real's signals are fake's and the start of the timer's
			// service, JobNew then JobRemoved done, the jobs after it
			// numbered one up.
			service := strings.TrimSuffix(unitName("", o.Unit), ".timer") + ".service"
			for i := 0; i+1 < len(real.Signals); i++ {
				id, name, ok := strings.Cut(strings.TrimPrefix(real.Signals[i], "JobNew "), " ")
				if !ok || !strings.HasPrefix(real.Signals[i], "JobNew ") || name != service || real.Signals[i+1] != "JobRemoved "+id+" "+name+" done" {
					continue
				}
				rest := append(append([]string{}, real.Signals[:i]...), real.Signals[i+2:]...)
				return strings.Join(renumberJobs(rest), "\n") == strings.Join(renumberJobs(fake.Signals), "\n")
			}
			return false
		},
	},
	{
		ID: "runtime-max-race",
		Reason: "a service whose RuntimeMaxUSec= is 0 or 1 µs and whose program exits at once: systemd ends it by the " +
			"timeout (Result timeout, 2/15, or the program's exit status when the exit came just after; 0/0 with " +
			"KillMode=none, which kills nothing and no longer watches the program) or by the program's exit, as its event " +
			"loop sees one or the other first (mostly the timeout); in the fake the program exits first, but after an " +
			"ExecStartPost= (which the fake runs at once), where the timeout comes first; with a TimeoutStopUSec= of 0 or " +
			"1 µs too, the SIGTERM's own timeout may fire before the program's death is seen, and SIGKILL ends it (2/9); " +
			"with an ExecStop= that takes time, the unit that timed out is still stopping (deactivating/stop) while the " +
			"fake's ended by its program's exit; " +
			"a service that so restarts until its start limit is hit (RestartForceExitStatus=) keeps the end of its last " +
			"run, the timeout's or the exit's",
		// The program killed (2/15), or seen to exit after the timer
		// fired (1/0: 247, a replay probe; 1/208, a program that failed
		// to set up: 247 seeds 38019-38031, flaky). Or the other way
		// round: timed out on the fake, the program's exit first on
		// systemd (262 seed 62001, flaky). With an instant stop timeout
		// too, killed by the SIGKILL after it (2/9: 257 seed 61000's
		// run, once).
		// With KillMode=none the program is neither killed nor seen to
		// exit (0/0: measured six times in a row on each of 247-262
		// with /bin/sh -c "exit 3", 252 seed 474162 of a long run).
		match: func(o Op, real, fake Step) bool {
			return timedOutRace(instantRuntimeMax, "2/15", "1/*")(o, real, fake) || runtimeMaxExitFirst(real, fake) ||
				timedOutRace(instantRuntimeMaxNoKill, "0/0")(o, real, fake) ||
				timedOutRace(instantRuntimeMaxAndStop, "2/9")(o, real, fake) || runtimeMaxLastRun(real, fake) ||
				runtimeMaxStopping(real, fake)
		},
	},
	{
		ID: "stop-timeout-race",
		Reason: "a service stopped with TimeoutStopUSec= 0 or 1 µs (set over D-Bus, where 0 is no time at all; in a unit " +
			"file it is no timeout) whose program dies of SIGTERM at once: systemd's stop timeout and the program's " +
			"death race in its event loop, and the unit fails, Result timeout (2/15, or 0/0 on 247), or stops; the " +
			"fake has no stop timeout: the program dies first. So does an ExecStop= or ExecStopPost= command " +
			"(which the same timeout limits) with its own end: killed (2/15), Result timeout, or its exit; and a " +
			"scope so stopped, whose processes die of SIGTERM at once, fails, Result timeout, or stops; a service stopped " +
			"while ExecCondition=, ExecStartPre= or ExecStartPost= runs fails, Result timeout or, when the command's death " +
			"comes first as on the fake, signal; a service that failed first (a failed ExecStartPost=) keeps its " +
			"result, and its program's end may not be seen (0/0)",
		// The program killed (2/15), or its end not yet seen (0/0: 247).
		match: func(o Op, real, fake Step) bool {
			return timedOutRace(instantStopTimeout, "2/15", "0/0")(o, real, fake) || stopCommandTimedOut(real, fake) ||
				scopeStopTimedOut(real, fake) || startCommandStopTimedOut(real, fake) || mainKillNotSeen(real, fake)
		},
	},
	{
		ID: "reload-kill-race",
		Reason: "KillUnit of all of a service's processes while its ExecReload= runs, with a signal its main program " +
			"ends cleanly by (SIGTERM): systemd sees the reload command's end or the main program's first, as its " +
			"event loop reads them; the reload job ends failed when it sees the command's first (the unit still " +
			"active), done when the main program's (its end waits for the reload, then the service stops; 262 " +
			"ends it failed either way); the fake sees the command's first. The unit ends the same either way " +
			"(seen on 247 and 257 in one probe each, 252 in one of two)",
		match: func(o Op, real, fake Step) bool {
			unit, n := jobResultsDiffer(real.Signals, fake.Signals)
			if o.Kind != OpKill || (o.Whom != "all" && o.Whom != "all-fail") || n != 1 || unit != unitName("", o.Unit) ||
				real.Op != fake.Op || real.Reply != fake.Reply || !slices.Equal(real.Units, fake.Units) ||
				!slices.Equal(real.Jobs, fake.Jobs) {
				return false
			}
			for _, r := range real.Signals {
				if strings.HasPrefix(r, "JobRemoved ") && strings.HasSuffix(r, " "+unit+" done") && !slices.Contains(fake.Signals, r) {
					// The unit ended or stopped: gone, or a line of a
					// service with ExecReload=.
					for _, l := range real.Units {
						if strings.HasPrefix(l, unit+": ") {
							return l == unit+": org.freedesktop.systemd1.NoSuchUnit" ||
								strings.Contains(l, "ExecReload=[") && !strings.Contains(l, `"active"/`) && !strings.Contains(l, `"reloading"/`)
						}
					}
				}
			}
			return false
		},
	},
	{
		ID: "start-post-race",
		Reason: "a service whose main program exits at once (/bin/false, or fails before it runs) while ExecStartPost= " +
			"runs: systemd records the program's own exit or the SIGTERM it sends for a failing ExecStartPost=, and " +
			"ends the start job failed or, when ExecStartPost= ended first, done, as its event loop sees one or the " +
			"other first, at each start of a service that restarts until its start limit; the fake's ExecStartPost= " +
			"fails first (2/15), and a program that fails before it runs ends first (job failed)",
		match: func(o Op, real, fake Step) bool {
			if unit, n := jobResultsDiffer(real.Signals, fake.Signals); n > 0 && real.Op == fake.Op && real.Reply == fake.Reply &&
				slices.Equal(real.Units, fake.Units) {
				for _, r := range real.Units {
					if !strings.HasPrefix(r, unit+": ") || !strings.Contains(r, "ExecStartPost=[") {
						continue
					}
					// Each start of a service that restarts until its
					// start limit is hit races so (252 seed 370506 of a
					// long run: five start jobs).
					return n == 1 && strings.Contains(r, `"failed"/"failed" Result="exit-code" ExecMain=1/`) ||
						strings.Contains(r, `"failed"/"failed" Result="start-limit-hit" ExecMain=1/`)
				}
				return n == 1 && collectedStartPost(o, real.Units)
			}
			return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
				return strings.Contains(r, "ExecStartPost=[") && strings.Contains(r, `"failed"/"failed" Result="exit-code"`) &&
					mainEnd(sortedLists([]string{r})[0]) == mainEnd(sortedLists([]string{f})[0])
			})
		},
	},
	{
		ID: "machine-mounts",
		Reason: "systemd has a mount unit for each file system of the machine it runs on (in the sandbox var.mount, " +
			"var-lib-systemd.mount and the like, which differ by release) and orders a unit after those on the paths it " +
			"needs (RequiresMountsFor=, a Persistent= timer's /var/lib/systemd/timers); the fake has no mount units but " +
			"-.mount and those of unit files, so its lists leave them out",
		match: func(_ Op, real, fake Step) bool {
			return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
				return withoutMachineMounts(r) == f
			})
		},
	},
	{
		ID: "waiting-start-tries",
		Reason: "a start job that waits while a service's ExecStop= runs (service_start answers -EAGAIN) is run again " +
			"whenever the unit changes state and systemd's run queue comes between the changes, and before 262 each " +
			"run counts against the start rate limit (can_start comes first); how many runs the stop's states " +
			"(stop-sigterm, stop-post) give depends on the event loop's timing (the same sequence: refused twice of " +
			"twice on 252, once of twice on 257, not on 247); the fake counts the start only, so a later start of the " +
			"unit that systemd refuses by its limit (the unit failed, the job failed) runs on the fake",
		match: func(_ Op, real, fake Step) bool {
			return real.Op == fake.Op && real.Reply == fake.Reply && jobResultDiffers(real.Signals, fake.Signals) &&
				strings.Join(real.Jobs, "\n") == strings.Join(fake.Jobs, "\n") &&
				unitsDifferOnly(real, fake, func(r, f string) bool {
					_, rest, _ := strings.Cut(r, ": ")
					_, frest, _ := strings.Cut(f, ": ")
					return strings.HasPrefix(rest, `"loaded" "failed"/"failed" `) && strings.HasPrefix(frest, `"loaded" "active"/`) &&
						strings.Contains(f, "ExecStop=[(")
				})
		},
	},
	{
		ID: "handler-collection-race",
		Reason: "a unit that became inactive or failed while a unit of its OnSuccess= or OnFailure= had a job stays loaded " +
			"until something makes systemd look at it again (unit_add_to_gc_queue): its cgroup's empty notification, " +
			"which may come before or after that job ended; the fake never looks again until one of those units " +
			"changes state, so it keeps the unit where systemd sometimes collected it",
		match: func(_ Op, real, fake Step) bool {
			return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
				name, rest, _ := strings.Cut(f, ": ")
				return r == name+": org.freedesktop.systemd1.NoSuchUnit" &&
					(strings.HasPrefix(rest, `"loaded" "inactive"/"dead" `) || strings.HasPrefix(rest, `"loaded" "failed"/"failed" `)) &&
					handlerNamed.MatchString(rest)
			})
		},
	},
	{
		ID: "requirement-error-order",
		Reason: "a start whose unit has more than one Requires=, BindsTo= or Requisite= unit that cannot be " +
			"loaded fails naming the first its dependency hash table yields (transaction_add_job_and_dependencies), " +
			"an order random per boot and per unit name; the fake names the first in Requires=, BindsTo=, " +
			"Requisite= order",
		same: true,
		match: func(o Op, real, fake Step) bool {
			switch o.Kind {
			case OpStart, OpRestart, OpTryRestart, OpReloadOrRestart, OpReloadOrTryRestart, OpStartTransient:
			default:
				return false
			}
			r, f := notFoundUnit.FindStringSubmatch(real.Reply), notFoundUnit.FindStringSubmatch(fake.Reply)
			return r != nil && f != nil && r[1] != f[1] && real.Op == fake.Op &&
				slices.Equal(real.Signals, fake.Signals) && slices.Equal(real.Jobs, fake.Jobs) && slices.Equal(real.Units, fake.Units)
		},
	},
	{
		ID: "scope-end-race",
		Reason: "a stop that kills a scope's processes and a service's in one pass: systemd sees the scope's end by its " +
			"control group's empty notification and the service's by SIGCHLD, which mostly comes first, as on the fake; " +
			"sometimes the scope's comes first (seen on 252, 257 and 262: 2 of 8 runs of one probe on 257, 3 of 8 on 262)",
		match: func(_ Op, real, fake Step) bool {
			if real.Op != fake.Op || real.Reply != fake.Reply || !slices.Equal(real.Jobs, fake.Jobs) || !slices.Equal(real.Units, fake.Units) ||
				slices.Equal(real.Signals, fake.Signals) {
				return false
			}
			// Only where the scopes' stop jobs end among the other
			// signals differs.
			return slices.Equal(scopeEnds(real.Signals, true), scopeEnds(fake.Signals, true)) &&
				slices.Equal(scopeEnds(real.Signals, false), scopeEnds(fake.Signals, false))
		},
	},
}

// scopeEnds returns the signals that end a scope's job done (JobRemoved),
// or, with !ends, the others, in their order.
func scopeEnds(signals []string, ends bool) []string {
	var out []string
	for _, s := range signals {
		f := strings.Fields(s)
		end := len(f) == 4 && f[0] == "JobRemoved" && strings.HasSuffix(f[2], ".scope") && f[3] == "done"
		if end == ends {
			out = append(out, s)
		}
	}
	return out
}

// notFoundUnit is the error of a job whose requirement cannot be loaded.
var notFoundUnit = regexp.MustCompile(`^org\.freedesktop\.systemd1\.NoSuchUnit: Unit (\S+) not found\.$`)

// timedOutRace matches a step that differs only in units systemd failed
// by a timeout of 0 or 1 µs (setting) while the fake's program ended
// first: each such line reads Result timeout with one of the main
// process's ends (ExecMain code/status) systemd was seen to record, a
// status of * any.
func timedOutRace(setting *regexp.Regexp, ends ...string) func(Op, Step, Step) bool {
	alts := make([]string, len(ends))
	for i, e := range ends {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(e), `\*`, `\d+`)
	}
	timedOut := regexp.MustCompile(`"failed"/"failed" Result="timeout" ExecMain=(?:` + strings.Join(alts, "|") + `) `)
	return func(_ Op, real, fake Step) bool {
		return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, _ string) bool {
			return timedOut.MatchString(r) && setting.MatchString(r)
		})
	}
}

// runtimeMaxExitFirst reports whether real and fake differ only in a
// service with RuntimeMaxUSec= 0 or 1 µs that timed out on the fake
// (killed, 2/15) and failed by its program's exit on systemd, which saw
// the exit first (runtime-max-race the other way round).
func runtimeMaxExitFirst(real, fake Step) bool {
	return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
		return strings.Contains(f, `"failed"/"failed" Result="timeout" ExecMain=2/15 `) && instantRuntimeMax.MatchString(f) &&
			strings.Contains(r, `"failed"/"failed" Result="exit-code" `) && instantRuntimeMax.MatchString(r)
	})
}

// runtimeMaxLastRun reports whether real and fake differ only in how
// the last run of a service with RuntimeMaxUSec= 0 or 1 µs ended, which
// restarted until its start limit was hit: each run is the race of
// runtime-max-race (262 seed 350092 of a long run: /bin/true with
// RestartForceExitStatus=0, 2/15 on systemd, 1/0 on the fake).
func runtimeMaxLastRun(real, fake Step) bool {
	return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
		return strings.Contains(r, `"failed"/"failed" Result="start-limit-hit" `) && instantRuntimeMax.MatchString(r) &&
			mainEnd(r) == mainEnd(f)
	})
}

// runtimeMaxStopping reports whether real and fake differ only in a
// service with RuntimeMaxUSec= 0 or 1 µs that timed out on systemd and is
// still stopping, its ExecStop= running (deactivating/stop, Result
// timeout), where the fake's program ended first by its exit (247 seed
// 360276 of a long run: /bin/false, ExecStop= /bin/sleep 1000).
func runtimeMaxStopping(real, fake Step) bool {
	return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
		return strings.Contains(r, `"deactivating"/"stop" Result="timeout" `) && strings.Contains(r, " ExecStop=[(") &&
			instantRuntimeMax.MatchString(r) && instantRuntimeMax.MatchString(f)
	})
}

// stopCommandTimedOut reports whether real and fake differ only in a
// unit with TimeoutStopUSec= 0 or 1 µs that failed on systemd with Result
// timeout while an ExecStop= or ExecStopPost= command ran, where on the
// fake that command ended as it does: the same unit but for that result
// and the command's end, which on systemd is any of the race's (replayed
// on 247-262 with /bin/sh -c "exit 3" as ExecStopPost= of a program that
// exited by itself, 262 seed 35004: killed by SIGTERM, 2/15, or by the
// SIGKILL that follows when that times out too, 2/9; its exit seen after
// the timeout, 1/3; its end not yet seen, exit time 0 and 0/0). A unit
// that had failed already (its program's exit status) keeps its result:
// only the command's end differs, killed on systemd (257 seed 65877 of a
// long run: ExecStopPost=/bin/false, 2/9; replayed 24 times on 247-262:
// 2/15 17 times, 2/9 twice, its end not yet seen 5 times, its exit
// never), where the fake, which has no stop timeout, runs it to its end.
func stopCommandTimedOut(real, fake Step) bool {
	blank := func(s string) string {
		return resultOf.ReplaceAllString(stopCommandEnd.ReplaceAllString(s, "${1} ...)"), `Result="?"`)
	}
	return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
		failed := strings.Contains(r, `"failed"/"failed" Result="timeout" `) ||
			strings.Contains(r, `"failed"/"failed" `) && stopCommandKilled.MatchString(r) && resultOf.FindString(r) == resultOf.FindString(f)
		return failed && instantStopTimeout.MatchString(r) && stopCommandEnd.MatchString(r) && blank(r) == blank(f)
	})
}

// mainKillNotSeen reports whether real and fake differ only in a service
// with TimeoutStopUSec= 0 or 1 µs that had failed already (an
// ExecStartPost= that failed: its Result kept) and whose main program
// the failure's stop killed: systemd's stop timed out before it saw the
// program die, and the unit failed with the program's end never
// recorded (0/0, its exit time 0), where the fake's program died of the
// SIGTERM (2/15; 247 seed 572852 of a long run, not seen again when
// rapid ran it).
func mainKillNotSeen(real, fake Step) bool {
	notSeen := strings.NewReplacer("ExecMain=2/15 ", "ExecMain=0/0 ", "set/set/set/set pid=set code=2 status=15)", "set/set/0/0 pid=set code=0 status=0)")
	return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
		return strings.Contains(r, `"failed"/"failed" `) && !strings.Contains(r, `Result="timeout"`) && strings.Contains(r, " ExecMain=0/0 ") &&
			strings.Contains(f, " ExecMain=2/15 ") && instantStopTimeout.MatchString(r) && notSeen.Replace(f) == r
	})
}

// scopeStopTimedOut reports whether real and fake differ only in a scope
// with TimeoutStopUSec= 0 or 1 µs that failed on systemd with Result
// timeout and stopped on the fake (gone, or inactive): 247 seed 56002,
// which did not fail so when rapid ran it again.
func scopeStopTimedOut(real, fake Step) bool {
	return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
		name, rest, _ := strings.Cut(r, ": ")
		return strings.HasSuffix(name, ".scope") && strings.HasPrefix(rest, `"loaded" "failed"/"failed" Result="timeout" `) &&
			instantStopTimeout.MatchString(r) &&
			(f == name+": org.freedesktop.systemd1.NoSuchUnit" || strings.HasPrefix(f, name+`: "loaded" "inactive"/"dead" `))
	})
}

// startCommandStopTimedOut reports whether real and fake differ only in
// a service with TimeoutStopUSec= 0 or 1 µs stopped while a command of
// its start ran (ExecCondition=, ExecStartPre=, ExecStartPost=), which
// the stop's SIGTERM killed on the fake (2/15, Result signal) and which
// failed on systemd by the stop timeout: Result timeout, the command
// killed (2/15, or 2/9 by the SIGKILL after it) or its end not yet seen
// (0/0). Probes of ExecStartPre= and ExecStartPost= sleeps on 247-262
// (257 seed 517184 of a long run), 96 runs: Result signal 67 times,
// timeout with 2/15 11 times, with 0/0 18 times.
func startCommandStopTimedOut(real, fake Step) bool {
	return sameButUnits(real, fake) && unitsDifferOnly(real, fake, func(r, f string) bool {
		if !strings.Contains(r, `"failed"/"failed" Result="timeout" `) || !instantStopTimeout.MatchString(r) {
			return false
		}
		killed := startCommandEnd.FindAllStringSubmatch(f, -1)
		if len(killed) != 1 || killed[0][2] != "pid=set code=2 status=15" {
			return false
		}
		ends := startCommandEnd.FindAllStringSubmatch(r, -1)
		if len(ends) != 1 || ends[0][1] != killed[0][1] {
			return false
		}
		switch ends[0][2] {
		case "pid=set code=2 status=15", "pid=set code=2 status=9", "pid=set code=0 status=0":
		default:
			return false
		}
		blank := func(s, result string) string {
			return startCommandEnd.ReplaceAllString(strings.Replace(s, result, "", 1), "${1} ...)")
		}
		return blank(r, `Result="timeout"`) == blank(f, `Result="signal"`)
	})
}

// startCommandEnd is the record of an ExecCondition=, ExecStartPre= or
// ExecStartPost= command that ran: its command, then its end (PID, code
// and status).
var startCommandEnd = regexp.MustCompile(`(Exec(?:Condition|StartPre|StartPost)=\[\("[^"]*" \[[^\]]*\] (?:true|false)) times=\S+ (pid=set code=\d+ status=\d+)\)`)

// handlerNamed finds a non-empty OnSuccess= or OnFailure= in a unit line.
var handlerNamed = regexp.MustCompile(`(?:^| )On(?:Success|Failure)=\["`)

// stopCommandEnd is an ExecStop= or ExecStopPost= command's record in a
// unit line: its command, then its end (exit times, PID, code and status).
var stopCommandEnd = regexp.MustCompile(`(ExecStop(?:Post)?=\[\("[^"]*" \[[^\]]*\] (?:true|false)) times=\S+ pid=\S+ code=\d+ status=\d+\)`)

// stopCommandKilled is an ExecStop= or ExecStopPost= command a signal
// ended (SIGTERM, or the SIGKILL after it), or whose end was not yet
// seen.
var stopCommandKilled = regexp.MustCompile(`ExecStop(?:Post)?=\[\("[^"]*" \[[^\]]*\] (?:true|false) (?:times=\S+ pid=\S+ code=2 status=(?:9|15)|times=set/set/0/0 pid=\S+ code=0 status=0)\)`)

// resultOf is a unit line's Result=.
var resultOf = regexp.MustCompile(`Result="[^"]*"`)

// jobResultDiffers reports whether two steps' signals differ only in one
// JobRemoved, which one ends done and the other failed.
func jobResultDiffers(real, fake []string) bool {
	_, n := jobResultsDiffer(real, fake)
	return n == 1
}

// jobResultsDiffer reports whether two steps' signals differ only in
// JobRemoved of the jobs of one unit, which end done in one and failed
// in the other: the unit and how many (0 if they differ otherwise, or
// not at all).
func jobResultsDiffer(real, fake []string) (unit string, n int) {
	if len(real) != len(fake) {
		return "", 0
	}
	for i, r := range real {
		if r == fake[i] {
			continue
		}
		rest, ok := strings.CutSuffix(r, " done")
		if !ok {
			rest, ok = strings.CutSuffix(r, " failed")
		}
		if !ok || !strings.HasPrefix(r, "JobRemoved ") || fake[i] != rest+" done" && fake[i] != rest+" failed" {
			return "", 0
		}
		f := strings.Fields(rest) // JobRemoved ID UNIT
		if len(f) != 3 || unit != "" && f[2] != unit {
			return "", 0
		}
		unit = f[2]
		n++
	}
	return unit, n
}

// collectedStartPost reports whether o starts a transient service with
// ExecStartPost= whose main program fails at once (it exits non-zero or
// cannot run), collected when it failed (CollectMode=inactive-or-failed),
// as units reads it: the failed unit start-post-race looks for is gone
// (247 seed 160644 of a long run).
func collectedStartPost(o Op, units []string) bool {
	if o.Kind != OpStartTransient {
		return false
	}
	var post, collect, fails bool
	for _, p := range o.Props {
		switch p.Name {
		case "ExecStartPost":
			post = true
		case "CollectMode":
			collect = p.Value == "inactive-or-failed"
		case "ExecStart":
			c, ok := p.Value.(Command)
			fails = ok && !slices.Equal(c.argv(), []string{"/bin/true"}) && !slices.Equal(c.argv(), commands[0])
		}
	}
	prefix := fmt.Sprintf("u%d.", o.Unit)
	for _, l := range units {
		if strings.HasPrefix(l, prefix) {
			return post && collect && fails && strings.HasSuffix(l, ": org.freedesktop.systemd1.NoSuchUnit")
		}
	}
	return false
}

// sameButUnits reports whether two steps agree on all but their units:
// the operation, the reply, the signals and the jobs.
func sameButUnits(real, fake Step) bool {
	return real.Op == fake.Op && real.Reply == fake.Reply && strings.Join(real.Signals, "\n") == strings.Join(fake.Signals, "\n") &&
		strings.Join(real.Jobs, "\n") == strings.Join(fake.Jobs, "\n")
}

// unitsDifferOnly reports whether some unit lines of the two steps differ
// and every pair that does is explained (real's line, fake's line).
func unitsDifferOnly(real, fake Step, explained func(r, f string) bool) bool {
	if len(real.Units) != len(fake.Units) {
		return false
	}
	differs := false
	for i, r := range real.Units {
		if r == fake.Units[i] {
			continue
		}
		if !explained(r, fake.Units[i]) {
			return false
		}
		differs = true
	}
	return differs
}

// namedPIDAt is where in o's PIDs (a scope's PIDs= or
// AttachProcessesToUnit's) the process a reply "... Process with ID Pk
// does not exist." names is, or -1.
func namedPIDAt(o Op, reply string) int {
	_, text, _ := strings.Cut(reply, ": ")
	var k int
	if _, err := fmt.Sscanf(text, "Process with ID P%d does not exist.", &k); err != nil {
		return -1
	}
	list := o.PIDs
	for _, p := range o.Props {
		if l, ok := p.Value.(PIDList); ok && p.Name == "PIDs" {
			list = l
		}
	}
	return slices.Index(list, k)
}

// refusedAfterPIDs reports whether reply, an error, names a property o
// sets after its PIDs=: the fake took the PIDs and went on to that one.
func refusedAfterPIDs(o Op, reply string) bool {
	if !strings.HasPrefix(reply, "org.") {
		return false
	}
	i := slices.IndexFunc(o.Props, func(p Prop) bool { return p.Name == "PIDs" })
	if i < 0 {
		return false
	}
	for _, p := range o.Props[i+1:] {
		if p.Name != "PIDs" && regexp.MustCompile(`\b`+regexp.QuoteMeta(p.Name)+`\b`).MatchString(reply) {
			return true
		}
	}
	return false
}

// timerRetriggered reports whether the fake's step started a waiting
// timer's unit where systemd's started nothing, all else the same but
// that unit's own state, and the unit was loaded, failed or active
// (so that its coldplug notifies the timer).
func timerRetriggered(real, fake Step) bool {
	if len(real.Signals) != 0 || len(fake.Signals) != 2 || len(real.Units) != len(fake.Units) {
		return false
	}
	var id, unit, result string
	if n, _ := fmt.Sscanf(fake.Signals[0], "JobNew %s %s", &id, &unit); n != 2 ||
		!strings.HasPrefix(fake.Signals[1], "JobRemoved "+id+" "+unit+" ") || !strings.HasSuffix(unit, ".service") {
		return false
	}
	result = strings.TrimPrefix(fake.Signals[1], "JobRemoved "+id+" "+unit+" ")
	timer := strings.TrimSuffix(unit, ".service") + ".timer:"
	waiting, notifies := false, false
	for i, r := range real.Units {
		own := strings.HasPrefix(r, unit+":") || strings.HasPrefix(r, unit+" (aux):")
		switch {
		case strings.HasPrefix(r, timer):
			waiting = r == fake.Units[i] && strings.Contains(r, `"active"/"waiting"`)
		case own:
			notifies = strings.Contains(r, `"failed"/`) || strings.Contains(r, `"active"/`)
		case r != fake.Units[i]:
			return false
		}
	}
	return waiting && notifies && result != ""
}

// killedPlaced reports whether a step placing processes in a unit
// (StartTransientUnit, AttachProcessesToUnit) succeeded on the fake where
// systemd found one of them gone (or the fake found only a later one
// gone), and differs in nothing else but that unit's line and the job's
// signals. The tester's processes are the same
// in both runs and a Live one ends only when signalled: the one systemd
// found gone is one it killed earlier in the sequence (KillUnit, or the
// stop of its scope or slice), which the fake, signalling no process,
// did not (measured on 247-262: replay "scope with a process systemd
// killed").
func killedPlaced(o Op, real, fake Step) bool {
	const unknown = "org.freedesktop.DBus.Error.UnixProcessIdUnknown: "
	// The fake placed the process, or named one after it as the first
	// that does not exist, or refused a property that comes after PIDs=
	// (252 seed 110598), or the start itself, which systemd queues once
	// the settings are applied (RefuseManualStart=: 257 seed 140874):
	// the one systemd killed came first.
	placed := !strings.HasPrefix(fake.Reply, "org.") ||
		strings.HasPrefix(fake.Reply, unknown) && 0 <= namedPIDAt(o, real.Reply) && namedPIDAt(o, real.Reply) < namedPIDAt(o, fake.Reply) ||
		refusedAfterPIDs(o, fake.Reply) ||
		o.Kind == OpStartTransient && strings.HasPrefix(fake.Reply, "org.freedesktop.systemd1.OnlyByDependency: ")
	if o.Kind != OpStartTransient && o.Kind != OpAttach || real.Op != fake.Op ||
		!strings.HasPrefix(real.Reply, unknown) || !placed ||
		len(real.Signals) != 0 || len(real.Units) != len(fake.Units) {
		return false
	}
	name := unitName("", o.Unit) + ":"
	for i, r := range real.Units {
		if r != fake.Units[i] && !strings.HasPrefix(r, name) {
			return false
		}
	}
	return true
}

// mainEnd is a unit line without how its main process ended: ExecMain=
// and the code and status of ExecStart='s first record.
func mainEnd(line string) string {
	line = execMainEnd.ReplaceAllString(line, "ExecMain=?")
	if i := strings.Index(line, "ExecStart=["); i >= 0 {
		line = line[:i] + execRecordEnd.ReplaceAllString(line[i:], "${1}code=? status=?")
	}
	return line
}

var (
	execMainEnd   = regexp.MustCompile(`\bExecMain=\d+/\d+`)
	execRecordEnd = regexp.MustCompile(`^(ExecStart=\[\("[^"]*" \[[^]]*\] (?:true|false) times=[^ ]* pid=[^ ]* )code=\d+ status=\d+`)
)

// instantRuntimeMax is a unit line's RuntimeMaxUSec= that ends the unit
// at once.
var instantRuntimeMax = regexp.MustCompile(`\bRuntimeMaxUSec=@t [01]\b`)

// instantRuntimeMaxNoKill is a unit line with a RuntimeMaxUSec= of 0 or
// 1 µs and KillMode=none, in either order.
var instantRuntimeMaxNoKill = regexp.MustCompile(`\bRuntimeMaxUSec=@t [01]\b.*\bKillMode="none"|\bKillMode="none".*\bRuntimeMaxUSec=@t [01]\b`)

// instantRuntimeMaxAndStop is a unit line with both a RuntimeMaxUSec=
// and a TimeoutStopUSec= of 0 or 1 µs, in either order.
var instantRuntimeMaxAndStop = regexp.MustCompile(`\bRuntimeMaxUSec=@t [01]\b.*\bTimeoutStopUSec=@t [01]\b|\bTimeoutStopUSec=@t [01]\b.*\bRuntimeMaxUSec=@t [01]\b`)

// instantStopTimeout is a unit line's TimeoutStopUSec= of 0 or 1 µs.
var instantStopTimeout = regexp.MustCompile(`\bTimeoutStopUSec=@t [01]\b`)

// loopingDifferOnly reports whether real and fake differ in nothing but
// what their looping services (Step.Looping, the same in both) do: those
// services' lines, their jobs' signals (named L<n>) and queued jobs.
func loopingDifferOnly(real, fake Step) bool {
	looping := func(unit string) bool { return slices.Contains(real.Looping, strings.TrimSuffix(unit, " (aux)")) }
	others := func(lines []string, unitField int) []string {
		var out []string
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > unitField && looping(f[unitField]) {
				continue
			}
			out = append(out, l)
		}
		return out
	}
	if !slices.Equal(others(real.Signals, 2), others(fake.Signals, 2)) || !slices.Equal(others(real.Jobs, 1), others(fake.Jobs, 1)) {
		return false
	}
	if len(real.Units) != len(fake.Units) {
		return false
	}
	for i, r := range real.Units {
		name, _, _ := strings.Cut(r, ": ")
		if r != fake.Units[i] && !looping(name) {
			return false
		}
	}
	return true
}

// monotonicNext is a TimersMonotonic element as a unit line shows it.
var monotonicNext = regexp.MustCompile(`(\("On[A-Za-z]+USec" @t \d+ )next=set\)`)

// programRun is the record of a command of /nonexistent/program, and
// unitOutcome the states, result and main status a unit line starts with.
var (
	programRun  = regexp.MustCompile(`\("/nonexistent/program" \[[^\]]*\] (true|false) times=[^ ]* pid=\w+ code=\d+ status=\d+\)`)
	unitOutcome = regexp.MustCompile(`^([^:]+: "[\w-]+") "[\w-]+"/"[\w-]+"( Result="[\w-]*")?( ExecMain=\d+/\d+)?`)
)

// accountFailure is a unit line's main status of a service whose User=
// or Group= has no account (217/USER, 216/GROUP); fileUnit a unit line's
// unit file in a unit directory; execRecord a command's record.
var (
	accountFailure = regexp.MustCompile(`\bExecMain=1/21[67]\b`)
	fileUnit       = regexp.MustCompile(`\bFile="\$(CONFIG|RUNTIME)/`)
	execRecord     = regexp.MustCompile(`(\("[^"]*" \[[^\]]*\] (?:true|false) )times=[^ ]* pid=\w+ code=\d+ status=\d+\)`)
)

// runOutcome is a unit line with what its run decides left out: its
// states, result and main status, and its commands' records.
func runOutcome(line string) string {
	return unitOutcome.ReplaceAllString(execRecord.ReplaceAllString(line, "${1}ran)"), "$1 (outcome)")
}

// programOutcome is a unit line with what running /nonexistent/program
// decides left out: the unit's outcome, the program's record, and the
// records of its ExecStopPost= commands, which run once it failed (257
// seed 621334 of a long run: /bin/true's record).
func programOutcome(line string) string {
	line = stopPostList.ReplaceAllStringFunc(line, func(list string) string { return execRecord.ReplaceAllString(list, "${1}ran)") })
	return unitOutcome.ReplaceAllString(programRun.ReplaceAllString(line, `("/nonexistent/program" ran)`), "$1 (outcome)")
}

// stopPostList is a unit line's ExecStopPost= commands with their records.
var stopPostList = regexp.MustCompile(`\bExecStopPost=\[(?:\("[^"]*" \[[^\]]*\] (?:true|false) times=[^ ]* pid=\w+ code=\d+ status=\d+\),? ?)*\]`)

// calendarNext is a TimersCalendar element as a unit line shows it.
var calendarNext = regexp.MustCompile(`(\("OnCalendar" "[^"]*" )next=set\)`)

// depList is a dependency property's value as a unit line shows it
// (RequiresMountsFor= and WantsMountsFor= too: systemd keeps their paths in
// a hash map).
var depList = regexp.MustCompile(`\b(After|Before|Wants|Requires|Requisite|BindsTo|PartOf|Conflicts|OnFailure|OnSuccess|WantedBy|RequiredBy|RequiresMountsFor|WantsMountsFor)=\[([^\]]*)\]`)

// withoutMachineMounts is a unit line with the mount units other than
// -.mount taken out of its dependency lists (known difference
// machine-mounts).
func withoutMachineMounts(line string) string {
	return depList.ReplaceAllStringFunc(line, func(m string) string {
		name, list, _ := strings.Cut(m, "=[")
		var kept []string
		for _, item := range strings.Split(strings.TrimSuffix(list, "]"), ", ") {
			if !strings.HasSuffix(item, `.mount"`) || item == `"-.mount"` {
				kept = append(kept, item)
			}
		}
		return name + "=[" + strings.Join(kept, ", ") + "]"
	})
}

// sortedLists returns the unit lines with the names in each dependency
// list sorted.
func sortedLists(units []string) []string {
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = depList.ReplaceAllStringFunc(u, func(m string) string {
			name, list, _ := strings.Cut(m, "=[")
			items := strings.Split(strings.TrimSuffix(list, "]"), ", ")
			sort.Strings(items)
			return name + "=[" + strings.Join(items, ", ") + "]"
		})
	}
	return out
}

// procRow is one (sus) row of a recorded GetUnitProcesses reply.
var procRow = regexp.MustCompile(`\("[^"]*" [^ ]+ "[^"]*"\)`)

// sortedRows is a recorded GetUnitProcesses reply with its rows sorted.
func sortedRows(reply string) string {
	rows := procRow.FindAllString(reply, -1)
	sort.Strings(rows)
	return strings.Join(rows, ", ")
}

// renumberJobs is signals with their jobs numbered J1, J2, ... in the
// order they appear.
func renumberJobs(signals []string) []string {
	ids := map[string]string{}
	out := make([]string, len(signals))
	for i, sig := range signals {
		f := strings.Fields(sig)
		if len(f) >= 2 && strings.HasPrefix(f[1], "J") {
			if _, ok := ids[f[1]]; !ok {
				ids[f[1]] = fmt.Sprintf("J%d", len(ids)+1)
			}
			f[1] = ids[f[1]]
		}
		out[i] = strings.Join(f, " ")
	}
	return out
}

// unitDown reports whether the record of unit name (its pool name, as
// signals print it: "u4.slice") says it is not loaded, inactive or
// failed.
func unitDown(units []string, name string) bool {
	for _, l := range units {
		rest, ok := strings.CutPrefix(l, name+": ")
		if !ok {
			continue
		}
		return strings.HasPrefix(rest, "org.freedesktop.systemd1.NoSuchUnit") || strings.Contains(rest, `"inactive"/`) || strings.Contains(rest, `"failed"/`)
	}
	return false
}

// sameState reports whether the step's results differ only in how they
// are printed (a Known with same set).
func sameState(o Op, real, fake Step) bool {
	k := knownDifference(o, real, fake)
	return k != nil && k.same
}

// knownDifference returns the documented difference the step's results
// show, or nil.
func knownDifference(o Op, real, fake Step) *Known {
	for i := range known {
		if known[i].match(o, real, fake) {
			return &known[i]
		}
	}
	// A step may show another known difference beside dependency lists
	// in another order (262 seed 67011: WantsMountsFor= in another order
	// and a calendar timer's next elapse; 252 seed 110414: with a
	// GetUnitProcesses reply in the kernel's order): that one, with the
	// lists sorted on both sides. Both only printed differently (same),
	// the step is too.
	sr, sf := real, fake
	sr.Units, sf.Units = sortedLists(real.Units), sortedLists(fake.Units)
	if slices.Equal(sr.Units, real.Units) && slices.Equal(sf.Units, fake.Units) {
		return nil
	}
	for i := range known {
		if known[i].match(o, sr, sf) {
			return &known[i]
		}
	}
	return nil
}
