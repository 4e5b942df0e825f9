package adapter_test

// Regression tests for hostile adapters (issue 13): each drives a real child
// process or a real HTTP server on loopback.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/adapter/adaptertest"
)

// maxKept is the most of an offending line a fault, an exchange or a trace
// record may keep.
const maxKept = 4096

// httpStarter reaches the server at url.
func httpStarter(url string, trace *adapter.Trace) adapter.Starter {
	h := &adapter.HTTP{URL: url, Trace: trace}
	return func(ctx context.Context) (adapter.Conn, error) { return h, nil }
}

// helloOr answers hello for an HTTP test server with concurrency n, and
// hands every other request (with its id) to rest, which may read the
// request's args with bodyArgs.
func helloOr(n int, rest func(w http.ResponseWriter, r *http.Request, id int64)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID int64  `json:"id"`
			Op string `json:"op"`
		}
		body := make([]byte, 1<<16)
		k, _ := r.Body.Read(body)
		body = body[:k]
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "bad request", 400)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body)) // for bodyArgs
		if req.Op == "hello" {
			fmt.Fprintf(w, `{"id":%d,"ok":{"name":"srv","version":"1","ops":["echo"],"concurrency":%d}}`, req.ID, n)
			return
		}
		rest(w, r, req.ID)
	}
}

// bodyArgs returns the args of the request POSTed to r.
func bodyArgs(r *http.Request) []byte {
	var req struct{ Args json.RawMessage }
	body, _ := io.ReadAll(r.Body)
	json.Unmarshal(body, &req)
	return req.Args
}

