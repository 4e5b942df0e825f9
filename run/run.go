// Package run is referee's run pipeline as a library: it loads a suite,
// selects its checks, reads baselines, executes the checks against an
// implementation, and builds the report, the verdict and the exit code. The
// CLI and Go tests (package checktest) both run suites through it.
package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/atomicfile"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/report"
)

// Options say how to run a suite.
type Options struct {
	Corpus string           // a corpus directory; "" for the embedded one
	Flags  check.FlagValues // the suite's own flags

	Select, Skip []string // ID patterns selecting checks (check.Select)
	// Shard runs only the selected checks of one shard (ShardOf); the zero
	// Shard runs them all.
	Shard report.Shard
	// KnownFailing and KnownFlaky are baseline files (check.ParseBaseline).
	KnownFailing, KnownFlaky string
	// MaxFileSize caps every file the run reads (corpus files, baselines,
	// the suite's input files), in bytes; 0 is regularfile.DefaultLimit.
	MaxFileSize int64

	Strict   bool          // a not-checked or a failed should check blocks conformance
	Parallel int           // checks in flight; 0: the implementation's declared concurrency
	Timeout  time.Duration // per call; 0: the adapter's default
	Trace    *adapter.Trace
	// Progress, if set, is called after each check, in completion order.
	Progress func(done, total int, r check.Result)
	// Compact keeps the verdicts of passing checks small and the report
	// lean (check.Options.Compact, report.New), for a large corpus:
	// Result.Execution.Results and Result.Report.Checks are then nil until asked
	// for (Run.Expand, Report.Full); Run.All and Report.All read them, as
	// the report writers and the suites' Native and After hooks do.
	Compact bool
	Tool    report.Tool // who makes the report
	// ReproEnv are the words after `env` in a repro command that give a
	// program the environment referee gave it ("-i", `PATH="$PATH"`, "K=V").
	ReproEnv []string
}

// Plan is a suite loaded and its checks selected, ready to run once.
type Plan struct {
	Def    *check.Definition
	Loaded *check.Loaded
	Checks []check.Check // the selected checks, in suite order
	Spec   check.Spec    // the implementation under test
	opts   Options

	selection      *report.Selection // what --run and --skip selected, before sharding
	failing, flaky []check.BaselineEntry
}

// Prepare checks the options and the implementation's spec, loads the
// suite, selects its checks and reads the baselines. Its errors are usage
// errors (check.UsageError) or corpus errors: nothing has been started.
func Prepare(def *check.Definition, spec check.Spec, o Options) (*Plan, error) {
	if err := validate(def, spec, o); err != nil {
		return nil, err
	}
	if o.Corpus != "" {
		if err := emptyFuzzCorpus(o.Corpus, o.MaxFileSize); err != nil {
			return nil, err
		}
	}
	loaded, err := def.Load(check.LoadOptions{Corpus: o.Corpus, Flags: o.Flags, MaxFileSize: o.MaxFileSize})
	if err != nil {
		return nil, err
	}
	checks, err := check.Select(loaded.Suite.Checks, o.Select, o.Skip)
	if err != nil {
		return nil, &check.UsageError{Err: err}
	}
	sel := &report.Selection{
		Select: append([]string{}, o.Select...), Skip: append([]string{}, o.Skip...),
		Checks: len(checks), SuiteChecks: len(loaded.Suite.Checks),
	}
	if checks, err = shardChecks(o.Shard, checks); err != nil {
		return nil, err
	}
	p := &Plan{Def: def, Loaded: loaded, Checks: checks, Spec: spec, opts: o, selection: sel}
	if p.failing, err = readBaseline(o.KnownFailing, o.MaxFileSize, loaded.Suite.Checks); err != nil {
		return nil, err
	}
	if p.flaky, err = readBaseline(o.KnownFlaky, o.MaxFileSize, loaded.Suite.Checks); err != nil {
		return nil, err
	}
	p.Spec.Env = loaded.ChildEnv(spec.Env, spec.UserEnv)
	p.Spec.Trace, p.Spec.Flags = o.Trace, o.Flags
	if o.Timeout > 0 {
		p.Spec.Timeout = o.Timeout
	}
	return p, nil
}

