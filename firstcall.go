package sdbus

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// The first exchange on a peer-to-peer connection to systemd.
//
// systemd's side of a direct connection (sd-bus, on /run/systemd/private
// and on a user manager's $XDG_RUNTIME_DIR/systemd/private) reads the
// authentication lines into a buffer of 256 bytes. When BEGIN and the whole
// first message arrive in one read, it switches to reading messages but does
// not look at the message already in its buffer: it waits for the socket to
// become readable again, which only the client's next message makes it.
// Measured on 247, 252, 257 and 262 with godbus's authentication (AUTH,
// AUTH EXTERNAL, NEGOTIATE_UNIX_FD: 51 bytes with BEGIN): a first message
// of up to 205 bytes sent with BEGIN in one write is never answered (0 of
// 20 for each size tried), 213 bytes and more always are (20 of 20). Small
// calls fall in that window: GetAll of the Manager (197 bytes), a Get of a
// property without a destination, Reload, Reexecute, ListUnits, GetUnit.
// The window is a matter of timing too: when BEGIN arrives alone, the
// message after it is read normally, so a client may see it only now and
// then. Such a call times out for its caller and is carried out later, when
// the next bytes arrive: a Reexecute reported as a timeout and run minutes
// later.
//
// So a session on a direct connection starts with a call systemd answers
// without doing anything, Peer.Ping on an object path long enough that the
// message is at least firstCallSize bytes: it can never fit in that read
// behind BEGIN, its tail stays on the socket and wakes systemd, and every
// later message reaches a connection already reading messages. Should a
// server keep more than that in its buffer, the exchange does not hang
// either: while no answer comes, a short Ping is sent after 100 ms, then
// after doubling intervals up to a second, each of them waking the server,
// until ctx ends. On a message bus there is nothing to do: dbus-daemon and
// dbus-broker read the first message like any other.

const peerIface = "org.freedesktop.DBus.Peer"

// firstCallSize is the least size of the first message: systemd's whole
// authentication buffer.
const firstCallSize = 256

// firstCallPath returns the object path of the first Ping. sd-bus answers
// org.freedesktop.DBus.Peer on every path.
func firstCallPath() dbus.ObjectPath {
	return managerPath + "/sdbus_first_call/" + dbus.ObjectPath(strings.Repeat("p", firstCallSize))
}

// firstCall makes the first exchange of a direct connection (see above).
// Any answer, an error too, shows that the server reads messages.
func firstCall(ctx context.Context, bus *dbus.Conn) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan *dbus.Call, 1)
	bus.Object(systemdName, firstCallPath()).GoWithContext(ctx, peerIface+".Ping", 0, done)
	nudge := 100 * time.Millisecond
	t := time.NewTimer(nudge)
	defer t.Stop()
	for {
		select {
		case call := <-done:
			var de dbus.Error
			if call.Err != nil && !errors.As(call.Err, &de) {
				return call.Err
			}
			return nil
		case <-t.C:
			// Anything written makes the server read again; the answer
			// to this one is not needed.
			bus.Object(systemdName, managerPath).GoWithContext(ctx, peerIface+".Ping", 0, make(chan *dbus.Call, 1))
			nudge = min(2*nudge, time.Second)
			t.Reset(nudge)
		}
	}
}
