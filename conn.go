package sdbus

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
)

const (
	systemdName  = "org.freedesktop.systemd1"
	managerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
	managerIface = "org.freedesktop.systemd1.Manager"
	propsIface   = "org.freedesktop.DBus.Properties"
	busName      = "org.freedesktop.DBus"
	busPath      = dbus.ObjectPath("/org/freedesktop/DBus")

	// SystemBusAddress is the address ConnectSystem dials when
	// $DBUS_SYSTEM_BUS_ADDRESS is not set.
	SystemBusAddress = "unix:path=/run/dbus/system_bus_socket"
	// PrivateAddress is the address of the system manager's private
	// peer-to-peer socket, which ConnectPrivate dials. Only root may use it.
	PrivateAddress = "unix:path=/run/systemd/private"
)

// Conn is a connection to a systemd manager, over a message bus or over
// the manager's private peer-to-peer socket. It is safe for concurrent use.
//
// One D-Bus connection carries both method calls and signals, so replies
// and JobRemoved signals are seen in the order systemd sent them. The
// Conn's match rule for JobRemoved is in place before it is returned; see
// Job for the guarantees this gives. The life of each D-Bus connection is
// one state machine, written down in session.go.
//
// With WithReconnect, a Conn outlives its D-Bus connection: see
// ReconnectPolicy.
type Conn struct {
	cfg config
	// endpoints are the addresses to connect to, in order: the one given
	// to Connect (or ConnectSystem, ...), then those of WithFallback. Each
	// new connection, also when reconnecting, tries them in this order.
	endpoints []endpoint

	// sess is the current D-Bus connection and the state tied to it.
	sess atomic.Pointer[session]

	// closing is set by Close before the bus connection is closed, so that
	// waits ending because of it report ErrClosed and not ErrDisconnected.
	closing atomic.Bool
	// closeOnce makes Close idempotent; closeErr is its result.
	closeOnce sync.Once
	closeErr  error
	// stop is canceled by Close: reconnecting and waiting for it stop.
	stop       context.Context
	cancelStop context.CancelFunc
	// done is closed, once, when the Conn is finished: by Close, or when
	// the connection ended and will not be reestablished.
	done     chan struct{}
	doneOnce sync.Once

	// wg counts the goroutines the Conn starts; Close waits for them.
	wg sync.WaitGroup

	// slots holds a token for each call awaiting its reply (see
	// WithMaxPendingCalls).
	slots chan struct{}

	// mu guards closed, up, gen, version, versionOK, features and
	// absent. It is never held across a D-Bus call or a blocking channel
	// operation.
	mu     sync.Mutex
	closed bool          // no more goroutines may be added to wg
	up     chan struct{} // closed when a new session is installed
	// gen counts installed sessions: a cached answer is stored only if
	// no session was installed while it was asked (Version, Supports).
	gen       uint64
	version   Version
	versionOK bool
	features  map[Feature]bool
	// absent holds "interface\x00property" for the properties typed
	// reads want that the manager answered UnknownProperty for.
	absent map[string]bool

	// ensureMu guards ensuring, which holds, for each unit name an
	// EnsureTransientUnit runs for, a channel closed when it returns
	// (transient.go: ensureTurn). Held only for map updates.
	ensureMu sync.Mutex
	ensuring map[string]chan struct{}
}

// Option configures a connection.
type Option func(*config)

type config struct {
	uid         int
	p2p         bool
	fallbacks   []endpoint
	dial        func(ctx context.Context) (io.ReadWriteCloser, error)
	interactive bool
	reconnect   *ReconnectPolicy
	maxPending  int
	system      *Conn
}

// DefaultMaxPendingCalls is how many calls a Conn has waiting for replies
// at once unless WithMaxPendingCalls says otherwise: half of dbus-daemon's
// max_replies_per_connection on the system bus (128), which refuses more
// with org.freedesktop.DBus.Error.LimitsExceeded.
const DefaultMaxPendingCalls = 64

// WithMaxPendingCalls bounds the calls a Conn has waiting for their replies
// at once; further calls wait their turn (bounded by their ctx) instead of
// being refused by the bus. n <= 0 means DefaultMaxPendingCalls.
func WithMaxPendingCalls(n int) Option {
	return func(c *config) { c.maxPending = n }
}

