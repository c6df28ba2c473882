package busd

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// kernelInput reports whether the kernel holds bytes the client sent that
// the connection has not read yet (SIOCINQ on a socket), as epoll would
// report the socket readable. It is false when that cannot be told.
func (p *Peer) kernelInput() bool {
	sc, ok := p.rwc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	if err := raw.Control(func(fd uintptr) {
		n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ)
	}); err != nil {
		return false
	}
	return n > 0
}
