package fuzz

import (
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/jsongen"
)

// textTokens are what Mutate inserts into text: JSON's structural
// characters, broken escapes and numbers, literals JSON does not have, and
// characters that look like whitespace but are not JSON's.
var textTokens = []string{
	",", ":", "[", "]", "{", "}", `"`, `\`, `\u`, `\ud800`, `\x41`, `\'`, "0", "-", ".", "e", "E+", "01", "+1",
	".5", "5.", "1e", "1e400", "NaN", "Infinity", "-Infinity", "true", "nul", "null", "undefined", " ", "\t",
	"\v", "\f", "\u00a0", "\ufeff", "\u2028", "\x00", "\x1f", "/*x*/", "//", "'", "0x1F", ",,", `"a":1`, "[]",
	"{}", `""`, "\n", "\r",
}

// byteTokens are what Mutate inserts into bytes as well: sequences that
// are not UTF-8 (overlong, a surrogate, truncated, stray continuation) and
// a byte-order mark.
var byteTokens = []string{"\xff", "\xfe", "\xc0\x80", "\xc1\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xe2\x82", "\x80", "\xf4\x90\x80\x80", "\xef\xbb\xbf"}

// Mutate returns in changed: half the time, when in is JSON, by one
// structural edit (MutateJSON); else by one to four byte-level edits: a
// span deleted, duplicated or replaced, a token inserted, two units
// swapped, the end cut off, and, for bytes, a bit flipped, a sequence that
// is not UTF-8, or the whole text in UTF-16 or UTF-32 (Reencode). With
// text, units are characters and the result stays UTF-8.
func Mutate(r *rand.Rand, in []byte, text bool) []byte {
	if r.IntN(2) == 0 {
		if out, ok := MutateJSON(r, in); ok {
			return out
		}
	}
	if !text && r.IntN(10) == 0 {
		return Reencode(r, in)
	}
	// The units are slices of one copy of in: a character each (a byte
	// that begins none is U+FFFD) with text, else a byte each.
	s := string(in)
	var units []string
	switch {
	case !text:
		units = make([]string, len(s))
		for i := range units {
			units[i] = s[i : i+1]
		}
	case utf8.ValidString(s):
		units = make([]string, 0, utf8.RuneCountInString(s))
		for i := 0; i < len(s); {
			_, n := utf8.DecodeRuneInString(s[i:])
			units = append(units, s[i:i+n])
			i += n
		}
	default:
		for _, c := range s {
			units = append(units, string(c))
		}
	}
	tokens := textTokens
	if !text {
		tokens = append(append([]string(nil), textTokens...), byteTokens...)
	}
	for range 1 + r.IntN(4) {
		pos := 0
		if len(units) > 0 {
			pos = r.IntN(len(units) + 1)
		}
		span := 1 + r.IntN(8)
		end := min(len(units), pos+span)
		switch r.IntN(7) {
		case 0:
			units = slices.Delete(units, pos, end)
		case 1, 2:
			units = slices.Insert(units, pos, pick(r, tokens))
		case 3:
			units = slices.Insert(units, end, slices.Clone(units[pos:end])...)
		case 4:
			if pos < len(units) {
				units[pos] = pick(r, tokens)
			}
		case 5:
			if pos+1 < len(units) {
				units[pos], units[pos+1] = units[pos+1], units[pos]
			}
		case 6:
			if !text && pos < len(units) && len(units[pos]) == 1 {
				units[pos] = string([]byte{units[pos][0] ^ 1<<r.IntN(8)})
			} else if r.IntN(2) == 0 {
				units = units[:pos]
			}
		}
	}
	out := []byte(strings.Join(units, ""))
	if text && !utf8.Valid(out) {
		out = []byte(strings.ToValidUTF8(string(out), "\ufffd"))
	}
	return out
}

// span is one token of compact JSON text.
type span struct {
	from, to int
	kind     byte // s string, k name, n number, l literal, [ { ] } , :
}

// tokens splits compact JSON text (as jsongen.Node.Encode writes it) into tokens.
func tokens(text []byte) []span {
	var out []span
	for i := 0; i < len(text); {
		start := i
		switch c := text[i]; {
		case c == '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
			i++
			kind := byte('s')
			if i < len(text) && text[i] == ':' {
				kind = 'k'
			}
			out = append(out, span{start, min(i, len(text)), kind})
		case c == '-' || '0' <= c && c <= '9':
			for i++; i < len(text) && strings.IndexByte("0123456789.eE+-", text[i]) >= 0; i++ {
			}
			out = append(out, span{start, i, 'n'})
		case 'a' <= c && c <= 'z':
			for i++; i < len(text) && 'a' <= text[i] && text[i] <= 'z'; i++ {
			}
			out = append(out, span{start, i, 'l'})
		default:
			i++
			out = append(out, span{start, i, c})
		}
	}
	return out
}

