package ecmaregexp

import (
	"errors"
	"strings"
	"testing"
	"unicode"
)

// Lone surrogates as a WTF-8 string holds them (canon.DecodeRune).
const (
	loneD83D = "\xed\xa0\xbd" // U+D83D, a high surrogate
	loneDC00 = "\xed\xb0\x80" // U+DC00, a low surrogate
)

// semantics are patterns, strings, and whether the pattern matches
// somewhere in the string, as ECMA-262 says. The regexp2 and Node tests
// run the same table.
var semantics = []struct {
	pattern, in string
	want        bool
}{
	// literals, alternation, groups
	{`abc`, `xabcx`, true},
	{`abc`, `ab`, false},
	{`a|b`, `b`, true},
	{`a|`, `x`, true},
	{`^(?:a|ab)c$`, `abc`, true},
	{`^(ab)+$`, `abab`, true},
	{`^(?:ab)+$`, `aba`, false},
	{`^()$`, ``, true},
	// backtracking into groups (ECMA-262 §22.2.2.3's example)
	{`^(a|ab)(c|bcd)(d*)$`, `abcd`, true},
	{`^(a+)+b$`, `aaab`, true},
	{`^(?:a|b)*c$`, `abac`, true},
	{`^(a+)a\1$`, `aaaaa`, true},
	// quantifiers
	{`^a{2}$`, `aa`, true},
	{`^a{2}$`, `aaa`, false},
	{`^a{2,}$`, `aaaa`, true},
	{`^a{2,3}$`, `aaaa`, false},
	{`^a{0}$`, ``, true},
	{`^a?$`, ``, true},
	{`^a*$`, `aaa`, true},
	{`^a+$`, ``, false},
	{`^a+?b$`, `aaab`, true},
	{`^a{1,2}?b$`, `aab`, true},
	{`^x{99999999999}$`, `x`, false},
	// greedy and lazy, seen through a lookahead's capture
	{`^(?=(a+))\1b`, `aab`, true},
	{`^(?=(a+?))\1b`, `aab`, false},
	{`^(?=(a*?))\1$`, ``, true},
	{`^(?=((?:ab)+))\1$`, `abab`, true},
	{`^(?=((?:ab)+?))\1$`, `abab`, false},
	{`^(?=(a{1,3}?))\1a$`, `aa`, true},
	{`^(?=(a{1,3}))\1a$`, `aa`, false},
	// empty iterations
	{`^(a*)*$`, ``, true},
	{`^(a*)*b$`, `aab`, true},
	{`^(a|)*$`, `aa`, true},
	{`(?:)*x`, `x`, true},
	{`^(?:a?){3}$`, `a`, true},
	{`^(a*)+$`, `b`, false},
	// anchors: no multiline, $ not before a final newline
	{`^a`, `ba`, false},
	{`a$`, `ab`, false},
	{`a$`, "a\n", false},
	{`^a$`, "\na", false},
	{`^$`, ``, true},
	// word boundaries: \w is ASCII
	{`\bfoo\b`, `a foo b`, true},
	{`\bfoo\b`, `afoo`, false},
	{`\Bfoo`, `afoo`, true},
	{`^\b$`, ``, false},
	{`^\B$`, ``, true},
	{`\bé`, `é`, false},
	{`\B`, `1😀a`, false}, // no position inside a code point
	// lookahead (atomic: no backtracking into it)
	{`^(?=a)a`, `a`, true},
	{`^(?!a)`, `a`, false},
	{`^(?!a)`, `b`, true},
	{`^(?=(a+))\1ab`, `aaab`, false},
	{`(?=(a+))a*b\1`, `baaabac`, true},
	{`^(?!(a)b)\1a`, `ac`, true},      // a negated lookahead captures nothing
	{`^(?:(?!(a))|a)\1b`, `ab`, true}, // not even when its body matched
	// lookbehind, matched right to left
	{`(?<=\$)\d+`, `cost $42`, true},
	{`(?<=\$)\d+`, `cost 42`, false},
	{`(?<!\$)\b\d+`, `$42`, false},
	{`(?<=a+)b`, `aab`, true},
	{`(?<=^|,)x`, `x`, true},
	{`(?<=(\d+)(\d+))x\1$`, `1053x1`, true},
	{`(?<=(\d+)(\d+))x\2$`, `1053x053`, true},
	{`(?<=\1(a))b`, `aab`, true},
	{`(?<=\1(a))b`, `ab`, false},
	{`(?<=a(?=b)b)c`, `abc`, true},
	// backreferences
	{`^(a)\1$`, `aa`, true},
	{`^(a)\1$`, `ab`, false},
	{`^\1(a)$`, `a`, true},
	{`^(?:(a)|b)\1$`, `b`, true},
	{`^(a)|\1b`, `b`, true},
	{`^(?<x>a)\k<x>$`, `aa`, true},
	{`^(?<$a>x)\k<$a>$`, `xx`, true},
	{`^(?<é>x)$`, `x`, true},
	{`^(?:(a)|b)+\1$`, `ab`, true},                  // the captures of an iteration are cleared
	{`^(z)((a+)?(b+)?(c))*\4$`, `zaacbbbcac`, true}, // ECMA-262 §22.2.2.5.1's example
	{`(a\1+?)\1`, `a`, false},                       // regexp2 said true
	{`((?!((])|\w(b|1*\1+?\2\w)){1}))`, `aa`, true}, // regexp2 panicked
	// character classes
	{`^[abc]$`, `b`, true},
	{`^[^abc]$`, `b`, false},
	{`^[a-c]$`, `b`, true},
	{`^[^a-c]$`, "\n", true},
	{`^[]$`, ``, false},
	{`^[^]$`, "\n", true},
	{`^[\]]$`, `]`, true},
	{`^[-a]$`, `-`, true},
	{`^[a-]$`, `-`, true},
	{`^[\w-]$`, `-`, true},
	{`^[\d-z]$`, `-`, true},
	{`^[\b]$`, "\b", true},
	{`^[.]$`, `x`, false},
	{`^[😀]$`, `😀`, true},
	{`^[😀-😂]$`, `😁`, true},
	{`^[^\d\s]$`, `a`, true},
	{`^[\u0041-\u0043]+$`, `ABC`, true},
	// class escapes: \d and \w ASCII, \s WhiteSpace and LineTerminator
	{`^\d$`, `٣`, false},
	{`^\D$`, `٣`, true},
	{`^\w$`, `é`, false},
	{`^\W$`, `é`, true},
	{`^\s$`, "\u00a0", true},
	{`^\s$`, "\ufeff", true},
	{`^\s$`, "\u2003", true},
	{`^\s$`, "\u2029", true},
	{`^\s$`, "\u000b", true},
	{`^\s$`, "\u0085", false},
	{`^\s$`, "\u180e", false},
	{`^\S$`, "\u0085", true},
	{`^\S$`, "\u2003", false},
	// character escapes
	{`^\t$`, "\t", true},
	{`^\n$`, "\n", true},
	{`^\r$`, "\r", true},
	{`^\v$`, "\v", true},
	{`^\f$`, "\f", true},
	{`^\0$`, "\x00", true},
	{`^\cJ$`, "\n", true},
	{`^\cj$`, "\n", true},
	{`^[\cJ]$`, "\n", true},
	{`^\x41$`, `A`, true},
	{`^\u00e9$`, `é`, true},
	{`^\u{1F600}$`, `😀`, true},
	{`^\u{41}$`, `A`, true},
	{`^\uD83D\uDE00$`, `😀`, true},
	{`^[\uD83D\uDE00]$`, `😀`, true},
	{`^\/$`, `/`, true},
	{`^\.$`, `.`, true},
	{`^\.$`, `a`, false},
	// Annex B forms
	{`^\x4$`, `x4`, true},
	{`^\u41$`, `u41`, true},
	{`^\-$`, `-`, true},
	{`^\_$`, `_`, true},
	{`^\q$`, `q`, true},
	{`^\k$`, `k`, true},
	{`^\8$`, `8`, true},
	{`^\01$`, "\x01", true},
	{`^\08$`, "\x008", true},
	{`^\377$`, `ÿ`, true},
	{`^\400$`, ` 0`, true},
	{`^\1$`, "\x01", true},
	{`^(a)\11$`, "a\t", true},
	{`^[\1]$`, "\x01", true},
	{`^[\c_]$`, "\x1f", true},
	{`^[\B]$`, `B`, true},
	{`^[\A]$`, `A`, true},
	{`^]$`, `]`, true},
	{`^}$`, `}`, true},
	{`^a{$`, `a{`, true},
	{`^a{,3}$`, `a{,3}`, true},
	{`^x{1}}$`, `x}`, true},
	{`(?=a)*b`, `b`, true},
	{`^(?=a){2}a$`, `a`, true},
	// ".": any code point but a line terminator
	{`^.$`, "\u2028", false},
	{`^.$`, "\u2029", false},
	{`^.$`, "\r", false},
	{`^.$`, "\n", false},
	{`^.$`, "\u0085", true},
	{`^.$`, `😀`, true},
	{`^..$`, `😀`, false},
	{`^src/.*$`, "src/a\u2028b", false},
	// astral characters are one code point; lone surrogates are code points
	{`^🐲*$`, `🐲🐲`, true},
	{`^🐲*$`, "\U0001F409", false},
	{`\uD83D`, `😀`, false},
	{`^\uD83D$`, loneD83D, true},
	{`^.$`, loneD83D, true},
	{`^[\uD800-\uDFFF]$`, loneDC00, true},
	{`^\uD83D\uDC00$`, loneD83D + loneDC00, false}, // the pattern's pair is U+1F400; the string holds two lone surrogates
	// Unicode properties
	{`^\p{L}$`, `é`, true},
	{`^\p{Lu}$`, `é`, false},
	{`^\P{L}$`, `1`, true},
	{`^\p{Letter}$`, `é`, true},
	{`^\p{digit}+$`, `৪২`, true},
	{`^\p{Script=Greek}$`, `α`, true},
	{`^\p{sc=Greek}$`, `a`, false},
	{`^\p{gc=Lu}$`, `A`, true},
	{`^[\p{L}\d]+$`, `é1`, true},
	{`^[^\p{L}]$`, `é`, false},
	{`^[\P{L}]$`, `1`, true},
	{`^\p{White_Space}$`, ` `, true},
	{`^\p{Any}$`, `😀`, true},
	{`^\p{ASCII}$`, `é`, false},
	{`^\p{Cn}$`, "\u0378", true},
	{`^\p{Assigned}$`, "\u0378", false},
	{`^\p{Greek}$`, `α`, true}, // regexp2 accepted a bare script name
}

