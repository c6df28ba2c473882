package busd

import (
	"bytes"
	"errors"
	"io"
)

// A connection's input: a buffer that grows with the bytes that arrived,
// never with the length a message announces, and the accounting of what
// the connection holds against Limits.MaxIncomingBytes and
// Limits.MaxTotalIncomingBytes.

const (
	// minBuffer is a connection's first read buffer; it doubles, up to
	// readAhead, while reads fill it.
	minBuffer = 4 << 10
	// readAhead is how far the buffer grows for messages that fit in it;
	// a bigger message gets a buffer of its own, grown as it arrives.
	readAhead = 64 << 10
)

// errLimit ends a connection that passed a limit (already reported).
var errLimit = errors.New("busd: limit exceeded")

// reader is a connection's buffered input. Only the connection's reader
// goroutine uses it.
type reader struct {
	rd  io.Reader
	buf []byte
	r   int // unread data is buf[r:w]
	w   int
	err error // the error that ended reading, returned once buf[r:w] is used up

	// charge counts n more (or, negative, fewer) bytes held by the
	// connection; it reports false when that passed a limit (the
	// connection is then closed). nil: no accounting (fuzzing, tests).
	charge func(n int) bool
	// held is what is counted for buf.
	held int
	// grow: the last read filled the buffer; the next one gets a bigger
	// one (up to readAhead).
	grow bool

	// authBuffer, when positive, makes reads take what sd-bus's
	// authentication reads take (Config.PeerAuthBuffer): at most
	// max(authBuffer, 2×authRead) bytes in all, authRead being what was
	// read since authBuffer was set. short tells that the last read
	// returned less than it asked for: nothing more was waiting.
	authBuffer int
	authRead   int
	short      bool
}

func newReader(rd io.Reader, charge func(int) bool) *reader {
	return &reader{rd: rd, charge: charge}
}

// Buffered returns how many bytes were read and not yet used.
func (r *reader) Buffered() int { return r.w - r.r }

// setBuf replaces the buffer, keeping the unread bytes, and counts the
// change in size.
func (r *reader) setBuf(size int) bool {
	if r.charge != nil && size > r.held {
		if !r.charge(size - r.held) {
			return false
		}
		r.held = size
	}
	nb := make([]byte, size)
	r.w = copy(nb, r.buf[r.r:r.w])
	r.r = 0
	r.buf = nb
	r.release()
	return true
}

// release stops counting what the buffer no longer takes.
func (r *reader) release() {
	if r.charge != nil && r.held > len(r.buf) {
		r.charge(len(r.buf) - r.held)
		r.held = len(r.buf)
	}
}

// fill reads at least once more into the buffer so that it holds want
// bytes at most (it returns once anything arrived). The buffer grows, if
// it must, to at most twice what it held, and never beyond want.
func (r *reader) fill(want int) error {
	if r.err != nil {
		return r.err
	}
	if r.buf == nil {
		if !r.setBuf(minBuffer) {
			return errLimit
		}
	}
	if r.w == len(r.buf) {
		switch {
		case r.r == 0 || r.grow && len(r.buf) < readAhead:
			// Full of unread bytes (a message longer than the buffer),
			// or the last read filled it: grow with what arrived.
			size := min(2*len(r.buf), max(want, readAhead))
			if size <= len(r.buf) {
				return errors.New("busd: reader buffer cannot grow") // cannot happen: want > unread
			}
			if !r.setBuf(size) {
				return errLimit
			}
		default:
			r.w = copy(r.buf, r.buf[r.r:r.w])
			r.r = 0
		}
	}
	end := len(r.buf)
	if r.authBuffer > 0 {
		end = min(end, r.w+max(r.authBuffer, 2*r.authRead)-r.authRead)
	}
	n, err := r.rd.Read(r.buf[r.w:end])
	r.grow = n > 0 && r.w+n == len(r.buf)
	if r.authBuffer > 0 {
		r.short = r.w+n < end
		r.authRead += n
	}
	r.w += n
	if err != nil {
		r.err = err
		if n > 0 {
			return nil
		}
		return err
	}
	return nil // callers loop until they have what they need
}

// ensure makes buf[r.r:r.r+n] hold n bytes.
func (r *reader) ensure(n int) error {
	for r.w-r.r < n {
		if err := r.fill(n); err != nil {
			return err
		}
	}
	return nil
}

// ReadByte returns the next byte.
func (r *reader) ReadByte() (byte, error) {
	if err := r.ensure(1); err != nil {
		return 0, err
	}
	r.r++
	return r.buf[r.r-1], nil
}

// readLine returns the next line, '\n' included, valid until the next
// read. A line longer than max bytes is an error.
func (r *reader) readLine(max int) ([]byte, error) {
	scanned := 0
	for {
		if i := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); i >= 0 {
			line := r.buf[r.r : r.r+scanned+i+1]
			r.r += scanned + i + 1
			return line, nil
		}
		scanned = r.w - r.r
		if scanned >= max {
			return nil, errors.New("busd: line too long")
		}
		if err := r.fill(max); err != nil {
			return nil, err
		}
	}
}

// shrink gives back a buffer grown beyond readAhead once what it holds
// fits in a normal one.
func (r *reader) shrink() {
	if len(r.buf) > readAhead && r.w-r.r <= readAhead/2 {
		r.setBuf(readAhead)
	}
}

// message reads the next message whole and returns its bytes, and how
// many bytes it counted for them (they stay counted until uncounted by
// the caller). A message bigger than maxSize is refused from its first 16
// bytes.
func (r *reader) message(maxSize int) (raw string, counted int, err error) {
	if err := r.ensure(16); err != nil {
		return "", 0, err
	}
	fixed := r.buf[r.r : r.r+16]
	big := fixed[0] == 'B'
	if !big && fixed[0] != 'l' {
		return "", 0, decodeError("invalid byte order")
	}
	bodyLen := uint64(get32(fixed[4:8], big))
	fieldsLen := uint64(get32(fixed[12:16], big))
	total := 16 + (fieldsLen+7)&^7 + bodyLen
	switch {
	case total > uint64(maxSize):
		return "", 0, &tooBigError{size: total}
	case fieldsLen > maxArrayLen:
		// Within the size limit, but no array may be that long: an
		// invalid message, not one too big.
		return "", 0, decodeError("header fields array too long")
	}
	n := int(total)
	if n <= readAhead {
		if err := r.ensure(n); err != nil {
			return "", 0, noEOF(err)
		}
		raw = string(r.buf[r.r : r.r+n])
		r.r += n
		if r.charge != nil && !r.charge(n) {
			return "", 0, errLimit
		}
		return raw, n, nil
	}
	// A big message: read it into a buffer that grows as it arrives,
	// copy it out, and go back to a normal buffer.
	for r.w-r.r < n {
		if err := r.fill(n); err != nil {
			return "", 0, noEOF(err)
		}
	}
	raw = string(r.buf[r.r : r.r+n])
	r.r += n
	if r.charge != nil && !r.charge(n) {
		return "", 0, errLimit
	}
	r.shrink()
	return raw, n, nil
}

// tooBigError is a message announcing more than Limits.MaxMessageSize.
type tooBigError struct{ size uint64 }

func (e *tooBigError) Error() string { return "busd: message too long" }
