package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fatih/color"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
	"github.com/refereehq/referee/protocols/cgp/provider"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites/cgplive"
)

// DefaultTokenEnv is the environment variable a provider's bearer token is
// read from when --token is not given.
const DefaultTokenEnv = "REFEREE_CGP_TOKEN"

// cgpOptions are the cgp suite's own flags.
type cgpOptions struct {
	token    string
	tokenEnv string
}

// bearer is the token from --token, else from the variable --token-env names.
func (co *cgpOptions) bearer() string {
	if co.token == "" && co.tokenEnv != "" {
		return os.Getenv(co.tokenEnv)
	}
	return co.token
}

func cgpDef() *suiteDef {
	modes := make([]modeInfo, len(provider.Modes))
	for i, m := range provider.Modes {
		modes[i] = modeInfo{m.Name, m.Doc}
	}
	co := &cgpOptions{}
	var native cgplive.Native
	d := &suiteDef{
		name:  cgplive.Name,
		short: "Context Graph Protocol providers, live over stdio or HTTP: handshake, frames, budgets, verify, as_of, kinds, anchors, provenance, shutdown, attestations",
		long: `The cgp suite is a Context Graph Protocol host: it starts the provider
program after -- (NDJSON on stdio, in a process group of its own) or POSTs
envelopes to --url, and runs the fourteen provider checks of
contextgraph-conformance in its order: handshake, consent-scope,
frame-validity, verify-honesty, budget-honesty, as-of-temporal, kinds-filter,
anchor-relevance, provenance-fixture-consistency and shutdown-clean on one
connection; malformed-input-tolerance, embedding-fingerprint and correlation
each on a fresh stdio connection (not-checked over HTTP); then attestation.

The provider speaks CGP itself, not referee-adapter/1. With no target, referee
runs its own reference provider (referee serve cgp) as a child over documents
it writes to a temporary directory; --mode runs it misbehaving.

A provider's protocol violations (a banner line, garbage, a crash, a wrong
id) fail checks; a provider that cannot be started at all exits 3.
--format native prints upstream's report {target, checks:[{name, status,
evidence}]}. The bearer token for --url comes from --token or the variable
--token-env names (default ` + DefaultTokenEnv + `); it is never printed.`,
		example: `  referee run cgp
  referee run cgp -- ./my-provider --stdio
  referee run cgp --url http://127.0.0.1:8080/contextgraph --format native
  referee run cgp --mode lying-costs`,
		load: func(dir string) (*check.Suite, error) {
			if dir != "" {
				return nil, usageError("the cgp suite runs against a live provider and has no --corpus (see cgp-vectors for the fixtures)")
			}
			return cgplive.Load(), nil
		},
		reference: func(mode string) (adapter.Handler, error) {
			return nil, errors.New("the cgp suite has no referee-adapter/1 implementation; run its provider with referee serve cgp")
		},
		modes:  modes,
		native: func(run *check.Run) any { return native },
		flags: func(f *pflag.FlagSet) {
			f.StringVar(&co.token, "token", "", "a bearer `TOKEN` for the --url provider (prefer --token-env)")
			f.StringVar(&co.tokenEnv, "token-env", DefaultTokenEnv, "read the bearer token from the environment variable `VAR`")
		},
	}
	d.live = func(ctx context.Context, e *env, o *runOptions, suite *check.Suite, checks []check.Check) error {
		target, impl, cleanup, err := cgpTarget(o, co, e)
		if err != nil {
			return err
		}
		defer cleanup()
		res := cgplive.Run(ctx, target, checks)
		native = res.Native
		if res.Ack != nil && res.Ack.Provider != nil {
			impl.Name, impl.Version = res.Ack.Provider.Name, res.Ack.Provider.Version
		}
		return finishLive(e, d, o, suite, impl, res)
	}
	return d
}

