package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/shell"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites"
)

func newSmokeCmd(e *env, withSuites bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "smoke SUITE [flags] [-- PROGRAM ARGS... | --url URL]",
		Short: "A first look at an adapter: hello, then one small known request per op, on one screen",
		Long: `smoke starts the adapter, says hello, and sends one request for each op the
suite uses: the first plain check of that op in the suite's corpus, whose
answer is known. It prints, on one screen, what was sent, what came back,
what was expected and what to fix, then the command for the whole run.

EXIT STATUS
  0 every op the adapter offers answers as the suite expects
  1 an op does not, or the adapter offers none of the suite's ops
  2 usage
  3 the adapter could not be started`,
		Example: `  referee smoke jcs -- node my-adapter.mjs
  referee smoke crosslink --url http://127.0.0.1:8785/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("smoke needs a suite: %s", strings.Join(suites.Names(), ", "))
			}
			if def := suites.Find(args[0]); def != nil && def.Live {
				return usageError("the %s suite speaks to providers in their own protocol and has no adapter ops to smoke: referee inspect stdio -- PROVIDER is its first look", def.Name)
			}
			return unknownSuite(args[0])
		},
	}
	if !withSuites {
		return cmd
	}
	for _, def := range suites.All() {
		if def.Live {
			continue // a live suite has no ops: referee inspect is its first look
		}
		cmd.AddCommand(newSmokeSuiteCmd(e, def))
	}
	return cmd
}

func newSmokeSuiteCmd(e *env, def *check.Definition) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   def.Name + " [flags] [-- PROGRAM ARGS...]",
		Short: "A first look at an adapter of the " + def.Name + " suite",
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash != 0 && len(args) > 0 {
				return dashFix(e.args, args[0])
			}
			o.argv = args
			return smoke(cmd.Context(), e, def, o)
		},
	}
	f := cmd.Flags()
	if def.Corpus != "" {
		f.StringVar(&o.corpus, "corpus", "", "take the requests from the corpus in `DIR` instead of the suite's embedded one")
	}
	f.StringVar(&o.url, "url", "", "POST requests to the implementation at `URL`")
	f.DurationVar(&o.timeout, "timeout", defaultTimeout, "per-call timeout")
	repeatedVar(f, &o.env, "env", "set `KEY=VALUE` in the adapter's environment (repeatable)")
	f.BoolVar(&o.cleanEnv, "clean-env", false, "start the adapter with PATH and HOME only (and SystemRoot on Windows), plus --env")
	f.StringVar(&o.dir, "dir", "", "start the adapter in `DIR`")
	f.StringVar(&o.mode, "mode", "", "smoke the built-in implementation in a deliberately broken `MODE`")
	addAdapterStderr(f, &o.adapterStderr)
	o.suiteFlags = addFlags(f, def.Flags)
	o.maxFileSize = addMaxFileSize(f)
	return cmd
}

// smokeWidth bounds each line smoke prints, smokeLines how many.
const (
	smokeWidth = 160
	smokeLines = 40
)

// smoke runs one check per op of def and prints them on one screen.
func smoke(ctx context.Context, e *env, def *check.Definition, o *runOptions) error {
	o.reports.format = "text"
	if err := o.validate(); err != nil {
		return err
	}
	opts := run.Options{
		Corpus: o.corpus, Flags: o.suiteFlags(), MaxFileSize: int64(*o.maxFileSize), Timeout: o.timeout,
		Tool: report.Tool{Name: "referee", Version: versionString()}, ReproEnv: o.reproEnv(),
	}
	if err := checkOutputs(o.outputs(def)); err != nil {
		return err
	}
	if err := o.openStderr(); err != nil {
		return err
	}
	defer o.closeStderr()
	plan, err := run.Prepare(def, o.spec(e, def), opts)
	if err != nil {
		return err
	}
	picked, ops := smokeChecks(plan.Checks)
	if len(picked) == 0 {
		return usageError("suite %s has no check that calls an adapter op", def.Name)
	}
	plan.Checks = picked
	res := plan.Execute(ctx)
	w := &lineWriter{w: e.stdout}
	if res.StartErr != nil {
		w.line("referee smoke %s: the adapter could not be started", def.Name)
		w.line("  %s", clipLine(res.StartErr.Error()))
		if hint := startHint(res.StartErr, o.argv, o.dir); hint != "" {
			w.line("fix: %s", clipLine(hint))
		} else {
			w.line("fix: make it answer hello (docs/adapter-protocol.md#hello); referee run %s with --trace FILE shows every line", def.Name)
		}
		if w.err != nil {
			return w.err
		}
		return &exitError{code: report.ExitIncomplete}
	}
	impl := res.Report.Implementation
	offered := 0
	for _, op := range ops {
		if slices.Contains(impl.Ops, op) {
			offered++
		}
	}
	w.line("%s", clipLine(fmt.Sprintf("referee smoke %s: %s %s answered hello, offering %d of the %d ops the suite uses", def.Name, orUnnamed(impl.Name), impl.Version, offered, len(ops))))
	width := 0
	for _, op := range ops {
		width = max(width, len(op))
	}
	// One screen: a header, a line per op and the last line; the evidence
	// of failures, five lines each, while it fits in smokeLines.
	spare := smokeLines - len(ops) - 2
	bad := 0
	byID := map[string]report.Check{}
	for _, c := range res.Report.All() {
		byID[c.ID] = c
	}
	for i, op := range ops {
		c := byID[picked[i].ID]
		switch {
		case c.Status == string(check.NotChecked):
			w.line("%s", clipLine(fmt.Sprintf("-     %-*s  not offered: its checks will be not checked", width, op)))
		case c.Status == string(check.Pass):
			w.line("%s", clipLine(fmt.Sprintf("ok    %-*s  %s", width, op, c.ID)))
		default:
			bad++
			tag := "FAIL"
			if c.Status == string(check.Error) {
				tag = "ERROR"
			}
			if spare < 5 {
				w.line("%s", clipLine(fmt.Sprintf("%-5s %-*s  %s: %s", tag, width, op, c.ID, c.Reason)))
				continue
			}
			w.line("%s", clipLine(fmt.Sprintf("%-5s %-*s  %s", tag, width, op, c.ID)))
			spare -= smokeEvidence(w, c)
		}
	}
	switch {
	case offered == 0:
		w.line("the adapter offers none of the suite's ops (%s): list them in hello's ops", strings.Join(ops, ", "))
		bad++
	case bad == 0:
		w.line("%d of %d offered ops answer as the suite expects; the whole suite: %s", offered, offered, clipLine(smokeNext(def, o)))
	default:
		w.line("%d of %d offered ops answer wrongly; fix them, then: %s", bad, offered, clipLine(smokeNext(def, o)))
	}
	if w.err != nil {
		return w.err
	}
	if bad > 0 {
		return &exitError{code: report.ExitFailed}
	}
	return nil
}

// smokeChecks picks, for each op the checks need (in the order the suite
// first needs them), the first must check that needs that op alone, else
// the first check that needs it; picked[i] is the check of ops[i].
func smokeChecks(checks []check.Check) (picked []check.Check, ops []string) {
	first := map[string]int{}
	alone := map[string]int{}
	for i, c := range checks {
		for _, op := range c.Needs {
			if _, ok := first[op]; !ok {
				first[op] = i
				ops = append(ops, op)
			}
		}
		if len(c.Needs) == 1 && c.Level == check.Must {
			if _, ok := alone[c.Needs[0]]; !ok {
				alone[c.Needs[0]] = i
			}
		}
	}
	for _, op := range ops {
		i, ok := alone[op]
		if !ok {
			i = first[op]
		}
		picked = append(picked, checks[i])
	}
	return picked, ops
}

// smokeEvidence prints what a failed check sent, received and expected,
// and its reason as the thing to fix, a line each (at most five), and
// returns how many lines it printed.
func smokeEvidence(w *lineWriter, c report.Check) int {
	lines := []string{}
	if ev := c.Evidence; ev != nil && len(ev.Exchanges) > 0 {
		lines = append(lines, "sent:     "+ev.Exchanges[0].Request, "received: "+orNothing(ev.Exchanges[0].Reply))
	}
	if c.Expected != nil {
		lines = append(lines, "expected: "+*c.Expected)
	}
	lines = append(lines, "fix:      "+c.Reason, "more:     referee explain "+c.ID)
	for _, l := range lines {
		w.line("%s", clipLine("      "+l))
	}
	return len(lines)
}

// smokeNext is the command that runs the whole suite against the same
// implementation.
func smokeNext(def *check.Definition, o *runOptions) string {
	words := []string{"referee", "run", def.Name}
	if o.corpus != "" {
		words = append(words, "--corpus", shell.Quote(o.corpus))
	}
	switch {
	case o.url != "":
		words = append(words, "--url", shell.Quote(o.url))
	case len(o.argv) > 0:
		words = append(words, "--")
		for _, a := range o.argv {
			words = append(words, shell.Quote(a))
		}
	case o.mode != "":
		words = append(words, "--mode", o.mode)
	}
	return strings.Join(words, " ")
}

// clipLine makes text one safe line of at most smokeWidth bytes.
func clipLine(s string) string {
	s = termsafe.Line(s)
	if len(s) > smokeWidth {
		s = check.ClipTo(s, smokeWidth-40)
	}
	return s
}

// lineWriter writes lines and keeps the first error.
type lineWriter struct {
	w   io.Writer
	err error
}

func (l *lineWriter) line(format string, args ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format+"\n", args...)
	}
}

func orUnnamed(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}
