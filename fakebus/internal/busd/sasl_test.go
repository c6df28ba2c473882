package busd

import (
	"bufio"
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestSASL writes client lines to the server over a pipe and checks the
// server's answers.
func TestSASL(t *testing.T) {
	uidHex := hex.EncodeToString([]byte(strconv.Itoa(os.Getuid())))
	tests := []struct {
		name   string
		send   string
		want   []string // lines expected before the connection closes or want runs out
		closed bool     // the server closes the connection after the lines
	}{
		{"no mechanism", "\x00AUTH\r\n", []string{"REJECTED EXTERNAL"}, false},
		{"external with uid", "\x00AUTH EXTERNAL " + uidHex + "\r\n", []string{"OK <guid>"}, false},
		{"external with any uid on a pipe", "\x00AUTH EXTERNAL " + hex.EncodeToString([]byte("4242")) + "\r\n", []string{"OK <guid>"}, false},
		{"external then empty data", "\x00AUTH EXTERNAL\r\nDATA\r\n", []string{"DATA", "OK <guid>"}, false},
		{"external then data", "\x00AUTH EXTERNAL\r\nDATA " + uidHex + "\r\n", []string{"DATA", "OK <guid>"}, false},
		{"bad hex", "\x00AUTH EXTERNAL zz\r\n", []string{"REJECTED EXTERNAL"}, false},
		{"not a number", "\x00AUTH EXTERNAL " + hex.EncodeToString([]byte("root")) + "\r\n", []string{"REJECTED EXTERNAL"}, false},
		{"other mechanism", "\x00AUTH DBUS_COOKIE_SHA1 abc\r\n", []string{"REJECTED EXTERNAL"}, false},
		{"anonymous", "\x00AUTH ANONYMOUS\r\n", []string{"REJECTED EXTERNAL"}, false},
		{"cancel", "\x00AUTH EXTERNAL\r\nCANCEL\r\nAUTH\r\n", []string{"DATA", "REJECTED EXTERNAL", "REJECTED EXTERNAL"}, false},
		{"negotiate fd", "\x00AUTH EXTERNAL " + uidHex + "\r\nNEGOTIATE_UNIX_FD\r\n", []string{"OK <guid>", "ERROR"}, false},
		{"unknown command", "\x00HELLO\r\n", []string{"ERROR"}, false},
		{"data before auth", "\x00DATA 31\r\n", []string{"ERROR"}, false},
		{"bare LF tolerated", "\x00AUTH\n", []string{"REJECTED EXTERNAL"}, false},
		{"missing NUL", "AUTH\r\n", nil, true},
		{"begin before auth", "\x00BEGIN\r\n", nil, true},
		{"begin after data request", "\x00AUTH EXTERNAL\r\nBEGIN\r\n", []string{"DATA"}, true},
		{"too many lines", "\x00" + strings.Repeat("X\r\n", maxSASLLines+1), repeat("ERROR", maxSASLLines), true},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestBus(t)
			c := b.Pipe(BusMode)
			defer c.Close()
			if _, err := io.WriteString(c, tt.send); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(c)
			var got []string
			for range tt.want {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("after %q: %v", got, err)
				}
				got = append(got, strings.ReplaceAll(strings.TrimSuffix(line, "\r\n"), b.guid, "<guid>"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("server lines (-want +got):\n%s", diff)
			}
			if tt.closed {
				if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
					t.Errorf("after the lines: read %q, %v; want EOF", rest, err)
				}
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestSASLPipelined sends everything sd-bus sends in one write, including
// the Hello call, and expects the server to answer all of it.
func TestSASLPipelined(t *testing.T) {
	b, _ := newTestBus(t)
	c := b.Pipe(BusMode)
	defer c.Close()

	hello := &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldDestination: dbus.MakeVariant(driverName),
		dbus.FieldPath:        dbus.MakeVariant(driverPath),
		dbus.FieldInterface:   dbus.MakeVariant(driverIface),
		dbus.FieldMember:      dbus.MakeVariant("Hello"),
	}}
	msg, err := encodeGodbus(hello, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := "\x00AUTH EXTERNAL\r\nDATA\r\nNEGOTIATE_UNIX_FD\r\nBEGIN\r\n" + string(msg)
	if _, err := io.WriteString(c, in); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	var lines []string
	for i := 0; i < 3; i++ {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSuffix(line, "\r\n"))
	}
	if diff := cmp.Diff([]string{"DATA", "OK " + b.guid, "ERROR"}, lines); diff != "" {
		t.Errorf("SASL lines (-want +got):\n%s", diff)
	}
	reply, err := dbus.DecodeMessage(r)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Type != dbus.TypeMethodReply || reply.Serial() == 0 {
		t.Errorf("got %v, want a method return with a serial", reply)
	}
	if got := reply.Headers[dbus.FieldReplySerial].Value(); got != uint32(1) {
		t.Errorf("REPLY_SERIAL = %v, want 1", got)
	}
	if got := reply.Body; len(got) != 1 || !strings.HasPrefix(got[0].(string), ":1.") {
		t.Errorf("Hello returned %v", got)
	}
	acquired, err := dbus.DecodeMessage(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := acquired.Headers[dbus.FieldMember].Value(); got != "NameAcquired" {
		t.Errorf("second message is %v, want NameAcquired", acquired)
	}
}
