package busd

import (
	"strconv"
	"sync/atomic"
	"time"
)

// Limits bound what clients can make the bus hold, as dbus-daemon's
// <limit> settings do (their names are given with each field). A client
// that passes a limit on what it sends, on time or on connections is
// disconnected, alone: every other connection carries on, and
// Config.LimitExceeded hears of it. A client that asks for more than its
// share of match rules, names or pending replies is refused that one
// request, with org.freedesktop.DBus.Error.LimitsExceeded and
// dbus-daemon's message, and stays connected, as dbus-daemon does; so
// does a client whose queue is full (MaxOutgoingBytes), and one whose
// messages wait for others beyond MaxIncomingBytes is not read for a
// while.
//
// Sizes are in bytes. For every field, 0 means the default and a negative
// value means no limit. The defaults suit a test fake: far above what a
// systemd client sends or receives, far below what would strain a CI
// machine. With them, what busd holds for its clients stays below about
//
//	MaxTotalIncomingBytes + MaxTotalOutgoingBytes + connections × (PerConnectionOverhead + PerConnectionState)
//
// (128 MiB + 128 MiB + 512 × (384 KiB + 1,824 KiB) = 1.33 GiB at most,
// whatever the clients send, announce or ask for). PerConnectionOverhead
// is each connection's goroutines, read buffer and, while it writes, its
// writer's batch buffer; PerConnectionState is the most its match rules
// (or a monitor's rules), names and pending replies take, each at its
// limit and each as large as the protocol allows (TestStateBound
// measures it: 512 connections at every limit at once grew the heap by
// 687 to 707 MiB, 1.4 MiB per connection, under the 2.2 MiB counted;
// under -race it runs 32). Messages waiting
// to be written count against MaxOutgoingBytes with their queue entry.
// What the Handler keeps of the calls it was given after HandleCall
// returned is not counted: busd itself keeps no call's body once the
// Handler has it. ("About": a connection closed to make room lets go of
// what it held as its goroutines end, and decoding counts in steps of
// 16 KiB.)
type Limits struct {
	// MaxMessageSize is the largest message a client may send, header and
	// body (max_message_size; dbus-daemon: 32 MiB). A message announcing
	// more closes the connection as soon as its first 16 bytes arrive.
	// Default 8 MiB.
	MaxMessageSize int
	// MaxIncomingBytes is what one connection's input may hold at once
	// (max_incoming_bytes; dbus-daemon: 127 MiB): its read buffer, which
	// grows with the bytes that arrived and never with the length a
	// message announces, the message being decoded, and its decoded
	// values (busd's estimate of their memory) until HandleCall or routing
	// returns. Default 64 MiB.
	//
	// The bytes of a connection's messages waiting in other connections'
	// queues (method calls, replies and unicast signals to another
	// client, not yet written) count against it too, apart: while they
	// are more, busd stops reading the connection, as dbus-daemon stops
	// reading a connection whose messages are still alive. So a client
	// sending to a client that does not read is slowed down, not
	// refused; several of them fill its queue (MaxOutgoingBytes).
	MaxIncomingBytes int
	// MaxTotalIncomingBytes is the same for all connections together.
	// When it would be passed, the connection holding the most input is
	// closed (dbus-daemon has no such limit). Default 128 MiB.
	MaxTotalIncomingBytes int
	// MaxOutgoingBytes is how many bytes may wait to be written to one
	// connection (max_outgoing_bytes; dbus-daemon: 127 MiB). As on
	// dbus-daemon, a connection whose queue already holds more gets no
	// more messages (checked before a message is added, so a queue may
	// pass it by one message) and stays connected: a method call for it
	// is refused with LimitsExceeded, "Rejected: destination has a full
	// message queue, ...", anything else is dropped. Default 32 MiB.
	MaxOutgoingBytes int
	// MaxTotalOutgoingBytes is the same for all connections together; a
	// message shared by several queues (a broadcast) counts once per
	// queue. When it would be passed, the connection with the longest
	// queue is closed. Default 128 MiB.
	MaxTotalOutgoingBytes int
	// DecodeRatio bounds the memory a message's decoded values may take:
	// at most DecodeRatio bytes (busd's estimate) per byte of the message,
	// plus 4 KiB. A message needing more closes the connection, as one
	// that does not parse. The busiest systemd messages (StartTransientUnit
	// with many properties) need about 8. Default 16.
	DecodeRatio int
	// AuthTimeout is how long a connection may take from its first byte
	// to the end of authentication (BEGIN) (auth_timeout; dbus-daemon:
	// 30 s). Default 10 s.
	AuthTimeout time.Duration
	// MaxIncompleteConnections is how many connections may be
	// authenticating at once (max_incomplete_connections; dbus-daemon:
	// 64). One more closes the oldest of them, as dbus-daemon does.
	// Default 64.
	MaxIncompleteConnections int
	// MaxConnections is how many authenticated connections the bus serves
	// at once (max_completed_connections; dbus-daemon: 2048). A connection
	// that finishes authenticating beyond it is closed. Default 512.
	MaxConnections int
	// MaxMatchRules is how many match rules one connection may have
	// (max_match_rules_per_connection; dbus-daemon: 512). One more
	// AddMatch is refused with LimitsExceeded. BecomeMonitor with more
	// rules is refused the same way (dbus-daemon does not limit a
	// monitor's rules, but only lets root and its own user become one;
	// the fake often runs as root, and its clients too). Default 512.
	MaxMatchRules int
	// MaxNames is how many names one connection may own, its unique
	// name included (max_names_per_connection; dbus-daemon: 512, so 511
	// well-known names). A RequestName beyond it, even of a name the
	// connection owns, is refused with LimitsExceeded. Default 512.
	MaxNames int
	// MaxPendingReplies is how many calls one BusMode connection may have
	// waiting for the service's reply (max_replies_per_connection;
	// dbus-daemon: 128). One more is refused with LimitsExceeded, "The
	// maximum number of pending replies per connection has been
	// reached". A connection's pending calls are forgotten when it
	// leaves. Default 128.
	MaxPendingReplies int
	// MaxMessageUnixFDs is how many unix fds one message may carry
	// (max_message_unix_fds; dbus-daemon's system bus: 16). A message
	// announcing more, or more fds received than one message may carry
	// waiting for their messages than two messages may carry (a read
	// that completes a message may bring the next one's), closes the
	// connection, as dbus-daemon does. Default 16.
	MaxMessageUnixFDs int
	// MaxIncomingUnixFDs is how many unix fds a connection's messages
	// may hold in other connections' queues (max_incoming_unix_fds;
	// dbus-daemon's system bus: 64): while they are more, busd stops
	// reading the connection, as for MaxIncomingBytes. Default 64.
	MaxIncomingUnixFDs int
	// MaxOutgoingUnixFDs is how many unix fds may wait to be written to
	// one connection (max_outgoing_unix_fds; dbus-daemon's system bus:
	// 64). Beyond, a message with fds is refused as for
	// MaxOutgoingBytes. So a connection makes busd hold at most
	// 2 × MaxMessageUnixFDs + MaxOutgoingUnixFDs + MaxMessageUnixFDs
	// descriptors (112 by default; they count against the process's
	// RLIMIT_NOFILE, not in the bytes above). Default 64.
	MaxOutgoingUnixFDs int
}

