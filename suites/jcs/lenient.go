package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
)

// The readers of the broken modes: each turns an input into strict JSON
// text the way some real parser does, right or wrong. None of them is
// referee's reference; they exist so that each group of checks has a bug
// only it catches.

var errRelaxed = errors.New("not even relaxed JSON")

// relaxJSON reads text as relaxed parsers (JSON5 and its kin) do and writes
// it back as strict JSON: comments, trailing commas, single quotes, unquoted
// and numeric keys, +1, .5, 1., 01, 0x1F, 1_000, True and NULL, JavaScript
// string escapes (\x41, \', \0, \q for q), raw control characters, any
// Unicode space between tokens, a byte order mark, and values or members
// with no separator between them. NaN and Infinity (either sign) are
// written as 1e400 and -1e400, numbers no double holds: a reading that
// keeps one cannot be canonicalised, as RFC 8785 §3.2.2.3 requires, but
// one whose duplicate names drop it can. Truncated text, doubled or
// leading commas and unknown words stay errors.
func relaxJSON(text []byte) ([]byte, error) {
	if !utf8.Valid(text) {
		return nil, fmt.Errorf("%w: not UTF-8", errRelaxed)
	}
	r := &relaxed{s: string(text)}
	r.space()
	if err := r.value(0); err != nil {
		return nil, err
	}
	r.space()
	if r.i != len(r.s) {
		return nil, r.fail("data after the value")
	}
	return []byte(r.out.String()), nil
}

type relaxed struct {
	s   string
	i   int
	out strings.Builder
}

func (r *relaxed) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errRelaxed, what, r.i)
}

func (r *relaxed) peek() rune {
	if r.i >= len(r.s) {
		return -1
	}
	c, _ := utf8.DecodeRuneInString(r.s[r.i:])
	return c
}

// space skips Unicode spaces, a byte order mark and comments.
func (r *relaxed) space() {
	for r.i < len(r.s) {
		c, n := utf8.DecodeRuneInString(r.s[r.i:])
		switch {
		case unicode.IsSpace(c) || c == '\uFEFF':
			r.i += n
		case strings.HasPrefix(r.s[r.i:], "//") || c == '#':
			end := strings.IndexByte(r.s[r.i:], '\n')
			if end < 0 {
				r.i = len(r.s)
			} else {
				r.i += end + 1
			}
		case strings.HasPrefix(r.s[r.i:], "/*"):
			end := strings.Index(r.s[r.i+2:], "*/")
			if end < 0 {
				return // unterminated: the value reader fails on it
			}
			r.i += 2 + end + 2
		default:
			return
		}
	}
}

func isIdent(c rune) bool {
	return c == '_' || c == '$' || unicode.IsLetter(c) || unicode.IsDigit(c)
}

func (r *relaxed) value(depth int) error {
	if depth > 20000 {
		return r.fail("too deep")
	}
	c := r.peek()
	switch {
	case c == '[':
		return r.array(depth)
	case c == '{':
		return r.object(depth)
	case c == '"' || c == '\'':
		return r.str()
	case c == '-' || c == '+' || c == '.' || ('0' <= c && c <= '9'):
		return r.number()
	case c >= 0 && isIdent(c):
		start := r.i
		for r.i < len(r.s) && isIdent(r.peek()) {
			r.i += utf8.RuneLen(r.peek())
		}
		switch w := strings.ToLower(r.s[start:r.i]); w {
		case "true", "false", "null":
			r.out.WriteString(w)
			return nil
		case "nan", "infinity":
			r.out.WriteString(nonFinite)
			return nil
		}
		r.i = start
		return r.fail("unknown word")
	}
	return r.fail("no value")
}

func (r *relaxed) array(depth int) error {
	r.i++
	r.out.WriteByte('[')
	first := true
	for {
		r.space()
		switch r.peek() {
		case ']':
			r.i++
			r.out.WriteByte(']')
			return nil
		case -1:
			return r.fail("unterminated array")
		}
		if !first {
			r.out.WriteByte(',')
		}
		first = false
		if err := r.value(depth + 1); err != nil {
			return err
		}
		r.space()
		if r.peek() == ',' {
			r.i++
		}
	}
}

