package cdc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/jsongen"
	"github.com/refereehq/referee/jsongen/schemagen"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// The files a fuzzed corpus holds, in the 1.2 layout: upstream's vector
// files, the fixtures found (with their .reason and .expect.json), the
// signed leases and declarations of the signature vectors with the test
// key, and the schemas of the shapes these need, byte for byte as the
// corpus fuzzed had them (so that `referee run cdc --corpus DIR` and an
// adapter reading DIR/schemas judge them as the reference did).
const (
	canonicalFile = "conformance/canonical-vectors.json"
	narrowingFile = "conformance/narrowing-vectors.json"
	signatureFile = "conformance/signature-vectors.json"
	foundKeyFile  = "conformance/test-key.txt"
	signedDir     = "conformance/fuzz/"
)

// The fuzz targets.
const (
	TargetCanonical = "canonical"
	TargetNarrow    = "narrow"
	TargetValidate  = "validate"
	TargetSign      = "sign"
	TargetRules     = "rules"
)

// fuzzTarget is a fuzz target of the suite, with what it needs of the
// corpus it draws on (has) and its generator and vector bound to that
// corpus's material.
type fuzzTarget struct {
	t   check.FuzzTarget // without Generate and Vector
	has func(cp *Corpus) bool
	gen func(m *fuzzMaterial, r *rand.Rand) []byte
	vec func(m *fuzzMaterial, name string, input []byte) (any, bool)
}

// fuzzTargets are every target, in the order the summary lists them.
var fuzzTargets = []fuzzTarget{
	{
		t: check.FuzzTarget{
			Name:   TargetCanonical,
			Doc:    "values for canonicalise: numbers across ECMAScript's and Python's formatting boundaries and from bit patterns, -0, strings of every Unicode class with escapes and lone surrogates, member names from host-language built-ins and UTF-16 ordering traps, deep and wide nesting",
			Needs:  []string{OpCanonicalise},
			Input:  check.FuzzValue,
			Weight: 3,
		},
		has: func(*Corpus) bool { return true },
		gen: func(_ *fuzzMaterial, r *rand.Rand) []byte { return fuzzJSON.Value(r) },
		vec: func(_ *fuzzMaterial, name string, input []byte) (any, bool) { return canonicalVector(name, input) },
	},
	{
		t: check.FuzzTarget{
			Name:   TargetNarrow,
			Doc:    "declared and parent manifests for narrow, valid under the corpus's manifest schema and schema set 1.2's rules for what narrowing reads: tools, commands, paths and hosts known (the generator's, and those of the corpus's narrowing vectors), their variants (longer, other case, sibling prefixes, deeper) and made up, drawn to meet at the containment rules (** and dir/**, globs, literals, * and *.domain wildcards either side), deny lists and approvals to unite, budgets either side of the parent's remaining, exhausted depth and fan_out, empty and blank purposes, unknown runtimes, tool_args",
			Needs:  []string{OpNarrow, OpCanonicalise},
			Input:  check.FuzzValue,
			Weight: 2,
		},
		has: func(*Corpus) bool { return true },
		gen: (*fuzzMaterial).narrowInput,
		vec: (*fuzzMaterial).narrowVector,
	},
	{
		t: check.FuzzTarget{
			Name:   TargetValidate,
			Doc:    "instances of every shape the corpus has a schema for, generated from those schemas and from its valid fixtures: valid ones (lengths at their maximum in code points, numbers at their bounds, patterns at their edges, unknown members deep down) and ones with one keyword broken at one place (a pattern missed by one character, a final line feed, a digit or space of another regex dialect, a bound crossed by one, a required member dropped, an unknown member where none may be, a refused property name, an if met without its then, two oneOf branches, another type); each becomes a valid fixture (validate, the unknown field tolerated and kept by roundTrip, and for leases and records no rule broken), an invalid one refused at the reference's path, or a by-rule fixture. Needs a corpus with schemas",
			Needs:  []string{OpValidate},
			Input:  check.FuzzValue,
			Weight: 3,
		},
		has: func(cp *Corpus) bool { return len(cp.Shapes) > 0 },
		gen: (*fuzzMaterial).validateInput,
		vec: (*fuzzMaterial).validateVector,
	},
	{
		t: check.FuzzTarget{
			Name:   TargetSign,
			Doc:    "declarations and leases for hash and verify, signed with the corpus's test key: declarations spelled otherwise (members out of order, numbers as 1e3 or 1000.0), leases with members out of order and values at their edges, each tampered after signing at one place (the signature with one digit changed, upper-cased or with something appended, a value changed, a member added or removed) or only respelled (which must still verify). Needs a corpus with conformance/signature-vectors.json and its test key, as the 1.2 layout has: the embedded 1.0.2 has none, so this target is left out without --corpus",
			Needs:  []string{OpHash, OpVerify},
			Input:  check.FuzzValue,
			Weight: 2,
		},
		has: func(cp *Corpus) bool { return cp.Key != "" && slices.Contains(cp.Shapes, "agent-lease") },
		gen: (*fuzzMaterial).signInput,
		vec: (*fuzzMaterial).signVector,
	},
	{
		t: check.FuzzTarget{
			Name:   TargetRules,
			Doc:    "leases and lease records for rules, from the corpus's valid and by-rule fixtures: expiry at, just before and just after issue (a millisecond, a second, across midnight, a leap day, a year's end), a lease its own parent or one digit from it, records revoked by the issuer, an ancestor or a stranger, with and without the chain as context (none, empty, the parent, the revoker); each becomes a valid fixture or a by-rule fixture at the reference's first finding. Needs the 1.2 layout's by-rule fixtures (fixtures/invalid-by-rule): the embedded 1.0.2 has no lease rules, so this target is left out without --corpus",
			Needs:  []string{OpRules},
			Input:  check.FuzzValue,
			Weight: 2,
		},
		has: func(cp *Corpus) bool {
			return cp.Release == Release12 && len(cp.ByRule) > 0 && (slices.Contains(cp.Shapes, "agent-lease") || slices.Contains(cp.Shapes, "lease-record"))
		},
		gen: (*fuzzMaterial).rulesInput,
		vec: (*fuzzMaterial).rulesVector,
	},
}

