package ecmaregexp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// Generator makes strings for a pattern from its parse tree, for a fuzzer:
// strings meant to match it, and strings meant to miss it at one of its
// edges (a character just outside a class, a count one beyond a bound, a
// final line feed after $). Lookarounds and backreferences take no part
// in generation, so a string meant to match may not: the validator that
// judges it decides. It is safe for concurrent use.
type Generator struct {
	root       *node
	begin, end bool // every match starts at ^, ends at $
	// around says characters may be put before (around[0]) or after
	// (around[1]) a match: the pattern has no ^ (no $) anywhere.
	around  [2]bool
	palette []rune // the pattern's own characters, and the edge characters
	sites   int    // the places a miss may be made
}

// edgeRunes are characters readers of patterns disagree about: white space
// of other definitions (Python's, Java's, RE2's), line terminators, digits
// that are not ASCII, letters that change under case folding, characters
// beyond the BMP, and controls.
var edgeRunes = []rune{
	'a', 'z', 'A', 'Z', '0', '9', '_', '-', '.', '/', '\\', ' ', ':', '~', '*',
	'\t', '\n', '\r', '\v', '\f', 0x00, 0x1C, 0x1F, 0x7F, 0x85, 0xA0, 0x1680, 0x180E, 0x2000, 0x200B,
	0x2028, 0x2029, 0x202F, 0x3000, 0xFEFF,
	0x0660, 0x06F3, 0x0966, 0xFF10, 0x1D7CE, // digits that are not ASCII
	'é', 'ß', 0x130, 0x131, 0x17F, 0x212A, // İ ı ſ K: letters case folding maps to ASCII
	0x1F600, 0x10000, 0xFFFF,
}

// dialectRunes are the characters ECMA-262's \s, \d and . read otherwise
// than Python's re, RE2 or Java: its white space beyond ASCII, the line
// terminators, and digits beyond ASCII.
var dialectRunes = []rune{0xA0, 0x1680, 0x2000, 0x2028, 0x2029, 0x202F, 0x3000, 0xFEFF, '\v', '\r', 0x85, 0x1C, 0x0660, 0xFF10}

// NewGenerator parses pattern as Compile does and returns its generator.
func NewGenerator(pattern string) (*Generator, error) {
	root, _, err := parse(pattern)
	if err != nil {
		return nil, err
	}
	g := &Generator{root: root, begin: anchored(root), end: anchoredEnd(root), around: [2]bool{true, true}}
	seen := map[rune]bool{}
	add := func(r rune) {
		if !seen[r] && r >= 0 && r <= unicode.MaxRune {
			seen[r] = true
			g.palette = append(g.palette, r)
		}
	}
	var walk func(n *node)
	walk = func(n *node) {
		switch n.op {
		case opChar:
			add(n.r)
			g.sites++
		case opSet:
			g.sites++
			for i, sp := range n.set.spans {
				if i > 8 {
					break
				}
				add(sp.lo)
				add(sp.hi)
				add(sp.lo - 1)
				add(sp.hi + 1)
			}
		case opRepeat:
			g.sites++
		case opBegin:
			g.around[0] = false
		case opEnd:
			g.around[1] = false
		}
		for _, s := range n.subs {
			walk(s)
		}
	}
	walk(root)
	for _, r := range edgeRunes {
		add(r)
	}
	slices.Sort(g.palette)
	return g, nil
}

// anchoredEnd reports whether every match of n ends at $.
func anchoredEnd(n *node) bool {
	switch n.op {
	case opEnd:
		return true
	case opConcat:
		return len(n.subs) > 0 && anchoredEnd(n.subs[len(n.subs)-1])
	case opGroup:
		return anchoredEnd(n.subs[0])
	case opAlt:
		for _, sub := range n.subs {
			if !anchoredEnd(sub) {
				return false
			}
		}
		return len(n.subs) > 0
	}
	return false
}

// Match returns a string meant to match the pattern: each class drawn
// from, each count within its bounds (at a bound now and then), with
// something around it now and then when the pattern is not anchored.
func (g *Generator) Match(r *rand.Rand) string {
	w := &gen{g: g, r: r, miss: -1}
	var b strings.Builder
	g.surround(r, &b, true)
	w.node(&b, g.root)
	g.surround(r, &b, false)
	return b.String()
}

// Miss returns a string meant to miss the pattern at one edge: a final
// line feed after a $, a character before a ^, white space, a line
// terminator or a digit some dialect reads otherwise, a character of a class
// replaced by one just outside it (the next code point, a digit or white
// space of another reading, a letter of the other case), or a count one
// below or above its bounds.
func (g *Generator) Miss(r *rand.Rand) string {
	var b strings.Builder
	switch k := r.IntN(9); {
	case k == 0 && g.end:
		w := &gen{g: g, r: r, miss: -1}
		w.node(&b, g.root)
		b.WriteString(pickRune(r, "\n", "\n", "\r\n", "\r", "\u2028", " "))
		return b.String()
	case k == 1 && g.begin:
		b.WriteString(pickRune(r, " ", "\n", "\ufeff", "x"))
		w := &gen{g: g, r: r, miss: -1}
		w.node(&b, g.root)
		return b.String()
	case k == 2:
		// A character readers of patterns disagree about, put into a
		// string that matches: what one dialect's \s, \d or . takes and
		// another's does not.
		w := &gen{g: g, r: r, miss: -1}
		w.node(&b, g.root)
		rs := []rune(b.String())
		i := r.IntN(len(rs) + 1)
		c := dialectRunes[r.IntN(len(dialectRunes))]
		if i < len(rs) && r.IntN(2) == 0 {
			rs[i] = c
		} else {
			rs = slices.Insert(rs, i, c)
		}
		return string(rs)
	}
	w := &gen{g: g, r: r, miss: r.IntN(max(1, g.sites))}
	w.node(&b, g.root)
	if !w.missed && g.end {
		b.WriteString("\n")
	}
	return b.String()
}

