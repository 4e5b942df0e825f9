package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Handler is an implementation under test that runs in referee's own process.
type Handler interface {
	// Hello describes the implementation and the ops it offers.
	Hello() Hello
	// Handle performs one op. It returns the ok value as JSON text, or an err.
	Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *Error)
}

// InProcess returns a Starter for an in-process Handler. Requests and replies
// are rendered as protocol lines, so evidence looks the same as for a child.
func InProcess(h Handler) Starter { return InProcessTraced(h, nil) }

// InProcessTraced is InProcess recording every line in trace.
func InProcessTraced(h Handler, trace *Trace) Starter {
	// Calls in flight are bounded by the handler's declared concurrency,
	// across restarts too: a handler that hangs past its deadline keeps
	// its slot, so abandoned goroutines cannot pile up without end.
	slots := make(chan struct{}, max(1, h.Hello().Concurrency))
	return func(ctx context.Context) (Conn, error) {
		trace.Event("in-process implementation %s", h.Hello().Name)
		return &local{h: h, trace: trace, slots: slots}, nil
	}
}

type local struct {
	h     Handler
	trace *Trace
	slots chan struct{} // nil: unbounded (Serve bounds its own requests)
}

func (l *local) Call(ctx context.Context, id int64, op string, args []byte) (r *Reply, ex *Exchange, err error) {
	line, err := encodeRequest(id, op, args)
	if err != nil {
		return nil, nil, err
	}
	ex = &Exchange{Request: line}
	l.trace.Line("->", line)
	// The handler runs in its own goroutine so that the per-call deadline
	// holds even for a handler that ignores ctx (the goroutine is abandoned).
	type result struct {
		r   *Reply
		ex  *Exchange
		err error
	}
	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ex, l.expired(ctx, id, op)
		}
	}
	done := make(chan result, 1)
	go func() {
		if l.slots != nil {
			defer func() { <-l.slots }()
		}
		r, ex, err := l.handle(ctx, id, op, args, &Exchange{Request: line})
		done <- result{r, ex, err}
	}()
	select {
	case res := <-done:
		return res.r, res.ex, res.err
	case <-ctx.Done():
		return nil, ex, l.expired(ctx, id, op)
	}
}

// expired is the error for a call whose context ended first.
func (l *local) expired(ctx context.Context, id int64, op string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Fault{Kind: FaultTimeout, Msg: fmt.Sprintf("no reply to %s (id %d) in time", op, id)}
	}
	return ctx.Err()
}

func (l *local) handle(ctx context.Context, id int64, op string, args []byte, ex *Exchange) (r *Reply, _ *Exchange, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, &Fault{Kind: FaultExit, Msg: fmt.Sprintf("in-process implementation panicked: %v", p)}
		}
	}()
	var b bytes.Buffer
	b.WriteString(`{"id":` + strconv.FormatInt(id, 10))
	if op == "hello" {
		hello, _ := MarshalArgs(l.h.Hello())
		b.WriteString(`,"ok":`)
		b.Write(hello)
	} else {
		ok, e := l.h.Handle(ctx, op, args)
		if e != nil {
			b.WriteString(`,"err":`)
			b.Write(encodeError(e))
		} else {
			b.WriteString(`,"ok":`)
			b.Write(ok)
		}
	}
	b.WriteByte('}')
	ex.Reply = b.Bytes()
	l.trace.Line("<-", ex.Reply)
	r, err = decodeReply(ex.Reply)
	if err != nil {
		return nil, ex, fault(FaultBadLine, ex.Reply, "in-process reply is not valid (%v)", err)
	}
	return r, ex, nil
}

func (l *local) Stderr() string { return "" }
func (l *local) Close() error   { return nil }

// encodeError renders e as an err object; Members, when set, are written as they stand.
func encodeError(e *Error) []byte {
	if len(e.Members) > 0 {
		var b bytes.Buffer
		b.WriteByte('{')
		for i, m := range e.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := MarshalArgs(m.Key)
			b.Write(k)
			b.WriteByte(':')
			b.WriteString(m.Value.String())
		}
		b.WriteByte('}')
		return b.Bytes()
	}
	obj := map[string]string{}
	if e.Code != "" {
		obj["code"] = e.Code
	}
	if e.Message != "" {
		obj["message"] = e.Message
	}
	out, _ := MarshalArgs(obj)
	return out
}
