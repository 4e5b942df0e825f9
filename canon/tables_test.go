package canon

import (
	"strings"
	"testing"
)

// TestTables holds the escape tables, laid out by hand as data, to the
// rules they stand for.
func TestTables(t *testing.T) {
	for c := range 256 {
		want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		if plain[c] != want {
			t.Errorf("plain[%#02x] = %v, want %v", c, plain[c], want)
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
	}
}

// TestPlainEnd: plainEnd stops where a byte at a time stops, whatever
// non-plain byte comes at whatever offset of an eight-byte word.
func TestPlainEnd(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			for start := range 3 {
				b := []byte(strings.Repeat("abcdefgh", 4))
				b[start+at] = byte(c)
				s := string(b)
				want := start
				for want < len(s) && plain[s[want]] {
					want++
				}
				if got := plainEnd(s, start); got != want {
					t.Fatalf("byte %#02x at %d from %d: %d, want %d", c, at, start, got, want)
				}
			}
		}
	}
}
