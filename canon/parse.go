package canon

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/refereehq/referee/internal/jsonstring"
)

// DuplicatePolicy says what Parse does with a repeated object key.
type DuplicatePolicy uint8

const (
	// RejectDuplicates makes a repeated object key an ErrDuplicateKey error.
	RejectDuplicates DuplicatePolicy = iota
	// LastWins keeps one member per key: at the position of the key's first
	// occurrence, with the value of its last.
	LastWins
	// KeepDuplicates keeps every member, a repeated key as often as it
	// comes, in order: for a reader that decides itself which repeats it
	// takes (serde refuses a known field twice and ignores an unknown one).
	// Lookup finds a key's first member.
	KeepDuplicates
)

// ReadOptions configures Parse.
type ReadOptions struct {
	// MaxDepth is the greatest nesting depth allowed, or 0 (or less) for no
	// limit. The top-level value is at depth 0 and each container adds one
	// to the depth of its elements and member values; a value deeper than
	// MaxDepth is an ErrDepth error.
	MaxDepth int
	// Duplicates says what to do with a repeated object key. Keys are
	// compared after decoding their escapes. Values other than LastWins
	// and KeepDuplicates reject duplicates.
	Duplicates DuplicatePolicy
	// MaxValues is the most values (scalars and containers, at any depth)
	// the text may hold, or 0 (or less) for no limit; one more is an
	// ErrTooMany error. A Value takes some 90 bytes, so a text of small
	// values takes dozens of times its size once read.
	MaxValues int
}

// Parse reads data as one strict RFC 8259 JSON text.
//
// Whitespace is only space, tab, line feed and carriage return; there may
// be no byte order mark, no trailing data and no invalid UTF-8 anywhere.
// Numbers follow the JSON grammar exactly (no NaN, Infinity, leading zeros,
// plus signs, bare decimal points or hex). Strings may not hold unescaped
// control characters and may use only the JSON escapes. Every error is a
// *SyntaxError.
//
// Parse uses no recursion, so the depth of the input is bounded only by
// memory and ReadOptions.MaxDepth.
func Parse(data []byte, opts ReadOptions) (Value, error) {
	return parse(string(data), opts)
}

// parse is Parse of s: the strings of the Value it returns are s's where
// they need no decoding.
func parse(s string, opts ReadOptions) (Value, error) {
	sc := scratchPool.Get().(*scratch)
	p := parser{
		s:         s,
		maxDepth:  opts.MaxDepth,
		maxValues: opts.MaxValues,
		lastWins:  opts.Duplicates == LastWins,
		keepDups:  opts.Duplicates == KeepDuplicates,
		scratch:   *sc,
	}
	v, err := p.parse()
	p.release(sc)
	return v, err
}

