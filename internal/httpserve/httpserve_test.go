package httpserve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a buffer the server's announcement and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	ch chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	close(s.ch)
	return n, err
}

func TestServeUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{ch: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, "127.0.0.1:0", "test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }), out)
	}()
	<-out.ch
	out.mu.Lock()
	line := out.b.String()
	out.mu.Unlock()
	url := strings.TrimSpace(strings.TrimPrefix(line, "referee: serving test on "))
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hi" {
		t.Errorf("body %q", b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
}

func TestServeBadAddress(t *testing.T) {
	err := Serve(context.Background(), "no-such-host-xyz.invalid:99999", "test", http.NotFoundHandler(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--http") {
		t.Errorf("err = %v", err)
	}
}