// The default limits (see Limits).
const (
	DefaultMaxMessageSize           = 8 << 20
	DefaultMaxIncomingBytes         = 64 << 20
	DefaultMaxTotalIncomingBytes    = 128 << 20
	DefaultMaxOutgoingBytes         = 32 << 20
	DefaultMaxTotalOutgoingBytes    = 128 << 20
	DefaultDecodeRatio              = 16
	DefaultAuthTimeout              = 10 * time.Second
	DefaultMaxIncompleteConnections = 64
	DefaultMaxConnections           = 512
	DefaultMaxMatchRules            = 512
	DefaultMaxNames                 = 512
	DefaultMaxPendingReplies        = 128
	DefaultMaxMessageUnixFDs        = 16
	DefaultMaxOutgoingUnixFDs       = 64
	DefaultMaxIncomingUnixFDs       = 64
)

// PerConnectionOverhead is what busd holds for a connection beyond the
// input and output the limits count, at most: its two goroutines' stacks
// (64 KiB), its read buffer up to readAhead (64 KiB) and, while it
// writes, the writer's batch buffer (maxBatch, 256 KiB).
const PerConnectionOverhead = 384 << 10

// PerConnectionState is the most busd holds for a connection's match
// rules (or a monitor's rules), names and pending replies with the
// default limits, each rule of the longest text the protocol allows
// (1,024 bytes, 64 arguments), each name of 255 bytes: 512 rules, 512
// names and 128 pending replies, at matchRuleCost, nameCost and
// pendingCost bytes each (worst cases measured by TestStateBound, with
// a margin).
const PerConnectionState = DefaultMaxMatchRules*matchRuleCost + DefaultMaxNames*nameCost + DefaultMaxPendingReplies*pendingCost

