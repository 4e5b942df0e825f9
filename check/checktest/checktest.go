// Package checktest runs a referee suite from a Go project's own tests, each
// check as a subtest.
package checktest

import (
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
)

// Run executes suite's checks against the implementation start opens and
// reports each as a subtest of t: a fail or error fails it, a not-checked
// skips it. It returns the run for further assertions.
func Run(t *testing.T, suite *check.Suite, start adapter.Starter) *check.Run {
	t.Helper()
	ctx := t.Context()
	client, err := adapter.Dial(ctx, start, suite.Name, adapter.Options{})
	if err != nil {
		t.Fatalf("%s: the implementation could not be started: %v", suite.Name, err)
	}
	defer client.Close()
	run := check.Execute(ctx, client, suite.Checks, check.Options{})
	for _, r := range run.Results {
		t.Run(r.ID, func(t *testing.T) {
			switch r.Status {
			case check.Pass:
			case check.NotChecked:
				t.Skip(r.Reason)
			default:
				t.Errorf("%s: %s", r.Status, describe(r))
			}
		})
	}
	if !run.Complete {
		t.Errorf("%s: the run did not complete", suite.Name)
	}
	return run
}

func describe(r check.Result) string {
	var b strings.Builder
	b.WriteString(r.Reason)
	if r.Status == check.Fail {
		b.WriteString("\nexpected: " + r.Expected + "\nactual:   " + r.Actual)
	}
	if d := r.Evidence.Diff; d != nil {
		for _, l := range d.Lines() {
			b.WriteString("\n" + l)
		}
	}
	for _, x := range r.Evidence.Exchanges {
		b.WriteString("\nsent:     " + string(x.Request))
		if x.Reply != nil {
			b.WriteString("\nreceived: " + string(x.Reply))
		}
	}
	return b.String()
}
