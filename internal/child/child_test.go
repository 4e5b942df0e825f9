package child

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/refereehq/referee/internal/transcript"
)

// The test binary stands in for the child: envChild names what it does.
const envChild = "REFEREE_TEST_CHILD"

func TestMain(m *testing.M) {
	what := os.Getenv(envChild)
	if what == "" {
		os.Exit(m.Run())
	}
	os.Exit(runChild(what))
}

// runChild is the child's side; it returns the exit status.
func runChild(what string) int {
	switch what {
	case "echo":
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(nil, 8<<20)
		for in.Scan() {
			fmt.Fprintf(os.Stderr, "got %s\n", in.Text())
			fmt.Printf("%s\r\n", in.Text())
		}
	case "echo-twice":
		// Each line comes back twice, in two writes.
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Printf("%s\n", in.Text())
			os.Stdout.Sync()
			fmt.Printf("%s again\n", in.Text())
		}
	case "echo-later":
		// Each line comes back, and a while later a line nobody asked for.
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Printf("%s\n", in.Text())
			time.Sleep(20 * time.Millisecond)
			fmt.Printf("later\n")
		}
	case "long":
		fmt.Println(strings.Repeat("x", 1000))
		fmt.Println(strings.Repeat("y", 5000))
		time.Sleep(time.Hour) // killed for the long line
	case "exit3":
		fmt.Fprintln(os.Stderr, "giving up")
		return 3
	case "partial":
		fmt.Print("no newline")
	case "stderr-flood":
		for range 4000 {
			fmt.Fprintln(os.Stderr, strings.Repeat("e", 79))
		}
		fmt.Fprintln(os.Stderr, "last")
	case "stubborn":
		ignoreTerm()
		fmt.Fprintln(os.Stderr, "ignoring SIGTERM")
		fmt.Println("ready") // after the stderr line: a test can wait for both
		io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "stdin closed; staying")
		time.Sleep(time.Hour)
	case "sleeper":
		time.Sleep(time.Hour)
	case "jitter-echo":
		return jitterEcho()
	default:
		return runChildOS(what)
	}
	return 0
}

// ignoreTerm makes the child deaf to SIGTERM, so only a kill stops it.
func ignoreTerm() { signal.Ignore(syscall.SIGTERM) }

func child(what string) Config {
	// Under -race a child exiting 0 would sleep a second first.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return Config{Argv: []string{os.Args[0]}, Env: append(os.Environ(), envChild+"="+what, "GORACE="+gorace)}
}

// lines collects what Config.Stdout receives.
type lines struct {
	mu   sync.Mutex
	got  []string
	last error
	end  []byte
}

func (l *lines) stdout(line []byte, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.last, l.end = err, line
		return
	}
	l.got = append(l.got, string(line))
}

func start(t *testing.T, cfg Config) *Process {
	t.Helper()
	p := New(cfg)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), 0) })
	return p
}

func TestReadLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
		err  error
	}{
		{"abc\n", 3, "abc", nil},
		{"abc\r\nnext\n", 4, "abc", nil},
		{"\n", 3, "", nil},
		{"abcd\n", 3, "abcd\n", ErrLineTooLong},
		{"abc", 3, "abc", io.EOF},
		{"", 3, "", io.EOF},
		{strings.Repeat("z", 100) + "\n", 20, strings.Repeat("z", 32), ErrLineTooLong},
		{strings.Repeat("z", 40) + "\n", 40, strings.Repeat("z", 40), nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.12q/%d", tt.in, tt.max), func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			got, err := ReadLine(br, tt.max)
			if !errors.Is(err, tt.err) || string(got) != tt.want {
				t.Errorf("ReadLine = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
			if len(got) > tt.max+16 {
				t.Errorf("read %d bytes of a line capped at %d", len(got), tt.max)
			}
		})
	}
}

// script is a reader that returns its steps in turn: some bytes, or an error.
type script []any

func (s *script) Read(b []byte) (int, error) {
	if len(*s) == 0 {
		return 0, io.EOF
	}
	if err, ok := (*s)[0].(error); ok {
		*s = (*s)[1:]
		return 0, err
	}
	text := (*s)[0].(string)
	n := copy(b, text)
	if n < len(text) {
		(*s)[0] = text[n:]
	} else {
		*s = (*s)[1:]
	}
	return n, nil
}

