// Package draft7 is a JSON Schema draft-07 validator.
//
// A Compiler holds schema documents; Compile turns one into a Schema,
// refusing a malformed schema (a keyword of the wrong type, a bad regular
// expression, a $ref that resolves nowhere) with a *SchemaError naming the
// document and the JSON pointer of the keyword. A $ref may name any
// document the Compiler holds, and the draft-07 metaschema; nothing is
// fetched. Patterns are ECMA-262 regular expressions, read and matched by
// internal/ecmaregexp (see its documentation for the reading): over code
// points, unanchored, within a step budget. A match that spends the budget
// fails its keyword with an Error whose Message names the pattern.
//
// Schema.Validate checks a canon.Value and reports every error in Ajv's
// terms: the instance path (a JSON pointer) and the keyword. Numbers are
// compared by exact decimal value, string lengths count code points, and
// equality (const, enum, uniqueItems) is JSON equality: numbers by value,
// object members in any order.
//
// Where draft-07 leaves a choice, the validator makes the one referee's
// earlier validator (github.com/santhosh-tekuri/jsonschema/v6) made, so that
// a corpus gives the same verdicts:
//
//   - format is asserted for the names formatCheck lists (regex too); other
//     names are ignored;
//   - a failed type, const, enum or format ends the schema's evaluation: its
//     other keywords are not evaluated (or reported);
//   - besides the failing keywords, the enclosing $ref, allOf, anyOf, oneOf,
//     contains and propertyNames are reported, each before the errors it
//     contains; a false schema is reported as "false schema", a failed
//     dependency as "dependencies", a failed not as "not";
//   - the errors of a property name sit at the object's path, as Ajv puts them.
//
// Nothing is done until a schema is compiled: the package has no
// initialisation work.
package draft7

import (
	"fmt"

	"github.com/refereehq/referee/internal/ecmaregexp"
)

// Error is one place a value broke a schema.
type Error struct {
	InstancePath string // JSON pointer to the value; "" for the whole value
	Keyword      string // the keyword that failed, or "false schema"
	Message      string // why, when the keyword could not be decided (a pattern's match budget spent); else ""
}

// SchemaError is a schema that cannot be compiled.
type SchemaError struct {
	Doc     string // the document's name
	Pointer string // JSON pointer, in the document, of the offending keyword
	Msg     string
}

func (e *SchemaError) Error() string { return fmt.Sprintf("%s#%s: %s", e.Doc, e.Pointer, e.Msg) }

// Schema is a compiled schema, ready to validate values. It is safe for
// concurrent use.
type Schema struct {
	doc *document
	ptr string // where it is in doc

	always *bool // a boolean schema
	ref    *Schema

	types    typeSet
	constKey *string
	enumKeys map[string]bool
	format   func(string) bool
	fmtRegex bool // format "regex"

	minProps, maxProps int // -1 when absent
	required           []string
	deps               []dependency
	props              map[string]*Schema
	patternProps       []patternProp
	addProps           *Schema
	noAddProps         bool // additionalProperties: false
	propNames          *Schema

	minItems, maxItems int
	unique             bool
	items              *Schema
	tupleItems         []*Schema
	addItems           *Schema
	noAddItems         bool // additionalItems: false after an array of items
	contains           *Schema

	minLen, maxLen int
	pattern        *ecmaregexp.Regexp

	minimum, maximum, exclMin, exclMax, multipleOf *decimal

	not                 *Schema
	allOf, anyOf, oneOf []*Schema
	ifS, thenS, elseS   *Schema
}

type dependency struct {
	name     string
	required []string // the array form
	schema   *Schema  // the schema form
}

type patternProp struct {
	re     *ecmaregexp.Regexp
	schema *Schema
}

// typeSet is a set of the seven draft-07 type names.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tString
	tInteger
)

var typeNames = [...]string{"null", "boolean", "object", "array", "number", "string", "integer"}

func typeOf(name string) typeSet {
	for i, n := range typeNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// inPlace lists the schemas s applies to the value s itself is applied to:
// the edges along which a cycle would never end.
func (s *Schema) inPlace() []*Schema {
	var out []*Schema
	if s.ref != nil {
		return append(out, s.ref)
	}
	for _, d := range s.deps {
		if d.schema != nil {
			out = append(out, d.schema)
		}
	}
	out = append(out, s.allOf...)
	out = append(out, s.anyOf...)
	out = append(out, s.oneOf...)
	for _, x := range []*Schema{s.not, s.ifS, s.thenS, s.elseS} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}