func (r *relaxed) object(depth int) error {
	r.i++
	r.out.WriteByte('{')
	first := true
	for {
		r.space()
		c := r.peek()
		switch {
		case c == '}':
			r.i++
			r.out.WriteByte('}')
			return nil
		case c == -1:
			return r.fail("unterminated object")
		}
		if !first {
			r.out.WriteByte(',')
		}
		first = false
		switch {
		case c == '"' || c == '\'':
			if err := r.str(); err != nil {
				return err
			}
		case isIdent(c):
			start := r.i
			for r.i < len(r.s) && isIdent(r.peek()) {
				r.i += utf8.RuneLen(r.peek())
			}
			r.out.WriteString(quoteJSON(r.s[start:r.i]))
		default:
			return r.fail("no member name")
		}
		r.space()
		if r.peek() == ':' {
			r.i++
			r.space()
		}
		r.out.WriteByte(':')
		if err := r.value(depth + 1); err != nil {
			return err
		}
		r.space()
		if r.peek() == ',' {
			r.i++
		}
	}
}

// str reads a string in double or single quotes and writes it in double
// quotes, keeping \uXXXX escapes as they are (so a lone surrogate is still
// one for the strict reader).
func (r *relaxed) str() error {
	q := r.s[r.i]
	r.i++
	var b strings.Builder
	b.WriteByte('"')
	for {
		if r.i >= len(r.s) {
			return r.fail("unterminated string")
		}
		c, n := utf8.DecodeRuneInString(r.s[r.i:])
		r.i += n
		switch {
		case c == rune(q):
			b.WriteByte('"')
			r.out.WriteString(b.String())
			return nil
		case c != '\\':
			b.WriteString(escapeRune(c))
			continue
		}
		if r.i >= len(r.s) {
			return r.fail("unterminated escape")
		}
		e, n := utf8.DecodeRuneInString(r.s[r.i:])
		r.i += n
		switch e {
		case 'u':
			if r.i+4 > len(r.s) || !isHex(r.s[r.i:r.i+4]) {
				return r.fail("bad \\u escape")
			}
			b.WriteString(`\u` + r.s[r.i:r.i+4])
			r.i += 4
		case 'x':
			if r.i+2 > len(r.s) || !isHex(r.s[r.i:r.i+2]) {
				return r.fail("bad \\x escape")
			}
			var v rune
			fmt.Sscanf(r.s[r.i:r.i+2], "%x", &v)
			b.WriteString(escapeRune(v))
			r.i += 2
		case 'b':
			b.WriteString(`\b`)
		case 'f':
			b.WriteString(`\f`)
		case 'n':
			b.WriteString(`\n`)
		case 'r':
			b.WriteString(`\r`)
		case 't':
			b.WriteString(`\t`)
		case 'v':
			b.WriteString(`\u000b`)
		case '0':
			b.WriteString(`\u0000`)
		case '\n':
		default:
			b.WriteString(escapeRune(e))
		}
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// escapeRune writes c as it may stand in a strict JSON string.
func escapeRune(c rune) string {
	switch {
	case c == '"':
		return `\"`
	case c == '\\':
		return `\\`
	case c < 0x20:
		return fmt.Sprintf(`\u%04x`, c)
	}
	return string(c)
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		b.WriteString(escapeRune(c))
	}
	b.WriteByte('"')
	return b.String()
}

// nonFinite is how relaxJSON writes NaN and Infinity: a number beyond the
// double range, which canonicalisation refuses as it must refuse them.
const nonFinite = "1e400"

// number reads +1, -01, .5, 1., 1_000, 0x1F, 0o17, 0b101, signed NaN and
// Infinity, and strict numbers, and writes a strict lexeme of the same
// value (nonFinite for NaN and Infinity).
func (r *relaxed) number() error {
	sign := ""
	switch r.peek() {
	case '-':
		sign = "-"
		r.i++
	case '+':
		r.i++
	}
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t') {
		r.i++
	}
	for _, w := range []string{"nan", "infinity"} {
		if end := r.i + len(w); end <= len(r.s) && strings.EqualFold(r.s[r.i:end], w) && (end == len(r.s) || !isIdent(rune(r.s[end]))) {
			r.i = end
			r.out.WriteString(sign + nonFinite)
			return nil
		}
	}
	for _, base := range []struct {
		prefix string
		base   int
	}{{"0x", 16}, {"0X", 16}, {"0o", 8}, {"0O", 8}, {"0b", 2}, {"0B", 2}} {
		if !strings.HasPrefix(r.s[r.i:], base.prefix) {
			continue
		}
		r.i += 2
		start := r.i
		for r.i < len(r.s) && (isIdent(rune(r.s[r.i]))) {
			r.i++
		}
		n, ok := new(big.Int).SetString(strings.ReplaceAll(r.s[start:r.i], "_", ""), base.base)
		if !ok {
			return r.fail("bad number")
		}
		r.out.WriteString(sign + n.String())
		return nil
	}
	digits := func() string {
		start := r.i
		for r.i < len(r.s) && ('0' <= r.s[r.i] && r.s[r.i] <= '9' || r.s[r.i] == '_' && r.i > start) {
			r.i++
		}
		return strings.ReplaceAll(r.s[start:r.i], "_", "")
	}
	whole := digits()
	frac := ""
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		frac = digits()
	}
	if whole == "" && frac == "" {
		return r.fail("no digits")
	}
	exp := ""
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		es := ""
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			es = r.s[r.i : r.i+1]
			r.i++
		}
		ed := digits()
		if ed == "" {
			return r.fail("no exponent digits")
		}
		exp = "e" + es + ed
	}
	if c := r.peek(); c >= 0 && (isIdent(c) || c == '.') {
		return r.fail("bad number")
	}
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	if frac != "" {
		frac = "." + frac
	}
	r.out.WriteString(sign + whole + frac + exp)
	return nil
}

