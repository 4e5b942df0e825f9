package fuzz

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/refereehq/referee/jsongen"
)

// TestStrings: strings draw on every class of character JSON writers
// treat apart, raw and escaped.
func TestStrings(t *testing.T) {
	seen := map[rune]bool{}
	for i := range 5000 {
		r := rand.New(rand.NewPCG(3, uint64(i)))
		lex := jsongen.String(r)
		if _, ok := jsongen.ParseTree([]byte(lex)); !ok {
			t.Fatalf("%q is not a JSON string", lex)
		}
		for _, c := range stringClass(lex) {
			seen[c] = true
		}
		if n := jsongen.StringNoSurrogates(r); strings.ContainsRune(stringClass(n), 'z') {
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
		keys[jsongen.Key(rand.New(rand.NewPCG(4, uint64(i))))] = true
	}
	for _, k := range []string{`"__proto__"`, `"constructor"`, `"__class__"`, `"$ref"`, `"4294967295"`, `"\ue000"`, `"😀"`, `""`} {
		if !keys[k] {
			t.Errorf("no member name %s", k)
		}
	}
}
