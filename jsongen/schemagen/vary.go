package schemagen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
)

// step is one token of an instance path.
type step struct {
	key   string
	index int // -1 for a member
}

// site is one place in an instance: its path, the value there and the
// schemas it must satisfy there.
type site struct {
	path []step
	v    canon.Value
	fs   []*node
}

// sites returns every place in v, with the schemas each must satisfy,
// walking v and the schema n together (a branch of an anyOf or oneOf is
// the one v takes).
func sites(n []*node, v canon.Value, path []step, out []site, depth int) []site {
	var fs []*node
	pick := branchFor(v)
	for _, x := range n {
		fs = facets(x, pick, fs)
	}
	// A condition that holds brings its then; one that does not, its else.
	for i := 0; i < len(fs) && i < 64; i++ {
		f := fs[i]
		if f.ifN == nil {
			continue
		}
		if matches(f.ifN, v, 0) {
			if f.thenN != nil {
				fs = facets(f.thenN, pick, fs)
			}
		} else if f.elseN != nil {
			fs = facets(f.elseN, pick, fs)
		}
	}
	out = append(out, site{path: path, v: v, fs: fs})
	if depth > 32 {
		return out
	}
	switch v.Kind {
	case canon.Object:
		for _, m := range v.Members {
			out = sites(memberSchemas(fs, m.Key), m.Value, append(slices.Clip(path), step{m.Key, -1}), out, depth+1)
		}
	case canon.Array:
		var items, tuple []*node
		for _, f := range fs {
			if f.items != nil {
				items = append(items, f.items)
			}
			if len(f.tuple) > len(tuple) {
				tuple = f.tuple
			}
		}
		for i, e := range v.Elems {
			ns := items
			if i < len(tuple) {
				ns = []*node{tuple[i]}
			}
			out = sites(ns, e, append(slices.Clip(path), step{"", i}), out, depth+1)
		}
	}
	return out
}

// Vary returns v with one change at one place: with broken, a keyword the
// schema there sets broken (its type, const or enum, pattern, a not's
// pattern, a length or count or bound crossed by one, a required member
// dropped, an unknown member where none may be, a property name refused,
// an item repeated where they must be unique, an if met without its then,
// two branches of a oneOf); without, taken to an edge that keeps it valid
// (a string made again at its pattern's edges or its maximum length, a
// number at its bound, an array at its maximum, a member the schema
// declares added, an unknown member where one may be, deep down too). The
// kind of change is drawn first, among those v has a place for, and then
// the place: a keyword that is rare in v is as likely as a common one. v
// itself is not changed.
func (s *Set) Vary(r *rand.Rand, name string, v canon.Value, broken bool) canon.Value {
	d := s.docs[name]
	if d == nil {
		return v
	}
	all := sites([]*node{d.top}, v, nil, nil, 0)
	g := &gen{r: r, budget: 24}
	kindsOf := g.edgeKinds
	if broken {
		kindsOf = g.breakKinds
	}
	var kinds []string
	byKind := map[string][]int{}
	for i, st := range all {
		for _, k := range kindsOf(st) {
			if _, seen := byKind[k]; !seen {
				kinds = append(kinds, k)
			}
			byKind[k] = append(byKind[k], i)
		}
	}
	if len(kinds) == 0 {
		return v
	}
	for range 8 {
		k := kinds[r.IntN(len(kinds))]
		at := byKind[k]
		st := all[at[r.IntN(len(at))]]
		var nv canon.Value
		var ok bool
		if broken {
			nv, ok = g.breakAt(st, k, len(st.path))
		} else {
			nv, ok = g.edgeAt(st, k, len(st.path))
		}
		if ok {
			return setAt(v, st.path, nv)
		}
	}
	return v
}

// setAt returns a copy of v with the value at path replaced by nv; only
// the containers on the path are copied.
func setAt(v canon.Value, path []step, nv canon.Value) canon.Value {
	if len(path) == 0 {
		return nv
	}
	s := path[0]
	switch {
	case s.index >= 0 && v.Kind == canon.Array && s.index < len(v.Elems):
		out := v
		out.Elems = slices.Clone(v.Elems)
		out.Elems[s.index] = setAt(v.Elems[s.index], path[1:], nv)
		return out
	case s.index < 0 && v.Kind == canon.Object:
		out := v
		out.Members = slices.Clone(v.Members)
		for i, m := range out.Members {
			if m.Key == s.key {
				out.Members[i].Value = setAt(m.Value, path[1:], nv)
				return out
			}
		}
	}
	return v
}