// completeTruncated reads text as "partial JSON" parsers do, which finish
// a truncated document instead of refusing it: an open string is closed, a
// cut escape, number part or dangling comma dropped, a cut literal
// completed, a key without a value given null, and the open containers
// closed. Text that is wrong before its end stays an error.
func completeTruncated(text []byte) ([]byte, error) {
	s := string(text)
	var stack []byte // '[' or '{'
	type state int
	const (
		value state = iota // a value may start
		key                // a key may start (or the object end)
		colon              // after a key
		after              // after a value
	)
	st := value
	keyStart := -1 // where the key being read (or just read) starts
	i := 0
	skip := func() {
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
	}
	closeValue := func() {
		st = after
	}
	for {
		skip()
		if i >= len(s) {
			break
		}
		c := s[i]
		switch st {
		case value:
			switch {
			case c == '[' || c == '{':
				stack = append(stack, c)
				i++
				st = value
				if c == '{' {
					st = key
				}
				continue
			case c == ']' && i > 0 && strings.TrimRight(s[:i], " \t\r\n") != "" && strings.TrimRight(s[:i], " \t\r\n")[len(strings.TrimRight(s[:i], " \t\r\n"))-1] == '[':
				stack = stack[:len(stack)-1]
				i++
				closeValue()
				continue
			case c == '"':
				end, ok := stringEnd(s, i)
				if !ok {
					return finishTruncated(s[:end]+`"`, stack)
				}
				i = end
				closeValue()
				continue
			case c == '-' || ('0' <= c && c <= '9'):
				j := i + 1
				for j < len(s) && strings.IndexByte("0123456789.eE+-", s[j]) >= 0 {
					j++
				}
				if j == len(s) {
					num := strings.TrimRight(s[i:], ".eE+-")
					if num != "" {
						return finishTruncated(s[:i]+num, stack)
					}
					prefix := strings.TrimRight(s[:i], " \t\r\n")
					if strings.HasSuffix(prefix, ":") {
						return finishTruncated(prefix+"null", stack)
					}
					return finishTruncated(dropMember(prefix), stack)
				}
				i = j
				closeValue()
				continue
			case c == 't' || c == 'f' || c == 'n':
				for _, lit := range []string{"true", "false", "null"} {
					if lit[0] != c {
						continue
					}
					if strings.HasPrefix(lit, s[i:]) {
						return finishTruncated(s[:i]+lit, stack)
					}
					if strings.HasPrefix(s[i:], lit) {
						i += len(lit)
						closeValue()
					}
				}
				if st == after {
					continue
				}
			}
			return nil, errors.New("not a truncated JSON text")
		case key:
			switch c {
			case '}':
				stack = stack[:len(stack)-1]
				i++
				closeValue()
				continue
			case '"':
				keyStart = i
				end, ok := stringEnd(s, i)
				if !ok {
					return finishTruncated(dropMember(s[:keyStart]), stack)
				}
				i = end
				st = colon
				continue
			}
			return nil, errors.New("not a truncated JSON text")
		case colon:
			if c != ':' {
				return nil, errors.New("not a truncated JSON text")
			}
			i++
			skip()
			if i >= len(s) {
				return finishTruncated(s[:i]+"null", stack)
			}
			st = value
		case after:
			if len(stack) == 0 {
				return nil, errors.New("not a truncated JSON text")
			}
			top := stack[len(stack)-1]
			switch {
			case c == ',':
				i++
				skip()
				if i >= len(s) {
					return finishTruncated(strings.TrimRight(s, " \t\r\n,"), stack)
				}
				st = value
				if top == '{' {
					st = key
				}
			case c == ']' && top == '[' || c == '}' && top == '{':
				stack = stack[:len(stack)-1]
				i++
			default:
				return nil, errors.New("not a truncated JSON text")
			}
		}
	}
	switch {
	case len(stack) == 0 && st == after:
		return text, nil // not truncated at all
	case st == colon:
		return finishTruncated(s+":null", stack)
	case st == key:
		return finishTruncated(strings.TrimRight(s, " \t\r\n,"), stack)
	case len(stack) == 0:
		return nil, errors.New("no value")
	}
	return finishTruncated(strings.TrimRight(s, " \t\r\n,"), stack)
}

