package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites"
)

// fuzzOptions are the flags of `referee fuzz SUITE`.
type fuzzOptions struct {
	url, mode string
	impls     []string
	argv      []string // the adapter program, after --
	seed      uint64
	count     int
	time      time.Duration
	out       string
	corpus    string
	parallel  int
	timeout   time.Duration
	targets   []string
	env       []string
	cleanEnv  bool
	dir       string
	stderr    adapterStderr // --adapter-stderr
	// suiteFlags are a live suite's own flags that reach its
	// implementation (a bearer token), as given.
	suiteFlags func() check.FlagValues
	who        string // what the implementation is called on stderr: adapter, or a live suite's provider
}

func newFuzzCmd(e *env, withSuites bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fuzz SUITE [flags] [-- PROGRAM ARGS...]",
		Short: "Generate inputs, judge each against the built-in reference, and write every divergence as a vector",
		Long: `fuzz generates inputs for a suite's ops (numbers across every ECMAScript
formatting boundary, strings of every Unicode class, host-language member
names, deep and wide nesting, mutated bytes), gives each the outcome
referee's built-in reference gives it, and runs the check that outcome
makes against the implementation. Each divergence is shrunk to a minimal
input, deduplicated, and with --out DIR written as a corpus in the suite's
own format that referee run SUITE --corpus DIR replays. The same --seed
and --count make the same inputs. See docs/fuzzing.md.

EXIT STATUS
  0  no divergence that blocks conformance (a failed should check, a may
     outcome or a gap shared by every implementation does not)
  1  a must divergence (a failed must or may check, or an error), flaky
     ones (that did not happen again on the same input) included
  2  usage error, an --out that cannot be written (refused before the
     first input), or a corpus that could not be written (the earlier one
     is kept)
  3  an implementation could not be started, offered none of the ops, or
     kept faulting; no input was judged (a --time too short for one, or
     only inputs the suite's corpus cannot hold); or the run was
     interrupted (SIGINT, SIGTERM), which still writes what it found`,
		Example: `  referee fuzz jcs -- node examples/adapters/node/jcs.mjs
  referee fuzz crosslink --mode little-endian --count 2000 --out found
  referee fuzz jcs --impl node='node examples/adapters/node/jcs.mjs' --impl py='python3 examples/adapters/python/jcs.py' --time 1m`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			for _, d := range suites.All() {
				if d.Fuzz != nil {
					names = append(names, d.Name)
				}
			}
			if len(args) == 0 {
				return usageError("fuzz needs a suite: %s", strings.Join(names, ", "))
			}
			return usageError("suite %q cannot be fuzzed (fuzzable suites: %s)", args[0], strings.Join(names, ", "))
		},
	}
	if !withSuites {
		return cmd
	}
	for _, def := range suites.All() {
		if def.Fuzz != nil {
			cmd.AddCommand(newFuzzSuiteCmd(e, def))
		}
	}
	return cmd
}

