package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/adapter/adaptertest"
)

func TestMain(m *testing.M) {
	adaptertest.MaybeRunFake()
	os.Exit(m.Run())
}

func dial(t *testing.T, cfg adapter.ProcessConfig, opts adapter.Options) *adapter.Client {
	t.Helper()
	start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
	c, err := adapter.Dial(context.Background(), start, "test", opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestProcessGood(t *testing.T) {
	var trace lockedBuffer
	cfg := adaptertest.Process(t, adaptertest.Good)
	cfg.Trace = adapter.NewTrace(&trace)
	c := dial(t, cfg, adapter.Options{})
	if h := c.Hello(); h.Name != "fake-good" || !h.Offers("echo") || h.Offers("nope") || h.Concurrency != 1 {
		t.Fatalf("hello = %+v", h)
	}
	r, ex, err := c.Call(context.Background(), "echo", []byte(`{ "n" : 1.50, "s":"\u00e9" }`))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.OK.String(); got != `{"n":1.50,"s":"é"}` {
		t.Errorf("ok = %s (lexemes must survive the trip)", got)
	}
	if want := `{"id":1,"op":"echo","args":{"n":1.50,"s":"\u00e9"}}`; string(ex.Request) != want {
		t.Errorf("request line = %s, want %s", ex.Request, want)
	}
	if want := `{"id":1,"ok":{"n":1.50,"s":"\u00e9"}}`; string(ex.Reply) != want {
		t.Errorf("reply line = %s, want %s", ex.Reply, want)
	}
	r, _, err = c.Call(context.Background(), "fail", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err == nil || r.Err.Code != "nope" || r.Err.Message != "fails on purpose" {
		t.Fatalf("err reply = %+v", r.Err)
	}
	if v, ok := r.Err.Member("extra"); !ok || v.String() != "[1,2]" {
		t.Errorf("err member extra = %v, %v", v, ok)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Stderr(), "fake: got fail") {
		t.Errorf("stderr tail = %q", c.Stderr())
	}
	for _, want := range []string{`-> {"id":0,"op":"hello","args":{"protocol":"referee-adapter/1","suite":"test"}}`, `<- {"id":1,"ok":`, `!! fake: got echo`, `## adapter exited with status 0`} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("trace lacks %q:\n%s", want, trace.String())
		}
	}
}

func TestProcessFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode string
		kind adapter.FaultKind
		line string // part of the offending line kept as evidence
	}{
		{adaptertest.Hang, adapter.FaultTimeout, "the per-call timeout"},
		{adaptertest.CrashMidReply, adapter.FaultExit, `{"id":`},
		{adaptertest.Garbage, adapter.FaultBadLine, "this is not json"},
		{adaptertest.Noise, adapter.FaultBadLine, "debug: handling echo"},
		{adaptertest.HugeLine, adapter.FaultTooLong, `"ok":"xxxxxxxx`},
		{adaptertest.WrongID, adapter.FaultUnknownID, `{"id":10`},
		{adaptertest.Neither, adapter.FaultBadLine, `}`},
		{adaptertest.DuplicateOK, adapter.FaultBadLine, `"ok":2`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			timeout := 20 * time.Second // generous: a 17 MiB line under -race is slow
			if tt.kind == adapter.FaultTimeout {
				timeout = time.Second
			}
			c := dial(t, adaptertest.Process(t, tt.mode), adapter.Options{Timeout: timeout})
			start := time.Now()
			for i := 1; i <= 3; i++ {
				_, ex, err := c.Call(context.Background(), "echo", []byte(`{"n":1}`))
				var f *adapter.Fault
				if !errors.As(err, &f) {
					t.Fatalf("call %d: err = %v, want a fault", i, err)
				}
				if f.Kind != tt.kind {
					t.Fatalf("call %d: fault %s (%v), want %s", i, f.Kind, f, tt.kind)
				}
				if tt.kind != adapter.FaultTimeout && !strings.Contains(string(f.Line), tt.line) {
					t.Errorf("call %d: offending line %.80q lacks %q", i, f.Line, tt.line)
				}
				if len(f.Line) > 4096 {
					t.Errorf("call %d: the fault keeps %d bytes of the line, more than 4 KiB", i, len(f.Line))
				}
				if ex == nil || !strings.Contains(string(ex.Request), `"op":"echo"`) {
					t.Errorf("call %d: exchange %+v lacks the request", i, ex)
				}
			}
			if !c.GaveUp() {
				t.Fatal("client did not give up after 3 faults in a row")
			}
			if c.Restarts() != 2 {
				t.Errorf("restarts = %d, want 2 (hello replayed each time)", c.Restarts())
			}
			if _, _, err := c.Call(context.Background(), "echo", nil); !errors.Is(err, adapter.ErrGaveUp) {
				t.Errorf("call after giving up: %v, want ErrGaveUp", err)
			}
			if d := time.Since(start); tt.kind == adapter.FaultTimeout && d > 10*time.Second {
				t.Errorf("three 1s timeouts took %s", d)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for the trace's writers and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRestartReplaysHello(t *testing.T) {
	t.Parallel()
	var trace lockedBuffer
	cfg := adaptertest.Process(t, adaptertest.CrashOnce)
	cfg.Trace = adapter.NewTrace(&trace)
	c := dial(t, cfg, adapter.Options{})
	if _, _, err := c.Call(context.Background(), "echo", []byte(`{}`)); !adapter.IsFault(err) {
		t.Fatalf("first call: %v, want a fault", err)
	}
	if !strings.Contains(c.Stderr(), "crashing on purpose") {
		t.Errorf("stderr of the crashed adapter = %q", c.Stderr())
	}
	r, _, err := c.Call(context.Background(), "echo", []byte(`{"again":true}`))
	if err != nil {
		t.Fatalf("call after restart: %v", err)
	}
	if r.OK.String() != `{"again":true}` {
		t.Errorf("ok = %s", r.OK.String())
	}
	if c.Restarts() != 1 || c.GaveUp() {
		t.Errorf("restarts = %d, gave up = %v", c.Restarts(), c.GaveUp())
	}
	if n := strings.Count(trace.String(), `"op":"hello"`); n != 2 {
		t.Errorf("hello sent %d times, want 2:\n%s", n, trace.String())
	}
}

func TestStartFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cfg    adapter.ProcessConfig
		kind   adapter.FaultKind
		stderr string
	}{
		{"exit-before-hello", adaptertest.Process(t, adaptertest.ExitBeforeHello), adapter.FaultHello, "boom"},
		{"banner", adaptertest.Process(t, adaptertest.Banner), adapter.FaultHello, ""},
		{"no-such-program", adapter.ProcessConfig{Argv: []string{"/nonexistent/adapter"}}, adapter.FaultStart, ""},
		{"no-argv", adapter.ProcessConfig{}, adapter.FaultStart, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(tt.cfg) }
			_, err := adapter.Dial(context.Background(), start, "test", adapter.Options{Timeout: 5 * time.Second})
			var f *adapter.Fault
			if !errors.As(err, &f) || f.Kind != tt.kind {
				t.Fatalf("Dial error = %v, want a %s fault", err, tt.kind)
			}
			var se *adapter.StartError
			if tt.stderr != "" && (!errors.As(err, &se) || !strings.Contains(se.Stderr, tt.stderr)) {
				t.Errorf("start error %v carries no stderr %q", err, tt.stderr)
			}
		})
	}
}

