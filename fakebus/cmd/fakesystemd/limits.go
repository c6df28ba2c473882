package main

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sdbus-go/sdbus/fakebus"
)

// limitFields are the limits --limit sets, by dbus-daemon's names.
var limitFields = map[string]func(*fakebus.Limits) *int{
	"max_message_size":               func(l *fakebus.Limits) *int { return &l.MaxMessageSize },
	"max_incoming_bytes":             func(l *fakebus.Limits) *int { return &l.MaxIncomingBytes },
	"max_total_incoming_bytes":       func(l *fakebus.Limits) *int { return &l.MaxTotalIncomingBytes },
	"max_outgoing_bytes":             func(l *fakebus.Limits) *int { return &l.MaxOutgoingBytes },
	"max_total_outgoing_bytes":       func(l *fakebus.Limits) *int { return &l.MaxTotalOutgoingBytes },
	"decode_ratio":                   func(l *fakebus.Limits) *int { return &l.DecodeRatio },
	"max_incomplete_connections":     func(l *fakebus.Limits) *int { return &l.MaxIncompleteConnections },
	"max_completed_connections":      func(l *fakebus.Limits) *int { return &l.MaxConnections },
	"max_match_rules_per_connection": func(l *fakebus.Limits) *int { return &l.MaxMatchRules },
	"max_names_per_connection":       func(l *fakebus.Limits) *int { return &l.MaxNames },
	"max_replies_per_connection":     func(l *fakebus.Limits) *int { return &l.MaxPendingReplies },
	"max_message_unix_fds":           func(l *fakebus.Limits) *int { return &l.MaxMessageUnixFDs },
	"max_incoming_unix_fds":          func(l *fakebus.Limits) *int { return &l.MaxIncomingUnixFDs },
	"max_outgoing_unix_fds":          func(l *fakebus.Limits) *int { return &l.MaxOutgoingUnixFDs },
}

// parseLimit sets one --limit NAME=VALUE in l: a number (sizes may end
// in KiB, MiB or GiB), a Go duration for auth_timeout, or "none".
func parseLimit(l *fakebus.Limits, arg string) error {
	name, value, ok := strings.Cut(arg, "=")
	if !ok {
		return errors.New("want NAME=VALUE")
	}
	if name == "auth_timeout" {
		if value == "none" {
			l.AuthTimeout = -1
			return nil
		}
		d, err := time.ParseDuration(value)
		if err != nil || d <= 0 {
			return errors.New("want a duration such as 5s, or none")
		}
		l.AuthTimeout = d
		return nil
	}
	field, ok := limitFields[name]
	if !ok {
		return fmt.Errorf("unknown limit %q (known: %s, auth_timeout)", name, strings.Join(sortedLimitNames(), ", "))
	}
	if value == "none" {
		*field(l) = -1
		return nil
	}
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		// Sizes only: counts and the ratio take plain numbers.
		if v, ok := strings.CutSuffix(value, u.suffix); ok && (strings.HasSuffix(name, "_size") || strings.HasSuffix(name, "_bytes")) {
			value, mult = v, u.mult
			break
		}
	}
	n, err := strconv.Atoi(value)
	if err != nil || n <= 0 || n > int(^uint(0)>>1)/mult {
		return errors.New("want a positive number (sizes may end in KiB, MiB or GiB), or none")
	}
	*field(l) = n * mult
	return nil
}

// sortedLimitNames returns the names of limitFields, sorted.
func sortedLimitNames() []string {
	names := make([]string, 0, len(limitFields))
	for n := range limitFields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