func newFuzzSuiteCmd(e *env, def *check.Definition) *cobra.Command {
	o := &fuzzOptions{who: "adapter"}
	if def.Live {
		o.who = "provider"
	}
	var targets []string
	for _, t := range def.Fuzz.Targets {
		targets = append(targets, t.Name+": "+t.Doc)
	}
	short := "Fuzz a " + def.Name + " implementation against referee's reference"
	if def.Live {
		short = "Fuzz a " + def.Name + " implementation in sessions, each reply judged by the suite's own checks"
	}
	cmd := &cobra.Command{
		Use:   def.Name + " [flags] [-- PROGRAM ARGS...]",
		Short: short,
		Long:  "Targets:\n  " + strings.Join(targets, "\n  "),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash != 0 && len(args) > 0 {
				return dashFix(e.args, args[0])
			}
			o.argv = args
			return runFuzz(cmd.Context(), e, def, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", "fuzz the adapter service at `URL`")
	f.StringVar(&o.mode, "mode", "", "fuzz the built-in implementation in a deliberately broken `MODE`")
	repeatedVar(f, &o.impls, "impl", "fuzz the implementation `NAME=COMMAND` or NAME=url:URL (repeatable): every input goes to each; when all agree against the reference, that is a possible gap in the reference or the spec")
	f.Uint64Var(&o.seed, "seed", 1, "the seed of the inputs: the same seed and count give the same inputs")
	count, inputs := fuzz.DefaultCount, "inputs"
	if def.Live {
		count, inputs = fuzz.DefaultLiveCount, "sessions"
	}
	f.IntVar(&o.count, "count", 0, fmt.Sprintf("generate `N` %s (default %d unless --time is given)", inputs, count))
	f.DurationVar(&o.time, "time", 0, "generate inputs for `D` (with --count, whichever ends first)")
	f.StringVar(&o.out, "out", "", "write the divergences, shrunk, as a corpus in the suite's format to `DIR`, an empty one when there are none (new in an existing directory, empty, or written by an earlier fuzz run and unchanged since, which is replaced)")
	if def.Corpus != "" {
		f.StringVar(&o.corpus, "corpus", "", "draw the reference and the generators from the corpus in `DIR` (its schemas, keys and vectors) instead of the suite's embedded one")
	}
	parallel, timeout := "requests in flight per implementation, at most its declared concurrency (the default)", "per-call timeout"
	if def.Live {
		parallel, timeout = "sessions at once per implementation (default: 4, or the number of cores when fewer)", "how long each reply may take"
	}
	f.IntVar(&o.parallel, "parallel", 0, parallel)
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, timeout)
	repeatedVar(f, &o.targets, "target", "fuzz only the target `NAME` (repeatable; see fuzz "+def.Name+" --help)")
	repeatedVar(f, &o.env, "env", "set `KEY=VALUE` in the adapter's environment (repeatable)")
	f.BoolVar(&o.cleanEnv, "clean-env", false, "start the adapter with PATH and HOME only, plus --env")
	f.StringVar(&o.dir, "dir", "", "start the adapter in `DIR`")
	o.stderr.add(f)
	if def.Live {
		// A live suite is reached in its own protocol: its flags that reach
		// the implementation apply (not those that choose its checks).
		var reach []check.Flag
		for _, fl := range def.Flags {
			if !fl.Repro {
				reach = append(reach, fl)
			}
		}
		o.suiteFlags = addFlags(f, reach)
	}
	return cmd
}

// flags are the suite's own flags as given: none but a live suite's.
func (o *fuzzOptions) flags() check.FlagValues {
	if o.suiteFlags == nil {
		return nil
	}
	return o.suiteFlags()
}

// implementations returns the implementations to fuzz, from the flags.
func (o *fuzzOptions) implementations(e *env) ([]fuzz.Impl, error) {
	env := (&runOptions{env: o.env, cleanEnv: o.cleanEnv}).childEnv()
	// Every implementation's stderr shares referee's (or the file) line by
	// line, each line prefixed with its name.
	sink := o.stderr.sink(termsafe.NewShared(e.stderr))
	if len(o.impls) > 0 {
		if len(o.argv) > 0 || o.url != "" || o.mode != "" {
			return nil, usageError("--impl names every implementation: not with --url, --mode or a program after --")
		}
		ms, err := matrix.ParseImpls(o.impls)
		if err != nil {
			return nil, err
		}
		var out []fuzz.Impl
		for _, m := range ms {
			if m.Spec.URL == "" {
				m.Spec.Dir, m.Spec.Env, m.Spec.UserEnv, m.Spec.Stderr = o.dir, env, o.env, writer(sink, m.Name+": ")
			}
			m.Spec.Flags = o.flags()
			out = append(out, fuzz.Impl{Name: m.Name, Spec: m.Spec})
		}
		return out, nil
	}
	switch {
	case len(o.argv) > 0 && (o.url != "" || o.mode != ""), o.url != "" && o.mode != "":
		return nil, usageError("give one of a program after --, --url and --mode")
	case len(o.argv) == 0 && (o.env != nil || o.cleanEnv || o.dir != ""):
		return nil, usageError("--env, --clean-env and --dir apply to a program after --")
	}
	spec := check.Spec{Argv: o.argv, URL: o.url, Mode: o.mode, Flags: o.flags()}
	if len(o.argv) > 0 {
		spec.Dir, spec.Env, spec.UserEnv, spec.Stderr = o.dir, env, o.env, writer(sink, o.who+": ")
	}
	return []fuzz.Impl{{Spec: spec}}, nil
}

func runFuzz(ctx context.Context, e *env, def *check.Definition, o *fuzzOptions) error {
	if o.timeout <= 0 {
		return usageError("--timeout must be positive")
	}
	for _, kv := range o.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usageError("--env %q: want KEY=VALUE", kv)
		}
	}
	if err := checkOutputs([]output{o.stderr.output()}); err != nil {
		return err
	}
	if err := o.stderr.open(); err != nil {
		return err
	}
	defer o.stderr.close()
	impls, err := o.implementations(e)
	if err != nil {
		return err
	}
	collectForThroughput()
	opts := fuzz.Options{
		Seed: o.seed, Count: o.count, Time: o.time, Targets: o.targets, Parallel: o.parallel, Timeout: o.timeout,
		Out: o.out, Corpus: o.corpus, Tool: report.Tool{Name: "referee", Version: versionString()},
	}
	if isTerminal(e.stderr) {
		opts.Progress = func(p fuzz.Progress) {
			total := ""
			if p.Total > 0 {
				total = fmt.Sprintf("/%d", p.Total)
			}
			fmt.Fprintf(e.stderr, "\r\033[K%d%s inputs, %.0f inputs/s, %d divergences", p.Inputs, total, float64(p.Inputs)/p.Elapsed.Seconds(), p.Findings)
		}
	}
	s, err := fuzz.Campaign(ctx, def, impls, opts)
	if opts.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if s == nil {
		return err
	}
	if werr := fuzz.WriteText(e.stdout, s, o.out); werr != nil {
		return fmt.Errorf("writing the summary: %w", werr)
	}
	if s.Interrupted {
		fmt.Fprintf(e.stderr, "referee: interrupted after %d inputs; the fuzz run is incomplete\n", s.Inputs)
	}
	code := s.ExitCode()
	if err != nil {
		// The findings could not be written to --out; the earlier corpus
		// there is kept. The run's own verdict stands, as run's does.
		if code != report.ExitOK {
			fmt.Fprintf(e.stderr, "referee: %s\n", termsafe.Line(err.Error()))
			return &exitError{code: code}
		}
		return err
	}
	if code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}