// stringEnd returns the offset after the string starting at s[i], or the
// offset of a cut escape (or len(s)) and false when the string is cut.
func stringEnd(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			return j + 1, true
		case '\\':
			if j+1 >= len(s) || s[j+1] == 'u' && j+6 > len(s) {
				return j, false
			}
			j++
		}
	}
	return len(s), false
}

// dropMember removes a cut member's key and the comma before it.
func dropMember(s string) string {
	return strings.TrimRight(strings.TrimRight(s, " \t\r\n"), ",")
}

// finishTruncated closes the open containers of a cut text.
func finishTruncated(s string, stack []byte) ([]byte, error) {
	var b strings.Builder
	b.WriteString(s)
	for k := len(stack) - 1; k >= 0; k-- {
		if stack[k] == '[' {
			b.WriteByte(']')
		} else {
			b.WriteByte('}')
		}
	}
	return []byte(b.String()), nil
}

// minifyFirst removes every space, tab, CR and LF outside strings before
// parsing, as naive minifiers do: valid JSON keeps its value, but tokens
// that whitespace kept apart run together ([1 2] becomes [12]).
func minifyFirst(text []byte) []byte {
	out := make([]byte, 0, len(text))
	in := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case in && c == '\\' && i+1 < len(text):
			out = append(out, c, text[i+1])
			i++
			continue
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			continue
		}
		out = append(out, c)
	}
	return out
}

