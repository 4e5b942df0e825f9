package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/golden"
)

// collapsedReport has checks that ended the same way for the same reason:
// two not-checked ones of different levels, two must failures each with
// evidence of its own, a should failure of that reason (a warning: apart),
// and two errors whose reason and one ID hold markup.
func collapsedReport() *Report {
	run := &check.Execution{Started: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Duration: 900 * time.Millisecond, Complete: true}
	add := func(id string, st check.Status, lvl check.Level, reason, actual string) {
		r := check.Result{ID: id, Status: st, Level: lvl, Reason: reason, Duration: time.Millisecond}
		if actual != "" {
			r.Expected, r.Actual = `{"a":1}`, actual
			r.Evidence = check.Evidence{
				Exchanges: []adapter.Exchange{{Request: []byte(`{"id":1,"op":"canonicalJson","args":{"value_text":"` + id + `"}}`), Reply: []byte(`{"id":1,"ok":` + actual + `}`)}},
				Repro:     "printf '%s\\n' '" + id + "' | node a.mjs",
			}
		}
		run.Results = append(run.Results, r)
	}
	add("jcs/keys/a", check.Pass, check.Must, "", "")
	add("jcs/keys/b", check.NotChecked, check.Must, "adapter offers no canonicalBytes", "")
	add("jcs/keys/c", check.Fail, check.Must, "canonical text differs at byte 2", `{"a":2}`)
	add("jcs/numbers/b", check.NotChecked, check.Should, "adapter offers no canonicalBytes", "")
	add("jcs/numbers/c", check.Fail, check.Must, "canonical text differs at byte 2", `{"a":3}`)
	add("jcs/numbers/d", check.Fail, check.Should, "canonical text differs at byte 2", `{"a":4}`)
	add("jcs/nesting/<i>x</i>", check.Error, check.Must, `<b onmouseover="alert(1)">timeout</b>`, "")
	add("jcs/nesting/y", check.Error, check.Must, `<b onmouseover="alert(1)">timeout</b>`, "")
	return New(Tool{Name: "referee", Version: "1.2.3"},
		Suite{Name: "jcs", Version: "1.0.0", Corpus: "embedded:jcs", CorpusDigest: "sha256:" + strings.Repeat("ab", 32)},
		Implementation{Name: "jcs-node", Version: "1.0.0", Ops: []string{"canonicalJson"}, Transport: "stdio", Command: []string{"node", "a.mjs"}},
		run, false)
}

// TestHTMLCollapses: the page collapses identical reasons as the text
// report does: one entry per status, level and reason, its reason shown
// once and every check listed in it with its own anchor and evidence; a
// warning of the same reason stays apart; what the checks hold is escaped.
func TestHTMLCollapses(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, collapsedReport()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	golden.Check(t, goldenFile("report-collapsed.html"), b.Bytes())

	// The entries, each with the checks it holds (anchor and data-id of
	// each), read line by line: an entry ends where its details element
	// does, the checks' own details nested in it.
	got := map[string][]string{}
	summary := regexp.MustCompile(`^<summary>(.*)</summary>$`)
	checkEl := regexp.MustCompile(`^<(?:div|details) class="check s-[a-z-]+"[^>]* id="(c\d+)" data-id="([^"]*)"`)
	var in string // the entry being read: its status and summary
	depth, at := 0, 0
	for _, l := range strings.Split(page, "\n") {
		if m := regexp.MustCompile(`^<details class="same s-([a-z-]+)"`).FindStringSubmatch(l); m != nil {
			in, at = m[1]+": ", depth
		} else if m := summary.FindStringSubmatch(l); m != nil && in != "" && strings.HasSuffix(in, ": ") {
			in += m[1]
			got[in] = []string{}
		} else if m := checkEl.FindStringSubmatch(l); m != nil && in != "" {
			got[in] = append(got[in], m[1]+" "+m[2])
		}
		depth += strings.Count(l, "<details") - strings.Count(l, "</details>")
		if in != "" && depth == at {
			in = ""
		}
	}
	want := map[string][]string{
		`not-checked: <span class="tag">NOT CHECKED</span> <span class="id">jcs/keys/b</span> <span class="more">and 1 more</span> <span class="reason">adapter offers no canonicalBytes</span>`:                                    {"c2 jcs/keys/b", "c4 jcs/numbers/b"},
		`fail: <span class="tag">FAIL</span> <span class="id">jcs/keys/c</span> <span class="more">and 1 more</span> <span class="reason">canonical text differs at byte 2</span>`:                                                  {"c3 jcs/keys/c", "c5 jcs/numbers/c"},
		`error: <span class="tag">ERROR</span> <span class="id">jcs/nesting/&lt;i&gt;x&lt;/i&gt;</span> <span class="more">and 1 more</span> <span class="reason">&lt;b onmouseover=&#34;alert(1)&#34;&gt;timeout&lt;/b&gt;</span>`: {"c7 jcs/nesting/&lt;i&gt;x&lt;/i&gt;", "c8 jcs/nesting/y"},
	}
	if len(got) != len(want) {
		t.Errorf("%d collapsed entries, want %d: %q", len(got), len(want), got)
	}
	for k, ids := range want {
		if strings.Join(got[k], ", ") != strings.Join(ids, ", ") {
			t.Errorf("entry %s\n holds %q, want %q", k, got[k], ids)
		}
	}
	// The reason once per entry; the warning of the same reason on its own.
	if n := strings.Count(page, `<span class="reason">canonical text differs at byte 2</span>`); n != 2 {
		t.Errorf("the failures' reason is shown %d times, want 2 (their entry, the warning)", n)
	}
	if !strings.Contains(page, `id="c6" data-id="jcs/numbers/d" data-level="should" data-status="warn">`+"\n"+`<summary><span class="tag">WARN</span>`) {
		t.Error("the warning of the same reason is not an entry of its own")
	}
	// Each failure of the entry keeps its own evidence.
	for _, actual := range []string{`{&#34;a&#34;:3}`, `{&#34;a&#34;:2}`, `jcs/numbers/c&#39; | node a.mjs`} {
		if !strings.Contains(page, actual) {
			t.Errorf("the page lacks %s: a collapsed check lost its evidence", actual)
		}
	}
	for _, bad := range []string{"<i>x", "<b onmouseover"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
}

// TestHTMLMatrixCollapses: in a matrix, each implementation's evidence
// collapses as the page of its report does, and every cell that links to
// a check's evidence finds its anchor.
func TestHTMLMatrixCollapses(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTMLMatrix(&b, []NamedReport{{"node", collapsedReport()}, {"other", sampleReport(false)}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `<details class="same `); n != 1 {
		t.Errorf("%d collapsed entries in the evidence, want 1 (the failures; the not-checked ones and the errors have no evidence)", n)
	}
	for _, m := range regexp.MustCompile(`<a href="#([^"]+)">`).FindAllStringSubmatch(page, -1) {
		if !strings.Contains(page, ` id="`+m[1]+`"`) {
			t.Errorf("a cell links to #%s, which the page does not have", m[1])
		}
	}
	if !strings.Contains(page, `<a href="#i15">FAIL</a>`) || !strings.Contains(page, `id="i15" data-id="jcs/numbers/c"`) {
		t.Error("the second check of a collapsed entry is not linked from its cell")
	}
}
