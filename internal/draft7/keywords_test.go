package draft7

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
)

// compile compiles one schema document named schema.json.
func compile(t *testing.T, schema string) *Schema {
	t.Helper()
	c := NewCompiler()
	if err := c.AddDocument("schema.json", []byte(schema)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func parse(t *testing.T, text string) canon.Value {
	t.Helper()
	v, err := canon.Parse([]byte(text), canon.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// render writes errors as "path keyword" lines joined by commas.
func render(errs []Error) string {
	var out []string
	for _, e := range errs {
		out = append(out, e.InstancePath+" "+e.Keyword)
	}
	return strings.Join(out, ", ")
}

// TestKeywords checks each keyword against what the draft-07 validation
// and core texts say; want lists the errors in order ("" when valid).
func TestKeywords(t *testing.T) {
	tests := []struct {
		name, schema, data, want string
	}{
		// Boolean schemas (core §4.3.2).
		{"true schema", `true`, `{"a": 1}`, ""},
		{"false schema", `false`, `null`, " false schema"},
		{"false property schema", `{"properties": {"a": false}}`, `{"a": 1}`, "/a false schema"},

		// type (validation §6.1.1): integer is a number with a zero fractional part.
		{"type string", `{"type": "string"}`, `"x"`, ""},
		{"type mismatch", `{"type": "string"}`, `1`, " type"},
		{"type list", `{"type": ["null", "boolean"]}`, `false`, ""},
		{"integer 1.0", `{"type": "integer"}`, `1.0`, ""},
		{"integer 1e2", `{"type": "integer"}`, `1e2`, ""},
		{"integer 1.5e1", `{"type": "integer"}`, `1.5e1`, ""},
		{"integer 1e-1", `{"type": "integer"}`, `1e-1`, " type"},
		{"integer big", `{"type": "integer"}`, `123456789012345678901234567890`, ""},
		{"number accepts integer", `{"type": "number"}`, `-0`, ""},
		{"object is not array", `{"type": "array"}`, `{}`, " type"},
		{"a failed type ends the schema", `{"type": "object", "required": ["a"], "allOf": [{"minLength": 9}]}`, `"x"`, " type"},

		// enum and const (§6.1.2, §6.1.3): JSON equality.
		{"enum member", `{"enum": [1, "a", null]}`, `"a"`, ""},
		{"enum number by value", `{"enum": [1]}`, `1.00`, ""},
		{"enum miss", `{"enum": [1, "a"]}`, `"b"`, " enum"},
		{"enum object any order", `{"enum": [{"a": 1, "b": [2]}]}`, `{"b": [2.0], "a": 1}`, ""},
		{"enum array order matters", `{"enum": [[1, 2]]}`, `[2, 1]`, " enum"},
		{"const", `{"const": {"x": [true, null]}}`, `{"x": [true, null]}`, ""},
		{"const false is not 0", `{"const": false}`, `0`, " const"},
		{"const number", `{"const": 10}`, `1e1`, ""},

		// Numbers (§6.2), compared exactly.
		{"multipleOf", `{"multipleOf": 0.1}`, `0.3`, ""},
		{"multipleOf miss", `{"multipleOf": 0.1}`, `0.35`, " multipleOf"},
		{"multipleOf integer", `{"multipleOf": 3}`, `1e3`, " multipleOf"},
		{"multipleOf zero", `{"multipleOf": 7}`, `0`, ""},
		{"multipleOf huge", `{"multipleOf": 0.5}`, `1e308`, ""},
		{"maximum equal", `{"maximum": 3}`, `3.0`, ""},
		{"maximum above", `{"maximum": 3}`, `3.0000000000000000001`, " maximum"},
		{"exclusiveMaximum", `{"exclusiveMaximum": 3}`, `3`, " exclusiveMaximum"},
		{"minimum", `{"minimum": -1e400}`, `-1e401`, " minimum"},
		{"exclusiveMinimum", `{"exclusiveMinimum": 0}`, `-0.0`, " exclusiveMinimum"},
		{"bounds ignore strings", `{"maximum": 1}`, `"99"`, ""},
		{"every bound reported", `{"maximum": 1, "multipleOf": 2}`, `3`, " maximum,  multipleOf"},

		// Strings (§6.3): lengths in code points.
		{"maxLength astral", `{"maxLength": 2}`, `"😀😀"`, ""},
		{"maxLength over", `{"maxLength": 2}`, `"abc"`, " maxLength"},
		{"minLength", `{"minLength": 2}`, `"é"`, " minLength"},
		{"lone surrogate is one code point", `{"maxLength": 1}`, `"\ud800"`, ""},
		{"pattern unanchored", `{"pattern": "b+"}`, `"abbc"`, ""},
		{"pattern miss", `{"pattern": "^a"}`, `"ba"`, " pattern"},
		{"pattern lookahead", `{"pattern": "^(?!x)\\w+$"}`, `"xy"`, " pattern"},
		{"pattern ECMA \\d is ASCII", `{"pattern": "^\\d$"}`, `"٣"`, " pattern"},
		{"pattern astral dot", `{"pattern": "^.$"}`, `"😀"`, ""},

		// Arrays (§6.4).
		{"items schema", `{"items": {"type": "integer"}}`, `[1, "a", 2, null]`, "/1 type, /3 type"},
		{"items array", `{"items": [{"type": "string"}, {"type": "number"}]}`, `["a", "b", true]`, "/1 type"},
		{"additionalItems false", `{"items": [true], "additionalItems": false}`, `[1, 2, 3]`, " additionalItems"},
		{"additionalItems schema", `{"items": [true], "additionalItems": {"type": "string"}}`, `[1, "a", 2]`, "/2 type"},
		{"additionalItems without array items", `{"items": {}, "additionalItems": false}`, `[1, 2]`, ""},
		{"maxItems", `{"maxItems": 1}`, `[1, 2]`, " maxItems"},
		{"minItems", `{"minItems": 1}`, `[]`, " minItems"},
		{"uniqueItems", `{"uniqueItems": true}`, `[1, {"a": [1]}, 1.0]`, " uniqueItems"},
		{"uniqueItems objects unordered", `{"uniqueItems": true}`, `[{"a": 1, "b": 2}, {"b": 2, "a": 1}]`, " uniqueItems"},
		{"uniqueItems distinct", `{"uniqueItems": true}`, `[1, "1", [1], {"1": 1}, true, null]`, ""},
		{"contains", `{"contains": {"const": 2}}`, `[1, 2]`, ""},
		{"contains miss reports each element", `{"contains": {"const": 2}}`, `[1, 3]`, " contains, /0 const, /1 const"},
		{"contains empty array", `{"contains": true}`, `[]`, " contains"},

		// Objects (§6.5).
		{"maxProperties", `{"maxProperties": 1}`, `{"a": 1, "b": 2}`, " maxProperties"},
		{"minProperties", `{"minProperties": 1}`, `{}`, " minProperties"},
		{"required", `{"required": ["a", "b"]}`, `{"a": 1}`, " required"},
		{"properties", `{"properties": {"a": {"type": "string"}, "b~/c": {"type": "null"}}}`, `{"a": 1, "b~/c": 2}`, "/a type, /b~0~1c type"},
		{"patternProperties", `{"patternProperties": {"^x": {"type": "string"}, "y$": {"type": "string"}}}`, `{"xy": 1, "z": 2}`, "/xy type, /xy type"},
		{"additionalProperties false", `{"properties": {"a": true}, "patternProperties": {"^b": true}, "additionalProperties": false}`, `{"a": 1, "bb": 2, "c": 3, "d": 4}`, " additionalProperties"},
		{"additionalProperties schema", `{"properties": {"a": true}, "additionalProperties": {"type": "string"}}`, `{"a": 1, "c": 3}`, "/c type"},
		{"dependencies array", `{"dependencies": {"a": ["b", "c"]}}`, `{"a": 1, "b": 2}`, " dependencies"},
		{"dependencies absent trigger", `{"dependencies": {"a": ["b"]}}`, `{"b": 1}`, ""},
		{"dependencies schema", `{"dependencies": {"a": {"required": ["z"]}}}`, `{"a": 1}`, " required"},
		{"propertyNames at the object", `{"properties": {"o": {"propertyNames": {"maxLength": 2}}}}`, `{"o": {"ab": 1, "abc": 2}}`, "/o propertyNames, /o maxLength"},
		{"propertyNames false", `{"propertyNames": false}`, `{"a": 1}`, " propertyNames,  false schema"},
		{"propertyNames empty object", `{"propertyNames": false}`, `{}`, ""},
		{"every object keyword reported", `{"minProperties": 3, "required": ["x"], "properties": {"a": {"type": "string"}}}`, `{"a": 1}`, " minProperties,  required, /a type"},

		// Combinators (§6.6, §6.7).
		{"if then", `{"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}}`, `{"a": 1}`, " required"},
		{"if else", `{"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}}`, `{}`, " required"},
		{"then without if", `{"then": false}`, `1`, ""},
		{"allOf", `{"allOf": [{"type": "string"}, {"maxLength": 1}]}`, `"ab"`, " allOf,  maxLength"},
		{"anyOf match", `{"anyOf": [{"type": "string"}, {"type": "number"}]}`, `1`, ""},
		{"anyOf miss", `{"anyOf": [{"type": "string"}, {"properties": {"a": {"type": "number"}}}]}`, `{"a": "x"}`, " anyOf,  type, /a type"},
		{"oneOf one", `{"oneOf": [{"type": "string"}, {"type": "number"}]}`, `1`, ""},
		{"oneOf none", `{"oneOf": [{"type": "string"}, {"type": "null"}]}`, `1`, " oneOf,  type,  type"},
		{"oneOf two", `{"oneOf": [{"type": "number"}, {"minimum": 0}]}`, `1`, " oneOf"},
		{"not", `{"not": {"type": "string"}}`, `"x"`, " not"},
		{"not holds", `{"not": {"type": "string"}}`, `1`, ""},
		{"nested anyOf", `{"properties": {"a": {"anyOf": [{"items": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, {"type": "string"}]}}}`, `{"a": [1]}`, "/a anyOf, /a/0 anyOf, /a/0 type, /a/0 type, /a type"},

		// $ref (core §8.3): siblings ignored, pointers escaped and percent-decoded.
		{"ref", `{"definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s"}}}`, `{"a": 1}`, "/a $ref, /a type"},
		{"ref siblings ignored", `{"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "maxLength": 1, "const": "zz"}`, `"abc"`, ""},
		{"ref escaped pointer", `{"definitions": {"a/b~c": {"type": "null"}}, "$ref": "#/definitions/a~1b~0c"}`, `1`, " $ref,  type"},
		{"ref percent-encoded pointer", `{"definitions": {"a%b c": {"type": "null"}}, "$ref": "#/definitions/a%25b%20c"}`, `1`, " $ref,  type"},
		{"ref into an array", `{"items": [{"type": "null"}, {"$ref": "#/items/0"}]}`, `[null, 1]`, "/1 $ref, /1 type"},
		{"ref recursion", `{"properties": {"n": {"$ref": "#"}}, "additionalProperties": false}`, `{"n": {"n": {"x": 1}}}`, "/n $ref, /n/n $ref, /n/n additionalProperties"},
		{"ref root", `{"$id": "http://example.com/root.json", "definitions": {"a": {"$id": "#foo", "type": "integer"}}, "$ref": "#foo"}`, `1.5`, " $ref,  type"},
		{"ref to embedded $id", `{"$id": "http://example.com/root.json", "definitions": {"a": {"$id": "other.json", "definitions": {"b": {"type": "string"}}}}, "$ref": "other.json#/definitions/b"}`, `1`, " $ref,  type"},
		{"ref resolves against its own base", `{"$id": "http://example.com/a/root.json", "definitions": {"x": {"$id": "http://example.com/b/", "definitions": {"y": {"$id": "y.json", "type": "null"}}, "$ref": "y.json"}}, "$ref": "#/definitions/x"}`, `1`, " $ref,  $ref,  type"},
		{"ref to the metaschema", `{"$ref": "http://json-schema.org/draft-07/schema#"}`, `{"minLength": -1}`, " $ref, /minLength $ref, /minLength allOf, /minLength $ref, /minLength minimum"},

		// format: asserted for the names the earlier validator asserted.
		{"format date", `{"format": "date"}`, `"2024-02-30"`, " format"},
		{"format date-time", `{"format": "date-time"}`, `"1990-12-31T23:59:60Z"`, ""},
		{"format ignores other types", `{"format": "email"}`, `12`, ""},
		{"format unknown", `{"format": "color"}`, `"no"`, ""},
		{"format regex", `{"format": "regex"}`, `"(unclosed"`, " format"},
		{"a failed format ends the schema", `{"format": "ipv4", "maxLength": 1}`, `"1.2.3"`, " format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := compile(t, tc.schema)
			if got := render(s.Validate(parse(t, tc.data))); got != tc.want {
				t.Errorf("%s against %s:\n got %q\nwant %q", tc.data, tc.schema, got, tc.want)
			}
		})
	}
}

// TestSchemaErrors checks that malformed schemas are refused, naming the
// document and the keyword's pointer.
func TestSchemaErrors(t *testing.T) {
	tests := []struct {
		name, schema, pointer, msg string
	}{
		{"not a schema", `1`, "", "must be an object or a boolean"},
		{"type name", `{"type": "int"}`, "/type", `unknown type "int"`},
		{"type list repeats", `{"type": ["null", "null"]}`, "/type", "repeats"},
		{"type empty list", `{"type": []}`, "/type", "must not be empty"},
		{"minLength negative", `{"properties": {"a": {"minLength": -1}}}`, "/properties/a/minLength", "non-negative integer"},
		{"maxItems fractional", `{"maxItems": 1.5}`, "/maxItems", "non-negative integer"},
		{"multipleOf zero", `{"multipleOf": 0}`, "/multipleOf", "greater than 0"},
		{"maximum string", `{"maximum": "1"}`, "/maximum", "must be a number"},
		{"pattern", `{"items": {"pattern": "("}}`, "/items/pattern", `not an ECMA-262 regular expression: pattern "(": missing ) at offset 1`},
		{"pattern .NET form", `{"pattern": "(?i)a"}`, "/pattern", `pattern "(?i)a": (?i is not an ECMA-262 group at offset 0`},
		{"patternProperties name", `{"patternProperties": {"[": true}}`, "/patternProperties/[", `not an ECMA-262 regular expression: pattern "[": missing ] at offset 1`},
		{"required not strings", `{"required": [1]}`, "/required", "strings"},
		{"required repeats", `{"required": ["a", "a"]}`, "/required", "repeats"},
		{"enum empty", `{"enum": []}`, "/enum", "must not be empty"},
		{"allOf empty", `{"allOf": []}`, "/allOf", "must not be empty"},
		{"anyOf element", `{"anyOf": [{"type": 1}]}`, "/anyOf", "/0/type"},
		{"properties not object", `{"properties": []}`, "/properties", "must be an object"},
		{"property schema", `{"properties": {"a/b": 3}}`, "/properties/a~1b", "must be an object or a boolean"},
		{"dependencies value", `{"dependencies": {"a": 1}}`, "/dependencies/a", "schema or an array"},
		{"sibling of $ref still checked", `{"$ref": "#/definitions/a", "definitions": {"a": true}, "minLength": "x"}`, "/minLength", "non-negative integer"},
		{"ref unknown document", `{"$ref": "other.json"}`, "/$ref", "file:///dir/other.json is not in the corpus, and referee fetches nothing"},
		{"ref remote", `{"properties": {"a": {"$ref": "https://example.com/s.json#/x"}}}`, "/properties/a/$ref", "https://example.com/s.json is not in the corpus"},
		{"ref missing pointer", `{"$ref": "#/definitions/none"}`, "/$ref", "no such value"},
		{"ref bad escape", `{"definitions": {"a": true}, "$ref": "#/definitions/~2"}`, "/$ref", "no such value"},
		{"ref missing anchor", `{"$ref": "#nowhere"}`, "/$ref", "no such $id"},
		{"ref not a schema", `{"definitions": {"n": 5}, "$ref": "#/definitions/n"}`, "/definitions/n", "must be an object or a boolean"},
		{"ref cycle", `{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"allOf": [{"$ref": "#/definitions/a"}]}}, "$ref": "#/definitions/a"}`, "/definitions/a", "cycle"},
		{"other draft", `{"$schema": "https://json-schema.org/draft/2020-12/schema"}`, "/$schema", "only draft-07"},
		{"duplicate $id", `{"definitions": {"a": {"$id": "x.json"}, "b": {"$id": "x.json"}}}`, "/definitions/b/$id", "also the URI"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCompiler()
			if err := c.AddDocument("dir/schema.json", []byte(tc.schema)); err != nil {
				t.Fatal(err)
			}
			_, err := c.Compile("dir/schema.json")
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *SchemaError", err)
			}
			if se.Doc != "dir/schema.json" || se.Pointer != tc.pointer || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("got %q (pointer %q), want pointer %q and a message with %q", err, se.Pointer, tc.pointer, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "dir/schema.json#"+tc.pointer+": ") {
				t.Errorf("error %q does not start with the document and pointer", err)
			}
		})
	}
}

// TestDocuments checks $ref across documents and base URIs from $id.
func TestDocuments(t *testing.T) {
	c := NewCompiler()
	docs := map[string]string{
		"schemas/a.schema.json": `{"properties": {"b": {"$ref": "b.schema.json#/definitions/s"}, "c": {"$ref": "https://example.com/c.json"}}}`,
		"schemas/b.schema.json": `{"definitions": {"s": {"type": "string"}}}`,
		"schemas/c.schema.json": `{"$id": "https://example.com/c.json", "type": "integer"}`,
	}
	for _, name := range []string{"schemas/a.schema.json", "schemas/b.schema.json", "schemas/c.schema.json"} {
		if err := c.AddDocument(name, []byte(docs[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.AddDocument("elsewhere/c.json", []byte(`{"$id": "https://example.com/c.json"}`)); err == nil || !strings.Contains(err.Error(), "also schemas/c.schema.json's") {
		t.Errorf("a second document with the same URI: %v", err)
	}
	s, err := c.Compile("schemas/a.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := render(s.Validate(parse(t, `{"b": 1, "c": "x"}`))), "/b $ref, /b type, /c $ref, /c type"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := c.Compile("schemas/none.json"); err == nil {
		t.Error("compiled a document never added")
	}
	if err := c.AddDocument("bad.json", []byte(`{"a": }`)); err == nil || !strings.HasPrefix(err.Error(), "bad.json: ") {
		t.Errorf("a document that is not JSON: %v", err)
	}
}

// TestConcurrentValidate runs one schema from several goroutines (go test
// -race finds any shared state).
func TestConcurrentValidate(t *testing.T) {
	s := compile(t, `{"items": {"pattern": "^a+$", "propertyNames": {"maxLength": 1}}}`)
	v := parse(t, `["aa", "b", {"xy": 1}]`)
	want := render(s.Validate(v))
	done := make(chan string)
	for range 4 {
		go func() { done <- render(s.Validate(v)) }()
	}
	for range 4 {
		if got := <-done; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestDecimal(t *testing.T) {
	tests := []struct {
		a, b string
		cmp  int
	}{
		{"1", "1.0", 0}, {"-0", "0", 0}, {"0.0e5", "-0", 0}, {"1e2", "100", 0}, {"15e-1", "1.5", 0},
		{"2", "10", -1}, {"0.15", "0.2", -1}, {"-3", "-2", -1}, {"-1", "0", -1}, {"1e400", "1e399", 1},
		{"123456789012345678901234567891", "123456789012345678901234567890", 1}, {"-1e-400", "0", -1},
	}
	for _, tc := range tests {
		a, ok1 := parseDecimal(tc.a)
		b, ok2 := parseDecimal(tc.b)
		if !ok1 || !ok2 {
			t.Fatalf("%s or %s did not parse", tc.a, tc.b)
		}
		if got := a.cmp(b); got != tc.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.cmp)
		}
		if got := b.cmp(a); got != -tc.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", tc.b, tc.a, got, -tc.cmp)
		}
		if (a.key() == b.key()) != (tc.cmp == 0) {
			t.Errorf("keys %s and %s: equal %v, want %v", a.key(), b.key(), a.key() == b.key(), tc.cmp == 0)
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x1", "1.5.2", "NaN"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("parseDecimal(%q) succeeded", bad)
		}
	}
	multiples := []struct {
		a, m string
		ok   bool
	}{
		{"0.5", "0.25", true}, {"0.25", "0.5", false}, {"10", "5", true}, {"5", "10", false}, {"1", "0.1", true},
		{"0.3", "0.1", true}, {"4.5", "1.5", true}, {"4.6", "1.5", false}, {"0", "0.7", true}, {"-6", "3", true}, {"1e1000000", "7", false}, {"7e1000000", "7", true},
	}
	for _, tc := range multiples {
		a, _ := parseDecimal(tc.a)
		m, _ := parseDecimal(tc.m)
		if got := a.multipleOf(m); got != tc.ok {
			t.Errorf("%s multipleOf %s = %v, want %v", tc.a, tc.m, got, tc.ok)
		}
	}
}

// formatCases are strings each format must accept and refuse, from the
// RFCs and specifications the formats name.
var formatCases = map[string]struct{ valid, invalid []string }{
	"date":                  {[]string{"2024-02-29", "2000-02-29", "1999-12-31"}, []string{"2023-02-29", "1900-02-29", "2024-13-01", "2024-1-01", "2024-01-32", "20240101"}},
	"time":                  {[]string{"23:59:60Z", "08:30:06.283185Z", "01:29:60+01:30", "23:20:50.52z", "15:59:60-08:00"}, []string{"22:59:60Z", "08:30:06", "24:00:00Z", "08:30:06 PST", "08:30:06+25:00", "8:30:06Z", "08:30:06.Z"}},
	"date-time":             {[]string{"1963-06-19T08:30:06.283185Z", "1990-12-31t15:59:60-08:00"}, []string{"1963-06-19 08:30:06Z", "1963-06-19T08:30:06", "06/19/1963 08:30:06 PST"}},
	"duration":              {[]string{"P4DT12H30M5S", "P1W", "PT1M", "P1Y2M"}, []string{"P", "PT", "P1D2H", "P2S", "P1M2Y", "4DT12H", "P1YW"}},
	"period":                {[]string{"1963-06-19T08:30:06Z/P1D", "P1D/1963-06-19T08:30:06Z", "1963-06-19T08:30:06Z/1963-06-20T08:30:06Z"}, []string{"P1D/P2D", "1963-06-19T08:30:06Z"}},
	"email":                 {[]string{"joe.bloggs@example.com", `"joe bloggs"@example.com`, "joe@[127.0.0.1]", "joe@[IPv6:::1]", "te~st@example.com"}, []string{"2962", ".test@example.com", "te..st@example.com", "test.@example.com", "@example.com", "joe@-example.com"}},
	"hostname":              {[]string{"www.example.com", "xn--4gbwdl.xn--wgbh1c", "a.b-c.d", "example.com."}, []string{"-a-host-name", "not_a_valid_host_name", "a..b", strings.Repeat("a", 64) + ".com", ""}},
	"ipv4":                  {[]string{"192.168.0.1", "0.0.0.0", "255.255.255.255"}, []string{"127.0.0.0.1", "256.256.256.256", "127.0", "0x7f000001", "087.10.0.1", "+1.2.3.4", "1.2.3.4 "}},
	"ipv6":                  {[]string{"::1", "2001:db8::8a2e:370:7334", "::ffff:192.168.0.1"}, []string{"12345::", "::1%eth0", "1.2.3.4", "1:2:3:4:5:6:7:8:9", ":::"}},
	"uri":                   {[]string{"http://foo.bar/?baz=qux#quux", "urn:oasis:names:tc:entity:xmlns:xml:catalog", "mailto:joe@example.com", "http://[2001:db8::7]/c=GB"}, []string{"//foo.bar/?baz=qux", "abc", "http://[::1/"}},
	"uri-reference":         {[]string{"/abc", "#fragment", "", "http://example.com/a"}, []string{`\\WINDOWS\fileshare`, "http://[::1/"}},
	"uri-template":          {[]string{"http://example.com/dictionary/{term:1}/{term}", "/a/{b}{?c,d}"}, []string{"http://example.com/dictionary/{term:1}/{term", "{a{b}}", "a}b{"}},
	"json-pointer":          {[]string{"", "/foo/bar~0/baz~1/%a", "/", "/~01"}, []string{"foo", "/foo/bar~", "/~2"}},
	"relative-json-pointer": {[]string{"1", "0/foo/bar", "2#", "120/foo"}, []string{"/foo", "-1/foo", "01/a", "#", "1#x"}},
	"uuid":                  {[]string{"2EB8AA08-AA98-11EA-B4AA-73B441D16380", "00000000-0000-0000-0000-000000000000"}, []string{"2eb8aa08-aa98-11ea-b4aa-73b441d1638", "2eb8aa08aa9811eab4aa73b441d16380", "2eb8aa08-aa98-11ea-b4aa-73b441d1638g"}},
	"semver":                {[]string{"1.0.0", "1.0.0-alpha.1+build.5", "0.0.4-0a", "1.0.0+0.build.1-rc.10000aaa-kk-0.1"}, []string{"1.0", "01.0.0", "1.0.0-01", "1.0.0-", "1.0.0+", "1.0.0-a..b", "v1.0.0"}},
}

func TestFormats(t *testing.T) {
	for name, tc := range formatCases {
		check := formatCheck(name)
		if check == nil {
			t.Errorf("format %s is not asserted", name)
			continue
		}
		for _, s := range tc.valid {
			if !check(s) {
				t.Errorf("%s: %q refused", name, s)
			}
		}
		for _, s := range tc.invalid {
			if check(s) {
				t.Errorf("%s: %q accepted", name, s)
			}
		}
	}
	for _, name := range []string{"idn-email", "idn-hostname", "color", "regex"} {
		if formatCheck(name) != nil {
			t.Errorf("format %s has a string check", name)
		}
	}
}

// TestOrder checks that errors come in evaluation order, an enclosing
// keyword before what it holds, and members in the order of the value.
func TestOrder(t *testing.T) {
	s := compile(t, `{"properties": {"b": {"allOf": [{"$ref": "#/definitions/n"}]}, "a": {"type": "null"}}, "definitions": {"n": {"type": "null"}}}`)
	got := s.Validate(parse(t, `{"b": 1, "a": 2}`))
	want := []Error{{"/b", "allOf", ""}, {"/b", "$ref", ""}, {"/b", "type", ""}, {"/a", "type", ""}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