// The kinds of change breakAt makes.
const (
	kType       = "type"
	kConst      = "const"
	kEnum       = "enum"
	kNot        = "not"
	kIf         = "if"
	kOneOf      = "oneOf"
	kPattern    = "pattern"
	kLength     = "length"
	kBound      = "bound"
	kExclusive  = "exclusive"
	kRequired   = "required"
	kClosed     = "closed"
	kPropNames  = "propertyNames"
	kAdditional = "additional"
	kItems      = "items"
)

// breakKinds returns the kinds of keyword breakAt can break at st.
func (g *gen) breakKinds(st site) []string {
	fs, v := st.fs, st.v
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if len(typesOf(fs)) > 0 {
		add(kType)
	}
	for _, f := range fs {
		switch {
		case f.cnst != nil:
			add(kConst)
		case len(f.enum) > 0:
			add(kEnum)
		}
		if deref(f.not) != nil {
			add(kNot)
		}
		if f.ifN != nil && f.thenN != nil && v.Kind == canon.Object {
			add(kIf)
		}
		if len(f.oneOf) > 1 && v.Kind == canon.Object {
			add(kOneOf)
		}
	}
	switch v.Kind {
	case canon.String:
		// Each pattern is a kind of its own: one the instance holds once is
		// as likely to be missed as one it holds everywhere.
		for _, p := range patternsOf(fs) {
			add(kPattern + ":" + p.src)
		}
		if lo, hi := lengths(fs); lo > 0 || hi >= 0 {
			add(kLength)
		}
	case canon.Number:
		if b := boundsOf(fs); b.hasLo || b.hasHi {
			add(kBound)
			if b.loExcl || b.hiExcl {
				add(kExclusive)
			}
		}
	case canon.Object:
		if len(requiredOf(fs)) > 0 {
			add(kRequired)
		}
		if closed(fs) {
			add(kClosed)
		}
		if slices.ContainsFunc(fs, func(f *node) bool { return f.propNames != nil }) {
			add(kPropNames)
		}
		if slices.ContainsFunc(fs, func(f *node) bool { return f.addl != nil }) {
			add(kAdditional)
		}
	case canon.Array:
		lo, hi, unique := arrayBounds(fs)
		if hi >= 0 || lo > 0 || unique && len(v.Elems) > 0 {
			add(kItems)
		}
	}
	return out
}

// arrayBounds returns the facets' minItems, maxItems (-1: none) and
// whether items must be unique.
func arrayBounds(fs []*node) (lo, hi int, unique bool) {
	lo, hi = -1, -1
	for _, f := range fs {
		lo, unique = max(lo, f.minItems), unique || f.unique
		if f.maxItems >= 0 && (hi < 0 || f.maxItems < hi) {
			hi = f.maxItems
		}
	}
	return lo, hi, unique
}

// breakAt returns the value at st with a keyword of the kind broken, and
// whether one could be.
func (g *gen) breakAt(st site, kind string, depth int) (canon.Value, bool) {
	fs, v, r := st.fs, st.v, g.r
	var pick []*node
	for _, f := range fs {
		switch {
		case kind == kConst && f.cnst != nil, kind == kEnum && len(f.enum) > 0, kind == kNot && deref(f.not) != nil,
			kind == kIf && f.ifN != nil && f.thenN != nil, kind == kOneOf && len(f.oneOf) > 1, kind == kAdditional && f.addl != nil:
			pick = append(pick, f)
		}
	}
	var f *node
	if len(pick) > 0 {
		f = pick[r.IntN(len(pick))]
	} else if slices.Contains([]string{kConst, kEnum, kNot, kIf, kOneOf, kAdditional}, kind) {
		return v, false // no facet has the keyword: not a kind of this place
	}
	switch kind {
	case kType:
		if ts := typesOf(fs); len(ts) > 0 {
			return otherType(r, ts)
		}
		return v, false
	case kConst:
		return near(r, *f.cnst), true
	case kEnum:
		return near(r, f.enum[r.IntN(len(f.enum))]), true
	case kNot:
		return g.value([]*node{deref(f.not)}, depth), true
	case kIf:
		return g.unmetThen(fs, f.ifN, f.thenN, v, depth)
	case kOneOf:
		return g.twoBranches(fs, f.oneOf, v, depth)
	case kPattern:
		if ps := patternsOf(fs); len(ps) > 0 {
			return str(ps[r.IntN(len(ps))].gen.Miss(r)), true
		}
		return v, false
	}
	if src, ok := strings.CutPrefix(kind, kPattern+":"); ok {
		for _, p := range patternsOf(fs) {
			if p.src == src {
				return str(p.gen.Miss(r)), true
			}
		}
		return v, false
	}
	switch kind {
	case kLength:
		lo, hi := lengths(fs)
		if hi >= 0 && (lo <= 0 || r.IntN(2) == 0) {
			return str(runesOf(r, hi+1)), true
		}
		return str(runesOf(r, lo-1)), true
	case kBound, kExclusive:
		b := boundsOf(fs)
		if kind == kExclusive {
			b.hasLo, b.hasHi = b.hasLo && b.loExcl, b.hasHi && b.hiExcl
		}
		return crossBound(r, b, slices.Contains(typesOf(fs), "integer"))
	case kRequired:
		if req := requiredOf(fs); len(req) > 0 && v.Kind == canon.Object {
			return without(v, req[r.IntN(len(req))])
		}
		return v, false
	case kClosed:
		return g.withUnknown(fs, v, depth, true)
	case kPropNames:
		return g.badName(fs, v, depth)
	case kAdditional:
		return g.badExtra(fs, f.addl, v, depth)
	case kItems:
		lo, hi, unique := arrayBounds(fs)
		return items(r, v, lo, hi, unique)
	}
	return v, false
}

