//go:build !linux

package busd

// kernelInput reports whether the kernel holds unread bytes from the
// client; off Linux it cannot be told.
func (p *Peer) kernelInput() bool { return false }
