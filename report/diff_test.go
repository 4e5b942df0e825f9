package report

import (
	"bytes"
	"strings"
	"testing"
)

func diffReport(name string, checks ...Check) *Report {
	return &Report{Format: Format, Suite: Suite{Name: "jcs", CorpusDigest: "sha256:aa"}, Implementation: Implementation{Name: name, Version: "1"}, Complete: true, Checks: checks}
}

func TestCompare(t *testing.T) {
	chk := func(id, status, level string) Check { return Check{ID: id, Status: status, Level: level} }
	tests := []struct {
		name     string
		old, new Check
		want     ChangeKind // "" for unchanged
	}{
		{"pass to fail", chk("a", "pass", "must"), chk("a", "fail", "must"), Regressed},
		{"pass to error", chk("a", "pass", "must"), chk("a", "error", "must"), Regressed},
		{"warn to fail", chk("a", "fail", "should"), chk("a", "fail", "must"), Regressed},
		{"warn to error", chk("a", "fail", "should"), chk("a", "error", "should"), Regressed},
		{"may pass to may fail", chk("a", "pass", "may"), chk("a", "fail", "may"), Regressed},
		{"fail to pass", chk("a", "fail", "must"), chk("a", "pass", "must"), Fixed},
		{"error to warn", chk("a", "error", "should"), chk("a", "fail", "should"), Fixed},
		{"pass to warn", chk("a", "pass", "should"), chk("a", "fail", "should"), Changed},
		{"pass to not checked", chk("a", "pass", "must"), chk("a", "not-checked", "must"), Changed},
		{"not checked to fail", chk("a", "not-checked", "must"), chk("a", "fail", "must"), Changed},
		{"fail to error", chk("a", "fail", "must"), chk("a", "error", "must"), Changed},
		{"level moved", chk("a", "pass", "must"), chk("a", "pass", "should"), Changed},
		{"outcome chosen moved", Check{ID: "a", Status: "pass", Level: "may", Outcome: "output"}, Check{ID: "a", Status: "pass", Level: "may", Outcome: "rejected"}, Changed},
		{"same pass", chk("a", "pass", "must"), chk("a", "pass", "must"), ""},
		{"same fail, other reason", Check{ID: "a", Status: "fail", Level: "must", Reason: "x"}, Check{ID: "a", Status: "fail", Level: "must", Reason: "y"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Compare(diffReport("x", tt.old), diffReport("x", tt.new))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && (len(d.Changes) != 0 || d.Unchanged != 1):
				t.Errorf("changes %+v, unchanged %d: want none and 1", d.Changes, d.Unchanged)
			case tt.want != "" && (len(d.Changes) != 1 || d.Changes[0].Kind != tt.want || d.Unchanged != 0):
				t.Errorf("changes %+v: want one %s", d.Changes, tt.want)
			}
			if got, want := d.Regressed(), tt.want == Regressed; got != want {
				t.Errorf("Regressed() = %v, want %v", got, want)
			}
		})
	}
}

func TestCompareAddedRemovedAndOrder(t *testing.T) {
	old := diffReport("x", Check{ID: "a", Status: "pass", Level: "must"}, Check{ID: "gone", Status: "fail", Level: "must"})
	new := diffReport("x", Check{ID: "fresh", Status: "fail", Level: "must"}, Check{ID: "a", Status: "pass", Level: "must"})
	d, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 2 || d.Changes[0].ID != "fresh" || d.Changes[0].Kind != Added || d.Changes[1].ID != "gone" || d.Changes[1].Kind != Removed {
		t.Fatalf("changes %+v: want fresh new, then gone removed", d.Changes)
	}
	if d.Regressed() {
		t.Error("a new failing check is not a regression")
	}
	if d.Unchanged != 1 {
		t.Errorf("unchanged %d, want 1", d.Unchanged)
	}
}

func TestCompareRefusesOtherSuites(t *testing.T) {
	other := diffReport("x", Check{ID: "a", Status: "pass", Level: "must"})
	other.Suite.Name = "crosslink"
	if _, err := Compare(diffReport("x", Check{ID: "a", Status: "pass", Level: "must"}), other); err == nil || !strings.Contains(err.Error(), `"crosslink"`) {
		t.Fatalf("err %v: want one naming the other suite", err)
	}
}

func TestCompareNotes(t *testing.T) {
	old := diffReport("impl-a", Check{ID: "a", Status: "pass", Level: "must"})
	new := diffReport("impl-b", Check{ID: "a", Status: "pass", Level: "must"})
	new.Suite.CorpusDigest = "sha256:bb"
	new.Complete = false
	d, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(d.Notes, "\n")
	for _, want := range []string{"corpus", "implementation impl-a 1", "impl-b 1", "the new run was incomplete"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}

// TestDiffWritersCannotBeForged gives the writers a check ID, reason and
// implementation name that try to forge a line, a link or markup.
func TestDiffWritersCannotBeForged(t *testing.T) {
	const hostile = "x\n0 regressed, 0 fixed\x1b[2K\r<script>alert(1)</script> [a](http://evil.example) www.evil.example"
	old := diffReport(hostile, Check{ID: "a" + hostile, Status: "pass", Level: "must"})
	new := diffReport(hostile, Check{ID: "a" + hostile, Status: "fail", Level: "must", Reason: hostile})
	d, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	var text, mdown, page bytes.Buffer
	if err := WriteDiffText(&text, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteDiffMarkdown(&mdown, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteDiffHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(l, "0 regressed") || strings.ContainsAny(l, "\x1b\r") {
			t.Errorf("text line forged or raw: %q", l)
		}
	}
	if n := strings.Count(text.String(), "\n"); n != 3 {
		t.Errorf("text has %d lines, want 3 (header, one change, summary):\n%s", n, text.String())
	}
	for i, l := range strings.Split(mdown.String(), "\n") {
		if strings.HasPrefix(l, "#") {
			continue // the headings are referee's own
		}
		if strings.Contains(strings.ToLower(l), "www.") || strings.Contains(l, "://") {
			t.Errorf("markdown line %d could autolink: %s", i+1, l)
		}
		l = strings.ReplaceAll(l, "<!-- -->", "") // md's autolink breaks render as nothing
		for j := 0; j < len(l); j++ {
			if strings.IndexByte("<>[]()`*_", l[j]) >= 0 && (j == 0 || l[j-1] != '\\') {
				t.Errorf("markdown line %d keeps %q unescaped: %s", i+1, l[j], l)
				break
			}
		}
	}
	if strings.Contains(page.String(), "<script>") || strings.Contains(page.String(), "\x1b") {
		t.Errorf("html keeps a script or an escape:\n%s", page.String())
	}
}
