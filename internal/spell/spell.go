// Package spell finds the names nearest to a mistyped one, for the "did
// you mean" of an error.
package spell

import (
	"slices"
	"strings"
)

// Suggest returns the candidates nearest to s, at most 3: those at the
// smallest edit distance, letter case aside (no more than a third of its
// length), and those that end in its last segment.
func Suggest(s string, candidates []string) []string {
	type scored struct {
		c string
		d int
	}
	limit := max(2, len(s)/3)
	var best []scored
	last := s[strings.LastIndexByte(s, '/')+1:]
	for _, c := range candidates {
		d := Distance(strings.ToLower(s), strings.ToLower(c))
		if last != "" && last != s && strings.HasSuffix(c, "/"+last) {
			d = 0 // the same last segment, under another parent
		}
		if d <= limit {
			best = append(best, scored{c, d})
		}
	}
	slices.SortStableFunc(best, func(a, b scored) int { return a.d - b.d })
	var out []string
	for _, b := range best {
		if len(out) == 3 || b.d > best[0].d {
			break
		}
		out = append(out, b.c)
	}
	return out
}

// Distance is the edit distance between a and b over bytes, counting a
// swap of two neighbours as one edit (optimal string alignment).
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// DidYouMean is ` (did you mean X?)` for the nearest candidates, or "".
func DidYouMean(s string, candidates []string) string {
	near := Suggest(s, candidates)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, " or ") + "?)"
}
