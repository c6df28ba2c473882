package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// The init and serve steps of run (see run.go): the program started again
// in the new namespaces, with initEnv set.

// oPath is O_PATH, which package syscall lacks (the value of every Linux
// architecture but alpha, parisc and sparc).
const oPath = 0x200000

// vendorUnitDirs are the system unit directories systemd searches that
// are not the fake's /etc/systemd/system and /run/systemd/system
// (LookupPaths, src/shared/path-lookup.c): the init step hides each with
// an empty tmpfs. The others (system.control, system.attached, transient,
// the generators' directories) are below /etc/systemd and /run, which
// the init step replaces.
var vendorUnitDirs = []string{"/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"}

// The paths the fake serves on and uses in the namespace.
const (
	busSocket     = "/run/dbus/system_bus_socket"
	privateSocket = "/run/systemd/private"
	unitDir       = "/etc/systemd/system"
	runtimeDir    = "/run/systemd/system"
	cgroupFS      = "/sys/fs/cgroup"
)

// layout is where the fake serves and keeps its unit directories in the
// namespace, and what CMD's environment gets to find it.
type layout struct {
	busSocket, privateSocket string
	unitDir, runtimeDir      string
	env                      []string // NAME=VALUE
}

// systemLayout is the system manager's layout.
func systemLayout() layout {
	return layout{busSocket, privateSocket, unitDir, runtimeDir, []string{"DBUS_SYSTEM_BUS_ADDRESS=" + systemBusAddress}}
}

// runInit runs the init or serve step and returns the exit status.
func runInit(conf string, stderr io.Writer) int {
	os.Unsetenv(initEnv)
	var cfg initConfig
	if err := json.Unmarshal([]byte(conf), &cfg); err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: %s: %v\n", initEnv, err)
		return exitRunFailed
	}
	if len(cfg.Cmd) == 0 {
		fmt.Fprintf(stderr, "fakesystemd: run: no command\n")
		return exitRunFailed
	}
	if cfg.Step == "serve" {
		return serveAndRun(cfg, stderr)
	}
	layout := systemMounts
	if cfg.UserManager {
		layout = userMounts
	}
	if err := mountFake(cfg, layout); err != nil {
		if !errors.Is(err, errProcRefused) {
			fmt.Fprintf(stderr, "fakesystemd: run: %v\n", err)
		}
		return exitRunFailed
	}
	if !cfg.UserNamespace || cfg.UID == 0 {
		return serveAndRun(cfg, stderr)
	}

	// The fake and CMD run as the user who ran fakesystemd, in a user
	// namespace of their own that maps that user to the init step's
	// root: they have no privilege, and the uid CMD claims to the bus
	// (AUTH EXTERNAL) is the uid the fake sees.
	sigs := make(chan os.Signal, 4)
	notifyPassed(sigs)
	next := cfg
	next.Step, next.SetupFD = "serve", 0
	var extra []*os.File
	if cfg.Log {
		extra = []*os.File{os.NewFile(3, "log")}
	}
	c, err := stepCommand("/proc/self/exe", next, extra, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: %v\n", err)
		return exitRunFailed
	}
	c.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER
	c.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: cfg.UID, HostID: 0, Size: 1}}
	c.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: cfg.GID, HostID: 0, Size: 1}}
	wait := waitForwarding
	if isPID1(cfg) {
		// Named before the fake starts: in the serve step, without
		// privilege over this user namespace, it cannot read PID 1's
		// mount namespace, so a PID 1 named systemd does not make it
		// take its unit directory for the host's (hostManaged,
		// fakebus/unitfile.go).
		if err := nameSystemd(); err != nil {
			fmt.Fprintf(stderr, "fakesystemd: run: %v\n", err)
			return exitRunFailed
		}
		wait = waitReaping
	}
	if err := c.Start(); err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: a user namespace for uid %d: %v\n", cfg.UID, err)
		return exitRunFailed
	}
	status, err := wait(c, sigs)
	if err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: %v\n", err)
		return exitRunFailed
	}
	return status
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

