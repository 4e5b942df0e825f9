package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/internal/termsafe"
)

// ChangeKind says how a check's verdict moved from one report to the next.
type ChangeKind string

// The kinds of change, in the order a diff lists them.
const (
	Regressed ChangeKind = "regressed" // passed or warned before, fails or errs now
	Fixed     ChangeKind = "fixed"     // failed or erred before, passes or warns now
	Added     ChangeKind = "new"       // only the new report has it
	Removed   ChangeKind = "removed"   // only the old report has it
	Changed   ChangeKind = "changed"   // in both, with another outcome or level
)

// changeKinds lists the kinds in the order diffs show them.
var changeKinds = []ChangeKind{Regressed, Fixed, Added, Removed, Changed}

// Verdict is what a report says of one check, as a diff compares it.
type Verdict struct {
	Outcome string // pass, warn, fail, error or not-checked; a passing may check adds its outcome: "pass (rejected)"
	Level   string
	Reason  string
}

// Change is one check whose verdict differs between two reports.
type Change struct {
	ID       string
	Kind     ChangeKind
	Old, New *Verdict // nil where the report has no such check
}

// Diff is what changed from an old report of a suite to a new one.
type Diff struct {
	Old, New  *Report
	Changes   []Change // in the new report's order, then the checks only the old one has
	Unchanged int
	Notes     []string // differences of corpus, suite version or implementation, worth knowing
}

// Count is how many changes are of kind k.
func (d *Diff) Count(k ChangeKind) int { return len(d.Of(k)) }

