package busd

import (
	"errors"
	"io"
	"sync"

	"golang.org/x/sys/unix"
)

// Unix fd passing, as dbus-daemon does it on unix sockets.
//
// A client that sends NEGOTIATE_UNIX_FD after OK on a unix socket gets
// AGREE_UNIX_FD (anything else, and every Pipe, gets ERROR). From then on
// every read is a recvmsg that also takes the SCM_RIGHTS descriptors sent
// with the bytes; a message's UNIX_FDS header field takes that many of
// them, in order. The message's descriptors are routed with it: each
// connection it is queued for holds duplicates, sent with sendmsg along
// with the message's first bytes and closed once written or dropped; the
// received ones are closed once the message is routed. A connection that
// did not negotiate fd passing never receives descriptors: a method call
// carrying some addressed to it gets dbus-daemon's NotSupported error, and
// a broadcast skips it.

// notSupportedFDsText is dbus-daemon's text (its missing space included)
// for a message with fds addressed to a connection without fd passing.
const notSupportedFDsText = "Tried to send message with Unix file descriptorsto a client that doesn't support that."

// maxFDsPerRead is the most descriptors one recvmsg may bring: the
// kernel's SCM_MAX_FD (253), and a stream socket's recvmsg brings those
// of at most one sendmsg.
const maxFDsPerRead = 253

// fdReader reads a unix socket with recvmsg, keeping the descriptors that
// come with the bytes in Peer.inFDs, as libdbus does whether or not fd
// passing was negotiated (a message cannot use them unless it was).
type fdReader struct{ p *Peer }

var oobPool = sync.Pool{New: func() any {
	b := make([]byte, unix.CmsgSpace(maxFDsPerRead*4))
	return &b
}}

var errFDsTruncated = errors.New("busd: unix fds truncated")

func (r fdReader) Read(b []byte) (int, error) {
	p := r.p
	oob := oobPool.Get().(*[]byte)
	defer oobPool.Put(oob)
	n, oobn, flags, _, err := p.sock.ReadMsgUnix(b, *oob)
	if oobn > 0 {
		if msgs, perr := unix.ParseSocketControlMessage((*oob)[:oobn]); perr == nil {
			for i := range msgs {
				if fds, ferr := unix.ParseUnixRights(&msgs[i]); ferr == nil {
					p.inFDs = append(p.inFDs, fds...)
				}
			}
		}
	}
	if flags&unix.MSG_CTRUNC != 0 && err == nil {
		// Descriptors were lost (libdbus: the connection ends).
		return n, errFDsTruncated
	}
	if max := 2 * p.bus.lim.MaxMessageUnixFDs; len(p.inFDs) > max && err == nil {
		// More descriptors than two messages may carry are waiting for
		// their messages. Two are legitimate: a read that had to stop in
		// the middle of a message (the buffer's end) goes on with the
		// rest of it and into the next sendmsg, whose fds it brings
		// before the first message was decoded and took its own. A read
		// stops after the first sendmsg with fds, and once it passed a
		// message's end that message is decoded before the next read,
		// so only fds sent beyond what messages claim pile up.
		p.limited(LimitMessageUnixFDs, int64(len(p.inFDs)), int64(max))
		return n, errLimit
	}
	return n, err
}

// negotiateUnixFD answers NEGOTIATE_UNIX_FD: fd passing is agreed on a
// unix socket.
func (p *Peer) negotiateUnixFD() bool {
	if p.sock == nil {
		return false
	}
	p.unixFD.Store(true)
	return true
}

// UnixFDs reports whether the client negotiated unix fd passing.
func (p *Peer) UnixFDs() bool { return p.unixFD.Load() }

// takeFDs gives m the descriptors its UNIX_FDS header field counts. It
// reports false if the connection must end: more than
// Limits.MaxMessageUnixFDs (a limit, as libdbus's loader), or fds that
// never came or were never negotiated (an invalid message).
func (p *Peer) takeFDs(m *inMsg) bool {
	n := int(m.unixFDs)
	if n == 0 {
		return true
	}
	if max := p.bus.lim.MaxMessageUnixFDs; n > max {
		p.limited(LimitMessageUnixFDs, int64(n), int64(max))
		return false
	}
	if !p.unixFD.Load() || n > len(p.inFDs) {
		return false
	}
	m.fds = append([]int(nil), p.inFDs[:n]...)
	p.inFDs = append(p.inFDs[:0], p.inFDs[n:]...)
	return true
}

// enqueueFDs is enqueue for a message carrying fds: the queue holds
// duplicates of them. A connection without fd passing is not sent the
// message (notQueued).
func (p *Peer) enqueueFDs(data []byte, fds []int, from *Peer, ev *Event) enqueued {
	if !p.unixFD.Load() {
		return notQueued
	}
	dups := make([]int, 0, len(fds))
	for _, fd := range fds {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			closeFDs(dups)
			return notQueued
		}
		dups = append(dups, d)
	}
	return p.enqueueWith(data, dups, from, ev)
}

// closeQueuedFDs closes the descriptors of the queued messages. p.qmu
// must be held.
func (p *Peer) closeQueuedFDs() {
	for _, fds := range p.qfds {
		closeFDs(fds)
	}
	p.qfds = nil
	p.qnfds = 0
}

// writeWithFDs writes batch, the messages with fds by sendmsg with their
// descriptors (then closes those), the others as writeBatch does.
func (p *Peer) writeWithFDs(batch [][]byte, fds map[int][]int) error {
	defer func() {
		for _, f := range fds {
			closeFDs(f)
		}
	}()
	start := 0
	for i, m := range batch {
		f, ok := fds[i]
		if !ok {
			continue
		}
		if start < i {
			if err := writeBatch(p.rwc, batch[start:i], &p.bus.batchBufs); err != nil {
				return err
			}
		}
		start = i + 1
		n, _, err := p.sock.WriteMsgUnix(m, unix.UnixRights(f...), nil)
		if err != nil {
			return err
		}
		if n < len(m) {
			if _, err := p.rwc.Write(m[n:]); err != nil {
				return err
			}
		}
	}
	if start < len(batch) {
		return writeBatch(p.rwc, batch[start:], &p.bus.batchBufs)
	}
	return nil
}

// closeFDs closes fds.
func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}

var _ io.Reader = fdReader{}
