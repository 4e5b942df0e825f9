package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/corpus"
)

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
				return err
			}
			if c.Manifest == nil {
				return usageError("corpus %s: no %s to verify against (write one with referee corpus lock)", args[0], corpus.ManifestName)
			}
			fmt.Fprintf(e.stdout, "corpus %s: %d files match %s (%s)\n", args[0], len(c.Files()), corpus.ManifestName, c.Digest)
			return nil
		},
	})
	return cmd
}
