package merge_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/merge"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/jcs"
)

// skip92 leaves out 92 of jcs's 566 checks: what four shards ran with
// --skip when their merge called 474 checks CONFORMANT.
var skip92 = []string{"jcs/appendix-b", "jcs/keys", "jcs/names", "jcs/nesting", "jcs/rejects", "jcs/utf8"}

// skippedShards runs jcs's built-in implementation in n shards, each with
// the --skip patterns skip(i) gives shard i, and returns their JSON reports.
func skippedShards(t *testing.T, n int, skip func(i int) []string) []merge.Input {
	t.Helper()
	var in []merge.Input
	for i := 1; i <= n; i++ {
		plan, err := run.Prepare(&jcs.Definition, check.Spec{}, run.Options{Skip: skip(i), Shard: report.Shard{Index: i, Count: n}, Tool: tool})
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, merge.Input{Name: fmt.Sprintf("shard-%d.json", i), Data: encode(t, plan.Execute(context.Background()).Report)})
	}
	return in
}

// TestMergeSelection: a report records its --run/--skip selection; the
// merge of shards that all ran one selection is that selection's complete
// run; shards of different selections are refused; and reports that record
// none (an older referee's) are held to the whole suite, so that checks no
// part ran make the merge incomplete.
func TestMergeSelection(t *testing.T) {
	t.Parallel()
	same := skippedShards(t, 4, func(int) []string { return skip92 })
	for _, p := range same {
		r, err := report.Read(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		if want := (&report.Selection{Select: []string{}, Skip: skip92, Checks: 474, SuiteChecks: 566}); !r.Selection.Equal(want) {
			t.Fatalf("%s records selection %s, want %s", p.Name, r.Selection, want)
		}
	}
	// One selection in every shard: complete, and said to be a selection.
	res, err := merge.Merge(same, merge.Options{Suite: suiteOrder(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Report; !got.Complete || got.Len() != 474 || !got.Selection.Equal(&report.Selection{Select: []string{}, Skip: skip92, Checks: 474, SuiteChecks: 566}) || res.ExitCode() != report.ExitOK {
		t.Errorf("merged: complete %v, %d checks, selection %s, exit %d; want complete, 474, the shards', 0", got.Complete, got.Len(), got.Selection, res.ExitCode())
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "(474 of 566 checks)") }) {
		t.Errorf("notes %q: none says the verdict is the selection's", res.Notes)
	}
	if _, err := report.Read(encode(t, res.Report)); err != nil {
		t.Errorf("the merged report does not read back: %v", err)
	}

	// A shard run with another selection is refused, naming both reports.
	other := skippedShards(t, 4, func(i int) []string {
		if i == 3 {
			return append(slices.Clone(skip92), "jcs/numbers")
		}
		return skip92
	})
	for _, o := range []merge.Options{{}, {Suite: suiteOrder(t)}} {
		_, err = merge.Merge(other, o)
		var ue *check.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "shard-1.json and shard-3.json differ in selection") {
			t.Errorf("shards of two selections: %v, want a usage error naming shard-1.json and shard-3.json", err)
		}
	}

	// Reports that record no selection (an older referee's) are held to the
	// whole suite when it is known: 92 checks are in none, incomplete.
	old := unrecorded(t, same)
	res, err = merge.Merge(old, merge.Options{Suite: suiteOrder(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Complete || res.ExitCode() != report.ExitIncomplete {
		t.Errorf("474 of 566 checks, no selection recorded: complete %v, exit %d; want incomplete, 3", res.Report.Complete, res.ExitCode())
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "92 of the suite's 566 checks are in no report (jcs/keys/")
	}) {
		t.Errorf("notes %q: none says which 92 checks are missing", res.Notes)
	}
	// Without the suite, the merge cannot tell, and says so.
	res, err = merge.Merge(old, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "cannot be told") }) {
		t.Errorf("notes %q: none says the merge cannot tell whether checks are missing", res.Notes)
	}
	// A mix of the two is a difference in selection.
	if _, err := merge.Merge([]merge.Input{same[0], old[1], same[2], same[3]}, merge.Options{}); err == nil || !strings.Contains(err.Error(), "differ in selection") {
		t.Errorf("a report with a selection and one without: %v", err)
	}
}

// TestMergeSelectionChecked: what a recorded selection says is checked
// against the suite when referee has it, and against the checks the
// parts hold otherwise.
func TestMergeSelectionChecked(t *testing.T) {
	t.Parallel()
	same := skippedShards(t, 2, func(int) []string { return skip92 })
	// Every shard claims 500 checks were selected: the suite says 474.
	forged := make([]merge.Input, len(same))
	for i, p := range same {
		forged[i] = merge.Input{Name: p.Name, Data: mutate(t, p.Data, func(m map[string]any) { m["selection"].(map[string]any)["checks"] = 500.0 })}
	}
	_, err := merge.Merge(forged, merge.Options{Suite: suiteOrder(t)})
	var ue *check.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "shard-1.json records a selection of 500 of 566 checks, but in suite jcs") {
		t.Errorf("a forged selection: %v", err)
	}
	// Without the suite, 26 of the 500 the shards claim are in no report.
	res, err := merge.Merge(forged, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Complete || !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "26 of the 500 selected checks are in no report") }) {
		t.Errorf("complete %v, notes %q; want incomplete, 26 of 500 missing", res.Report.Complete, res.Notes)
	}
	// A shard whose report lost a check (and its count): in no report.
	lost := []merge.Input{same[0], {Name: same[1].Name, Data: dropPass(t, same[1].Data)}}
	for _, o := range []merge.Options{{}, {Suite: suiteOrder(t)}} {
		res, err := merge.Merge(lost, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Report.Complete || res.ExitCode() != report.ExitIncomplete || !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "1 of the 474 selected checks are in no report") }) {
			t.Errorf("suite known %v: complete %v, exit %d, notes %q; want incomplete, 3, one check missing", o.Suite != nil, res.Report.Complete, res.ExitCode(), res.Notes)
		}
	}
}

// unrecorded is each report without its selection, as referee wrote
// reports before it recorded one.
func unrecorded(t *testing.T, in []merge.Input) []merge.Input {
	out := make([]merge.Input, len(in))
	for i, p := range in {
		out[i] = merge.Input{Name: p.Name, Data: mutate(t, p.Data, func(m map[string]any) { delete(m, "selection") })}
	}
	return out
}

// dropPass removes a report's first passing check, and counts it no more.
func dropPass(t *testing.T, data []byte) []byte {
	return mutate(t, data, func(m map[string]any) {
		checks := m["checks"].([]any)
		for i, c := range checks {
			if c.(map[string]any)["status"] == "pass" {
				m["checks"] = append(checks[:i:i], checks[i+1:]...)
				counts := m["counts"].(map[string]any)
				counts["pass"] = counts["pass"].(float64) - 1
				return
			}
		}
		t.Fatal("no passing check")
	})
}
