package report

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/internal/termsafe"
)

// NamedReport is one implementation's report among several, by the name
// the run gave it.
type NamedReport struct {
	Name   string  `json:"name"`
	Report *Report `json:"report"`
}

// WriteHTML writes the report as one self-contained HTML page: the verdict
// and counts (readable without JavaScript), every check with its evidence
// (expected and actual values, the hex diff at the first differing byte,
// the requests and replies, the stderr tail, the repro command with a copy
// button), and filters by status, level and ID prefix. The page fetches
// nothing: its style and script are inline, pinned by a Content Security
// Policy that allows nothing else.
func WriteHTML(w io.Writer, r *Report) error {
	v := htmlView(r, "c")
	return writePage(w, page{
		Title:  fmt.Sprintf("referee: %s: %s", r.Suite.Name, v.Verdict),
		Single: v,
		Filter: newFilter(rowsOf(v.Checks), false),
	})
}

// WriteHTMLMatrix writes the reports of several implementations run
// through one suite as one page like WriteHTML's: a summary row per
// implementation, a grid of checks by implementation with filters (and
// one to show only the checks on which they disagree), and each
// implementation's evidence.
func WriteHTMLMatrix(w io.Writer, impls []NamedReport) error {
	if len(impls) == 0 {
		return fmt.Errorf("html: no implementation to show")
	}
	for _, im := range impls {
		if im.Report == nil {
			return fmt.Errorf("html: implementation %s has no report", im.Name)
		}
	}
	m := &htmlMatrix{Head: htmlView(impls[0].Report, "x")}
	row := map[string]int{}
	for i, im := range impls {
		v := htmlView(im.Report, fmt.Sprintf("i%d", i+1))
		m.Columns = append(m.Columns, htmlColumn{Name: safeLine(im.Name), View: v})
		for _, c := range v.Checks {
			j, ok := row[c.ID]
			if !ok {
				j = len(m.Rows)
				row[c.ID] = j
				m.Rows = append(m.Rows, htmlRow{ID: c.ID, Level: c.Level, Cells: make([]*htmlCheck, len(impls))})
			}
			m.Rows[j].Cells[i] = c
		}
	}
	var rows []filterRow
	for j := range m.Rows {
		r := &m.Rows[j]
		seen := map[string]bool{}
		var sig []string
		for _, c := range r.Cells {
			s := "missing"
			if c != nil {
				s = c.Status
				if c.Outcome != "" {
					s += ":" + c.Outcome
				}
			}
			sig = append(sig, s)
			if c != nil && !seen[c.Status] {
				seen[c.Status] = true
				r.Statuses = append(r.Statuses, c.Status)
			}
		}
		r.Agree = "yes"
		for _, s := range sig[1:] {
			if s != sig[0] {
				r.Agree = "no"
				m.Disagree++
				break
			}
		}
		r.Status = strings.Join(r.Statuses, " ")
		rows = append(rows, filterRow{statuses: r.Statuses, level: r.Level})
	}
	return writePage(w, page{
		Title:  fmt.Sprintf("referee: %s: %d implementations", m.Head.Suite, len(impls)),
		Matrix: m,
		Filter: newFilter(rows, true),
	})
}

func rowsOf(checks []*htmlCheck) []filterRow {
	rows := make([]filterRow, len(checks))
	for i, c := range checks {
		rows[i] = filterRow{statuses: []string{c.Status}, level: c.Level}
	}
	return rows
}

// page is what the template renders: one report, or a matrix.
type page struct {
	Title  string
	CSP    string
	Style  template.CSS
	Script template.JS
	Single *htmlReport
	Matrix *htmlMatrix
	Filter htmlFilter
}

type htmlReport struct {
	Verdict, VerdictClass                string
	Suite, Corpus, Digest, Tool, Started string
	Implementation, Duration, Shard      string
	Strict, Complete                     bool
	Counts                               check.Counts
	Total                                int
	Baseline                             *Baseline
	Checks                               []*htmlCheck // every check, in report order
	Entries                              []*htmlEntry // the list the page shows: Checks, identical reasons collapsed
	Groups                               []groupCount // per group, when something did not pass
}

