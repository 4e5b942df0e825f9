package ecmaregexp

import (
	"errors"
	"strings"
	"testing"
)

// compileErrors are patterns that do not compile: where and why.
var compileErrors = []struct {
	pattern string
	offset  int
	msg     string
}{
	{`a(b`, 3, "missing )"},
	{`a)`, 1, "unmatched )"},
	{`(?:a`, 4, "missing )"},
	{`[a`, 2, "missing ]"},
	{`\`, 0, `\ at end of pattern`},
	{`[\`, 1, `\ at end of pattern`},
	// quantifiers
	{`*a`, 0, "nothing to repeat"},
	{`a|+`, 2, "nothing to repeat"},
	{`a**`, 2, "nothing to repeat"},
	{`a+*`, 2, "nothing to repeat"},
	{`a???`, 3, "nothing to repeat"},
	{`a{2}{3}`, 4, "nothing to repeat"},
	{`{1}`, 0, "nothing to repeat"},
	{`^*`, 1, "nothing to repeat"},
	{`$+`, 1, "nothing to repeat"},
	{`\b+`, 2, "nothing to repeat"},
	{`(?<=a)?`, 6, "nothing to repeat"},
	{`x{2,1}`, 1, "numbers out of order"},
	{`x{99999999999,99999999998}`, 1, "numbers out of order"},
	// classes
	{`[z-a]`, 2, "range out of order"},
	{`[a-\d]`, 2, "a class escape cannot end a range"},
	{`[a-z-[aeiou]]`, 0, ".NET class subtraction"},
	// groups
	{`(?`, 0, "is not an ECMA-262 group"},
	{`(?i)a`, 0, "is not an ECMA-262 group"},
	{`(?i:a)`, 0, "is not an ECMA-262 group"},
	{`(?#comment)a`, 0, "is not an ECMA-262 group"},
	{`(?>a)`, 0, "is not an ECMA-262 group"},
	{`(?'n'a)`, 0, "is not an ECMA-262 group"},
	{`(?P<n>a)`, 0, "is not an ECMA-262 group"},
	{`(?(a)b|c)`, 0, "is not an ECMA-262 group"},
	{`(?<n>a)(?<n>b)`, 7, "duplicate group name"},
	{`(?<n>a)|(?<n>b)`, 8, "duplicate group name"},
	{`(?<>a)`, 0, "empty group name"},
	{`(?<1a>a)`, 3, "cannot be in a group name"},
	{`(?<a`, 4, "missing >"},
	{`(?<\u0061>a)`, 3, "escapes in group names"},
	// backreferences
	{`(?<n>a)\k<m>`, 7, `no group named "m"`},
	{`(?<n>a)\k`, 7, `\k must be followed by <name>`},
	{`(?<n>a)[\k]`, 8, `\k is not an escape inside a class`},
	{`(?<a>x)(y)\2`, 10, "regexp2 numbered this group 1"},
	// .NET escapes
	{`\a`, 0, ".NET escape"},
	{`[\a]`, 1, ".NET escape"},
	{`\e`, 0, ".NET escape"},
	{`x\A`, 1, ".NET escape"},
	{`\Z`, 0, ".NET escape"},
	{`\z`, 0, ".NET escape"},
	{`\G`, 0, ".NET escape"},
	{`\c`, 0, `\c must be followed by a letter`},
	{`\c1`, 0, `\c must be followed by a letter`},
	{`[\c1]`, 1, `\c must be followed by a letter or _`},
	// \u{...} and \p{...}
	{`\u{110000}`, 0, "beyond U+10FFFF"},
	{`\u{}`, 0, `malformed \u{...}`},
	{`\u{zz}`, 0, `malformed \u{...}`},
	{`a\pL`, 1, `\p must be followed by {property}`},
	{`\p`, 0, `\p must be followed by {property}`},
	{`\p{L`, 0, `malformed \p{...}`},
	{`\p{}`, 0, "unknown or unsupported Unicode property"},
	{`\p{letter}`, 0, "unknown or unsupported Unicode property"},
	{`\p{IsGreek}`, 0, "unknown or unsupported Unicode property"},
	{`\p{Script_Extensions=Greek}`, 0, "unknown or unsupported Unicode property"},
	// limits
	{strings.Repeat("(", MaxNesting+1) + strings.Repeat(")", MaxNesting+1), MaxNesting, "nested deeper than 100"},
	{strings.Repeat("a", MaxPatternBytes+1), 0, "longer than the 65536 allowed"},
}

func TestCompileErrors(t *testing.T) {
	for _, tt := range compileErrors {
		_, err := Compile(tt.pattern)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Compile(%.40q): %v, want an *Error", tt.pattern, err)
			continue
		}
		if e.Offset != tt.offset || !strings.Contains(e.Msg, tt.msg) || e.Pattern != tt.pattern {
			t.Errorf("Compile(%.40q): %q at %d, want %q at %d", tt.pattern, e.Msg, e.Offset, tt.msg, tt.offset)
		}
	}
}

func TestErrorText(t *testing.T) {
	_, err := Compile("a(b")
	if want := `pattern "a(b": missing ) at offset 3`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, err = Compile(strings.Repeat("a", 300) + "(")
	if want := `pattern "` + strings.Repeat("a", 200) + `"...: missing ) at offset 301`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestLimitsAreNotTooTight: at the limits, a pattern still compiles.
func TestLimitsAreNotTooTight(t *testing.T) {
	for _, p := range []string{
		strings.Repeat("(", MaxNesting) + strings.Repeat(")", MaxNesting),
		strings.Repeat("a", MaxPatternBytes),
	} {
		if _, err := Compile(p); err != nil {
			t.Errorf("Compile(%.40q...): %v", p, err)
		}
	}
}
