// Package schemagen generates instances of draft-07 JSON Schemas for the
// fuzzer: values meant to be valid, and values with one keyword broken at
// one place (a pattern missed at an edge, a bound crossed by one, a
// required member dropped, an unknown member where none may be, a value
// of another type, a not matched, an if met without its then), or taken to
// an edge that keeps them valid (a length at its maximum counted in code
// points, a number at its bound, an unknown member deep down). The schemas
// are read once (New); each instance costs no compilation. It aims and
// does not decide: a validator judges what it makes.
package schemagen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/ecmaregexp"
)

// Set is a set of schema documents read for generation, each by name.
// It is safe for concurrent use.
type Set struct {
	docs  map[string]*document
	byID  map[string]*document
	names []string
}

type document struct {
	name  string
	root  canon.Value
	nodes map[string]*node // by JSON pointer
	top   *node
}

// pattern is a pattern read twice: to generate strings and to match them.
type pattern struct {
	src string
	gen *ecmaregexp.Generator
	re  *ecmaregexp.Regexp
}

// bound is a numeric keyword's value.
type bound struct {
	f   float64
	lex string
}

// node is one schema, its keywords read.
type node struct {
	boolean *bool // a true or false schema
	refStr  string
	ref     *node
	doc     *document
	ptr     string

	types []string
	enum  []canon.Value
	cnst  *canon.Value

	props        []prop
	required     []string
	addl         *node
	noAddl       bool
	patProps     []patProp
	propNames    *node
	minProps     int
	maxProps     int
	items        *node
	tuple        []*node
	addlItems    *node
	minItems     int
	maxItems     int
	unique       bool
	contains     *node
	minLen       int
	maxLen       int
	pattern      *pattern
	minimum      *bound
	maximum      *bound
	exMin, exMax *bound

	not                 *node
	allOf, anyOf, oneOf []*node
	ifN, thenN, elseN   *node
}

type prop struct {
	name string
	n    *node
}

type patProp struct {
	p *pattern
	n *node
}

// New reads schema documents, each by its name (a shape: "agent-lease").
// A $ref may point into its own document ("#/definitions/x") or into
// another by its $id; one that resolves nowhere is read as the empty
// schema. Patterns that do not compile are an error.
func New(schemas map[string][]byte) (*Set, error) {
	s := &Set{docs: map[string]*document{}, byID: map[string]*document{}}
	for name, raw := range schemas {
		v, err := canon.Parse(raw, canon.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("schemagen: %s: %w", name, err)
		}
		d := &document{name: name, root: v, nodes: map[string]*node{}}
		s.docs[name] = d
		s.names = append(s.names, name)
		if id, ok := v.Lookup("$id"); ok && id.Kind == canon.String {
			base, _, _ := strings.Cut(id.Str, "#")
			s.byID[base] = d
		}
	}
	b := builder{s: s}
	for _, d := range s.docs {
		d.top = b.build(d, d.root, "")
	}
	for len(b.pending) > 0 {
		n := b.pending[0]
		b.pending = b.pending[1:]
		n.ref = b.resolve(n)
	}
	if b.err != nil {
		return nil, b.err
	}
	return s, nil
}

// Has reports whether the set holds a schema of that name.
func (s *Set) Has(name string) bool { _, ok := s.docs[name]; return ok }

// Size returns how many schemas the document of that name holds (its
// subschemas, counted once each): a measure of how much it says.
func (s *Set) Size(name string) int {
	if d := s.docs[name]; d != nil {
		return len(d.nodes)
	}
	return 0
}

type builder struct {
	s       *Set
	pending []*node
	err     error
}

