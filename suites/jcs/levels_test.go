package jcs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

func nested(depth int) string {
	return strings.Repeat("[", depth-1) + `{"b":1,"a":2}` + strings.Repeat("]", depth-1)
}

func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`1`: 0, `"a"`: 0, `[]`: 1, `{}`: 1, `{"a":1}`: 1, `[[1]]`: 2, `[[]]`: 2,
		`[1,[2,[3]],{}]`: 3, `{"a":{"b":[]},"c":0}`: 3, nested(64): 64, nested(65): 65,
	} {
		v, err := canon.Parse([]byte(in), canon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := Depth(v); got != want {
			t.Errorf("Depth(%.30s) = %d, want %d", in, got, want)
		}
	}
}

// TestLevels asserts the level of representative vectors, embedded and in
// the RFC 8785 layout: the level follows from the input, not the name.
func TestLevels(t *testing.T) {
	embedded := map[string]*check.Check{}
	s := embeddedSuite(t)
	for i := range s.Checks {
		embedded[s.Checks[i].ID] = &s.Checks[i]
	}
	for _, tt := range []struct {
		id   string
		want check.Level
	}{
		{"jcs/nesting/depth-33", check.Must},
		{"jcs/nesting/depth-64", check.Must},
		{"jcs/nesting/depth-64-objects", check.Must},
		{"jcs/nesting/depth-65", check.May},
		{"jcs/nesting/arrays-129", check.May},
		{"jcs/nesting/objects-1000", check.May},
		{"jcs/rejects/duplicate-key", check.Should},
		{"jcs/rejects/duplicate-key-nested", check.Should},
		{"jcs/rejects/duplicate-key-escaped", check.Should},
		{"jcs/rejects/lone-high-surrogate", check.Must},
		{"jcs/rejects/reversed-pair", check.Must},
		{"jcs/rejects/overflow", check.Must},
		{"jcs/numbers/1e-7", check.Must},
		{"jcs/numbers/1e21", check.May},
		{"jcs/numbers/2-pow-53", check.May},
		{"jcs/strings/ffff", check.May},
		{"jcs/strings/private-use", check.Must},
		{"jcs/numbers/top-level", check.Must},
		{"jcs/keys/utf16-fffd", check.Must},
		{"jcs/grammar/trailing-comma-array", check.Should},
		{"jcs/grammar/truncated/10", check.Must},
		{"jcs/grammar/two-texts", check.Must},
		{"jcs/appendix-b/7fffffffffffffff", check.Must},
		{"jcs/appendix-b/4340000000000000", check.May},
		{"jcs/appendix-b/43143ff3c1cb0959", check.Must},
		{"jcs/utf8/overlong-solidus", check.Must},
		{"jcs/names/proto", check.Must},
		{"jcs/surrogates/high-high", check.Must},
		{"jcs/top-level/number-spaces", check.Must},
		{"jcs/top-level/true-tabs", check.Must},
		{"jcs/scale/doubles-below-2-53/1", check.Must},
		{"jcs/scale/doubles-from-2-53/1", check.May},
		{"jcs/keys/utf16-vs-codepoint", check.Must},
	} {
		c := embedded[tt.id]
		if c == nil {
			t.Errorf("no check %s", tt.id)
			continue
		}
		if c.LevelOf() != tt.want || c.Clause == "" {
			t.Errorf("%s: level %s, clause %q; want %s with a clause", tt.id, c.LevelOf(), c.Clause, tt.want)
		}
	}
	for _, c := range s.Checks {
		if c.Clause == "" {
			t.Errorf("%s has no clause", c.ID)
		}
	}

	// A corpus in the RFC 8785 layout, with names that say nothing.
	dir := t.TempDir()
	files := map[string]string{
		"input/a.json": nested(65), "output/a.json": nested65Out,
		"input/b.json": nested(64), "output/b.json": nestedOut(64),
		"input/c.json": `{"x": [1.0]}`, "output/c.json": `{"x":[1]}`,
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]check.Level{"jcs/rfc8785/a": check.May, "jcs/rfc8785/b": check.Must, "jcs/rfc8785/c": check.Must}
	rfc := loadSuite(t, dir)
	for _, c := range rfc.Checks {
		if c.LevelOf() != want[c.ID] {
			t.Errorf("%s: level %s, want %s", c.ID, c.LevelOf(), want[c.ID])
		}
	}
	h, _ := Reference("")
	if n := runSuite(t, rfc, adapter.InProcess(h)).Counts(); n.Pass != 3 {
		t.Errorf("reference on the layout corpus: %+v", n)
	}

	// A referee-jcs/1 corpus: the level comes from the input, whatever the name.
	vdir := t.TempDir()
	doc := `{"format":"referee-jcs/1","vectors":[
	  {"name":"nesting/dup","doc":"d","input":"{\"a\":1,\"a\":2}","reject":true},
	  {"name":"x/deep","doc":"d","input":` + quote(t, nested(65)) + `,"output":` + quote(t, nested65Out) + `},
	  {"name":"rejects/not-json","doc":"d","input":"[1 2]","reject":true},
	  {"name":"rejects/dup-and-surrogate","doc":"d","input":"{\"a\":\"\\ud800\",\"a\":1}","reject":true},
	  {"name":"rejects/surrogate-and-dup","doc":"d","input":"{\"a\":1,\"a\":\"\\ud800\"}","reject":true}]}`
	if err := os.WriteFile(filepath.Join(vdir, VectorsFile), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	// The lone surrogate is in a value that the duplicate replaces: read
	// last-wins, as an implementation that takes parsed values reads it,
	// nothing else is wrong, so the duplicate is the only fault.
	want = map[string]check.Level{"jcs/nesting/dup": check.Should, "jcs/x/deep": check.May, "jcs/rejects/not-json": check.Must, "jcs/rejects/dup-and-surrogate": check.Should, "jcs/rejects/surrogate-and-dup": check.Must}
	for _, c := range loadSuite(t, vdir).Checks {
		if c.LevelOf() != want[c.ID] {
			t.Errorf("%s: level %s, want %s", c.ID, c.LevelOf(), want[c.ID])
		}
	}
}

// nestedOut is the canonical text of nested(depth).
func nestedOut(depth int) string {
	return strings.Repeat("[", depth-1) + `{"a":2,"b":1}` + strings.Repeat("]", depth-1)
}

var nested65Out = nestedOut(65)

func quote(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixed is an in-process implementation that answers every canonicalJson
// with reply: an err when reply is "", else ok with the text reply.
type fixed struct{ reply string }

func (f fixed) Hello() adapter.Hello {
	return adapter.Hello{Name: "fixed", Version: "1", Ops: []string{Op}, Concurrency: 1}
}

func (f fixed) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	if f.reply == "" {
		return nil, &adapter.Error{Code: "too_deep", Message: "refused"}
	}
	b, _ := json.Marshal(f.reply)
	return b, nil
}

// only returns s with the checks whose IDs are given.
func only(t *testing.T, s *check.Suite, ids ...string) *check.Suite {
	t.Helper()
	out := *s
	out.Checks = nil
	for _, c := range s.Checks {
		for _, id := range ids {
			if c.ID == id {
				out.Checks = append(out.Checks, c)
			}
		}
	}
	if len(out.Checks) != len(ids) {
		t.Fatalf("found %d of the checks %v", len(out.Checks), ids)
	}
	return &out
}

// TestMayCheck: beyond depth 64 a rejection and the correct text both pass,
// each recording its choice, and a wrong text fails.
func TestMayCheck(t *testing.T) {
	s := only(t, embeddedSuite(t), "jcs/nesting/depth-65")
	honest, _ := Reference("")
	for _, tt := range []struct {
		name    string
		h       adapter.Handler
		status  check.Status
		outcome string
	}{
		{"rejects", fixed{}, check.Pass, check.ChoseReject},
		{"correct", honest, check.Pass, check.ChoseOutput},
		{"correct, fixed", fixed{nested65Out}, check.Pass, check.ChoseOutput},
		{"wrong output", fixed{strings.Replace(nested65Out, `{"a":2,"b":1}`, `{"b":1,"a":2}`, 1)}, check.Fail, ""},
		{"not the text", fixed{"[]"}, check.Fail, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := checktest.Execute(t, s, adapter.InProcess(tt.h))
			r := run.Results[0]
			if r.Status != tt.status || r.Outcome != tt.outcome || r.Level != check.May {
				t.Errorf("result = %s (%s) level %s, want %s (%q) level may: %s", r.Status, r.Outcome, r.Level, tt.status, tt.outcome, r.Reason)
			}
			if n := run.Counts(); tt.status == check.Fail && n.Fail != 1 {
				t.Errorf("a failed may check counts as %+v, want a failure", n)
			}
		})
	}
	// At depth 64 the same rejection is a must failure.
	run := checktest.Execute(t, only(t, embeddedSuite(t), "jcs/nesting/depth-64"), adapter.InProcess(fixed{}))
	if r := run.Results[0]; r.Status != check.Fail || r.Level != check.Must || len(r.Evidence.Notes) == 0 {
		t.Errorf("depth 64 rejected: %+v", r)
	}
}

