package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// toy is a suite of three checks over one op, "upper", which must upper-case
// its argument: a must check, a should check and a may check (an input the
// implementation may reject or upper-case).
var toy = check.Definition{
	Name:     "toy",
	Summary:  "upper-cases strings",
	Embedded: "three strings",
	Corpus:   "a directory (the toy suite ignores it)",
	Modes: func() []check.Mode {
		return []check.Mode{{Name: "lower", Doc: "lower-cases instead"}, {Name: "sloppy", Doc: "passes the must check only"}}
	},
	Flags: []check.Flag{{Name: "salt", Usage: "a flag that changes the checks", Repro: true}},
	Load: func(o check.LoadOptions) (*check.Loaded, error) {
		call := func(in string) func(ctx context.Context, s *check.Session) check.Outcome {
			return func(ctx context.Context, s *check.Session) check.Outcome {
				r, err := s.Call(ctx, "upper", map[string]string{"text": in})
				if err != nil {
					return check.Broke(err)
				}
				if r.Err != nil {
					return check.Chose(check.ChoseReject)
				}
				want := strings.ToUpper(in)
				if r.OK == nil || r.OK.Kind != canon.String || r.OK.Str != want {
					return check.Failed("the result differs", want, fmt.Sprint(r.OK))
				}
				return check.Chose(check.ChoseOutput)
			}
		}
		suite := &check.Suite{Name: "toy", Version: "1.0.0", Corpus: "embedded:toy", CorpusDigest: "sha256:00", Checks: []check.Check{
			{ID: "toy/must/abc", Level: check.Must, Needs: []string{"upper"}, Do: call("abc")},
			{ID: "toy/should/mixed", Level: check.Should, Needs: []string{"upper"}, Do: call("MiXeD")},
			{ID: "toy/may/long", Level: check.May, Needs: []string{"upper"}, Do: call(strings.Repeat("x", 100))},
		}}
		return &check.Loaded{Suite: suite, Reference: func(mode string) (adapter.Handler, error) { return upper{mode}, nil },
			Native: func(r *check.Execution, _ check.Spec) any { return r.Len() }}, nil
	},
}

// upper is the toy suite's implementation, honest or in a broken mode.
type upper struct{ mode string }

func (u upper) Hello() adapter.Hello {
	return adapter.Hello{Name: "upper", Version: "1", Ops: []string{"upper"}, Concurrency: 2}
}

func (u upper) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	var a struct{ Text string }
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, &adapter.Error{Code: "bad_args", Message: err.Error()}
	}
	out := strings.ToUpper(a.Text)
	switch {
	case u.mode == "lower":
		out = strings.ToLower(a.Text)
	case u.mode == "sloppy" && a.Text != "abc":
		out = a.Text
	case u.mode == "refuse-long" && len(a.Text) > 10:
		return nil, &adapter.Error{Code: "too_long", Message: "too long"}
	}
	b, _ := json.Marshal(out)
	return b, nil
}

