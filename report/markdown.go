package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/refereehq/referee/internal/termsafe"
)

// MarkdownOptions tune the Markdown summary.
type MarkdownOptions struct {
	// MaxChecks bounds how many checks the summary lists; 0 means 50.
	MaxChecks int
}

func (o MarkdownOptions) max() int {
	if o.MaxChecks <= 0 {
		return 50
	}
	return o.MaxChecks
}

// mdMaxValue bounds each reason or ID the summary shows.
const mdMaxValue = 300

// WriteMarkdown writes a summary of the report for a CI page (GitHub's
// $GITHUB_STEP_SUMMARY, a merge request note): the verdict, a table of
// counts, the baseline, and the checks that did not pass with their
// reasons, the failures first, at most o.MaxChecks of them. Everything an
// implementation wrote is escaped: it renders as text, never as markup, a
// link or an image.
func WriteMarkdown(w io.Writer, r *Report, o MarkdownOptions) error {
	p := &printer{w: w}
	words, _ := verdict(r)
	suite := r.Suite.Name
	if r.Suite.Version != "" {
		suite += " " + r.Suite.Version
	}
	p.line("### referee: %s: %s", md(suite), words)
	p.line("")
	p.line("%s", facts(r))
	p.line("")
	p.line("| passed | failed | warnings | not checked | errors | total |")
	p.line("|---:|---:|---:|---:|---:|---:|")
	n := r.Counts
	p.line("| %d | %d | %d | %d | %d | %d |", n.Pass, n.Fail, n.Warn, n.NotChecked, n.Error, r.Len())
	p.line("")
	if !r.Complete {
		p.line("**Incomplete**: the run did not finish; these verdicts are not a conformance result.")
		p.line("")
	}
	if r.Strict && n.Warn > 0 {
		p.line("**Strict**: %d warnings (failed should checks) block conformance under --strict.", n.Warn)
		p.line("")
	}
	if b := r.Baseline; b != nil {
		p.line("Baseline: %d known failing, %d known flaky, %d unexpected, %d stale.", b.KnownFailing, b.KnownFlaky, b.Unexpected, b.Stale)
		for _, e := range b.StaleEntries {
			p.line("- stale entry %s: none of the checks it lists failed; remove it", md(e))
		}
		p.line("")
	}
	problems := problemsOf(r)
	if len(problems) == 0 {
		return p.err
	}
	p.line("#### Checks that did not pass (%d)", len(problems))
	p.line("")
	p.line("| status | check | level | reason |")
	p.line("|---|---|---|---|")
	shown := min(len(problems), o.max())
	for _, c := range problems[:shown] {
		tag := problemTag(c)
		if c.Known != "" && !c.Stale {
			tag += " (known " + md(c.Known) + ")"
		}
		p.line("| %s | %s | %s | %s |", tag, md(c.ID), md(c.Level), md(c.Reason))
	}
	if rest := len(problems) - shown; rest > 0 {
		p.line("")
		p.line("…and %d more, not listed here: the JSON, JUnit and HTML reports list them all.", rest)
	}
	p.line("")
	return p.err
}

