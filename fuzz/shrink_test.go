package fuzz

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/jsongen"
)

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
			func(s string) bool { _, ok := jsongen.ParseTree([]byte(s)); return ok && strings.Contains(s, "1e21") },
			`1e21`,
		},
		{
			"a name that must stay",
			`{"z":1,"__proto__":{"x":[1,2,3]},"y":[{"q":"r"}]}`,
			check.FuzzValue,
			func(s string) bool {
				n, ok := jsongen.ParseTree([]byte(s))
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
		// A bracketed class is kept whole, digits and ": " too; what follows
		// it is cut as ever.
		{"checkFrame names other rules [misses F4 (date); adds B3]: the adapter said 12", "checkFrame names other rules [misses F4 (date); adds B3]"},
		{"the verdict differs [MalformedKey as BadSignature: key y ≥ p] at byte 3: x", "the verdict differs [MalformedKey as BadSignature: key y ≥ p] at byte N"},
		{"violations[3] is not an object: x", "violations[N] is not an object"},
		{"an open class [F4 at byte 9", "an open class [FN at byte N"},
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

// TestSameFailureAtMust: a shrunk candidate fails as its input did when it
// fails with the same key, or the same bug at level must; never weaker. A
// jcs vector is a may when its input has a number beyond 2^53, so a
// key-order bug first met in {"toJSON":0,"":1e16} must shrink to
// {"toJSON":0,"":0}, a must.
func TestSameFailureAtMust(t *testing.T) {
	res := func(level check.Level, reason string) check.Result {
		return check.Result{ID: "jcs/fuzz/fuzz-000000000001", Level: level, Status: check.Fail, Reason: reason, Expected: `{"":0}`, Actual: `{"b":0}`}
	}
	judge := func(r check.Result) verdict { return verdictOf("canonical", "fuzz-000000000001", &r) }
	order, escape := "canonical text differs at byte 2", "accepted an input that RFC 8785 requires to be rejected"
	for _, tc := range []struct {
		name      string
		found     check.Result
		candidate []check.Result
		want      int // index of the verdict taken; -1 none
	}{
		{"same key", res(check.May, order), []check.Result{res(check.May, order)}, 0},
		{"may to must", res(check.May, order), []check.Result{res(check.May, escape), res(check.Must, order)}, 1},
		{"must preferred", res(check.May, order), []check.Result{res(check.May, order), res(check.Must, order)}, 1},
		{"should to must", res(check.Should, order), []check.Result{res(check.Must, order)}, 0},
		{"must to may", res(check.Must, order), []check.Result{res(check.May, order)}, -1},
		{"may to should", res(check.May, order), []check.Result{res(check.Should, order)}, -1},
		{"another bug at must", res(check.May, order), []check.Result{res(check.Must, escape)}, -1},
		{"passed", res(check.May, order), []check.Result{{ID: "jcs/fuzz/fuzz-000000000001", Level: check.Must, Status: check.Pass}}, -1},
	} {
		v := judge(tc.found)
		var vs []verdict
		for _, c := range tc.candidate {
			vs = append(vs, judge(c))
		}
		got := sameFailure(vs, &v)
		want := (*verdict)(nil)
		if tc.want >= 0 {
			want = &vs[tc.want]
		}
		if got != want {
			t.Errorf("%s: took %v, want %v", tc.name, got, want)
		}
	}
}