// TestAppendLineGoesOn: a line cut short by an error (a read deadline)
// comes back whole from the next call, which is handed its start.
func TestAppendLineGoesOn(t *testing.T) {
	in := &script{"ab", os.ErrDeadlineExceeded, "c", os.ErrDeadlineExceeded, "d\r\nnext\n"}
	br := bufio.NewReaderSize(in, 16)
	var line []byte
	var err error
	for range 2 {
		line, err = appendLine(line, br, 10)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("appendLine = %q, %v; want the start of the line and the deadline", line, err)
		}
	}
	if line, err = appendLine(line, br, 10); string(line) != "abcd" || err != nil {
		t.Errorf("appendLine = %q, %v; want \"abcd\"", line, err)
	}
	if line, err = ReadLine(br, 10); string(line) != "next" || err != nil {
		t.Errorf("ReadLine = %q, %v; want \"next\"", line, err)
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"abc"}, "abc"},
		{[]string{"abc", "defg"}, "defg"},
		{[]string{"abcdefgh"}, "efgh"},
	}
	for _, tt := range tests {
		tl := NewTail(4)
		for _, w := range tt.writes {
			tl.Write([]byte(w))
		}
		if got := tl.String(); got != tt.want {
			t.Errorf("%q: tail %q, want %q", tt.writes, got, tt.want)
		}
	}
}

func TestChunkerBoundsChunks(t *testing.T) {
	long := strings.Repeat("x", 2*chunkSize+100)
	tests := []struct {
		name  string
		in    string
		piece int // the stream comes in pieces of this size
		want  []string
	}{
		{"lines", "a\nbc\n\nd", 3, []string{"a\n", "bc\n", "\n", "d"}},
		{"one-piece", "a\nbc\n", 100, []string{"a\n", "bc\n"}},
		{"bytes", "ab\nc\n", 1, []string{"ab\n", "c\n"}},
		{"long", long + "\nshort\n", 1000, []string{long[:chunkSize], long[chunkSize : 2*chunkSize], long[2*chunkSize:] + "\n", "short\n"}},
		{"long-whole", long + "\nshort\n", len(long) + 7, []string{long[:chunkSize], long[chunkSize : 2*chunkSize], long[2*chunkSize:] + "\n", "short\n"}},
		{"exact", long[:chunkSize] + "\n", 7, []string{long[:chunkSize], "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			sink := func(c []byte) { got = append(got, string(c)) }
			var c chunker
			for in := tt.in; len(in) > 0; {
				k := min(len(in), tt.piece)
				c.feed([]byte(in[:k]), sink)
				in = in[k:]
			}
			c.flush(sink)
			if !slices.Equal(got, tt.want) {
				t.Errorf("chunks %.40q, want %.40q", got, tt.want)
			}
		})
	}
}

// TestExit runs children that end in different ways and checks what the
// Process says of each.
func TestExit(t *testing.T) {
	tests := []struct {
		what    string
		status  string
		code    int
		lines   []string
		end     error  // how stdout ended
		endLine string // the unterminated or over-long line
		trace   string // a record the trace must hold
	}{
		{"exit3", "exited with status 3", 3, nil, io.EOF, "", "## child exited with status 3"},
		{"partial", "exited with status 0", 0, nil, io.EOF, "no newline", "## child exited with status 0 in the middle of a stdout line"},
		{"long", "ended: signal: killed", -1, []string{strings.Repeat("x", 1000)}, ErrLineTooLong, "yyyy", "<- yyyy"},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			t.Parallel()
			var l lines
			var trace bytes.Buffer
			cfg := child(tt.what)
			cfg.MaxLine, cfg.Stdout, cfg.Trace = 1000, l.stdout, transcript.New(&trace)
			p := start(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := p.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			status, code := p.ExitStatus()
			if status != tt.status || code != tt.code {
				t.Errorf("exit %q, %d; want %q, %d", status, code, tt.status, tt.code)
			}
			if fmt.Sprint(l.got) != fmt.Sprint(tt.lines) {
				t.Errorf("lines %.40q, want %.40q", l.got, tt.lines)
			}
			if !errors.Is(l.last, tt.end) || !strings.HasPrefix(string(l.end), tt.endLine) {
				t.Errorf("stdout ended with %v and %.20q, want %v and %q", l.last, l.end, tt.end, tt.endLine)
			}
			if tt.end == ErrLineTooLong && len(l.end) > cfg.MaxLine+chunkSize {
				t.Errorf("an over-long line of %d bytes was read with a cap of %d", len(l.end), cfg.MaxLine)
			}
			if !strings.Contains(trace.String(), tt.trace) {
				t.Errorf("trace lacks %q:\n%.2000s", tt.trace, trace.String())
			}
		})
	}
}

