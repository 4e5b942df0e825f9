package fuzz_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/fuzz/fuzztest"
	childproc "github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/protocols/cgp/provider"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites"
	"github.com/refereehq/referee/suites/cgplive"
	"github.com/refereehq/referee/suites/crosslink"
	"github.com/refereehq/referee/suites/fablepool"
	"github.com/refereehq/referee/suites/jcs"
)

// childVar makes the test binary serve a suite's built-in implementation on
// stdio: "SUITE" or "SUITE:MODE".
const childVar = "REFEREE_FUZZ_CHILD"

func TestMain(m *testing.M) {
	// It stands in for referee as the cgp suite starts its built-in
	// provider: `<itself> serve cgp --docs DIR`.
	if a := os.Args[1:]; len(a) == 4 && a[0] == "serve" && a[1] == cgplive.Name && a[2] == "--docs" {
		p, err := provider.New(a[3], "")
		if err != nil {
			os.Exit(2)
		}
		if err := p.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	childproc.StandIn = true
	v := os.Getenv(childVar)
	if v == "" {
		os.Exit(m.Run())
	}
	name, mode, _ := strings.Cut(v, ":")
	def := suites.Find(name)
	if def == nil {
		os.Exit(2)
	}
	loaded, err := def.Load(check.LoadOptions{})
	if err != nil {
		os.Exit(2)
	}
	h, err := loaded.Reference(mode)
	if err != nil {
		os.Exit(2)
	}
	if err := adapter.Serve(context.Background(), h, os.Stdin, os.Stdout); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// child is this test binary serving suite's built-in implementation in
// mode over stdio.
func child(t testing.TB, suite, mode string) check.Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	v := suite
	if mode != "" {
		v += ":" + mode
	}
	return check.Spec{Argv: []string{exe}, Env: append(os.Environ(), childVar+"="+v)}
}

var tool = report.Tool{Name: "referee", Version: "test"}

// TestEveryBrokenModeIsFound fuzzes each broken mode of each fuzzable
// suite's built-in implementation from a fixed seed, within a fixed count,
// and requires a finding; then it replays the corpus written, through the
// run pipeline as `referee run SUITE --corpus DIR` does: the mode must fail
// a check of it, and the reference must pass every check.
func TestEveryBrokenModeIsFound(t *testing.T) {
	t.Parallel()
	fuzzable := 0
	for _, def := range suites.All() {
		if def.Fuzz == nil {
			continue
		}
		fuzzable++
		proof := def.Fuzz.Proof
		if proof.Elsewhere != "" {
			t.Logf("%s: its fuzzed modes are proved by %s (some of its modes are not in its fuzz targets' reach)", def.Name, proof.Elsewhere)
			continue
		}
		count := proof.Inputs
		if count <= 0 {
			t.Errorf("%s is fuzzable: its fuzz declaration gives the proof no Inputs and names no test Elsewhere", def.Name)
			continue
		}
		for _, m := range def.ModeList() {
			t.Run(def.Name+"/"+m.Name, func(t *testing.T) {
				t.Parallel()
				out := t.TempDir()
				s, err := fuzz.Campaign(t.Context(), def, []fuzz.Impl{{Spec: check.Spec{Mode: m.Name}}}, fuzz.Options{
					Seed: 1, Count: count, Out: out, Tool: tool, StopAfter: 1, ShrinkBudget: 300,
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
				t.Logf("found at input %d: %s %s: %q", f.Index, f.Check, f.Reason, f.Input)
				if want := map[bool]int{true: report.ExitFailed, false: report.ExitOK}[f.Blocking()]; s.ExitCode() != want {
					t.Errorf("exit code %d, want %d for %s", s.ExitCode(), want, f.Level)
				}
				if n := fuzztest.Replay(t, def, out, m.Name, tool); n.Fail+n.Warn == 0 {
					t.Errorf("mode %s passes the corpus written: %+v", m.Name, n)
				}
			})
		}
	}
	if fuzzable < 3 {
		t.Errorf("%d fuzzable suites, want jcs, crosslink and fablepool at least", fuzzable)
	}
}

// TestDeterministic: the same seed and count give the same inputs and the
// same findings; another seed other inputs.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	o := fuzz.Options{Seed: 7, Count: 400, Tool: tool}
	impl := []fuzz.Impl{{Spec: check.Spec{Mode: "go-float"}}}
	a, err := fuzz.Campaign(t.Context(), &jcs.Definition, impl, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fuzz.Campaign(t.Context(), &jcs.Definition, impl, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Seed = 8
	c, err := fuzz.Campaign(t.Context(), &jcs.Definition, impl, o)
	if err != nil {
		t.Fatal(err)
	}
	summary := func(s *fuzz.Summary) string {
		var parts []string
		for _, f := range s.Findings {
			parts = append(parts, f.Signature+" "+string(f.Input))
		}
		return strings.Join(parts, "\n")
	}
	if len(a.Findings) == 0 {
		t.Fatal("go-float: no finding in 400 inputs")
	}
	if summary(a) != summary(b) || a.Impls[0].Divergent != b.Impls[0].Divergent {
		t.Errorf("two runs of seed 7 differ:\n%s\n--\n%s", summary(a), summary(b))
	}
	if summary(a) == summary(c) {
		t.Errorf("seeds 7 and 8 found the same:\n%s", summary(a))
	}
}

// TestStopAfterEndsSoon: a run told to stop after its first finding ends
// with the batch that holds it, and the batches start small and double, so
// it has generated at most twice as many inputs as it needed, plus the
// first batch of 16.
func TestStopAfterEndsSoon(t *testing.T) {
	t.Parallel()
	s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Mode: "go-float"}}}, fuzz.Options{Seed: 1, Count: 3000, Tool: tool, StopAfter: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Findings) != 1 {
		t.Fatalf("%d findings in %d inputs, want 1", len(s.Findings), s.Inputs)
	}
	if i := int(s.Findings[0].Index); s.Inputs > 2*i+16 {
		t.Errorf("found at input %d, and %d inputs generated: more than %d", i, s.Inputs, 2*i+16)
	}
}

// TestGap: when every implementation gives the same wrong answer, the
// finding is a possible gap in the reference or the spec, not a
// divergence of theirs, and the run does not fail.
func TestGap(t *testing.T) {
	t.Parallel()
	impls := []fuzz.Impl{{Name: "a", Spec: check.Spec{Mode: "go-float"}}, {Name: "b", Spec: child(t, "jcs", "go-float")}}
	s, err := fuzz.Campaign(t.Context(), &jcs.Definition, impls, fuzz.Options{Seed: 1, Count: 300, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Gaps) == 0 {
		t.Fatalf("no gap found: %d findings", len(s.Findings))
	}
	if len(s.Findings) != 0 {
		t.Errorf("%d findings blame implementations that agree with each other: %s", len(s.Findings), s.Findings[0].Signature)
	}
	g := s.Gaps[0]
	if !slices.Equal(g.Impls, []string{"a", "b"}) || g.Expected == g.Actual {
		t.Errorf("gap %+v", g)
	}
	if s.ExitCode() != report.ExitOK {
		t.Errorf("exit code %d, want 0: a gap blames no implementation", s.ExitCode())
	}
}

// TestSeveralImplementations: with one honest and one broken
// implementation, the broken one's divergences are findings.
func TestSeveralImplementations(t *testing.T) {
	t.Parallel()
	impls := []fuzz.Impl{{Name: "honest", Spec: check.Spec{}}, {Name: "broken", Spec: check.Spec{Mode: "unsorted"}}}
	s, err := fuzz.Campaign(t.Context(), &crosslink.Definition, impls, fuzz.Options{Seed: 1, Count: 300, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Findings) == 0 || len(s.Gaps) != 0 {
		t.Fatalf("%d findings, %d gaps", len(s.Findings), len(s.Gaps))
	}
	for _, f := range s.Findings {
		if !slices.Equal(f.Impls, []string{"broken"}) {
			t.Errorf("finding blames %v", f.Impls)
		}
	}
	if s.Impls[0].Divergent != 0 || s.Impls[1].Divergent == 0 || s.ExitCode() != report.ExitFailed {
		t.Errorf("honest %d, broken %d divergent inputs, exit %d", s.Impls[0].Divergent, s.Impls[1].Divergent, s.ExitCode())
	}
}

// noOps is an adapter that offers nothing.
type noOps struct{}

func (noOps) Hello() adapter.Hello {
	return adapter.Hello{Name: "no-ops", Version: "0", Ops: []string{}}
}
func (noOps) Handle(context.Context, string, []byte) (json.RawMessage, *adapter.Error) {
	return nil, &adapter.Error{Code: "unknown_op"}
}

// TestCannotDrive: an implementation that cannot be started, or offers
// none of the ops, makes the run incomplete (exit 3).
func TestCannotDrive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec check.Spec
		want string
	}{
		{"not started", check.Spec{Argv: []string{filepath.Join(t.TempDir(), "no-such-adapter")}}, "could not be started"},
		{"no ops", check.Spec{Handler: noOps{}}, "offers none of the ops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: tc.spec}}, fuzz.Options{Seed: 1, Count: 50})
			if err != nil {
				t.Fatal(err)
			}
			if s.ExitCode() != report.ExitIncomplete || s.Impls[0].Err == nil || !strings.Contains(s.Impls[0].Err.Error(), tc.want) {
				t.Errorf("exit %d, error %v; want 3 and %q", s.ExitCode(), s.Impls[0].Err, tc.want)
			}
		})
	}
}

