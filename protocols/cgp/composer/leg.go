package composer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
)

// leg is one provider's part of a composition.
type leg struct {
	p       Provider
	outcome Outcome
	frames  []cgp.ContextFrame // the frames its reply carried
	served  bool               // it answered the query with frames
}

func (l *leg) set(result, format string, a ...any) {
	l.outcome = Outcome{ID: l.p.ID, Result: result, Message: fmt.Sprintf(format, a...)}
}

// shutdownWait bounds the shutdown of one provider once its part is done.
const shutdownWait = 3 * time.Second

// run reaches one provider, handshakes, applies the consent gate, queries
// and audits the reply.
func (h *Host) run(ctx context.Context, l *leg, req *Request) {
	t := host.Target{Argv: l.p.Argv, URL: l.p.URL, Token: l.p.Token, Stderr: h.log}
	if l.p.Transport == Stdio {
		// The reference host's environment: PATH and HOME, nothing else.
		t.URL, t.Env = "", []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	} else {
		t.Argv = nil
	}
	conn, err := host.Dial(ctx, t)
	if err != nil {
		h.failed(l, "reaching it", err)
		return
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownWait)
		defer cancel()
		conn.Shutdown(sctx) // best effort: a provider that crashed has gone already
		conn.Close()
	}()
	ack, ok := h.handshake(ctx, conn, l)
	if !ok {
		return
	}
	if h.mode == modeQueryBeforeConsent {
		reply, err := conn.Query(ctx, req.Query, nil)
		if !h.gate(l, ack, req) {
			return // the frames are thrown away, and nothing says they came
		}
		h.audit(l, reply, err, req)
		return
	}
	if !h.gate(l, ack, req) {
		return // C2: the query is never sent
	}
	reply, err := conn.Query(ctx, req.Query, nil)
	h.audit(l, reply, err, req)
}

// handshake offers cgp.ProtocolVersion and checks the ack's family (H3).
func (h *Host) handshake(ctx context.Context, conn *host.Host, l *leg) (*cgp.Envelope, bool) {
	hctx, cancel := context.WithTimeout(ctx, host.HandshakeTimeout)
	defer cancel()
	line, err := cgp.Encode(&cgp.Envelope{Type: cgp.TypeHandshake, ProtocolVersion: cgp.ProtocolVersion})
	if err != nil {
		h.failed(l, "the handshake", err)
		return nil, false
	}
	ack, err := conn.Raw(hctx, line)
	switch {
	case err != nil:
		h.failed(l, "the handshake", err)
		return nil, false
	case ack.Type == cgp.TypeError:
		l.set(ResultError, "the provider answered the handshake with an error: %s", ack.ErrorText())
		return nil, false
	case ack.Type != cgp.TypeHandshakeAck:
		l.set(ResultError, "the provider answered the handshake with %q, not handshake_ack", ack.Type)
		return nil, false
	case ack.Provider == nil || ack.Capabilities == nil:
		l.set(ResultError, "the handshake_ack has no provider or capabilities")
		return nil, false
	case !h.compatible(ack.ProtocolVersion):
		l.set(ResultVersionMismatch, "the provider acked %q, outside the %s family this host speaks (%s)", ack.ProtocolVersion, cgp.VersionFamily(cgp.ProtocolVersion), cgp.ProtocolVersion)
		return nil, false
	}
	return ack, true
}

// compatible is SPEC §3.1's rule: two versions interoperate iff their
// major families (the text before the first ".") are equal.
func (h *Host) compatible(v string) bool {
	switch h.mode {
	case modePrefixVersion:
		return strings.HasPrefix(v, cgp.VersionFamily(cgp.ProtocolVersion))
	case modeExactVersion:
		return v == cgp.ProtocolVersion
	}
	return cgp.Compatible(cgp.ProtocolVersion, v)
}

