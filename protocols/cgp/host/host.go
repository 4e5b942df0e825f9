// Package host is a Context Graph Protocol host for one provider, over stdio
// (a child process speaking NDJSON) or HTTP (one envelope POSTed, one read
// back). Exchanges run lock-step; every line each way is kept for evidence.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/refereehq/referee/internal/transcript"
	"github.com/refereehq/referee/protocols/cgp"
)

// The reference host's timeouts.
const (
	HandshakeTimeout = 10 * time.Second
	CallTimeout      = 30 * time.Second
	ShutdownGrace    = 2 * time.Second
)

// Kind classifies a host error, as the reference host's HostError does.
type Kind string

// The host error kinds.
const (
	KindSpawn             Kind = "spawn"              // the provider could not be started or reached
	KindWire              Kind = "wire"               // a line or body that is not a CGP envelope
	KindTransport         Kind = "transport"          // I/O failed, or a non-2xx HTTP status
	KindInsecureTransport Kind = "insecure transport" // http:// to a host that is not loopback
	KindUnauthorized      Kind = "unauthorized"       // HTTP 401
	KindCrashed           Kind = "provider crashed"   // EOF on stdout, or the process exited
	KindTimeout           Kind = "timeout"            // no reply in time
	KindVersionMismatch   Kind = "version mismatch"   // an ack outside the host's family
	KindUnexpected        Kind = "unexpected envelope"
	KindProvider          Kind = "provider error"       // the provider answered with an error envelope
	KindCorrelation       Kind = "correlation mismatch" // a reply to a request with an id carries another, or none
)

// Error is a host error: what went wrong, and the error behind it, if any.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	if e.Msg == "" {
		return string(e.Kind)
	}
	return string(e.Kind) + ": " + e.Msg
}

// IsKind reports whether err is a host error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// Target says which provider to reach: a program (stdio) or a URL (HTTP).
type Target struct {
	Argv   []string          // program and arguments, started without a shell
	Dir    string            // its working directory; "" inherits referee's
	Env    []string          // its environment; nil inherits referee's
	Stderr io.Writer         // a live copy of its stderr, if set (never read as protocol)
	URL    string            // the provider's HTTP endpoint
	Token  string            // a bearer token for HTTP; never printed
	Trace  *transcript.Trace // if set, records every line each way
}

// Exchange is one entry of a host's transcript: a line sent and the reply
// read back.
type Exchange struct {
	Request []byte // the line sent, without its newline
	Reply   []byte // the reply line, without its newline; nil if none
}

// String names the target as upstream's report does.
func (t Target) String() string {
	if t.URL != "" {
		return "http: " + t.URL
	}
	return "stdio: " + strings.Join(t.Argv, " ")
}

// IsStdio reports whether the target is a program.
func (t Target) IsStdio() bool { return t.URL == "" }

// transport carries one request line and its reply.
type transport interface {
	roundTrip(ctx context.Context, line []byte) ([]byte, error)
	// shutdown sends the shutdown envelope and ends the connection cleanly,
	// or says why it did not.
	shutdown(ctx context.Context, line []byte) error
	close()
	stderr() string
}

// Host is a connection to one provider.
type Host struct {
	t   transport
	mu  sync.Mutex
	log []Exchange
	// unanswered are the transcript entries of pipelined lines still
	// waiting for a reply.
	unanswered []int
}

// Dial starts or reaches the provider; it does not handshake.
func Dial(ctx context.Context, target Target) (*Host, error) {
	var t transport
	var err error
	if target.IsStdio() {
		t, err = startStdio(target)
	} else {
		t, err = newHTTP(target)
	}
	if err != nil {
		return nil, err
	}
	return &Host{t: t}, nil
}

// Len returns how many exchanges the transcript holds.
func (h *Host) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.log)
}

// Transcript returns every exchange so far, in order.
func (h *Host) Transcript() []Exchange {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Exchange(nil), h.log...)
}

// Stderr returns the tail of a stdio provider's stderr.
func (h *Host) Stderr() string { return h.t.stderr() }

func (h *Host) exchange(ctx context.Context, timeout time.Duration, line []byte) (*cgp.Envelope, error) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = time.Until(d).Round(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reply, err := h.t.roundTrip(ctx, line)
	h.record(Exchange{Request: line, Reply: reply})
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && !IsKind(err, KindCrashed) {
			return nil, &Error{Kind: KindTimeout, Msg: fmt.Sprintf("no reply within %s", timeout)}
		}
		return nil, err
	}
	return decodeReply(reply)
}

