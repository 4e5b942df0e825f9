package cdc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/lazyregexp"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// Release is the corpus layout: the 1.0 releases have no .expect.json, no
// narrowing, signature or by-rule vectors, and a runner that checks no paths.
type Release string

// The layouts.
const (
	Release10 Release = "1.0"
	Release12 Release = "1.2"
)

// Corpus is a contract checkout or installed package, read.
type Corpus struct {
	Name    string
	Dir     string // absolute directory, for adapters that read the schemas themselves
	FS      fs.FS
	Release Release
	Shapes  []string // the shapes the corpus has schemas for

	Valid, Invalid, ByRule []Fixture
	Canonical              *CanonicalVectors // nil when absent
	JCS                    []JCSCase
	Narrowing              []NarrowVector
	Signatures             []SignatureVector
	Key                    string // the test key line, 64 hex
	keyFile                string // the file it is in

	// Found says referee fuzz wrote the corpus (its manifest carries a fuzz
	// run's provenance): it holds found vectors and the schemas they need,
	// not a whole contract, so the completeness rules and the supplement
	// do not apply to it.
	Found bool

	spec string // the SPEC's text, white space collapsed; "" when the corpus has none

	// compiled is the corpus's schemas compiled, once, for every honest
	// reading of them (Reference, whatever the mode, unless the mode reads
	// patterns in another dialect).
	compiled struct {
		once sync.Once
		v    *pc.Validator
		err  error
	}
	// schemas holds each shape's schema document, parsed once, for the
	// supplement's rules and the modes that read declarations.
	schemas struct {
		once sync.Once
		docs map[string]schemaDoc
	}
}

// schemaDoc is one shape's schema document, or why it cannot be read.
type schemaDoc struct {
	v   canon.Value
	err error
}

// schemaOf returns the schema document of shape, read and parsed on the
// first call for any shape.
func (cp *Corpus) schemaOf(shape string) (canon.Value, error) {
	cp.schemas.once.Do(func() {
		cp.schemas.docs = map[string]schemaDoc{}
		for _, s := range cp.Shapes {
			name := "schemas/" + s + ".schema.json"
			raw, err := fs.ReadFile(cp.FS, name)
			if err != nil {
				cp.schemas.docs[s] = schemaDoc{err: err}
				continue
			}
			v, err := canon.Parse(raw, canon.ReadOptions{})
			if err != nil {
				err = fmt.Errorf("cdc: %s: %w", name, err)
			}
			cp.schemas.docs[s] = schemaDoc{v, err}
		}
	})
	d, ok := cp.schemas.docs[shape]
	if !ok {
		return canon.Value{}, fmt.Errorf("cdc: no schema for shape %q", shape)
	}
	return d.v, d.err
}

// validator returns the corpus's schemas compiled; each call after the
// first returns the same one.
func (cp *Corpus) validator() (*pc.Validator, error) {
	cp.compiled.once.Do(func() { cp.compiled.v, cp.compiled.err = pc.NewValidator(cp.FS) })
	return cp.compiled.v, cp.compiled.err
}

// specFiles are where a corpus keeps its SPEC: the npm package at its root,
// a checkout under spec/.
var specFiles = []string{"SPEC-agent-lease-manifest.md", "spec/SPEC-agent-lease-manifest.md"}

// Fixture is one fixture file with its companions.
type Fixture struct {
	Kind   string // valid, invalid or invalid-by-rule
	File   string // base name, e.g. agent-lease.minimal.json
	Shape  string
	Value  canon.Value
	Reason string // trimmed .reason; "" when absent or empty
	Expect *Expect
}

// Name is the fixture's file name without .json: its check ID segment.
func (f Fixture) Name() string { return strings.TrimSuffix(f.File, ".json") }

// Expect is an .expect.json: a path and keyword, or a rule and path with context.
type Expect struct {
	Path    *string `json:"path"`
	Keyword string  `json:"keyword"`
	Rule    *string `json:"rule"`
	Context *struct {
		Chain json.RawMessage `json:"chain"`
	} `json:"context"`
}

