package cdc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// loadEmbedded loads the suite on the embedded release, 1.0.2.
func loadEmbedded(t *testing.T) *check.Loaded {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	l, err := Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLevels: every check has a level and a clause citing its layout's
// text; the may and should checks are exactly those the rules name.
func TestLevels(t *testing.T) {
	for _, tt := range []struct {
		name   string
		load   func(t *testing.T) *check.Loaded
		prefix []string // what an upstream check's clause starts with
		want   map[string]check.Level
	}{
		{"1.0.2", loadEmbedded, []string{"SPEC 1.0 ", "conformance/runner.mjs (1.0.2)"}, map[string]check.Level{
			"cdc/canonical/lone-surrogate":                         check.Must, // the 1.0 SPEC defines the bytes itself
			"cdc/supplement/integers/budget-written-with-fraction": check.Should,
		}},
		{"1.2.1", func(t *testing.T) *check.Loaded { return loadSuite(t, sharedCorpus(t)) }, []string{"SPEC 1.2 ", "docs/implementing.md"}, map[string]check.Level{
			"cdc/canonical/lone-surrogate":                         check.May,
			"cdc/narrowing/tool-args-dropped":                      check.May,
			"cdc/supplement/integers/budget-written-with-fraction": check.Should,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.load(t)
			for _, c := range l.Suite.Checks {
				want, ok := tt.want[c.ID]
				if !ok {
					want = check.Must
				}
				if c.LevelOf() != want || c.Level == "" {
					t.Errorf("%s: level %q, want %s", c.ID, c.Level, want)
				}
				upstream := !strings.HasPrefix(c.ID, supplementPrefix)
				cites := false
				for _, p := range tt.prefix {
					cites = cites || strings.HasPrefix(c.Clause, p)
				}
				switch {
				case c.Clause == "":
					t.Errorf("%s: no clause", c.ID)
				case upstream && want == check.Must && !cites:
					t.Errorf("%s: clause %q cites no text of its layout (%v)", c.ID, check.Clip(c.Clause), tt.prefix)
				}
			}
			for id := range tt.want {
				if !hasCheck(l.Suite, id) {
					t.Errorf("no check %s", id)
				}
			}
		})
	}
}

func hasCheck(s *check.Suite, id string) bool {
	for _, c := range s.Checks {
		if c.ID == id {
			return true
		}
	}
	return false
}

// keepToolArgs is the honest built-in, except that narrow keeps a
// declared allow.tool_args in the grant, as SPEC 1.2 §4.4 permits.
type keepToolArgs struct{ *Handler }

func (k keepToolArgs) Handle(ctx context.Context, op string, raw []byte) (json.RawMessage, *adapter.Error) {
	out, aerr := k.Handler.Handle(ctx, op, raw)
	if op != OpNarrow || aerr != nil {
		return out, aerr
	}
	args, _ := canon.Parse(raw, canon.ReadOptions{})
	declared, _ := args.Lookup("declared")
	reply, _ := canon.Parse(out, canon.ReadOptions{})
	granted, ok := reply.Lookup("granted")
	if !ok {
		return out, nil
	}
	kept, ok := toolArgsKept(json.RawMessage(declared.String()), json.RawMessage(granted.String()))
	if !ok {
		return out, nil
	}
	return json.RawMessage(`{"granted":` + string(kept) + `}`), nil
}

// TestMayChoices: a may check passes on each permitted outcome, records
// which, and fails any other.
func TestMayChoices(t *testing.T) {
	l := loadSuite(t, sharedCorpus(t))
	result := func(run *check.Execution, id string) check.Result {
		for _, r := range run.Results {
			if r.ID == id {
				return r
			}
		}
		t.Fatalf("no result for %s", id)
		return check.Result{}
	}
	for _, tt := range []struct {
		name   string
		start  adapter.Starter
		id     string
		status check.Status
		choice string
	}{
		{"the vector's bytes", reference(t, l, ""), "cdc/canonical/lone-surrogate", check.Pass, check.ChoseOutput},
		{"a strict RFC 8785 library", reference(t, l, "reject-surrogates"), "cdc/canonical/lone-surrogate", check.Pass, check.ChoseReject},
		{"U+FFFD for the surrogate", reference(t, l, "html-escape"), "cdc/canonical/lone-surrogate", check.Fail, ""},
		{"tool_args omitted", reference(t, l, ""), "cdc/narrowing/tool-args-dropped", check.Pass, choseOmitted},
		{"tool_args kept as declared", adapter.InProcess(keepToolArgs{honest(t, l)}), "cdc/narrowing/tool-args-dropped", check.Pass, choseKept},
		{"the declaration granted as it stands", reference(t, l, "narrow-passthrough"), "cdc/narrowing/tool-args-dropped", check.Fail, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := checktest.Execute(t, l.Suite, tt.start)
			r := result(run, tt.id)
			if r.Status != tt.status || r.Outcome != tt.choice {
				t.Errorf("%s: %s with outcome %q (%s), want %s with %q", tt.id, r.Status, r.Outcome, r.Reason, tt.status, tt.choice)
			}
		})
	}
	// On the 1.0 layout the lone surrogate is a must: rejecting it fails.
	e := loadEmbedded(t)
	run := checktest.Execute(t, e.Suite, reference(t, e, "reject-surrogates"))
	if r := result(run, "cdc/canonical/lone-surrogate"); r.Status != check.Fail {
		t.Errorf("1.0.2: a rejected lone surrogate is %s, want fail", r.Status)
	}
}

// TestPermittedChoicesConform: an implementation whose only differences
// from the built-in are the choices the contract permits (a strict RFC 8785
// library's rejection of a lone surrogate, allow.tool_args kept in a grant)
// and one it should not make (refusing 200.0 as an integer) is conformant,
// with one warning.
func TestPermittedChoicesConform(t *testing.T) {
	dir := sharedCorpus(t)
	l := loadSuite(t, dir)
	h, err := l.Reference("reject-surrogates")
	if err != nil {
		t.Fatal(err)
	}
	h.(*Handler).mode.integerLexeme = true
	plan, err := run.Prepare(&Definition, check.Spec{Handler: keepToolArgs{h.(*Handler)}}, run.Options{Corpus: dir, Tool: fuzzTool})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(t.Context())
	n := res.Report.Counts
	if res.ExitCode() != report.ExitOK || n.Fail != 0 || n.Warn != 1 || n.Pass != len(res.Execution.Results)-1 {
		t.Errorf("exit %d, %+v; want conformant with one warning", res.ExitCode(), n)
	}
	chose := map[string]string{}
	for _, r := range res.Execution.Results {
		if r.Outcome != "" {
			chose[r.ID] = r.Outcome
		}
	}
	if chose["cdc/canonical/lone-surrogate"] != check.ChoseReject || chose["cdc/narrowing/tool-args-dropped"] != choseKept {
		t.Errorf("outcomes %v", chose)
	}
}
