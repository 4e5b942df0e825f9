package cgplive_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/protocols/cgp/provider"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/cgplive"
)

var tool = report.Tool{Name: "referee", Version: "test"}

// fuzzProof is, for every broken mode of referee's provider, the rule the
// sessions of `referee fuzz cgp` find it breaking (a live check's name, or
// no-crash), and within how many sessions from seed 1 (each is found in
// the first four but rubber-stamp-verify, in the 41st). Every mode is in
// reach over stdio; none is out of reach by construction.
var fuzzProof = map[string]struct {
	rule   string
	within int
}{
	"lying-costs":           {cgplive.CheckBudgetHonesty, 10},
	"bad-score":             {cgplive.CheckFrameValidity, 10},
	"empty-citation":        {cgplive.CheckFrameValidity, 10},
	"bad-version":           {cgplive.CheckHandshake, 10},
	"crash-on-query":        {cgplive.RuleNoCrash, 10},
	"crash-on-garbage":      {cgplive.CheckMalformedInput, 10},
	"mislabel-malformed":    {cgplive.CheckMalformedInput, 10},
	"under-report-cost":     {cgplive.CheckBudgetHonesty, 10},
	"bad-timestamp":         {cgplive.CheckFrameValidity, 10},
	"malformed-digest":      {cgplive.CheckFrameValidity, 10},
	"stale-digest":          {cgplive.CheckProvenance, 10},
	"flood-frames":          {cgplive.CheckBudgetHonesty, 10},
	"drop-correlation-id":   {cgplive.CheckCorrelation, 10},
	"lying-representation":  {cgplive.CheckFrameValidity, 10},
	"ignore-as-of":          {cgplive.CheckAsOfTemporal, 10},
	"ignore-valid-to":       {cgplive.CheckAsOfTemporal, 10},
	"accept-bad-embedding":  {cgplive.CheckEmbedding, 10},
	"rubber-stamp-verify":   {cgplive.CheckVerifyHonesty, 100}, // found at session 40: a verify of changed digests of a reply with frames
	"hollow-verify":         {cgplive.CheckVerifyHonesty, 10},
	"scope-lie":             {cgplive.CheckConsentScope, 10},
	"ignore-kinds":          {cgplive.CheckKindsFilter, 10},
	"ignore-anchors":        {cgplive.CheckAnchorRelevance, 10},
	"forge-signature":       {cgplive.CheckAttestation, 10},
	"lift-signature":        {cgplive.CheckAttestation, 10},
	"truncate-chain":        {cgplive.CheckAttestation, 10},
	"swap-content":          {cgplive.CheckAttestation, 10},
	"malformed-attestation": {cgplive.CheckAttestation, 10},
	"banner":                {cgplive.CheckHandshake, 10},
	"hang-on-shutdown":      {cgplive.CheckShutdownClean, 10},
	"other-id":              {cgplive.CheckCorrelation, 10},
	"misnamed-rel":          {cgplive.CheckFrameValidity, 10},
	"crash-on-astral-goal":  {cgplive.RuleNoCrash, 10},
	"kinds-single-only":     {cgplive.CheckKindsFilter, 10},
	"as-of-whole-seconds":   {cgplive.CheckAsOfTemporal, 10},
	"min-one-frame":         {cgplive.CheckBudgetHonesty, 10},
}

// modeSpec is this test binary serving referee's provider of docs in mode.
func modeSpec(docs, mode string) check.Spec {
	return check.Spec{Argv: []string{os.Args[0]}, Env: append(os.Environ(), envDocs+"="+docs, envMode+"="+mode)}
}

// ruleOf is the rule a session finding names: its reason up to " at envelope".
func ruleOf(reason string) string {
	rule, _, _ := strings.Cut(reason, " at envelope ")
	return rule
}

// TestFuzzFindsEveryMode fuzzes every broken mode of referee's provider
// from seed 1 and requires a finding within the mode's bound, breaking the
// mode's own rule, shrunk; then it replays the sessions written, through
// the run pipeline as `referee run cgp --sessions DIR` does: the mode must
// fail a session, and the honest provider pass them all.
func TestFuzzFindsEveryMode(t *testing.T) {
	t.Parallel()
	docs := docsDir(t)
	for _, m := range provider.Modes {
		want, ok := fuzzProof[m.Name]
		if !ok {
			t.Errorf("mode %s: not in this test's table", m.Name)
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "found")
			s, err := fuzz.Campaign(t.Context(), &cgplive.Definition, []fuzz.Impl{{Spec: modeSpec(docs, m.Name)}}, fuzz.Options{
				Seed: 1, Count: want.within, Out: out, Tool: tool, StopAfter: 1, ShrinkBudget: 100, Timeout: 10 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Findings) == 0 {
				i := s.Impls[0]
				t.Fatalf("not found in %d sessions (%d diverged, %d at should level; %v)", s.Inputs, i.Divergent, i.Should, i.Err)
			}
			f := s.Findings[0]
			t.Logf("%s: found at session %d of %d (%s): %s: %s", m.Name, f.Index, s.Inputs, ruleOf(f.Reason), f.Check, f.Input)
			if got := ruleOf(f.Reason); got != want.rule {
				t.Errorf("found breaking %s, want %s: %s", got, want.rule, f.Reason)
			}
			if f.Flaky {
				t.Errorf("flaky: %s", f.Rerun)
			}
			if want := map[bool]int{true: report.ExitFailed, false: report.ExitOK}[f.Blocking()]; s.ExitCode() != want {
				t.Errorf("exit code %d, want %d for %s", s.ExitCode(), want, f.Level)
			}
			replaySessions(t, out, modeSpec(docs, m.Name), modeSpec(docs, ""))
		})
	}
	for name := range fuzzProof {
		if !slices.ContainsFunc(provider.Modes, func(m provider.Mode) bool { return m.Name == name }) {
			t.Errorf("this test lists mode %s, which the provider does not have", name)
		}
	}
}

