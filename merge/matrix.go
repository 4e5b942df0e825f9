package merge

import (
	"fmt"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/report"
)

type matrixPart struct {
	name string
	m    *matrix.Document
}

// mergeMatrices merges matrices of one run in parts: the same
// implementations in the same order, each one's reports merged as
// mergeReports merges them, and the groups laid out from the merged reports. A baseline is one implementation's, so none
// applies to a matrix.
func mergeMatrices(parts []matrixPart, o Options) (*Result, error) {
	if o.KnownFailing != "" || o.KnownFlaky != "" {
		return nil, check.Usagef("merge: a baseline is one implementation's; merge %s documents without --known-failing and --known-flaky", matrix.Format)
	}
	first := parts[0]
	for _, p := range parts[1:] {
		if len(p.m.Implementations) != len(first.m.Implementations) {
			return nil, check.Usagef("merge: %s has %d implementations, %s %d: they are not parts of one run", first.name, len(first.m.Implementations), p.name, len(p.m.Implementations))
		}
		for i, im := range p.m.Implementations {
			if want := first.m.Implementations[i].Name; im.Name != want {
				return nil, check.Usagef("merge: implementation %d is %q in %s and %q in %s: they are not parts of one run", i+1, want, first.name, im.Name, p.name)
			}
		}
	}
	var merged []report.NamedReport
	var notes []string
	for i, im := range first.m.Implementations {
		var reports []part
		for _, p := range parts {
			reports = append(reports, part{name: fmt.Sprintf("%s (implementation %q)", p.name, im.Name), r: p.m.Implementations[i].Report})
		}
		rep, _, n, err := mergeReports(reports, o, false)
		if err != nil {
			return nil, err
		}
		notes = append(notes, n...)
		merged = append(merged, report.NamedReport{Name: im.Name, Report: rep})
	}
	// The parts' groups are each of a part's checks only: the merged
	// matrix's are laid out again from the merged reports.
	return &Result{Matrix: matrix.FromReports(merged).Document(), Notes: notes}, nil
}
