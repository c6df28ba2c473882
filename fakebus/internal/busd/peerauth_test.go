package busd

import (
	"bufio"
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// pingOf returns a Peer.Ping of at least size bytes (its path padded).
func pingOf(t *testing.T, size int, serial uint32) []byte {
	t.Helper()
	for pad := 0; ; pad++ {
		m := &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldPath:      dbus.MakeVariant(dbus.ObjectPath("/p" + strings.Repeat("p", pad))),
			dbus.FieldInterface: dbus.MakeVariant(peerIface),
			dbus.FieldMember:    dbus.MakeVariant("Ping"),
		}}
		b, err := encodeGodbus(m, serial)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) >= size {
			return b
		}
	}
}

// TestPeerAuthBuffer checks Config.PeerAuthBuffer: a first message that
// came whole in the read that brought BEGIN waits for the client's next
// bytes, as on systemd's private socket; a bigger one, and any on a bus or
// without the setting, is answered at once.
func TestPeerAuthBuffer(t *testing.T) {
	auth := "\x00AUTH EXTERNAL " + hex.EncodeToString([]byte(strconv.Itoa(os.Getuid()))) + "\r\n"
	fits := 256 - len(auth) - len("BEGIN\r\n") // the most a first message can be and stall
	tests := []struct {
		name    string
		mode    Mode
		buffer  int
		size    int // at least, up to 7 more
		stalled bool
	}{
		{"small first message on the private socket", PeerMode, 256, 64, true},
		{"first message filling the buffer", PeerMode, 256, fits - 7, true},
		{"first message past the buffer", PeerMode, 256, fits + 1, false},
		{"large first message", PeerMode, 256, 1024, false},
		{"no buffer set", PeerMode, 0, 64, false},
		{"message bus", BusMode, 256, 64, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestBus(t, func(c *Config) { c.PeerAuthBuffer = tt.buffer })
			c := b.Pipe(tt.mode)
			defer c.Close()
			r := bufio.NewReader(c)
			if _, err := io.WriteString(c, auth); err != nil {
				t.Fatal(err)
			}
			if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "OK ") {
				t.Fatalf("auth: %q, %v", line, err)
			}
			first := pingOf(t, tt.size, 1)
			if tt.mode == BusMode {
				hello := &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
					dbus.FieldPath: dbus.MakeVariant(driverPath), dbus.FieldInterface: dbus.MakeVariant(driverName),
					dbus.FieldMember: dbus.MakeVariant("Hello"), dbus.FieldDestination: dbus.MakeVariant(driverName),
				}}
				var err error
				if first, err = encodeGodbus(hello, 1); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.Write(append([]byte("BEGIN\r\n"), first...)); err != nil {
				t.Fatal(err)
			}
			replies := make(chan uint32, 4)
			go func() {
				defer close(replies)
				for {
					m, err := dbus.DecodeMessage(r)
					if err != nil {
						return
					}
					if m.Type == dbus.TypeMethodReply {
						replies <- m.Headers[dbus.FieldReplySerial].Value().(uint32)
					}
				}
			}()
			got := 0
			select {
			case s := <-replies:
				got++
				if tt.stalled {
					t.Fatalf("reply to %d before the client sent more", s)
				}
			case <-time.After(200 * time.Millisecond):
				if !tt.stalled {
					t.Fatal("first message not answered")
				}
			}
			if tt.mode == BusMode {
				return // Hello answered
			}
			if _, err := c.Write(pingOf(t, 16, 2)); err != nil {
				t.Fatal(err)
			}
			for ; got < 2; got++ {
				select {
				case <-replies:
				case <-time.After(testTimeout):
					t.Fatal("no reply after the second message")
				}
			}
		})
	}
}
