package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/jcs"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want report.Shard
		err  string
	}{
		{"1/4", report.Shard{Index: 1, Count: 4}, ""},
		{"4/4", report.Shard{Index: 4, Count: 4}, ""},
		{"1/1", report.Shard{Index: 1, Count: 1}, ""},
		{"0/4", report.Shard{}, "1 ≤ I ≤ N"},
		{"5/4", report.Shard{}, "1 ≤ I ≤ N"},
		{"1/0", report.Shard{}, "1 ≤ I ≤ N"},
		{"-1/3", report.Shard{}, "1 ≤ I ≤ N"},
		{"4", report.Shard{}, "want I/N"},
		{"a/b", report.Shard{}, "want I/N"},
		{" 1/2", report.Shard{}, "want I/N"},
		{"1/2/3", report.Shard{}, "want I/N"},
		{"", report.Shard{}, "want I/N"},
	}
	for _, tt := range tests {
		got, err := run.ParseShard(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseShard(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		case tt.err != "":
			var ue *check.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseShard(%q) = %+v, %v; want a usage error saying %q", tt.in, got, err, tt.err)
			}
		}
	}
}

// TestShardOfIsDocumented pins the hash to values computed outside Go, as
// the doc comment says a shell computes them:
// printf %s "$id" | sha256sum | cut -c1-16, mod N, plus 1.
func TestShardOfIsDocumented(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id    string
		count int
		want  int
	}{
		{"jcs/keys/ascii", 2, 2}, {"jcs/keys/ascii", 3, 2}, {"jcs/keys/ascii", 7, 4},
		{"jcs/numbers/1e21", 4, 4}, {"jcs/numbers/1e21", 7, 3},
		{"toy/must/abc", 4, 2}, {"toy/must/abc", 7, 1},
		{"toy/should/mixed", 4, 4}, {"toy/should/mixed", 7, 6},
		{"toy/may/long", 3, 3}, {"toy/may/long", 4, 2},
		{"", 4, 1}, {"", 7, 2},
		{"jcs/keys/ascii", 1, 1},
	}
	for _, tt := range tests {
		if got := run.ShardOf(tt.id, tt.count); got != tt.want {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", tt.id, tt.count, got, tt.want)
		}
	}
}

// TestShardsPartitionJCS splits the jcs suite's checks: every check is in
// exactly one shard, each shard keeps the suite's order, and no shard is far
// from the mean.
func TestShardsPartitionJCS(t *testing.T) {
	t.Parallel()
	whole, err := run.Prepare(&jcs.Definition, check.Spec{}, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := ids(whole.Checks)
	for _, n := range []int{2, 3, 4, 8} {
		var union []string
		for i := 1; i <= n; i++ {
			p, err := run.Prepare(&jcs.Definition, check.Spec{}, run.Options{Shard: report.Shard{Index: i, Count: n}})
			if err != nil {
				t.Fatal(err)
			}
			got := ids(p.Checks)
			mean := float64(len(all)) / float64(n)
			if f := float64(len(got)); f < 0.7*mean || f > 1.3*mean {
				t.Errorf("shard %d/%d holds %d of %d checks, mean %.0f", i, n, len(got), len(all), mean)
			}
			for _, id := range got {
				if s := run.ShardOf(id, n); s != i {
					t.Errorf("shard %d/%d holds %s, whose shard is %d", i, n, id, s)
				}
			}
			union = append(union, got...)
		}
		// Each shard is a subsequence of the suite's order, and together
		// they hold every check once.
		slices.Sort(union)
		sorted := slices.Sorted(slices.Values(all))
		if !slices.Equal(union, sorted) {
			t.Errorf("%d shards hold %d checks, the suite %d (or some twice)", n, len(union), len(all))
		}
	}
}

func ids(checks []check.Check) []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.ID
	}
	return out
}

