package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// HeaderSize is the length in bytes of a frame header.
const HeaderSize = 4

// maxU32 is the largest payload length a header can declare.
const maxU32 = math.MaxUint32

var (
	// ErrTruncatedHeader reports fewer than HeaderSize bytes where a header should be.
	ErrTruncatedHeader = errors.New("frame: truncated header")
	// ErrTruncatedBody reports a body shorter than its declared length.
	ErrTruncatedBody = errors.New("frame: truncated body")
	// ErrTooLarge reports a declared or given length that exceeds the maximum.
	ErrTooLarge = errors.New("frame: length exceeds maximum")
)

// Error describes a framing failure at a byte offset.
type Error struct {
	Offset   int64 // Offset is the byte offset of the header of the frame that failed.
	Declared int64 // Declared is the declared (or given) payload length, or -1 if unknown.
	Max      int   // Max is the effective maximum payload length in force.
	Err      error // Err is the underlying cause, usually one of the Err* sentinels.
}

// Error returns a description of the failure that names its offset.
func (e *Error) Error() string {
	var detail string
	switch {
	case errors.Is(e.Err, ErrTooLarge):
		detail = fmt.Sprintf("declared length %d exceeds maximum %d", e.Declared, e.Max)
	case errors.Is(e.Err, ErrTruncatedBody):
		detail = fmt.Sprintf("truncated body (declared length %d)", e.Declared)
	case e.Err != nil:
		detail = strings.TrimPrefix(e.Err.Error(), "frame: ")
	default:
		detail = "unknown error"
	}
	return fmt.Sprintf("frame: at offset %d: %s", e.Offset, detail)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// limit returns the effective maximum payload length for max: max itself if
// positive and representable, otherwise the largest length a header can
// declare (capped at math.MaxInt on 32-bit platforms).
func limit(max int) int64 {
	lim := int64(maxU32)
	if int64(math.MaxInt) < lim {
		lim = int64(math.MaxInt)
	}
	if max > 0 && int64(max) < lim {
		lim = int64(max)
	}
	return lim
}

// Append appends the frame for payload to dst and returns the extended slice.
// A payload longer than max is an *Error wrapping ErrTooLarge whose Offset is
// len(dst), and dst is returned unchanged.
func Append(dst, payload []byte, max int) ([]byte, error) {
	lim := limit(max)
	if int64(len(payload)) > lim {
		return dst, &Error{Offset: int64(len(dst)), Declared: int64(len(payload)), Max: int(lim), Err: ErrTooLarge}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...), nil
}

// Encode returns the frame for payload in a new slice; see Append.
func Encode(payload []byte, max int) ([]byte, error) {
	if int64(len(payload)) > limit(max) {
		return Append(nil, payload, max)
	}
	return Append(make([]byte, 0, HeaderSize+len(payload)), payload, max)
}

// Split takes one frame from the front of b, returning its payload and the
// bytes after it. The payload aliases b. Errors are *Error with Offset 0.
func Split(b []byte, max int) (payload, rest []byte, err error) {
	return split(b, max, 0)
}

// split is Split with errors reported at offset base.
func split(b []byte, max int, base int64) (payload, rest []byte, err error) {
	if len(b) < HeaderSize {
		return nil, b, &Error{Offset: base, Declared: -1, Max: int(limit(max)), Err: ErrTruncatedHeader}
	}
	n := int64(binary.BigEndian.Uint32(b))
	if lim := limit(max); n > lim {
		return nil, b, &Error{Offset: base, Declared: n, Max: int(lim), Err: ErrTooLarge}
	}
	body := b[HeaderSize:]
	if int64(len(body)) < n {
		return nil, b, &Error{Offset: base, Declared: n, Max: int(limit(max)), Err: ErrTruncatedBody}
	}
	return body[:n:n], body[n:], nil
}

// DecodeAll returns every frame payload in b, in order. The payloads alias b.
// On failure it returns the payloads decoded before the broken frame and an
// *Error whose Offset is that frame's offset within b. An empty b holds no
// frames and is not an error.
func DecodeAll(b []byte, max int) ([][]byte, error) {
	var out [][]byte
	var off int64
	for len(b) > 0 {
		p, rest, err := split(b, max, off)
		if err != nil {
			return out, err
		}
		out = append(out, p)
		off += int64(len(b) - len(rest))
		b = rest
	}
	return out, nil
}