// uncheckedPairs combines a high surrogate escape with the \u escape after
// it whatever that one is, as decoders that check only the first half of a
// pair do: the code point 0x10000 + (hi-0xD800)<<10 + (next-0xDC00) is
// written raw, or U+FFFD where that is no scalar value.
func uncheckedPairs(text []byte) []byte {
	return eachEscape(text, func(s string, i int) (string, int) {
		if i+11 >= len(s) || s[i+1] != 'u' || s[i+6] != '\\' || s[i+7] != 'u' || !isHex(s[i+2:i+6]) || !isHex(s[i+8:i+12]) {
			return "", 0
		}
		var hi, lo rune
		fmt.Sscanf(s[i+2:i+6], "%x", &hi)
		fmt.Sscanf(s[i+8:i+12], "%x", &lo)
		if !(0xD800 <= hi && hi <= 0xDBFF && !(0xDC00 <= lo && lo <= 0xDFFF)) {
			return "", 0
		}
		cp := 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00)
		if !utf8.ValidRune(cp) {
			cp = utf8.RuneError
		}
		return escapeRune(cp), 12
	})
}

// eachEscape calls f at every backslash inside a string of text; f returns
// the bytes to write for the escape and how many bytes it consumed (0 to
// copy the backslash and the byte after it as they are). Everything else
// is copied as it stands.
func eachEscape(text []byte, f func(s string, i int) (string, int)) []byte {
	s := string(text)
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !in {
			in = c == '"'
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(s):
			if out, n := f(s, i); n > 0 {
				b.WriteString(out)
				i += n - 1
				continue
			}
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(c)
	}
	return []byte(b.String())
}

// nanAsNull reads NaN, Infinity and -Infinity outside strings as the
// non-finite numbers JSON5 parsers make of them, which JSON.stringify then
// writes as null.
func nanAsNull(text []byte) []byte {
	s := string(text)
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
			continue
		case c == '"':
			in = !in
		case !in:
			for _, tok := range []string{"-Infinity", "+Infinity", "Infinity", "NaN"} {
				if strings.HasPrefix(s[i:], tok) {
					b.WriteString("null")
					i += len(tok) - 1
					goto next
				}
			}
		}
		b.WriteByte(c)
	next:
	}
	return []byte(b.String())
}

// inherited reports whether name is one every plain JavaScript object
// answers from its prototype: a duplicate check over a plain object ({} and seen[k]) finds
// them present before any member of that name was read.
func inherited(name string) bool {
	switch name {
	case "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
		"toLocaleString", "toString", "valueOf", "__defineGetter__",
		"__defineSetter__", "__lookupGetter__", "__lookupSetter__":
		return true
	}
	return false
}

// plainObjectKeys rebuilds v as JavaScript code that stores members in a
// plain object does: a __proto__ member sets the prototype instead of
// becoming a member, a name the prototype answers counts as a duplicate,
// and an object whose length names its other keys 0..n-1 is written as the
// array it looks like.
func plainObjectKeys(v canon.Value) (canon.Value, error) {
	switch v.Kind {
	case canon.Array:
		out := v
		out.Elems = make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			var err error
			if out.Elems[i], err = plainObjectKeys(e); err != nil {
				return v, err
			}
		}
		return out, nil
	case canon.Object:
		if arr, ok := arrayLike(v); ok {
			return plainObjectKeys(arr)
		}
		out := canon.Value{Kind: canon.Object}
		for _, m := range v.Members {
			if inherited(m.Key) {
				return v, fmt.Errorf("%w: %q", canon.ErrDuplicateKey, m.Key)
			}
			if m.Key == "__proto__" {
				continue
			}
			e, err := plainObjectKeys(m.Value)
			if err != nil {
				return v, err
			}
			out.Members = append(out.Members, canon.Member{Key: m.Key, Value: e})
		}
		return out, nil
	}
	return v, nil
}

// arrayLike returns the array an object with a length that is a small
// non-negative integer looks like to isArrayLike tests (lodash's, say):
// its members "0".."length-1", null where one is missing.
func arrayLike(v canon.Value) (canon.Value, bool) {
	l, ok := v.Lookup("length")
	if !ok || l.Kind != canon.Number {
		return v, false
	}
	var n int
	if _, err := fmt.Sscanf(l.Num, "%d", &n); err != nil || fmt.Sprint(n) != l.Num || n < 0 || n > 1<<16 {
		return v, false
	}
	arr := canon.Value{Kind: canon.Array, Elems: []canon.Value{}}
	for k := range n {
		e, _ := v.Lookup(fmt.Sprint(k)) // a missing member is the zero Value, null
		arr.Elems = append(arr.Elems, e)
	}
	return arr, true
}

