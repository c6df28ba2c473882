package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

const usage = `usage: fakesystemd (--socket PATH | --private-socket PATH)... [flags]

Serves fakebus, a fake systemd manager, on unix sockets until SIGINT or SIGTERM.

  --socket PATH          serve in bus mode, like /run/dbus/system_bus_socket
  --private-socket PATH  serve peer-to-peer, like /run/systemd/private
  --version STRING       Manager.Version and the release modelled (default %s)
  --backport NAME        a property or method the release lacks (repeatable)
  --script FILE          JSON: scripted jobs and unit files (see go doc)
  --unit-dir DIR         the unit directory (/etc/systemd/system's part; default: temporary)
  --runtime-unit-dir DIR the runtime unit directory (/run/systemd/system's part)
  --cgroup-root DIR      keep the units' control groups as directories below DIR
  --user[=UID]           play the user manager (systemd --user) of UID, by
                         default the caller's, not the system manager
  --limit NAME=VALUE     a limit on what clients can make the fake hold, by
                         dbus-daemon's name, e.g. max_message_size=1MiB,
                         auth_timeout=2s, max_completed_connections=64 (repeatable; see go doc)
  --allow-unprivileged   let every client do everything (default: only root, as systemd)
  --polkit               refuse other users as systemd with polkit and no agent
                         does (InteractiveAuthorizationRequired), not as with no polkit
  --made-up-pids         record a PID no process has (default: refused, as systemd)
  --trace                one line per message on stderr
  --no-control           do not serve the control interface (io.github.sdbus_go.FakeSystemd)
  --call-log FILE        write every call systemd receives, answered, as a line of JSON to FILE
  --print-address        print the D-Bus addresses on stdout once serving

fakesystemd run [flags] -- CMD [ARGS...] runs CMD where the fake is the
system's systemd, or with --user the caller's user manager (see
fakesystemd run -h).

This is fakesystemd %s, of github.com/sdbus-go/sdbus.
`

// buildVersion is fakesystemd's own version when the linker is given one:
// make dist links the program with -X main.buildVersion=VERSION, the
// module's version of the commit it is built from (scripts/dist). Empty
// in other builds, which report what the go command recorded
// (programVersion).
var buildVersion string

