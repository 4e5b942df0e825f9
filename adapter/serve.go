package adapter

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/refereehq/referee/canon"
)

// Serve speaks the adapter side of the protocol for h: it reads requests from
// r, one per line, and writes replies to w, up to h.Hello().Concurrency at
// once. It returns nil when r ends.
func Serve(ctx context.Context, h Handler, r io.Reader, w io.Writer) error {
	limit := max(1, h.Hello().Concurrency)
	sem := make(chan struct{}, limit)
	var (
		wmu sync.Mutex
		wg  sync.WaitGroup
	)
	defer wg.Wait()
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br, MaxLine)
		if errors.Is(err, errLineTooLong) {
			return fmt.Errorf("adapter: stdin line %d: longer than %d bytes", lineNo, MaxLine)
		}
		if _, op, _, ok := parseRequest(line); ok && op == "hello" {
			// hello is answered before anything sent after it.
			wg.Wait()
			reply := serveLine(ctx, h, line)
			wmu.Lock()
			w.Write(append(reply, '\n'))
			wmu.Unlock()
		} else if len(line) > 0 {
			sem <- struct{}{}
			wg.Add(1)
			go func(line []byte) {
				defer func() { <-sem; wg.Done() }()
				reply := serveLine(ctx, h, line)
				wmu.Lock()
				defer wmu.Unlock()
				w.Write(append(reply, '\n'))
			}(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("adapter: stdin line %d: %w", lineNo, err)
		}
	}
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
	id, op, args, ok := parseRequest(line)
	if !ok {
		e := encodeError(&Error{Code: "bad_request", Message: `request is not {"id": N, "op": S, "args": {...}}`})
		return []byte(`{"id":null,"err":` + string(e) + `}`)
	}
	if op == "hello" {
		if a, err := canon.Parse(args, canon.ReadOptions{}); err == nil {
			for _, m := range a.Members {
				if m.Key == "protocol" && m.Value.Str != Protocol {
					e := encodeError(&Error{Code: "unsupported_protocol", Message: "this adapter speaks " + Protocol})
					return []byte(`{"id":` + strconv.FormatInt(id, 10) + `,"err":` + string(e) + `}`)
				}
			}
		}
	}
	_, ex, err := (&local{h: h}).Call(ctx, id, op, args)
	if err != nil {
		e := encodeError(&Error{Code: "internal", Message: err.Error()})
		return []byte(`{"id":` + strconv.FormatInt(id, 10) + `,"err":` + string(e) + `}`)
	}
	return ex.Reply
}

func parseRequest(line []byte) (id int64, op string, args []byte, ok bool) {
	v, err := canon.Parse(line, canon.ReadOptions{})
	if err != nil || v.Kind != canon.Object {
		return 0, "", nil, false
	}
	var haveID, haveOp bool
	for _, m := range v.Members {
		switch m.Key {
		case "id":
			n, err := strconv.ParseInt(m.Value.Num, 10, 64)
			id, haveID = n, m.Value.Kind == canon.Number && err == nil
		case "op":
			op, haveOp = m.Value.Str, m.Value.Kind == canon.String
		case "args":
			args = []byte(m.Value.String())
		}
	}
	return id, op, args, haveID && haveOp
}
