// Package adversary is referee's set of adversarial Context Graph Protocol
// providers for testing hosts: each provider behaves as its Spec says
// (honest, over budget, flooding, a wrong major version, egress without
// consent, off-machine scopes, crashing mid-query, tampered provenance,
// hostile content, a bearer credential), is served on loopback HTTP or on
// stdio through a relay, and records every line it receives, so that what
// a host sent is judged on what crossed the wire, not on the host's word.
package adversary

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/refereehq/referee/protocols/cgp"
)

// Spec says how one provider behaves.
type Spec struct {
	Name    string       // provider.name in the ack
	Version string       // provider.version in the ack; "" is "0.1.0"
	Ack     string       // protocol_version in the ack; "" is cgp.ProtocolVersion
	Flow    cgp.DataFlow // the data flow the ack declares
	// Frames are served, as they stand, to every query, whatever it asks.
	Frames []cgp.ContextFrame
	// Crash makes the provider die on every query without answering: a
	// stdio provider exits 1, an HTTP provider closes the connection.
	Crash bool
	// Token, if set, is the bearer credential the provider requires over
	// HTTP: any other Authorization gets 401.
	Token string
	// Refuse makes an HTTP provider answer 401 to every request, the right
	// credential included.
	Refuse bool
}

// The transports a provider is reached over.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// Received is one line (stdio) or request body (HTTP) a provider received.
type Received struct {
	Transport string // Stdio or HTTP
	Line      []byte // as received, without its line ending
	Auth      string // the Authorization header (HTTP); "" when none
	// Status is what the provider answered: an HTTP status, or for stdio 0
	// (a reply line or none).
	Status int
}

// Envelope decodes the line as a CGP envelope, nil if it is none.
func (r Received) Envelope() *cgp.Envelope {
	env, err := cgp.DecodeEnvelope(r.Line)
	if err != nil {
		return nil
	}
	return env
}

// Provider is one running provider: its behaviour and what it received.
type Provider struct {
	srv  *Server
	key  string
	spec Spec

	mu       sync.Mutex
	received []Received
	kept     int  // bytes of received lines kept
	unkept   int  // lines received past the bounds, not kept
	queried  bool // a query envelope came, kept or not
	sent     [][]cgp.ContextFrame
	crashed  bool
}

// The bounds of what one provider keeps of what it received; past them it
// counts lines (Unkept) and still notices a query.
const (
	maxKeptLines = 4096
	maxKeptBytes = 64 << 20
)

// Spec returns the provider's behaviour.
func (p *Provider) Spec() Spec { return p.spec }

// URL is the provider's HTTP endpoint.
func (p *Provider) URL() string { return p.srv.base + "/cgp/" + p.key }

// RelayURL is what a stdio relay of this provider posts its lines to.
func (p *Provider) RelayURL() string { return p.srv.base + "/relay/" + p.key }

// Received returns every line the provider received, in order.
func (p *Provider) Received() []Received {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.received)
}

// Sent returns the frames of every frames reply the provider sent, in order.
func (p *Provider) Sent() [][]cgp.ContextFrame {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.sent)
}

// Unkept is how many lines the provider received past the bounds of what it
// keeps (4096 lines, 64 MiB): they are not in Received.
func (p *Provider) Unkept() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unkept
}

// Queried reports whether any line the provider received, kept or not, is a
// query envelope.
func (p *Provider) Queried() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.queried
}

// Mentions reports whether any line the provider kept holds text.
func (p *Provider) Mentions(text string) bool {
	for _, r := range p.Received() {
		if strings.Contains(string(r.Line), text) || strings.Contains(r.Auth, text) {
			return true
		}
	}
	return false
}

func (p *Provider) record(r Received) {
	isQuery := false
	if env := r.Envelope(); env != nil && env.Type == cgp.TypeQuery {
		isQuery = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queried = p.queried || isQuery
	if len(p.received) >= maxKeptLines || p.kept+len(r.Line) > maxKeptBytes {
		p.unkept++
		return
	}
	p.kept += len(r.Line)
	p.received = append(p.received, r)
}

// answer is what the provider does with one envelope, for either binding.
type answer struct {
	reply    *cgp.Envelope // nil: no reply
	crash    bool          // die without replying
	shutdown bool          // the host asked it to stop
	garbage  bool          // the line was not an envelope
}

// handle answers one line or request body.
func (p *Provider) handle(line []byte) answer {
	p.mu.Lock()
	crashed := p.crashed
	p.mu.Unlock()
	if crashed {
		return answer{crash: true}
	}
	env, err := cgp.DecodeEnvelope(line)
	if err != nil {
		return answer{reply: errorReply(cgp.CodeBadRequest, "line was not a valid CGP envelope"), garbage: true}
	}
	switch env.Type {
	case cgp.TypeHandshake:
		return answer{reply: p.ack()}
	case cgp.TypeQuery:
		if p.spec.Crash {
			p.mu.Lock()
			p.crashed = true
			p.mu.Unlock()
			return answer{crash: true}
		}
		frames := slices.Clone(p.spec.Frames)
		p.mu.Lock()
		p.sent = append(p.sent, frames)
		p.mu.Unlock()
		return answer{reply: &cgp.Envelope{Type: cgp.TypeFrames, ID: env.ID, Result: &cgp.ContextQueryResult{Frames: frames}}}
	case cgp.TypeShutdown:
		return answer{shutdown: true}
	}
	return answer{reply: errorReply(cgp.CodeBadRequest, fmt.Sprintf("this provider does not serve %q envelopes", env.Type))}
}

func (p *Provider) ack() *cgp.Envelope {
	version, proto := p.spec.Version, p.spec.Ack
	if version == "" {
		version = "0.1.0"
	}
	if proto == "" {
		proto = cgp.ProtocolVersion
	}
	flow := p.spec.Flow
	flow.EgressScopes = slices.Clone(flow.EgressScopes)
	return &cgp.Envelope{
		Type:            cgp.TypeHandshakeAck,
		ProtocolVersion: proto,
		Provider:        &cgp.ProviderInfo{Name: p.spec.Name, Version: version, DataFlow: flow},
		Capabilities:    &cgp.Capabilities{Query: cgp.QueryCapability{Kinds: []string{"doc"}}},
	}
}

func errorReply(code, message string) *cgp.Envelope {
	return &cgp.Envelope{Type: cgp.TypeError, Code: cgp.Str(code), Message: cgp.Str(message)}
}

// Frame is a B3-honest frame: content of exactly tokens*4 bytes (text
// that names the frame, padded), its token_cost, a content_digest of the
// content, a title and a citation label.
func Frame(id string, tokens int, score float32) cgp.ContextFrame {
	seed := "frame " + id + " served by referee's cgp-host suite. "
	var b strings.Builder
	for b.Len() < tokens*4 {
		b.WriteString(seed)
	}
	return ContentFrame(id, b.String()[:tokens*4], score)
}

// ContentFrame is a frame of the given content, with an honest token_cost
// and content_digest.
func ContentFrame(id, content string, score float32) cgp.ContextFrame {
	sum := sha256.Sum256([]byte(content))
	return cgp.ContextFrame{
		ID:            id,
		Kind:          "doc",
		Title:         "Frame " + id,
		Content:       cgp.Str(content),
		ContentDigest: cgp.Str("sha256:" + hex.EncodeToString(sum[:])),
		Score:         score,
		TokenCost:     cgp.TokenCost(content),
		CitationLabel: cgp.Str(id + " (referee)"),
	}
}
