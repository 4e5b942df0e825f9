package report

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
)

// fakeTarget offers "op" and says its stderr ends with a line.
type fakeTarget struct{}

func (fakeTarget) Hello() adapter.Hello {
	return adapter.Hello{Name: "fake", Version: "1", Ops: []string{"op"}, Concurrency: 1}
}
func (fakeTarget) Offers(op string) bool { return op == "op" }
func (fakeTarget) GaveUp() bool          { return false }
func (fakeTarget) Restarts() int         { return 0 }
func (fakeTarget) Stderr() string        { return "the last line <&>\n" }
func (fakeTarget) Close() error          { return nil }

// outcome is a check that records an exchange and ends with o.
func outcome(id string, level check.Level, o check.Outcome) check.Check {
	return check.Check{ID: id, Level: level, Needs: []string{"op"}, Do: func(_ context.Context, s *check.Session) check.Outcome {
		s.Record(adapter.Exchange{Request: []byte(`{"id":1,"op":"op","args":{"x":"<\u2028>"}}`), Reply: []byte(`{"id":1,"ok":"&"}`)})
		return o
	}}
}

// TestLeanReport: the report of a compact run holds no check, and writes
// and reads every check as the report of the same run made whole does.
func TestLeanReport(t *testing.T) {
	noted := check.Failed("a should failure", "a rejection", "ok")
	noted.Notes = []string{"a note\nof two lines"}
	checks := []check.Check{
		outcome("x/pass", check.Must, check.Passed()),
		outcome("x/may-rejected", check.May, check.Chose(check.ChoseReject)),
		outcome("x/may-other", check.May, check.Chose("an outcome of its own")),
		outcome("x/fail", check.Must, check.SameBytes("canonical text", []byte("[1,\"<\u2028>\"]"), []byte("[1,\"<\\u2028>\"]"))),
		outcome("x/should", check.Should, noted),
		outcome("x/error", check.Must, check.Broke(errors.New("adapter timeout"))),
		{ID: "x/not-checked", Needs: []string{"other"}, Do: func(context.Context, *check.Session) check.Outcome { return check.Passed() }},
	}
	compact := check.Execute(context.Background(), fakeTarget{}, checks, check.Options{Compact: true, Repro: func(id string, _ []adapter.Exchange) string { return "repro " + id }})
	whole := *compact
	whole.Expand()
	if !compact.Compact() || whole.Compact() {
		t.Fatal("Execute made no compact run")
	}
	for _, strict := range []bool{false, true} {
		mk := func(run *check.Execution) *Report {
			return New(Tool{Name: "referee", Version: "1"}, Suite{Name: "x", Corpus: "c", CorpusDigest: "sha256:00"}, Implementation{Name: "fake", Transport: "in-process"}, run, strict)
		}
		lean, full := mk(compact), mk(&whole)
		if lean.Checks != nil || lean.Len() != len(checks) || full.Len() != len(checks) {
			t.Fatalf("lean report holds %d checks, Len %d", len(lean.Checks), lean.Len())
		}
		if lean.ExitCode() != full.ExitCode() || lean.Counts != full.Counts || lean.Conformant != full.Conformant {
			t.Errorf("strict %v: lean exit %d %+v, whole %d %+v", strict, lean.ExitCode(), lean.Counts, full.ExitCode(), full.Counts)
		}
		for name, write := range map[string]func(*bytes.Buffer, *Report) error{
			"json":        func(b *bytes.Buffer, r *Report) error { return WriteJSON(b, r) },
			"text":        func(b *bytes.Buffer, r *Report) error { return WriteText(b, r, TextOptions{}) },
			"text passes": func(b *bytes.Buffer, r *Report) error { return WriteText(b, r, TextOptions{Passes: true, Color: true}) },
			"junit":       func(b *bytes.Buffer, r *Report) error { return WriteJUnit(b, r) },
			"html":        func(b *bytes.Buffer, r *Report) error { return WriteHTML(b, r) },
			"markdown":    func(b *bytes.Buffer, r *Report) error { return WriteMarkdown(b, r, MarkdownOptions{}) },
			"badge":       func(b *bytes.Buffer, r *Report) error { return WriteBadge(b, r) },
		} {
			var a, b bytes.Buffer
			if err := write(&a, lean); err != nil {
				t.Fatal(err)
			}
			if err := write(&b, full); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("strict %v: %s of the lean report:\n%s\nof the whole one:\n%s", strict, name, a.Bytes(), b.Bytes())
			}
		}
		if lean.Checks != nil {
			t.Error("writing the lean report made and kept its checks")
		}
		var read []Check
		for i, c := range lean.All() {
			if i != len(read) {
				t.Fatalf("All yields index %d at %d", i, len(read))
			}
			read = append(read, c)
		}
		if !reflect.DeepEqual(read, full.Checks) {
			t.Errorf("All of the lean report:\n%+v\nChecks of the whole one:\n%+v", read, full.Checks)
		}
		if lean.Full() != lean || lean.Checks == nil || !reflect.DeepEqual(lean.Checks, full.Checks) || full.Full() != full {
			t.Errorf("Full made %+v", lean.Checks)
		}
	}
	// A lean report with no check at all, as JSON.
	var a, b bytes.Buffer
	empty := &Report{Format: Format, Checks: nil, lean: &check.Execution{}}
	WriteJSON(&a, empty)
	WriteJSON(&b, &Report{Format: Format, Checks: []Check{}})
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("empty lean report:\n%s\nwant:\n%s", a.Bytes(), b.Bytes())
	}
}