func TestCloseKillsStubbornAdapter(t *testing.T) {
	t.Parallel()
	cfg := adaptertest.Process(t, adaptertest.Stubborn)
	cfg.Grace = 300 * time.Millisecond
	p, err := adapter.StartProcess(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Call(context.Background(), 0, "hello", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Close took %s with a 300ms grace", d)
	}
}

// TestCloseWaitsForStderrCopy: once Close returns, the live copy of the
// adapter's stderr is complete and no longer written (run with -race: the
// buffers are not locked).
func TestCloseWaitsForStderrCopy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode  string
		grace time.Duration
		want  string
	}{
		{adaptertest.Good, 0, "fake: got echo\n"},
		{adaptertest.Stubborn, 100 * time.Millisecond, "fake: got echo\n"},
		{adaptertest.CrashOnce, 0, "fake: crashing on purpose\n"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			var live, trace bytes.Buffer
			cfg := adaptertest.Process(t, tt.mode)
			cfg.Grace, cfg.Stderr, cfg.Trace = tt.grace, &live, adapter.NewTrace(&trace)
			p, err := adapter.StartProcess(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p.Call(context.Background(), 1, "echo", []byte(`{}`))
			p.Close()
			if !strings.HasSuffix(live.String(), tt.want) || p.Stderr() != live.String() {
				t.Errorf("live stderr %q, tail %q; want one ending %q", live.String(), p.Stderr(), tt.want)
			}
			if !strings.Contains(trace.String(), "## adapter ") {
				t.Errorf("trace lacks the exit:\n%s", trace.String())
			}
		})
	}
}

func TestConcurrentRepliesMatchByID(t *testing.T) {
	c := dial(t, adaptertest.Process(t, adaptertest.Concurrent), adapter.Options{})
	if c.Hello().Concurrency != 4 {
		t.Fatalf("concurrency = %d", c.Hello().Concurrency)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []byte(`{"n":` + string(rune('0'+i)) + `}`)
			r, _, err := c.Call(context.Background(), "echo", args)
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			if r.OK.String() != string(args) {
				t.Errorf("call %d got %s", i, r.OK.String())
			}
		}()
	}
	wg.Wait()
}

