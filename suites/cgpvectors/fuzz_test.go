package cgpvectors

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/fuzz/fuzztest"
	"github.com/refereehq/referee/report"
)

// fuzzCount bounds the inputs within which seed 1 must find each broken
// mode.
const fuzzCount = 3000

var fuzzTool = report.Tool{Name: "referee", Version: "test"}

// TestEveryFuzzedModeIsFound fuzzes each broken mode from seed 1 within
// fuzzCount inputs, every target at once, and requires a finding; then it
// replays the corpus written through the run pipeline, as `referee run
// cgp-vectors --corpus DIR` does: the mode must fail a check of it, and the
// reference pass every one. Every mode is in the targets' reach:
// checkFrame's, the verifiers' and roundTripEnvelope's too.
func TestEveryFuzzedModeIsFound(t *testing.T) {
	for i := range Modes {
		m := &Modes[i]
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			s, err := fuzz.Campaign(t.Context(), &Definition, []fuzz.Impl{{Spec: check.Spec{Mode: m.Name}}}, fuzz.Options{
				Seed: 1, Count: fuzzCount, Out: out, Tool: fuzzTool, StopAfter: 1, ShrinkBudget: 300,
			})
			if err != nil {
				t.Fatal(err)
			}
			if s.RefusedByReference > 0 {
				t.Errorf("the reference failed %d of its own vectors: %v", s.RefusedByReference, s.ReferenceBugs)
			}
			if len(s.Findings) == 0 {
				t.Fatalf("not found in %d inputs", s.Inputs)
			}
			f := s.Findings[0]
			t.Logf("found at input %d: %s: %s: %s", f.Index, f.Check, f.Reason, f.Input)
			if want := map[bool]int{true: report.ExitFailed, false: report.ExitOK}[f.Blocking()]; s.ExitCode() != want {
				t.Errorf("exit code %d, want %d for a %s finding", s.ExitCode(), want, f.Level)
			}
			if n := fuzztest.Replay(t, &Definition, out, m.Name, fuzzTool); n.Fail+n.Warn == 0 {
				t.Errorf("mode %s passes the corpus written: %+v", m.Name, n)
			}
		})
	}
}

// TestHonestReferenceFindsNothing: the reference against itself, every
// target, no divergence and no vector it fails.
func TestHonestReferenceFindsNothing(t *testing.T) {
	t.Parallel()
	s, err := fuzz.Campaign(t.Context(), &Definition, []fuzz.Impl{{Spec: check.Spec{}}}, fuzz.Options{Seed: 2, Count: 1500, Tool: fuzzTool})
	if err != nil {
		t.Fatal(err)
	}
	if s.RefusedByReference > 0 || len(s.Findings) > 0 || s.ExitCode() != report.ExitOK {
		t.Errorf("%d refused by the reference (%v), %d findings", s.RefusedByReference, s.ReferenceBugs, len(s.Findings))
	}
	for _, ts := range s.Targets {
		if ts.Judged < ts.Inputs/2 {
			t.Errorf("target %s: %d of %d inputs judged", ts.Name, ts.Judged, ts.Inputs)
		}
	}
}

// TestFoundCorpusRules: a corpus of found vectors holds only its own kinds
// of file, at least one, and replays alone.
func TestFoundCorpusRules(t *testing.T) {
	t.Parallel()
	manifest := func(files map[string]string) string {
		m := map[string]any{"fuzz": map[string]string{"format": corpus.FuzzProvenanceFormat}}
		digests := map[string]string{}
		for name, text := range files {
			sum := sha256.Sum256([]byte(text))
			digests[name] = "sha256:" + hex.EncodeToString(sum[:])
		}
		m["files"] = digests
		b, _ := json.Marshal(m)
		return string(b)
	}
	const ops = `{"format":"referee-cgp-op-cases/1","cases":[{"name":"n","op":"merkleRoot","args":{"leaves":[]},"expected":"sha256:1d7896160c99d216069525861650366067ae242de9ee5e86730a36c80e57bcc2"}]}`
	const objectAnswer = `{"format":"referee-cgp-op-cases/1","cases":[{"name":"n","op":"merkleRoot","args":{"leaves":[]},"expected":{"root":"x"}}]}`
	const frames = `{"note":"n","cases":[{"name":"fuzz-1","rules":["F2","F3","P1"],"note":"n","frame":{"id":"","kind":"","title":"","score":0,"token_cost":0}}]}`
	const recordVerdict = `{"format":"referee-cgp-op-cases/1","cases":[{"name":"n","op":"verifyRecordAttestation","args":{},"expected":"valid"}]}`
	for _, tc := range []struct {
		name  string
		files map[string]string
		flags check.FlagValues
		want  string // in the error; "" loads
		id    string // the one check's ID, when it loads
	}{
		{"op cases", map[string]string{OpCasesFile: ops}, nil, "", "cgp-vectors/provenance/merkle-root/n"},
		{"frame rules", map[string]string{FrameRulesFile: frames}, nil, "", "cgp-vectors/frame-rules/fuzz-1"},
		{"frame rules the reference does not find", map[string]string{FrameRulesFile: strings.Replace(frames, `"F2",`, "", 1)}, nil, "the Go reference finds [F2, F3, P1]", ""},
		{"another file", map[string]string{OpCasesFile: ops, "notes.txt": "x"}, nil, "holds only", ""},
		{"a profile file of its own kind only", map[string]string{CitationFile: `{"missing":{}}`}, nil, "holds only", ""},
		{"unknown op", map[string]string{OpCasesFile: strings.Replace(ops, "merkleRoot", "checkFrame", 1)}, nil, "not one of the ops", ""},
		{"wrong kind of answer", map[string]string{OpCasesFile: objectAnswer}, nil, "expected is object", ""},
		{"a record verdict that is no verdict", map[string]string{OpCasesFile: recordVerdict}, nil, "expected is string", ""},
		{"with --vectors", map[string]string{OpCasesFile: ops}, check.FlagValues{FlagVectors: "x"}, "replays alone", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, corpus.ManifestName), []byte(manifest(tc.files)), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.flags != nil {
				if err := os.Mkdir(filepath.Join(dir, "x"), 0o755); err != nil {
					t.Fatal(err)
				}
				tc.flags[FlagVectors] = filepath.Join(dir, "x")
			}
			l, err := Definition.Load(check.LoadOptions{Corpus: dir, Flags: tc.flags})
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "" && (len(l.Suite.Checks) != 1 || l.Suite.Checks[0].ID != tc.id):
				t.Errorf("checks %v", l.Suite.Checks)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestEnvelopesSerdeRefusesAreNotJudged: an envelope that serde refuses
// makes no roundTripEnvelope vector, however the Go reference would write
// it. A lone surrogate was written as U+FFFD (encoding/json's reading) and
// failed the Node example, which keeps it: serde refuses the line.
func TestEnvelopesSerdeRefusesAreNotJudged(t *testing.T) {
	for _, line := range []string{
		`{"type":"error","message":"\ud800"}`,
		`{"type":"error","message":"m","future":{"x":"\udfff"}}`,
	} {
		if _, ok := envelopeVector("fuzz-000000000001", []byte(line)); ok {
			t.Errorf("%s: made a vector", line)
		}
	}
	if _, ok := envelopeVector("fuzz-000000000001", []byte(`{"type":"error","message":"\ud83d\ude00"}`)); !ok {
		t.Errorf("a pair of surrogates made no vector")
	}
}