// fuzzProof names the suite's own proof test: some of its modes are out of
// every target's reach, and some need the 1.2 layout's material.
var fuzzProof = check.FuzzProof{Elsewhere: "suites/cdc TestFuzzFindsEveryMode"}

// fuzzSpec is Definition.Fuzz: every target, each bound to the embedded
// corpus (read on first use), for `referee fuzz cdc --help`. A run fuzzes
// the declaration of the corpus it loaded (Loaded.Fuzz, fuzzSpecOf), which
// leaves out the targets whose material that corpus lacks: without
// --corpus, sign and rules.
var fuzzSpec = check.FuzzSpec{
	Targets: embeddedTargets(),
	Files:   func(entries []any) (map[string][]byte, error) { return embeddedMaterial.Get().files(entries) },
	Proof:   fuzzProof,
}

// embeddedMaterial is the material of the embedded corpus.
var embeddedMaterial = &lazy.Value[*fuzzMaterial]{New: func() *fuzzMaterial {
	c, err := Embedded()
	if err != nil {
		return &fuzzMaterial{cp: &Corpus{}, err: err}
	}
	cp, err := ReadCorpus(c, "")
	if err != nil {
		return &fuzzMaterial{cp: &Corpus{}, err: err}
	}
	return newFuzzMaterial(cp)
}}

// embeddedTargets are every target bound to the embedded corpus; one whose
// material it lacks makes no vector.
func embeddedTargets() []check.FuzzTarget {
	out := make([]check.FuzzTarget, len(fuzzTargets))
	for i, ft := range fuzzTargets {
		t := ft.t
		t.Generate = func(r *rand.Rand) []byte { return ft.gen(embeddedMaterial.Get(), r) }
		t.Vector = func(name string, input []byte) (any, bool) {
			m := embeddedMaterial.Get()
			if !ft.has(m.cp) {
				return nil, false
			}
			return ft.vec(m, name, input)
		}
		out[i] = t
	}
	return out
}

