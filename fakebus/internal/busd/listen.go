package busd

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"time"
)

// Listen serves a unix socket at path in the given mode. A stale socket file
// at path (nobody accepts on it) is removed first; a socket somebody still
// serves, such as another fakesystemd's, is refused (ErrSocketInUse) rather
// than taken over. The accept loop is owned by b; Close closes the listener
// and removes the socket file. Peer credentials come from SO_PEERCRED.
func (b *Bus) Listen(path string, mode Mode) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return &os.PathError{Op: "listen", Path: path, Err: ErrSocketInUse}
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return err
	}
	l.SetUnlinkOnClose(true)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		_ = l.Close()
		return net.ErrClosed
	}
	b.listeners = append(b.listeners, l)
	b.wg.Add(1)
	b.mu.Unlock()
	go b.acceptLoop(l, mode)
	return nil
}

// ErrSocketInUse: Listen found a socket at its path that a running server
// accepts connections on.
var ErrSocketInUse = errors.New("socket in use by a running server")

// acceptLoop accepts connections until l is closed.
func (b *Bus) acceptLoop(l *net.UnixListener, mode Mode) {
	defer b.wg.Done()
	var backoff time.Duration
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait a little, as
			// net/http does, unless the bus is closing.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-b.done:
				t.Stop()
				return
			}
			continue
		}
		backoff = 0
		b.serve(c, mode, peerCred(c))
	}
}
