package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/protocols/cgp"
)

// httpT POSTs one envelope and reads one back.
type httpT struct {
	target Target
	client *http.Client
}

func newHTTP(t Target) (*httpT, error) {
	u, err := url.Parse(t.URL)
	if err != nil || u.Host == "" {
		return nil, &Error{Kind: KindSpawn, Msg: fmt.Sprintf("%q is not a URL", t.URL)}
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !Loopback(u.Hostname()) {
			return nil, &Error{Kind: KindInsecureTransport, Msg: fmt.Sprintf("http:// to %s, which is not loopback: use https:// (nothing was sent)", u.Hostname())}
		}
	default:
		return nil, &Error{Kind: KindSpawn, Msg: fmt.Sprintf("scheme %q: want http:// or https://", u.Scheme)}
	}
	client := &http.Client{
		Timeout: CallTimeout,
		// A redirect could leave loopback over plain http://, or carry the
		// bearer token to another scheme or port: never follow one.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &httpT{target: t, client: client}, nil
}

// Loopback reports whether a URL's host names this machine: localhost,
// 127.0.0.0/8 or ::1.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *httpT) post(ctx context.Context, line []byte) (*http.Response, error) {
	h.target.Trace.Line("->", line)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.target.URL, bytes.NewReader(line))
	if err != nil {
		return nil, &Error{Kind: KindTransport, Msg: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	if h.target.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.target.Token)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, &Error{Kind: KindSpawn, Msg: "cannot reach the provider: " + h.redact(err.Error())}
		}
		// Err keeps the cause (a connection closed without a response is
		// io.EOF); only Msg, redacted, is ever printed.
		return nil, &Error{Kind: KindTransport, Msg: h.redact(err.Error()), Err: err}
	}
	return resp, nil
}

func (h *httpT) roundTrip(ctx context.Context, line []byte) ([]byte, error) {
	resp, err := h.post(ctx, line)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, cgp.MaxLine+1))
	if err != nil {
		return nil, &Error{Kind: KindTransport, Msg: "reading the response body: " + h.redact(err.Error())}
	}
	// A provider that echoes the token must not get it printed: remove it
	// before the body is traced, recorded or quoted.
	body = h.scrub(body)
	h.target.Trace.Line("<-", body)
	// The status first: a 500 with a long body is a 500.
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, &Error{Kind: KindUnauthorized, Msg: "HTTP 401: the provider refused the credential"}
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		return nil, &Error{Kind: KindTransport, Msg: fmt.Sprintf("HTTP %d redirect to %q: referee does not follow redirects (one could leave loopback or carry the token elsewhere)", resp.StatusCode, h.redact(resp.Header.Get("Location")))}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		// A 400 carrying an error envelope is a reply like any other.
		if resp.StatusCode == http.StatusBadRequest {
			if env, err := cgp.DecodeEnvelope(body); err == nil && env.Type == cgp.TypeError {
				return body, nil
			}
		}
		return nil, &Error{Kind: KindTransport, Msg: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, h.redact(clip(body)))}
	case len(body) > cgp.MaxLine:
		return nil, &Error{Kind: KindTransport, Msg: fmt.Sprintf("the response body is longer than %d bytes", cgp.MaxLine)}
	case len(bytes.TrimSpace(body)) == 0:
		return nil, &Error{Kind: KindWire, Msg: fmt.Sprintf("HTTP %d with an empty body where an envelope was due", resp.StatusCode)}
	}
	return body, nil
}

func (h *httpT) shutdown(ctx context.Context, line []byte) error {
	resp, err := h.post(ctx, line)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		return &Error{Kind: KindUnauthorized, Msg: "HTTP 401 on shutdown"}
	}
	if resp.StatusCode >= 500 {
		return &Error{Kind: KindTransport, Msg: fmt.Sprintf("HTTP %d on shutdown", resp.StatusCode)}
	}
	return nil
}

// scrub removes the bearer token from a reply body, however its JSON
// strings spell it ("\/", "\u0073"): such a body is rewritten canonically.
func (h *httpT) scrub(body []byte) []byte {
	tok := h.target.Token
	if tok == "" {
		return body
	}
	body = bytes.ReplaceAll(body, []byte(tok), []byte("[token]"))
	v, err := canon.Parse(body, canon.ReadOptions{MaxDepth: 128, MaxValues: cgp.MaxEnvelopeValues})
	if err != nil || !scrubValue(&v, tok) {
		return body
	}
	out, err := canon.JCS.Append(nil, v)
	if err != nil {
		return []byte(`"[a reply that held the token, withheld]"`)
	}
	return out
}

// scrubValue replaces tok in every decoded string of v, keys included, and
// reports whether it found one.
func scrubValue(v *canon.Value, tok string) bool {
	found := false
	switch v.Kind {
	case canon.String:
		if strings.Contains(v.Str, tok) {
			v.Str, found = strings.ReplaceAll(v.Str, tok, "[token]"), true
		}
	case canon.Array:
		for i := range v.Elems {
			found = scrubValue(&v.Elems[i], tok) || found
		}
	case canon.Object:
		for i := range v.Members {
			if strings.Contains(v.Members[i].Key, tok) {
				v.Members[i].Key, found = strings.ReplaceAll(v.Members[i].Key, tok, "[token]"), true
			}
			found = scrubValue(&v.Members[i].Value, tok) || found
		}
	}
	return found
}

// redact removes the bearer token from a message.
func (h *httpT) redact(s string) string {
	if h.target.Token == "" {
		return s
	}
	return strings.ReplaceAll(s, h.target.Token, "[token]")
}

func (h *httpT) close()         { h.client.CloseIdleConnections() }
func (h *httpT) stderr() string { return "" }
