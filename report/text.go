package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/paint"
	"github.com/refereehq/referee/internal/shell"
	"github.com/refereehq/referee/internal/termsafe"
)

// TextOptions tune the human report.
type TextOptions struct {
	Color  bool // ANSI colour; the caller decides (TTY, NO_COLOR, --no-color)
	Passes bool // list passing checks too, one line each
}

// WriteText writes the human report: a header, one line per check (with
// evidence under every non-pass), and the summary line. A failed should
// check is a WARN line, not a FAIL; a passing may check's line names the
// outcome it chose. Every text that may come from the implementation or
// the corpus (its hello, IDs, reasons, evidence, stderr) is made safe by
// termsafe: it cannot break, forge or hide a line of the report.
func WriteText(w io.Writer, r *Report, opt TextOptions) error {
	p := &printer{w: w, max: textMaxLine}
	pen := paint.Painter(opt.Color)
	green, red, yellow, magenta, faint := pen(paint.Green), pen(paint.Red), pen(paint.Yellow), pen(paint.Magenta), pen(paint.Faint)

	p.line("%s", termsafe.Line(fmt.Sprintf("%s %s: suite %s, corpus %s (%s)", r.Tool.Name, r.Tool.Version, r.Suite.Name, r.Suite.Corpus, short(r.Suite.CorpusDigest))))
	p.line("implementation: %s", termsafe.Line(describe(r.Implementation)))
	checks := r.All()
	if cause, first, ok := unstarted(r); ok {
		// One error, not one line per check: every check ended the same way.
		p.line("%s %s", magenta("ERROR"), termsafe.Line(fmt.Sprintf("%s; none of the %s ran", cause, Plural(r.Len(), "check", "checks"))))
		for _, l := range evidenceLines(first, true) {
			p.line("      %s", l)
		}
		checks = func(func(int, Check) bool) {}
	}
	// Checks that ended the same way, for the same reason, are one entry:
	// the first with its evidence, then the others' IDs (or how many, -q).
	// A stale pass is a problem: always shown.
	order := entries(checks, func(c Check) bool { return c.Status != "pass" || opt.Passes || c.Stale })
	for _, e := range order {
		c := e.first()
		var tag string
		switch c.Status {
		case "pass":
			tag = green("PASS ")
		case "fail":
			if c.Level == string(check.Should) {
				tag = yellow("WARN ")
			} else {
				tag = red("FAIL ")
			}
		case "not-checked":
			tag = yellow("NOT CHECKED")
		default:
			tag = magenta("ERROR")
		}
		id := termsafe.Line(c.ID)
		if c.Outcome != "" {
			id += " (" + termsafe.Line(c.Level+": "+c.Outcome) + ")"
		}
		switch {
		case c.Stale:
			id += " " + red("(stale: the baseline lists it as known-failing; remove it)")
		case c.Known != "" && (c.Status == "fail" || c.Status == "error"):
			id += " " + yellow("(known "+termsafe.Line(c.Known)+")")
		}
		if e.more() > 0 {
			id += fmt.Sprintf(" and %d more", e.more())
		}
		if c.Reason != "" {
			p.line("%s %s  %s", tag, id, faint(quote(c.Reason)))
		} else {
			p.line("%s %s", tag, id)
		}
		if c.Status == "pass" && e.more() == 0 {
			continue
		}
		if e.more() > 0 && opt.Passes { // -q: their count, on the line above
			for _, l := range wrapIDs(e.checks[1:], textWidth-12) {
				p.line("      also %s", l)
			}
		}
		for _, l := range evidenceLines(c, true) {
			if strings.HasPrefix(l, "repro: ") && len(r.Rerun) > 0 {
				l = "repro: " + rerunOne(r.Rerun, c.ID)
			}
			p.line("      %s", l)
		}
	}
	// Per group, when something did not pass: with -q only the groups
	// where something did not.
	if groups := groupTotals(r, opt.Passes); len(groups) > 0 && r.Counts.Pass < r.Len() {
		p.line("by group (passed of checks):")
		for _, g := range groups {
			p.line("  %s", g)
		}
	}
	if b := r.Baseline; b != nil {
		for _, e := range b.StaleEntries {
			p.line("%s %s", red("STALE"), quote(e)+": none of the checks it lists failed; remove it")
		}
	}
	if r.Restarts > 0 {
		// Each restart followed a fault that no check may have been charged
		// with (a crash or a stray line between calls): said, not hidden.
		p.line("%s %s", yellow("RESTARTS"), fmt.Sprintf("the adapter broke and was restarted %s during the run; --trace keeps each fault", Plural(r.Restarts, "time", "times")))
	}
	if r.Strict && r.Counts.Warn > 0 {
		p.line("%s %s", red("STRICT"), fmt.Sprintf("%d warnings (failed should checks) block conformance under --strict", r.Counts.Warn))
	}
	p.line("%s", Summary(r.Counts))
	if b := r.Baseline; b != nil {
		p.line("baseline: %d known failing, %d known flaky, %d unexpected, %d stale", b.KnownFailing, b.KnownFlaky, b.Unexpected, b.Stale)
	}
	switch {
	case !r.Complete:
		p.line("%s", magenta("INCOMPLETE: the run did not finish; the verdicts above are not a conformance result"))
	case r.Conformant && r.Baseline != nil && r.Baseline.Stale > 0:
		p.line("%s (%.2fs)", red(fmt.Sprintf("CONFORMANT, BUT THE BASELINE IS STALE: %s list only checks that passed; remove them", Plural(r.Baseline.Stale, "entry", "entries"))), float64(r.DurationMS)/1000)
	case !r.Conformant && r.Baseline != nil && r.ExitCode() == ExitOK:
		p.line("%s (%.2fs)", yellow(fmt.Sprintf("NOT CONFORMANT, AS THE BASELINE SAYS: every failure is a listed one (%d)", r.Baseline.KnownFailing+r.Baseline.KnownFlaky)), float64(r.DurationMS)/1000)
	case r.Conformant:
		p.line("%s (%.2fs)", green("CONFORMANT"), float64(r.DurationMS)/1000)
	default:
		p.line("%s (%.2fs)", red("NOT CONFORMANT"), float64(r.DurationMS)/1000)
	}
	return p.err
}