// scratch is a parser's stacks and buffer, kept between Parses in
// scratchPool. Their elements past their lengths are zero: a container's
// entries are cleared as it closes, the rest as a Parse ends (release), so
// a pooled stack holds no value of an earlier text.
type scratch struct {
	open      []byte     // kind of each open container, outermost first
	arrayBase []int      // for each open array, its first element's index in vals
	objs      []objFrame // one for each open object
	vals      []Value    // elements of open arrays
	mems      []Member   // members of open objects
	buf       []byte     // scratch for decoding escaped strings
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// scratchMax is the most elements a pooled stack keeps room for; a Parse
// that grew one further leaves it to the collector.
const scratchMax = 4096

// release clears what p's stacks still hold (after an error) and returns
// them to the pool through sc, unless one has grown past scratchMax.
func (p *parser) release(sc *scratch) {
	clear(p.vals)
	clear(p.mems)
	clear(p.objs)
	if max(cap(p.vals), cap(p.mems), cap(p.objs), cap(p.buf)/64) > scratchMax {
		*sc = scratch{}
	} else {
		*sc = scratch{open: p.open[:0], arrayBase: p.arrayBase[:0], objs: p.objs[:0], vals: p.vals[:0], mems: p.mems[:0], buf: p.buf[:0]}
	}
	scratchPool.Put(sc)
}

// Container kinds on the parser's stack.
const (
	openArray byte = iota
	openObject
)

// dupIndexMin is the member count at which an object's keys are indexed in
// a map instead of being searched linearly.
const dupIndexMin = 32

// parser holds the state of one Parse. Values of open containers are kept
// in shared scratch stacks and copied out, exactly sized, when the
// container closes.
type parser struct {
	s         string
	pos       int
	maxDepth  int
	maxValues int
	values    int // values begun so far
	lastWins  bool
	keepDups  bool

	scratch
	valSlab slab[Value]  // blocks for array elements
	memSlab slab[Member] // blocks for object members
}

// slabMin is the first block's size: most documents the adapter protocol
// sends, request args and reply lines, are objects of one to four members.
const slabMin = 4

// slabMax is the largest number of elements or members allocated as one
// block to be shared by several containers.
const slabMax = 1024

// slab hands out small slices carved from shared blocks, so that small
// containers cost no allocation of their own.
type slab[T any] struct {
	free  []T // unused part of the last block
	block int // size of the last block
}

// alloc returns a slice of n zero values.
func (s *slab[T]) alloc(n int) []T {
	if n > len(s.free) {
		if n > slabMax/4 {
			return make([]T, n)
		}
		s.block = min(max(2*s.block, slabMin), slabMax)
		s.free = make([]T, max(s.block, n))
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// objFrame is the state of one open object.
type objFrame struct {
	base  int            // index in mems of the object's first member
	key   string         // key of the member whose value is being read
	dup   int            // index from base of the earlier member with key, or -1
	index map[string]int // key to index from base, once the object is large
}

func (p *parser) fail(off int, err error, format string, args ...any) error {
	return &SyntaxError{Offset: int64(off), Err: err, Msg: fmt.Sprintf(format, args...)}
}

// unexpected reports the byte at off, or the end of input, as out of place;
// what describes what was expected.
func (p *parser) unexpected(off int, what string) error {
	if off >= len(p.s) {
		return p.fail(off, ErrSyntax, "unexpected end of input, expected %s", what)
	}
	c := p.s[off]
	if p.invalidUTF8At(off) {
		return p.fail(off, ErrInvalidUTF8, "invalid UTF-8 byte 0x%02x", c)
	}
	if c >= utf8.RuneSelf {
		r, _ := utf8.DecodeRuneInString(p.s[off:])
		return p.fail(off, ErrSyntax, "unexpected character %U, expected %s", r, what)
	}
	return p.fail(off, ErrSyntax, "unexpected character %s, expected %s", quoteByte(c), what)
}

// invalidUTF8At reports whether the input is not UTF-8 at off.
func (p *parser) invalidUTF8At(off int) bool {
	if p.s[off] < utf8.RuneSelf {
		return false
	}
	r, size := utf8.DecodeRuneInString(p.s[off:])
	return r == utf8.RuneError && size == 1
}

// quoteByte returns an ASCII byte in quotes for messages.
func quoteByte(c byte) string {
	if c < 0x20 || c == 0x7f {
		return fmt.Sprintf("%U", rune(c))
	}
	return strconv.QuoteRune(rune(c))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) parse() (Value, error) {
	p.skipSpace()
	var v Value
value:
	for {
		// Read one value starting at p.pos, or open a container.
		if p.pos >= len(p.s) {
			return Value{}, p.unexpected(p.pos, "a value")
		}
		c := p.s[p.pos]
		if p.maxDepth > 0 && len(p.open) > p.maxDepth && startsValue(c) {
			return Value{}, p.fail(p.pos, ErrDepth, "nesting depth %d exceeds the limit of %d", len(p.open), p.maxDepth)
		}
		if p.values++; p.maxValues > 0 && p.values > p.maxValues && startsValue(c) {
			return Value{}, p.fail(p.pos, ErrTooMany, "more than %d values", p.maxValues)
		}
		switch {
		case c == '[':
			p.pos++
			p.skipSpace()
			if p.pos < len(p.s) && p.s[p.pos] == ']' {
				p.pos++
				v = Value{Kind: Array}
				break
			}
			p.open = append(p.open, openArray)
			p.arrayBase = append(p.arrayBase, len(p.vals))
			continue value
		case c == '{':
			p.pos++
			p.skipSpace()
			if p.pos < len(p.s) && p.s[p.pos] == '}' {
				p.pos++
				v = Value{Kind: Object}
				break
			}
			p.open = append(p.open, openObject)
			p.objs = append(p.objs, objFrame{base: len(p.mems), dup: -1})
			if err := p.readKey(); err != nil {
				return Value{}, err
			}
			continue value
		case c == '"':
			s, err := p.readString()
			if err != nil {
				return Value{}, err
			}
			v = Value{Kind: String, Str: s}
		case c == '-' || ('0' <= c && c <= '9'):
			num, err := p.readNumber()
			if err != nil {
				return Value{}, err
			}
			v = Value{Kind: Number, Num: num}
		case c == 't':
			if err := p.readLiteral("true"); err != nil {
				return Value{}, err
			}
			v = Value{Kind: Bool, Bool: true}
		case c == 'f':
			if err := p.readLiteral("false"); err != nil {
				return Value{}, err
			}
			v = Value{Kind: Bool}
		case c == 'n':
			if err := p.readLiteral("null"); err != nil {
				return Value{}, err
			}
			v = Value{}
		default:
			if p.nonFinite(p.pos) {
				return Value{}, p.fail(p.pos, ErrNonFinite, "non-finite number %s", p.nonFiniteToken(p.pos))
			}
			return Value{}, p.unexpected(p.pos, "a value")
		}

		// v is complete: add it to the innermost open container, closing
		// containers for as long as they end.
		for {
			if len(p.open) == 0 {
				p.skipSpace()
				if p.pos < len(p.s) {
					if p.invalidUTF8At(p.pos) {
						return Value{}, p.fail(p.pos, ErrInvalidUTF8, "invalid UTF-8 byte 0x%02x", p.s[p.pos])
					}
					return Value{}, p.fail(p.pos, ErrTrailingData, "trailing data after the top-level value")
				}
				return v, nil
			}
			if p.open[len(p.open)-1] == openArray {
				p.vals = append(p.vals, v)
				p.skipSpace()
				if p.pos < len(p.s) {
					switch p.s[p.pos] {
					case ',':
						p.pos++
						p.skipSpace()
						continue value
					case ']':
						p.pos++
						base := p.arrayBase[len(p.arrayBase)-1]
						elems := p.valSlab.alloc(len(p.vals) - base)
						copy(elems, p.vals[base:])
						clear(p.vals[base:])
						p.vals = p.vals[:base]
						p.arrayBase = p.arrayBase[:len(p.arrayBase)-1]
						p.open = p.open[:len(p.open)-1]
						v = Value{Kind: Array, Elems: elems}
						continue
					}
				}
				return Value{}, p.unexpected(p.pos, "',' or ']'")
			}
			o := &p.objs[len(p.objs)-1]
			if o.dup >= 0 {
				p.mems[o.base+o.dup].Value = v
			} else {
				if o.index != nil {
					o.index[o.key] = len(p.mems) - o.base
				}
				p.mems = append(p.mems, Member{Key: o.key, Value: v})
			}
			p.skipSpace()
			if p.pos < len(p.s) {
				switch p.s[p.pos] {
				case ',':
					p.pos++
					p.skipSpace()
					if err := p.readKey(); err != nil {
						return Value{}, err
					}
					continue value
				case '}':
					p.pos++
					members := p.memSlab.alloc(len(p.mems) - o.base)
					copy(members, p.mems[o.base:])
					clear(p.mems[o.base:])
					p.mems = p.mems[:o.base]
					*o = objFrame{}
					p.objs = p.objs[:len(p.objs)-1]
					p.open = p.open[:len(p.open)-1]
					v = Value{Kind: Object, Members: members}
					continue
				}
			}
			return Value{}, p.unexpected(p.pos, "',' or '}'")
		}
	}
}

// readKey reads an object key and its colon into the innermost object's
// frame, checking for duplicates, and skips the whitespace after the colon.
func (p *parser) readKey() error {
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return p.unexpected(p.pos, "a string for an object key")
	}
	keyOff := p.pos
	key, err := p.readString()
	if err != nil {
		return err
	}
	o := &p.objs[len(p.objs)-1]
	o.key = key
	o.dup = -1
	if p.keepDups {
		return p.colon()
	}
	n := len(p.mems) - o.base
	if o.index == nil && n >= dupIndexMin {
		o.index = make(map[string]int, 2*n)
		for i, m := range p.mems[o.base:] {
			o.index[m.Key] = i
		}
	}
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			o.dup = i
		}
	} else {
		for i, m := range p.mems[o.base:] {
			if m.Key == key {
				o.dup = i
				break
			}
		}
	}
	if o.dup >= 0 && !p.lastWins {
		return p.fail(keyOff, ErrDuplicateKey, "duplicate key %s", strconv.Quote(key))
	}
	return p.colon()
}