// htmlEntry is one entry of the page's list, as the text report's: a
// check on its own, or the checks that ended the same way for the same
// reason (entries), listed under that reason, each with its own anchor and
// evidence.
type htmlEntry struct {
	First    *htmlCheck   // the check on its own, or the first of Same
	Same     []*htmlCheck // every check of a collapsed entry, First included; nil for one on its own
	More     int          // how many beside First
	Evidence bool         // a check of it has evidence to show
	Open     bool         // it starts open: a check of it does
}

type htmlCheck struct {
	Anchor, ID, Status, Tag, Level, Outcome, Reason, Known string
	Doc, Clause                                            string // what it proves, and the text it rests on
	Stale                                                  bool
	Duration                                               string
	Expected, Actual                                       *string
	Diff                                                   *htmlDiff
	Notes                                                  []string
	Exchanges                                              []Exchange
	Stderr, Repro                                          string
	Evidence                                               bool // anything to show under it
	Open                                                   bool // its evidence starts shown
	InEntry                                                bool // one of a collapsed entry, under the tag and reason they share
}

type htmlDiff struct {
	Offset, ExpectedLen, ActualLen, WindowStart int
	Expected, Actual                            []htmlByte
}

type htmlByte struct{ Hex, Class string }

type htmlMatrix struct {
	Head     *htmlReport // the suite, corpus and tool, as the first report says
	Columns  []htmlColumn
	Rows     []htmlRow
	Disagree int
}

type htmlColumn struct {
	Name string
	View *htmlReport
}

type htmlRow struct {
	ID, Level, Status, Agree string
	Statuses                 []string
	Cells                    []*htmlCheck // nil where that implementation did not run the check
}

type htmlFilter struct {
	Statuses []htmlOption
	Levels   []htmlOption
	Matrix   bool
}

type htmlOption struct {
	Value, Label string
	N            int
	On           bool
}

// statusOf is a check's status as the page shows it: a failed should check
// is a warning.
func statusOf(c Check) (status, tag string) {
	switch {
	case c.Status == string(check.Fail) && c.Level == string(check.Should):
		return "warn", "WARN"
	case c.Status == string(check.NotChecked):
		return c.Status, "NOT CHECKED"
	}
	return c.Status, strings.ToUpper(c.Status)
}

// verdict is the report's verdict in words, as the text report ends, and
// its class: ok, warn (exits 0 but is not conformant, or is with
// warnings), fail or incomplete.
func verdict(r *Report) (words, class string) {
	switch {
	case !r.Complete:
		return "INCOMPLETE", "incomplete"
	case r.Shard != nil && r.Len() == 0:
		return "AN EMPTY SHARD", "ok"
	case r.Conformant && r.Baseline != nil && r.Baseline.Stale > 0:
		return "CONFORMANT, BUT THE BASELINE IS STALE", "fail"
	case !r.Conformant && r.Baseline != nil && r.ExitCode() == ExitOK:
		return "NOT CONFORMANT, AS THE BASELINE SAYS", "warn"
	case r.Conformant && r.ExitCode() == ExitOK && r.Counts.Warn > 0:
		return "CONFORMANT, WITH WARNINGS", "warn"
	case r.Conformant && r.ExitCode() == ExitOK:
		return "CONFORMANT", "ok"
	}
	return "NOT CONFORMANT", "fail"
}

// htmlMax bounds each value the page shows.
const htmlMax = 8 << 10

func htmlClip(s string) string { return clipAt(s, htmlMax) }

// safeLine is s made one safe line (termsafe.Line) and clipped.
func safeLine(s string) string { return htmlClip(termsafe.Line(s)) }

