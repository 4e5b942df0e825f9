package jsongen

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
)

func TestParseTree(t *testing.T) {
	for _, tc := range []struct {
		in, out string // out "" means not JSON
	}{
		{`1`, `1`},
		{` [1, 2.50 ,"a\u00E9\n"] `, `[1,2.50,"a\u00E9\n"]`},
		{"{\"a\":1,\"a\":2}", `{"a":1,"a":2}`},
		{"{\n\t\"\\ud800\" : [ ] }", `{"\ud800":[]}`},
		{`-0e+5`, `-0e+5`},
		{`true`, `true`},
		{`[null,false,{}]`, `[null,false,{}]`},
		{``, ``},
		{`[1,]`, ``},
		{`01`, ``},
		{`1.`, ``},
		{`"a`, ``},
		{`"\x"`, ``},
		{`"\u12"`, ``},
		{"\"\x01\"", ``},
		{`{"a"}`, ``},
		{`[1] 2`, ``},
		{`nul`, ``},
		{`NaN`, ``},
		{"\ufeff1", ``},
	} {
		n, ok := ParseTree([]byte(tc.in))
		switch {
		case tc.out == "" && ok:
			t.Errorf("ParseTree(%q) = %s, want not JSON", tc.in, n.Encode())
		case tc.out != "" && !ok:
			t.Errorf("ParseTree(%q): not JSON", tc.in)
		case ok && string(n.Encode()) != tc.out:
			t.Errorf("ParseTree(%q).Encode() = %s, want %s", tc.in, n.Encode(), tc.out)
		}
	}
}

// FuzzParseTree holds the fuzzer's own JSON reader to canon's strict one
// (with duplicate names allowed) on UTF-8 text: they accept the same
// texts, and the tree's text is the input without its whitespace, as
// encoding/json compacts it.
func FuzzParseTree(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.0,-0e1,"x\u00e9"]}`, `[]`, `"\ud800"`, `{"a":1,"a":2}`, ` 1 `, `[1,]`, `{"a" : true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ok := ParseTree(data)
		if !utf8.Valid(data) {
			return
		}
		_, err := canon.Parse(data, canon.ReadOptions{Duplicates: canon.LastWins})
		if ok != (err == nil) {
			t.Fatalf("%q: ParseTree says %v, canon.Parse %v", data, ok, err)
		}
		if !ok {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatalf("%q: encoding/json refuses what both readers accept: %v", data, err)
		}
		if got := n.Encode(); !bytes.Equal(got, compact.Bytes()) {
			t.Fatalf("%q: Encode = %s, compact = %s", data, got, compact.Bytes())
		}
	})
}

func TestLexeme(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", `"a"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\n\t\x01\x1f", `"\n\t\u0001\u001f"`},
		{"é<>&\u2028", "\"é<>&\u2028\""},
		{"\xed\xa0\x80x", `"\ud800x"`},
	} {
		if got := Lexeme(tc.in); got != tc.want {
			t.Errorf("Lexeme(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestGeneratedJSON: what the generators make is JSON, and it reaches
// every corner they promise.
func TestGeneratedJSON(t *testing.T) {
	j := JSON{Duplicates: true, Space: true, Scalars: true}
	depths := map[int]bool{}
	var wide, long, dupes, spaced bool
	for i := range 3000 {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		text := j.Value(r)
		n, ok := ParseTree(text)
		if !ok {
			t.Fatalf("input %d is not JSON: %q", i, text)
		}
		if _, err := canon.Parse(text, canon.ReadOptions{Duplicates: canon.LastWins}); err != nil {
			t.Fatalf("input %d: canon refuses it: %v", i, err)
		}
		depths[n.Depth()] = true
		wide = wide || len(n.Elems) >= 100 || len(n.Keys) >= 100
		long = long || len(text) > 4096
		dupes = dupes || hasDuplicate(n)
		spaced = spaced || !bytes.Equal(text, n.Encode())
	}
	for _, d := range []int{0, 1, 2, 32, 33, 63, 64, 65, 1000} {
		if !depths[d] {
			t.Errorf("no document nests %d deep", d)
		}
	}
	if !wide || !long || !dupes || !spaced {
		t.Errorf("wide %v, longer than 4 KiB %v, duplicate names %v, whitespace %v: want all", wide, long, dupes, spaced)
	}
}

func hasDuplicate(n *Node) bool {
	seen := map[string]bool{}
	for i, k := range n.Keys {
		if seen[k] || hasDuplicate(n.Vals[i]) {
			return true
		}
		seen[k] = true
	}
	for _, e := range n.Elems {
		if hasDuplicate(e) {
			return true
		}
	}
	return false
}

// TestNumbers: the numbers cross every switch point of ECMAScript's
// Number::toString and IEEE 754's edges.
func TestNumbers(t *testing.T) {
	want := map[string]bool{
		"exponent form, large":            false, // 1e21 and beyond
		"plain, just below 1e21":          false,
		"exponent form, small":            false, // below 1e-6
		"plain, just above 1e-7":          false,
		"subnormal":                       false,
		"beyond double range":             false,
		"negative zero":                   false,
		"unsafe integer":                  false, // beyond 2^53
		"more digits than a double holds": false,
		"uppercase exponent":              false,
	}
	for i := range 20000 {
		r := rand.New(rand.NewPCG(2, uint64(i)))
		lex := Number(r)
		if _, ok := ParseTree([]byte(lex)); !ok {
			t.Fatalf("%q is not a JSON number", lex)
		}
		var f float64
		err := json.Unmarshal([]byte(lex), &f)
		es, _ := canon.FormatES6(f)
		abs := f
		if abs < 0 {
			abs = -abs
		}
		switch {
		case err != nil:
			want["beyond double range"] = true
		case abs >= 1e21:
			want["exponent form, large"] = want["exponent form, large"] || strings.Contains(es, "e+")
		case abs >= 1e20:
			want["plain, just below 1e21"] = true
		case abs > 0 && abs < 1e-6 && abs >= 2.2250738585072014e-308:
			want["exponent form, small"] = true
		case abs >= 1e-7 && abs < 1e-5:
			want["plain, just above 1e-7"] = want["plain, just above 1e-7"] || !strings.Contains(es, "e")
		case abs > 0 && abs < 2.2250738585072014e-308:
			want["subnormal"] = true
		}
		if lex == "-0" || strings.HasPrefix(lex, "-0.0") {
			want["negative zero"] = true
		}
		if !strings.ContainsAny(lex, ".eE") && len(strings.TrimLeft(lex, "-")) >= 17 {
			want["unsafe integer"] = true
		}
		if digits := strings.Count(strings.Split(strings.ToLower(lex), "e")[0], "") - 1; digits > 20 {
			want["more digits than a double holds"] = true
		}
		want["uppercase exponent"] = want["uppercase exponent"] || strings.Contains(lex, "E")
	}
	for what, seen := range want {
		if !seen {
			t.Errorf("no number is %s", what)
		}
	}
}