func validate(def *check.Definition, spec check.Spec, o Options) error {
	switch {
	case o.Corpus == "" && def.Embedded == "" && def.Corpus != "":
		return check.Usagef("the %s suite needs --corpus DIR: %s", def.Name, def.Corpus)
	case o.Corpus != "" && def.Corpus == "":
		return check.Usagef("the %s suite reads no corpus: it has no --corpus", def.Name)
	case spec.URL != "" && len(spec.Argv) > 0:
		return check.Usagef("give either --url or an adapter program after --, not both")
	case spec.Handler != nil && (spec.URL != "" || len(spec.Argv) > 0 || spec.Mode != "" || def.Live):
		return check.Usagef("%s: a Go handler is the implementation on its own: not with a URL, a program, a mode, or a live suite", def.Name)
	case spec.Mode != "" && (spec.URL != "" || len(spec.Argv) > 0):
		return check.Usagef("--mode applies to the built-in implementation only")
	case o.Parallel < 0:
		return check.Usagef("--parallel %d: want a positive number, or 0 for the implementation's concurrency", o.Parallel)
	case o.Timeout < 0:
		return check.Usagef("--timeout must be positive")
	}
	for name := range o.Flags {
		if !slices.ContainsFunc(def.Flags, func(f check.Flag) bool { return f.Name == name }) {
			return check.Usagef("the %s suite has no flag --%s", def.Name, name)
		}
	}
	// A live suite's built-in implementation is a child too.
	child := len(spec.Argv) > 0 || (def.Live && spec.URL == "")
	if !child && (spec.Env != nil || spec.Dir != "") {
		return check.Usagef("--env, --clean-env and --dir apply to a program after --")
	}
	if spec.URL != "" {
		u, err := url.Parse(spec.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return check.Usagef("--url %q: want an http:// or https:// URL", spec.URL)
		}
	}
	if def.Validate != nil {
		if err := def.Validate(spec); err != nil {
			return err
		}
	}
	return def.CheckMode(spec.Mode)
}

// emptyFuzzCorpus refuses the corpus in dir when `referee fuzz --out`
// wrote it and found nothing (corpus.Manifest.FuzzFoundNothing): it holds
// no check, and a run of none proves nothing, so it is refused as a --run
// that selects none is. Any other corpus, or a manifest that cannot be
// read here, is left to the suite's reader to judge.
func emptyFuzzCorpus(dir string, limit int64) error {
	path := filepath.Join(dir, corpus.ManifestName)
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	raw, err := regularfile.ReadFile(path, limit)
	if err != nil {
		return nil
	}
	if m, err := corpus.ParseManifest(raw); err != nil || !m.FuzzFoundNothing() {
		return nil
	}
	return check.Usagef("corpus %s holds no vector: referee fuzz wrote it and found nothing, so it has no check to replay (a run of no check is refused, as a --run that selects none is)", termsafe.Line(dir))
}

// readBaseline reads a baseline file of at most limit bytes (regularfile);
// a pattern that selects none of the suite's checks is a usage error naming
// its file and line.
func readBaseline(path string, limit int64, checks []check.Check) ([]check.BaselineEntry, error) {
	return ReadBaseline(path, limit, checks, "the suite")
}

// ReadBaseline reads the baseline file at path (at most limit bytes); a
// pattern that selects none of checks (those of what, "the suite") is a
// usage error naming its file and line.
func ReadBaseline(path string, limit int64, checks []check.Check, of string) ([]check.BaselineEntry, error) {
	if path == "" {
		return nil, nil
	}
	data, err := regularfile.ReadFile(path, limit)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is named once, here
	}
	if err != nil {
		return nil, check.Usagef("baseline %s: %v", path, err)
	}
	entries, err := check.ParseBaseline(path, data)
	if err != nil {
		return nil, check.Usagef("baseline %v", err)
	}
	if bad := check.UnmatchedEntries(entries, checks); len(bad) > 0 {
		// The first few name the problem; a file of thousands would bury it.
		const shown = 20
		var lines []string
		for _, b := range bad[:min(len(bad), shown)] {
			lines = append(lines, fmt.Sprintf("%s: %s selects no check of %s (a pattern names whole IDs; end it with /** for a subtree)", b.Where, termsafe.Line(b.Pattern.String()), of))
		}
		if len(bad) > shown {
			lines = append(lines, fmt.Sprintf("and %d more lines that select no check", len(bad)-shown))
		}
		return nil, check.Usagef("the baseline is out of date:\n  %s", strings.Join(lines, "\n  "))
	}
	return entries, nil
}

