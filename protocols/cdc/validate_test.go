package cdc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/sharedtest"
)

// TestValidatorMatchesOracle compares Validator with the validator referee
// used before it (github.com/santhosh-tekuri/jsonschema/v6, configured as
// NewValidator configured it, its errors read as Validate read them) on
// every schema of the embedded corpus and of every CDC corpus under
// $REFEREE_SHARED/corpora/cdc: every fixture against every shape, and
// systematic mutations of each fixture against its own shape. Verdicts and
// the sets of (instancePath, keyword) must be equal, but for three places
// where the old reading was not Ajv's and Validator is (see oracleErrors).
func TestValidatorMatchesOracle(t *testing.T) {
	corpora := sharedtest.CDCCorpora(t, filepath.Join("..", "..", "suites", "cdc", "corpus"))
	for _, dir := range corpora {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			compareCorpus(t, os.DirFS(dir))
		})
	}
}

func compareCorpus(t *testing.T, fsys fs.FS) {
	mine, err := NewValidator(fsys)
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := newOracle(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mine.Shapes(), oracle.shapes) {
		t.Fatalf("shapes %v, oracle %v", mine.Shapes(), oracle.shapes)
	}
	fixtures, err := fs.Glob(fsys, "fixtures/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	cmp := comparer{t: t, mine: mine, oracle: oracle}
	for _, f := range fixtures {
		if strings.HasSuffix(f, ".expect.json") {
			continue
		}
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := canon.Parse(raw, canon.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, shape := range mine.Shapes() {
			cmp.compare(f+" as "+shape, shape, v)
		}
		if shape := ShapeOf(f, mine.Shapes()); shape != "" {
			for _, m := range mutations(v) {
				cmp.compare(f+" "+m.what, shape, m.value)
			}
		}
	}
	// The corpus's own JSON-Schema-Test-Suite export (1.2 layout), if any:
	// every test's data against the shape its schema is.
	suites, _ := fs.Glob(fsys, "conformance/suite/draft7/*.json")
	for _, f := range suites {
		shape := strings.TrimSuffix(path.Base(f), ".json")
		if !slices.Contains(mine.Shapes(), shape) {
			continue
		}
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		groups, err := canon.Parse(raw, canon.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range groups.Elems {
			tests, _ := g.Lookup("tests")
			for i, tc := range tests.Elems {
				data, _ := tc.Lookup("data")
				cmp.compare(fmt.Sprintf("%s test %d", f, i), shape, data)
			}
		}
	}
	t.Logf("%d comparisons (%d invalid), %d distinct (instancePath, keyword) errors seen", cmp.n, cmp.invalid, len(cmp.seen))
	if cmp.invalid == 0 || cmp.invalid == cmp.n {
		t.Errorf("the comparisons should hold both valid and invalid values: %d of %d invalid", cmp.invalid, cmp.n)
	}
}

type comparer struct {
	t          *testing.T
	mine       *Validator
	oracle     *oracle
	n, invalid int
	failures   int
	seen       map[string]bool
}

func (c *comparer) compare(what, shape string, v canon.Value) {
	c.t.Helper()
	c.n++
	ok, errs, err := c.mine.Validate(shape, v)
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	wantOK, wantErrs, err := c.oracle.validate(shape, v)
	if err != nil {
		c.t.Fatalf("%s: oracle: %v", what, err)
	}
	if !ok {
		c.invalid++
	}
	got, want := errorSet(errs), errorSet(wantErrs)
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	for _, e := range got {
		c.seen[e] = true
	}
	if ok != wantOK || !slices.Equal(got, want) || ok != (len(errs) == 0) {
		if c.failures++; c.failures <= 20 {
			c.t.Errorf("%s (%s):\n  valid %v, errors %v\n  oracle valid %v, errors %v\n  value %s", what, shape, ok, got, wantOK, want, clip(v.String()))
		}
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func errorSet(errs []SchemaError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.InstancePath+" "+e.Keyword)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// mutation is a changed copy of a fixture.
type mutation struct {
	what  string
	value canon.Value
}

// mutations changes each value of v in turn: an object loses each member
// and gains unknown ones; an array empties out and repeats an element; and
// every value is replaced by one of another type and by a value of its own
// type that breaks patterns, lengths, enums or bounds. The replacements
// rotate through lists from one value to the next, which keeps the count
// near three a value.
func mutations(v canon.Value) []mutation {
	str := func(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }
	num := func(n string) canon.Value { return canon.Value{Kind: canon.Number, Num: n} }
	others := []canon.Value{{Kind: canon.Null}, {Kind: canon.Bool, Bool: true}, num("7"), str("x"), {Kind: canon.Array}, {Kind: canon.Object}}
	numbers := []string{"-1", "0", "2.5", "1e400", "-0.0", "3.0", "123456789012345678901234567890"}
	strs := []func(string) string{
		func(string) string { return "" },
		func(s string) string { return "!" + s + " \\..\\/" },
		func(s string) string { return strings.Repeat(s+"a", 40) },
		func(s string) string { return strings.ToUpper(s) + "-Z" },
	}
	var out []mutation
	n := 0
	var walk func(x canon.Value, at []string, set func(canon.Value) canon.Value)
	walk = func(x canon.Value, at []string, set func(canon.Value) canon.Value) {
		n++
		where := "/" + strings.Join(at, "/")
		add := func(what string, y canon.Value) {
			out = append(out, mutation{what: what + " at " + where, value: set(y)})
		}
		o := others[n%len(others)]
		if o.Kind == x.Kind {
			o = others[(n+1)%len(others)]
		}
		add("made "+o.Kind.String(), o)
		switch x.Kind {
		case canon.Object:
			for i, m := range x.Members {
				y := x
				y.Members = slices.Delete(slices.Clone(x.Members), i, i+1)
				add("dropped "+m.Key, y)
			}
			y := x
			y.Members = append(slices.Clone(x.Members), canon.Member{Key: "zz_unknown", Value: str("x")}, canon.Member{Key: "Bad Name!", Value: num("1")})
			add("added unknown members", y)
			for i, m := range x.Members {
				walk(m.Value, append(slices.Clone(at), m.Key), func(c canon.Value) canon.Value {
					y := x
					y.Members = slices.Clone(x.Members)
					y.Members[i].Value = c
					return set(y)
				})
			}
		case canon.Array:
			if len(x.Elems) == 0 {
				add("filled", canon.Value{Kind: canon.Array, Elems: []canon.Value{str("x"), str("x")}})
			} else if n%2 == 0 {
				add("emptied", canon.Value{Kind: canon.Array})
			} else {
				y := x
				y.Elems = append(slices.Clone(x.Elems), x.Elems[0])
				add("repeated the first element", y)
			}
			for i, e := range x.Elems {
				walk(e, append(slices.Clone(at), strconv.Itoa(i)), func(c canon.Value) canon.Value {
					y := x
					y.Elems = slices.Clone(x.Elems)
					y.Elems[i] = c
					return set(y)
				})
			}
		case canon.String:
			add("changed the string", str(strs[n%len(strs)](x.Str)))
		case canon.Number:
			add("made "+numbers[n%len(numbers)], num(numbers[n%len(numbers)]))
		case canon.Bool:
			add("negated", canon.Value{Kind: canon.Bool, Bool: !x.Bool})
		}
	}
	walk(v, nil, func(c canon.Value) canon.Value { return c })
	return out
}

// oracle is the validator referee used before Validator:
// github.com/santhosh-tekuri/jsonschema/v6 v6.0.3.
type oracle struct {
	schemas map[string]*jsonschema.Schema
	shapes  []string
}

type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema %s is not in the corpus", url)
}

func newOracle(fsys fs.FS) (*oracle, error) {
	files, err := fs.Glob(fsys, "schemas/*.schema.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(refusingLoader{})
	c.UseRegexpEngine(func(pattern string) (jsonschema.Regexp, error) {
		re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
		if err != nil {
			return nil, err
		}
		return ecmaRe{re}, nil
	})
	urls := map[string]string{}
	for _, f := range files {
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		url := "file:///corpus/" + f
		if m, ok := doc.(map[string]any); ok {
			if id, ok := m["$id"].(string); ok && id != "" {
				url = id
			}
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		urls[strings.TrimSuffix(path.Base(f), ".schema.json")] = url
	}
	o := &oracle{schemas: map[string]*jsonschema.Schema{}}
	for _, shape := range Shapes {
		url, ok := urls[shape]
		if !ok {
			continue
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("compiling %s: %w", shape, err)
		}
		o.schemas[shape] = s
		o.shapes = append(o.shapes, shape)
	}
	return o, nil
}

type ecmaRe struct{ re *regexp2.Regexp }

func (r ecmaRe) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	return ok && err == nil
}

func (r ecmaRe) String() string { return r.re.String() }

func (o *oracle) validate(shape string, value canon.Value) (bool, []SchemaError, error) {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(value.String()))
	if err != nil {
		return false, nil, err
	}
	err = o.schemas[shape].Validate(inst)
	if err == nil {
		return true, nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return false, nil, err
	}
	return false, oracleErrors(ve), nil
}

// oracleErrors reads the error tree as referee's Validate read it, but for
// three kinds it reported under no keyword or another one, which Validator
// reports as Ajv does: a failed not ("not"; before, no error at all), a
// false schema ("false schema"; before, none) and a missing dependency
// ("dependencies"; before, the name of the property that had it).
func oracleErrors(ve *jsonschema.ValidationError) []SchemaError {
	var out []SchemaError
	// walk collects every error. loc and base are the parent's instance
	// location and schema location, to place propertyNames errors.
	var walk func(e *jsonschema.ValidationError, loc []string, base string, underNames bool)
	walk = func(e *jsonschema.ValidationError, loc []string, base string, underNames bool) {
		here := e.InstanceLocation
		_, isNames := e.ErrorKind.(*kind.PropertyNames)
		switch {
		case isNames:
			// v6.0.3 can report a propertyNames error at another value's
			// location (its location slice is shared); Ajv reports it at the
			// object, the parent's location plus the properties the schema
			// descends through.
			here = append(slices.Clone(loc), propertiesBetween(base, e.SchemaURL)...)
		case underNames:
			here = loc // the name's own errors sit at the object, as Ajv puts them
		}
		keyword := ""
		switch e.ErrorKind.(type) {
		case *kind.Not:
			keyword = "not"
		case *kind.FalseSchema:
			keyword = "false schema"
		case *kind.Dependency:
			keyword = "dependencies"
		default:
			if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
				keyword = kp[len(kp)-1]
			}
		}
		if keyword != "" {
			out = append(out, SchemaError{InstancePath: pointer(here), Keyword: keyword})
		}
		next := e.SchemaURL
		if ref, ok := e.ErrorKind.(*kind.Reference); ok {
			next = ref.URL
		}
		for _, c := range e.Causes {
			walk(c, here, next, isNames || underNames)
		}
	}
	walk(ve, nil, "", false)
	return out
}

// propertiesBetween returns the property names a schema location descends
// through from base to url ("…/properties/a/properties/b/propertyNames" gives a, b).
func propertiesBetween(base, url string) []string {
	rel, ok := strings.CutPrefix(url, base)
	if !ok {
		return nil
	}
	parts := strings.Split(strings.Trim(rel, "/"), "/")
	var names []string
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "properties" {
			names = append(names, strings.ReplaceAll(strings.ReplaceAll(parts[i+1], "~1", "/"), "~0", "~"))
			i++
		}
	}
	return names
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// TestUndecidedPatternSaysWhy: a pattern whose match runs out of its step
// budget fails the value, and the error says so, on the wire too.
func TestUndecidedPatternSaysWhy(t *testing.T) {
	shape := Shapes[0]
	fsys := fstest.MapFS{"schemas/" + shape + ".schema.json": {Data: []byte(`{"type": "string", "pattern": "^(a+)+$"}`)}}
	v, err := NewValidator(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ok, errs, err := v.Validate(shape, canon.Value{Kind: canon.String, Str: strings.Repeat("a", 40) + "!"})
	if err != nil || ok || len(errs) != 1 {
		t.Fatalf("Validate = %v, %+v, %v; want one error", ok, errs, err)
	}
	if e := errs[0]; e.Keyword != "pattern" || !strings.Contains(e.Message, "^(a+)+$") {
		t.Errorf("error = %+v, want the pattern keyword with a message naming the pattern", e)
	}
	wire, _ := json.Marshal(errs[0])
	if !strings.Contains(string(wire), `"message":`) {
		t.Errorf("on the wire: %s, want a message", wire)
	}
}
