// Package jsonstring holds the bytes of a JSON string as referee's readers
// and writers see them: which stand for themselves (Plain, PlainEnd), the
// escape of the others (AppendEscape), and a string written as
// encoding/json writes it, without reflection (Append), for the files and
// request lines referee writes a member at a time.
package jsonstring

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// Append appends s as encoding/json writes a string without HTML escaping
// (json.Encoder.SetEscapeHTML(false)): quoted, with " and \ escaped,
// controls as \b \f \n \r \t or \u00XX, U+2028 and U+2029 as \u2028 and
// \u2029, each byte that begins no UTF-8 character as \ufffd, and every
// other character as it is. Runs of characters that need no escape are
// copied whole.
func Append(b []byte, s string) []byte {
	b = append(slices.Grow(b, len(s)+2), '"')
	start := 0
	for i := 0; i < len(s); {
		if i = PlainEnd(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = AppendEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		// A run of bytes beyond ASCII is copied whole when it is valid
		// UTF-8 and holds neither U+2028 nor U+2029; else it is taken a
		// character at a time.
		j := i + 1
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		if run := s[i:j]; utf8.ValidString(run) && !hasLineSeparator(run) {
			i = j
			continue
		}
		for i < j {
			n := runeLen(s, i)
			switch {
			case n == 0:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i++
			case n == 3 && s[i] == 0xE2 && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9):
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', "89"[s[i+2]-0xA8])
				i += 3
			default:
				i += n
				continue
			}
			start = i
		}
	}
	return append(append(b, s[start:]...), '"')
}

// PlainEnd returns the end of the run of bytes of s from i on that a JSON
// string holds as they are, read or written: ASCII from U+0020 but " and
// \. It takes eight bytes at a time while it can.
func PlainEnd(s string, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		quote, backslash := x^(ones*'"'), x^(ones*'\\')
		// The high bit of each byte below 0x20, quote, backslash or of
		// 0x80 and above; exact for the lowest such byte, which is the
		// one wanted (a borrow only flags bytes above it).
		if m := ((x - ones*0x20) | ((quote - ones) &^ quote) | ((backslash - ones) &^ backslash) | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// Plain reports whether the byte c stands for itself in a JSON string,
// read or written: ASCII from U+0020 but " and \.
func Plain(c byte) bool { return plain[c] }

// plain is Plain as a table, laid out as data (TestTables holds it to the
// rule), so initialisation runs no code.
var plain = [256]bool{
	0x20: true, true, false, true, true, true, true, true, true, true, true, true, true, true, true, true,
	true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true,
	true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true,
	true, true, true, true, true, true, true, true, true, true, true, true, false, true, true, true,
	true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true,
	true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true,
}

// AppendEscape appends the escape of c, an ASCII byte that is not Plain,
// as encoding/json and RFC 8785 write it: \" \\ \b \f \n \r \t, or
// \u00xx in lowercase hex.
func AppendEscape(b []byte, c byte) []byte {
	if esc := shortEscape[c&0x7F]; esc != 'u' {
		return append(b, '\\', esc)
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// shortEscape holds the letter of the two-character escape of an ASCII
// byte, 'u' for the other control characters and 0 for plain bytes.
var shortEscape = [128]byte{
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
	'"': '"', '\\': '\\',
}

// hasLineSeparator reports whether s holds U+2028 or U+2029
// (E2 80 A8, E2 80 A9).
func hasLineSeparator(s string) bool {
	for {
		k := strings.Index(s, "\xe2\x80")
		if k < 0 || k+2 >= len(s) {
			return false
		}
		if s[k+2] == 0xA8 || s[k+2] == 0xA9 {
			return true
		}
		s = s[k+2:]
	}
}

// runeLen is the length of the UTF-8 encoding of a character other than
// ASCII at s[i:]: 2, 3 or 4, or 0 when s[i] begins none (as
// utf8.DecodeRuneInString decides: no overlong form, surrogate or code
// point above U+10FFFF).
func runeLen(s string, i int) int {
	cont := func(k int) bool { return i+k < len(s) && s[i+k]&0xC0 == 0x80 }
	in := func(k int, lo, hi byte) bool { return i+k < len(s) && lo <= s[i+k] && s[i+k] <= hi }
	switch c := s[i]; {
	case 0xC2 <= c && c <= 0xDF:
		if cont(1) {
			return 2
		}
	case c == 0xE0:
		if in(1, 0xA0, 0xBF) && cont(2) {
			return 3
		}
	case c == 0xED:
		if in(1, 0x80, 0x9F) && cont(2) {
			return 3
		}
	case 0xE1 <= c && c <= 0xEF:
		if cont(1) && cont(2) {
			return 3
		}
	case c == 0xF0:
		if in(1, 0x90, 0xBF) && cont(2) && cont(3) {
			return 4
		}
	case c == 0xF4:
		if in(1, 0x80, 0x8F) && cont(2) && cont(3) {
			return 4
		}
	case 0xF1 <= c && c <= 0xF3:
		if cont(1) && cont(2) && cont(3) {
			return 4
		}
	}
	return 0
}

const hexDigits = "0123456789abcdef"
