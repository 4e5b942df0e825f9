package lazyregexp

import (
	"slices"
	"testing"
)

func TestRegexp(t *testing.T) {
	r := New(`^([a-z]+)-([0-9]+)$`)
	tests := []struct {
		in    string
		match bool
		sub   []string
	}{
		{"abc-12", true, []string{"abc-12", "abc", "12"}},
		{"abc-", false, nil},
		{"ABC-12", false, nil},
	}
	for _, tt := range tests {
		if got := r.MatchString(tt.in); got != tt.match {
			t.Errorf("MatchString(%q) = %v", tt.in, got)
		}
		if got := r.FindStringSubmatch(tt.in); !slices.Equal(got, tt.sub) {
			t.Errorf("FindStringSubmatch(%q) = %q, want %q", tt.in, got, tt.sub)
		}
	}
	if r.String() != `^([a-z]+)-([0-9]+)$` {
		t.Errorf("String() = %q", r.String())
	}
}

func TestBadExpressionPanicsOnFirstUse(t *testing.T) {
	r := New(`(`) // New itself must not compile it
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on first use")
		}
	}()
	r.MatchString("x")
}
