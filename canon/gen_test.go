package canon

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// floatBatch is how many floats one differential line holds.
const floatBatch = 1000

// diffFloatCount is the number of random floats the differential tests draw.
func diffFloatCount() int {
	if testing.Short() {
		return 10000
	}
	return 100000
}

// diffFloats returns the RFC 8785 Appendix B values, some boundary values
// and n floats drawn from uniformly random 64-bit patterns, skipping NaN
// and the infinities.
func diffFloats(n int) []float64 {
	var fs []float64
	for _, tc := range appendixB {
		fs = append(fs, math.Float64frombits(tc.bits))
	}
	for e := -330; e <= 310; e++ {
		f, _ := strconv.ParseFloat("1e"+strconv.Itoa(e), 64)
		if !math.IsInf(f, 0) {
			fs = append(fs, f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1)), -f)
		}
	}
	fs = append(fs, math.SmallestNonzeroFloat64, math.MaxFloat64, 0x1p-1022, 1<<53-1, 1<<53, 1<<53+2, 0.1, 0.2, 0.30000000000000004)
	r := rand.New(rand.NewPCG(0x5eed, 0xf10a7))
	for len(fs) < n+len(appendixB) {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		fs = append(fs, f)
	}
	return fs
}

// floatLines returns fs as JSON arrays of at most floatBatch numbers each,
// every number as its shortest Go 'g' lexeme.
func floatLines(fs []float64) []string {
	var lines []string
	for i := 0; i < len(fs); i += floatBatch {
		var b []byte
		b = append(b, '[')
		for j := i; j < min(i+floatBatch, len(fs)); j++ {
			if j > i {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, fs[j], 'g', -1, 64)
		}
		lines = append(lines, string(append(b, ']')))
	}
	return lines
}

// docGen writes random JSON texts on one line each, with keys and strings
// from the Unicode ranges where canonicalisers tend to differ.
type docGen struct {
	r          *rand.Rand
	surrogates bool // also write lone surrogate escapes
}

// diffDocs returns n random JSON texts.
func diffDocs(seed uint64, n int, surrogates bool) []string {
	g := docGen{r: rand.New(rand.NewPCG(seed, 0xd0c5)), surrogates: surrogates}
	docs := make([]string, n)
	for i := range docs {
		docs[i] = string(g.value(nil, 0))
	}
	return docs
}

func (g *docGen) space(b []byte) []byte {
	for g.r.IntN(4) == 0 {
		b = append(b, " \t"[g.r.IntN(2)])
	}
	return b
}

func (g *docGen) value(b []byte, depth int) []byte {
	b = g.space(b)
	k := g.r.IntN(10)
	if depth == 0 {
		k = 8 + g.r.IntN(2)
	}
	if depth >= 5 && k >= 8 {
		k = g.r.IntN(8)
	}
	switch k {
	case 0:
		b = append(b, "null"...)
	case 1:
		b = append(b, []string{"true", "false"}[g.r.IntN(2)]...)
	case 2, 3, 4:
		b = g.number(b)
	case 5, 6, 7:
		b, _ = g.str(b)
	case 8:
		b = append(b, '[')
		for i, n := 0, g.r.IntN(7); i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = g.value(b, depth+1)
		}
		b = g.space(b)
		b = append(b, ']')
	default:
		b = append(b, '{')
		seen := map[string]bool{}
		for i, n := 0, g.r.IntN(7); i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = g.space(b)
			for {
				kb, id := g.str(nil)
				if !seen[id] {
					seen[id] = true
					b = append(b, kb...)
					break
				}
			}
			b = g.space(b)
			b = append(b, ':')
			b = g.value(b, depth+1)
		}
		b = g.space(b)
		b = append(b, '}')
	}
	return g.space(b)
}

