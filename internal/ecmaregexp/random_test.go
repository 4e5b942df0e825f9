package ecmaregexp

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// randomAtoms are what randomPattern builds patterns of: each kind of
// atom, escape and class, an astral character, U+2028, a property, a
// numbered and a named backreference.
var randomAtoms = []string{
	"a", "b", "c", "x", "-", "é", "😀", ".", "^", "$", `\b`, `\B`,
	"[ab]", "[^a]", "[a-c]", "[é😀]", "[^😀]", `[\s\d]`, `[^\w-]`, `[\b]`, "[]", "[^]",
	`\d`, `\D`, `\w`, `\W`, `\s`, `\S`, `\n`, `\u2028`, `\x61`, `\u0062`, `\cJ`, `\0`, `\-`, "]", "}",
	`\p{L}`, `\P{Ll}`, `[\p{Lu}1]`, `\1`, `\2`, `\k<n0>`,
}

var randomQuantifiers = []string{"*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "+?", "??", "{1,3}?", "{0}", "{3,}?"}

// randomPattern builds a pattern of up to four terms, each an atom or a
// group (capturing, named, non-capturing with an alternation, or a
// lookaround) and maybe a quantifier.
func randomPattern(rng *rand.Rand, depth int, names *int) string {
	var b strings.Builder
	for range 1 + rng.IntN(4) {
		switch k := rng.IntN(12); {
		case k < 6 || depth > 3:
			b.WriteString(randomAtoms[rng.IntN(len(randomAtoms))])
		case k == 6:
			b.WriteString("(" + randomPattern(rng, depth+1, names) + ")")
		case k == 7:
			b.WriteString("(?:" + randomPattern(rng, depth+1, names) + "|" + randomPattern(rng, depth+1, names) + ")")
		case k == 8:
			b.WriteString([]string{"(?=", "(?!", "(?<=", "(?<!"}[rng.IntN(4)] + randomPattern(rng, depth+1, names) + ")")
		case k == 9 && *names < 2:
			b.WriteString("(?<n" + string(rune('0'+*names)) + ">" + randomPattern(rng, depth+1, names) + ")")
			*names++
		default:
			b.WriteString("(" + randomPattern(rng, depth+1, names) + "|" + randomPattern(rng, depth+1, names) + ")")
		}
		if rng.IntN(3) == 0 {
			b.WriteString(randomQuantifiers[rng.IntN(len(randomQuantifiers))])
		}
	}
	return b.String()
}

// randomCases returns n compiling patterns, each with three short strings
// of characters the patterns treat differently.
func randomCases(seed uint64, n int) [][2]string {
	rng := rand.New(rand.NewPCG(seed, 1))
	chars := []string{"a", "b", "c", "x", "A", "1", "-", " ", "\n", "\u2028", "é", "😀"}
	var out [][2]string
	for len(out) < 3*n {
		names := 0
		p := randomPattern(rng, 0, &names)
		if _, err := Compile(p); err != nil {
			continue
		}
		for range 3 {
			var b strings.Builder
			for range rng.IntN(8) {
				b.WriteString(chars[rng.IntN(len(chars))])
			}
			out = append(out, [2]string{p, b.String()})
		}
	}
	return out
}

// TestRandomPatternsMatchRegexp2 compares the verdicts of the two engines
// on random patterns both compile, but for regexp2Difference and regexp2's
// panics (TestSemantics has one).
func TestRandomPatternsMatchRegexp2(t *testing.T) {
	compared := 0
	for _, c := range randomCases(1, 2000) {
		re2, err := compile2(c[0])
		if err != nil || regexp2Difference(c[0]) != "" {
			continue
		}
		re, _ := Compile(c[0])
		mine, _, err := re.match(codePoints(c[1]), fuzzLimit)
		if err != nil {
			continue
		}
		theirs, err := match2(re2, c[1])
		if err != nil {
			continue
		}
		compared++
		if mine != theirs {
			t.Errorf("%q on %q: %v here, %v with regexp2", c[0], c[1], mine, theirs)
		}
	}
	t.Logf("%d comparisons", compared)
}

// TestRandomPatternsMatchNode compares the verdicts with Node's, as
// TestTablesMatchNode does, on random patterns: with the u flag where Node
// compiles the pattern with it; else without, on strings without astral
// characters, for patterns without \p (which means a property only with the
// u flag). Strings with an astral character are left out altogether: V8
// tries a match in the middle of a surrogate pair even with the u flag
// (/\B/u.exec("1😀a").index is 2), which ECMA-262's RegExpBuiltinExec,
// stepping by code point, never does.
func TestRandomPatternsMatchNode(t *testing.T) {
	var cases [][2]string
	for _, c := range randomCases(2, 3000) {
		if !hasAstral(c[1]) {
			cases = append(cases, c)
		}
	}
	verdicts := nodeVerdicts(t, cases)
	compared := 0
	for i, c := range cases {
		want := verdicts[i][0]
		if want < 0 {
			if strings.Contains(c[0], `\p`) || strings.Contains(c[0], `\P`) {
				continue
			}
			want = verdicts[i][1]
		}
		re, _ := Compile(c[0])
		ok, _, err := re.match(codePoints(c[1]), fuzzLimit)
		if err != nil {
			continue
		}
		compared++
		if mine := verdict(ok); mine != want {
			t.Errorf("%q on %q: %d here, %d in Node", c[0], c[1], mine, want)
		}
	}
	t.Logf("%d comparisons", compared)
}
