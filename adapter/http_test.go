package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
)

// echoHandler is an in-process implementation: echo returns its args, fail
// answers err, panic panics.
type echoHandler struct{}

func (echoHandler) Hello() adapter.Hello {
	return adapter.Hello{Name: "echo", Version: "1", Ops: []string{"echo", "fail", "panic"}, Concurrency: 2}
}

func (echoHandler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	switch op {
	case "echo":
		return args, nil
	case "panic":
		panic("on purpose")
	}
	return nil, &adapter.Error{Code: "nope", Message: "no " + op}
}

func TestHTTPAdapter(t *testing.T) {
	srv := httptest.NewServer(adapter.ServeHTTP(echoHandler{}))
	defer srv.Close()
	h := &adapter.HTTP{URL: srv.URL}
	start := func(ctx context.Context) (adapter.Conn, error) { return h, nil }
	c, err := adapter.Dial(context.Background(), start, "test", adapter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Hello().Name != "echo" || c.Hello().Concurrency != 2 {
		t.Fatalf("hello = %+v", c.Hello())
	}
	r, _, err := c.Call(context.Background(), "echo", []byte(`{"x":[1.0]}`))
	if err != nil || r.OK.String() != `{"x":[1.0]}` {
		t.Fatalf("echo = %v, %v", r, err)
	}
	r, _, err = c.Call(context.Background(), "fail", nil)
	if err != nil || r.Err == nil || r.Err.Code != "nope" {
		t.Fatalf("fail = %+v, %v", r, err)
	}
	_, _, err = c.Call(context.Background(), "panic", nil)
	if err != nil {
		t.Fatalf("panic over HTTP: %v (the server answers err internal)", err)
	}
}

func TestHTTPFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		kind    adapter.FaultKind
	}{
		{"status-500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) }, adapter.FaultHTTP},
		{"not-json", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }, adapter.FaultBadLine},
		{"wrong-id", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"id":99,"ok":1}`)) }, adapter.FaultUnknownID},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // so the server sees the client go
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		}, adapter.FaultTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			h := &adapter.HTTP{URL: srv.URL}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			_, ex, err := h.Call(ctx, 1, "echo", nil)
			var f *adapter.Fault
			if !errors.As(err, &f) || f.Kind != tt.kind {
				t.Fatalf("err = %v, want a %s fault", err, tt.kind)
			}
			if ex == nil || !strings.Contains(string(ex.Request), `"op":"echo"`) {
				t.Errorf("exchange = %+v", ex)
			}
		})
	}
}

func TestServeStdio(t *testing.T) {
	in := strings.Join([]string{
		`{"id":0,"op":"hello","args":{"protocol":"referee-adapter/1","suite":"test"}}`,
		`{"id":1,"op":"echo","args":{"a": 1.50}}`,
		`{"id":2,"op":"fail","args":{}}`,
		`not a request`,
		`{"id":3,"op":"panic"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := adapter.Serve(context.Background(), echoHandler{}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		`{"id":0,"ok":{"name":"echo","version":"1","ops":["echo","fail","panic"],"concurrency":2}}`,
		`{"id":1,"ok":{"a":1.50}}`,
		`{"id":2,"err":{"code":"nope","message":"no fail"}}`,
		`{"id":null,"err":{"code":"bad_request"`,
		`{"id":3,"err":{"code":"internal","message":"adapter exit: in-process implementation panicked: on purpose"}}`,
	} {
		if !strings.Contains(got, want+"\n") && !strings.Contains(got, want) {
			t.Errorf("Serve output lacks %s\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 5 {
		t.Errorf("Serve wrote %d lines for 5 requests:\n%s", n, got)
	}
}

func TestServeRoundTripThroughClient(t *testing.T) {
	// The in-process path and the stdio server must agree line for line.
	start := adapter.InProcess(echoHandler{})
	c, err := adapter.Dial(context.Background(), start, "test", adapter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, ex, err := c.Call(context.Background(), "echo", []byte(`{"k":"\u00e9"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(ex.Reply) != `{"id":1,"ok":{"k":"\u00e9"}}` || r.OK.Kind.String() != "object" {
		t.Errorf("reply line %s, kind %s", ex.Reply, r.OK.Kind)
	}
	if _, _, err := c.Call(context.Background(), "panic", nil); !adapter.IsFault(err) {
		t.Errorf("a panicking in-process handler gave %v, want a fault", err)
	}
}
