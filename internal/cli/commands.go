package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// newSuiteCmd builds the cobra command a suite declares (an inspector, an
// exporter): its flags from data, its arguments checked, its Run given the
// world and referee's run pipeline as the verdict.
func newSuiteCmd(e *env, def *check.Definition, c check.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:     c.Name,
		Short:   c.Summary,
		Long:    c.Help,
		Example: examples(c.Examples),
	}
	if c.Use != "" {
		cmd.Use += " " + c.Use
	}
	for _, sub := range c.Sub {
		cmd.AddCommand(newSuiteCmd(e, def, sub))
	}
	if c.Action == nil {
		return cmd
	}
	values := addFlags(cmd.Flags(), c.Flags)
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		min, max := c.Args[0], c.Args[1]
		switch {
		case len(args) < min && c.Dash:
			return usageError("%s needs a program after --", cmd.CommandPath())
		case len(args) < min:
			return usageError("%s needs %s, got %d", cmd.CommandPath(), report.Plural(min, "argument", "arguments"), len(args))
		case max >= 0 && len(args) > max:
			return usageError("%s takes at most %s, got %d", cmd.CommandPath(), report.Plural(max, "argument", "arguments"), len(args))
		case c.Dash && len(args) > 0 && cmd.ArgsLenAtDash() != 0:
			return usageError("put the program after --")
		}
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := checkOutputs(suiteOutputs(c.Flags, values())); err != nil {
			return err
		}
		inv := &check.Invocation{
			Args: args, Flags: values(), Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
			Color:   func(w io.Writer) bool { return os.Getenv("NO_COLOR") == "" && isTerminal(w) },
			Verdict: verdict(e, def),
		}
		return c.Action(cmd.Context(), inv)
	}
	return cmd
}

// verdict runs def's suite against spec through the run pipeline, as
// `referee run` does, writing the text report to human.
func verdict(e *env, def *check.Definition) func(context.Context, check.Spec, io.Writer, string) (any, int) {
	return func(ctx context.Context, spec check.Spec, w io.Writer, format string) (any, int) {
		plan, err := run.Prepare(def, spec, run.Options{Tool: report.Tool{Name: "referee", Version: versionString()}})
		if err != nil {
			fmt.Fprintf(e.stderr, "referee: %s\n", termsafe.Text(err.Error()))
			return nil, exitCode(err)
		}
		res := plan.Execute(ctx)
		r := reportFlags{format: format}
		if format == "" {
			r.format = "text"
		}
		if err := r.validate(); err != nil || r.format == "native" {
			fmt.Fprintf(e.stderr, "referee: --format %s: want text, json, junit, markdown or html\n", format)
			return res.Report, report.ExitUsage
		}
		out := &env{stdin: e.stdin, stdout: w, stderr: e.stderr}
		if err := r.write(out, res.Report, nil); err != nil {
			fmt.Fprintf(e.stderr, "referee: %v\n", err)
		}
		return res.Report, res.ExitCode()
	}
}
