package fablepool

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/atomicfile"
	"github.com/refereehq/referee/internal/regularfile"
)

// The suite's own flags.
const (
	FlagRecord     = "record"
	FlagRecorded   = "recorded"
	FlagResults    = "results"
	FlagWycheproof = "wycheproof"
)

// Definition declares the fablepool suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "FablePool fablepool-draft-1: canonical JSON, Ed25519, signed operations under mutation, recorded ground truth",
	Help: `The fablepool suite checks an implementation of the FablePool profile
fablepool-draft-1 through six ops (canonicalize, public_key, sign, verify,
sign_op, verify_op): canonical JSON by code point with integers only, Ed25519
key derivation, deterministic signing and strict verification, and signed
operation envelopes that the implementation signs, the runner attacks with
scripted mutations, and the implementation must then accept or reject with
the expected code. sign_op and verify_op send the body and the op as JSON
and, beside them, as body_text and op_text, their exact bytes, since a
verdict turns on lexemes (1.0 is not 1) and duplicates that a host JSON
parser loses. The recorded/ checks compare the live canonical digests,
public keys, signatures and signed ops with the ground truth in recorded.json.

Without --corpus it runs referee's embedded corpus. --corpus DIR reads
canonicalization.json, signing.json and op_scenarios.json (or their draft-
names, as in ../shared/corpora/fablepool), and recorded.json when present.
--recorded FILE compares with the ground truth in FILE instead; --record FILE
writes the implementation's own outputs in that format, after a complete run
of every check only; --wycheproof FILE adds one check per Wycheproof Ed25519
verification test; --results DIR writes the native report.json into DIR.`,
	Examples: []string{
		"referee run fablepool",
		"referee run fablepool -- node examples/adapters/node/fablepool.mjs",
		"referee run fablepool --corpus ../shared/corpora/fablepool",
		"referee run fablepool --wycheproof ../shared/corpora/ed25519/wycheproof_ed25519_test.json --results out",
		"referee run fablepool --record recorded.json -- node examples/adapters/node/fablepool.mjs",
		"referee run fablepool --mode prev-order-ignored --run fablepool/op_scenarios",
	},
	Flags: []check.Flag{
		{Name: FlagRecord, Kind: check.FlagString, Usage: "write the implementation's outputs as recorded.json to `FILE` (a complete run of every check only)", Output: true},
		{Name: FlagRecorded, Kind: check.FlagString, Usage: "compare live outputs with the ground truth in `FILE` instead of the corpus's", Repro: true},
		{Name: FlagResults, Kind: check.FlagString, Usage: "write the native report.json into `DIR`", Output: true},
		{Name: FlagWycheproof, Kind: check.FlagString, Usage: "also run the Wycheproof Ed25519 verify tests in `FILE`", Repro: true},
	},
	Modes: func() []check.Mode {
		return check.ModesOf(Modes, func(m *Mode) (string, string) { return m.Name, m.Doc })
	},
	Corpus:   "a directory holding canonicalization.json, signing.json and op_scenarios.json (each also read under a draft- name), and recorded.json when present, e.g. ../shared/corpora/fablepool",
	Embedded: "referee's FablePool vectors: every vector and scenario of the independent draft under the same name, referee's own, and their recorded.json",
	Load:     load,
	Ops:      ops,
	Fuzz:     &fuzzSpec,
}

// load builds the suite: the corpus (the embedded one, or o.Corpus), the
// ground truth to compare with, the Wycheproof checks, and, with --record,
// a recorder that only this call's checks and After share.
func load(o check.LoadOptions) (*check.Loaded, error) {
	c, err := o.OpenCorpus(Embedded)
	if err != nil {
		return nil, err
	}
	cp, err := readCorpus(c)
	if err != nil {
		return nil, err
	}
	truth := cp.Recorded
	if path := o.Flags.String(FlagRecorded); path != "" {
		if truth, err = readRecorded(path, o.MaxFileSize); err != nil {
			return nil, err
		}
	}
	var rec *recorder
	record, results := o.Flags.String(FlagRecord), o.Flags.String(FlagResults)
	if record != "" {
		rec = newRecorder()
	}
	checks := cp.checks(truth, rec)
	if path := o.Flags.String(FlagWycheproof); path != "" {
		w, err := wycheproofChecks(path, o.MaxFileSize)
		if err != nil {
			return nil, &check.UsageError{Err: err}
		}
		checks = append(checks, w...)
	}
	return &check.Loaded{
		Suite:     &check.Suite{Name: Name, Version: Version, Corpus: c.Name, CorpusDigest: c.Digest, Checks: checks},
		Reference: check.ReferenceOf(Reference),
		Native:    func(run *check.Execution, _ check.Spec) any { return Native(run) },
		After: func(a check.AfterRun) error {
			return after(a, cp, rec, record, results)
		},
	}, nil
}

// readRecorded reads --recorded, a file of at most limit bytes: strict
// JSON in recorded.json's format.
func readRecorded(path string, limit int64) (*Recorded, error) {
	raw, err := regularfile.ReadFile(path, limit)
	if err != nil {
		return nil, &check.UsageError{Err: fmt.Errorf("--recorded: %w", err)}
	}
	truth := &Recorded{}
	if err := corpus.DecodeJSON(raw, truth); err != nil {
		return nil, &check.UsageError{Err: fmt.Errorf("--recorded %s: %w", path, err)}
	}
	if truth.Format != RecordedFormat {
		return nil, check.Usagef("--recorded %s: format %q, want %q", path, truth.Format, RecordedFormat)
	}
	return truth, nil
}

// after writes --results DIR/report.json and --record FILE. The recorded
// file is ground truth, so it comes only from a complete run of every check.
func after(a check.AfterRun, cp *corpusData, rec *recorder, record, results string) error {
	if results != "" {
		if err := os.MkdirAll(results, 0o755); err != nil {
			return &check.UsageError{Err: fmt.Errorf("--results: %w", err)}
		}
		if err := writeJSONFile(filepath.Join(results, "report.json"), Native(a.Execution)); err != nil {
			return &check.UsageError{Err: fmt.Errorf("--results: %w", err)}
		}
	}
	if record == "" {
		return nil
	}
	if !a.Execution.Complete || !a.Full {
		return check.Usagef("--record: not written: ground truth comes only from a complete run of every check (this run was %s)", map[bool]string{true: "a selection", false: "incomplete"}[a.Execution.Complete])
	}
	if err := writeJSONFile(record, rec.recorded(cp, a.Implementation)); err != nil {
		return &check.UsageError{Err: fmt.Errorf("--record: %w", err)}
	}
	return nil
}

// writeJSONFile writes v as indented JSON through a temporary file in the
// same directory, renamed into place: a failed write never leaves half a
// file, nor a stray temporary one.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}