// WithUID sets the uid whose user bus ConnectUser finds at
// /run/user/<uid>/bus when neither $DBUS_SESSION_BUS_ADDRESS nor
// $XDG_RUNTIME_DIR is set; the default is the effective uid. Inside a user
// namespace, pass the uid as the host sees it (the namespace's owner).
//
// Authentication itself needs no uid: sdbus uses EXTERNAL without an
// identity, as sd-bus does, so the bus takes the caller's uid from the
// kernel (SO_PEERCRED). No user database is consulted, and it works inside
// user namespaces.
func WithUID(uid int) Option { return func(c *config) { c.uid = uid } }

// WithPeerToPeer makes Connect treat the address as a direct connection to
// the manager (like /run/systemd/private): no Hello, no match rules, no
// Subscribe. ConnectPrivate implies it.
func WithPeerToPeer() Option { return func(c *config) { c.p2p = true } }

// endpoint is an address to connect to, a bus or peer-to-peer.
type endpoint struct {
	address string
	p2p     bool
}

// WithFallback adds an address to try when the Conn's own address cannot
// be connected to, on the first connection and on every reconnect (each
// new connection tries the Conn's address first, then each fallback in
// the order given). peerToPeer says whether address is a direct
// connection to systemd (like its private socket) rather than a bus.
//
// go-systemd's NewWithContext — the system bus, and as root systemd's
// private socket when the bus cannot be reached — is
//
//	sdbus.ConnectSystem(ctx, sdbus.WithFallback(sdbus.PrivateAddress, true))
//
// and with WithReconnect that Conn keeps working through a restart of
// dbus-daemon: its first redial is immediate and goes to the private
// socket while the bus is down. A direct connection is dropped by systemd
// on daemon-reexec; the next connection then tries the bus first again.
// WithDialer replaces the dialing of the Conn's own address only.
func WithFallback(address string, peerToPeer bool) Option {
	return func(c *config) { c.fallbacks = append(c.fallbacks, endpoint{address, peerToPeer}) }
}

// WithDialer makes Connect obtain its transport from dial instead of
// dialing the address, which then only names the connection in errors.
// The stream must be fresh: sdbus runs the authentication on it. fakebus
// uses it for in-process connections; it also fits tunnels and custom
// sockets. A reconnecting Conn calls dial again for each new connection.
func WithDialer(dial func(ctx context.Context) (io.ReadWriteCloser, error)) Option {
	return func(c *config) { c.dial = dial }
}

// WithSystemManager gives a Conn to a user manager the Conn to the system
// manager that EffectiveLimits consults for the limits above the user
// manager (user@UID.service and its slices). Without it, EffectiveLimits of
// a user manager's unit connects to the system bus (ConnectSystem) for the
// call. The Conn given stays the caller's to close.
func WithSystemManager(sys *Conn) Option { return func(c *config) { c.system = sys } }

// WithInteractiveAuthorization sets the ALLOW_INTERACTIVE_AUTHORIZATION
// flag on every call, so that polkit may ask the user instead of answering
// ErrInteractiveAuthorizationRequired.
func WithInteractiveAuthorization() Option { return func(c *config) { c.interactive = true } }

