package check

import (
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Diff locates the first difference between expected and actual bytes.
type Diff struct {
	Offset      int    `json:"offset"`       // first differing byte; the shorter length if one is a prefix of the other
	ExpectedLen int    `json:"expected_len"` // total lengths
	ActualLen   int    `json:"actual_len"`
	WindowStart int    `json:"window_start"` // offset of the first byte in both windows
	ExpectedHex string `json:"expected_hex"` // lowercase hex of expected[WindowStart:...]
	ActualHex   string `json:"actual_hex"`
}

const (
	windowBefore = 8
	windowAfter  = 24
)

// DiffBytes returns where actual first differs from expected, or nil when they are equal.
func DiffBytes(expected, actual []byte) *Diff {
	n := min(len(expected), len(actual))
	i := 0
	for i < n && expected[i] == actual[i] {
		i++
	}
	if i == n && len(expected) == len(actual) {
		return nil
	}
	start := max(0, i-windowBefore)
	return &Diff{
		Offset:      i,
		ExpectedLen: len(expected),
		ActualLen:   len(actual),
		WindowStart: start,
		ExpectedHex: hexWindow(expected, start, i+windowAfter),
		ActualHex:   hexWindow(actual, start, i+windowAfter),
	}
}

func hexWindow(b []byte, from, to int) string {
	to = min(to, len(b))
	if from >= to {
		return ""
	}
	return hex.EncodeToString(b[from:to])
}

// Validate checks that d holds together as DiffBytes makes it: lengths and
// an offset within them, the window at max(0, offset - 8) and each hex
// field lowercase hex of that window's bytes, equal in both up to the
// offset and different at it. A diff read from a report is untrusted: this
// is what lets a writer size a line from its numbers.
func (d *Diff) Validate() error {
	switch {
	case d.ExpectedLen < 0 || d.ActualLen < 0:
		return fmt.Errorf("diff: a negative length (expected_len %d, actual_len %d)", d.ExpectedLen, d.ActualLen)
	case d.Offset < 0 || d.Offset > min(d.ExpectedLen, d.ActualLen):
		return fmt.Errorf("diff: offset %d outside both values (expected_len %d, actual_len %d)", d.Offset, d.ExpectedLen, d.ActualLen)
	case d.Offset == d.ExpectedLen && d.Offset == d.ActualLen:
		return fmt.Errorf("diff: offset %d is the end of two values of the same length: they do not differ", d.Offset)
	case d.WindowStart != max(0, d.Offset-windowBefore):
		return fmt.Errorf("diff: window_start %d for offset %d: want %d", d.WindowStart, d.Offset, max(0, d.Offset-windowBefore))
	}
	exp, err := windowBytes("expected_hex", d.ExpectedHex, d.WindowStart, min(d.Offset+windowAfter, d.ExpectedLen))
	if err != nil {
		return err
	}
	act, err := windowBytes("actual_hex", d.ActualHex, d.WindowStart, min(d.Offset+windowAfter, d.ActualLen))
	if err != nil {
		return err
	}
	at := d.Offset - d.WindowStart
	if string(exp[:at]) != string(act[:at]) {
		return fmt.Errorf("diff: the windows differ before offset %d", d.Offset)
	}
	if at < len(exp) && at < len(act) && exp[at] == act[at] {
		return fmt.Errorf("diff: the windows do not differ at offset %d", d.Offset)
	}
	return nil
}

// windowBytes decodes a diff's hex field, which must be lowercase hex of
// the bytes from start to end.
func windowBytes(name, h string, start, end int) ([]byte, error) {
	want := max(0, end-start)
	if len(h) != 2*want {
		return nil, fmt.Errorf("diff: %s holds %d hex digits: want %d, the bytes %d to %d", name, len(h), 2*want, start, start+want)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("diff: %s is not hex", name)
	}
	if strings.ToLower(h) != h {
		return nil, fmt.Errorf("diff: %s is not lowercase hex", name)
	}
	return b, nil
}

// Lines renders the diff as two aligned hex rows with a caret under the first
// differing byte. The caret is placed only when the offset falls within the
// rows (a diff that does not Validate may say otherwise).
func (d *Diff) Lines() []string {
	at := fmt.Sprintf("@%d: ", d.WindowStart)
	lines := []string{
		fmt.Sprintf("first difference at byte %d (counting from 0; expected %d bytes, got %d)", d.Offset, d.ExpectedLen, d.ActualLen),
		"expected " + at + spaced(d.ExpectedHex),
		"actual   " + at + spaced(d.ActualHex),
	}
	// The caret's column comes from numbers checked against the rows it
	// points into, never from the numbers alone.
	if col := d.Offset - d.WindowStart; col >= 0 && col <= max(len(d.ExpectedHex), len(d.ActualHex))/2 {
		lines = append(lines, strings.Repeat(" ", len("expected ")+len(at)+3*col)+"^^")
	}
	return lines
}

func spaced(h string) string {
	var b strings.Builder
	for i := 0; i+1 < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// ClipLen is how much of a long value Clip keeps.
const ClipLen = 300

// Clip shortens s to about ClipLen bytes for evidence, at a character
// boundary, saying how long it was.
func Clip(s string) string { return ClipTo(s, ClipLen) }

// ClipTo shortens s to at most n bytes at a character boundary, saying how
// long it was ("... (N bytes in all)"); a shorter s is returned as is.
func ClipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes in all)", cutAt(s, n), len(s))
}

// cutAt is s cut to at most n bytes at a character boundary; s is longer.
func cutAt(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// OneLine joins s's lines and runs of white space into single spaces, for
// a check's one-line doc.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
