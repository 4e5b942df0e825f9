package jsongen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// unitAsWritten is how a string unit was made before appendUnit: kept as
// the specification appendUnit must follow draw for draw, since the inputs
// a seed makes (and so the findings of a fuzz run) depend on it.
func unitAsWritten(r *rand.Rand, c unitClass) string {
	esc := func(x rune) string {
		h := strconv.FormatInt(int64(x), 16)
		h = strings.Repeat("0", 4-len(h)) + h
		if r.IntN(3) == 0 {
			h = strings.ToUpper(h)
		}
		return `\u` + h
	}
	maybeEsc := func(x rune) string {
		if r.IntN(4) == 0 {
			return esc(x)
		}
		return string(x)
	}
	switch c {
	case classASCII:
		return string(pick(r, []byte("abcxyzABCXYZ0189")))
	case classPunct:
		return maybeEsc(rune(pick(r, []byte("/<>&'`!#$%()*+,-.:;=?@[]^_{|}~ \x7f"))))
	case classQuote:
		if r.IntN(5) == 0 {
			return esc(pick(r, []rune{'"', '\\'}))
		}
		return pick(r, []string{`\"`, `\\`})
	case classControl:
		x := rune(r.IntN(0x20))
		switch x {
		case '\b', '\t', '\n', '\f', '\r':
			if r.IntN(3) > 0 {
				return map[rune]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`}[x]
			}
		}
		return esc(x)
	case classEscaped:
		if r.IntN(3) == 0 {
			return `\/`
		}
		return esc(rune(pick(r, []byte("aZ09 ~"))))
	case classLatin:
		return maybeEsc(pick(r, []rune{0x80, 0x9f, 0xa9, 0xe9, 0xff, 0x100, 0x3a9, 0x5d0, 0x7ff, rune(0x80 + r.IntN(0x780))}))
	case classBMP:
		x := pick(r, []rune{0x800, 0x20ac, 0x4e2d, 0xd7ff, 0xe000, 0xf8ff, 0xfb01, 0xfffd, 0xfffe, 0xffff, rune(0x800 + r.IntN(0xd000))})
		if x >= 0xd800 && x <= 0xdfff {
			x = 0x3042
		}
		return maybeEsc(x)
	case classSeparator:
		return maybeEsc(pick(r, []rune{0x2028, 0x2029, 0xfeff, 0xa0, 0x85, 0x200b}))
	case classSupplementary:
		x := pick(r, []rune{0x10000, 0x1f600, 0x1d11e, 0x20000, 0x10ffff, rune(0x10000 + r.IntN(0x100000))})
		if r.IntN(3) == 0 {
			hi, lo := 0xd800+(x-0x10000)>>10, 0xdc00+(x-0x10000)&0x3ff
			return esc(hi) + esc(lo)
		}
		return string(x)
	}
	hi, lo := rune(0xd800+r.IntN(0x400)), rune(0xdc00+r.IntN(0x400))
	switch r.IntN(4) {
	case 0:
		return esc(hi)
	case 1:
		return esc(lo)
	case 2:
		return esc(lo) + esc(hi)
	}
	return esc(hi) + esc(hi)
}

// TestUnitsAsWritten: appendUnit appends, for every class and many
// seeds, the unit unitAsWritten returns, drawing the same numbers.
func TestUnitsAsWritten(t *testing.T) {
	for c := range numUnitClasses {
		for seed := range uint64(3000) {
			r1, r2 := rand.New(rand.NewPCG(seed, uint64(c))), rand.New(rand.NewPCG(seed, uint64(c)))
			want := unitAsWritten(r1, c)
			got := string(appendUnit([]byte("x"), r2, c))
			if got != "x"+want {
				t.Fatalf("class %d, seed %d: %q, want %q", c, seed, got[1:], want)
			}
			if a, b := r1.Uint64(), r2.Uint64(); a != b {
				t.Fatalf("class %d, seed %d: drew otherwise", c, seed)
			}
		}
	}
}

// BenchmarkValue generates documents as the jcs fuzz target does.
func BenchmarkValue(b *testing.B) {
	j := JSON{Duplicates: true, Space: true, Scalars: true}
	size := 0
	for i := 0; b.Loop(); i++ {
		size += len(j.Value(rand.New(rand.NewPCG(1, uint64(i%4096)))))
	}
	b.ReportMetric(float64(size)/float64(b.N), "bytes/op")
}
