package canon

import "testing"

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
