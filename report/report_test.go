package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sampleRun has one result of each status, with evidence.
func sampleRun() *check.Run {
	exp, act := `{"😂":2,"דּ":1}`, `{"דּ":1,"😂":2}`
	return &check.Run{
		Started:  time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Duration: 1234 * time.Millisecond,
		Complete: true,
		Restarts: 1,
		Results: []check.Result{
			{ID: "jcs/numbers/1e21", Status: check.Pass, Duration: 1500 * time.Microsecond},
			{
				ID: "jcs/keys/utf16-vs-codepoint", Status: check.Fail, Reason: "canonical text differs at byte 2",
				Expected: exp, Actual: act, Duration: 2 * time.Millisecond,
				Evidence: check.Evidence{
					Diff:      check.DiffBytes([]byte(exp), []byte(act)),
					Exchanges: []adapter.Exchange{{Request: []byte(`{"id":7,"op":"canonicalJson","args":{"value_text":"{}"}}`), Reply: []byte(`{"id":7,"ok":"{}"}`)}},
					Stderr:    "line one\nline two\n",
					Repro:     `printf '%s\n' '{"id":0}' | node a.mjs`,
				},
			},
			{ID: "jcs/strings/line-separators", Status: check.Fail, Reason: "control", Expected: "\u2028\x01", Actual: "\\u2028\xed\xa0\x80"},
			{ID: "jcs/rejects/duplicate-key", Status: check.NotChecked, Reason: "adapter offers no canonicalJson"},
			{ID: "jcs/nesting/arrays-129", Status: check.Error, Reason: "adapter timeout: no reply to canonicalJson (id 9) in time",
				Evidence: check.Evidence{Notes: []string{`offending line: "garbage"`}}},
		},
	}
}

func sampleReport(strict bool) *Report {
	return New(Tool{Name: "referee", Version: "1.2.3"},
		Suite{Name: "jcs", Version: "1.0.0", Corpus: "embedded:jcs", CorpusDigest: "sha256:" + strings.Repeat("ab", 32)},
		Implementation{Name: "jcs-node", Version: "1.0.0", Ops: []string{"canonicalJson"}, Transport: "stdio", Command: []string{"node", "a.mjs"}},
		sampleRun(), strict)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldenText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sampleReport(false), TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt", b.Bytes())
	if strings.Contains(b.String(), "\x1b[") {
		t.Error("colour written with Color false")
	}
	b.Reset()
	WriteText(&b, sampleReport(false), TextOptions{Color: true})
	if !strings.Contains(b.String(), "\x1b[31mFAIL") {
		t.Errorf("no colour with Color true:\n%q", b.String())
	}
	if strings.Contains(b.String(), "jcs/numbers/1e21") {
		t.Error("a pass listed with Passes false")
	}
}

func TestGoldenJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleReport(false)); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", b.Bytes())
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Format != Format || back.Counts != (check.Counts{Pass: 1, Fail: 2, NotChecked: 1, Error: 1}) || back.Conformant {
		t.Errorf("read back: format %q counts %+v conformant %v", back.Format, back.Counts, back.Conformant)
	}
}

func TestGoldenJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sampleReport(false)); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.junit.xml", b.Bytes())
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
	if doc.Tests != 5 || doc.Failures != 2 || doc.Errors != 1 || doc.Skipped != 1 {
		t.Errorf("totals = %+v", doc)
	}
}

func TestExitCode(t *testing.T) {
	mk := func(complete bool, strict bool, statuses ...check.Status) *Report {
		run := &check.Run{Complete: complete}
		for _, s := range statuses {
			run.Results = append(run.Results, check.Result{ID: "x", Status: s})
		}
		return New(Tool{}, Suite{}, Implementation{}, run, strict)
	}
	tests := []struct {
		name string
		r    *Report
		want int
	}{
		{"all pass", mk(true, false, check.Pass, check.Pass), ExitOK},
		{"pass and not-checked", mk(true, false, check.Pass, check.NotChecked), ExitOK},
		{"strict with not-checked", mk(true, true, check.Pass, check.NotChecked), ExitFailed},
		{"a failure", mk(true, false, check.Pass, check.Fail), ExitFailed},
		{"an error", mk(true, false, check.Pass, check.Error), ExitFailed},
		{"nothing checked", mk(true, false, check.NotChecked, check.NotChecked), ExitFailed},
		{"no checks", mk(true, false), ExitFailed},
		{"incomplete", mk(false, false, check.Pass, check.Error), ExitIncomplete},
	}
	for _, tt := range tests {
		if got := tt.r.ExitCode(); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
		if tt.r.Conformant != (tt.want == ExitOK) {
			t.Errorf("%s: conformant %v with exit %d", tt.name, tt.r.Conformant, tt.want)
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
