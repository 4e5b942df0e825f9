package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/suites"
)

// loadSuite loads def for listing, from dir or its embedded corpus.
func loadSuite(def *check.Definition, dir string) (*check.Suite, error) {
	switch {
	case dir == "" && def.Embedded == "" && def.Corpus != "":
		return nil, usageError("the %s suite needs --corpus DIR: %s", def.Name, def.Corpus)
	case dir != "" && def.Corpus == "":
		return nil, usageError("the %s suite reads no corpus: it has no --corpus", def.Name)
	}
	loaded, err := def.Load(check.LoadOptions{Corpus: dir})
	if err != nil {
		return nil, err
	}
	return loaded.Suite, nil
}

func newListCmd(e *env) *cobra.Command {
	var corpusDir string
	var modes bool
	cmd := &cobra.Command{
		Use:   "list [SUITE]",
		Short: "List the suites, or one suite's check IDs",
		Example: `  referee list
  referee list jcs
  referee list jcs --modes
  referee list jcs --corpus ../shared/corpora/jcs`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if corpusDir != "" || modes {
					return usageError("--corpus and --modes need a suite")
				}
				for _, s := range suites.All() {
					fmt.Fprintf(e.stdout, "%-12s %s\n", s.Name, s.Summary)
				}
				return nil
			}
			def := suites.Find(args[0])
			if def == nil {
				return usageError("unknown suite %q (suites: %s)", args[0], strings.Join(suites.Names(), ", "))
			}
			if modes {
				for _, m := range def.Modes {
					fmt.Fprintf(e.stdout, "%-20s %s\n", m.Name, m.Doc)
				}
				return nil
			}
			suite, err := loadSuite(def, corpusDir)
			if err != nil {
				return err
			}
			for _, c := range suite.Checks {
				fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", c.ID, c.LevelOf(), c.Doc)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&corpusDir, "corpus", "", "list the checks of the corpus in `DIR`")
	cmd.Flags().BoolVar(&modes, "modes", false, "list the built-in adapter's broken modes instead")
	return cmd
}

func newExplainCmd(e *env) *cobra.Command {
	var corpusDir string
	cmd := &cobra.Command{
		Use:   "explain CHECK-ID",
		Short: "Say what a check proves and how",
		Example: `  referee explain jcs/numbers/1e21
  referee explain jcs/rfc8785/weird --corpus ../shared/corpora/jcs`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			name, _, _ := strings.Cut(id, "/")
			def := suites.Find(name)
			if def == nil {
				return usageError("%q: no suite %q (suites: %s)", id, name, strings.Join(suites.Names(), ", "))
			}
			suite, err := loadSuite(def, corpusDir)
			if err != nil {
				return err
			}
			for _, c := range suite.Checks {
				if c.ID != id {
					continue
				}
				fmt.Fprintf(e.stdout, "%s\n  %s\n  level: %s\n", c.ID, c.Doc, c.LevelOf())
				if c.Clause != "" {
					fmt.Fprintf(e.stdout, "  requirement: %s\n", c.Clause)
				}
				if len(c.Needs) > 0 {
					fmt.Fprintf(e.stdout, "  needs the adapter op(s): %s\n", strings.Join(c.Needs, ", "))
				}
				if c.Explain != "" {
					for _, l := range strings.Split(strings.TrimRight(c.Explain, "\n"), "\n") {
						fmt.Fprintf(e.stdout, "  %s\n", l)
					}
				}
				fmt.Fprintf(e.stdout, "  corpus: %s (%s)\n", suite.Corpus, suite.CorpusDigest)
				return nil
			}
			return usageError("suite %s has no check %q (see referee list %s)", name, id, name)
		},
	}
	cmd.Flags().StringVar(&corpusDir, "corpus", "", "look the check up in the corpus in `DIR`")
	return cmd
}
