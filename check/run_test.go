package check_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/adapter/adaptertest"
	"github.com/refereehq/referee/check"
)

func TestMain(m *testing.M) {
	adaptertest.MaybeRunFake()
	os.Exit(m.Run())
}

// echoCheck calls op with args and passes when the reply's ok text is want.
func echoCheck(id, op, args, want string) check.Check {
	return check.Check{
		ID:    id,
		Needs: []string{op},
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			r, err := s.Call(ctx, op, []byte(args))
			if err != nil {
				return check.Broke(err)
			}
			if r.Err != nil {
				return check.Failed("err "+r.Err.Error(), want, "err")
			}
			return check.SameBytes("echo", []byte(want), []byte(r.OK.String()))
		},
	}
}

func execute(t *testing.T, mode string, checks []check.Check) *check.Execution {
	t.Helper()
	return executeWith(t, mode, checks, false)
}

func executeWith(t *testing.T, mode string, checks []check.Check, compact bool) *check.Execution {
	t.Helper()
	cfg := adaptertest.Process(t, mode)
	start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
	c, err := adapter.Dial(context.Background(), start, "test", adapter.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return check.Execute(context.Background(), c, checks, check.Options{
		Repro:   func(id string, exs []adapter.Exchange) string { return "repro " + id },
		Compact: compact,
	})
}

func TestExecuteStatuses(t *testing.T) {
	checks := []check.Check{
		echoCheck("t/pass", "echo", `{"a":1}`, `{"a":1}`),
		echoCheck("t/fail", "echo", `{"a":1}`, `{"a":2}`),
		echoCheck("t/err-reply", "fail", `{}`, `{}`),
		echoCheck("t/missing-op", "frobnicate", `{}`, `{}`),
	}
	run := execute(t, adaptertest.Good, checks)
	want := []check.Status{check.Pass, check.Fail, check.Fail, check.NotChecked}
	for i, r := range run.Results {
		if r.ID != checks[i].ID || r.Status != want[i] {
			t.Errorf("result %d = %s %s, want %s %s", i, r.ID, r.Status, checks[i].ID, want[i])
		}
	}
	if !run.Complete {
		t.Error("run not complete")
	}
	if got := run.Counts(); got != (check.Counts{Pass: 1, Fail: 2, NotChecked: 1}) {
		t.Errorf("counts = %+v", got)
	}
	fail := run.Results[1]
	if fail.Evidence.Diff == nil || fail.Evidence.Diff.Offset != 5 || fail.Evidence.Repro != "repro t/fail" || len(fail.Evidence.Exchanges) != 1 {
		t.Errorf("fail evidence = %+v", fail.Evidence)
	}
	if !strings.Contains(fail.Evidence.Stderr, "fake: got echo") {
		t.Errorf("fail evidence has no stderr tail: %q", fail.Evidence.Stderr)
	}
	if r := run.Results[3]; r.Reason != "adapter offers no frobnicate" {
		t.Errorf("not-checked reason = %q", r.Reason)
	}
	if pass := run.Results[0]; pass.Evidence.Repro != "" || pass.Evidence.Exchanges != nil {
		t.Errorf("a pass carries evidence: %+v", pass.Evidence)
	}
}

func TestExecuteFaultThenRecover(t *testing.T) {
	// crash-once: the first adapter dies on echo; the restarted one behaves.
	checks := []check.Check{
		echoCheck("t/first", "echo", `{"a":1}`, `{"a":1}`),
		echoCheck("t/second", "echo", `{"b":2}`, `{"b":2}`),
	}
	run := execute(t, adaptertest.CrashOnce, checks)
	if r := run.Results[0]; r.Status != check.Error || !strings.Contains(r.Reason, "adapter exit") {
		t.Errorf("first = %s %q, want error for the crash", r.Status, r.Reason)
	} else if !strings.Contains(r.Evidence.Stderr, "crashing on purpose") || len(r.Evidence.Exchanges) != 1 {
		t.Errorf("first evidence = %+v", r.Evidence)
	}
	if r := run.Results[1]; r.Status != check.Pass {
		t.Errorf("second = %s %q, want pass after the restart", r.Status, r.Reason)
	}
	if !run.Complete || run.Restarts != 1 {
		t.Errorf("complete = %v, restarts = %d", run.Complete, run.Restarts)
	}
}

func TestExecuteGivesUp(t *testing.T) {
	var checks []check.Check
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		checks = append(checks, echoCheck("t/"+id, "echo", `{}`, `{}`))
	}
	checks = append(checks, echoCheck("t/unoffered", "nope", `{}`, `{}`))
	start := time.Now()
	run := execute(t, adaptertest.Garbage, checks)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("run took %s", d)
	}
	if run.Complete {
		t.Error("a run that gave up is marked complete")
	}
	for i, r := range run.Results[:5] {
		if r.Status != check.Error {
			t.Errorf("%s = %s, want error", r.ID, r.Status)
		}
		notRun := strings.HasPrefix(r.Reason, "not run:")
		if (i >= 3) != notRun {
			t.Errorf("%s reason %q: the first three faulted, the rest were not run", r.ID, r.Reason)
		}
	}
	if r := run.Results[5]; r.Status != check.NotChecked {
		t.Errorf("unoffered op = %s, want not-checked even after giving up", r.Status)
	}
}

