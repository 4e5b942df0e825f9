package jcs

import "github.com/refereehq/referee/check"

// Definition declares the jcs suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "RFC 8785 JSON Canonicalization Scheme, for any JCS library",
	Help: `The jcs suite sends each vector's input as JSON text to the adapter's
canonicalJson op and compares the canonical text it returns with the
expected bytes: ECMAScript number formatting across every boundary and every
value of RFC 8785 Appendix B, UTF-16 key order (member names a host language
answers itself too), every escaping class, top-level scalars, nesting and
scale, and the rejections: lone surrogates in every shape, NaN, Infinity and
numbers beyond double range, text that is not RFC 8259 JSON, and input that
is not UTF-8, which travels as hex to canonicalJsonBytes (an adapter that
cannot take bytes leaves those checks not-checked).

Levels: nesting up to depth 64 must work; deeper nesting, numbers of
magnitude 2^53 or more (I-JSON, RFC 7493 §2.2) and noncharacters may be
refused, so there the canonical text and a rejection both pass and only a
wrong text fails. Accepting duplicate names is a warning (RFC 8785 §3.1
constrains the data), and so is accepting text that is not JSON with the
output of a reading that keeps its value (RFC 8259 §9 lets a parser accept
extensions); any other output for it changes the value and fails as a must,
and text with no value to keep (truncated, run together) must be rejected.
The level of each check follows from its input, in the embedded vectors and
in a --corpus directory alike.

With --corpus DIR it runs a directory with a vectors.json in referee's
format, or one in the RFC 8785 test-data layout (input/ with output/ or
outhex/), instead of the embedded vectors.`,
	Examples: []string{
		"referee run jcs",
		"referee run jcs -- node examples/adapters/node/jcs.mjs",
		"referee run jcs --corpus ../shared/corpora/jcs -- python3 examples/adapters/python/jcs.py",
		"referee run jcs --mode codepoint-order --run 'jcs/keys/**'",
	},
	Modes:    func() []check.Mode { return modes },
	Corpus:   "a directory with a vectors.json (format referee-jcs/1), or in the RFC 8785 test-data layout: input/NAME.json with output/NAME.json or outhex/NAME.txt beside it (e.g. ../shared/corpora/jcs)",
	Embedded: "referee's vectors (suites/jcs/corpus/vectors.json): numbers, RFC 8785 Appendix B, strings, keys, host-language member names, surrogates, structure, top-level scalars, nesting, scale, grammar rejections and input that is not UTF-8, with outputs made by Node.js",
	Load:     load,
	Ops:      ops,
	Fuzz:     &fuzzSpec,
}