func newConfig(opts []Option) config {
	cfg := config{uid: os.Geteuid()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxPending <= 0 {
		cfg.maxPending = DefaultMaxPendingCalls
	}
	return cfg
}

// ConnectSystem connects to the system manager over the system bus at
// $DBUS_SYSTEM_BUS_ADDRESS, or SystemBusAddress when that is unset.
func ConnectSystem(ctx context.Context, opts ...Option) (*Conn, error) {
	addr := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS")
	if addr == "" {
		addr = SystemBusAddress
	}
	return Connect(ctx, addr, opts...)
}

// ConnectUser connects to the calling user's manager (systemd --user) over
// the user bus: $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus, else
// /run/user/<uid>/bus with the uid of WithUID or the effective uid. When
// the bus cannot be reached it falls back to the user manager's private
// socket, $XDG_RUNTIME_DIR/systemd/private (else
// /run/user/<uid>/systemd/private), a direct connection that needs no bus:
// a user manager without dbus-user-session has only that one (as with
// WithFallback, after any fallbacks given). With WithPeerToPeer it connects
// to the private socket only. A user manager runs while its user has a
// login session, or always once lingering is enabled (loginctl
// enable-linger); when nothing listens at the address the error matches
// ErrUnreachable and says where the address came from and whether the
// runtime directory exists.
func ConnectUser(ctx context.Context, opts ...Option) (*Conn, error) {
	cfg := newConfig(opts)
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = "/run/user/" + strconv.Itoa(cfg.uid)
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	switch {
	case cfg.p2p:
		addr = "unix:path=" + escapeAddressValue(dir+"/systemd/private")
	case addr == "":
		addr = "unix:path=" + escapeAddressValue(dir+"/bus")
	}
	if !cfg.p2p {
		opts = append(opts[:len(opts):len(opts)], WithFallback("unix:path="+escapeAddressValue(dir+"/systemd/private"), true))
	}
	c, err := Connect(ctx, addr, opts...)
	if err != nil {
		return nil, userUnreachable(err, addr, cfg.uid)
	}
	return c, nil
}

// ConnectPrivate connects to the system manager's private socket
// (PrivateAddress). It needs root and must run in systemd's pid namespace.
// The connection is peer-to-peer: it does not depend on dbus-daemon, and
// systemd drops it on daemon-reexec.
func ConnectPrivate(ctx context.Context, opts ...Option) (*Conn, error) {
	return Connect(ctx, PrivateAddress, append(opts, WithPeerToPeer())...)
}

// Connect connects to a manager at a D-Bus address such as
// "unix:path=/run/dbus/system_bus_socket" (a bus) or, with WithPeerToPeer,
// "unix:path=/run/systemd/private". Addresses may list alternatives
// separated by ';'; unix:path, unix:abstract and tcp transports are
// supported.
//
// ctx bounds dialing, authentication, Hello and adding the match rules;
// it does not bound the life of the connection, which lasts until Close
// or until the peer goes away.
func Connect(ctx context.Context, address string, opts ...Option) (*Conn, error) {
	cfg := newConfig(opts)
	c := newConn(cfg, address)
	s, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	c.start(s)
	return c, nil
}

// start installs the first session and starts the supervisor (see
// session.go).
func (c *Conn) start(s *session) {
	c.install(s)
	c.goTracked(func() { c.supervise(s) })
}

func newConn(cfg config, address string) *Conn {
	c := &Conn{cfg: cfg, endpoints: append([]endpoint{{address, cfg.p2p}}, cfg.fallbacks...),
		done: make(chan struct{}), up: make(chan struct{}), slots: make(chan struct{}, cfg.maxPending)}
	c.stop, c.cancelStop = context.WithCancel(context.Background())
	return c
}

// open sets a new session up on the first of the Conn's endpoints that
// can be connected to. When none can, the error is the first endpoint's,
// with the others' failures in its message.
func (c *Conn) open(ctx context.Context) (*session, error) {
	var first *Error
	var others []string
	for i, ep := range c.endpoints {
		s, err := c.openEndpoint(ctx, ep, i == 0)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		e, ok := err.(*Error)
		if !ok {
			e = &Error{Op: "connect", Message: ep.address, Err: err}
		}
		if first == nil {
			first = e
		} else {
			others = append(others, e.Error())
		}
	}
	if len(others) > 0 {
		f := *first
		f.Message += " (fallbacks failed too: " + strings.Join(others, "; ") + ")"
		return nil, &f
	}
	return nil, first
}

// openEndpoint dials ep (with WithDialer's dialer if own) and sets a new
// session up on it.
func (c *Conn) openEndpoint(ctx context.Context, ep endpoint, own bool) (*session, error) {
	s := c.newSession()
	s.p2p, s.ordered = ep.p2p, true
	bus, err := c.dial(ctx, ep.address, own, signalHandler{s})
	if err != nil {
		return nil, err
	}
	s.bus = bus
	if err := handshake(ctx, bus, !s.p2p); err != nil {
		bus.Close()
		return nil, authFailed(ep.address, err)
	}
	if err := c.setup(ctx, s); err != nil {
		bus.Close()
		return nil, err
	}
	return s, nil
}

// NewConn wraps bus, a connection that is already authenticated (and, on a
// message bus, has called Hello), mainly for tests and for programs that
// dial in their own way. The Conn takes ownership: its Close closes bus.
// It cannot reconnect: WithReconnect is refused.
//
// bus must keep godbus's signal handler API (the default one, or
// dbus.NewSequentialSignalHandler, which keeps signals in wire order even
// under load); sdbus registers a channel with bus.Signal and owns it. Job
// results are matched by job path, not by order, so the default handler's
// reordering under overload does not lose or confuse them. ctx bounds the
// match rules.
func NewConn(ctx context.Context, bus *dbus.Conn, opts ...Option) (*Conn, error) {
	cfg := newConfig(opts)
	if cfg.reconnect != nil {
		return nil, invalidArg("NewConn", "", "a wrapped connection cannot reconnect")
	}
	names := bus.Names()
	cfg.p2p = len(names) == 0 || names[0] == ""
	cfg.fallbacks = nil
	c := newConn(cfg, "wrapped")
	s := c.newSession()
	s.p2p = cfg.p2p
	s.bus = bus
	ch := make(chan *dbus.Signal, 256)
	bus.Signal(ch)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		h := signalHandler{s}
		for sig := range ch {
			h.DeliverSignal(interfaceOf(sig.Name), memberOf(sig.Name), sig)
		}
		h.Terminate()
	}()
	c.start(s)
	if err := c.setup(ctx, s); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func interfaceOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

func memberOf(name string) string { return name[strings.LastIndexByte(name, '.')+1:] }

// setup installs the match rules and learns who owns systemd's name,
// before any job call can be made. It does not call Manager.Subscribe:
// systemd sends a job's JobNew and JobRemoved on the bus while the job has
// a tracked requester (the client that asked for it, and every client
// whose request was merged into it; kept across daemon-reload and
// daemon-reexec) or anybody is subscribed, and on its private socket
// always. So a client gets its own jobs' results without subscribing;
// subscriptions make systemd broadcast every unit's changes to the bus,
// a cost every job on the host pays. sdbus subscribes only while a watch
// or a reconciled job needs that (session.subscribe).
func (c *Conn) setup(ctx context.Context, s *session) error {
	s.mgr = s.bus.Object(systemdName, managerPath)
	if s.p2p {
		// systemd sends every signal to every direct connection; there is
		// no bus to add match rules to. Its first message must not be a
		// caller's (firstcall.go).
		if err := firstCall(ctx, s.bus); err != nil {
			return c.opError(s, ownerMark{}, "connect", "", err, true)
		}
		return nil
	}
	err := s.bus.AddMatchSignalContext(ctx,
		dbus.WithMatchSender(busName), dbus.WithMatchObjectPath(busPath),
		dbus.WithMatchInterface(busName), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, systemdName))
	if err != nil {
		return c.opError(s, ownerMark{}, "AddMatch", "", err, true)
	}
	// No sender in this rule: systemd 262's new instance may send
	// JobRemoved after a re-execution before it owns the name again, which
	// a rule on the name would not let through. The session admits only
	// the owner's signals (session.admit).
	err = s.bus.AddMatchSignalContext(ctx, dbus.WithMatchObjectPath(managerPath),
		dbus.WithMatchInterface(managerIface), dbus.WithMatchMember("JobRemoved"))
	if err != nil {
		return c.opError(s, ownerMark{}, "AddMatch", "", err, true)
	}
	var owner string
	call := s.bus.BusObject().CallWithContext(ctx, busName+".GetNameOwner", 0, systemdName)
	if err := call.Store(&owner); err != nil {
		return c.opError(s, ownerMark{}, "GetNameOwner", "", err, true)
	}
	held, _ := s.setOwner(owner, call.ResponseSequence)
	for _, sig := range held {
		s.dispatch(sig)
	}
	return nil
}

