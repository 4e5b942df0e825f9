package jsonstring

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
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