// unstarted returns, for a report whose every check ended because the
// implementation could not be started, or because the run was interrupted
// before it started, what stopped it and the first check.
func unstarted(r *Report) (cause string, first Check, ok bool) {
	if r.Complete || r.Len() == 0 {
		return "", Check{}, false
	}
	for i, c := range r.All() {
		if i == 0 {
			first = c
			if !strings.HasPrefix(first.Reason, check.NotStartedPrefix) && first.Reason != check.InterruptedReason {
				return "", Check{}, false
			}
		}
		if c.Status != "error" || c.Reason != first.Reason {
			return "", Check{}, false
		}
	}
	return strings.TrimPrefix(first.Reason, check.NotRunPrefix), first, true
}

// Summary is the text report's summary line: "180 passed, 2 failed, 1 not
// checked, 0 errors", with the failed should checks counted apart from the
// failures when there are any: "180 passed, 2 failed, 3 warnings, 1 not
// checked, 0 errors".
func Summary(n check.Counts) string {
	warnings := ""
	if n.Warn > 0 {
		warnings = fmt.Sprintf(", %d warnings", n.Warn)
	}
	return fmt.Sprintf("%d passed, %d failed%s, %d not checked, %d errors", n.Pass, n.Fail, warnings, n.NotChecked, n.Error)
}

type printer struct {
	w   io.Writer
	err error
	max int // when set, the longest line it writes, in bytes; longer ones are cut
}

func (p *printer) line(format string, args ...any) {
	if p.err != nil {
		return
	}
	l := fmt.Sprintf(format, args...)
	if p.max > 0 && len(l) > p.max {
		l = clipAt(l, p.max-40)
	}
	_, p.err = io.WriteString(p.w, l+"\n")
}

func describe(im Implementation) string {
	s := im.Name
	if s == "" {
		s = "(no hello)"
	}
	if im.Version != "" {
		s += " " + im.Version
	}
	switch im.Transport {
	case "stdio":
		s += " (stdio: " + strings.Join(im.Command, " ") + ")"
	case "http":
		s += " (http: " + im.URL + ")"
	default:
		s += " (" + im.Transport + ")"
	}
	if im.Mode != "" {
		s += ", broken mode " + im.Mode
	}
	return s
}

func short(digest string) string {
	if len(digest) > len("sha256:")+12 {
		return digest[:len("sha256:")+12]
	}
	return digest
}

// quote shows a value on one line as it stands, with control characters and
// invisible characters shown as ‹U+2028› and bytes of invalid UTF-8 as ‹ED›
// (termsafe.Line), clipped.
func quote(s string) string { return clip(termsafe.Line(s)) }

// clip shortens s to 400 bytes, saying how long it was (clipAt).
func clip(s string) string { return clipAt(s, 400) }

