package ecmaregexp

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/refereehq/referee/canon"
)

// nodeScript reads lines of [pattern, string] and prints, for each, Node's
// verdict with the u flag and without: 1 a match, 0 none, -1 the pattern
// does not compile.
const nodeScript = `
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean);
console.log(JSON.stringify(lines.map(l => {
	const [p, s] = JSON.parse(l);
	return ['u', ''].map(f => { try { return new RegExp(p, f).test(s) ? 1 : 0 } catch (e) { return -1 } });
})));
`

// Reasons the engine and Node differ on a pattern of the tables.
const (
	nDotnet        = "regexp2 read it with a .NET meaning; refused rather than read otherwise than before (Node without the u flag reads Annex B's)"
	nBraces        = `\p and \u{ start a property and a code point as with the u flag, even where the pattern needs Annex B otherwise`
	nBareScript    = `a bare script name, which regexp2 accepted (Node with the u flag wants Script=)`
	nUnsupported   = "an ECMA-262 form this engine does not support"
	nBothRefused   = "regexp2 refused it, and so does the u flag; Annex B alone allows it"
	nNotWTF8       = "two escaped surrogates make one code point in a JavaScript string; WTF-8 (what the engine matches) writes a pair as one code point, so the string here is two lone surrogates Node cannot hold"
	nLimit         = "this engine's own limit"
	nV8Clamps      = "V8 clamps a count before comparing the two; ECMA-262 (22.2.1.1) makes {n,m} with n > m an error whatever their size"
	nV8Surrogate   = "V8 tries a match in the middle of a surrogate pair even with the u flag; ECMA-262's RegExpBuiltinExec steps by code point"
	nBareBackslash = `Node's Annex B reads \c not followed by a letter as a backslash; refused, as regexp2 dropped the backslash`
)

// nodeDifferences are the patterns of the tables on which the engine
// knowingly differs from Node.
var nodeDifferences = map[string]string{
	`\a`: nDotnet, `[\a]`: nDotnet, `\e`: nDotnet, `x\A`: nDotnet, `\Z`: nDotnet, `\z`: nDotnet, `\G`: nDotnet,
	`[a-z-[aeiou]]`: nDotnet, `a\pL`: nDotnet, `\p`: nDotnet,
	`\c`: nBareBackslash, `\c1`: nBareBackslash, `[\c1]`: nBareBackslash,
	`\p{L`: nBraces, `\p{}`: nBraces, `\p{letter}`: nBraces, `\p{IsGreek}`: nBraces,
	`\u{110000}`: nBraces, `\u{}`: nBraces, `\u{zz}`: nBraces,
	`^\p{Greek}$`:                 nBareScript,
	`\p{Script_Extensions=Greek}`: nUnsupported,
	`(?<\u0061>a)`:                nUnsupported,
	`[a-\d]`:                      nBothRefused,
	`^\uD83D\uDC00$`:              nNotWTF8,
	`(?<a>x)(y)\2`:                rNumbering,
	`x{99999999999,99999999998}`:  nV8Clamps,
	`\B`:                          nV8Surrogate,
}

// TestTablesMatchNode runs the patterns of the semantics and compile-error
// tables through Node's RegExp, once, and compares:
//
//   - a pattern Node compiles with the u flag must compile here and match
//     as it does there: the u flag is what reads a string as code points,
//     as this engine does;
//   - a pattern only Node without the u flag compiles uses Annex B: it must
//     compile here and match as it does there, compared only on strings
//     without astral characters (without the u flag, Node takes one half of
//     a surrogate pair at a time), or be refused for a reason of
//     nodeDifferences;
//   - a pattern Node refuses both ways must be refused here;
//
// but for nodeDifferences, each of which must be a real difference.
func TestTablesMatchNode(t *testing.T) {
	type tcase struct{ pattern, in string }
	var cases []tcase
	for _, tt := range semantics {
		cases = append(cases, tcase{tt.pattern, tt.in})
	}
	for _, tt := range compileErrors {
		if !strings.Contains(tt.msg, "nested deeper") && !strings.Contains(tt.msg, "longer than") {
			cases = append(cases, tcase{tt.pattern, "abc"})
		}
	}
	pairs := make([][2]string, len(cases))
	for i, c := range cases {
		pairs[i] = [2]string{c.pattern, c.in}
	}
	verdicts := nodeVerdicts(t, pairs)
	differs := map[string]bool{}
	for i, c := range cases {
		u, nonU := verdicts[i][0], verdicts[i][1]
		mine := -1
		if re, err := Compile(c.pattern); err == nil {
			ok, err := re.MatchString(c.in)
			if err != nil {
				t.Fatal(err)
			}
			mine = verdict(ok)
		}
		want, with := u, "with the u flag"
		if u < 0 {
			want, with = nonU, "without the u flag"
			if nonU >= 0 && mine >= 0 && hasAstral(c.in) {
				continue
			}
		}
		if mine == want {
			continue
		}
		differs[c.pattern] = true
		if _, ok := nodeDifferences[c.pattern]; !ok {
			t.Errorf("%q on %q: %d here, %d in Node %s (1 match, 0 none, -1 refused)", c.pattern, c.in, mine, want, with)
		}
	}
	for p, why := range nodeDifferences {
		if !differs[p] {
			t.Errorf("%q is listed as a difference from Node (%s), but there is none", p, why)
		}
	}
}

// jsString writes s, a WTF-8 string, as a JSON string of UTF-16 code units,
// so that Node reads lone surrogates as such.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := canon.DecodeRune(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7F:
			b.WriteRune(r)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04X\u%04X`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hasAstral(s string) bool {
	for _, r := range s {
		if r > 0xFFFF {
			return true
		}
	}
	return false
}

// nodeVerdicts runs nodeScript over cases (pattern, string) and returns its
// verdicts, with the u flag and without; it skips the test without node.
func nodeVerdicts(t *testing.T, cases [][2]string) [][2]int {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the comparison with Node's RegExp needs it")
	}
	var stdin strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&stdin, "[%s,%s]\n", jsString(c[0]), jsString(c[1]))
	}
	cmd := exec.Command(node, "-e", nodeScript)
	cmd.Stdin = strings.NewReader(stdin.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var verdicts [][2]int
	if err := json.Unmarshal(out, &verdicts); err != nil || len(verdicts) != len(cases) {
		t.Fatalf("node's output %.200q: %v", out, err)
	}
	return verdicts
}

// verdict is a match result as nodeScript writes it: 1 a match, 0 none.
func verdict(ok bool) int {
	if ok {
		return 1
	}
	return 0
}
