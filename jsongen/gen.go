package jsongen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
)

// pick returns one of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// boundaryNumbers are number lexemes at the edges of ECMAScript's and
// IEEE 754's behaviour: where Number::toString switches between plain and
// exponent form (1e21, 1e-7), the safe-integer edge, subnormals, the
// largest double and the first lexemes beyond it, rounding ties, negative
// zero, and the same values spelled other ways.
var boundaryNumbers = []string{
	"0", "-0", "0.0", "-0.0", "0e0", "0E-5", "1", "-1", "10", "100",
	"1e20", "1e21", "1e22", "9.999999999999999e20", "999999999999999900000", "999999999999999999999",
	"100000000000000000000", "1000000000000000000000", "123456789012345678901", "1.2345678901234567e21",
	"0.000001", "0.0000001", "1e-6", "1e-7", "1.5e-7", "0.000001234", "0.0000001234", "9.999999999999999e-7",
	"9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740991", "-9007199254740993",
	"18014398509481984", "295147905179352830000", "4.35", "0.1", "0.2", "0.30000000000000004", "1.1",
	"5e-324", "4.9406564584124654e-324", "2e-324", "3e-324", "2.2250738585072014e-308", "2.225073858507201e-308",
	"1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1.8e308", "1e308", "1e309",
	"1e400", "-1e400", "1e-400", "-1e-400", "123e-20", "1E400", "2e308",
	"333333333.3333333", "0.3333333333333333", "1.0", "1.50", "1E2", "1e+2", "1E+2", "10e-1", "0.1e1",
	"2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
	"9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
	"1e16", "12345678901234567890", "1.7976931348623157e+308", "-1.7976931348623157e308",
}

// Number returns a JSON number lexeme: one at an ECMAScript or IEEE 754
// boundary, a value made at a Number::toString switch point, a double from
// a random bit pattern written in one of several styles, an integer at a
// width's edge, or a long run of digits.
func Number(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0, 1, 2:
		return pick(r, boundaryNumbers)
	case 3, 4:
		return switchPoint(r)
	case 5, 6:
		return fromBits(r)
	case 7, 8:
		return Integer(r)
	}
	return digitRun(r)
}

