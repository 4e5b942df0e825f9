package jcs

import (
	"errors"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

// MustDepth is the nesting depth (see Depth) up to which canonicalisation
// must work. RFC 8259 §9 lets a parser limit nesting and sets no number;
// 64 is System.Text.Json's default maximum depth, the lowest default among
// mainstream JSON parsers. Deeper nesting may be rejected.
const MustDepth = 64

// Depth returns the nesting depth of v: the number of arrays and objects on
// its deepest path. A scalar is 0, [] and {"a":1} are 1, [[1]] is 2. It
// walks without recursion.
func Depth(v canon.Value) int {
	type item struct {
		v *canon.Value
		d int // containers enclosing v
	}
	deepest := 0
	stack := []item{{&v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.v.Kind != canon.Array && it.v.Kind != canon.Object {
			continue
		}
		deepest = max(deepest, it.d+1)
		for i := range it.v.Elems {
			stack = append(stack, item{&it.v.Elems[i], it.d + 1})
		}
		for i := range it.v.Members {
			stack = append(stack, item{&it.v.Members[i].Value, it.d + 1})
		}
	}
	return deepest
}

// The clauses the suite's checks rest on.
const (
	clauseNumbers = `RFC 8785 §3.2.2.3: number data "MUST be serialized according to Section 7.1.12.1 of [ECMA-262], including the "Note 2" enhancement"`
	clauseStrings = `RFC 8785 §3.2.2.2: U+0000 to U+001F MUST be written \b \t \n \f \r or lowercase \uhhhh, \ and " MUST be escaped, and every other code point MUST be written "as is"`
	clauseKeys    = `RFC 8785 §3.2.3: "JSON object properties MUST be sorted recursively", comparing property names "as arrays of UTF-16 code units"`
	clauseShape   = `RFC 8785 §3.2: "Whitespace between JSON tokens MUST NOT be emitted" (§3.2.1), literals are written null, true and false (§3.2.2.1), and "array element order MUST NOT be changed" (§3.2.3)`
	clauseOutput  = `RFC 8785 §3.2: the canonical text has no whitespace (§3.2.1), primitives serialized as ECMAScript does (§3.2.2), properties sorted by UTF-16 code units (§3.2.3), encoded in UTF-8 (§3.2.4)`
	clauseDepth   = `RFC 8259 §9: "An implementation may set limits on the maximum depth of nesting", and sets no number; nesting up to depth 64, System.Text.Json's default maximum and the lowest among mainstream parsers, must work`
	clauseDeep    = `RFC 8259 §9: "An implementation may set limits on the maximum depth of nesting", and sets no number; beyond depth 64 (System.Text.Json's default maximum, the lowest among mainstream parsers) a rejection conforms as well as the canonical text`
	clauseDupes   = `RFC 8785 §3.1: the data "MUST be adapted for I-JSON", so "JSON objects MUST NOT exhibit duplicate property names" (RFC 7493 §2.3): a constraint on the data, which an implementation that takes parsed values cannot check`
	clauseSurr    = `RFC 8785 §3.2.2.2: lone surrogates "MUST cause a compliant JCS implementation to terminate with an appropriate error"`
	clauseRange   = `RFC 8785 §3.2.2.3: "occurrences of NaN or Infinity MUST cause a compliant JCS implementation to terminate with an appropriate error"; a number beyond the double range reads as Infinity (§3.1: number data MUST be expressible as IEEE 754 doubles)`
)

// reasonDuplicates is the reason a should-level duplicate-name check fails.
const reasonDuplicates = "accepted duplicate member names, which should be rejected: RFC 8785 §3.1 states their absence as a constraint on the data (I-JSON, RFC 7493 §2.3), so an implementation that takes already-parsed values cannot see duplicates"

// kind is what a vector asks of an implementation, as its input shows it.
type kind int

const (
	wantOutput     kind = iota // the canonical text, nothing else (must)
	wantOutputDeep             // the canonical text or a rejection (may: nested deeper than MustDepth)
	wantReject                 // a rejection (must)
	wantRejectDup              // a rejection (should: duplicate member names are its only fault)
)

// class is a vector's kind, level and clause, decided from its input.
type class struct {
	kind   kind
	level  check.Level
	clause string
	depth  int // its nesting depth, when the input parses
}

// classify decides what a vector demands from its input alone, whatever it
// is named: a rejection whose only cause is a duplicate member name (found
// by referee's own strict parser) is should; an output nested deeper than
// MustDepth is may; all else is must. group is the vector's first name
// segment, which picks the clause of a must output.
func classify(group, input string, reject bool) class {
	v, perr := canon.Parse([]byte(input), canon.ReadOptions{Duplicates: canon.LastWins})
	c := class{kind: wantOutput, level: check.Must}
	if perr == nil {
		c.depth = Depth(v)
	}
	if reject {
		c.kind = wantReject
		if perr != nil {
			return c // not JSON at all
		}
		_, werr := canon.JCS.Append(nil, v)
		_, strict := canon.Parse([]byte(input), canon.ReadOptions{})
		switch {
		case werr == nil && errors.Is(strict, canon.ErrDuplicateKey):
			c.kind, c.level, c.clause = wantRejectDup, check.Should, clauseDupes
		case errors.Is(werr, canon.ErrLoneSurrogate):
			c.clause = clauseSurr
		case errors.Is(werr, canon.ErrNumberRange), errors.Is(werr, canon.ErrNonFinite):
			c.clause = clauseRange
		}
		return c
	}
	if perr == nil && c.depth > MustDepth {
		c.kind, c.level, c.clause = wantOutputDeep, check.May, clauseDeep
		return c
	}
	switch group {
	case "numbers":
		c.clause = clauseNumbers
	case "strings":
		c.clause = clauseStrings
	case "keys":
		c.clause = clauseKeys
	case "structure":
		c.clause = clauseShape
	case "nesting":
		c.clause = clauseDepth
	default:
		c.clause = clauseOutput
	}
	return c
}

// groupOf returns a vector name's first segment.
func groupOf(name string) string {
	g, _, _ := strings.Cut(name, "/")
	return g
}