// Result is a finished run: the verdicts, the report and how it ended.
type Result struct {
	Execution *check.Execution
	Report    *report.Report
	// StartErr says why the implementation could not be started; every
	// check is then an error and the run is incomplete.
	StartErr error
	// Interrupted says the run was interrupted (its context ended) before
	// the implementation was started, or while it was starting: every
	// check is then "not run: run interrupted", the run is incomplete, and
	// StartErr is nil.
	Interrupted bool
	plan        *Plan
}

// ExitCode is the run's exit status under the contract (report.ExitCode).
func (r *Result) ExitCode() int { return r.Report.ExitCode() }

// Native returns the suite's own report of the run, if it has one.
func (r *Result) Native() (any, bool) {
	if r.plan.Loaded.Native == nil {
		return nil, false
	}
	return r.plan.Loaded.Native(r.Execution, r.plan.Spec), true
}

// Execute runs the plan's checks against its implementation.
func (p *Plan) Execute(ctx context.Context) *Result {
	impl := p.describe()
	res := &Result{plan: p}
	var target check.Target
	err := ctx.Err()
	if err == nil {
		target, err = p.connect(ctx)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		// Not the implementation's failure: the run was interrupted.
		res.Interrupted = true
		res.Execution = check.Interrupted(p.Checks)
	case err != nil:
		res.StartErr = err
		res.Execution = unstarted(p.Checks, err)
	default:
		h := target.Hello()
		impl.Name, impl.Version, impl.Ops = h.Name, h.Version, h.Ops
		res.Execution = check.Execute(ctx, target, p.Checks, check.Options{Parallel: p.opts.Parallel, Repro: p.repro, Progress: p.opts.Progress, Compact: p.opts.Compact, MaxEvidence: check.MaxEvidence})
		target.Close()
	}
	suite := p.Loaded.Suite
	s := report.Suite{Name: suite.Name, Version: suite.Version, Corpus: suite.Corpus, CorpusDigest: suite.CorpusDigest}
	if p.opts.KnownFailing == "" && p.opts.KnownFlaky == "" {
		res.Report = report.New(p.opts.Tool, s, impl, res.Execution, p.opts.Strict)
	} else {
		stale := p.staleUnlessSharded(res.Execution, check.ApplyBaseline(res.Execution, p.failing, p.flaky))
		res.Report = report.WithBaseline(p.opts.Tool, s, impl, res.Execution, p.opts.Strict, stale)
	}
	res.Report.Shard = p.shard()
	res.Report.Rerun = append([]string{"referee", "run", p.Def.Name}, p.rerun()...)
	res.Report.Describe(p.about())
	sel := *p.selection
	res.Report.Selection = &sel
	return res
}

// connect reaches the implementation: a live suite's own connection, or a
// referee-adapter/1 client over a program, a URL or the built-in one.
func (p *Plan) connect(ctx context.Context) (check.Target, error) {
	if p.Def.Live {
		return p.Loaded.Connect(ctx, p.Spec)
	}
	var start adapter.Starter
	switch {
	case len(p.Spec.Argv) > 0:
		cfg := adapter.ProcessConfig{Argv: p.Spec.Argv, Dir: p.Spec.Dir, Env: p.Spec.Env, Stderr: p.Spec.Stderr, Trace: p.Spec.Trace}
		start = func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
	case p.Spec.URL != "":
		h := &adapter.HTTP{URL: p.Spec.URL, Trace: p.Spec.Trace}
		start = func(ctx context.Context) (adapter.Conn, error) { return h, nil }
	case p.Spec.Handler != nil:
		start = adapter.InProcessTraced(p.Spec.Handler, p.Spec.Trace)
	default:
		h, err := p.Loaded.Reference(p.Spec.Mode)
		if err != nil {
			return nil, err
		}
		start = adapter.InProcessTraced(h, p.Spec.Trace)
	}
	return adapter.Dial(ctx, start, p.Def.Name, adapter.Options{Timeout: p.Spec.Timeout, Trace: p.Spec.Trace, HelloArgs: p.Loaded.Hello})
}

