package ecmaregexp

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGenerator: for patterns without lookarounds or backreferences, every
// string Match makes matches (the compiled pattern is the judge), and Miss
// makes strings that do not match, at the edges the pattern has.
func TestGenerator(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		misses  float64 // the least share of Miss's strings that must not match
		edge    string  // a string Miss must make within the draws
	}{
		{`^[0-9a-f]{64}$`, 1, ""},
		{`^\d+\.\d+$`, 0.9, "\n"},
		{`^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}$`, 0.9, ""},
		{`^(\*|(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$`, 0.5, ""},
		{`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`, 1, ""},
		{`^[^/\s]+/[^/\s]+$`, 0.7, ""},
		{`^R[1-9][0-9]?$`, 0.7, ""},
		{`(^|/)\.\.(/|$)`, 0, ".."},
		{`^vendor:[a-z0-9-]{1,32}:[A-Za-z0-9_.-]{1,64}$`, 0.9, ""},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := Compile(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			g, err := NewGenerator(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			for range 500 {
				s := g.Match(r)
				if ok, err := re.MatchString(s); err != nil || !ok {
					t.Fatalf("Match made %q, which does not match (%v)", s, err)
				}
			}
			missed, sawEdge := 0, tt.edge == ""
			for range 500 {
				s := g.Miss(r)
				if ok, _ := re.MatchString(s); !ok {
					missed++
				}
				sawEdge = sawEdge || strings.Contains(s, tt.edge)
			}
			if share := float64(missed) / 500; share < tt.misses {
				t.Errorf("Miss missed %.2f of the time, want at least %.2f", share, tt.misses)
			}
			if !sawEdge {
				t.Errorf("Miss never made a string holding %q", tt.edge)
			}
		})
	}
}

// TestGeneratorEdges: misses of a class come from its edges, and white
// space and digits of other readings are among them.
func TestGeneratorEdges(t *testing.T) {
	want := map[string][]string{
		`^\d+$`:   {"\u0660", "\uff10"},           // digits that are not ASCII
		`^\S+$`:   {"\u0085", "\u200b", "\u180e"}, // not ECMA-262 white space: these match \S
		`^\s+$`:   {"\u0085", "\u001c"},           // Python's white space, not ECMA-262's
		`^.+$`:    {"\u2028", "\r"},               // line terminators
		`^[b-y]$`: {"a", "z", "B", "Y"},
	}
	for pattern, edges := range want {
		g, err := NewGenerator(pattern)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		var all strings.Builder
		for range 3000 {
			all.WriteString(g.Miss(r))
			all.WriteString(g.Match(r))
		}
		for _, e := range edges {
			if !strings.Contains(all.String(), e) {
				t.Errorf("%s: no generated string holds %q", pattern, e)
			}
		}
	}
}
