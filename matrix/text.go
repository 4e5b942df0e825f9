package matrix

import (
	"fmt"
	"io"
	"strings"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/paint"
	"github.com/refereehq/referee/internal/termsafe"
)

// TextOptions tune the text matrix.
type TextOptions struct {
	Color bool // ANSI colour; the caller decides (TTY, NO_COLOR, --no-color)
	// Quiet leaves out the rows where every implementation passed alike.
	Quiet bool
	// Examples is how many check IDs a group lists before "and N more"
	// (0: 3).
	Examples int
}

// cell is how an outcome reads in the matrix.
func cell(o string) string {
	switch {
	case o == "pass":
		return "PASS"
	case strings.HasPrefix(o, "pass:"):
		return "PASS (" + strings.TrimPrefix(o, "pass:") + ")"
	case o == "not-checked":
		return "NOT CHECKED"
	case o == "not-run":
		return "-"
	}
	return strings.ToUpper(o)
}

// WriteText writes the matrix for a person: one row per check (with
// Quiet, only those where the implementations differ or fail) and one
// column per implementation, then the groups of disagreeing checks, one
// line per pattern, then each implementation's counts and verdict.
func WriteText(w io.Writer, m *Matrix, o TextOptions) error {
	p := &printer{w: w}
	pen := paint.Painter(o.Color)
	green, red, yellow, magenta := pen(paint.Green), pen(paint.Red), pen(paint.Yellow), pen(paint.Magenta)
	colour := func(o, text string) string {
		switch {
		case strings.HasPrefix(o, "pass"):
			return green(text)
		case o == "fail":
			return red(text)
		case o == "warn", o == "not-checked":
			return yellow(text)
		case o == "error":
			return magenta(text)
		}
		return text
	}
	examples := o.Examples
	if examples <= 0 {
		examples = 3
	}

	idWidth := len("check")
	for _, id := range m.Checks {
		idWidth = max(idWidth, len(id))
	}
	widths := make([]int, len(m.Impls))
	for i, e := range m.Impls {
		widths[i] = len(e.Name)
		for _, row := range m.Rows {
			widths[i] = max(widths[i], len(cell(row[i])))
		}
	}
	p.line("referee matrix: suite %s, %d checks, %d implementations", m.Suite, len(m.Checks), len(m.Impls))
	header := pad("check", idWidth)
	for i, e := range m.Impls {
		header += "  " + pad(e.Name, widths[i])
	}
	p.line("%s", strings.TrimRight(header, " "))
	for k, id := range m.Checks {
		row := m.Rows[k]
		if o.Quiet && uniformPass(row) {
			continue
		}
		line := pad(id, idWidth)
		for i, out := range row {
			line += "  " + colour(out, pad(cell(out), widths[i]))
		}
		p.line("%s", strings.TrimRight(line, " "))
	}

	var disagree, allFail int
	for _, g := range m.Groups {
		if g.Agree {
			allFail += len(g.Checks)
		} else {
			disagree += len(g.Checks)
		}
	}
	p.line("")
	if len(m.Groups) == 0 {
		p.line("the implementations agree on every check, and none fails")
	} else {
		p.line("%d checks on which the implementations disagree, %d that all fail, in %d groups:", disagree, allFail, len(m.Groups))
	}
	for _, g := range m.Groups {
		var outs []string
		for i, out := range g.Outcomes {
			outs = append(outs, m.Impls[i].Name+"="+colour(out, cell(out)))
		}
		ids := g.Checks
		more := ""
		if len(ids) > examples {
			more = fmt.Sprintf(" and %d more", len(ids)-examples)
			ids = ids[:examples]
		}
		note := ""
		if g.Agree {
			note = " (all fail alike: the corpus, the reference or the spec is the suspect)"
		}
		p.line("  %4d  %s%s", len(g.Checks), strings.Join(outs, " "), note)
		p.line("        %s%s", termsafe.Line(strings.Join(ids, ", ")), more)
	}

	p.line("")
	nameWidth := 0
	for _, e := range m.Impls {
		nameWidth = max(nameWidth, len(e.Name))
	}
	for _, e := range m.Impls {
		r := e.Report
		if r == nil {
			p.line("%s  %s: no report", pad(e.Name, nameWidth), magenta("incomplete"))
			continue
		}
		verdict := green("conformant")
		switch {
		case !r.Complete:
			verdict = magenta("incomplete")
		case !r.Conformant:
			verdict = red("not conformant")
		}
		who := termsafe.Line(strings.TrimSpace(r.Implementation.Name + " " + r.Implementation.Version))
		if who != "" {
			who = " (" + who + ")"
		}
		n := r.Counts
		p.line("%s  %s%s: %d passed, %d failed, %d warnings, %d not checked, %d errors", pad(e.Name, nameWidth), verdict, who, n.Pass, n.Fail, n.Warn, n.NotChecked, n.Error)
		switch {
		case e.Result != nil && e.Result.StartErr != nil:
			p.line("%s  could not be started: %s", pad("", nameWidth), termsafe.Line(e.Result.StartErr.Error()))
		case e.Result != nil && e.Result.Interrupted:
			p.line("%s  %s", pad("", nameWidth), check.InterruptedReason)
		}
	}
	return p.err
}

// uniformPass reports whether every implementation passed a check with the
// same outcome.
func uniformPass(row []string) bool {
	for _, o := range row {
		if o != row[0] {
			return false
		}
	}
	return strings.HasPrefix(row[0], "pass")
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}
