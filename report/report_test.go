package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/golden"
)

// sampleRun has one result of each status, with evidence, and one of each
// level: a failed should check (a warning) and a may check that passed with
// the outcome it chose.
func sampleRun() *check.Execution {
	exp, act := "{\"\U0001F602\":2,\"\uFB33\":1}", "{\"\uFB33\":1,\"\U0001F602\":2}" // U+FB33 sorts before U+1F602 by code point, after it by UTF-16 unit
	return &check.Execution{
		Started:  time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Duration: 1234 * time.Millisecond,
		Complete: true,
		Restarts: 1,
		Results: []check.Result{
			{ID: "jcs/numbers/1e21", Status: check.Pass, Level: check.Must, Duration: 1500 * time.Microsecond},
			{
				ID: "jcs/keys/utf16-vs-codepoint", Status: check.Fail, Level: check.Must, Reason: "canonical text differs at byte 2",
				Expected: exp, Actual: act, Duration: 2 * time.Millisecond,
				Evidence: check.Evidence{
					Diff:      check.DiffBytes([]byte(exp), []byte(act)),
					Exchanges: []adapter.Exchange{{Request: []byte(`{"id":7,"op":"canonicalJson","args":{"value_text":"{}"}}`), Reply: []byte(`{"id":7,"ok":"{}"}`)}},
					Stderr:    "line one\nline two\n",
					Repro:     `printf '%s\n' '{"id":0}' | node a.mjs`,
				},
			},
			{ID: "jcs/strings/line-separators", Status: check.Fail, Level: check.Must, Reason: "control", Expected: "\u2028\x01", Actual: "\\u2028\xed\xa0\x80"},
			{ID: "jcs/rejects/duplicate-key", Status: check.NotChecked, Level: check.Should, Reason: "adapter offers no canonicalJson"},
			{ID: "jcs/nesting/arrays-129", Status: check.Error, Level: check.May, Reason: "adapter timeout: no reply to canonicalJson (id 9) in time",
				Evidence: check.Evidence{Notes: []string{`offending line: "garbage"`}}},
			{
				ID: "jcs/rejects/duplicate-key-nested", Status: check.Fail, Level: check.Should, Reason: "accepted an input that RFC 8785 requires to be rejected",
				Expected: "an error", Actual: `ok {"a":2}`, Duration: 300 * time.Microsecond,
				Evidence: check.Evidence{
					Exchanges: []adapter.Exchange{{Request: []byte(`{"id":8,"op":"canonicalJson","args":{"value_text":"{\"a\":1,\"a\":2}"}}`), Reply: []byte(`{"id":8,"ok":"{\"a\":2}"}`)}},
					Repro:     `printf '%s\n' '{"id":0}' | node a.mjs`,
				},
			},
			{ID: "jcs/nesting/depth-100", Status: check.Pass, Level: check.May, Outcome: check.ChoseReject, Duration: 700 * time.Microsecond},
		},
	}
}

func sampleReport(strict bool) *Report {
	return New(Tool{Name: "referee", Version: "1.2.3"},
		Suite{Name: "jcs", Version: "1.0.0", Corpus: "embedded:jcs", CorpusDigest: "sha256:" + strings.Repeat("ab", 32)},
		Implementation{Name: "jcs-node", Version: "1.0.0", Ops: []string{"canonicalJson"}, Transport: "stdio", Command: []string{"node", "a.mjs"}},
		sampleRun(), strict)
}

func goldenFile(name string) string { return filepath.Join("testdata", name) }