// describe says, for the report, what is tested and how it is reached.
func (p *Plan) describe() report.Implementation {
	switch {
	case len(p.Spec.Argv) > 0:
		return report.Implementation{Transport: "stdio", Command: p.Spec.Argv}
	case p.Spec.URL != "":
		return report.Implementation{Transport: "http", URL: p.Spec.URL}
	case p.Def.Live:
		// The built-in implementation runs as a child: referee serve SUITE.
		cmd := []string{"referee", "serve", p.Def.Name}
		if p.Spec.Mode != "" {
			cmd = append(cmd, "--mode", p.Spec.Mode)
		}
		return report.Implementation{Transport: "stdio", Command: cmd}
	}
	return report.Implementation{Transport: "in-process", Mode: p.Spec.Mode}
}

// unstarted is the run of an implementation that never said hello: every
// selected check is an error and the run is incomplete.
func unstarted(checks []check.Check, err error) *check.Execution {
	var ev check.Evidence
	var se *adapter.StartError
	if errors.As(err, &se) {
		ev.Stderr = se.Stderr
	}
	var f *adapter.Fault
	if errors.As(err, &f) && len(f.Line) > 0 {
		ev.Notes = []string{fmt.Sprintf("offending line: %q", f.Line)}
	}
	return check.Unstarted(checks, err, ev)
}

// Finish does what comes after the reports: writes the baseline of the
// run's failures to writeFailing (when set and the run was complete and
// whole) and runs the suite's After hook. Notes are things the user should
// read that change no verdict.
func (r *Result) Finish(writeFailing string) (notes []string, err error) {
	p := r.plan
	full := r.Execution.Len() == len(p.Loaded.Suite.Checks)
	if writeFailing != "" {
		switch {
		case !r.Execution.Complete:
			notes = append(notes, fmt.Sprintf("--write-known-failing: the run did not finish, so %s was not written", writeFailing))
		case !full:
			notes = append(notes, fmt.Sprintf("--write-known-failing: --run/--skip selected %d of the suite's %d checks, so %s was not written (it would forget the others)", r.Execution.Len(), len(p.Loaded.Suite.Checks), writeFailing))
		default:
			header := fmt.Sprintf("%s %s: the checks of suite %s this implementation is known to fail.\nRun with --known-failing %s; remove a line once its check passes.", p.opts.Tool.Name, p.opts.Tool.Version, p.Def.Name, writeFailing)
			if err := atomicfile.Write(writeFailing, check.FailingBaselineUnder(r.Execution, header, p.opts.Strict)); err != nil {
				return notes, check.Usagef("--write-known-failing: %w", err)
			}
		}
	}
	if p.Loaded.After != nil {
		impl := strings.TrimSpace(r.Report.Implementation.Name + " " + r.Report.Implementation.Version)
		if err := p.Loaded.After(check.AfterRun{Execution: r.Execution, Implementation: impl, Full: full}); err != nil {
			return notes, err
		}
	}
	return notes, nil
}

// about says, for the report, what each of the suite's checks proves and
// the clause it rests on.
func (p *Plan) about() report.About {
	byID := make(map[string]*check.Check, len(p.Checks))
	for i := range p.Checks {
		byID[p.Checks[i].ID] = &p.Checks[i]
	}
	return func(id string) (string, string) {
		if c := byID[id]; c != nil {
			return c.Doc, c.Clause
		}
		return "", ""
	}
}
