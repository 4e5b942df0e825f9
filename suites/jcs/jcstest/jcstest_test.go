package jcstest_test

import (
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/suites/jcs"
	"github.com/refereehq/referee/suites/jcs/jcstest"
)

// TestReference runs the suite against its own reference implementation:
// every check passes.
func TestReference(t *testing.T) {
	h, err := jcs.Reference("")
	if err != nil {
		t.Fatal(err)
	}
	run := jcstest.Test(t, adapter.InProcess(h))
	if n := run.Counts(); n.Pass != len(run.Results) || len(run.Results) == 0 {
		t.Errorf("counts %+v of %d results", n, len(run.Results))
	}
}
