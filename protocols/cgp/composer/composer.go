// Package composer is referee's reference Context Graph Protocol composing
// host: it fans one query out to many providers (stdio programs or HTTP
// endpoints), gates each on consent and consent receipts before any query
// payload moves, audits each reply (budget, frame count), verifies file
// provenance under trusted roots, and composes what survives into one
// budgeted, deterministic, fenced prompt, reporting every frame it dropped
// and why. Its Modes each break one of those rules on purpose.
package composer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/refereehq/referee/protocols/cgp"
)

// Provider says how to reach one provider.
type Provider struct {
	ID        string   `json:"id"`
	Transport string   `json:"transport"` // "stdio" or "http"
	Argv      []string `json:"argv,omitempty"`
	URL       string   `json:"url,omitempty"`
	Token     string   `json:"token,omitempty"` // a bearer credential for an HTTP provider
}

// The transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// Grantor is who granted a consent receipt: kind "human" or "policy", and an id.
type Grantor struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// Receipt is a consent receipt (docs/context-reuse.md §3): one provider may
// send content under one egress scope.
type Receipt struct {
	ProviderID      string  `json:"provider_id"`
	Scope           string  `json:"scope"`
	ProviderName    string  `json:"provider_name"`
	ProviderVersion string  `json:"provider_version"`
	Grantor         Grantor `json:"grantor"`
	GrantedAt       string  `json:"granted_at"`
	ExpiresAt       *string `json:"expires_at,omitempty"`
}

// Request is one composition: the providers, the consent state, the
// directories whose files may be re-read to verify provenance, and the query.
type Request struct {
	Query        cgp.ContextQuery `json:"query"`
	Providers    []Provider       `json:"providers"`
	Consent      []string         `json:"consent,omitempty"` // provider ids with egress consent recorded
	Receipts     []Receipt        `json:"receipts,omitempty"`
	TrustedRoots []string         `json:"trusted_roots,omitempty"`
}

// The results of one provider.
const (
	ResultFrames               = "frames"                 // its frames were offered to the composition
	ResultVersionMismatch      = "version_mismatch"       // H3
	ResultConsentRequired      = "consent_required"       // C1/C2
	ResultConsentScopeRequired = "consent_scope_required" // C6
	ResultOverBudget           = "over_budget"            // B2
	ResultFrameFlood           = "frame_flood"            // B4
	ResultCrashed              = "provider_crashed"       // it died, or the connection closed, mid-exchange
	ResultUnauthorized         = "unauthorized"           // HTTP 401
	ResultTimeout              = "timeout"
	ResultError                = "error" // anything else
)

// The reasons a frame is dropped.
const (
	ReasonOverBudget  = "over_budget"         // it did not fit the composition's budget
	ReasonProvenance  = "provenance_mismatch" // a file provenance digest does not match the bytes
	ReasonQuarantined = "quarantined"         // its provider's reply was refused (over_budget, frame_flood)
)

// The provenance states of an admitted frame.
const (
	ProvenanceVerified     = "verified"     // every file link under a trusted root matched
	ProvenanceMismatch     = "mismatch"     // a file link's digest does not match
	ProvenanceUnverifiable = "unverifiable" // it has file links, none of them readable under a trusted root
)

// Outcome is what became of one provider.
type Outcome struct {
	ID      string   `json:"id"`
	Result  string   `json:"result"`
	Scopes  []string `json:"scopes,omitempty"` // consent_scope_required: the scopes without a receipt
	Message string   `json:"message,omitempty"`
}

// Admitted is a frame that reached the prompt.
type Admitted struct {
	ProviderID    string  `json:"provider_id"`
	FrameID       string  `json:"frame_id"`
	ContentDigest *string `json:"content_digest,omitempty"`
	Provenance    string  `json:"provenance,omitempty"`
}

// Dropped is a frame that did not, and why.
type Dropped struct {
	ProviderID    string  `json:"provider_id"`
	FrameID       string  `json:"frame_id"`
	ContentDigest *string `json:"content_digest,omitempty"`
	Reason        string  `json:"reason"`
}