// colon skips the whitespace, the colon and the whitespace after a key.
func (p *parser) colon() error {
	p.skipSpace()
	if p.pos >= len(p.s) || p.s[p.pos] != ':' {
		return p.unexpected(p.pos, "':' after an object key")
	}
	p.pos++
	p.skipSpace()
	return nil
}

// nonFinite reports whether a NaN or Infinity token, optionally signed,
// starts at off.
func (p *parser) nonFinite(off int) bool {
	return p.nonFiniteToken(off) != ""
}

// nonFiniteToken returns the NaN or Infinity token, optionally signed, that
// starts at off, or "".
func (p *parser) nonFiniteToken(off int) string {
	s := p.s[off:]
	i := 0
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		i = 1
	}
	for _, tok := range [...]string{"Infinity", "NaN"} {
		if strings.HasPrefix(s[i:], tok) {
			return s[:i+len(tok)]
		}
	}
	return ""
}

// startsValue reports whether c can start a JSON value.
func startsValue(c byte) bool {
	switch c {
	case '[', '{', '"', '-', 't', 'f', 'n':
		return true
	}
	return isDigit(c)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// readNumber reads a number token and returns its lexeme.
func (p *parser) readNumber() (string, error) {
	s := p.s
	start := p.pos
	i := start
	if s[i] == '-' {
		if p.nonFinite(i) {
			return "", p.fail(i, ErrNonFinite, "non-finite number %s", p.nonFiniteToken(i))
		}
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
		if i < len(s) && isDigit(s[i]) {
			return "", p.fail(i, ErrSyntax, "leading zero in number")
		}
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return "", p.unexpected(i, "a digit")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return "", p.unexpected(i, "a digit after the decimal point")
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return "", p.unexpected(i, "a digit in the exponent")
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (isAlnum(s[i]) || s[i] == '.' || s[i] == '+' || s[i] == '-') {
		return "", p.fail(i, ErrSyntax, "unexpected character %s in number", quoteByte(s[i]))
	}
	p.pos = i
	return s[start:i], nil
}

// readLiteral reads the literal lit (true, false or null).
func (p *parser) readLiteral(lit string) error {
	for i := 0; i < len(lit); i++ {
		if off := p.pos + i; off >= len(p.s) || p.s[off] != lit[i] {
			return p.unexpected(off, "literal "+lit)
		}
	}
	p.pos += len(lit)
	if p.pos < len(p.s) && isAlnum(p.s[p.pos]) {
		return p.fail(p.pos, ErrSyntax, "unexpected character %s after literal %s", quoteByte(p.s[p.pos]), lit)
	}
	return nil
}

// readString reads a string token starting at its opening quote and
// returns it decoded.
func (p *parser) readString() (string, error) {
	s := p.s
	start := p.pos + 1
	i := start
	for {
		i = jsonstring.PlainEnd(s, i)
		if i >= len(s) {
			return "", p.fail(i, ErrSyntax, "unexpected end of input in string")
		}
		c := s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return s[start:i], nil
		case c == '\\':
			return p.readEscaped(start, i)
		case c < 0x20:
			return "", p.fail(i, ErrSyntax, "control character %U in string", rune(c))
		default:
			j, err := p.utf8Run(i)
			if err != nil {
				return "", err
			}
			i = j
		}
	}
}

// utf8Run returns the end of the run of string content from i on: the
// bytes other than ", \ and controls, taken whole when they are valid
// UTF-8; else the error of its first byte that begins no character.
func (p *parser) utf8Run(i int) (int, error) {
	s := p.s
	j := i
	for j < len(s) && (s[j] >= utf8.RuneSelf || jsonstring.Plain(s[j])) {
		j++
	}
	if utf8.ValidString(s[i:j]) {
		return j, nil
	}
	for k := i; ; {
		r, size := utf8.DecodeRuneInString(s[k:j])
		if r == utf8.RuneError && size == 1 {
			return 0, p.fail(k, ErrInvalidUTF8, "invalid UTF-8 byte 0x%02x in string", s[k])
		}
		k += size
	}
}

// readEscaped continues readString from the first backslash at i of a
// string whose content starts at start.
func (p *parser) readEscaped(start, i int) (string, error) {
	s := p.s
	buf := append(p.buf[:0], s[start:i]...)
	for {
		j := jsonstring.PlainEnd(s, i)
		buf = append(buf, s[i:j]...)
		i = j
		if i >= len(s) {
			return "", p.fail(i, ErrSyntax, "unexpected end of input in string")
		}
		c := s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.buf = buf
			return string(buf), nil
		case c == '\\':
			i++
			if i >= len(s) {
				return "", p.fail(i, ErrSyntax, "unexpected end of input in escape")
			}
			switch e := s[i]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
				i++
			case 'b':
				buf = append(buf, '\b')
				i++
			case 'f':
				buf = append(buf, '\f')
				i++
			case 'n':
				buf = append(buf, '\n')
				i++
			case 'r':
				buf = append(buf, '\r')
				i++
			case 't':
				buf = append(buf, '\t')
				i++
			case 'u':
				r, err := p.hex4(i + 1)
				if err != nil {
					return "", err
				}
				i += 5
				if isSurrogate(r) {
					if r < 0xDC00 && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, err := p.hex4(i + 2)
						if err != nil {
							return "", err
						}
						if 0xDC00 <= r2 && r2 <= 0xDFFF {
							buf = utf8.AppendRune(buf, 0x10000+(r-0xD800)<<10+(r2-0xDC00))
							i += 6
							continue
						}
					}
					buf = appendWTF8Surrogate(buf, r)
					continue
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.fail(i, ErrSyntax, "invalid escape character %s in string", quoteByte(e))
			}
		case c < 0x20:
			return "", p.fail(i, ErrSyntax, "control character %U in string", rune(c))
		default:
			j, err := p.utf8Run(i)
			if err != nil {
				return "", err
			}
			buf = append(buf, s[i:j]...)
			i = j
		}
	}
}