// serveAndRun serves the fake on the system's paths (the user manager's
// with --user), runs CMD and returns its exit status.
func serveAndRun(cfg initConfig, stderr io.Writer) int {
	logw := stderr
	if cfg.Log {
		syscall.CloseOnExec(3) // not for CMD
		f := os.NewFile(3, "log")
		defer f.Close()
		logw = f
	}
	cgroupRoot := cfg.CgroupRoot // "" for none
	if fi, err := os.Stat(cgroupFS); err == nil && fi.IsDir() {
		cgroupRoot = cgroupFS // the init step put the fake's there
	}
	l := systemLayout()
	if cfg.UserManager {
		l = userLayout(cfg.UID, cfg.Home)
	}
	// The last value of a flag wins: these replace the user's.
	flags := append(slices.Clone(cfg.Serve), "--socket", l.busSocket, "--private-socket", l.privateSocket,
		"--unit-dir", l.unitDir, "--runtime-unit-dir", l.runtimeDir, "--print-address")
	if cgroupRoot != "" {
		flags = append(flags, "--cgroup-root", cgroupRoot)
	}
	if cfg.UserManager {
		flags = append(flags, "--user="+strconv.Itoa(cfg.UID))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := &readyWriter{ready: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- run(ctx, flags, ready, logw) }()
	select {
	case <-ready.ready:
	case err := <-served:
		if err == nil {
			err = errors.New("the fake stopped before serving")
		}
		fmt.Fprintf(stderr, "fakesystemd: run: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return exitRunFailed
	}
	pid1 := isPID1(cfg)
	if pid1 {
		// Named once the fake serves, not before: the fake in PID 1
		// shares PID 1's mount namespace, and a PID 1 named systemd
		// there would have made it take its unit directory for the
		// host's (hostManaged, fakebus/unitfile.go).
		if err := nameSystemd(); err != nil {
			cancel()
			<-served
			fmt.Fprintf(stderr, "fakesystemd: run: %v\n", err)
			return exitRunFailed
		}
	}
	status := runCmd(cfg.Cmd, l.env, pid1, stderr)
	cancel()
	if err := <-served; err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: stopping the fake: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return status
}

// runCmd runs CMD with env added to its environment and returns its
// exit status; pid1 says the process is PID 1, which reaps orphans while
// it waits (waitReaping).
func runCmd(args, env []string, pid1 bool, stderr io.Writer) int {
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: %v\n", err)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
			return exitCmdNotFound
		}
		return exitCannotExec
	}
	// SIGINT is caught and dropped, not ignored (see startInit).
	sigs := make(chan os.Signal, 4)
	notifyPassed(sigs)
	defer signal.Stop(sigs)
	c := exec.Command(path, args[1:]...)
	c.Args[0] = args[0]
	c.Env = append(os.Environ(), env...) // the last value of a name wins
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: %s: %v\n", args[0], err)
		return exitCannotExec
	}
	wait := waitForwarding
	if pid1 {
		wait = waitReaping
	}
	status, err := wait(c, sigs)
	if err != nil {
		fmt.Fprintf(stderr, "fakesystemd: run: %s: %v\n", args[0], err)
		return exitRunFailed
	}
	return status
}

// mountFake puts the fake's directories where the manager's are, in the
// init step's mount namespace: the steps every layout shares around
// layout (systemMounts or userMounts), which mounts the rest. With a PID
// namespace it first mounts the namespace's proc on /proc, and reports
// how that went on cfg.SetupFD (reportProc): an error wrapping
// errProcRefused is reported there, for the caller to start again
// without a PID namespace, not on stderr.
func mountFake(cfg initConfig, layout func(initConfig, fakeDirs) error) error {
	// Nothing mounted from here on may propagate to the host.
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make / a slave mount: %w", err)
	}
	if cfg.PIDNamespace {
		if err := reportProc(cfg.SetupFD, mountProc()); err != nil {
			return err
		}
	}
	// The fake's files, opened before anything is mounted over the paths
	// that lead to them (a TMPDIR below /run, say).
	src, err := openFakeDirs(cfg)
	if err != nil {
		return err
	}
	defer src.close()
	cwd, cwdErr := os.Getwd()
	if err := layout(cfg, src); err != nil {
		return err
	}
	// The cgroup file system, if the host has the mount point.
	if err := bindCgroupFS(src); err != nil {
		return err
	}
	if cwdErr == nil {
		os.Chdir(cwd) // see the new mounts if the directory is below one
	}
	return nil
}

