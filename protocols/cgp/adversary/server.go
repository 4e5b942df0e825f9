package adversary

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
)

// The relay's side of the protocol between a stdio relay and its server:
// each request says what the relay saw (RelayHeader), and each answer to a
// line says what the relay does after writing the reply (ThenHeader).
const (
	RelayHeader   = "X-Referee-Relay" // "start", "line", "too-long" or "eof"
	SessionHeader = "X-Referee-Relay-Session"
	ThenHeader    = "X-Referee-Relay-Then"
	thenExit0     = "exit-0" // the host asked for shutdown: exit with status 0
	thenExit1     = "exit-1" // a crash: exit with status 1 without a reply
)

// Server serves providers on loopback, each under a key of its own that a
// host cannot guess: over HTTP at /cgp/KEY, and to stdio relays at
// /relay/KEY.
type Server struct {
	base string
	srv  *http.Server
	done chan struct{} // closed when Serve has returned

	mu        sync.Mutex
	providers map[string]*Provider
	active    int             // requests being handled
	closed    bool            // Close has begun: no request is handled any more
	relays    map[string]bool // relay sessions started and not yet ended
	changed   chan struct{}   // closed and replaced whenever active or relays changes
}

// Start listens on a free loopback port and serves until Close.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("adversary: listening on loopback: %w", err)
	}
	s := &Server{
		base:      "http://" + ln.Addr().String(),
		done:      make(chan struct{}),
		providers: map[string]*Provider{},
		relays:    map[string]bool{},
		changed:   make(chan struct{}),
	}
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0), // a host's broken requests are its own problem
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln) // returns http.ErrServerClosed once Close runs
	}()
	return s, nil
}

// Add starts serving a provider that behaves as spec says.
func (s *Server) Add(spec Spec) *Provider {
	p := &Provider{srv: s, key: newKey(), spec: spec}
	s.mu.Lock()
	s.providers[p.key] = p
	s.mu.Unlock()
	return p
}

// newKey is 16 random bytes in hex.
func newKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// NewToken returns a random bearer credential.
func NewToken() string { return "referee-test-token-" + newKey() }

// Settle waits until no request is being handled and every relay session
// that started has ended (its stdin closed, shutdown, or a crash). It
// reports false when ctx ends first: a relay is still running.
func (s *Server) Settle(ctx context.Context) bool {
	for {
		s.mu.Lock()
		quiet, ch := s.active == 0 && len(s.relays) == 0, s.changed
		s.mu.Unlock()
		if quiet {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// OpenRelays is how many relay sessions have started and not ended.
func (s *Server) OpenRelays() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.relays)
}

// Close stops serving: listeners and connections are closed, and Close
// returns once the server's goroutine and every request's have.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	s.mu.Lock()
	s.closed = true
	for s.active > 0 {
		ch := s.changed
		s.mu.Unlock()
		<-ch // a request's handler ends once its connection is closed
		s.mu.Lock()
	}
	s.mu.Unlock()
	return err
}

// adjust changes the count of requests being handled, opens or ends a
// relay session, and wakes Settle.
func (s *Server) adjust(active int, session string, open bool) {
	s.mu.Lock()
	s.active += active
	if session != "" {
		if open {
			s.relays[session] = true
		} else {
			delete(s.relays, session)
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// enter counts a request being handled, unless Close has begun.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.active++
	close(s.changed)
	s.changed = make(chan struct{})
	return true
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "the run is over", http.StatusServiceUnavailable)
		return
	}
	defer s.adjust(-1, "", false)
	kind, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	p := s.providers[key]
	s.mu.Unlock()
	if p == nil || (kind != "cgp" && kind != "relay") {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "a CGP provider answers POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, cgp.MaxLine))
	tooLong := false
	if err != nil {
		var mb *http.MaxBytesError
		if !errors.As(err, &mb) {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		tooLong, body = true, nil
	}
	if kind == "relay" {
		s.relay(w, r, p, body, tooLong)
		return
	}
	p.serveHTTP(w, r, body, tooLong)
}

// serveHTTP is the HTTP binding: 200 and the reply, 204 for none, 400 for a
// body that is not an envelope, 401 for a wrong credential; a crash closes
// the connection without a response.
func (p *Provider) serveHTTP(w http.ResponseWriter, r *http.Request, body []byte, tooLong bool) {
	rec := Received{Transport: HTTP, Line: body, Auth: r.Header.Get("Authorization")}
	if tooLong {
		rec.Line = []byte(fmt.Sprintf("(a request body over %d bytes)", cgp.MaxLine))
	}
	status := p.answerHTTP(w, rec, body, tooLong)
	rec.Status = status
	p.record(rec)
}

func (p *Provider) answerHTTP(w http.ResponseWriter, rec Received, body []byte, tooLong bool) int {
	if p.spec.Refuse || (p.spec.Token != "" && rec.Auth != "Bearer "+p.spec.Token) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return http.StatusUnauthorized
	}
	if tooLong {
		writeEnvelope(w, http.StatusBadRequest, errorReply(cgp.CodeBadRequest, "request body was longer than 16 MiB"))
		return http.StatusBadRequest
	}
	a := p.handle(body)
	switch {
	case a.crash:
		hangUp(w)
		return 0
	case a.reply == nil:
		w.WriteHeader(http.StatusNoContent)
		return http.StatusNoContent
	case a.garbage:
		writeEnvelope(w, http.StatusBadRequest, a.reply)
		return http.StatusBadRequest
	}
	writeEnvelope(w, http.StatusOK, a.reply)
	return http.StatusOK
}

// hangUp closes the connection without a response, as a provider that died
// in the middle of a request would.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // the server closes the connection
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

func writeEnvelope(w http.ResponseWriter, status int, env *cgp.Envelope) {
	b, err := cgp.Encode(env)
	if err != nil {
		http.Error(w, "encoding the reply: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// relay answers one request of a stdio relay: the start or end of its
// session, or a line it read from its stdin, answered with the reply line
// to write (an empty body: none) and what to do then.
func (s *Server) relay(w http.ResponseWriter, r *http.Request, p *Provider, body []byte, tooLong bool) {
	session := r.Header.Get(SessionHeader)
	if session == "" {
		http.Error(w, "a relay request names its session", http.StatusBadRequest)
		return
	}
	switch r.Header.Get(RelayHeader) {
	case "start":
		s.adjust(0, session, true)
		w.WriteHeader(http.StatusNoContent)
		return
	case "eof":
		s.adjust(0, session, false)
		w.WriteHeader(http.StatusNoContent)
		return
	case "too-long":
		tooLong = true
	case "line":
	default:
		http.Error(w, "not a relay request", http.StatusBadRequest)
		return
	}
	rec := Received{Transport: Stdio, Line: body}
	var a answer
	if tooLong {
		rec.Line = []byte(fmt.Sprintf("(a line over %d bytes)", cgp.MaxLine))
		a = answer{reply: errorReply(cgp.CodeBadRequest, "line was longer than 16 MiB")}
	} else {
		a = p.handle(body)
	}
	p.record(rec)
	switch {
	case a.crash:
		s.adjust(0, session, false)
		w.Header().Set(ThenHeader, thenExit1)
		w.WriteHeader(http.StatusOK)
		return
	case a.shutdown:
		s.adjust(0, session, false)
		w.Header().Set(ThenHeader, thenExit0)
		w.WriteHeader(http.StatusOK)
		return
	case a.reply == nil:
		w.WriteHeader(http.StatusOK)
		return
	}
	b, err := cgp.Encode(a.reply)
	if err != nil {
		http.Error(w, "encoding the reply: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}