// switchPoint returns d.ddd×10^(n-1) with n at or next to the points where
// Number::toString changes form (n ≤ -6, n ≤ 0, n ≤ 21), or anywhere.
func switchPoint(r *rand.Rand) string {
	digits := 1 + r.IntN(17)
	var b strings.Builder
	b.WriteByte(byte('1' + r.IntN(9)))
	for range digits - 1 {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	n := pick(r, []int{-7, -6, -5, -4, 0, 1, 15, 16, 17, 20, 21, 22, 23})
	if r.IntN(4) == 0 {
		n = r.IntN(640) - 330
	}
	mant := b.String()
	lex := mant[:1]
	if len(mant) > 1 {
		lex += "." + mant[1:]
	}
	lex += "e" + strconv.Itoa(n-1)
	if r.IntN(3) == 0 {
		f, err := strconv.ParseFloat(lex, 64)
		if err == nil {
			if s, err := canon.FormatES6(f); err == nil {
				lex = s // the canonical form itself, as input
			}
		}
	}
	if r.IntN(4) == 0 {
		lex = "-" + lex
	}
	return lex
}

// fromBits returns the double of a random bit pattern, written in one of
// several styles; a NaN or infinity becomes a lexeme beyond double range.
func fromBits(r *rand.Rand) string {
	bits := r.Uint64()
	switch r.IntN(4) {
	case 0:
		bits &^= 0x7ff << 52 // subnormal or zero
		bits |= uint64(r.IntN(2)) << 52
	case 1:
		bits = bits&^(0x7ff<<52) | uint64(1023-30+r.IntN(100))<<52 // near 1 to 1e21
	}
	f := math.Float64frombits(bits)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return pick(r, []string{"1e400", "-1e999", "1.8e308"})
	}
	switch r.IntN(6) {
	case 0:
		return strconv.FormatFloat(f, 'g', -1, 64) // Go's shortest: 1e+21
	case 1:
		return strconv.FormatFloat(f, 'e', 16, 64) // 17 significant digits
	case 2:
		return strconv.FormatFloat(f, 'e', 20, 64) // more digits than a double holds
	case 3:
		if e := math.Abs(math.Log10(math.Abs(f))); e < 40 || f == 0 {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strings.ToUpper(strconv.FormatFloat(f, 'e', -1, 64))
	}
	s, _ := canon.FormatES6(f)
	return s
}

// Integer returns an integer lexeme: small, or at the edge of 8, 16, 31,
// 32, 53, 63 and 64 bits, or a run of digits.
func Integer(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return strconv.Itoa(r.IntN(2000) - 1000)
	case 1, 2:
		bits := pick(r, []uint{7, 8, 15, 16, 31, 32, 53, 63, 64})
		n := new(big2).pow2(bits)
		s := n.add(int64(r.IntN(5) - 2))
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		return s
	}
	n := 1 + r.IntN(25)
	var b strings.Builder
	b.WriteByte(byte('1' + r.IntN(9)))
	for range n - 1 {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String()
}

// big2 is a non-negative decimal number, enough for 2^64 ± a little.
type big2 struct{ d []byte } // little-endian decimal digits

func (b *big2) pow2(n uint) *big2 {
	b.d = []byte{1}
	for range n {
		carry := byte(0)
		for i := range b.d {
			v := b.d[i]*2 + carry
			b.d[i], carry = v%10, v/10
		}
		if carry > 0 {
			b.d = append(b.d, carry)
		}
	}
	return b
}

// add returns the decimal text of b+k, k small.
func (b *big2) add(k int64) string {
	// b is at least 128, so b+k stays positive for |k| ≤ 2.
	v := append([]byte(nil), b.d...)
	if k >= 0 {
		carry := byte(k)
		for i := 0; carry > 0; i++ {
			if i == len(v) {
				v = append(v, 0)
			}
			s := v[i] + carry
			v[i], carry = s%10, s/10
		}
	} else {
		borrow := byte(-k)
		for i := 0; borrow > 0; i++ {
			if v[i] >= borrow {
				v[i] -= borrow
				borrow = 0
			} else {
				v[i] += 10 - borrow
				borrow = 1
			}
		}
	}
	for len(v) > 1 && v[len(v)-1] == 0 {
		v = v[:len(v)-1]
	}
	out := make([]byte, len(v))
	for i, d := range v {
		out[len(v)-1-i] = '0' + d
	}
	return string(out)
}

// digitRun returns a number with many digits: a long integer, a long
// fraction, or both, at times with an exponent.
func digitRun(r *rand.Rand) string {
	run := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	s := strconv.Itoa(1+r.IntN(9)) + run(r.IntN(40))
	if r.IntN(2) == 0 {
		s += "." + run(1+r.IntN(40))
	}
	if r.IntN(3) == 0 {
		s += "e" + strconv.Itoa(r.IntN(700)-350)
	}
	if r.IntN(3) == 0 {
		s = "-" + s
	}
	return s
}

// A string unit is one character of a string lexeme, as written: raw or
// escaped.
type unitClass int

const (
	classASCII         unitClass = iota // letters and digits
	classPunct                          // ASCII punctuation, / < > & ' and DEL
	classQuote                          // " and \, which must be escaped
	classControl                        // U+0000 to U+001F, escaped
	classEscaped                        // an ordinary character written as an escape
	classLatin                          // U+0080 to U+07FF
	classBMP                            // U+0800 to U+FFFF, not surrogates
	classSeparator                      // U+2028, U+2029, U+FEFF, U+00A0
	classSupplementary                  // beyond the BMP, raw or as a pair
	classLoneSurrogate                  // \ud800 to \udfff alone or in the wrong order
	numUnitClasses
)

// appendUnit appends one string unit of class c to b.
func appendUnit(b []byte, r *rand.Rand, c unitClass) []byte {
	switch c {
	case classASCII:
		return append(b, pick(r, []byte("abcxyzABCXYZ0189")))
	case classPunct:
		return appendMaybeEsc(b, r, rune(pick(r, []byte("/<>&'`!#$%()*+,-.:;=?@[]^_{|}~ \x7f"))))
	case classQuote:
		if r.IntN(5) == 0 {
			return appendEsc(b, r, pick(r, []rune{'"', '\\'}))
		}
		return append(b, pick(r, []string{`\"`, `\\`})...)
	case classControl:
		x := rune(r.IntN(0x20))
		switch x {
		case '\b', '\t', '\n', '\f', '\r':
			if r.IntN(3) > 0 {
				return append(b, '\\', "btn\x00fr"[x-'\b'])
			}
		}
		return appendEsc(b, r, x)
	case classEscaped:
		if r.IntN(3) == 0 {
			return append(b, `\/`...)
		}
		return appendEsc(b, r, rune(pick(r, []byte("aZ09 ~"))))
	case classLatin:
		return appendMaybeEsc(b, r, pick(r, []rune{0x80, 0x9f, 0xa9, 0xe9, 0xff, 0x100, 0x3a9, 0x5d0, 0x7ff, rune(0x80 + r.IntN(0x780))}))
	case classBMP:
		x := pick(r, []rune{0x800, 0x20ac, 0x4e2d, 0xd7ff, 0xe000, 0xf8ff, 0xfb01, 0xfffd, 0xfffe, 0xffff, rune(0x800 + r.IntN(0xd000))})
		if x >= 0xd800 && x <= 0xdfff {
			x = 0x3042
		}
		return appendMaybeEsc(b, r, x)
	case classSeparator:
		return appendMaybeEsc(b, r, pick(r, []rune{0x2028, 0x2029, 0xfeff, 0xa0, 0x85, 0x200b}))
	case classSupplementary:
		x := pick(r, []rune{0x10000, 0x1f600, 0x1d11e, 0x20000, 0x10ffff, rune(0x10000 + r.IntN(0x100000))})
		if r.IntN(3) == 0 {
			hi, lo := 0xd800+(x-0x10000)>>10, 0xdc00+(x-0x10000)&0x3ff
			return appendEsc(appendEsc(b, r, hi), r, lo)
		}
		return utf8.AppendRune(b, x)
	}
	// A lone surrogate: high or low alone, a low before a high, two highs.
	hi, lo := rune(0xd800+r.IntN(0x400)), rune(0xdc00+r.IntN(0x400))
	switch r.IntN(4) {
	case 0:
		return appendEsc(b, r, hi)
	case 1:
		return appendEsc(b, r, lo)
	case 2:
		return appendEsc(appendEsc(b, r, lo), r, hi)
	}
	return appendEsc(appendEsc(b, r, hi), r, hi)
}

// appendEsc appends x, at most U+FFFF, as a \u escape, its hex digits in
// upper case one time in three.
func appendEsc(b []byte, r *rand.Rand, x rune) []byte {
	digits := "0123456789abcdef"
	if r.IntN(3) == 0 {
		digits = "0123456789ABCDEF"
	}
	return append(b, '\\', 'u', digits[x>>12&0xf], digits[x>>8&0xf], digits[x>>4&0xf], digits[x&0xf])
}

// appendMaybeEsc appends x as a \u escape one time in four, else raw.
func appendMaybeEsc(b []byte, r *rand.Rand, x rune) []byte {
	if r.IntN(4) == 0 {
		return appendEsc(b, r, x)
	}
	return utf8.AppendRune(b, x)
}

// String returns a JSON string lexeme, quotes included, mixing characters
// of every Unicode class JSON writers treat apart, raw and escaped, lone
// surrogates included.
func String(r *rand.Rand) string { return stringLexeme(r, true, 0) }

// StringNoSurrogates is String without lone surrogates.
func StringNoSurrogates(r *rand.Rand) string { return stringLexeme(r, false, 0) }

// stringLexeme returns a string lexeme of about n units (0: a random length).
func stringLexeme(r *rand.Rand, lone bool, n int) string {
	if n == 0 {
		switch r.IntN(10) {
		case 0:
			n = 0
		case 1:
			n = 50 + r.IntN(500)
		default:
			n = 1 + r.IntN(12)
		}
	}
	// Most strings draw from one or two classes, so that a finding's
	// shrunk input names the class that matters.
	classes := [2]unitClass{unitClass(r.IntN(int(numUnitClasses))), unitClass(r.IntN(int(numUnitClasses)))}
	b := make([]byte, 1, 2+2*n)
	b[0] = '"'
	for range n {
		c := classes[r.IntN(len(classes))]
		if r.IntN(3) == 0 {
			c = classASCII
		}
		if c == classLoneSurrogate && !lone {
			c = classSupplementary
		}
		b = appendUnit(b, r, c)
	}
	return string(append(b, '"'))
}

// keyDictionary holds member names that mean something to some host
// language (JavaScript's prototype chain, Python's dunders, PHP's numeric
// keys, JSON-LD and serializer type tags), and names whose order differs
// between UTF-16 code units, code points and bytes. They are JSON lexemes.
var keyDictionary = []string{
	`"__proto__"`, `"constructor"`, `"prototype"`, `"toString"`, `"valueOf"`, `"hasOwnProperty"`,
	`"isPrototypeOf"`, `"propertyIsEnumerable"`, `"toLocaleString"`, `"__defineGetter__"`, `"__lookupSetter__"`,
	`"length"`, `"name"`, `"caller"`, `"arguments"`, `"then"`, `"toJSON"`, `"__class__"`, `"__dict__"`,
	`"__init__"`, `"__module__"`, `"__getattr__"`, `"self"`, `"None"`, `"keys"`, `"items"`, `"get"`,
	`"class"`, `"hashCode"`, `"equals"`, `"getClass"`, `"__construct"`, `"__toString"`, `"$type"`, `"$id"`,
	`"$ref"`, `"@type"`, `"@context"`, `"_id"`, `"undefined"`, `"null"`, `"true"`, `"false"`, `"NaN"`,
	`"Infinity"`, `"-Infinity"`, `"0"`, `"1"`, `"-1"`, `"01"`, `"1.0"`, `"1e3"`, `"10"`, `"2"`,
	`"4294967294"`, `"4294967295"`, `"4294967296"`, `"9007199254740993"`, `"-0"`, `""`, `" "`,
	`"a"`, `"A"`, `"b"`, `"B"`, `"aa"`, `"ab"`, `"a\u0000"`, `"\u0080"`, `"é"`, `"e\u0301"`, `"ÿ"`,
	`"Ā"`, `"€"`, `"\ue000"`, `"\uffff"`, `"\uFB01"`, `"😀"`, `"\ud83d\ude00"`, `"𐀀"`, `"\ud800"`, `"\udfff"`,
}

// Key returns a member name lexeme: from the dictionary of host-language
// built-ins and ordering traps, or a short generated string.
func Key(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return pick(r, keyDictionary)
	}
	return stringLexeme(r, true, 1+r.IntN(3))
}

