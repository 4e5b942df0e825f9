package ecmaregexp

import (
	"errors"
	"testing"
	"unicode/utf8"
)

// fuzzLimit keeps each fuzzed match short; the budget's own behaviour is
// TestBudget's.
const fuzzLimit = 200_000

// FuzzMatch compiles an untrusted pattern and matches an untrusted string
// with it: neither panics or hangs; a pattern that does not compile gets
// an *Error naming it, at an offset within it; a match ends in a verdict or
// ErrBudget, the same verdict twice; and where regexp2 compiles the
// pattern too, gives its verdict in time without panicking, and
// regexp2Difference names no reason to differ, the verdicts agree.
func FuzzMatch(f *testing.F) {
	for _, tt := range semantics {
		f.Add(tt.pattern, tt.in)
	}
	for _, tt := range compileErrors {
		if len(tt.pattern) < 100 {
			f.Add(tt.pattern, "abc")
		}
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := Compile(pattern)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Pattern != pattern || e.Offset < 0 || e.Offset > utf8.RuneCountInString(pattern) {
				t.Fatalf("Compile(%q): %v (%T), want an *Error within the pattern", pattern, err, err)
			}
			return
		}
		in := codePoints(s)
		ok, steps, err := re.match(in, fuzzLimit)
		if err != nil {
			if !errors.Is(err, ErrBudget) || ok || steps <= fuzzLimit && len(in) < MaxSavedStates {
				t.Fatalf("%q on %q: %v, %v after %d steps", pattern, s, ok, err, steps)
			}
			return
		}
		if again, _, _ := re.match(in, fuzzLimit); again != ok {
			t.Fatalf("%q on %q: %v, then %v", pattern, s, ok, again)
		}
		if regexp2Difference(pattern) != "" {
			return
		}
		re2, err := compile2(pattern)
		if err != nil {
			return
		}
		theirs, err := match2(re2, s)
		if err == nil && theirs != ok {
			t.Fatalf("%q on %q: %v here, %v with regexp2", pattern, s, ok, theirs)
		}
	})
}
