// Package compactjson reads JSON text in one pass, as encoding/json's
// Valid and Compact read it, without their scanner's cost: for the request
// lines and args referee writes and reads.
package compactjson

import (
	"bytes"
	"unicode/utf8"
)

// maxDepth is the most containers json.Valid allows open at once.
const maxDepth = 10000

// Is reports whether b is one JSON value (RFC 8259) in UTF-8 with no
// whitespace outside its strings: what json.Valid(b) && utf8.Valid(b) say
// of a b with no such whitespace. Like json.Valid it reads escapes without
// judging what they spell (a lone surrogate is fine) and allows at most
// 10,000 containers open at once.
func Is(b []byte) bool {
	_, ok := scan(nil, b, false)
	return ok
}

// Append appends b without the whitespace outside its strings, when b is
// one JSON value in UTF-8 as Is reads it but for that whitespace: what
// json.Compact appends of such a b. ok is false, and dst as it came, for
// any other b.
func Append(dst, b []byte) ([]byte, bool) {
	out, ok := scan(dst, b, true)
	if !ok {
		return dst, false
	}
	return out, true
}

// scan reads b; with space, whitespace between tokens is allowed and left
// out of what it appends to dst (without, dst is not written).
func scan(dst, b []byte, space bool) ([]byte, bool) {
	var stackBuf [64]byte
	open := stackBuf[:0] // '[' or '{' for each open container
	i := 0
	// skip passes whitespace; false when there is some and space is false.
	skip := func() bool {
		j := i
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j++
		}
		if j > i && !space {
			return false
		}
		i = j
		return true
	}
	// token appends b[from:i] when writing.
	token := func(from int) {
		if space {
			dst = append(dst, b[from:i]...)
		}
	}
	// key reads an object's member name and its colon.
	key := func() bool {
		if !skip() {
			return false
		}
		start := i
		if i = stringEnd(b, i); i < 0 {
			return false
		}
		token(start)
		if !skip() || i >= len(b) || b[i] != ':' {
			return false
		}
		i++
		token(i - 1)
		return true
	}
	for {
		// A value starts at i, after whitespace.
		if !skip() || i >= len(b) {
			return dst, false
		}
		start := i
		switch c := b[i]; {
		case c == '[' || c == '{':
			if len(open) == maxDepth {
				return dst, false
			}
			open = append(open, c)
			i++
			token(start)
			if !skip() {
				return dst, false
			}
			if i < len(b) && b[i] == c+2 { // ] or }: empty
				open = open[:len(open)-1]
				i++
				token(i - 1)
				break
			}
			if c == '{' && !key() {
				return dst, false
			}
			continue
		case c == '"':
			if i = stringEnd(b, i); i < 0 {
				return dst, false
			}
			token(start)
		case c == '-' || '0' <= c && c <= '9':
			if i = numberEnd(b, i); i < 0 {
				return dst, false
			}
			token(start)
		case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
			i += 4
			token(start)
		case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
			i += 5
			token(start)
		case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
			i += 4
			token(start)
		default:
			return dst, false
		}
		// A value ended at i: close containers, or go on to the next value.
		for {
			if !skip() {
				return dst, false
			}
			if len(open) == 0 {
				return dst, i == len(b)
			}
			if i >= len(b) {
				return dst, false
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				token(i - 1)
				continue
			}
			if b[i] != ',' {
				return dst, false
			}
			i++
			token(i - 1)
			if top == '{' && !key() {
				return dst, false
			}
			break
		}
	}
}

// stringEnd returns the index just past the JSON string token at b[i],
// valid UTF-8 with valid escapes, or -1.
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	i++
	for {
		start := i
		for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
			i++
		}
		if !utf8.Valid(b[start:i]) || i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default:
			return -1 // a control character
		}
	}
}

// numberEnd returns the index just past the JSON number token at b[i], or
// -1.
func numberEnd(b []byte, i int) int {
	digits := func() bool {
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return -1
		}
	}
	return i
}
