package busd

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
)

// dribble is a reader that hands out its data in chunks whose sizes come
// from cuts, cycling (each cut c gives c+1 bytes; no cuts: all at once).
type dribble struct {
	data    []byte
	cuts    []byte
	i       int
	arrived int // bytes handed out so far
}

func (d *dribble) Read(p []byte) (int, error) {
	if len(d.data) == 0 {
		return 0, io.EOF
	}
	n := len(d.data)
	if len(d.cuts) > 0 {
		n = int(d.cuts[d.i%len(d.cuts)]) + 1
		d.i++
	}
	n = copy(p, d.data[:min(n, len(d.data))])
	d.data = d.data[n:]
	d.arrived += n
	return n, nil
}

// FuzzReader feeds a connection's reader an arbitrary byte stream, cut
// into arbitrary pieces (whole, partial, dribbled a byte at a time,
// oversized messages), with an arbitrary message size limit. Whatever it
// reads is exactly the stream's next message, its buffer never takes more
// than twice what arrived, and what it counts adds up.
func FuzzReader(f *testing.F) {
	var stream []byte
	for i, body := range [][]any{nil, {"x"}, {uint32(7), []string{"a", "b"}}, {strings.Repeat("y", 70<<10)}} {
		stream = append(stream, callBytes(f, uint32(i+1), "M", body...)...)
	}
	f.Add(stream, []byte{}, uint32(1<<20))
	f.Add(stream, []byte{0}, uint32(1<<20))               // a byte at a time
	f.Add(stream, []byte{15, 200, 3, 255}, uint32(1<<20)) // ragged pieces
	f.Add(stream, []byte{100}, uint32(1<<10))             // the big message is too big
	f.Add(stream[:len(stream)-5], []byte{7}, uint32(1<<20))
	f.Add(announce(1<<27), []byte{}, uint32(maxMessageLen))
	f.Add(append(announce(100<<10), make([]byte, 5000)...), []byte{50}, uint32(1<<20))
	f.Add(append(callBytes(f, 1, "M", []dbus.Variant{dbus.MakeVariant(byte(1))}), 'l'), []byte{3}, uint32(1<<20))
	f.Fuzz(func(t *testing.T, data, cuts []byte, maxSize uint32) {
		src := &dribble{data: data, cuts: cuts}
		held := 0 // what the reader counts
		r := newReader(src, nil)
		r.charge = func(n int) bool {
			held += n
			if held < 0 {
				t.Fatalf("counted %d bytes", held)
			}
			if len(r.buf) > max(minBuffer, 2*src.arrived) {
				t.Fatalf("a buffer of %d bytes after %d arrived", len(r.buf), src.arrived)
			}
			return true
		}
		off := 0
		for {
			m, counted, err := readMessage(r, int(maxSize), DefaultDecodeRatio, r.charge)
			if r.buf != nil && len(r.buf) > max(minBuffer, 2*src.arrived) {
				t.Fatalf("a buffer of %d bytes after %d arrived", len(r.buf), src.arrived)
			}
			if err != nil {
				var tb *tooBigError
				if errors.As(err, &tb) && tb.size <= uint64(maxSize) {
					t.Fatalf("a message of %d bytes refused with the limit at %d", tb.size, maxSize)
				}
				break
			}
			if len(m.raw) > int(maxSize) {
				t.Fatalf("read a message of %d bytes with the limit at %d", len(m.raw), maxSize)
			}
			if !bytes.Equal([]byte(m.raw), data[off:off+len(m.raw)]) {
				t.Fatalf("read bytes %d..%d other than the stream's", off, off+len(m.raw))
			}
			off += len(m.raw)
			held -= counted
			if held != r.held {
				t.Fatalf("counting %d bytes, the buffer takes %d", held, r.held)
			}
		}
	})
}
