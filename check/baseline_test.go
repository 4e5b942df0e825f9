package check

import (
	"strings"
	"testing"
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
	flaky, _ := ParseBaseline("flaky.txt", []byte("jcs/strings\n"))
	run := &Run{Results: []Result{
		{ID: "jcs/keys/a", Status: Fail},
		{ID: "jcs/keys/b", Status: Pass},
		{ID: "jcs/strings/c", Status: Error},
		{ID: "jcs/other/d", Status: Fail},
		{ID: "jcs/other/e", Status: NotChecked},
	}}
	ApplyBaseline(run, entries, flaky)
	want := []struct {
		known             string
		stale, unexpected bool
	}{{KnownFailing, false, false}, {KnownFailing, true, true}, {KnownFlaky, false, false}, {"", false, true}, {"", false, false}}
	for i, w := range want {
		r := run.Results[i]
		if r.Known != w.known || r.Stale != w.stale || r.Unexpected() != w.unexpected {
			t.Errorf("%s: known %q stale %v unexpected %v, want %+v", r.ID, r.Known, r.Stale, r.Unexpected(), w)
		}
	}
	out := string(FailingBaseline(run, "header one\nheader two"))
	if out != "# header one\n# header two\njcs/keys/a\njcs/strings/c\njcs/other/d\n" {
		t.Errorf("written baseline:\n%s", out)
	}
	if again, err := ParseBaseline("w", []byte(out)); err != nil || len(again) != 3 {
		t.Errorf("the written baseline does not read back: %v %d", err, len(again))
	}
}
