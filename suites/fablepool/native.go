package fablepool

import (
	"strings"

	"github.com/refereehq/referee/check"
)

// NativeFormat is the native report's format name (profile §9).
const NativeFormat = "fablepool-report/draft-1"

// NativeReport is the profile's report.json.
type NativeReport struct {
	Format  string         `json:"format"`
	Passed  int            `json:"passed"`
	Failed  int            `json:"failed"`
	Results []NativeResult `json:"results"`
}

// NativeResult is one check in the native report.
type NativeResult struct {
	Suite    string `json:"suite"` // canonicalization, signing, op_scenarios, recorded or wycheproof
	Name     string `json:"name"`
	OK       bool   `json:"ok"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
}

// Native renders a run as report.json. The profile has only ok true or
// false, so an error or a not-checked check is a failure whose actual says
// why: nothing unverified is counted as passed or quietly left out.
func Native(run *check.Execution) *NativeReport {
	r := &NativeReport{Format: NativeFormat, Results: []NativeResult{}}
	for _, res := range run.All() {
		rest, _ := strings.CutPrefix(res.ID, Name+"/")
		suite, name, _ := strings.Cut(rest, "/")
		nr := NativeResult{Suite: suite, Name: name, OK: res.Status == check.Pass, Expected: res.Expected, Actual: res.Actual}
		switch res.Status {
		case check.Error:
			nr.Actual = "error: " + res.Reason
		case check.NotChecked:
			nr.Actual = "not checked: " + res.Reason
		}
		if nr.OK {
			r.Passed++
		} else {
			r.Failed++
		}
		r.Results = append(r.Results, nr)
	}
	return r
}
