package cgplive

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/internal/httpserve"
	"github.com/refereehq/referee/protocols/cgp/host"
	"github.com/refereehq/referee/protocols/cgp/provider"
)

// DefaultTokenEnv is the environment variable a provider's bearer token is
// read from when --token is not given.
const DefaultTokenEnv = "REFEREE_CGP_TOKEN"

// The bearer token's flags, of run and of inspect http.
var (
	flagToken    = check.Flag{Name: "token", Usage: "a bearer `TOKEN` for the --url provider (prefer --token-env)"}
	flagTokenEnv = check.Flag{Name: "token-env", Default: DefaultTokenEnv, Usage: "read the bearer token from the environment variable `VAR`"}
	flagSessions = check.Flag{Name: "sessions", Repro: true, Usage: "run the sessions of the corpus in `DIR` (written by referee fuzz cgp --out), one check each, instead of the fourteen checks"}
)

// Definition declares the live cgp suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "Context Graph Protocol providers, live over stdio or HTTP: handshake, frames, budgets, verify, as_of, kinds, anchors, provenance, shutdown, attestations",
	Help: `The cgp suite is a Context Graph Protocol host: it starts the provider
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
id) fail checks; a provider that cannot be started or reached at all ends the
run incomplete (exit 3). --format native prints upstream's report {target,
checks:[{name, status, evidence}]}. The bearer token for --url comes from
--token or the variable --token-env names (default ` + DefaultTokenEnv + `); it is
never printed.`,
	Examples: []string{
		"referee run cgp",
		"referee run cgp -- ./my-provider --stdio",
		"referee run cgp --url http://127.0.0.1:8080/contextgraph --format native",
		"referee run cgp --mode lying-costs",
	},
	Flags: []check.Flag{flagToken, flagTokenEnv, flagSessions},
	Modes: modes,
	Live:  true,
	Load:  load,
	Fuzz:  &fuzzSpec,
	Validate: func(spec check.Spec) error {
		if spec.URL != "" {
			return loopbackOnly(spec.URL)
		}
		return nil
	},
	Serve: serve,
	ServeFlags: []check.Flag{
		{Name: "docs", Usage: "serve the files of `DIR` (default: the embedded documents)"},
	},
	Commands: inspectCommands,
}

// load builds the suite: the fourteen checks, or, for a corpus of sessions
// (--sessions DIR; LoadOptions.Corpus or FS, as the fuzzer reads the corpus
// it writes), one check per session.
func load(o check.LoadOptions) (*check.Loaded, error) {
	l := &check.Loaded{Suite: suite(), Native: native, Connect: connect}
	dir := o.Flags.String(flagSessions.Name)
	if o.Corpus != "" && dir != "" && o.Corpus != dir {
		return nil, check.Usagef("--sessions %s and a corpus %s: give one corpus of sessions", dir, o.Corpus)
	}
	if o.FS == nil && o.Corpus == "" && dir == "" {
		return l, nil
	}
	if o.Corpus == "" {
		o.Corpus = dir
	}
	c, err := o.OpenCorpus(nil)
	if err != nil {
		return nil, err
	}
	if o.FS == nil && c.Manifest != nil && c.Manifest.FuzzFoundNothing() {
		return nil, check.Usagef("corpus %s holds no session: referee fuzz wrote it and found nothing, so it has no check to replay", o.Corpus)
	}
	if l.Suite, err = sessionSuite(c); err != nil {
		return nil, err
	}
	return l, nil
}

func modes() []check.Mode {
	return check.ModesOf(provider.Modes, func(m *provider.Mode) (string, string) { return m.Name, m.Doc })
}

// bearer is the token from --token, else from the variable --token-env names.
func bearer(f check.FlagValues) string {
	if t := f.String("token"); t != "" {
		return t
	}
	if name := f.String("token-env"); name != "" {
		return os.Getenv(name)
	}
	return ""
}

// target turns the pipeline's spec into the host's target; a default spec
// starts referee's own provider over documents in a temporary directory,
// which cleanup removes.
func target(spec check.Spec) (t host.Target, cleanup func(), err error) {
	cleanup = func() {}
	if spec.URL != "" {
		if err := loopbackOnly(spec.URL); err != nil {
			return t, cleanup, err
		}
		return host.Target{URL: spec.URL, Token: bearer(spec.Flags), Trace: spec.Trace}, cleanup, nil
	}
	t = host.Target{Argv: spec.Argv, Dir: spec.Dir, Env: spec.Env, Stderr: spec.Stderr, Trace: spec.Trace}
	if len(spec.Argv) > 0 {
		return t, cleanup, nil
	}
	dir, err := os.MkdirTemp("", "referee-cgp-docs-")
	if err != nil {
		return t, cleanup, fmt.Errorf("a directory for the provider's documents: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := provider.WriteDocs(dir); err != nil {
		cleanup()
		return t, func() {}, fmt.Errorf("writing the provider's documents: %w", err)
	}
	self, err := selfPath()
	if err != nil {
		cleanup()
		return t, func() {}, err
	}
	t.Argv = []string{self, "serve", Name, "--docs", dir}
	if spec.Mode != "" {
		t.Argv = append(t.Argv, "--mode", spec.Mode)
	}
	return t, cleanup, nil
}

// targetName names the provider as upstream's report does; the built-in
// provider by the command that serves it.
func targetName(spec check.Spec) string {
	if len(spec.Argv) > 0 || spec.URL != "" {
		return host.Target{Argv: spec.Argv, URL: spec.URL}.String()
	}
	argv := []string{"referee", "serve", Name}
	if spec.Mode != "" {
		argv = append(argv, "--mode", spec.Mode)
	}
	return host.Target{Argv: argv}.String()
}

// loopbackOnly refuses, as a usage error, a plain http:// URL to a host
// that is not this machine (C7): nothing is sent to it.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return check.Usagef("%q: want an http:// or https:// URL", raw)
	}
	if u.Scheme == "http" && !host.Loopback(u.Hostname()) {
		return check.Usagef("%s: plain http:// is allowed only to loopback (localhost, 127.0.0.0/8, [::1]); use https:// for %s (nothing was sent)", raw, u.Hostname())
	}
	return nil
}

// selfPath is the program referee starts itself as (child.SelfPath).
func selfPath() (string, error) {
	p, err := child.SelfPath()
	if err != nil {
		return "", fmt.Errorf("cannot find referee's own executable to start its provider: %w", err)
	}
	return p, nil
}

// serve runs referee's reference provider on stdio or over HTTP.
func serve(ctx context.Context, o check.ServeOptions) error {
	docs := o.Flags.String("docs")
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
		return check.Usagef("--docs %s: %v", docs, err)
	}
	p, err := provider.New(abs, o.Mode)
	if err != nil {
		return check.Usagef("%v", err)
	}
	if o.Addr == "" {
		err := p.ServeStdio(ctx, o.Stdin, o.Stdout)
		switch {
		case errors.Is(err, provider.ErrCrash):
			fmt.Fprintf(o.Stderr, "referee: %v\n", err)
			return check.ExitCode(1)
		case errors.Is(err, context.Canceled):
			return nil // interrupted: a clean stop
		}
		return err
	}
	if provider.StdioOnly(o.Mode) {
		return check.Usagef("--mode %s breaks a rule only the stdio checks test; over --http it would change no verdict", o.Mode)
	}
	return httpserve.Serve(ctx, o.Addr, "CGP provider "+provider.Name, p.Handler(), o.Stderr)
}