// hex4 decodes the four hexadecimal digits of a \u escape starting at off.
func (p *parser) hex4(off int) (rune, error) {
	if off+4 <= len(p.s) {
		a, b, c, d := hexVal[p.s[off]], hexVal[p.s[off+1]], hexVal[p.s[off+2]], hexVal[p.s[off+3]]
		if a|b|c|d >= 0 {
			return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d), nil
		}
	}
	for k := 0; k < 4; k++ {
		if off+k >= len(p.s) {
			return 0, p.fail(off+k, ErrSyntax, "unexpected end of input in \\u escape")
		}
		if c := p.s[off+k]; hexVal[c] < 0 {
			if p.invalidUTF8At(off + k) {
				return 0, p.fail(off+k, ErrInvalidUTF8, "invalid UTF-8 byte 0x%02x in string", c)
			}
			return 0, p.fail(off+k, ErrSyntax, "invalid hexadecimal digit %s in \\u escape", quoteByte(c))
		}
	}
	return 0, p.fail(off, ErrSyntax, "invalid \\u escape") // not reached: a digit above is not hexadecimal
}

// hexVal is the value of each hexadecimal digit, and -1 for any other byte.
var hexVal = func() (t [256]int8) {
	for i := range t {
		switch c := byte(i); {
		case '0' <= c && c <= '9':
			t[i] = int8(c - '0')
		case 'a' <= c && c <= 'f':
			t[i] = int8(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[i] = int8(c - 'A' + 10)
		default:
			t[i] = -1
		}
	}
	return t
}()

func isSurrogate(r rune) bool { return 0xD800 <= r && r <= 0xDFFF }

// appendWTF8Surrogate appends the 3-byte generalised UTF-8 form of the
// surrogate code point r.
func appendWTF8Surrogate(dst []byte, r rune) []byte {
	return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// DecodeRune decodes the first code point of s, a string Parse made: UTF-8,
// or a lone surrogate in the 3-byte form Parse stores it in. Its size is 1
// for a byte that begins neither (utf8.RuneError).
func DecodeRune(s string) (rune, int) {
	if r, ok := wtf8Surrogate(s, 0); ok {
		return r, 3
	}
	return utf8.DecodeRuneInString(s)
}

// HasLoneSurrogate reports whether s, a string Parse made, holds a lone
// surrogate.
func HasLoneSurrogate(s string) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := wtf8Surrogate(s, i); ok {
			return true
		}
	}
	return false
}

// CodePoints counts the code points of s, a string Parse made: a lone
// surrogate, held in its 3-byte form, is one code point, as is a byte that
// begins none.
func CodePoints(s string) int {
	n := 0
	for i := 0; i < len(s); n++ {
		_, size := DecodeRune(s[i:])
		i += size
	}
	return n
}

// UTF16Len counts the UTF-16 code units of s, a string Parse made, as
// JavaScript's String length does: two for a code point beyond the BMP, one
// for any other, a lone surrogate (held in its 3-byte form) included.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); n++ {
		r, size := DecodeRune(s[i:])
		if r > 0xFFFF {
			n++
		}
		i += size
	}
	return n
}

// wtf8Surrogate returns the surrogate code point whose 3-byte generalised
// UTF-8 form starts at s[i], if there is one.
func wtf8Surrogate(s string, i int) (rune, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
	}
	return 0, false
}