func TestEchoAndStderr(t *testing.T) {
	var l lines
	var live, trace bytes.Buffer // plain buffers: Stop must leave no writer running
	cfg := child("echo")
	cfg.Name, cfg.Stdout, cfg.Stderr, cfg.Trace = "adapter", l.stdout, &live, transcript.New(&trace)
	p := start(t, cfg)
	if _, err := io.WriteString(p.Stdin(), "one\ntwo\n"); err != nil {
		t.Fatal(err)
	}
	killed, err := p.Stop(context.Background(), 10*time.Second)
	if killed || err != nil {
		t.Fatalf("Stop = %v, %v", killed, err)
	}
	if fmt.Sprint(l.got) != "[one two]" || l.last != io.EOF {
		t.Errorf("lines %q ended by %v", l.got, l.last)
	}
	if live.String() != "got one\ngot two\n" || p.Stderr() != live.String() {
		t.Errorf("live stderr %q, tail %q", live.String(), p.Stderr())
	}
	for _, want := range []string{"## started [", "<- one", "!! got two", "## adapter exited with status 0"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("trace lacks %q:\n%s", want, trace.String())
		}
	}
}

// TestStopWaitsForStderr: once Stop returns, the stderr copier has written
// its last byte (run with -race: the buffer is not locked).
func TestStopWaitsForStderr(t *testing.T) {
	tests := []struct {
		what  string
		grace time.Duration
	}{
		{"stderr-flood", 10 * time.Second},
		{"exit3", 10 * time.Second},
		{"stubborn", 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			t.Parallel()
			var live bytes.Buffer
			cfg := child(tt.what)
			cfg.Stderr = &live
			ready := make(chan struct{})
			var once sync.Once
			cfg.Stdout = func(line []byte, err error) {
				if err == nil && string(line) == "ready" {
					once.Do(func() { close(ready) })
				}
			}
			p := start(t, cfg)
			switch tt.what {
			case "stderr-flood":
				// Let it write everything first, so the tail is full.
				<-p.Exited()
			case "stubborn":
				// It is killed after the grace: wait until it has written a
				// stderr line, so there is one the copier must have copied
				// when Stop returns, however slow its start.
				<-ready
			}
			if _, err := p.Stop(context.Background(), tt.grace); err != nil {
				t.Fatal(err)
			}
			got := live.String()
			if !strings.HasSuffix(got, "\n") || p.Stderr() != got[max(0, len(got)-TailSize):] {
				t.Errorf("live copy of %d bytes ends %q; tail of %d bytes ends %q", len(got), got[max(0, len(got)-20):], len(p.Stderr()), p.Stderr()[max(0, len(p.Stderr())-20):])
			}
			if tt.what == "stderr-flood" && (len(p.Stderr()) != TailSize || !strings.HasSuffix(p.Stderr(), "\nlast\n")) {
				t.Errorf("tail of %d bytes ends %q", len(p.Stderr()), p.Stderr()[max(0, len(p.Stderr())-20):])
			}
		})
	}
}

func TestStopKillsAfterGrace(t *testing.T) {
	t.Parallel()
	var trace bytes.Buffer
	cfg := child("stubborn")
	cfg.Name, cfg.Trace = "provider", transcript.New(&trace)
	p := start(t, cfg)
	const grace = 200 * time.Millisecond
	begin := time.Now()
	killed, err := p.Stop(context.Background(), grace)
	if !killed || err != nil {
		t.Fatalf("Stop = %v, %v; want killed", killed, err)
	}
	if d := time.Since(begin); d < grace || d > grace+5*time.Second {
		t.Errorf("Stop took %s with a grace of %s", d, grace)
	}
	if status, _ := p.ExitStatus(); status != "ended: signal: killed" {
		t.Errorf("status %q", status)
	}
	if want := "## provider still running 200ms after stdin closed: killing it"; !strings.Contains(trace.String(), want) {
		t.Errorf("trace lacks %q:\n%s", want, trace.String())
	}
}