// TestRepliesOverTheCapAreClipped: a reply over the line cap, or any
// faulty reply, keeps at most a 4 KiB prefix in the fault, the exchange and
// the trace, the same over stdio and HTTP; a too-long fault names the cap.
func TestRepliesOverTheCapAreClipped(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", adapter.MaxLine+100)
	tests := []struct {
		name    string
		process string // a fake's mode, or "" for the handler
		handler http.HandlerFunc
		kind    adapter.FaultKind
	}{
		{"stdio-too-long", adaptertest.HugeLine, nil, adapter.FaultTooLong},
		{"stdio-big-garbage", adaptertest.BigGarbage, nil, adapter.FaultBadLine},
		{"http-too-long", "", helloOr(1, func(w http.ResponseWriter, _ *http.Request, id int64) {
			fmt.Fprintf(w, `{"id":%d,"ok":"%s"}`, id, huge)
		}), adapter.FaultTooLong},
		{"http-too-long-unsized", "", helloOr(1, func(w http.ResponseWriter, _ *http.Request, id int64) {
			fmt.Fprintf(w, `{"id":%d,"ok":"`, id)
			w.(http.Flusher).Flush() // no Content-Length: the body is chunked
			fmt.Fprintf(w, `%s"}`, huge)
		}), adapter.FaultTooLong},
		{"http-status-huge-body", "", helloOr(1, func(w http.ResponseWriter, _ *http.Request, id int64) {
			w.WriteHeader(500)
			w.Write([]byte(huge))
		}), adapter.FaultHTTP},
		{"http-big-garbage", "", helloOr(1, func(w http.ResponseWriter, _ *http.Request, id int64) {
			w.Write([]byte(strings.Repeat("not json ", 1<<20/9)))
		}), adapter.FaultBadLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var trace lockedBuffer
			tr := adapter.NewTrace(&trace)
			var start adapter.Starter
			if tt.process != "" {
				cfg := adaptertest.Process(t, tt.process)
				cfg.Trace = tr
				start = func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
			} else {
				srv := httptest.NewServer(tt.handler)
				defer srv.Close()
				start = httpStarter(srv.URL, tr)
			}
			c, err := adapter.Dial(context.Background(), start, "test", adapter.Options{Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			_, ex, err := c.Call(context.Background(), "echo", []byte(`{}`))
			c.Close()
			var f *adapter.Fault
			if !errors.As(err, &f) || f.Kind != tt.kind {
				t.Fatalf("err = %v, want a %s fault", err, tt.kind)
			}
			if len(f.Line) == 0 || len(f.Line) > maxKept {
				t.Errorf("the fault keeps %d bytes of the reply, want 1 to %d", len(f.Line), maxKept)
			}
			if ex == nil || len(ex.Reply) == 0 || len(ex.Reply) > maxKept {
				t.Errorf("the exchange keeps %d bytes of the reply, want 1 to %d", len(ex.Reply), maxKept)
			}
			if tt.kind == adapter.FaultTooLong && !strings.Contains(f.Error(), fmt.Sprint(adapter.MaxLine)) {
				t.Errorf("fault %q does not name the limit %d", f.Error(), adapter.MaxLine)
			}
			// The trace holds every line within the cap whole, and a prefix
			// of a longer one.
			for _, line := range strings.Split(trace.String(), "\n") {
				if len(line) > maxKept+64 && (tt.kind == adapter.FaultTooLong || len(line) > adapter.MaxLine) {
					t.Errorf("a trace record of %d bytes: %.100s...", len(line), line)
				}
			}
			if !strings.Contains(trace.String(), " <- ") {
				t.Errorf("the trace lacks the reply's prefix:\n%.2000s", trace.String())
			}
		})
	}
}

// everyFifth decides which calls fault, by the number n each call carries
// in its args: every fifth, until the last few, and each only once a call
// with a larger n has succeeded. Calls take n in the order the client
// issues them (take holds the next n back until the implementation has
// received the call before it), so in the order calls are issued a success
// follows each fault before the next fault is reported, however the calls
// in flight are scheduled.
type everyFifth struct {
	last int64 // faults only below this n

	issuing sync.Mutex // held from take until the call is received
	next    int64      // the next n to take
	pending sync.Map   // n -> the release of issuing for that call

	mu        sync.Mutex
	succeeded int64         // the largest n that succeeded
	changed   chan struct{} // closed when succeeded grows
}

func newEveryFifth(last int64) *everyFifth {
	return &everyFifth{last: last, succeeded: -1, changed: make(chan struct{})}
}

// take returns the next n, below limit, and the release to call once the
// call carrying it has returned (it may have released already, when the
// implementation received it).
func (e *everyFifth) take(limit int64) (n int64, release func(), ok bool) {
	e.issuing.Lock()
	if e.next >= limit {
		e.issuing.Unlock()
		return 0, nil, false
	}
	n = e.next
	e.next++
	release = sync.OnceFunc(e.issuing.Unlock)
	e.pending.Store(n, release)
	return n, release, true
}

// fault reports whether the call with args must fault, once it may.
func (e *everyFifth) fault(ctx context.Context, args []byte) bool {
	var a struct{ N int64 }
	json.Unmarshal(args, &a)
	if release, ok := e.pending.LoadAndDelete(a.N); ok {
		release.(func())() // call n is issued: the next may be taken
	}
	if a.N%5 != 4 || a.N >= e.last {
		e.mu.Lock()
		if a.N > e.succeeded {
			e.succeeded = a.N
			close(e.changed)
			e.changed = make(chan struct{})
		}
		e.mu.Unlock()
		return false
	}
	for {
		e.mu.Lock()
		later, changed := e.succeeded > a.N, e.changed
		e.mu.Unlock()
		if later {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return true
		}
	}
}

// flaky is an in-process implementation that panics as everyFifth says.
type flaky struct{ *everyFifth }

func (flaky) Hello() adapter.Hello {
	return adapter.Hello{Name: "flaky", Version: "1", Ops: []string{"echo"}, Concurrency: 8}
}

func (f flaky) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	if f.fault(ctx, args) {
		panic("every fifth call")
	}
	return args, nil
}