// KeyNoSurrogates is Key without surrogate escapes.
func KeyNoSurrogates(r *rand.Rand) string {
	for {
		if k := Key(r); !hasSurrogateEscape(k) {
			return k
		}
	}
}

// hasSurrogateEscape reports whether a lexeme holds a \uD800 to \uDFFF escape.
func hasSurrogateEscape(lex string) bool {
	l := strings.ToLower(lex)
	for i := 0; i+6 <= len(l); i++ {
		if l[i] == '\\' && l[i+1] == 'u' && l[i+2] == 'd' && strings.IndexByte("89abcdef", l[i+3]) >= 0 {
			return true
		}
	}
	return false
}

// JSON says how Tree and Value generate JSON: where scalars and names come
// from, how deep and wide containers go, and whether the text has
// whitespace and repeated member names.
type JSON struct {
	Number func(*rand.Rand) string // number lexemes; nil: Number
	String func(*rand.Rand) string // string lexemes; nil: String
	Key    func(*rand.Rand) string // member names; nil: Key
	// MaxDepth caps the deep shapes' nesting (0: 1000).
	MaxDepth int
	// Duplicates makes some objects repeat a member name.
	Duplicates bool
	// Space puts whitespace between some tokens of Value's text.
	Space bool
	// Scalars makes some documents a bare scalar.
	Scalars bool
}

