package cgplive_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/cgplive"
)

// exampleProvider is examples/providers/node/cgp-provider.mjs serving docs.
func exampleProvider(t *testing.T, docs string) check.Spec {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found: the example provider is not tested")
	}
	script, err := filepath.Abs("../../examples/providers/node/cgp-provider.mjs")
	if err != nil {
		t.Fatal(err)
	}
	return check.Spec{Argv: []string{"node", script, docs}}
}

// tieDocs writes three documents that match a query equally well and one,
// in a folder, that matches it not at all: an anchor on the last must
// still bring it back within three frames.
func tieDocs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"same1.md":  "retry policy backoff\n",
		"same2.md":  "retry policy backoff\n",
		"same3.md":  "retry policy backoff\n",
		"sub/x.txt": "line one\nline two é\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestExampleProviderSessions: the Node.js example provider, written from
// the protocol notes, passes the sessions `referee fuzz cgp` found it
// failing, shrunk, and a short fuzz run. It once split a malformed line at
// a bare CR (node:readline ends lines there; envelopes end at LF only) and
// answered the query after it with the second half's error, and let a
// perfect unanchored match tie an anchored frame and push it out of
// max_frames (§G4).
func TestExampleProviderSessions(t *testing.T) {
	t.Parallel()
	docs := tieDocs(t)
	spec := exampleProvider(t, docs)
	dir := t.TempDir()
	found := sessionsDoc(`{"name":"fuzz-b41ea773eda9","steps":[{"line":"y\r{"}]},
		{"name":"fuzz-d75884654c0f","steps":[{"line":"𠀀\r{"}]},
		{"name":"fuzz-94d5c08291fe","steps":[{"query":{"query_text":"retry","max_frames":24967295,"max_tokens":482}},{"anchor":{"max_frames":3,"max_tokens":482}}]}`)
	if err := os.WriteFile(filepath.Join(dir, cgplive.SessionsFile), []byte(found), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := run.Prepare(&cgplive.Definition, spec, run.Options{Flags: check.FlagValues{"sessions": dir}, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(t.Context())
	if len(res.Execution.Results) != 3 {
		t.Fatalf("%d results, want the 3 sessions", len(res.Execution.Results))
	}
	for _, r := range res.Execution.Results {
		if r.Status != check.Pass {
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Reason)
		}
	}
	s, err := fuzz.Campaign(t.Context(), &cgplive.Definition, []fuzz.Impl{{Spec: spec}}, fuzz.Options{Seed: 2, Count: 120, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Findings {
		t.Errorf("%s: %s\n  %s", f.Check, f.Reason, f.Input)
	}
	if s.ExitCode() != report.ExitOK || s.Judged != s.Inputs {
		t.Errorf("fuzz: exit %d, %d judged of %d", s.ExitCode(), s.Judged, s.Inputs)
	}
}
