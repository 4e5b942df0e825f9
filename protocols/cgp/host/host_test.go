package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
)

// The test binary stands in for a provider: REFEREE_TEST_HOST_CHILD names
// what it does on stdio.
const envChild = "REFEREE_TEST_HOST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(envChild) {
	case "":
		os.Exit(m.Run())
	case "garbage":
		fmt.Println("hello from a provider")
	case "crash":
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(3)
	case "half-line":
		bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Print(`{"type":"handshake_ack"`)
		os.Exit(4)
	case "long-line":
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Stdout.Write(append(bytes.Repeat([]byte("x"), cgp.MaxLine+1), '\n'))
		os.Stdin.Read(make([]byte, 1)) // until killed
	case "stderr":
		fmt.Fprintln(os.Stderr, "provider: starting")
		bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Fprintln(os.Stderr, "provider: bye")
	case "reverse":
		// Acks, then answers two pipelined queries in reverse order.
		in := bufio.NewScanner(os.Stdin)
		in.Scan()
		fmt.Println(`{"type":"handshake_ack","protocol_version":"contextgraph/1.0","provider":{"name":"p","version":"1","data_flow":{}},"capabilities":{"query":{"kinds":[]},"correlation":true}}`)
		var ids []string
		for range 2 {
			in.Scan()
			var q struct{ ID string }
			json.Unmarshal(in.Bytes(), &q)
			ids = append(ids, q.ID)
		}
		for i := len(ids) - 1; i >= 0; i-- {
			if os.Getenv("REFEREE_TEST_HOST_WRONG_TYPE") != "" {
				fmt.Printf(`{"type":"verified","id":%q,"response":{"verdicts":[]}}`+"\n", ids[i])
				continue
			}
			fmt.Printf(`{"type":"frames","id":%q,"result":{"frames":[],"truncated":%v}}`+"\n", ids[i], i == 1)
		}
		in.Scan()
	case "no-read":
		fmt.Println(`{"type":"handshake_ack","protocol_version":"contextgraph/1.0","provider":{"name":"p","version":"1","data_flow":{}},"capabilities":{"query":{"kinds":[]}}}`)
		select {} // never reads stdin, never exits
	case "ack-then-exit-1":
		in := bufio.NewScanner(os.Stdin)
		in.Scan()
		fmt.Println(`{"type":"handshake_ack","protocol_version":"contextgraph/1.0-draft","provider":{"name":"p","version":"1","data_flow":{"reads":true,"writes":false,"egress":false}},"capabilities":{"query":{"kinds":[]}},"future":1}`)
		in.Scan()
		os.Exit(1)
	}
	os.Exit(0)
}

func stdioChild(what string) Target {
	// Under -race a child exiting 0 would sleep a second first.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return Target{Argv: []string{os.Args[0]}, Env: append(os.Environ(), envChild+"="+what, "GORACE="+gorace)}
}

func TestStdioFailures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		child string
		kind  Kind
		msg   string
	}{
		{"garbage", KindWire, `"hello from a provider"`},
		{"crash", KindCrashed, "exited with status 3"},
		{"half-line", KindCrashed, "stdout ended in the middle of a line; the provider exited with status 4"},
		{"long-line", KindTransport, "longer than 16777216 bytes"},
	} {
		h, err := Dial(ctx, stdioChild(tc.child))
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.Handshake(ctx)
		if !IsKind(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %s with %q", tc.child, err, tc.kind, tc.msg)
		}
		h.Close()
	}
}

