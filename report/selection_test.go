package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// selected is the sample report as a run with a selection records it: its
// seven checks, selected by --run jcs of a suite of ten.
func selected() *Report {
	r := sampleReport(false)
	r.Selection = &Selection{Select: []string{"jcs"}, Skip: []string{}, Checks: 7, SuiteChecks: 10}
	return r
}

// TestReadSelection: a recorded selection reads back, and one that does
// not hold together, or does not select a check the report holds, is
// refused. A report without one (an older referee's) reads as before.
func TestReadSelection(t *testing.T) {
	r, err := Read(reportJSON(t, selected()))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Selection.Equal(selected().Selection) {
		t.Errorf("read back selection %s, wrote %s", r.Selection, selected().Selection)
	}
	if r, err := Read(reportJSON(t, sampleReport(false))); err != nil || r.Selection != nil {
		t.Errorf("a report without a selection: %v, selection %v", err, r.Selection)
	}
	good := reportJSON(t, selected())
	sel := func(m map[string]any) map[string]any { return m["selection"].(map[string]any) }
	for _, tc := range []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"no run list", func(m map[string]any) { delete(sel(m), "run") }, "want run and skip"},
		{"skip null", func(m map[string]any) { sel(m)["skip"] = nil }, "want run and skip"},
		{"a pattern that does not parse", func(m map[string]any) { sel(m)["skip"] = []any{"jcs/["} }, "selection: pattern"},
		{"more checks than the report holds", func(m map[string]any) { sel(m)["checks"] = 8.0 }, "8 checks selected, but the report holds 7"},
		{"more than the suite has", func(m map[string]any) { sel(m)["checks"], sel(m)["suite_checks"] = 7.0, 5.0 }, "want 1 ≤ checks ≤ suite_checks"},
		{"every check, but not the suite's count", func(m map[string]any) { sel(m)["run"] = []any{} }, "no pattern, yet 7 of 10"},
		{"a check it does not select", func(m map[string]any) { sel(m)["run"] = []any{"jcs/keys", "jcs/numbers", "jcs/strings", "jcs/rejects"} }, `check "jcs/nesting/arrays-129": the selection (--run jcs/keys`},
		{"a check it skips", func(m map[string]any) { sel(m)["skip"] = []any{"jcs/*/1e21"} }, `check "jcs/numbers/1e21": the selection`},
		{"an unknown member", func(m map[string]any) { sel(m)["shard"] = 1.0 }, "unknown field"},
	} {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		tc.mutate(m)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Read: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	// A shard holds some of the selected checks (here, 7 of 9).
	sh := selected()
	sh.Shard = &Shard{Index: 1, Count: 2}
	sh.Selection.Checks = 9
	if _, err := Read(reportJSON(t, sh)); err != nil {
		t.Errorf("a shard of 7 of 9 selected checks: %v", err)
	}
	sh.Selection.Checks = 5
	if _, err := Read(reportJSON(t, sh)); err == nil || !strings.Contains(err.Error(), "5 checks selected, but the shard holds 7") {
		t.Errorf("a shard of more checks than selected: %v", err)
	}
}

func TestSelectionString(t *testing.T) {
	for _, tc := range []struct {
		s    *Selection
		want string
	}{
		{nil, "no selection recorded"},
		{&Selection{Select: []string{}, Skip: []string{}, Checks: 566, SuiteChecks: 566}, "every check (566 of 566 checks)"},
		{&Selection{Select: []string{"jcs/keys"}, Skip: []string{"jcs/keys/utf16-*", "it's"}, Checks: 3, SuiteChecks: 566}, `--run jcs/keys --skip 'jcs/keys/utf16-*' --skip 'it'\''s' (3 of 566 checks)`},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
	}
}

// TestSelectionSchema: a report with a selection validates against
// docs/report-format.schema.json; one whose selection lacks a member, or
// selects no check, does not.
func TestSelectionSchema(t *testing.T) {
	s, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "docs", "report-format.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	none := selected()
	none.Selection.Checks = 0
	partial := reportJSON(t, selected())
	var m map[string]any
	if err := json.Unmarshal(partial, &m); err != nil {
		t.Fatal(err)
	}
	delete(m["selection"].(map[string]any), "suite_checks")
	partial, _ = json.Marshal(m)
	for _, tc := range []struct {
		name  string
		data  []byte
		valid bool
	}{{"selected", reportJSON(t, selected()), true}, {"no check selected", reportJSON(t, none), false}, {"no suite_checks", partial, false}} {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); (err == nil) != tc.valid {
			t.Errorf("%s: validation error %v, want valid %v", tc.name, err, tc.valid)
		}
	}
}
