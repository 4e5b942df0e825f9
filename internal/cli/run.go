package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/internal/shell"
	"github.com/refereehq/referee/internal/term"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites"
)

// runOptions are the flags every `referee run SUITE` takes.
type runOptions struct {
	corpus   string
	run      []string
	skip     []string
	reports  reportFlags
	shard    string
	timeout  time.Duration
	url      string
	env      []string
	cleanEnv bool
	dir      string
	trace    string
	strict   bool
	mode     string
	parallel int
	argv     []string      // the adapter program, after --
	stderr   adapterStderr // --adapter-stderr
	impls    []string      // --impl NAME=COMMAND or NAME=url:URL: a matrix

	knownFailing  string // baseline files, see check.ParseBaseline
	knownFlaky    string
	writeBaseline string

	suiteFlags  func() check.FlagValues // the suite's own flags
	maxFileSize *byteSize               // the cap on each file read
}

func newRunCmd(e *env, withSuites bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run SUITE [flags] [-- PROGRAM ARGS...]",
		Short: "Run a suite against an implementation (the built-in one by default)",
		Long: `run executes a suite's checks against an implementation under test.

The implementation is, in order of precedence: the adapter program after --
(started without a shell, speaking referee-adapter/1 on stdio), the adapter
service at --url, or the suite's built-in Go reference implementation.

EXIT STATUS
  0  no must or may check failed or ended in error, and at least one check
     was judged (passed, or failed at should level: a warning); --strict: no
     not-checked and no failed should check either
  1  a must or may check failed or ended in error, or nothing was judged
  2  usage, configuration or corpus error
  3  the implementation could not be started, the run gave up after faults,
     or it was interrupted

FLAGS OF EVERY run SUITE (run SUITE --help adds the suite's own)
`,
		Example: `  referee run jcs
  referee run jcs -- node examples/adapters/node/jcs.mjs
  referee run jcs --format junit --json report.json -- python3 examples/adapters/python/jcs.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("run needs a suite: %s", strings.Join(suites.Names(), ", "))
			}
			return unknownSuite(args[0])
		},
	}
	// The flags' help is built when help is asked for, not at every start.
	help, flagsAdded := cmd.HelpFunc(), false
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == cmd && !flagsAdded {
			cmd.Long += commonRunFlags()
			flagsAdded = true
		}
		help(c, args)
	})
	if !withSuites {
		return cmd
	}
	for _, def := range suites.All() {
		cmd.AddCommand(newRunSuiteCmd(e, def))
	}
	return cmd
}

func newRunSuiteCmd(e *env, def *check.Definition) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:     def.Name + " [flags] [-- PROGRAM ARGS...]",
		Short:   def.Summary,
		Long:    def.Help,
		Example: examples(def.Examples),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash != 0 && len(args) > 0 {
				return dashFix(e.args, args[0])
			}
			o.argv = args
			if len(o.impls) > 0 {
				return runMatrix(cmd.Context(), e, def, o)
			}
			return runSuite(cmd.Context(), e, def, o)
		},
	}
	o.addFlags(cmd.Flags(), def)
	cmd.RegisterFlagCompletionFunc("mode", completeModes(def))
	cmd.RegisterFlagCompletionFunc("run", completeSelection(def))
	cmd.RegisterFlagCompletionFunc("skip", completeSelection(def))
	return cmd
}

// addFlags declares the flags of `run SUITE` on f: those every suite takes,
// then def's own.
func (o *runOptions) addFlags(f *pflag.FlagSet, def *check.Definition) {
	if def.Corpus != "" {
		f.StringVar(&o.corpus, "corpus", "", "run the corpus in `DIR` instead of the suite's embedded one")
	}
	repeatedVar(f, &o.run, "run", "run only checks whose ID matches `PATTERN` (segments; * one, ** any; repeatable)")
	repeatedVar(f, &o.skip, "skip", "skip checks whose ID matches `PATTERN` (repeatable)")
	o.reports.add(f, true)
	f.StringVar(&o.shard, "shard", "", "run only shard `I/N` of the selected checks (1 ≤ I ≤ N, by a hash of each check ID), for referee merge")
	// A live suite's timeouts are its protocol's and its exchanges run one
	// at a time: --timeout and --parallel would do nothing there, so they
	// are not offered (--parallel still sets how many --impl run at once).
	o.timeout = defaultTimeout
	if !def.Live {
		f.DurationVar(&o.timeout, "timeout", defaultTimeout, "per-call timeout")
	}
	f.StringVar(&o.url, "url", "", "POST requests to the implementation at `URL`")
	repeatedVar(f, &o.env, "env", "set `KEY=VALUE` in the adapter's environment (repeatable)")
	f.BoolVar(&o.cleanEnv, "clean-env", false, "start the adapter with PATH and HOME only (and SystemRoot on Windows), plus --env")
	f.StringVar(&o.dir, "dir", "", "start the adapter in `DIR`")
	f.StringVar(&o.trace, "trace", "", "write the whole transcript, every line each way, to `FILE`")
	o.stderr.add(f)
	f.BoolVar(&o.strict, "strict", false, "a not-checked result or a failed should check blocks conformance (exit 1)")
	f.StringVar(&o.knownFailing, "known-failing", "", "the checks the implementation is known to fail, one ID pattern per line in `FILE`: they must fail (one that passes is stale and fails the run), and do not block the exit status")
	f.StringVar(&o.knownFlaky, "known-flaky", "", "the checks known to be flaky, one ID pattern per line in `FILE`: they may fail")
	f.StringVar(&o.writeBaseline, "write-known-failing", "", "after a complete run, write every check that failed to `FILE`, ready for --known-failing")
	f.StringVar(&o.mode, "mode", "", "run the built-in implementation in a deliberately broken `MODE` (see referee list "+def.Name+" --modes)")
	o.suiteFlags = addFlags(f, def.Flags)
	o.maxFileSize = addMaxFileSize(f)
	parallel := "checks in flight at once, at most the adapter's declared concurrency (the default); with --impl, also implementations run at once (0: all)"
	if def.Live {
		parallel = "with --impl, implementations run at once (0: all); the checks of each run one at a time"
	}
	f.IntVar(&o.parallel, "parallel", 0, parallel)
	repeatedVar(f, &o.impls, "impl", implFlagUsage)
}

// defaultTimeout bounds each call to an adapter unless --timeout says
// otherwise.
const defaultTimeout = 10 * time.Second

// commonRunFlags is the help text of the flags every `run SUITE` takes.
func commonRunFlags() string {
	f := pflag.NewFlagSet("run", pflag.ContinueOnError)
	(&runOptions{}).addFlags(f, &check.Definition{Name: "SUITE", Corpus: "a corpus directory"})
	return f.FlagUsages()
}

func examples(ex []string) string {
	lines := make([]string, len(ex))
	for i, l := range ex {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// validate checks flags that cannot be combined, before anything runs.
func (o *runOptions) validate() error {
	if err := o.reports.validate(); err != nil {
		return err
	}
	for _, kv := range o.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usageError("--env %q: want KEY=VALUE", kv)
		}
	}
	if o.timeout <= 0 {
		return usageError("--timeout must be positive")
	}
	return nil
}

// spec is the implementation under test, from the flags.
func (o *runOptions) spec(e *env, def *check.Definition) check.Spec {
	who := "adapter: "
	if def.Live {
		who = "provider: "
	}
	// The implementation's stderr, where --adapter-stderr says: its lines
	// cannot pass for referee's.
	return check.Spec{Argv: o.argv, URL: o.url, Dir: o.dir, Env: o.childEnv(), UserEnv: o.env, Mode: o.mode, Stderr: writer(o.stderr.sink(termsafe.NewShared(e.stderr)), who)}
}

// reproEnv is what a repro command puts after `env`.
func (o *runOptions) reproEnv() []string {
	var words []string
	if o.cleanEnv {
		words = append(words, "-i", `PATH="$PATH"`, `HOME="$HOME"`)
	}
	for _, kv := range o.env {
		words = append(words, shell.Quote(kv))
	}
	return words
}

// outputs lists the paths a run writes: its reports, its trace, its
// baseline and the suite's own files.
func (o *runOptions) outputs(def *check.Definition) []output {
	outs := append(o.reports.outputs(),
		output{flag: "trace", path: o.trace, file: true, stream: true},
		o.stderr.output(),
		output{flag: "write-known-failing", path: o.writeBaseline, file: true})
	return append(outs, suiteOutputs(def.Flags, o.suiteFlags())...)
}

func runSuite(ctx context.Context, e *env, def *check.Definition, o *runOptions) error {
	// A run that ends before its reports are written leaves none of an
	// earlier run's in their place.
	outs := o.outputs(def)
	reported := false
	defer func() {
		if !reported {
			removeStale(e, outs)
		}
	}()
	if err := o.validate(); err != nil {
		return err
	}
	if def.Live && o.parallel != 0 {
		return usageError("--parallel: %s's checks run one at a time; --parallel sets how many --impl implementations run at once", def.Name)
	}
	if err := checkOutputs(outs); err != nil {
		return err
	}
	if err := o.stderr.open(); err != nil {
		return err
	}
	defer o.stderr.close()
	opts := run.Options{
		Corpus: o.corpus, Flags: o.suiteFlags(), Select: o.run, Skip: o.skip,
		KnownFailing: o.knownFailing, KnownFlaky: o.knownFlaky, MaxFileSize: int64(*o.maxFileSize),
		Strict: o.strict, Parallel: o.parallel, Timeout: o.timeout, Compact: true,
		Tool: report.Tool{Name: "referee", Version: versionString()}, ReproEnv: o.reproEnv(),
	}
	if o.shard != "" {
		sh, err := run.ParseShard(o.shard)
		if err != nil {
			return err
		}
		opts.Shard = sh
	}
	if isTerminal(e.stderr) {
		opts.Progress = func(done, total int, r check.Result) {
			fmt.Fprintf(e.stderr, "\r\033[K[%d/%d] %s", done, total, termsafe.Line(r.ID))
			if done == total {
				fmt.Fprint(e.stderr, "\r\033[K")
			}
		}
	}
	plan, err := run.Prepare(def, o.spec(e, def), opts)
	if err != nil {
		return err
	}
	if o.reports.wantsNative() {
		if plan.Loaded.Native == nil {
			return usageError("suite %s has no native report format; use --format json", def.Name)
		}
	}
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return usageError("--trace: %v", err)
		}
		defer f.Close()
		plan.Spec.Trace = adapter.NewTrace(f)
	}
	res := plan.Execute(ctx)
	if res.StartErr != nil {
		// The error may quote the implementation (a hello refusal).
		fmt.Fprintf(e.stderr, "referee: the implementation could not be started: %s\n", termsafe.Line(res.StartErr.Error()))
		if hint := startHint(res.StartErr, o.argv, o.dir); hint != "" {
			fmt.Fprintf(e.stderr, "referee: hint: %s\n", hint)
		}
		var se *adapter.StartError
		if errors.As(res.StartErr, &se) {
			fmt.Fprintf(e.stderr, "referee: its stderr:\n%s\n", lastLinesText(se.Stderr, 10))
		}
	} else if !res.Execution.Complete && ctx.Err() != nil {
		fmt.Fprintf(e.stderr, "referee: interrupted; the verdicts above are not a conformance result\n")
	}
	reported = true
	native := func() any { doc, _ := res.Native(); return doc }
	if err := o.reports.write(e, res.Report, native); err != nil {
		return err
	}
	notes, err := res.Finish(o.writeBaseline)
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "referee: %s\n", termsafe.Line(n))
	}
	code := res.ExitCode()
	if err != nil {
		if code != report.ExitOK {
			// The run's own verdict stands; say why the file was not written.
			fmt.Fprintf(e.stderr, "referee: %v\n", err)
			return &exitError{code: code}
		}
		return &exitError{code: report.ExitUsage, err: err}
	}
	if code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// childEnv is the adapter's environment: nil inherits referee's.
func (o *runOptions) childEnv() []string {
	if !o.cleanEnv && len(o.env) == 0 {
		return nil
	}
	env := os.Environ()
	if o.cleanEnv {
		env = child.CleanEnv()
	}
	return append(env, o.env...)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsANSI(f)
}

// lastLinesText is at most n lines of an implementation's stderr, the
// error it names and its end (report.StderrExcerpt), each made safe and
// indented.
func lastLinesText(s string, n int) string {
	return "  " + strings.Join(report.StderrExcerpt(s, n), "\n  ")
}
