package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/refereehq/referee/internal/golden"
)

// hostile is a report whose implementation wrote markup, script and
// control characters everywhere it could.
func hostile() *Report {
	r := sampleReport(false)
	r.Implementation.Name = `<script>alert("name")</script>`
	r.Implementation.Command = []string{"node", `"><img src=x onerror=alert(1)>`}
	c := &r.Checks[1]
	act := `</pre><script>alert("actual")</script>` + "\x00\u2028"
	c.Actual = &act
	c.Reason = `<b onmouseover="alert(1)">reason</b>`
	c.Evidence.Stderr = "</pre><iframe src=\"https://example.invalid/\"></iframe>\n"
	c.Evidence.Repro = `printf '%s\n' '</code><script>alert(2)</script>' | node a.mjs`
	c.Evidence.Exchanges[0].Reply = `{"ok":"<style>body{display:none}</style>"}`
	return r
}

func TestGoldenHTML(t *testing.T) {
	for _, tc := range []struct {
		file string
		r    *Report
	}{{"report.html", sampleReport(false)}, {"report-strict.html", sampleReport(true)}} {
		var b bytes.Buffer
		if err := WriteHTML(&b, tc.r); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, goldenFile(tc.file), b.Bytes())
	}
	var b bytes.Buffer
	if err := WriteHTMLMatrix(&b, []NamedReport{{"node", sampleReport(false)}, {"fixed", fixedReport()}}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("matrix.html"), b.Bytes())
}

// TestHTMLEscapes: nothing an implementation wrote becomes markup, and the
// page names no resource outside itself.
func TestHTMLEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script>alert", "<img", "<iframe", "<b onmouseover", "<style>body{display:none}", "</code><script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(&#34;actual&#34;)&lt;/script&gt;‹U&#43;0000›‹U&#43;2028›", "&lt;iframe src="} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %q escaped", want)
		}
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d script elements, want referee's one", n)
	}
	// No tag may name a resource (src, an href outside the page), and the
	// style loads nothing (url(), @import). Text holds no "<": every one
	// opens a tag.
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		if m := regexp.MustCompile(`(?i)\s(src|srcset|action|formaction|poster|data|background)=|href="[^#]`).FindString(tag); m != "" {
			t.Errorf("the tag %s refers to something outside the page", tag)
		}
	}
	if m := regexp.MustCompile(`url\(|@import`).FindString(pageStyle); m != "" {
		t.Errorf("the style loads something: %q", m)
	}
}

func TestMatrixRefusesNothing(t *testing.T) {
	for _, impls := range [][]NamedReport{nil, {{Name: "x"}}} {
		if err := WriteHTMLMatrix(&bytes.Buffer{}, impls); err == nil {
			t.Errorf("an HTML matrix of %v was written", impls)
		}
		if err := WriteMarkdownMatrix(&bytes.Buffer{}, impls, MarkdownOptions{}); err == nil {
			t.Errorf("a Markdown matrix of %v was written", impls)
		}
	}
}

// TestVerdictWords: the verdict the page and the summary head with.
func TestVerdictWords(t *testing.T) {
	mk := func(complete, strict bool, spec ...string) *Report {
		return New(Tool{}, Suite{Name: "jcs"}, Implementation{}, results(complete, spec...), strict)
	}
	empty := mk(true, false)
	empty.Shard = &Shard{Index: 2, Count: 9}
	stale := mk(true, false, "must:pass")
	stale.Baseline = &Baseline{Stale: 1}
	known := mk(true, false, "must:pass", "must:fail")
	known.Checks[1].Known = "failing"
	known.Baseline = &Baseline{KnownFailing: 1}
	tests := []struct {
		name, words, class string
		r                  *Report
	}{
		{"conformant", "CONFORMANT", "ok", mk(true, false, "must:pass")},
		{"with a warning", "CONFORMANT, WITH WARNINGS", "warn", mk(true, false, "must:pass", "should:fail")},
		{"strict with a warning", "NOT CONFORMANT", "fail", mk(true, true, "must:pass", "should:fail")},
		{"a failure", "NOT CONFORMANT", "fail", mk(true, false, "must:pass", "must:fail")},
		{"incomplete", "INCOMPLETE", "incomplete", mk(false, false, "must:pass")},
		{"an empty shard", "AN EMPTY SHARD", "ok", empty},
		{"a stale baseline", "CONFORMANT, BUT THE BASELINE IS STALE", "fail", stale},
		{"failures the baseline lists", "NOT CONFORMANT, AS THE BASELINE SAYS", "warn", known},
	}
	for _, tt := range tests {
		if words, class := verdict(tt.r); words != tt.words || class != tt.class {
			t.Errorf("%s: %q (%s), want %q (%s)", tt.name, words, class, tt.words, tt.class)
		}
	}
}

// TestHTMLStderrLines: a stderr written with CRLF line ends shows its lines,
// not a visible carriage return at the end of each, as the text report does.
func TestHTMLStderrLines(t *testing.T) {
	r := sampleReport(false)
	r.Checks[1].Evidence.Stderr = "first\r\nsecond\r\n"
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, `<pre class="stderr">first`+"\n"+`second</pre>`) {
		t.Errorf("the stderr is not shown as two lines:\n%s", page[strings.Index(page, `class="stderr"`)-5:][:80])
	}
}