// deepDepths are nesting depths on either side of common parser limits
// (32, 64, 100, 128, 512, 1000).
var deepDepths = []int{2, 3, 4, 8, 31, 32, 33, 40, 63, 64, 65, 66, 100, 101, 128, 129, 500, 1000}

// Tree returns a generated JSON document: a small random tree, a bare
// scalar, a chain nested deep, a wide array or object, an object of many
// names, or a string long enough to cross a buffer boundary.
func (j JSON) Tree(r *rand.Rand) *Node {
	switch r.IntN(10) {
	case 0:
		if j.Scalars {
			return j.scalar(r)
		}
		return j.random(r, 3, 8)
	case 1, 2:
		return j.deep(r)
	case 3:
		return j.wide(r)
	case 4, 5:
		return j.object(r, 2+r.IntN(10), 2)
	case 6:
		if r.IntN(4) == 0 {
			return Arr(longString(r))
		}
	}
	return j.random(r, 1+r.IntN(5), 1+r.IntN(30))
}

// longString returns a string of multi-byte characters whose text crosses
// a common buffer size (1, 4, 8 or 64 KiB), so that a reader that decodes
// its input in chunks cuts a character in two.
func longString(r *rand.Rand) *Node {
	size := pick(r, []int{1024, 4096, 8192, 65536})
	c := pick(r, []string{"é", "€", "😀", "\u2028", "ab"})
	n := size/len(c) + r.IntN(3) - 1
	return &Node{Kind: canon.String, Raw: `"` + strings.Repeat("a", r.IntN(4)) + strings.Repeat(c, n) + `"`}
}

// Value returns the text of a document from Tree, with whitespace when
// j.Space says so.
func (j JSON) Value(r *rand.Rand) []byte {
	n := j.Tree(r)
	if j.Space && r.IntN(3) == 0 {
		return spaced(r, n, nil)
	}
	return n.Encode()
}

