package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
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

// TestStrings: strings draw on every class of character JSON writers
// treat apart, raw and escaped.
func TestStrings(t *testing.T) {
	seen := map[rune]bool{}
	for i := range 5000 {
		r := rand.New(rand.NewPCG(3, uint64(i)))
		lex := String(r)
		if _, ok := ParseTree([]byte(lex)); !ok {
			t.Fatalf("%q is not a JSON string", lex)
		}
		for _, c := range stringClass(lex) {
			seen[c] = true
		}
		if n := StringNoSurrogates(r); strings.ContainsRune(stringClass(n), 'z') {
			t.Fatalf("StringNoSurrogates gave a lone surrogate: %s", n)
		}
	}
	for _, c := range "apqcxlbwszLBWS" {
		if !seen[c] {
			t.Errorf("no string holds class %c", c)
		}
	}
	keys := map[string]bool{}
	for i := range 2000 {
		keys[Key(rand.New(rand.NewPCG(4, uint64(i))))] = true
	}
	for _, k := range []string{`"__proto__"`, `"constructor"`, `"__class__"`, `"$ref"`, `"4294967295"`, `"\ue000"`, `"😀"`, `""`} {
		if !keys[k] {
			t.Errorf("no member name %s", k)
		}
	}
}

// TestMutate: text stays UTF-8; structural edits break JSON; bytes may
// stop being UTF-8.
func TestMutate(t *testing.T) {
	in := []byte(`{"a":[1,true,"x\u00e9"],"b":{"c":null}}`)
	var broken, changedBytes, notUTF8 int
	for i := range 2000 {
		r := rand.New(rand.NewPCG(5, uint64(i)))
		out := Mutate(r, in, true)
		if !utf8.Valid(out) {
			t.Fatalf("text mutation %d is not UTF-8: %q", i, out)
		}
		if s, ok := MutateJSON(r, in); ok {
			if _, err := canon.Parse(s, canon.ReadOptions{Duplicates: canon.LastWins}); err != nil {
				broken++
			}
		}
		b := Mutate(r, in, false)
		if !bytes.Equal(b, in) {
			changedBytes++
		}
		if !utf8.Valid(b) {
			notUTF8++
		}
	}
	if broken < 1500 || changedBytes < 1800 || notUTF8 == 0 {
		t.Errorf("structural edits broke %d of 2000, byte edits changed %d, made %d not UTF-8", broken, changedBytes, notUTF8)
	}
	if _, ok := MutateJSON(rand.New(rand.NewPCG(1, 1)), []byte("[1,")); ok {
		t.Errorf("MutateJSON of text that is not JSON")
	}
}

// TestMinimize shrinks inputs against predicates whose minimal inputs are
// known.
func TestMinimize(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		kind check.FuzzInput
		keep func(string) bool
		want string
	}{
		{
			"a number deep in a tree",
			`{"a":[1,2,{"b":[true,1e21,"x"]}],"c":"long string here","d":{"e":[[[[1e21]]]]}}`,
			check.FuzzValue,
			func(s string) bool { _, ok := ParseTree([]byte(s)); return ok && strings.Contains(s, "1e21") },
			`1e21`,
		},
		{
			"a name that must stay",
			`{"z":1,"__proto__":{"x":[1,2,3]},"y":[{"q":"r"}]}`,
			check.FuzzValue,
			func(s string) bool {
				n, ok := ParseTree([]byte(s))
				return ok && n.Kind == canon.Object && strings.Contains(s, `"__proto__"`)
			},
			`{"__proto__":0}`,
		},
		{
			"a character in text that is not JSON",
			`[1, 2, "abc\u2028def", 4, 5 ,`,
			check.FuzzText,
			func(s string) bool { return strings.Contains(s, "\\u2028") },
			`\u2028`,
		},
		{
			"a byte order mark before JSON",
			"\ufeff[1,2,3]",
			check.FuzzBytes,
			func(s string) bool { return strings.HasPrefix(s, "\ufeff") && strings.Contains(s, "3") },
			"\ufeff3",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			try := func(cands [][]byte) []bool {
				ok := make([]bool, len(cands))
				for i, c := range cands {
					tries++
					ok[i] = keep(tc.keep, c)
				}
				return ok
			}
			got := minimize(context.Background(), []byte(tc.in), tc.kind, 2000, try)
			if string(got) != tc.want {
				t.Errorf("minimize = %q after %d tries, want %q", got, tries, tc.want)
			}
		})
	}
}

func keep(f func(string) bool, b []byte) bool { return f(string(b)) }

// TestMinimizeBudget: minimize stops at its budget and keeps the last
// accepted input.
func TestMinimizeBudget(t *testing.T) {
	in := []byte(`[` + strings.Repeat(`"aaaa",`, 200) + `1]`)
	tries := 0
	got := minimize(context.Background(), in, check.FuzzValue, 40, func(c [][]byte) []bool {
		tries += len(c)
		return make([]bool, len(c))
	})
	if !bytes.Equal(got, in) || tries > 40+shrinkBatch {
		t.Errorf("%d tries with a budget of 40; got %d bytes", tries, len(got))
	}
}

func TestSignatures(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"canonical text differs at byte 12", "canonical text differs at byte N"},
		{"rejected a valid input: parse_error: at 7", "rejected a valid input"},
		{"decodeMessage rejected with invalid_message, want parse_error", "decodeMessage rejected with invalid_message, want parse_error"},
	} {
		if got := reasonClass(tc.in); got != tc.want {
			t.Errorf("reasonClass(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	text := []byte(`{"a":[1.5,"x",true],"b":null}`)
	for _, tc := range []struct {
		off  int
		want string
	}{{0, "structure"}, {1, "name"}, {6, "number"}, {11, "string"}, {15, "literal"}, {26, "literal"}, {30, "end"}} {
		if got := tokenAt(text, tc.off); got != tc.want {
			t.Errorf("tokenAt(%d) = %s, want %s", tc.off, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`[1,-2.5,3e4,12345678901234567890]`, `[n:i,n:-f,n:e,n:i#]`},
		{`{"a":"<\u00e9é😀\ud800\ud83d\ude00\n\"\/"}`, `{s:a:s:LSclpqsxz}`},
		{`[1,`, `text:"[1,"`},
		{strings.Repeat("x", 30), "text:30B"},
	} {
		if got := Skeleton([]byte(tc.in)); got != tc.want {
			t.Errorf("Skeleton(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