// gate is the consent gate, applied after the handshake and before any
// query payload moves: a provider declaring off-machine egress scopes needs
// a live receipt for each (C6); one declaring egress (or an HTTP provider
// off loopback, C4) needs consent recorded (C1/C2). It reports whether the
// provider may be queried.
func (h *Host) gate(l *leg, ack *cgp.Envelope, req *Request) bool {
	flow := ack.Provider.DataFlow
	egress := flow.Egress
	if l.p.Transport == HTTP {
		if u, err := url.Parse(l.p.URL); err != nil || !host.Loopback(u.Hostname()) {
			egress = true // C4: the transport knows better than the claim
		}
	}
	var off []string
	for _, s := range flow.EgressScopes {
		if s != "local-only" {
			off = append(off, s)
		}
	}
	if len(off) > 0 && !flow.Egress {
		l.set(ResultError, "the provider declares off-machine egress scopes %v with egress false (C5): a contradiction", off)
		return false
	}
	if len(off) > 0 {
		var missing []string
		for _, s := range off {
			if !h.receipted(req, l.p.ID, s) {
				missing = append(missing, s)
			}
		}
		if h.mode == modeConsentCoversScopes && consented(req, l.p.ID) {
			missing = nil
		}
		if len(missing) > 0 {
			l.outcome = Outcome{ID: l.p.ID, Result: ResultConsentScopeRequired, Scopes: missing,
				Message: fmt.Sprintf("no consent receipt for the off-machine egress scope(s) %s: nothing was sent", strings.Join(missing, ", "))}
			return false
		}
		return true
	}
	if egress && !consented(req, l.p.ID) && h.mode != modeNoConsentGate {
		l.set(ResultConsentRequired, "the provider declares egress and no consent is recorded for it: nothing was sent")
		return false
	}
	return true
}

// receipted reports whether a live receipt lets provider id send under scope.
func (h *Host) receipted(req *Request, id, scope string) bool {
	now := time.Now().UTC().Format("2006-01-02T15:04:05Z")
	for _, r := range req.Receipts {
		if r.ProviderID != id || r.Scope != scope {
			continue
		}
		if r.ExpiresAt != nil {
			if c, err := cgp.CompareTimestamps(now, *r.ExpiresAt); err != nil || c >= 0 {
				continue // expired, or an expiry that cannot be read: absent
			}
		}
		return true
	}
	return false
}

// audit judges a query's reply: a flood of frames (B4) or a budget overrun
// (B2) refuses the whole reply, with a report, never a silent truncation.
func (h *Host) audit(l *leg, reply *cgp.Envelope, err error, req *Request) {
	if err != nil {
		h.failed(l, "the query", err)
		return
	}
	l.frames, l.served = reply.Result.Frames, true
	q := req.Query
	if n := len(l.frames); n > int(q.MaxFrames) && h.mode != modeNoFloodCheck {
		l.set(ResultFrameFlood, "%d frames against max_frames %d (B4): the reply is refused", n, q.MaxFrames)
		return
	}
	var sum uint64
	for _, f := range l.frames {
		sum += uint64(f.TokenCost)
	}
	if sum > uint64(q.MaxTokens) {
		if h.mode != modeTruncateOverBudget {
			l.set(ResultOverBudget, "frames declaring %d tokens against max_tokens %d (B2): the reply is refused", sum, q.MaxTokens)
			return
		}
		var kept uint64
		for i, f := range l.frames {
			if kept+uint64(f.TokenCost) > uint64(q.MaxTokens) {
				l.frames = l.frames[:i]
				break
			}
			kept += uint64(f.TokenCost)
		}
	}
	l.outcome = Outcome{ID: l.p.ID, Result: ResultFrames}
}

// failed sets a leg's outcome from a host error.
func (h *Host) failed(l *leg, during string, err error) {
	var he *host.Error
	kind := host.Kind("")
	if errors.As(err, &he) {
		kind = he.Kind
	}
	switch {
	case kind == host.KindCrashed || (kind == host.KindTransport && hungUp(err)):
		l.set(ResultCrashed, "during %s: %v", during, err)
	case kind == host.KindTimeout:
		l.set(ResultTimeout, "during %s: %v", during, err)
	case kind == host.KindUnauthorized:
		l.set(ResultUnauthorized, "during %s: %v", during, err)
		if h.mode == modeLeakCredential {
			l.outcome.Message += " (sent Authorization: Bearer " + l.p.Token + ")"
			fmt.Fprintf(h.log, "cgp composer: %s refused Authorization: Bearer %s\n", l.p.ID, l.p.Token)
		}
	default:
		l.set(ResultError, "during %s: %v", during, err)
	}
}

// hungUp reports whether an HTTP exchange ended with the connection closed
// without a response: the provider died in the middle of it.
func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
