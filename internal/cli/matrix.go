package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// implFlagUsage is the help of `run SUITE --impl`.
const implFlagUsage = "run the checks against each implementation `NAME=COMMAND` (COMMAND split as a shell splits words, run without one) or NAME=url:URL (an adapter over HTTP); repeatable: the output is a check × implementation matrix, --parallel implementations at once"

// runMatrix is `referee run SUITE --impl NAME=... ...`: the same selected
// checks against every implementation, each through the run pipeline with
// its own full report, laid out as a matrix (package matrix).
func runMatrix(ctx context.Context, e *env, def *check.Definition, o *runOptions) error {
	r := &o.reports
	switch {
	case len(o.argv) > 0 || o.url != "" || o.mode != "":
		return usageError("--impl names every implementation: not with --url, --mode or a program after --")
	case r.format == "junit" || r.format == "native":
		return usageError("--format %s: a matrix is written as text, json, markdown or html", r.format)
	case r.junit != "" || r.native != "" || r.badge != "" || o.writeBaseline != "" || o.trace != "":
		return usageError("--junit, --native, --badge, --write-known-failing and --trace apply to one implementation, not to --impl")
	}
	if err := o.validate(); err != nil {
		return err
	}
	if err := checkOutputs(o.outputs(def)); err != nil {
		return err
	}
	impls, err := matrix.ParseImpls(o.impls)
	if err != nil {
		return err
	}
	// Every implementation's stderr and referee's own lines share stderr
	// line by line: a line one of them has begun is cut before another's
	// goes out, so none can begin a line without its own prefix.
	stderr := termsafe.NewShared(e.stderr)
	say := stderr.Writer("referee: ")
	if err := o.stderr.open(); err != nil {
		return err
	}
	defer o.stderr.close()
	// --adapter-stderr FILE: the implementations share the file as they
	// would share stderr, line by line, each line prefixed with its name.
	sink := o.stderr.sink(stderr)
	for i := range impls {
		if impls[i].Spec.URL == "" {
			impls[i].Spec.Dir, impls[i].Spec.Env, impls[i].Spec.UserEnv = o.dir, o.childEnv(), o.env
			impls[i].Spec.Stderr = writer(sink, impls[i].Name+": ")
		}
	}
	mo := matrix.Options{
		RunOptions: run.Options{
			Corpus: o.corpus, Flags: o.suiteFlags(), Select: o.run, Skip: o.skip,
			KnownFailing: o.knownFailing, KnownFlaky: o.knownFlaky, MaxFileSize: int64(*o.maxFileSize),
			Strict: o.strict, Parallel: o.parallel, Timeout: o.timeout,
			Tool: report.Tool{Name: "referee", Version: versionString()}, ReproEnv: o.reproEnv(),
		},
		Parallel: o.parallel,
	}
	if o.shard != "" {
		sh, err := run.ParseShard(o.shard)
		if err != nil {
			return err
		}
		mo.RunOptions.Shard = sh
	}
	if isTerminal(e.stderr) {
		mo.Finished = func(name string, res *run.Result) {
			fmt.Fprintf(say, "%s: exit %d\n", name, res.ExitCode())
		}
	}
	m, err := matrix.Build(ctx, def, impls, mo)
	if err != nil {
		return err
	}
	for _, im := range m.Impls {
		if im.Result.Interrupted {
			fmt.Fprintf(say, "%s %s\n", im.Name, check.InterruptedReason)
		}
		if im.Result.StartErr != nil {
			// One line: the error may quote the implementation (a hello refusal).
			fmt.Fprintf(say, "%s could not be started: %s\n", im.Name, termsafe.Line(im.Result.StartErr.Error()))
		}
	}
	color := !r.noColor && os.Getenv("NO_COLOR") == "" && isTerminal(e.stdout)
	reports := m.Document().Implementations
	err = r.writeWith(e, map[string]func(io.Writer) error{
		"json": func(w io.Writer) error { return matrix.WriteJSON(w, m) },
		"text": func(w io.Writer) error {
			return matrix.WriteText(w, m, matrix.TextOptions{Color: color, Quiet: r.quiet})
		},
		"html":     func(w io.Writer) error { return report.WriteHTMLMatrix(w, reports) },
		"markdown": func(w io.Writer) error { return report.WriteMarkdownMatrix(w, reports, report.MarkdownOptions{}) },
	})
	if err != nil {
		return err
	}
	if code := m.ExitCode(); code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}
