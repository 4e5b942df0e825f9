package schemagen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
)

// Instance returns an instance of the schema named name: one of seeds (a
// corpus's valid fixtures, when there are any) or a new one, taken to an
// edge that keeps it valid now and then, and half the time with one
// keyword broken at one place. ok is false when the set has no such
// schema.
func (s *Set) Instance(r *rand.Rand, name string, seeds []canon.Value) (v canon.Value, ok bool) {
	d := s.docs[name]
	if d == nil {
		return canon.Value{}, false
	}
	if len(seeds) > 0 && r.IntN(5) < 3 {
		v = seeds[r.IntN(len(seeds))]
	} else {
		v = s.Fresh(r, name)
	}
	for range r.IntN(3) {
		v = s.Vary(r, name, v, false)
	}
	if r.IntN(2) == 0 {
		v = s.Vary(r, name, v, true)
	}
	return v, true
}

// Fresh returns a new instance of the schema named name, meant to be valid
// (the null value when there is no such schema).
func (s *Set) Fresh(r *rand.Rand, name string) canon.Value {
	d := s.docs[name]
	if d == nil {
		return canon.Value{}
	}
	g := &gen{r: r, budget: 160}
	return g.value([]*node{d.top}, 0)
}

// maxDepth is how deep an instance goes.
const maxDepth = 32

// gen is one generation.
type gen struct {
	r      *rand.Rand
	budget int // values still to make before only required members are
}

func (g *gen) pick(ns []*node) *node { return ns[g.r.IntN(len(ns))] }

// all returns the facets of every node of ns, anyOf and oneOf branches
// chosen at random.
func (g *gen) all(ns []*node) []*node {
	var fs []*node
	for _, n := range ns {
		fs = facets(n, g.pick, fs)
	}
	return fs
}

// value returns a value meant to satisfy every node of ns: made again, a
// few times, while it matches more or fewer than one branch of a oneOf
// (optional members may match a branch not chosen).
func (g *gen) value(ns []*node, depth int) canon.Value {
	if depth > maxDepth {
		return canon.Value{Kind: canon.Null} // a schema that requires itself has no finite instance
	}
	var v canon.Value
	for range 4 {
		var fs []*node
		v, fs = g.once(ns, depth)
		if oneOfHolds(fs, v) {
			break
		}
	}
	return v
}

