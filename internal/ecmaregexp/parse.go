package ecmaregexp

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// op is what a node matches.
type op uint8

const (
	opEmpty           op = iota // the empty string
	opChar                      // the code point r
	opSet                       // one code point of set
	opBegin                     // ^: the string's start
	opEnd                       // $: the string's end
	opWordBoundary              // \b
	opNotWordBoundary           // \B
	opConcat                    // subs one after the other, in matching order
	opAlt                       // the first of subs that leads to a match
	opGroup                     // subs[0], captured as group index
	opRepeat                    // subs[0], min to max times (max < 0: no bound)
	opLook                      // lookahead or lookbehind (behind) of subs[0], negated (neg)
	opBackref                   // the text group index captured
)

// node is one element of a parsed pattern.
type node struct {
	op           op
	back         bool // inside a lookbehind: consumes leftwards
	r            rune
	set          *charSet
	subs         []*node
	index        int // opGroup, opBackref: the group's number
	min, max     int // opRepeat
	greedy       bool
	behind, neg  bool // opLook
	capLo, capHi int  // opRepeat: the groups capLo..capHi-1 inside, reset each iteration
}

// maxCount stands for a repetition count too large to reach: no string
// the matcher is given has that many code points.
const maxCount = 1<<31 - 1

// parser reads one pattern.
type parser struct {
	src    string
	pat    []rune
	pos    int
	back   bool           // reading a lookbehind's body
	depth  int            // groups open
	groups int            // capturing groups opened so far
	total  int            // capturing groups in the whole pattern
	named  bool           // the pattern has a named group
	dotnet []int          // the number .NET gave each group (regexp2's numbering)
	names  map[string]int // group numbers by name
	refs   []namedRef     // \k<name> to resolve once every name is known
}

type namedRef struct {
	n    *node
	name string
	at   int
}

// parse returns the pattern's tree and its number of capturing groups.
func parse(src string) (*node, int, error) {
	p := &parser{src: src, names: map[string]int{}}
	if len(src) > MaxPatternBytes {
		return nil, 0, p.fail(0, "pattern of %d bytes is longer than the %d allowed", len(src), MaxPatternBytes)
	}
	p.pat = codePoints(src)
	p.prescan()
	root, err := p.disjunction()
	if err != nil {
		return nil, 0, err
	}
	if p.pos < len(p.pat) { // only a ) stops the top disjunction early
		return nil, 0, p.fail(p.pos, "unmatched )")
	}
	for _, ref := range p.refs {
		i, ok := p.names[ref.name]
		if !ok {
			return nil, 0, p.fail(ref.at, "no group named %q", ref.name)
		}
		ref.n.index = i
	}
	return root, p.total, nil
}

func (p *parser) fail(at int, format string, args ...any) error {
	return &Error{Pattern: p.src, Offset: at, Msg: fmt.Sprintf(format, args...)}
}

