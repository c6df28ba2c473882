package fakebus

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// DefaultVersion is the Manager.Version a Server reports unless told
// otherwise: the systemd release the fake models.
const DefaultVersion = "252.38-1~deb12u1"

// Server is a fake systemd manager behind a real D-Bus message bus. It
// decodes and answers D-Bus messages; clients talk to it exactly as to
// systemd.
type Server struct {
	bus *busd.Bus
	m   *manager
	// calls is the call log (WithCallLog), nil without one.
	calls *callLog
	// ctlWaits counts the goroutines of the control interface
	// (dbus_control.go's WaitIdle); Close waits for them.
	ctlWaits sync.WaitGroup

	// mu guards dir, busAddr, privAddr and closed, and orders ctlWaits.Add
	// before Close waits for it.
	mu       sync.Mutex
	dir      string
	busAddr  string
	privAddr string
	closed   bool
}

// Option configures a Server.
type Option func(*config)

type config struct {
	version   string
	backports map[string]bool
	trace     func(Event)
	notes     func(Note)
	units     []UnitFile
	// unitDir and runtimeUnitDir are the unit directories (unitfile.go);
	// "" for a temporary directory.
	unitDir, runtimeUnitDir string
	// cgroupRoot is where the fake keeps its units' control groups as
	// directories (cgroup.go); "" for none.
	cgroupRoot string
	limits     Limits // WithLimits (limits.go)
	// user is the uid whose user manager the fake plays (WithUserManager),
	// -1 for the system manager.
	user int
	// access is who the fake treats as privileged (WithAccess, access.go).
	access Access
	polkit bool // WithPolkit
	madeUp bool // WithMadeUpPIDs
	// callLog is how many calls the call log keeps (WithCallLog), 0 for
	// no call log; callLogTo where it writes them.
	callLog   int
	callLogTo io.Writer
	control   bool // WithControl (dbus_control.go)
	// scripts are the scripts set at start (WithScript, WithScriptFile),
	// reloadFor the reload duration (WithScriptFile).
	scripts   []PatternScript
	reloadFor time.Duration
}

// WithVersion sets the Manager.Version string and the systemd release the
// fake behaves as (major and point release, "252.38" from
// "252.38-1~deb12u1"): properties, values, job modes and methods newer
// than it are refused the way that release refuses them
// (PropertyReadOnly, InvalidArgs, UnknownProperty, UnknownMethod), and
// from 258 the deprecated cgroup-v1 properties (CPUAccounting, CPUShares,
// MemoryLimit, BlockIO*, ...) are left out of GetAll and introspection
// while Get still answers them. The repository's one per-version table,
// fakebus/internal/sdversions, holds every such difference; the
// conformance suite runs on the fake playing 247, 252, 257 and 262 and
// on those real releases, and the two agree case by case.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithBackport makes a property or method available although the
// configured version predates it, as distributions backport features (for
// example "EffectiveMemoryMax" on a 254-based release, or
// "AttachProcessesToUnit").
func WithBackport(names ...string) Option {
	return func(c *config) {
		for _, n := range names {
			c.backports[n] = true
		}
	}
}

// WithUnitFile pre-loads a unit as if a unit file existed for it, so that
// StartUnit, LoadUnit and friends find it.
func WithUnitFile(u UnitFile) Option { return func(c *config) { c.units = append(c.units, u) } }

// WithUnitDir makes dir the fake's persistent unit directory, the part
// /etc/systemd/system plays for systemd: LinkUnitFiles, EnableUnitFiles,
// MaskUnitFiles and the others change symlinks there, and units are loaded
// from the unit files in it (see UnitDir). It is created if needed and
// left in place on Close. The default is a temporary directory that Close
// removes. The host's systemd directories (/etc/systemd/system,
// /run/systemd/system, /lib/systemd/system, /usr/lib/systemd/system) are
// refused while systemd runs the host (PID 1 is systemd, or
// /run/systemd/private exists), unless the process has a mount namespace
// of its own (unshare -m, with a tmpfs mounted over them): tests written
// for a real systemd that hard-code /run/systemd/system (go-systemd's) can
// then run against the fake in a container or such a namespace.
func WithUnitDir(dir string) Option { return func(c *config) { c.unitDir = dir } }