func TestShardAfterSelection(t *testing.T) {
	t.Parallel()
	// toy/must/abc and toy/may/long are in shard 2 of 4; toy/should/mixed in shard 4.
	p, err := run.Prepare(&toy, check.Spec{}, run.Options{Skip: []string{"toy/may"}, Shard: report.Shard{Index: 2, Count: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Checks); !slices.Equal(got, []string{"toy/must/abc"}) {
		t.Errorf("shard 2/4 after --skip toy/may: %q", got)
	}
	_, err = run.Prepare(&toy, check.Spec{}, run.Options{Shard: report.Shard{Index: 5, Count: 4}})
	var ue *check.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--shard 5/4") {
		t.Errorf("shard 5/4: %v", err)
	}
}

func TestShardedReport(t *testing.T) {
	t.Parallel()
	p, err := run.Prepare(&toy, check.Spec{}, run.Options{Shard: report.Shard{Index: 4, Count: 4}})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Execute(context.Background())
	if sh := res.Report.Shard; sh == nil || *sh != (report.Shard{Index: 4, Count: 4}) {
		t.Errorf("report shard %+v", sh)
	}
	if len(res.Report.Checks) != 1 || res.Report.Checks[0].ID != "toy/should/mixed" {
		t.Errorf("shard 4/4 ran %+v", res.Report.Checks)
	}
	whole, err := run.Prepare(&toy, check.Spec{}, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sh := whole.Execute(context.Background()).Report.Shard; sh != nil {
		t.Errorf("an unsharded run records shard %+v", sh)
	}
}

// TestEmptyShard: a shard holding no selected check runs nothing, is
// complete, and fails nothing, so a CI matrix wider than the selection
// still merges.
func TestEmptyShard(t *testing.T) {
	t.Parallel()
	p, err := run.Prepare(&toy, check.Spec{}, run.Options{Shard: report.Shard{Index: 1, Count: 4}})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Execute(context.Background())
	r := res.Report
	if len(r.Checks) != 0 || r.Checks == nil || !r.Complete || r.Conformant || res.ExitCode() != report.ExitOK {
		t.Errorf("empty shard: checks %v (nil %v), complete %v, conformant %v, exit %d", r.Checks, r.Checks == nil, r.Complete, r.Conformant, res.ExitCode())
	}
	// An unsharded report with no check is not an empty shard: nothing
	// passed, exit 1.
	r.Shard = nil
	if got := r.ExitCode(); got != report.ExitFailed {
		t.Errorf("an unsharded report with no check exits %d", got)
	}
}

// TestShardedBaselineLeavesStaleToTheMerge: an entry none of whose checks
// failed is stale in a whole run; a shard sees only part of what an entry
// selects, so it judges none stale.
func TestShardedBaselineLeavesStaleToTheMerge(t *testing.T) {
	t.Parallel()
	known := filepath.Join(t.TempDir(), "known")
	if err := os.WriteFile(known, []byte("toy/must/abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		shard report.Shard
		stale int
		exit  int
	}{
		{report.Shard{}, 1, report.ExitFailed},
		{report.Shard{Index: 2, Count: 4}, 0, report.ExitOK},
	} {
		p, err := run.Prepare(&toy, check.Spec{}, run.Options{KnownFailing: known, Shard: tt.shard})
		if err != nil {
			t.Fatal(err)
		}
		res := p.Execute(context.Background())
		b := res.Report.Baseline
		if b == nil || b.Stale != tt.stale || len(b.StaleEntries) != tt.stale {
			t.Errorf("shard %+v: baseline %+v, want %d stale", tt.shard, b, tt.stale)
		}
		for _, c := range res.Report.Checks {
			if c.ID == "toy/must/abc" && (c.Known != check.KnownFailing || c.Stale != (tt.stale == 1)) {
				t.Errorf("shard %+v: %s known %q stale %v", tt.shard, c.ID, c.Known, c.Stale)
			}
		}
		if got := res.ExitCode(); got != tt.exit {
			t.Errorf("shard %+v: exit %d, want %d", tt.shard, got, tt.exit)
		}
	}
}