func TestExecuteHangIsBounded(t *testing.T) {
	checks := []check.Check{echoCheck("t/hang", "echo", `{}`, `{}`), echoCheck("t/slow", "slow", `{}`, `"slept"`)}
	start := time.Now()
	run := execute(t, adaptertest.Hang, checks)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a 1s timeout took %s", d)
	}
	if r := run.Results[0]; r.Status != check.Error || !strings.Contains(r.Reason, "timeout") {
		t.Errorf("hang = %s %q", r.Status, r.Reason)
	}
	if r := run.Results[1]; r.Status != check.Pass {
		t.Errorf("after the hang: %s %q, want pass on the restarted adapter", r.Status, r.Reason)
	}
}

// chose passes with the outcome choice, as a may check does.
func chose(id, choice string) check.Check {
	return check.Check{ID: id, Level: check.May, Do: func(context.Context, *check.Session) check.Outcome { return check.Chose(choice) }}
}

// TestExecuteCompact: a compact run gives every result a whole run gives,
// through Len, At and All, and Expand makes it a whole run.
func TestExecuteCompact(t *testing.T) {
	checks := []check.Check{
		echoCheck("t/pass", "echo", `{"a":1}`, `{"a":1}`),
		echoCheck("t/fail", "echo", `{"a":1}`, `{"a":2}`),
		echoCheck("t/missing-op", "frobnicate", `{}`, `{}`),
		chose("t/may-output", check.ChoseOutput),
		chose("t/may-rejected", check.ChoseReject),
		chose("t/may-other", "another outcome"),
		{ID: "t/should", Level: check.Should, Do: func(context.Context, *check.Session) check.Outcome { return check.Passed() }},
	}
	whole := executeWith(t, adaptertest.Good, checks, false)
	compact := executeWith(t, adaptertest.Good, checks, true)
	if whole.Compact() || !compact.Compact() || compact.Results != nil || compact.Len() != len(checks) || whole.Len() != len(checks) {
		t.Fatalf("compact %v (%d results, Len %d), whole %v (Len %d)", compact.Compact(), len(compact.Results), compact.Len(), whole.Compact(), whole.Len())
	}
	same := func(a, b check.Result) bool {
		a.Duration, b.Duration = 0, 0
		a.Evidence.Stderr, b.Evidence.Stderr = "", "" // the fake adapter's log tail differs between the two runs
		return reflect.DeepEqual(a, b)
	}
	for i, r := range compact.All() {
		if w := whole.Results[i]; !same(r, w) {
			t.Errorf("result %d: compact %+v, whole %+v", i, r, w)
		}
	}
	if compact.Counts() != whole.Counts() || !compact.Complete {
		t.Errorf("counts %+v, want %+v; complete %v", compact.Counts(), whole.Counts(), compact.Complete)
	}
	r := compact.At(0)
	r.Known = check.KnownFailing
	compact.Set(0, r)
	if got := compact.At(0); got.Known != check.KnownFailing || got.Status != check.Pass {
		t.Errorf("Set kept %+v", got)
	}
	compact.Expand()
	if compact.Compact() || len(compact.Results) != len(checks) || compact.Results[0].Known != check.KnownFailing || !same(compact.Results[1], whole.Results[1]) {
		t.Errorf("expanded: %+v", compact.Results)
	}
}

// TestEvidenceClipped: with Options.MaxEvidence, a failing check keeps at
// most MaxEvidence bytes of its expected and actual values and of each line it exchanged, with a
// note giving each whole size; the diff is the whole values' (the first
// difference lies beyond what is kept).
func TestEvidenceClipped(t *testing.T) {
	const n = 1 << 20
	big := strings.Repeat("x", n)
	args := `{"s":"` + big + `"}`
	want := `{"s":"` + big + `y"}`
	cfg := adaptertest.Process(t, adaptertest.Good)
	start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
	c, err := adapter.Dial(context.Background(), start, "test", adapter.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checks := []check.Check{echoCheck("t/big", "echo", args, want)}
	whole := check.Execute(context.Background(), c, checks, check.Options{}).Results[0]
	if len(whole.Expected) != len(want) || len(whole.Evidence.Exchanges[0].Reply) < n {
		t.Errorf("without MaxEvidence the values were cut: expected %d bytes", len(whole.Expected))
	}
	r := check.Execute(context.Background(), c, checks, check.Options{MaxEvidence: check.MaxEvidence}).Results[0]
	if r.Status != check.Fail {
		t.Fatalf("status %s (%s), want fail", r.Status, r.Reason)
	}
	if len(r.Expected) != check.MaxEvidence || len(r.Actual) != check.MaxEvidence {
		t.Errorf("expected %d bytes, actual %d, want %d each", len(r.Expected), len(r.Actual), check.MaxEvidence)
	}
	if x := r.Evidence.Exchanges; len(x) != 1 || len(x[0].Request) != check.MaxEvidence || len(x[0].Reply) != check.MaxEvidence {
		t.Errorf("exchanges not clipped to %d bytes each: %d", check.MaxEvidence, len(x))
	}
	if d := r.Evidence.Diff; d == nil || d.Offset != len(args)-2 {
		t.Errorf("diff = %+v, want the first difference at %d", d, len(args)-2)
	}
	for _, note := range []string{
		fmt.Sprintf("expected: the first %d of its %d bytes are kept", check.MaxEvidence, len(want)),
		fmt.Sprintf("actual: the first %d of its %d bytes are kept", check.MaxEvidence, len(args)),
		fmt.Sprintf("reply: the first %d of its", check.MaxEvidence),
	} {
		if !slices.ContainsFunc(r.Evidence.Notes, func(s string) bool { return strings.HasPrefix(s, note) }) {
			t.Errorf("no note %q in %q", note, r.Evidence.Notes)
		}
	}
}
