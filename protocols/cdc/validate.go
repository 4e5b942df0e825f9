package cdc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/refereehq/referee/canon"
)

// Validator validates values against the contract's schemas.
type Validator struct {
	schemas map[string]*jsonschema.Schema
	shapes  []string
}

// SchemaError is one place a value broke a schema.
type SchemaError struct {
	InstancePath string `json:"instancePath"` // JSON Pointer; "" at the root
	Keyword      string `json:"keyword"`
}

// refusingLoader makes every $ref resolve inside the corpus: nothing is fetched.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("cdc: schema %s is not in the corpus, and referee fetches nothing", url)
}

// NewValidator compiles every schemas/<shape>.schema.json in fsys (draft-07).
func NewValidator(fsys fs.FS) (*Validator, error) {
	files, err := fs.Glob(fsys, "schemas/*.schema.json")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("cdc: no schemas/*.schema.json")
	}
	sort.Strings(files)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(refusingLoader{})
	// The schemas' patterns are ECMA-262 (the 1.0 releases use lookahead,
	// which RE2 lacks).
	c.UseRegexpEngine(ecmaRegexp)
	urls := map[string]string{}
	for _, f := range files {
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("cdc: %s: %w", f, err)
		}
		url := "file:///corpus/" + f
		if m, ok := doc.(map[string]any); ok {
			if id, ok := m["$id"].(string); ok && id != "" {
				url = id
			}
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("cdc: %s: %w", f, err)
		}
		urls[strings.TrimSuffix(path.Base(f), ".schema.json")] = url
	}
	v := &Validator{schemas: map[string]*jsonschema.Schema{}}
	for _, shape := range Shapes {
		url, ok := urls[shape]
		if !ok {
			continue
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("cdc: compiling %s: %w", shape, err)
		}
		v.schemas[shape] = s
		v.shapes = append(v.shapes, shape)
	}
	return v, nil
}

// Shapes returns the shapes the corpus has schemas for, in match order.
func (v *Validator) Shapes() []string { return v.shapes }

// Validate reports whether value is a valid shape, with every schema error
// (instance path and keyword) when it is not.
func (v *Validator) Validate(shape string, value canon.Value) (bool, []SchemaError, error) {
	s, ok := v.schemas[shape]
	if !ok {
		return false, nil, fmt.Errorf("cdc: unknown shape %q", shape)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(value.String()))
	if err != nil {
		return false, nil, err
	}
	err = s.Validate(inst)
	if err == nil {
		return true, []SchemaError{}, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return false, nil, err
	}
	var out []SchemaError
	// walk collects every error. loc and base are the parent's instance
	// location and schema location, to place propertyNames errors.
	var walk func(e *jsonschema.ValidationError, loc []string, base string, underNames bool)
	walk = func(e *jsonschema.ValidationError, loc []string, base string, underNames bool) {
		here := e.InstanceLocation
		_, isNames := e.ErrorKind.(*kind.PropertyNames)
		switch {
		case isNames:
			// jsonschema v6.0.3 can report a propertyNames error at another
			// value's location (its location slice is shared); Ajv reports it
			// at the object, which is the parent's location plus the
			// properties the schema descends through.
			here = append(slices.Clone(loc), propertiesBetween(base, e.SchemaURL)...)
		case underNames:
			here = loc // the name's own errors sit at the object, as Ajv puts them
		}
		if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
			out = append(out, SchemaError{InstancePath: pointer(here), Keyword: kp[len(kp)-1]})
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
	return false, out, nil
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

// ecmaRegexp compiles a pattern as ECMAScript, as Ajv does.
func ecmaRegexp(pattern string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	return ecmaRe{re}, nil
}

type ecmaRe struct{ re *regexp2.Regexp }

func (r ecmaRe) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	return ok && err == nil
}

func (r ecmaRe) String() string { return r.re.String() }

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