// TestOutDir: the corpus carries its provenance in a manifest that pins
// every file; a directory holding anything else is refused, and one an
// earlier run wrote is replaced.
func TestOutDir(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	o := fuzz.Options{Seed: 3, Count: 300, Out: out, Tool: tool, StopAfter: 2}
	s, err := fuzz.Campaign(t.Context(), &crosslink.Definition, []fuzz.Impl{{Spec: check.Spec{Mode: "html-escape"}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Written) == 0 {
		t.Fatal("nothing written")
	}
	c, err := corpus.OpenDir(out, corpus.DefaultMaxFileSize)
	if err != nil {
		t.Fatalf("the corpus does not verify: %v", err)
	}
	var prov fuzz.Provenance
	for _, m := range c.Manifest.Meta {
		if m.Key == "fuzz" {
			if err := json.Unmarshal([]byte(m.Value.String()), &prov); err != nil {
				t.Fatal(err)
			}
		}
	}
	if prov.Format != corpus.FuzzProvenanceFormat || prov.Seed != "3" || prov.Suite != "crosslink" || prov.Referee != "referee test" ||
		len(prov.Implementations) != 1 || prov.Implementations[0].Hello != "referee-crosslink+html-escape" || prov.Implementations[0].Version == "" ||
		len(prov.Vectors) != len(s.Findings) || prov.Vectors[0].Signature == "" {
		t.Errorf("provenance %+v", prov)
	}

	// Again into the same directory: the earlier corpus is replaced.
	o.Seed = 4
	if _, err := fuzz.Campaign(t.Context(), &crosslink.Definition, []fuzz.Impl{{Spec: check.Spec{Mode: "html-escape"}}}, o); err != nil {
		t.Fatalf("a second run into %s: %v", out, err)
	}
	if _, err := corpus.OpenDir(out, corpus.DefaultMaxFileSize); err != nil {
		t.Errorf("after the second run the corpus does not verify: %v", err)
	}

	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = fuzz.Campaign(t.Context(), &crosslink.Definition, []fuzz.Impl{{Spec: check.Spec{Mode: "html-escape"}}}, fuzz.Options{Seed: 1, Count: 10, Out: foreign})
	var ue *check.UsageError
	if err == nil || !strings.Contains(err.Error(), "referee fuzz did not write") || !errors.As(err, &ue) {
		t.Errorf("writing into a directory of other files: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "notes.txt")); string(b) != "mine" {
		t.Errorf("the other files were touched")
	}
}

// TestStdio fuzzes an adapter over stdio and replays the corpus against
// the same program.
func TestStdio(t *testing.T) {
	t.Parallel()
	spec := child(t, "fablepool", "uppercase-hex")
	out := t.TempDir()
	s, err := fuzz.Campaign(t.Context(), &fablepool.Definition, []fuzz.Impl{{Spec: spec}}, fuzz.Options{Seed: 1, Count: 500, Out: out, Tool: tool, StopAfter: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Findings) == 0 || s.ExitCode() != report.ExitFailed {
		t.Fatalf("%d findings, exit %d", len(s.Findings), s.ExitCode())
	}
	plan, err := run.Prepare(&fablepool.Definition, spec, run.Options{Corpus: out, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	if res := plan.Execute(t.Context()); res.ExitCode() != report.ExitFailed {
		t.Errorf("replay over stdio: exit %d, want 1", res.ExitCode())
	}
}

// TestUsage refuses what cannot be fuzzed.
func TestUsage(t *testing.T) {
	host := suites.Find("cgp-host") // a suite with no fuzz targets
	for _, tc := range []struct {
		name  string
		def   *check.Definition
		impls []fuzz.Impl
		o     fuzz.Options
		want  string
	}{
		{"no fuzz targets", host, []fuzz.Impl{{}}, fuzz.Options{}, "has no fuzz targets"},
		{"no implementation", &jcs.Definition, nil, fuzz.Options{}, "no implementation"},
		{"unknown target", &jcs.Definition, []fuzz.Impl{{}}, fuzz.Options{Targets: []string{"nope"}}, `no fuzz target "nope"`},
		{"bad mode", &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Mode: "nope"}}}, fuzz.Options{}, `no broken mode "nope"`},
		{"two names", &jcs.Definition, []fuzz.Impl{{Name: "x"}, {Name: "x"}}, fuzz.Options{}, `two implementations named "x"`},
		{"negative", &jcs.Definition, []fuzz.Impl{{}}, fuzz.Options{Count: -1}, "cannot be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fuzz.Campaign(t.Context(), tc.def, tc.impls, tc.o)
			var ue *check.UsageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ue) {
				t.Errorf("got %v, want a usage error containing %q", err, tc.want)
			}
		})
	}
}

// TestSameCorpusWhateverInFlight: inputs are prepared ahead by several
// workers and judged with several calls in flight, yet two runs of one
// seed, one call in flight and the most the implementation allows, find,
// count and write the same: the same summary (but for the clock) and the
// same corpus, byte for byte; in process and over stdio.
func TestSameCorpusWhateverInFlight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		def   *check.Definition
		spec  func(t *testing.T) check.Spec
		count int
	}{
		{&jcs.Definition, func(*testing.T) check.Spec { return check.Spec{Mode: "go-float"} }, 600},
		{&crosslink.Definition, func(t *testing.T) check.Spec { return child(t, "crosslink", "html-escape") }, 300},
	} {
		t.Run(tc.def.Name, func(t *testing.T) {
			t.Parallel()
			var texts []string
			var corpora []map[string]string
			for _, parallel := range []int{1, 0} {
				out := filepath.Join(t.TempDir(), "found")
				s, err := fuzz.Campaign(t.Context(), tc.def, []fuzz.Impl{{Spec: tc.spec(t)}}, fuzz.Options{Seed: 3, Count: tc.count, Parallel: parallel, Out: out, Tool: tool})
				if err != nil {
					t.Fatal(err)
				}
				if len(s.Findings) == 0 {
					t.Fatalf("no finding in %d inputs", tc.count)
				}
				var text bytes.Buffer
				if err := fuzz.WriteText(&text, s, out); err != nil {
					t.Fatal(err)
				}
				_, rest, _ := strings.Cut(text.String(), "\n") // the first line has the clock
				texts = append(texts, strings.ReplaceAll(rest, out, "OUT"))
				files := map[string]string{}
				err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					b, err := os.ReadFile(p)
					files[strings.TrimPrefix(p, out)] = string(b)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				corpora = append(corpora, files)
			}
			if texts[0] != texts[1] {
				t.Errorf("one call in flight:\n%s\nseveral:\n%s", texts[0], texts[1])
			}
			if !maps.Equal(corpora[0], corpora[1]) {
				t.Errorf("the corpora written differ: %d files and %d", len(corpora[0]), len(corpora[1]))
			}
		})
	}
}

