package merge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/merge"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/jcs"
)

var tool = report.Tool{Name: "referee", Version: "test"}

// runKey names one run of jcsRun.
type runKey struct {
	mode, known string
	shard       report.Shard
}

// runs holds each run jcsRun has made, made once: the suite and its
// built-in implementation are deterministic, and no test changes a run it
// is given, so the tests share them rather than load and run the suite
// again for each.
var (
	runsMu sync.Mutex
	runs   = map[runKey]func() (*run.Result, error){}
)

// jcsRun runs the jcs suite in process against its built-in implementation
// (in a broken mode), whole or one shard, as `referee run jcs` would.
func jcsRun(t testing.TB, mode string, sh report.Shard, known string) *run.Result {
	t.Helper()
	k := runKey{mode: mode, known: known, shard: sh}
	runsMu.Lock()
	once, ok := runs[k]
	if !ok {
		once = sync.OnceValues(func() (*run.Result, error) {
			plan, err := run.Prepare(&jcs.Definition, check.Spec{Mode: mode}, run.Options{Shard: sh, KnownFailing: known, Tool: tool})
			if err != nil {
				return nil, err
			}
			return plan.Execute(context.Background()), nil
		})
		runs[k] = once
	}
	runsMu.Unlock()
	res, err := once()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func encode(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteNative(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// shards runs the n shards of a jcs run and returns their JSON reports.
func shards(t testing.TB, mode string, n int, known string) []merge.Input {
	t.Helper()
	var in []merge.Input
	for i := 1; i <= n; i++ {
		res := jcsRun(t, mode, report.Shard{Index: i, Count: n}, known)
		in = append(in, merge.Input{Name: fmt.Sprintf("shard-%d.json", i), Data: encode(t, res.Report)})
	}
	return in
}

// loadJCS loads the jcs suite once for suiteOrder.
var loadJCS = sync.OnceValues(func() (*check.Suite, error) {
	loaded, err := jcs.Definition.Load(check.LoadOptions{})
	if err != nil {
		return nil, err
	}
	return loaded.Suite, nil
})

// suiteOrder is what the CLI gives merge: the suite's IDs in its order.
func suiteOrder(t testing.TB) func(report.Suite) []string {
	return func(s report.Suite) []string {
		suite, err := loadJCS()
		if err != nil || suite.CorpusDigest != s.CorpusDigest {
			t.Errorf("the suite does not load as the report says: %v", err)
			return nil
		}
		var ids []string
		for _, c := range suite.Checks {
			ids = append(ids, c.ID)
		}
		return ids
	}
}

// requestID is the one member of a request line that depends on the
// connection (its sequence number), not on the check.
var requestID = regexp.MustCompile(`"id":[0-9]+`)

// sameChecks compares two reports check by check: the same checks in the
// same order, with the same status, level, outcome, reason, values,
// evidence and baseline marks. Durations differ from run to run; request
// ids, from connection to connection.
func sameChecks(t *testing.T, got, want *report.Report) {
	t.Helper()
	if len(got.Checks) != len(want.Checks) {
		t.Fatalf("merged %d checks, the whole run %d", len(got.Checks), len(want.Checks))
	}
	norm := func(c report.Check) string {
		c.DurationMS = 0
		if c.Evidence != nil {
			e := *c.Evidence
			e.Exchanges = nil
			for _, x := range c.Evidence.Exchanges {
				e.Exchanges = append(e.Exchanges, report.Exchange{
					Request: requestID.ReplaceAllString(x.Request, `"id":N`),
					Reply:   requestID.ReplaceAllString(x.Reply, `"id":N`),
				})
			}
			c.Evidence = &e
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i := range want.Checks {
		if g, w := norm(got.Checks[i]), norm(want.Checks[i]); g != w {
			t.Errorf("check %d differs:\nmerged %s\nwhole  %s", i, g, w)
		}
	}
	if got.Counts != want.Counts || got.Complete != want.Complete || got.Conformant != want.Conformant || got.ExitCode() != want.ExitCode() {
		t.Errorf("merged counts %+v complete %v conformant %v exit %d; whole %+v %v %v %d",
			got.Counts, got.Complete, got.Conformant, got.ExitCode(), want.Counts, want.Complete, want.Conformant, want.ExitCode())
	}
	if got.Suite != want.Suite || !slices.Equal(got.Implementation.Ops, want.Implementation.Ops) || got.Implementation.Name != want.Implementation.Name || got.Tool != want.Tool {
		t.Errorf("merged suite %+v implementation %+v tool %+v; whole %+v %+v %+v", got.Suite, got.Implementation, got.Tool, want.Suite, want.Implementation, want.Tool)
	}
	if got.Shard != nil {
		t.Errorf("the merged report is shard %+v", got.Shard)
	}
}

// TestMergeEqualsWholeRun runs jcs in N shards through the run pipeline,
// merges their JSON reports and compares the result with the unsharded
// run, check by check.
func TestMergeEqualsWholeRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode string
		n    int
	}{{"", 3}, {"codepoint-order", 4}, {"accept-duplicates", 2}, {"depth-32", 5}, {"codepoint-order", 1}} {
		t.Run(fmt.Sprintf("%s-%d", tt.mode, tt.n), func(t *testing.T) {
			t.Parallel()
			whole := jcsRun(t, tt.mode, report.Shard{}, "")
			res, err := merge.Merge(shards(t, tt.mode, tt.n, ""), merge.Options{Suite: suiteOrder(t)})
			if err != nil {
				t.Fatal(err)
			}
			sameChecks(t, res.Report, whole.Report)
			if len(res.Notes) != 0 {
				t.Errorf("notes %q", res.Notes)
			}
			// The merged report is a report: it reads back.
			if _, err := report.Read(encode(t, res.Report)); err != nil {
				t.Errorf("the merged report does not read back: %v", err)
			}
		})
	}
}

// TestMergeWithBaseline: shards run with a baseline judge no entry stale;
// the merge, given the baseline, judges as the whole run does.
func TestMergeWithBaseline(t *testing.T) {
	t.Parallel()
	whole := jcsRun(t, "codepoint-order", report.Shard{}, "")
	var failing []string
	for _, r := range whole.Execution.Results {
		if r.Failed() {
			failing = append(failing, r.ID)
		}
	}
	if len(failing) < 2 {
		t.Fatalf("codepoint-order fails %d checks", len(failing))
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		lines []string
		stale int
		exit  int
	}{
		{"every failure listed", failing, 0, report.ExitOK},
		{"one unlisted", failing[1:], 0, report.ExitFailed},
		{"one stale", append(slices.Clone(failing), "jcs/keys/ascii"), 1, report.ExitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			known := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(known, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			want := jcsRun(t, "codepoint-order", report.Shard{}, known).Report
			parts := shards(t, "codepoint-order", 3, known)
			for _, p := range parts {
				r, err := report.Read(p.Data)
				if err != nil {
					t.Fatal(err)
				}
				if r.Baseline == nil || r.Baseline.Stale != 0 {
					t.Errorf("%s: baseline %+v, want one with no stale entry", p.Name, r.Baseline)
				}
			}
			res, err := merge.Merge(parts, merge.Options{KnownFailing: known, Suite: suiteOrder(t)})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Report
			sameChecks(t, got, want)
			if got.Baseline == nil || !reflect.DeepEqual(got.Baseline, want.Baseline) || got.Baseline.Stale != tc.stale {
				t.Errorf("merged baseline %+v, whole %+v, want %d stale", got.Baseline, want.Baseline, tc.stale)
			}
			if got.ExitCode() != tc.exit {
				t.Errorf("exit %d, want %d", got.ExitCode(), tc.exit)
			}
			// Without the baseline the merge judges plainly, and says why.
			plain, err := merge.Merge(parts, merge.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if plain.Report.Baseline != nil || plain.ExitCode() != report.ExitFailed || len(plain.Notes) != 1 || !strings.Contains(plain.Notes[0], "--known-failing") {
				t.Errorf("merged without the baseline: baseline %+v, exit %d, notes %q", plain.Report.Baseline, plain.ExitCode(), plain.Notes)
			}
		})
	}
}

// mutate decodes a JSON report, changes it and encodes it again.
func mutate(t testing.TB, data []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withDiff changes the first diff of a report's checks.
func withDiff(f func(d map[string]any)) func(m map[string]any) {
	return func(m map[string]any) {
		for _, c := range m["checks"].([]any) {
			if ev, ok := c.(map[string]any)["evidence"].(map[string]any); ok && ev["diff"] != nil {
				f(ev["diff"].(map[string]any))
				return
			}
		}
		panic("no diff in the report")
	}
}

// TestMergeRefuses: parts of different runs, and a check twice, are usage
// errors naming the files.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	parts := shards(t, "codepoint-order", 2, "")
	whole := encode(t, jcsRun(t, "codepoint-order", report.Shard{}, "").Report)
	other := func(f func(m map[string]any)) []merge.Input {
		return []merge.Input{parts[0], {Name: "other.json", Data: mutate(t, parts[1].Data, f)}}
	}
	set := func(path string, v any) func(m map[string]any) {
		return func(m map[string]any) {
			keys := strings.Split(path, ".")
			for _, k := range keys[:len(keys)-1] {
				m = m[k].(map[string]any)
			}
			m[keys[len(keys)-1]] = v
		}
	}
	tests := []struct {
		name   string
		inputs []merge.Input
		want   string
	}{
		{"nothing", nil, "no report to merge"},
		{"suite", other(func(m map[string]any) { set("suite.name", "crosslink")(m); delete(m, "rerun") }), `differ in suite ("jcs" and "crosslink")`},
		{"a rerun of another suite", other(set("rerun", []any{"referee", "run", "crosslink"})), "other.json: referee-report/2: rerun"},
		{"suite version", other(set("suite.version", "9.9.9")), "differ in suite version"},
		{"corpus digest", other(set("suite.corpus_digest", "sha256:"+strings.Repeat("0", 64))), "differ in corpus digest"},
		{"implementation name", other(set("implementation.name", "another")), "differ in implementation"},
		{"implementation version", other(set("implementation.version", "9")), "differ in implementation"},
		{"implementation mode", other(set("implementation.mode", "unsorted")), "differ in implementation"},
		{"implementation ops", other(set("implementation.ops", []any{"canonicalJson", "more"})), "differ in implementation ops"},
		{"tool", other(set("tool.version", "other")), "differ in tool"},
		{"strict", other(func(m map[string]any) { m["strict"] = true; m["conformant"] = false }), "differ in --strict"},
		{"report format", other(set("format", "referee-report/1")), `other.json: format "referee-report/1"`},
		{"shard count", other(set("shard.count", 3.0)), "differ in shard count"},
		{"sharded and whole", []merge.Input{parts[0], {Name: "whole.json", Data: whole}}, "differ in sharding"},
		{"a shard twice", []merge.Input{parts[0], {Name: "copy.json", Data: parts[0].Data}}, "shard-1.json and copy.json are both shard 1/2"},
		{"a check twice", []merge.Input{{Name: "a.json", Data: whole}, {Name: "b.json", Data: whole}}, "is in both a.json and b.json"},
		{"a check in the wrong shard", other(set("shard.index", 1.0)), "both shard 1/2"},
		{"a mislabelled shard", []merge.Input{{Name: "mislabelled.json", Data: mutate(t, parts[0].Data, set("shard.index", 2.0))}}, "mislabelled.json is shard 2/2, but its check"},
		{"not a report", []merge.Input{{Name: "x.json", Data: []byte(`{"name":"x"}`)}}, "x.json: no format member"},
		{"not JSON", []merge.Input{{Name: "x.json", Data: []byte(`<html>`)}}, "x.json: not one JSON object"},
		{"a forged report", other(set("conformant", true)), "other.json: referee-report/2: conformant is true"},
		// A report is untrusted: its diffs and outcomes are checked on read.
		{"a diff below its window", other(withDiff(func(d map[string]any) { d["offset"], d["window_start"] = 0.0, 8.0 })), "window_start 8 for offset 0"},
		{"a diff far past its values", other(withDiff(func(d map[string]any) { d["offset"], d["window_start"] = 1e8, 1e8-8 })), "outside both values"},
		{"a diff whose hex is not hex", other(withDiff(func(d map[string]any) { d["expected_hex"] = "\x1b[2K\rCONFORMANT" })), "expected_hex"},
		{"an outcome not known", other(func(m map[string]any) {
			for _, c := range m["checks"].([]any) {
				if c := c.(map[string]any); c["status"] == "pass" {
					c["level"], c["outcome"] = "may", "\u202e"
					return
				}
			}
		}), `outcome "\u202e"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := merge.Merge(tt.inputs, merge.Options{})
			var ue *check.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a usage error saying %q", err, tt.want)
			}
			if len(tt.inputs) == 2 && strings.Contains(tt.want, "differ") && (!strings.Contains(err.Error(), tt.inputs[0].Name) || !strings.Contains(err.Error(), tt.inputs[1].Name)) {
				t.Errorf("err = %v, want it to name both files", err)
			}
		})
	}
}

// TestMergeIncomplete: a missing shard, or a shard that did not finish,
// makes the merge incomplete (exit 3), and a note says which.
func TestMergeIncomplete(t *testing.T) {
	t.Parallel()
	parts := shards(t, "", 3, "")
	unfinished := mutate(t, parts[1].Data, func(m map[string]any) { m["complete"] = false; m["conformant"] = false })
	// A shard whose implementation never started said no hello: no name,
	// no version, no ops. It differs in nothing else.
	unstarted := mutate(t, parts[1].Data, func(m map[string]any) {
		m["complete"], m["conformant"] = false, false
		im := m["implementation"].(map[string]any)
		im["name"], im["version"], im["ops"] = "", "", []any{}
	})
	for _, tt := range []struct {
		name   string
		inputs []merge.Input
		note   string
	}{
		{"a missing shard", []merge.Input{parts[0], parts[2]}, "no report of shard 2/3"},
		{"two missing shards", parts[2:], "no report of shard 1/3, 2/3"},
		{"an unfinished shard", []merge.Input{parts[0], {Name: "unfinished.json", Data: unfinished}, parts[2]}, "unfinished.json did not finish"},
		{"an unstarted shard", []merge.Input{{Name: "unstarted.json", Data: unstarted}, parts[0], parts[2]}, "unstarted.json did not finish"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := merge.Merge(tt.inputs, merge.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Report.Complete || res.ExitCode() != report.ExitIncomplete {
				t.Errorf("complete %v, exit %d; want incomplete, 3", res.Report.Complete, res.ExitCode())
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("notes %q, want one saying %q", res.Notes, tt.note)
			}
			if res.Report.Implementation.Name == "" {
				t.Error("the merged report lost the implementation's name")
			}
		})
	}
}

// TestMergeTimes: started is the earliest, and the duration covers every
// part.
func TestMergeTimes(t *testing.T) {
	t.Parallel()
	parts := shards(t, "", 2, "")
	a := mutate(t, parts[0].Data, func(m map[string]any) {
		m["started"], m["duration_ms"], m["restarts"] = "2026-01-01T10:00:05Z", 3000.0, 1.0
	})
	b := mutate(t, parts[1].Data, func(m map[string]any) {
		m["started"], m["duration_ms"], m["restarts"] = "2026-01-01T10:00:00Z", 2000.0, 2.0
	})
	res, err := merge.Merge([]merge.Input{{Name: "a", Data: a}, {Name: "b", Data: b}}, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Report; r.Started != "2026-01-01T10:00:00Z" || r.DurationMS != 8000 || r.Restarts != 3 {
		t.Errorf("started %s, duration %d ms, restarts %d; want 10:00:00, 8000, 3", r.Started, r.DurationMS, r.Restarts)
	}
}

// TestMergeOrder: without the suite's order the merged checks are sorted
// by ID; with it, in the suite's order.
func TestMergeOrder(t *testing.T) {
	t.Parallel()
	parts := shards(t, "", 3, "")
	ids := func(r *report.Report) []string {
		var out []string
		for _, c := range r.Checks {
			out = append(out, c.ID)
		}
		return out
	}
	plain, err := merge.Merge(parts, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(plain.Report); !slices.IsSorted(got) {
		t.Error("without the suite's order, the merged checks are not sorted by ID")
	}
	ordered, err := merge.Merge(parts, merge.Options{Suite: suiteOrder(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(ordered.Report), ids(jcsRun(t, "", report.Shard{}, "").Report); !slices.Equal(got, want) {
		t.Error("with the suite's order, the merged checks are not in it")
	}
}

// TestMergeBaselineRefuses: a pattern that selects no check is a usage
// error naming its file and line, as in a run.
func TestMergeBaselineRefuses(t *testing.T) {
	t.Parallel()
	known := filepath.Join(t.TempDir(), "known")
	if err := os.WriteFile(known, []byte("jcs/keys/ascii\njcs/no/such\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []merge.Options{{KnownFailing: known}, {KnownFlaky: known, Suite: suiteOrder(t)}} {
		_, err := merge.Merge(shards(t, "", 2, ""), o)
		var ue *check.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), known+":2: jcs/no/such selects no check") {
			t.Errorf("err = %v", err)
		}
	}
	_, err := merge.Merge(shards(t, "", 2, ""), merge.Options{KnownFailing: filepath.Join(t.TempDir(), "absent")})
	var ue *check.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "absent") {
		t.Errorf("a missing baseline: %v", err)
	}
}

func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var paths []string
	for _, p := range shards(t, "", 2, "") {
		path := filepath.Join(dir, p.Name)
		if err := os.WriteFile(path, p.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	res, err := merge.Files(paths, merge.Options{})
	if err != nil || !res.Report.Complete || res.ExitCode() != report.ExitOK {
		t.Fatalf("merge.Files: %v", err)
	}
	_, err = merge.Files(append(paths, dir), merge.Options{})
	var ue *check.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), dir) {
		t.Errorf("a directory: %v", err)
	}
	_, err = merge.Files(paths, merge.Options{MaxFileSize: 100})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a file over the limit: %v", err)
	}
}

// FuzzMerge: any two documents merge, or are refused with a usage error;
// what merges is a report that reads back.
func FuzzMerge(f *testing.F) {
	// Small seeds: the shards of one group of checks.
	var parts []merge.Input
	for i := 1; i <= 2; i++ {
		plan, err := run.Prepare(&jcs.Definition, check.Spec{Mode: "codepoint-order"}, run.Options{Select: []string{"jcs/keys"}, Shard: report.Shard{Index: i, Count: 2}, Tool: tool})
		if err != nil {
			f.Fatal(err)
		}
		parts = append(parts, merge.Input{Name: fmt.Sprint(i), Data: encode(f, plan.Execute(context.Background()).Report)})
	}
	f.Add(parts[0].Data, parts[1].Data)
	f.Add(parts[0].Data, parts[0].Data)
	f.Add([]byte(`{"format":"referee-matrix/1","implementations":[]}`), parts[1].Data)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		res, err := merge.Merge([]merge.Input{{Name: "a", Data: a}, {Name: "b", Data: b}}, merge.Options{})
		if err != nil {
			var ue *check.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("not a usage error: %v", err)
			}
			return
		}
		if res.Report != nil {
			if _, err := report.Read(encode(t, res.Report)); err != nil {
				t.Fatalf("the merged report does not read back: %v", err)
			}
		}
	})
}

// TestMergeRefusesUnknownCheck: when the suite of the reports' corpus is
// known, a check it does not have (an ID edited into a shard's report) is
// a usage error naming the report; without the suite, the merge cannot
// tell and takes it.
func TestMergeRefusesUnknownCheck(t *testing.T) {
	t.Parallel()
	parts := shards(t, "", 2, "")
	var doc map[string]any
	if err := json.Unmarshal(parts[1].Data, &doc); err != nil {
		t.Fatal(err)
	}
	// An ID that falls in shard 2/2, so that only the suite can refuse it.
	fake := "jcs/numbers/not-a-check"
	for i := 0; run.ShardOf(fake, 2) != 2; i++ {
		fake = fmt.Sprintf("jcs/numbers/not-a-check-%d", i)
	}
	doc["checks"].([]any)[0].(map[string]any)["id"] = fake
	var err error
	if parts[1].Data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	_, err = merge.Merge(parts, merge.Options{Suite: suiteOrder(t)})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("merge: shard-2.json holds check %q, which suite jcs has not", fake)) {
		t.Fatalf("err = %v", err)
	}
	if _, err := merge.Merge(parts, merge.Options{}); err != nil {
		t.Fatalf("without the suite: %v", err)
	}
}
