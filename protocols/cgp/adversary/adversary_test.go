package adversary_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/adversary"
)

func start(t *testing.T) *adversary.Server {
	t.Helper()
	s, err := adversary.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// post sends one envelope line to an HTTP provider with an Authorization
// header (none when auth is ""), and returns the status and body.
func post(t *testing.T, url, auth, body string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

const (
	handshake = `{"type":"handshake","protocol_version":"contextgraph/1.0"}`
	query     = `{"type":"query","query":{"goal":"the goal","max_frames":8,"max_tokens":1000}}`
	shutdown  = `{"type":"shutdown"}`
)

func TestFrameIsBudgetHonest(t *testing.T) {
	for _, tokens := range []int{1, 7, 400} {
		f := adversary.Frame("x-1", tokens, 0.5)
		if got := len(*f.Content); got != tokens*4 {
			t.Errorf("%d tokens: content of %d bytes, want %d", tokens, got, tokens*4)
		}
		if f.TokenCost != uint32(tokens) || cgp.TokenCost(*f.Content) != uint32(tokens) {
			t.Errorf("%d tokens: token_cost %d, canonical %d", tokens, f.TokenCost, cgp.TokenCost(*f.Content))
		}
		sum := sha256.Sum256([]byte(*f.Content))
		if *f.ContentDigest != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Errorf("%d tokens: content_digest %s is not the content's", tokens, *f.ContentDigest)
		}
		if v := cgp.ValidateFrame(&f); len(v) > 0 {
			t.Errorf("%d tokens: the frame breaks %v", tokens, v)
		}
	}
}

func TestHTTPProvider(t *testing.T) {
	s := start(t)
	fs := []cgp.ContextFrame{adversary.Frame("a-1", 10, 0.5)}
	p := s.Add(adversary.Spec{Name: "referee-a", Ack: "contextgraph/2.0", Flow: cgp.DataFlow{Egress: true, EgressScopes: []string{"org-tenant"}}, Frames: fs})
	status, body, err := post(t, p.URL(), "", handshake)
	if err != nil || status != 200 {
		t.Fatalf("handshake: %d %s %v", status, body, err)
	}
	ack, err := cgp.DecodeEnvelope([]byte(body))
	if err != nil || ack.Type != cgp.TypeHandshakeAck || ack.ProtocolVersion != "contextgraph/2.0" || ack.Provider.Name != "referee-a" ||
		!ack.Provider.DataFlow.Egress || strings.Join(ack.Provider.DataFlow.EgressScopes, ",") != "org-tenant" {
		t.Fatalf("ack %s (%v)", body, err)
	}
	status, body, _ = post(t, p.URL(), "", query)
	reply, err := cgp.DecodeReply([]byte(body))
	if status != 200 || err != nil || reply.Type != cgp.TypeFrames || len(reply.Result.Frames) != 1 || reply.Result.Frames[0].ID != "a-1" {
		t.Fatalf("query: %d %s %v", status, body, err)
	}
	if status, body, _ = post(t, p.URL(), "", "not json {{{"); status != 400 || !strings.Contains(body, `"bad_request"`) {
		t.Errorf("garbage: %d %s", status, body)
	}
	if status, _, _ = post(t, p.URL(), "", shutdown); status != 204 {
		t.Errorf("shutdown: %d", status)
	}
	got := p.Received()
	if len(got) != 4 || string(got[1].Line) != query || got[1].Transport != adversary.HTTP || got[1].Status != 200 || got[3].Status != 204 {
		t.Errorf("received %+v", got)
	}
	if !p.Queried() || !p.Mentions("the goal") || p.Mentions("another goal") {
		t.Errorf("Queried %v, Mentions(the goal) %v", p.Queried(), p.Mentions("the goal"))
	}
	if sent := p.Sent(); len(sent) != 1 || sent[0][0].ID != "a-1" {
		t.Errorf("sent %+v", sent)
	}
}

func TestHTTPCredentials(t *testing.T) {
	s := start(t)
	tok := adversary.NewToken()
	wants := s.Add(adversary.Spec{Name: "w", Token: tok})
	refuses := s.Add(adversary.Spec{Name: "r", Token: tok, Refuse: true})
	for _, c := range []struct {
		p    *adversary.Provider
		auth string
		want int
	}{
		{wants, "", 401},
		{wants, "Bearer wrong", 401},
		{wants, "Bearer " + tok, 200},
		{refuses, "Bearer " + tok, 401},
	} {
		if status, body, err := post(t, c.p.URL(), c.auth, handshake); status != c.want {
			t.Errorf("%s with %q: %d %s %v, want %d", c.p.Spec().Name, c.auth, status, body, err, c.want)
		}
	}
	if got := refuses.Received(); len(got) != 1 || got[0].Auth != "Bearer "+tok || got[0].Status != 401 {
		t.Errorf("the refusing provider recorded %+v", got)
	}
	if !refuses.Mentions(tok) {
		t.Error("Mentions does not look at the Authorization header")
	}
}

func TestHTTPCrashHangsUp(t *testing.T) {
	s := start(t)
	p := s.Add(adversary.Spec{Name: "c", Crash: true, Frames: []cgp.ContextFrame{adversary.Frame("c-1", 1, 0.5)}})
	if status, _, err := post(t, p.URL(), "", handshake); status != 200 || err != nil {
		t.Fatalf("handshake: %d %v", status, err)
	}
	for _, line := range []string{query, shutdown} {
		_, _, err := post(t, p.URL(), "", line)
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s to a crashed provider: %v, want the connection closed without a response", line, err)
		}
	}
	if len(p.Sent()) != 0 {
		t.Error("a crashing provider sent frames")
	}
}

