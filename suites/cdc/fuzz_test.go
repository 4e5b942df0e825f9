package cdc

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

var fuzzTool = report.Tool{Name: "referee", Version: "test"}

// fuzzCount bounds the inputs within which seed 1 must find each broken
// mode of canonicalise and narrow.
const fuzzCount = 300

// TestFuzzFindsEveryMode fuzzes each broken mode the targets can show from
// seed 1 within fuzzCount inputs, requires a finding, and replays the
// corpus written through the run pipeline, as `referee run cdc --corpus
// DIR` does: the mode must fail a check of it and the reference pass them
// all.
func TestFuzzFindsEveryMode(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, mode := range FuzzModes {
		t.Run(mode, func(t *testing.T) {
			out := t.TempDir()
			s, err := fuzz.Campaign(t.Context(), &Definition, []fuzz.Impl{{Spec: check.Spec{Mode: mode}}}, fuzz.Options{
				Seed: 1, Count: fuzzCount, Out: out, Tool: fuzzTool, StopAfter: 1, ShrinkBudget: 200,
			})
			if err != nil {
				t.Fatal(err)
			}
			if s.RefusedByReference > 0 {
				t.Errorf("the reference failed %d of its own vectors: %v", s.RefusedByReference, s.ReferenceBugs)
			}
			if len(s.Findings) == 0 {
				t.Fatalf("not found in %d inputs (%+v)", s.Inputs, s.Impls[0])
			}
			f := s.Findings[0]
			t.Logf("found at input %d: %s: %s", f.Index, f.Check, check.Clip(string(f.Input)))
			for _, m := range []string{mode, ""} {
				plan, err := run.Prepare(&Definition, check.Spec{Mode: m}, run.Options{Corpus: out, Tool: fuzzTool})
				if err != nil {
					t.Fatalf("replaying %s: %v", out, err)
				}
				res := plan.Execute(t.Context())
				n := res.Report.Counts
				switch {
				case !res.Report.Complete:
					t.Errorf("the replay against mode %q did not complete", m)
				case m == "" && (res.ExitCode() != report.ExitOK || n.Pass != len(res.Execution.Results)):
					t.Errorf("the reference does not pass the corpus written: exit %d, %+v", res.ExitCode(), n)
				case m != "" && n.Fail == 0:
					t.Errorf("mode %s passes the corpus written: %+v", m, n)
				}
			}
		})
	}
}

// TestFuzzModes: the fuzzable modes are broken modes of the suite.
func TestFuzzModes(t *testing.T) {
	for _, m := range FuzzModes {
		if !slices.ContainsFunc(Modes, func(x Mode) bool { return x.Name == m }) {
			t.Errorf("FuzzModes names %q, which is no mode", m)
		}
	}
}

// TestFuzzHonest: the reference fuzzed against itself diverges nowhere,
// refuses none of its own vectors, and judges inputs of both targets.
func TestFuzzHonest(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s, err := fuzz.Campaign(t.Context(), &Definition, []fuzz.Impl{{Spec: check.Spec{}}}, fuzz.Options{Seed: 2, Count: 400, Tool: fuzzTool})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Findings) != 0 || s.RefusedByReference != 0 || s.ExitCode() != report.ExitOK {
		t.Errorf("%d findings, %d refused by the reference (%v), exit %d", len(s.Findings), s.RefusedByReference, s.ReferenceBugs, s.ExitCode())
	}
	for _, ts := range s.Targets {
		if ts.Judged < ts.Inputs/4 {
			t.Errorf("target %s: %d of %d inputs judged", ts.Name, ts.Judged, ts.Inputs)
		}
	}
}

