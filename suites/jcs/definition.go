package jcs

import "github.com/refereehq/referee/check"

// Definition declares the jcs suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "RFC 8785 JSON Canonicalization Scheme, for any JCS library",
	Help: `The jcs suite sends each vector's input as JSON text to the adapter's
canonicalJson op and compares the canonical text it returns with the
expected bytes: ECMAScript number formatting across every boundary, UTF-16
key order, every escaping class, nesting, and the rejections of RFC 8785:
lone surrogates and numbers beyond double range must be rejected, duplicate
member names should be.

Levels: nesting up to depth 64 must work. Deeper nesting may be rejected
(RFC 8259 §9 lets a parser limit it), so there the canonical text and a
rejection both pass and only a wrong text fails. Accepting duplicate names
is a warning, not a failure: RFC 8785 §3.1 states their absence as a
constraint on the data. The level of each check follows from its input, in
the embedded vectors and in a --corpus directory alike.

With --corpus DIR it runs a directory with a vectors.json in referee's
format, or one in the RFC 8785 test-data layout (input/ with output/ or
outhex/), instead of the embedded vectors.`,
	Examples: []string{
		"referee run jcs",
		"referee run jcs -- node examples/adapters/node/jcs.mjs",
		"referee run jcs --corpus ../shared/corpora/jcs -- python3 examples/adapters/python/jcs.py",
		"referee run jcs --mode codepoint-order --run 'jcs/keys/**'",
	},
	Modes:    modes,
	Corpus:   "a directory with a vectors.json (format referee-jcs/1), or in the RFC 8785 test-data layout: input/NAME.json with output/NAME.json or outhex/NAME.txt beside it (e.g. ../shared/corpora/jcs)",
	Embedded: "referee's vectors (suites/jcs/corpus/vectors.json): numbers, strings, keys, structure, nesting and rejections, with outputs made by Node.js",
	Load:     load,
}