// oneOfHolds reports whether v matches exactly one branch of each oneOf
// of the facets fs.
func oneOfHolds(fs []*node, v canon.Value) bool {
	for _, f := range fs {
		if len(f.oneOf) == 0 {
			continue
		}
		n := 0
		for _, b := range f.oneOf {
			if matches(b, v, 0) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return true
}

// once makes one value for ns, and returns it with the facets it was
// made for.
func (g *gen) once(ns []*node, depth int) (canon.Value, []*node) {
	g.budget--
	fs := g.all(ns)
	return g.make(fs, depth), fs
}

func (g *gen) make(fs []*node, depth int) canon.Value {
	for _, f := range fs {
		if f.boolean != nil && !*f.boolean {
			return canon.Value{Kind: canon.Null}
		}
	}
	for _, f := range fs {
		if f.cnst != nil {
			return *f.cnst
		}
	}
	for _, f := range fs {
		if len(f.enum) > 0 {
			return f.enum[g.r.IntN(len(f.enum))]
		}
	}
	switch g.typeOf(fs, depth) {
	case "object":
		return g.object(fs, depth)
	case "array":
		return g.array(fs, depth)
	case "string":
		return str(g.str(fs))
	case "integer":
		return g.number(fs, true)
	case "number":
		return g.number(fs, false)
	case "boolean":
		return canon.Value{Kind: canon.Bool, Bool: g.r.IntN(2) == 0}
	}
	return canon.Value{Kind: canon.Null}
}

func str(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }

// typesOf returns the types every facet allows (nil: any), integer where
// one says number and another integer.
func typesOf(fs []*node) []string {
	var out []string
	set := false
	for _, f := range fs {
		if len(f.types) == 0 {
			continue
		}
		if !set {
			out, set = slices.Clone(f.types), true
			continue
		}
		var keep []string
		for _, t := range out {
			switch {
			case slices.Contains(f.types, t):
				keep = append(keep, t)
			case t == "number" && slices.Contains(f.types, "integer"):
				keep = append(keep, "integer")
			case t == "integer" && slices.Contains(f.types, "number"):
				keep = append(keep, "integer")
			}
		}
		out = keep
	}
	return out
}

// typeOf picks a type for facets fs: one they allow, or the one their
// keywords speak of, or any.
func (g *gen) typeOf(fs []*node, depth int) string {
	if ts := typesOf(fs); len(ts) > 0 {
		return ts[g.r.IntN(len(ts))]
	}
	for _, f := range fs {
		switch {
		case len(f.props) > 0 || len(f.required) > 0 || f.addl != nil || f.propNames != nil || len(f.patProps) > 0:
			return "object"
		case f.items != nil || len(f.tuple) > 0 || f.contains != nil:
			return "array"
		case f.pattern != nil || f.minLen >= 0 || f.maxLen >= 0:
			return "string"
		case f.minimum != nil || f.maximum != nil || f.exMin != nil || f.exMax != nil:
			return "number"
		}
	}
	kinds := []string{"string", "integer", "number", "boolean", "null"}
	if depth < 4 && g.budget > 0 {
		kinds = append(kinds, "object", "array")
	}
	return kinds[g.r.IntN(len(kinds))]
}

// propsOf returns the properties the facets declare, in order, with every
// schema each must satisfy.
func propsOf(fs []*node) ([]string, map[string][]*node) {
	var names []string
	by := map[string][]*node{}
	for _, f := range fs {
		for _, p := range f.props {
			if _, seen := by[p.name]; !seen {
				names = append(names, p.name)
			}
			by[p.name] = append(by[p.name], p.n)
		}
	}
	return names, by
}

func requiredOf(fs []*node) []string {
	var out []string
	for _, f := range fs {
		for _, r := range f.required {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

func closed(fs []*node) bool {
	return slices.ContainsFunc(fs, func(f *node) bool { return f.noAddl })
}

// memberSchemas returns the schemas a member named name must satisfy.
func memberSchemas(fs []*node, name string) []*node {
	var out []*node
	for _, f := range fs {
		declared := false
		for _, p := range f.props {
			if p.name == name {
				out = append(out, p.n)
				declared = true
			}
		}
		for _, pp := range f.patProps {
			if ok, _ := pp.p.re.MatchString(name); ok {
				out = append(out, pp.n)
				declared = true
			}
		}
		if !declared && f.addl != nil {
			out = append(out, f.addl)
		}
	}
	return out
}

// unknownNames are names of members no schema declares: a newer writer's,
// host-language built-ins, case and Unicode variants.
var unknownNames = []string{"x_extension", "a_newer_field", "vendor_note", "note", "ünïcode", "__proto__", "constructor", "toString", "$ref", "Kind", "x-y", "_"}

// unknownName is a name for a member the facets do not declare, drawn to
// keep propertyNames where they set one.
func (g *gen) unknownName(fs []*node) string {
	for _, f := range fs {
		if f.propNames == nil {
			continue
		}
		pf := facets(f.propNames, g.pick, nil)
		for _, p := range pf {
			if len(p.enum) > 0 && p.enum[0].Kind == canon.String {
				return p.enum[g.r.IntN(len(p.enum))].Str
			}
		}
		return g.str(pf)
	}
	for _, f := range fs {
		if len(f.patProps) > 0 && g.r.IntN(2) == 0 {
			return f.patProps[g.r.IntN(len(f.patProps))].p.gen.Match(g.r)
		}
	}
	return unknownNames[g.r.IntN(len(unknownNames))]
}

func (g *gen) object(fs []*node, depth int) canon.Value {
	names, _ := propsOf(fs)
	req := requiredOf(fs)
	out := canon.Value{Kind: canon.Object}
	has := func(k string) bool { _, ok := out.Lookup(k); return ok }
	optional := 0.5
	if depth > 1 {
		optional = 0.35
	}
	if g.budget <= 0 {
		optional = 0
	}
	avoid := g.avoided(fs)
	for _, name := range names {
		if slices.Contains(req, name) || !avoid[name] && g.r.Float64() < optional {
			out.Members = append(out.Members, canon.Member{Key: name, Value: g.value(memberSchemas(fs, name), depth+1)})
		}
	}
	for _, name := range req {
		if !has(name) {
			out.Members = append(out.Members, canon.Member{Key: name, Value: g.value(memberSchemas(fs, name), depth+1)})
		}
	}
	minProps := -1
	for _, f := range fs {
		minProps = max(minProps, f.minProps)
	}
	for extra := 0; (!closed(fs) && g.budget > 0 && g.r.IntN(8) == 0 && extra < 2) || (len(out.Members) < minProps && extra < 8); extra++ {
		name := g.unknownName(fs)
		if has(name) {
			continue
		}
		out.Members = append(out.Members, canon.Member{Key: name, Value: g.value(memberSchemas(fs, name), depth+1)})
	}
	return g.conditions(fs, out, depth)
}

// avoided returns the members only a oneOf branch not chosen requires:
// with one, an object would match that branch too.
func (g *gen) avoided(fs []*node) map[string]bool {
	req := requiredOf(fs)
	avoid := map[string]bool{}
	for _, f := range fs {
		for _, b := range f.oneOf {
			if !slices.Contains(fs, deref(b)) {
				for _, name := range requiredOf(facets(b, g.pick, nil)) {
					avoid[name] = !slices.Contains(req, name)
				}
			}
		}
	}
	return avoid
}

// conditions applies the facets' if, then and else to an object made
// without them: where if holds, then's required members are added and the
// members it constrains made again; where it does not, else's.
func (g *gen) conditions(fs []*node, obj canon.Value, depth int) canon.Value {
	for _, f := range fs {
		if f.ifN == nil {
			continue
		}
		branch := f.elseN
		if matches(f.ifN, obj, 0) {
			branch = f.thenN
		}
		if branch == nil {
			continue
		}
		bf := facets(branch, g.pick, nil)
		all := append(slices.Clone(fs), bf...)
		for _, name := range requiredOf(bf) {
			if _, ok := obj.Lookup(name); !ok {
				obj.Members = append(obj.Members, canon.Member{Key: name, Value: g.value(memberSchemas(all, name), depth+1)})
			}
		}
		names, _ := propsOf(bf)
		for i, m := range obj.Members {
			if slices.Contains(names, m.Key) {
				obj.Members[i].Value = g.value(memberSchemas(all, m.Key), depth+1)
			}
		}
	}
	return obj
}

func (g *gen) array(fs []*node, depth int) canon.Value {
	lo, hi := 0, -1
	var items, tuple, contains []*node
	for _, f := range fs {
		lo = max(lo, f.minItems)
		if f.maxItems >= 0 && (hi < 0 || f.maxItems < hi) {
			hi = f.maxItems
		}
		if f.items != nil {
			items = append(items, f.items)
		}
		if len(f.tuple) > len(tuple) {
			tuple = f.tuple
		}
		if f.contains != nil {
			contains = append(contains, f.contains)
		}
	}
	n := lo + g.r.IntN(3)
	if g.budget <= 0 {
		n = lo
	}
	if hi >= 0 {
		n = min(n, hi)
		if g.r.IntN(6) == 0 {
			n = hi
		}
	}
	unique := slices.ContainsFunc(fs, func(f *node) bool { return f.unique })
	out := canon.Value{Kind: canon.Array}
	for i := range n {
		var ns []*node
		if i < len(tuple) {
			ns = []*node{tuple[i]}
		} else {
			ns = items
		}
		// Where items must be unique, one equal to an earlier one is made
		// again, a few times, then left out.
		for range 4 {
			e := g.value(ns, depth+1)
			if !unique || !slices.ContainsFunc(out.Elems, func(x canon.Value) bool { return sameJSON(x, e) }) {
				out.Elems = append(out.Elems, e)
				break
			}
		}
	}
	// Each contains gets an element of its own: appended, or in place of
	// one of the first elements when the array is full.
	for i, c := range contains {
		e := g.value(append([]*node{c}, items...), depth+1)
		if hi >= 0 && len(out.Elems) >= hi && i < len(out.Elems) {
			out.Elems[i] = e
		} else {
			out.Elems = append(out.Elems, e)
		}
	}
	return out
}

// lengths returns the facets' string length bounds (-1: none).
func lengths(fs []*node) (lo, hi int) {
	lo, hi = -1, -1
	for _, f := range fs {
		lo = max(lo, f.minLen)
		if f.maxLen >= 0 && (hi < 0 || f.maxLen < hi) {
			hi = f.maxLen
		}
	}
	return lo, hi
}

// notPatterns returns the patterns the facets' nots forbid.
func notPatterns(fs []*node) []*pattern {
	var out []*pattern
	for _, f := range fs {
		if n := deref(f.not); n != nil && n.pattern != nil {
			out = append(out, n.pattern)
		}
	}
	return out
}

func patternsOf(fs []*node) []*pattern {
	var out []*pattern
	for _, f := range fs {
		if f.pattern != nil {
			out = append(out, f.pattern)
		}
	}
	return out
}

// str returns a string meant to satisfy the facets: a match of their
// pattern, or text, within their lengths, matching none of the patterns
// their nots forbid. A few tries; the last is kept.
func (g *gen) str(fs []*node) string {
	pats := patternsOf(fs)
	nots := notPatterns(fs)
	lo, hi := lengths(fs)
	var s string
	for range 4 {
		if len(pats) > 0 {
			s = pats[0].gen.Match(g.r)
		} else {
			s = g.text(lo, hi)
		}
		if g.fits(s, pats, nots, lo, hi) {
			return s
		}
	}
	return s
}

func (g *gen) fits(s string, pats, nots []*pattern, lo, hi int) bool {
	n := canon.CodePoints(s)
	if n < lo || hi >= 0 && n > hi {
		return false
	}
	for _, p := range pats {
		if ok, err := p.re.MatchString(s); !ok || err != nil {
			return false
		}
	}
	for _, p := range nots {
		if ok, _ := p.re.MatchString(s); ok {
			return false
		}
	}
	return true
}

// textRunes and oddRunes are what text is written with.
var (
	textRunes = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789      -_.,:/")
	oddRunes  = []rune{'é', 'ß', '漢', 0xA0, 0x2028, '\t', '"', '\\', 0x1F600, 0x1D400, 0x7F, 0x130, 0x301, 0xFEFF}
)

// text returns a string of lo to hi code points (-1: no bound), of letters
// mostly, now and then exactly hi long with characters beyond the BMP.
func (g *gen) text(lo, hi int) string {
	n := max(lo, 0) + g.r.IntN(12)
	if lo <= 0 && g.r.IntN(3) > 0 {
		n = 1 + g.r.IntN(12)
	}
	if hi >= 0 {
		n = min(n, hi)
	}
	astral := false
	if hi >= 0 && g.r.IntN(6) == 0 {
		n, astral = hi, true
	}
	var b strings.Builder
	for range n {
		switch {
		case astral && g.r.IntN(2) == 0:
			b.WriteRune(0x1F600 + rune(g.r.IntN(64)))
		case g.r.IntN(8) == 0:
			b.WriteRune(oddRunes[g.r.IntN(len(oddRunes))])
		default:
			b.WriteRune(textRunes[g.r.IntN(len(textRunes))])
		}
	}
	return b.String()
}

// numBounds returns the facets' numeric bounds: the least and greatest
// allowed and whether each is exclusive; ok false where there is none.
type numBounds struct {
	lo, hi             float64
	hasLo, hasHi       bool
	loExcl, hiExcl     bool
	loLex, hiLex       string
	minimum, maximum   *bound
	exclusiveLowBound  *bound
	exclusiveHighBound *bound
}

func boundsOf(fs []*node) numBounds {
	var b numBounds
	low := func(x *bound, excl bool) {
		if x != nil && (!b.hasLo || x.f > b.lo || x.f == b.lo && excl) {
			b.lo, b.hasLo, b.loExcl, b.loLex = x.f, true, excl, x.lex
		}
	}
	high := func(x *bound, excl bool) {
		if x != nil && (!b.hasHi || x.f < b.hi || x.f == b.hi && excl) {
			b.hi, b.hasHi, b.hiExcl, b.hiLex = x.f, true, excl, x.lex
		}
	}
	for _, f := range fs {
		low(f.minimum, false)
		low(f.exMin, true)
		high(f.maximum, false)
		high(f.exMax, true)
		if f.minimum != nil {
			b.minimum = f.minimum
		}
		if f.maximum != nil {
			b.maximum = f.maximum
		}
		if f.exMin != nil {
			b.exclusiveLowBound = f.exMin
		}
		if f.exMax != nil {
			b.exclusiveHighBound = f.exMax
		}
	}
	return b
}

// number returns a number within the facets' bounds: at a bound now and
// then, an integer where one is wanted.
func (g *gen) number(fs []*node, integer bool) canon.Value {
	b := boundsOf(fs)
	lo, hi := 0.0, 1000.0
	if b.hasLo {
		lo = b.lo
		if b.loExcl {
			lo = math.Nextafter(lo, math.Inf(1))
		}
	}
	if b.hasHi {
		hi = b.hi
		if b.hiExcl {
			hi = math.Nextafter(hi, math.Inf(-1))
		}
	}
	if !b.hasHi {
		hi = lo + 1000
	}
	if !b.hasLo && b.hasHi {
		lo = math.Min(0, hi-1000)
	}
	if integer {
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	if hi < lo {
		hi = lo
	}
	var f float64
	switch k := g.r.IntN(6); {
	case k == 0:
		f = lo
	case k == 1 && b.hasHi:
		f = hi
	default:
		f = lo + math.Floor(g.r.Float64()*math.Min(hi-lo+1, 100000))
		if !integer && g.r.IntN(2) == 0 && f+0.5 <= hi {
			f += 0.5
		}
	}
	return numberValue(f, integer)
}

func numberValue(f float64, integer bool) canon.Value {
	if integer || f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return canon.Value{Kind: canon.Number, Num: strconv.FormatFloat(f, 'f', -1, 64)}
	}
	s, err := canon.FormatES6(f)
	if err != nil {
		s = "0"
	}
	return canon.Value{Kind: canon.Number, Num: s}
}

// matches reports, cheaply and in part, whether v satisfies n: types,
// const, enum, required, properties, patterns, lengths, bounds, items and
// the applicators. It decides if conditions and which branch of an anyOf
// or oneOf a value took.
func matches(n *node, v canon.Value, depth int) bool {
	n = deref(n)
	if n == nil {
		return true
	}
	if n.boolean != nil {
		return *n.boolean
	}
	if depth > 12 {
		return true
	}
	if len(n.types) > 0 && !typeHolds(n.types, v) {
		return false
	}
	if n.cnst != nil && !sameJSON(*n.cnst, v) {
		return false
	}
	if len(n.enum) > 0 && !slices.ContainsFunc(n.enum, func(e canon.Value) bool { return sameJSON(e, v) }) {
		return false
	}
	switch v.Kind {
	case canon.Object:
		for _, r := range n.required {
			if _, ok := v.Lookup(r); !ok {
				return false
			}
		}
		for _, p := range n.props {
			if m, ok := v.Lookup(p.name); ok && !matches(p.n, m, depth+1) {
				return false
			}
		}
	case canon.String:
		if n.pattern != nil {
			if ok, err := n.pattern.re.MatchString(v.Str); !ok || err != nil {
				return false
			}
		}
		c := canon.CodePoints(v.Str)
		if c < n.minLen || n.maxLen >= 0 && c > n.maxLen {
			return false
		}
	case canon.Number:
		f, err := strconv.ParseFloat(v.Num, 64)
		b := boundsOf([]*node{n})
		if err != nil || b.hasLo && (f < b.lo || b.loExcl && f == b.lo) || b.hasHi && (f > b.hi || b.hiExcl && f == b.hi) {
			return false
		}
	case canon.Array:
		if len(v.Elems) < n.minItems || n.maxItems >= 0 && len(v.Elems) > n.maxItems {
			return false
		}
		if n.items != nil {
			for _, e := range v.Elems {
				if !matches(n.items, e, depth+1) {
					return false
				}
			}
		}
	}
	for _, a := range n.allOf {
		if !matches(a, v, depth+1) {
			return false
		}
	}
	if len(n.anyOf) > 0 && !slices.ContainsFunc(n.anyOf, func(a *node) bool { return matches(a, v, depth+1) }) {
		return false
	}
	if len(n.oneOf) > 0 && !slices.ContainsFunc(n.oneOf, func(a *node) bool { return matches(a, v, depth+1) }) {
		return false
	}
	if n.not != nil && matches(n.not, v, depth+1) {
		return false
	}
	return true
}

func typeHolds(types []string, v canon.Value) bool {
	for _, t := range types {
		switch {
		case t == "object" && v.Kind == canon.Object, t == "array" && v.Kind == canon.Array,
			t == "string" && v.Kind == canon.String, t == "boolean" && v.Kind == canon.Bool,
			t == "null" && v.Kind == canon.Null, t == "number" && v.Kind == canon.Number:
			return true
		case t == "integer" && v.Kind == canon.Number:
			f, err := strconv.ParseFloat(v.Num, 64)
			if err == nil && f == math.Trunc(f) {
				return true
			}
		}
	}
	return false
}

// sameJSON reports whether a and b are the same JSON value: numbers by
// value, objects by their text.
func sameJSON(a, b canon.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case canon.Null:
		return true
	case canon.Bool:
		return a.Bool == b.Bool
	case canon.String:
		return a.Str == b.Str
	case canon.Number:
		x, e1 := strconv.ParseFloat(a.Num, 64)
		y, e2 := strconv.ParseFloat(b.Num, 64)
		return e1 == nil && e2 == nil && x == y
	}
	return a.String() == b.String()
}

// branchFor returns a chooser of the branch v took: the first it matches,
// else the first of its type, else the first.
func branchFor(v canon.Value) func([]*node) *node {
	return func(ns []*node) *node {
		for _, n := range ns {
			if matches(n, v, 0) {
				return n
			}
		}
		for _, n := range ns {
			if d := deref(n); d != nil && len(d.types) > 0 && typeHolds(d.types, v) {
				return n
			}
		}
		return ns[0]
	}
}