func htmlView(r *Report, anchor string) *htmlReport {
	words, class := verdict(r)
	// The header's texts are shown as the text report's header line shows
	// them: the implementation's hello, a corpus path and a report read
	// back from a file may each hold any byte.
	v := &htmlReport{
		Verdict: words, VerdictClass: class,
		Suite: safeLine(r.Suite.Name), Corpus: safeLine(r.Suite.Corpus), Digest: safeLine(r.Suite.CorpusDigest),
		Tool: safeLine(strings.TrimSpace(r.Tool.Name + " " + r.Tool.Version)), Started: r.Started,
		Implementation: safeLine(describe(r.Implementation)), Duration: fmt.Sprintf("%.2f s", float64(r.DurationMS)/1000),
		Strict: r.Strict, Complete: r.Complete, Counts: r.Counts, Total: r.Len(), Baseline: r.Baseline,
	}
	if r.Suite.Version != "" {
		v.Suite += " " + safeLine(r.Suite.Version)
	}
	if r.Shard != nil {
		v.Shard = fmt.Sprintf("%d/%d", r.Shard.Index, r.Shard.Count)
	}
	for i, c := range r.All() {
		status, tag := statusOf(c)
		hc := &htmlCheck{
			// Read checks status, level, known and outcome; a check ID is
			// checked against the suite only when merge can load it: each
			// is shown as one safe line all the same.
			Anchor: fmt.Sprintf("%s%d", anchor, i+1), ID: safeLine(c.ID), Status: status, Tag: tag, Level: safeLine(c.Level),
			Outcome: safeLine(c.Outcome), Reason: safeLine(c.Reason), Known: safeLine(c.Known), Stale: c.Stale,
			Doc: safeLine(c.Doc), Clause: safeLine(c.Clause),
			Duration: fmt.Sprintf("%.3f ms", c.DurationMS),
		}
		if c.Expected != nil {
			e := safeLine(*c.Expected)
			hc.Expected = &e
		}
		if c.Actual != nil {
			a := safeLine(*c.Actual)
			hc.Actual = &a
		}
		if e := c.Evidence; e != nil {
			if e.Diff != nil {
				hc.Diff = hexDiff(e.Diff)
			}
			for _, n := range e.Notes {
				hc.Notes = append(hc.Notes, safeLine(n))
			}
			for _, x := range e.Exchanges {
				hc.Exchanges = append(hc.Exchanges, Exchange{Request: safeLine(x.Request), Reply: safeLine(x.Reply)})
			}
			if e.Stderr != "" {
				lines := termsafe.Lines(e.Stderr)
				if len(lines) > 20 {
					lines = lines[len(lines)-20:]
				}
				hc.Stderr = htmlClip(strings.Join(lines, "\n"))
			}
			hc.Repro = termsafe.Line(e.Repro) // as the text report shows it: a command to copy, not to obey
		}
		hc.Evidence = hc.Expected != nil || hc.Actual != nil || hc.Diff != nil || len(hc.Notes) > 0 ||
			len(hc.Exchanges) > 0 || hc.Stderr != "" || hc.Repro != ""
		v.Checks = append(v.Checks, hc)
	}
	// A few failures start open; many start closed, a list to pick from.
	if n := r.Counts.Fail + r.Counts.Error; n <= openFailures {
		for _, c := range v.Checks {
			c.Open = c.Status == "fail" || c.Status == "error"
		}
	}
	// Checks that ended the same way for the same reason are one entry,
	// as in the text report.
	for _, e := range entries(r.All(), func(Check) bool { return true }) {
		he := &htmlEntry{First: v.Checks[e.index[0]], More: e.more()}
		if e.more() > 0 {
			for _, i := range e.index {
				c := v.Checks[i]
				c.InEntry = true
				he.Same = append(he.Same, c)
				he.Evidence = he.Evidence || c.Evidence
				he.Open = he.Open || c.Open
			}
		} else {
			he.Evidence, he.Open = he.First.Evidence, he.First.Open
		}
		v.Entries = append(v.Entries, he)
	}
	if r.Counts.Pass < r.Len() {
		for _, g := range groupCounts(r) {
			g.Name = safeLine(g.Name)
			v.Groups = append(v.Groups, g)
		}
	}
	return v
}

// openFailures is how many failures and errors a page shows open.
const openFailures = 10

// hexDiff lays out a diff's two windows byte by byte, marking the bytes
// that differ and the first of them.
func hexDiff(d *check.Diff) *htmlDiff {
	bytesOf := func(h string) []string {
		var out []string
		for i := 0; i+1 < len(h); i += 2 {
			out = append(out, h[i:i+2])
		}
		return out
	}
	exp, act := bytesOf(d.ExpectedHex), bytesOf(d.ActualHex)
	row := func(mine, other []string) []htmlByte {
		out := make([]htmlByte, len(mine))
		for i, b := range mine {
			out[i].Hex = termsafe.Line(b) // two hex digits, once Read has checked the diff
			switch {
			case d.WindowStart+i == d.Offset:
				out[i].Class = "first"
			case i >= len(other) || other[i] != b:
				out[i].Class = "d"
			}
		}
		return out
	}
	return &htmlDiff{Offset: d.Offset, ExpectedLen: d.ExpectedLen, ActualLen: d.ActualLen, WindowStart: d.WindowStart,
		Expected: row(exp, act), Actual: row(act, exp)}
}

