package merge_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/merge"
	"github.com/refereehq/referee/report"
)

// matrixShards runs each of modes (a built-in implementation each) in n
// shards and returns one referee-matrix/1 document per shard.
func matrixShards(t *testing.T, n int, modes ...string) []merge.Input {
	t.Helper()
	var in []merge.Input
	for i := 1; i <= n; i++ {
		var impls []report.NamedReport
		for _, mode := range modes {
			res := jcsRun(t, mode, report.Shard{Index: i, Count: n}, "")
			impls = append(impls, report.NamedReport{Name: "impl-" + mode, Report: res.Report})
		}
		in = append(in, merge.Input{Name: fmt.Sprintf("matrix-%d.json", i), Data: encode(t, matrix.FromReports(impls).Document())})
	}
	return in
}

func TestMergeMatrices(t *testing.T) {
	t.Parallel()
	modes := []string{"", "codepoint-order"}
	parts := matrixShards(t, 3, modes...)
	res, err := merge.Merge(parts, merge.Options{Suite: suiteOrder(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil || res.Matrix == nil || len(res.Matrix.Implementations) != len(modes) {
		t.Fatalf("result %+v", res)
	}
	var whole []report.NamedReport
	for i, mode := range modes {
		im := res.Matrix.Implementations[i]
		if im.Name != "impl-"+mode {
			t.Errorf("implementation %d is %s", i, im.Name)
		}
		r := jcsRun(t, mode, report.Shard{}, "").Report
		sameChecks(t, im.Report, r)
		whole = append(whole, report.NamedReport{Name: im.Name, Report: r})
	}
	// The groups are the whole run's, not any shard's.
	want := matrix.FromReports(whole).Document().Groups
	if !reflect.DeepEqual(res.Matrix.Groups, want) {
		t.Errorf("merged groups %+v, the unsharded run's %+v", res.Matrix.Groups, want)
	}
	for _, p := range parts {
		shard, err := matrix.ReadDocument(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(shard.Groups, want) {
			t.Errorf("%s has the whole run's groups: the test cannot tell a regrouped matrix from a shard's", p.Name)
		}
	}
	if got := res.ExitCode(); got != report.ExitFailed {
		t.Errorf("an honest and a broken implementation: exit %d, want 1", got)
	}
	// It reads back as a matrix.
	m, err := matrix.ReadDocument(encode(t, res.Matrix))
	if err != nil || len(m.Implementations) != 2 {
		t.Fatalf("the merged matrix does not read back: %v", err)
	}
	// A missing shard: incomplete, 3.
	res, err = merge.Merge(parts[1:], merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode() != report.ExitIncomplete {
		t.Errorf("a missing shard: exit %d", res.ExitCode())
	}
}

func TestMergeMatricesRefuses(t *testing.T) {
	t.Parallel()
	parts := matrixShards(t, 2, "", "codepoint-order")
	swapped := matrixShards(t, 2, "codepoint-order", "")
	fewer := matrixShards(t, 2, "")
	single := shards(t, "", 2, "")
	tests := []struct {
		name   string
		inputs []merge.Input
		o      merge.Options
		want   string
	}{
		{"other implementations", []merge.Input{parts[0], swapped[1]}, merge.Options{}, `implementation 1 is "impl-" in matrix-1.json and "impl-codepoint-order" in matrix-2.json`},
		{"fewer implementations", []merge.Input{parts[0], fewer[1]}, merge.Options{}, "matrix-1.json has 2 implementations, matrix-2.json 1"},
		{"a report among matrices", []merge.Input{single[0], parts[1]}, merge.Options{}, "merge reports with reports, matrices with matrices"},
		{"a baseline", parts, merge.Options{KnownFailing: "known"}, "a baseline is one implementation's"},
		{"a check twice", []merge.Input{parts[0], {Name: "copy.json", Data: parts[0].Data}}, merge.Options{}, `matrix-1.json (implementation "impl-") and copy.json (implementation "impl-") are both shard 1/2`},
		{"no implementations", []merge.Input{{Name: "empty.json", Data: []byte(`{"format":"referee-matrix/1","implementations":[]}`)}}, merge.Options{}, "empty.json: referee-matrix/1: no implementations"},
		{"a name twice", []merge.Input{{Name: "twice.json", Data: mutate(t, parts[0].Data, func(m map[string]any) {
			ims := m["implementations"].([]any)
			ims[1].(map[string]any)["name"] = ims[0].(map[string]any)["name"]
		})}}, merge.Options{}, "not unique"},
		{"an unknown member", []merge.Input{{Name: "x.json", Data: mutate(t, parts[0].Data, func(m map[string]any) { m["extra"] = 1 })}}, merge.Options{}, "unknown field"},
		{"a bad report inside", []merge.Input{{Name: "x.json", Data: mutate(t, parts[0].Data, func(m map[string]any) {
			m["implementations"].([]any)[0].(map[string]any)["report"].(map[string]any)["conformant"] = "yes"
		})}}, merge.Options{}, `implementation "impl-"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := merge.Merge(tt.inputs, tt.o)
			var ue *check.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a usage error saying %q", err, tt.want)
			}
		})
	}
}
