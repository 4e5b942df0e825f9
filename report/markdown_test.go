package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/golden"
)

func TestGoldenMarkdown(t *testing.T) {
	for _, tc := range []struct {
		file string
		r    *Report
	}{{"report.md", sampleReport(false)}, {"report-strict.md", sampleReport(true)}} {
		var b bytes.Buffer
		if err := WriteMarkdown(&b, tc.r, MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, goldenFile(tc.file), b.Bytes())
	}
	var b bytes.Buffer
	if err := WriteMarkdownMatrix(&b, []NamedReport{{"node", sampleReport(false)}, {"fixed", fixedReport()}}, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("matrix.md"), b.Bytes())
}

// fixedReport is the sample run with its first failure fixed.
func fixedReport() *Report {
	run := sampleRun()
	run.Results[1] = check.Result{ID: run.Results[1].ID, Status: check.Pass, Level: check.Must}
	return New(Tool{Name: "referee", Version: "1.2.3"},
		Suite{Name: "jcs", Version: "1.0.0", Corpus: "embedded:jcs", CorpusDigest: "sha256:" + strings.Repeat("ab", 32)},
		Implementation{Name: "jcs-fixed", Version: "1.0.1", Ops: []string{"canonicalJson"}, Transport: "in-process"},
		run, false)
}

// TestMarkdownEscapes: what an implementation wrote stays text: no HTML,
// no link or image, no extra table cell.
func TestMarkdownEscapes(t *testing.T) {
	r := hostile()
	r.Checks[1].Reason = "a | b ![x](https://example.invalid/t.png) <img src=x> `code` *em* [l](u) \n@someone"
	r.Checks[0].ID = "jcs/|/<b>"
	r.Checks[0].Status, r.Checks[0].Known, r.Checks[0].Stale = "pass", "failing", true
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Each character that could start markup (HTML, a link, an image, code,
	// emphasis, a mention) is escaped. (The summary's own markup is
	// headings, tables, a parenthesis and the empty comments that break
	// autolinks, none of these once those are left out.)
	out = strings.ReplaceAll(out, noLink, "")
	if m := regexp.MustCompile("(^|[^\\\\])[<>\\[\\]`*_!@~&]").FindString(out); m != "" {
		t.Errorf("the summary holds %q unescaped:\n%s", m, out)
	}
	// Every table row has as many unescaped | as its header.
	unescaped := regexp.MustCompile(`(^|[^\\])\|`)
	for _, table := range strings.Split(out, "\n\n") {
		lines := strings.Split(strings.TrimSpace(table), "\n")
		if !strings.HasPrefix(lines[0], "|") {
			continue
		}
		want := len(unescaped.FindAllString(lines[0], -1))
		for _, l := range lines[1:] {
			if got := len(unescaped.FindAllString(l, -1)); got != want {
				t.Errorf("a row with %d cell borders under a header with %d: %s", got, want, l)
			}
		}
	}
	if !strings.Contains(out, "| STALE | jcs/\\|/\\<b\\> |") {
		t.Errorf("no stale row for the hostile ID:\n%s", out)
	}
}

// TestMarkdownTruncates: a run with many failures lists the worst first,
// at most MaxChecks of them, and says how many it left out.
func TestMarkdownTruncates(t *testing.T) {
	run := &check.Execution{Complete: true}
	for i := range 120 {
		st, lv := check.NotChecked, check.Must
		switch {
		case i%3 == 0:
			st = check.Fail
		case i%3 == 1:
			st, lv = check.Fail, check.Should
		}
		run.Results = append(run.Results, check.Result{ID: fmt.Sprintf("s/c/%03d", i), Status: st, Level: lv, Reason: strings.Repeat("r", 1000)})
	}
	run.Results = append(run.Results, check.Result{ID: "s/c/pass", Status: check.Pass, Level: check.Must})
	r := New(Tool{Name: "referee"}, Suite{Name: "s"}, Implementation{Transport: "in-process"}, run, false)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r, MarkdownOptions{MaxChecks: 50}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	rows := regexp.MustCompile(`(?m)^\| (FAIL|WARN|NOT CHECKED) \|`).FindAllStringSubmatch(out, -1)
	if len(rows) != 50 {
		t.Fatalf("%d rows, want 50", len(rows))
	}
	// 40 failures, then warnings.
	for i, m := range rows {
		want := "FAIL"
		if i >= 40 {
			want = "WARN"
		}
		if m[1] != want {
			t.Errorf("row %d is %s, want %s", i, m[1], want)
			break
		}
	}
	if !strings.Contains(out, "#### Checks that did not pass (120)") || !strings.Contains(out, "…and 70 more") {
		t.Errorf("no count or no remainder line:\n%s", out[len(out)-300:])
	}
	if strings.Contains(out, strings.Repeat("r", mdMaxValue+1)) {
		t.Error("a reason was not cut")
	}
	if len(out) > 64<<10 {
		t.Errorf("a summary of %d bytes", len(out))
	}
}
