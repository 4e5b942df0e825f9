// Package fuzztest holds what the fuzz proofs of the engine and of the
// suites share: replaying a corpus that referee fuzz wrote.
package fuzztest

import (
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// Replay runs the corpus in dir through the run pipeline, as `referee run
// SUITE --corpus DIR` does, against the built-in implementation in mode
// and against the reference: both runs must complete, and the reference
// must pass every check. It returns mode's counts, for the caller to say
// how mode must fail.
func Replay(t *testing.T, def *check.Definition, dir, mode string, tool report.Tool) check.Counts {
	t.Helper()
	var broken check.Counts
	for _, m := range []string{mode, ""} {
		plan, err := run.Prepare(def, check.Spec{Mode: m}, run.Options{Corpus: dir, Tool: tool})
		if err != nil {
			t.Fatalf("replaying %s: %v", dir, err)
		}
		res := plan.Execute(t.Context())
		n := res.Report.Counts
		if m != "" {
			broken = n
		}
		switch {
		case !res.Report.Complete:
			t.Errorf("the replay against mode %q did not complete", m)
		case m == "" && (res.ExitCode() != report.ExitOK || n.Pass != len(res.Execution.Results)):
			t.Errorf("the reference does not pass the corpus written: exit %d, %+v", res.ExitCode(), n)
		}
	}
	return broken
}