// randRune returns a scalar value from a random interesting range.
func (g *docGen) randRune() rune {
	r := g.r
	switch r.IntN(11) {
	case 0:
		return rune(r.IntN(0x20))
	case 1:
		return rune(0x20 + r.IntN(0x60))
	case 2:
		return []rune{'"', '\\', '/', 0x7f, 0x2028, 0x2029, 0xfeff}[r.IntN(7)]
	case 3:
		return rune(0x80 + r.IntN(0x780))
	case 4:
		return rune(0x800 + r.IntN(0xD800-0x800))
	case 5:
		return rune(0xE000 + r.IntN(0x1900))
	case 6:
		return rune(0xFFF0 + r.IntN(0x10))
	case 7:
		return rune(0x1F600 + r.IntN(0x50))
	case 8:
		return rune(0x10000 + r.IntN(0x100000))
	case 9:
		return rune(0xFB00 + r.IntN(0x50))
	default:
		return rune('a' + r.IntN(26))
	}
}

// appendUEscape appends \uXXXX with hex digits of random case.
func (g *docGen) appendUEscape(b []byte, u uint16) []byte {
	const lower, upper = "0123456789abcdef", "0123456789ABCDEF"
	digits := lower
	if g.r.IntN(2) == 0 {
		digits = upper
	}
	return append(b, '\\', 'u', digits[u>>12], digits[u>>8&0xF], digits[u>>4&0xF], digits[u&0xF])
}

// str appends a random JSON string and returns the UTF-16 code units it
// decodes to, as an identity.
func (g *docGen) str(b []byte) ([]byte, string) {
	var units []uint16
	b = append(b, '"')
	for n := g.r.IntN(9); n > 0; n-- {
		if g.surrogates && g.r.IntN(6) == 0 {
			u := uint16(0xD800 + g.r.IntN(0x800))
			units = append(units, u)
			b = g.appendUEscape(b, u)
			continue
		}
		c := g.randRune()
		units = utf16.AppendRune(units, c)
		switch {
		case c < 0x20 || c == '"' || c == '\\':
			short := map[rune]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}
			if s, ok := short[c]; ok && g.r.IntN(3) > 0 {
				b = append(b, '\\', s)
			} else {
				b = g.appendUEscape(b, uint16(c))
			}
		case c == '/' && g.r.IntN(2) == 0:
			b = append(b, '\\', '/')
		case g.r.IntN(4) == 0:
			for _, u := range utf16.Encode([]rune{c}) {
				b = g.appendUEscape(b, u)
			}
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	id := make([]byte, 0, 2*len(units))
	for _, u := range units {
		id = append(id, byte(u>>8), byte(u))
	}
	return append(b, '"'), string(id)
}

// number appends a random JSON number, often in a non-canonical form.
func (g *docGen) number(b []byte) []byte {
	r := g.r
	finite := func() float64 {
		for {
			if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	}
	switch r.IntN(9) {
	case 0:
		return strconv.AppendInt(b, int64(r.IntN(2001)-1000), 10)
	case 1:
		n := r.Int64N(1 << 62)
		if r.IntN(2) == 0 {
			n = -n
		}
		return strconv.AppendInt(b, n, 10)
	case 2:
		return strconv.AppendFloat(b, finite(), 'g', -1, 64)
	case 3:
		s := strconv.FormatFloat(finite(), 'e', 16+r.IntN(4), 64)
		return append(b, strings.Replace(s, "e", "E", 1)...)
	case 4:
		b = strconv.AppendInt(b, int64(r.IntN(100000)), 10)
		return append(b, []string{".0", "e0", "E+00", ".000e-0", "e2", ".5e1"}[r.IntN(6)]...)
	case 5:
		return append(b, []string{"-0", "0.0", "-0.0e5", "0e-7", "-0E+3"}[r.IntN(5)]...)
	case 6:
		b = strconv.AppendInt(b, int64(r.IntN(1000000)), 10)
		b = append(b, '.')
		for n := 1 + r.IntN(20); n > 0; n-- {
			b = append(b, byte('0'+r.IntN(10)))
		}
		return b
	case 7:
		f := r.Float64() * math.Pow(10, float64(r.IntN(60)-30))
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	default:
		return strconv.AppendFloat(b, float64(r.IntN(1<<20))/float64(uint(1)<<r.IntN(30)), 'f', -1, 64)
	}
}
