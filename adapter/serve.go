package adapter

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/internal/compactjson"
)

// Serve speaks the adapter side of the protocol for h: it reads requests from
// r, one per line, and writes replies to w, up to h.Hello().Concurrency at
// once. It returns nil when r ends.
func Serve(ctx context.Context, h Handler, r io.Reader, w io.Writer) error {
	limit := max(1, h.Hello().Concurrency)
	out := &replies{w: w}
	var (
		busy    sync.WaitGroup // requests being answered
		workers sync.WaitGroup
	)
	requests := make(chan request)
	for range limit {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for req := range requests {
				out.write(answer(ctx, h, req))
				busy.Done()
			}
		}()
	}
	defer func() {
		close(requests)
		workers.Wait()
	}()
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, err := child.ReadLine(br, MaxLine)
		if errors.Is(err, child.ErrLineTooLong) {
			return fmt.Errorf("adapter: stdin line %d: longer than %d bytes", lineNo, MaxLine)
		}
		if req := parseRequest(line); req.ok && req.op == "hello" {
			// hello is answered before anything sent after it.
			busy.Wait()
			out.write(answer(ctx, h, req))
		} else if len(line) > 0 {
			busy.Add(1)
			requests <- req
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("adapter: stdin line %d: %w", lineNo, err)
		}
	}
}

// replies writes reply lines from several goroutines: each is queued, and
// the goroutine that finds no write under way writes the queue until it is
// empty, so replies finished together share a write.
type replies struct {
	w io.Writer

	mu      sync.Mutex
	writing bool
	queue   []byte
	spare   []byte
}

func (o *replies) write(reply []byte) {
	o.mu.Lock()
	o.queue = append(append(o.queue, reply...), '\n')
	if o.writing {
		o.mu.Unlock()
		return
	}
	o.writing = true
	for len(o.queue) > 0 {
		batch := o.queue
		o.queue = o.spare[:0]
		o.mu.Unlock()
		o.w.Write(batch) // a reader that has gone away needs no reply
		o.mu.Lock()
		o.spare = batch[:0]
	}
	o.writing = false
	o.mu.Unlock()
}

// ServeHTTP returns an http.Handler that answers one POSTed request per call.
func ServeHTTP(h Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			http.Error(w, "POST one referee-adapter/1 request", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, MaxLine+1))
		if err != nil || len(body) > MaxLine {
			http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(serveLine(req.Context(), h, body), '\n'))
	})
}

// serveLine answers one request line.
func serveLine(ctx context.Context, h Handler, line []byte) []byte {
	return answer(ctx, h, parseRequest(line))
}

// answer is the reply line to one request.
func answer(ctx context.Context, h Handler, req request) []byte {
	if !req.ok {
		e := encodeError(&Error{Code: "bad_request", Message: `request is not {"id": N, "op": S, "args": {...}}`})
		return []byte(`{"id":null,"err":` + string(e) + `}`)
	}
	if req.op == "hello" {
		if a, err := canon.Parse(req.args, canon.ReadOptions{}); err == nil {
			for _, m := range a.Members {
				if m.Key == "protocol" && m.Value.Str != Protocol {
					e := encodeError(&Error{Code: "unsupported_protocol", Message: "this adapter speaks " + Protocol})
					return []byte(`{"id":` + strconv.FormatInt(req.id, 10) + `,"err":` + string(e) + `}`)
				}
			}
		}
	}
	_, ex, err := (&local{h: h}).handle(ctx, req.id, req.op, req.args, &Exchange{})
	if err != nil {
		e := encodeError(&Error{Code: "internal", Message: err.Error()})
		return []byte(`{"id":` + strconv.FormatInt(req.id, 10) + `,"err":` + string(e) + `}`)
	}
	return ex.Reply
}

// request is one parsed request line; ok is false for a line that is not
// {"id": N, "op": S, "args": ...}.
type request struct {
	id   int64
	op   string
	args []byte
	ok   bool
}

// parseRequest reads a request line; args come back compact. One in the
// shape referee writes, {"id":N,"op":S,"args":V} compactly in that order,
// is read by position, its args checked to be one JSON value in UTF-8; any
// other is parsed whole.
func parseRequest(line []byte) request {
	if req, ok := requestAsWritten(line); ok {
		return req
	}
	v, err := canon.Parse(line, canon.ReadOptions{})
	if err != nil || v.Kind != canon.Object {
		return request{}
	}
	var req request
	var haveID, haveOp bool
	for _, m := range v.Members {
		switch m.Key {
		case "id":
			n, err := strconv.ParseInt(m.Value.Num, 10, 64)
			req.id, haveID = n, m.Value.Kind == canon.Number && err == nil
		case "op":
			req.op, haveOp = m.Value.Str, m.Value.Kind == canon.String
		case "args":
			req.args = []byte(m.Value.String())
		}
	}
	req.ok = haveID && haveOp
	return req
}

// requestAsWritten reads a line in referee's own shape; ok is false for
// any other.
func requestAsWritten(line []byte) (req request, ok bool) {
	id, rest, ok := leadingID(line)
	if !ok {
		return req, false
	}
	rest, found := bytes.CutPrefix(rest, []byte(`,"op":"`))
	if !found {
		return req, false
	}
	end := bytes.IndexAny(rest, `"\`)
	if end < 0 || rest[end] != '"' || !utf8.Valid(rest[:end]) || bytes.ContainsFunc(rest[:end], func(r rune) bool { return r < 0x20 }) {
		return req, false
	}
	op := string(rest[:end])
	args, found := bytes.CutPrefix(rest[end+1:], []byte(`,"args":`))
	if !found || len(args) < 2 || args[len(args)-1] != '}' {
		return req, false
	}
	args = args[:len(args)-1]
	if !compactjson.Is(args) {
		return req, false // the whole line may still be a request: parse it
	}
	return request{id: id, op: op, args: args, ok: true}, true
}
