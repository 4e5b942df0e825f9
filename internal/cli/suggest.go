package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/suites"
)

// suggest returns the candidates nearest to s, at most 3: those at the
// smallest edit distance (no more than a third of its length), and those
// that end in its last segment.
func suggest(s string, candidates []string) []string {
	type scored struct {
		c string
		d int
	}
	limit := max(2, len(s)/3)
	var best []scored
	last := s[strings.LastIndexByte(s, '/')+1:]
	for _, c := range candidates {
		d := distance(s, c)
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

// distance is the edit distance between a and b over bytes, counting a
// swap of two neighbours as one edit (optimal string alignment).
func distance(a, b string) int {
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

// didYouMean is ` (did you mean X?)` for the nearest candidates, or "".
func didYouMean(s string, candidates []string) string {
	near := suggest(s, candidates)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, " or ") + "?)"
}

// unknownSuite is the usage error for a suite name referee does not know.
func unknownSuite(name string) error {
	return usageError("unknown suite %q%s (suites: %s)", name, didYouMean(name, suites.Names()), strings.Join(suites.Names(), ", "))
}

// checkIDs lists a suite's check IDs from its embedded corpus, for
// completion and suggestions; nil when the suite needs a corpus.
func checkIDs(def *check.Definition) []string {
	if def.Embedded == "" && def.Corpus != "" {
		return nil
	}
	loaded, err := def.Load(check.LoadOptions{})
	if err != nil {
		return nil
	}
	ids := make([]string, len(loaded.Suite.Checks))
	for i, c := range loaded.Suite.Checks {
		ids[i] = c.ID
	}
	return ids
}

// completeCheckIDs completes a check ID: a suite name first, then that
// suite's IDs.
func completeCheckIDs(toComplete string) ([]string, cobra.ShellCompDirective) {
	name, _, found := strings.Cut(toComplete, "/")
	if !found {
		var out []string
		for _, n := range suites.Names() {
			out = append(out, n+"/")
		}
		return out, cobra.ShellCompDirectiveNoSpace
	}
	def := suites.Find(name)
	if def == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, id := range checkIDs(def) {
		if strings.HasPrefix(id, toComplete) {
			out = append(out, id)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeModes completes --mode with a suite's broken modes and their docs.
func completeModes(def *check.Definition) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		modes := def.ModeList()
		out := make([]string, len(modes))
		for i, m := range modes {
			out[i] = m.Name + "\t" + m.Doc
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSelection completes --run and --skip with a suite's check IDs.
func completeSelection(def *check.Definition) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, id := range checkIDs(def) {
			if strings.HasPrefix(id, toComplete) {
				out = append(out, id)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
