package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

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
				for _, s := range suiteDefs() {
					fmt.Fprintf(e.stdout, "%-12s %s\n", s.name, s.short)
				}
				return nil
			}
			def := findSuite(args[0])
			if def == nil {
				return usageError("unknown suite %q (suites: %s)", args[0], strings.Join(suiteNames(), ", "))
			}
			if modes {
				for _, m := range def.modes {
					fmt.Fprintf(e.stdout, "%-20s %s\n", m.name, m.doc)
				}
				return nil
			}
			suite, err := def.load(corpusDir)
			if err != nil {
				return err
			}
			for _, c := range suite.Checks {
				fmt.Fprintf(e.stdout, "%s\t%s\n", c.ID, c.Doc)
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
			def := findSuite(name)
			if def == nil {
				return usageError("%q: no suite %q (suites: %s)", id, name, strings.Join(suiteNames(), ", "))
			}
			suite, err := def.load(corpusDir)
			if err != nil {
				return err
			}
			for _, c := range suite.Checks {
				if c.ID != id {
					continue
				}
				fmt.Fprintf(e.stdout, "%s\n  %s\n", c.ID, c.Doc)
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