// fuzzSpecOf is the fuzz declaration bound to m's corpus: the targets whose
// material it holds.
func fuzzSpecOf(m *fuzzMaterial) *check.FuzzSpec {
	spec := &check.FuzzSpec{Files: m.files, Proof: fuzzProof}
	for _, ft := range fuzzTargets {
		if !ft.has(m.cp) {
			continue
		}
		t := ft.t
		t.Generate = func(r *rand.Rand) []byte { return ft.gen(m, r) }
		t.Vector = func(name string, input []byte) (any, bool) { return ft.vec(m, name, input) }
		spec.Targets = append(spec.Targets, t)
	}
	return spec
}

// FuzzModes are the broken modes the fuzz targets show with the embedded
// corpus: those of canonicalise, narrow, validate and roundTrip. Each is
// found from seed 1 within a bounded count (TestFuzzFindsEveryMode).
var FuzzModes = []string{
	"unsorted", "ascii-escape", "codepoint-order", "html-escape", "go-float",
	"float-repr", "float-exponent-16", "negative-zero",
	"narrow-no-clamp", "narrow-no-union", "narrow-passthrough", "narrow-wildcard-reversed", "narrow-path-prefix", "narrow-host-suffix",
	"narrow-tool-prefix",
	"child-paths", "reject-all", "accept-all", "strip-unknown", "python-re", "re2-classes", "closed-deep",
}

// FuzzModes12 are the broken modes the fuzz targets show with a corpus in
// the 1.2 layout (the contract's checkout), whose schemas, test key and
// by-rule fixtures the embedded 1.0.2 lacks: those of validate that need
// its keywords, and those of hash, verify and rules. Every mode of
// FuzzModes is found with it too.
var FuzzModes12 = []string{
	"length-utf16", "draft4", "exclusive-inclusive", "pattern-full-match",
	"hash-raw", "verify-trims-purpose", "verify-key-text", "verify-rubber-stamp", "verify-any-case", "verify-lenient-hex",
	"l3-without-journal", "rules-none", "l1-inverted", "l1-missing-expiry", "l2-any-parent", "l1-same-instant",
}

// fuzzUnreached are the modes no target reaches: no-paths (an answer
// without errors leaves the path checks not-checked, which is no
// divergence), reject-surrogates (a lone surrogate's rejection is
// permitted in the 1.2 layout the found vectors follow), nonfinite-null
// (NaN is not JSON), integer-lexeme (accepting an integer written 200.0 is
// a should, the supplement's: generated instances write integers plainly),
// strip-deep (a fixture's round trip checks only the fields it plants, one
// level down at most).
var fuzzUnreached = []string{"no-paths", "reject-surrogates", "nonfinite-null", "integer-lexeme", "strip-deep"}

var fuzzJSON = jsongen.JSON{Scalars: true, Space: true, MaxDepth: 128, Key: fuzzKey}

// fuzzOrderKeys are member names whose order differs by UTF-16 code unit,
// code point and byte (the upstream vector utf16-key-order's trap), with
// the ASCII order of upstream's member-order vector. They are lexemes.
var fuzzOrderKeys = []string{`"\uff21"`, `"\ud835\udc00"`, `"𝐀"`, `"Ａ"`, `"\ue000"`, `"a"`, `"Mike"`, `"_under"`, `"zulu"`}

// fuzzKey is a member name: often one of fuzzOrderKeys, else jsongen.Key's.
func fuzzKey(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return fuzzOrderKeys[r.IntN(len(fuzzOrderKeys))]
	}
	return jsongen.Key(r)
}

// fuzzWhy is the why of every fuzzed vector.
const fuzzWhy = "found by referee fuzz"

// canonicalVector is the canonical-vectors.json entry for a value: its
// canonical text as the reference writes it. A value the reference cannot
// canonicalise (a number beyond double range, a duplicate name) has no
// entry: the file holds outputs only.
func canonicalVector(name string, input []byte) (any, bool) {
	if !utf8.Valid(input) {
		return nil, false
	}
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	b, err := pc.Canonical(v)
	if err != nil {
		return nil, false
	}
	e := CanonVector{Name: name, Why: fuzzWhy, Value: compactRaw(input), Canonical: string(b), SHA256: sha256Hex(b)}
	return e, true
}

