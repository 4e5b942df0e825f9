package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/report"
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
	lock := &cobra.Command{
		Use:     "lock DIR",
		Short:   "Write DIR/manifest.json: every file's sha256, keeping other members",
		Example: "  referee corpus lock suites/jcs/corpus",
		Args:    cobra.ExactArgs(1),
	}
	lockMax := addMaxFileSize(lock.Flags())
	lock.RunE = func(cmd *cobra.Command, args []string) error {
		m, err := corpus.Lock(args[0], int64(*lockMax))
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "corpus %s: %s locked in %s\n", termsafe.Line(args[0]), report.Plural(len(m.Files), "file", "files"), corpus.ManifestName)
		return nil
	}
	verify := &cobra.Command{
		Use:   "verify DIR",
		Short: "Check DIR against its manifest.json (exit 2 naming each file that differs)",
		Example: `  referee corpus verify suites/jcs/corpus
  referee corpus verify ../shared/corpora/cgp/contextgraph-1.0`,
		Args: cobra.ExactArgs(1),
	}
	verifyMax := addMaxFileSize(verify.Flags())
	verify.RunE = func(cmd *cobra.Command, args []string) error {
		dir, limit := args[0], int64(*verifyMax)
		c, err := corpus.OpenDir(dir, limit)
		if err != nil {
			// A fixture profile's own manifest rules are reported with the
			// files that differ, not after they are fixed.
			var ce *corpus.Error
			if errors.As(err, &ce) {
				if raw, rerr := regularfile.ReadFile(filepath.Join(dir, corpus.ManifestName), limit); rerr == nil {
					if m, merr := corpus.ParseManifest(raw); merr == nil {
						_, problems := manifestRules(m.Meta)
						ce.Problems = append(ce.Problems, problems...)
					}
				}
			}
			return err
		}
		if c.Manifest == nil {
			return usageError("corpus %s: no %s to verify against (write one with referee corpus lock)", dir, corpus.ManifestName)
		}
		about, problems := manifestRules(c.Manifest.Meta)
		if len(problems) > 0 {
			return &corpus.Error{Corpus: dir, Problems: problems}
		}
		// What the manifest says of itself is the corpus's text, not referee's.
		for _, a := range about {
			fmt.Fprintf(e.stdout, "corpus %s: %s\n", termsafe.Line(dir), termsafe.Line(a))
		}
		fmt.Fprintf(e.stdout, "corpus %s: %s match %s (%s)\n", termsafe.Line(dir), report.Plural(len(c.Files()), "file", "files"), corpus.ManifestName, c.Digest)
		return nil
	}
	cmd.AddCommand(lock, verify)
	return cmd
}