func TestSemantics(t *testing.T) {
	for _, tt := range semantics {
		re, err := Compile(tt.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.pattern, err)
			continue
		}
		got, err := re.MatchString(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("%q on %q: %v, %v; want %v", tt.pattern, tt.in, got, err, tt.want)
		}
	}
}

// TestSpaceSpansAreZs checks the hand-written \s against the Space_Separator
// category of Go's Unicode tables.
func TestSpaceSpansAreZs(t *testing.T) {
	spaces := newCharSet(spaceSpans)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.Zs, r) && !spaces.has(r) {
			t.Errorf("U+%04X is Zs but not in \\s", r)
		}
	}
}

// TestBudget: a pattern that backtracks exponentially gives up with an
// error wrapping ErrBudget, and so does one whose backtracking goes too
// deep; neither passes nor fails silently.
func TestBudget(t *testing.T) {
	tests := []struct {
		pattern, in string
		limit       int
	}{
		{`(a+)+$`, strings.Repeat("a", 40) + "!", StepLimit},
		{`^(?:a|b)*$`, strings.Repeat("a", MaxSavedStates), StepLimit},
		{`(?!(a+)+$)`, strings.Repeat("a", 40) + "!", StepLimit}, // a negated lookahead does not turn giving up into a match
		{`^[a-z]*$`, strings.Repeat("a", 1000), 100},
	}
	for _, tt := range tests {
		re, err := Compile(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		ok, _, err := re.match([]rune(tt.in), tt.limit)
		if !errors.Is(err, ErrBudget) || ok || !strings.Contains(err.Error(), tt.pattern) {
			t.Errorf("%q on %d code points: %v, %v; want an error wrapping ErrBudget naming the pattern", tt.pattern, len(tt.in), ok, err)
		}
	}
	re, _ := Compile(`^[a-z]*$`)
	if ok, err := re.MatchString(strings.Repeat("a", 1_000_000)); !ok || err != nil {
		t.Errorf("a repeated single character over a million code points: %v, %v; want a match (it takes no stack)", ok, err)
	}
}