// handshake authenticates and, on a bus, says Hello, abandoning both when
// ctx ends. godbus offers no context for either, so the connection is
// closed to unblock them; the helper goroutine is always joined.
func handshake(ctx context.Context, bus *dbus.Conn, hello bool) error {
	done := make(chan error, 1)
	go func() {
		// godbus sends EXTERNAL without the identity and answers the
		// server's DATA challenge with an empty response: the bus uses the
		// socket's credentials.
		err := bus.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Geteuid()))})
		if err == nil && hello {
			err = bus.Hello()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		bus.Close()
		<-done
		return ctx.Err()
	}
}

// dial opens the transport for address, trying each alternative in turn,
// and wraps it in a godbus connection that delivers signals to h.
//
// Unix sockets use godbus's unix transport, which negotiates file
// descriptor passing. Whatever the transport, a direct connection's first
// message is sdbus's own (firstcall.go).
func (c *Conn) dial(ctx context.Context, address string, own bool, h signalHandler) (*dbus.Conn, error) {
	opt := dbus.WithSignalHandler(h)
	wrap := func(rwc io.ReadWriteCloser) (*dbus.Conn, error) {
		var bus *dbus.Conn
		var err error
		switch t := rwc.(type) {
		case *net.UnixConn:
			bus, err = dbus.DialUnix(t, opt)
		case net.Conn:
			bus, err = dbus.NewConn(bufferedConn{bufio.NewReaderSize(t, 64<<10), t}, opt)
		default:
			bus, err = dbus.NewConn(rwc, opt)
		}
		if err != nil {
			rwc.Close()
			return nil, &Error{Op: "connect", Message: address, Err: err}
		}
		return bus, nil
	}
	if own && c.cfg.dial != nil {
		rwc, err := c.cfg.dial(ctx)
		if err != nil {
			return nil, dialFailed(address, err)
		}
		return wrap(rwc)
	}
	var last error = invalidArg("connect", "", "empty address")
	for _, a := range strings.Split(address, ";") {
		if a == "" {
			continue
		}
		network, target, err := parseAddress(a)
		if err != nil {
			last = invalidArg("connect", "", "%s", err.Error())
			continue
		}
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, target)
		if err != nil {
			last = dialFailed(address, err)
			continue
		}
		return wrap(nc)
	}
	if _, ok := last.(*Error); ok {
		return nil, last
	}
	return nil, &Error{Op: "connect", Message: address, Err: last}
}

