package termsafe

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"", ""},
		{"naïve 😂 דּ", "naïve 😂 דּ"},
		{"a\nPASS  jcs/fake/check", "a‹U+000A›PASS  jcs/fake/check"},
		{"x\rCONFORMANT", "x‹U+000D›CONFORMANT"},
		{"\x1b[2K\x1b[1Agreen", "‹U+001B›[2K‹U+001B›[1Agreen"},
		{"tab\there", "tab‹U+0009›here"},
		{"del\x7f", "del‹U+007F›"},
		{"c1 \u009b31m", "c1 ‹U+009B›31m"},
		{"bidi \u202eevil\u202c", "bidi ‹U+202E›evil‹U+202C›"},
		{"isolate \u2066x\u2069", "isolate ‹U+2066›x‹U+2069›"},
		{"zero\u200bwidth\ufeff", "zero‹U+200B›width‹U+FEFF›"},
		{"line\u2028sep\u2029", "line‹U+2028›sep‹U+2029›"},
		{"filler\u3164\u115f", "filler‹U+3164›‹U+115F›"},
		{"nbsp\u00a0", "nbsp‹U+00A0›"},
		{"bad \xed\xa0\x80 \xff", "bad ‹ED›‹A0›‹80› ‹FF›"},
		{"nul\x00", "nul‹U+0000›"},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"one", []string{"one"}},
		{"one\ntwo\n", []string{"one", "two"}},
		{"crlf\r\nends\r\n", []string{"crlf", "ends"}},
		{"a\rb\nc", []string{"a‹U+000D›b", "c"}},
		{"evil\n\x1b[1APASS x", []string{"evil", "‹U+001B›[1APASS x"}},
		{"\n", []string{""}},
	} {
		got := Lines(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	got := Text("corpus d: 2 problems\n  a\x1b[2J: bad\n  b\r: worse")
	want := "corpus d: 2 problems\n  a‹U+001B›[2J: bad\n  b‹U+000D›: worse"
	if got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

// TestWriter: every line written through the writer starts with its
// prefix, however the bytes are split between writes.
func TestWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"lines", []string{"one\ntwo\n"}, "adapter: one\nadapter: two\n"},
		{"split line", []string{"on", "e\ntw", "o\n"}, "adapter: one\nadapter: two\n"},
		{"no final newline", []string{"last"}, "adapter: last"},
		{"crlf", []string{"one\r\ntwo\r\n"}, "adapter: one\nadapter: two\n"},
		{"crlf split", []string{"one\r", "\ntwo\r", "\n"}, "adapter: one\nadapter: two\n"},
		{"cr alone", []string{"50%\r", "100%\n"}, "adapter: 50%‹U+000D›100%\n"},
		{"forged line", []string{"ok\rPASS  jcs/x\n\x1b[1A\x1b[2KCONFORMANT\n"}, "adapter: ok‹U+000D›PASS  jcs/x\nadapter: ‹U+001B›[1A‹U+001B›[2KCONFORMANT\n"},
		{"rune split", []string{"\xf0\x9f", "\x98\x82\n"}, "adapter: 😂\n"},
		{"rune split thrice", []string{"\xf0", "\x9f", "\x98", "\x82\n"}, "adapter: 😂\n"},
		{"invalid byte", []string{"\xff\n"}, "adapter: ‹FF›\n"},
		{"bidi", []string{"\u202eevil\n"}, "adapter: ‹U+202E›evil\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b, "adapter: ")
			for _, s := range tc.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestWriterError(t *testing.T) {
	if _, err := NewWriter(failing{}, "p: ").Write([]byte("x\n")); err == nil {
		t.Error("a failed write reported no error")
	}
}

// safe reports why out is not safe to print, or "".
func safe(out string) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8"
	}
	for _, r := range out {
		if r != '\n' && Escaped(r) {
			return "unescaped " + string(r)
		}
	}
	return ""
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"plain", "a\nPASS b", "\x1b[2K", "\u202e", "\xff\xfe", "😂\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Line(s)
		if why := safe(out); why != "" || strings.Contains(out, "\n") {
			t.Fatalf("Line(%q) = %q: %s", s, out, why)
		}
		printable := utf8.ValidString(s)
		for _, r := range s {
			printable = printable && !Escaped(r)
		}
		if printable && out != s {
			t.Fatalf("Line(%q) = %q: changed a printable line", s, out)
		}
	})
}

// FuzzWriter: the writer's output is safe, has its prefix after every line
// break, and does not depend on how the input is split into writes.
func FuzzWriter(f *testing.F) {
	f.Add("one\r\ntwo\n\xf0\x9f\x98\x82\x1b[1A", uint8(3))
	f.Fuzz(func(t *testing.T, s string, cut uint8) {
		var whole, parts bytes.Buffer
		NewWriter(&whole, "p: ").Write([]byte(s))
		w := NewWriter(&parts, "p: ")
		step := int(cut%7) + 1
		for i := 0; i < len(s); i += step {
			w.Write([]byte(s[i:min(i+step, len(s))]))
		}
		out := whole.String()
		if why := safe(out); why != "" {
			t.Fatalf("%q: %q: %s", s, out, why)
		}
		if len(out) > 0 && !strings.HasPrefix(out, "p: ") {
			t.Fatalf("%q: %q: no prefix", s, out)
		}
		for i, l := range strings.Split(out, "\n") {
			if i > 0 && l != "" && !strings.HasPrefix(l, "p: ") {
				t.Fatalf("%q: line %d %q has no prefix", s, i, l)
			}
		}
		// A trailing incomplete character or CR is held back in both.
		if parts.String() != out {
			t.Fatalf("%q split every %d: %q, whole %q", s, step, parts.String(), out)
		}
	})
}