func TestGoldenText(t *testing.T) {
	for _, tc := range []struct {
		strict bool
		file   string
	}{{false, "report.txt"}, {true, "report-strict.txt"}} {
		var b bytes.Buffer
		if err := WriteText(&b, sampleReport(tc.strict), TextOptions{Passes: true}); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, goldenFile(tc.file), b.Bytes())
		if strings.Contains(b.String(), "\x1b[") {
			t.Error("colour written with Color false")
		}
	}
	var b bytes.Buffer
	WriteText(&b, sampleReport(false), TextOptions{Color: true})
	if !strings.Contains(b.String(), "\x1b[31mFAIL") || !strings.Contains(b.String(), "\x1b[33mWARN") {
		t.Errorf("no red FAIL or yellow WARN with Color true:\n%q", b.String())
	}
	if strings.Contains(b.String(), "jcs/numbers/1e21") || strings.Contains(b.String(), "jcs/nesting/depth-100") {
		t.Error("a pass listed with Passes false")
	}
}

// TestTextLevels: a failed should check is a WARN line with its evidence, a
// passing may check names its outcome, the summary counts warnings apart
// and, under strict, a line says they block.
func TestTextLevels(t *testing.T) {
	text := func(strict bool) string {
		var b bytes.Buffer
		if err := WriteText(&b, sampleReport(strict), TextOptions{Passes: true}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	plain, strict := text(false), text(true)
	for _, want := range []string{
		"\nWARN  jcs/rejects/duplicate-key-nested  accepted an input that RFC 8785 requires to be rejected\n" +
			"      expected: an error\n      actual:   ok {\"a\":2}\n",
		"\nPASS  jcs/nesting/depth-100 (may: rejected)\n",
		"\nPASS  jcs/numbers/1e21\n",
		"\nFAIL  jcs/keys/utf16-vs-codepoint  canonical text differs at byte 2\n",
		"\n2 passed, 2 failed, 1 warnings, 1 not checked, 1 errors\nNOT CONFORMANT (",
	} {
		if !strings.Contains(plain, want) {
			t.Errorf("text report lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "STRICT") || strings.Contains(plain, "FAIL  jcs/rejects/duplicate-key-nested") {
		t.Errorf("without strict, a warning reads as blocking:\n%s", plain)
	}
	if want := "\nSTRICT 1 warnings (failed should checks) block conformance under --strict\n2 passed, 2 failed, 1 warnings, 1 not checked, 1 errors\n"; !strings.Contains(strict, want) {
		t.Errorf("strict text report lacks %q:\n%s", want, strict)
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		n    check.Counts
		want string
	}{
		{check.Counts{Pass: 180, Fail: 2, Warn: 3, NotChecked: 1}, "180 passed, 2 failed, 3 warnings, 1 not checked, 0 errors"},
		// No warning: the summary line of referee-report/1, unchanged.
		{check.Counts{Pass: 180, Fail: 2, NotChecked: 1, Error: 4}, "180 passed, 2 failed, 1 not checked, 4 errors"},
		{check.Counts{Warn: 1}, "0 passed, 0 failed, 1 warnings, 0 not checked, 0 errors"},
	}
	for _, tt := range tests {
		if got := Summary(tt.n); got != tt.want {
			t.Errorf("Summary(%+v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestGoldenJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleReport(false)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("report.json"), b.Bytes())
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if Format != "referee-report/2" {
		t.Errorf("Format %q", Format)
	}
	if back.Format != Format ||
		back.Counts != (check.Counts{Pass: 2, Fail: 2, Warn: 1, NotChecked: 1, Error: 1}) || back.Conformant {
		t.Errorf("read back: format %q counts %+v conformant %v", back.Format, back.Counts, back.Conformant)
	}
	for _, c := range back.Checks {
		wantOutcome := ""
		if c.ID == "jcs/nesting/depth-100" {
			wantOutcome = "rejected"
		}
		if c.Level == "" || c.Outcome != wantOutcome {
			t.Errorf("%s: level %q outcome %q", c.ID, c.Level, c.Outcome)
		}
	}
	// The members as written, not as package report reads them back.
	var raw struct {
		Counts map[string]int   `json:"counts"`
		Checks []map[string]any `json:"checks"`
	}
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw.Counts["warn"]; !ok || len(raw.Counts) != 5 {
		t.Errorf("counts %v: want pass, fail, warn, not_checked, error", raw.Counts)
	}
	for _, c := range raw.Checks {
		if _, ok := c["level"]; !ok {
			t.Errorf("%s has no level", c["id"])
		}
		if _, ok := c["outcome"]; ok != (c["id"] == "jcs/nesting/depth-100") {
			t.Errorf("%s: outcome present %v", c["id"], ok)
		}
	}
}

// TestLevelDefaults: a result with no level (made outside check.Execute) is
// a must; a may check's outcome is reported only when it passed, and a
// must check's never.
func TestLevelDefaults(t *testing.T) {
	run := &check.Execution{Complete: true, Results: []check.Result{
		{ID: "x/a", Status: check.Pass},
		{ID: "x/b", Status: check.Pass, Level: check.Must, Outcome: "output"},
		{ID: "x/c", Status: check.Fail, Level: check.May, Outcome: "output", Reason: "r"},
		{ID: "x/d", Status: check.Pass, Level: check.May},
	}}
	r := New(Tool{}, Suite{}, Implementation{}, run, false)
	for i, want := range [][2]string{{"must", ""}, {"must", ""}, {"may", ""}, {"may", ""}} {
		if c := r.Checks[i]; [2]string{c.Level, c.Outcome} != want {
			t.Errorf("%s: level %q outcome %q, want %q", c.ID, c.Level, c.Outcome, want)
		}
	}
}

func TestGoldenJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sampleReport(false)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("report.junit.xml"), b.Bytes())
	// The XML parses, and each status lands in its own element (h2spec's bug was
	// filing failures as errors).
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	cases := doc.Suites[0].Cases
	if cases[0].Failure != nil || cases[0].Error != nil || cases[0].Skipped != nil {
		t.Error("a pass has a problem element")
	}
	if cases[1].Failure == nil || cases[1].Error != nil {
		t.Error("a fail is not a <failure>")
	}
	if cases[3].Skipped == nil || cases[3].Failure != nil {
		t.Error("a not-checked is not <skipped>")
	}
	if cases[4].Error == nil || cases[4].Failure != nil {
		t.Error("an error is not an <error>")
	}
	if doc.Tests != 7 || doc.Failures != 2 || doc.Errors != 1 || doc.Suites[0].Skipped != 1 {
		t.Errorf("totals = %+v", doc)
	}
	for i, want := range []string{"must", "must", "must", "should", "may", "should", "may"} {
		if !strings.HasPrefix(cases[i].SystemOut, "level: "+want+"\n") {
			t.Errorf("%s: system-out %q, want it to open with level: %s", cases[i].Name, cases[i].SystemOut, want)
		}
	}
	if got := cases[6].SystemOut; got != "level: may\noutcome: rejected\n" {
		t.Errorf("a passing may check: system-out %q", got)
	}
	var strict bytes.Buffer
	if err := WriteJUnit(&strict, sampleReport(true)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("report-strict.junit.xml"), strict.Bytes())
}

// TestJUnitWarning: a failed should check is a passed testcase that says
// why it warns, except under strict, where it is a <failure type="should">.
func TestJUnitWarning(t *testing.T) {
	run := func() *check.Execution {
		return &check.Execution{Complete: true, Results: []check.Result{
			{ID: "jcs/keys/a", Status: check.Pass, Level: check.Must},
			{ID: "jcs/rejects/dup", Status: check.Fail, Level: check.Should, Reason: "accepted a duplicate name", Expected: "an error", Actual: "ok {}",
				Evidence: check.Evidence{Stderr: "log\n"}},
		}}
	}
	for _, tc := range []struct {
		name     string
		strict   bool
		known    string
		failures int
		typ      string
		out      string
	}{
		{"warning", false, "", 0, "", "level: should\nwarning: accepted a duplicate name\nexpected: an error\nactual:   ok {}\n"},
		{"strict", true, "", 1, "should", "level: should\n"},
		{"warning, listed", false, check.KnownFailing, 0, "", "level: should\nwarning: accepted a duplicate name\nknown: failing\nexpected: an error\nactual:   ok {}\n"},
		{"strict, listed", true, check.KnownFailing, 1, "should (known failing)", "level: should\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rn := run()
			rn.Results[1].Known = tc.known
			var b bytes.Buffer
			if err := WriteJUnit(&b, New(Tool{}, Suite{Name: "jcs"}, Implementation{}, rn, tc.strict)); err != nil {
				t.Fatal(err)
			}
			var doc junitSuites
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			s, c := doc.Suites[0], doc.Suites[0].Cases[1]
			if doc.Failures != tc.failures || s.Failures != tc.failures || s.Errors != 0 || s.Skipped != 0 || s.Tests != 2 {
				t.Errorf("totals %+v / %+v, want %d failures", doc, s, tc.failures)
			}
			if (c.Failure != nil) != (tc.typ != "") || c.Error != nil || c.Skipped != nil {
				t.Fatalf("testcase %+v", c)
			}
			if c.Failure != nil && (c.Failure.Type != tc.typ || c.Failure.Message != "accepted a duplicate name" || !strings.HasPrefix(c.Failure.Text, "expected: an error\n")) {
				t.Errorf("failure %+v", c.Failure)
			}
			if c.SystemOut != tc.out || c.SystemErr != "log\n" {
				t.Errorf("system-out %q system-err %q, want %q", c.SystemOut, c.SystemErr, tc.out)
			}
			props := map[string]string{}
			for _, p := range s.Properties {
				props[p.Name] = p.Value
			}
			if props["warnings"] != "1" || props["format"] != Format {
				t.Errorf("properties %v", props)
			}
		})
	}
}

// junitSchema restates, as data, the rules of Jenkins xUnit's
// junit-10.xsd (jenkinsci/xunit-plugin, MIT) for every element referee
// writes: the attributes each may carry, those it must carry, and the
// children it may hold. The schema itself is not copied into this
// repository; these rules were written from reading it.
var junitSchema = map[string]struct {
	attrs, required, children []string
}{
	"testsuites": {attrs: []string{"name", "time", "tests", "failures", "errors"}, children: []string{"testsuite"}},
	"testsuite": {
		attrs:    []string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		required: []string{"name", "tests", "failures", "errors"},
		children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"},
	},
	"properties": {children: []string{"property"}},
	"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
	"testcase": {
		attrs: []string{"name", "time", "classname", "group"}, required: []string{"name"},
		children: []string{"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"},
	},
	"failure":    {attrs: []string{"type", "message"}},
	"error":      {attrs: []string{"type", "message"}},
	"skipped":    {attrs: []string{"type", "message"}},
	"system-out": {},
	"system-err": {},
}

// surefireTime is the schema's SUREFIRE_TIME pattern for time attributes.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// TestJUnitWithinXSD holds the JUnit report, strict and not, and that of an
// incomplete run, to junit-10.xsd's rules (junitSchema).
func TestJUnitWithinXSD(t *testing.T) {
	reports := map[string]*Report{"lenient": sampleReport(false), "strict": sampleReport(true)}
	incomplete := sampleReport(false)
	incomplete.Complete = false
	reports["incomplete"] = incomplete
	for name, rep := range reports {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJUnit(&b, rep); err != nil {
				t.Fatal(err)
			}
			dec := xml.NewDecoder(&b)
			var stack []string
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				switch tok := tok.(type) {
				case xml.StartElement:
					el := tok.Name.Local
					rule, ok := junitSchema[el]
					if !ok {
						t.Errorf("<%s> is not an element of junit-10.xsd", el)
					}
					if len(stack) == 0 && el != "testsuites" {
						t.Errorf("the root is <%s>, want <testsuites>", el)
					}
					if len(stack) > 0 {
						parent := stack[len(stack)-1]
						if !slices.Contains(junitSchema[parent].children, el) {
							t.Errorf("<%s> holds <%s>", parent, el)
						}
					}
					have := map[string]bool{}
					for _, a := range tok.Attr {
						have[a.Name.Local] = true
						if !slices.Contains(rule.attrs, a.Name.Local) {
							t.Errorf("<%s> has the attribute %s", el, a.Name.Local)
						}
						if a.Name.Local == "time" && !surefireTime.MatchString(a.Value) {
							t.Errorf("<%s time=%q> is not a SUREFIRE_TIME", el, a.Value)
						}
					}
					for _, r := range rule.required {
						if !have[r] {
							t.Errorf("<%s> lacks the attribute %s", el, r)
						}
					}
					stack = append(stack, el)
				case xml.EndElement:
					stack = stack[:len(stack)-1]
				}
			}
		})
	}
}

// results makes a complete run of one result per status, each at a level
// ("must:fail", "should:error").
func results(complete bool, spec ...string) *check.Execution {
	run := &check.Execution{Complete: complete}
	for _, s := range spec {
		level, status, _ := strings.Cut(s, ":")
		run.Results = append(run.Results, check.Result{ID: "x/" + s, Status: check.Status(status), Level: check.Level(level)})
	}
	return run
}

func TestExitCode(t *testing.T) {
	mk := func(complete, strict bool, spec ...string) *Report {
		return New(Tool{}, Suite{}, Implementation{}, results(complete, spec...), strict)
	}
	tests := []struct {
		name string
		r    *Report
		want int
	}{
		{"all pass", mk(true, false, "must:pass", "must:pass"), ExitOK},
		{"pass and not-checked", mk(true, false, "must:pass", "must:not-checked"), ExitOK},
		{"strict with not-checked", mk(true, true, "must:pass", "must:not-checked"), ExitFailed},
		{"a failure", mk(true, false, "must:pass", "must:fail"), ExitFailed},
		{"a failure with no level", mk(true, false, ":pass", ":fail"), ExitFailed},
		{"an error", mk(true, false, "must:pass", "must:error"), ExitFailed},
		{"nothing checked", mk(true, false, "must:not-checked", "must:not-checked"), ExitFailed},
		{"no checks", mk(true, false), ExitFailed},
		{"incomplete", mk(false, false, "must:pass", "must:error"), ExitIncomplete},
		// Levels.
		{"only should failures", mk(true, false, "must:pass", "should:fail", "should:fail"), ExitOK},
		{"only should failures, strict", mk(true, true, "must:pass", "should:fail"), ExitFailed},
		{"a should failure beside a must failure", mk(true, false, "must:fail", "should:fail"), ExitFailed},
		{"a should pass", mk(true, false, "should:pass", "must:pass"), ExitOK},
		{"a should pass, strict", mk(true, true, "should:pass", "must:pass"), ExitOK},
		{"a failed may", mk(true, false, "must:pass", "may:fail"), ExitFailed},
		{"a passed may", mk(true, false, "must:pass", "may:pass"), ExitOK},
		{"an error in a should check", mk(true, false, "must:pass", "should:error"), ExitFailed},
		{"an error in a may check", mk(true, false, "must:pass", "may:error"), ExitFailed},
		// A failed should check is a judged outcome: warnings alone are
		// conformant without strict, as the fuzz run that found them said.
		{"warnings alone, nothing passed", mk(true, false, "should:fail", "should:fail"), ExitOK},
		{"warnings alone, nothing passed, strict", mk(true, true, "should:fail", "should:fail"), ExitFailed},
		{"only a should failure and a not-checked", mk(true, false, "should:fail", "must:not-checked"), ExitOK},
		{"only a should failure and a not-checked, strict", mk(true, true, "should:fail", "must:not-checked"), ExitFailed},
		{"only not-checked, strict", mk(true, true, "must:not-checked"), ExitFailed},
		{"incomplete with a should failure", mk(false, false, "must:pass", "should:fail"), ExitIncomplete},
	}
	for _, tt := range tests {
		if got := tt.r.ExitCode(); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
		if tt.r.Conformant != (tt.want == ExitOK) {
			t.Errorf("%s: conformant %v with exit %d", tt.name, tt.r.Conformant, tt.want)
		}
		n := tt.r.Counts
		if n.Pass+n.Fail+n.Warn+n.NotChecked+n.Error != len(tt.r.Checks) {
			t.Errorf("%s: counts %+v do not partition %d checks", tt.name, n, len(tt.r.Checks))
		}
	}
}

// TestExitCodeWithBaseline: judged against a baseline, an unlisted failed
// should check is a warning, unexpected only under strict.
func TestExitCodeWithBaseline(t *testing.T) {
	failing, err := check.ParseBaseline("known", []byte("x/must:fail\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		strict     bool
		spec       []string
		want       int
		unexpected int
		known      int
	}{
		{"listed must failure, unlisted warning", false, []string{"must:fail", "must:pass", "should:fail"}, ExitOK, 0, 1},
		{"the same, strict", true, []string{"must:fail", "must:pass", "should:fail"}, ExitFailed, 1, 1},
		{"unlisted may failure", false, []string{"must:fail", "must:pass", "may:fail"}, ExitFailed, 1, 1},
		{"unlisted error in a should check", false, []string{"must:fail", "must:pass", "should:error"}, ExitFailed, 1, 1},
	}
	for _, tt := range tests {
		run := results(true, tt.spec...)
		stale := check.ApplyBaseline(run, failing, nil)
		r := WithBaseline(Tool{}, Suite{}, Implementation{}, run, tt.strict, stale)
		if got := r.ExitCode(); got != tt.want || r.Baseline.Unexpected != tt.unexpected || r.Baseline.KnownFailing != tt.known || r.Conformant {
			t.Errorf("%s: exit %d, baseline %+v, conformant %v; want exit %d, %d unexpected, %d known",
				tt.name, got, *r.Baseline, r.Conformant, tt.want, tt.unexpected, tt.known)
		}
	}
	// A listed should check that failed is known, strict or not, and keeps its entry.
	listed, _ := check.ParseBaseline("known", []byte("x/should:fail\n"))
	for _, strict := range []bool{false, true} {
		run := results(true, "must:pass", "should:fail")
		stale := check.ApplyBaseline(run, listed, nil)
		r := WithBaseline(Tool{}, Suite{}, Implementation{}, run, strict, stale)
		if r.ExitCode() != ExitOK || r.Baseline.KnownFailing != 1 || r.Baseline.Unexpected != 0 || len(stale) != 0 {
			t.Errorf("strict %v: a listed warning: exit %d, baseline %+v", strict, r.ExitCode(), *r.Baseline)
		}
	}
}

// TestReportSchema validates reports against docs/report-format.schema.json
// and breaks them where levels touch it.
func TestReportSchema(t *testing.T) {
	s, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "docs", "report-format.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	encode := func(r *Report) map[string]any {
		var b bytes.Buffer
		if err := WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	validate := func(m map[string]any) error {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return s.Validate(v)
	}
	warnOnly := func(strict bool) *Report {
		return New(Tool{Name: "referee", Version: "1"}, Suite{Name: "jcs", Corpus: "embedded:jcs", CorpusDigest: "sha256:" + strings.Repeat("0", 64)},
			Implementation{Transport: "in-process", Ops: []string{}}, results(true, "must:pass", "should:fail", "may:pass"), strict)
	}
	// Evidence and expected values, as every fail carries them.
	fill := func(r *Report) *Report {
		for i := range r.Checks {
			if c := &r.Checks[i]; c.Status == "fail" {
				e, a := "x", "y"
				c.Reason, c.Expected, c.Actual, c.Evidence = "r", &e, &a, &Evidence{}
			}
		}
		return r
	}
	for name, r := range map[string]*Report{"sample": sampleReport(false), "sample, strict": sampleReport(true),
		"warnings only": fill(warnOnly(false)), "warnings only, strict": fill(warnOnly(true))} {
		if err := validate(encode(r)); err != nil {
			t.Errorf("%s: the report does not validate: %v", name, err)
		}
	}
	check := func(i int) func(m map[string]any) map[string]any {
		return func(m map[string]any) map[string]any { return m["checks"].([]any)[i].(map[string]any) }
	}
	sample, warning, mayPass := check(0), check(5), check(6)
	cases := []struct {
		name   string
		base   *Report
		mutate func(m map[string]any)
	}{
		{"format version 1", sampleReport(false), func(m map[string]any) { m["format"] = "referee-report/1" }},
		{"no level", sampleReport(false), func(m map[string]any) { delete(sample(m), "level") }},
		{"level required", sampleReport(false), func(m map[string]any) { sample(m)["level"] = "required" }},
		{"no warn count", sampleReport(false), func(m map[string]any) { delete(m["counts"].(map[string]any), "warn") }},
		{"outcome on a fail", sampleReport(false), func(m map[string]any) { warning(m)["outcome"] = "output" }},
		{"outcome on a must pass", sampleReport(false), func(m map[string]any) { sample(m)["outcome"] = "output" }},
		{"empty outcome", sampleReport(false), func(m map[string]any) { mayPass(m)["outcome"] = "" }},
		{"warnings only, not conformant", fill(warnOnly(false)), func(m map[string]any) { m["conformant"] = false }},
		{"warnings only, strict, conformant", fill(warnOnly(true)), func(m map[string]any) { m["conformant"] = true }},
	}
	for _, tc := range cases {
		m := encode(tc.base)
		tc.mutate(m)
		if err := validate(m); err == nil {
			t.Errorf("a report with %s validates", tc.name)
		}
	}
}

func TestIncompleteText(t *testing.T) {
	r := sampleReport(false)
	r.Complete = false
	var b bytes.Buffer
	WriteText(&b, r, TextOptions{})
	if !strings.Contains(b.String(), "INCOMPLETE") || strings.Contains(b.String(), "CONFORMANT (") {
		t.Errorf("an incomplete run reads as a result:\n%s", b.String())
	}
}

// TestUnstartedText: a run whose implementation could not be started is one
// error line with its cause, not one line per check; a run where only some
// checks were not started keeps its lines.
func TestUnstartedText(t *testing.T) {
	why := "not run: the implementation could not be started: adapter start: no such program"
	run := &check.Execution{}
	for _, id := range []string{"x/a", "x/b", "x/c"} {
		run.Results = append(run.Results, check.Result{ID: id, Status: check.Error, Level: check.Must, Reason: why})
	}
	var b bytes.Buffer
	if err := WriteText(&b, New(Tool{Name: "referee"}, Suite{Name: "x"}, Implementation{}, run, false), TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "\nERROR the implementation could not be started: adapter start: no such program; none of the 3 checks ran\n") || strings.Contains(out, "ERROR x/") {
		t.Errorf("text:\n%s", out)
	}
	run.Results[1].Reason = "not run: run interrupted"
	b.Reset()
	if err := WriteText(&b, New(Tool{Name: "referee"}, Suite{Name: "x"}, Implementation{}, run, false), TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	// The two that were not started are one entry, the interrupted one another.
	if !strings.Contains(b.String(), "\nERROR x/a and 1 more  not run: the implementation could not be started") ||
		!strings.Contains(b.String(), "\n      also x/c\n") || !strings.Contains(b.String(), "\nERROR x/b  not run: run interrupted\n") {
		t.Errorf("a mixed run lost its lines:\n%s", b.String())
	}
}
