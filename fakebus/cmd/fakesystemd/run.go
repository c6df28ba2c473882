package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// The run subcommand starts the program again ("the init step") in a new
// mount namespace (and a new user namespace when not root), and a new PID
// namespace where the kernel allows one and a proc file system for it, of
// which the init step is PID 1 (pid1.go); where it does not, the init
// step is started again without, and the host's PID 1 stays CMD's. The
// init step makes / a slave, mounts a proc of its PID namespace on /proc,
// mounts the fake's directories over the system's (the
// unit directories, /sys/fs/cgroup) and a tmpfs over /run, then serves
// the fake there, on /run/dbus/system_bus_socket and /run/systemd/private
// with /etc/systemd/system as its unit directory, so that every path it
// reports is the one CMD sees; then it runs CMD as its child. When not
// root, the fake and CMD run in a second user namespace that maps the
// caller to itself (the serve step): CMD has the caller's uid, and the
// uid it claims on the bus is the one the fake sees. Every mount is made
// in the new namespace, so the host never sees one. With --user the fake
// plays the caller's user manager instead, and the init step makes the
// user manager's layout (runuser.go).

const runUsage = `usage: fakesystemd run [--user] [flags] -- CMD [ARGS...]

Runs CMD in a private mount namespace (and user namespace when not root)
where fakesystemd is the system's systemd: the system bus at
/run/dbus/system_bus_socket, /run/systemd/private, /run/systemd/system,
the unit directories and /sys/fs/cgroup are the fake's. Where the kernel
allows it, CMD runs in a PID namespace too, whose PID 1 is the fake (as
root; else a process that reaps orphans) named systemd (/proc/1/comm),
/proc showing the namespace; processes CMD leaves behind are killed when
it ends. Where the kernel refuses one, PID 1 stays the host's. Exits with
CMD's status; 125 when fakesystemd itself fails, 126/127 when CMD cannot
run.

With --user the fake is the caller's user manager (systemctl --user,
systemd-run --user, busctl --user): XDG_RUNTIME_DIR=/run/user/UID is a
private tmpfs holding its sockets (systemd/private, and bus, the session
bus, DBUS_SESSION_BUS_ADDRESS), its unit directories are
$HOME/.config/systemd/user and $XDG_RUNTIME_DIR/systemd/user, the user
vendor unit directories are empty and /sys/fs/cgroup is its cgroup root;
the system bus and /run/systemd stay the host's. HOME must be set.

Flags: those of fakesystemd (--version, --backport, --script, --unit-dir,
--runtime-unit-dir, --cgroup-root, --user, --trace, ...) but --socket,
--private-socket and --print-address, and:

  --log FILE   write the fake's --trace lines and notes to FILE, not stderr
`

// Exit statuses of run's own failures, as env(1) and nohup(1) use them.
const (
	exitRunFailed   = 125 // fakesystemd run itself failed
	exitCannotExec  = 126 // CMD was found but could not be run
	exitCmdNotFound = 127 // CMD was not found
)

// initEnv names the environment variable that makes the program the init
// step: its value is the JSON of an initConfig.
const initEnv = "FAKESYSTEMD_RUN_INIT"

// systemBusAddress is the system bus's default address, where the init
// step puts the fake's bus socket.
const systemBusAddress = "unix:path=/run/dbus/system_bus_socket"

// initConfig is what the init and serve steps need from the caller.
type initConfig struct {
	// Host paths of the fake's directories the caller gave, opened before
	// anything is mounted over the paths that lead to them; "" for one
	// made in the namespace.
	UnitDir    string `json:"unit_dir"`
	RuntimeDir string `json:"runtime_unit_dir"`
	CgroupRoot string `json:"cgroup_root"`
	// The caller's uid and gid, and whether the init step has a user
	// namespace of its own.
	UID           int  `json:"uid"`
	GID           int  `json:"gid"`
	UserNamespace bool `json:"user_namespace"`
	// UserManager says the fake plays the caller's user manager (--user),
	// Home is then the caller's home directory.
	UserManager bool   `json:"user_manager,omitempty"`
	Home        string `json:"home,omitempty"`
	// Serve are fakesystemd's flags for the fake; Log says the trace and
	// notes go to file descriptor 3, not stderr.
	Serve []string `json:"serve"`
	Log   bool     `json:"log"`
	// Step is "init" or "serve".
	Step string `json:"step"`
	// Cmd is CMD and its arguments.
	Cmd []string `json:"cmd"`
	// PIDNamespace says the init step is PID 1 of a PID namespace of its
	// own (pid1.go). SetupFD is then the file descriptor of a pipe to
	// the caller, closed once /proc is the namespace's, or carrying why
	// the kernel refused it; 0 for none.
	PIDNamespace bool `json:"pid_namespace,omitempty"`
	SetupFD      int  `json:"setup_fd,omitempty"`
}

