package adapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/refereehq/referee/internal/lazy"
)

// HTTP is a Conn to an adapter running as a service: each request is POSTed
// to URL as the body, and the response body is the reply. Redirects are
// never followed: a 3xx answer is an http fault naming where it pointed.
type HTTP struct {
	URL string
	// Client, if set, sends the requests (its CheckRedirect is overridden:
	// no redirect is followed); nil means a client with no overall timeout
	// (calls carry their own) that keeps a connection per call in flight.
	Client *http.Client
	Trace  *Trace
}

// transport is the HTTP transport of an HTTP with no Client: Go's default,
// keeping enough idle connections for a whole window of calls in flight.
var transport = &lazy.Value[*http.Transport]{New: func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}}

// refuseRedirect makes a client return a redirect as the response.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func (h *HTTP) client() *http.Client {
	c := http.Client{Transport: transport.Get()}
	if h.Client != nil {
		c = *h.Client
	}
	c.CheckRedirect = refuseRedirect
	return &c
}

// Call POSTs one request and reads one reply. The body is read up to the
// line cap and no further; what a fault, the exchange and the trace keep of
// a body over the cap is its first MaxKept bytes, as over stdio.
func (h *HTTP) Call(ctx context.Context, id int64, op string, args []byte) (*Reply, *Exchange, error) {
	line, err := encodeRequest(id, op, args)
	if err != nil {
		return nil, nil, err
	}
	ex := &Exchange{Request: line}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(line))
	if err != nil {
		return nil, ex, &Fault{Kind: FaultStart, Msg: "bad adapter URL", Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	h.Trace.Line("->", line)
	resp, err := h.client().Do(req)
	if err != nil {
		return nil, ex, h.failed(ctx, op, id, "POST "+h.URL, err)
	}
	defer resp.Body.Close()
	body, tooLong, err := readBody(resp, MaxLine)
	if tooLong {
		h.Trace.Line("<-", body[:min(len(body), MaxKept)])
	} else if err == nil {
		h.Trace.Line("<-", body)
	}
	var f *Fault
	switch {
	case err != nil:
		return nil, ex, h.failed(ctx, op, id, "reading the reply body", err)
	case resp.StatusCode/100 == 3:
		f = fault(FaultHTTP, body, "POST %s: %s redirects to %q; referee follows no redirects (give the final URL)", h.URL, resp.Status, resp.Header.Get("Location"))
	case resp.StatusCode/100 != 2:
		f = fault(FaultHTTP, body, "POST %s: %s", h.URL, resp.Status)
	case tooLong:
		f = fault(FaultTooLong, body, "reply body longer than %d bytes", MaxLine)
	}
	if f != nil {
		ex.Reply = f.Line
		return nil, ex, f
	}
	r, err := decodeReply(body)
	switch {
	case err != nil:
		f = fault(FaultBadLine, body, "reply body is not a valid reply (%v)", err)
	case r.ID != id:
		f = fault(FaultUnknownID, body, "reply id %d, request id %d", r.ID, id)
	default:
		ex.Reply = body
		return r, ex, nil
	}
	ex.Reply = f.Line
	return nil, ex, f
}

// failed is the error of a POST or body read that did not complete: a
// timeout when the call's deadline passed, the cancellation when the run
// was cancelled, and otherwise an http fault.
func (h *HTTP) failed(ctx context.Context, op string, id int64, what string, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Fault{Kind: FaultTimeout, Msg: fmt.Sprintf("no complete reply to %s (id %d) in time", op, id)}
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return &Fault{Kind: FaultHTTP, Msg: what, Err: err}
}

// readBody reads a reply body of at most max bytes, not counting one
// trailing line ending (which it removes), reading at most max+2 bytes. A
// longer body is tooLong, and body is then what was read of it: all of
// it, or just the first MaxKept bytes when the declared length is too long.
func readBody(resp *http.Response, max int) (body []byte, tooLong bool, err error) {
	limit := int64(max) + 1 // the line and its "\n"
	if resp.ContentLength > limit {
		body, err = io.ReadAll(io.LimitReader(resp.Body, MaxKept))
		return body, true, err
	}
	size := limit + 1
	if resp.ContentLength >= 0 {
		size = resp.ContentLength + 1 // to see the end
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(size, 64<<10)))
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1)); err != nil {
		return buf.Bytes(), false, err
	}
	body = buf.Bytes()
	if int64(len(body)) > limit {
		return body, true, nil
	}
	body = bytes.TrimSuffix(body, []byte("\n"))
	if len(body) > max {
		return body, true, nil
	}
	return bytes.TrimSuffix(body, []byte("\r")), false, nil
}

// Stderr returns "": an HTTP adapter's log is not visible.
func (h *HTTP) Stderr() string { return "" }

// Close does nothing.
func (h *HTTP) Close() error { return nil }
