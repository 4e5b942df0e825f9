package check

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		id      string
		want    bool
	}{
		{"jcs", "jcs/numbers/1e21", true},
		{"jcs/numbers", "jcs/numbers/1e21", true},
		{"jcs/num", "jcs/numbers/1e21", false}, // whole segments only
		{"jcs/num*", "jcs/numbers/1e21", true},
		{"jcs/*/1e21", "jcs/numbers/1e21", true},
		{"jcs/*/1e21", "jcs/numbers/random/1e21", false},
		{"jcs/**/1e21", "jcs/numbers/random/1e21", true},
		{"jcs/**/1e21", "jcs/1e21", true},
		{"**/1e21", "jcs/numbers/1e21", true},
		{"**", "jcs/numbers/1e21", true},
		{"*", "jcs/numbers/1e21", true},
		{"jcs/numbers/1e21/more", "jcs/numbers/1e21", false},
		{"cdc", "jcs/numbers/1e21", false},
		{"jcs/numbers/1e2?", "jcs/numbers/1e21", true},
	}
	for _, tt := range tests {
		p, err := ParsePattern(tt.pattern)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", tt.pattern, err)
		}
		if got := p.Match(tt.id); got != tt.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tt.pattern, tt.id, got, tt.want)
		}
	}
}

func TestParsePatternErrors(t *testing.T) {
	for _, s := range []string{"", "/jcs", "jcs/", "jcs//x", "jcs/[", "jcs/a[b"} {
		if _, err := ParsePattern(s); err == nil {
			t.Errorf("ParsePattern(%q) accepted a bad pattern", s)
		}
	}
}

func TestSelect(t *testing.T) {
	checks := []Check{{ID: "s/a/1"}, {ID: "s/a/2"}, {ID: "s/b/1"}, {ID: "s/c"}}
	ids := func(cs []Check) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	tests := []struct {
		run, skip []string
		want      []string
		wantErr   string // the pattern a SelectError names
	}{
		{want: []string{"s/a/1", "s/a/2", "s/b/1", "s/c"}},
		{run: []string{"s/a"}, want: []string{"s/a/1", "s/a/2"}},
		{run: []string{"s/a", "s/c"}, want: []string{"s/a/1", "s/a/2", "s/c"}},
		{skip: []string{"s/*/1"}, want: []string{"s/a/2", "s/c"}},
		{run: []string{"s/a"}, skip: []string{"s/a/2"}, want: []string{"s/a/1"}},
		{run: []string{"s/zzz"}, wantErr: "s/zzz"},
		{skip: []string{"s/a/9"}, wantErr: "s/a/9"},
		{run: []string{"s/a"}, skip: []string{"s/a"}, wantErr: "empty"},
	}
	for _, tt := range tests {
		got, err := Select(checks, tt.run, tt.skip)
		if tt.wantErr != "" {
			var se *SelectError
			switch {
			case tt.wantErr == "empty" && err != nil && !errors.As(err, &se):
			case errors.As(err, &se) && se.Pattern == tt.wantErr:
			default:
				t.Errorf("Select(run %q, skip %q) error = %v, want one naming %q", tt.run, tt.skip, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Errorf("Select(run %q, skip %q) = %v, %v; want %v", tt.run, tt.skip, ids(got), err, tt.want)
		}
		// Selector keeps the same IDs, one at a time.
		keep, err := Selector(tt.run, tt.skip)
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, c := range checks {
			if keep(c.ID) {
				kept = append(kept, c.ID)
			}
		}
		if !slices.Equal(kept, tt.want) {
			t.Errorf("Selector(run %q, skip %q) keeps %v, want %v", tt.run, tt.skip, kept, tt.want)
		}
	}
	if _, err := Selector([]string{"s/["}, nil); err == nil {
		t.Error("Selector took a pattern that does not parse")
	}
}

// TestSelectCopiesOnlyASubset: a selection that keeps every check is the
// checks themselves, with no room to append into them; one that leaves some
// out is a copy.
func TestSelectCopiesOnlyASubset(t *testing.T) {
	checks := []Check{{ID: "s/a"}, {ID: "s/b"}}
	for _, run := range [][]string{nil, {"s"}, {"s/a", "s/b"}} {
		all, err := Select(checks, run, nil)
		if err != nil || len(all) != 2 || &all[0] != &checks[0] || cap(all) != 2 {
			t.Errorf("run %q: %d checks, %v; want the checks themselves", run, len(all), err)
		}
	}
	some, err := Select(checks, nil, []string{"s/a"})
	if err != nil || len(some) != 1 || some[0].ID != "s/b" || &some[0] == &checks[1] {
		t.Errorf("a subset: %v, %v; want a copy of s/b", some, err)
	}
}

// TestPatternMatchWhole: a baseline's pattern selects an ID only when it
// covers every segment; "/**" takes the subtree and the node itself.
func TestPatternMatchWhole(t *testing.T) {
	tests := []struct {
		pattern string
		id      string
		want    bool
	}{
		{"jcs/numbers/1e21", "jcs/numbers/1e21", true},
		{"jcs/numbers", "jcs/numbers/1e21", false}, // a prefix is not the ID
		{"jcs/numbers/1e21", "jcs/numbers", false},
		{"jcs/numbers/**", "jcs/numbers/1e21", true},
		{"jcs/numbers/**", "jcs/numbers/a/b", true},
		{"jcs/numbers/**", "jcs/numbers", true},
		{"jcs/numbers/*", "jcs/numbers", false},
		{"jcs/numbers/*", "jcs/numbers/1e21", true},
		{"jcs/numbers/*", "jcs/numbers/a/b", false},
		{"**/1e21", "jcs/numbers/1e21", true},
		{"**/1e21", "jcs/numbers/1e21/x", false},
		{"**", "jcs", true},
		{"*", "jcs/numbers", false},
		{"jcs/numbers/1e2?", "jcs/numbers/1e21", true},
		{`jcs/a\*b`, "jcs/a*b", true},
		{`jcs/a\*b`, "jcs/axb", false},
		{"jcs/[ab]", "jcs/b", true},
	}
	for _, tt := range tests {
		p, err := ParsePattern(tt.pattern)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", tt.pattern, err)
		}
		if got := p.MatchWhole(tt.id); got != tt.want {
			t.Errorf("%q.MatchWhole(%q) = %v, want %v", tt.pattern, tt.id, got, tt.want)
		}
	}
}

func TestNearPatterns(t *testing.T) {
	checks := []Check{{ID: "jcs/numbers/1e21"}, {ID: "jcs/numbers/1e20"}, {ID: "jcs/keys/ascii"}, {ID: "jcs/keys/deep/x"}}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"jcs/number/**", []string{"jcs/numbers/**"}},
		{"jcs/key/*", []string{"jcs/keys/*"}},
		{"jcs/kyes/deep", []string{"jcs/keys/deep"}},
		{"jcs/numbers/1e22", []string{"jcs/numbers/1e21", "jcs/numbers/1e20"}},
		{"JCS/KEYS/ASCI", []string{"jcs/keys/ascii"}},
		{"zzz/**", nil},
	}
	for _, tt := range tests {
		if got := NearPatterns(checks, tt.pattern); !slices.Equal(got, tt.want) {
			t.Errorf("NearPatterns(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
	_, err := Select(checks, []string{"jcs/number/**"}, nil)
	var se *SelectError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "did you mean jcs/numbers/**?") {
		t.Errorf("Select: %v, want a SelectError suggesting jcs/numbers/**", err)
	}
}
