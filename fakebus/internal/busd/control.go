package busd

// The control service: a second in-process service on the bus, for the
// test that drives the fake rather than for the code under test. It owns
// Config.ControlName from the start under a unique name of its own,
// ControlUniqueName, which stays the same whatever the service does (a
// ReconnectService changes only the service's): the bus hands it the
// method calls addressed to either name (BusMode only; PeerMode
// connections talk to the service alone), its calls are not among the
// service's pending calls (a ReconnectService never answers them with
// NoReply) and DropAfterReply does not count them.

import "github.com/godbus/dbus/v5"

// ControlUniqueName is the control service's unique name: ":1.0", before
// the service's (":1.1") and every client's, so that the names the
// service and clients get are the same with or without it.
const ControlUniqueName = ":1.0"

// hasControl reports whether the bus has a control service.
func (b *Bus) hasControl() bool { return b.cfg.ControlName != "" && b.cfg.ControlHandler != nil }

// isControl reports whether name addresses the control service.
func (b *Bus) isControl(name string) bool {
	return b.hasControl() && (name == b.cfg.ControlName || name == ControlUniqueName)
}

// controlCall hands a method call to Config.ControlHandler (or answers
// org.freedesktop.DBus.Peer itself).
func (b *Bus) controlCall(p *Peer, m *inMsg) {
	if p.closed.Load() && m.flags&dbus.FlagNoReplyExpected == 0 {
		return // as serviceCall: nobody to answer
	}
	c := newCall(p, m)
	c.control = true
	if m.iface == peerIface {
		peerMethod(c, b.machineID)
		return
	}
	b.cfg.ControlHandler(c)
}