// detectEncoding decodes bytes that start with a UTF-32 or UTF-16 byte
// order mark as that encoding, and drops a UTF-8 one, as Python's
// json.loads does with bytes (json.detect_encoding).
func detectEncoding(b []byte) []byte {
	var units []uint16
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}), bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}):
		le := b[0] == 0xFF
		var out []rune
		for i := 4; i+4 <= len(b); i += 4 {
			w := b[i : i+4]
			if le {
				out = append(out, rune(w[0])|rune(w[1])<<8|rune(w[2])<<16|rune(w[3])<<24)
			} else {
				out = append(out, rune(w[3])|rune(w[2])<<8|rune(w[1])<<16|rune(w[0])<<24)
			}
		}
		return []byte(string(out))
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		le := b[0] == 0xFF
		for i := 2; i+2 <= len(b); i += 2 {
			if le {
				units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				units = append(units, uint16(b[i+1])|uint16(b[i])<<8)
			}
		}
		return []byte(string(utf16.Decode(units)))
	}
	return bytes.TrimPrefix(b, []byte("\uFEFF"))
}

// chunkSize is how much a chunked decoder reads at a time.
const chunkSize = 4096

// decodeChunks decodes text 4096 bytes at a time, each chunk on its own
// with a strict decoder and no carry-over (TextDecoder.decode(chunk,
// {fatal: true}) without {stream: true}): a character that a chunk
// boundary cuts is an error.
func decodeChunks(text []byte) error {
	for off := 0; off < len(text); off += chunkSize {
		if chunk := text[off:min(off+chunkSize, len(text))]; !utf8.Valid(chunk) {
			return fmt.Errorf("%w: bytes %d to %d do not decode", canon.ErrInvalidUTF8, off, off+len(chunk))
		}
	}
	return nil
}

// scalarWhitespace refuses whitespace around a top-level scalar, as readers
// that take a scalar text to its end do.
func scalarWhitespace(text []byte) error {
	trimmed := strings.Trim(string(text), " \t\r\n")
	if trimmed == "" || trimmed[0] == '[' || trimmed[0] == '{' || len(trimmed) == len(text) {
		return nil
	}
	return fmt.Errorf("%w: whitespace around a top-level scalar", canon.ErrSyntax)
}

// eachToken calls f at every offset of text outside strings; f returns
// the bytes to write for what it consumed and how many bytes that was (0
// to copy one byte as it is). Strings are copied as they stand.
func eachToken(text []byte, f func(s string, i int) (string, int)) []byte {
	s := string(text)
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '"' {
			end, _ := stringEnd(s, i)
			b.WriteString(s[i:end])
			i = end
			continue
		}
		out, n := f(s, i)
		if n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(out)
		i += n
	}
	return []byte(b.String())
}

// wordStart reports whether a word may start at s[i]: the byte before it
// is not a letter or digit.
func wordStart(s string, i int) bool {
	return i == 0 || !isIdent(rune(s[i-1]))
}

// firstLetterLiterals reads a literal from its first letter and its length
// (t and 4 letters is true, f and 5 is false, n and 4 is null), as minimal
// readers that test one byte and skip the rest do: [ture] reads as [true].
func firstLetterLiterals(text []byte) []byte {
	return eachToken(text, func(s string, i int) (string, int) {
		for _, lit := range []string{"true", "false", "null"} {
			n := len(lit)
			if s[i] != lit[0] || !wordStart(s, i) || i+n > len(s) {
				continue
			}
			word := s[i : i+n]
			if strings.IndexFunc(word, func(r rune) bool { return !isIdent(r) }) < 0 {
				return lit, n
			}
		}
		return "", 0
	})
}

