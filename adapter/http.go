package adapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// HTTP is a Conn to an adapter running as a service: each request is POSTed
// to URL as the body, and the response body is the reply.
type HTTP struct {
	URL    string
	Client *http.Client // nil: a client with no overall timeout (calls carry their own)
	Trace  *Trace
}

// Call POSTs one request and reads one reply.
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
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	h.Trace.Line("->", line)
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, ex, &Fault{Kind: FaultTimeout, Msg: fmt.Sprintf("no reply to %s (id %d) in time", op, id)}
		}
		if ctx.Err() != nil {
			return nil, ex, ctx.Err()
		}
		return nil, ex, &Fault{Kind: FaultHTTP, Msg: "POST " + h.URL, Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxLine+2))
	if err != nil {
		return nil, ex, &Fault{Kind: FaultHTTP, Msg: "reading reply body", Err: err}
	}
	body = bytes.TrimRight(body, "\r\n")
	h.Trace.Line("<-", body)
	ex.Reply = body
	if resp.StatusCode/100 != 2 {
		return nil, ex, fault(FaultHTTP, body, "POST %s: %s", h.URL, resp.Status)
	}
	if len(body) > MaxLine {
		return nil, ex, fault(FaultTooLong, body, "reply body longer than %d bytes", MaxLine)
	}
	r, err := decodeReply(body)
	if err != nil {
		return nil, ex, fault(FaultBadLine, body, "reply body is not a valid reply (%v)", err)
	}
	if r.ID != id {
		return nil, ex, fault(FaultUnknownID, body, "reply id %d, request id %d", r.ID, id)
	}
	return r, ex, nil
}

// Stderr returns "": an HTTP adapter's log is not visible.
func (h *HTTP) Stderr() string { return "" }

// Close does nothing.
func (h *HTTP) Close() error { return nil }
