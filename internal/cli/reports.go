package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/pflag"

	"github.com/refereehq/referee/report"
)

// reportFlags are the report outputs `run` and `merge` share: what goes to
// stdout (--format) and the files written beside it.
type reportFlags struct {
	format                                     string
	json, junit, native, html, markdown, badge string
	noColor, quiet                             bool
}

// formats are the --format values; native only for a suite that has one.
var formats = []string{"text", "json", "junit", "markdown", "html", "native"}

func (r *reportFlags) add(f *pflag.FlagSet, native bool) {
	f.StringVar(&r.format, "format", "text", "what goes to stdout: text, json, junit, markdown, html, or native (the suite's own report, if it has one)")
	f.StringVar(&r.json, "json", "", "also write the JSON report to `FILE`")
	f.StringVar(&r.junit, "junit", "", "also write the JUnit XML report to `FILE`")
	if native {
		f.StringVar(&r.native, "native", "", "also write the suite's native report to `FILE`")
	}
	f.StringVar(&r.html, "html", "", "also write a self-contained HTML report (works offline) to `FILE`")
	f.StringVar(&r.markdown, "markdown", "", "also write a Markdown summary (for $GITHUB_STEP_SUMMARY) to `FILE`")
	f.StringVar(&r.badge, "badge", "", "also write a shields.io endpoint badge (JSON) to `FILE`")
	f.BoolVar(&r.noColor, "no-color", false, "no colour in text output (NO_COLOR is honoured too)")
	f.BoolVarP(&r.quiet, "quiet", "q", false, "list only the checks that did not pass")
}

func (r *reportFlags) validate() error {
	if !slices.Contains(formats, r.format) {
		return usageError("--format %q: want text, json, junit, markdown, html or native", r.format)
	}
	return nil
}

// outputs are the report files, for checking before anything runs.
func (r *reportFlags) outputs() []output {
	var outs []output
	for _, f := range []struct{ flag, path string }{{"json", r.json}, {"junit", r.junit}, {"native", r.native}, {"html", r.html}, {"markdown", r.markdown}, {"badge", r.badge}} {
		outs = append(outs, output{flag: f.flag, path: f.path, report: true, file: true})
	}
	return outs
}

// wantsNative says whether a native report was asked for.
func (r *reportFlags) wantsNative() bool { return r.format == "native" || r.native != "" }

// write writes rep as asked: the files first, so that a closed stdout does
// not cost them, then stdout. A report that cannot be written leaves no
// earlier run's file in its place. native renders the suite's own report.
func (r *reportFlags) write(e *env, rep *report.Report, native func() any) error {
	color := !r.noColor && os.Getenv("NO_COLOR") == "" && isTerminal(e.stdout)
	write := map[string]func(io.Writer) error{
		"json":     func(w io.Writer) error { return report.WriteJSON(w, rep) },
		"junit":    func(w io.Writer) error { return report.WriteJUnit(w, rep) },
		"native":   func(w io.Writer) error { return report.WriteNative(w, native()) },
		"html":     func(w io.Writer) error { return report.WriteHTML(w, rep) },
		"markdown": func(w io.Writer) error { return report.WriteMarkdown(w, rep, report.MarkdownOptions{}) },
		"badge":    func(w io.Writer) error { return report.WriteBadge(w, rep) },
		"text": func(w io.Writer) error {
			return report.WriteText(w, rep, report.TextOptions{Color: color, Passes: !r.quiet})
		},
	}
	return r.writeWith(e, write)
}

// writeWith writes each asked-for report with its writer: the files first,
// so that a closed stdout does not cost them, then stdout.
func (r *reportFlags) writeWith(e *env, write map[string]func(io.Writer) error) error {
	var failed []error
	for _, out := range r.outputs() {
		if out.path == "" {
			continue
		}
		var b bytes.Buffer
		err := write[out.flag](&b)
		if err == nil {
			err = writeFile(out.path, b.Bytes())
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("--%s: %w", out.flag, err))
			removeStale(e, []output{out})
		}
	}
	if err := write[r.format](e.stdout); err != nil {
		failed = append(failed, fmt.Errorf("writing the %s report: %w", r.format, err))
	}
	if len(failed) > 0 {
		return &exitError{code: report.ExitUsage, err: errors.Join(failed...)}
	}
	return nil
}