// parseFloatNumbers reads a run of number characters ([-+0-9.eE]) as
// JavaScript's parseFloat does: the longest prefix that is a number, the
// rest of the run dropped. [1e] reads as [1], [1.2.3] as [1.2].
func parseFloatNumbers(text []byte) []byte {
	return eachToken(text, func(s string, i int) (string, int) {
		if !wordStart(s, i) || !strings.ContainsRune("-+0123456789.", rune(s[i])) {
			return "", 0
		}
		j := i
		for j < len(s) && strings.ContainsRune("-+0123456789.eE", rune(s[j])) {
			j++
		}
		run := s[i:j]
		m := jsNumberPrefix(run)
		if m == "" {
			return "", 0
		}
		r := &relaxed{s: m}
		if err := r.number(); err != nil {
			return "", 0
		}
		return r.out.String(), len(run)
	})
}

// jsNumberPrefix returns the longest prefix of run that JavaScript's
// parseFloat reads: [+-]? (digits [. digits?] | . digits) [e [+-]? digits].
func jsNumberPrefix(run string) string {
	i := 0
	if i < len(run) && (run[i] == '+' || run[i] == '-') {
		i++
	}
	digits := func() int {
		start := i
		for i < len(run) && '0' <= run[i] && run[i] <= '9' {
			i++
		}
		return i - start
	}
	n := digits()
	if i < len(run) && run[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return ""
	}
	end := i
	if i < len(run) && (run[i] == 'e' || run[i] == 'E') {
		i++
		if i < len(run) && (run[i] == '+' || run[i] == '-') {
			i++
		}
		if digits() > 0 {
			end = i
		}
	}
	return run[:end]
}

// holesAsNull reads a missing value as JavaScript reads an array hole or
// undefined: [1,,2] is [1,null,2], [,1] is [null,1], {"a":} is {"a":null}
// and undefined is null, as JSON.stringify writes them.
func holesAsNull(text []byte) []byte {
	s := string(text)
	var b strings.Builder
	prev := byte(0) // the last significant byte: '"' after a string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			end, _ := stringEnd(s, i)
			b.WriteString(s[i:end])
			i, prev = end, '"'
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case strings.HasPrefix(s[i:], "undefined") && wordStart(s, i):
			b.WriteString("null")
			i, prev = i+len("undefined"), 'l'
			continue
		case c == ',' && (prev == ',' || prev == '[' || prev == ':'):
			b.WriteString("null")
		case (c == '}' || c == ']') && prev == ':':
			b.WriteString("null")
		}
		if !(c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			prev = c
		}
		b.WriteByte(c)
		i++
	}
	return []byte(b.String())
}

// anyCloser lets a closing bracket close whatever container is open, as
// readers that only count nesting do: [1} reads as [1].
func anyCloser(text []byte) []byte {
	var stack []byte
	return eachToken(text, func(s string, i int) (string, int) {
		switch c := s[i]; c {
		case '[', '{':
			stack = append(stack, c)
		case ']', '}':
			if len(stack) == 0 {
				return "", 0
			}
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if open == '[' {
				return "]", 1
			}
			return "}", 1
		}
		return "", 0
	})
}

// parseIntEscapes reads the four characters after \u as JavaScript's
// parseInt(s, 16) does: the longest hex prefix, none being NaN, which
// String.fromCharCode makes U+0000. ["\uZZZZ"] reads as ["\u0000"].
func parseIntEscapes(text []byte) []byte {
	return eachEscape(text, func(s string, i int) (string, int) {
		if i+5 >= len(s) || s[i+1] != 'u' || isHex(s[i+2:i+6]) || strings.ContainsAny(s[i+2:i+6], `"\`) {
			return "", 0
		}
		digits := s[i+2 : i+6]
		n := 0
		for n < 4 && isHex(digits[n:n+1]) {
			n++
		}
		var v uint64
		if n > 0 {
			fmt.Sscanf(digits[:n], "%x", &v)
		}
		return fmt.Sprintf(`\u%04x`, v), 6
	})
}

// firstValue returns the first JSON value of text and ignores what follows
// it, as Go's json.Decoder.Decode and Python's raw_decode do: [1] [2] reads
// as [1].
func firstValue(text []byte) ([]byte, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(text)).Decode(&raw); err != nil {
		return nil, err
	}
	return raw, nil
}
