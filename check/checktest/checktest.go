// Package checktest runs a referee suite from a Go project's own tests, each
// check as a subtest.
package checktest

import (
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// Suite runs the suite def declares through referee's run pipeline (the
// selection, baselines, report and verdict of `referee run`) against the
// implementation spec names (spec.Handler for a Go implementation in
// process), each check a subtest: a failed must check or an error fails it,
// a failed should check is logged as a warning (a failure under o.Strict),
// a not-checked one skips it. t fails too when the run's exit status is not
// 0. It returns the result for further assertions.
func Suite(t *testing.T, def *check.Definition, spec check.Spec, o run.Options) *run.Result {
	t.Helper()
	if o.Tool.Name == "" {
		o.Tool = report.Tool{Name: "referee checktest"}
	}
	plan, err := run.Prepare(def, spec, o)
	if err != nil {
		t.Fatalf("%s: %v", def.Name, err)
	}
	res := plan.Execute(t.Context())
	if res.StartErr != nil {
		t.Fatalf("%s: the implementation could not be started: %v", def.Name, res.StartErr)
	}
	for _, r := range res.Execution.Results {
		t.Run(r.ID, func(t *testing.T) {
			switch {
			case r.Status == check.Pass:
			case r.Status == check.NotChecked:
				t.Skip(r.Reason)
			case r.Known != "":
				t.Logf("known %s: %s: %s", r.Known, r.Status, describe(r))
			case r.Status == check.Fail && r.Level == check.Should && !o.Strict:
				t.Logf("warning (a should check): %s", describe(r))
			default:
				t.Errorf("%s (%s): %s", r.Status, r.Level, describe(r))
			}
		})
	}
	if code := res.ExitCode(); code != report.ExitOK {
		t.Errorf("%s: exit status %d (%+v, complete %v)", def.Name, code, res.Report.Counts, res.Report.Complete)
	}
	return res
}

// RunSuite executes suite's checks against the implementation start opens and
// reports each as a subtest of t: a fail or error fails it, a not-checked
// skips it. It returns the run for further assertions.
func RunSuite(t *testing.T, suite *check.Suite, start adapter.Starter) *check.Execution {
	t.Helper()
	run := Execute(t, suite, start)
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

// Execute runs suite against start and returns the run, failing t if the
// implementation cannot be started. opts, if given, tune the client.
func Execute(t testing.TB, suite *check.Suite, start adapter.Starter, opts ...adapter.Options) *check.Execution {
	t.Helper()
	var o adapter.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	client, err := adapter.Dial(t.Context(), start, suite.Name, o)
	if err != nil {
		t.Fatalf("%s: the implementation could not be started: %v", suite.Name, err)
	}
	defer client.Close()
	return check.Execute(t.Context(), client, suite.Checks, check.Options{})
}

// EveryCheckCanFail runs suite against each broken implementation and
// requires every check to fail under at least one of them, and each of them
// to fail at least one check: a check that cannot fail is a defect. Broken
// runs must not end in error (not-checked follows where a failure leaves
// nothing to check). It returns, for each check ID, the
// names of the implementations it failed under.
func EveryCheckCanFail(t *testing.T, suite *check.Suite, broken map[string]adapter.Starter) map[string][]string {
	t.Helper()
	failed := map[string][]string{}
	for name, start := range broken {
		run := Execute(t, suite, start)
		n := run.Counts()
		if n.Fail+n.Warn == 0 {
			t.Errorf("%s: broken mode %s fails no check", suite.Corpus, name)
		}
		if n.Error > 0 {
			t.Errorf("%s: broken mode %s: %+v (a broken mode must answer, not fault)", suite.Corpus, name, n)
		}
		for _, r := range run.Results {
			if r.Status == check.Fail {
				failed[r.ID] = append(failed[r.ID], name)
			}
		}
	}
	for _, c := range suite.Checks {
		if len(failed[c.ID]) == 0 {
			t.Errorf("%s: %s fails under no broken mode", suite.Corpus, c.ID)
		}
	}
	return failed
}
