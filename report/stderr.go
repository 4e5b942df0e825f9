package report

import (
	"regexp"
	"strings"

	"github.com/refereehq/referee/internal/termsafe"
)

// errorLine finds a line of a log that says what went wrong, as runtimes
// word it: "Error: Cannot find module", "ModuleNotFoundError", "Exception
// in thread", "panic:", "No such file or directory".
var errorLine = regexp.MustCompile(`(?i)(error|exception|traceback|panic|fatal|cannot|can't|could not|not found|no such|denied|refused|failed)`)

// StderrExcerpt returns at most n lines of an implementation's stderr, made
// safe for a terminal, for evidence: the whole log when it is that short;
// otherwise the first line that names an error (a stack frame, "at ...",
// is not one) and the line after it unless that is a frame, a line saying how many were left out,
// and the last lines. A runtime that fails to start puts its cause at the
// top and frames and its own version at the bottom, so the last lines alone
// miss it. Tabs are shown as spaces, as a terminal shows them.
func StderrExcerpt(s string, n int) []string {
	lines := termsafe.Lines(strings.ReplaceAll(s, "\t", "    "))
	if len(lines) <= n {
		return lines
	}
	first := -1
	for i, l := range lines[:len(lines)-(n-3)] {
		t := strings.TrimSpace(l)
		if errorLine.MatchString(t) && !isFrame(t) {
			first = i
			break
		}
	}
	if first < 0 || n < 5 {
		return append([]string{leftOut(len(lines) - (n - 1))}, lines[len(lines)-(n-1):]...)
	}
	head := lines[first : first+1]
	if next := first + 1; next < len(lines) && !isFrame(lines[next]) {
		head = lines[first : next+1]
	}
	tail := lines[len(lines)-(n-len(head)-1):]
	if skipped := len(lines) - first - len(head) - len(tail); skipped > 0 {
		out := append([]string{}, head...)
		out = append(out, leftOut(skipped))
		return append(out, tail...)
	}
	return lines[first:]
}

// isFrame reports whether a log line is a stack frame (Node, Java: "at
// ..."; Python: "File ..."), which names where, not what.
func isFrame(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "File \"")
}

func leftOut(n int) string { return "… " + Plural(n, "line", "lines") + " left out …" }
