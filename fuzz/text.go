package fuzz

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/shell"
	"github.com/refereehq/referee/internal/termsafe"
)

// WriteText writes the summary for a person: the run, each
// implementation's counts, each finding with its shrunk input, expected and
// actual answers, the gaps, and how to replay what was written.
func WriteText(w io.Writer, s *Summary, out string) error {
	p := &printer{w: w}
	rate := 0.0
	if s.Duration > 0 {
		rate = float64(s.Inputs) / s.Duration.Seconds()
	}
	p.line("referee fuzz %s: seed %d, %d inputs in %s (%.0f inputs/s), %d judged", s.Suite, s.Seed, s.Inputs, s.Duration.Round(1e6), rate, s.Judged)
	var ts []string
	for _, t := range s.Targets {
		ts = append(ts, fmt.Sprintf("%s %d/%d", t.Name, t.Judged, t.Inputs))
	}
	p.line("  targets (judged/generated): %s", strings.Join(ts, ", "))
	if s.RefusedByReference > 0 {
		p.line("  %d vectors the reference itself failed (a bug in referee):", s.RefusedByReference)
		for _, b := range s.ReferenceBugs {
			p.line("    %s", b)
		}
	}
	for _, i := range s.Impls {
		who := i.Name
		if i.Hello.Name != "" && i.Hello.Name != i.Name {
			who += " (" + i.Hello.Name + ")"
		}
		if i.Hello.Version != "" {
			who += " " + i.Hello.Version
		}
		who = termsafe.Line(who) // the hello is the implementation's text
		if i.Err != nil {
			p.line("implementation %s: %s", who, termsafe.Line(i.Err.Error()))
		}
		line := fmt.Sprintf("implementation %s: %d inputs diverged, %d differed at should level only", who, i.Divergent, i.Should)
		if len(i.MayOutcomes) > 0 {
			line += ", may outcomes: " + mayText(i.MayOutcomes)
		}
		if i.Restarts > 0 {
			line += fmt.Sprintf(", %d restarts", i.Restarts)
		}
		p.line("%s", line)
		for _, f := range s.Findings {
			if f.Impls[0] == i.Name {
				p.finding(f, "")
			}
		}
	}
	for _, f := range s.Gaps {
		p.finding(f, fmt.Sprintf("GAP: %s all answered alike, against the reference: a possible gap in the reference or the spec", strings.Join(f.Impls, ", ")))
	}
	var undriven []string
	for _, i := range s.Impls {
		if i.Err != nil {
			undriven = append(undriven, termsafe.Line(i.Name))
		}
	}
	quiet := len(s.Findings) == 0 && len(s.Gaps) == 0
	switch {
	case s.Interrupted:
		// The last line says so.
	case s.Judged == 0:
		p.line("NOTHING JUDGED: none of the %d inputs was judged; this run says nothing of the implementations", s.Inputs)
	case len(undriven) > 0:
		p.line("INCOMPLETE: %s could not be driven to the end: no verdict on it", strings.Join(undriven, ", "))
		if quiet && len(undriven) < len(s.Impls) {
			p.line("no divergence in the others")
		}
	case quiet:
		p.line("no divergence")
	}
	replay := s.Replay
	if replay == "" {
		replay = "--corpus"
	}
	switch {
	case len(s.Written) > 0 && len(s.Findings) == 0:
		// Written all the same, for a step that keeps the directory.
		p.line("wrote an empty corpus to %s (%s): no vector to replay", out, strings.Join(s.Written, ", "))
	case len(s.Written) > 0:
		p.line("wrote %d vectors to %s (%s); replay them with:", len(uniqueNames(s.Findings)), out, strings.Join(s.Written, ", "))
		for _, i := range s.Impls {
			p.line("  referee run %s %s %s%s", s.Suite, replay, shell.Quote(out), specWords(i.Spec))
		}
	}
	if s.Interrupted {
		of := ""
		if s.Total > 0 {
			of = fmt.Sprintf(" of %d", s.Total)
		}
		p.line("INTERRUPTED after %d%s inputs: not a complete run; the findings above (%d) are those made before it", s.Inputs, of, len(s.Findings)+len(s.Gaps))
	}
	return p.err
}

func uniqueNames(fs []*Finding) map[string]bool {
	m := map[string]bool{}
	for _, f := range fs {
		m[f.Name] = true
	}
	return m
}

// specWords are the words of `referee run` that reach the implementation.
func specWords(s check.Spec) string {
	switch {
	case s.Mode != "":
		return " --mode " + s.Mode
	case s.URL != "":
		return " --url " + shell.Quote(s.URL)
	case len(s.Argv) > 0:
		q := make([]string, len(s.Argv))
		for i, a := range s.Argv {
			q[i] = shell.Quote(a)
		}
		return " -- " + strings.Join(q, " ")
	}
	return ""
}

func mayText(m map[string]int) string {
	var parts []string
	for _, k := range []string{check.ChoseOutput, check.ChoseReject} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	for k, n := range m {
		if k != check.ChoseOutput && k != check.ChoseReject {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	return strings.Join(parts, ", ")
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

// finding prints one finding under a title (by default its status, level
// and check).
func (p *printer) finding(f *Finding, title string) {
	tag := "FAIL"
	switch {
	case f.Status == check.Error:
		tag = "ERROR"
	case f.Level == check.Should:
		tag = "WARN"
	}
	if f.Flaky {
		tag = "FLAKY " + tag
	}
	if title == "" {
		title = fmt.Sprintf("%s (%s) %s", tag, f.Level, f.Check)
	} else {
		title += ": " + f.Check
	}
	p.line("  %s: %s", termsafe.Line(title), termsafe.Line(f.Reason))
	if f.Flaky {
		p.line("    input:    %s   (target %s, input %d as generated: it did not fail so again, so it is not shrunk; %d inputs failed so)", inputText(f.Input), f.Target, f.Index, f.Seen)
	} else {
		p.line("    input:    %s   (target %s, shrunk from input %d; %d inputs failed so)", inputText(f.Input), f.Target, f.Index, f.Seen)
	}
	if f.Status == check.Fail {
		// Cut when the finding was made (Finding.Expected): shown as kept.
		p.line("    expected: %s", termsafe.Line(f.Expected))
		p.line("    actual:   %s", termsafe.Line(f.Actual))
	}
	if f.Flaky {
		p.line("    again:    %s", termsafe.Line(check.Clip(f.Rerun)))
	}
}

// inputText shows an input as quoted text, or as hex when it is not UTF-8.
func inputText(b []byte) string {
	if utf8.Valid(b) {
		return check.Clip(strconv.Quote(string(b)))
	}
	return check.Clip(fmt.Sprintf("hex %x", b))
}
