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

// Lines renders the diff as two aligned hex rows with a caret under the first
// differing byte.
func (d *Diff) Lines() []string {
	at := fmt.Sprintf("@%d: ", d.WindowStart)
	return []string{
		fmt.Sprintf("first difference at byte %d (counting from 0; expected %d bytes, got %d)", d.Offset, d.ExpectedLen, d.ActualLen),
		"expected " + at + spaced(d.ExpectedHex),
		"actual   " + at + spaced(d.ActualHex),
		strings.Repeat(" ", len("expected ")+len(at)+3*(d.Offset-d.WindowStart)) + "^^",
	}
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
