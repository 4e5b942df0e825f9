package cgphost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/internal/httpserve"
	"github.com/refereehq/referee/protocols/cgp/adversary"
	"github.com/refereehq/referee/protocols/cgp/composer"
)

// The transports the suite's providers can be reached over (--transport).
const (
	transportMixed = "mixed" // each check's providers as it designs them: stdio and HTTP side by side
	transportStdio = "stdio"
	transportHTTP  = "http"
)

// flagTransport picks the providers' transport.
var flagTransport = check.Flag{
	Name:    "transport",
	Default: transportMixed,
	Usage:   "reach referee's providers over `T`: mixed (stdio and HTTP side by side, as each check designs), stdio or http (for a host that speaks only one)",
	Repro:   true,
}

// Definition declares the cgp-host suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "Context Graph Protocol hosts and composers: referee plays every adversarial provider and judges what reached the prompt and what crossed the wire",
	Help: `The cgp-host suite tests a Context Graph Protocol host, the dual of the
cgp suite: the host under test is reached through an adapter offering one op,
compose, which gives it a set of providers (commands to start, or URLs that
referee serves on loopback), the consent recorded and the consent receipts,
the directories it may re-read to verify provenance, and a query; the host
answers with each provider's outcome, the frames admitted in render order,
the frames dropped and why, and the rendered prompt.

referee plays every provider: honest ones, and ones that ack a wrong major
version, return more tokens or frames than asked for, declare egress or
off-machine scopes without consent, crash in the middle of a query, serve a
tampered file provenance digest or content that tries to break out of its
fence, or refuse a bearer credential. Each check sets an adversarial provider
beside a well-behaved one the host must accept, so a host that drops
everything, or admits everything, fails; and each provider records every line
it received, so consent (C2, C6) is judged on what crossed the wire.

The providers are served by the run itself: a stdio provider is referee
serve cgp-host --provider URL, a relay back to the run. The host must run on
this machine. --transport stdio or http gives every provider that transport,
for a host that speaks only one (the C8 check needs HTTP).`,
	Examples: []string{
		"referee run cgp-host",
		"referee run cgp-host -- node examples/adapters/node/cgp-host.mjs",
		"referee run cgp-host --transport stdio -- ./my-host-adapter",
		"referee run cgp-host --mode query-before-consent",
	},
	Flags:    []check.Flag{flagTransport},
	RunBound: true, // a compose request names providers that live only during its call
	Modes: func() []check.Mode {
		return check.ModesOf(composer.Modes, func(m *composer.Mode) (string, string) { return m.Name, m.Doc })
	},
	Load:  load,
	Ops:   ops,
	Serve: serve,
	ServeFlags: []check.Flag{
		{Name: "provider", Usage: "instead of the host adapter, serve on stdio the provider a running cgp-host check serves at `URL` (the suite gives hosts this command)"},
	},
}

func load(o check.LoadOptions) (*check.Loaded, error) {
	mode := o.Flags.String("transport")
	switch mode {
	case "":
		mode = transportMixed
	case transportMixed, transportStdio, transportHTTP:
	default:
		return nil, check.Usagef("--transport %q: want mixed, stdio or http", mode)
	}
	loaded := &check.Loaded{Reference: check.ReferenceOf(func(m string) (*reference, error) { return newReference(m, nil) })}
	if !o.ReferenceOnly {
		loaded.Suite = suite(mode)
	}
	return loaded, nil
}

// serve serves the reference host as a referee-adapter/1 adapter on stdio
// or over HTTP; with --provider, it is instead the stdio relay of one of a
// running check's providers.
func serve(ctx context.Context, o check.ServeOptions) error {
	if u := o.Flags.String("provider"); u != "" {
		if code := adversary.Relay(ctx, u, o.Stdin, o.Stdout, o.Stderr); code != 0 {
			return check.ExitCode(code)
		}
		return nil
	}
	h, err := newReference(o.Mode, o.Stderr)
	if err != nil {
		return check.Usagef("%v", err)
	}
	if o.Addr == "" {
		return adapter.Serve(ctx, h, o.Stdin, o.Stdout)
	}
	return httpserve.Serve(ctx, o.Addr, Name, adapter.ServeHTTP(h), o.Stderr)
}

// reference is the built-in host as an adapter: composer.Host behind the
// compose op.
type reference struct{ h *composer.Host }

func newReference(mode string, log io.Writer) (*reference, error) {
	h, err := composer.New(mode, log)
	if err != nil {
		return nil, err
	}
	return &reference{h: h}, nil
}

// ReferenceName is the built-in host's name in its hello.
const ReferenceName = "referee-cgp-host"

func (r *reference) Hello() adapter.Hello {
	return adapter.Hello{Name: ReferenceName, Version: Version, Ops: []string{OpCompose}, Concurrency: 4}
}

func (r *reference) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	if op != OpCompose {
		return nil, &adapter.Error{Code: "unknown_op", Message: "no op " + op}
	}
	var req composer.Request
	if err := json.Unmarshal(args, &req); err != nil {
		return nil, &adapter.Error{Code: "bad_args", Message: err.Error()}
	}
	c, err := r.h.Compose(ctx, req)
	if err != nil {
		return nil, &adapter.Error{Code: "compose_failed", Message: err.Error()}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the prompt's fences stay readable in the evidence
	if err := enc.Encode(c); err != nil {
		return nil, &adapter.Error{Code: "internal", Message: err.Error()}
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// selfPath is the program referee starts itself as (child.SelfPath).
func selfPath() (string, error) {
	p, err := child.SelfPath()
	if err != nil {
		return "", fmt.Errorf("cannot find referee's own executable to serve stdio providers: %w", err)
	}
	return p, nil
}