func TestCancelIsNotAFault(t *testing.T) {
	t.Parallel()
	c := dial(t, adaptertest.Process(t, adaptertest.Hang), adapter.Options{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, _, err := c.Call(ctx, "echo", nil)
	if !errors.Is(err, context.Canceled) || adapter.IsFault(err) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRestartWithAnotherHelloIsAFault(t *testing.T) {
	c := dial(t, adaptertest.Process(t, adaptertest.NewHello), adapter.Options{})
	if _, _, err := c.Call(context.Background(), "echo", []byte(`{}`)); !adapter.IsFault(err) {
		t.Fatalf("first call: %v, want the crash", err)
	}
	_, _, err := c.Call(context.Background(), "echo", []byte(`{}`))
	var f *adapter.Fault
	if !errors.As(err, &f) || f.Kind != adapter.FaultHello || !strings.Contains(f.Msg, "differs from the first") {
		t.Fatalf("call after a restart with another hello: %v", err)
	}
}

// TestBlockedWriteTimesOut sends a request far larger than a pipe's buffer
// to an adapter that has stopped reading: the call must end at its timeout.
func TestBlockedWriteTimesOut(t *testing.T) {
	t.Parallel()
	c := dial(t, adaptertest.Process(t, adaptertest.NoRead), adapter.Options{Timeout: 500 * time.Millisecond})
	big := []byte(`{"pad":"` + strings.Repeat("x", 4<<20) + `"}`)
	start := time.Now()
	_, _, err := c.Call(context.Background(), "echo", big)
	var f *adapter.Fault
	if !errors.As(err, &f) || f.Kind != adapter.FaultTimeout {
		t.Fatalf("err = %v, want a timeout fault", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a blocked write took %s with a 500ms timeout", d)
	}
}

type blockingHandler struct{ echoHandler }

func (blockingHandler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	select {} // ignores ctx, as a broken implementation might
}

func TestInProcessTimeout(t *testing.T) {
	t.Parallel()
	c, err := adapter.Dial(context.Background(), adapter.InProcess(blockingHandler{}), "test", adapter.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = c.Call(context.Background(), "echo", nil)
	var f *adapter.Fault
	if !errors.As(err, &f) || f.Kind != adapter.FaultTimeout || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %s, want a timeout fault at 200ms", err, time.Since(start))
	}
}

// signalBuffer is a lockedBuffer that closes seen once it is written a
// record holding want.
type signalBuffer struct {
	lockedBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func (s *signalBuffer) Write(p []byte) (int, error) {
	n, err := s.lockedBuffer.Write(p)
	if bytes.Contains(p, []byte(s.want)) {
		s.once.Do(func() { close(s.seen) })
	}
	return n, err
}

// TestStalledWriteLosesNoLine: the call writing a batch of request lines
// hits its deadline, the adapter having stopped reading; the lines other
// calls queued behind it were never written. Those calls end with the
// connection, not sent (so a Client sends them again on a new one), with
// no request in their exchange, and the trace records as sent ("->") only
// the line that was written, and names the others as not written.
func TestStalledWriteLosesNoLine(t *testing.T) {
	t.Parallel()
	trace := &signalBuffer{want: ` -> {"id":1,`, seen: make(chan struct{})}
	cfg := adaptertest.Process(t, adaptertest.NoRead)
	cfg.Trace = adapter.NewTrace(trace)
	p, err := adapter.StartProcess(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	call := func(timeout time.Duration, id int64, args []byte) (*adapter.Exchange, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, ex, err := p.Call(ctx, id, "echo", args)
		return ex, err
	}
	hctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := p.Call(hctx, 0, "hello", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	// Call 1 writes 4 MiB to an adapter that reads no more: it blocks
	// until its deadline, and calls 2 and 3 queue their lines behind it.
	big := []byte(`{"pad":"` + strings.Repeat("x", 4<<20) + `"}`)
	first := make(chan error, 1)
	go func() { _, err := call(2*time.Second, 1, big); first <- err }()
	<-trace.seen
	type result struct {
		ex  *adapter.Exchange
		err error
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, err := call(time.Minute, int64(i+2), []byte(`{"n":1}`))
			results[i] = result{ex, err}
		}()
	}
	var f *adapter.Fault
	if err := <-first; !errors.As(err, &f) || f.Kind != adapter.FaultTimeout {
		t.Fatalf("call 1: %v, want a timeout", err)
	}
	wg.Wait()
	for i, r := range results {
		if !adapter.IsFault(r.err) || r.ex == nil || r.ex.Request != nil {
			t.Errorf("call %d, queued and never written: %v, exchange %+v; want a fault and no request sent", i+2, r.err, r.ex)
		}
		if !strings.Contains(r.err.Error(), "not sent") {
			t.Errorf("call %d: %v, want it marked not sent", i+2, r.err)
		}
	}
	text := trace.String()
	for _, id := range []string{"2", "3"} {
		if strings.Contains(text, ` -> {"id":`+id+`,`) {
			t.Errorf("the trace shows request %s as sent, which was never written:\n%.2000s", id, text)
		}
	}
	if !strings.Contains(text, "not written") {
		t.Errorf("the trace does not say which requests were not written:\n%.2000s", text)
	}
}