// newFilter lists the statuses and levels present, with how many checks
// (rows of a matrix) have each. Passes start hidden when anything else is
// there.
func newFilter(rows []filterRow, matrix bool) htmlFilter {
	f := htmlFilter{Matrix: matrix}
	n := map[string]int{}
	problems := 0
	for _, r := range rows {
		for _, s := range r.statuses {
			n[s]++
		}
		if slices.ContainsFunc(r.statuses, func(s string) bool { return s != "pass" }) {
			problems++
		}
		n["level:"+r.level]++
	}
	for _, s := range []struct{ value, label string }{
		{"fail", "failed"}, {"warn", "warnings"}, {"error", "errors"}, {"not-checked", "not checked"}, {"pass", "passed"},
	} {
		f.Statuses = append(f.Statuses, htmlOption{Value: s.value, Label: s.label, N: n[s.value], On: s.value != "pass" || problems == 0})
	}
	for _, l := range check.Levels {
		f.Levels = append(f.Levels, htmlOption{Value: string(l), Label: string(l), N: n["level:"+string(l)], On: true})
	}
	return f
}

// filterRow is what the filters see of one check or matrix row.
type filterRow struct {
	statuses []string
	level    string
}

func writePage(w io.Writer, p page) error {
	p.Style, p.Script = template.CSS(pageStyle), template.JS(pageScript)
	p.CSP = "default-src 'none'; style-src '" + cspHash(pageStyle) + "'; script-src '" + cspHash(pageScript) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'"
	return pageTemplate.Get().Execute(w, p)
}

