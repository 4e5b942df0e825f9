package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

func profileVersion(m *corpus.Manifest) string {
	for _, mem := range m.Meta {
		if mem.Key == "protocol_version" {
			return mem.Value.Str
		}
	}
	return ""
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
						if m, merr := corpus.ParseManifest(raw); merr == nil && cgp.IsProfileManifest(m.Meta) {
							for _, p := range cgp.CheckProfileManifest(m.Meta) {
								ce.Problems = append(ce.Problems, corpus.Problem{Path: corpus.ManifestName, Msg: p})
							}
						}
					}
				}
				return err
			}
			if c.Manifest == nil {
				return usageError("corpus %s: no %s to verify against (write one with referee corpus lock)", args[0], corpus.ManifestName)
			}
			if cgp.IsProfileManifest(c.Manifest.Meta) {
				// A Context Graph fixture profile: its manifest's own rules too.
				var problems []corpus.Problem
				for _, p := range cgp.CheckProfileManifest(c.Manifest.Meta) {
					problems = append(problems, corpus.Problem{Path: corpus.ManifestName, Msg: p})
				}
				if len(problems) > 0 {
					return &corpus.Error{Corpus: args[0], Problems: problems}
				}
				fmt.Fprintf(e.stdout, "corpus %s: a Context Graph fixture profile for %s\n", args[0], profileVersion(c.Manifest))
			}
			fmt.Fprintf(e.stdout, "corpus %s: %d files match %s (%s)\n", args[0], len(c.Files()), corpus.ManifestName, c.Digest)
			return nil
		},
	})
	return cmd
}