// absent returns the members the facets declare that the object v does
// not have, but those that would make it match a second oneOf branch.
func (g *gen) absent(fs []*node, v canon.Value) []string {
	names, _ := propsOf(fs)
	avoid := g.avoided(fs)
	var out []string
	for _, n := range names {
		if _, ok := v.Lookup(n); !ok && !avoid[n] {
			out = append(out, n)
		}
	}
	return out
}

// breakAny breaks a keyword of any kind at st.
func (g *gen) breakAny(st site, depth int) (canon.Value, bool) {
	kinds := g.breakKinds(st)
	if len(kinds) == 0 {
		return st.v, false
	}
	return g.breakAt(st, kinds[g.r.IntN(len(kinds))], depth)
}

// The kinds of change edgeAt makes.
const (
	kString = "string"
	kNumber = "number"
	kObject = "object"
	kArray  = "array"
	kMember = "member"
)

// edgeKinds returns the kinds of edge edgeAt can take st to.
func (g *gen) edgeKinds(st site) []string {
	fs, v := st.fs, st.v
	if slices.ContainsFunc(fs, func(f *node) bool { return f.cnst != nil || len(f.enum) > 0 }) {
		return nil
	}
	switch v.Kind {
	case canon.String:
		return []string{kString}
	case canon.Number:
		return []string{kNumber}
	case canon.Object:
		var out []string
		if !closed(fs) {
			out = append(out, kObject)
		}
		if len(g.absent(fs, v)) > 0 {
			out = append(out, kMember)
		}
		return out
	case canon.Array:
		if _, hi, _ := arrayBounds(fs); len(v.Elems) > 0 && (hi < 0 || len(v.Elems) < hi) {
			return []string{kArray}
		}
	}
	return nil
}

// edgeAt returns the value at st taken to an edge of the kind that keeps
// it valid.
func (g *gen) edgeAt(st site, kind string, depth int) (canon.Value, bool) {
	fs, v, r := st.fs, st.v, g.r
	switch kind {
	case kString:
		if lo, hi := lengths(fs); hi > 0 && len(patternsOf(fs)) == 0 && r.IntN(2) == 0 {
			s := runesOf(r, hi)
			if g.fits(s, nil, notPatterns(fs), lo, hi) {
				return str(s), true
			}
		}
		return str(g.str(fs)), true
	case kNumber:
		b := boundsOf(fs)
		switch {
		case b.minimum != nil && r.IntN(2) == 0:
			return canon.Value{Kind: canon.Number, Num: b.minimum.lex}, true
		case b.maximum != nil:
			return canon.Value{Kind: canon.Number, Num: b.maximum.lex}, true
		}
		return g.number(fs, slices.Contains(typesOf(fs), "integer")), true
	case kObject:
		return g.withUnknown(fs, v, depth, false)
	case kMember:
		absent := g.absent(fs, v)
		if len(absent) == 0 {
			return v, false
		}
		name := absent[r.IntN(len(absent))]
		out := v
		out.Members = append(slices.Clone(v.Members), canon.Member{Key: name, Value: g.value(memberSchemas(fs, name), depth+1)})
		return out, true
	case kArray:
		_, _, unique := arrayBounds(fs)
		e := g.value(itemSchemas(fs), depth+1)
		if unique && slices.ContainsFunc(v.Elems, func(x canon.Value) bool { return sameJSON(x, e) }) {
			return v, false
		}
		out := v
		out.Elems = append(slices.Clone(v.Elems), e)
		return out, true
	}
	return v, false
}