// finishLive writes a live suite's reports and returns its exit.
func finishLive(e *env, d *suiteDef, o *runOptions, suite *check.Suite, impl report.Implementation, res *cgplive.Result) error {
	switch {
	case res.Unreachable:
		fmt.Fprintf(e.stderr, "referee: the provider could not be started or reached: %s\n", res.Run.Results[0].Reason)
	case res.Interrupted:
		fmt.Fprintf(e.stderr, "referee: interrupted; the verdicts above are not a conformance result\n")
	}
	rep := o.newReport(suite, impl, res.Run)
	// def.native reads the native report captured by live.
	if err := o.writeReports(e, d, rep, res.Run); err != nil {
		return err
	}
	if err := o.writeFailing(e, suite, res.Run); err != nil {
		return &exitError{code: report.ExitUsage, err: err}
	}
	if code := rep.ExitCode(); code != report.ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// cgpTarget picks the provider: the program after --, --url, or referee's
// own provider as a child over its embedded documents.
func cgpTarget(o *runOptions, co *cgpOptions, e *env) (host.Target, report.Implementation, func(), error) {
	nothing := func() {}
	if o.url != "" {
		if err := loopbackOnly(o.url); err != nil {
			return host.Target{}, report.Implementation{}, nothing, err
		}
	}
	var trace *adapter.Trace
	var traceFile *os.File
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return host.Target{}, report.Implementation{}, nothing, usageError("--trace: %v", err)
		}
		traceFile, trace = f, adapter.NewTrace(f)
	}
	closeTrace := func() {
		if traceFile != nil {
			traceFile.Close()
		}
	}
	switch {
	case len(o.argv) > 0:
		t := host.Target{Argv: o.argv, Dir: o.dir, Env: o.childEnv(), Stderr: prefixWriter(e.stderr, "provider: "), Trace: trace}
		return t, report.Implementation{Transport: "stdio", Command: o.argv}, closeTrace, nil
	case o.url != "":
		t := host.Target{URL: o.url, Token: co.bearer(), Trace: trace}
		return t, report.Implementation{Transport: "http", URL: o.url}, closeTrace, nil
	}
	if o.mode != "" && !knownMode(o.mode) {
		closeTrace()
		return host.Target{}, report.Implementation{}, nothing, usageError("unknown mode %q (see referee list cgp --modes)", o.mode)
	}
	dir, err := os.MkdirTemp("", "referee-cgp-docs-")
	if err != nil {
		closeTrace()
		return host.Target{}, report.Implementation{}, nothing, fmt.Errorf("a directory for the provider's documents: %w", err)
	}
	cleanup := func() { os.RemoveAll(dir); closeTrace() }
	if err := provider.WriteDocs(dir); err != nil {
		cleanup()
		return host.Target{}, report.Implementation{}, nothing, fmt.Errorf("writing the provider's documents: %w", err)
	}
	self, err := selfPath()
	if err != nil {
		cleanup()
		return host.Target{}, report.Implementation{}, nothing, err
	}
	argv := []string{self, "serve", "cgp", "--docs", dir}
	if o.mode != "" {
		argv = append(argv, "--misbehave", o.mode)
	}
	t := host.Target{Argv: argv, Dir: o.dir, Env: o.childEnv(), Stderr: prefixWriter(e.stderr, "provider: "), Trace: trace}
	command := []string{"referee", "serve", "cgp"}
	if o.mode != "" {
		command = append(command, "--misbehave", o.mode) // the report's mode is an in-process adapter's
	}
	return t, report.Implementation{Transport: "stdio", Command: command}, cleanup, nil
}

// loopbackOnly refuses, as a usage error, a plain http:// URL to a host
// that is not this machine (C7): nothing is sent to it.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return usageError("%q: want an http:// or https:// URL", raw)
	}
	if u.Scheme == "http" && !host.Loopback(u.Hostname()) {
		return usageError("%s: plain http:// is allowed only to loopback (localhost, 127.0.0.0/8, [::1]); use https:// for %s (nothing was sent)", raw, u.Hostname())
	}
	return nil
}

func knownMode(m string) bool {
	for _, x := range provider.Modes {
		if x.Name == m {
			return true
		}
	}
	return false
}

// selfPath is how referee starts itself as a child: its argv[0] when that
// resolves (so a test binary standing in for referee is found as such),
// else its executable.
func selfPath() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find referee's own executable to start its provider: %w", err)
	}
	return p, nil
}