// fuzzMaterial is what the fuzz targets draw from one corpus: its schemas
// read for generation and compiled for the reference's verdicts, its
// fixtures as seeds, its test key and the vocabulary of its narrowing
// vectors. It is read on first use, once.
type fuzzMaterial struct {
	cp   *Corpus
	once sync.Once
	err  error

	v   *pc.Validator // nil for a corpus without schemas
	gen *schemagen.Set
	// weights are each shape's share of the validate target's inputs, in
	// cp.Shapes's order, cumulated: the square root of how many schemas
	// its document holds, so that a large shape gets more but a small one
	// is not starved.
	weights []float64
	seeds   map[string][]canon.Value // the valid and by-rule fixtures, by shape
	schemas map[string][]byte        // each shape's schema file, as the corpus has it
	key     []byte
	keyText []byte // the key file, as the corpus has it
	words   *fuzzWords
}

func newFuzzMaterial(cp *Corpus) *fuzzMaterial { return &fuzzMaterial{cp: cp} }

// load reads the material, once.
func (m *fuzzMaterial) load() error {
	m.once.Do(func() { m.err = m.read() })
	return m.err
}

func (m *fuzzMaterial) read() error {
	cp := m.cp
	m.words = newFuzzWords(cp.Narrowing)
	m.seeds = map[string][]canon.Value{}
	for _, fx := range [][]Fixture{cp.Valid, cp.ByRule} {
		for _, f := range fx {
			m.seeds[f.Shape] = append(m.seeds[f.Shape], f.Value)
		}
	}
	if len(cp.Shapes) > 0 {
		v, err := cp.validator()
		if err != nil {
			return err
		}
		m.v = v
		m.schemas = map[string][]byte{}
		for _, s := range cp.Shapes {
			raw, err := fs.ReadFile(cp.FS, "schemas/"+s+".schema.json")
			if err != nil {
				return err
			}
			m.schemas[s] = raw
		}
		if m.gen, err = schemagen.New(m.schemas); err != nil {
			return err
		}
		total := 0.0
		for _, s := range cp.Shapes {
			total += math.Sqrt(float64(max(1, m.gen.Size(s))))
			m.weights = append(m.weights, total)
		}
	}
	if cp.Key != "" {
		k, err := hex.DecodeString(cp.Key)
		if err != nil {
			return err
		}
		m.key = k
		if m.keyText, err = fs.ReadFile(cp.FS, cp.keyFile); err != nil {
			return err
		}
	}
	return nil
}

// valid reports whether the reference's schemas hold value as shape.
func (m *fuzzMaterial) valid(shape string, value canon.Value) bool {
	if m.v == nil {
		return false
	}
	ok, _, err := m.v.Validate(shape, value)
	return ok && err == nil
}

// fuzzFixture is a fixture a target found: valid, invalid (with the place
// the reference refuses it) or invalid-by-rule (with the rule it breaks).
type fuzzFixture struct {
	Kind   string // valid, invalid, invalid-by-rule
	Shape  string
	Name   string
	Value  json.RawMessage
	Reason string
	Expect *fuzzExpect
}

// fuzzExpect is a found fixture's .expect.json.
type fuzzExpect struct {
	Path    *string      `json:"path,omitempty"`
	Keyword string       `json:"keyword,omitempty"`
	Rule    *string      `json:"rule,omitempty"`
	Context *fuzzContext `json:"context,omitempty"`
}

type fuzzContext struct {
	Chain []string `json:"chain"`
}

// fuzzSigned is a signature vector a target found: the signed lease, the
// declaration it was declared from, and its tamperings.
type fuzzSigned struct {
	Name, Why       string
	Lease, Declared json.RawMessage
	Tampered        []Tampering
}

// fuzzComment is the _comment of every vector file written.
var fuzzComment = []string{"Written by referee fuzz: each vector's expectation is the outcome referee's built-in reference gives it; the manifest's fuzz member says how it was found."}

