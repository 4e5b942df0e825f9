package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/refereehq/referee/check"
)

func reportJSON(t testing.TB, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadRoundTrip reads back what WriteJSON writes: the same report, which
// written again is the same bytes (after the first writing, which turns
// invalid UTF-8 into U+FFFD).
func TestReadRoundTrip(t *testing.T) {
	sharded := sampleReport(false)
	sharded.Shard = &Shard{Index: 2, Count: 3}
	empty := sampleReport(false)
	empty.Shard, empty.Checks, empty.Counts, empty.Conformant = &Shard{Index: 1, Count: 3}, []Check{}, check.Counts{}, false
	for name, r := range map[string]*Report{"plain": sampleReport(false), "strict": sampleReport(true), "sharded": sharded, "empty shard": empty} {
		got, err := Read(reportJSON(t, r))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		once := reportJSON(t, got)
		again, err := Read(once)
		if err != nil {
			t.Fatalf("%s: read again: %v", name, err)
		}
		if twice := reportJSON(t, again); !bytes.Equal(once, twice) {
			t.Errorf("%s: read and written again, the report differs:\n%s", name, firstDiff(once, twice))
		}
		if got.Counts != r.Counts || len(got.Checks) != len(r.Checks) || (r.Shard != nil) != (got.Shard != nil) || (r.Shard != nil && *r.Shard != *got.Shard) {
			t.Errorf("%s: read back counts %+v, %d checks, shard %v; wrote %+v, %d, %v", name, got.Counts, len(got.Checks), got.Shard, r.Counts, len(r.Checks), r.Shard)
		}
		for i, c := range r.Checks {
			g := got.Checks[i]
			if g.ID != c.ID || g.Status != c.Status || g.Level != c.Level || g.Reason != c.Reason || g.Outcome != c.Outcome || (c.Evidence != nil) != (g.Evidence != nil) {
				t.Errorf("%s: check %d read back as %+v, wrote %+v", name, i, g, c)
			}
		}
	}
}

// TestShardSchema: a sharded report, and an empty shard, validate against
// docs/report-format.schema.json; a report with no check and no shard
// does not.
func TestShardSchema(t *testing.T) {
	s, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "docs", "report-format.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sharded := sampleReport(false)
	sharded.Shard = &Shard{Index: 2, Count: 3}
	empty := New(Tool{Name: "referee", Version: "1"}, Suite{Name: "jcs", Corpus: "embedded:jcs", CorpusDigest: "sha256:" + strings.Repeat("0", 64)},
		Implementation{Transport: "in-process", Ops: []string{}}, &check.Execution{Complete: true}, false)
	empty.Shard = &Shard{Index: 1, Count: 3}
	unsharded := *empty
	unsharded.Shard = nil
	badShard := *sharded
	badShard.Shard = &Shard{Index: 0, Count: 3}
	for _, tc := range []struct {
		name  string
		r     *Report
		valid bool
	}{{"sharded", sharded, true}, {"empty shard", empty, true}, {"no check, no shard", &unsharded, false}, {"shard 0", &badShard, false}} {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(reportJSON(t, tc.r)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); (err == nil) != tc.valid {
			t.Errorf("%s: validation error %v, want valid %v", tc.name, err, tc.valid)
		}
	}
}

func firstDiff(a, b []byte) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return "at byte " + string(a[max(0, i-40):i]) + "‸" + string(a[i:min(len(a), i+40)])
		}
	}
	return "one is a prefix of the other"
}