func (b *builder) build(d *document, v canon.Value, ptr string) *node {
	if n, ok := d.nodes[ptr]; ok {
		return n
	}
	n := &node{doc: d, ptr: ptr, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	d.nodes[ptr] = n
	switch v.Kind {
	case canon.Bool:
		bv := v.Bool
		n.boolean = &bv
		return n
	case canon.Object:
	default:
		return n
	}
	if ref, ok := v.Lookup("$ref"); ok && ref.Kind == canon.String {
		n.refStr = ref.Str // draft-07: the keywords beside a $ref are ignored
		b.pending = append(b.pending, n)
		return n
	}
	sub := func(key string, x canon.Value) *node { return b.build(d, x, ptr+"/"+key) }
	list := func(key string, x canon.Value) []*node {
		var out []*node
		for i, e := range x.Elems {
			out = append(out, b.build(d, e, ptr+"/"+key+"/"+strconv.Itoa(i)))
		}
		return out
	}
	integer := func(x canon.Value) int {
		f, err := strconv.ParseFloat(x.Num, 64)
		if err != nil || x.Kind != canon.Number {
			return -1
		}
		return int(f)
	}
	num := func(x canon.Value) *bound {
		if x.Kind != canon.Number {
			return nil
		}
		f, err := strconv.ParseFloat(x.Num, 64)
		if err != nil {
			return nil
		}
		return &bound{f, x.Num}
	}
	for _, m := range v.Members {
		x := m.Value
		switch m.Key {
		case "type":
			if x.Kind == canon.String {
				n.types = []string{x.Str}
			}
			for _, e := range x.Elems {
				n.types = append(n.types, e.Str)
			}
		case "enum":
			n.enum = x.Elems
		case "const":
			c := x
			n.cnst = &c
		case "properties":
			for _, p := range x.Members {
				n.props = append(n.props, prop{p.Key, b.build(d, p.Value, ptr+"/properties/"+canon.PointerToken(p.Key))})
			}
		case "required":
			for _, e := range x.Elems {
				n.required = append(n.required, e.Str)
			}
		case "additionalProperties":
			if x.Kind == canon.Bool && !x.Bool {
				n.noAddl = true
			} else {
				n.addl = sub(m.Key, x)
			}
		case "patternProperties":
			for _, p := range x.Members {
				pt, err := compilePattern(p.Key)
				if err != nil {
					b.fail(d, ptr, err)
					continue
				}
				n.patProps = append(n.patProps, patProp{pt, b.build(d, p.Value, ptr+"/patternProperties/"+canon.PointerToken(p.Key))})
			}
		case "propertyNames":
			n.propNames = sub(m.Key, x)
		case "minProperties":
			n.minProps = integer(x)
		case "maxProperties":
			n.maxProps = integer(x)
		case "items":
			if x.Kind == canon.Array {
				n.tuple = list(m.Key, x)
			} else {
				n.items = sub(m.Key, x)
			}
		case "additionalItems":
			n.addlItems = sub(m.Key, x)
		case "minItems":
			n.minItems = integer(x)
		case "maxItems":
			n.maxItems = integer(x)
		case "uniqueItems":
			n.unique = x.Kind == canon.Bool && x.Bool
		case "contains":
			n.contains = sub(m.Key, x)
		case "minLength":
			n.minLen = integer(x)
		case "maxLength":
			n.maxLen = integer(x)
		case "pattern":
			if x.Kind != canon.String {
				continue
			}
			pt, err := compilePattern(x.Str)
			if err != nil {
				b.fail(d, ptr, err)
				continue
			}
			n.pattern = pt
		case "minimum":
			n.minimum = num(x)
		case "maximum":
			n.maximum = num(x)
		case "exclusiveMinimum":
			n.exMin = num(x)
		case "exclusiveMaximum":
			n.exMax = num(x)
		case "not":
			n.not = sub(m.Key, x)
		case "allOf":
			n.allOf = list(m.Key, x)
		case "anyOf":
			n.anyOf = list(m.Key, x)
		case "oneOf":
			n.oneOf = list(m.Key, x)
		case "if":
			n.ifN = sub(m.Key, x)
		case "then":
			n.thenN = sub(m.Key, x)
		case "else":
			n.elseN = sub(m.Key, x)
		}
	}
	return n
}

func (b *builder) fail(d *document, ptr string, err error) {
	if b.err == nil {
		b.err = fmt.Errorf("schemagen: %s#%s: %w", d.name, ptr, err)
	}
}

func compilePattern(src string) (*pattern, error) {
	g, err := ecmaregexp.NewGenerator(src)
	if err != nil {
		return nil, err
	}
	re, err := ecmaregexp.Compile(src)
	if err != nil {
		return nil, err
	}
	return &pattern{src: src, gen: g, re: re}, nil
}

// resolve returns the node n's $ref names, or nil (the empty schema).
func (b *builder) resolve(n *node) *node {
	base, frag, _ := strings.Cut(n.refStr, "#")
	d := n.doc
	if base != "" {
		d = b.s.byID[base]
		if d == nil {
			for _, o := range b.s.docs {
				if strings.HasSuffix(base, "/"+o.name+".schema.json") || base == o.name+".schema.json" {
					d = o
				}
			}
		}
		if d == nil {
			return nil
		}
	}
	v, ok := d.root.At(frag)
	if !ok {
		return nil
	}
	return b.build(d, v, frag)
}

// deref follows $refs.
func deref(n *node) *node {
	for i := 0; n != nil && n.refStr != "" && i < 64; i++ {
		n = n.ref
	}
	return n
}

// facets returns n and every schema an instance of it must also satisfy:
// its $ref followed, its allOf, and one branch of each anyOf and oneOf,
// chosen by pick.
func facets(n *node, pick func([]*node) *node, out []*node) []*node {
	return facetsDepth(n, pick, out, 0)
}

func facetsDepth(n *node, pick func([]*node) *node, out []*node, depth int) []*node {
	n = deref(n)
	if n == nil || depth > 16 {
		return out
	}
	out = append(out, n)
	for _, a := range n.allOf {
		out = facetsDepth(a, pick, out, depth+1)
	}
	if len(n.anyOf) > 0 {
		out = facetsDepth(pick(n.anyOf), pick, out, depth+1)
	}
	if len(n.oneOf) > 0 {
		out = facetsDepth(pick(n.oneOf), pick, out, depth+1)
	}
	return out
}