// replaySessions runs the sessions in dir through the run pipeline, as
// `referee run cgp --sessions DIR` does: broken must fail one of them (or
// warn), honest must pass them all.
func replaySessions(t *testing.T, dir string, broken, honest check.Spec) {
	t.Helper()
	for _, tc := range []struct {
		spec   check.Spec
		honest bool
	}{{broken, false}, {honest, true}} {
		plan, err := run.Prepare(&cgplive.Definition, tc.spec, run.Options{Flags: check.FlagValues{"sessions": dir}, Tool: tool})
		if err != nil {
			t.Fatalf("replaying %s: %v", dir, err)
		}
		res := plan.Execute(t.Context())
		n := res.Report.Counts
		for _, r := range res.Execution.Results {
			if !strings.HasPrefix(r.ID, "cgp/session/fuzz-") {
				t.Errorf("replay ran %s, not a session", r.ID)
			}
		}
		switch {
		case !res.Report.Complete:
			t.Errorf("replay (honest %v) did not complete", tc.honest)
		case tc.honest:
			if res.ExitCode() != report.ExitOK || n.Pass != len(res.Execution.Results) {
				for _, r := range res.Execution.Results {
					t.Logf("%s %s: %s", r.ID, r.Status, r.Reason)
				}
				t.Errorf("the honest provider does not pass the sessions written: exit %d, %+v", res.ExitCode(), n)
			}
		case n.Fail+n.Warn == 0:
			t.Errorf("the broken provider passes the sessions written: %+v", n)
		}
	}
}