// programVersion returns fakesystemd's own version, not the systemd
// release it models: linked, when the linker was given one; else the
// main module's version in info, which go install records (a tag such as
// v1.2.0, or a pseudo-version); else "(devel)", as the go command names a
// build from a clone. info may be nil (no build information).
func programVersion(linked string, info *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if info != nil && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

func main() {
	if conf, ok := os.LookupEnv(initEnv); ok {
		os.Exit(runInit(conf, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "run" {
		os.Exit(runMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// A second signal while shutting down kills the process.
		<-ctx.Done()
		stop()
	}()
	os.Exit(realMain(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// realMain runs the command and returns its exit status: 0, 1 for
// failures, 2 for usage errors. Errors are one line on stderr.
func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		info, _ := debug.ReadBuildInfo()
		fmt.Fprintf(stdout, usage, fakebus.DefaultVersion, programVersion(buildVersion, info))
		return 0
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "fakesystemd: %s (see fakesystemd -h)\n", msg)
		return 2
	}
	fmt.Fprintf(stderr, "fakesystemd: %s\n", msg)
	return 1
}

// usageError is a problem with the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// options are the parsed flags.
type options struct {
	socket, privateSocket string
	version               string
	backports             []string
	script                string
	unitDir, runtimeDir   string
	cgroupRoot            string
	limits                fakebus.Limits
	trace, printAddress   bool
	// user is the uid whose user manager the fake plays (--user), -1
	// for the system manager.
	user int
	// allowUnprivileged lets every caller do everything
	// (fakebus.AccessEveryone); else only root (and a user manager's
	// user) may, as on systemd (fakebus.AccessRoot).
	allowUnprivileged bool
	// polkit refuses as systemd with polkit and no agent
	// (fakebus.WithPolkit).
	polkit bool
	// madeUpPIDs records PIDs no process has (fakebus.WithMadeUpPIDs).
	madeUpPIDs bool
	// noControl leaves out the control interface (fakebus.WithControl).
	noControl bool
	// callLog is the file the call log is written to (--call-log), "" for none.
	callLog string
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// userFlag is --user[=UID]: a boolean flag ("--user", the caller's uid;
// "--user=false", the system manager) that also takes a uid. A bad value
// is kept, for an error in the style of the others.
type userFlag struct {
	uid     *int
	invalid bool
	bad     string
}

func (f *userFlag) IsBoolFlag() bool { return true }

func (f *userFlag) String() string {
	if f.uid == nil || *f.uid < 0 {
		return "false"
	}
	return strconv.Itoa(*f.uid)
}

func (f *userFlag) Set(s string) error {
	switch s {
	case "true":
		*f.uid = os.Geteuid()
		return nil
	case "false":
		*f.uid = -1
		return nil
	}
	// (uid_t)-1 is no uid: setresuid and chown take it for "unchanged".
	uid, err := strconv.ParseUint(s, 10, 32)
	if err != nil || uid == 1<<32-1 {
		f.invalid, f.bad = true, s
		return errors.New("not a uid")
	}
	*f.uid = int(uid)
	return nil
}

func parseFlags(args []string) (options, error) {
	o := options{user: -1}
	fs := flag.NewFlagSet("fakesystemd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.socket, "socket", "", "")
	fs.StringVar(&o.privateSocket, "private-socket", "", "")
	fs.StringVar(&o.version, "version", fakebus.DefaultVersion, "")
	fs.Var((*stringList)(&o.backports), "backport", "")
	fs.StringVar(&o.script, "script", "", "")
	fs.StringVar(&o.unitDir, "unit-dir", "", "")
	fs.StringVar(&o.runtimeDir, "runtime-unit-dir", "", "")
	fs.StringVar(&o.cgroupRoot, "cgroup-root", "", "")
	user := &userFlag{uid: &o.user}
	fs.Var(user, "user", "")
	fs.Func("limit", "", func(s string) error { return parseLimit(&o.limits, s) })
	fs.BoolVar(&o.trace, "trace", false, "")
	fs.BoolVar(&o.printAddress, "print-address", false, "")
	fs.BoolVar(&o.allowUnprivileged, "allow-unprivileged", false, "")
	fs.BoolVar(&o.polkit, "polkit", false, "")
	fs.BoolVar(&o.madeUpPIDs, "made-up-pids", false, "")
	fs.BoolVar(&o.noControl, "no-control", false, "")
	fs.StringVar(&o.callLog, "call-log", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		if user.invalid {
			return o, usagef("invalid --user %q: want --user alone (the caller's user manager) or --user=UID", user.bad)
		}
		return o, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		if i := len(args) - fs.NArg(); i > 0 && strings.TrimLeft(args[i-1], "-") == "user" {
			return o, usagef("unexpected argument %q: --user takes its uid after \"=\" (--user=UID)", fs.Arg(0))
		}
		return o, usagef("unexpected argument %q", fs.Arg(0))
	}
	if o.socket == "" && o.privateSocket == "" {
		return o, usagef("need --socket PATH, --private-socket PATH or both")
	}
	if o.socket != "" && o.privateSocket != "" && filepath.Clean(o.socket) == filepath.Clean(o.privateSocket) {
		return o, usagef("--socket and --private-socket must be different paths")
	}
	if v, err := sdbus.ParseVersion(o.version); err != nil || v.Raw != o.version {
		return o, usagef("invalid --version %q: want a systemd version such as %q", o.version, fakebus.DefaultVersion)
	}
	for _, b := range o.backports {
		if b == "" || strings.ContainsAny(b, " \t\n,") {
			return o, usagef("invalid --backport %q: want one property or method name", b)
		}
	}
	return o, nil
}

// run serves the fake until ctx ends. Everything is validated before
// anything is served.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	st := &fakebus.ScriptFile{}
	if o.script != "" {
		if st, err = loadScript(o.script); err != nil {
			return err
		}
	}
	opts := []fakebus.Option{fakebus.WithVersion(o.version)}
	if len(o.backports) > 0 {
		opts = append(opts, fakebus.WithBackport(o.backports...))
	}
	// The script's units, scripts and reload duration, from the start
	// and again at each Reset.
	opts = append(opts, fakebus.WithScriptFile(st))
	if o.unitDir != "" {
		opts = append(opts, fakebus.WithUnitDir(o.unitDir))
	}
	if o.runtimeDir != "" {
		opts = append(opts, fakebus.WithRuntimeUnitDir(o.runtimeDir))
	}
	if o.cgroupRoot != "" {
		opts = append(opts, fakebus.WithCgroupRoot(o.cgroupRoot))
	}
	if o.user >= 0 {
		opts = append(opts, fakebus.WithUserManager(o.user))
	}
	opts = append(opts, fakebus.WithLimits(o.limits))
	// The fake plays the system's systemd for other programs: only root
	// (and a user manager's own user) is privileged there, whoever runs
	// the fake, unless --allow-unprivileged.
	access := fakebus.AccessRoot
	if o.allowUnprivileged {
		access = fakebus.AccessEveryone
	}
	opts = append(opts, fakebus.WithAccess(access))
	if o.polkit {
		opts = append(opts, fakebus.WithPolkit())
	}
	if o.madeUpPIDs {
		opts = append(opts, fakebus.WithMadeUpPIDs())
	}
	if !o.noControl {
		opts = append(opts, fakebus.WithControl())
	}
	if o.callLog != "" {
		f, err := os.Create(o.callLog)
		if err != nil {
			return fmt.Errorf("--call-log: %w", err)
		}
		defer f.Close()
		opts = append(opts, fakebus.WithCallLog(fakebus.DefaultCallLogSize, f))
	}
	t := &tracer{w: stderr}
	if o.trace {
		opts = append(opts, fakebus.WithTrace(t.event))
	}
	n := &notes{t: t, trace: o.trace, script: o.script}
	opts = append(opts, fakebus.WithNotes(n.note))
	s, err := fakebus.Start(opts...)
	if err != nil {
		// Name the script's element, as the script's own checks do.
		var ue *fakebus.UnitFileError
		var c *fakebus.ScriptConflict
		switch {
		case errors.As(err, &ue) && o.script != "":
			for i, u := range st.Units {
				if u.Name == ue.Unit {
					return fmt.Errorf("%s: %w", o.script, &fakebus.ScriptFileError{Path: fmt.Sprintf("units[%d].properties.%s", i, ue.Property), Msg: ue.Err.Error()})
				}
			}
		case errors.As(err, &c):
			return errors.New(conflictText(o.script, c, "give the unit a command the fake does not interpret, or drop the rule"))
		}
		return err
	}
	defer s.Close()

	var addrs []string
	if o.socket != "" {
		if err := s.ListenUnix(o.socket, false); err != nil {
			return fmt.Errorf("--socket: %w", err)
		}
		addrs = append(addrs, unixAddress(o.socket))
	}
	if o.privateSocket != "" {
		if err := s.ListenUnix(o.privateSocket, true); err != nil {
			return fmt.Errorf("--private-socket: %w", err)
		}
		addrs = append(addrs, unixAddress(o.privateSocket))
	}
	if o.printAddress {
		if _, err := io.WriteString(stdout, strings.Join(addrs, "\n")+"\n"); err != nil {
			return fmt.Errorf("--print-address: %w", err)
		}
	}
	<-ctx.Done()
	return s.Close()
}

// unixAddress is the D-Bus address of the socket at path, absolute, with
// the bytes D-Bus addresses cannot carry escaped.
func unixAddress(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	var b strings.Builder
	b.WriteString("unix:path=")
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_/.\\*", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}
