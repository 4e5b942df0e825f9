// Package cli holds referee's subcommands; cmd/referee only calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites"
)

// devVersion is the version of a build that says nothing of its own.
const devVersion = "0.1.0-dev"

// Version is referee's version; release builds set it with
// -ldflags "-X github.com/refereehq/referee/internal/cli.Version=V".
var Version = devVersion

// env is the world a command runs in.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	args           []string // referee's arguments as given, for hints that rewrite them
}

// exitError carries an exit code chosen by a command.
type exitError struct {
	code int
	err  error // nil: the command already said what it had to
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage or configuration error (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: report.ExitUsage, err: fmt.Errorf(format, args...)}
}

// Main runs referee with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx := context.Background()
	used := commandIn(args)
	if waitsOnOthers(used) {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		done := make(chan struct{})
		defer func() { stop(); <-done }()
		go func() {
			defer close(done)
			<-ctx.Done()
			stop() // a second interrupt ends referee at once
		}()
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, args: args}
	root := newRootCmd(e, used)
	refuseUnknownSubcommands(root)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return report.ExitOK
	}
	code := exitCode(err)
	var ee *exitError
	var said check.ExitCode
	if errors.As(err, &said) {
		return code
	}
	if !errors.As(err, &ee) || ee.err != nil {
		// An error may quote a corpus or an implementation: its lines are
		// referee's, their contents made safe.
		// cobra indents its suggestions with a tab, which Text would show.
		msg := strings.ReplaceAll(err.Error(), "\n\t", "\n  ")
		fmt.Fprintf(stderr, "referee: %s\n", clipMessage(termsafe.Text(msg)))
	}
	return code
}

// The most an error message shows: lines, and bytes of one line. A corpus
// value or an implementation's text quoted in it can be as long as a file.
const (
	maxMessageLines    = 100
	maxMessageLineSize = 2000
)

// clipMessage cuts an error message to maxMessageLines lines of at most
// maxMessageLineSize bytes each, saying what it left out.
func clipMessage(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > maxMessageLines {
		more := len(lines) - maxMessageLines
		lines = append(lines[:maxMessageLines], fmt.Sprintf("... and %d more lines", more))
	}
	for i, l := range lines {
		lines[i] = check.ClipTo(l, maxMessageLineSize)
	}
	return strings.Join(lines, "\n")
}

// waitsOnOthers reports whether the command named used may wait on another
// process or the network, or write files, and so ends cleanly on an
// interrupt (corpus lock and merge finish their file). The commands that
// only print let an interrupt end them at once, and start no signal
// handling.
func waitsOnOthers(used string) bool {
	switch used {
	case "", "version", "list", "explain", "help", "completion":
		return false
	}
	return true
}

// exitCode maps an error to the exit-code contract, in one place.
func exitCode(err error) int {
	var ee *exitError
	var ce *corpus.Error
	var ue *check.UsageError
	var code check.ExitCode
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &ce), errors.As(err, &ue):
		return report.ExitUsage
	}
	// Anything else reaching here is a flag or argument error from cobra.
	return report.ExitUsage
}

// refuseUnknownSubcommands makes every command below the root that only
// groups others (corpus, a suite's inspect) refuse an argument that names
// none of them, as the root does, rather than print its help and exit 0.
func refuseUnknownSubcommands(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
			c.Args = cobra.ArbitraryArgs
			c.SuggestionsMinimumDistance = 2 // as the root's
			c.RunE = func(c *cobra.Command, args []string) error {
				if len(args) == 0 {
					return c.Help()
				}
				if s := c.SuggestionsFor(args[0]); len(s) > 0 {
					return usageError("unknown command %q for %q (did you mean %s?)", args[0], c.CommandPath(), s[0])
				}
				return usageError("unknown command %q for %q (see %s --help)", args[0], c.CommandPath(), c.CommandPath())
			}
		}
		refuseUnknownSubcommands(c)
	}
}

// newRootCmd builds the command tree for the command used names. When
// that is one of referee's commands, only it is built, with the per-suite
// subcommands of run, fuzz or serve (a few hundred flags); otherwise (help,
// completion, a mistyped command) every command is.
func newRootCmd(e *env, used string) *cobra.Command {
	root := &cobra.Command{
		Use:   "referee",
		Short: "Run a protocol's conformance corpus against any implementation",
		Long: `referee runs a protocol's language-neutral conformance corpus against an
implementation in any language, through a small stdio or HTTP adapter, and
reports every check as pass, fail, not-checked or error with byte-exact evidence.`,
		Example: `  # the jcs suite against referee's own reference implementation
  referee run jcs

  # the same suite against your implementation, through its adapter
  referee run jcs -- node examples/adapters/node/jcs.mjs`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if hint := flagErrorHint(c, err, e.args); hint != nil {
			return hint
		}
		return usageError("%v (see %s --help)", err, c.CommandPath())
	})
	commands := []struct {
		name  string
		build func(all bool) *cobra.Command
	}{
		{"run", func(all bool) *cobra.Command { return newRunCmd(e, all) }},
		{"fuzz", func(all bool) *cobra.Command { return newFuzzCmd(e, all) }},
		{"smoke", func(all bool) *cobra.Command { return newSmokeCmd(e, all) }},
		{"list", func(bool) *cobra.Command { return newListCmd(e) }},
		{"explain", func(bool) *cobra.Command { return newExplainCmd(e) }},
		{"corpus", func(bool) *cobra.Command { return newCorpusCmd(e) }},
		{"serve", func(all bool) *cobra.Command { return newServeCmd(e, all) }},
		{"merge", func(bool) *cobra.Command { return newMergeCmd(e) }},
		{"diff", func(bool) *cobra.Command { return newDiffCmd(e) }},
		{"version", func(bool) *cobra.Command { return newVersionCmd(e) }},
	}
	for _, c := range commands {
		if c.name == used {
			root.CompletionOptions.DisableDefaultCmd = true
			root.AddCommand(c.build(true))
			return root
		}
	}
	for _, def := range suites.All() {
		for _, c := range def.Commands {
			if c.Name == used {
				root.CompletionOptions.DisableDefaultCmd = true
				root.AddCommand(newSuiteCmd(e, def, c))
				return root
			}
		}
	}
	// help, completion or a mistyped command: the whole tree, without the
	// per-suite subcommands of run, fuzz and serve only when there is no
	// command at all.
	for _, c := range commands {
		root.AddCommand(c.build(used != ""))
	}
	for _, def := range suites.All() {
		for _, c := range def.Commands {
			root.AddCommand(newSuiteCmd(e, def, c))
		}
	}
	return root
}

// commandIn returns the command args name: its first argument, or "" when
// that is a flag (referee -h run is the root's help, which lists every
// command) or there is none.
func commandIn(args []string) string {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return ""
	}
	return args[0]
}

// versionString is referee's version with the revision it was built from:
// the version release builds set with -ldflags, else the module version
// `go install ...@version` records, and the VCS revision (and "dirty") a
// build from a checkout records.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return describeBuild(Version, info)
}

func describeBuild(v string, info *debug.BuildInfo) string {
	if v == devVersion && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = strings.TrimPrefix(info.Main.Version, "v")
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if len(rev) >= 12 {
		v += " (" + rev[:12]
		if modified == "true" {
			v += ", dirty"
		}
		v += ")"
	}
	return v
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print referee's version and the adapter protocol it speaks",
		Example: "  referee version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(e.stdout, "referee %s\nadapter protocol referee-adapter/1\nreport format %s\n", cmd.Root().Version, report.Format)
			return nil
		},
	}
}
