package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/merge"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites"
)

func newMergeCmd(e *env) *cobra.Command {
	var r reportFlags
	var knownFailing, knownFlaky string
	var maxFileSize *byteSize
	cmd := &cobra.Command{
		Use:   "merge REPORT.json...",
		Short: "Merge the JSON reports of a sharded run (or matrices) into one, and judge it",
		Long: `merge reads the JSON reports of the shards of one run (referee run ...
--shard I/N --json FILE) and writes one report, in every format run writes.

It refuses, naming the files (exit 2), reports whose suite, suite version,
corpus digest, implementation, strictness, --run/--skip selection, tool or
report format differ, a check that appears twice, and a shard given twice.
When a shard is missing, a check the selection selects is in no report (the
whole suite, for reports that record no selection), or a shard's run was
incomplete, the merged report is incomplete (exit 3).
Baselines (--known-failing, --known-flaky) are applied to the merged run,
stale entries included, as run applies them to a whole one. referee-matrix/1
documents merge too, implementation by implementation.

EXIT STATUS
  as referee run: 0 conformant, 1 not, 2 usage, 3 incomplete`,
		Example: `  referee run jcs --shard 1/2 --json s1.json && referee run jcs --shard 2/2 --json s2.json
  referee merge s1.json s2.json --junit junit.xml --html report.html --markdown "$GITHUB_STEP_SUMMARY"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("merge needs the JSON reports to merge")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := r.validate(); err != nil {
				return err
			}
			if r.wantsNative() {
				return usageError("merge writes no native report: each suite's native shape comes from its own run")
			}
			outs := r.outputs()
			if err := checkOutputs(outs); err != nil {
				return err
			}
			res, err := merge.Files(args, merge.Options{KnownFailing: knownFailing, KnownFlaky: knownFlaky, MaxFileSize: int64(*maxFileSize), Suite: suiteOrder})
			if err != nil {
				removeStale(e, outs)
				return err
			}
			for _, n := range res.Notes {
				fmt.Fprintf(e.stderr, "referee: merge: %s\n", termsafe.Line(n))
			}
			if res.Matrix != nil {
				if err := writeMergedMatrix(e, &r, res.Matrix); err != nil {
					return err
				}
			} else if err := r.write(e, res.Report, nil); err != nil {
				return err
			}
			if code := res.ExitCode(); code != report.ExitOK {
				return &exitError{code: code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	r.add(f, false)
	f.StringVar(&knownFailing, "known-failing", "", "judge the merged run against the checks known to fail, one ID pattern per line in `FILE`")
	f.StringVar(&knownFlaky, "known-flaky", "", "the checks known to be flaky, one ID pattern per line in `FILE`")
	maxFileSize = addMaxFileSize(f)
	return cmd
}

// suiteOrder gives the merge a suite's check IDs in the suite's order, when
// referee has that suite with the reports' corpus embedded.
func suiteOrder(s report.Suite) []string {
	def := suites.Find(s.Name)
	if def == nil || (def.Embedded == "" && def.Corpus != "") {
		return nil
	}
	l, err := def.Load(check.LoadOptions{})
	if err != nil || l.Suite.CorpusDigest != s.CorpusDigest {
		return nil
	}
	ids := make([]string, len(l.Suite.Checks))
	for i, c := range l.Suite.Checks {
		ids[i] = c.ID
	}
	return ids
}

// writeMergedMatrix writes a merged matrix: JSON, HTML and Markdown.
func writeMergedMatrix(e *env, r *reportFlags, m *matrix.Document) error {
	write := map[string]func(io.Writer) error{
		"json": func(w io.Writer) error { return report.WriteNative(w, m) },
		"html": func(w io.Writer) error { return report.WriteHTMLMatrix(w, m.Implementations) },
		"markdown": func(w io.Writer) error {
			return report.WriteMarkdownMatrix(w, m.Implementations, report.MarkdownOptions{})
		},
	}
	for _, out := range r.outputs() {
		if out.path == "" {
			continue
		}
		if write[out.flag] == nil {
			return usageError("--%s: a merged matrix is written as json, html or markdown", out.flag)
		}
	}
	if write[r.format] == nil {
		return usageError("--format %s: a merged matrix is written as json, html or markdown", r.format)
	}
	return r.writeWith(e, write)
}
