// Package mutant writes JSON the ways broken canonicalisers do: wrong key
// order, wrong number formats, wrong escapes. Suites build their
// deliberately broken built-in adapters from it, to prove that each check can fail.
package mutant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
)

// Keys is a key order.
type Keys uint8

// The key orders.
const (
	UTF16     Keys = iota // right for RFC 8785: by UTF-16 code units
	CodePoint             // by code point, i.e. UTF-8 bytes
	Unsorted              // input order
	Shallow               // only the top-level object sorted (by UTF-16)
)

// Numbers is a number format.
type Numbers uint8

// The number formats.
const (
	ES6     Numbers = iota // right for RFC 8785: ECMAScript Number::toString
	GoFloat                // strconv 'g': 1e+06, 1e-07
	Plain                  // strconv 'f': never an exponent
	Lexeme                 // the input lexeme as it stands
)

// Strings is a string escaping style.
type Strings uint8

// The escaping styles.
const (
	Minimal  Strings = iota // right for RFC 8785: JSON.stringify's escapes, all else raw
	HTML                    // Go encoding/json: \u003c \u003e \u0026 \u2028 \u2029
	ASCII                   // every non-ASCII character as \uXXXX
	UpperHex                // control escapes in uppercase hex: \u001F
	Long                    // \u0008 for \b and so on
	Slash                   // "/" as \/
)

// Surrogates is a policy for lone surrogates.
type Surrogates uint8

// The lone-surrogate policies.
const (
	Reject      Surrogates = iota // an error, as RFC 8785 requires
	Escape                        // \udxxx, as ES2019 JSON.stringify writes
	EscapeUpper                   // \uDXXX
)

// Writer is one way of writing JSON; its zero value writes RFC 8785.
type Writer struct {
	Keys         Keys
	Numbers      Numbers
	Strings      Strings
	Surrogates   Surrogates
	OverflowNull bool // write null for numbers beyond double range
	// DropProto leaves out members named __proto__, as JavaScript code that
	// copies members into a plain object (o[k] = v) does: the assignment
	// sets the object's prototype instead of adding a member.
	DropProto bool
}

// Append appends v written w's way to dst.
func (w Writer) Append(dst []byte, v canon.Value) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	if err := w.write(b, v, 0); err != nil {
		return dst, err
	}
	return b.Bytes(), nil
}

func (w Writer) write(b *bytes.Buffer, v canon.Value, depth int) error {
	switch v.Kind {
	case canon.Null:
		b.WriteString("null")
	case canon.Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case canon.Number:
		return w.number(b, v.Num)
	case canon.String:
		return w.string(b, v.Str)
	case canon.Array:
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := w.write(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case canon.Object:
		members := slices.Clone(v.Members)
		if w.DropProto {
			members = slices.DeleteFunc(members, func(m canon.Member) bool { return m.Key == "__proto__" })
		}
		switch {
		case w.Keys == Unsorted || (w.Keys == Shallow && depth > 0):
		case w.Keys == CodePoint:
			slices.SortFunc(members, func(x, y canon.Member) int { return cmpBytes(x.Key, y.Key) })
		default:
			slices.SortFunc(members, func(x, y canon.Member) int { return slices.Compare(units(x.Key), units(y.Key)) })
		}
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := w.string(b, m.Key); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := w.write(b, m.Value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	return nil
}

func cmpBytes(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// units returns s as UTF-16 code units, a WTF-8 lone surrogate as itself.
func units(s string) []uint16 {
	var out []uint16
	for i := 0; i < len(s); {
		if u, ok := loneSurrogate(s[i:]); ok {
			out = append(out, u)
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		out = utf16.AppendRune(out, r)
		i += n
	}
	return out
}

// loneSurrogate decodes a WTF-8 surrogate (ED A0..BF xx) at the start of s.
func loneSurrogate(s string) (uint16, bool) {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2]&0xC0 != 0x80 {
		return 0, false
	}
	return uint16(0xD000 | uint16(s[1]&0x3F)<<6 | uint16(s[2]&0x3F)), true
}

func (w Writer) number(b *bytes.Buffer, lexeme string) error {
	if w.Numbers == Lexeme {
		b.WriteString(lexeme)
		return nil
	}
	f, err := strconv.ParseFloat(lexeme, 64)
	if math.IsInf(f, 0) {
		if w.OverflowNull {
			b.WriteString("null")
			return nil
		}
		return fmt.Errorf("mutant: number %s: %w", lexeme, canon.ErrNumberRange)
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return err
	}
	switch w.Numbers {
	case GoFloat:
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case Plain:
		b.WriteString(strconv.FormatFloat(f, 'f', -1, 64))
	default:
		s, err := canon.FormatES6(f)
		if err != nil {
			return err
		}
		b.WriteString(s)
	}
	return nil
}

func (w Writer) string(b *bytes.Buffer, s string) error {
	if w.Strings == HTML {
		out, err := json.Marshal(s)
		b.Write(out)
		return err
	}
	profile := canon.JCS
	if w.Surrogates != Reject {
		profile = canon.JSONStringify
	}
	out, err := profile.Marshal(s)
	if err != nil {
		return err
	}
	if w.Surrogates == EscapeUpper {
		out = upperSurrogates(out)
	}
	switch w.Strings {
	case ASCII:
		out = asciiOnly(out)
	case UpperHex:
		out = upperHex(out)
	case Long:
		for _, r := range []struct{ short, long string }{{`\b`, `\u0008`}, {`\t`, `\u0009`}, {`\n`, `\u000a`}, {`\f`, `\u000c`}, {`\r`, `\u000d`}} {
			out = replaceEscape(out, r.short, r.long)
		}
	case Slash:
		out = bytes.ReplaceAll(out, []byte("/"), []byte(`\/`))
	}
	b.Write(out)
	return nil
}

// replaceEscape replaces the two-byte escape old with new, skipping other escapes.
func replaceEscape(s []byte, old, new string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if string(s[i:i+2]) == old {
				b.WriteString(new)
			} else {
				b.Write(s[i : i+2])
			}
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.Bytes()
}

func asciiOnly(s []byte) []byte {
	var b bytes.Buffer
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r < utf8.RuneSelf {
			b.WriteByte(s[0])
		} else {
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		}
		s = s[n:]
	}
	return b.Bytes()
}

// eachUEscape calls f on the four hex digits of every \uXXXX escape in s.
func eachUEscape(s []byte, f func(hex []byte)) []byte {
	out := slices.Clone(s)
	for i := 0; i+5 < len(out); i++ {
		if out[i] == '\\' && out[i+1] == 'u' {
			f(out[i+2 : i+6])
			i += 5
		} else if out[i] == '\\' {
			i++
		}
	}
	return out
}

func upperHex(s []byte) []byte {
	return eachUEscape(s, func(h []byte) { copy(h, bytes.ToUpper(h)) })
}

func upperSurrogates(s []byte) []byte {
	return eachUEscape(s, func(h []byte) {
		if h[0] == 'd' {
			copy(h, bytes.ToUpper(h))
		}
	})
}