// cspHash is the Content Security Policy source that allows one inline
// element with exactly this text.
func cspHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// pageTemplate is parsed on first use: most runs write no HTML.
var pageTemplate = &lazy.Value[*template.Template]{New: func() *template.Template {
	return template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body>
{{- with .Single}}
<header>
<h1>referee: suite {{.Suite}}</h1>
<p id="verdict" class="verdict v-{{.VerdictClass}}">{{.Verdict}}</p>
{{template "facts" .}}
</header>
<section id="summary" aria-label="summary">
{{template "counts" .}}
</section>
{{- end}}
{{- with .Matrix}}
<header>
<h1>referee: suite {{.Head.Suite}}, {{len .Columns}} implementations</h1>
<dl class="facts">
<dt>corpus</dt><dd>{{.Head.Corpus}} <code>{{.Head.Digest}}</code></dd>
<dt>tool</dt><dd>{{.Head.Tool}}</dd>
<dt>disagreements</dt><dd id="disagreements">{{.Disagree}} of {{len .Rows}} checks</dd>
</dl>
</header>
<section id="summary" aria-label="summary">
<table class="counts">
<thead><tr><th>implementation</th><th>verdict</th><th>passed</th><th>failed</th><th>warnings</th><th>not checked</th><th>errors</th><th>total</th></tr></thead>
<tbody>
{{- range .Columns}}
<tr class="impl" data-name="{{.Name}}"><th scope="row">{{.Name}}<br><small>{{.View.Implementation}}</small></th><td class="v-{{.View.VerdictClass}}">{{.View.Verdict}}</td><td class="n-pass">{{.View.Counts.Pass}}</td><td class="n-fail">{{.View.Counts.Fail}}</td><td class="n-warn">{{.View.Counts.Warn}}</td><td class="n-not-checked">{{.View.Counts.NotChecked}}</td><td class="n-error">{{.View.Counts.Error}}</td><td class="n-total">{{.View.Total}}</td></tr>
{{- end}}
</tbody>
</table>
</section>
{{- end}}
<section id="checks" aria-label="checks">
<h2>Checks</h2>
<noscript><p class="muted">The filters and copy buttons need JavaScript; every check is shown.</p></noscript>
{{template "filters" .Filter}}
{{- with .Single}}
<div id="list">
{{- range .Entries}}
{{template "entry" .}}
{{- end}}
</div>
{{- end}}
{{- with .Matrix}}
<table id="grid">
<thead><tr><th>check</th><th>level</th>{{range .Columns}}<th>{{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr class="check" data-id="{{.ID}}" data-level="{{.Level}}" data-status="{{.Status}}" data-agree="{{.Agree}}"><td class="id">{{.ID}}</td><td>{{.Level}}</td>
{{- range .Cells}}{{if .}}<td class="s-{{.Status}}">{{if .Evidence}}<a href="#{{.Anchor}}">{{.Tag}}</a>{{else}}{{.Tag}}{{end}}{{if .Outcome}} <small>({{.Outcome}})</small>{{end}}</td>{{else}}<td class="s-missing">—</td>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- end}}
</section>
{{- with .Matrix}}{{range .Columns}}
<section class="impl-evidence" aria-label="evidence of {{.Name}}">
<h2>{{.Name}}: evidence</h2>
{{template "facts" .View}}
{{- range .View.Entries}}{{if .Evidence}}
{{template "entry" .}}
{{- end}}{{end}}
</section>
{{- end}}{{end}}
<script>{{.Script}}</script>
</body>
</html>
{{define "facts"}}<dl class="facts">
<dt>implementation</dt><dd>{{.Implementation}}</dd>
<dt>corpus</dt><dd>{{.Corpus}} <code>{{.Digest}}</code></dd>
<dt>run</dt><dd>{{.Tool}}, started {{.Started}}, {{.Duration}}{{if .Shard}}, shard {{.Shard}}{{end}}{{if .Strict}}, --strict{{end}}</dd>
</dl>{{end}}
{{define "counts"}}<table class="counts">
<thead><tr><th>passed</th><th>failed</th><th>warnings</th><th>not checked</th><th>errors</th><th>total</th></tr></thead>
<tbody><tr><td id="n-pass">{{.Counts.Pass}}</td><td id="n-fail">{{.Counts.Fail}}</td><td id="n-warn">{{.Counts.Warn}}</td><td id="n-not-checked">{{.Counts.NotChecked}}</td><td id="n-error">{{.Counts.Error}}</td><td id="n-total">{{.Total}}</td></tr></tbody>
</table>
{{- with .Baseline}}
<p id="baseline">Baseline: {{.KnownFailing}} known failing, {{.KnownFlaky}} known flaky, {{.Unexpected}} unexpected, {{.Stale}} stale.</p>
{{- if .StaleEntries}}
<ul class="stale">{{range .StaleEntries}}<li>stale: <code>{{.}}</code>: none of the checks it lists failed; remove it</li>{{end}}</ul>
{{- end}}
{{- end}}
{{- if and .Strict .Counts.Warn}}
<p class="v-fail">{{.Counts.Warn}} warnings (failed should checks) block conformance under --strict.</p>
{{- end}}
{{- if not .Complete}}
<p class="v-incomplete">The run did not finish: the verdicts below are not a conformance result.</p>
{{- end}}
{{- if .Groups}}
<table class="groups">
<caption>by group</caption>
<thead><tr><th>group</th><th>passed</th><th>failed</th><th>warnings</th><th>not checked</th><th>errors</th><th>total</th></tr></thead>
<tbody>{{range .Groups}}<tr><td>{{.Name}}</td><td>{{.N.Pass}}</td><td>{{.N.Fail}}</td><td>{{.N.Warn}}</td><td>{{.N.NotChecked}}</td><td>{{.N.Error}}</td><td>{{.All}}</td></tr>{{end}}</tbody>
</table>
{{- end}}{{end}}
{{define "filters"}}<form id="filters" hidden>
<fieldset><legend>status</legend>
{{- range .Statuses}}{{if .N}}
<label><input type="checkbox" name="status" value="{{.Value}}"{{if .On}} checked{{end}}> {{.Label}} ({{.N}})</label>
{{- end}}{{end}}
</fieldset>
<fieldset><legend>level</legend>
{{- range .Levels}}{{if .N}}
<label><input type="checkbox" name="level" value="{{.Value}}"{{if .On}} checked{{end}}> {{.Label}} ({{.N}})</label>
{{- end}}{{end}}
</fieldset>
<label>ID prefix <input type="search" name="prefix" autocomplete="off" spellcheck="false"></label>
{{- if .Matrix}}
<label><input type="checkbox" name="disagree"> only where the implementations disagree</label>
{{- end}}
<output id="shown" aria-live="polite"></output>
</form>{{end}}
{{define "entry"}}{{if .Same}}{{with .First}}<details class="same s-{{.Status}}"{{if $.Open}} open{{end}} data-status="{{.Status}}">
<summary><span class="tag">{{.Tag}}</span> <span class="id">{{.ID}}</span> <span class="more">and {{$.More}} more</span>
{{- if .Known}} <span class="known">known {{.Known}}</span>{{end}} <span class="reason">{{.Reason}}</span></summary>
<div class="same-checks">
{{- range $.Same}}
{{template "check" .}}
{{- end}}
</div>
</details>{{end}}{{else}}{{template "check" .First}}{{end}}{{end}}
{{- define "check"}}{{if .Evidence}}<details class="check s-{{.Status}}"{{if .Open}} open{{end}} id="{{.Anchor}}" data-id="{{.ID}}" data-level="{{.Level}}" data-status="{{.Status}}">
<summary>{{template "line" .}}</summary>
<div class="evidence">
{{- if .Clause}}
<p class="clause"><span class="lab">requirement ({{.Level}})</span> {{.Clause}}</p>
{{- end}}
{{- if .Expected}}
<p class="lab">expected</p><pre class="expected">{{.Expected}}</pre>
{{- end}}
{{- if .Actual}}
<p class="lab">actual</p><pre class="actual">{{.Actual}}</pre>
{{- end}}
{{- with .Diff}}
<p class="lab">first difference at byte <strong class="offset">{{.Offset}}</strong> (counting from 0; expected {{.ExpectedLen}} bytes, got {{.ActualLen}})</p>
<pre class="hex"><span class="lab">expected @{{.WindowStart}} </span>{{range .Expected}}<span class="{{.Class}}">{{.Hex}}</span> {{end}}
<span class="lab">actual   @{{.WindowStart}} </span>{{range .Actual}}<span class="{{.Class}}">{{.Hex}}</span> {{end}}</pre>
{{- end}}
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{- range .Exchanges}}
<p class="lab">sent</p><pre class="request">{{.Request}}</pre>
{{- if .Reply}}
<p class="lab">received</p><pre class="reply">{{.Reply}}</pre>
{{- end}}
{{- end}}
{{- if .Stderr}}
<p class="lab">stderr of the implementation (last lines)</p><pre class="stderr">{{.Stderr}}</pre>
{{- end}}
{{- if .Repro}}
<p class="lab">repro <button type="button" class="copy" data-target="{{.Anchor}}-repro" hidden>copy</button></p><pre class="repro"><code id="{{.Anchor}}-repro">{{.Repro}}</code></pre>
{{- end}}
</div>
</details>{{else}}<div class="check s-{{.Status}}" id="{{.Anchor}}" data-id="{{.ID}}" data-level="{{.Level}}" data-status="{{.Status}}">{{template "line" .}}</div>{{end}}{{end}}
{{define "line"}}{{if not .InEntry}}<span class="tag">{{.Tag}}</span> {{end}}<span class="id">{{.ID}}</span> <span class="level">{{.Level}}{{if .Outcome}}: {{.Outcome}}{{end}}</span>
{{- if .InEntry}}{{else if .Stale}} <span class="stale">stale: the baseline lists it as known-failing; remove it</span>{{else if .Known}} <span class="known">known {{.Known}}</span>{{end}}
{{- if and .Reason (not .InEntry)}} <span class="reason">{{.Reason}}</span>{{end}}
{{- if .Doc}} <span class="doc"{{if .Clause}} title="{{.Level}}: {{.Clause}}"{{end}}>{{.Doc}}</span>{{end}}{{end}}
`))
}}

const pageStyle = `:root{color-scheme:light dark;--fg:#1f2328;--bg:#fff;--muted:#59636e;--line:#d1d9e0;--code:#f6f8fa;
--pass:#1a7f37;--fail:#d1242f;--warn:#9a6700;--nc:#59636e;--error:#8250df;--mark:#ffebe9;--first:#ff8182}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;--code:#151b23;
--pass:#3fb950;--fail:#f85149;--warn:#d29922;--nc:#9198a1;--error:#ab7df8;--mark:#5d1a1d;--first:#b62324}}
[hidden]{display:none!important}
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:84rem;padding:1rem 1.5rem}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.2rem 0 .4rem}
code,pre,.id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{white-space:pre-wrap;word-break:break-all;unicode-bidi:bidi-override;direction:ltr;background:var(--code);border:1px solid var(--line);border-radius:4px;margin:.1rem 0 .5rem;padding:.35rem .55rem}
.verdict{font-size:1.3rem;font-weight:700;margin:.3rem 0}
.v-ok{color:var(--pass)}.v-fail{color:var(--fail)}.v-warn{color:var(--warn)}.v-incomplete{color:var(--error)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.4rem 0}.facts dt{color:var(--muted)}.facts dd{margin:0}
table{border-collapse:collapse}th,td{border:1px solid var(--line);padding:.25rem .6rem;text-align:left}
.counts td{text-align:right;font-variant-numeric:tabular-nums}
form{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center;margin:.5rem 0 .8rem}
fieldset{border:1px solid var(--line);border-radius:4px;padding:.15rem .6rem}legend{color:var(--muted);font-size:.85rem}
fieldset label{margin-right:.6rem}output{color:var(--muted)}
.check,.same{border-bottom:1px solid var(--line);padding:.2rem 0}details.check>summary,details.same>summary{cursor:pointer}
.same-checks{padding:.1rem 0 .2rem 1.6rem}.same-checks>.check:last-child{border-bottom:0}.more{color:var(--muted)}
.tag{display:inline-block;min-width:7.5rem;font-weight:600}div.check{padding-left:1.05rem}
.s-pass .tag,td.s-pass{color:var(--pass)}.s-fail .tag,td.s-fail{color:var(--fail)}.s-warn .tag,td.s-warn{color:var(--warn)}
.s-not-checked .tag,td.s-not-checked,td.s-missing{color:var(--nc)}.s-error .tag,td.s-error{color:var(--error)}
.level,.muted,.lab,small{color:var(--muted)}.reason{margin-left:.5rem}.doc{margin-left:.5rem;color:var(--muted);font-style:italic}.clause{margin:.25rem 0 .5rem;color:var(--muted)}table.groups{margin-top:.75rem}table.groups caption{text-align:left;color:var(--muted)}.known{color:var(--warn)}.stale{color:var(--fail);font-weight:600}
.evidence{padding:.3rem 0 .5rem 1.6rem}.lab{margin:.3rem 0 0;font-size:.85rem}.note{margin:.2rem 0}
.hex span.d{background:var(--mark)}.hex span.first{background:var(--first);font-weight:700}
button.copy{font-size:.8rem;margin-left:.4rem;cursor:pointer}
#grid td.id{white-space:nowrap}#grid a{color:inherit}`

