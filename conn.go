package sdbus

import (
	"bufio"
	"context"
	"errors"
	"fmt"
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
// and JobRemoved signals are seen in the order systemd sent them. The Conn
// subscribes to JobRemoved before it is returned; see Job for the
// guarantees this gives.
type Conn struct {
	bus *dbus.Conn
	mgr dbus.BusObject
	p2p bool
	cfg config

	jobs    *jobTracker
	watches *watchSet

	// closing is set by Close before the bus connection is closed, so that
	// waits ending because of it report ErrClosed and not ErrDisconnected.
	closing atomic.Bool
	// closeOnce makes Close idempotent; closeErr is its result.
	closeOnce sync.Once
	closeErr  error

	// wg counts the goroutines the Conn starts; Close waits for them.
	wg sync.WaitGroup

	// mu guards closed, version, versionOK and features. It is never held
	// across a D-Bus call or a channel send.
	mu        sync.Mutex
	closed    bool // no more goroutines may be added to wg
	version   Version
	versionOK bool
	features  map[Feature]bool
}

// Option configures a connection.
type Option func(*config)

type config struct {
	uid         int
	p2p         bool
	dial        func(ctx context.Context) (io.ReadWriteCloser, error)
	interactive bool
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
// Subscribe; signals arrive without a sender. ConnectPrivate implies it.
func WithPeerToPeer() Option { return func(c *config) { c.p2p = true } }

// WithDialer makes Connect obtain its transport from dial instead of
// dialing the address, which then only names the connection in errors.
// The stream must be fresh: sdbus runs the authentication on it. fakebus
// uses it for in-memory connections; it also fits tunnels and custom
// sockets.
func WithDialer(dial func(ctx context.Context) (io.ReadWriteCloser, error)) Option {
	return func(c *config) { c.dial = dial }
}

// WithInteractiveAuthorization sets the ALLOW_INTERACTIVE_AUTHORIZATION
// flag on every call, so that polkit may ask the user instead of answering
// ErrInteractiveAuthorizationRequired.
func WithInteractiveAuthorization() Option { return func(c *config) { c.interactive = true } }

func newConfig(opts []Option) config {
	cfg := config{uid: os.Geteuid()}
	for _, o := range opts {
		o(&cfg)
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

// ConnectUser connects to the calling user's manager over the user bus:
// $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus, else
// /run/user/<uid>/bus with the uid of WithUID or the effective uid.
func ConnectUser(ctx context.Context, opts ...Option) (*Conn, error) {
	cfg := newConfig(opts)
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		dir := os.Getenv("XDG_RUNTIME_DIR")
		if dir == "" {
			dir = "/run/user/" + strconv.Itoa(cfg.uid)
		}
		addr = "unix:path=" + escapeAddressValue(dir+"/bus")
	}
	return Connect(ctx, addr, opts...)
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
// ctx bounds dialing, authentication, Hello, adding the match rules and
// Subscribe; it does not bound the life of the connection, which lasts
// until Close or until the peer goes away.
func Connect(ctx context.Context, address string, opts ...Option) (*Conn, error) {
	cfg := newConfig(opts)
	c := &Conn{cfg: cfg, p2p: cfg.p2p, jobs: newJobTracker(), watches: newWatchSet()}
	bus, err := c.dial(ctx, address)
	if err != nil {
		return nil, err
	}
	c.bus = bus
	if err := c.handshake(ctx, !cfg.p2p); err != nil {
		bus.Close()
		return nil, &Error{Op: "connect", Message: address, Err: err}
	}
	if err := c.setup(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// NewConn wraps bus, a connection that is already authenticated (and, on a
// message bus, has called Hello), mainly for tests and for programs that
// dial in their own way. The Conn takes ownership: its Close closes bus.
//
// bus must keep godbus's signal handler API (the default one, or
// dbus.NewSequentialSignalHandler, which keeps signals in wire order even
// under load); sdbus registers a channel with bus.Signal and owns it. Job
// results are matched by job path, not by order, so the default handler's
// reordering under overload does not lose or confuse them. ctx bounds the
// match rules and Subscribe.
func NewConn(ctx context.Context, bus *dbus.Conn, opts ...Option) (*Conn, error) {
	cfg := newConfig(opts)
	names := bus.Names()
	cfg.p2p = len(names) == 0 || names[0] == ""
	c := &Conn{bus: bus, cfg: cfg, p2p: cfg.p2p, jobs: newJobTracker(), watches: newWatchSet()}
	ch := make(chan *dbus.Signal, 256)
	bus.Signal(ch)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		h := signalHandler{c}
		for s := range ch {
			h.DeliverSignal(interfaceOf(s.Name), memberOf(s.Name), s)
		}
		h.Terminate()
	}()
	if err := c.setup(ctx); err != nil {
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

// setup installs the match rules and the subscription, before any job call
// can be made.
func (c *Conn) setup(ctx context.Context) error {
	c.mgr = c.bus.Object(systemdName, managerPath)
	if c.p2p {
		// systemd sends every signal to every direct connection; there is
		// no bus to add match rules to and no need to Subscribe.
		return nil
	}
	err := c.bus.AddMatchSignalContext(ctx,
		dbus.WithMatchSender(busName), dbus.WithMatchObjectPath(busPath),
		dbus.WithMatchInterface(busName), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, systemdName))
	if err != nil {
		return c.opError("AddMatch", "", err)
	}
	if err := c.addManagerMatch(ctx, "JobRemoved"); err != nil {
		return err
	}
	var owner string
	call := c.bus.BusObject().CallWithContext(ctx, busName+".GetNameOwner", 0, systemdName)
	if err := call.Store(&owner); err != nil {
		return c.opError("GetNameOwner", "", err)
	}
	c.jobs.setOwner(owner, call.ResponseSequence)
	err = c.mgr.CallWithContext(ctx, managerIface+".Subscribe", c.flags()).Store()
	var de dbus.Error
	if err != nil && !(errors.As(err, &de) && de.Name == "org.freedesktop.systemd1.AlreadySubscribed") {
		return c.opError("Subscribe", "", err)
	}
	return nil
}

func (c *Conn) addManagerMatch(ctx context.Context, member string) error {
	err := c.bus.AddMatchSignalContext(ctx,
		dbus.WithMatchSender(systemdName), dbus.WithMatchObjectPath(managerPath),
		dbus.WithMatchInterface(managerIface), dbus.WithMatchMember(member))
	return c.opError("AddMatch", "", err)
}

// handshake authenticates and, on a bus, says Hello, abandoning both when
// ctx ends. godbus offers no context for either, so the connection is
// closed to unblock them; the helper goroutine is always joined.
func (c *Conn) handshake(ctx context.Context, hello bool) error {
	done := make(chan error, 1)
	go func() {
		// godbus sends EXTERNAL without the identity and answers the
		// server's DATA challenge with an empty response: the bus uses the
		// socket's credentials.
		err := c.bus.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(c.cfg.uid))})
		if err == nil && hello {
			err = c.bus.Hello()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		c.bus.Close()
		<-done
		return ctx.Err()
	}
}

// dial opens the transport for address, trying each alternative in turn,
// and wraps it in a godbus connection that delivers signals to c.
//
// Unix sockets use godbus's unix transport, which negotiates file
// descriptor passing: systemd 252's private socket sometimes leaves the
// first message unprocessed when it arrives right behind BEGIN without
// that exchange (see the conformance suite).
func (c *Conn) dial(ctx context.Context, address string) (*dbus.Conn, error) {
	opt := dbus.WithSignalHandler(signalHandler{c})
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
	if c.cfg.dial != nil {
		rwc, err := c.cfg.dial(ctx)
		if err != nil {
			return nil, &Error{Op: "connect", Message: address, Err: err}
		}
		return wrap(rwc)
	}
	var last error = errors.New("empty address")
	for _, a := range strings.Split(address, ";") {
		if a == "" {
			continue
		}
		network, target, err := parseAddress(a)
		if err != nil {
			last = err
			continue
		}
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, target)
		if err != nil {
			last = err
			continue
		}
		return wrap(nc)
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

// parseAddress turns one D-Bus address into a network and target for
// net.Dialer.
func parseAddress(a string) (network, target string, err error) {
	transport, params, ok := strings.Cut(a, ":")
	if !ok {
		return "", "", fmt.Errorf("address %q has no transport", a)
	}
	kv := map[string]string{}
	for _, p := range strings.Split(params, ",") {
		if p == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return "", "", fmt.Errorf("address %q: malformed %q", a, p)
		}
		uv, err := unescapeAddressValue(v)
		if err != nil {
			return "", "", fmt.Errorf("address %q: %v", a, err)
		}
		kv[k] = uv
	}
	switch transport {
	case "unix":
		switch {
		case kv["path"] != "" && kv["abstract"] == "":
			return "unix", kv["path"], nil
		case kv["abstract"] != "" && kv["path"] == "":
			return "unix", "@" + kv["abstract"], nil
		}
		return "", "", fmt.Errorf("address %q: need exactly one of path= and abstract=", a)
	case "tcp":
		if kv["host"] == "" || kv["port"] == "" {
			return "", "", fmt.Errorf("address %q: need host= and port=", a)
		}
		network := "tcp"
		switch kv["family"] {
		case "ipv4":
			network = "tcp4"
		case "ipv6":
			network = "tcp6"
		}
		return network, net.JoinHostPort(kv["host"], kv["port"]), nil
	}
	return "", "", fmt.Errorf("address %q: unsupported transport %q", a, transport)
}

func unescapeAddressValue(v string) (string, error) {
	if !strings.Contains(v, "%") {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			b.WriteByte(v[i])
			continue
		}
		if i+2 >= len(v) {
			return "", fmt.Errorf("truncated escape in %q", v)
		}
		n, err := strconv.ParseUint(v[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", v)
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), nil
}

func escapeAddressValue(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-_/.\\*", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// Close closes the connection. It ends every pending Wait with an error
// matching ErrClosed, stops and waits for every goroutine the Conn
// started, and is idempotent.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		if err := c.bus.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			c.closeErr = &Error{Op: "close", Err: err}
		}
		// godbus calls Terminate from Close; for a Conn made by NewConn it
		// comes when the signal channel closes, so make sure here too.
		c.terminate()
		c.wg.Wait()
	})
	return c.closeErr
}

// Done returns a channel that is closed when the connection has ended,
// by Close or because the peer went away.
func (c *Conn) Done() <-chan struct{} { return c.bus.Context().Done() }

// goneErr is the cause to report for a failure that happened because the
// connection ended: ErrClosed after Close, ErrDisconnected otherwise, nil
// while the connection is up.
func (c *Conn) goneErr() error {
	if c.bus.Context().Err() == nil {
		return nil
	}
	if c.closing.Load() {
		return ErrClosed
	}
	return ErrDisconnected
}

// opError wraps err from a D-Bus operation as an *Error.
func (c *Conn) opError(op, unit string, err error) error {
	if err == nil {
		return nil
	}
	return callError(op, unit, err, c.goneErr())
}

// terminate fails every pending wait; called when the connection ends.
func (c *Conn) terminate() {
	cause := ErrDisconnected
	if c.closing.Load() {
		cause = ErrClosed
	}
	c.jobs.fail(cause)
	c.watches.fail(cause)
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

// signalHandler receives every signal on godbus's read goroutine, in wire
// order. It never blocks and makes no D-Bus calls: it updates maps under
// short locks and closes channels.
type signalHandler struct{ c *Conn }

func (h signalHandler) DeliverSignal(iface, member string, s *dbus.Signal) {
	c := h.c
	switch {
	case iface == managerIface && member == "JobRemoved":
		if s.Path != managerPath || !c.fromSystemd(s.Sender) {
			return
		}
		if ev, ok := decodeJobRemoved(s.Body); ok {
			c.jobs.complete(ev)
		}
	case iface == busName && member == "NameOwnerChanged":
		if c.p2p || s.Sender != busName || s.Path != busPath || len(s.Body) != 3 {
			return
		}
		name, _ := s.Body[0].(string)
		newOwner, ok := s.Body[2].(string)
		if name == systemdName && ok {
			c.jobs.setOwner(newOwner, s.Sequence)
		}
	case iface == propsIface && member == "PropertiesChanged":
		if c.fromSystemd(s.Sender) {
			c.watches.deliver(s)
		}
	}
}

// Terminate is called by godbus when the connection closes.
func (h signalHandler) Terminate() { h.c.terminate() }

// fromSystemd reports whether a signal's sender is the manager: on a bus
// the current owner of org.freedesktop.systemd1; on a direct connection
// the peer itself, the only one who can send there, which names itself
// org.freedesktop.systemd1 (systemd 252) or nothing.
func (c *Conn) fromSystemd(sender string) bool {
	if c.p2p {
		return sender == "" || sender == systemdName
	}
	return sender != "" && sender == c.jobs.ownerName()
}