func TestPrepareRefuses(t *testing.T) {
	t.Parallel()
	noCorpus := toy
	noCorpus.Embedded = ""
	tests := []struct {
		name string
		def  *check.Definition
		spec check.Spec
		opts run.Options
		want string
	}{
		{"url and program", &toy, check.Spec{URL: "http://127.0.0.1:1/", Argv: []string{"x"}}, run.Options{}, "either --url or"},
		{"mode with a program", &toy, check.Spec{Mode: "lower", Argv: []string{"x"}}, run.Options{}, "--mode applies"},
		{"unknown mode", &toy, check.Spec{Mode: "nope"}, run.Options{}, `no broken mode "nope" (modes: lower, sloppy)`},
		{"a URL that is not http", &toy, check.Spec{URL: "ftp://x/"}, run.Options{}, "want an http:// or https:// URL"},
		{"env without a program", &toy, check.Spec{Env: []string{"A=1"}}, run.Options{}, "apply to a program after --"},
		{"negative parallel", &toy, check.Spec{}, run.Options{Parallel: -1}, "--parallel -1"},
		{"a selection of nothing", &toy, check.Spec{}, run.Options{Select: []string{"toy/none"}}, "toy/none"},
		{"a corpus the suite needs", &noCorpus, check.Spec{}, run.Options{}, "the toy suite needs --corpus DIR: a directory"},
		{"a missing baseline", &toy, check.Spec{}, run.Options{KnownFailing: "/nonexistent/baseline"}, "baseline /nonexistent/baseline"},
		{"a handler with a mode", &toy, check.Spec{Handler: upper{}, Mode: "lower"}, run.Options{}, "a Go handler"},
		{"a flag the suite lacks", &toy, check.Spec{}, run.Options{Flags: check.FlagValues{"pepper": "x"}}, "the toy suite has no flag --pepper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := run.Prepare(tt.def, tt.spec, tt.opts)
			var ue *check.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v (%T), want a usage error", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestVerdicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		spec    check.Spec
		strict  bool
		counts  check.Counts
		exit    int
		outcome string // the may check's recorded outcome
	}{
		{"honest", check.Spec{}, false, check.Counts{Pass: 3}, report.ExitOK, check.ChoseOutput},
		{"rejects what it may", check.Spec{Handler: upper{"refuse-long"}}, false, check.Counts{Pass: 3}, report.ExitOK, check.ChoseReject},
		{"fails a should check only", check.Spec{Mode: "sloppy"}, false, check.Counts{Pass: 1, Fail: 1, Warn: 1}, report.ExitFailed, ""},
		{"fails everything", check.Spec{Mode: "lower"}, false, check.Counts{Fail: 2, Warn: 1}, report.ExitFailed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan, err := run.Prepare(&toy, tt.spec, run.Options{Strict: tt.strict})
			if err != nil {
				t.Fatal(err)
			}
			res := plan.Execute(context.Background())
			if got := res.Execution.Counts(); got != tt.counts {
				t.Errorf("counts %+v, want %+v", got, tt.counts)
			}
			if got := res.ExitCode(); got != tt.exit {
				t.Errorf("exit %d, want %d", got, tt.exit)
			}
			if got := res.Execution.Results[2].Outcome; got != tt.outcome {
				t.Errorf("may outcome %q, want %q", got, tt.outcome)
			}
			for _, r := range res.Execution.Results {
				if r.Level == "" {
					t.Errorf("%s: no level", r.ID)
				}
			}
		})
	}
}

