package busd

import (
	"net"
	"syscall"
)

// peerCred returns the SO_PEERCRED credentials of c, if available.
func peerCred(c *net.UnixConn) cred {
	raw, err := c.SyscallConn()
	if err != nil {
		return cred{}
	}
	var uc *syscall.Ucred
	var uerr error
	if err := raw.Control(func(fd uintptr) {
		uc, uerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || uerr != nil {
		return cred{}
	}
	return cred{known: true, uid: uc.Uid, pid: uint32(uc.Pid)}
}