// Chain returns the context's chain and whether it is an array.
func (e *Expect) Chain() ([]string, bool) {
	if e == nil || e.Context == nil || len(e.Context.Chain) == 0 {
		return nil, false
	}
	var chain []string
	if err := json.Unmarshal(e.Context.Chain, &chain); err != nil {
		return nil, false
	}
	return chain, true
}

// CanonicalVectors is canonical-vectors.json.
type CanonicalVectors struct {
	Comment  json.RawMessage `json:"_comment"`
	Vectors  []CanonVector   `json:"vectors"`
	MustFail []struct {
		Name      string `json:"name"`
		Construct string `json:"construct"`
		Why       string `json:"why"`
	} `json:"must_fail"`
}

// CanonVector is one canonical-bytes vector; sha256 is authoritative.
type CanonVector struct {
	Name      string          `json:"name"`
	Why       string          `json:"why"`
	Value     json.RawMessage `json:"value"`
	Canonical string          `json:"canonical"`
	SHA256    string          `json:"sha256"`
}

// JCSCase is one RFC 8785 input with its expected bytes.
type JCSCase struct {
	File  string
	Input json.RawMessage
	Want  []byte
}

// NarrowVector is one narrowing vector.
type NarrowVector struct {
	Name          string          `json:"name"`
	Why           string          `json:"why"`
	Parent        json.RawMessage `json:"parent"`
	Declared      json.RawMessage `json:"declared"`
	Granted       json.RawMessage `json:"granted"`
	Refusals      []string        `json:"refusals"`
	HasRefusals   bool            `json:"-"`
	SchemaInvalid bool            `json:"schema_invalid"`
	Diff          json.RawMessage `json:"diff"`
}

// SignatureVector is a signed lease and the declaration it came from.
type SignatureVector struct {
	Name     string
	Why      string
	Lease    canon.Value
	Declared canon.Value
	// Tampered are referee's extension (the vector's "tampered" member,
	// which upstream's runner ignores): the lease changed after signing,
	// each with whether it still verifies.
	Tampered []Tampering
}

// Tampering is one change of a signed lease after signing, at a JSON
// Pointer: exactly one of set (a value), append (to a string), upper
// (upper-case a string) and remove (drop the member); and whether the
// lease still verifies: only a change of spelling that keeps the canonical
// bytes (a number written 1e3 for 1000, members in another order) does.
type Tampering struct {
	Why      string          `json:"why"`
	At       string          `json:"at"`
	Set      json.RawMessage `json:"set,omitempty"`
	Append   *string         `json:"append,omitempty"`
	Upper    bool            `json:"upper,omitempty"`
	Remove   bool            `json:"remove,omitempty"`
	Verifies bool            `json:"verifies"`
}

// apply returns lease with the change made; ok is false when it does not
// apply (no such member, or not a string to append to or upper-case).
func (t Tampering) apply(lease canon.Value) (canon.Value, bool) {
	n := 0
	for _, set := range []bool{len(t.Set) > 0, t.Append != nil, t.Upper, t.Remove} {
		if set {
			n++
		}
	}
	toks, err := pointerTokens(t.At)
	if n != 1 || err != nil || len(toks) == 0 {
		return lease, false
	}
	if t.Remove {
		if _, ok := lease.At(t.At); !ok {
			return lease, false
		}
		return setAt(lease, toks[:len(toks)-1], func(parent canon.Value, present bool) (canon.Value, bool) {
			if !present || parent.Kind != canon.Object {
				return parent, false
			}
			out := parent
			out.Members = slices.DeleteFunc(slices.Clone(parent.Members), func(m canon.Member) bool { return m.Key == toks[len(toks)-1] })
			return out, true
		})
	}
	return applyEdit(lease, Edit{At: t.At, Set: t.Set, Append: t.Append, Upper: t.Upper})
}

