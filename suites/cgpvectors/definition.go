package cgpvectors

import (
	"errors"
	"fmt"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// FlagVectors names the flag that reads the vector files from a directory
// in upstream's repository layout: --vectors DIR.
const FlagVectors = "vectors"

// Definition declares the cgp-vectors suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "Context Graph fixture profile 1.1.0 and vectors: strict frames and queries, normalisation, RFC 8785, digests, frame rules, line ranges, record hashes and attestations, provenance attestation and Merkle proofs, reference envelopes",
	Help: `The cgp-vectors suite runs the Context Graph Protocol's golden fixture
profile against an implementation, through a referee-adapter/1 adapter: the
digest profile's strict parse of frames and queries (unknown_field with its
exact path), the materialisation of omitted arrays, RFC 8785 canonical text
and the sha256 digest, each stage its own check; the frame rules (F1–F6,
P1–P4, Q2, D1, G1, G2 and B3's honest token cost) over the profile's frames
and referee's frame-rules vectors; the record_hash of the 12 lifecycle
record fixtures and record attestations under the published test key; the
line-range grammar's vectors; the provenance attestation vectors (link
encoding, chain heads, frame commitments, RFC 6962 roots and inclusion
proofs, Ed25519 over the raw 32 bytes, a strict verifier's verdicts); and
the 13 reference envelopes, each re-serialised byte for byte. The ops are in
docs/suites/cgp-vectors.md.

Every check is a must, except that a verifier refuses small-order and
non-canonical Ed25519 keys: SPEC §6.5.4 makes that a should.

Without --corpus it runs referee's embedded profile; --corpus DIR runs a
profile directory in the upstream layout (e.g.
../shared/corpora/cgp/contextgraph-1.0), whose manifest must also pass the
fixture profile's rules and list exactly its seven files; a directory that
referee fuzz cgp-vectors --out wrote (a corpus of found vectors) replays
alone, without the vector files.

The vector files, whatever --corpus says, are referee's embedded copies of
upstream's; --vectors DIR reads them from DIR, in upstream's repository
layout (tests/fixtures/record-hash-vectors.json, record-attestation-key.json
and the records' <kind>.json; tests/vectors/range-vectors.json and
attestation-vectors.json; schema/reference-vectors.ndjson). A file DIR lacks
stays embedded, and the report's corpus says which came from where; a DIR
with none of them is a usage error.`,
	Examples: []string{
		"referee run cgp-vectors",
		"referee run cgp-vectors --corpus ../shared/corpora/cgp/contextgraph-1.0 -- node examples/adapters/node/cgp-vectors.mjs",
		"referee run cgp-vectors --vectors ../shared/corpora/cgp/_extra/head-00377ab",
		"referee run cgp-vectors --mode codepoint-order --run 'cgp-vectors/normalization/**'",
	},
	Flags: []check.Flag{{
		Name:  FlagVectors,
		Kind:  check.FlagString,
		Usage: "read the vector files from `DIR`, in upstream's repository layout, instead of the embedded copies",
		Repro: true,
	}},
	Modes: func() []check.Mode {
		return check.ModesOf(Modes, func(m *Mode) (string, string) { return m.Name, m.Doc })
	},
	Corpus:   "a Context Graph fixture profile directory in the upstream layout: manifest.json and the seven files of contextgraph-conformance's fixtures/contextgraph-1.0/ (e.g. ../shared/corpora/cgp/contextgraph-1.0); or a corpus of found vectors that referee fuzz cgp-vectors --out wrote",
	Embedded: "referee's own fixture profile 1.1.0 (upstream's cases and more), with the embedded copies of upstream's vector files",
	Load:     load,
	Ops:      ops,
	Fuzz:     &fuzzSpec,
	Manifest: manifest,
}

// load is Definition.Load: the profile in o.Corpus (the embedded one when
// it is ""), the vector files of --vectors DIR in place of the embedded
// copies, and the built-in adapter.
func load(o check.LoadOptions) (*check.Loaded, error) {
	if o.ReferenceOnly && o.Corpus == "" && o.FS == nil {
		// The built-in implementation reads no corpus. (A corpus named is
		// still read, and its problems reported, as before.)
		return &check.Loaded{Reference: check.ReferenceOf(Reference)}, nil
	}
	c, err := o.OpenCorpus(Embedded)
	if err != nil {
		return nil, err
	}
	var vectors *corpus.Corpus
	if dir := o.Flags.String(FlagVectors); dir != "" {
		if vectors, err = corpus.OpenDir(dir, o.MaxFileSize); err != nil {
			var ce *corpus.Error
			if errors.As(err, &ce) {
				// The directory is there, but does not agree with itself.
				return nil, fmt.Errorf("--%s: %w", FlagVectors, err)
			}
			return nil, check.Usagef("--%s: %w", FlagVectors, err)
		}
	}
	s, err := loadSuite(c, vectors)
	if err != nil {
		return nil, err
	}
	return &check.Loaded{
		Suite:     s,
		Reference: check.ReferenceOf(Reference),
	}, nil
}

// manifest is Definition.Manifest: a manifest with a protocol_version is
// a fixture profile's, whose members beside files must pass the profile's
// rules (cgp.CheckProfileManifest). about is "" for any other manifest.
func manifest(meta []canon.Member) (about string, problems []string) {
	if !cgp.IsProfileManifest(meta) {
		return "", nil
	}
	about = "a Context Graph fixture profile"
	for _, m := range meta {
		if m.Key == "protocol_version" && m.Value.Kind == canon.String {
			about += " for " + m.Value.Str
		}
	}
	return about, cgp.CheckProfileManifest(meta)
}