// TestFuzzSessionsDeterministic: the same seed and count give the same
// sessions and findings, shrunk the same; the corpus written is the same,
// byte for byte.
func TestFuzzSessionsDeterministic(t *testing.T) {
	t.Parallel()
	docs := docsDir(t)
	var corpora [2][]byte
	var inputs [2][]string
	for k := range corpora {
		out := filepath.Join(t.TempDir(), "found")
		s, err := fuzz.Campaign(t.Context(), &cgplive.Definition, []fuzz.Impl{{Spec: modeSpec(docs, "kinds-single-only")}}, fuzz.Options{
			Seed: 3, Count: 12, Out: out, Tool: tool, ShrinkBudget: 40, Parallel: 1 + k,
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Findings) == 0 {
			t.Fatal("no finding")
		}
		for _, f := range s.Findings {
			inputs[k] = append(inputs[k], f.Name+" "+string(f.Input))
		}
		if corpora[k], err = os.ReadFile(filepath.Join(out, cgplive.SessionsFile)); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(inputs[0], inputs[1]) {
		t.Errorf("findings differ:\n%q\n%q", inputs[0], inputs[1])
	}
	if string(corpora[0]) != string(corpora[1]) {
		t.Errorf("the corpora differ:\n%s\n%s", corpora[0], corpora[1])
	}
}

// TestFuzzFlakyIsReported: a provider that breaks a rule once, and never
// when the session is sent again, is a flaky finding, written and blocking,
// not dropped.
func TestFuzzFlakyIsReported(t *testing.T) {
	t.Parallel()
	docs := docsDir(t)
	marker := filepath.Join(t.TempDir(), "lied")
	spec := check.Spec{Argv: []string{os.Args[0]}, Env: append(os.Environ(), envDocs+"="+docs, envHostile+"=lie-once", envMarker+"="+marker)}
	out := filepath.Join(t.TempDir(), "found")
	s, err := fuzz.Campaign(t.Context(), &cgplive.Definition, []fuzz.Impl{{Spec: spec}}, fuzz.Options{Seed: 1, Count: 10, Out: out, Tool: tool, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Findings) != 1 {
		t.Fatalf("%d findings, want the one flaky", len(s.Findings))
	}
	f := s.Findings[0]
	if !f.Flaky || f.Rerun != "passed" || ruleOf(f.Reason) != cgplive.CheckBudgetHonesty || s.ExitCode() != report.ExitFailed {
		t.Errorf("flaky %v, rerun %q, reason %s, exit %d", f.Flaky, f.Rerun, f.Reason, s.ExitCode())
	}
	c, err := corpus.OpenDir(out, 0)
	if err != nil {
		t.Fatal(err)
	}
	var prov fuzz.Provenance
	for _, m := range c.Manifest.Meta {
		if m.Key == corpus.FuzzProvenanceKey {
			if err := json.Unmarshal([]byte(m.Value.String()), &prov); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(prov.Vectors) != 1 || !prov.Vectors[0].Flaky || prov.Vectors[0].Rerun != "passed" {
		t.Errorf("provenance %+v, want the flaky session", prov.Vectors)
	}
}

// fuzzSessions is how many sessions TestFuzzReferenceNeverDiverges runs:
// REFEREE_FUZZ_SESSIONS, else 300 (bench/cgpfuzz.sh runs 5,000).
func fuzzSessions(t *testing.T) int {
	if v := os.Getenv("REFEREE_FUZZ_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("REFEREE_FUZZ_SESSIONS=%q: want a positive count", v)
		}
		return n
	}
	return 300
}

// TestFuzzReferenceNeverDiverges: the honest provider breaks no rule in
// any session, over stdio and over HTTP.
func TestFuzzReferenceNeverDiverges(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run (-short)")
	}
	t.Parallel()
	docs := docsDir(t)
	p, err := provider.New(docs, "")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	n := fuzzSessions(t)
	for _, tc := range []struct {
		name string
		spec check.Spec
	}{{"stdio", modeSpec(docs, "")}, {"http", check.Spec{URL: srv.URL}}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := fuzz.Campaign(t.Context(), &cgplive.Definition, []fuzz.Impl{{Spec: tc.spec}}, fuzz.Options{Seed: 11, Count: n, Tool: tool})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d sessions in %s: %.0f sessions/s", s.Inputs, s.Duration.Round(time.Millisecond), float64(s.Inputs)/s.Duration.Seconds())
			if s.Judged != n || s.ExitCode() != report.ExitOK || len(s.Findings) > 0 {
				for _, f := range s.Findings {
					t.Errorf("%s: %s\n  %s", f.Check, f.Reason, f.Input)
				}
				t.Fatalf("judged %d of %d, exit %d", s.Judged, n, s.ExitCode())
			}
		})
	}
}

// TestFuzzOverHTTP: a held-out mode is found over HTTP too, and the
// sessions replay over HTTP.
func TestFuzzOverHTTP(t *testing.T) {
	t.Parallel()
	docs := docsDir(t)
	serve := func(mode string) string {
		p, err := provider.New(docs, mode)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(p.Handler())
		t.Cleanup(srv.Close)
		return srv.URL
	}
	broken, honest := serve("min-one-frame"), serve("")
	out := filepath.Join(t.TempDir(), "found")
	s, err := fuzz.Campaign(context.Background(), &cgplive.Definition, []fuzz.Impl{{Spec: check.Spec{URL: broken}}}, fuzz.Options{Seed: 1, Count: 40, Out: out, Tool: tool, StopAfter: 1, ShrinkBudget: 60})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Findings) == 0 || ruleOf(s.Findings[0].Reason) != cgplive.CheckBudgetHonesty {
		t.Fatalf("findings %+v", s.Findings)
	}
	for url, wantFail := range map[string]bool{broken: true, honest: false} {
		plan, err := run.Prepare(&cgplive.Definition, check.Spec{URL: url}, run.Options{Flags: check.FlagValues{"sessions": out}, Tool: tool})
		if err != nil {
			t.Fatal(err)
		}
		res := plan.Execute(t.Context())
		if failed := res.Report.Counts.Fail > 0; failed != wantFail {
			t.Errorf("%s: %+v, want failing %v", url, res.Report.Counts, wantFail)
		}
	}
}

// BenchmarkFuzzSessions fuzzes the honest provider, this test binary
// serving it over stdio (a process per session), and reports sessions/s;
// bench/cgpfuzz.sh does the same with the referee binary, over HTTP too.
func BenchmarkFuzzSessions(b *testing.B) {
	docs := b.TempDir()
	if err := provider.WriteDocs(docs); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	s, err := fuzz.Campaign(b.Context(), &cgplive.Definition, []fuzz.Impl{{Spec: modeSpec(docs, "")}}, fuzz.Options{Seed: 1, Count: b.N, Tool: tool})
	if err != nil {
		b.Fatal(err)
	}
	if s.ExitCode() != report.ExitOK || s.Judged != b.N {
		b.Fatalf("exit %d, %d judged of %d", s.ExitCode(), s.Judged, b.N)
	}
	b.ReportMetric(float64(s.Inputs)/time.Since(start).Seconds(), "sessions/s")
}