// TestReadRefuses breaks a good report one member at a time.
func TestReadRefuses(t *testing.T) {
	good := reportJSON(t, sampleReport(false))
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		raw    string // instead of a mutation
		want   string
	}{
		{name: "not JSON", raw: "{", want: "not one JSON object"},
		{name: "an array", raw: "[]", want: "not one JSON object"},
		{name: "no format", mutate: func(m map[string]any) { delete(m, "format") }, want: "no format member"},
		{name: "format 1", mutate: func(m map[string]any) { m["format"] = "referee-report/1" }, want: `format "referee-report/1"`},
		{name: "a matrix", mutate: func(m map[string]any) { m["format"] = "referee-matrix/1" }, want: `want "referee-report/2"`},
		{name: "unknown member", mutate: func(m map[string]any) { m["verdict"] = "ok" }, want: "unknown field"},
		{name: "trailing data", raw: string(good) + "{}", want: "not one JSON object"},
		{name: "a member twice", raw: strings.Replace(string(good), `"complete": true`, `"complete": false, "complete": true`, 1), want: "duplicate"},
		{name: "no suite name", mutate: func(m map[string]any) { m["suite"].(map[string]any)["name"] = "" }, want: "suite: no name"},
		{name: "bad started", mutate: func(m map[string]any) { m["started"] = "yesterday" }, want: "started"},
		{name: "negative duration", mutate: func(m map[string]any) { m["duration_ms"] = -5 }, want: "negative"},
		{name: "shard 0", mutate: func(m map[string]any) { m["shard"] = map[string]any{"index": 0, "count": 2} }, want: "shard 0/2"},
		{name: "shard past count", mutate: func(m map[string]any) { m["shard"] = map[string]any{"index": 3, "count": 2} }, want: "shard 3/2"},
		{name: "no checks", mutate: func(m map[string]any) { m["checks"] = []any{} }, want: "no checks"},
		{name: "null checks", mutate: func(m map[string]any) { m["checks"] = nil }, want: "no checks"},
		{name: "status passed", mutate: func(m map[string]any) { check0(m)["status"] = "passed" }, want: `status "passed"`},
		{name: "level required", mutate: func(m map[string]any) { check0(m)["level"] = "required" }, want: `level "required"`},
		{name: "no id", mutate: func(m map[string]any) { check0(m)["id"] = "" }, want: "no id"},
		{name: "id twice", mutate: func(m map[string]any) {
			cs := m["checks"].([]any)
			cs[1].(map[string]any)["id"] = cs[0].(map[string]any)["id"]
		}, want: "appears twice"},
		{name: "known maybe", mutate: func(m map[string]any) { check0(m)["known"] = "maybe" }, want: `known "maybe"`},
		{name: "counts off", mutate: func(m map[string]any) { m["counts"].(map[string]any)["pass"] = 7.0 }, want: "tally"},
		{name: "forged verdict", mutate: func(m map[string]any) { m["conformant"] = true }, want: "conformant is true"},
		{name: "a count as a string", mutate: func(m map[string]any) { m["counts"].(map[string]any)["pass"] = "2" }, want: "cannot unmarshal"},
		// A diff's numbers size the text report's caret line; its hex
		// fields are printed as they stand.
		{name: "diff offset below its window", mutate: func(m map[string]any) { diff1(m)["offset"] = 0.0; diff1(m)["window_start"] = 8.0 }, want: "window_start 8 for offset 0"},
		{name: "diff offset far past the values", mutate: func(m map[string]any) { diff1(m)["offset"] = 100e6; diff1(m)["window_start"] = 100e6 - 8 }, want: "outside both values"},
		{name: "diff window moved", mutate: func(m map[string]any) { diff1(m)["window_start"] = 1.0 }, want: "window_start 1"},
		{name: "diff hex with escapes", mutate: func(m map[string]any) {
			diff1(m)["expected_hex"] = "\x1b[2K\rCONFORMANT" + strings.Repeat("0", 21)
		}, want: "expected_hex is not hex"},
		{name: "diff hex uppercase", mutate: func(m map[string]any) {
			diff1(m)["actual_hex"] = strings.ToUpper(diff1(m)["actual_hex"].(string))
		}, want: "actual_hex is not lowercase hex"},
		{name: "diff hex of another window", mutate: func(m map[string]any) { diff1(m)["actual_hex"] = "7b22" }, want: "actual_hex holds 4 hex digits"},
		{name: "diff lengths negative", mutate: func(m map[string]any) { diff1(m)["expected_len"] = -1.0 }, want: "negative length"},
		{name: "diff of equal windows", mutate: func(m map[string]any) { diff1(m)["actual_hex"] = diff1(m)["expected_hex"] }, want: "do not differ at offset 2"},
		{name: "outcome not known", mutate: func(m map[string]any) { setOutcome(m, strings.Repeat("\u202e", 250)) }, want: "outcome"},
		{name: "outcome maybe", mutate: func(m map[string]any) { setOutcome(m, "maybe") }, want: `outcome "maybe": want one of output, rejected`},
		{name: "outcome on a must check", mutate: func(m map[string]any) { check0(m)["outcome"] = "output" }, want: "only a passing may check records one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.raw)
			if tt.mutate != nil {
				var m map[string]any
				if err := json.Unmarshal(good, &m); err != nil {
					t.Fatal(err)
				}
				tt.mutate(m)
				var err error
				if data, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Read(data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func check0(m map[string]any) map[string]any { return m["checks"].([]any)[0].(map[string]any) }

// diff1 is the sample report's one diff, on its second check.
func diff1(m map[string]any) map[string]any {
	return m["checks"].([]any)[1].(map[string]any)["evidence"].(map[string]any)["diff"].(map[string]any)
}

// setOutcome makes the sample report's first check (a pass) a passing may
// check with the outcome o.
func setOutcome(m map[string]any, o string) {
	check0(m)["level"], check0(m)["outcome"] = "may", o
}

// FuzzRead: Read never panics, and what it accepts it writes back in a form
// it reads again to the same bytes.
func FuzzRead(f *testing.F) {
	f.Add(reportJSON(f, sampleReport(false)))
	f.Add(reportJSON(f, sampleReport(true)))
	if golden, err := os.ReadFile(goldenFile("report.json")); err == nil {
		f.Add(golden)
	}
	f.Add([]byte(`{"format":"referee-report/2"}`))
	f.Add([]byte(`{"format":"referee-report/2","checks":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Read(data)
		if err != nil {
			return
		}
		once := reportJSON(t, r)
		again, err := Read(once)
		if err != nil {
			t.Fatalf("a report Read accepted, written again, is refused: %v\n%s", err, once)
		}
		if twice := reportJSON(t, again); !bytes.Equal(once, twice) {
			t.Fatalf("written twice, the report differs:\n%s\n%s", once, twice)
		}
	})
}