// WithRuntimeUnitDir is WithUnitDir for the runtime unit directory, the
// part of /run/systemd/system: where the calls with the runtime flag make
// their changes. It comes after the persistent one on the unit path.
func WithRuntimeUnitDir(dir string) Option { return func(c *config) { c.runtimeUnitDir = dir } }

// WithCgroupRoot makes dir the fake's cgroup file system: while a
// service, scope or slice is active (or activating, or deactivating), the
// directory of its ControlGroup exists below dir (dir/system.slice/x.service
// for ControlGroup /system.slice/x.service), as systemd's cgroup does
// below /sys/fs/cgroup; it is removed, sub-directories included, when the
// unit stops. A directory made below a delegated unit's one is a
// sub-cgroup AttachProcessesToUnit accepts (as MakeSubcgroup makes). No
// process is moved and nothing is written but directories. dir is created
// if needed; a real cgroup file system is refused. Tests written for a
// real systemd that make sub-cgroups under /sys/fs/cgroup (go-systemd's)
// can use a tmpfs mounted there in a mount namespace of their own.
func WithCgroupRoot(dir string) Option { return func(c *config) { c.cgroupRoot = dir } }

// WithUserManager makes the fake play the user manager of uid
// (systemd --user) rather than the system manager, as measured on 247,
// 252, 257 and 262: the manager's ControlGroup is
// /user.slice/user-UID.slice/user@UID.service and every unit's control
// group lies below it; services and scopes without Slice= go to app.slice
// (which replaces system.slice among the units always loaded). The fake's
// sockets and unit directories are chosen as for the system manager
// (PrivateAddress is the user manager's $XDG_RUNTIME_DIR/systemd/private,
// UnitDir its ~/.config/systemd/user). What a user manager refuses that the
// fake does not model: docs/fakebus.md, "The user manager".
func WithUserManager(uid int) Option { return func(c *config) { c.user = uid } }

// WithMadeUpPIDs makes the fake record a PID no process has, in a
// scope's PIDs= and in AttachProcessesToUnit, as if it named a process
// that keeps running. Without it the fake refuses such a PID as systemd
// does (UnixProcessIdUnknown "Process with ID N does not exist.",
// sdbus.ErrNoSuchProcess), so that code placing the PID of a process that
// is already gone is tested as it will run. For tests that cannot start a
// process of their own to place.
func WithMadeUpPIDs() Option { return func(c *config) { c.madeUp = true } }

// WithTrace calls f for every message the fake bus receives from or
// delivers to a client: one received from the goroutine reading its
// connection, before it is routed; one delivered from the goroutine
// writing to the client, before it is written. f must not block for long.
func WithTrace(f func(Event)) Option { return func(c *config) { c.trace = f } }

// Start starts a Server for use outside tests. The caller must Close it.
func Start(opts ...Option) (*Server, error) {
	cfg := config{version: DefaultVersion, backports: map[string]bool{}, user: -1}
	for _, o := range opts {
		o(&cfg)
	}
	m, err := newManager(cfg)
	if err != nil {
		return nil, err
	}
	m.answer = m.answerLocked
	// On its private socket systemd names itself as the sender of what it
	// sends (sd_bus_set_sender), although nobody else could send there, and
	// reads the authentication in a buffer of 256 bytes, stalling a small
	// first message that came with BEGIN (PeerAuthBuffer).
	bcfg := busd.Config{ServiceName: "org.freedesktop.systemd1", Handler: m, PeerSender: "org.freedesktop.systemd1",
		PeerAuthBuffer: 256, InputDrained: m.inputDrained, Limits: cfg.limits.busLimits()}
	cfg.setBusPolicy(&bcfg)
	if cfg.notes != nil {
		bcfg.LimitExceeded = func(e busd.LimitEvent) { cfg.notes(limitNote(e)) }
	}
	if cfg.control && cfg.callLog == 0 {
		cfg.callLog = DefaultCallLogSize
	}
	s := &Server{m: m}
	if cfg.callLog > 0 {
		s.calls = newCallLog(cfg.callLog, cfg.callLogTo, func() string { return s.bus.ServiceUniqueName() })
	}
	switch {
	case s.calls != nil:
		bcfg.Trace = func(e busd.Event) {
			s.calls.event(e)
			if cfg.trace != nil {
				cfg.trace(traceEvent(e))
			}
		}
	case cfg.trace != nil:
		bcfg.Trace = func(e busd.Event) { cfg.trace(traceEvent(e)) }
	}
	if cfg.control {
		bcfg.ControlName, bcfg.ControlHandler = controlName, s.handleControl
	}
	s.bus = busd.New(bcfg)
	m.bus = s.bus
	if err := m.init(); err != nil {
		s.bus.Close()
		m.dirs.remove()
		return nil, err
	}
	return s, nil
}

