package fakebus

// The commands of a unit (systemd's src/core/execute.c): ExecStart= and
// friends, and how the fake interprets the few programs it knows without
// running anything.

import (
	"os"
	"os/user"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// process is the main process of a running service.
type process struct {
	exit    int           // exit status when it ends by itself
	runFor  time.Duration // how long it runs; < 0: until stopped
	started time.Time
	pid     uint32
	ended   bool
	// index is the ExecStart= command it runs (a oneshot service runs
	// them in turn), ignoreFailure that command's "-" prefix: an exit
	// status that is not 0 counts as a success.
	index         int
	ignoreFailure bool
	// argv is its command line, as started: a daemon-reload that
	// changes ExecStart= does not change a running process's (measured
	// on 257 by the differential tester, 257 seed 301196 of a long run:
	// GetUnitProcesses lists it so after a drop-in reset ExecStart=).
	argv []string
	// stopEnd stops the timer of its end, for one that takes time
	// (dropMain).
	stopEnd func()
}

// command interprets ExecStart= command i of a service: the fake runs no
// programs, it knows what a few do. true exits 0, false exits 1, sleep N
// runs N seconds and exits 0, sh -c 'exit N' exits N, sh -c 'sleep N'
// sleeps; anything else runs until it is stopped.
func (m *manager) command(u *unit, i int) (p process, ok bool) {
	cmd, ok := u.mainCommand(i)
	if !ok {
		return process{}, false
	}
	p, _ = m.controlProcess(u, cmd)
	p.index, p.ignoreFailure, p.argv = i, cmd.IgnoreFailure, cmd.Argv
	return p, true
}

// controlProcess is what command c of u does in the fake: it fails before
// it runs as execFailure says (for any of u's commands, as systemd's
// child sets up each the same way), else as interpretKnown says, known
// reporting whether the fake knows the program.
func (m *manager) controlProcess(u *unit, c execCommand) (p process, known bool) {
	if status := m.execFailure(u, c); status != 0 {
		return process{exit: status}, true
	}
	return interpretKnown(c.Argv)
}

// execFailsLocked reports whether u's first command fails before it runs
// (execFailure).
func (m *manager) execFailsLocked(u *unit) bool {
	cmd, ok := u.mainCommand(0)
	return ok && m.execFailure(u, cmd) != 0
}

// mainCommand is ExecStart= command i, if any.
func (u *unit) mainCommand(i int) (execCommand, bool) {
	cmds := u.commands("ExecStart")
	if i >= len(cmds) {
		return execCommand{}, false
	}
	return cmds[i], true
}

// The exit statuses of systemd's child when it fails before the
// program runs (src/basic/exit-status.h).
const (
	exitChdir = 200
	exitExec  = 203
	exitStdin = 208
	exitGroup = 216
	exitUser  = 217
	// exitNoFiles247 is how 247 fails a service with LimitNOFILE=0.
	exitNoFiles247 = 127
)

// execFailure is the status with which systemd's child for cmd fails
// before running it, for what the fake can know without running
// anything (checked in exec_child's order, measured on 247 to 262 by the
// differential tester): DevicePolicy=strict without DeviceAllow= (its
// standard input, /dev/null, cannot be opened: 208/STDIN), LimitNOFILE=0
// (203/EXEC, 127 on 247), and, for a transient unit (whose commands its
// client names for this machine), a User= or Group= no account of this
// machine has (a name or an id: 217/USER, 216/GROUP), a
// WorkingDirectory= that is not a directory here (unless it may be
// missing, "-"; 200/CHDIR), a program that does not exist here
// (203/EXEC). A unit file's or a script's service describes the system
// the fake stands in for, whose users and programs this machine need not
// have: its commands run as the fake interprets them. 0: none of these.
func (m *manager) execFailure(u *unit, cmd execCommand) int {
	local := u.transient // see above
	if name := u.str("User"); local && name != "" {
		if _, _, ok := lookupUserCreds(name); !ok {
			return exitUser
		}
	}
	if name := u.str("Group"); local && name != "" {
		if _, ok := lookupGroupCreds(name); !ok {
			return exitGroup
		}
	}
	if _, allowed := u.props["DeviceAllow"]; u.str("DevicePolicy") == "strict" && !allowed {
		return exitStdin
	}
	if d := u.str("WorkingDirectory"); local && strings.HasPrefix(d, "/") {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return exitChdir
		}
	}
	if v, ok := u.props["LimitNOFILE"]; ok && v.Value() == uint64(0) {
		if !m.behaves(sdversions.NoFilesExecStatus203) {
			return exitNoFiles247
		}
		return exitExec
	}
	if local && strings.HasPrefix(cmd.Path, "/") {
		if _, err := os.Stat(cmd.Path); err != nil {
			return exitExec
		}
	}
	return 0
}

// lookupUserCreds resolves a user as systemd's get_user_creds: the ids
// of root and nobody are made up, a number is looked up as an id.
func lookupUserCreds(name string) (uid, gid string, ok bool) {
	switch name {
	case "root", "0":
		return "0", "0", true
	case "nobody", "65534":
		return "65534", "65534", true
	}
	lookup := user.Lookup
	if isNumber(name) {
		lookup = user.LookupId
	}
	u, err := lookup(name)
	if err != nil {
		return "", "", false
	}
	return u.Uid, u.Gid, true
}