func TestShouldFailuresAloneAreWarnings(t *testing.T) {
	t.Parallel()
	only := func(strict bool) int {
		plan, err := run.Prepare(&toy, check.Spec{Mode: "sloppy"}, run.Options{Skip: []string{"toy/may/**"}, Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		return plan.Execute(context.Background()).ExitCode()
	}
	if got := only(false); got != report.ExitOK {
		t.Errorf("a run whose only failure is a should check exits %d, want 0", got)
	}
	if got := only(true); got != report.ExitFailed {
		t.Errorf("the same run under strict exits %d, want 1", got)
	}
	// Nothing passed and every check ran: a corpus of should-level
	// findings replays as fuzz judged it, conformant with warnings.
	for _, strict := range []bool{false, true} {
		plan, err := run.Prepare(&toy, check.Spec{Mode: "lower"}, run.Options{Select: []string{"toy/should/**"}, Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		res := plan.Execute(context.Background())
		want := report.ExitOK
		if strict {
			want = report.ExitFailed
		}
		if n := res.Execution.Counts(); n != (check.Counts{Warn: 1}) || res.ExitCode() != want || res.Report.Conformant != !strict {
			t.Errorf("warnings alone (strict %v): counts %+v, exit %d (want %d), conformant %v", strict, n, res.ExitCode(), want, res.Report.Conformant)
		}
	}
}

func TestUnstartableIsIncomplete(t *testing.T) {
	t.Parallel()
	plan, err := run.Prepare(&toy, check.Spec{Argv: []string{"/nonexistent/referee-toy-adapter"}}, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(context.Background())
	if res.StartErr == nil || res.Execution.Complete || res.ExitCode() != report.ExitIncomplete {
		t.Fatalf("start error %v, complete %v, exit %d", res.StartErr, res.Execution.Complete, res.ExitCode())
	}
	for _, r := range res.Execution.Results {
		if r.Status != check.Error || r.Level == "" {
			t.Errorf("%s: %s (level %q)", r.ID, r.Status, r.Level)
		}
	}
}

func TestBaselineAndFinish(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	known := filepath.Join(dir, "known")
	if err := os.WriteFile(known, []byte("toy/must/abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := run.Prepare(&toy, check.Spec{Mode: "lower"}, run.Options{KnownFailing: known, Skip: []string{"toy/should/**", "toy/may/**"}})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(context.Background())
	if res.ExitCode() != report.ExitFailed { // nothing passed
		t.Errorf("exit %d", res.ExitCode())
	}
	if b := res.Report.Baseline; b == nil || b.KnownFailing != 1 || b.Unexpected != 0 {
		t.Errorf("baseline %+v", res.Report.Baseline)
	}
	out := filepath.Join(dir, "written")
	notes, err := res.Finish(out)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "selected 1 of the suite's 3 checks") {
		t.Errorf("a selection's baseline: notes %q, err %v", notes, err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a selection wrote the baseline file: %v", err)
	}

	whole, err := run.Prepare(&toy, check.Spec{Mode: "lower"}, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := whole.Execute(context.Background()).Finish(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "toy/must/abc") {
		t.Errorf("baseline file %q, %v", b, err)
	}
}

func TestReproRepeatsSuiteFlags(t *testing.T) {
	t.Parallel()
	plan, err := run.Prepare(&toy, check.Spec{Mode: "lower"}, run.Options{Corpus: "some dir", Flags: check.FlagValues{"salt": "x y"}})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(context.Background())
	got := res.Execution.Results[0].Evidence.Repro
	want := "referee run toy --run toy/must/abc --corpus 'some dir' --salt 'x y' --mode lower"
	if got != want {
		t.Errorf("repro\n got %s\nwant %s", got, want)
	}
	if n, ok := res.Native(); !ok || n != 3 {
		t.Errorf("native %v %v", n, ok)
	}
}

// TestReproOfARunBoundSuite: a suite whose requests name what only the run
// serves gets, against an adapter service, the referee command that repeats
// the check, where another gets a curl of the request.
func TestReproOfARunBoundSuite(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(adapter.ServeHTTP(upper{"lower"}))
	defer srv.Close()
	bound := toy
	bound.RunBound = true
	for _, c := range []struct {
		def  *check.Definition
		want string
	}{
		{&toy, "curl -sS "},
		{&bound, "referee run toy --run toy/must/abc --url " + srv.URL},
	} {
		plan, err := run.Prepare(c.def, check.Spec{URL: srv.URL}, run.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := plan.Execute(context.Background())
		if got := res.Execution.Results[0].Evidence.Repro; !strings.HasPrefix(got, c.want) {
			t.Errorf("RunBound %v: repro %s, want it to start %s", c.def.RunBound, got, c.want)
		}
	}
}

// TestCompact: a compact run gives the verdicts, the report, the baseline
// it writes and the suite's native report of a whole one, holding neither
// the results nor the report's checks whole.
func TestCompact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	known := filepath.Join(dir, "known")
	if err := os.WriteFile(known, []byte("toy/must/abc\ntoy/may/**\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The durations and start differ between runs; nothing else may.
	steady := func(b []byte) string {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "started")
		delete(m, "duration_ms")
		for _, c := range m["checks"].([]any) {
			delete(c.(map[string]any), "duration_ms")
		}
		out, _ := json.Marshal(m)
		return string(out)
	}
	for _, tt := range []struct {
		name string
		spec check.Spec
		o    run.Options
	}{
		{"honest", check.Spec{}, run.Options{}},
		{"a should failure", check.Spec{Mode: "sloppy"}, run.Options{Strict: true}},
		{"failures, a baseline", check.Spec{Mode: "lower"}, run.Options{KnownFailing: known}},
		{"a may rejection, a shard", check.Spec{Handler: upper{"refuse-long"}}, run.Options{Shard: report.Shard{Index: 1, Count: 2}}},
	} {
		var reports, baselines, natives [2]string
		for i, compact := range []bool{false, true} {
			o := tt.o
			o.Compact = compact
			o.Parallel = 1 // request ids, which the evidence shows, in check order
			plan, err := run.Prepare(&toy, tt.spec, o)
			if err != nil {
				t.Fatal(err)
			}
			res := plan.Execute(context.Background())
			lean := compact && res.Execution.Len() > 0 // a shard may hold no check
			if res.Execution.Compact() != lean || (res.Execution.Results == nil) != lean || (res.Report.Checks == nil) != lean {
				t.Errorf("%s, compact %v: run compact %v, %d results, %d report checks", tt.name, compact, res.Execution.Compact(), len(res.Execution.Results), len(res.Report.Checks))
			}
			var b strings.Builder
			if err := report.WriteJSON(&b, res.Report); err != nil {
				t.Fatal(err)
			}
			reports[i] = steady([]byte(b.String())) + fmt.Sprint(res.ExitCode())
			out := filepath.Join(dir, fmt.Sprintf("%s-%v", tt.name, compact))
			if _, err := res.Finish(out); err != nil {
				t.Fatal(err)
			}
			written, _ := os.ReadFile(out)
			baselines[i] = strings.ReplaceAll(string(written), out, "FILE")
			n, _ := res.Native()
			natives[i] = fmt.Sprint(n)
		}
		if reports[0] != reports[1] || baselines[0] != baselines[1] || natives[0] != natives[1] {
			t.Errorf("%s: whole and compact runs differ:\n%s\n%s\n%q %q\n%s %s", tt.name, reports[0], reports[1], baselines[0], baselines[1], natives[0], natives[1])
		}
	}
}