// clipAt shortens s to at most max bytes, at a character boundary, saying
// how long it was.
func clipAt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return cutAt(s, max) + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// cutAt is s cut to at most max bytes at a character boundary; s is longer.
func cutAt(s string, max int) string {
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// stderrEvidenceLines is how many lines of an implementation's stderr the
// text report shows under a check (StderrExcerpt).
const stderrEvidenceLines = 8

// evidenceLines renders a check's expected and actual values and its
// evidence, one line each. For the text report (text), it adds the last
// lines of the adapter's stderr and makes every line safe, a note of
// several lines becoming a line and indented ones after it; otherwise notes
// keep their bytes.
func evidenceLines(c Check, text bool) []string {
	var out []string
	if c.Expected != nil {
		out = append(out, "expected: "+quote(*c.Expected), "actual:   "+quote(*c.Actual))
	}
	e := c.Evidence
	if e == nil {
		return out
	}
	if e.Diff != nil {
		// A diff read back from a report is checked (Read); its lines are
		// made safe all the same, as every other field is.
		for _, l := range e.Diff.Lines() {
			out = append(out, quote(l))
		}
	}
	for _, n := range e.Notes {
		if !text {
			out = append(out, n)
			continue
		}
		// A note's own lines follow it, indented under it.
		for i, l := range termsafe.Lines(n) {
			if i > 0 {
				l = "  " + l
			}
			out = append(out, l)
		}
	}
	for _, x := range e.Exchanges {
		if x.Request != "" {
			out = append(out, "sent:     "+quote(x.Request))
		}
		if x.Reply != "" {
			out = append(out, "received: "+quote(x.Reply))
		}
	}
	if text && e.Stderr != "" {
		out = append(out, "stderr of the implementation:")
		for _, l := range StderrExcerpt(e.Stderr, stderrEvidenceLines) {
			out = append(out, "  "+clip(l))
		}
	}
	if e.Repro != "" {
		repro := e.Repro
		if text {
			repro = termsafe.Line(repro)
		}
		out = append(out, "repro: "+repro)
	}
	return out
}

// Plural is n with the word for one or for several ("1 file", "3 files").
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// textMaxLine bounds every line of the text report; textWidth is the width
// lists of IDs are wrapped to.
const (
	textMaxLine = 1000
	textWidth   = 100
)

// wrapIDs lists the checks' IDs, made safe, on lines of at most width
// bytes (an ID longer than that on a line of its own).
func wrapIDs(checks []Check, width int) []string {
	var lines []string
	var b strings.Builder
	for _, c := range checks {
		id := clip(termsafe.Line(c.ID))
		if b.Len() > 0 && b.Len()+2+len(id) > width {
			lines = append(lines, b.String())
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id)
	}
	if b.Len() > 0 {
		lines = append(lines, b.String())
	}
	return lines
}

// rerunOne is the command that runs one check again: the report's rerun
// command with `--run ID` after the suite, made safe for a terminal.
func rerunOne(rerun []string, id string) string {
	words := append([]string{}, rerun[:min(3, len(rerun))]...)
	words = append(words, "--run", shell.Quote(id))
	words = append(words, rerun[min(3, len(rerun)):]...)
	return termsafe.Line(strings.Join(words, " "))
}

// groupCount is what a group's checks ended as: a group is the ID's segment
// after the suite ("numbers" of jcs/numbers/1e21).
type groupCount struct {
	Name string
	N    check.Counts
	All  int
}

// groupCounts sums a report's checks by group, in the order groups first
// appear; none for a suite of one group, or of a group per check, where
// the check lines say it all.
func groupCounts(r *Report) []groupCount {
	var order []*groupCount
	byName := map[string]*groupCount{}
	for _, c := range r.All() {
		rest := c.ID
		if _, after, ok := strings.Cut(c.ID, "/"); ok {
			rest = after
		}
		name, _, _ := strings.Cut(rest, "/")
		g := byName[name]
		if g == nil {
			g = &groupCount{Name: name}
			byName[name] = g
			order = append(order, g)
		}
		g.All++
		switch {
		case c.Status == "pass":
			g.N.Pass++
		case c.Status == "fail" && c.Level == string(check.Should):
			g.N.Warn++
		case c.Status == "fail":
			g.N.Fail++
		case c.Status == "not-checked":
			g.N.NotChecked++
		default:
			g.N.Error++
		}
	}
	if len(order) < 2 || len(order) == r.Len() {
		return nil
	}
	out := make([]groupCount, len(order))
	for i, g := range order {
		out[i] = *g
	}
	return out
}

// groupTotals is the text report's line for each group: "numbers  284/288,
// 2 failed, 2 warnings"; all of them, or only those where a check did not
// pass.
func groupTotals(r *Report, all bool) []string {
	groups := groupCounts(r)
	width := 0
	for _, g := range groups {
		width = max(width, len(termsafe.Line(g.Name)))
	}
	width = min(width, 40)
	var out []string
	for _, g := range groups {
		if !all && g.N.Pass == g.All {
			continue
		}
		line := fmt.Sprintf("%-*s %d/%d", width, termsafe.Line(g.Name), g.N.Pass, g.All)
		for _, part := range []struct {
			n          int
			one, other string
		}{{g.N.Fail, "failed", "failed"}, {g.N.Warn, "warning", "warnings"}, {g.N.NotChecked, "not checked", "not checked"}, {g.N.Error, "error", "errors"}} {
			if part.n > 0 {
				line += ", " + Plural(part.n, part.one, part.other)
			}
		}
		out = append(out, line)
	}
	return out
}