func TestStopWhenContextEnds(t *testing.T) {
	p := start(t, child("stubborn"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	killed, err := p.Stop(ctx, time.Hour)
	if killed || !errors.Is(err, context.Canceled) {
		t.Fatalf("Stop = %v, %v; want context.Canceled", killed, err)
	}
	select {
	case <-p.Done():
	default:
		t.Error("Stop returned before Done")
	}
}

func TestWaitWhenContextEnds(t *testing.T) {
	p := start(t, child("sleeper"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v; want context.Canceled", err)
	}
}

func TestStartFailures(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		step string
	}{
		{"no-argv", nil, "cannot start"},
		{"no-such-program", []string{"/nonexistent/program"}, `cannot start "/nonexistent/program"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Config{Argv: tt.argv})
			err := p.Start()
			var se *StartError
			if !errors.As(err, &se) || se.Step != tt.step {
				t.Fatalf("Start = %v; want a StartError at %q", err, tt.step)
			}
			p.Kill() // no-ops on a process never started
			if killed, err := p.Stop(context.Background(), time.Second); killed || err != nil {
				t.Errorf("Stop of a process never started = %v, %v", killed, err)
			}
		})
	}
}

// TestWriteStdin: a write to a child that reads returns once written; one
// to a child that has stopped reading ends at the deadline or when its
// context ends, whichever comes first, with the matching error.
func TestWriteStdin(t *testing.T) {
	t.Parallel()
	big := []byte(strings.Repeat("x", 4<<20) + "\n") // far more than a pipe holds
	background := func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }
	short := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 100*time.Millisecond)
	}
	cancelled := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		return ctx, cancel
	}
	tests := []struct {
		name     string
		what     string
		ctx      func() (context.Context, context.CancelFunc)
		deadline time.Duration // from now; 0: none
		want     error
	}{
		{"reads", "echo", background, 10 * time.Second, nil},
		{"deadline", "sleeper", background, 100 * time.Millisecond, os.ErrDeadlineExceeded},
		{"context-deadline-first", "sleeper", short, time.Hour, context.DeadlineExceeded},
		{"cancelled", "sleeper", cancelled, 0, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var l lines
			cfg := child(tt.what)
			cfg.Stdout = l.stdout
			p := start(t, cfg)
			ctx, cancel := tt.ctx()
			defer cancel()
			var deadline time.Time
			if tt.deadline > 0 {
				deadline = time.Now().Add(tt.deadline)
			}
			begin := time.Now()
			err := p.WriteStdin(ctx, deadline, big)
			if !errors.Is(err, tt.want) {
				t.Fatalf("WriteStdin = %v, want %v", err, tt.want)
			}
			if d := time.Since(begin); tt.want != nil && (d < 90*time.Millisecond || d > 5*time.Second) {
				t.Errorf("a blocked write ended after %s, want about 100ms", d)
			}
			if tt.want != nil {
				return
			}
			// Small writes after a big one keep their order.
			for _, s := range []string{"one\n", "two\n"} {
				if err := p.WriteStdin(context.Background(), time.Time{}, []byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			p.Stop(context.Background(), 10*time.Second)
			if len(l.got) != 3 || len(l.got[0]) != len(big)-1 || l.got[1] != "one" || l.got[2] != "two" {
				t.Errorf("the child echoed %d lines, want the big one, one, two", len(l.got))
			}
		})
	}
}

// TestWriteStdinDeadlineEnds: a write that waited for room in the pipe
// with a deadline leaves no deadline behind: once that deadline has
// passed, writes that fit in the pipe still succeed.
func TestWriteStdinDeadlineEnds(t *testing.T) {
	t.Parallel()
	var l lines
	cfg := child("echo")
	cfg.Stdout = l.stdout
	p := start(t, cfg)
	deadline := time.Now().Add(300 * time.Millisecond)
	big := []byte(strings.Repeat("x", 1<<20) + "\n") // more than a pipe holds
	if err := p.WriteStdin(context.Background(), deadline, big); err != nil {
		t.Fatalf("a write the child reads in time: %v", err)
	}
	// Write small lines until well past that deadline.
	for i := 0; time.Now().Before(deadline.Add(200 * time.Millisecond)); i++ {
		if err := p.WriteStdin(context.Background(), time.Time{}, []byte("small\n")); err != nil {
			t.Fatalf("small write %d, %s after an earlier write's deadline: %v", i, time.Since(deadline).Round(time.Millisecond), err)
		}
		<-time.After(5 * time.Millisecond)
	}
}

// onDemand starts what in on-demand reading: Waiting reports whether lines
// are awaited (want, which each line counts down), and each line goes to
// the returned channel with whether a ReadStdout caller read it.
func onDemand(t *testing.T, what string, idle time.Duration, want *atomic.Int32) (*Process, <-chan string) {
	t.Helper()
	got := make(chan string, 16)
	cfg := child(what)
	cfg.idleWait = idle
	var p *Process
	cfg.Stdout = func(line []byte, err error) {
		if err == nil {
			want.Add(-1)
			by := "goroutine"
			if p.out.leading.Load() {
				by = "caller"
			}
			got <- by + ": " + string(line)
		}
	}
	cfg.Waiting = func() bool { return want.Load() > 0 }
	p = New(cfg)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), 0) })
	return p, got
}

// next returns the next line from got, failing t after 10s.
func next(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case l := <-got:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line in 10s")
		return ""
	}
}

// settle waits until the Process's reading goroutine has let go of stdout.
func settle(p *Process) {
	for !p.out.parked.Load() {
		runtime.Gosched()
	}
}

// TestReadStdoutOnDemand: with Config.Waiting, a caller reads stdout on its
// own goroutine while no other does; the Process's goroutine reads what a
// caller does not, lines nobody waits for included; InterruptRead ends a
// caller's blocked read.
func TestReadStdoutOnDemand(t *testing.T) {
	t.Run("caller-reads", func(t *testing.T) {
		var want atomic.Int32
		p, got := onDemand(t, "echo", time.Hour, &want)
		// The Process's goroutine reads until a first line has come.
		want.Store(1)
		p.WriteStdin(context.Background(), time.Time{}, []byte("zero\n"))
		if l := next(t, got); l != "goroutine: zero" {
			t.Fatalf("got %q", l)
		}
		for _, word := range []string{"one", "two"} {
			settle(p)
			want.Store(1)
			p.WriteStdin(context.Background(), time.Time{}, []byte(word+"\n"))
			if !p.ReadStdout(func() bool { return want.Load() == 0 }) {
				t.Fatal("ReadStdout read nothing, with no one else reading")
			}
			if l := next(t, got); l != "caller: "+word {
				t.Fatalf("got %q, want the caller to read %q", l, word)
			}
		}
	})
	t.Run("unawaited-lines", func(t *testing.T) {
		var want atomic.Int32
		p, got := onDemand(t, "echo-twice", 0, &want)
		for _, word := range []string{"one", "two"} {
			want.Store(1)
			p.WriteStdin(context.Background(), time.Time{}, []byte(word+"\n"))
			p.ReadStdout(func() bool { return want.Load() <= 0 })
			for _, w := range []string{word, word + " again"} {
				if l := next(t, got); !strings.HasSuffix(l, ": "+w) {
					t.Fatalf("got %q, want %q", l, w)
				}
			}
		}
	})
	t.Run("line-between-calls", func(t *testing.T) {
		var want atomic.Int32
		p, got := onDemand(t, "echo-later", 0, &want)
		for _, word := range []string{"one", "two"} {
			want.Store(1)
			p.WriteStdin(context.Background(), time.Time{}, []byte(word+"\n"))
			p.ReadStdout(func() bool { return want.Load() <= 0 })
			if l := next(t, got); !strings.HasSuffix(l, ": "+word) {
				t.Fatalf("got %q, want %q", l, word)
			}
			// No one reads or waits now: the Process's goroutine reads it.
			if l := next(t, got); l != "goroutine: later" {
				t.Fatalf("got %q, want the goroutine to read a line between calls", l)
			}
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		var want atomic.Int32
		p, got := onDemand(t, "echo", time.Hour, &want)
		p.WriteStdin(context.Background(), time.Time{}, []byte("x\n"))
		next(t, got)
		settle(p)
		var stop atomic.Bool
		ended := make(chan bool)
		go func() { ended <- p.ReadStdout(stop.Load) }()
		for !p.out.leading.Load() {
			runtime.Gosched()
		}
		stop.Store(true)
		p.InterruptRead()
		select {
		case read := <-ended:
			if !read {
				t.Error("ReadStdout read nothing")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("an interrupted read did not end")
		}
	})
}

// A Go test binary that has not said it stands in for referee is never
// started as referee: it would run its tests again, and they it, without
// end (a cli test once left 312 such processes behind).
func TestSelfPathRefusesATestBinary(t *testing.T) {
	_, err := SelfPath()
	if err == nil || !strings.Contains(err.Error(), "child.StandIn") {
		t.Fatalf("SelfPath from a test binary: err %v, want a refusal naming child.StandIn", err)
	}
	StandIn = true
	defer func() { StandIn = false }()
	p, err := SelfPath()
	if err != nil || !isTestBinary(p) {
		t.Fatalf("SelfPath with StandIn: %q, %v; want this test binary", p, err)
	}
}