// TestShouldCheck: accepting a duplicate name is a warning whose reason says
// why, and a rejection passes.
func TestShouldCheck(t *testing.T) {
	s := only(t, embeddedSuite(t), "jcs/rejects/duplicate-key", "jcs/rejects/lone-high-surrogate")
	run := checktest.Execute(t, s, adapter.InProcess(fixed{`{"a":2}`}))
	if n := run.Counts(); n.Warn != 1 || n.Fail != 1 {
		t.Errorf("counts %+v, want one warning (duplicates) and one failure (surrogate)", n)
	}
	r := run.Results[0]
	if r.Level != check.Should || r.Status != check.Fail || !strings.Contains(r.Reason, "constraint on the data") || !strings.Contains(r.Reason, "RFC 7493 §2.3") {
		t.Errorf("duplicate accepted: %s %s: %s", r.Level, r.Status, r.Reason)
	}
	if n := checktest.Execute(t, s, adapter.InProcess(fixed{})).Counts(); n.Pass != 2 {
		t.Errorf("rejecting both: %+v", n)
	}
}

// TestDepthMode: depth-32 fails the must-level depth checks and passes the
// may-level ones by rejecting.
func TestDepthMode(t *testing.T) {
	h, _ := Reference("depth-32")
	run := runSuite(t, embeddedSuite(t), adapter.InProcess(h))
	for _, r := range run.Results {
		if !strings.HasPrefix(r.ID, "jcs/nesting/") {
			continue
		}
		switch r.Level {
		case check.Must:
			if r.Status != check.Fail {
				t.Errorf("%s: %s under depth-32", r.ID, r.Status)
			}
		case check.May:
			if r.Status != check.Pass || r.Outcome != check.ChoseReject {
				t.Errorf("%s: %s (%s) under depth-32", r.ID, r.Status, r.Outcome)
			}
		}
	}
}