// brokenScalars are what a scalar token may be replaced with: literals
// misspelt or borrowed from JavaScript and Python, numbers outside JSON's
// grammar.
var brokenScalars = []string{
	"ture", "flase", "nul", "tru", "True", "False", "NULL", "None", "undefined", "NaN", "-NaN", "Infinity",
	"-Infinity", "+Infinity", "1e", "1.2.3", "+1", ".5", "1.", "01", "-01", "0x1F", "1_000", "-", "1e+", "--1",
	"1e5.5", "0.e1", "'x'", "x",
}

// brokenEscapes are string escapes JSON does not have, or cut short.
var brokenEscapes = []string{`\uZZZZ`, `\u12`, `\u00G0`, `\x41`, `\'`, `\0`, `\q`, `\U0001F600`, `\u{41}`, "\\\n", "\t", "\x01"}

// MutateJSON returns JSON text changed by one structural edit that a
// lenient or hand-written parser might let through: a scalar replaced by a
// misspelt literal or a number outside the grammar, an array hole or a
// trailing or leading comma, a member without a value, a name unquoted or
// single-quoted, a closer of the wrong kind, a comment, a broken escape, a
// second value after the first. It reports false when in is not JSON.
func MutateJSON(r *rand.Rand, in []byte) ([]byte, bool) {
	n, ok := jsongen.ParseTree(in)
	if !ok {
		return nil, false
	}
	text := n.Encode()
	toks := tokens(text)
	pickKind := func(kinds string) (span, bool) {
		var c []span
		for _, t := range toks {
			if strings.IndexByte(kinds, t.kind) >= 0 {
				c = append(c, t)
			}
		}
		if len(c) == 0 {
			return span{}, false
		}
		return pick(r, c), true
	}
	splice := func(from, to int, with string) []byte {
		return []byte(string(text[:from]) + with + string(text[to:]))
	}
	for range 4 {
		switch r.IntN(9) {
		case 0:
			if t, ok := pickKind("nl"); ok {
				if r.IntN(3) == 0 {
					return splice(t.from, t.to, pick(r, []string{"NaN", "Infinity", "-Infinity"})), true
				}
				return splice(t.from, t.to, pick(r, brokenScalars)), true
			}
		case 1: // a hole: [1,,2] [,1] [1,]
			if t, ok := pickKind(",[{"); ok {
				return splice(t.to, t.to, ","), true
			}
		case 2: // a member without a value, or a value without a member
			if t, ok := pickKind(":"); ok {
				end := t.to
				for _, u := range toks {
					if u.from == t.to {
						end = u.to
					}
				}
				return splice(t.to, end, ""), true
			}
		case 3: // a name unquoted or single-quoted
			if t, ok := pickKind("k"); ok {
				body := string(text[t.from+1 : t.to-1])
				if r.IntN(2) == 0 {
					return splice(t.from, t.to, "'"+body+"'"), true
				}
				return splice(t.from, t.to, body), true
			}
		case 4: // the wrong closer
			if t, ok := pickKind("]}"); ok {
				return splice(t.from, t.to, map[byte]string{']': "}", '}': "]"}[t.kind]), true
			}
		case 5: // a comment
			t := pick(r, toks)
			return splice(t.to, t.to, pick(r, []string{"/*x*/", "//x\n", "#x\n"})), true
		case 6: // a broken escape in a string
			if t, ok := pickKind("sk"); ok {
				at := t.from + 1 + r.IntN(t.to-t.from-1)
				for at > t.from+1 && text[at-1] == '\\' {
					at--
				}
				return splice(at, at, pick(r, brokenEscapes)), true
			}
		case 7: // a second value, or a separator too many
			return append(text, pick(r, []string{"1", " 1", "[]", "{}", ",", `"x"`, "\x00"})...), true
		case 8: // a single-quoted string
			if t, ok := pickKind("s"); ok && !strings.ContainsRune(string(text[t.from+1:t.to-1]), '\'') {
				return splice(t.from, t.to, "'"+string(text[t.from+1:t.to-1])+"'"), true
			}
		}
	}
	return text, true
}

// Reencode returns text in UTF-16 or UTF-32, little- or big-endian, with
// or without a byte-order mark, as a reader that guesses the encoding
// might accept it.
func Reencode(r *rand.Rand, text []byte) []byte {
	var out []byte
	le, bom := r.IntN(2) == 0, r.IntN(3) > 0
	wide := r.IntN(3) == 0
	put := func(v uint32, width int) {
		for i := range width {
			shift := 8 * i
			if !le {
				shift = 8 * (width - 1 - i)
			}
			out = append(out, byte(v>>shift))
		}
	}
	if wide {
		if bom {
			put(0xfeff, 4)
		}
		for _, c := range string(text) {
			put(uint32(c), 4)
		}
		return out
	}
	if bom {
		put(0xfeff, 2)
	}
	for _, c := range string(text) {
		if c >= 0x10000 {
			c -= 0x10000
			put(uint32(0xd800+c>>10), 2)
			put(uint32(0xdc00+c&0x3ff), 2)
			continue
		}
		put(uint32(c), 2)
	}
	return out
}

// pick returns one of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
