package cli

import (
	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/suites/crosslink"
	"github.com/refereehq/referee/suites/jcs"
)

// suiteDef is what the CLI needs to know about one suite.
type suiteDef struct {
	name    string
	short   string
	long    string
	example string
	// load builds the suite from the corpus in dir, or from its embedded
	// corpus when dir is "".
	load func(dir string) (*check.Suite, error)
	// reference returns the built-in adapter, honest (mode "") or broken.
	reference func(mode string) (adapter.Handler, error)
	modes     []modeInfo
	// native renders the suite's own report shape; nil if it has none.
	native func(run *check.Run) any
}

type modeInfo struct{ name, doc string }

func suiteDefs() []*suiteDef {
	return []*suiteDef{crosslinkDef(), jcsDef()}
}

func findSuite(name string) *suiteDef {
	for _, s := range suiteDefs() {
		if s.name == name {
			return s
		}
	}
	return nil
}

func jcsDef() *suiteDef {
	modes := make([]modeInfo, len(jcs.Modes))
	for i, m := range jcs.Modes {
		modes[i] = modeInfo{m.Name, m.Doc}
	}
	return &suiteDef{
		name:  jcs.Name,
		short: "RFC 8785 JSON Canonicalization Scheme, for any JCS library",
		long: `The jcs suite sends each vector's input as JSON text to the adapter's
canonicalJson op and compares the canonical text it returns with the
expected bytes: ECMAScript number formatting across every boundary, UTF-16
key order, every escaping class, deep nesting, and the rejections I-JSON
requires (duplicate keys, lone surrogates, numbers beyond double range).

With --corpus DIR it runs a directory in the RFC 8785 test-data layout
(input/ with output/ or outhex/) instead of the embedded vectors.`,
		example: `  referee run jcs
  referee run jcs -- node examples/adapters/node/jcs.mjs
  referee run jcs --corpus ../shared/corpora/jcs -- python3 examples/adapters/python/jcs.py
  referee run jcs --mode codepoint-order --run 'jcs/keys/**'`,
		load: func(dir string) (*check.Suite, error) {
			c, err := openCorpus(dir, jcs.Embedded)
			if err != nil {
				return nil, err
			}
			return jcs.Load(c)
		},
		reference: func(mode string) (adapter.Handler, error) {
			h, err := jcs.Reference(mode)
			if err != nil {
				return nil, err
			}
			return h, nil
		},
		modes: modes,
	}
}

func openCorpus(dir string, embedded func() (*corpus.Corpus, error)) (*corpus.Corpus, error) {
	if dir == "" {
		return embedded()
	}
	return corpus.OpenDir(dir)
}

func crosslinkDef() *suiteDef {
	modes := make([]modeInfo, len(crosslink.Modes))
	for i, m := range crosslink.Modes {
		modes[i] = modeInfo{m.Name, m.Doc}
	}
	return &suiteDef{
		name:  crosslink.Name,
		short: "Crosslink v1: canonicalJson, length-prefixed frames, decodeMessage and its error codes",
		long: `The crosslink suite checks a Crosslink v1 implementation byte for byte:
each positive case three ways (canonicalJson of the message, encodeFrame of
it, and decodeMessage of its canonical payload canonicalised again), each
negative payload for its stable error code, and referee's own decode and
frame-size cases.

Without --corpus it runs referee's embedded corpus; --corpus DIR runs a
corpus in the upstream layout (messages-v1.json and invalid-v1.json, e.g.
../shared/corpora/crosslink). --format native prints upstream's report,
{passed, failed, failures}.`,
		example: `  referee run crosslink
  referee run crosslink -- node examples/adapters/node/crosslink.mjs
  referee run crosslink --corpus ../shared/corpora/crosslink --format native -- python3 examples/adapters/python/crosslink.py
  referee run crosslink --mode codepoint-order --run 'crosslink/cases/keys-*'`,
		load: func(dir string) (*check.Suite, error) {
			c, err := openCorpus(dir, crosslink.Embedded)
			if err != nil {
				return nil, err
			}
			return crosslink.Load(c)
		},
		reference: func(mode string) (adapter.Handler, error) {
			h, err := crosslink.Reference(mode)
			if err != nil {
				return nil, err
			}
			return h, nil
		},
		modes:  modes,
		native: func(run *check.Run) any { return crosslink.Native(run) },
	}
}