func TestLoadOptions(t *testing.T) {
	_, err := run.Prepare(&Definition, check.Spec{}, run.Options{Flags: check.FlagValues{"record": "x"}})
	var ue *check.UsageError
	if !errors.As(err, &ue) {
		t.Errorf("a flag the suite does not have: %v, want a usage error", err)
	}
	_, err = Definition.Load(check.LoadOptions{Corpus: filepath.Join(t.TempDir(), "missing")})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing corpus: %v", err)
	}
	a, _ := Definition.Load(check.LoadOptions{})
	b, _ := Definition.Load(check.LoadOptions{})
	if a.Suite == b.Suite || &a.Suite.Checks[0] == &b.Suite.Checks[0] {
		t.Error("two loads share their suite")
	}
	if err := Definition.CheckMode("depth-32"); err != nil {
		t.Error(err)
	}
	if err := Definition.CheckMode("depth-128"); err == nil {
		t.Error("depth-128 is still a mode")
	}
}

// TestVerdicts runs the suite through the run pipeline, as `referee run`
// does: failed should checks are warnings that block only under strict,
// may checks pass by rejection, and depth below 64 must work.
func TestVerdicts(t *testing.T) {
	for _, tt := range []struct {
		name   string
		spec   check.Spec
		o      run.Options
		exit   int
		counts func(check.Counts) bool
	}{
		{"honest", check.Spec{}, run.Options{}, report.ExitOK, func(n check.Counts) bool { return n.Fail+n.Warn+n.Error == 0 }},
		{"duplicates accepted", check.Spec{Mode: "accept-duplicates"}, run.Options{}, report.ExitOK, func(n check.Counts) bool { return n.Warn == 3 && n.Fail == 0 }},
		{"duplicates accepted, strict", check.Spec{Mode: "accept-duplicates"}, run.Options{Strict: true}, report.ExitFailed, func(n check.Counts) bool { return n.Warn == 3 && n.Fail == 0 }},
		{"depth limit 32", check.Spec{Mode: "depth-32"}, run.Options{}, report.ExitFailed, func(n check.Counts) bool { return n.Fail == 3 && n.Warn == 0 }},
		{"rejects deep nesting", check.Spec{Handler: fixed{}}, run.Options{Select: []string{"jcs/nesting/arrays-*", "jcs/nesting/objects-1000", "jcs/nesting/depth-65"}}, report.ExitOK, func(n check.Counts) bool { return n.Pass == 5 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := run.Prepare(&Definition, tt.spec, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			res := plan.Execute(t.Context())
			if code := res.ExitCode(); code != tt.exit || !tt.counts(res.Report.Counts) {
				t.Errorf("exit %d, counts %+v; want exit %d", code, res.Report.Counts, tt.exit)
			}
		})
	}
}

// TestThroughCheckTest runs the suite as a Go JCS library's tests would,
// with duplicate keys accepted: warnings only, so the test passes.
func TestThroughCheckTest(t *testing.T) {
	h, _ := Reference("accept-duplicates")
	res := checktest.Suite(t, &Definition, check.Spec{Handler: h}, run.Options{})
	if n := res.Report.Counts; n.Warn != 3 || n.Fail != 0 {
		t.Errorf("counts %+v", n)
	}
}

// TestNonFiniteDroppedByDuplicate: a NaN or an Infinity that a later
// duplicate name replaces leaves nothing RFC 8785 §3.2.2.3 refuses in the
// data, read last-wins: {"a":NaN,"a":1} is judged as {"a":1e400,"a":1}
// is, a should, and the output {"a":1} of that reading is a warning for
// both. One the last duplicate keeps stays a must. Text that is not JSON
// is judged as text: any other output changes its value, a must (JSON
// with duplicate names takes any output as a warning). The fuzzer's
// vector and the corpus it writes, read back, agree.
func TestNonFiniteDroppedByDuplicate(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  check.Level
	}{
		{`{"a":NaN,"a":1}`, check.Should},
		{`{"a":1e400,"a":1}`, check.Should},
		{`{"a":-Infinity,"a":1}`, check.Should},
		{`[{"a":Infinity,"b":2,"a":[1]}]`, check.Should},
		{`{"a":1,"a":NaN}`, check.Must},
		{`{"a":1,"a":1e400}`, check.Must},
		{`{"a":NaN,"b":1}`, check.Must},
		{`[NaN]`, check.Must},
	} {
		t.Run(tc.input, func(t *testing.T) {
			entry, ok := fuzzVector("fuzz-test", []byte(tc.input))
			if !ok {
				t.Fatal("no vector")
			}
			checks, err := check.FuzzChecks(&Definition, Definition.Fuzz, entry)
			if err != nil || len(checks) != 1 {
				t.Fatalf("no checks (%v, %d checks)", err, len(checks))
			}
			if got := checks[0].LevelOf(); got != tc.want {
				t.Errorf("the fuzzer judges it %s, want %s", got, tc.want)
			}
			files, err := fuzzSpec.Files([]any{entry})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for name, b := range files {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := loadSuite(t, dir)
			if len(s.Checks) != 1 || s.Checks[0].LevelOf() != checks[0].LevelOf() {
				t.Fatalf("the corpus written judges it %v, the fuzzer %s", s.Checks, checks[0].LevelOf())
			}
			if tc.want != check.Should {
				return
			}
			// The lenient reading's output is a warning; another is a must.
			lenient := fixed{`{"a":1}`}
			if strings.HasPrefix(tc.input, "[") {
				lenient = fixed{`[{"a":[1],"b":2}]`}
			}
			other := check.Must
			if !strings.ContainsAny(tc.input, "NI") {
				other = check.Should
			}
			for _, tt := range []struct {
				h    fixed
				want check.Level
			}{{lenient, check.Should}, {fixed{`{"a":null}`}, other}} {
				r := checktest.Execute(t, s, adapter.InProcess(tt.h)).Results[0]
				if r.Status != check.Fail || r.Level != tt.want {
					t.Errorf("answered %s: %s at %s, want a failure at %s: %s", tt.h.reply, r.Status, r.Level, tt.want, r.Reason)
				}
			}
		})
	}
}
