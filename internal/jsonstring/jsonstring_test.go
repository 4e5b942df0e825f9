package jsonstring

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppend: a string appended is what encoding/json writes for it
// without HTML escaping, for every class of character, and for random
// bytes valid UTF-8 or not.
func TestAppend(t *testing.T) {
	cases := []string{"", "plain", `"quoted" and \back\`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<>&'/", "é中𝄞", "\u2028\u2029\u2027\u202a",
		"\xff", "a\xc3", "\xed\xa0\x80", "\xef\xbb\xbf", "\xf4\x90\x80\x80", "\ufffd"}
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "\"", "\\", "\x00", "\n", "\x1f", " ", "é", "\u2028", "\u2029", "𝄞", "\xff", "\xe2\x80", "\xed\xb0\x80"}
	for range 2000 {
		var b []byte
		for range r.IntN(20) {
			if r.IntN(3) == 0 {
				b = append(b, byte(r.IntN(256)))
			} else {
				b = append(b, pieces[r.IntN(len(pieces))]...)
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := Append([]byte("x"), s); !bytes.Equal(got, append([]byte("x"), bytes.TrimSuffix(want.Bytes(), []byte("\n"))...)) {
			t.Errorf("%q: got %s, encoding/json %s", s, got[1:], want.Bytes())
		}
	}
}

// TestRuneLenAsUTF8: runeLen takes what utf8.DecodeRuneInString takes, for
// every lead and second byte, with continuation bytes and others after.
func TestRuneLenAsUTF8(t *testing.T) {
	tails := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff}
	for a := 0x80; a < 0x100; a++ {
		for b := 0; b < 0x100; b++ {
			for _, c := range tails {
				for _, d := range tails {
					for _, s := range []string{string([]byte{byte(a), byte(b), c, d}), string([]byte{byte(a), byte(b), c}), string([]byte{byte(a), byte(b)})} {
						r, n := utf8.DecodeRuneInString(s)
						if r == utf8.RuneError && n == 1 {
							n = 0
						}
						if got := runeLen(s, 0); got != n {
							t.Fatalf("runeLen(% x) = %d, want %d", s, got, n)
						}
					}
				}
			}
		}
	}
}

// FuzzAppend: Append writes what encoding/json writes without HTML escaping.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c\n\x01", "\u2028\u2029\ufffd€😀", "\xff\xe2\x80", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := Append(nil, s), bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}

// BenchmarkAppend appends a 64 KB string of one kind of character: ASCII
// (taken eight bytes at a time), characters beyond ASCII, and U+2028
// (each escaped).
func BenchmarkAppend(b *testing.B) {
	for _, tc := range []struct{ name, unit string }{{"ascii", "abcdefgh"}, {"euro", "€"}, {"u2028", "\u2028"}} {
		s := strings.Repeat(tc.unit, 64<<10/len(tc.unit))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			var buf []byte
			for b.Loop() {
				buf = Append(buf[:0], s)
			}
		})
	}
}

// TestTables holds the tables, laid out by hand as data, to the rules they
// stand for, and AppendEscape to encoding/json for every ASCII byte that
// is not plain.
func TestTables(t *testing.T) {
	for c := range 256 {
		want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		if Plain(byte(c)) != want {
			t.Errorf("Plain(%#02x) = %v, want %v", c, Plain(byte(c)), want)
		}
	}
	short := map[byte]byte{'"': '"', '\\': '\\', '\b': 'b', '\t': 't', '\n': 'n', '\f': 'f', '\r': 'r'}
	for c := range 128 {
		want := short[byte(c)]
		if want == 0 && c < 0x20 {
			want = 'u'
		}
		if shortEscape[c] != want {
			t.Errorf("shortEscape[%#02x] = %q, want %q", c, shortEscape[c], want)
		}
		if Plain(byte(c)) {
			continue
		}
		quoted, err := json.Marshal(string(rune(c)))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(AppendEscape(nil, byte(c))), string(quoted[1:len(quoted)-1]); got != want {
			t.Errorf("AppendEscape(%#02x) = %s, want %s", c, got, want)
		}
	}
}

// TestPlainEnd: PlainEnd stops where a byte at a time stops, whatever byte
// that is not plain comes at whatever offset of an eight-byte word.
func TestPlainEnd(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			for start := range 3 {
				b := []byte(strings.Repeat("abcdefgh", 4))
				b[start+at] = byte(c)
				s := string(b)
				want := start
				for want < len(s) && s[want] >= 0x20 && s[want] < 0x80 && s[want] != '"' && s[want] != '\\' {
					want++
				}
				if got := PlainEnd(s, start); got != want {
					t.Fatalf("byte %#02x at %d from %d: %d, want %d", c, at, start, got, want)
				}
			}
		}
	}
}
