package draft7

import "testing"

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
