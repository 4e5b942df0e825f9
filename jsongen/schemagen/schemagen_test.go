package schemagen

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/draft7"
)

// testSchemas exercise the keywords the generator reads: types, enums and
// consts, properties, required and additionalProperties, patterns (and
// patterns under not), lengths, bounds exclusive and not, items and their
// counts, uniqueItems, contains, propertyNames, allOf, anyOf, oneOf,
// if/then, and $ref into definitions and into another document.
var testSchemas = map[string]string{
	"thing": `{
		"$id": "https://example.com/thing.schema.json",
		"type": "object",
		"required": ["id", "kind", "tags", "when"],
		"additionalProperties": false,
		"properties": {
			"id": {"type": "string", "pattern": "^[0-9a-f]{8}$"},
			"kind": {"enum": ["a", "b", "c"]},
			"version": {"const": "1.0"},
			"name": {"type": "string", "minLength": 2, "maxLength": 5},
			"path": {"type": "string", "minLength": 1, "allOf": [{"not": {"pattern": "^/"}}, {"not": {"pattern": "(^|/)\\.\\.(/|$)"}}]},
			"count": {"type": "integer", "minimum": 1, "maximum": 10},
			"timeout": {"type": "number", "exclusiveMinimum": 0},
			"tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
			"dims": {"type": "array", "items": {"$ref": "#/definitions/dim"}, "contains": {"$ref": "#/definitions/dim", "properties": {"id": {"const": "x"}}}},
			"meta": {"type": "object", "propertyNames": {"pattern": "^[a-z_]+$"}, "additionalProperties": {"type": "string"}},
			"when": {"$ref": "other.schema.json#/definitions/stamp"},
			"either": {"anyOf": [{"type": "string", "pattern": "^s"}, {"type": "integer"}]},
			"entry": {"type": "object", "oneOf": [{"required": ["source"]}, {"required": ["content"]}], "properties": {"source": {"type": "string"}, "content": {"type": "string"}}},
			"event": {"type": "object", "required": ["type"], "properties": {"type": {"enum": ["revoked", "granted"]}, "by": {"type": "string", "minLength": 1}},
				"allOf": [{"if": {"properties": {"type": {"const": "revoked"}}}, "then": {"required": ["by"]}}]}
		},
		"definitions": {
			"dim": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "minLength": 1}, "score": {"type": "integer", "minimum": 0, "maximum": 4}}}
		}
	}`,
	"other": `{
		"$id": "https://example.com/other.schema.json",
		"definitions": {"stamp": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$"}}
	}`,
}

