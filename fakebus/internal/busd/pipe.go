package busd

import (
	"io"
	"sync"
)

// pipeLimit is how many bytes one direction of a Pipe buffers before Write
// blocks.
const pipeLimit = 16 << 20

// Pipe returns the client end of a new in-memory buffered duplex pipe whose
// server end b serves in the given mode. A godbus client uses it with
// dbus.NewConn(rwc), then Auth (and Hello in BusMode).
//
// Write blocks only while the peer has pipeLimit bytes unread. After either
// end is closed, the other end's Read returns io.EOF once it has drained
// what was written, and Writes at both ends fail.
func (b *Bus) Pipe(mode Mode) io.ReadWriteCloser {
	client, server := newPipe()
	b.serve(server, mode, cred{})
	return client
}

// newPipe returns the two ends of an in-memory duplex pipe.
func newPipe() (a, b *pipeEnd) {
	x, y := newPipeBuffer(), newPipeBuffer()
	return &pipeEnd{r: x, w: y}, &pipeEnd{r: y, w: x}
}

// pipeEnd is one end of a duplex pipe.
type pipeEnd struct {
	r *pipeBuffer // what the other end wrote
	w *pipeBuffer // what this end writes
}

func (e *pipeEnd) Read(p []byte) (int, error)  { return e.r.read(p) }
func (e *pipeEnd) Write(p []byte) (int, error) { return e.w.write(p) }

// Close closes both directions. It never blocks for long and is idempotent.
func (e *pipeEnd) Close() error {
	e.r.close(true)
	e.w.close(false)
	return nil
}

// pipeBuffer is one direction of a pipe: a byte queue with blocking reads
// and bounded writes.
type pipeBuffer struct {
	mu       sync.Mutex // guards all fields below
	readable sync.Cond  // signalled when data arrives or the buffer closes
	writable sync.Cond  // signalled when space frees up or the buffer closes
	buf      []byte     // unread data is buf[off:]
	off      int
	wclosed  bool // the writing end closed: reads drain, then io.EOF
	rclosed  bool // the reading end closed: reads and writes fail
}

func newPipeBuffer() *pipeBuffer {
	pb := &pipeBuffer{}
	pb.readable.L = &pb.mu
	pb.writable.L = &pb.mu
	return pb
}

func (pb *pipeBuffer) read(p []byte) (int, error) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	for pb.off == len(pb.buf) && !pb.wclosed && !pb.rclosed {
		pb.readable.Wait()
	}
	if pb.rclosed {
		return 0, io.ErrClosedPipe
	}
	if pb.off == len(pb.buf) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	wasFull := len(pb.buf)-pb.off >= pipeLimit
	n := copy(p, pb.buf[pb.off:])
	pb.off += n
	if pb.off == len(pb.buf) {
		pb.off = 0
		pb.buf = pb.buf[:0]
		if cap(pb.buf) > 1<<20 {
			pb.buf = nil // do not pin a burst's memory
		}
	}
	if wasFull {
		pb.writable.Broadcast()
	}
	return n, nil
}

func (pb *pipeBuffer) write(p []byte) (int, error) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	n := 0
	for len(p) > 0 {
		if pb.rclosed || pb.wclosed {
			return n, io.ErrClosedPipe
		}
		free := pipeLimit - (len(pb.buf) - pb.off)
		if free <= 0 {
			pb.writable.Wait()
			continue
		}
		chunk := p[:min(free, len(p))]
		if pb.off > 0 && len(pb.buf)+len(chunk) > cap(pb.buf) {
			// Reuse the consumed front instead of growing.
			m := copy(pb.buf, pb.buf[pb.off:])
			pb.buf = pb.buf[:m]
			pb.off = 0
		}
		wasEmpty := pb.off == len(pb.buf)
		pb.buf = append(pb.buf, chunk...)
		n += len(chunk)
		p = p[len(chunk):]
		if wasEmpty {
			pb.readable.Broadcast() // readers only wait on an empty buffer
		}
	}
	return n, nil
}

// close marks the buffer closed by its reading end (reader) or its writing
// end (!reader) and wakes everybody.
func (pb *pipeBuffer) close(reader bool) {
	pb.mu.Lock()
	if reader {
		pb.rclosed = true
		pb.buf, pb.off = nil, 0
	} else {
		pb.wclosed = true
	}
	pb.readable.Broadcast()
	pb.writable.Broadcast()
	pb.mu.Unlock()
}
