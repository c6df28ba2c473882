package fakebus

import (
	"strings"

	"golang.org/x/sys/unix"
)

// highRlimitNofile is HIGH_RLIMIT_NOFILE, the hard limit on open files a
// system manager gives its units at least, and fdSetSize FD_SETSIZE, the
// soft limit it gives them at most (select() cannot take higher fds).
const (
	highRlimitNofile = 524288
	fdSetSize        = 1024
)

// defaultRlimits returns the limits a unit that sets none of its own reads
// (LimitX, LimitXSoft) and the manager's DefaultLimitX, by property name
// without "Default"/"Limit" ("NOFILE", "NOFILESoft", ...), as systemd
// computes them at start from the limits it inherited, here this
// process's: a resource a unit does not limit reads the manager's own
// limit (property_get_rlimit), except open files, which systemd sets for
// every unit (fallback_rlimit_nofile): a soft limit of at most FD_SETSIZE,
// and, on a system manager, a hard limit of at least HIGH_RLIMIT_NOFILE
// within the kernel's fs.nr_open. Go raises its own soft limit on open
// files to the hard one at start; the soft limit systemd passes on is
// FD_SETSIZE then. Measured on 247, 252, 257 and 262 in the sandbox:
// LimitNOFILE 524288, LimitNOFILESoft 1024 for a service that sets none.
func defaultRlimits(system bool) map[string]uint64 {
	out := map[string]uint64{}
	for name, rl := range processRlimits() {
		hard, soft := rl.Max, rl.Cur
		if name == "NOFILE" {
			soft = min(soft, fdSetSize)
			if system {
				hard = max(hard, highRlimitNofile)
				if nr, ok := readProcUint("/proc/sys/fs/nr_open"); ok {
					hard = min(hard, nr)
				}
			}
		}
		out[name], out[name+"Soft"] = hard, soft
	}
	return out
}

// rlimitProp returns the defaultRlimits key of a LimitX, LimitXSoft,
// DefaultLimitX or DefaultLimitXSoft property ("NOFILE", "NOFILESoft").
func rlimitProp(name string) (string, bool) {
	return strings.CutPrefix(strings.TrimPrefix(name, "Default"), "Limit")
}

// processRlimits returns this process's limits of the resources of
// systemd's LimitX= settings, by the name the properties carry
// (LimitNOFILE, LimitNOFILESoft, DefaultLimitNOFILE, ...): those it can
// read.
func processRlimits() map[string]unix.Rlimit {
	out := map[string]unix.Rlimit{}
	for name, res := range map[string]int{
		"CPU": unix.RLIMIT_CPU, "FSIZE": unix.RLIMIT_FSIZE, "DATA": unix.RLIMIT_DATA, "STACK": unix.RLIMIT_STACK,
		"CORE": unix.RLIMIT_CORE, "RSS": unix.RLIMIT_RSS, "NOFILE": unix.RLIMIT_NOFILE, "AS": unix.RLIMIT_AS,
		"NPROC": unix.RLIMIT_NPROC, "MEMLOCK": unix.RLIMIT_MEMLOCK, "LOCKS": unix.RLIMIT_LOCKS,
		"SIGPENDING": unix.RLIMIT_SIGPENDING, "MSGQUEUE": unix.RLIMIT_MSGQUEUE, "NICE": unix.RLIMIT_NICE,
		"RTPRIO": unix.RLIMIT_RTPRIO, "RTTIME": unix.RLIMIT_RTTIME,
	} {
		var rl unix.Rlimit
		if unix.Getrlimit(res, &rl) == nil {
			out[name] = rl
		}
	}
	return out
}
