package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/internal/atomicfile"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/report"
)

func newDiffCmd(e *env) *cobra.Command {
	var format, out string
	var maxFileSize *byteSize
	cmd := &cobra.Command{
		Use:   "diff OLD.json NEW.json",
		Short: "Compare two JSON reports (or two matrices) of one suite: what regressed, what was fixed, what is new",
		Long: `diff reads two JSON reports of the same suite (referee run ... --json FILE)
and lists the checks whose verdict moved, grouped: regressed (passed or
warned before, fails or errs now), fixed (failed or erred before, passes or
warns now), new and removed checks, and checks whose outcome or level
changed otherwise. A different corpus, suite version or implementation is
noted, not refused. Both reports are read as merge reads them: untrusted,
checked member by member.

Two matrices (referee-matrix/1, written by run --impl ... --json FILE) are
compared implementation by implementation, by name: each implementation in
both as two reports are, and the implementations only one of them holds
listed as new or removed.

EXIT STATUS
  0 nothing regressed, 1 a check regressed (of any implementation, for
  matrices), 2 usage (a document unreadable, or the two do not belong
  together: different suites, or a report and a matrix)`,
		Example: `  referee run jcs --json old.json -- ./adapter-v1
  referee run jcs --json new.json -- ./adapter-v2
  referee diff old.json new.json
  referee diff old.json new.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  referee diff old-matrix.json new-matrix.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError("diff needs two JSON reports (or two matrices), the old and the new, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" && format != "html" {
				return usageError("--format %s: want text, markdown or html", format)
			}
			if out != "" {
				if err := checkOutputs([]output{{flag: "out", path: out, report: true, file: true}}); err != nil {
					return err
				}
			}
			d, err := readDiff(args, int64(*maxFileSize))
			if err != nil {
				return err
			}
			if out == "" {
				if err := d.write(e.stdout, format); err != nil {
					return err
				}
			} else {
				var b bytes.Buffer
				if err := d.write(&b, format); err != nil {
					return err
				}
				if err := atomicfile.Write(out, b.Bytes()); err != nil {
					return fmt.Errorf("--out %s: %w", out, err)
				}
			}
			if d.regressed() {
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

// diffResult is what diff compared: two reports, or two matrices.
type diffResult struct {
	reports *report.Diff
	matrix  *report.MatrixDiff
}

func (d *diffResult) regressed() bool {
	if d.matrix != nil {
		return d.matrix.Regressed()
	}
	return d.reports.Regressed()
}

// write writes the diff in format: text, markdown or html.
func (d *diffResult) write(w io.Writer, format string) error {
	if d.matrix != nil {
		return map[string]func(io.Writer, *report.MatrixDiff) error{
			"text": report.WriteMatrixDiffText, "markdown": report.WriteMatrixDiffMarkdown, "html": report.WriteMatrixDiffHTML,
		}[format](w, d.matrix)
	}
	return map[string]func(io.Writer, *report.Diff) error{
		"text": report.WriteDiffText, "markdown": report.WriteDiffMarkdown, "html": report.WriteDiffHTML,
	}[format](w, d.reports)
}

// readDiff reads the documents at paths (the old, then the new), two
// reports or two matrices, and compares them. Its errors are usage errors
// naming the files.
func readDiff(paths []string, limit int64) (*diffResult, error) {
	var data [2][]byte
	var formats [2]string
	for i, path := range paths {
		b, err := regularfile.ReadFile(path, limit)
		if err != nil {
			return nil, usageError("%v", err)
		}
		if formats[i], err = report.FormatOf(b); err != nil {
			return nil, usageError("%s: %v", termsafe.Line(path), err)
		}
		data[i] = b
	}
	both := termsafe.Line(paths[0]) + " and " + termsafe.Line(paths[1])
	isMatrix := [2]bool{formats[0] == matrix.Format, formats[1] == matrix.Format}
	if isMatrix[0] != isMatrix[1] {
		m, r := 0, 1
		if isMatrix[1] {
			m, r = 1, 0
		}
		return nil, usageError("%s is a %s document and %s is not: diff compares two reports, or two matrices", termsafe.Line(paths[m]), matrix.Format, termsafe.Line(paths[r]))
	}
	if isMatrix[0] {
		var docs [2]*matrix.Document
		for i, path := range paths {
			doc, err := matrix.ReadDocument(data[i])
			if err != nil {
				return nil, usageError("%s: %v", termsafe.Line(path), err)
			}
			docs[i] = doc
		}
		m, err := report.CompareMatrices(docs[0].Implementations, docs[1].Implementations)
		if err != nil {
			return nil, usageError("%s: %v", both, err)
		}
		return &diffResult{matrix: m}, nil
	}
	var reports [2]*report.Report
	for i, path := range paths {
		r, err := report.Read(data[i])
		if err != nil {
			return nil, usageError("%s: %v", termsafe.Line(path), err)
		}
		reports[i] = r
	}
	d, err := report.Compare(reports[0], reports[1])
	if err != nil {
		return nil, usageError("%s: %v", both, err)
	}
	return &diffResult{reports: d}, nil
}
