package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites/cdc"
	"github.com/refereehq/referee/suites/cgpvectors"
	"github.com/refereehq/referee/suites/crosslink"
	"github.com/refereehq/referee/suites/fablepool"
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
	// flags, if set, adds the suite's own flags to `run SUITE`.
	flags func(f *pflag.FlagSet)
	// after, if set, runs when the run is over, to write the suite's files.
	// full says whether every check of the suite was selected.
	after func(run *check.Run, impl report.Implementation, full bool) error
	// adapterContext, if set, returns hello args and environment variables
	// an adapter of this suite needs (called after load).
	adapterContext func() (hello map[string]string, env []string)
	// reproArgs, if set, returns the suite's own flags a repro command must repeat.
	reproArgs func() []string
	// live, if set, runs the suite against a live implementation that speaks
	// its protocol itself (cgp) instead of referee-adapter/1.
	live func(ctx context.Context, e *env, o *runOptions, suite *check.Suite, checks []check.Check) error
}

type modeInfo struct{ name, doc string }

func suiteDefs() []*suiteDef {
	return []*suiteDef{cdcDef(), cgpDef(), cgpvectorsDef(), crosslinkDef(), fablepoolDef(), jcsDef()}
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

func fablepoolDef() *suiteDef {
	modes := make([]modeInfo, len(fablepool.Modes))
	for i, m := range fablepool.Modes {
		modes[i] = modeInfo{m.Name, m.Doc}
	}
	var record, recorded, results, wycheproof string
	var rec *fablepool.Recorder
	var cp *fablepool.Corpus
	return &suiteDef{
		name:  fablepool.Name,
		short: "FablePool fablepool-draft-1: canonical JSON, Ed25519, signed operations under mutation, recorded ground truth",
		long: `The fablepool suite checks an implementation of the FablePool profile
fablepool-draft-1: canonical JSON by code point with integers only, Ed25519
key derivation, signing and verification, signed operation envelopes that the
runner attacks with scripted mutations, and every live output against the
recorded ground truth (recorded.json).

--corpus DIR reads canonicalization.json, signing.json and op_scenarios.json
(or their draft- names, as in ../shared/corpora/fablepool) and recorded.json
when present; --recorded FILE compares with another ground truth; --record FILE
writes the implementation's own; --wycheproof FILE adds Wycheproof's Ed25519
verification vectors; --results DIR writes the native report.json there.`,
		example: `  referee run fablepool
  referee run fablepool -- node examples/adapters/node/fablepool.mjs
  referee run fablepool --wycheproof ../shared/corpora/ed25519/wycheproof_ed25519_test.json --results out
  referee run fablepool --record recorded.json -- node examples/adapters/node/fablepool.mjs`,
		flags: func(f *pflag.FlagSet) {
			f.StringVar(&record, "record", "", "write the implementation's outputs as recorded.json to `FILE`")
			f.StringVar(&recorded, "recorded", "", "compare live outputs with the ground truth in `FILE` instead of the corpus's")
			f.StringVar(&results, "results", "", "write the native report.json into `DIR`")
			f.StringVar(&wycheproof, "wycheproof", "", "also run the Wycheproof Ed25519 verify vectors in `FILE`")
		},
		load: func(dir string) (*check.Suite, error) {
			c, err := openCorpus(dir, fablepool.Embedded)
			if err != nil {
				return nil, err
			}
			if record != "" {
				rec = fablepool.NewRecorder()
			}
			s, corp, err := fablepool.Load(c, fablepool.Options{Recorded: recorded, Wycheproof: wycheproof, Recorder: rec})
			cp = corp
			return s, err
		},
		reference: func(mode string) (adapter.Handler, error) {
			h, err := fablepool.Reference(mode)
			if err != nil {
				return nil, err
			}
			return h, nil
		},
		modes:  modes,
		native: func(run *check.Run) any { return fablepool.Native(run) },
		reproArgs: func() []string {
			var args []string
			if recorded != "" {
				args = append(args, "--recorded", recorded)
			}
			if wycheproof != "" {
				args = append(args, "--wycheproof", wycheproof)
			}
			return args
		},
		after: func(run *check.Run, impl report.Implementation, full bool) error {
			if results != "" {
				if err := os.MkdirAll(results, 0o755); err != nil {
					return fmt.Errorf("--results: %w", err)
				}
				if err := writeJSONFile(filepath.Join(results, "report.json"), fablepool.Native(run)); err != nil {
					return fmt.Errorf("--results: %w", err)
				}
			}
			if record != "" && (!run.Complete || !full) {
				return fmt.Errorf("--record: not written: ground truth comes only from a complete run of every check (this run was %s)", map[bool]string{true: "a selection", false: "incomplete"}[run.Complete])
			}
			if record != "" && rec != nil && cp != nil {
				name := impl.Name
				if impl.Version != "" {
					name += " " + impl.Version
				}
				if err := writeJSONFile(record, rec.Recorded(cp, name)); err != nil {
					return fmt.Errorf("--record: %w", err)
				}
			}
			return nil
		},
	}
}

// writeJSONFile writes v as indented JSON, through a temporary file renamed
// into place, so a failed write never leaves half a file.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func cdcDef() *suiteDef {
	modes := make([]modeInfo, len(cdc.Modes))
	for i, m := range cdc.Modes {
		modes[i] = modeInfo{m.Name, m.Doc}
	}
	var cp *cdc.Corpus
	return &suiteDef{
		name:  cdc.Name,
		short: "Cognitive Delivery Contract: schemas, rejection paths, canonical bytes, narrowing, signatures, lease rules",
		long: `The cdc suite runs the Cognitive Delivery Contract's conformance corpus the
way its own runner does, in its seven steps, against an adapter offering the
contract's hooks as ops (validate, roundTrip, canonicalise, narrow, hash,
verify, rules). A hook the adapter does not offer gives the upstream runner's
NOT CHECKED line as the reason, never a pass.

--corpus DIR is required: a checkout of the contract, or its installed npm
package (npm install @cognitive-delivery/contract, then --corpus
node_modules/@cognitive-delivery/contract). Both the 1.0 and 1.2 layouts are
read. Adapters are told the corpus directory in the hello's args ("corpus") and
in the environment (CDC_CORPUS), to load the schemas. --format native prints
upstream's report.`,
		example: `  referee run cdc --corpus ../shared/corpora/cdc
  referee run cdc --corpus ../shared/corpora/cdc --format native -- node examples/adapters/node/cdc.mjs
  referee export jsts --corpus ../shared/corpora/cdc --out suite --check`,
		load: func(dir string) (*check.Suite, error) {
			if dir == "" {
				return nil, usageError("the cdc suite needs --corpus DIR: a checkout of the Cognitive Delivery Contract, or its npm package (npm install @cognitive-delivery/contract, then --corpus node_modules/@cognitive-delivery/contract)")
			}
			c, err := corpus.OpenDir(dir)
			if err != nil {
				return nil, err
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, err
			}
			s, corp, err := cdc.Load(c, abs)
			cp = corp
			return s, err
		},
		reference: func(mode string) (adapter.Handler, error) {
			h, err := cdc.Reference(cp, mode)
			if err != nil {
				return nil, err
			}
			return h, nil
		},
		modes:  modes,
		native: func(run *check.Run) any { return cp.Native(run) },
		adapterContext: func() (map[string]string, []string) {
			return map[string]string{"corpus": cp.Dir}, []string{"CDC_CORPUS=" + cp.Dir}
		},
	}
}

