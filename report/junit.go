package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"` // junit-10.xsd allows no skipped count on testsuites
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: fail is <failure>, error is
// <error>, not-checked is <skipped>, and the evidence is the element's text.
// A failed should check is a warning, a passed testcase whose <system-out>
// holds the reason and evidence, except under strict, where it is a
// <failure type="should">. Every testcase's <system-out> opens with its
// level ("level: must"); JUnit's schema (Jenkins xUnit's junit-10.xsd)
// allows no properties and no other attributes on a testcase.
func WriteJUnit(w io.Writer, r *Report) error {
	secs := func(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
	s := junitSuite{
		Name:      r.Suite.Name,
		Tests:     len(r.Checks),
		Failures:  r.Counts.Fail,
		Errors:    r.Counts.Error,
		Skipped:   r.Counts.NotChecked,
		Time:      secs(float64(r.DurationMS)),
		Timestamp: r.Started,
		Properties: []junitProperty{
			{"format", r.Format},
			{"tool", r.Tool.Name + " " + r.Tool.Version},
			{"implementation", describe(r.Implementation)},
			{"corpus", r.Suite.Corpus},
			{"corpus_digest", r.Suite.CorpusDigest},
			{"complete", fmt.Sprint(r.Complete)},
			{"conformant", fmt.Sprint(r.Conformant)},
			{"strict", fmt.Sprint(r.Strict)},
			{"warnings", fmt.Sprint(r.Counts.Warn)},
		},
	}
	if r.Strict {
		s.Failures += r.Counts.Warn // a failed should check blocks: a <failure>
	}
	if b := r.Baseline; b != nil {
		s.Properties = append(s.Properties, junitProperty{"baseline", fmt.Sprintf("%d known failing, %d known flaky, %d unexpected, %d stale", b.KnownFailing, b.KnownFlaky, b.Unexpected, b.Stale)})
	}
	for _, c := range r.Checks {
		jc := junitCase{Name: c.ID, Classname: classname(c.ID), Time: secs(c.DurationMS)}
		out := []string{"level: " + c.Level}
		if c.Outcome != "" {
			out = append(out, "outcome: "+c.Outcome)
		}
		problem := &junitProblem{Message: c.Reason, Type: c.Status, Text: evidenceText(c)}
		warning := c.Status == "fail" && c.Level == "should"
		if warning {
			problem.Type = c.Level
		}
		if c.Known != "" {
			problem.Type += " (known " + c.Known + ")"
		}
		switch c.Status {
		case "fail":
			if warning && !r.Strict {
				// A warning: the testcase passes, and says why it warns.
				out = append(out, "warning: "+quote(c.Reason))
				if c.Known != "" {
					out = append(out, "known: "+c.Known)
				}
				out = append(out, evidenceLines(c, false)...)
				break
			}
			jc.Failure = problem
		case "error":
			jc.Error = problem
		case "not-checked":
			jc.Skipped = &junitProblem{Message: c.Reason}
		case "pass":
			if c.Stale {
				jc.Failure = &junitProblem{Message: "listed as known-failing, yet it passed: remove it from the baseline", Type: "stale"}
				s.Failures++
			}
		}
		jc.SystemOut = strings.Join(out, "\n") + "\n"
		if c.Evidence != nil {
			jc.SystemErr = c.Evidence.Stderr
		}
		s.Cases = append(s.Cases, jc)
	}
	doc := junitSuites{
		Name: r.Tool.Name, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors,
		Time: s.Time, Suites: []junitSuite{s},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// classname is the ID without its last segment, dotted, as JUnit viewers group by it.
func classname(id string) string {
	if i := strings.LastIndexByte(id, '/'); i > 0 {
		return strings.ReplaceAll(id[:i], "/", ".")
	}
	return id
}

func evidenceText(c Check) string {
	lines := evidenceLines(c, false)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
