package ecmaregexp

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"

	"github.com/refereehq/referee/canon"
)

// The engine is compared with github.com/dlclark/regexp2, the engine
// referee's draft-07 validator used before, configured as it was: the
// ECMAScript option, each "." spelt out as a class of everything but the
// line terminators (regexp2 let "." match U+2028 and U+2029), the string
// matched as code points.

// compile2 compiles p as the validator compiled it for regexp2.
func compile2(p string) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(ecmaDot(p), regexp2.ECMAScript)
	if err == nil {
		re.MatchTimeout = time.Second
	}
	return re, err
}

// match2 is regexp2's verdict on s, as code points; a panic in regexp2
// (it has some, see the semantics table) is an error.
func match2(re *regexp2.Regexp, s string) (ok bool, err error) {
	runes := codePoints(s)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("regexp2 panicked: %v", p)
		}
	}()
	return re.MatchRunes(runes)
}

// ecmaDot returns expr with each "." that stands for any character spelt
// out as ECMA-262 reads it (the validator's own workaround for regexp2).
func ecmaDot(expr string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); i++ {
		switch ch := expr[i]; {
		case ch == '\\' && i+1 < len(expr):
			b.WriteString(expr[i : i+2])
			i++
		case ch == '[' && !inClass:
			inClass = true
			b.WriteByte(ch)
		case ch == ']' && inClass:
			inClass = false
			b.WriteByte(ch)
		case ch == '.' && !inClass:
			b.WriteString(`[^\n\r\u2028\u2029]`)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

var (
	surrogatePairEscape = regexp.MustCompile(`\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}`)
	backreference       = regexp.MustCompile(`\\[1-9]|\\k<`)
	repeatedGroup       = regexp.MustCompile(`\)[*+?{]`)
	wordBoundary        = regexp.MustCompile(`\\[bB]`)
	lazyBackreference   = regexp.MustCompile(`(\\[1-9][0-9]*|\\k<[^>]*>)([*+?]|\{[0-9,]*\})\?`)
)

// regexp2Difference says why the engine and regexp2 may give different
// verdicts on a pattern both compile, or "" when they must agree. Each is
// a place where regexp2 did not read the pattern as ECMA-262 does.
func regexp2Difference(p string) string {
	switch {
	case strings.Contains(p, `\u{`):
		return `\u{...} is one code point (the u flag's reading); regexp2 read "u" repeated`
	case surrogatePairEscape.MatchString(p):
		return `an escaped surrogate pair is one code point (the u flag's reading); regexp2 read two lone surrogates`
	case canon.HasLoneSurrogate(p) || !utf8.ValidString(p):
		return "regexp2 read a lone surrogate or invalid UTF-8 in a pattern as U+FFFD"
	case backreference.MatchString(p) && repeatedGroup.MatchString(p):
		return "ECMA-262 clears the captures of a repeated group at each iteration; .NET keeps the last ones"
	case lazyBackreference.MatchString(p):
		return `regexp2 mismatched a lazily repeated backreference: (a\1+?)\1 matched "a"`
	case wordBoundary.MatchString(p):
		return `regexp2's \b and \B took non-ASCII letters and digits for word characters; ECMA-262's are \w's, ASCII`
	}
	return ""
}

// Reasons the engine and regexp2 compile different sets of patterns.
const (
	rDotnetGroup  = "a .NET group form: ECMA-262 has no such group"
	rDotnetEscape = "a .NET escape: ECMA-262 reads the letter itself (Annex B) or refuses it (u flag); refused, not read otherwise than before"
	rControl      = `\c without a letter: regexp2 dropped the backslash, Annex B keeps it; refused, not read otherwise than before`
	rQuantified   = "ECMA-262 refuses a quantifier on an assertion or a lookbehind"
	rDuplicate    = "ECMA-262 refuses a repeated group name"
	rNumbering    = "regexp2 numbered a named group after the unnamed ones (.NET); refused, not numbered otherwise than before"
	rSubtraction  = "regexp2 read .NET class subtraction; Annex B reads a class then ]; refused, not read otherwise than before"
	rUEscape      = `\u{...} is read as the u flag reads it, and refused out of range or malformed`
	rProperty     = "an ECMA-262 Unicode property name regexp2 did not know"
	rCount        = "ECMA-262 allows any repetition count; regexp2 refused counts from 2^31"
	rGroupName    = "ECMA-262 allows $ in a group name; regexp2 did not"
	rNamedK       = `ECMA-262 refuses \k in a class when the pattern has a named group`
)

// acceptDifferences are the patterns of the tables that one engine
// compiles and the other does not.
var acceptDifferences = map[string]string{
	`(?i)a`: rDotnetGroup, `(?i:a)`: rDotnetGroup, `(?#comment)a`: rDotnetGroup, `(?>a)`: rDotnetGroup,
	`(?'n'a)`: rDotnetGroup, `(?(a)b|c)`: rDotnetGroup,
	`\a`: rDotnetEscape, `[\a]`: rDotnetEscape, `\e`: rDotnetEscape, `x\A`: rDotnetEscape, `\Z`: rDotnetEscape,
	`\z`: rDotnetEscape, `\G`: rDotnetEscape, `a\pL`: rDotnetEscape,
	`\c`: rControl, `\c1`: rControl, `[\c1]`: rControl,
	`^*`: rQuantified, `$+`: rQuantified, `\b+`: rQuantified, `(?<=a)?`: rQuantified,
	`(?<n>a)(?<n>b)`: rDuplicate, `(?<n>a)|(?<n>b)`: rDuplicate,
	`(?<a>x)(y)\2`:  rNumbering,
	`(?<n>a)[\k]`:   rNamedK,
	`[a-z-[aeiou]]`: rSubtraction,
	`\u{110000}`:    rUEscape, `\u{}`: rUEscape, `\u{zz}`: rUEscape,
	`^\p{Letter}$`: rProperty, `^\p{digit}+$`: rProperty, `^\p{Script=Greek}$`: rProperty, `^\p{sc=Greek}$`: rProperty,
	`^\p{gc=Lu}$`: rProperty, `^\p{Any}$`: rProperty, `^\p{ASCII}$`: rProperty, `^\p{Assigned}$`: rProperty,
	`^x{99999999999}$`: rCount,
	`^(?<$a>x)\k<$a>$`: rGroupName,
}

// TestTablesMatchRegexp2: on the patterns of the semantics and compile
// error tables, the engine compiles what regexp2 compiled, but for
// acceptDifferences, and gives regexp2's verdicts, but for
// regexp2Difference.
func TestTablesMatchRegexp2(t *testing.T) {
	patterns := map[string]bool{}
	for _, tt := range semantics {
		patterns[tt.pattern] = true
	}
	for _, tt := range compileErrors {
		if !strings.Contains(tt.msg, "nested deeper") && !strings.Contains(tt.msg, "longer than") { // this engine's own limits
			patterns[tt.pattern] = true
		}
	}
	for p := range patterns {
		_, mine := Compile(p)
		_, theirs := compile2(p)
		why, listed := acceptDifferences[p]
		switch {
		case (mine == nil) != (theirs == nil) && !listed:
			t.Errorf("%q: compiles here %v, with regexp2 %v (errors %v; %v)", p, mine == nil, theirs == nil, mine, theirs)
		case (mine == nil) == (theirs == nil) && listed:
			t.Errorf("%q is listed as compiled by one engine only (%s), but both say %v", p, why, mine == nil)
		}
	}
	for _, tt := range semantics {
		re2, err := compile2(tt.pattern)
		if err != nil || regexp2Difference(tt.pattern) != "" {
			continue
		}
		theirs, err := match2(re2, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if theirs != tt.want {
			t.Errorf("%q on %q: regexp2 %v, want %v", tt.pattern, tt.in, theirs, tt.want)
		}
	}
}

// TestRegexp2DifferencesAreReal: each kind of verdict difference
// regexp2Difference names shows on a case of the semantics table.
func TestRegexp2DifferencesAreReal(t *testing.T) {
	shown := map[string]bool{}
	for _, tt := range semantics {
		why := regexp2Difference(tt.pattern)
		re2, err := compile2(tt.pattern)
		if why == "" || err != nil {
			continue
		}
		if theirs, err := match2(re2, tt.in); err == nil && theirs != tt.want {
			shown[why] = true
		}
	}
	for _, why := range []string{
		regexp2Difference(`\u{41}`),
		regexp2Difference(`\uD83D\uDE00`),
		regexp2Difference(`(a)+\1`),
		regexp2Difference(`\b`),
		regexp2Difference(`(a\1+?)\1`),
	} {
		if !shown[why] {
			t.Errorf("no case of the semantics table shows %q", why)
		}
	}
}

// TestCorpusPatternsMatchRegexp2 compiles every pattern of the CDC corpora
// with both engines and compares their verdicts on the corpora's strings
// and generated ones.
func TestCorpusPatternsMatchRegexp2(t *testing.T) {
	n := 0
	for _, cp := range corpusPatterns(t) {
		mine, err := Compile(cp.pattern)
		if err != nil {
			t.Errorf("%s: %v", cp.where, err)
			continue
		}
		theirs, err := compile2(cp.pattern)
		if err != nil {
			t.Errorf("%s: regexp2: %v", cp.where, err)
			continue
		}
		if why := regexp2Difference(cp.pattern); why != "" {
			t.Logf("%s: %q not compared: %s", cp.where, cp.pattern, why)
			continue
		}
		for _, s := range cp.inputs {
			a, err := mine.MatchString(s)
			if err != nil {
				t.Fatalf("%q on %q: %v", cp.pattern, s, err)
			}
			b, err := match2(theirs, s)
			if err != nil {
				t.Fatalf("%q on %q: regexp2: %v", cp.pattern, s, err)
			}
			if a != b {
				t.Errorf("%q on %q: %v here, %v with regexp2", cp.pattern, s, a, b)
			}
			n++
		}
	}
	t.Logf("%d comparisons", n)
}
