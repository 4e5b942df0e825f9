package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/spell"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/suites"
)

// loadSuite loads def for listing, from dir (reading no file over
// maxFileSize bytes) or its embedded corpus.
func loadSuite(def *check.Definition, dir string, maxFileSize int64) (*check.Suite, error) {
	switch {
	case dir == "" && def.Embedded == "" && def.Corpus != "":
		return nil, usageError("the %s suite needs --corpus DIR: %s", def.Name, def.Corpus)
	case dir != "" && def.Corpus == "":
		return nil, usageError("the %s suite reads no corpus: it has no --corpus", def.Name)
	}
	loaded, err := def.Load(check.LoadOptions{Corpus: dir, MaxFileSize: maxFileSize})
	if err != nil {
		return nil, err
	}
	return loaded.Suite, nil
}

func newListCmd(e *env) *cobra.Command {
	var corpusDir string
	var modes, ops bool
	var format string
	var runPatterns, skipPatterns []string
	var maxFileSize *byteSize
	cmd := &cobra.Command{
		Use:   "list [SUITE]",
		Short: "List the suites, or one suite's check IDs",
		Example: `  referee list
  referee list jcs
  referee list jcs --run 'jcs/numbers/**'
  referee list jcs --modes
  referee list jcs --ops
  referee list crosslink --ops --format json
  referee list jcs --corpus ../shared/corpora/jcs`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: suites.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if corpusDir != "" || modes || ops || len(runPatterns) > 0 || len(skipPatterns) > 0 {
					return usageError("--corpus, --run, --skip, --modes and --ops need a suite")
				}
				for _, s := range suites.All() {
					fmt.Fprintf(e.stdout, "%-12s %s\n", s.Name, s.Summary)
				}
				return nil
			}
			def := suites.Find(args[0])
			if def == nil {
				return unknownSuite(args[0])
			}
			if format != "text" && !ops {
				return usageError("--format %s needs --ops", format)
			}
			if ops {
				return listOps(e, def, format)
			}
			if modes {
				for _, m := range def.ModeList() {
					fmt.Fprintf(e.stdout, "%-20s %s\n", m.Name, m.Doc)
				}
				return nil
			}
			suite, err := loadSuite(def, corpusDir, int64(*maxFileSize))
			if err != nil {
				return err
			}
			checks, err := check.Select(suite.Checks, runPatterns, skipPatterns)
			if err != nil {
				return usageError("%v", err)
			}
			// IDs and docs may come from the corpus: one line each.
			for _, c := range checks {
				fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", termsafe.Line(c.ID), c.LevelOf(), termsafe.Line(c.Doc))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&corpusDir, "corpus", "", "list the checks of the corpus in `DIR`")
	cmd.Flags().BoolVar(&modes, "modes", false, "list the built-in adapter's broken modes instead")
	cmd.Flags().BoolVar(&ops, "ops", false, "list the adapter ops the suite sends, with their arguments, instead")
	cmd.Flags().StringVar(&format, "format", "text", "with --ops: text, or json for each op's JSON Schemas (args, ok, err)")
	repeatedVar(cmd.Flags(), &runPatterns, "run", "list only checks whose ID matches `PATTERN`, as run selects them (repeatable)")
	repeatedVar(cmd.Flags(), &skipPatterns, "skip", "leave out checks whose ID matches `PATTERN` (repeatable)")
	maxFileSize = addMaxFileSize(cmd.Flags())
	return cmd
}

func newExplainCmd(e *env) *cobra.Command {
	var corpusDir string
	var maxFileSize *byteSize
	cmd := &cobra.Command{
		Use:   "explain CHECK-ID|GROUP",
		Short: "Say what a check proves and how, or list a group's checks",
		Example: `  referee explain jcs/numbers/1e21
  referee explain jcs/numbers
  referee explain jcs/rfc8785/weird --corpus ../shared/corpora/jcs`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("explain needs one check ID, such as jcs/numbers/1e21 (referee list SUITE lists them), got %d arguments", len(args))
			}
			return nil
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeCheckIDs(toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			name, _, _ := strings.Cut(id, "/")
			def := suites.Find(name)
			if def == nil {
				return usageError("%q: no suite %q%s (suites: %s)", id, name, spell.DidYouMean(name, suites.Names()), strings.Join(suites.Names(), ", "))
			}
			suite, err := loadSuite(def, corpusDir, int64(*maxFileSize))
			if err != nil {
				return err
			}
			for _, c := range suite.Checks {
				if c.ID != id {
					continue
				}
				// The check's texts may come from the corpus: each of their
				// lines is made safe and indented here.
				fmt.Fprintf(e.stdout, "%s\n  %s\n  level: %s\n", termsafe.Line(c.ID), termsafe.Line(c.Doc), c.LevelOf())
				if c.Clause != "" {
					fmt.Fprintf(e.stdout, "  requirement: %s\n", termsafe.Line(c.Clause))
				}
				if len(c.Needs) > 0 {
					fmt.Fprintf(e.stdout, "  needs the adapter op(s): %s\n", termsafe.Line(strings.Join(c.Needs, ", ")))
				}
				if text := c.Explanation(); text != "" {
					for _, l := range termsafe.Lines(text) {
						fmt.Fprintf(e.stdout, "  %s\n", l)
					}
				}
				fmt.Fprintf(e.stdout, "  corpus: %s (%s)\n", termsafe.Line(suite.Corpus), suite.CorpusDigest)
				return nil
			}
			if explainGroup(e, suite, id) {
				return nil
			}
			near := ""
			if n := check.NearPatterns(suite.Checks, id); len(n) > 0 {
				near = " (did you mean " + strings.Join(n, " or ") + "?)"
			}
			return usageError("suite %s has no check or group %q%s (see referee list %s)", name, id, near, name)
		},
	}
	cmd.Flags().StringVar(&corpusDir, "corpus", "", "look the check up in the corpus in `DIR`")
	maxFileSize = addMaxFileSize(cmd.Flags())
	return cmd
}

// explainGroup writes what the checks under group (an ID prefix: jcs/numbers)
// are: how many at each level, and each one's ID, level and doc. It reports
// false when no check is under group.
func explainGroup(e *env, suite *check.Suite, group string) bool {
	var under []check.Check
	levels := map[check.Level]int{}
	for _, c := range suite.Checks {
		if strings.HasPrefix(c.ID, group+"/") {
			under = append(under, c)
			levels[c.LevelOf()]++
		}
	}
	if len(under) == 0 {
		return false
	}
	var counts []string
	for _, l := range []check.Level{check.Must, check.Should, check.May} {
		if levels[l] > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", levels[l], l))
		}
	}
	fmt.Fprintf(e.stdout, "%s: a group of %d checks (%s); referee explain ID says more of one\n", termsafe.Line(group), len(under), strings.Join(counts, ", "))
	for _, c := range under {
		fmt.Fprintf(e.stdout, "  %s\t%s\t%s\n", termsafe.Line(c.ID), c.LevelOf(), termsafe.Line(c.Doc))
	}
	fmt.Fprintf(e.stdout, "  corpus: %s (%s)\n", termsafe.Line(suite.Corpus), suite.CorpusDigest)
	return true
}
