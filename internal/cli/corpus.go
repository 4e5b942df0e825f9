package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/suites"
)

// manifestRules checks a manifest's members beyond its files against every
// suite that knows them: what the corpus is, and the rules it breaks.
func manifestRules(meta []canon.Member) (about []string, problems []corpus.Problem) {
	for _, def := range suites.All() {
		if def.Manifest == nil {
			continue
		}
		what, ps := def.Manifest(meta)
		if what == "" {
			continue
		}
		about = append(about, what)
		for _, p := range ps {
			problems = append(problems, corpus.Problem{Path: corpus.ManifestName, Msg: p})
		}
	}
	return about, problems
}

func newCorpusCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "corpus",
		Short: "Write or verify a corpus's manifest of SHA-256 digests",
		Example: `  referee corpus lock suites/jcs/corpus
  referee corpus verify suites/jcs/corpus`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "lock DIR",
		Short:   "Write DIR/manifest.json: every file's sha256, keeping other members",
		Example: "  referee corpus lock suites/jcs/corpus",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := corpus.Lock(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "corpus %s: %d files locked in %s\n", args[0], len(m.Files), corpus.ManifestName)
			return nil
		},
	}, &cobra.Command{
		Use:   "verify DIR",
		Short: "Check DIR against its manifest.json (exit 2 naming each file that differs)",
		Example: `  referee corpus verify suites/jcs/corpus
  referee corpus verify ../shared/corpora/cgp/contextgraph-1.0`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := corpus.OpenDir(args[0])
			if err != nil {
				// A fixture profile's own manifest rules are reported with the
				// files that differ, not after they are fixed.
				var ce *corpus.Error
				if errors.As(err, &ce) {
					if raw, rerr := os.ReadFile(filepath.Join(args[0], corpus.ManifestName)); rerr == nil {
						if m, merr := corpus.ParseManifest(raw); merr == nil {
							_, problems := manifestRules(m.Meta)
							ce.Problems = append(ce.Problems, problems...)
						}
					}
				}
				return err
			}
			if c.Manifest == nil {
				return usageError("corpus %s: no %s to verify against (write one with referee corpus lock)", args[0], corpus.ManifestName)
			}
			about, problems := manifestRules(c.Manifest.Meta)
			if len(problems) > 0 {
				return &corpus.Error{Corpus: args[0], Problems: problems}
			}
			for _, a := range about {
				fmt.Fprintf(e.stdout, "corpus %s: %s\n", args[0], a)
			}
			fmt.Fprintf(e.stdout, "corpus %s: %d files match %s (%s)\n", args[0], len(c.Files()), corpus.ManifestName, c.Digest)
			return nil
		},
	})
	return cmd
}
