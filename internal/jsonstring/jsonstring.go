// Package jsonstring writes a string as encoding/json writes it, without
// reflection: for the files and request lines referee writes a member at a
// time.
package jsonstring

import (
	"slices"
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
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

const hexDigits = "0123456789abcdef"
