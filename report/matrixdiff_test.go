package report

import (
	"bytes"
	"strings"
	"testing"
)

func named(name string, r *Report) NamedReport { return NamedReport{Name: name, Report: r} }

// TestCompareMatrices: the implementations in both are compared check by
// check, in the new matrix's order; those in one only are listed; only a
// check's regression is one.
func TestCompareMatrices(t *testing.T) {
	pass := Check{ID: "a", Status: "pass", Level: "must"}
	fail := Check{ID: "a", Status: "fail", Level: "must", Reason: "differs"}
	old := []NamedReport{named("steady", diffReport("s", pass)), named("breaks", diffReport("b", pass)), named("gone", diffReport("g", fail))}
	new := []NamedReport{named("fresh", diffReport("f", fail)), named("breaks", diffReport("b", fail)), named("steady", diffReport("s", pass))}
	m, err := CompareMatrices(old, new)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range m.Diffs {
		names = append(names, d.Name)
	}
	if strings.Join(names, " ") != "breaks steady" || len(m.Added) != 1 || m.Added[0].Name != "fresh" || len(m.Removed) != 1 || m.Removed[0].Name != "gone" {
		t.Fatalf("in both %q, added %v, removed %v; want breaks steady, fresh, gone", names, m.Added, m.Removed)
	}
	if !m.Regressed() || m.Count(Regressed) != 1 || m.Diffs[0].Diff.Count(Regressed) != 1 || m.Diffs[1].Diff.Regressed() || m.Unchanged() != 1 {
		t.Errorf("regressed %v (%d), breaks %d, steady %v, unchanged %d; want one regression, in breaks", m.Regressed(), m.Count(Regressed), m.Diffs[0].Diff.Count(Regressed), m.Diffs[1].Diff.Regressed(), m.Unchanged())
	}
	// An implementation added failing, or removed, is no regression.
	m, err = CompareMatrices(old[:1], []NamedReport{old[0], named("fresh", diffReport("f", fail))})
	if err != nil {
		t.Fatal(err)
	}
	if m.Regressed() || len(m.Added) != 1 {
		t.Errorf("a new failing implementation: regressed %v, added %d", m.Regressed(), len(m.Added))
	}

	var text, mdown, page bytes.Buffer
	m, _ = CompareMatrices(old, new)
	if err := WriteMatrixDiffText(&text, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"referee diff: suite jcs, matrices of 3 and 3 implementations\n",
		"\nimplementation breaks\n  REGRESSED  a  pass → fail [must]: differs\n  1 regressed, 0 fixed, 0 new, 0 removed, 0 changed, 0 unchanged\n",
		"\nimplementation steady\n  0 regressed, 0 fixed, 0 new, 0 removed, 0 changed, 1 unchanged\n",
		"\nnew implementation fresh: f 1 (): 0 passed, 0 failed, 0 not checked, 0 errors\n",
		"\nremoved implementation gone: g 1 (): ",
		"\n2 implementations in both, 1 new, 1 removed: 1 regressed, 0 fixed, 0 new, 0 removed, 0 changed, 1 unchanged\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := WriteMatrixDiffMarkdown(&mdown, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### referee diff: jcs (matrix): REGRESSED\n", "\n- new implementation fresh\\: f 1 \\(\\)\\: 0 passed, 0 failed, 0 not checked, 0 errors\n", "\n- removed implementation gone\\: ",
		"\n#### implementation breaks: REGRESSED\n", "\n##### regressed (1)\n", "\n#### implementation steady: no regression\n"} {
		if !strings.Contains(mdown.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, mdown.String())
		}
	}
	if err := WriteMatrixDiffHTML(&page, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h2>implementation <code>breaks</code></h2>", `<h3 class="regressed">regressed (1)</h3>`, "<li>new implementation fresh: ", "<li>removed implementation gone: ", `<p id="summary">2 implementations in both, 1 new, 1 removed: 1 regressed,`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("html lacks %q:\n%s", want, page.String())
		}
	}
}

// TestCompareMatricesRefuses: matrices that do not belong together.
func TestCompareMatricesRefuses(t *testing.T) {
	jcs := diffReport("x", Check{ID: "a", Status: "pass", Level: "must"})
	other := diffReport("x", Check{ID: "a", Status: "pass", Level: "must"})
	other.Suite.Name = "crosslink"
	for _, tc := range []struct {
		name     string
		old, new []NamedReport
		want     string
	}{
		{"another suite, in both", []NamedReport{named("a", jcs)}, []NamedReport{named("a", other)}, `"crosslink"`},
		{"another suite, only new", []NamedReport{named("a", jcs)}, []NamedReport{named("a", jcs), named("b", other)}, `implementation b was run through suite "crosslink"`},
		{"another suite, only old", []NamedReport{named("a", jcs), named("b", other)}, []NamedReport{named("a", jcs)}, `"crosslink"`},
		{"a name twice", []NamedReport{named("a", jcs)}, []NamedReport{named("a", jcs), named("a", jcs)}, "two implementations a"},
		{"no report", []NamedReport{named("a", jcs)}, []NamedReport{{Name: "a"}}, "has no report"},
		{"nothing", nil, []NamedReport{named("a", jcs)}, "no implementation"},
	} {
		if _, err := CompareMatrices(tc.old, tc.new); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestMatrixDiffWritersCannotBeForged: an implementation's name, hello,
// check ID and reason that try to forge a line, a link or markup.
func TestMatrixDiffWritersCannotBeForged(t *testing.T) {
	const hostile = "x\n0 regressed, 0 fixed\x1b[2K\r<script>alert(1)</script> [a](http://evil.example) www.evil.example"
	old := []NamedReport{named(hostile, diffReport(hostile, Check{ID: "a" + hostile, Status: "pass", Level: "must"})), named("gone"+hostile, diffReport(hostile, Check{ID: "b", Status: "pass", Level: "must"}))}
	new := []NamedReport{named(hostile, diffReport(hostile, Check{ID: "a" + hostile, Status: "fail", Level: "must", Reason: hostile}))}
	m, err := CompareMatrices(old, new)
	if err != nil {
		t.Fatal(err)
	}
	var text, mdown, page bytes.Buffer
	for _, write := range []error{WriteMatrixDiffText(&text, m), WriteMatrixDiffMarkdown(&mdown, m), WriteMatrixDiffHTML(&page, m)} {
		if write != nil {
			t.Fatal(write)
		}
	}
	if n := strings.Count(text.String(), "\n"); n != 6 {
		t.Errorf("text has %d lines, want 6 (header, implementation, change, its summary, removed, summary):\n%s", n, text.String())
	}
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(l, "0 regressed") || strings.ContainsAny(l, "\x1b\r") {
			t.Errorf("text line forged or raw: %q", l)
		}
	}
	for i, l := range strings.Split(mdown.String(), "\n") {
		if strings.Contains(strings.ToLower(l), "www.") || strings.Contains(l, "://") {
			t.Errorf("markdown line %d could autolink: %s", i+1, l)
		}
		switch {
		case strings.HasPrefix(l, "#### implementation "):
			l = strings.TrimSuffix(strings.TrimPrefix(l, "#### implementation "), ": REGRESSED") // the name
		case strings.HasPrefix(l, "#"):
			continue // the other headings are referee's own
		}
		l = strings.ReplaceAll(l, "<!-- -->", "")
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
