package ecmaregexp

import (
	"slices"
	"strings"
	"unicode"
)

// span is the code points lo to hi, both included.
type span struct{ lo, hi rune }

// charSet is a set of code points.
type charSet struct {
	ascii [2]uint64 // the members below 128, as bits
	spans []span    // sorted, disjoint and not adjacent
}

func newCharSet(spans []span) *charSet {
	s := &charSet{spans: normalize(spans)}
	for _, sp := range s.spans {
		for r := sp.lo; r <= sp.hi && r < 128; r++ {
			s.ascii[r/64] |= 1 << (r % 64)
		}
	}
	return s
}

func (s *charSet) has(r rune) bool {
	if r >= 0 && r < 128 {
		return s.ascii[r/64]&(1<<(r%64)) != 0
	}
	i, _ := slices.BinarySearchFunc(s.spans, r, func(sp span, r rune) int {
		switch {
		case sp.hi < r:
			return -1
		case sp.lo > r:
			return 1
		}
		return 0
	})
	return i < len(s.spans) && s.spans[i].lo <= r && r <= s.spans[i].hi
}

// normalize returns spans sorted, with overlapping and adjacent ones merged.
func normalize(spans []span) []span {
	out := slices.Clone(spans)
	slices.SortFunc(out, func(a, b span) int { return int(a.lo - b.lo) })
	n := 0
	for _, sp := range out {
		if n > 0 && sp.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, sp.hi)
			continue
		}
		out[n] = sp
		n++
	}
	return out[:n]
}

// complement returns the code points not in spans.
func complement(spans []span) []span {
	var out []span
	next := rune(0)
	for _, sp := range normalize(spans) {
		if sp.lo > next {
			out = append(out, span{next, sp.lo - 1})
		}
		next = sp.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, span{next, unicode.MaxRune})
	}
	return out
}

// The sets of the class escapes and of ".", as ECMA-262 defines them: \d
// and \w are ASCII; \s is WhiteSpace (tab, vertical tab, form feed, space,
// no-break space, U+FEFF and the Space_Separator category) and
// LineTerminator (LF, CR, U+2028, U+2029); "." is any code point but a
// LineTerminator.
var (
	digitSpans      = []span{{'0', '9'}}
	wordSpans       = []span{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	spaceSpans      = []span{{'\t', '\r'}, {' ', ' '}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}}
	lineTerminators = []span{{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}}
)

// categoryNames are the General_Category value names ECMA-262 accepts
// beside the short ones Go's unicode.Categories holds.
var categoryNames = [...]struct{ name, short string }{
	{"Other", "C"}, {"Control", "Cc"}, {"cntrl", "Cc"}, {"Format", "Cf"}, {"Unassigned", "Cn"},
	{"Private_Use", "Co"}, {"Surrogate", "Cs"},
	{"Letter", "L"}, {"Cased_Letter", "LC"}, {"Lowercase_Letter", "Ll"}, {"Modifier_Letter", "Lm"},
	{"Other_Letter", "Lo"}, {"Titlecase_Letter", "Lt"}, {"Uppercase_Letter", "Lu"},
	{"Mark", "M"}, {"Combining_Mark", "M"}, {"Spacing_Mark", "Mc"}, {"Enclosing_Mark", "Me"}, {"Nonspacing_Mark", "Mn"},
	{"Number", "N"}, {"Decimal_Number", "Nd"}, {"digit", "Nd"}, {"Letter_Number", "Nl"}, {"Other_Number", "No"},
	{"Punctuation", "P"}, {"punct", "P"}, {"Connector_Punctuation", "Pc"}, {"Dash_Punctuation", "Pd"},
	{"Close_Punctuation", "Pe"}, {"Final_Punctuation", "Pf"}, {"Initial_Punctuation", "Pi"},
	{"Other_Punctuation", "Po"}, {"Open_Punctuation", "Ps"},
	{"Symbol", "S"}, {"Currency_Symbol", "Sc"}, {"Modifier_Symbol", "Sk"}, {"Math_Symbol", "Sm"}, {"Other_Symbol", "So"},
	{"Separator", "Z"}, {"Line_Separator", "Zl"}, {"Paragraph_Separator", "Zp"}, {"Space_Separator", "Zs"},
}

func generalCategory(name string) ([]span, bool) {
	for _, c := range categoryNames {
		if c.name == name {
			name = c.short
			break
		}
	}
	if t, ok := unicode.Categories[name]; ok {
		return tableSpans(t), true
	}
	return nil, false
}

// property returns the code points of the Unicode property in \p{name}.
func property(name string) ([]span, bool) {
	if key, value, ok := strings.Cut(name, "="); ok {
		switch key {
		case "General_Category", "gc":
			return generalCategory(value)
		case "Script", "sc":
			if t, ok := unicode.Scripts[value]; ok {
				return tableSpans(t), true
			}
		}
		return nil, false
	}
	if spans, ok := generalCategory(name); ok {
		return spans, true
	}
	switch name {
	case "Any":
		return []span{{0, unicode.MaxRune}}, true
	case "ASCII":
		return []span{{0, 0x7F}}, true
	case "Assigned":
		return complement(tableSpans(unicode.Categories["Cn"])), true
	}
	if t, ok := unicode.Properties[name]; ok {
		return tableSpans(t), true
	}
	if t, ok := unicode.Scripts[name]; ok { // regexp2 accepted a bare script name
		return tableSpans(t), true
	}
	return nil, false
}

func tableSpans(t *unicode.RangeTable) []span {
	var out []span
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			out = append(out, span{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			out = append(out, span{c, c})
		}
	}
	for _, r := range t.R16 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	return out
}