// systemMounts is the system manager's layout: /run/dbus and
// /run/systemd for its sockets, its unit directories, the vendor ones
// empty.
func systemMounts(_ initConfig, src fakeDirs) error {
	// /run: a tmpfs with the host's entries bound back in, but dbus and
	// systemd, which are the fake's (it makes its sockets there).
	if err := shadow("/run", "dbus", "systemd"); err != nil {
		return err
	}
	for _, d := range []string{"/run/dbus", "/run/systemd", "/run/systemd/system"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := place(src.runtimeDir, "/run/systemd/system", ""); err != nil {
		return err
	}

	// /etc/systemd: the same, the fake's unit directory as system.
	if err := makeShadowDir("/etc/systemd", "system", "system.control", "system.attached"); err != nil {
		return err
	}
	if err := os.Mkdir("/etc/systemd/system", 0o755); err != nil {
		return err
	}
	if err := place(src.unitDir, "/etc/systemd/system", ""); err != nil {
		return err
	}

	// The vendor directories: empty.
	return hideDirs(vendorUnitDirs)
}

// fakeDirs are the fake's directories on the host, open with O_PATH; nil
// for one the caller did not give, which is a tmpfs made in the
// namespace (place), gone with it.
type fakeDirs struct{ unitDir, runtimeDir, cgroupRoot *os.File }

// openFakeDirs opens the fake's directories cfg names. The caller must
// close them.
func openFakeDirs(cfg initConfig) (fakeDirs, error) {
	var src fakeDirs
	for _, f := range []struct {
		p  **os.File
		fn string
	}{{&src.unitDir, cfg.UnitDir}, {&src.runtimeDir, cfg.RuntimeDir}, {&src.cgroupRoot, cfg.CgroupRoot}} {
		if f.fn == "" {
			continue
		}
		var err error
		if *f.p, err = os.OpenFile(f.fn, oPath|syscall.O_CLOEXEC, 0); err != nil {
			src.close()
			return fakeDirs{}, fmt.Errorf("open the fake's %w", err)
		}
	}
	return src, nil
}

func (d fakeDirs) close() {
	for _, f := range []*os.File{d.unitDir, d.runtimeDir, d.cgroupRoot} {
		if f != nil {
			f.Close()
		}
	}
}

// bindCgroupFS puts the fake's cgroup root on /sys/fs/cgroup, if the
// host has the mount point.
func bindCgroupFS(src fakeDirs) error {
	if fi, err := os.Stat(cgroupFS); err == nil && fi.IsDir() {
		return place(src.cgroupRoot, cgroupFS, "")
	}
	return nil
}

// place puts one of the fake's directories on to: the caller's, bound
// from, or where the caller gave none (from is nil) a new tmpfs, with
// mode 0755 and the mount options opts, which ends with the namespace:
// nothing the fake keeps there outlives run, even a SIGKILLed one.
func place(from *os.File, to, opts string) error {
	if from != nil {
		return bind(from, to)
	}
	o := "mode=0755"
	if opts != "" {
		o += "," + opts
	}
	if err := syscall.Mount("tmpfs", to, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, o); err != nil {
		return fmt.Errorf("mount a tmpfs on %s: %w", to, err)
	}
	return nil
}

// hideDirs mounts an empty tmpfs on each of dirs that exists, once per
// directory their symlinks resolve to, but those in keep.
func hideDirs(dirs []string, keep ...string) error {
	var hidden []string
	for i, k := range keep {
		if real, err := filepath.EvalSymlinks(k); err == nil {
			keep[i] = real
		}
	}
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || slices.Contains(hidden, real) || slices.Contains(keep, real) {
			continue // no such directory: nothing to hide
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		hidden = append(hidden, real)
		if err := syscall.Mount("tmpfs", real, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755"); err != nil {
			return fmt.Errorf("mount a tmpfs on %s: %w", real, err)
		}
	}
	return nil
}

// bind bind-mounts the file or directory open as from on to.
func bind(from *os.File, to string) error {
	if err := syscall.Mount(fdPath(from), to, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s on %s: %w", from.Name(), to, err)
	}
	return nil
}

func fdPath(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }

// makeShadowDir makes dir a tmpfs with the host's entries, but those named
// hide, bound back in. If dir does not exist, its nearest existing parent
// is shadowed so that dir can be made.
func makeShadowDir(dir string, hide ...string) error {
	fi, err := os.Lstat(dir)
	switch {
	case err == nil && fi.IsDir():
		return shadow(dir, hide...)
	case err == nil:
		return fmt.Errorf("%s is not a directory", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := makeShadowDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return os.Mkdir(dir, 0o755)
}

// shadow mounts a tmpfs on dir, then binds the entries dir had back, but
// those named hide, and copies its symlinks. New entries are made in the
// tmpfs only.
func shadow(dir string, hide ...string) error {
	old, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer old.Close()
	fi, err := old.Stat()
	if err != nil {
		return err
	}
	entries, err := old.ReadDir(-1)
	if err != nil {
		return err
	}
	mode := uint32(fi.Mode().Perm())
	if fi.Mode()&fs.ModeSticky != 0 {
		mode |= syscall.S_ISVTX
	}
	opts := fmt.Sprintf("mode=%o", mode)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount a tmpfs on %s: %w", dir, err)
	}
	for _, e := range entries {
		if slices.Contains(hide, e.Name()) {
			continue
		}
		from := fdPath(old) + "/" + e.Name()
		to := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(from)
			if err == nil {
				err = os.Symlink(target, to)
			}
			if err != nil {
				return err
			}
			continue
		case e.IsDir():
			err = os.Mkdir(to, 0o755)
		default:
			err = os.WriteFile(to, nil, 0o644)
		}
		if err != nil {
			return err
		}
		if err := syscall.Mount(from, to, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s back on %s: %w", filepath.Join(dir, e.Name()), to, err)
		}
	}
	return nil
}