// New starts a Server for a test or benchmark and closes it when tb's
// cleanup runs. Setup failures fail tb, and so does each script rule
// found to contradict a unit's commands as its job ran (ScriptConflicts).
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := Start(opts...)
	if err != nil {
		tb.Fatalf("fakebus: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("fakebus: close: %v", err)
		}
		for _, c := range s.ScriptConflicts() {
			tb.Errorf("fakebus: %s", c.Text())
		}
	})
	return s
}

// Dial returns a real *sdbus.Conn connected to the fake over an in-process
// socket pair, in bus mode (like the system bus). The caller must Close it.
func (s *Server) Dial(ctx context.Context, opts ...sdbus.Option) (*sdbus.Conn, error) {
	return s.dial(ctx, busd.BusMode, "fakebus:bus", opts)
}

// DialPrivate is Dial for a peer-to-peer connection, like systemd's
// private socket: no bus, no Hello, signals without sender.
func (s *Server) DialPrivate(ctx context.Context, opts ...sdbus.Option) (*sdbus.Conn, error) {
	return s.dial(ctx, busd.PeerMode, "fakebus:private", append(opts, sdbus.WithPeerToPeer()))
}

func (s *Server) dial(ctx context.Context, mode busd.Mode, name string, opts []sdbus.Option) (*sdbus.Conn, error) {
	// A unix socketpair rather than busd's in-memory pipe: godbus gives a
	// *net.UnixConn its unix transport, which reuses one decoder, where
	// any other stream gets its generic transport, which allocates a
	// 4 KiB buffer per message received (BENCHMARKS.md).
	pair := func(context.Context) (io.ReadWriteCloser, error) {
		client, server, err := socketPair()
		if err != nil {
			return nil, err
		}
		s.bus.ServeConn(server, mode)
		return client, nil
	}
	return sdbus.Connect(ctx, name, append(opts, sdbus.WithDialer(pair))...)
}

// socketPair returns the two ends of a connected unix stream socketpair.
func socketPair() (a, b *net.UnixConn, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("fakebus: socketpair: %w", err)
	}
	conn := func(fd int, name string) (*net.UnixConn, error) {
		f := os.NewFile(uintptr(fd), name)
		defer f.Close() // net.FileConn dups the descriptor
		c, err := net.FileConn(f)
		if err != nil {
			return nil, err
		}
		return c.(*net.UnixConn), nil
	}
	if a, err = conn(fds[0], "fakebus-client"); err == nil {
		if b, err = conn(fds[1], "fakebus-server"); err != nil {
			a.Close()
		}
	} else {
		syscall.Close(fds[1])
	}
	if err != nil {
		return nil, nil, fmt.Errorf("fakebus: socketpair: %w", err)
	}
	return a, b, nil
}