// Composition is what a Request became: each provider's outcome, the
// frames admitted in render order, those dropped, and the rendered prompt.
type Composition struct {
	Providers []Outcome  `json:"providers"`
	Admitted  []Admitted `json:"admitted"`
	Dropped   []Dropped  `json:"dropped"`
	Prompt    string     `json:"prompt"`
}

// Host composes; it is safe for concurrent use.
type Host struct {
	mode string
	log  io.Writer
}

// New returns the host in mode ("" for the honest host); log, if not nil,
// gets its log lines and a copy of its stdio providers' stderr.
func New(mode string, log io.Writer) (*Host, error) {
	if mode != "" {
		if _, ok := modeDoc(mode); !ok {
			return nil, fmt.Errorf("cgp composer: no broken mode %q (modes: %s)", mode, modeNames())
		}
	}
	if log == nil {
		log = io.Discard
	}
	return &Host{mode: mode, log: log}, nil
}

// Compose runs the query against every provider at once and composes what
// they return. An error says the request itself is unusable (or, in mode
// crash-poisons, that a provider crashed).
func (h *Host) Compose(ctx context.Context, req Request) (*Composition, error) {
	if err := validate(req); err != nil {
		return nil, err
	}
	legs := make([]*leg, len(req.Providers))
	var wg sync.WaitGroup
	for i, p := range req.Providers {
		legs[i] = &leg{p: p}
		wg.Go(func() { h.run(ctx, legs[i], &req) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &Composition{Providers: []Outcome{}, Admitted: []Admitted{}, Dropped: []Dropped{}}
	var offered []offer
	for _, l := range legs {
		c.Providers = append(c.Providers, l.outcome)
		if h.mode == modeCrashPoisons && l.outcome.Result == ResultCrashed {
			return nil, fmt.Errorf("provider %s crashed: the composition is abandoned", l.p.ID)
		}
		switch {
		case l.outcome.Result == ResultFrames || (h.mode == modeComposeRaw && l.served):
			for _, f := range l.frames {
				offered = append(offered, offer{provider: l.p.ID, frame: f, seq: len(offered)})
			}
		case l.served:
			for _, f := range l.frames {
				c.Dropped = append(c.Dropped, dropped(l.p.ID, &f, ReasonQuarantined))
			}
		}
	}
	h.compose(c, offered, &req)
	return c, nil
}

// validate refuses a request the host cannot run.
func validate(req Request) error {
	if len(req.Providers) == 0 {
		return errors.New("no providers")
	}
	seen := map[string]bool{}
	for i, p := range req.Providers {
		switch {
		case p.ID == "":
			return fmt.Errorf("providers[%d] has no id", i)
		case seen[p.ID]:
			return fmt.Errorf("providers[%d]: id %q is given twice", i, p.ID)
		case p.Transport == Stdio && len(p.Argv) == 0:
			return fmt.Errorf("provider %s: a stdio provider needs argv", p.ID)
		case p.Transport == HTTP && p.URL == "":
			return fmt.Errorf("provider %s: an http provider needs url", p.ID)
		case p.Transport != Stdio && p.Transport != HTTP:
			return fmt.Errorf("provider %s: transport %q: want stdio or http", p.ID, p.Transport)
		}
		seen[p.ID] = true
	}
	if req.Query.MaxFrames == 0 || req.Query.MaxTokens == 0 {
		return errors.New("the query needs max_frames and max_tokens above 0")
	}
	return nil
}

func dropped(provider string, f *cgp.ContextFrame, reason string) Dropped {
	return Dropped{ProviderID: provider, FrameID: f.ID, ContentDigest: cloneStr(f.ContentDigest), Reason: reason}
}

func cloneStr(s *string) *string {
	if s == nil {
		return nil
	}
	return cgp.Str(*s)
}

// consented reports whether egress consent is recorded for id.
func consented(req *Request, id string) bool { return slices.Contains(req.Consent, id) }