// TestCloseWaitsForStderrCopy: once Close returns, the live copy of stderr
// is complete and no longer written (run with -race: the buffer is not
// locked).
func TestCloseWaitsForStderrCopy(t *testing.T) {
	var live bytes.Buffer
	target := stdioChild("stderr")
	target.Stderr = &live
	h, err := Dial(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handshake(context.Background()); !IsKind(err, KindCrashed) {
		t.Errorf("a provider that exits: %v", err)
	}
	h.Close()
	if got := live.String(); got != "provider: starting\nprovider: bye\n" || h.Stderr() != got {
		t.Errorf("live stderr %q, tail %q", got, h.Stderr())
	}
}

func TestDraftAckAndShutdownStatus(t *testing.T) {
	ctx := context.Background()
	h, err := Dial(ctx, stdioChild("ack-then-exit-1"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ack, err := h.Handshake(ctx)
	if err != nil {
		t.Fatalf("a 1.0-draft ack with an unknown member: %v", err)
	}
	if ack.Provider.Name != "p" {
		t.Errorf("ack %+v", ack.Provider)
	}
	if err := h.Shutdown(ctx); !IsKind(err, KindCrashed) || !strings.Contains(err.Error(), "status 1") {
		t.Errorf("shutdown of a provider that exits 1: %v", err)
	}
}

func TestSpawnFailure(t *testing.T) {
	_, err := Dial(context.Background(), Target{Argv: []string{"/nonexistent/provider"}})
	if !IsKind(err, KindSpawn) {
		t.Errorf("%v, want a spawn error", err)
	}
}

func TestHTTP(t *testing.T) {
	const token = "s3cret-token-value"
	var gotAuth, gotType string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotType = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		switch r.URL.Path {
		case "/401":
			w.WriteHeader(http.StatusUnauthorized)
		case "/500":
			http.Error(w, "boom "+token, http.StatusInternalServerError)
		case "/500-long":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "overloaded "+strings.Repeat("x", 17<<20))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/redirect":
			http.Redirect(w, r, "http://192.0.2.1/elsewhere", http.StatusTemporaryRedirect)
		case "/echo":
			fmt.Fprintf(w, `{"type":"handshake_ack","protocol_version":"contextgraph/2.0","provider":{"name":"%s","version":"1","data_flow":{}},"capabilities":{"query":{"kinds":[]}}}`, r.Header.Get("Authorization"))
		case "/echo-escaped":
			fmt.Fprint(w, `{"type":"error","code":"bad_request","message":"rejected `+strings.ReplaceAll(r.Header.Get("Authorization"), "-", `\u002d`)+`"}`)
		case "/null":
			fmt.Fprint(w, `{"type":"handshake_ack","protocol_version":"contextgraph/1.0","provider":null,"capabilities":{"query":{"kinds":[]}}}`)
		default:
			fmt.Fprint(w, `{"type":"handshake_ack","protocol_version":"contextgraph/2.0","provider":{"name":"p","version":"1","data_flow":{}},"capabilities":{"query":{"kinds":[]}}}`)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		path string
		kind Kind
	}{{"/401", KindUnauthorized}, {"/500", KindTransport}, {"/500-long", KindTransport}, {"/empty", KindWire}, {"/v2", KindVersionMismatch},
		{"/redirect", KindTransport}, {"/echo", KindVersionMismatch}, {"/echo-escaped", KindProvider}, {"/null", KindWire}} {
		h, err := Dial(ctx, Target{URL: srv.URL + tc.path, Token: token})
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.Handshake(ctx)
		if !IsKind(err, tc.kind) {
			t.Errorf("%s: %v, want %s", tc.path, err, tc.kind)
		}
		if tc.path == "/500-long" && (err == nil || !strings.Contains(err.Error(), `HTTP 500: "overloaded xxx`)) {
			t.Errorf("%s: %v, want the status and the body's start", tc.path, err)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("%s: the error prints the token: %v", tc.path, err)
		}
		for _, x := range h.Transcript() {
			if strings.Contains(string(x.Reply), token) {
				t.Errorf("%s: the transcript holds the token: %s", tc.path, x.Reply)
			}
		}
	}
	if gotAuth != "Bearer "+token || gotType != "application/json" {
		t.Errorf("headers: Authorization %q, Content-Type %q", gotAuth, gotType)
	}
}

func TestInsecureTransport(t *testing.T) {
	for _, u := range []string{"http://example.com/", "http://192.0.2.1:8080/cg", "http://[2001:db8::1]/"} {
		if _, err := Dial(context.Background(), Target{URL: u}); !IsKind(err, KindInsecureTransport) {
			t.Errorf("%s: %v, want insecure transport", u, err)
		}
	}
	for _, u := range []string{"http://localhost:1/", "http://127.0.0.2:1/", "http://[::1]:1/", "https://example.com/"} {
		if _, err := Dial(context.Background(), Target{URL: u}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// TestShutdownOfProviderThatDoesNotRead: a write stuck on a full pipe must
// not hold the shutdown, and the connection is unusable after a timeout.
func TestShutdownOfProviderThatDoesNotRead(t *testing.T) {
	h, err := Dial(context.Background(), stdioChild("no-read"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Handshake(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err = h.Raw(ctx, []byte(strings.Repeat("x", 4<<20)))
	cancel()
	if !IsKind(err, KindTimeout) {
		t.Fatalf("a write to a provider that does not read: %v", err)
	}
	if _, err := h.Raw(context.Background(), []byte("{}")); !IsKind(err, KindTimeout) || !strings.Contains(err.Error(), "no longer used") && !strings.Contains(err.Error(), "could not be written") {
		t.Errorf("after a timeout the connection must be unusable: %v", err)
	}
	start := time.Now()
	err = h.Shutdown(context.Background())
	if d := time.Since(start); d > ShutdownGrace+2*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	if !IsKind(err, KindTimeout) {
		t.Errorf("shutdown of a provider that never exits: %v", err)
	}
}

func TestQueryPipelinedMatchesByID(t *testing.T) {
	ctx := context.Background()
	h, err := Dial(ctx, stdioChild("reverse"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	q := cgp.ContextQuery{Goal: "g", MaxFrames: 1, MaxTokens: 1}
	replies, err := h.QueryPipelined(ctx, []cgp.ContextQuery{q, q}, []string{"first", "second"})
	if err != nil {
		t.Fatal(err)
	}
	if *replies[0].ID != "first" || replies[0].Result.Truncated || *replies[1].ID != "second" || !replies[1].Result.Truncated {
		t.Errorf("replies not matched to their queries: %s %v, %s %v", *replies[0].ID, replies[0].Result.Truncated, *replies[1].ID, replies[1].Result.Truncated)
	}
}

func TestQueryPipelinedRefusesOtherEnvelopes(t *testing.T) {
	ctx := context.Background()
	target := stdioChild("reverse")
	target.Env = append(target.Env, "REFEREE_TEST_HOST_WRONG_TYPE=1")
	h, err := Dial(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	q := cgp.ContextQuery{Goal: "g", MaxFrames: 1, MaxTokens: 1}
	if _, err := h.QueryPipelined(ctx, []cgp.ContextQuery{q, q}, []string{"first", "second"}); !IsKind(err, KindUnexpected) {
		t.Errorf("verified envelopes answering queries: %v", err)
	}
	// The transcript pairs each reply with the line whose id it carries.
	tr := h.Transcript()
	for _, x := range tr[1:] {
		if rid, qid := cgp.RequestID(x.Reply), cgp.RequestID(x.Request); rid != nil && (qid == nil || *rid != *qid) {
			t.Errorf("reply %s paired with request %s", x.Reply, x.Request)
		}
	}
}

// TestFrameWithoutRequiredMemberIsRefused: a frames reply whose frame lacks a
// required member is a wire error naming the frame and the member, with the
// *cgp.FrameError behind it, as the reference host refuses it; the same
// reply with the member is read.
func TestFrameWithoutRequiredMemberIsRefused(t *testing.T) {
	const ack = `{"type":"handshake_ack","protocol_version":"contextgraph/1.0","provider":{"name":"p","version":"1","data_flow":{}},"capabilities":{"query":{"kinds":[]}}}`
	frames := func(rel string) string {
		return `{"type":"frames","result":{"frames":[{"id":"f1","kind":"doc","title":"t","content":"c","score":0.5,"token_cost":1,"relations":[{` + rel + `"target_uri":"u"}]}],"truncated":false}}`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct{ Type string }
		json.NewDecoder(r.Body).Decode(&env)
		switch {
		case env.Type == cgp.TypeHandshake:
			fmt.Fprint(w, ack)
		case r.URL.Path == "/whole":
			fmt.Fprint(w, frames(`"rel":"r",`))
		default:
			fmt.Fprint(w, frames(`"type":"r",`))
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, path := range []string{"/whole", "/missing"} {
		h, err := Dial(ctx, Target{URL: srv.URL + path})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Handshake(ctx); err != nil {
			t.Fatal(err)
		}
		env, err := h.Query(ctx, cgp.ContextQuery{Goal: "g", MaxFrames: 1, MaxTokens: 10}, nil)
		var fe *cgp.FrameError
		switch {
		case path == "/whole" && (err != nil || env.Result.Frames[0].Relations[0].Rel != "r"):
			t.Errorf("%s: %v", path, err)
		case path == "/missing" && (!IsKind(err, KindWire) || !errors.As(err, &fe) || fe.Index != 0 || fe.ID != "f1" ||
			!strings.Contains(err.Error(), `result.frames[0] (id "f1"): frame.relations[0] has no rel, which is required`)):
			t.Errorf("%s: %v, want a wire error naming frame f1 and its relation's rel", path, err)
		}
		h.Close()
	}
}