func newServeCgpCmd(e *env) *cobra.Command {
	var docs, addr, mode string
	c := &cobra.Command{
		Use:   "cgp",
		Short: "Serve referee's reference Context Graph provider over a folder of documents",
		Long: `serve cgp is a Context Graph Protocol provider: every file of --docs is a
frame (content, digests, token costs, file provenance with line ranges,
relations, verify, correlation, an embeddings fingerprint and attestations
signed with a published test key). It speaks NDJSON on stdio, or HTTP with
--http ADDR. Without --docs it serves its own embedded documents.
--misbehave MODE breaks one rule on purpose (referee list cgp --modes).`,
		Example: `  referee run cgp -- referee serve cgp --docs ./docs
  referee serve cgp --http 127.0.0.1:8080 & referee run cgp --url http://127.0.0.1:8080/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if docs == "" {
				dir, err := os.MkdirTemp("", "referee-cgp-docs-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				if err := provider.WriteDocs(dir); err != nil {
					return err
				}
				docs = dir
			}
			abs, err := filepath.Abs(docs)
			if err != nil {
				return usageError("--docs %s: %v", docs, err)
			}
			p, err := provider.New(abs, mode)
			if err != nil {
				return usageError("%v", err)
			}
			if addr == "" {
				err := p.ServeStdio(cmd.Context(), e.stdin, e.stdout)
				switch {
				case errors.Is(err, provider.ErrCrash):
					return &exitError{code: 1, err: err}
				case errors.Is(err, context.Canceled):
					return nil // interrupted: a clean stop
				}
				return err
			}
			if provider.StdioOnly(mode) {
				return usageError("--misbehave %s breaks a rule only the stdio checks test; over --http it would change no verdict", mode)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usageError("--http %s: %v", addr, err)
			}
			fmt.Fprintf(e.stderr, "referee: serving CGP provider %s on http://%s/\n", provider.Name, ln.Addr())
			srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: time.Minute}
			go func() { <-cmd.Context().Done(); srv.Close() }()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	var names []string
	for _, m := range provider.Modes {
		names = append(names, m.Name)
	}
	c.Flags().StringVar(&docs, "docs", "", "serve the files of `DIR` (default: the embedded documents)")
	c.Flags().StringVar(&addr, "http", "", "serve over HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	c.Flags().StringVar(&mode, "misbehave", "", "break one rule on purpose: `MODE` is one of "+strings.Join(names, ", "))
	return c
}

// inspectOptions are the flags of `referee inspect`.
type inspectOptions struct {
	query   string
	json    bool
	noColor bool
	cgp     cgpOptions
	clean   bool
}

func newInspectCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Probe a Context Graph provider, then run the cgp suite against it",
		Long: `inspect shows what a Context Graph provider says about itself (identity,
data flow, capabilities), optionally sends one query and lists its frames,
and then runs the cgp suite and prints the verdict.

With --json, stdout is one JSON document and nothing else:
{"provider": <the ack>, "query": <the frames reply>, "report": <the native
report>}; the human text goes to stderr. It exits as referee run does.`,
		Example: `  referee inspect stdio -- referee serve cgp
  referee inspect stdio --query "how do I configure it" -- ./my-provider
  referee inspect http http://127.0.0.1:8080/ --json`,
	}
	mk := func(use string, args cobra.PositionalArgs, target func(o *inspectOptions, args []string, dash int) (host.Target, error)) *cobra.Command {
		o := &inspectOptions{}
		c := &cobra.Command{
			Use:  use,
			Args: args,
			RunE: func(cmd *cobra.Command, args []string) error {
				t, err := target(o, args, cmd.ArgsLenAtDash())
				if err != nil {
					return err
				}
				return inspect(cmd.Context(), e, o, t)
			},
		}
		c.Flags().StringVar(&o.query, "query", "", "send one query with this `GOAL` (max 8 frames, 4096 tokens) and list its frames")
		c.Flags().BoolVar(&o.json, "json", false, "print one JSON document on stdout; human text goes to stderr")
		c.Flags().BoolVar(&o.noColor, "no-color", false, "no colour (NO_COLOR is honoured too)")
		if strings.HasPrefix(use, "http") {
			c.Flags().StringVar(&o.cgp.token, "token", "", "a bearer `TOKEN` for the provider (prefer --token-env)")
			c.Flags().StringVar(&o.cgp.tokenEnv, "token-env", DefaultTokenEnv, "read the bearer token from the environment variable `VAR`")
		} else {
			c.Flags().BoolVar(&o.clean, "clean-env", false, "start the provider with PATH and HOME only, as the reference host does")
		}
		return c
	}
	stdio := mk("stdio [--query GOAL] [--json] -- PROGRAM ARGS...", cobra.MinimumNArgs(1), func(o *inspectOptions, args []string, dash int) (host.Target, error) {
		if dash != 0 {
			return host.Target{}, usageError("put the provider program after --")
		}
		var env []string // nil: referee's environment
		if o.clean {
			env = cleanEnv()
		}
		return host.Target{Argv: args, Env: env, Stderr: prefixWriter(e.stderr, "provider: ")}, nil
	})
	stdio.Short = "Inspect a provider program speaking CGP on stdio"
	http := mk("http URL [--query GOAL] [--json]", cobra.ExactArgs(1), func(o *inspectOptions, args []string, dash int) (host.Target, error) {
		token := o.cgp.bearer()
		if err := loopbackOnly(args[0]); err != nil {
			return host.Target{}, err
		}
		return host.Target{URL: args[0], Token: token}, nil
	})
	http.Short = "Inspect a provider served over HTTP"
	cmd.AddCommand(stdio, http)
	return cmd
}

// inspectDoc is inspect's --json document.
type inspectDoc struct {
	Provider *cgp.Envelope  `json:"provider"`
	Query    *cgp.Envelope  `json:"query,omitempty"`
	Report   cgplive.Native `json:"report"`
}