func cgpvectorsDef() *suiteDef {
	modes := make([]modeInfo, len(cgpvectors.Modes))
	for i, m := range cgpvectors.Modes {
		modes[i] = modeInfo{m.Name, m.Doc}
	}
	var vectors string
	return &suiteDef{
		name:  cgpvectors.Name,
		short: "Context Graph fixture profile 1.1.0 and vectors: strict frames and queries, normalisation, RFC 8785, digests, citation_label, line ranges, record hashes, provenance attestation and Merkle proofs, reference envelopes",
		long: `The cgp-vectors suite runs the Context Graph Protocol's golden fixture
profile against an implementation: the digest profile's strict parse of
frames and queries (unknown_field with its exact path), the materialisation
of omitted arrays, RFC 8785 canonical text and the sha256 digest, each stage
its own check, the frame rules (F1–F6, D1, P1–P4, G1, G2, B3) as vectors, the record_hash of
the 12 lifecycle record fixtures, record attestations under the published
test key, and the line-range grammar's vectors.

Without --corpus it runs referee's embedded profile; --corpus DIR runs a
profile directory in the upstream layout (e.g.
../shared/corpora/cgp/contextgraph-1.0), whose manifest must also pass the
fixture profile's rules. The provenance attestation vectors (link
encoding, chain heads, frame commitments, RFC 6962 roots and inclusion
proofs, Ed25519 over the raw 32 bytes, strict-verifier keys) and the 13
reference envelopes (each re-serialised byte for byte) are checked too.

These vector files, whatever --corpus says, are referee's embedded copies of
upstream's; --vectors DIR reads them from DIR, in upstream's repository
layout (tests/fixtures/record-hash-vectors.json, record-attestation-key.json
and the records' <kind>.json; tests/vectors/range-vectors.json and
attestation-vectors.json; schema/reference-vectors.ndjson). A file DIR lacks
stays embedded, and the report's corpus says which came from where; a DIR
with none of them is an error.`,
		example: `  referee run cgp-vectors
  referee run cgp-vectors --corpus ../shared/corpora/cgp/contextgraph-1.0 -- ./my-adapter
  referee run cgp-vectors --vectors ../shared/corpora/cgp/_extra/head-00377ab
  referee run cgp-vectors --mode codepoint-order --run 'cgp-vectors/normalization/**'`,
		flags: func(f *pflag.FlagSet) {
			f.StringVar(&vectors, "vectors", "", "read the vector files from `DIR`, in upstream's repository layout, instead of the embedded copies")
		},
		load: func(dir string) (*check.Suite, error) {
			c, err := openCorpus(dir, cgpvectors.Embedded)
			if err != nil {
				return nil, err
			}
			var o cgpvectors.Options
			if vectors != "" {
				if o.Vectors, err = corpus.OpenDir(vectors); err != nil {
					return nil, fmt.Errorf("--vectors: %w", err)
				}
			}
			return cgpvectors.LoadWith(c, o)
		},
		reference: func(mode string) (adapter.Handler, error) {
			h, err := cgpvectors.Reference(mode)
			if err != nil {
				return nil, err
			}
			return h, nil
		},
		modes: modes,
		reproArgs: func() []string {
			if vectors != "" {
				return []string{"--vectors", vectors}
			}
			return nil
		},
	}
}
