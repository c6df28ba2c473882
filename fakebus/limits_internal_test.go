package fakebus

import (
	"strings"
	"testing"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// TestLimitNames: every limit the bus closes a connection for has a
// LimitName constant of the same name, so that a NoteLimit's Limit is
// always one of them.
func TestLimitNames(t *testing.T) {
	declared := map[LimitName]bool{
		LimitMaxMessageSize: true, LimitMaxIncomingBytes: true, LimitMaxTotalIncomingBytes: true,
		LimitMaxTotalOutgoingBytes: true, LimitDecodeRatio: true,
		LimitAuthTimeout: true, LimitMaxIncompleteConnections: true, LimitMaxCompletedConnections: true,
		LimitMaxMessageUnixFDs: true,
	}
	n := 0
	for l := busd.Limit(1); !strings.HasPrefix(l.String(), "Limit("); l++ {
		n++
		if !declared[LimitName(l.String())] {
			t.Errorf("busd limit %s has no LimitName constant", l)
		}
	}
	if n != len(declared) {
		t.Errorf("busd has %d limits, fakebus declares %d", n, len(declared))
	}
}
