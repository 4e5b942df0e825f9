package cgplive_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/cgplive"
)

// sessionsFS is a corpus of sessions in memory, as referee fuzz writes one.
func sessionsFS(t *testing.T, doc string) check.LoadOptions {
	t.Helper()
	fsys, err := corpus.FoundFS(map[string][]byte{cgplive.SessionsFile: []byte(doc)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return check.LoadOptions{FS: fsys}
}

func sessionsDoc(sessions string) string {
	return `{"format":"` + cgplive.SessionsFormat + `","sessions":[` + sessions + `]}`
}

// TestSessionsRefused: a corpus that is not a valid one of sessions does
// not load, and the error names the session and the step.
func TestSessionsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, want string }{
		{"format", `{"format":"x","sessions":[]}`, `format "x"`},
		{"unknown member", sessionsDoc(`{"name":"a","steps":[],"extra":1}`), "extra"},
		{"no steps", sessionsDoc(`{"name":"a"}`), "session a: no steps member"},
		{"bad name", sessionsDoc(`{"name":"A B","steps":[]}`), `"A B"`},
		{"twice", sessionsDoc(`{"name":"a","steps":[]},{"name":"a","steps":[]}`), "duplicate name"},
		{"two kinds", sessionsDoc(`{"name":"a","steps":[{"query":{"goal":"","max_frames":1,"max_tokens":1},"shutdown":true}]}`), "session a: steps[0]: a step is exactly one of"},
		{"empty step", sessionsDoc(`{"name":"a","steps":[{}]}`), "steps[0]: a step is exactly one of"},
		{"stray id", sessionsDoc(`{"name":"a","steps":[{"verify":{"step":0},"id":"x"}]}`), "steps[0]: id qualifies a query or an anchor"},
		{"stray embed", sessionsDoc(`{"name":"a","steps":[{"line":"x","embed":{"off":1,"seed":1}}]}`), "steps[0]: embed and as_of_edge qualify a query"},
		{"after shutdown", sessionsDoc(`{"name":"a","steps":[{"shutdown":true},{"line":"x"}]}`), "steps[0]: a shutdown ends the session"},
		{"shutdown false", sessionsDoc(`{"name":"a","steps":[{"shutdown":false}]}`), `"shutdown" is true or absent`},
		{"two lines", sessionsDoc(`{"name":"a","steps":[{"line":"x\ny"}]}`), "steps[0]: line: one line"},
		{"hex", sessionsDoc(`{"name":"a","steps":[{"line_hex":"0A"}]}`), "steps[0]: line_hex: lowercase hex"},
		{"bound", sessionsDoc(`{"name":"a","steps":[{"query":{"goal":"","max_frames":1,"max_tokens":1},"as_of_edge":{"step":0,"frame":0,"bound":"recorded_at","shift_ms":0}}]}`), `as_of_edge.bound "recorded_at"`},
		{"pipeline ids", sessionsDoc(`{"name":"a","steps":[{"pipeline":[{"query":{"goal":"","max_frames":1,"max_tokens":1},"id":"p"},{"query":{"goal":"","max_frames":1,"max_tokens":1},"id":"p"}]}]}`), `steps[0]: pipeline[1]: id "p" twice`},
		{"pipeline of verify", sessionsDoc(`{"name":"a","steps":[{"pipeline":[{"verify":{"step":0}}]}]}`), "pipeline[0]: a pipeline holds queries only"},
		{"negative", sessionsDoc(`{"name":"a","steps":[{"anchor":{"step":-1,"frame":0,"max_frames":1,"max_tokens":1}}]}`), "anchor: step and frame are not negative"},
		{"budget", sessionsDoc(`{"name":"a","steps":[{"query":{"goal":"","max_frames":-1,"max_tokens":1}}]}`), "max_frames"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cgplive.Definition.Load(sessionsFS(t, tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestGeneratedSessionsLoad: every generated session is one a corpus can
// hold, and the same seed makes the same one.
func TestGeneratedSessionsLoad(t *testing.T) {
	t.Parallel()
	tgt := cgplive.Definition.Fuzz.Targets[0]
	for i := range uint64(2000) {
		a := tgt.Generate(rand.New(rand.NewPCG(1, i)))
		if b := tgt.Generate(rand.New(rand.NewPCG(1, i))); string(a) != string(b) {
			t.Fatalf("session %d differs when made again", i)
		}
		entry, ok := tgt.Vector("fuzz-0", a)
		if !ok {
			t.Fatalf("session %d is not a session: %s", i, a)
		}
		cs, err := check.FuzzChecks(&cgplive.Definition, cgplive.Definition.Fuzz, entry)
		if err != nil || len(cs) != 1 || cs[0].ID != "cgp/session/fuzz-0" {
			t.Fatalf("session %d: %v, %d checks", i, err, len(cs))
		}
	}
}

// TestSessionRules: hand-written sessions against referee's provider, each
// judged by one rule: the broken mode fails it, the honest provider
// passes, and the reason names the rule, the envelope and the session.
func TestSessionRules(t *testing.T) {
	t.Parallel()
	docs := docsDir(t)
	for _, tc := range []struct{ mode, session, want string }{
		// The as_of at a frame's valid_to (an instant outside its window),
		// then half a second before it (inside), with a fraction.
		{"as-of-whole-seconds", `{"name":"edge","steps":[{"query":{"goal":"x","max_frames":8,"max_tokens":4096}},` +
			`{"query":{"goal":"x","max_frames":8,"max_tokens":4096},"as_of_edge":{"step":0,"frame":0,"bound":"valid_to","shift_ms":-500}}]}`,
			"as-of-temporal at envelope 3 (query) of session edge: provider returned 1 frame(s) not valid at as_of=2026-02-28T23:59:59.5Z"},
		{"kinds-single-only", `{"name":"kinds","steps":[{"query":{"goal":"x","kinds":["snippet","fact"],"max_frames":8,"max_tokens":4096}}]}`,
			`kinds-filter at envelope 2 (query) of session kinds: kinds=["snippet", "fact"]`},
		{"min-one-frame", `{"name":"budget","steps":[{"query":{"goal":"x","max_frames":1,"max_tokens":5}}]}`,
			"budget-honesty at envelope 2 (query) of session budget: declared cost"},
		{"crash-on-astral-goal", `{"name":"astral","steps":[{"line":"x"},{"query":{"goal":"\ud83d\ude00","max_frames":1,"max_tokens":5}}]}`,
			"no-crash at envelope 4 (query) of session astral: query failed: provider crashed"},
		{"hollow-verify", `{"name":"verify","steps":[{"query":{"goal":"x","max_frames":8,"max_tokens":4096}},{"verify":{"step":0,"unknown":2}}]}`,
			"verify-honesty at envelope 3 (verify) of session verify: unchanged frame"},
		{"rubber-stamp-verify", `{"name":"verify","steps":[{"query":{"goal":"x","max_frames":8,"max_tokens":4096}},{"verify":{"step":0,"change":[1]}}]}`,
			"verify-honesty at envelope 3 (verify) of session verify: changed digest of"},
		{"other-id", `{"name":"pipe","steps":[{"pipeline":[{"query":{"goal":"x","max_frames":1,"max_tokens":100},"id":"a"},{"query":{"goal":"y","max_frames":1,"max_tokens":100},"id":"b"}]}]}`,
			`correlation at envelope 2 (pipelined queries) of session pipe: provider echoed the id of one query, but with 2 pipelined queries (ids "a", "b")`},
		{"accept-bad-embedding", `{"name":"e1","steps":[{"query":{"goal":"x","max_frames":1,"max_tokens":100},"embed":{"off":3,"seed":9}}]}`,
			"embedding-fingerprint at envelope 2 (query) of session e1: provider answered `frames` to a 67-dim embedding"},
		{"ignore-anchors", `{"name":"anchor","steps":[{"query":{"goal":"x","max_frames":8,"max_tokens":4096}},{"line":"x"},{"anchor":{"step":1,"frame":0,"max_frames":1,"max_tokens":4096}}]}`,
			"anchor-relevance at envelope 5 (anchored query) of session anchor: anchored on"},
		{"mislabel-malformed", `{"name":"garbage","steps":[{"line_hex":"ff00"}]}`,
			"malformed-input-tolerance at envelope 2 (malformed line) of session garbage: provider answered the malformed line with an error with code \"internal\""},
		{"hang-on-shutdown", `{"name":"bye","steps":[{"shutdown":true}]}`,
			"shutdown-clean at envelope 2 (shutdown) of session bye: shutdown error: timeout"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := writeSessions(dir, sessionsDoc(tc.session)); err != nil {
				t.Fatal(err)
			}
			for _, mode := range []string{tc.mode, ""} {
				plan, err := run.Prepare(&cgplive.Definition, modeSpec(docs, mode), run.Options{Flags: check.FlagValues{"sessions": dir}, Tool: tool})
				if err != nil {
					t.Fatal(err)
				}
				r := plan.Execute(t.Context()).Execution.Results[0]
				switch {
				case mode == "" && r.Status != check.Pass:
					t.Errorf("the honest provider: %s %s", r.Status, r.Reason)
				case mode != "" && (r.Status != check.Fail || !strings.Contains(r.Reason, tc.want)):
					t.Errorf("%s: %s %q, want a failure saying %q", mode, r.Status, r.Reason, tc.want)
				}
			}
		})
	}
}

// honestSessions are sessions the honest provider passes, each once taken
// for a failure by a judge that read a rule too narrowly.
var honestSessions = []string{
	// G4 asks for a frame anchored on a query anchor, any of them: the
	// first anchor's frame, ranked first, is one.
	`{"name":"other-anchor","steps":[{"query":{"goal":"","anchors":["symbol:///docs/configuration.md#overview"],"max_frames":8,"max_tokens":452}},{"anchor":{"step":0,"frame":0,"max_frames":1,"max_tokens":452}}]}`,
}

// TestHonestSessions: the honest provider passes every session of
// honestSessions; and one that refuses a verify naming a frame it never
// served, which no rule forbids, passes such a session.
func TestHonestSessions(t *testing.T) {
	t.Parallel()
	docs := docsDir(t)
	for _, tc := range []struct {
		spec     check.Spec
		sessions []string
	}{
		{modeSpec(docs, ""), honestSessions},
		{hostileSpec(docs, "refuse-unknown"), []string{`{"name":"unknown","steps":[{"query":{"goal":"x","max_frames":8,"max_tokens":4096}},{"verify":{"step":0,"unknown":1}}]}`}},
	} {
		dir := t.TempDir()
		if err := writeSessions(dir, sessionsDoc(strings.Join(tc.sessions, ","))); err != nil {
			t.Fatal(err)
		}
		plan, err := run.Prepare(&cgplive.Definition, tc.spec, run.Options{Flags: check.FlagValues{"sessions": dir}, Tool: tool})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range plan.Execute(t.Context()).Execution.Results {
			if r.Status != check.Pass {
				t.Errorf("%s: %s %s", r.ID, r.Status, r.Reason)
			}
		}
	}
}

// hostileSpec is this test binary serving referee's honest provider behind
// the hostile filter name.
func hostileSpec(docs, name string) check.Spec {
	t := hostileTarget(docs, name)
	return check.Spec{Argv: t.Argv, Env: t.Env}
}

// writeSessions writes doc as the sessions file of a corpus in dir, with
// its manifest.
func writeSessions(dir, doc string) error {
	fsys, err := corpus.FoundFS(map[string][]byte{cgplive.SessionsFile: []byte(doc)}, nil)
	if err != nil {
		return err
	}
	for name, f := range fsys {
		if err := writeFile(dir, name, f.Data); err != nil {
			return err
		}
	}
	return nil
}

// TestFuzzSessionsInterrupted: a run whose context ends stops at once,
// says it is incomplete, and leaves no session running.
func TestFuzzSessionsInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	s, err := fuzz.Campaign(ctx, &cgplive.Definition, []fuzz.Impl{{Spec: modeSpec(docsDir(t), "hang-on-shutdown")}}, fuzz.Options{Seed: 1, Count: 1000, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Interrupted || s.ExitCode() != report.ExitIncomplete || s.Inputs >= 1000 {
		t.Errorf("interrupted %v, exit %d, %d inputs", s.Interrupted, s.ExitCode(), s.Inputs)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s after the interruption", d)
	}
}

func writeFile(dir, name string, data []byte) error {
	return os.WriteFile(filepath.Join(dir, name), data, 0o644)
}