// TestWellFormedManifest: the narrowing generator's pairs keep schema set
// 1.2's rules, and a shrunk manifest that breaks one is no vector.
func TestWellFormedManifest(t *testing.T) {
	r := fuzzRand(3)
	for i := range 200 {
		var pair struct{ Declared, Parent json.RawMessage }
		if err := json.Unmarshal(fuzzNarrowPair(r), &pair); err != nil {
			t.Fatal(err)
		}
		for _, m := range []json.RawMessage{pair.Declared, pair.Parent} {
			v, err := canon.Parse(m, canon.ReadOptions{})
			if err != nil || !wellFormedManifest(v) {
				t.Fatalf("pair %d: %s is not well formed (%v)", i, m, err)
			}
		}
	}
	good := `{"schema_version":"1.0","agent":{"name":"w","kind":"native","runtime_agent":"cdf-native"},"intent":{"purpose":"p"},` +
		`"allow":{"tools":["t"],"read_paths":["src/**"],"write_paths":[],"hosts":["*.example.com"],"commands":["git"]},` +
		`"deny":{"commands":[],"paths":["~/.ssh/**"],"hosts":[]},"budget":{"depth":2,"cost_usd":2.5},"approvals":[]}`
	for _, tt := range []struct {
		name, from, to string
		want           bool
	}{
		{"as generated", "", "", true},
		{"no approvals", `,"approvals":[]`, ``, false},
		{"an escaping allow path", `"src/**"`, `"../x"`, false},
		{"a home-relative allow path", `"src/**"`, `"~/x"`, false},
		{"a deny path with ..", `"~/.ssh/**"`, `"a/../b"`, false},
		{"an upper-case host", `"*.example.com"`, `"API.example.com"`, false},
		{"a tool *", `["t"]`, `["*"]`, false},
		{"an empty purpose", `"purpose":"p"`, `"purpose":""`, false},
		{"a fractional depth", `"depth":2`, `"depth":2.5`, false},
		{"depth above 16", `"depth":2`, `"depth":17`, false},
		{"an unknown kind", `"native"`, `"robot"`, false},
		// Lengths in code points, as the schema's maxLength counts them: a
		// lone surrogate escape is one, not the three bytes it is held in.
		{"a name of 120 lone surrogates", `"name":"w"`, `"name":"` + strings.Repeat(`\ud800`, 120) + `"`, true},
		{"a name of 121 lone surrogates", `"name":"w"`, `"name":"` + strings.Repeat(`\ud800`, 121) + `"`, false},
		{"a purpose of 500 lone surrogates", `"purpose":"p"`, `"purpose":"` + strings.Repeat(`\udc00`, 500) + `"`, true},
		{"a purpose of 501 characters", `"purpose":"p"`, `"purpose":"` + strings.Repeat("é", 501) + `"`, false},
	} {
		text := good
		if tt.from != "" || tt.to != "" {
			text = strings.Replace(good, tt.from, tt.to, 1)
		}
		v, err := canon.Parse([]byte(text), canon.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := wellFormedManifest(v); got != tt.want {
			t.Errorf("%s: well formed %v, want %v", tt.name, got, tt.want)
		}
	}
}

// fuzzRand is a generator from a fixed seed.
func fuzzRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// TestGeneratedManifestsValidate holds the narrowing generator to the 1.2
// schemas themselves, not only to wellFormedManifest's copy of their rules.
func TestGeneratedManifestsValidate(t *testing.T) {
	v, err := readDir(t, sharedCorpus(t)).validator()
	if err != nil {
		t.Fatal(err)
	}
	r := fuzzRand(3)
	for i := range 200 {
		var pair struct{ Declared, Parent json.RawMessage }
		if err := json.Unmarshal(fuzzNarrowPair(r), &pair); err != nil {
			t.Fatal(err)
		}
		for _, m := range []json.RawMessage{pair.Declared, pair.Parent} {
			val, err := canon.Parse(m, canon.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ok, errs, err := v.Validate("agent-lease-manifest", val); err != nil || !ok {
				t.Fatalf("pair %d: %s breaks the 1.2 schema: %v %v", i, m, errs, err)
			}
		}
	}
}