// TestFaultsCountByCallOrder: with 8 calls in flight and a fault on every
// fifth call, a success of a call issued after a fault resets the count,
// whichever connection it finished on: the client never gives up.
func TestFaultsCountByCallOrder(t *testing.T) {
	const calls, last = 400, 360
	server, inProcess := newEveryFifth(last), newEveryFifth(last)
	srv := httptest.NewServer(helloOr(8, func(w http.ResponseWriter, r *http.Request, id int64) {
		if server.fault(r.Context(), bodyArgs(r)) {
			http.Error(w, "every fifth call", 500)
			return
		}
		fmt.Fprintf(w, `{"id":%d,"ok":true}`, id)
	}))
	defer srv.Close()
	tests := []struct {
		name  string
		start adapter.Starter
		calls *everyFifth
	}{
		{"http", httpStarter(srv.URL, nil), server},
		{"in-process", adapter.InProcess(flaky{inProcess}), inProcess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := adapter.Dial(context.Background(), tt.start, "test", adapter.Options{Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var (
				wg             sync.WaitGroup
				faults, gaveUp atomic.Int64
			)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						n, release, ok := tt.calls.take(calls)
						if !ok {
							return
						}
						_, _, err := c.Call(context.Background(), "echo", []byte(fmt.Sprintf(`{"n":%d}`, n)))
						release()
						switch {
						case errors.Is(err, adapter.ErrGaveUp):
							gaveUp.Add(1)
						case err != nil:
							faults.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			if c.GaveUp() || gaveUp.Load() > 0 {
				t.Fatalf("the client gave up (%d calls refused) after %d faults in %d calls, each followed by a success", gaveUp.Load(), faults.Load(), calls)
			}
			if f := faults.Load(); f != last/5 {
				t.Errorf("%d calls faulted, want %d", f, last/5)
			}
		})
	}
}

// TestFaultCountAcrossRestarts: the successes that reset the count finish
// on the connection before the current one (calls in flight when it was
// replaced), yet were issued after the fault: three faults, each followed
// in call order by a success, do not make the client give up.
func TestFaultCountAcrossRestarts(t *testing.T) {
	var (
		mu      sync.Mutex
		arrived = map[int64]chan struct{}{}
		release = map[int64]chan struct{}{}
	)
	gate := func(n int64) (arrival, go_ chan struct{}) {
		mu.Lock()
		defer mu.Unlock()
		if arrived[n] == nil {
			arrived[n], release[n] = make(chan struct{}), make(chan struct{})
		}
		return arrived[n], release[n]
	}
	srv := httptest.NewServer(helloOr(8, func(w http.ResponseWriter, r *http.Request, id int64) {
		var a struct{ N int64 }
		json.Unmarshal(bodyArgs(r), &a)
		arrival, go_ := gate(a.N)
		close(arrival)
		select {
		case <-go_:
		case <-r.Context().Done():
			return
		}
		if a.N%2 == 1 {
			http.Error(w, "odd calls fail", 500)
			return
		}
		fmt.Fprintf(w, `{"id":%d,"ok":true}`, id)
	}))
	defer srv.Close()
	c, err := adapter.Dial(context.Background(), httpStarter(srv.URL, nil), "test", adapter.Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	results := map[int64]chan error{}
	early := map[int64]error{} // calls that ended before the server had them
	issue := func(n int64) {   // and wait until the server has it
		results[n] = make(chan error, 1)
		go func() {
			_, _, err := c.Call(context.Background(), "echo", []byte(fmt.Sprintf(`{"n":%d}`, n)))
			results[n] <- err
		}()
		arrival, _ := gate(n)
		select {
		case <-arrival:
		case err := <-results[n]:
			early[n] = fmt.Errorf("ended before it was sent: %w", err)
		}
	}
	finish := func(n int64) error {
		if err, ok := early[n]; ok {
			return err
		}
		_, go_ := gate(n)
		close(go_)
		return <-results[n]
	}
	// Calls 1, 3 and 5 fail; 2, 4 and 6 succeed.
	issue(1)
	issue(2)
	if err := finish(1); !adapter.IsFault(err) {
		t.Fatalf("call 1: %v, want a fault", err)
	}
	issue(3) // on a new connection
	issue(4)
	if err := finish(2); err != nil { // on the old one, issued after call 1
		t.Fatalf("call 2: %v", err)
	}
	if err := finish(3); !adapter.IsFault(err) {
		t.Fatalf("call 3: %v, want a fault", err)
	}
	issue(5) // on a newer connection
	if err := finish(4); err != nil {
		t.Fatalf("call 4: %v", err)
	}
	if err := finish(5); !adapter.IsFault(err) {
		t.Fatalf("call 5: %v, want a fault", err)
	}
	issue(6)
	if err := finish(6); err != nil || c.GaveUp() {
		t.Fatalf("call 6: %v (gave up %v): each fault was followed by a success", err, c.GaveUp())
	}
	if c.Restarts() != 3 {
		t.Errorf("restarts = %d, want 3", c.Restarts())
	}
}

// TestNoRedirects: an HTTP adapter's redirect is a fault naming it, and the
// request is never re-sent to another host, whatever client is given.
func TestNoRedirects(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		adapter.ServeHTTP(echoHandler{}).ServeHTTP(w, r)
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/adapter", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	for _, client := range []*http.Client{nil, {}, http.DefaultClient} {
		h := &adapter.HTTP{URL: redirect.URL, Client: client}
		_, ex, err := h.Call(context.Background(), 0, "hello", []byte(`{}`))
		var f *adapter.Fault
		if !errors.As(err, &f) || f.Kind != adapter.FaultHTTP || !strings.Contains(f.Msg, "redirect") || !strings.Contains(f.Msg, other.URL+"/adapter") {
			t.Errorf("client %v: err = %v, want an http fault naming the redirect to %s", client, err, other.URL)
		}
		if ex == nil || !strings.Contains(string(ex.Request), `"op":"hello"`) {
			t.Errorf("client %v: exchange %+v lacks the request", client, ex)
		}
		_, err = adapter.Dial(context.Background(), func(ctx context.Context) (adapter.Conn, error) { return h, nil }, "test", adapter.Options{})
		if err == nil || !strings.Contains(err.Error(), "redirect") {
			t.Errorf("client %v: Dial through a redirect: %v, want the redirect fault", client, err)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect's target received %d requests", n)
	}
}

// TestHTTPSlowBodyIsATimeout: a reply whose body trickles in past the
// per-call timeout is a timeout fault, not an http one.
func TestHTTPSlowBodyIsATimeout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(helloOr(1, func(w http.ResponseWriter, r *http.Request, id int64) {
		fmt.Fprintf(w, `{"id":%d,"ok":"`, id)
		for {
			w.(http.Flusher).Flush()
			select {
			case <-time.After(20 * time.Millisecond):
				w.Write([]byte("x"))
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	c, err := adapter.Dial(context.Background(), httpStarter(srv.URL, nil), "test", adapter.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	_, _, err = c.Call(context.Background(), "echo", []byte(`{}`))
	var f *adapter.Fault
	if !errors.As(err, &f) || f.Kind != adapter.FaultTimeout {
		t.Fatalf("err = %v, want a timeout fault", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("a dripped body with a 2s timeout took %s", d)
	}
}

// TestCleanExitChargesNothing: an adapter that exits 0 after a reply has
// the next request sent once more to a restarted adapter, however soon it
// comes: no call fails, and these restarts count toward no fault limit.
func TestCleanExitChargesNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode  string
		every int // replies before each exit
	}{
		{adaptertest.ExitAfterReply, 1},
		{adaptertest.ExitEvery5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			var trace lockedBuffer
			cfg := adaptertest.Process(t, tt.mode)
			cfg.Trace = adapter.NewTrace(&trace)
			c := dial(t, cfg, adapter.Options{MaxFaults: 1, Trace: cfg.Trace})
			calls := 10 * tt.every
			for i := range calls {
				args := fmt.Sprintf(`{"n":%d}`, i)
				r, _, err := c.Call(context.Background(), "echo", []byte(args))
				if err != nil || r.OK.String() != args {
					t.Fatalf("call %d: %v, %v (a clean exit between calls must charge no call)", i, r, err)
				}
			}
			if c.GaveUp() || c.Restarts() != 0 {
				t.Errorf("gave up %v, restarts after faults %d: a clean exit is no fault", c.GaveUp(), c.Restarts())
			}
			if got := c.CleanRestarts(); got != 9 {
				t.Errorf("clean restarts = %d, want 9", got)
			}
			if n := strings.Count(trace.String(), "restarting adapter"); n != 9 {
				t.Errorf("the trace lists %d restarts, want 9:\n%s", n, trace.String())
			}
		})
	}
}

// TestCleanExitOnEveryRequestIsCharged: a request sent once more after a
// clean exit, which again ends in a clean exit, is that call's exit fault;
// three such calls and the client gives up.
func TestCleanExitOnEveryRequestIsCharged(t *testing.T) {
	t.Parallel()
	c := dial(t, adaptertest.Process(t, adaptertest.ExitOnEcho), adapter.Options{})
	for i := 1; i <= 3; i++ {
		_, ex, err := c.Call(context.Background(), "echo", []byte(`{}`))
		var f *adapter.Fault
		if !errors.As(err, &f) || f.Kind != adapter.FaultExit || !strings.Contains(f.Msg, "status 0") {
			t.Fatalf("call %d: err = %v, want the exit fault of the request sent once more", i, err)
		}
		if ex == nil || !strings.Contains(string(ex.Request), `"op":"echo"`) {
			t.Errorf("call %d: exchange %+v lacks the request", i, ex)
		}
	}
	if !c.GaveUp() {
		t.Error("the client did not give up after three calls charged with an exit")
	}
	if c.CleanRestarts() != 3 || c.Restarts() != 2 {
		t.Errorf("clean restarts %d, restarts after faults %d; want 3 and 2", c.CleanRestarts(), c.Restarts())
	}
}

// TestStrayLineBetweenCalls: an adapter that writes a line answering no
// request after each reply is restarted for the next call, and that call's
// success resets the count of faults (the fault came before the call was
// issued): the run never gives up, and every call is answered.
func TestStrayLineBetweenCalls(t *testing.T) {
	t.Parallel()
	var trace lockedBuffer
	cfg := adaptertest.Process(t, adaptertest.StrayAfterReply)
	cfg.Trace = adapter.NewTrace(&trace)
	c := dial(t, cfg, adapter.Options{Trace: cfg.Trace})
	// The stray line comes in the same write as the reply, so it may be
	// read before the next request goes out (a fault between calls) or
	// after (the call in flight meets it: it cannot tell the line from a
	// wrong reply, and fails with that fault). Either way the calls that
	// are answered reset the count: the client never gives up.
	const calls = 12
	answered := 0
	for i := range calls {
		args := fmt.Sprintf(`{"n":%d}`, i)
		r, _, err := c.Call(context.Background(), "echo", []byte(args))
		var f *adapter.Fault
		switch {
		case err == nil && r.OK.String() == args:
			answered++
		case errors.As(err, &f) && f.Kind == adapter.FaultUnknownID && strings.Contains(f.Msg, "999999"):
			// the stray line raced this call's request
		default:
			t.Fatalf("call %d: %v, %v; a fault between calls is no call's, and the one after it must reset the count\n%s", i, r, err, trace.String())
		}
	}
	if c.GaveUp() || answered == 0 {
		t.Fatalf("the client gave up, or answered %d of %d calls:\n%s", answered, calls, trace.String())
	}
	if c.Restarts() == 0 || !strings.Contains(trace.String(), "matches no request") {
		t.Errorf("restarts = %d; the stray lines were not seen as faults:\n%s", c.Restarts(), trace.String())
	}
}

// TestGaveUpNamesTheLastFault: once the client gives up, its error says
// what the last fault was, for the checks it does not run.
func TestGaveUpNamesTheLastFault(t *testing.T) {
	t.Parallel()
	c := dial(t, adaptertest.Process(t, adaptertest.WrongID), adapter.Options{})
	var last error
	for range 3 {
		_, _, last = c.Call(context.Background(), "echo", []byte(`{}`))
	}
	var f *adapter.Fault
	if !errors.As(last, &f) {
		t.Fatalf("third call: %v, want a fault", last)
	}
	_, _, err := c.Call(context.Background(), "echo", []byte(`{}`))
	if !errors.Is(err, adapter.ErrGaveUp) {
		t.Fatalf("fourth call: %v, want ErrGaveUp", err)
	}
	if want := "(the last: " + f.Msg + ")"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %q, want it to end %q", err, want)
	}
	if got := c.GaveUpErr(); got == nil || got.Error() != err.Error() {
		t.Errorf("GaveUpErr() = %v, want %v", got, err)
	}
}