// Conn is Dial for tests: it fails tb on error and closes the connection
// when tb's cleanup runs.
func (s *Server) Conn(tb testing.TB, opts ...sdbus.Option) *sdbus.Conn {
	tb.Helper()
	c, err := s.Dial(context.Background(), opts...)
	if err != nil {
		tb.Fatalf("fakebus: dial: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// PrivateConn is DialPrivate for tests.
func (s *Server) PrivateConn(tb testing.TB, opts ...sdbus.Option) *sdbus.Conn {
	tb.Helper()
	c, err := s.DialPrivate(context.Background(), opts...)
	if err != nil {
		tb.Fatalf("fakebus: dial: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// RawConn is a godbus connection to the fake's bus (over Pipe), for tests
// of clients other than sdbus or of the raw protocol: authenticated, with
// Hello said, closed when tb's cleanup runs. Setup failures fail tb.
func (s *Server) RawConn(tb testing.TB, opts ...dbus.ConnOption) *dbus.Conn {
	tb.Helper()
	c, err := dbus.NewConn(s.Pipe(), opts...)
	if err != nil {
		tb.Fatalf("fakebus: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	if err := c.Auth(nil); err != nil {
		tb.Fatalf("fakebus: auth: %v", err)
	}
	if err := c.Hello(); err != nil {
		tb.Fatalf("fakebus: hello: %v", err)
	}
	return c
}

// Pipe returns the client end of a fresh in-memory bus-mode connection,
// for clients other than sdbus (e.g. godbus's dbus.NewConn).
func (s *Server) Pipe() io.ReadWriteCloser { return s.bus.Pipe(busd.BusMode) }

// Address returns a D-Bus address ("unix:path=…") of a unix socket where
// the fake serves in bus mode, like /run/dbus/system_bus_socket: any D-Bus
// client (godbus, go-systemd, busctl) can connect to it. The socket is
// created on the first call.
func (s *Server) Address() (string, error) { return s.listen(busd.BusMode) }

// PrivateAddress is Address for a peer-to-peer socket, like
// /run/systemd/private.
func (s *Server) PrivateAddress() (string, error) { return s.listen(busd.PeerMode) }

// ListenUnix serves the fake at a unix socket path of the caller's choice,
// in bus mode or (private) peer-to-peer mode. The socket's mode is
// dbus-daemon's for the bus, 0666 (anyone may connect, as to the system
// bus), and systemd's for the private socket, 0700 (its owner only; 252,
// 257 and 262, system and user managers alike: 247 left it to the
// umask), whatever the process's umask.
func (s *Server) ListenUnix(path string, private bool) error {
	mode := busd.BusMode
	if private {
		mode = busd.PeerMode
	}
	return s.listenUnix(path, mode)
}

// listenUnix serves in mode at path, with the socket's mode (ListenUnix).
func (s *Server) listenUnix(path string, mode busd.Mode) error {
	if err := s.bus.Listen(path, mode); err != nil {
		return err
	}
	perm := os.FileMode(0o666)
	if mode == busd.PeerMode {
		perm = 0o700
	}
	return os.Chmod(path, perm)
}

func (s *Server) listen(mode busd.Mode) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", fmt.Errorf("fakebus: server closed")
	}
	addr := &s.busAddr
	file := "bus"
	if mode == busd.PeerMode {
		addr, file = &s.privAddr, "private"
	}
	if *addr != "" {
		return *addr, nil
	}
	if s.dir == "" {
		// Short paths: unix socket paths are limited to 107 bytes.
		dir, err := os.MkdirTemp("", "fakebus")
		if err != nil {
			return "", fmt.Errorf("fakebus: %w", err)
		}
		// Searchable by everyone, as /run/dbus: the bus socket is
		// 0666 so that clients of other uids reach it (and meet the
		// access rules, access.go); the private one stays 0700.
		if err := os.Chmod(dir, 0o755); err != nil {
			os.Remove(dir)
			return "", fmt.Errorf("fakebus: %w", err)
		}
		s.dir = dir
	}
	path := filepath.Join(s.dir, file)
	if err := s.listenUnix(path, mode); err != nil {
		return "", fmt.Errorf("fakebus: %w", err)
	}
	*addr = "unix:path=" + path
	return *addr, nil
}

// Close stops the fake: it closes every connection and socket, stops every
// running job timer and waits for the goroutines it started.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	dir := s.dir
	s.mu.Unlock()
	s.m.close()
	s.ctlWaits.Wait()
	err := s.bus.Close()
	if s.calls != nil {
		s.calls.close()
	}
	s.m.dirs.remove()
	if dir != "" {
		os.RemoveAll(dir)
	}
	return err
}

// Event is one message the fake bus received from (In) or sent to a
// client.
type Event struct {
	In     bool   // received from the client
	Client string // the client's unique name, "" on a peer-to-peer connection
	Msg    *dbus.Message
	Serial uint32
}

func traceEvent(e busd.Event) Event {
	return Event{In: e.Dir == busd.In, Client: e.Peer.UniqueName(), Msg: e.Msg, Serial: e.Serial}
}
