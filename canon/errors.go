package canon

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error from this package unwraps to one of them.
var (
	// ErrSyntax reports input that is not JSON text.
	ErrSyntax = errors.New("canon: syntax error")
	// ErrInvalidUTF8 reports bytes that are not valid UTF-8.
	ErrInvalidUTF8 = errors.New("canon: invalid UTF-8")
	// ErrDuplicateKey reports an object key that occurs more than once.
	ErrDuplicateKey = errors.New("canon: duplicate key")
	// ErrTrailingData reports non-whitespace input after the top-level value.
	ErrTrailingData = errors.New("canon: trailing data")
	// ErrNonFinite reports a NaN or infinite number.
	ErrNonFinite = errors.New("canon: non-finite number")
	// ErrDepth reports nesting deeper than allowed.
	ErrDepth = errors.New("canon: nesting too deep")
	// ErrTooMany reports more values than ReadOptions.MaxValues allows.
	ErrTooMany = errors.New("canon: too many values")
	// ErrNumberRange reports a number whose magnitude the profile cannot represent.
	ErrNumberRange = errors.New("canon: number out of range")
	// ErrNotInteger reports a number that an integer-only profile cannot write.
	ErrNotInteger = errors.New("canon: number is not an integer")
	// ErrLoneSurrogate reports a string holding an unpaired UTF-16 surrogate.
	ErrLoneSurrogate = errors.New("canon: lone surrogate")
	// ErrUnsupportedType reports a Go value or Value that cannot be written as JSON.
	ErrUnsupportedType = errors.New("canon: unsupported type")
)

// sentinelText is the text of a sentinel without the package prefix.
func sentinelText(err error) string {
	if err == nil {
		return "error"
	}
	return strings.TrimPrefix(err.Error(), "canon: ")
}

// SyntaxError is a Parse failure at a byte offset of the input.
type SyntaxError struct {
	Offset int64  // byte offset in the input where the problem is
	Err    error  // one of the sentinel errors
	Msg    string // detail
}

// Error returns the message with its offset.
func (e *SyntaxError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = sentinelText(e.Err)
	}
	return "canon: " + msg + " at offset " + strconv.FormatInt(e.Offset, 10)
}

// Unwrap returns the sentinel error.
func (e *SyntaxError) Unwrap() error { return e.Err }

// ValueError is a writer failure at a position in a value.
type ValueError struct {
	Path string // RFC 6901 JSON Pointer of the offending value, "" for the root
	Err  error  // one of the sentinel errors
	Msg  string // detail
}

// Error returns the message with its JSON Pointer, if any.
func (e *ValueError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = sentinelText(e.Err)
	}
	if e.Path == "" {
		return "canon: " + msg
	}
	return "canon: " + e.Path + ": " + msg
}

// Unwrap returns the sentinel error.
func (e *ValueError) Unwrap() error { return e.Err }

// appendPointerToken appends "/" and the RFC 6901 escape of tok to dst.
func appendPointerToken(dst []byte, tok string) []byte {
	dst = append(dst, '/')
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