const pageScript = `(function () {
  "use strict";
  var form = document.getElementById("filters");
  // Every check, those of a collapsed entry included; an entry is hidden
  // when each of its checks is.
  var checks = Array.prototype.slice.call(document.querySelectorAll("#list .check, #grid tr.check"));
  var same = Array.prototype.slice.call(document.querySelectorAll("#list > .same"));
  function on(name) {
    var set = {};
    form.querySelectorAll("input[name=" + name + "]").forEach(function (i) { set[i.value] = i.checked; });
    return set;
  }
  function apply() {
    var status = on("status"), level = on("level");
    var prefix = form.elements.prefix.value.trim();
    var disagree = form.elements.disagree ? form.elements.disagree.checked : false;
    var shown = 0;
    checks.forEach(function (c) {
      var ok = c.dataset.status.split(" ").some(function (s) { return status[s]; }) &&
        level[c.dataset.level] === true && c.dataset.id.indexOf(prefix) === 0 &&
        (!disagree || c.dataset.agree === "no");
      c.hidden = !ok;
      if (ok) { shown++; }
    });
    same.forEach(function (e) {
      e.hidden = !e.querySelector(".check:not([hidden])");
    });
    document.getElementById("shown").textContent = "showing " + shown + " of " + checks.length + " checks";
  }
  if (form) {
    form.hidden = false;
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
  }
  // A link to a check inside a closed entry opens it.
  function reveal() {
    var id = location.hash.slice(1);
    for (var e = id && document.getElementById(id); e; e = e.parentElement) {
      if (e.tagName === "DETAILS") { e.open = true; }
    }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  document.querySelectorAll("button.copy").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function (e) {
      e.preventDefault();
      var el = document.getElementById(b.dataset.target);
      function select() {
        var r = document.createRange();
        r.selectNodeContents(el);
        var s = window.getSelection();
        s.removeAllRanges();
        s.addRange(r);
        b.textContent = "selected: press Ctrl+C";
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(el.textContent).then(function () { b.textContent = "copied"; }, select);
      } else {
        select();
      }
    });
  });
})();
`