func testSet(t *testing.T) (*Set, *draft7.Schema) {
	t.Helper()
	raw := map[string][]byte{}
	c := draft7.NewCompiler()
	for name, text := range testSchemas {
		raw[name] = []byte(text)
		if err := c.AddDocument(name+".schema.json", []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(raw)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("thing.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s, schema
}

// TestFresh: what Fresh makes is valid (the validator judges), and over
// many draws every optional member and every branch shows up.
func TestFresh(t *testing.T) {
	s, schema := testSet(t)
	r := rand.New(rand.NewPCG(1, 1))
	seen := map[string]bool{}
	for i := range 500 {
		v := s.Fresh(r, "thing")
		if errs := schema.Validate(v); len(errs) > 0 {
			t.Fatalf("draw %d: %s is not valid: %+v", i, v.String(), errs)
		}
		for _, m := range v.Members {
			seen[m.Key] = true
		}
	}
	for _, want := range []string{"id", "kind", "version", "name", "path", "count", "timeout", "tags", "dims", "meta", "when", "either", "entry", "event"} {
		if !seen[want] {
			t.Errorf("no instance had %q", want)
		}
	}
}

// TestVaryBroken: with broken, Vary makes an invalid instance of a valid
// one nearly always, and over many draws breaks every kind of keyword the
// schema has.
func TestVaryBroken(t *testing.T) {
	s, schema := testSet(t)
	r := rand.New(rand.NewPCG(2, 2))
	keywords := map[string]int{}
	invalid, unmetThen := 0, false
	const n = 3000
	for range n {
		v := s.Vary(r, "thing", s.Fresh(r, "thing"), true)
		errs := schema.Validate(v)
		if len(errs) > 0 {
			invalid++
		}
		// An if met without its then: revoked, and no by.
		ev, _ := v.Lookup("event")
		typ, _ := ev.Lookup("type")
		_, by := ev.Lookup("by")
		unmetThen = unmetThen || typ.Str == "revoked" && !by && len(errs) > 0
		for _, e := range errs {
			keywords[e.Keyword]++
		}
	}
	if invalid < n*9/10 {
		t.Errorf("%d of %d broken instances were invalid, want 90%%", invalid, n)
	}
	if !unmetThen {
		t.Error("no broken instance met the if without its then")
	}
	for _, want := range []string{"type", "enum", "const", "pattern", "not", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
		"required", "additionalProperties", "propertyNames", "minItems", "maxItems", "uniqueItems", "oneOf", "anyOf", "contains"} {
		if keywords[want] == 0 {
			t.Errorf("no broken instance failed %s (failed: %v)", want, keywords)
		}
	}
}

// TestVaryEdge: without broken, Vary keeps a valid instance valid, and
// takes it to its edges: a string of maxLength code points beyond the
// BMP, a number at its bound, an unknown member where one may be.
func TestVaryEdge(t *testing.T) {
	s, schema := testSet(t)
	r := rand.New(rand.NewPCG(3, 3))
	var sawAstralMax, sawBound, sawUnknown bool
	invalid := 0
	for range 3000 {
		v := s.Vary(r, "thing", s.Fresh(r, "thing"), false)
		if errs := schema.Validate(v); len(errs) > 0 {
			// A string made again may equal another item of an array whose
			// items must be unique: the site does not know the array.
			if invalid++; invalid > 30 || errs[0].Keyword != "uniqueItems" {
				t.Fatalf("%s is not valid: %+v (%d invalid so far)", v.String(), errs, invalid)
			}
		}
		if name, ok := v.Lookup("name"); ok && canon.CodePoints(name.Str) == 5 && len([]rune(name.Str)) == 5 && strings.ContainsFunc(name.Str, func(c rune) bool { return c > 0xFFFF }) {
			sawAstralMax = true
		}
		if c, ok := v.Lookup("count"); ok && (c.Num == "1" || c.Num == "10") {
			sawBound = true
		}
		if m, ok := v.Lookup("meta"); ok && len(m.Members) > 0 {
			sawUnknown = true
		}
	}
	if !sawAstralMax || !sawBound || !sawUnknown {
		t.Errorf("edges seen: maxLength beyond the BMP %v, a bound %v, an unknown member %v", sawAstralMax, sawBound, sawUnknown)
	}
}

// TestInstanceDeterministic: the same seed makes the same instances.
func TestInstanceDeterministic(t *testing.T) {
	s, _ := testSet(t)
	seeds := []canon.Value{s.Fresh(rand.New(rand.NewPCG(9, 9)), "thing")}
	draw := func() string {
		r := rand.New(rand.NewPCG(4, 4))
		var b strings.Builder
		for range 200 {
			v, ok := s.Instance(r, "thing", seeds)
			if !ok {
				t.Fatal("no schema thing")
			}
			b.WriteString(v.String())
		}
		return b.String()
	}
	if first, second := draw(), draw(); first != second {
		t.Error("two draws from the same seed differ")
	}
	if _, ok := s.Instance(rand.New(rand.NewPCG(1, 1)), "nothing", nil); ok {
		t.Error("an instance of a schema the set does not hold")
	}
}

// TestBadPattern: a pattern that does not compile is an error naming it.
func TestBadPattern(t *testing.T) {
	_, err := New(map[string][]byte{"x": []byte(`{"properties": {"a": {"pattern": "("}}}`)})
	if err == nil || !strings.Contains(err.Error(), "x#/properties/a") {
		t.Errorf("err = %v, want one naming x#/properties/a", err)
	}
}

// TestRecursiveSchema: a schema that requires itself, through a $ref,
// still makes instances, cut at a depth, and breaking a keyword no place
// has changes nothing.
func TestRecursiveSchema(t *testing.T) {
	s, err := New(map[string][]byte{"tree": []byte(`{"type": "object", "required": ["child"], "properties": {"child": {"$ref": "#"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	v := s.Fresh(r, "tree")
	depth := 0
	for x := v; x.Kind == canon.Object; depth++ {
		x, _ = x.Lookup("child")
	}
	if depth != maxDepth+1 {
		t.Errorf("an instance %d objects deep, want %d", depth, maxDepth+1)
	}
	for range 50 {
		s.Vary(r, "tree", v, true)
		s.Vary(r, "tree", v, false)
	}
	g := &gen{r: r}
	for _, k := range []string{kConst, kEnum, kNot, kIf, kOneOf, kAdditional, kPattern, kRequired, kType} {
		if _, ok := g.breakAt(site{v: str("x")}, k, 0); ok {
			t.Errorf("kind %s broke a place without the keyword", k)
		}
	}
}
