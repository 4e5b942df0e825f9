package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The JUnit document. The xml tags say what each member is in the XML
// WriteJUnit writes (by hand, in xmlWriter: encoding/xml's reflection and
// package initialisation are more than one fixed shape needs); the tests
// read the output back into these types with encoding/xml and hold the
// writer to its Encoder, byte for byte.
type junitSuites struct {
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
		Tests:     r.Len(),
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
	for _, c := range r.All() {
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
	return doc.writeTo(w)
}

// writeTo writes the document, with its XML declaration, to w.
func (d *junitSuites) writeTo(w io.Writer) error {
	x := &xmlWriter{w: bufio.NewWriter(w)}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	d.write(x)
	x.raw("\n")
	return x.w.Flush()
}

func (d *junitSuites) write(x *xmlWriter) {
	x.open("testsuites", "name", d.Name, "tests", strconv.Itoa(d.Tests), "failures", strconv.Itoa(d.Failures),
		"errors", strconv.Itoa(d.Errors), "time", d.Time)
	for i := range d.Suites {
		d.Suites[i].write(x)
	}
	x.close("testsuites")
}

func (s *junitSuite) write(x *xmlWriter) {
	x.open("testsuite", "name", s.Name, "tests", strconv.Itoa(s.Tests), "failures", strconv.Itoa(s.Failures),
		"errors", strconv.Itoa(s.Errors), "skipped", strconv.Itoa(s.Skipped), "time", s.Time, "timestamp", s.Timestamp)
	x.open("properties")
	for _, p := range s.Properties {
		x.open("property", "name", p.Name, "value", p.Value)
		x.close("property")
	}
	x.close("properties")
	for i := range s.Cases {
		s.Cases[i].write(x)
	}
	x.close("testsuite")
}

func (c *junitCase) write(x *xmlWriter) {
	x.open("testcase", "name", c.Name, "classname", c.Classname, "time", c.Time)
	for _, p := range []struct {
		name string
		p    *junitProblem
	}{{"failure", c.Failure}, {"error", c.Error}, {"skipped", c.Skipped}} {
		if p.p == nil {
			continue
		}
		if p.p.Type == "" {
			x.open(p.name, "message", p.p.Message)
		} else {
			x.open(p.name, "message", p.p.Message, "type", p.p.Type)
		}
		x.text(p.p.Text)
		x.close(p.name)
	}
	for _, t := range []struct{ name, text string }{{"system-out", c.SystemOut}, {"system-err", c.SystemErr}} {
		if t.text != "" {
			x.open(t.name)
			x.text(t.text)
			x.close(t.name)
		}
	}
	x.close("testcase")
}

// xmlWriter writes elements indented by two spaces a level, as
// encoding/xml's Encoder with Indent("", "  ") does: each element on a
// line of its own, text right after its start tag and the end tag right
// after the text (or after the start tag when the element is empty).
type xmlWriter struct {
	w     *bufio.Writer
	depth int
	// leaf: the last thing written is a start tag or text, so the end tag
	// that follows goes on the same line.
	leaf    bool
	started bool // an element has been written
}

func (x *xmlWriter) raw(s string) { x.w.WriteString(s) }

func (x *xmlWriter) newline() {
	if x.started {
		x.raw("\n")
	}
	x.raw(strings.Repeat("  ", x.depth))
}

// open writes a start tag with attrs, pairs of name and value.
func (x *xmlWriter) open(name string, attrs ...string) {
	x.newline()
	x.started = true
	x.raw("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.raw(" " + attrs[i] + `="`)
		x.escape(attrs[i+1])
		x.raw(`"`)
	}
	x.raw(">")
	x.depth++
	x.leaf = true
}

func (x *xmlWriter) text(s string) { x.escape(s) }

func (x *xmlWriter) close(name string) {
	x.depth--
	if !x.leaf {
		x.newline()
	}
	x.raw("</" + name + ">")
	x.leaf = false
}

// escape writes s as XML text or an attribute value: the five markup
// characters and tab, line feed and carriage return as references, and
// each byte or code point XML 1.0 cannot hold (most control characters,
// U+FFFE, U+FFFF, bytes that are not UTF-8) as U+FFFD.
func (x *xmlWriter) escape(s string) {
	last := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == '"':
			esc = "&#34;"
		case r == '\'':
			esc = "&#39;"
		case r == '&':
			esc = "&amp;"
		case r == '<':
			esc = "&lt;"
		case r == '>':
			esc = "&gt;"
		case r == '\t':
			esc = "&#x9;"
		case r == '\n':
			esc = "&#xA;"
		case r == '\r':
			esc = "&#xD;"
		case !xmlChar(r) || r == utf8.RuneError && size == 1:
			esc = "\uFFFD"
		}
		if esc != "" {
			x.raw(s[last:i])
			x.raw(esc)
			last = i + size
		}
		i += size
	}
	x.raw(s[last:])
}

// xmlChar reports whether XML 1.0's Char production holds r.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
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