// serveFlagsRefused are fakesystemd's flags that run sets itself.
var serveFlagsRefused = []string{"socket", "private-socket", "print-address"}

// runMain runs the run subcommand and returns the exit status.
func runMain(args []string, stdout, stderr io.Writer) int {
	status, err := runCommand(args, stdout, stderr)
	if err == nil {
		return status
	}
	if errors.Is(err, errRunHelp) {
		fmt.Fprint(stdout, runUsage)
		return 0
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "fakesystemd: run: %s (see fakesystemd run -h)\n", msg)
	} else {
		fmt.Fprintf(stderr, "fakesystemd: run: %s\n", msg)
	}
	return exitRunFailed
}

var errRunHelp = errors.New("help")

// runArgs are run's command line, split.
type runArgs struct {
	serve []string // fakesystemd's flags
	log   string   // --log FILE
	cmd   []string // CMD [ARGS...]
}

func parseRunArgs(args []string) (runArgs, error) {
	var ra runArgs
	i := slices.Index(args, "--")
	flags := args
	if i >= 0 {
		flags, ra.cmd = args[:i], args[i+1:]
	}
	for j := 0; j < len(flags); j++ {
		a := flags[j]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			ra.serve = append(ra.serve, a) // a flag's value
		case name == "h" || name == "help":
			return ra, errRunHelp
		case name == "log":
			if !hasValue {
				if j+1 == len(flags) {
					return ra, usagef("flag needs an argument: %s", a)
				}
				j++
				value = flags[j]
			}
			if value == "" {
				return ra, usagef("--log needs a file name")
			}
			ra.log = value
		case slices.Contains(serveFlagsRefused, name):
			return ra, usagef("--%s is not for run: run serves the fake where CMD finds it", name)
		default:
			ra.serve = append(ra.serve, a)
		}
	}
	if len(ra.cmd) == 0 {
		return ra, usagef("no command: want fakesystemd run [flags] -- CMD [ARGS...]")
	}
	return ra, nil
}

// runCommand runs CMD in the init step's namespaces and returns its exit
// status.
func runCommand(args []string, stdout, stderr io.Writer) (int, error) {
	ra, err := parseRunArgs(args)
	if err != nil {
		return 0, err
	}
	// Usage errors are found here, before any namespace is made.
	o, err := parseFlags(append(slices.Clone(ra.serve), "--socket", "/run/dbus/system_bus_socket"))
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, errRunHelp
		}
		return 0, err
	}
	cfg := initConfig{UID: os.Geteuid(), GID: os.Getegid(), Serve: ra.serve, Step: "init"}
	if o.user >= 0 {
		if o.user != cfg.UID {
			return 0, usagef("--user=%d: run plays the caller's user manager (uid %d); run it as uid %d", o.user, cfg.UID, o.user)
		}
		if cfg.Home, err = userHome(); err != nil {
			return 0, err
		}
		cfg.UserManager = true
	}
	// The fake's directories: the caller's, which must not be the host's
	// (runguard.go); those not given are made in the namespace (place).
	protected := protectedDirs(cfg)
	for _, d := range []struct {
		p            *string
		given, label string
	}{{&cfg.UnitDir, o.unitDir, "unit-dir"}, {&cfg.RuntimeDir, o.runtimeDir, "runtime-unit-dir"}, {&cfg.CgroupRoot, o.cgroupRoot, "cgroup-root"}} {
		if d.given == "" {
			continue
		}
		if *d.p, err = filepath.Abs(d.given); err != nil {
			return 0, err
		}
		if err := refuseHostDir(*d.p, protected); err != nil {
			return 0, fmt.Errorf("--%s %s: %w", d.label, d.given, err)
		}
		if err := os.MkdirAll(*d.p, 0o755); err != nil {
			return 0, fmt.Errorf("--%s: %w", d.label, err)
		}
	}
	var extra []*os.File
	if ra.log != "" {
		f, err := os.Create(ra.log)
		if err != nil {
			return 0, fmt.Errorf("--log: %w", err)
		}
		defer f.Close()
		extra, cfg.Log = []*os.File{f}, true
	}
	return startInit(cfg, ra.cmd, extra, stderr)
}

// notifyPassed relays to sigs the signals run passes on to CMD (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT), except those ignored when run started: a
// caught signal is reset to its default in CMD, and a signal the caller
// ignored (nohup's SIGHUP) must stay ignored there, as it would for a
// command started directly. Each step of run does the same, so the
// disposition reaches CMD through them.
func notifyPassed(sigs chan<- os.Signal) {
	var pass []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		if !signal.Ignored(s) {
			pass = append(pass, s)
		}
	}
	if len(pass) > 0 { // none would mean every signal
		signal.Notify(sigs, pass...)
	}
}

