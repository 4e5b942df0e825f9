package matrix_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/jcs"
)

// childVar makes the test binary serve jcs's built-in implementation on
// stdio, in the broken mode the variable names ("honest" for none).
const childVar = "REFEREE_MATRIX_CHILD"

func TestMain(m *testing.M) {
	mode := os.Getenv(childVar)
	if mode == "" {
		os.Exit(m.Run())
	}
	if mode == "honest" {
		mode = ""
	}
	h, err := jcs.Reference(mode)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	if err := adapter.Serve(context.Background(), h, os.Stdin, os.Stdout); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// child is an implementation that is this test binary serving jcs on
// stdio in mode.
func child(t *testing.T, name, mode string) matrix.Impl {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return matrix.Impl{Name: name, Spec: check.Spec{Argv: []string{exe}, Env: append(os.Environ(), childVar+"="+mode)}}
}

func builtIn(name, mode string) matrix.Impl {
	return matrix.Impl{Name: name, Spec: check.Spec{Mode: mode}}
}

var tool = report.Tool{Name: "referee", Version: "test"}

func TestMatrix(t *testing.T) {
	impls := []matrix.Impl{
		builtIn("reference", ""),
		child(t, "stdio", "honest"),
		builtIn("go-float", "go-float"),
		child(t, "html-escape", "html-escape"),
		builtIn("depth-32", "depth-32"),
	}
	m, err := matrix.Build(t.Context(), &jcs.Definition, impls, matrix.Options{RunOptions: run.Options{Tool: tool}})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.ExitCode(); got != report.ExitFailed {
		t.Errorf("exit code %d, want %d: two implementations are broken", got, report.ExitFailed)
	}
	if len(m.Checks) < 100 || len(m.Rows) != len(m.Checks) {
		t.Fatalf("%d checks, %d rows", len(m.Checks), len(m.Rows))
	}
	for i, e := range m.Impls {
		if e.Name != impls[i].Name {
			t.Fatalf("implementation %d is %q, want %q (the order given)", i, e.Name, impls[i].Name)
		}
		if len(e.Result.Report.Checks) != len(m.Checks) {
			t.Errorf("%s: its report has %d checks, want %d", e.Name, len(e.Result.Report.Checks), len(m.Checks))
		}
	}
	for _, e := range m.Impls[:2] {
		if code := e.Result.ExitCode(); code != report.ExitOK {
			t.Errorf("%s: exit %d, want 0", e.Name, code)
		}
	}

	// Every check whose outcomes differ, or that all fail, is in exactly
	// the group of its pattern; every other check is in none.
	inGroup := map[string]int{}
	for gi, g := range m.Groups {
		if len(g.Checks) == 0 || len(g.Outcomes) != len(impls) {
			t.Fatalf("group %d: %+v", gi, g)
		}
		differ := slices.ContainsFunc(g.Outcomes, func(o string) bool { return o != g.Outcomes[0] })
		if g.Agree == differ {
			t.Errorf("group %d: agree %v, outcomes %v", gi, g.Agree, g.Outcomes)
		}
		for _, id := range g.Checks {
			inGroup[id]++
			if row := m.Rows[slices.Index(m.Checks, id)]; !slices.Equal(row, g.Outcomes) {
				t.Errorf("%s is in group %v, but its row is %v", id, g.Outcomes, row)
			}
		}
	}
	var gofloat, html, deep int
	for k, id := range m.Checks {
		row := m.Rows[k]
		want := 0
		if slices.ContainsFunc(row, func(o string) bool { return o != row[0] }) || row[0] == "fail" || row[0] == "warn" || row[0] == "error" {
			want = 1
		}
		if inGroup[id] != want {
			t.Errorf("%s (row %v) is in %d groups, want %d", id, row, inGroup[id], want)
		}
		if !strings.HasPrefix(row[0], "pass") || row[1] != row[0] {
			t.Errorf("%s: the reference and its stdio twin: %v", id, row[:2])
		}
		gofloat += b2i(row[2] == "fail")
		html += b2i(row[3] == "fail")
		deep += b2i(row[4] == "pass:rejected")
	}
	if gofloat == 0 || html == 0 {
		t.Errorf("go-float fails %d checks, html-escape %d: want some each", gofloat, html)
	}
	if deep == 0 {
		t.Errorf("depth-32 chose no rejection of a may check")
	}

	var text bytes.Buffer
	if err := matrix.WriteText(&text, m, matrix.TextOptions{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{
		"referee matrix: suite jcs,",
		"check ", "reference", "stdio", "go-float", "html-escape",
		"on which the implementations disagree",
		"reference=PASS stdio=PASS go-float=FAIL html-escape=PASS depth-32=PASS",
		"PASS (rejected)",
		"go-float     not conformant",
		"reference    conformant",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text matrix lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines > len(m.Checks) {
		t.Errorf("the quiet matrix has %d lines for %d checks: it should leave out uniform passes", lines, len(m.Checks))
	}

	var doc bytes.Buffer
	if err := matrix.WriteJSON(&doc, m); err != nil {
		t.Fatal(err)
	}
	s := matrixSchema(t)
	if err := validate(t, s, doc.Bytes()); err != nil {
		t.Errorf("the matrix document does not validate: %v", err)
	}

	// The document reads back (as merge reads it), groups and all, and the
	// groups laid out again from its reports (as merge lays out a merged
	// matrix's) are the run's own.
	back, err := matrix.ReadDocument(doc.Bytes())
	if err != nil {
		t.Fatalf("the document does not read back: %v", err)
	}
	again := matrix.FromReports(back.Implementations)
	if !reflect.DeepEqual(again.Groups, m.Groups) || !slices.Equal(again.Checks, m.Checks) || again.Suite != "jcs" {
		t.Errorf("the matrix laid out from the document's reports differs from the run's")
	}
	if len(back.Groups) == 0 || !reflect.DeepEqual(back.Groups, m.Document().Groups) {
		t.Errorf("the document's groups read back as %+v, want %+v", back.Groups, m.Document().Groups)
	}
	if regrouped := again.Document().Groups; !reflect.DeepEqual(regrouped, back.Groups) {
		t.Errorf("groups laid out from the reports %+v, the document has %+v", regrouped, back.Groups)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func matrixSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "docs", "matrix.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("compiling %s: %v", path, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, doc []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return s.Validate(v)
}

// TestSchemaRefuses holds the schema to refusing what referee never writes.
func TestSchemaRefuses(t *testing.T) {
	m, err := matrix.Build(t.Context(), &jcs.Definition, []matrix.Impl{builtIn("a", ""), builtIn("b", "unsorted")}, matrix.Options{RunOptions: run.Options{Tool: tool, Select: []string{"jcs/keys/**"}}})
	if err != nil {
		t.Fatal(err)
	}
	var good bytes.Buffer
	if err := matrix.WriteJSON(&good, m); err != nil {
		t.Fatal(err)
	}
	s := matrixSchema(t)
	if err := validate(t, s, good.Bytes()); err != nil {
		t.Fatalf("the document does not validate: %v", err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"format", `"format": "referee-matrix/1"`, `"format": "referee-matrix/2"`},
		{"unknown member", `"format": "referee-matrix/1"`, `"format": "referee-matrix/1", "extra": 1`},
		{"outcome", `"b": "fail"`, `"b": "broken"`},
		{"report format", `"format": "referee-report/2"`, `"format": "referee-report/1"`},
	} {
		bad := strings.Replace(good.String(), tc.old, tc.new, 1)
		if bad == good.String() {
			t.Fatalf("%s: %q is not in the document", tc.name, tc.old)
		}
		if err := validate(t, s, []byte(bad)); err == nil {
			t.Errorf("%s: the schema accepts a document with %s", tc.name, tc.new)
		}
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		impls []matrix.Impl
		want  int
	}{
		{"all conformant", []matrix.Impl{builtIn("a", ""), child(t, "b", "honest")}, report.ExitOK},
		{"one not conformant", []matrix.Impl{builtIn("a", ""), builtIn("b", "unsorted")}, report.ExitFailed},
		{"one cannot start", []matrix.Impl{builtIn("a", "unsorted"), {Name: "gone", Spec: check.Spec{Argv: []string{filepath.Join(t.TempDir(), "no-such-adapter")}}}}, report.ExitIncomplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := matrix.Build(t.Context(), &jcs.Definition, tc.impls, matrix.Options{RunOptions: run.Options{Tool: tool, Select: []string{"jcs/keys/**"}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.ExitCode(); got != tc.want {
				t.Errorf("exit code %d, want %d", got, tc.want)
			}
			if tc.want == report.ExitIncomplete {
				e := m.Impls[1]
				if e.Result.StartErr == nil || e.Result.Report.Complete {
					t.Errorf("%s: start error %v, complete %v", e.Name, e.Result.StartErr, e.Result.Report.Complete)
				}
				var text bytes.Buffer
				if err := matrix.WriteText(&text, m, matrix.TextOptions{}); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(text.String(), "gone  incomplete") || !strings.Contains(text.String(), "could not be started") {
					t.Errorf("the text does not say gone could not start:\n%s", text.String())
				}
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		impls []matrix.Impl
		o     matrix.Options
		want  string
	}{
		{"none", nil, matrix.Options{}, "no implementation"},
		{"same name", []matrix.Impl{builtIn("a", ""), builtIn("a", "unsorted")}, matrix.Options{}, `two implementations named "a"`},
		{"bad mode", []matrix.Impl{builtIn("a", ""), builtIn("b", "no-such-mode")}, matrix.Options{}, "--impl b:"},
		{"selection", []matrix.Impl{builtIn("a", "")}, matrix.Options{RunOptions: run.Options{Select: []string{"jcs/no-such-group/**"}}}, "--impl a:"},
		{"parallel", []matrix.Impl{builtIn("a", "")}, matrix.Options{Parallel: -1}, "--parallel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := matrix.Build(t.Context(), &jcs.Definition, tc.impls, tc.o)
			var ue *check.UsageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ue) {
				t.Errorf("got %v, want a usage error containing %q", err, tc.want)
			}
		})
	}
}

// TestParallel runs implementations at most Parallel at once.
func TestParallel(t *testing.T) {
	for _, parallel := range []int{1, 2} {
		var mu sync.Mutex
		running, most := 0, 0
		o := matrix.Options{
			RunOptions: run.Options{Tool: tool, Select: []string{"jcs/keys/**"}},
			Parallel:   parallel,
			Started: func(string) {
				mu.Lock()
				running++
				most = max(most, running)
				mu.Unlock()
			},
			Finished: func(string, *run.Result) {
				mu.Lock()
				running--
				mu.Unlock()
			},
		}
		impls := []matrix.Impl{builtIn("a", ""), child(t, "b", "honest"), builtIn("c", "unsorted"), child(t, "d", "codepoint-order")}
		if _, err := matrix.Build(t.Context(), &jcs.Definition, impls, o); err != nil {
			t.Fatal(err)
		}
		if most > parallel || most == 0 {
			t.Errorf("parallel %d: %d implementations ran at once", parallel, most)
		}
	}
}

// TestInterrupted: implementations that had not started when the run was
// interrupted (SIGINT cancels the context) are "not run: run interrupted",
// not implementations that "could not be started: context canceled"; the
// one that ran is reported as it ran.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var ran string // the implementation that ran: the interruption comes as it finishes
	o := matrix.Options{
		RunOptions: run.Options{Tool: tool, Select: []string{"jcs/keys/**"}},
		Parallel:   1,
		Finished: func(name string, _ *run.Result) {
			if ran == "" { // one at a time (Parallel 1): no lock needed
				ran = name
				cancel()
			}
		},
	}
	impls := []matrix.Impl{builtIn("built-in", ""), child(t, "stdio", "honest"), child(t, "other", "honest")}
	m, err := matrix.Build(ctx, &jcs.Definition, impls, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.ExitCode(); got != report.ExitIncomplete {
		t.Errorf("exit code %d, want %d", got, report.ExitIncomplete)
	}
	for _, e := range m.Impls {
		r := e.Result
		if e.Name == ran {
			if r.Interrupted || !r.Report.Complete {
				t.Errorf("%s: interrupted %v, complete %v; it ran before the interruption", e.Name, r.Interrupted, r.Report.Complete)
			}
			continue
		}
		if r.StartErr != nil || !r.Interrupted || r.Report.Complete {
			t.Errorf("%s: start error %v, interrupted %v, complete %v; want nil, true, false", e.Name, r.StartErr, r.Interrupted, r.Report.Complete)
		}
		if r.Report.Len() == 0 {
			t.Errorf("%s: no check in the report", e.Name)
		}
		for _, c := range r.Report.All() {
			if c.Status != "error" || c.Reason != "not run: run interrupted" {
				t.Errorf("%s: %s is %s %q, want error \"not run: run interrupted\"", e.Name, c.ID, c.Status, c.Reason)
				break
			}
		}
	}
	var text bytes.Buffer
	if err := matrix.WriteText(&text, m, matrix.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "could not be started") || strings.Count(text.String(), "not run: run interrupted") != 2 {
		t.Errorf("the text does not say two implementations were not run:\n%s", text.String())
	}
}