func itemSchemas(fs []*node) []*node {
	var out []*node
	for _, f := range fs {
		if f.items != nil {
			out = append(out, f.items)
		}
	}
	return out
}

// otherType returns a value of a type ts does not allow.
func otherType(r *rand.Rand, ts []string) (canon.Value, bool) {
	cands := []canon.Value{
		str("1"), {Kind: canon.Number, Num: "1"}, {Kind: canon.Number, Num: "1.5"}, {Kind: canon.Bool, Bool: true},
		{Kind: canon.Null}, {Kind: canon.Object}, {Kind: canon.Array}, str(""), {Kind: canon.Number, Num: "0"},
	}
	var out []canon.Value
	for _, c := range cands {
		if !typeHolds(ts, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return canon.Value{}, false
	}
	return out[r.IntN(len(out))], true
}

// near returns a value close to c but not it: a string in the other case,
// with a space, a character dropped or swapped for a look-alike; a number
// one off; another type.
func near(r *rand.Rand, c canon.Value) canon.Value {
	switch c.Kind {
	case canon.String:
		s := c.Str
		switch r.IntN(6) {
		case 0:
			if u := strings.ToUpper(s); u != s {
				return str(u)
			}
			return str(s + "X")
		case 1:
			return str(s + " ")
		case 2:
			if s != "" {
				_, n := canon.DecodeRune(s)
				return str(s[n:])
			}
			return str("x")
		case 3:
			// A Cyrillic letter for its Latin look-alike, or one more
			// letter where there is none to swap.
			for _, p := range [][2]string{{"e", "е"}, {"a", "а"}, {"o", "о"}, {"c", "с"}, {"p", "р"}} {
				if strings.Contains(s, p[0]) {
					return str(strings.Replace(s, p[0], p[1], 1))
				}
			}
			return str(s + "s")
		case 4:
			return str(s + "\n")
		}
		return str("\u00a0" + s)
	case canon.Number:
		f, err := strconv.ParseFloat(c.Num, 64)
		if err != nil {
			return str(c.Num)
		}
		return numberValue(f+1, f == math.Trunc(f))
	case canon.Bool:
		return canon.Value{Kind: canon.Bool, Bool: !c.Bool}
	}
	return str(c.String())
}

// runesOf returns n code points, a third of them beyond the BMP (so that
// a count of UTF-16 units is longer).
func runesOf(r *rand.Rand, n int) string {
	var b strings.Builder
	for range max(n, 0) {
		if r.IntN(3) == 0 {
			b.WriteRune(0x1F600 + rune(r.IntN(64)))
		} else {
			b.WriteRune(rune('a' + r.IntN(26)))
		}
	}
	return b.String()
}

// crossBound returns a number just beyond a bound: one past an inclusive
// one, or the exclusive one itself.
func crossBound(r *rand.Rand, b numBounds, integer bool) (canon.Value, bool) {
	step := 1.0
	if !integer && r.IntN(2) == 0 {
		step = 0.5
	}
	var cands []canon.Value
	if b.hasLo {
		if b.loExcl {
			cands = append(cands, canon.Value{Kind: canon.Number, Num: b.loLex})
		} else {
			cands = append(cands, numberValue(b.lo-step, integer))
		}
	}
	if b.hasHi {
		if b.hiExcl {
			cands = append(cands, canon.Value{Kind: canon.Number, Num: b.hiLex})
		} else {
			cands = append(cands, numberValue(b.hi+step, integer))
		}
	}
	if len(cands) == 0 {
		return canon.Value{}, false
	}
	return cands[r.IntN(len(cands))], true
}

// without returns an object without its member name.
func without(v canon.Value, name string) (canon.Value, bool) {
	i := slices.IndexFunc(v.Members, func(m canon.Member) bool { return m.Key == name })
	if i < 0 {
		return v, false
	}
	out := v
	out.Members = slices.Delete(slices.Clone(v.Members), i, i+1)
	return out, true
}

// withUnknown returns an object with a member its schemas do not declare:
// named to keep propertyNames when !refused, any name when refused.
func (g *gen) withUnknown(fs []*node, v canon.Value, depth int, refused bool) (canon.Value, bool) {
	name := g.unknownName(fs)
	if refused {
		name = unknownNames[g.r.IntN(len(unknownNames))]
	}
	if _, ok := v.Lookup(name); ok {
		return v, false
	}
	out := v
	out.Members = append(slices.Clone(v.Members), canon.Member{Key: name, Value: g.value(memberSchemas(fs, name), depth+1)})
	return out, true
}

// badName returns an object with a member whose name its propertyNames
// refuse.
func (g *gen) badName(fs []*node, v canon.Value, depth int) (canon.Value, bool) {
	for _, f := range fs {
		if f.propNames == nil {
			continue
		}
		bad, ok := g.breakAny(site{v: str(g.unknownName(fs)), fs: facets(f.propNames, g.pick, nil)}, depth)
		if !ok || bad.Kind != canon.String {
			return v, false
		}
		if _, dup := v.Lookup(bad.Str); dup {
			return v, false
		}
		out := v
		out.Members = append(slices.Clone(v.Members), canon.Member{Key: bad.Str, Value: g.value(memberSchemas(fs, bad.Str), depth+1)})
		return out, true
	}
	return v, false
}

// badExtra returns an object with an undeclared member whose value its
// additionalProperties schema refuses.
func (g *gen) badExtra(fs []*node, addl *node, v canon.Value, depth int) (canon.Value, bool) {
	name := g.unknownName(fs)
	if _, ok := v.Lookup(name); ok || len(memberSchemas(fs, name)) == 0 {
		return v, false
	}
	bad, ok := g.breakAny(site{v: g.value([]*node{addl}, depth+1), fs: facets(addl, g.pick, nil)}, depth+1)
	if !ok {
		return v, false
	}
	out := v
	out.Members = append(slices.Clone(v.Members), canon.Member{Key: name, Value: bad})
	return out, true
}

// unmetThen returns an object that meets an if (its properties' const or
// first enum value set) without a member its then requires.
func (g *gen) unmetThen(fs []*node, ifN, thenN *node, v canon.Value, depth int) (canon.Value, bool) {
	out := v
	out.Members = slices.Clone(v.Members)
	for _, f := range facets(ifN, g.pick, nil) {
		for _, p := range f.props {
			pn := deref(p.n)
			if pn == nil {
				continue
			}
			var want canon.Value
			switch {
			case pn.cnst != nil:
				want = *pn.cnst
			case len(pn.enum) > 0:
				want = pn.enum[g.r.IntN(len(pn.enum))]
			default:
				continue
			}
			if i := slices.IndexFunc(out.Members, func(m canon.Member) bool { return m.Key == p.name }); i >= 0 {
				out.Members[i].Value = want
			} else {
				out.Members = append(out.Members, canon.Member{Key: p.name, Value: want})
			}
		}
		for _, req := range f.required {
			if _, ok := out.Lookup(req); !ok {
				out.Members = append(out.Members, canon.Member{Key: req, Value: g.value(memberSchemas(fs, req), depth+1)})
			}
		}
	}
	req := requiredOf(facets(thenN, g.pick, nil))
	if len(req) == 0 {
		return g.breakAny(site{v: out, fs: facets(thenN, g.pick, nil)}, depth)
	}
	return without(out, req[g.r.IntN(len(req))])
}

// twoBranches returns an object with the members two branches of a oneOf
// require, so that it matches both.
func (g *gen) twoBranches(fs, branches []*node, v canon.Value, depth int) (canon.Value, bool) {
	out := v
	out.Members = slices.Clone(v.Members)
	i := g.r.IntN(len(branches))
	j := (i + 1 + g.r.IntN(len(branches)-1)) % len(branches)
	changed := false
	for _, b := range []*node{branches[i], branches[j]} {
		for _, req := range requiredOf(facets(b, g.pick, nil)) {
			if _, ok := out.Lookup(req); !ok {
				out.Members = append(out.Members, canon.Member{Key: req, Value: g.value(memberSchemas(fs, req), depth+1)})
				changed = true
			}
		}
	}
	return out, changed
}

// items returns an array with one item too few or too many, or one
// repeated where they must be unique.
func items(r *rand.Rand, v canon.Value, lo, hi int, unique bool) (canon.Value, bool) {
	out := v
	switch {
	case unique && len(v.Elems) > 0 && r.IntN(2) == 0:
		out.Elems = append(slices.Clone(v.Elems), v.Elems[r.IntN(len(v.Elems))])
	case hi >= 0 && (lo <= 0 || r.IntN(2) == 0):
		out.Elems = slices.Clone(v.Elems)
		for len(out.Elems) <= hi {
			if len(v.Elems) > 0 {
				out.Elems = append(out.Elems, v.Elems[len(out.Elems)%len(v.Elems)])
			} else {
				out.Elems = append(out.Elems, str("x"))
			}
		}
	case lo > 0:
		out.Elems = slices.Clone(v.Elems[:min(len(v.Elems), lo-1)])
	default:
		return v, false
	}
	return out, true
}