// prescan counts the capturing groups, which decides whether \2 is a
// backreference (ECMA-262 counts the whole pattern's), notes whether any is
// named (which makes \k a reference), and works out the number .NET gave
// each group: the unnamed ones first, then the named ones.
func (p *parser) prescan() {
	var named []bool
	inClass := false
	for i := 0; i < len(p.pat); i++ {
		switch c := p.pat[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(' && i+1 < len(p.pat) && p.pat[i+1] != '?':
			named = append(named, false)
		case c == '(' && i+3 < len(p.pat) && p.pat[i+1] == '?' && p.pat[i+2] == '<' && p.pat[i+3] != '=' && p.pat[i+3] != '!':
			named = append(named, true)
			p.named = true
		}
	}
	p.total = len(named)
	p.dotnet = make([]int, len(named))
	n := 0
	for _, pass := range []bool{false, true} {
		for i, isNamed := range named {
			if isNamed == pass {
				n++
				p.dotnet[i] = n
			}
		}
	}
}

func (p *parser) more() bool { return p.pos < len(p.pat) }

// eat consumes c if it is next.
func (p *parser) eat(c rune) bool {
	if p.more() && p.pat[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// eat2 consumes a then b if they are next.
func (p *parser) eat2(a, b rune) bool {
	if p.pos+1 < len(p.pat) && p.pat[p.pos] == a && p.pat[p.pos+1] == b {
		p.pos += 2
		return true
	}
	return false
}

func (p *parser) disjunction() (*node, error) {
	var alts []*node
	for {
		a, err := p.alternative()
		if err != nil {
			return nil, err
		}
		alts = append(alts, a)
		if !p.eat('|') {
			break
		}
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &node{op: opAlt, subs: alts, back: p.back}, nil
}

func (p *parser) alternative() (*node, error) {
	var terms []*node
	for p.more() && p.pat[p.pos] != '|' && p.pat[p.pos] != ')' {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	if p.back { // a lookbehind matches right to left
		slices.Reverse(terms)
	}
	switch len(terms) {
	case 0:
		return &node{op: opEmpty}, nil
	case 1:
		return terms[0], nil
	}
	return &node{op: opConcat, subs: terms, back: p.back}, nil
}

// term is an atom or assertion with its quantifier, if any.
func (p *parser) term() (*node, error) {
	before := p.groups
	atom, quantifiable, err := p.atom()
	if err != nil {
		return nil, err
	}
	at := p.pos
	min, max, greedy, found, err := p.quantifier()
	if err != nil || !found {
		return atom, err
	}
	if !quantifiable {
		return nil, p.fail(at, "nothing to repeat")
	}
	if p.atQuantifier() {
		return nil, p.fail(p.pos, "nothing to repeat")
	}
	return &node{op: opRepeat, subs: []*node{atom}, min: min, max: max, greedy: greedy,
		capLo: before + 1, capHi: p.groups + 1, back: p.back}, nil
}

// atQuantifier reports whether a quantifier is next.
func (p *parser) atQuantifier() bool {
	if !p.more() {
		return false
	}
	switch p.pat[p.pos] {
	case '*', '+', '?':
		return true
	case '{':
		_, _, _, ok, _ := p.braces(p.pos)
		return ok
	}
	return false
}

// quantifier reads * + ? or {n} {n,} {n,m}, then a lazy ?.
func (p *parser) quantifier() (min, max int, greedy, found bool, err error) {
	if !p.more() {
		return 0, 0, false, false, nil
	}
	switch p.pat[p.pos] {
	case '*':
		min, max = 0, -1
		p.pos++
	case '+':
		min, max = 1, -1
		p.pos++
	case '?':
		min, max = 0, 1
		p.pos++
	case '{':
		var end int
		var ordered bool
		min, max, end, found, ordered = p.braces(p.pos)
		if !found {
			return 0, 0, false, false, nil // a literal {, as Annex B reads it
		}
		if !ordered {
			return 0, 0, false, false, p.fail(p.pos, "numbers out of order in {} quantifier")
		}
		p.pos = end
	default:
		return 0, 0, false, false, nil
	}
	return min, max, !p.eat('?'), true, nil
}

// braces reads {n}, {n,} or {n,m} at i: the counts (saturated at maxCount;
// max -1 for no bound), where it ends, whether it is one, and whether n <= m.
func (p *parser) braces(i int) (min, max, end int, ok, ordered bool) {
	digits := func(j int) (int, int) {
		k := j
		for k < len(p.pat) && p.pat[k] >= '0' && p.pat[k] <= '9' {
			k++
		}
		return k, decimal(p.pat[j:k])
	}
	j, min := digits(i + 1)
	if j == i+1 || j >= len(p.pat) {
		return 0, 0, 0, false, false
	}
	switch p.pat[j] {
	case '}':
		return min, min, j + 1, true, true
	case ',':
	default:
		return 0, 0, 0, false, false
	}
	k, max := digits(j + 1)
	if k >= len(p.pat) || p.pat[k] != '}' {
		return 0, 0, 0, false, false
	}
	if k == j+1 {
		return min, -1, k + 1, true, true
	}
	return min, max, k + 1, true, compareDecimal(p.pat[i+1:j], p.pat[j+1:k]) <= 0
}

// decimal is the value of the digits ds, saturated at maxCount.
func decimal(ds []rune) int {
	n := 0
	for _, d := range ds {
		n = n*10 + int(d-'0')
		if n >= maxCount {
			return maxCount
		}
	}
	return n
}

// compareDecimal compares two runs of digits by value, however long.
func compareDecimal(a, b []rune) int {
	trim := func(ds []rune) []rune {
		for len(ds) > 1 && ds[0] == '0' {
			ds = ds[1:]
		}
		return ds
	}
	a, b = trim(a), trim(b)
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return slices.Compare(a, b)
}

// atom reads one atom or assertion, and whether a quantifier may follow.
func (p *parser) atom() (*node, bool, error) {
	at := p.pos
	switch c := p.pat[p.pos]; c {
	case '^':
		p.pos++
		return &node{op: opBegin}, false, nil
	case '$':
		p.pos++
		return &node{op: opEnd}, false, nil
	case '.':
		p.pos++
		return p.setNode(complement(lineTerminators)), true, nil
	case '(':
		return p.group()
	case '[':
		return p.class()
	case '\\':
		return p.atomEscape()
	case '*', '+', '?':
		return nil, false, p.fail(at, "nothing to repeat")
	case '{':
		if _, _, _, ok, _ := p.braces(at); ok {
			return nil, false, p.fail(at, "nothing to repeat")
		}
	}
	p.pos++
	return p.char(p.pat[at]), true, nil
}

func (p *parser) char(r rune) *node { return &node{op: opChar, r: r, back: p.back} }

func (p *parser) setNode(spans []span) *node {
	return &node{op: opSet, set: newCharSet(spans), back: p.back}
}

// group reads a parenthesised group or lookaround.
func (p *parser) group() (*node, bool, error) {
	at := p.pos
	p.pos++
	if p.depth++; p.depth > MaxNesting {
		return nil, false, p.fail(at, "groups nested deeper than %d", MaxNesting)
	}
	defer func() { p.depth-- }()
	n := &node{op: opGroup, back: p.back}
	quantifiable := true
	switch {
	case !p.eat('?'):
		p.groups++
		n.index = p.groups
	case p.eat(':'):
		n = nil
	case p.eat('='):
		n = &node{op: opLook}
	case p.eat('!'):
		n = &node{op: opLook, neg: true}
	case p.eat2('<', '='):
		n, quantifiable = &node{op: opLook, behind: true}, false
	case p.eat2('<', '!'):
		n, quantifiable = &node{op: opLook, behind: true, neg: true}, false
	case p.eat('<'):
		p.groups++
		n.index = p.groups
		if err := p.groupName(at, p.groups); err != nil {
			return nil, false, err
		}
	default:
		return nil, false, p.fail(at, "(?%s is not an ECMA-262 group", string(p.pat[p.pos:min(p.pos+1, len(p.pat))]))
	}
	back := p.back
	if n != nil && n.op == opLook {
		p.back = n.behind
	}
	body, err := p.disjunction()
	p.back = back
	if err != nil {
		return nil, false, err
	}
	if !p.eat(')') {
		return nil, false, p.fail(p.pos, "missing )")
	}
	if n == nil {
		return body, true, nil
	}
	n.subs = []*node{body}
	return n, quantifiable, nil
}

// groupName reads the name of group index, after (?<, and its >.
func (p *parser) groupName(at, index int) error {
	start := p.pos
	for p.more() && p.pat[p.pos] != '>' {
		r := p.pat[p.pos]
		if r == '\\' {
			return p.fail(p.pos, "escapes in group names are not supported")
		}
		if !(r == '$' || r == '_' || isIDStart(r) || p.pos > start && (isIDContinue(r) || r == '\u200C' || r == '\u200D')) {
			return p.fail(p.pos, "%q cannot be in a group name", r)
		}
		p.pos++
	}
	name := string(p.pat[start:p.pos])
	switch {
	case !p.eat('>'):
		return p.fail(p.pos, "missing > after group name")
	case name == "":
		return p.fail(at, "empty group name")
	}
	if _, dup := p.names[name]; dup {
		return p.fail(at, "duplicate group name %q", name)
	}
	p.names[name] = index
	return nil
}

// isIDStart is Unicode's ID_Start: letters, letter numbers and
// Other_ID_Start, less pattern syntax and white space.
func isIDStart(r rune) bool {
	return (unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)) &&
		!unicode.Is(unicode.Pattern_Syntax, r) && !unicode.Is(unicode.Pattern_White_Space, r)
}

// isIDContinue is Unicode's ID_Continue.
func isIDContinue(r rune) bool {
	return isIDStart(r) || (unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) &&
		!unicode.Is(unicode.Pattern_Syntax, r) && !unicode.Is(unicode.Pattern_White_Space, r))
}

// dotnetEscapes are letters regexp2 read as .NET escapes where ECMA-262
// (without the u flag) reads the letter itself; with the u flag they are
// errors, as here, rather than read otherwise than before.
const dotnetEscapes = "aeAZzG"

// atomEscape reads an escape outside a class, after its backslash.
func (p *parser) atomEscape() (*node, bool, error) {
	at := p.pos
	p.pos++
	if !p.more() {
		return nil, false, p.fail(at, `\ at end of pattern`)
	}
	switch c := p.pat[p.pos]; {
	case c == 'b':
		p.pos++
		return &node{op: opWordBoundary}, false, nil
	case c == 'B':
		p.pos++
		return &node{op: opNotWordBoundary}, false, nil
	case strings.ContainsRune("dDsSwWpP", c):
		spans, err := p.classEscape(at)
		if err != nil {
			return nil, false, err
		}
		return p.setNode(spans), true, nil
	case c == 'k' && p.named:
		p.pos++
		if !p.eat('<') {
			return nil, false, p.fail(at, `\k must be followed by <name>`)
		}
		start := p.pos
		for p.more() && p.pat[p.pos] != '>' {
			p.pos++
		}
		if !p.eat('>') {
			return nil, false, p.fail(p.pos, "missing > after group name")
		}
		n := &node{op: opBackref, back: p.back}
		p.refs = append(p.refs, namedRef{n, string(p.pat[start : p.pos-1]), at})
		return n, true, nil
	case c >= '1' && c <= '9':
		end := p.pos
		for end < len(p.pat) && p.pat[end] >= '0' && p.pat[end] <= '9' {
			end++
		}
		if i := decimal(p.pat[p.pos:end]); i <= p.total {
			if p.dotnet[i-1] != i {
				return nil, false, p.fail(at, `\%d: regexp2 numbered this group %d (.NET numbers named groups last); refer to it by name`, i, p.dotnet[i-1])
			}
			p.pos = end
			return &node{op: opBackref, index: i, back: p.back}, true, nil
		}
		// Annex B: more than there are groups, so an octal escape or an 8 or 9.
	case c == 'c':
		if p.pos+1 >= len(p.pat) || !isASCIILetter(p.pat[p.pos+1]) {
			return nil, false, p.fail(at, `\c must be followed by a letter`)
		}
	case strings.ContainsRune(dotnetEscapes, c):
		return nil, false, p.fail(at, `\%c is a .NET escape, not ECMA-262`, c)
	}
	r, err := p.charEscape(at)
	if err != nil {
		return nil, false, err
	}
	return p.char(r), true, nil
}

// charEscape reads an escape that stands for one code point, after its
// backslash: the same outside and inside a class.
func (p *parser) charEscape(at int) (rune, error) {
	c := p.pat[p.pos]
	p.pos++
	switch c {
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'c': // the caller checked a letter follows
		p.pos++
		return p.pat[p.pos-1] % 32, nil
	case 'x':
		if v, ok := p.hex(2); ok {
			return v, nil
		}
		return 'x', nil // Annex B: \x without two hex digits is x
	case 'u':
		return p.unicodeEscape(at)
	case '0', '1', '2', '3', '4', '5', '6', '7':
		// Annex B's legacy octal escape: up to 0377, \0 alone is NUL.
		v := c - '0'
		digits := 1
		if v >= 4 {
			digits = 0
		}
		for ; digits >= 0 && p.more() && p.pat[p.pos] >= '0' && p.pat[p.pos] <= '7'; digits-- {
			v = v*8 + p.pat[p.pos] - '0'
			p.pos++
		}
		return v, nil
	}
	return c, nil // an identity escape
}

// hex reads n hex digits, if they are next.
func (p *parser) hex(n int) (rune, bool) {
	if p.pos+n > len(p.pat) {
		return 0, false
	}
	var v rune
	for _, d := range p.pat[p.pos : p.pos+n] {
		x := hexValue(d)
		if x < 0 {
			return 0, false
		}
		v = v*16 + x
	}
	p.pos += n
	return v, true
}

func hexValue(d rune) rune {
	switch {
	case d >= '0' && d <= '9':
		return d - '0'
	case d >= 'a' && d <= 'f':
		return d - 'a' + 10
	case d >= 'A' && d <= 'F':
		return d - 'A' + 10
	}
	return -1
}

// unicodeEscape reads \uHHHH (a surrogate pair of them joined) or \u{H...},
// after the u.
func (p *parser) unicodeEscape(at int) (rune, error) {
	if p.eat('{') {
		var v rune
		start := p.pos
		for p.more() && hexValue(p.pat[p.pos]) >= 0 {
			if v = v*16 + hexValue(p.pat[p.pos]); v > unicode.MaxRune {
				return 0, p.fail(at, `\u{...} beyond U+10FFFF`)
			}
			p.pos++
		}
		if p.pos == start || !p.eat('}') {
			return 0, p.fail(at, `malformed \u{...} escape`)
		}
		return v, nil
	}
	v, ok := p.hex(4)
	if !ok {
		return 'u', nil // Annex B: \u without four hex digits is u
	}
	if v >= 0xD800 && v <= 0xDBFF && p.pos+6 <= len(p.pat) && p.pat[p.pos] == '\\' && p.pat[p.pos+1] == 'u' {
		save := p.pos
		p.pos += 2
		if lo, ok := p.hex(4); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), nil
		}
		p.pos = save
	}
	return v, nil
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// classEscape reads \d \D \s \S \w \W \p{...} or \P{...}, after the
// backslash, as spans.
func (p *parser) classEscape(at int) ([]span, error) {
	c := p.pat[p.pos]
	p.pos++
	switch c {
	case 'd':
		return digitSpans, nil
	case 'D':
		return complement(digitSpans), nil
	case 's':
		return spaceSpans, nil
	case 'S':
		return complement(spaceSpans), nil
	case 'w':
		return wordSpans, nil
	case 'W':
		return complement(wordSpans), nil
	}
	// \p{...} or \P{...}
	if !p.eat('{') {
		return nil, p.fail(at, `\%c must be followed by {property}`, c)
	}
	start := p.pos
	for p.more() && p.pat[p.pos] != '}' {
		p.pos++
	}
	name := string(p.pat[start:p.pos])
	if !p.eat('}') {
		return nil, p.fail(at, `malformed \%c{...}`, c)
	}
	spans, ok := property(name)
	if !ok {
		return nil, p.fail(at, "unknown or unsupported Unicode property %q", name)
	}
	if c == 'P' {
		return complement(spans), nil
	}
	return spans, nil
}

// class reads a character class [...] or [^...].
func (p *parser) class() (*node, bool, error) {
	at := p.pos
	p.pos++
	neg := p.eat('^')
	var spans []span
	first, subtraction := true, false
	for {
		if !p.more() {
			return nil, false, p.fail(p.pos, "missing ]")
		}
		if p.eat(']') {
			break
		}
		if !first && p.pos+1 < len(p.pat) && p.pat[p.pos] == '-' && p.pat[p.pos+1] == '[' {
			subtraction = true
		}
		first = false
		lo, loSet, err := p.classAtom()
		if err != nil {
			return nil, false, err
		}
		if p.pos+1 >= len(p.pat) || p.pat[p.pos] != '-' || p.pat[p.pos+1] == ']' {
			spans = append(spans, lo...)
			continue
		}
		dash := p.pos
		p.pos++
		subtraction = subtraction || p.pat[p.pos] == '['
		hi, hiSet, err := p.classAtom()
		switch {
		case err != nil:
			return nil, false, err
		case loSet: // Annex B: [\d-z] is \d, - and z
			spans = append(append(append(spans, lo...), span{'-', '-'}), hi...)
		case hiSet:
			return nil, false, p.fail(dash, "a class escape cannot end a range")
		case lo[0].lo > hi[0].lo:
			return nil, false, p.fail(dash, "range out of order in character class")
		default:
			spans = append(spans, span{lo[0].lo, hi[0].lo})
		}
	}
	if subtraction && p.more() && p.pat[p.pos] == ']' {
		return nil, false, p.fail(at, "[...-[...]] is .NET class subtraction, not ECMA-262 (escape the [ as \\[ for a literal)")
	}
	if neg { // complement and setNode normalise the spans
		spans = complement(spans)
	}
	return p.setNode(spans), true, nil
}

// classAtom reads one code point of a class, or a class escape (isSet).
func (p *parser) classAtom() (spans []span, isSet bool, err error) {
	one := func(r rune) []span { return []span{{r, r}} }
	if p.pat[p.pos] != '\\' {
		p.pos++
		return one(p.pat[p.pos-1]), false, nil
	}
	at := p.pos
	p.pos++
	if !p.more() {
		return nil, false, p.fail(at, `\ at end of pattern`)
	}
	switch c := p.pat[p.pos]; {
	case c == 'b':
		p.pos++
		return one('\b'), false, nil
	case c == '-':
		p.pos++
		return one('-'), false, nil
	case strings.ContainsRune("dDsSwWpP", c):
		spans, err := p.classEscape(at)
		return spans, true, err
	case c == 'c':
		if p.pos+1 < len(p.pat) && p.pat[p.pos+1] == '_' { // Annex B
			p.pos += 2
			return one(0x1F), false, nil
		}
		if p.pos+1 >= len(p.pat) || !isASCIILetter(p.pat[p.pos+1]) {
			return nil, false, p.fail(at, `\c must be followed by a letter or _`)
		}
	case c == 'a' || c == 'e':
		return nil, false, p.fail(at, `\%c is a .NET escape, not ECMA-262`, c)
	case c == 'k' && p.named:
		return nil, false, p.fail(at, `\k is not an escape inside a class`)
	}
	r, err := p.charEscape(at)
	return one(r), false, err
}