// TestFindingsShowTheirOwnAnswers: each finding of a run with many (broken
// modes served over stdio, eight calls in flight, inputs prepared on every
// processor, candidates shrunk in batches) shows what the implementation
// answers to its own input: replaying the corpus written gives its check
// the same status, reason and actual answer. An answer, a reason or a
// verdict given to the wrong input would show here.
func TestFindingsShowTheirOwnAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		suite, mode string
		seed        uint64
	}{
		{"crosslink", "html-escape", 1},
		{"crosslink", "html-escape", 2},
		{"crosslink", "uppercase-surrogates", 3},
		{"jcs", "go-float", 4},
		{"jcs", "compact-only", 5},
		{"jcs", "relaxed-grammar", 6},
	} {
		def := suites.Find(tc.suite)
		t.Run(fmt.Sprintf("%s/%s/%d", tc.suite, tc.mode, tc.seed), func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			spec := child(t, tc.suite, tc.mode)
			s, err := fuzz.Campaign(t.Context(), def, []fuzz.Impl{{Spec: spec}}, fuzz.Options{Seed: tc.seed, Count: 600, Out: out, Tool: tool, ShrinkBudget: 200})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Findings) < 2 {
				t.Fatalf("%d findings in %d inputs: too few to show anything", len(s.Findings), s.Inputs)
			}
			plan, err := run.Prepare(def, spec, run.Options{Corpus: out, Tool: tool})
			if err != nil {
				t.Fatal(err)
			}
			res := plan.Execute(t.Context())
			got := map[string]check.Result{}
			for _, r := range res.Execution.Results {
				got[r.ID] = r
			}
			compared := 0
			for _, f := range s.Findings {
				if f.Flaky {
					continue
				}
				r, ok := got[f.Check]
				switch {
				case !ok:
					t.Errorf("%s: not in the corpus written", f.Check)
				case r.Status != f.Status || check.ClipTo(r.Reason, fuzz.MaxReason) != f.Reason || check.Clip(r.Actual) != f.Actual:
					t.Errorf("%s on %q:\n  found:    %s %s, actual %s\n  replayed: %s %s, actual %s", f.Check, f.Input, f.Status, f.Reason, f.Actual, r.Status, r.Reason, check.Clip(r.Actual))
				default:
					compared++
				}
			}
			if compared == 0 {
				t.Errorf("none of the %d findings compared with its replay (all flaky?)", len(s.Findings))
			}
			t.Logf("%d findings, %d compared with their replay", len(s.Findings), compared)
		})
	}
}
