package crosslink

import (
	"strings"

	"github.com/refereehq/referee/check"
)

// NativeReport is upstream's report shape: runConformance's return value.
type NativeReport struct {
	Passed   int             `json:"passed"`
	Failed   int             `json:"failed"`
	Failures []NativeFailure `json:"failures"`
}

// NativeFailure is one failed check in upstream's shape.
type NativeFailure struct {
	Case      string `json:"case"`
	Operation string `json:"operation"` // canonical, frame, decode or negative
	Expected  string `json:"expected"`
	Actual    string `json:"actual"`
}

// Native renders a run as upstream's report. A check that ended in error (the
// adapter broke) is a failure whose actual is "error: " and the reason; a
// not-checked one is neither passed nor failed, as upstream has no such state.
func Native(run *check.Execution) *NativeReport {
	r := &NativeReport{Failures: []NativeFailure{}}
	for _, res := range run.All() {
		name, op := nativeName(res.ID)
		switch res.Status {
		case check.Pass:
			r.Passed++
		case check.Fail:
			r.Failures = append(r.Failures, NativeFailure{Case: name, Operation: op, Expected: res.Expected, Actual: res.Actual})
		case check.Error:
			r.Failures = append(r.Failures, NativeFailure{Case: name, Operation: op, Actual: "error: " + res.Reason})
		}
	}
	r.Failed = len(r.Failures)
	return r
}

// nativeName maps a check ID to upstream's case name and operation.
func nativeName(id string) (name, op string) {
	parts := strings.Split(id, "/")
	switch {
	case len(parts) == 4 && (parts[1] == "cases" || parts[1] == "refuse"):
		return parts[2], parts[3]
	case len(parts) == 3 && parts[1] == "invalid":
		return parts[2], "negative"
	case len(parts) == 3 && parts[1] == "decode":
		return parts[2], "decode"
	case len(parts) == 3 && parts[1] == "limits":
		return parts[2], "frame"
	}
	return id, ""
}
