package fakebus

import (
	"time"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Limits bound what the fake's clients can make it hold, as dbus-daemon's
// <limit> settings do: a client that passes a limit on what it sends, on
// time or on connections is disconnected, alone, and a NoteLimit tells; a
// request beyond a per-connection cap is refused with LimitsExceeded; a
// connection's queue over its limit gets no more messages (see "Limits"
// in docs/fakebus.md for the defaults). For every field, 0
// means the default and a negative value means no limit.
type Limits struct {
	// MaxMessageSize is the largest message a client may send
	// (max_message_size). Default 8 MiB.
	MaxMessageSize int
	// MaxIncomingBytes is what one connection's input may hold at once:
	// bytes read, the message being decoded and its decoded values
	// (max_incoming_bytes). Apart, its messages waiting in other
	// clients' queues may hold as much: beyond, the fake stops reading
	// the connection until they are written, as dbus-daemon does.
	// Default 64 MiB.
	MaxIncomingBytes int
	// MaxTotalIncomingBytes is the same for all connections together
	// (max_total_incoming_bytes); passing it closes the connection
	// holding the most. Default 128 MiB.
	MaxTotalIncomingBytes int
	// MaxOutgoingBytes is how many bytes may wait to be written to one
	// connection (max_outgoing_bytes). As on dbus-daemon, a connection
	// whose queue holds more is given no more messages and stays
	// connected: a method call for it is refused with LimitsExceeded,
	// anything else is dropped. Default 32 MiB.
	MaxOutgoingBytes int
	// MaxTotalOutgoingBytes is the same for all connections together
	// (max_total_outgoing_bytes); passing it closes the connection with
	// the longest queue. Default 128 MiB.
	MaxTotalOutgoingBytes int
	// DecodeRatio is how many bytes of memory a message's decoded values
	// may take per byte of the message (decode_ratio). Default 16.
	DecodeRatio int
	// AuthTimeout is how long a connection may take to authenticate
	// (auth_timeout). Default 10 s.
	AuthTimeout time.Duration
	// MaxIncompleteConnections is how many connections may be
	// authenticating at once; one more closes the oldest
	// (max_incomplete_connections). Default 64.
	MaxIncompleteConnections int
	// MaxConnections is how many authenticated connections the fake
	// serves at once (max_completed_connections). Default 512.
	MaxConnections int
	// MaxMatchRules is how many match rules one connection may have, a
	// monitor's included (max_match_rules_per_connection); one more is
	// refused with org.freedesktop.DBus.Error.LimitsExceeded, as
	// dbus-daemon refuses it. Default 512.
	MaxMatchRules int
	// MaxNames is how many bus names one connection may own, its unique
	// name included (max_names_per_connection); one more is refused with
	// LimitsExceeded. Default 512.
	MaxNames int
	// MaxPendingReplies is how many calls one connection may have waiting
	// for the fake's answer (max_replies_per_connection); one more is
	// refused with LimitsExceeded. Default 128.
	MaxPendingReplies int
	// MaxMessageUnixFDs is how many unix fds one message may carry
	// (max_message_unix_fds); a message with more closes the connection,
	// as dbus-daemon does. Default 16.
	MaxMessageUnixFDs int
	// MaxIncomingUnixFDs is how many unix fds a connection's messages
	// may hold in other clients' queues (max_incoming_unix_fds); beyond,
	// the fake stops reading the connection until they are written.
	// Default 64.
	MaxIncomingUnixFDs int
	// MaxOutgoingUnixFDs is how many unix fds may wait to be written to
	// one connection (max_outgoing_unix_fds); beyond, it is given no
	// more messages with fds, as for MaxOutgoingBytes. Default 64.
	MaxOutgoingUnixFDs int
}

// WithLimits sets the limits on what clients can make the fake hold.
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// NoteLimit: a client connection was closed because it passed a limit
// (Client, Limit, Value, Max). It comes from the connection's goroutine,
// possibly at the same time as other notes.
const NoteLimit NoteKind = "limit"

// busLimits converts l for the bus. The conversion is the check that the
// two types have the same fields: busd.Limits is the bus's definition,
// Limits the one users read, and the compiler refuses the conversion as
// soon as one of them gains, loses or changes a field.
func (l Limits) busLimits() busd.Limits { return busd.Limits(l) }

// LimitName is the limit a NoteLimit's connection passed, by
// dbus-daemon's name where it has one.
type LimitName string

// The limits whose passing closes a connection (the fields of Limits
// but for the caps that refuse a request: MaxMatchRules, MaxNames,
// MaxPendingReplies, MaxIncomingUnixFDs, MaxOutgoingBytes,
// MaxOutgoingUnixFDs).
const (
	LimitMaxMessageSize           LimitName = "max_message_size"
	LimitMaxIncomingBytes         LimitName = "max_incoming_bytes"
	LimitMaxTotalIncomingBytes    LimitName = "max_total_incoming_bytes"
	LimitMaxTotalOutgoingBytes    LimitName = "max_total_outgoing_bytes"
	LimitDecodeRatio              LimitName = "decode_ratio"
	LimitAuthTimeout              LimitName = "auth_timeout"
	LimitMaxIncompleteConnections LimitName = "max_incomplete_connections"
	LimitMaxCompletedConnections  LimitName = "max_completed_connections"
	LimitMaxMessageUnixFDs        LimitName = "max_message_unix_fds"
)

// limitNote turns a connection closed for a limit into a NoteLimit.
func limitNote(e busd.LimitEvent) Note {
	return Note{Kind: NoteLimit, Client: e.Peer.UniqueName(), PID: e.Peer.PID(), Limit: LimitName(e.Limit.String()), Value: e.Value, Max: e.Max}
}