var keyPattern = lazyregexp.New(`^[0-9a-f]{64}$`)

// ReadCorpus reads a contract corpus from c; dir is its directory on disk.
func ReadCorpus(c *corpus.Corpus, dir string) (*Corpus, error) {
	cp := &Corpus{Name: c.Name, Dir: dir, FS: c.FS, Found: isFound(c)}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("corpus %s: "+format, append([]any{c.Name}, args...)...)
	}
	schemas, _ := fs.Glob(c.FS, "schemas/*.schema.json")
	for _, s := range pc.Shapes {
		for _, f := range schemas {
			if path.Base(f) == s+".schema.json" {
				cp.Shapes = append(cp.Shapes, s)
			}
		}
	}
	vectorsOnly := len(cp.Shapes) == 0 && !hasPrefix(c, "fixtures/") &&
		(c.Has("conformance/canonical-vectors.json") || c.Has("conformance/narrowing-vectors.json"))
	if len(cp.Shapes) == 0 && !vectorsOnly {
		return nil, fail("no schemas/<shape>.schema.json: not a Cognitive Delivery Contract checkout or package (install one with npm install @cognitive-delivery/contract)")
	}
	cp.Release = Release10
	if c.Has("conformance/narrowing-vectors.json") || anyExpect(c) {
		cp.Release = Release12
	}
	for _, f := range specFiles {
		if c.Has(f) {
			raw, err := c.ReadFile(f)
			if err != nil {
				return nil, err
			}
			cp.spec = check.OneLine(string(raw))
			break
		}
	}
	var err error
	if vectorsOnly {
		return cp, cp.readVectors(c)
	}
	for _, kind := range []string{"valid", "invalid", "invalid-by-rule"} {
		fixtures, ferr := cp.readFixtures(c, kind)
		if ferr != nil {
			return nil, ferr
		}
		switch kind {
		case "valid":
			cp.Valid = fixtures
		case "invalid":
			cp.Invalid = fixtures
		default:
			cp.ByRule = fixtures
		}
	}
	if !cp.Found && (len(cp.Valid) == 0 || len(cp.Invalid) == 0) {
		return nil, fail("no fixtures under fixtures/valid or fixtures/invalid")
	}
	if !cp.Found {
		if err = cp.complete(); err != nil {
			return nil, fail("%v", err)
		}
	}
	if err := cp.readVectors(c); err != nil {
		return nil, err
	}
	if c.Has("conformance/signature-vectors.json") {
		if err := cp.readSignatures(c); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// isFound reports whether referee fuzz wrote c: its manifest carries a
// fuzz run's provenance.
func isFound(c *corpus.Corpus) bool {
	if c.Manifest == nil {
		return false
	}
	for _, m := range c.Manifest.Meta {
		if f, ok := m.Value.Lookup("format"); m.Key == corpus.FuzzProvenanceKey && ok && f.Str == corpus.FuzzProvenanceFormat {
			return true
		}
	}
	return false
}

// hasPrefix reports whether the corpus holds a file under prefix.
func hasPrefix(c *corpus.Corpus, prefix string) bool {
	for _, f := range c.Files() {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

// readVectors reads the canonical vectors, RFC 8785's test data and the
// narrowing vectors, those the corpus has.
func (cp *Corpus) readVectors(c *corpus.Corpus) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("corpus %s: "+format, append([]any{c.Name}, args...)...)
	}
	var err error
	if c.Has("conformance/canonical-vectors.json") {
		cp.Canonical = &CanonicalVectors{}
		if err := decode(c, "conformance/canonical-vectors.json", cp.Canonical); err != nil {
			return err
		}
	}
	if cp.JCS, err = readJCS(c); err != nil {
		return err
	}
	if c.Has("conformance/narrowing-vectors.json") {
		var doc struct {
			Comment json.RawMessage   `json:"_comment"`
			Vectors []json.RawMessage `json:"vectors"`
		}
		if err := decode(c, "conformance/narrowing-vectors.json", &doc); err != nil {
			return err
		}
		for i, raw := range doc.Vectors {
			var v NarrowVector
			if err := json.Unmarshal(raw, &v); err != nil {
				return fail("conformance/narrowing-vectors.json: vector %d: %v", i, err)
			}
			var probe map[string]json.RawMessage
			json.Unmarshal(raw, &probe)
			_, v.HasRefusals = probe["refusals"]
			cp.Narrowing = append(cp.Narrowing, v)
		}
	}
	return nil
}

func anyExpect(c *corpus.Corpus) bool {
	for _, f := range c.Files() {
		if strings.HasPrefix(f, "fixtures/") && strings.HasSuffix(f, ".expect.json") {
			return true
		}
	}
	return false
}

func decode(c *corpus.Corpus, name string, v any) error {
	raw, err := c.ReadFile(name)
	if err != nil {
		return err
	}
	if err := corpus.DecodeJSON(raw, v); err != nil {
		return fmt.Errorf("corpus %s: %s: %w", c.Name, name, err)
	}
	return nil
}

func (cp *Corpus) readFixtures(c *corpus.Corpus, kind string) ([]Fixture, error) {
	var out []Fixture
	prefix := "fixtures/" + kind + "/"
	var files []string
	for _, f := range c.Files() {
		if strings.HasPrefix(f, prefix) && strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".expect.json") && !strings.Contains(f[len(prefix):], "/") {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		base := path.Base(f)
		shape := pc.ShapeOf(base, cp.Shapes)
		if shape == "" {
			//lint:ignore ST1005 upstream's runner.mjs message, word for word (docs/suites/cdc.md)
			return nil, fmt.Errorf("corpus %s: Fixture %s/%s does not name a known shape. Prefix it with one of: %s.", c.Name, kind, base, strings.Join(cp.Shapes, ", "))
		}
		raw, err := c.ReadFile(f)
		if err != nil {
			return nil, err
		}
		v, err := canon.Parse(raw, canon.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s: %w", c.Name, f, err)
		}
		fx := Fixture{Kind: kind, File: base, Shape: shape, Value: v}
		stem := strings.TrimSuffix(f, ".json")
		if c.Has(stem + ".reason") {
			r, _ := c.ReadFile(stem + ".reason")
			fx.Reason = strings.TrimSpace(string(r))
		}
		if c.Has(stem + ".expect.json") {
			raw, _ := c.ReadFile(stem + ".expect.json")
			var e Expect
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, fmt.Errorf("corpus %s: %s.expect.json: %w", c.Name, stem, err)
			}
			fx.Expect = &e
		}
		out = append(out, fx)
	}
	return out, nil
}

