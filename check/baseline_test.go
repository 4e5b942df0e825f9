package check

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBaseline(t *testing.T) {
	entries, err := ParseBaseline("known.txt", []byte("# a comment\n\njcs/keys/**   # every key case\njcs/numbers/1e21\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Where != "known.txt:3" || entries[1].Pattern.String() != "jcs/numbers/1e21" {
		t.Fatalf("entries %+v", entries)
	}
	if _, err := ParseBaseline("bad.txt", []byte("jcs/ok\njcs//x\n")); err == nil || !strings.HasPrefix(err.Error(), "bad.txt:2: ") {
		t.Errorf("a bad pattern: %v", err)
	}
	checks := []Check{{ID: "jcs/keys/a"}, {ID: "jcs/strings/b"}}
	if bad := UnmatchedEntries(entries, checks); len(bad) != 1 || bad[0].Where != "known.txt:4" {
		t.Errorf("unmatched %+v", bad)
	}
	flaky, _ := ParseBaseline("flaky.txt", []byte("jcs/strings/**\njcs/keys/c\n"))
	run := &Execution{Results: []Result{
		{ID: "jcs/keys/a", Status: Fail},
		{ID: "jcs/keys/b", Status: Pass},
		{ID: "jcs/strings/c", Status: Error},
		{ID: "jcs/other/d", Status: Fail},
		{ID: "jcs/other/e", Status: NotChecked},
	}}
	stale := ApplyBaseline(run, entries, flaky)
	if len(stale) != 0 {
		t.Errorf("stale %+v: jcs/keys/** selects a failure", stale)
	}
	want := []struct {
		known             string
		stale, unexpected bool
	}{{KnownFailing, false, false}, {KnownFailing, false, false}, {KnownFlaky, false, false}, {"", false, true}, {"", false, false}}
	for i, w := range want {
		r := run.Results[i]
		if r.Known != w.known || r.Stale != w.stale || r.Unexpected() != w.unexpected {
			t.Errorf("%s: known %q stale %v unexpected %v, want %+v", r.ID, r.Known, r.Stale, r.Unexpected(), w)
		}
	}
	out := string(FailingBaseline(run, "header one\nheader two"))
	if out != "# header one\n# header two\njcs/keys/a\njcs/other/d\n" { // the flaky one is not listed
		t.Errorf("written baseline:\n%s", out)
	}
	if again, err := ParseBaseline("w", []byte(out)); err != nil || len(again) != 2 {
		t.Errorf("the written baseline does not read back: %v %d", err, len(again))
	}
}

func TestBaselineStaleEntries(t *testing.T) {
	failing, _ := ParseBaseline("k", []byte("cdc/rules/F\njcs/numbers/**\njcs/keys/x\n"))
	flaky, _ := ParseBaseline("f", []byte("jcs/keys/x\n"))
	run := &Execution{Results: []Result{
		{ID: "cdc/rules/F", Status: Fail},
		{ID: "cdc/rules/F/schema-valid", Status: Pass}, // not selected by cdc/rules/F: whole IDs only
		{ID: "jcs/numbers/a", Status: Pass},
		{ID: "jcs/numbers/b", Status: Pass},
		{ID: "jcs/keys/x", Status: Pass}, // flaky wins over failing: it may pass
	}}
	stale := ApplyBaseline(run, failing, flaky)
	if len(stale) != 1 || stale[0].Where != "k:2" {
		t.Fatalf("stale %+v, want jcs/numbers/** alone", stale)
	}
	for _, r := range run.Results {
		wantStale := strings.HasPrefix(r.ID, "jcs/numbers/")
		if r.Stale != wantStale {
			t.Errorf("%s: stale %v", r.ID, r.Stale)
		}
	}
	if run.Results[1].Known != "" || run.Results[4].Known != KnownFlaky {
		t.Errorf("known: %q, %q", run.Results[1].Known, run.Results[4].Known)
	}
	var sel []Check
	for _, r := range run.Results {
		sel = append(sel, Check{ID: r.ID})
	}
	if bad := UnmatchedEntries(append(failing, BaselineEntry{Pattern: mustPattern(t, "cdc/rules"), Where: "k:9"}), sel); len(bad) != 1 || bad[0].Where != "k:9" {
		t.Errorf("unmatched %+v: cdc/rules names no whole ID", bad)
	}
	withBOM, err := ParseBaseline("b", []byte("\ufeffjcs/keys/x\n"))
	if err != nil || withBOM[0].Pattern.String() != "jcs/keys/x" {
		t.Errorf("a leading byte order mark: %v %+v", err, withBOM)
	}
}

func mustPattern(t *testing.T, s string) Pattern {
	t.Helper()
	p, err := ParsePattern(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBaselineLevels: a failed should check is a warning, neither unexpected
// nor written to a baseline, unless strict; a failed may check and an error
// at any level are failures.
func TestBaselineLevels(t *testing.T) {
	failing, _ := ParseBaseline("k", []byte("jcs/rejects/listed-warning\njcs/rejects/passing-should\n"))
	run := &Execution{Results: []Result{
		{ID: "jcs/keys/must-fail", Status: Fail, Level: Must},
		{ID: "jcs/keys/unlevelled-fail", Status: Fail}, // "" is must
		{ID: "jcs/rejects/warning", Status: Fail, Level: Should},
		{ID: "jcs/rejects/listed-warning", Status: Fail, Level: Should},
		{ID: "jcs/rejects/should-error", Status: Error, Level: Should},
		{ID: "jcs/rejects/passing-should", Status: Pass, Level: Should},
		{ID: "jcs/nesting/may-fail", Status: Fail, Level: May},
		{ID: "jcs/nesting/may-pass", Status: Pass, Level: May, Outcome: ChoseReject},
		{ID: "jcs/nesting/may-error", Status: Error, Level: May},
		{ID: "jcs/other/not-checked", Status: NotChecked, Level: Should},
	}}
	stale := ApplyBaseline(run, failing, nil)
	if len(stale) != 1 || stale[0].Where != "k:2" {
		t.Errorf("stale %+v, want k:2 alone (a listed warning keeps its entry)", stale)
	}
	want := []struct {
		blocks, blocksStrict, unexpected, unexpectedStrict bool
	}{
		{true, true, true, true},     // must-fail
		{true, true, true, true},     // unlevelled-fail
		{false, true, false, true},   // warning
		{false, true, false, false},  // listed-warning: known failing
		{true, true, true, true},     // should-error: an error blocks at every level
		{false, false, true, true},   // passing-should: stale
		{true, true, true, true},     // may-fail
		{false, false, false, false}, // may-pass
		{true, true, true, true},     // may-error
		{false, false, false, false}, // not-checked
	}
	for i, w := range want {
		r := run.Results[i]
		got := [4]bool{r.Blocks(false), r.Blocks(true), r.Unexpected(), r.UnexpectedUnder(true)}
		if got != [4]bool{w.blocks, w.blocksStrict, w.unexpected, w.unexpectedStrict} {
			t.Errorf("%s: blocks %v, strict %v; unexpected %v, strict %v; want %+v", r.ID, got[0], got[1], got[2], got[3], w)
		}
	}
	if r := run.Results[3]; r.Known != KnownFailing || r.Stale {
		t.Errorf("listed warning: known %q stale %v", r.Known, r.Stale)
	}
	if r := run.Results[5]; r.Known != KnownFailing || !r.Stale {
		t.Errorf("listed passing should check: known %q stale %v", r.Known, r.Stale)
	}
	fresh := run // the same run with no baseline applied
	for i := range fresh.Results {
		fresh.Results[i].Known, fresh.Results[i].Stale = "", false
	}
	musts := "jcs/keys/must-fail\njcs/keys/unlevelled-fail\n"
	mays := "jcs/nesting/may-fail\njcs/nesting/may-error\n"
	if got, want := string(FailingBaseline(fresh, "h")), "# h\n"+musts+"jcs/rejects/should-error\n"+mays; got != want {
		t.Errorf("written baseline:\n%s\nwant:\n%s", got, want)
	}
	if got := string(FailingBaselineUnder(fresh, "h", false)); got != string(FailingBaseline(fresh, "h")) {
		t.Errorf("FailingBaselineUnder without strict differs from FailingBaseline:\n%s", got)
	}
	strictWant := "# h\n" + musts + "jcs/rejects/warning\njcs/rejects/listed-warning\njcs/rejects/should-error\n" + mays
	if got := string(FailingBaselineUnder(fresh, "h", true)); got != strictWant {
		t.Errorf("written baseline under strict:\n%s\nwant:\n%s", got, strictWant)
	}
}

// compactRun is results as a compact run keeps them.
func compactRun(results []Result) *Execution {
	run := &Execution{compact: make([]verdict, len(results))}
	for _, r := range results {
		run.checks = append(run.checks, Check{ID: r.ID, Level: r.Level})
	}
	for i, r := range results {
		run.Set(i, r)
	}
	return run
}

// TestBaselineCompact: a baseline marks a compact run's results as it marks
// a whole run's, and the baseline written from either is the same.
func TestBaselineCompact(t *testing.T) {
	failing, _ := ParseBaseline("k", []byte("jcs/keys/**\njcs/numbers/a\n"))
	flaky, _ := ParseBaseline("f", []byte("jcs/strings/**\n"))
	results := []Result{
		{ID: "jcs/keys/a", Status: Fail, Level: Must},
		{ID: "jcs/keys/b", Status: Pass, Level: Must},
		{ID: "jcs/numbers/a", Status: Pass, Level: Must},
		{ID: "jcs/strings/c", Status: Error, Level: Must},
		{ID: "jcs/other/d", Status: Fail, Level: Should},
		{ID: "jcs/other/e", Status: Pass, Level: May, Outcome: ChoseReject, Duration: 3 * time.Millisecond},
		{ID: "jcs/other/f", Status: Pass, Level: Should, Duration: 2 * time.Millisecond},
	}
	whole := &Execution{Results: slices.Clone(results)}
	compact := compactRun(results)
	staleWhole, staleCompact := ApplyBaseline(whole, failing, flaky), ApplyBaseline(compact, failing, flaky)
	if !reflect.DeepEqual(staleWhole, staleCompact) || len(staleWhole) != 1 {
		t.Errorf("stale %v and %v, want jcs/numbers/a in both", staleWhole, staleCompact)
	}
	for i, r := range compact.All() {
		if !reflect.DeepEqual(r, whole.Results[i]) {
			t.Errorf("result %d: compact %+v, whole %+v", i, r, whole.Results[i])
		}
	}
	if compact.At(2).Stale != true || compact.At(1).Known != KnownFailing {
		t.Errorf("marks lost: %+v %+v", compact.At(1), compact.At(2))
	}
	if v := compact.compact[6]; v.full != nil || compact.compact[5].full != nil {
		t.Errorf("plain passes kept whole: %+v %+v", compact.compact[5], v)
	}
	if a, b := FailingBaselineUnder(whole, "h", true), FailingBaselineUnder(compact, "h", true); !bytes.Equal(a, b) {
		t.Errorf("written baselines differ:\n%s\n%s", a, b)
	}
	if compact.Counts() != whole.Counts() {
		t.Errorf("counts %+v, want %+v", compact.Counts(), whole.Counts())
	}
}

// TestEntryIndexSelectsAsMatchWhole: the index (IDs looked up, wildcard
// patterns matched one by one) selects, for every ID, exactly the entries
// whose pattern MatchWhole selects it, duplicates included.
func TestEntryIndexSelectsAsMatchWhole(t *testing.T) {
	lines := []string{"jcs/keys/ascii", "jcs/keys/**", "jcs/keys/ascii", "jcs/numbers", "jcs/numbers/1e2?", `jcs/a\*b`, "jcs/a*b", `jcs/a\b`, "**", "jcs/*", "cdc/x"}
	entries, err := ParseBaseline("b.txt", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	x := indexEntries(entries)
	for _, id := range []string{"jcs/keys/ascii", "jcs/keys", "jcs/keys/ascii/x", "jcs/numbers", "jcs/numbers/1e21", "jcs/a*b", "jcs/axb", "jcs/ab", `jcs/a\b`, "cdc/x", "cdc", "other/thing"} {
		var got, want []int
		x.selecting(id, func(j int) { got = append(got, j) })
		for j, e := range entries {
			if e.Pattern.MatchWhole(id) {
				want = append(want, j)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the index selects entries %v, MatchWhole %v", id, got, want)
		}
	}
}

// TestBaselineWildcardLimit: a file with more wildcard patterns than
// MaxWildcardEntries, or more patterns than MaxEntries, is refused at the
// first one over, by file and line.
func TestBaselineWildcardLimit(t *testing.T) {
	var b strings.Builder
	for i := range MaxWildcardEntries + 5 {
		fmt.Fprintf(&b, "jcs/id-%d\njcs/group-%d/**\n", i, i)
	}
	_, err := ParseBaseline("big.txt", []byte(b.String()))
	want := fmt.Sprintf("big.txt:%d: more than %d patterns with wildcards", 2*(MaxWildcardEntries+1), MaxWildcardEntries)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v, want it to start %q", err, want)
	}
	b.Reset()
	for i := range 3 * MaxWildcardEntries {
		fmt.Fprintf(&b, "jcs/id-%d\n", i)
	}
	if entries, err := ParseBaseline("ids.txt", []byte(b.String())); err != nil || len(entries) != 3*MaxWildcardEntries {
		t.Fatalf("%d IDs: %d entries, %v", 3*MaxWildcardEntries, len(entries), err)
	}
	ids := bytes.Repeat([]byte("jcs/keys/ascii\n# a comment\n"), MaxEntries+1)
	if _, err := ParseBaseline("ids.txt", ids); err == nil || err.Error() != fmt.Sprintf("ids.txt:%d: more than %d patterns", 2*MaxEntries+1, MaxEntries) {
		t.Fatalf("%d IDs: err = %v", MaxEntries+1, err)
	}
}
