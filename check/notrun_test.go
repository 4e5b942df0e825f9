package check

import (
	"errors"
	"testing"
)

func TestUnstartedAndNotRun(t *testing.T) {
	checks := []Check{{ID: "x/a"}, {ID: "x/b", Level: Should}}
	run := Unstarted(checks, errors.New("spawn: no such program"), Evidence{Stderr: "tail"})
	if run.Complete || len(run.Results) != 2 {
		t.Fatalf("complete %v, %d results", run.Complete, len(run.Results))
	}
	for i, r := range run.Results {
		if r.ID != checks[i].ID || r.Level != checks[i].LevelOf() || r.Status != Error || !r.NotRun() ||
			r.Reason != "not run: the implementation could not be started: spawn: no such program" || r.Evidence.Stderr != "tail" {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	// Read back from a report, a result keeps only its reason.
	for _, tt := range []struct {
		r    Result
		want bool
	}{
		{Result{Status: Error, Reason: "not run: run interrupted"}, true},
		{Result{Status: Error, Reason: "adapter timeout"}, false},
		{Result{Status: Fail, Reason: "not run: a reason a check chose"}, false},
	} {
		if got := tt.r.NotRun(); got != tt.want {
			t.Errorf("NotRun(%+v) = %v", tt.r, got)
		}
	}
}
