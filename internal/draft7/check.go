package draft7

import (
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
)

// checkSchema checks that v, at ptr in d, is a well-formed draft-07 schema,
// with every schema under it: what validating it against the draft-07
// metaschema (formats asserted) would find, reported at the first
// offending keyword. Only draft-07 is supported: a $schema naming anything
// else is an error.
func (c *Compiler) checkSchema(d *document, v canon.Value, ptr string) error {
	fail := func(p, msg string) error { return &SchemaError{d.name, p, msg} }
	switch v.Kind {
	case canon.Bool:
		return nil
	case canon.Object:
	default:
		return fail(ptr, "a schema must be an object or a boolean, not "+kindName(v))
	}
	for _, m := range v.Members {
		p := ptr + "/" + canon.PointerToken(m.Key)
		x := m.Value
		var msg string
		switch m.Key {
		case "$id", "$ref":
			msg = want(x, canon.String)
			if msg == "" && !isURIReference(x.Str) {
				msg = "must be a URI reference"
			}
		case "$schema":
			msg = want(x, canon.String)
			switch {
			case msg != "":
			case !isURI(x.Str):
				msg = "must be a URI"
			case !isMetaschema(strings.TrimSuffix(x.Str, "#")):
				msg = "only draft-07 (" + metaschemaURL + "#) is supported"
			}
		case "$comment", "title", "description", "format", "contentMediaType", "contentEncoding":
			msg = want(x, canon.String)
		case "readOnly", "writeOnly", "uniqueItems":
			msg = want(x, canon.Bool)
		case "examples":
			msg = want(x, canon.Array)
		case "multipleOf":
			msg = want(x, canon.Number)
			if d, _ := parseDecimal(x.Num); msg == "" && d.sign() <= 0 {
				msg = "must be greater than 0"
			}
		case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
			msg = want(x, canon.Number)
		case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
			d, _ := parseDecimal(x.Num)
			if x.Kind != canon.Number || !d.isInt() || d.neg {
				msg = "must be a non-negative integer"
			}
		case "pattern":
			msg = want(x, canon.String)
			if msg == "" {
				if _, err := c.regexp(x.Str); err != nil {
					msg = "not an ECMA-262 regular expression: " + err.Error()
				}
			}
		case "additionalItems", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not":
			if err := c.checkSchema(d, x, p); err != nil {
				return err
			}
		case "items":
			if x.Kind == canon.Array {
				msg = c.checkSchemas(d, x, p)
			} else if err := c.checkSchema(d, x, p); err != nil {
				return err
			}
		case "allOf", "anyOf", "oneOf":
			msg = want(x, canon.Array)
			if msg == "" {
				msg = c.checkSchemas(d, x, p)
			}
		case "required":
			msg = stringSet(x)
		case "definitions", "properties", "patternProperties":
			msg = want(x, canon.Object)
			for _, mm := range x.Members {
				if m.Key == "patternProperties" {
					if _, err := c.regexp(mm.Key); err != nil {
						return fail(p+"/"+canon.PointerToken(mm.Key), "the name is not an ECMA-262 regular expression: "+err.Error())
					}
				}
				if err := c.checkSchema(d, mm.Value, p+"/"+canon.PointerToken(mm.Key)); err != nil {
					return err
				}
			}
		case "dependencies":
			msg = want(x, canon.Object)
			for _, mm := range x.Members {
				pp := p + "/" + canon.PointerToken(mm.Key)
				if mm.Value.Kind == canon.Array {
					if msg := stringSet(mm.Value); msg != "" {
						return fail(pp, msg)
					}
				} else if mm.Value.Kind != canon.Object && mm.Value.Kind != canon.Bool {
					return fail(pp, "must be a schema or an array of property names, not "+kindName(mm.Value))
				} else if err := c.checkSchema(d, mm.Value, pp); err != nil {
					return err
				}
			}
		case "enum":
			msg = want(x, canon.Array)
			if msg == "" {
				msg = distinct(x, 1)
			}
		case "type":
			switch x.Kind {
			case canon.String:
				if typeOf(x.Str) == 0 {
					msg = "unknown type " + strconv.Quote(x.Str)
				}
			case canon.Array:
				msg = distinct(x, 1)
				for _, e := range x.Elems {
					if e.Kind != canon.String || typeOf(e.Str) == 0 {
						msg = "must list type names"
					}
				}
			default:
				msg = "must be a type name or an array of them"
			}
		}
		if msg != "" {
			return fail(p, msg)
		}
	}
	return nil
}

// checkSchemas checks a non-empty array of schemas; it returns a message
// for the array itself, or the first schema's error as a message.
func (c *Compiler) checkSchemas(d *document, x canon.Value, p string) string {
	if len(x.Elems) == 0 {
		return "must not be empty"
	}
	for i, e := range x.Elems {
		if err := c.checkSchema(d, e, p+"/"+strconv.Itoa(i)); err != nil {
			se := err.(*SchemaError)
			return strings.TrimPrefix(se.Pointer, p) + ": " + se.Msg
		}
	}
	return ""
}

func want(x canon.Value, k canon.Kind) string {
	if x.Kind == k {
		return ""
	}
	name := map[canon.Kind]string{canon.String: "a string", canon.Bool: "a boolean", canon.Array: "an array", canon.Object: "an object", canon.Number: "a number"}[k]
	return "must be " + name + ", not " + kindName(x)
}

func kindName(x canon.Value) string {
	if x.Kind == canon.Bool {
		return "boolean"
	}
	return x.Kind.String()
}

// stringSet checks an array of distinct strings.
func stringSet(x canon.Value) string {
	if x.Kind != canon.Array {
		return "must be an array of strings, not " + kindName(x)
	}
	for _, e := range x.Elems {
		if e.Kind != canon.String {
			return "must be an array of strings"
		}
	}
	return distinct(x, 0)
}

// distinct checks that the array x has at least least elements, all
// different (JSON equality).
func distinct(x canon.Value, least int) string {
	if len(x.Elems) < least {
		return "must not be empty"
	}
	seen := make(map[string]bool, len(x.Elems))
	for i, e := range x.Elems {
		k := key(e)
		if seen[k] {
			return "element " + strconv.Itoa(i) + " repeats an earlier one"
		}
		seen[k] = true
	}
	return ""
}