func pickRune(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

// surround writes, a quarter of the time, characters before (or after) a
// match of a pattern not anchored there.
func (g *Generator) surround(r *rand.Rand, b *strings.Builder, before bool) {
	if (before && !g.around[0]) || (!before && !g.around[1]) || r.IntN(4) != 0 {
		return
	}
	for range 1 + r.IntN(3) {
		b.WriteRune(g.palette[r.IntN(len(g.palette))])
	}
}

// gen is one generation: miss is the number of the site to miss at (-1:
// none), counted as sites are met.
type gen struct {
	g      *Generator
	r      *rand.Rand
	miss   int
	site   int
	missed bool
	depth  int
}

// here reports whether the site met now is the one to miss at.
func (w *gen) here() bool {
	hit := w.site == w.miss && !w.missed
	w.site++
	if hit {
		w.missed = true
	}
	return hit
}

func (w *gen) node(b *strings.Builder, n *node) {
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > 64 || b.Len() > 1<<14 {
		return
	}
	switch n.op {
	case opChar:
		if w.here() {
			b.WriteRune(w.otherThan(n.r))
			return
		}
		b.WriteRune(n.r)
	case opSet:
		if w.here() {
			b.WriteRune(w.outside(n.set))
			return
		}
		b.WriteRune(w.inside(n.set))
	case opConcat:
		for _, s := range n.subs {
			w.node(b, s)
		}
	case opAlt:
		w.node(b, n.subs[w.r.IntN(len(n.subs))])
	case opGroup:
		w.node(b, n.subs[0])
	case opRepeat:
		count := w.count(n.min, n.max)
		if w.here() {
			switch {
			case n.min > 0 && (n.max < 0 || n.max >= maxCount || w.r.IntN(2) == 0):
				count = n.min - 1
			case n.max >= 0 && n.max < maxCount:
				count = n.max + 1
			}
		}
		for range count {
			w.node(b, n.subs[0])
		}
	}
	// opEmpty, anchors, word boundaries, lookarounds and backreferences
	// write nothing.
}

// count is a repetition count within [lo, hi] (hi < 0 or maxCount: no
// bound): mostly small, at a bound a quarter of the time.
func (w *gen) count(lo, hi int) int {
	bounded := hi >= 0 && hi < maxCount
	switch k := w.r.IntN(8); {
	case k == 0:
		return lo
	case k == 1 && bounded:
		return hi
	case k == 2 && !bounded:
		return lo + 16 + w.r.IntN(48)
	}
	top := lo + 4
	if bounded {
		top = min(hi, top)
	}
	return lo + w.r.IntN(top-lo+1)
}

// inside draws a code point of set: its own characters and the edge ones
// first (those it holds), else any of its spans, at an end a quarter of
// the time.
func (w *gen) inside(set *charSet) rune {
	r := w.r
	if r.IntN(4) != 0 {
		for range 12 {
			if c := w.g.palette[r.IntN(len(w.g.palette))]; set.has(c) && !isSurrogate(c) {
				return c
			}
		}
	}
	if len(set.spans) == 0 {
		return 'a'
	}
	for range 8 {
		sp := set.spans[r.IntN(len(set.spans))]
		var c rune
		switch r.IntN(4) {
		case 0:
			c = sp.lo
		case 1:
			c = sp.hi
		default:
			c = sp.lo + rune(r.Int64N(int64(sp.hi-sp.lo)+1))
		}
		if !isSurrogate(c) {
			return c
		}
	}
	return set.spans[0].lo
}

// outside draws a code point set does not hold, near its edges: the code
// point before or after a span, or an edge character.
func (w *gen) outside(set *charSet) rune {
	r := w.r
	for range 16 {
		var c rune
		if len(set.spans) > 0 && r.IntN(2) == 0 {
			sp := set.spans[r.IntN(len(set.spans))]
			switch r.IntN(4) {
			case 0:
				c = sp.lo - 1
			case 1:
				c = sp.hi + 1
			case 2:
				c = otherCase(sp.lo)
			default:
				c = otherCase(sp.hi)
			}
		} else {
			c = w.g.palette[r.IntN(len(w.g.palette))]
		}
		if c >= 0 && c <= unicode.MaxRune && !isSurrogate(c) && !set.has(c) {
			return c
		}
	}
	return 0x2028
}

// otherThan returns a code point other than c: its other case, or a
// neighbour.
func (w *gen) otherThan(c rune) rune {
	if o := otherCase(c); o != c {
		return o
	}
	if w.r.IntN(2) == 0 && c > 0 {
		return c - 1
	}
	return c + 1
}

func otherCase(c rune) rune {
	if u := unicode.ToUpper(c); u != c {
		return u
	}
	return unicode.ToLower(c)
}

func isSurrogate(c rune) bool { return 0xD800 <= c && c <= 0xDFFF }
