package main

import (
	"context"
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

// The run subcommand: fakesystemd serves the fake in its own process, in
// the host's namespaces, and starts itself again ("the init step") in a
// new mount namespace (and a new user namespace when not root). The init
// step mounts the fake's sockets and directories over the system's
// (/run/dbus/system_bus_socket, /run/systemd/private, the unit
// directories, /sys/fs/cgroup), then runs CMD. Every mount is made in the
// new namespace, after / was made a slave, so the host never sees one.

const runUsage = `usage: fakesystemd run [flags] -- CMD [ARGS...]

Runs CMD in a private mount namespace (and user namespace when not root)
where fakesystemd is the system's systemd: the system bus at
/run/dbus/system_bus_socket, /run/systemd/private, /run/systemd/system,
the unit directories and /sys/fs/cgroup are the fake's. Exits with CMD's
status; 125 when fakesystemd itself fails, 126/127 when CMD cannot run.

Flags: those of fakesystemd (--version, --backport, --script, --unit-dir,
--runtime-unit-dir, --cgroup-root, --trace, ...) but --socket,
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

// initConfig is what the init step needs from its parent: host paths,
// opened before anything is mounted over them.
type initConfig struct {
	Bus           string `json:"bus"`
	Private       string `json:"private"`
	UnitDir       string `json:"unit_dir"`
	RuntimeDir    string `json:"runtime_unit_dir"`
	CgroupRoot    string `json:"cgroup_root"`
	UID           int    `json:"uid"`
	GID           int    `json:"gid"`
	UserNamespace bool   `json:"user_namespace"`
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

// readyWriter stands for stdout of the serving code: its first write
// (the addresses, printed once every socket accepts connections) closes
// ready.
type readyWriter struct{ ready chan struct{} }

func (w *readyWriter) Write(p []byte) (int, error) {
	select {
	case <-w.ready:
	default:
		close(w.ready)
	}
	return len(p), nil
}

// runCommand serves the fake, runs CMD in its namespaces and returns
// CMD's exit status.
func runCommand(args []string, stdout, stderr io.Writer) (int, error) {
	ra, err := parseRunArgs(args)
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "fakesystemd-run-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	cfg := initConfig{
		Bus:     filepath.Join(dir, "system_bus_socket"),
		Private: filepath.Join(dir, "private"),
		UID:     os.Geteuid(),
		GID:     os.Getegid(),
	}
	serve := append(slices.Clone(ra.serve), "--socket", cfg.Bus, "--private-socket", cfg.Private, "--print-address")
	o, err := parseFlags(serve)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, errRunHelp
		}
		return 0, err
	}
	// The fake's directories: the user's, or temporary ones in dir.
	if cfg.UnitDir = o.unitDir; cfg.UnitDir == "" {
		cfg.UnitDir = filepath.Join(dir, "etc-systemd-system")
		serve = append(serve, "--unit-dir", cfg.UnitDir)
	}
	if cfg.RuntimeDir = o.runtimeDir; cfg.RuntimeDir == "" {
		cfg.RuntimeDir = filepath.Join(dir, "run-systemd-system")
		serve = append(serve, "--runtime-unit-dir", cfg.RuntimeDir)
	}
	if cfg.CgroupRoot = o.cgroupRoot; cfg.CgroupRoot == "" {
		cfg.CgroupRoot = filepath.Join(dir, "cgroup")
		serve = append(serve, "--cgroup-root", cfg.CgroupRoot)
	}
	for _, p := range []*string{&cfg.UnitDir, &cfg.RuntimeDir, &cfg.CgroupRoot} {
		if *p, err = filepath.Abs(*p); err != nil {
			return 0, err
		}
	}
	logw := stderr
	if ra.log != "" {
		f, err := os.Create(ra.log)
		if err != nil {
			return 0, fmt.Errorf("--log: %w", err)
		}
		defer f.Close()
		logw = f
	}

	// Serve until CMD is done.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := &readyWriter{ready: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- run(ctx, serve, ready, logw) }()
	select {
	case <-ready.ready:
	case err := <-served:
		if err == nil {
			err = errors.New("the fake stopped before serving")
		}
		return 0, err
	}
	stopServing := func() error {
		cancel()
		return <-served
	}

	status, err := startInit(cfg, ra.cmd, stderr)
	if serr := stopServing(); err == nil && serr != nil {
		err = serr
	}
	return status, err
}

// startInit runs the init step in new namespaces and waits for it,
// passing SIGTERM, SIGHUP and SIGQUIT on. SIGINT is not passed on: from a
// terminal it reaches CMD, in the same process group, directly.
func startInit(cfg initConfig, cmdArgs []string, stderr io.Writer) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	// SIGINT is caught and dropped, not ignored: CMD would inherit SIG_IGN.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
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

	var c *exec.Cmd
	var refusals []string
	for _, try := range tries {
		conf, err := json.Marshal(try)
		if err != nil {
			return 0, err
		}
		c = exec.Command(self, cmdArgs...)
		c.Args[0] = "fakesystemd-run-init"
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, stderr
		c.Env = append(os.Environ(), initEnv+"="+string(conf))
		c.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
		what := "a mount namespace"
		if try.UserNamespace {
			what = "a user and mount namespace"
			c.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
			c.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: try.UID, Size: 1}}
			c.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: try.GID, Size: 1}}
		}
		err = c.Start()
		if err == nil {
			refusals = nil
			break
		}
		var errno syscall.Errno
		if errors.As(err, &errno) {
			err = errno // "fork/exec PATH:" says nothing here
		}
		refusals = append(refusals, fmt.Sprintf("%s: %v", what, err))
		c = nil
	}
	if c == nil {
		return 0, fmt.Errorf("the kernel refuses the namespaces CMD needs (%s); see user.max_user_namespaces and kernel.unprivileged_userns_clone", strings.Join(refusals, "; "))
	}
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
	err = c.Wait()
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
