package jcs

import (
	"bytes"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

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

// BigMagnitude reports whether a JSON number lexeme's magnitude is 2^53 or
// more, decided exactly from its decimal digits (not from the double it
// rounds to: 9007199254740991.5 is below 2^53).
func BigMagnitude(lexeme string) bool {
	// Without an exponent the integer digits decide, as text: a fraction
	// is below 1 and cannot reach 2^53 from below it.
	s := strings.TrimPrefix(lexeme, "-")
	if !strings.ContainsAny(s, "eE") {
		whole, _, _ := strings.Cut(s, ".")
		if whole != "" && whole[0] != '0' && strings.Trim(whole, "0123456789") == "" {
			if len(whole) != len(twoPow53) {
				return len(whole) > len(twoPow53)
			}
			return whole >= twoPow53
		}
	}
	return bigMagnitude(lexeme)
}

// twoPow53 is 2^53 in decimal digits.
const twoPow53 = "9007199254740992"

// bigMagnitude is BigMagnitude for any lexeme, by big.Float.
func bigMagnitude(lexeme string) bool {
	// Rounding toward zero keeps a value below 2^53 below it and a value at
	// or above it at or above it, whatever the precision.
	f, _, err := big.ParseFloat(strings.TrimPrefix(lexeme, "-"), 10, 128, big.ToZero)
	if err != nil {
		// Only an exponent beyond big.Float's range gets here: the number is
		// huge, or tiny (1e-999999999999), or zero (0e999999999999).
		mantissa, exp, _ := strings.Cut(strings.ToLower(lexeme), "e")
		return !strings.HasPrefix(exp, "-") && strings.Trim(mantissa, "-0.") != ""
	}
	// f is mant × 2^exp with 0.5 ≤ mant < 1 (exp 0 for zero): at or above
	// 2^53 (0.5 × 2^54) exactly when exp is 54 or more.
	return f.MantExp(nil) >= 54
}

// IsNoncharacter reports whether r is a Unicode noncharacter: U+FDD0 to
// U+FDEF, and the last two code points of every plane.
func IsNoncharacter(r rune) bool {
	return 0xFDD0 <= r && r <= 0xFDEF || r&0xFFFE == 0xFFFE && r <= utf8.MaxRune
}

// scan walks v and reports whether it holds a number of magnitude 2^53 or
// more and whether a string or key holds a noncharacter.
func scan(v canon.Value) (big, nonchar bool) {
	hasNonchar := func(s string) bool {
		for _, r := range s {
			if IsNoncharacter(r) {
				return true
			}
		}
		return false
	}
	v.Walk(func(x *canon.Value) bool {
		switch x.Kind {
		case canon.Number:
			big = big || BigMagnitude(x.Num)
		case canon.String:
			nonchar = nonchar || hasNonchar(x.Str)
		case canon.Object:
			for _, m := range x.Members {
				nonchar = nonchar || hasNonchar(m.Key)
			}
		}
		return true
	})
	return big, nonchar
}

// The clauses the suite's checks rest on.
const (
	clauseNumbers    = `RFC 8785 §3.2.2.3: number data "MUST be serialized according to Section 7.1.12.1 of [ECMA-262], including the "Note 2" enhancement"`
	clauseStrings    = `RFC 8785 §3.2.2.2: U+0000 to U+001F MUST be written \b \t \n \f \r or lowercase \uhhhh, \ and " MUST be escaped, and every other code point MUST be written "as is"`
	clauseKeys       = `RFC 8785 §3.2.3: "JSON object properties MUST be sorted recursively", comparing property names "as arrays of UTF-16 code units"`
	clauseNames      = `RFC 8785 §3.2.3: "JSON object properties MUST be sorted recursively", comparing property names "as arrays of UTF-16 code units"; a property name is data like any other, whatever the implementation's language calls its own members (__proto__, toJSON, constructor, length)`
	clauseShape      = `RFC 8785 §3.2: "Whitespace between JSON tokens MUST NOT be emitted" (§3.2.1), literals are written null, true and false (§3.2.2.1), and "array element order MUST NOT be changed" (§3.2.3)`
	clauseTop        = `RFC 8259 §2: "JSON-text = ws value ws", so whitespace may surround any value at the top level, a scalar too; RFC 8785 §3.2.1: "Whitespace between JSON tokens MUST NOT be emitted"`
	clauseOutput     = `RFC 8785 §3.2: the canonical text has no whitespace (§3.2.1), primitives serialized as ECMAScript does (§3.2.2), properties sorted by UTF-16 code units (§3.2.3), encoded in UTF-8 (§3.2.4)`
	clauseDepth      = `RFC 8259 §9: "An implementation may set limits on the maximum depth of nesting", and sets no number; nesting up to depth 64, System.Text.Json's default maximum and the lowest among mainstream parsers, must work`
	clauseDeep       = `RFC 8259 §9: "An implementation may set limits on the maximum depth of nesting", and sets no number; beyond depth 64 (System.Text.Json's default maximum, the lowest among mainstream parsers) a rejection conforms as well as the canonical text`
	clauseBig        = `RFC 8785 §3.1 requires the data to be I-JSON, and RFC 7493 §2.2: "An I-JSON sender cannot expect a receiver to treat an integer whose absolute value is greater than 9007199254740991 (i.e., that is outside the range [-(2**53)+1, (2**53)-1]) as an exact value", and messages "SHOULD NOT include numbers that express greater magnitude or precision than an IEEE 754 double precision number provides"; and RFC 8259 §9: "An implementation may set limits on the range and precision of numbers", which covers exact doubles of that magnitude too (2^68, 1e+23): a number of magnitude 2^53 or more may be refused, and the canonical text conforms as well`
	clauseNonchar    = `RFC 8785 §3.1 requires the data to be I-JSON, and RFC 7493 §2.1: strings "MUST NOT include code points that identify Surrogates or Noncharacters", while RFC 8785 §3.2.2.2 writes every other code point "as is" and its list of what I-JSON implies (§3.1) names only duplicates, Unicode and doubles: a noncharacter (U+FFFF, U+FDD0...) may be refused or written raw`
	clauseBOM        = `RFC 8259 §8.1: implementations "MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON text", and parsers "MAY ignore the presence of a byte order mark rather than treating it as an error": the canonical text of what follows it and a rejection both conform`
	clauseDupes      = `RFC 8785 §3.1: the data "MUST be adapted for I-JSON", so "JSON objects MUST NOT exhibit duplicate property names" (RFC 7493 §2.3): a constraint on the data, which an implementation that takes parsed values cannot check`
	clauseSurr       = `RFC 8785 §3.2.2.2: lone surrogates "MUST cause a compliant JCS implementation to terminate with an appropriate error"`
	clauseRange      = `RFC 8785 §3.2.2.3: "occurrences of NaN or Infinity MUST cause a compliant JCS implementation to terminate with an appropriate error"; a number beyond the double range reads as Infinity (§3.1: number data MUST be expressible as IEEE 754 doubles)`
	clauseNaN        = `RFC 8259 §6: "Numeric values that cannot be represented in the grammar below (such as Infinity and NaN) are not permitted", and a parser that reads them anyway holds a value that RFC 8785 §3.2.2.3 says "MUST cause a compliant JCS implementation to terminate with an appropriate error"`
	clauseGrammar    = `RFC 8259 §9: "A JSON parser MAY accept non-JSON forms or extensions", so accepting this text is no fault of a parser; but RFC 8785 §3.1 requires the data to be I-JSON, "a restricted profile of JSON" (RFC 7493), so a canonicaliser given text should refuse what is not JSON. Accepting it with the canonical text of a lenient reading that keeps its value is a warning; any other output changes the value, and fails as a must`
	clauseNaNDropped = `RFC 8259 §6: NaN and Infinity "are not permitted" in JSON text, and §9: "A JSON parser MAY accept non-JSON forms or extensions", so reading them is no fault of a parser. RFC 8785 §3.2.2.3's "occurrences of NaN or Infinity MUST cause a compliant JCS implementation to terminate with an appropriate error" is about the data to canonicalise, and this text, read with the last of each duplicate member name winning, holds none: each is the value of a name a later member repeats. Its faults are text that is not JSON and duplicate names, both of which should be rejected (RFC 8785 §3.1: the data MUST be I-JSON, where names MUST NOT repeat, RFC 7493 §2.3); as for 1e400 in the same place, the canonical text of that reading is a warning, and any other output (one that keeps a NaN or the first of a duplicate) fails as a must`
	clauseNoValue    = `RFC 8259 §9 lets a parser accept "non-JSON forms or extensions", but this text has no reading that keeps a value (a truncated text, values run together, a broken token or escape): any output invents or changes one, so RFC 8785 has nothing to canonicalise and the text must be rejected`
	clauseUTF8       = `RFC 8259 §8.1: JSON text exchanged between systems "MUST be encoded using UTF-8", and RFC 7493 §2.1 (I-JSON, which RFC 8785 §3.1 requires): "I-JSON messages MUST be encoded using UTF-8". Bytes that are not UTF-8 spell no Unicode string, so any output invents characters (U+FFFD, or what an overlong form pretends to be) and the input must be rejected`
)

// The reasons a failed check gives.
const (
	reasonDuplicates = "accepted duplicate member names, which should be rejected: RFC 8785 §3.1 states their absence as a constraint on the data (I-JSON, RFC 7493 §2.3), so an implementation that takes already-parsed values cannot see duplicates"
	reasonLenient    = "accepted text that is not RFC 8259 JSON, which should be rejected; its output is the canonical text of a lenient reading that keeps its value"
	reasonChanged    = "accepted text that is not RFC 8259 JSON and changed its value: no lenient reading of the text gives this output"
	reasonInvented   = "accepted text that is not RFC 8259 JSON and has no value to keep (truncated, run together or broken): the output invents one"
	reasonNotUTF8    = "accepted input that is not UTF-8: the output invents characters the bytes do not spell"
)

// droppedNonFinite reports whether input, which holds NaN or Infinity
// (text that is not JSON), has a relaxed reading in which none is left once
// the last of each duplicate member name wins: {"a":NaN,"a":1} reads as
// {"a":1}, as {"a":1e400,"a":1} does.
func droppedNonFinite(input []byte) bool {
	reading, err := relaxJSON(input)
	if err != nil {
		return false
	}
	_, err = canon.JCS.Canonicalize(reading, canon.ReadOptions{Duplicates: canon.LastWins})
	return err == nil
}

// kind is what a vector asks of an implementation, as its input shows it.
type kind int

const (
	wantOutput     kind = iota // the canonical text, nothing else (must)
	wantOutputMay              // the canonical text or a rejection (may)
	wantReject                 // a rejection (must)
	wantRejectDup              // a rejection (should: duplicate member names are its only fault)
	wantRejectText             // a rejection (should); a lenient reading's output is a warning, any other a must failure
)

// class is a vector's kind, level and clause, decided from its input.
type class struct {
	kind   kind
	level  check.Level
	clause string
	depth  int    // its nesting depth, when the input parses
	why    string // for a may check: what makes it one, for explain
	hex    bool   // the input is not UTF-8: it travels as value_hex
	// output is the one output of a may check whose input is not JSON (a
	// byte-order mark before a JSON text); nil otherwise.
	output []byte
}

// notJSON reports whether err from canon.Parse says the text is not RFC 8259
// JSON at all (as opposed to JSON that RFC 8785 cannot canonicalise).
func notJSON(err error) bool {
	return err != nil && !errors.Is(err, canon.ErrDuplicateKey) && !errors.Is(err, canon.ErrDepth)
}

// classify decides what a vector demands from its input alone, whatever it
// is named. group is the vector's first name segment, which picks the
// clause of a must output; lenient are the canonical texts of the lenient
// readings of an input that is not JSON.
//
// For a rejection: an input that is not UTF-8 is a must (it travels as
// value_hex); text that is not JSON is a should when it has lenient
// readings and a must when it has none, or holds NaN or Infinity that no
// duplicate name drops (droppedNonFinite); a byte
// order mark before a JSON text is a may; JSON whose only fault is a
// duplicate member name is a should; anything else (lone surrogates,
// numbers beyond double range) a must.
//
// For an output: nesting deeper than MustDepth, a number of magnitude 2^53
// or more and a noncharacter each make it a may; all else is a must.
func classify(group string, input []byte, reject bool, lenient [][]byte) class {
	return classifyReading(group, input, readJSON(input), reject, lenient)
}

// classifyReading is classify given input's reading (readJSON).
func classifyReading(group string, input []byte, r reading, reject bool, lenient [][]byte) class {
	c := classOf(group, input, r, reject, lenient)
	c.level = levelOf(c.kind)
	c.why = whyOf(c.clause, c.depth)
	return c
}

// levelOf is the level of a check of kind k.
func levelOf(k kind) check.Level {
	switch k {
	case wantOutputMay:
		return check.May
	case wantRejectDup, wantRejectText:
		return check.Should
	}
	return check.Must
}

// whyOf says, for explain, what makes a vector with clause and depth a may
// check; "" for any other.
func whyOf(clause string, depth int) string {
	switch clause {
	case clauseBOM:
		return "the text starts with a byte order mark"
	case clauseDeep:
		return "the input nests " + strconv.Itoa(depth) + " deep, beyond the " + strconv.Itoa(MustDepth) + " that must work"
	case clauseBig:
		return "the input holds a number of magnitude 2^53 or more (I-JSON, RFC 7493 §2.2)"
	case clauseNonchar:
		return "the input holds a noncharacter (I-JSON, RFC 7493 §2.1)"
	}
	return ""
}

// classOf decides a vector's kind and clause (classify); its level and why
// follow from them.
func classOf(group string, input []byte, r reading, reject bool, lenient [][]byte) class {
	v, perr := r.v, r.err
	c := class{kind: wantOutput, hex: !utf8.Valid(input)}
	if perr == nil {
		c.depth = Depth(v)
	}
	if reject {
		c.kind = wantReject
		switch {
		case c.hex:
			c.clause = clauseUTF8
			return c
		case bytes.HasPrefix(input, []byte("\uFEFF")) && len(lenient) == 1:
			if _, err := canon.Parse(input[len("\uFEFF"):], canon.ReadOptions{Duplicates: canon.LastWins}); err == nil {
				c.kind, c.clause, c.output = wantOutputMay, clauseBOM, lenient[0]
				return c
			}
		}
		if perr != nil {
			switch {
			case errors.Is(perr, canon.ErrNonFinite) && len(lenient) > 0 && droppedNonFinite(input):
				c.kind, c.clause = wantRejectText, clauseNaNDropped
			case errors.Is(perr, canon.ErrNonFinite):
				c.clause = clauseNaN
			case len(lenient) > 0:
				c.kind, c.clause = wantRejectText, clauseGrammar
			default:
				c.clause = clauseNoValue
			}
			return c
		}
		_, werr := canon.JCS.Append(nil, v)
		switch {
		case werr == nil && errors.Is(r.strict, canon.ErrDuplicateKey):
			c.kind, c.clause = wantRejectDup, clauseDupes
		case errors.Is(werr, canon.ErrLoneSurrogate):
			c.clause = clauseSurr
		case errors.Is(werr, canon.ErrNumberRange), errors.Is(werr, canon.ErrNonFinite):
			c.clause = clauseRange
		}
		return c
	}
	if perr == nil {
		big, nonchar := scan(v)
		switch {
		case c.depth > MustDepth:
			c.kind, c.clause = wantOutputMay, clauseDeep
			return c
		case big:
			c.kind, c.clause = wantOutputMay, clauseBig
			return c
		case nonchar:
			c.kind, c.clause = wantOutputMay, clauseNonchar
			return c
		}
	}
	switch group {
	case "numbers", "appendix-b":
		c.clause = clauseNumbers
	case "strings":
		c.clause = clauseStrings
	case "keys":
		c.clause = clauseKeys
	case "names":
		c.clause = clauseNames
	case "structure":
		c.clause = clauseShape
	case "top-level":
		c.clause = clauseTop
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
