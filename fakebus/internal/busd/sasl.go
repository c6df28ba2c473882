package busd

import (
	"bytes"
	"encoding/hex"
	"strconv"
)

// Server side of the D-Bus SASL conversation (EXTERNAL only).
//
// Lines are read from p.in, the same buffered reader the binary phase uses,
// because clients such as sd-bus pipeline AUTH, DATA, NEGOTIATE_UNIX_FD,
// BEGIN and their first message in one write. Responses go through the
// connection's queue like every other output.

const (
	maxSASLLine  = 16 << 10 // longest line accepted
	maxSASLLines = 64       // lines accepted before giving up
)

type saslState uint8

const (
	waitingForAuth saslState = iota
	waitingForData
	waitingForBegin
)

// authenticate runs the SASL conversation. It reports whether the client
// sent BEGIN after a successful authentication; on false the connection must
// be closed.
func (p *Peer) authenticate() bool {
	nul, err := p.in.ReadByte()
	if err != nil || nul != 0 {
		return false
	}
	state := waitingForAuth
	for n := 0; n < maxSASLLines; n++ {
		line, ok := p.readSASLLine()
		if !ok {
			return false
		}
		cmd, arg, _ := bytes.Cut(line, []byte{' '})
		switch string(cmd) {
		case "AUTH":
			if state != waitingForAuth {
				p.saslReply("ERROR")
				continue
			}
			mech, initial, hasInitial := bytes.Cut(arg, []byte{' '})
			if string(mech) != "EXTERNAL" {
				p.saslReply("REJECTED EXTERNAL")
				continue
			}
			if !hasInitial {
				p.saslReply("DATA")
				state = waitingForData
				continue
			}
			state = p.external(initial)
		case "DATA":
			if state != waitingForData {
				p.saslReply("ERROR")
				continue
			}
			state = p.external(arg)
		case "CANCEL", "ERROR":
			p.saslReply("REJECTED EXTERNAL")
			state = waitingForAuth
		case "NEGOTIATE_UNIX_FD":
			// Agreed after OK on a unix socket (fds.go); elsewhere the
			// client carries on without fd passing.
			if state == waitingForBegin && p.negotiateUnixFD() {
				p.saslReply("AGREE_UNIX_FD")
			} else {
				p.saslReply("ERROR")
			}
		case "BEGIN":
			// BEGIN before OK ends the conversation (the spec's "terminate").
			return state == waitingForBegin
		default:
			p.saslReply("ERROR")
		}
	}
	return false
}

// external checks an EXTERNAL response (hex of the ASCII decimal uid, or empty
// for "whatever my credentials say"), answers OK or REJECTED and returns the
// next state.
func (p *Peer) external(resp []byte) saslState {
	uid, ok := p.externalUID(resp)
	if !ok {
		p.saslReply("REJECTED EXTERNAL")
		return waitingForAuth
	}
	p.uid = uid
	p.saslReply("OK " + p.bus.guid)
	return waitingForBegin
}

func (p *Peer) externalUID(resp []byte) (uint32, bool) {
	if len(resp) == 0 {
		return p.uid, true // SO_PEERCRED uid, or our own uid on pipes
	}
	raw := make([]byte, hex.DecodedLen(len(resp)))
	if _, err := hex.Decode(raw, resp); err != nil || len(raw) == 0 {
		return 0, false
	}
	for _, c := range raw {
		if !isDigit(c) {
			return 0, false
		}
	}
	uid, err := strconv.ParseUint(string(raw), 10, 32)
	if err != nil {
		return 0, false
	}
	// Like dbus-daemon, believe a claim only if the kernel agrees.
	if p.credKnown && uint32(uid) != p.uid {
		return 0, false
	}
	return uint32(uid), true
}

// readSASLLine reads one line without its CRLF (a bare LF is tolerated).
func (p *Peer) readSASLLine() ([]byte, bool) {
	line, err := p.in.readLine(maxSASLLine)
	if err != nil {
		return nil, false
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, true
}

func (p *Peer) saslReply(s string) {
	p.enqueue([]byte(s + "\r\n"))
}
