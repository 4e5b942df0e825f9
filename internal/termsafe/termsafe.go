// Package termsafe makes text that comes from an implementation (a hello
// name, evidence, a provider's frame id, an adapter's stderr) safe to print
// on a terminal or in a text report: control characters, ANSI escapes,
// carriage returns, and invisible or bidirectional format characters are
// shown as visible escapes, so that no byte an implementation sends can
// forge, hide or reorder a line of referee's output.
//
// A character is shown as ‹U+XXXX› and a byte of invalid UTF-8 as ‹XX›.
// Printable characters and the ASCII space stand as they are.
package termsafe

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of output: every character that is not
// printable, line breaks included, is shown escaped.
func Line(s string) string {
	if plainASCII(s) {
		return s
	}
	return string(appendSafe(make([]byte, 0, len(s)+16), []byte(s)))
}

// Lines splits s at its line breaks ("\n" or "\r\n") and returns each line
// made safe by Line; a final line break ends the last line and adds no empty
// one. The caller prints each line after a prefix of its own.
func Lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Line(strings.TrimSuffix(l, "\r"))
	}
	return lines
}

// Text returns s with its "\n" line breaks kept and every other character
// made safe as Line does: for a message of several lines whose line
// structure is referee's own (an error listing problems), printed as is.
func Text(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Line(l)
	}
	return strings.Join(lines, "\n")
}

// Escaped reports whether Line shows r escaped.
func Escaped(r rune) bool {
	switch {
	case r == ' ':
		return false
	case r < 0x20, r == 0x7f, 0x80 <= r && r < 0xa0: // C0, DEL, C1 (ESC and CSI among them)
		return true
	case !unicode.IsPrint(r):
		// Format characters (bidi embeddings, overrides and isolates, zero
		// widths, the byte order mark), line and paragraph separators,
		// spaces other than U+0020, private use, surrogates, unassigned.
		return true
	}
	// Letters that print as nothing (the Hangul fillers, U+034F).
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// appendSafe appends b to out with every character Escaped says so shown
// as ‹U+XXXX› and every byte of invalid UTF-8 as ‹XX›.
func appendSafe(out, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if 0x20 <= c && c <= 0x7e {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = fmt.Appendf(out, "‹%02X›", c)
			n = 1
		case Escaped(r):
			out = fmt.Appendf(out, "‹U+%04X›", r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// NewWriter returns a writer that copies text to w a line at a time, each
// line begun with prefix and made safe as Line does ("\r\n" ends a line as
// "\n" does). Lines may arrive in several writes; a character split
// between writes is joined first. Writes are serialised, so several
// goroutines may share it. Writers that share w with others come from one
// Shared instead.
func NewWriter(w io.Writer, prefix string) io.Writer { return NewShared(w).Writer(prefix) }

// Shared is one output (referee's stderr) that several writers share, each
// with its own prefix (an implementation's name), kept line-atomic: a line
// one writer has begun and not ended is cut (ended with "…" and a line
// break) before another writer's text goes out, and its rest begins a line
// of its own, with its prefix and "…". Every line on the output, cut or
// not, begins with the prefix of the writer whose text it holds, however
// the writers' text arrives (a long line comes in chunks).
type Shared struct {
	mu   sync.Mutex
	w    io.Writer
	open *writer // the writer whose line is begun and not ended, or nil
}

// NewShared returns an output shared line by line over w.
func NewShared(w io.Writer) *Shared { return &Shared{w: w} }

// Writer returns a writer that copies text to the shared output as
// NewWriter's does, each line begun with prefix. Writes through all the
// writers of one Shared are serialised.
func (s *Shared) Writer(prefix string) io.Writer {
	return &writer{shared: s, prefix: prefix, atStart: true}
}

type writer struct {
	shared  *Shared // its mutex guards the fields below too
	prefix  string
	atStart bool
	cut     bool   // the line was cut by another writer's: its rest says so
	held    []byte // an incomplete character, or a CR that may begin "\r\n"
}

// maxHeld bounds what a writer holds back between writes.
const maxHeld = utf8.UTFMax

// cutMark ends a cut line and begins its rest.
const cutMark = "…"

func (x *writer) Write(b []byte) (int, error) {
	s := x.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	data := b
	if len(x.held) > 0 {
		data = append(x.held, b...)
		x.held = nil
	}
	var out []byte
	for len(data) > 0 {
		line, rest, broken := bytes.Cut(data, []byte{'\n'})
		data = rest
		if broken {
			line = bytes.TrimSuffix(line, []byte{'\r'})
		} else {
			keep := heldTail(line)
			x.held = append([]byte(nil), line[len(line)-keep:]...)
			line = line[:len(line)-keep]
			if len(line) == 0 {
				break
			}
		}
		if x.atStart {
			out = append(out, x.prefix...)
			if x.cut {
				out = append(out, cutMark...)
				x.cut = false
			}
		}
		out = appendSafe(out, line)
		x.atStart = broken
		if broken {
			out = append(out, '\n')
		}
	}
	if len(out) == 0 {
		return len(b), nil
	}
	if o := s.open; o != nil && o != x {
		// Another writer's line is open: it is cut before this writer's
		// text goes out, and its rest will begin a line of its own.
		out = append([]byte(cutMark+"\n"), out...)
		o.atStart, o.cut = true, true
	}
	if x.atStart {
		s.open = nil
	} else {
		s.open = x
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// heldTail is how many bytes at the end of line, which has no line break,
// must wait for the next write: a CR, or the start of a character.
func heldTail(line []byte) int {
	n := len(line)
	if n == 0 {
		return 0
	}
	if line[n-1] == '\r' {
		return 1
	}
	for k := 1; k < maxHeld && k <= n; k++ {
		c := line[n-k]
		if c < 0x80 {
			return 0 // ASCII: nothing pending
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(line[n-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}
