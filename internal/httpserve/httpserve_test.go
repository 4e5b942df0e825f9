package httpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestDrippedHeadersCutOff: a client that sends its headers a line at a
// time, for ever, is disconnected once the header timeout passes; without
// one it would hold its connection (and a goroutine) indefinitely.
func TestDrippedHeadersCutOff(t *testing.T) {
	saved := limits
	t.Cleanup(func() { limits = saved })
	limits.readHeader = 300 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{ch: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, "127.0.0.1:0", "test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), out)
	}()
	defer func() {
		cancel()
		<-done
	}()
	<-out.ch
	out.mu.Lock()
	addr := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(out.b.String(), "referee: serving test on http://")), "/")
	out.mu.Unlock()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	stop := make(chan struct{})
	dripped := make(chan struct{})
	go func() {
		defer close(dripped)
		if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n"); err != nil {
			return
		}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := fmt.Fprintf(conn, "X-Drip-%d: 1\r\n", i); err != nil {
				return // the server hung up
			}
		}
	}()
	// The server hangs up (EOF or a reset) long before this deadline.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.ReadAll(conn)
	close(stop)
	<-dripped
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("a client dripping headers was still connected after %v", time.Since(start).Round(time.Millisecond))
	}
}