// WriteMarkdownMatrix writes a summary of several implementations run
// through one suite: a row of counts per implementation, then the checks
// on which they disagree, at most o.MaxChecks of them.
func WriteMarkdownMatrix(w io.Writer, impls []NamedReport, o MarkdownOptions) error {
	if len(impls) == 0 {
		return fmt.Errorf("markdown: no implementation to show")
	}
	for _, im := range impls {
		if im.Report == nil {
			return fmt.Errorf("markdown: implementation %s has no report", im.Name)
		}
	}
	p := &printer{w: w}
	first := impls[0].Report
	p.line("### referee: %s: %d implementations", md(first.Suite.Name), len(impls))
	p.line("")
	p.line("| implementation | verdict | passed | failed | warnings | not checked | errors | total |")
	p.line("|---|---|---:|---:|---:|---:|---:|---:|")
	for _, im := range impls {
		words, _ := verdict(im.Report)
		n := im.Report.Counts
		p.line("| %s | %s | %d | %d | %d | %d | %d | %d |", md(im.Name), words, n.Pass, n.Fail, n.Warn, n.NotChecked, n.Error, len(im.Report.Checks))
	}
	p.line("")
	// The checks on which the implementations disagree, in first-seen order.
	var ids []string
	cell := map[string][]string{}
	for i, im := range impls {
		for _, c := range im.Report.Checks {
			if _, ok := cell[c.ID]; !ok {
				ids = append(ids, c.ID)
				cell[c.ID] = make([]string, len(impls))
			}
			_, tag := statusOf(c)
			if c.Outcome != "" {
				tag += " (" + md(c.Outcome) + ")"
			}
			cell[c.ID][i] = tag
		}
	}
	var differ []string
	for _, id := range ids {
		row := cell[id]
		if slices.ContainsFunc(row, func(s string) bool { return s != row[0] }) {
			differ = append(differ, id)
		}
	}
	if len(differ) == 0 {
		p.line("They agree on every check.")
		return p.err
	}
	p.line("#### Checks on which they disagree (%d)", len(differ))
	p.line("")
	head, rule := "| check |", "|---|"
	for _, im := range impls {
		head += " " + md(im.Name) + " |"
		rule += "---|"
	}
	p.line("%s", head)
	p.line("%s", rule)
	shown := min(len(differ), o.max())
	for _, id := range differ[:shown] {
		row := "| " + md(id) + " |"
		for _, s := range cell[id] {
			if s == "" {
				s = "—"
			}
			row += " " + s + " |"
		}
		p.line("%s", row)
	}
	if rest := len(differ) - shown; rest > 0 {
		p.line("")
		p.line("…and %d more, not listed here: the matrix and HTML reports list them all.", rest)
	}
	p.line("")
	return p.err
}

// facts is the line under the heading: what ran, on what, for how long.
func facts(r *Report) string {
	parts := []string{
		md(describe(r.Implementation)),
		"corpus " + md(r.Suite.Corpus) + " (" + md(short(r.Suite.CorpusDigest)) + ")",
		md(strings.TrimSpace(r.Tool.Name + " " + r.Tool.Version)),
		fmt.Sprintf("%.2f s", float64(r.DurationMS)/1000),
	}
	if r.Shard != nil {
		parts = append(parts, fmt.Sprintf("shard %d/%d", r.Shard.Index, r.Shard.Count))
	}
	if r.Strict {
		parts = append(parts, "strict")
	}
	return strings.Join(parts, " · ")
}

// problemsOf lists the checks that did not pass, and stale passes, the
// worst first: failures, errors, stale, warnings, not checked; each kind in
// the report's order.
func problemsOf(r *Report) []Check {
	var out []Check
	for _, kind := range []string{"FAIL", "ERROR", "STALE", "WARN", "NOT CHECKED"} {
		for _, c := range r.All() {
			if problemTag(c) == kind {
				out = append(out, c)
			}
		}
	}
	return out
}

// problemTag is how the summary lists a check: "" for a plain pass.
func problemTag(c Check) string {
	if c.Stale {
		return "STALE"
	}
	if c.Status == "pass" {
		return ""
	}
	_, tag := statusOf(c)
	return tag
}

// md renders text for a Markdown table cell: on one line (control
// characters shown as ‹U+XXXX›), at most mdMaxValue bytes, with every
// character Markdown, GitHub's extensions or HTML give a meaning to
// backslash-escaped (CommonMark lets any ASCII punctuation be escaped), and
// every place GitHub's autolink extension would start a link broken by an
// empty HTML comment (noLink), which renders as nothing.
//
// Escapes alone do not stop the extension: cmark-gfm joins adjacent text
// before it looks for e-mail addresses, so `admin\@evil.example` is still a
// link; an inline node between the parts is not text, and ends the match.
// The breaks: after every "@" (e-mail, mailto: and xmpp: links), between
// "www" and "." in any case (www. links), and between ":" and "/" (scheme://
// links).
func md(s string) string {
	s = termsafe.Line(s)
	if len(s) > mdMaxValue {
		s = cutAt(s, mdMaxValue) + "…"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i] // the characters md treats are ASCII; other bytes are copied
		if c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www") {
			b.WriteString(noLink)
		}
		if strings.IndexByte(mdSpecial, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
		if c == '@' || c == ':' && i+1 < len(s) && s[i+1] == '/' {
			b.WriteString(noLink)
		}
	}
	return b.String()
}

// mdSpecial are the characters md backslash-escapes.
const mdSpecial = "\\`*_{}[]()<>#+!|~&@:"

// noLink is what md puts where an autolink could start: an empty HTML
// comment, an inline node that renders as nothing (GitHub strips it) and
// that no autolink spans.
const noLink = "<!-- -->"
