package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
)

// runOptions are the flags every `referee run SUITE` takes.
type runOptions struct {
	corpus   string
	run      []string
	skip     []string
	format   string
	jsonOut  string
	junitOut string
	native   string
	timeout  time.Duration
	url      string
	env      []string
	cleanEnv bool
	dir      string
	trace    string
	strict   bool
	noColor  bool
	quiet    bool
	mode     string
	parallel int
	argv     []string // the adapter program, after --

	knownFailing  string // baseline files, see check.ParseBaseline
	knownFlaky    string
	writeBaseline string
	failing       []check.BaselineEntry
	flaky         []check.BaselineEntry

	helloArgs map[string]string // the suite's extra hello args
	extraEnv  []string          // the suite's extra environment for a child adapter
}

func newRunCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run SUITE [flags] [-- PROGRAM ARGS...]",
		Short: "Run a suite against an implementation (the built-in one by default)",
		Long: `run executes a suite's checks against an implementation under test.

The implementation is, in order of precedence: the adapter program after --
(started without a shell, speaking referee-adapter/1 on stdio), the adapter
service at --url, or the suite's built-in Go reference implementation.

EXIT STATUS
  0  every selected check passed or was not-checked, and at least one passed
     (--strict: no not-checked either)
  1  a check failed or ended in error, or nothing was checked
  2  usage, configuration or corpus error
  3  the implementation could not be started, or the run gave up after faults`,
		Example: `  referee run jcs
  referee run jcs -- node examples/adapters/node/jcs.mjs
  referee run jcs --format junit --json report.json -- python3 examples/adapters/python/jcs.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("run needs a suite: %s", strings.Join(suiteNames(), ", "))
			}
			return usageError("unknown suite %q (suites: %s)", args[0], strings.Join(suiteNames(), ", "))
		},
	}
	for _, def := range suiteDefs() {
		cmd.AddCommand(newRunSuiteCmd(e, def))
	}
	return cmd
}

func suiteNames() []string {
	var names []string
	for _, s := range suiteDefs() {
		names = append(names, s.name)
	}
	return names
}

func newRunSuiteCmd(e *env, def *suiteDef) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:     def.name + " [flags] [-- PROGRAM ARGS...]",
		Short:   def.short,
		Long:    def.long,
		Example: def.example,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash != 0 && len(args) > 0 {
				return usageError("unexpected argument %q: put the adapter program after --", args[0])
			}
			o.argv = args
			return runSuite(cmd.Context(), e, def, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.corpus, "corpus", "", "run the corpus in `DIR` instead of the suite's embedded one")
	f.StringArrayVar(&o.run, "run", nil, "run only checks whose ID matches `PATTERN` (segments; * one, ** any; repeatable)")
	f.StringArrayVar(&o.skip, "skip", nil, "skip checks whose ID matches `PATTERN` (repeatable)")
	f.StringVar(&o.format, "format", "text", "what goes to stdout: text, json, junit or native")
	f.StringVar(&o.jsonOut, "json", "", "also write the JSON report to `FILE`")
	f.StringVar(&o.junitOut, "junit", "", "also write the JUnit XML report to `FILE`")
	f.StringVar(&o.native, "native", "", "also write the suite's native report to `FILE`")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-call timeout")
	f.StringVar(&o.url, "url", "", "POST requests to the adapter service at `URL`")
	f.StringArrayVar(&o.env, "env", nil, "set `KEY=VALUE` in the adapter's environment (repeatable)")
	f.BoolVar(&o.cleanEnv, "clean-env", false, "start the adapter with PATH and HOME only (and SystemRoot on Windows), plus --env")
	f.StringVar(&o.dir, "dir", "", "start the adapter in `DIR`")
	f.StringVar(&o.trace, "trace", "", "write the whole transcript, every line each way, to `FILE`")
	f.BoolVar(&o.strict, "strict", false, "a not-checked result blocks conformance (exit 1)")
	f.BoolVar(&o.noColor, "no-color", false, "no colour in text output (NO_COLOR is honoured too)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "list only the checks that did not pass")
	f.StringVar(&o.knownFailing, "known-failing", "", "the checks the implementation is known to fail, one ID pattern per line in `FILE`: they must fail (one that passes is stale and fails the run), and do not block the exit status")
	f.StringVar(&o.knownFlaky, "known-flaky", "", "the checks known to be flaky, one ID pattern per line in `FILE`: they may fail")
	f.StringVar(&o.writeBaseline, "write-known-failing", "", "after a complete run, write every check that failed to `FILE`, ready for --known-failing")
	f.StringVar(&o.mode, "mode", "", "run the built-in adapter in a deliberately broken `MODE` (see referee list "+def.name+" --modes)")
	if def.flags != nil {
		def.flags(f)
	}
	f.IntVar(&o.parallel, "parallel", 0, "checks in flight at once, at most the adapter's declared concurrency (the default)")
	return cmd
}

// validate checks flags that cannot be combined.
func (o *runOptions) validate(def *suiteDef) error {
	switch o.format {
	case "text", "json", "junit":
	case "native":
		if def.native == nil {
			return usageError("suite %s has no native report format; use --format json", def.name)
		}
	default:
		return usageError("--format %q: want text, json, junit or native", o.format)
	}
	if o.native != "" && def.native == nil {
		return usageError("suite %s has no native report format", def.name)
	}
	if o.url != "" && len(o.argv) > 0 {
		return usageError("give either --url or an adapter program after --, not both")
	}
	if o.mode != "" && (o.url != "" || len(o.argv) > 0) {
		return usageError("--mode applies to the built-in adapter only")
	}
	// A live suite's built-in implementation is a child too (cgp: referee serve cgp).
	childByDefault := def.live != nil && o.url == ""
	if len(o.argv) == 0 && !childByDefault && (len(o.env) > 0 || o.cleanEnv || o.dir != "") {
		return usageError("--env, --clean-env and --dir apply to an adapter program after --")
	}
	for _, kv := range o.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usageError("--env %q: want KEY=VALUE", kv)
		}
	}
	if o.timeout <= 0 {
		return usageError("--timeout must be positive")
	}
	if o.parallel < 0 {
		return usageError("--parallel %d: want a positive number, or 0 for the adapter's concurrency", o.parallel)
	}
	if o.url != "" {
		u, err := url.Parse(o.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError("--url %q: want an http:// or https:// URL", o.url)
		}
	}
	return nil
}

func runSuite(ctx context.Context, e *env, def *suiteDef, o *runOptions) error {
	if err := o.validate(def); err != nil {
		return err
	}
	suite, err := def.load(o.corpus)
	if err != nil {
		return err
	}
	checks, err := check.Select(suite.Checks, o.run, o.skip)
	if err != nil {
		return &exitError{code: report.ExitUsage, err: err}
	}
	if err := o.readBaselines(suite.Checks); err != nil {
		return err
	}
	if def.live != nil {
		return def.live(ctx, e, o, suite, checks)
	}

	var trace *adapter.Trace
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return usageError("--trace: %v", err)
		}
		defer f.Close()
		trace = adapter.NewTrace(f)
	}
	var helloArgs map[string]string
	if def.adapterContext != nil {
		var env []string
		helloArgs, env = def.adapterContext()
		o.extraEnv = env
	}
	o.helloArgs = helloArgs
	start, impl, err := o.starter(def, e, trace)
	if err != nil {
		return err
	}
	client, err := adapter.Dial(ctx, start, def.name, adapter.Options{Timeout: o.timeout, Trace: trace, HelloArgs: helloArgs})
	var run *check.Run
	if err != nil {
		run = unstarted(checks, err)
		fmt.Fprintf(e.stderr, "referee: the implementation could not be started: %v\n", err)
		var se *adapter.StartError
		if errors.As(err, &se) {
			fmt.Fprintf(e.stderr, "referee: its stderr ended with:\n%s\n", lastLinesText(se.Stderr, 10))
		}
	} else {
		defer client.Close()
		h := client.Hello()
		impl.Name, impl.Version, impl.Ops = h.Name, h.Version, h.Ops
		opt := check.Options{Parallel: o.parallel, Repro: o.repro(def)}
		if isTerminal(e.stderr) {
			opt.Progress = func(done, total int, r check.Result) {
				fmt.Fprintf(e.stderr, "\r\033[K[%d/%d] %s", done, total, r.ID)
				if done == total {
					fmt.Fprint(e.stderr, "\r\033[K")
				}
			}
		}
		run = check.Execute(ctx, client, checks, opt)
	}
	rep := o.newReport(suite, impl, run)
	if err := o.writeReports(e, def, rep, run); err != nil {
		return err
	}
	if err := o.writeFailing(e, suite, run); err != nil {
		return &exitError{code: report.ExitUsage, err: err}
	}
	if def.after != nil {
		if err := def.after(run, impl, len(checks) == len(suite.Checks)); err != nil {
			if code := rep.ExitCode(); code != report.ExitOK {
				// The run's own verdict stands; say why the file was not written.
				fmt.Fprintf(e.stderr, "referee: %v\n", err)
				return &exitError{code: code}
			}
			return &exitError{code: report.ExitUsage, err: err}
		}
	}
	if code := rep.ExitCode(); code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// readBaselines reads --known-failing and --known-flaky; a pattern that
// selects none of the suite's checks is a usage error, naming its file and
// line (entries outside a --run selection are fine).
func (o *runOptions) readBaselines(checks []check.Check) error {
	read := func(path string) ([]check.BaselineEntry, error) {
		if path == "" {
			return nil, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, usageError("baseline: %v", err)
		}
		entries, err := check.ParseBaseline(path, data)
		if err != nil {
			return nil, usageError("baseline %v", err)
		}
		if bad := check.UnmatchedEntries(entries, checks); len(bad) > 0 {
			var lines []string
			for _, b := range bad {
				lines = append(lines, fmt.Sprintf("%s: %s selects no check of the suite (a pattern names whole IDs; end it with /** for a subtree)", b.Where, b.Pattern))
			}
			return nil, usageError("the baseline is out of date:\n  %s", strings.Join(lines, "\n  "))
		}
		return entries, nil
	}
	var err error
	if o.failing, err = read(o.knownFailing); err != nil {
		return err
	}
	o.flaky, err = read(o.knownFlaky)
	return err
}

// newReport builds the run's report, judged against the baseline if one
// was given.
func (o *runOptions) newReport(suite *check.Suite, impl report.Implementation, run *check.Run) *report.Report {
	tool := report.Tool{Name: "referee", Version: versionString()}
	s := report.Suite{Name: suite.Name, Version: suite.Version, Corpus: suite.Corpus, CorpusDigest: suite.CorpusDigest}
	if o.knownFailing == "" && o.knownFlaky == "" {
		return report.New(tool, s, impl, run, o.strict)
	}
	stale := check.ApplyBaseline(run, o.failing, o.flaky)
	return report.WithBaseline(tool, s, impl, run, o.strict, stale)
}

// writeFailing writes --write-known-failing from a complete run.
func (o *runOptions) writeFailing(e *env, suite *check.Suite, run *check.Run) error {
	if o.writeBaseline == "" {
		return nil
	}
	if !run.Complete {
		fmt.Fprintf(e.stderr, "referee: --write-known-failing: the run did not finish, so %s was not written\n", o.writeBaseline)
		return nil
	}
	if len(run.Results) != len(suite.Checks) {
		fmt.Fprintf(e.stderr, "referee: --write-known-failing: --run/--skip selected %d of the suite's %d checks, so %s was not written (it would forget the others)\n", len(run.Results), len(suite.Checks), o.writeBaseline)
		return nil
	}
	header := fmt.Sprintf("referee %s: the checks of suite %s this implementation is known to fail.\nRun with --known-failing %s; remove a line once its check passes.", versionString(), suite.Name, o.writeBaseline)
	if err := os.WriteFile(o.writeBaseline, check.FailingBaseline(run, header), 0o644); err != nil {
		return fmt.Errorf("--write-known-failing: %w", err)
	}
	return nil
}

// unstarted is the run of an implementation that never said hello: every
// selected check is an error and the run is incomplete.
func unstarted(checks []check.Check, err error) *check.Run {
	var ev check.Evidence
	var se *adapter.StartError
	if errors.As(err, &se) {
		ev.Stderr = se.Stderr
	}
	var f *adapter.Fault
	if errors.As(err, &f) && len(f.Line) > 0 {
		ev.Notes = []string{fmt.Sprintf("offending line: %q", f.Line)}
	}
	results := make([]check.Result, len(checks))
	for i, c := range checks {
		results[i] = check.Result{ID: c.ID, Status: check.Error, Reason: "not run: the implementation could not be started: " + err.Error(), Evidence: ev}
	}
	return &check.Run{Results: results, Complete: false, Started: time.Now()}
}

// starter picks the implementation under test from the flags.
func (o *runOptions) starter(def *suiteDef, e *env, trace *adapter.Trace) (adapter.Starter, report.Implementation, error) {
	switch {
	case len(o.argv) > 0:
		cfg := adapter.ProcessConfig{Argv: o.argv, Dir: o.dir, Env: o.childEnv(), Stderr: prefixWriter(e.stderr, "adapter: "), Trace: trace}
		start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
		return start, report.Implementation{Transport: "stdio", Command: o.argv}, nil
	case o.url != "":
		h := &adapter.HTTP{URL: o.url, Trace: trace}
		start := func(ctx context.Context) (adapter.Conn, error) { return h, nil }
		return start, report.Implementation{Transport: "http", URL: o.url}, nil
	}
	h, err := def.reference(o.mode)
	if err != nil {
		return nil, report.Implementation{}, usageError("%v", err)
	}
	return adapter.InProcessTraced(h, trace), report.Implementation{Transport: "in-process", Mode: o.mode}, nil
}

// childEnv is the adapter's environment: nil inherits referee's.
func (o *runOptions) childEnv() []string {
	if !o.cleanEnv && len(o.env) == 0 && len(o.extraEnv) == 0 {
		return nil
	}
	env := os.Environ()
	if o.cleanEnv {
		env = cleanEnv()
	}
	return append(append(env, o.extraEnv...), o.env...)
}

// cleanEnv is the reference host's child environment: PATH and HOME only
// (and SystemRoot on Windows). It is never nil, which would inherit all.
func cleanEnv() []string {
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "SystemRoot"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// repro returns a function that renders a check's exchanges as one shell command.
func (o *runOptions) repro(def *suiteDef) func(string, []adapter.Exchange) string {
	return func(id string, exs []adapter.Exchange) string {
		big := false
		for _, x := range exs {
			big = big || len(x.Request) > 16<<10
		}
		switch {
		case big:
			// Too long to paste: repeat the check through referee instead.
		case len(o.argv) > 0:
			var env []string
			if o.dir != "" {
				env = append(env, "cd "+shellQuote(o.dir)+" &&")
			}
			if o.cleanEnv || len(o.env) > 0 {
				env = append(env, "env")
				if o.cleanEnv {
					env = append(env, "-i", `PATH="$PATH"`, `HOME="$HOME"`)
				}
				for _, kv := range o.env {
					env = append(env, shellQuote(kv))
				}
			}
			lines := []string{shellQuote(string(adapter.HelloRequest(def.name, o.helloArgs)))}
			for _, x := range exs {
				lines = append(lines, shellQuote(string(x.Request)))
			}
			var argv []string
			for _, a := range o.argv {
				argv = append(argv, shellQuote(a))
			}
			return "printf '%s\\n' " + strings.Join(lines, " ") + " | " + strings.Join(append(env, argv...), " ")
		case o.url != "":
			return "curl -sS -H 'Content-Type: application/json' --data-binary " + shellQuote(string(exs[len(exs)-1].Request)) + " " + shellQuote(o.url)
		}
		cmd := "referee run " + def.name + " --run " + shellQuote(id)
		if o.corpus != "" {
			cmd += " --corpus " + shellQuote(o.corpus)
		}
		if def.reproArgs != nil {
			for _, a := range def.reproArgs() {
				cmd += " " + shellQuote(a)
			}
		}
		switch {
		case o.mode != "":
			cmd += " --mode " + o.mode
		case o.url != "":
			cmd += " --url " + shellQuote(o.url)
		case len(o.argv) > 0:
			var argv []string
			for _, a := range o.argv {
				argv = append(argv, shellQuote(a))
			}
			cmd += " -- " + strings.Join(argv, " ")
		}
		return cmd
	}
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '+' || r == '@' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (o *runOptions) writeReports(e *env, def *suiteDef, rep *report.Report, run *check.Run) error {
	write := map[string]func(io.Writer) error{
		"json":   func(w io.Writer) error { return report.WriteJSON(w, rep) },
		"junit":  func(w io.Writer) error { return report.WriteJUnit(w, rep) },
		"native": func(w io.Writer) error { return report.WriteNative(w, def.native(run)) },
		"text": func(w io.Writer) error {
			return report.WriteText(w, rep, report.TextOptions{Color: o.color(e.stdout), Passes: !o.quiet})
		},
	}
	if err := write[o.format](e.stdout); err != nil {
		return fmt.Errorf("writing the %s report: %w", o.format, err)
	}
	for _, f := range []struct{ path, format string }{{o.jsonOut, "json"}, {o.junitOut, "junit"}, {o.native, "native"}} {
		if f.path == "" {
			continue
		}
		if err := writeFile(f.path, write[f.format]); err != nil {
			return &exitError{code: report.ExitUsage, err: fmt.Errorf("--%s: %w", f.format, err)}
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (o *runOptions) color(w io.Writer) bool {
	if o.noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	return isTerminal(w)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	if runtime.GOOS == "windows" {
		return isatty.IsCygwinTerminal(f.Fd()) || isatty.IsTerminal(f.Fd())
	}
	return isatty.IsTerminal(f.Fd())
}

// prefixWriter starts every line written through it with prefix; lines may
// arrive in several writes.
func prefixWriter(w io.Writer, prefix string) io.Writer {
	return &prefixed{w: w, prefix: prefix, atStart: true}
}

type prefixed struct {
	mu      sync.Mutex
	w       io.Writer
	prefix  string
	atStart bool
}

func (p *prefixed) Write(b []byte) (int, error) {
	n := len(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []byte
	for len(b) > 0 {
		if p.atStart {
			out = append(out, p.prefix...)
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b...)
			p.atStart = false
			break
		}
		out = append(out, b[:i+1]...)
		b = b[i+1:]
		p.atStart = true
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

func lastLinesText(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