func TestUnknownPathAndMethod(t *testing.T) {
	s := start(t)
	p := s.Add(adversary.Spec{Name: "a"})
	if status, _, _ := post(t, strings.Replace(p.URL(), "/cgp/", "/cgp/x", 1), "", handshake); status != 404 {
		t.Errorf("an unknown key: %d", status)
	}
	resp, err := http.Get(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET: %d", resp.StatusCode)
	}
}

// relayRun runs a relay of p in-process on pipes.
type relayRun struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	code chan int
}

func runRelay(t *testing.T, url string) *relayRun {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &relayRun{in: inW, out: bufio.NewReader(outR), code: make(chan int, 1)}
	go func() {
		code := adversary.Relay(context.Background(), url, inR, outW, io.Discard)
		outW.Close()
		inR.Close()
		r.code <- code
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-r.code
	})
	return r
}

func (r *relayRun) send(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := r.out.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the reply to %s: %v", line, err)
	}
	return strings.TrimSuffix(got, "\n")
}

func TestRelay(t *testing.T) {
	s := start(t)
	p := s.Add(adversary.Spec{Name: "r", Frames: []cgp.ContextFrame{adversary.Frame("r-1", 3, 0.5)}})
	r := runRelay(t, p.RelayURL())
	if ack := r.send(t, handshake); !strings.Contains(ack, `"handshake_ack"`) {
		t.Fatalf("ack %s", ack)
	}
	// The session is open while the relay runs.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	settled := s.Settle(ctx)
	cancel()
	if settled || s.OpenRelays() != 1 {
		t.Errorf("Settle %v with the relay running, %d open", settled, s.OpenRelays())
	}
	if frames := r.send(t, query); !strings.Contains(frames, `"r-1"`) {
		t.Errorf("frames %s", frames)
	}
	if bad := r.send(t, "garbage"); !strings.Contains(bad, `"bad_request"`) {
		t.Errorf("garbage got %s", bad)
	}
	io.WriteString(r.in, "\n"+shutdown+"\n") // a blank line is skipped
	if code := <-r.code; code != 0 {
		t.Errorf("exit %d after shutdown", code)
	}
	r.code <- 0 // for the cleanup
	if !s.Settle(t.Context()) {
		t.Error("the session did not end with shutdown")
	}
	got := p.Received()
	if len(got) != 4 || got[0].Transport != adversary.Stdio || string(got[3].Line) != shutdown {
		t.Errorf("received %+v", got)
	}
}

func TestRelayEOFAndCrash(t *testing.T) {
	s := start(t)
	idle := s.Add(adversary.Spec{Name: "i"})
	r := runRelay(t, idle.RelayURL())
	r.send(t, handshake)
	r.in.Close()
	if code := <-r.code; code != 0 {
		t.Errorf("exit %d when stdin ends", code)
	}
	r.code <- 0
	crash := s.Add(adversary.Spec{Name: "c", Crash: true})
	r = runRelay(t, crash.RelayURL())
	r.send(t, handshake)
	io.WriteString(r.in, query+"\n")
	if code := <-r.code; code != 1 {
		t.Errorf("exit %d on a crash, want 1", code)
	}
	if rest, _ := io.ReadAll(r.out); len(rest) != 0 {
		t.Errorf("the crashing relay wrote %q", rest)
	}
	r.code <- 1
	if !s.Settle(t.Context()) {
		t.Error("sessions still open after EOF and a crash")
	}
}

func TestRelayRefusesBadURLs(t *testing.T) {
	var stderr bytes.Buffer
	if code := adversary.Relay(t.Context(), "ftp://x/", strings.NewReader(""), io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "--provider") {
		t.Errorf("a bad URL: exit %d, %q", code, stderr.String())
	}
	s := start(t)
	url := s.Add(adversary.Spec{Name: "gone"}).RelayURL()
	s.Close()
	stderr.Reset()
	if code := adversary.Relay(t.Context(), url, strings.NewReader(handshake+"\n"), io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "gone") {
		t.Errorf("a server that is gone: exit %d, %q", code, stderr.String())
	}
}

// A provider keeps at most 4096 lines of what it received, counts the rest,
// and still notices a query among them.
func TestWhatAProviderKeepsIsBounded(t *testing.T) {
	s := start(t)
	p := s.Add(adversary.Spec{Name: "b"})
	for range 4100 {
		if status, _, err := post(t, p.URL(), "", shutdown); err != nil || status != 204 {
			t.Fatalf("%d %v", status, err)
		}
	}
	if p.Queried() {
		t.Error("queried before any query")
	}
	post(t, p.URL(), "", query)
	if n, u := len(p.Received()), p.Unkept(); n != 4096 || u != 5 {
		t.Errorf("kept %d, unkept %d; want 4096 and 5", n, u)
	}
	if !p.Queried() {
		t.Error("a query past the bound went unnoticed")
	}
}