// complete checks what upstream's runner calls corpus completeness, and the
// sealed paths of config-core: a corpus that fails them is broken, not the
// implementation under test.
func (cp *Corpus) complete() error {
	var problems []string
	for _, shape := range cp.Shapes {
		for _, variant := range []string{"minimal", "populated"} {
			found := false
			for _, f := range cp.Valid {
				found = found || f.File == shape+"."+variant+".json"
			}
			if !found {
				problems = append(problems, "missing valid/"+shape+"."+variant+".json")
			}
		}
		found := false
		for _, f := range cp.Invalid {
			found = found || f.Shape == shape
		}
		if !found {
			problems = append(problems, "no invalid fixture exercises "+shape)
		}
	}
	if cp.Release == Release12 {
		for _, f := range cp.Valid {
			if f.Shape != "config-core" {
				continue
			}
			sealed, ok := f.Value.Lookup("sealed")
			if !ok || sealed.Kind != canon.Array {
				continue
			}
			for _, s := range sealed.Elems {
				if s.Kind == canon.String && !resolves(f.Value, strings.Split(s.Str, ".")) {
					problems = append(problems, fmt.Sprintf("valid/%s: sealed path %q names nothing in the file. A seal on a field that is not there seals nothing.", f.File, s.Str))
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

func resolves(v canon.Value, segs []string) bool {
	for _, s := range segs {
		next, ok := v.Lookup(s)
		if !ok || v.Kind != canon.Object {
			return false
		}
		v = next
	}
	return true
}

func readJCS(c *corpus.Corpus) ([]JCSCase, error) {
	var out []JCSCase
	for _, f := range c.Files() {
		dir, file := path.Split(f)
		if dir != "conformance/jcs/input/" || !strings.HasSuffix(file, ".json") {
			continue
		}
		base := strings.TrimSuffix(file, ".json")
		in, _ := c.ReadFile(f)
		hexFile := "conformance/jcs/outhex/" + base + ".txt"
		if !c.Has(hexFile) {
			return nil, fmt.Errorf("corpus %s: %s has no %s", c.Name, f, hexFile)
		}
		h, _ := c.ReadFile(hexFile)
		var digits strings.Builder
		for _, r := range strings.ToLower(string(h)) {
			if ('0' <= r && r <= '9') || ('a' <= r && r <= 'f') {
				digits.WriteRune(r)
			}
		}
		want, err := hex.DecodeString(digits.String())
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s: %w", c.Name, hexFile, err)
		}
		out = append(out, JCSCase{File: base, Input: in, Want: want})
	}
	return out, nil
}

func (cp *Corpus) readSignatures(c *corpus.Corpus) error {
	var doc struct {
		Comment   json.RawMessage `json:"_comment"`
		Key       string          `json:"key"`
		Algorithm string          `json:"algorithm"`
		Vectors   []struct {
			Name     string      `json:"name"`
			Lease    string      `json:"lease"`
			Declared string      `json:"declared"`
			Why      string      `json:"why"`
			Tampered []Tampering `json:"tampered"`
		} `json:"vectors"`
	}
	if err := decode(c, "conformance/signature-vectors.json", &doc); err != nil {
		return err
	}
	keyFile := doc.Key
	if keyFile == "" {
		keyFile = "conformance/test-key.txt"
	}
	raw, err := c.ReadFile(keyFile)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if l := strings.TrimSpace(line); keyPattern.MatchString(l) {
			cp.Key = l
			break
		}
	}
	cp.keyFile = keyFile
	if cp.Key == "" {
		//lint:ignore ST1005 upstream's runner.mjs message, word for word (docs/suites/cdc.md)
		return fmt.Errorf("corpus %s: signatures: %s carries no 64-hex-character key line.", c.Name, keyFile)
	}
	load := func(ref string) (canon.Value, error) {
		file, vector, _ := strings.Cut(ref, "#")
		raw, err := c.ReadFile(file)
		if err != nil {
			return canon.Value{}, err
		}
		v, err := canon.Parse(raw, canon.ReadOptions{})
		if err != nil {
			return canon.Value{}, fmt.Errorf("corpus %s: %s: %w", c.Name, file, err)
		}
		if vector == "" {
			return v, nil
		}
		vs, _ := v.Lookup("vectors")
		for _, e := range vs.Elems {
			if n, _ := e.Lookup("name"); n.Str == vector {
				d, _ := e.Lookup("declared")
				return d, nil
			}
		}
		return canon.Value{}, fmt.Errorf("corpus %s: no vector %s in %s", c.Name, vector, file)
	}
	for _, v := range doc.Vectors {
		lease, err := load(v.Lease)
		if err != nil {
			return err
		}
		declared, err := load(v.Declared)
		if err != nil {
			return err
		}
		for i, t := range v.Tampered {
			if _, ok := t.apply(lease); !ok {
				return fmt.Errorf("corpus %s: conformance/signature-vectors.json: vector %s: tampered %d: give one of set, append, upper and remove at a JSON Pointer the lease has (%q)", c.Name, v.Name, i+1, t.At)
			}
		}
		cp.Signatures = append(cp.Signatures, SignatureVector{Name: v.Name, Why: v.Why, Lease: lease, Declared: declared, Tampered: v.Tampered})
	}
	return nil
}
