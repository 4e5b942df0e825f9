package crosslink

import "github.com/refereehq/referee/check"

// Definition declares the crosslink suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "Crosslink v1: canonicalJson, length-prefixed frames, decodeMessage and its error codes",
	Help: `The crosslink suite checks a Crosslink v1 implementation byte for byte:
each positive case three ways (canonicalJson of the message, encodeFrame of
it, and decodeMessage of its canonical payload canonicalised again), each
negative payload for its stable error code, referee's own decode and
frame-size cases, and values canonicalJson and encodeFrame must refuse (a
number beyond double range, such as 1e400). Each message travels twice, as
value and as value_text (its exact text, lexemes and escapes kept), so an
implementation whose JSON reader loses a lone surrogate or a number's
lexeme can read the text.

Without --corpus it runs referee's embedded corpus; --corpus DIR runs a
corpus in the upstream layout (messages-v1.json and invalid-v1.json, with
referee's decode-v1.json, limits-v1.json and refuse-v1.json when present, e.g.
../shared/corpora/crosslink). --format native prints upstream's report,
{passed, failed, failures}.`,
	Examples: []string{
		"referee run crosslink",
		"referee run crosslink -- node examples/adapters/node/crosslink.mjs",
		"referee run crosslink --corpus ../shared/corpora/crosslink --format native -- python3 examples/adapters/python/crosslink.py",
		"referee run crosslink --mode codepoint-order --run 'crosslink/cases/keys-*'",
	},
	Modes:    func() []check.Mode { return modes },
	Corpus:   "a directory in the upstream layout: messages-v1.json and invalid-v1.json, and referee's decode-v1.json, limits-v1.json and refuse-v1.json when present (e.g. ../shared/corpora/crosslink)",
	Embedded: "referee's corpus (suites/crosslink/corpus): upstream's cases and more, every message kind, decode and frame-size cases, values to refuse",
	Load:     load,
	Ops:      ops,
	Fuzz:     &fuzzSpec,
}
