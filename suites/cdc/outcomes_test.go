package cdc

import (
	"slices"
	"testing"

	"github.com/refereehq/referee/check"
)

// TestOutcomesKnown: the outcomes the cdc suite's may checks record are
// among check.Outcomes, the only ones a report may hold when read back
// (report.Read, referee merge).
func TestOutcomesKnown(t *testing.T) {
	for _, o := range []string{choseOmitted, choseKept, check.ChoseOutput, check.ChoseReject} {
		if !slices.Contains(check.Outcomes, o) {
			t.Errorf("outcome %q is not in check.Outcomes: a report recording it would be refused when read", o)
		}
	}
}
