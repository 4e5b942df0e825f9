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
// otherwise its first lines and its last, with a line saying how many were
// left out between them. When the first lines do not reach the first line
// that names an error (a stack frame, "at ...", names none), the head is
// that line and the lines after it that are not frames: a runtime that
// fails to start puts its cause near the top, after its own preamble, and
// frames and its version at the bottom. Tabs are shown as spaces, as a
// terminal shows them.
func StderrExcerpt(s string, n int) []string {
	lines := termsafe.Lines(strings.ReplaceAll(s, "\t", "    "))
	if len(lines) <= n {
		return lines
	}
	if n < 3 {
		return lines[len(lines)-n:]
	}
	h := n / 2
	head, skipped := lines[:h], 0
	for k, l := range lines[:len(lines)-(n-h-1)] {
		if t := strings.TrimSpace(l); !errorLine.MatchString(t) || isFrame(t) {
			continue
		}
		if k >= h {
			end := k + 1
			for end < k+h && end < len(lines) && !isFrame(lines[end]) {
				end++
			}
			head, skipped = lines[k:end], k
		}
		break
	}
	var out []string
	if skipped > 0 {
		out = append(out, leftOut(skipped))
	}
	out = append(out, head...)
	tail := lines[len(lines)-(n-len(out)-1):]
	out = append(out, leftOut(len(lines)-skipped-len(head)-len(tail)))
	return append(out, tail...)
}

// isFrame reports whether a log line is a stack frame (Node, Java: "at
// ..."; Python: "File ..."), which names where, not what.
func isFrame(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "File \"")
}

func leftOut(n int) string { return "… " + Plural(n, "line", "lines") + " left out …" }