// decodeReply reads a reply line as an envelope, as the reference host
// does (cgp.DecodeReply); a line that is not one is a KindWire error
// quoting it, and a frames reply with a frame that lacks a required member
// a KindWire error naming the frame and the member (wrapping the
// *cgp.FrameError).
func decodeReply(reply []byte) (*cgp.Envelope, error) {
	env, err := cgp.DecodeReply(reply)
	var fe *cgp.FrameError
	switch {
	case errors.As(err, &fe):
		return nil, &Error{Kind: KindWire, Msg: fmt.Sprintf("the frames reply is refused: %v; a frame without a required member is no ContextFrame, and the reference host refuses the whole reply rather than read an empty value", fe), Err: fe}
	case err != nil:
		return nil, &Error{Kind: KindWire, Msg: fmt.Sprintf("line is not a CGP envelope (%v): %s", err, clip(reply))}
	}
	return env, nil
}

func (h *Host) send(ctx context.Context, timeout time.Duration, env *cgp.Envelope, want ...string) (*cgp.Envelope, error) {
	line, err := cgp.Encode(env)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", env.Type, err)
	}
	reply, err := h.exchange(ctx, timeout, line)
	if err != nil {
		return nil, err
	}
	for _, w := range want {
		if reply.Type == w {
			if msg := missingPayload(reply); msg != "" {
				return reply, &Error{Kind: KindWire, Msg: msg}
			}
			return reply, nil
		}
	}
	if reply.Type == cgp.TypeError {
		return reply, &Error{Kind: KindProvider, Msg: reply.ErrorText()}
	}
	return reply, &Error{Kind: KindUnexpected, Msg: fmt.Sprintf("expected %s, got %q", strings.Join(want, " or "), reply.Type)}
}

// missingPayload says which required member a reply lacks (null counts as
// absent), or "".
func missingPayload(e *cgp.Envelope) string {
	switch {
	case e.Type == cgp.TypeFrames && e.Result == nil:
		return "a frames envelope without a result"
	case e.Type == cgp.TypeFrames && e.Result.Frames == nil:
		return "a frames result without its frames array"
	case e.Type == cgp.TypeVerified && e.Response == nil:
		return "a verified envelope without a response"
	case e.Type == cgp.TypeHandshakeAck && (e.Provider == nil || e.Capabilities == nil):
		return "a handshake_ack without provider or capabilities"
	}
	return ""
}

// Handshake offers cgp.ProtocolVersion and returns the provider's ack. An
// ack outside the host's family is a version mismatch.
func (h *Host) Handshake(ctx context.Context) (*cgp.Envelope, error) {
	ack, err := h.send(ctx, HandshakeTimeout, &cgp.Envelope{Type: cgp.TypeHandshake, ProtocolVersion: cgp.ProtocolVersion}, cgp.TypeHandshakeAck)
	if err != nil {
		return nil, err
	}
	if !cgp.Compatible(cgp.ProtocolVersion, ack.ProtocolVersion) {
		return nil, &Error{Kind: KindVersionMismatch, Msg: fmt.Sprintf("host speaks %s, provider acked %q", cgp.ProtocolVersion, ack.ProtocolVersion)}
	}
	return ack, nil
}

// Query sends a query (with id, if not nil) and returns the reply: a frames
// envelope, or an error envelope with a KindProvider error.
func (h *Host) Query(ctx context.Context, q cgp.ContextQuery, id *string) (*cgp.Envelope, error) {
	reply, err := h.send(ctx, CallTimeout, &cgp.Envelope{Type: cgp.TypeQuery, ID: id, Query: &q}, cgp.TypeFrames)
	if cerr := correlated(id, reply); cerr != nil && (err == nil || IsKind(err, KindProvider)) {
		return reply, cerr
	}
	return reply, err
}

// correlated checks that a reply to a request with an id echoes it (H4).
func correlated(id *string, reply *cgp.Envelope) error {
	switch {
	case id == nil || reply == nil:
		return nil
	case reply.ID == nil:
		return &Error{Kind: KindCorrelation, Msg: fmt.Sprintf("the %s reply carries no id (sent %q)", reply.Type, *id)}
	case *reply.ID != *id:
		return &Error{Kind: KindCorrelation, Msg: fmt.Sprintf("the %s reply carries id %q, not %q", reply.Type, *reply.ID, *id)}
	}
	return nil
}

