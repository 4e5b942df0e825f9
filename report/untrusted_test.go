package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
)

// TestWritersSizeNothingUnchecked: a report made in memory (not read, so
// not checked) whose diff has an offset below its window, or far past it,
// and hex fields holding escapes, is written by every writer without a
// panic, in bounded size, and the text report holds no raw escape.
func TestWritersSizeNothingUnchecked(t *testing.T) {
	for name, d := range map[string]check.Diff{
		"offset below the window": {Offset: 0, ExpectedLen: 18, ActualLen: 18, WindowStart: 8, ExpectedHex: "7b22", ActualHex: "7b23"},
		"offset far past it":      {Offset: 100_000_000, ExpectedLen: 18, ActualLen: 18, WindowStart: 0, ExpectedHex: "7b22", ActualHex: "7b23"},
		"hex that is not hex":     {Offset: 2, ExpectedLen: 18, ActualLen: 18, WindowStart: 0, ExpectedHex: "\x1b[2K\rCONFORMANT\n", ActualHex: "\u202e7b"},
	} {
		t.Run(name, func(t *testing.T) {
			r := sampleReport(false)
			r.Checks[1].Evidence.Diff = &d
			for format, write := range map[string]func(*bytes.Buffer) error{
				"text":     func(b *bytes.Buffer) error { return WriteText(b, r, TextOptions{}) },
				"junit":    func(b *bytes.Buffer) error { return WriteJUnit(b, r) },
				"html":     func(b *bytes.Buffer) error { return WriteHTML(b, r) },
				"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, r, MarkdownOptions{}) },
			} {
				var b bytes.Buffer
				if err := write(&b); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				if b.Len() > 64<<10 {
					t.Errorf("%s: %d bytes from a report of 6 checks", format, b.Len())
				}
				if format == "text" || format == "html" {
					if i := strings.IndexAny(b.String(), "\r\x1b\u202e"); i >= 0 {
						t.Errorf("%s: a raw CR, ESC or bidi override at byte %d: %q", format, i, b.String()[max(0, i-60):i+1])
					}
				}
				if format == "text" && strings.Contains(b.String(), "\nCONFORMANT") {
					t.Errorf("text: a forged CONFORMANT line:\n%s", b.String())
				}
			}
		})
	}
}

// TestHTMLShowsIDsAndOutcomesSafely: a check ID (which merge checks against
// the suite only when it can load the suite) and an outcome are shown as
// one safe line each, on the page and in the matrix grid.
func TestHTMLShowsIDsAndOutcomesSafely(t *testing.T) {
	r := sampleReport(false)
	r.Checks[0].ID = "jcs/" + strings.Repeat("\u202e", 250) + "evil\x1b[2K"
	r.Checks[0].Level, r.Checks[0].Outcome = "may", strings.Repeat("\u202e", 250)+"output\r"
	for name, write := range map[string]func(*bytes.Buffer) error{
		"report": func(b *bytes.Buffer) error { return WriteHTML(b, r) },
		"matrix": func(b *bytes.Buffer) error {
			return WriteHTMLMatrix(b, []NamedReport{{Name: "a", Report: r}, {Name: "b", Report: sampleReport(false)}})
		},
		"markdown matrix": func(b *bytes.Buffer) error {
			return WriteMarkdownMatrix(b, []NamedReport{{Name: "a", Report: r}, {Name: "b", Report: sampleReport(false)}}, MarkdownOptions{})
		},
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		page := b.String()
		if n := strings.Count(page, "\u202e"); n > 0 {
			t.Errorf("%s: %d raw U+202E on the page", name, n)
		}
		if strings.ContainsAny(page, "\r\x1b") {
			t.Errorf("%s: a raw CR or ESC on the page", name)
		}
		if !strings.Contains(page, "‹U&#43;202E›evil‹U&#43;001B›[2K") && !strings.Contains(page, `| jcs/‹U\+202E›‹U\+202E›`) {
			t.Errorf("%s: the ID is not shown escaped", name)
		}
	}
}