// lookupGroupCreds resolves a group as systemd's get_group_creds.
func lookupGroupCreds(name string) (gid string, ok bool) {
	switch name {
	case "root", "0":
		return "0", true
	case "nogroup", "65534":
		return "65534", true
	}
	lookup := user.LookupGroup
	if isNumber(name) {
		lookup = user.LookupGroupId
	}
	g, err := lookup(name)
	if err != nil {
		return "", false
	}
	return g.Gid, true
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// commands returns the commands of an Exec* property.
func (u *unit) commands(name string) []execCommand {
	v, found := u.props[name]
	if !found {
		return nil
	}
	var cmds []execCommand
	if dbus.Store([]any{v.Value()}, &cmds) != nil {
		return nil
	}
	return cmds
}

// runCommandsLocked runs the commands of an Exec* property other than
// ExecStart the way the fake runs them: at once, in order, each with the
// exit status controlProcess gives it (a command it does not know exits 0),
// stopping at the first that fails without a "-" prefix (IgnoreFailure).
// Each run is recorded (u.runs; its PID made up, as the main process's).
// It reports whether they all succeeded.
func (m *manager) runCommandsLocked(u *unit, name string) bool {
	for i, c := range u.commands(name) {
		p, _ := m.controlProcess(u, c)
		exit := p.exit
		m.recordRunLocked(u, name, i, time.Now(), exit)
		if !u.cleanExit(cldExited, int32(exit)) && !c.IgnoreFailure {
			return false
		}
	}
	return true
}

// recordRunLocked records that command i of Exec* setting name ran from
// start until now and exited with status.
func (m *manager) recordRunLocked(u *unit, name string, i int, start time.Time, status int) {
	u.keepRun(name, i, execMain{pid: 1000 + m.lastJob, start: start, exit: time.Now(), code: cldExited, status: int32(status)})
}

// keepRun records run as the last of command i of Exec* setting name.
func (u *unit) keepRun(name string, i int, run execMain) {
	if u.runs == nil {
		u.runs = map[string][]execMain{}
	}
	runs := u.runs[name]
	if len(runs) <= i {
		runs = append(runs, make([]execMain, i+1-len(runs))...)
	}
	runs[i] = run
	u.runs[name] = runs
}

type execCommand struct {
	Path          string
	Argv          []string
	IgnoreFailure bool
}

// interpretKnown returns what a command does in the fake, reporting
// whether the fake knows it: one it does not know runs until it is
// stopped.
func interpretKnown(argv []string) (p process, known bool) {
	if len(argv) == 0 {
		return process{runFor: -1}, false
	}
	switch path.Base(argv[0]) {
	case "true":
		return process{}, true
	case "false":
		return process{exit: 1}, true
	case "sleep":
		if len(argv) == 2 {
			if d, ok := parseSleep(argv[1]); ok {
				return process{runFor: d}, true
			}
		}
	case "sh", "bash", "dash":
		if len(argv) == 3 && argv[1] == "-c" {
			f := strings.Fields(argv[2])
			switch {
			case len(f) == 2 && f[0] == "exit":
				if n, err := strconv.Atoi(f[1]); err == nil {
					return process{exit: n}, true
				}
			case len(f) == 2 && f[0] == "sleep":
				if d, ok := parseSleep(f[1]); ok {
					return process{runFor: d}, true
				}
			case len(f) == 1 && (f[0] == "true" || f[0] == ":"):
				return process{}, true
			case len(f) == 1 && f[0] == "false":
				return process{exit: 1}, true
			}
		}
	}
	return process{runFor: -1}, false
}

func parseSleep(s string) (time.Duration, bool) {
	if s == "infinity" {
		return -1, true
	}
	s = strings.TrimSuffix(s, "s")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// checkStdioFDs refuses file descriptors for a service's standard input,
// output or error (systemd-run --pipe) unless every command of the
// service is one the fake interprets: those read and write nothing, so
// the fake can honestly end them as systemd would (true exits 0, false
// 1, with nothing written); for any other program it would have to
// pretend to have run it, and says so instead.
func checkStdioFDs(props []setProp) error {
	fds := false
	for _, p := range props {
		if strings.HasPrefix(p.Name, "Standard") && strings.HasSuffix(p.Name, "FileDescriptor") {
			fds = true
		}
	}
	if !fds {
		return nil
	}
	for _, p := range props {
		if !strings.HasPrefix(p.Name, "Exec") {
			continue
		}
		var cmds []execCommand
		if dbus.Store([]any{p.Value.Value()}, &cmds) != nil {
			continue
		}
		for _, c := range cmds {
			if _, known := interpretKnown(c.Argv); !known {
				return &callErr{dbusErr + "NotSupported", "fakebus runs no programs: standard input, output or error file descriptors (systemd-run --pipe) only go with commands it interprets (true, false, sleep N, sh -c 'exit N'), not " + strings.Join(c.Argv, " ")}
			}
		}
	}
	return nil
}
