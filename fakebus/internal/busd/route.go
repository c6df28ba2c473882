package busd

import (
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Routing of messages received from clients.

// dispatch routes one message m received from p. It returns false if the
// connection must be closed (after the queued messages are flushed).
func (p *Peer) dispatch(m *inMsg) bool {
	h := &m.header
	if p.mode == PeerMode {
		p.dispatchPeer(m)
		return true
	}
	b := p.bus
	if p.monitor.Load() {
		return false // monitors must not send anything (dbus-daemon drops them too)
	}
	if p.UniqueName() == "" {
		if m.typ == dbus.TypeMethodCall && h.dest == driverName && h.member == "Hello" &&
			(h.iface == "" || h.iface == driverIface) {
			b.eavesdropReceived(p, m)
			b.driverCall(p, m)
			return true
		}
		// Like dbus-daemon: the first message must be Hello.
		if m.typ == dbus.TypeMethodCall && m.flags&dbus.FlagNoReplyExpected == 0 {
			b.driverError(p, m, errAccessDenied, "Client tried to send a message other than Hello without being registered")
		}
		return false
	}
	switch m.typ {
	case dbus.TypeMethodCall:
		switch {
		case h.dest == driverName:
			b.eavesdropReceived(p, m)
			b.driverCall(p, m)
		case b.isService(h.dest):
			b.eavesdropReceived(p, m)
			b.serviceCall(p, m)
		case b.isControl(h.dest):
			b.eavesdropReceived(p, m)
			b.controlCall(p, m)
		case h.dest == "":
			// Not addressed to anybody: only eavesdroppers see it.
			b.eavesdropReceived(p, m)
		default:
			b.relayUnicast(p, m)
		}
	case dbus.TypeSignal:
		if h.dest == "" {
			b.relayBroadcast(p, m)
		} else {
			b.relayUnicast(p, m)
		}
	case dbus.TypeMethodReply, dbus.TypeError:
		// Replies only make sense to other clients (the driver and the
		// service never call anyone).
		if h.dest != "" && h.dest != driverName && !b.isService(h.dest) && !b.isControl(h.dest) {
			b.relayUnicast(p, m)
		}
	}
	return true
}

// dispatchPeer routes a message from a PeerMode connection: method calls go
// to the service, everything else is dropped.
func (p *Peer) dispatchPeer(m *inMsg) {
	if m.typ == dbus.TypeMethodCall {
		p.bus.serviceCall(p, m)
	}
}

// newCall is the Call of method call m that p sent, for a service to
// answer.
func newCall(p *Peer, m *inMsg) *Call {
	return &Call{
		Peer:      p,
		Path:      m.path,
		Interface: m.iface,
		Member:    m.member,
		Body:      m.body,
		Signature: mustSignature(m.sig),
		Flags:     m.flags,
		fds:       m.fds,
		dest:      m.dest,
		serial:    m.serial,
		st:        &callState{peer: p, serial: m.serial},
	}
}

// serviceCall hands a method call to the Handler (or answers
// org.freedesktop.DBus.Peer itself). Strings in the body share the memory of
// the received message.
func (b *Bus) serviceCall(p *Peer, m *inMsg) {
	if p.closed.Load() && m.flags&dbus.FlagNoReplyExpected == 0 {
		// busd closed the connection (a limit, a failed write, Close,
		// DropPeers) after reading the call: its caller cannot have the
		// answer, and the service does not act on it. (A call sent with
		// NO_REPLY_EXPECTED still goes through, as it would through
		// dbus-daemon, which dispatches what it read before a
		// connection ended.)
		return
	}
	c := newCall(p, m)
	if m.iface == peerIface {
		peerMethod(c, b.machineID)
		return
	}
	if b.cfg.Handler == nil {
		c.ReplyError(errUnknownMethod, unknownMethodText(&m.header))
		return
	}
	if p.mode == BusMode && !c.NoReply() {
		if n := p.pendingReplies.Add(1); n > int64(b.lim.MaxPendingReplies) {
			p.pendingReplies.Add(-1)
			c.ReplyError(errLimitsExceeded, "The maximum number of pending replies per connection has been reached")
			return
		}
		c.st.tracked = true
		b.pending.add(c.st)
	}
	c.handling.Store(true)
	b.cfg.Handler.HandleCall(c)
	c.handling.Store(false)
}

// peerMethod answers org.freedesktop.DBus.Peer.
func peerMethod(c *Call, machineID string) {
	switch {
	case c.Member == "Ping" && c.Signature.String() == "":
		c.Reply()
	case c.Member == "GetMachineId" && c.Signature.String() == "":
		c.Reply(machineID)
	default:
		c.ReplyError(errUnknownMethod, "Unknown method "+c.Member+" or interface "+peerIface+".")
	}
}

func unknownMethodText(h *header) string {
	return "Unknown method " + h.member + " or interface " + h.iface + "."
}

// relayUnicast forwards a message from client p to the client its
// DESTINATION names, with SENDER set to p's unique name and p's serial kept.
// An undeliverable method call gets an error reply.
func (b *Bus) relayUnicast(p *Peer, m *inMsg) {
	b.mu.RLock()
	target := b.clientLocked(m.dest)
	b.mu.RUnlock()
	if target == nil {
		if m.typ == dbus.TypeMethodCall && m.flags&dbus.FlagNoReplyExpected == 0 {
			if strings.HasPrefix(m.dest, ":") || m.flags&dbus.FlagNoAutoStart != 0 {
				b.driverError(p, m, errNameHasNoOwner, "Name \""+m.dest+"\" does not exist")
			} else {
				b.driverError(p, m, errServiceUnknown, "The name "+m.dest+" was not provided by any .service files")
			}
		}
		return
	}
	if m.typ == dbus.TypeMethodCall && b.cfg.MayCall != nil && !b.cfg.MayCall(p, target) {
		if m.flags&dbus.FlagNoReplyExpected == 0 {
			b.driverError(p, m, errAccessDenied, rejectedText("Rejected send message, 1 matched rules", p, target, &m.header))
		}
		return
	}
	if len(m.fds) > 0 && !target.UnixFDs() {
		if m.typ == dbus.TypeMethodCall && m.flags&dbus.FlagNoReplyExpected == 0 {
			b.driverError(p, m, errNotSupported, notSupportedFDsText)
		}
		return
	}
	out := m.relay(p.UniqueName())
	data, err := out.encode(m.serial)
	if err != nil {
		return
	}
	if b.unicast(target, out, data, m.serial, p) == queueFull &&
		m.typ == dbus.TypeMethodCall && m.flags&dbus.FlagNoReplyExpected == 0 {
		b.driverError(p, m, errLimitsExceeded, rejectedText("Rejected: destination has a full message queue, 0 matched rules", p, target, &m.header))
	}
}

// rejectedText is dbus-daemon's text for a method call from sender to
// target it refused, after the complaint and the rules that matched.
func rejectedText(complaint string, sender, target *Peer, h *header) string {
	iface := h.iface
	if iface == "" {
		iface = "(unset)"
	}
	return complaint + `; type="method_call", sender="` +
		sender.UniqueName() + `" (` + Credentials(sender.UID(), sender.PID()) + `) interface="` + iface +
		`" member="` + h.member + `" error name="(unset)" requested_reply="0" destination="` + h.dest +
		`" (` + Credentials(target.UID(), target.PID()) + `)`
}

// Credentials describes a connection's process as dbus-daemon does in the
// errors that name it: uid, pid and, when /proc has it, the command line
// (as dbus-daemon, cut to 50 bytes).
func Credentials(uid, pid uint32) string {
	s := "uid=" + itoa(uint64(uid)) + " pid=" + itoa(uint64(pid))
	if b, err := os.ReadFile("/proc/" + itoa(uint64(pid)) + "/cmdline"); err == nil && len(b) > 0 {
		cmd := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		s += ` comm="` + cmd[:min(len(cmd), 50)] + `"`
	}
	return s
}

// clientLocked returns the client owning name (unique or well-known), or
// nil. b.mu must be held.
func (b *Bus) clientLocked(name string) *Peer {
	if strings.HasPrefix(name, ":") {
		return b.uniques[name]
	}
	if o := b.names[name]; o != nil {
		return o.peer
	}
	return nil
}

// relayBroadcast forwards a signal from client p to the other BusMode
// connections with a matching rule, with SENDER set to p's unique name.
func (b *Bus) relayBroadcast(p *Peer, m *inMsg) {
	sender := p.UniqueName()
	info := m.info(sender)
	var out *outMsg
	var data []byte
	b.mu.RLock()
	for _, q := range b.busPeers {
		if q == p || !b.wantsLocked(q, &info, false) {
			continue
		}
		if out == nil {
			out = m.relay(sender)
			var err error
			if data, err = out.encode(m.serial); err != nil {
				break
			}
		}
		b.send(q, out, data, m.serial, nil)
	}
	b.mu.RUnlock()
}

// eavesdropReceived shows a message that p sent to the driver or the service
// to the connections eavesdropping on it.
func (b *Bus) eavesdropReceived(p *Peer, m *inMsg) {
	if b.eavesdroppers.Load() == 0 {
		return
	}
	sender := p.UniqueName()
	info := m.info(sender)
	b.mu.RLock()
	b.eavesdropLocked(&info, p, func() (*outMsg, []byte, uint32) {
		out := m.relay(sender)
		data, err := out.encode(m.serial)
		if err != nil {
			return nil, nil, 0
		}
		return out, data, m.serial
	})
	b.mu.RUnlock()
}
