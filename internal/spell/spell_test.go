package spell

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	ids := []string{"jcs/numbers/1e21", "jcs/numbers/1e20", "jcs/keys/ascii", "jcs/rejects/duplicate-key"}
	tests := []struct {
		s    string
		cand []string
		want []string
	}{
		{"jsc", []string{"jcs", "cdc", "cgp", "cgp-vectors", "crosslink", "fablepool"}, []string{"jcs"}},
		{"crosslnk", []string{"jcs", "crosslink", "fablepool"}, []string{"crosslink"}},
		{"codepoint-ordr", []string{"codepoint-order", "unsorted", "go-float"}, []string{"codepoint-order"}},
		{"jcs/number/1e21", ids, []string{"jcs/numbers/1e21"}},
		{"jcs/numbers/1e2", ids, []string{"jcs/numbers/1e21", "jcs/numbers/1e20"}},
		{"jcs/ascii", ids, []string{"jcs/keys/ascii"}}, // the same last segment
		{"zzzzzzzz", ids, nil},
		{"JCS", []string{"jcs", "cdc", "crosslink"}, []string{"jcs"}}, // letter case aside
		{"CrossLink", []string{"jcs", "crosslink"}, []string{"crosslink"}},
	}
	for _, tt := range tests {
		if got := Suggest(tt.s, tt.cand); !slices.Equal(got, tt.want) {
			t.Errorf("Suggest(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"jcs", "jsc", 1}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
