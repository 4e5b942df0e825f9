package cgplive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/internal/paint"
	"github.com/refereehq/referee/internal/termsafe"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
)

// The flags of inspect's subcommands, each declared once.
var (
	flagFormat   = check.Flag{Name: "format", Default: "text", Usage: "the suite's report on stdout, as run writes it: text, json, junit, markdown or html (the probe's text then goes to stderr)"}
	flagQuery    = check.Flag{Name: "query", Usage: "send one query with this `GOAL` (max 8 frames, 4096 tokens) and list its frames"}
	flagJSON     = check.Flag{Name: "json", Kind: check.FlagBool, Usage: "print one JSON document on stdout; human text goes to stderr"}
	flagNoColor  = check.Flag{Name: "no-color", Kind: check.FlagBool, Usage: "no colour (NO_COLOR is honoured too)"}
	flagCleanEnv = check.Flag{Name: "clean-env", Kind: check.FlagBool, Usage: "start the provider with PATH and HOME only, as the reference host does"}
)

var inspectCommands = []check.Command{{
	Name:    "inspect",
	Summary: "Probe a Context Graph provider, then run the cgp suite against it",
	Help: `inspect shows what a Context Graph provider says about itself (identity,
data flow, capabilities), optionally sends one query and lists its frames,
and then runs the cgp suite and prints its report, as referee run cgp does.

With --json, stdout is one JSON document and nothing else:
{"provider": <the ack>, "query": <the frames reply>, "report": <the
referee-report/2 report of the suite>}; the human text goes to stderr. It
exits as referee run does.`,
	Examples: []string{
		"referee inspect stdio -- referee serve cgp",
		`referee inspect stdio --query "how do I configure it" -- ./my-provider`,
		"referee inspect http http://127.0.0.1:8080/ --json",
	},
	Sub: []check.Command{
		{
			Name:    "stdio",
			Use:     "[--query GOAL] [--json] -- PROGRAM ARGS...",
			Summary: "Inspect a provider program speaking CGP on stdio",
			Flags:   []check.Flag{flagFormat, flagQuery, flagJSON, flagNoColor, flagCleanEnv},
			Args:    [2]int{1, -1},
			Dash:    true,
			Action: func(ctx context.Context, inv *check.Invocation) error {
				// The provider's stderr, copied live, as run copies it.
				spec := check.Spec{Argv: inv.Args, Stderr: termsafe.NewWriter(inv.Stderr, "provider: "), Flags: inv.Flags}
				if inv.Flags.Bool("clean-env") {
					spec.Env = child.CleanEnv()
				}
				return inspect(ctx, inv, spec)
			},
		},
		{
			Name:    "http",
			Use:     "URL [--query GOAL] [--json]",
			Summary: "Inspect a provider served over HTTP",
			Flags:   []check.Flag{flagFormat, flagQuery, flagJSON, flagNoColor, flagToken, flagTokenEnv},
			Args:    [2]int{1, 1},
			Action: func(ctx context.Context, inv *check.Invocation) error {
				if err := loopbackOnly(inv.Args[0]); err != nil {
					return err
				}
				return inspect(ctx, inv, check.Spec{URL: inv.Args[0], Flags: inv.Flags})
			},
		},
	},
}}

// inspectDoc is inspect's --json document.
type inspectDoc struct {
	Provider *cgp.Envelope `json:"provider"`
	Query    *cgp.Envelope `json:"query,omitempty"`
	Report   any           `json:"report"`
}