func inspect(ctx context.Context, e *env, o *inspectOptions, t host.Target) error {
	human := e.stdout
	if o.json {
		human = e.stderr
	}
	useColor := !o.noColor && os.Getenv("NO_COLOR") == "" && isTerminal(human)
	paint := func(attr color.Attribute) func(a ...any) string {
		c := color.New(attr)
		if useColor {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c.SprintFunc()
	}
	green, red, yellow := paint(color.FgGreen), paint(color.FgRed), paint(color.FgYellow)
	doc := inspectDoc{}

	// Phase 1: the probe, on a connection of its own.
	h, err := host.Dial(ctx, t)
	if err == nil {
		var ack *cgp.Envelope
		ack, err = h.Handshake(ctx)
		if err == nil {
			doc.Provider = ack
			printIdentity(human, ack, t, yellow)
			if o.query != "" {
				q := cgp.ContextQuery{Goal: o.query, MaxFrames: 8, MaxTokens: 4096}
				reply, qerr := h.Query(ctx, q, nil)
				if reply != nil {
					doc.Query = reply
				}
				if qerr != nil {
					fmt.Fprintf(human, "query failed: %v\n", qerr)
				} else {
					fmt.Fprintf(human, "query %q: %d frame(s)\n", o.query, len(reply.Result.Frames))
					for _, f := range reply.Result.Frames {
						label := f.ID
						if f.CitationLabel != nil {
							label = *f.CitationLabel
						}
						fmt.Fprintf(human, "  [%.2f] %s  %d tok\n", f.Score, visibleText(label), f.TokenCost)
					}
				}
			}
			h.Shutdown(ctx)
		}
		h.Close()
	}
	if err != nil {
		fmt.Fprintf(human, "could not establish provider: %v\n", err)
	}

	// Phase 2: the suite.
	res := cgplive.Run(ctx, t, nil)
	doc.Report = res.Native
	passed, failed, skipped := 0, 0, 0
	for _, c := range res.Native.Checks {
		switch c.Status {
		case "pass":
			passed++
			fmt.Fprintf(human, "%s %s  %s\n", green("✓"), c.Name, visibleText(c.Evidence))
		case "fail":
			failed++
			fmt.Fprintf(human, "%s %s  %s\n", red("✗"), c.Name, visibleText(c.Evidence))
		default:
			skipped++
			fmt.Fprintf(human, "%s %s  %s\n", yellow("–"), c.Name, visibleText(c.Evidence))
		}
	}
	switch {
	case failed == 0 && passed == 0:
		fmt.Fprintf(human, "%s\n", red(fmt.Sprintf("NOT CONFORMANT — nothing passed, %d skipped", skipped)))
	case failed == 0:
		fmt.Fprintf(human, "%s\n", green(fmt.Sprintf("CONFORMANT — %d passed, %d skipped", passed, skipped)))
	default:
		fmt.Fprintf(human, "%s\n", red(fmt.Sprintf("NOT CONFORMANT — %d failed, %d passed, %d skipped", failed, passed, skipped)))
	}
	if o.json {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(e.stdout, "%s\n", b); err != nil {
			return err
		}
	}
	switch {
	case !res.Run.Complete:
		return &exitError{code: report.ExitIncomplete}
	case failed > 0 || passed == 0: // as run: nothing checked is not conformance
		return &exitError{code: report.ExitFailed}
	}
	return nil
}

func printIdentity(w io.Writer, ack *cgp.Envelope, t host.Target, warn func(a ...any) string) {
	p, c := ack.Provider, ack.Capabilities
	fmt.Fprintf(w, "provider %s v%s (%s), %s\n", visibleText(p.Name), visibleText(p.Version), visibleText(ack.ProtocolVersion), t)
	df := p.DataFlow
	fmt.Fprintf(w, "data flow: reads=%v writes=%v egress=%v scopes=%s\n", df.Reads, df.Writes, df.Egress, visibleText(fmt.Sprint(df.EgressScopes)))
	if df.Egress || !t.IsStdio() {
		fmt.Fprintf(w, "%s\n", warn("⚠ egress: this provider's data may leave the machine (an HTTP provider always counts as egress)"))
	}
	fmt.Fprintf(w, "capabilities: kinds=%s correlation=%v graph=%v verify=%v resolve=%v representations=%s\n",
		visibleText(fmt.Sprint(c.Query.Kinds)), c.Correlation, c.Graph, c.Verify, c.Resolve, visibleText(fmt.Sprint(c.Representations)))
	if c.EmbeddingsFingerprint != nil {
		fmt.Fprintf(w, "embedder: %s\n", visibleText(*c.EmbeddingsFingerprint))
	}
	if len(ack.AttesterKeys) > 0 {
		for _, k := range ack.AttesterKeys {
			fmt.Fprintf(w, "attester key %s (%s): %s\n", visibleText(k.KeyID), visibleText(k.Algorithm), visibleText(k.PublicKey))
		}
	}
}

// visibleText escapes control characters a provider could use to forge lines.
func visibleText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
