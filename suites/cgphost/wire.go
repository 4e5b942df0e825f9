package cgphost

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/protocols/cgp"
)

// The compose op's args and reply, as docs/suites/cgp-host.md and its
// schema define them. These are the suite's own types, not the reference
// host's: the two agree only through the documented shape.

// providerArg says how the host reaches one provider.
type providerArg struct {
	ID        string   `json:"id"`
	Transport string   `json:"transport"`
	Argv      []string `json:"argv,omitempty"`
	URL       string   `json:"url,omitempty"`
	Token     string   `json:"token,omitempty"`
}

// grantor is who granted a receipt.
type grantor struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// receiptArg is a consent receipt (docs/context-reuse.md §3).
type receiptArg struct {
	ProviderID      string  `json:"provider_id"`
	Scope           string  `json:"scope"`
	ProviderName    string  `json:"provider_name"`
	ProviderVersion string  `json:"provider_version"`
	Grantor         grantor `json:"grantor"`
	GrantedAt       string  `json:"granted_at"`
}

// composeArgs are the compose op's args.
type composeArgs struct {
	Query        cgp.ContextQuery `json:"query"`
	Providers    []providerArg    `json:"providers"`
	Consent      []string         `json:"consent"`
	Receipts     []receiptArg     `json:"receipts"`
	TrustedRoots []string         `json:"trusted_roots"`
}

// outcomeRef is what the host says became of one provider.
type outcomeRef struct {
	ID      string   `json:"id"`
	Result  string   `json:"result"`
	Scopes  []string `json:"scopes"`
	Message string   `json:"message"`
}

// frameRef names a frame the host admitted or dropped.
type frameRef struct {
	ProviderID    string  `json:"provider_id"`
	FrameID       string  `json:"frame_id"`
	ContentDigest *string `json:"content_digest"`
	Provenance    string  `json:"provenance"` // admitted: verified, mismatch, unverifiable or ""
	Reason        string  `json:"reason"`     // dropped: why
}

func (f frameRef) String() string { return f.ProviderID + "/" + f.FrameID }

// composition is the compose op's reply.
type composition struct {
	Providers []outcomeRef `json:"providers"`
	Admitted  []frameRef   `json:"admitted"`
	Dropped   []frameRef   `json:"dropped"`
	Prompt    string       `json:"prompt"`
}

// readComposition reads an ok value as the reply the docs define: an
// object with providers, admitted, dropped and prompt, each entry with its
// required members. Members it does not know are ignored.
func readComposition(v *canon.Value) (*composition, error) {
	if v == nil || v.Kind != canon.Object {
		return nil, fmt.Errorf("the ok value is not an object")
	}
	for _, name := range []string{"providers", "admitted", "dropped", "prompt"} {
		if _, ok := v.Lookup(name); !ok {
			return nil, fmt.Errorf("the reply has no %s member", name)
		}
	}
	var c composition
	if err := json.Unmarshal([]byte(v.String()), &c); err != nil {
		return nil, fmt.Errorf("the reply does not have the documented shape: %v", err)
	}
	for i, o := range c.Providers {
		if o.ID == "" || o.Result == "" {
			return nil, fmt.Errorf("providers[%d] has no id or no result", i)
		}
	}
	for what, refs := range map[string][]frameRef{"admitted": c.Admitted, "dropped": c.Dropped} {
		for i, f := range refs {
			if f.ProviderID == "" || f.FrameID == "" {
				return nil, fmt.Errorf("%s[%d] has no provider_id or no frame_id", what, i)
			}
			if what == "dropped" && f.Reason == "" {
				return nil, fmt.Errorf("dropped[%d] (%s) has no reason", i, f)
			}
		}
	}
	return &c, nil
}

// outcome returns what the host said of provider id.
func (c *composition) outcome(id string) (outcomeRef, bool) {
	for _, o := range c.Providers {
		if o.ID == id {
			return o, true
		}
	}
	return outcomeRef{}, false
}

// admittedFrom returns the frames admitted from provider id.
func (c *composition) admittedFrom(id string) []frameRef {
	var out []frameRef
	for _, f := range c.Admitted {
		if f.ProviderID == id {
			out = append(out, f)
		}
	}
	return out
}

// admitted returns the admitted entry of a frame, if any.
func (c *composition) admittedRef(provider, frame string) (frameRef, bool) {
	i := slices.IndexFunc(c.Admitted, func(f frameRef) bool { return f.ProviderID == provider && f.FrameID == frame })
	if i < 0 {
		return frameRef{}, false
	}
	return c.Admitted[i], true
}

// droppedRef returns the dropped entry of a frame, if any.
func (c *composition) droppedRef(provider, frame string) (frameRef, bool) {
	i := slices.IndexFunc(c.Dropped, func(f frameRef) bool { return f.ProviderID == provider && f.FrameID == frame })
	if i < 0 {
		return frameRef{}, false
	}
	return c.Dropped[i], true
}

// order is the admitted frames' identities in render order.
func (c *composition) order() []string {
	var out []string
	for _, f := range c.Admitted {
		out = append(out, f.String())
	}
	return out
}

// strings returns every string in a reply, member names included, decoded.
func replyStrings(r *adapter.Reply) []string {
	var out []string
	var walk func(v canon.Value)
	walk = func(v canon.Value) {
		switch v.Kind {
		case canon.String:
			out = append(out, v.Str)
		case canon.Array:
			for _, e := range v.Elems {
				walk(e)
			}
		case canon.Object:
			for _, m := range v.Members {
				out = append(out, m.Key)
				walk(m.Value)
			}
		}
	}
	if r.OK != nil {
		walk(*r.OK)
	}
	if r.Err != nil {
		out = append(out, r.Err.Code, r.Err.Message)
		for _, m := range r.Err.Members {
			out = append(out, m.Key)
			walk(m.Value)
		}
	}
	return out
}

// holds reports whether any of ss contains text.
func holds(ss []string, text string) bool {
	return slices.ContainsFunc(ss, func(s string) bool { return strings.Contains(s, text) })
}