func (j JSON) number(r *rand.Rand) string {
	if j.Number != nil {
		return j.Number(r)
	}
	return Number(r)
}

func (j JSON) str(r *rand.Rand) string {
	if j.String != nil {
		return j.String(r)
	}
	return String(r)
}

func (j JSON) key(r *rand.Rand) string {
	if j.Key != nil {
		return j.Key(r)
	}
	return Key(r)
}

func (j JSON) scalar(r *rand.Rand) *Node {
	switch r.IntN(8) {
	case 0, 1, 2:
		return &Node{Kind: canon.Number, Raw: j.number(r)}
	case 3, 4, 5:
		return &Node{Kind: canon.String, Raw: j.str(r)}
	case 6:
		return &Node{Kind: canon.Bool, Raw: pick(r, []string{"true", "false"})}
	}
	return &Node{Kind: canon.Null, Raw: "null"}
}

// random returns a tree of about budget nodes, at most depth deep.
func (j JSON) random(r *rand.Rand, depth, budget int) *Node {
	if depth <= 0 || budget <= 1 || r.IntN(4) == 0 {
		return j.scalar(r)
	}
	n := 1 + r.IntN(min(budget, 6))
	if r.IntN(2) == 0 {
		a := &Node{Kind: canon.Array}
		for range n {
			a.Elems = append(a.Elems, j.random(r, depth-1, budget/n))
		}
		return a
	}
	return j.object(r, n, depth-1)
}

// object returns an object of n members whose values go depth deep.
func (j JSON) object(r *rand.Rand, n, depth int) *Node {
	o := &Node{Kind: canon.Object}
	for range n {
		k := j.key(r)
		if j.Duplicates && len(o.Keys) > 0 && r.IntN(8) == 0 {
			k = pick(r, o.Keys)
		}
		o.Keys = append(o.Keys, k)
		o.Vals = append(o.Vals, j.random(r, depth, 4))
	}
	return o
}

// deep returns a chain of arrays and objects nested to one of deepDepths.
func (j JSON) deep(r *rand.Rand) *Node {
	limit := j.MaxDepth
	if limit <= 0 {
		limit = 1000
	}
	d := min(pick(r, deepDepths), limit)
	leaf := j.scalar(r)
	if r.IntN(3) == 0 {
		leaf = &Node{Kind: pick(r, []canon.Kind{canon.Array, canon.Object})}
		d--
	}
	arrays := r.IntN(3) // 0: objects only, 1: arrays only, 2: mixed
	n := leaf
	for range d {
		if arrays == 1 || arrays == 2 && r.IntN(2) == 0 {
			n = &Node{Kind: canon.Array, Elems: []*Node{n}}
		} else {
			n = &Node{Kind: canon.Object, Keys: []string{j.key(r)}, Vals: []*Node{n}}
		}
	}
	return n
}

// wide returns an array or object of many members.
func (j JSON) wide(r *rand.Rand) *Node {
	n := 20 + r.IntN(300)
	if r.IntN(2) == 0 {
		a := &Node{Kind: canon.Array}
		for range n {
			a.Elems = append(a.Elems, j.scalar(r))
		}
		return a
	}
	return j.object(r, n, 0)
}

// Spaced returns n's text with random JSON whitespace between tokens.
func Spaced(r *rand.Rand, n *Node) []byte { return spaced(r, n, nil) }

// spaced appends n's text with random JSON whitespace between tokens to dst.
func spaced(r *rand.Rand, n *Node, dst []byte) []byte {
	return SpacedWith(r, n, dst, jsonSpace)
}

// jsonSpace is the whitespace spaced draws from, line ends included.
var jsonSpace = []string{" ", "\t", "\n", "\r\n", "  "}

// SpacedWith appends n's text to dst with whitespace drawn from space between
// tokens, a third of the time at each place.
func SpacedWith(r *rand.Rand, n *Node, dst []byte, space []string) []byte {
	ws := func() {
		if r.IntN(3) == 0 {
			dst = append(dst, pick(r, space)...)
		}
	}
	ws()
	switch n.Kind {
	case canon.Array:
		dst = append(dst, '[')
		for i, e := range n.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = SpacedWith(r, e, dst, space)
		}
		ws()
		dst = append(dst, ']')
	case canon.Object:
		dst = append(dst, '{')
		for i, k := range n.Keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			ws()
			dst = append(dst, k...)
			ws()
			dst = append(dst, ':')
			dst = SpacedWith(r, n.Vals[i], dst, space)
		}
		ws()
		dst = append(dst, '}')
	default:
		dst = append(dst, n.Raw...)
	}
	ws()
	return dst
}
