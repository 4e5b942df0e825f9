package draft7

import (
	"strings"
	"testing"
)

// TestPatternDot: ECMA-262 (§22.2.2.7, the "." atom) matches any character
// but a line terminator: LF, CR, U+2028 and U+2029. A "." escaped or inside
// a class is a literal dot.
func TestPatternDot(t *testing.T) {
	tests := []struct {
		pattern, data string
		valid         bool
	}{
		{`^.$`, `"a"`, true},
		{`^.$`, `"é"`, true},
		{`^.$`, `"\n"`, false},
		{`^.$`, `"\r"`, false},
		{`^.$`, `"\u2028"`, false},
		{`^.$`, `"\u2029"`, false},
		{`^src/.*$`, `"src/a\u2028b"`, false},
		{`^src/.*$`, `"src/a b"`, true},
		{`^\.$`, `"."`, true},
		{`^\.$`, `"a"`, false},
		{`^[.]$`, `"."`, true},
		{`^[.]$`, `"\u2028"`, false},
		{`^[\].]$`, `"."`, true},
		{`^\\.$`, `"\\\u2028"`, false},
		{`^\\.$`, `"\\a"`, true},
	}
	for _, tt := range tests {
		s := compile(t, `{"pattern": `+quote(tt.pattern)+`}`)
		errs := s.Validate(parse(t, tt.data))
		if got := len(errs) == 0; got != tt.valid {
			t.Errorf("pattern %s, data %s: valid %v, want %v", tt.pattern, tt.data, got, tt.valid)
		}
	}
}

// TestPatternCodePoints: patterns match code points, astral characters and
// lone surrogates included, and know ECMA-262's Unicode property names.
func TestPatternCodePoints(t *testing.T) {
	tests := []struct {
		pattern, data string
		valid         bool
	}{
		{`^.$`, `"😀"`, true},
		{`^.$`, `"\ud83d"`, true},
		{`^\uD83D$`, `"\ud83d"`, true},
		{`^\uD83D$`, `"😀"`, false},
		{`^\uD83D\uDE00$`, `"😀"`, true},
		{`^\u{1F600}$`, `"😀"`, true},
		{`^\p{Letter}+$`, `"élan"`, true},
		{`^\p{digit}+$`, `"৪২"`, true},
		{`^\d+$`, `"৪২"`, false},
	}
	for _, tt := range tests {
		s := compile(t, `{"pattern": `+quote(tt.pattern)+`}`)
		errs := s.Validate(parse(t, tt.data))
		if got := len(errs) == 0; got != tt.valid {
			t.Errorf("pattern %s, data %s: valid %v, want %v (%v)", tt.pattern, tt.data, got, tt.valid, errs)
		}
	}
}

// TestFormatRegex: format "regex" is ECMA-262's grammar: .NET forms
// regexp2 accepted are refused, ES2018 forms are accepted.
func TestFormatRegex(t *testing.T) {
	s := compile(t, `{"format": "regex"}`)
	for _, tt := range []struct {
		re    string
		valid bool
	}{
		{`\a`, false},
		{`(?#comment)a`, false},
		{`(?i)abc`, false},
		{`(?<n>a)(?<n>b)`, false},
		{`[a-z-[aeiou]]`, false},
		{`(?<name>x)\k<name>`, true},
		{`(?<=a+)b`, true},
		{`\p{Letter}`, true},
		{`[]`, true},
		{`\cA`, true},
		{`\-`, true}, // Annex B, as before
	} {
		errs := s.Validate(parse(t, quote(tt.re)))
		if got := len(errs) == 0; got != tt.valid {
			t.Errorf("%s: valid %v, want %v", tt.re, got, tt.valid)
		}
	}
}

// TestPatternBudget: a pattern that backtracks without end fails its
// keyword with a message naming the pattern, never a silent verdict: also
// where the keyword was evaluated quietly, under not, anyOf or if.
func TestPatternBudget(t *testing.T) {
	const bad = `(a+)+$`
	long := `"` + strings.Repeat("a", 40) + `!"`
	tests := []struct {
		name, schema, data, want string
	}{
		{"pattern", `{"pattern": "(a+)+$"}`, long, " pattern"},
		{"under not", `{"not": {"pattern": "(a+)+$"}}`, long, " pattern"},
		{"under anyOf", `{"anyOf": [{"pattern": "(a+)+$"}, {"type": "string"}]}`, long, " pattern"},
		{"patternProperties", `{"patternProperties": {"(a+)+$": true}, "additionalProperties": false}`, `{` + long + `: 1}`, " patternProperties"},
	}
	for _, tt := range tests {
		s := compile(t, tt.schema)
		errs := s.Validate(parse(t, tt.data))
		if got := render(errs); got != tt.want {
			t.Errorf("%s: errors %q, want %q", tt.name, got, tt.want)
			continue
		}
		if msg := errs[0].Message; !strings.Contains(msg, `pattern "`+bad+`"`) || !strings.Contains(msg, "budget") {
			t.Errorf("%s: message %q does not name the pattern and the budget", tt.name, msg)
		}
	}
}

// TestPatternRegexp2Panicked: regexp2 panicked (index out of range) on
// this pattern and string; validating them now gives a verdict.
func TestPatternRegexp2Panicked(t *testing.T) {
	s := compile(t, `{"pattern": `+quote(`((?!((])|\w(b|1*\1+?\2\w)){1}))`)+`}`)
	if errs := s.Validate(parse(t, `"aa"`)); len(errs) != 0 {
		t.Errorf("errors %v, want none", errs)
	}
}

// quote writes s as a JSON string (the patterns here are ASCII).
func quote(s string) string {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] == '"' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}