// The most one match rule, owned name and pending reply hold (see
// PerConnectionState).
const (
	matchRuleCost = 3072
	nameCost      = 512
	pendingCost   = 256
)

// stateBound is PerConnectionState for the limits l (with defaults
// filled in).
func (l Limits) stateBound() int64 {
	return int64(l.MaxMatchRules)*matchRuleCost + int64(l.MaxNames)*nameCost + int64(l.MaxPendingReplies)*pendingCost
}

// withDefaults returns l with every zero field set to its default and
// every negative one to "no limit" (the largest int).
func (l Limits) withDefaults() Limits {
	size := func(v *int, def int) {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			*v = int(^uint(0) >> 1)
		}
	}
	size(&l.MaxMessageSize, DefaultMaxMessageSize)
	size(&l.MaxIncomingBytes, DefaultMaxIncomingBytes)
	size(&l.MaxTotalIncomingBytes, DefaultMaxTotalIncomingBytes)
	size(&l.MaxOutgoingBytes, DefaultMaxOutgoingBytes)
	size(&l.MaxTotalOutgoingBytes, DefaultMaxTotalOutgoingBytes)
	size(&l.DecodeRatio, DefaultDecodeRatio)
	size(&l.MaxIncompleteConnections, DefaultMaxIncompleteConnections)
	size(&l.MaxConnections, DefaultMaxConnections)
	size(&l.MaxMatchRules, DefaultMaxMatchRules)
	size(&l.MaxNames, DefaultMaxNames)
	size(&l.MaxPendingReplies, DefaultMaxPendingReplies)
	size(&l.MaxMessageUnixFDs, DefaultMaxMessageUnixFDs)
	size(&l.MaxOutgoingUnixFDs, DefaultMaxOutgoingUnixFDs)
	size(&l.MaxIncomingUnixFDs, DefaultMaxIncomingUnixFDs)
	// A message cannot carry more than the kernel passes at once.
	l.MaxMessageUnixFDs = min(l.MaxMessageUnixFDs, maxFDsPerRead)
	switch {
	case l.AuthTimeout == 0:
		l.AuthTimeout = DefaultAuthTimeout
	case l.AuthTimeout < 0:
		l.AuthTimeout = 0 // none
	}
	// The D-Bus specification's own limit on a message.
	l.MaxMessageSize = min(l.MaxMessageSize, maxMessageLen)
	return l
}

// Limit names one of the limits of Limits, by dbus-daemon's name where it
// has one.
type Limit int

