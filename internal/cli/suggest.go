package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/spell"
	"github.com/refereehq/referee/suites"
)

// unknownSuite is the usage error for a suite name referee does not know.
func unknownSuite(name string) error {
	return usageError("unknown suite %q%s (suites: %s)", name, spell.DidYouMean(name, suites.Names()), strings.Join(suites.Names(), ", "))
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
