package compactjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/refereehq/referee/jsongen"
)

// noSpace reports whether b has no whitespace outside its strings.
func noSpace(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// want is what Is and Append stand for: whether b is JSON in UTF-8, with
// no whitespace outside its strings; and json.Compact's text of it.
func want(b []byte) (is bool, compact []byte, ok bool) {
	if !json.Valid(b) || !utf8.Valid(b) {
		return false, nil, false
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return false, nil, false
	}
	return noSpace(b), c.Bytes(), true
}

func check(t *testing.T, b []byte) bool {
	t.Helper()
	is, compact, ok := want(b)
	if got := Is(b); got != is {
		t.Fatalf("Is(%.300q) = %v, want %v", b, got, is)
	}
	got, gotOK := Append([]byte("x"), b)
	if gotOK != ok || ok && !bytes.Equal(got, append([]byte("x"), compact...)) || !ok && string(got) != "x" {
		t.Fatalf("Append(%.300q) = %.300q, %v; want %.300q, %v", b, got, gotOK, compact, ok)
	}
	return ok
}

func FuzzCompact(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,-0.5e+3,true,false,null,"\u00e9\n"]}`, `{"a" :1}`, ` [ 1 , 2 ] `, `1 2`, `[1,]`, `01`, `"\ud800"`, "\"\xff\"", `[[[]]]`, `{"a":1}x`, `1.`, `-`, `"\x"`, "tr ue"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}

// TestCompact: Is and Append say of generated documents, compact or
// spaced, mutated byte by byte, and nested around json.Valid's limit, what
// json.Valid, utf8.Valid and json.Compact say.
func TestCompact(t *testing.T) {
	j := jsongen.JSON{Duplicates: true, Scalars: true, Space: true}
	const tokens = "{}[],:\"\\ -.e0\n"
	valid := 0
	for i := range 4000 {
		r := rand.New(rand.NewPCG(7, uint64(i)))
		doc := j.Value(r)
		if check(t, doc) {
			valid++
		}
		for range 4 {
			m := bytes.Clone(doc)
			if len(m) == 0 {
				break
			}
			switch k := r.IntN(len(m)); r.IntN(4) {
			case 0:
				m[k] = byte(r.IntN(256))
			case 1:
				m = append(m[:k], m[k+1:]...)
			case 2:
				m = m[:k]
			default:
				m = append(m[:k], append([]byte{tokens[r.IntN(len(tokens))]}, m[k:]...)...)
			}
			check(t, m)
		}
	}
	if valid < 1000 {
		t.Fatalf("only %d valid documents", valid)
	}
	for _, n := range []int{9999, 10000, 10001} {
		check(t, []byte(strings.Repeat("[", n)+strings.Repeat("]", n)))
		check(t, []byte(strings.Repeat(`{"a": `, n)+"1"+strings.Repeat("}", n)))
	}
}