const (
	LimitMessageSize           Limit = iota + 1 // max_message_size
	LimitIncomingBytes                          // max_incoming_bytes
	LimitTotalIncomingBytes                     // max_total_incoming_bytes
	LimitTotalOutgoingBytes                     // max_total_outgoing_bytes
	LimitDecodeRatio                            // decode_ratio
	LimitAuthTimeout                            // auth_timeout
	LimitIncompleteConnections                  // max_incomplete_connections
	LimitConnections                            // max_completed_connections
	LimitMessageUnixFDs                         // max_message_unix_fds
)

var limitNames = [...]string{
	LimitMessageSize:           "max_message_size",
	LimitIncomingBytes:         "max_incoming_bytes",
	LimitTotalIncomingBytes:    "max_total_incoming_bytes",
	LimitTotalOutgoingBytes:    "max_total_outgoing_bytes",
	LimitDecodeRatio:           "decode_ratio",
	LimitAuthTimeout:           "auth_timeout",
	LimitIncompleteConnections: "max_incomplete_connections",
	LimitConnections:           "max_completed_connections",
	LimitMessageUnixFDs:        "max_message_unix_fds",
}

// String returns the limit's name, e.g. "max_message_size".
func (l Limit) String() string {
	if l > 0 && int(l) < len(limitNames) {
		return limitNames[l]
	}
	return "Limit(" + strconv.Itoa(int(l)) + ")"
}

// LimitEvent is a connection closed because it passed a limit.
type LimitEvent struct {
	Peer  *Peer
	Limit Limit
	// Value is what the connection would have reached (bytes, or
	// connections; for LimitAuthTimeout the time it had, for
	// LimitDecodeRatio the message's size), Max the limit.
	Value, Max int64
}

// limited closes p for passing limit. The first limit a connection
// passes is reported to Config.LimitExceeded when the connection has
// ended (limited may be called with locks held).
func (p *Peer) limited(limit Limit, value, max int64) {
	p.limitEvent.CompareAndSwap(nil, &LimitEvent{Peer: p, Limit: limit, Value: value, Max: max})
	p.Close()
}

// budget is a bus-wide byte count with a limit: the input, or the output,
// of every connection together.
type budget struct {
	max  int64
	used atomic.Int64
}

// add counts n more bytes that p holds (p's own count, which held
// returns, includes them already). If the total passes the limit, the
// connection holding the most is closed; add reports false if that is p.
// The bytes stay counted until the one who holds them puts them back (a
// closed connection puts back all it held). It takes no lock.
func (g *budget) add(b *Bus, p *Peer, n int64, held func(*Peer) int64, limit Limit) bool {
	total := g.used.Add(n)
	if n <= 0 || total <= g.max {
		return true
	}
	victim, most := p, held(p)
	b.all.Range(func(k, _ any) bool {
		if q := k.(*Peer); q != p {
			if h := held(q); h > most {
				victim, most = q, h
			}
		}
		return true
	})
	victim.limited(limit, total, g.max)
	return victim != p
}

func inputHeld(p *Peer) int64  { return p.inHeld.Load() }
func outputHeld(p *Peer) int64 { return p.outHeld.Load() }

// chargeInput counts n more (negative: fewer) bytes that p's input holds
// (reader.charge). It reports false if p passed a limit and is closed.
func (p *Peer) chargeInput(n int) bool {
	b := p.bus
	h := p.inHeld.Add(int64(n))
	if n <= 0 {
		b.in.used.Add(int64(n))
		return true
	}
	if h > int64(b.lim.MaxIncomingBytes) {
		b.in.used.Add(int64(n))
		p.limited(LimitIncomingBytes, h, int64(b.lim.MaxIncomingBytes))
		return false
	}
	return b.in.add(b, p, int64(n), inputHeld, LimitTotalIncomingBytes)
}

// releaseInput puts back everything p's input held; its reader has ended.
func (p *Peer) releaseInput() {
	p.bus.in.used.Add(-p.inHeld.Swap(0))
}