// bufferedConn reads through a buffer: godbus's generic transport decodes
// messages with many small reads.
type bufferedConn struct {
	r *bufio.Reader
	net.Conn
}

func (b bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// Close closes the connection. It ends every pending Wait with an error
// matching ErrClosed, stops reconnecting, stops and waits for every
// goroutine the Conn started, and is idempotent.
func (c *Conn) Close() error {
	if c.usable("close", "") != nil {
		return nil // nothing was opened
	}
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		c.cancelStop()
		if s := c.sess.Load(); s != nil {
			if err := s.bus.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
				c.closeErr = &Error{Op: "close", Err: err}
			}
			// godbus calls Terminate from Close; for a Conn made by
			// NewConn it comes when the signal channel closes, so make
			// sure here too.
			s.end()
		}
		c.markDone()
		c.wg.Wait()
	})
	return c.closeErr
}

// Done returns a channel that is closed when the Conn is finished: after
// Close, or when the connection ended and will not come back (without
// WithReconnect, when the peer goes away; with it, when the policy gives
// up). For a nil or zero Conn it is closed already.
func (c *Conn) Done() <-chan struct{} {
	if c.usable("", "") != nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return c.done
}

func (c *Conn) markDone() { c.doneOnce.Do(func() { close(c.done) }) }

// goneErr is the cause to report when the connection is gone: ErrClosed
// after Close, ErrDisconnected otherwise.
func (c *Conn) goneErr() error {
	if c.closing.Load() {
		return ErrClosed
	}
	return ErrDisconnected
}

// usable refuses a nil or zero Conn (one not made by Connect or NewConn).
func (c *Conn) usable(op, unit string) error {
	if c == nil || c.stop == nil {
		return &Error{Op: op, Unit: unit, Message: "nil or zero Conn: use Connect", Err: ErrInvalidArgs}
	}
	return nil
}

func (c *Conn) givenUp() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// goTracked runs f in a goroutine that Close waits for. It returns false,
// and does not run f, when the Conn is closed.
func (c *Conn) goTracked(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

func (c *Conn) flags() dbus.Flags {
	if c.cfg.interactive {
		return dbus.FlagAllowInteractiveAuthorization
	}
	return 0
}