// startInit runs the init step in new namespaces and waits for it,
// passing SIGTERM, SIGHUP and SIGQUIT on. SIGINT is not passed on: from a
// terminal it reaches CMD, in the same process group, directly.
func startInit(cfg initConfig, cmdArgs []string, extra []*os.File, stderr io.Writer) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cfg.Cmd = cmdArgs
	// SIGINT is caught and dropped, not ignored: CMD would inherit SIG_IGN.
	sigs := make(chan os.Signal, 4)
	notifyPassed(sigs)
	defer signal.Stop(sigs)

	var tries []initConfig
	if cfg.UID == 0 {
		// Root needs no user namespace; one without CAP_SYS_ADMIN (a
		// container's) may still make one.
		tries = append(tries, cfg)
	}
	withUser := cfg
	withUser.UserNamespace = true
	tries = append(tries, withUser)

	var refusals []string
	for _, try := range tries {
		what := "a mount namespace"
		if try.UserNamespace {
			what = "a user and mount namespace"
		}
		// Each with a PID namespace first, then, if the kernel refuses
		// it or a proc file system for it, without.
		for _, pid := range []bool{true, false} {
			try.PIDNamespace = pid
			c, err := startStep(self, try, extra, stderr)
			if err == nil {
				return waitForwarding(c, sigs)
			}
			if !pid {
				refusals = append(refusals, fmt.Sprintf("%s: %v", what, err))
			}
		}
	}
	return 0, fmt.Errorf("the kernel refuses the namespaces CMD needs (%s); see user.max_user_namespaces and kernel.unprivileged_userns_clone", strings.Join(refusals, "; "))
}

// startStep starts the init step as cfg says, in a new mount namespace,
// a user namespace with cfg.UserNamespace and a PID namespace with
// cfg.PIDNamespace, and with a PID namespace waits until the init step
// has mounted its /proc. The error is the kernel's refusal.
func startStep(self string, cfg initConfig, extra []*os.File, stderr io.Writer) (*exec.Cmd, error) {
	var setup, report *os.File
	if cfg.PIDNamespace {
		var err error
		if setup, report, err = os.Pipe(); err != nil {
			return nil, err
		}
		defer setup.Close()
		extra = append(slices.Clone(extra), report)
		cfg.SetupFD = 2 + len(extra)
	}
	c, err := stepCommand(self, cfg, extra, stderr)
	if err != nil {
		return nil, err
	}
	if cfg.PIDNamespace {
		c.Args = pid1Args()
	}
	c.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNS
	if cfg.UserNamespace {
		c.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		c.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: cfg.UID, Size: 1}}
		c.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: cfg.GID, Size: 1}}
	}
	if cfg.PIDNamespace {
		c.SysProcAttr.Cloneflags |= syscall.CLONE_NEWPID
	}
	err = c.Start()
	if report != nil {
		report.Close()
	}
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			err = errno // "fork/exec PATH:" says nothing here
		}
		return nil, err
	}
	if setup == nil {
		return c, nil
	}
	// The init step closes its end once /proc is the namespace's (or
	// when it fails otherwise, which it reports itself), or writes why
	// the kernel refused a proc file system and exits.
	why, _ := io.ReadAll(setup)
	if len(why) == 0 {
		return c, nil
	}
	c.Wait()
	return nil, errors.New(string(why))
}

// stepCommand is the command of the init or serve step: the program
// itself with cfg (CMD in it) in its environment, extra as file
// descriptors 3 and on, and a SIGKILL when its parent dies.
func stepCommand(self string, cfg initConfig, extra []*os.File, stderr io.Writer) (*exec.Cmd, error) {
	conf, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	c := exec.Command(self)
	c.Args[0] = "fakesystemd-run-" + cfg.Step
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, stderr
	c.Env = append(os.Environ(), initEnv+"="+string(conf))
	c.ExtraFiles = extra
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return c, nil
}

// waitForwarding waits for c, passing on the signals of sigs but SIGINT,
// and returns its exit status.
func waitForwarding(c *exec.Cmd, sigs <-chan os.Signal) (int, error) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s != os.Interrupt {
					c.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	err := c.Wait()
	close(done)
	return exitStatus(c.ProcessState, err)
}

// exitStatus is the status a shell reports for a process: its exit
// status, or 128+N when signal N killed it.
func exitStatus(ps *os.ProcessState, err error) (int, error) {
	if ps == nil {
		return 0, err
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return ps.ExitCode(), nil
}
