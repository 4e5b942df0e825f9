package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/internal/atomicfile"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/report"
)

func newDiffCmd(e *env) *cobra.Command {
	var format, out string
	var maxFileSize *byteSize
	cmd := &cobra.Command{
		Use:   "diff OLD.json NEW.json",
		Short: "Compare two JSON reports of one suite: what regressed, what was fixed, what is new",
		Long: `diff reads two JSON reports of the same suite (referee run ... --json FILE)
and lists the checks whose verdict moved, grouped: regressed (passed or
warned before, fails or errs now), fixed (failed or erred before, passes or
warns now), new and removed checks, and checks whose outcome or level
changed otherwise. A different corpus, suite version or implementation is
noted, not refused. Both reports are read as merge reads them: untrusted,
checked member by member.

EXIT STATUS
  0 nothing regressed, 1 a check regressed, 2 usage (a report unreadable,
  or the reports are of different suites)`,
		Example: `  referee run jcs --json old.json -- ./adapter-v1
  referee run jcs --json new.json -- ./adapter-v2
  referee diff old.json new.json
  referee diff old.json new.json --format markdown >> "$GITHUB_STEP_SUMMARY"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError("diff needs two JSON reports, the old and the new, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			write := map[string]func(io.Writer, *report.Diff) error{
				"text":     report.WriteDiffText,
				"markdown": report.WriteDiffMarkdown,
				"html":     report.WriteDiffHTML,
			}[format]
			if write == nil {
				return usageError("--format %s: want text, markdown or html", format)
			}
			if out != "" {
				if err := checkOutputs([]output{{flag: "out", path: out, report: true, file: true}}); err != nil {
					return err
				}
			}
			var reports [2]*report.Report
			for i, path := range args {
				data, err := regularfile.ReadFile(path, int64(*maxFileSize))
				if err != nil {
					return usageError("%v", err)
				}
				r, err := report.Read(data)
				if err != nil {
					return usageError("%s: %v", path, err)
				}
				reports[i] = r
			}
			d, err := report.Compare(reports[0], reports[1])
			if err != nil {
				return usageError("%s and %s: %v", termsafe.Line(args[0]), termsafe.Line(args[1]), err)
			}
			if out == "" {
				if err := write(e.stdout, d); err != nil {
					return err
				}
			} else {
				var b bytes.Buffer
				if err := write(&b, d); err != nil {
					return err
				}
				if err := atomicfile.Write(out, b.Bytes()); err != nil {
					return fmt.Errorf("--out %s: %w", out, err)
				}
			}
			if d.Regressed() {
				return &exitError{code: report.ExitFailed}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "text", "what to write: `text`, markdown or html")
	f.StringVarP(&out, "out", "o", "", "write the diff to `FILE` instead of stdout")
	maxFileSize = addMaxFileSize(f)
	return cmd
}
