package draft7

import (
	"slices"
	"testing"

	"github.com/refereehq/referee/canon"
)

// FuzzValidate compiles untrusted schema bytes and validates untrusted
// value bytes with them: neither may panic; a schema either compiles or
// gets a *SchemaError naming its document; validation is deterministic,
// the quick (quiet) verdict agrees with the full one, a failure always
// reports an error, and every error's path names a value in the instance.
func FuzzValidate(f *testing.F) {
	seeds := [][2]string{
		{`{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "maximum": 3}}}`, `{"a": 4}`},
		{`{"items": [{"const": 1}], "additionalItems": false, "contains": {"type": "null"}}`, `[1, 2]`},
		{`{"propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": {"$ref": "#"}}`, `{"a": {"B": {}}}`},
		{`{"anyOf": [{"multipleOf": 0.1}, {"enum": [{"x": [1]}]}], "not": {"type": "string"}}`, `{"x": [1.0]}`},
		{`{"definitions": {"d": {"$id": "#d", "oneOf": [true, {"minLength": 2}]}}, "$ref": "#d"}`, `"ab"`},
		{`{"if": {"minProperties": 1}, "then": {"dependencies": {"a": ["b"], "c": {"maxProperties": 1}}}, "else": false}`, `{"a": 1, "c": 2}`},
		{`{"$ref": "http://json-schema.org/draft-07/schema#"}`, `{"type": ["string", "string"], "pattern": "("}`},
		{`{"uniqueItems": true, "items": {"format": "date-time"}}`, `["1990-12-31T23:59:60Z", "x", "x"]`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, schema, value []byte) {
		c := NewCompiler()
		if err := c.AddDocument("fuzz.json", schema); err != nil {
			return
		}
		s, err := c.Compile("fuzz.json")
		if err != nil {
			se, ok := err.(*SchemaError)
			if !ok || se.Doc != "fuzz.json" {
				t.Fatalf("compile error %v (%T) is not a *SchemaError naming the document", err, err)
			}
			return
		}
		v, err := canon.Parse(value, canon.ReadOptions{MaxDepth: 64})
		if err != nil {
			return
		}
		errs := s.Validate(v)
		if again := s.Validate(v); !slices.Equal(errs, again) {
			t.Fatalf("two runs differ: %v and %v", errs, again)
		}
		var vd validation
		// A match that spent its budget makes Validate report an error
		// even where the quiet run's branches made do without it.
		if quiet := vd.apply(s, &v, true) && len(vd.undecided) == 0; quiet != (len(errs) == 0) || len(vd.errs) != 0 {
			t.Fatalf("quiet verdict %v (recording %v), but the full run found %v", quiet, vd.errs, errs)
		}
		for _, e := range errs {
			if _, _, ok := walkPointer(v, e.InstancePath); !ok {
				t.Fatalf("error %v: no such value in %s", e, v.String())
			}
			if e.Keyword == "" {
				t.Fatalf("error %v has no keyword", e)
			}
		}
	})
}
