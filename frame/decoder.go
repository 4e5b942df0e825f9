package frame

import (
	"encoding/binary"
	"errors"
	"io"
)

// readChunk bounds how much body buffer is allocated ahead of the bytes
// actually received, so a large declared length that is never delivered
// costs little memory.
const readChunk = 1 << 20

// Decoder reads frames from a stream.
//
// A Decoder reads exactly the bytes of each frame from its reader and never
// reads ahead; wrap the reader in a bufio.Reader if small reads are costly.
// After an error other than io.EOF the stream is out of step and every later
// call to Next returns the same error.
type Decoder struct {
	r   io.Reader
	lim int64
	off int64
	err error
	hdr [HeaderSize]byte
}

// NewDecoder returns a Decoder reading from r that rejects payloads longer
// than max (max <= 0 means 0xFFFFFFFF).
func NewDecoder(r io.Reader, max int) *Decoder {
	return &Decoder{r: r, lim: limit(max)}
}

// Next returns the next payload in a newly allocated slice.
//
// It returns io.EOF exactly when the stream ends cleanly between frames. A
// stream ending inside a header is an *Error wrapping ErrTruncatedHeader, and
// inside a body an *Error wrapping ErrTruncatedBody; a declared length over
// the maximum is an *Error wrapping ErrTooLarge, reported before any body
// byte is read. Other read errors are returned wrapped in an *Error. The
// Offset of an *Error is the stream offset of the failing frame's header.
func (d *Decoder) Next() ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	start := d.off
	n, err := io.ReadFull(d.r, d.hdr[:])
	d.off += int64(n)
	switch {
	case err == nil:
	case n == 0 && isEOF(err):
		d.err = io.EOF
		return nil, io.EOF
	case isEOF(err):
		return nil, d.fail(start, -1, ErrTruncatedHeader)
	default:
		return nil, d.fail(start, -1, err)
	}
	declared := int64(binary.BigEndian.Uint32(d.hdr[:]))
	if declared > d.lim {
		return nil, d.fail(start, declared, ErrTooLarge)
	}
	body, err := d.readBody(int(declared))
	if err != nil {
		if isEOF(err) {
			err = ErrTruncatedBody
		}
		return nil, d.fail(start, declared, err)
	}
	return body, nil
}

// Offset returns the number of bytes consumed from the reader so far.
func (d *Decoder) Offset() int64 { return d.off }

// fail records and returns an *Error for the frame starting at start.
func (d *Decoder) fail(start, declared int64, err error) error {
	d.err = &Error{Offset: start, Declared: declared, Max: int(d.lim), Err: err}
	return d.err
}

// readBody reads an n-byte body, growing its buffer only as bytes arrive.
func (d *Decoder) readBody(n int) ([]byte, error) {
	buf := make([]byte, min(n, readChunk))
	got := 0
	for {
		m, err := io.ReadFull(d.r, buf[got:])
		got += m
		d.off += int64(m)
		if err != nil {
			return nil, err
		}
		if got == n {
			return buf, nil
		}
		grow := min(len(buf), n-len(buf))
		buf = append(buf, make([]byte, grow)...)
	}
}

// isEOF reports whether err means the stream ended.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