// QueryPipelined writes queries, each with its id, without waiting, then
// reads one reply per query and matches each to its query by id, in
// whatever order they come (stdio; for a provider that declares
// correlation). replies[i] answers ids[i].
func (h *Host) QueryPipelined(ctx context.Context, qs []cgp.ContextQuery, ids []string) ([]*cgp.Envelope, error) {
	var lines [][]byte
	for i := range qs {
		line, err := cgp.Encode(&cgp.Envelope{Type: cgp.TypeQuery, ID: &ids[i], Query: &qs[i]})
		if err != nil {
			return nil, err
		}
		lines = append(lines, line)
	}
	got, err := h.Pipeline(ctx, lines, len(lines))
	if err != nil {
		return nil, err
	}
	out := make([]*cgp.Envelope, len(ids))
	for _, env := range got {
		if env.Type != cgp.TypeFrames && env.Type != cgp.TypeError {
			return out, &Error{Kind: KindUnexpected, Msg: fmt.Sprintf("expected frames or error to a query, got %q", env.Type)}
		}
		i := -1
		if env.ID != nil {
			i = slices.Index(ids, *env.ID)
		}
		switch {
		case env.ID == nil:
			return out, &Error{Kind: KindCorrelation, Msg: fmt.Sprintf("the %s reply to one of the pipelined queries carries no id", env.Type)}
		case i < 0:
			return out, &Error{Kind: KindCorrelation, Msg: fmt.Sprintf("the %s reply carries id %q, which no query in flight has", env.Type, *env.ID)}
		case out[i] != nil:
			return out, &Error{Kind: KindCorrelation, Msg: fmt.Sprintf("two replies carry id %q", *env.ID)}
		}
		out[i] = env
	}
	return out, nil
}

// Verify asks whether frames are current and returns the verified envelope.
func (h *Host) Verify(ctx context.Context, frames []cgp.FrameID) (*cgp.Envelope, error) {
	return h.send(ctx, CallTimeout, &cgp.Envelope{Type: cgp.TypeVerify, Request: &cgp.VerifyRequest{Frames: frames}}, cgp.TypeVerified)
}

// Raw writes a line as it stands (it may be garbage) and returns the
// provider's next reply.
func (h *Host) Raw(ctx context.Context, line []byte) (*cgp.Envelope, error) {
	return h.exchange(ctx, CallTimeout, line)
}

// Pipeline writes lines as they stand (garbage included) without waiting,
// then reads n replies; stdio only. A reply that is not an envelope is a
// KindWire error; the replies read so far are returned with it.
func (h *Host) Pipeline(ctx context.Context, lines [][]byte, n int) ([]*cgp.Envelope, error) {
	s, ok := h.t.(*stdio)
	if !ok {
		return nil, &Error{Kind: KindTransport, Msg: "pipelined lines need a stdio provider"}
	}
	if e := s.unusable(); e != nil {
		return nil, e
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	for _, l := range lines {
		err := s.write(ctx, l)
		h.mu.Lock()
		h.unanswered = append(h.unanswered, len(h.log))
		h.log = append(h.log, Exchange{Request: l})
		h.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	var out []*cgp.Envelope
	for range n {
		reply, err := s.next(ctx)
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				err = &Error{Kind: KindTimeout, Msg: fmt.Sprintf("no reply within %s", CallTimeout)}
			}
			return out, err
		}
		h.answer(reply)
		env, err := decodeReply(reply)
		if err != nil {
			return out, err
		}
		if msg := missingPayload(env); msg != "" {
			return out, &Error{Kind: KindWire, Msg: msg}
		}
		out = append(out, env)
	}
	return out, nil
}

// answer pairs a pipelined reply with the oldest pipelined line still
// without one, in the transcript.
func (h *Host) answer(reply []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.unanswered) == 0 {
		h.log = append(h.log, Exchange{Request: []byte("(no request: an unsolicited line)"), Reply: reply})
		return
	}
	// A reply whose id is a waiting line's answers that line; any other, the oldest.
	k := 0
	if id := cgp.RequestID(reply); id != nil {
		for j, at := range h.unanswered {
			if rid := cgp.RequestID(h.log[at].Request); rid != nil && *rid == *id {
				k = j
				break
			}
		}
	}
	h.log[h.unanswered[k]].Reply = reply
	h.unanswered = slices.Delete(h.unanswered, k, k+1)
}

func (h *Host) record(x Exchange) {
	h.mu.Lock()
	h.log = append(h.log, x)
	h.mu.Unlock()
}

// Shutdown sends shutdown. A stdio provider must then exit with status 0
// within ShutdownGrace; otherwise its process group is killed and the error
// says so. An HTTP provider's reply is ignored.
func (h *Host) Shutdown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ShutdownGrace+3*time.Second)
	defer cancel()
	line, _ := cgp.Encode(&cgp.Envelope{Type: cgp.TypeShutdown})
	h.record(Exchange{Request: line})
	return h.t.shutdown(ctx, line)
}

// Close ends the connection; a stdio provider still running is killed.
func (h *Host) Close() { h.t.close() }

// clip shortens a line for a message.
func clip(b []byte) string {
	const max = 200
	if len(b) > max {
		return fmt.Sprintf("%q… (%d bytes)", b[:max], len(b))
	}
	return fmt.Sprintf("%q", b)
}