// Of lists the changes of kind k, in the diff's order.
func (d *Diff) Of(k ChangeKind) []Change {
	var out []Change
	for _, c := range d.Changes {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// Why is the new report's reason for a change, "" for a fixed check (it
// has none worth showing) or a removed one.
func (c Change) Why() string {
	if c.New == nil || c.Kind == Fixed {
		return ""
	}
	return c.New.Reason
}

// Regressed reports whether any check regressed: the diff's exit status.
func (d *Diff) Regressed() bool { return d.Count(Regressed) > 0 }

// Compare compares two reports of one suite. Reports of different suites do
// not belong together: that is an error, naming both.
func Compare(old, new *Report) (*Diff, error) {
	if old.Suite.Name != new.Suite.Name {
		return nil, fmt.Errorf("the old report is of suite %q and the new one of suite %q: a diff compares two runs of one suite", termsafe.Line(old.Suite.Name), termsafe.Line(new.Suite.Name))
	}
	d := &Diff{Old: old, New: new}
	if old.Suite.Version != new.Suite.Version {
		d.Notes = append(d.Notes, fmt.Sprintf("suite version %s → %s", orNone(old.Suite.Version), orNone(new.Suite.Version)))
	}
	if old.Suite.CorpusDigest != new.Suite.CorpusDigest {
		d.Notes = append(d.Notes, fmt.Sprintf("corpus %s (%s) → %s (%s)", old.Suite.Corpus, short(old.Suite.CorpusDigest), new.Suite.Corpus, short(new.Suite.CorpusDigest)))
	}
	if a, b := describe(old.Implementation), describe(new.Implementation); a != b {
		d.Notes = append(d.Notes, fmt.Sprintf("implementation %s → %s", a, b))
	}
	if !old.Complete {
		d.Notes = append(d.Notes, "the old run was incomplete")
	}
	if !new.Complete {
		d.Notes = append(d.Notes, "the new run was incomplete")
	}
	before := make(map[string]Check, old.Len())
	for _, c := range old.All() {
		before[c.ID] = c
	}
	seen := make(map[string]bool, new.Len())
	for _, c := range new.All() {
		seen[c.ID] = true
		nv := verdictOf(c)
		o, ok := before[c.ID]
		if !ok {
			d.Changes = append(d.Changes, Change{ID: c.ID, Kind: Added, New: &nv})
			continue
		}
		ov := verdictOf(o)
		if k, moved := movement(ov, nv); moved {
			d.Changes = append(d.Changes, Change{ID: c.ID, Kind: k, Old: &ov, New: &nv})
		} else {
			d.Unchanged++
		}
	}
	for _, c := range old.All() {
		if !seen[c.ID] {
			ov := verdictOf(c)
			d.Changes = append(d.Changes, Change{ID: c.ID, Kind: Removed, Old: &ov})
		}
	}
	return d, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// verdictOf is a check's outcome as a diff compares it: a failed should
// check is a warning, as every report writes it.
func verdictOf(c Check) Verdict {
	v := Verdict{Outcome: c.Status, Level: c.Level, Reason: c.Reason}
	switch {
	case c.Status == "fail" && c.Level == "should":
		v.Outcome = "warn"
	case c.Status == "pass" && c.Outcome != "":
		v.Outcome = "pass (" + c.Outcome + ")"
	}
	return v
}

// movement classifies a check present in both reports.
func movement(o, n Verdict) (ChangeKind, bool) {
	good := func(v Verdict) bool { return strings.HasPrefix(v.Outcome, "pass") || v.Outcome == "warn" }
	bad := func(v Verdict) bool { return v.Outcome == "fail" || v.Outcome == "error" }
	switch {
	case good(o) && bad(n):
		return Regressed, true
	case bad(o) && good(n):
		return Fixed, true
	case o.Outcome != n.Outcome || o.Level != n.Level:
		return Changed, true
	}
	return "", false
}

// diffMaxReason bounds a reason in a diff's text and Markdown lines.
const diffMaxReason = 200

// WriteDiffText writes a diff for a terminal: one line per change, grouped
// by kind, and a summary line. What the reports hold is made safe by
// termsafe, as in every text report.
func WriteDiffText(w io.Writer, d *Diff) error {
	p := &printer{w: w}
	p.line("%s", termsafe.Line(fmt.Sprintf("referee diff: suite %s: %s → %s", d.New.Suite.Name, describe(d.Old.Implementation), describe(d.New.Implementation))))
	for _, l := range diffLines(d) {
		p.line("%s", l)
	}
	return p.err
}

// diffLines are a diff's notes, its changes, grouped by kind, and its
// summary, as lines of text made safe.
func diffLines(d *Diff) []string {
	var out []string
	for _, n := range d.Notes {
		out = append(out, "note: "+termsafe.Line(n))
	}
	for _, k := range changeKinds {
		for _, c := range d.Of(k) {
			line := fmt.Sprintf("%-9s  %s  %s", strings.ToUpper(string(k)), c.ID, movementText(c))
			if c.Why() != "" {
				line += ": " + clipAt(c.Why(), diffMaxReason)
			}
			out = append(out, termsafe.Line(line))
		}
	}
	return append(out, summaryOf(d))
}

// movementText is "pass → fail [must]", "was pass [may]" and the like.
func movementText(c Change) string {
	switch {
	case c.Old == nil:
		return fmt.Sprintf("%s [%s]", c.New.Outcome, c.New.Level)
	case c.New == nil:
		return fmt.Sprintf("was %s [%s]", c.Old.Outcome, c.Old.Level)
	case c.Old.Level != c.New.Level:
		return fmt.Sprintf("%s [%s] → %s [%s]", c.Old.Outcome, c.Old.Level, c.New.Outcome, c.New.Level)
	}
	return fmt.Sprintf("%s → %s [%s]", c.Old.Outcome, c.New.Outcome, c.New.Level)
}

// summaryOf is the diff's last line.
func summaryOf(d *Diff) string {
	return countsText(d.Count, d.Unchanged)
}

// countsText is "3 regressed, 1 fixed, 0 new, 0 removed, 0 changed, 562
// unchanged", of the counts count gives.
func countsText(count func(ChangeKind) int, unchanged int) string {
	return fmt.Sprintf("%d regressed, %d fixed, %d new, %d removed, %d changed, %d unchanged",
		count(Regressed), count(Fixed), count(Added), count(Removed), count(Changed), unchanged)
}

// WriteDiffMarkdown writes a diff for a CI page or a review comment: the
// summary, then a table per kind of change. Everything the reports hold is
// escaped: it renders as text, never as markup or a link.
func WriteDiffMarkdown(w io.Writer, d *Diff) error {
	p := &printer{w: w}
	p.line("### referee diff: %s: %s", md(d.New.Suite.Name), regressedWord(d.Regressed()))
	p.line("")
	p.line("%s → %s", md(describe(d.Old.Implementation)), md(describe(d.New.Implementation)))
	p.line("")
	diffMarkdown(p, d, "####")
	p.line("")
	return p.err
}

// regressedWord heads a Markdown diff.
func regressedWord(regressed bool) string {
	if regressed {
		return "REGRESSED"
	}
	return "no regression"
}

// diffMarkdown writes a diff's notes, its summary and a table per kind of
// change, each under a heading of the given level.
func diffMarkdown(p *printer, d *Diff, heading string) {
	for _, n := range d.Notes {
		p.line("- %s", md(n))
	}
	if len(d.Notes) > 0 {
		p.line("")
	}
	p.line("%s", summaryOf(d))
	for _, k := range changeKinds {
		if d.Count(k) == 0 {
			continue
		}
		p.line("")
		p.line("%s %s (%d)", heading, k, d.Count(k))
		p.line("")
		p.line("| check | change | reason |")
		p.line("|---|---|---|")
		for _, c := range d.Of(k) {
			p.line("| %s | %s | %s |", md(c.ID), md(movementText(c)), md(clipAt(c.Why(), diffMaxReason)))
		}
	}
}

// WriteDiffHTML writes a diff as one self-contained page: the summary and a
// table per kind of change. Like every page referee writes it fetches
// nothing, and its style is pinned by a Content Security Policy.
func WriteDiffHTML(w io.Writer, d *Diff) error {
	v := diffPage{
		Title:   "referee diff: " + safeLine(d.New.Suite.Name),
		Head:    safeLine(describe(d.Old.Implementation)) + " → " + safeLine(describe(d.New.Implementation)),
		Summary: summaryOf(d),
	}
	sec := htmlDiffSection("", d)
	v.Notes, sec.Notes = sec.Notes, nil
	v.Sections = []diffSection{sec}
	return writeDiffPage(w, v)
}

// diffPage is what the diff template renders: one diff (a section with no
// name), or a matrix's (a section per implementation in both).
type diffPage struct {
	Title, CSP, Head, Summary string
	Notes                     []string // a diff's notes; a matrix's are in its sections
	Style                     template.CSS
	Matrix                    bool
	Added, Removed            []string // a matrix's implementations only the new, or the old, one holds
	Sections                  []diffSection
}

type diffSection struct {
	Name, Summary string
	Notes         []string
	Groups        []diffGroup
}

type diffGroup struct {
	Kind string
	Rows []diffRow
}

type diffRow struct{ ID, Change, Reason string }

// htmlDiffSection lays a diff out for the page, made safe.
func htmlDiffSection(name string, d *Diff) diffSection {
	s := diffSection{Name: name, Summary: summaryOf(d)}
	for _, n := range d.Notes {
		s.Notes = append(s.Notes, safeLine(n))
	}
	for _, k := range changeKinds {
		g := diffGroup{Kind: string(k)}
		for _, c := range d.Of(k) {
			g.Rows = append(g.Rows, diffRow{ID: safeLine(c.ID), Change: movementText(c), Reason: safeLine(c.Why())})
		}
		if len(g.Rows) > 0 {
			s.Groups = append(s.Groups, g)
		}
	}
	return s
}

func writeDiffPage(w io.Writer, v diffPage) error {
	v.Style = template.CSS(diffStyle)
	v.CSP = "default-src 'none'; style-src '" + cspHash(diffStyle) + "'; img-src 'none'; base-uri 'none'; form-action 'none'"
	return diffTemplate.Get().Execute(w, v)
}

const diffStyle = `body{font:14px/1.4 system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}code{font:13px ui-monospace,monospace}.regressed{color:#b00}.fixed{color:#070}`

var diffTemplate = &lazy.Value[*template.Template]{New: func() *template.Template {
	return template.Must(template.New("diff").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{- if .Head}}
<p>{{.Head}}</p>
{{- end}}
{{- if .Notes}}
<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
{{- if or .Added .Removed}}
<ul class="impls">
{{- range .Added}}
<li>new implementation {{.}}</li>
{{- end}}
{{- range .Removed}}
<li>removed implementation {{.}}</li>
{{- end}}
</ul>
{{- end}}
<p id="summary">{{.Summary}}</p>
{{- range .Sections}}
{{- if $.Matrix}}
<section class="impl">
<h2>implementation <code>{{.Name}}</code></h2>
{{- end}}
{{- if .Notes}}
<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
{{- if $.Matrix}}
<p class="summary">{{.Summary}}</p>
{{- end}}
{{- range .Groups}}
{{if $.Matrix}}<h3 class="{{.Kind}}">{{else}}<h2 class="{{.Kind}}">{{end}}{{.Kind}} ({{len .Rows}}){{if $.Matrix}}</h3>{{else}}</h2>{{end}}
<table class="{{.Kind}}">
<tr><th>check</th><th>change</th><th>reason</th></tr>
{{- range .Rows}}
<tr><td><code>{{.ID}}</code></td><td>{{.Change}}</td><td>{{.Reason}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- if $.Matrix}}
</section>
{{- end}}
{{- end}}
</body>
</html>
`))
}}