// files lays entries out as a corpus of the 1.2 layout: the two vector
// files always (each maybe empty, so that the corpus is read in that
// layout), the fixtures, the signature vectors with their leases,
// declarations and test key, and the schema of every shape an entry's
// checks validate against.
func (m *fuzzMaterial) files(entries []any) (map[string][]byte, error) {
	canonical := struct {
		Comment  []string      `json:"_comment"`
		Vectors  []CanonVector `json:"vectors"`
		MustFail []struct{}    `json:"must_fail"`
	}{Comment: fuzzComment, Vectors: []CanonVector{}, MustFail: []struct{}{}}
	narrowing := struct {
		Comment []string          `json:"_comment"`
		Vectors []fuzzNarrowEntry `json:"vectors"`
	}{Comment: fuzzComment, Vectors: []fuzzNarrowEntry{}}
	type sigEntry struct {
		Name     string      `json:"name"`
		Why      string      `json:"why,omitempty"`
		Lease    string      `json:"lease"`
		Declared string      `json:"declared"`
		Tampered []Tampering `json:"tampered,omitempty"`
	}
	signatures := struct {
		Comment   []string   `json:"_comment"`
		Key       string     `json:"key"`
		Algorithm string     `json:"algorithm"`
		Vectors   []sigEntry `json:"vectors"`
	}{Comment: fuzzComment, Key: foundKeyFile, Algorithm: "hmac-sha256"}
	files := map[string][]byte{}
	shapes := map[string]bool{}
	put := func(name string, doc any) error {
		b, err := corpus.MarshalJSON(doc)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", Name, name, err)
		}
		files[name] = b
		return nil
	}
	for _, e := range entries {
		switch e := e.(type) {
		case CanonVector:
			canonical.Vectors = append(canonical.Vectors, e)
		case fuzzNarrowEntry:
			narrowing.Vectors = append(narrowing.Vectors, e)
			if m.schemas["agent-lease-manifest"] != nil {
				shapes["agent-lease-manifest"] = true // the vector's well-formedness check validates it
			}
		case fuzzFixture:
			stem := "fixtures/" + e.Kind + "/" + e.Shape + "." + e.Name
			if err := put(stem+".json", e.Value); err != nil {
				return nil, err
			}
			if e.Reason != "" {
				files[stem+".reason"] = []byte(e.Reason + "\n")
			}
			if e.Expect != nil {
				if err := put(stem+".expect.json", e.Expect); err != nil {
					return nil, err
				}
			}
			shapes[e.Shape] = true
		case fuzzSigned:
			lease, declared := signedDir+e.Name+".lease.json", signedDir+e.Name+".declared.json"
			if err := put(lease, e.Lease); err != nil {
				return nil, err
			}
			if err := put(declared, e.Declared); err != nil {
				return nil, err
			}
			signatures.Vectors = append(signatures.Vectors, sigEntry{Name: e.Name, Why: e.Why, Lease: lease, Declared: declared, Tampered: e.Tampered})
			shapes["agent-lease"] = true
		default:
			return nil, fmt.Errorf("%s: a fuzz vector of type %T (a bug in referee)", Name, e)
		}
	}
	if err := put(canonicalFile, canonical); err != nil {
		return nil, err
	}
	if err := put(narrowingFile, narrowing); err != nil {
		return nil, err
	}
	if len(signatures.Vectors) > 0 {
		if m.keyText == nil {
			return nil, fmt.Errorf("%s: a signature vector, but the corpus fuzzed has no test key (a bug in referee)", Name)
		}
		if err := put(signatureFile, signatures); err != nil {
			return nil, err
		}
		files[foundKeyFile] = m.keyText
	}
	names := make([]string, 0, len(shapes))
	for s := range shapes {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		raw, ok := m.schemas[s]
		if !ok {
			return nil, fmt.Errorf("%s: a fuzz vector of shape %s, but the corpus fuzzed has no schema for it (a bug in referee)", Name, s)
		}
		files["schemas/"+s+".schema.json"] = raw
	}
	return files, nil
}
