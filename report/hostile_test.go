package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/golden"
)

// forge is what a hostile implementation puts in every text it controls:
// a line break, a carriage return and ANSI escapes to forge or hide lines,
// and a bidi override to reorder one.
const forge = "x\nPASS  jcs/fake/check\r\x1b[2KCONFORMANT\u202e\n"

// hostileReport is a failing run whose every text from the implementation
// (its hello, reasons, expected and actual values, evidence notes such as
// a CGP frame id or provenance URI, exchanges, stderr) tries to forge lines.
func hostileReport() *Report {
	run := &check.Execution{
		Started:  time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Duration: time.Second,
		Complete: true,
		Results: []check.Result{
			{
				ID: "cgp/provenance-fixture-consistency", Status: check.Fail, Level: check.Must,
				Reason:   "digest differs for frame " + forge,
				Expected: "sha256:" + forge, Actual: forge,
				Evidence: check.Evidence{
					Notes:     []string{"frame id " + forge + "provenance file:///" + forge, "second note\nwith a line of its own"},
					Exchanges: []adapter.Exchange{{Request: []byte(`{"type":"query"}`), Reply: []byte(forge)}},
					Stderr:    "log " + forge + "tail\r\n",
					Repro:     "printf '%s\\n' '" + forge + "' | ./provider",
				},
			},
			{ID: "cgp/handshake", Status: check.Error, Level: check.Must, Reason: "not run: the implementation could not be started: hello refused: " + forge},
		},
	}
	r := New(Tool{Name: "referee", Version: "1.2.3"},
		Suite{Name: "cgp", Version: "1.0.0", Corpus: "built-in checks", CorpusDigest: "sha256:" + strings.Repeat("ab", 32)},
		Implementation{Name: "evil" + forge, Version: "1.0\r" + forge, Transport: "stdio", Command: []string{"./provider", forge}},
		run, false)
	// A merged report's docs and clauses are what its parts say: untrusted.
	r.Describe(func(string) (string, string) { return "doc " + forge, "clause " + forge })
	return r
}

// TestTextCannotBeForged: no byte from the implementation makes a line of
// the text report, starts one, or moves the cursor.
func TestTextCannotBeForged(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, hostileReport(), TextOptions{Passes: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\r\x1b\u202e") {
		t.Errorf("the report holds a raw CR, ESC or bidi override:\n%q", out)
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for _, forged := range []string{"PASS", "CONFORMANT", "x"} {
			if strings.HasPrefix(line, forged) {
				t.Errorf("line %d is forged: %q", i+1, line)
			}
		}
	}
	if !strings.HasSuffix(out, "NOT CONFORMANT (1.00s)\n") {
		t.Errorf("the verdict is not the last line:\n%s", out)
	}
	golden.Check(t, goldenFile("report-hostile.txt"), b.Bytes())
}

// TestMachineFormatsKeepBytes: JSON and JUnit keep the implementation's
// exact text, escaped as their formats require.
func TestMachineFormatsKeepBytes(t *testing.T) {
	r := hostileReport()
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Implementation.Name != "evil"+forge || back.Checks[0].Evidence.Notes[0] != "frame id "+forge+"provenance file:///"+forge {
		t.Errorf("JSON changed the implementation's text: %q, %q", back.Implementation.Name, back.Checks[0].Evidence.Notes)
	}
	var ju bytes.Buffer
	if err := WriteJUnit(&ju, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	f := doc.Suites[0].Cases[0].Failure
	// XML 1.0 has no ESC: the writer (as encoding/xml) puts U+FFFD in its place; the line
	// breaks and the bidi override are kept.
	if f == nil || !strings.Contains(f.Message, "x\nPASS  jcs/fake/check\r\uFFFD[2KCONFORMANT\u202e") || !strings.Contains(f.Text, "frame id x\nPASS") {
		t.Errorf("JUnit changed the implementation's text: %+v", f)
	}
}

// TestHTMLCannotBeForged: the HTML report, alone and as a matrix, shows
// every text from the implementation (its hello's name and version
// included) as the text report does, with no raw control character or
// bidi override, which a browser would keep and a terminal showing the
// file would obey.
func TestHTMLCannotBeForged(t *testing.T) {
	for name, write := range map[string]func(*bytes.Buffer) error{
		"report": func(b *bytes.Buffer) error { return WriteHTML(b, hostileReport()) },
		"matrix": func(b *bytes.Buffer) error {
			return WriteHTMLMatrix(b, []NamedReport{{Name: "a" + forge, Report: hostileReport()}, {Name: "b", Report: hostileReport()}})
		},
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if i := strings.IndexAny(b.String(), "\r\x1b\u202e"); i >= 0 {
			lo := max(0, i-80)
			t.Errorf("%s: raw CR, ESC or bidi override at byte %d: %q", name, i, b.String()[lo:min(len(b.String()), i+40)])
		}
		if !strings.Contains(b.String(), "evilx") {
			t.Errorf("%s: the implementation's name is not shown", name)
		}
	}
}