func inspect(ctx context.Context, inv *check.Invocation, spec check.Spec) error {
	human := inv.Stdout
	asJSON := inv.Flags.Bool("json")
	format := inv.Flags.String("format")
	if asJSON && format != "text" {
		return check.Usagef("give --json (the inspector's own document) or --format, not both")
	}
	if asJSON || format != "text" {
		human = inv.Stderr
	}
	useColor := !inv.Flags.Bool("no-color") && inv.Color != nil && inv.Color(human)
	pen := paint.Painter(useColor)
	doc := inspectDoc{}

	// Phase 1: the probe, on a connection of its own.
	t, cleanup, err := target(spec)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := probe(ctx, human, t, inv.Flags.String("query"), &doc, pen(paint.Yellow)); err != nil {
		fmt.Fprintf(human, "could not establish provider: %s\n", termsafe.Line(err.Error()))
	}

	// Phase 2: the suite, through the same pipeline and verdict as run.
	fmt.Fprintln(human)
	reportTo := human
	if format != "text" {
		reportTo = inv.Stdout
	}
	rep, exit := inv.Verdict(ctx, spec, reportTo, format)
	doc.Report = rep
	if asJSON {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(inv.Stdout, "%s\n", b); err != nil {
			return err
		}
	}
	if exit != 0 {
		return check.ExitCode(exit)
	}
	return nil
}

// probe handshakes, prints the provider's identity and, if goal is set,
// sends one query and lists its frames.
func probe(ctx context.Context, w io.Writer, t host.Target, goal string, doc *inspectDoc, warn func(a ...any) string) error {
	h, err := host.Dial(ctx, t)
	if err != nil {
		return err
	}
	defer h.Close()
	ack, err := h.Handshake(ctx)
	if err != nil {
		return err
	}
	doc.Provider = ack
	printIdentity(w, ack, t, warn)
	if goal != "" {
		q := cgp.ContextQuery{Goal: goal, MaxFrames: 8, MaxTokens: 4096}
		reply, qerr := h.Query(ctx, q, nil)
		if reply != nil {
			doc.Query = reply
		}
		if qerr != nil {
			fmt.Fprintf(w, "query failed: %s\n", termsafe.Line(qerr.Error()))
		} else {
			fmt.Fprintf(w, "query %q: %d frame(s)\n", termsafe.Line(goal), len(reply.Result.Frames))
			for _, f := range reply.Result.Frames {
				label := f.ID
				if f.CitationLabel != nil {
					label = *f.CitationLabel
				}
				fmt.Fprintf(w, "  [%.2f] %s  %d tok\n", f.Score, termsafe.Line(label), f.TokenCost)
			}
		}
	}
	h.Shutdown(ctx)
	return nil
}

func printIdentity(w io.Writer, ack *cgp.Envelope, t host.Target, warn func(a ...any) string) {
	p, c := ack.Provider, ack.Capabilities
	fmt.Fprintf(w, "provider %s v%s (%s), %s\n", termsafe.Line(p.Name), termsafe.Line(p.Version), termsafe.Line(ack.ProtocolVersion), termsafe.Line(t.String()))
	df := p.DataFlow
	fmt.Fprintf(w, "data flow: reads=%v writes=%v egress=%v scopes=%s\n", df.Reads, df.Writes, df.Egress, termsafe.Line(fmt.Sprint(df.EgressScopes)))
	if df.Egress || !t.IsStdio() {
		fmt.Fprintf(w, "%s\n", warn("⚠ egress: this provider's data may leave the machine (an HTTP provider always counts as egress)"))
	}
	fmt.Fprintf(w, "capabilities: kinds=%s correlation=%v graph=%v verify=%v resolve=%v representations=%s\n",
		termsafe.Line(fmt.Sprint(c.Query.Kinds)), c.Correlation, c.Graph, c.Verify, c.Resolve, termsafe.Line(fmt.Sprint(c.Representations)))
	if c.EmbeddingsFingerprint != nil {
		fmt.Fprintf(w, "embedder: %s\n", termsafe.Line(*c.EmbeddingsFingerprint))
	}
	for _, k := range ack.AttesterKeys {
		fmt.Fprintf(w, "attester key %s (%s): %s\n", termsafe.Line(k.KeyID), termsafe.Line(k.Algorithm), termsafe.Line(k.PublicKey))
	}
}
