// Package child runs a program as a child process in a process group of its
// own, reads its stdout as bounded lines, keeps the tail of its stderr and
// stops it gracefully, waiting for every goroutine it started.
package child

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/refereehq/referee/internal/transcript"
)

// DefaultMaxLine is the longest stdout line accepted when Config.MaxLine is 0.
const DefaultMaxLine = 16 << 20

// TailSize is how many bytes of the child's stderr a Process keeps.
const TailSize = 64 << 10

// drainWait bounds how long a Process waits for the child's stdout and
// stderr to close once the child has exited: a grandchild may hold them.
const drainWait = 500 * time.Millisecond

// settleWait bounds how long Stderr waits for the stderr copier to take in
// what the pipe held when it was called.
const settleWait = 250 * time.Millisecond

// MaxKept is how much of an over-long stdout line the trace keeps (and
// what callers keep of it as evidence).
const MaxKept = 4096

// Config says which program to start and what to do with its output.
type Config struct {
	Argv    []string // program and arguments, started without a shell
	Dir     string   // working directory; "" inherits referee's
	Env     []string // environment; nil inherits referee's
	Name    string   // what the trace calls the child ("adapter", "provider"); "" means "child"
	MaxLine int      // the longest stdout line accepted, without its newline; 0 means DefaultMaxLine
	// Stdout receives each complete stdout line (without its newline or
	// CRLF) with a nil error, then once, last, a non-nil error:
	// ErrLineTooLong with the start of a line over MaxLine (the process group
	// is then killed and the rest of stdout discarded), or what ended stdout
	// (io.EOF; os.ErrClosed if a grandchild held it past the exit) with the
	// unterminated last line, if any. It is called by one goroutine at a
	// time (with Waiting set, by whichever is reading) and must return
	// promptly once Stop is called.
	Stdout func(line []byte, err error)
	// Waiting, if set, reports whether a caller waits for stdout lines, and
	// stdout is then read on demand: by ReadStdout's caller, while it waits
	// for a line, when no other goroutine is reading; by the Process's own
	// goroutine while Waiting reports true, or once no one has read for a
	// moment (so lines between calls are still read as they come). If nil,
	// the Process's goroutine reads stdout continuously.
	Waiting func() bool
	Stderr  io.Writer         // if set, receives a live copy of stderr
	Trace   *transcript.Trace // if set, records the start, stdout lines, stderr and the exit

	idleWait time.Duration     // tests: how long stdout may go unread; 0 is idleWait
	pause    func()            // tests: called at each hand-over point of on-demand reading
	errHook  func(step string) // tests: called before each read of stderr ("read") and when Stderr waits ("settle")
}

// Process is one child process: New, then Start, then Stop (or Wait).
type Process struct {
	cfg    Config
	cmd    *exec.Cmd
	stdin  *os.File // the write end, ours alone
	stdout *os.File // read ends, ours alone: exec's Wait never closes them under a reader
	stderr *os.File
	tail   *Tail

	// raw is stdin's raw descriptor when it takes write deadlines (a pipe
	// in the runtime's poller); otherwise WriteStdin writes on a goroutine
	// of its own. writeMu keeps a write ahead of the next.
	raw     syscall.RawConn
	writeMu sync.Mutex
	rw      rawWrite // tryWrite's state, under writeMu

	exited     chan struct{} // closed once the process has been reaped
	done       chan struct{} // closed once every goroutine but wait has finished
	stdoutDone chan struct{}
	stderrDone chan struct{}

	out stdoutReader

	// errConn is stderr's raw connection where a read waits in the
	// runtime's poller (Linux), else nil. Under errMu a read takes what the
	// pipe holds and keeps it in the tail, in one step: Stderr, holding
	// errMu, then knows that what the pipe does not hold is in the tail.
	errConn  syscall.RawConn
	errMu    sync.Mutex
	errRead  int64         // bytes read from stderr
	errRound chan struct{} // closed, and replaced, after each read

	mu      sync.Mutex
	started bool
	status  string
	code    int
	midLine bool // stdout ended in the middle of a line
}

// StartError is a program that could not be started.
type StartError struct {
	Step string // what failed: `cannot start "prog"`, "stdout pipe"
	Err  error
}

func (e *StartError) Error() string { return e.Step + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// New returns a Process for cfg, not yet started.
func New(cfg Config) *Process {
	if cfg.Name == "" {
		cfg.Name = "child"
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = DefaultMaxLine
	}
	if cfg.Stdout == nil {
		cfg.Stdout = func([]byte, error) {}
	}
	return &Process{
		cfg:        cfg,
		tail:       NewTail(TailSize),
		exited:     make(chan struct{}),
		done:       make(chan struct{}),
		stdoutDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		code:       -1,
	}
}

// Start starts the program in a process group of its own; an error is a
// *StartError.
func (p *Process) Start() error {
	if len(p.cfg.Argv) == 0 {
		return &StartError{Step: "cannot start", Err: errors.New("no program given")}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return &StartError{Step: fmt.Sprintf("cannot start %q", p.cfg.Argv[0]), Err: errors.New("already started")}
	}
	cmd := exec.Command(p.cfg.Argv[0], p.cfg.Argv[1:]...)
	cmd.Dir, cmd.Env = p.cfg.Dir, p.cfg.Env
	setGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return &StartError{Step: "stdin pipe", Err: err}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return &StartError{Step: "stdout pipe", Err: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return &StartError{Step: "stderr pipe", Err: err}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close() // the child has its own copies now
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return &StartError{Step: fmt.Sprintf("cannot start %q", p.cfg.Argv[0]), Err: err}
	}
	p.cmd, p.stdin, p.stdout, p.stderr, p.started = cmd, inW, outR, errR, true
	if inW.SetWriteDeadline(time.Time{}) == nil {
		p.raw, _ = inW.SyscallConn()
	}
	p.errConn, p.errRound = stderrConn(errR), make(chan struct{})
	p.cfg.Trace.Event("started %q (pid %d)", p.cfg.Argv, cmd.Process.Pid)
	p.out.start(p)
	go p.readStdout()
	go p.copyStderr()
	go p.wait()
	return nil
}

// Stdin returns the writer to the child's stdin.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// WriteStdin writes b to the child's stdin and returns once it is written,
// ctx has ended (then with ctx's error) or deadline (if not zero) has
// passed (then with os.ErrDeadlineExceeded); when cut short, part of b may
// be written. Writes are serialised: one cut short finishes, or fails,
// before the next begins.
func (p *Process) WriteStdin(ctx context.Context, deadline time.Time, b []byte) error {
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	if p.raw == nil {
		return p.writeAside(ctx, deadline, b)
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	// Most writes fit in the pipe: one write(2), without arming a deadline.
	n, err := p.tryWrite(b)
	if err != nil || n == len(b) {
		return err
	}
	b = b[n:]
	p.stdin.SetWriteDeadline(deadline)
	// A cancellation cuts the write short too.
	cut := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		p.stdin.SetWriteDeadline(time.Unix(1, 0))
		close(cut)
	})
	_, err = p.stdin.Write(b)
	if !stop() {
		<-cut
	}
	// No deadline outlives its write: once passed, it would fail the next
	// writes, even those that fit in the pipe.
	p.stdin.SetWriteDeadline(time.Time{})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return p.expired(ctx)
	}
	return err
}

// writeAside is WriteStdin where stdin takes no deadlines: the write runs
// on a goroutine of its own, which a write cut short leaves to finish.
func (p *Process) writeAside(ctx context.Context, deadline time.Time, b []byte) error {
	written := make(chan error, 1)
	go func() {
		p.writeMu.Lock()
		defer p.writeMu.Unlock()
		_, err := p.stdin.Write(b)
		written <- err
	}()
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case err := <-written:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return p.expired(ctx)
	}
}

// expired is the error of a write whose deadline passed: ctx's error if
// the deadline was ctx's (or ctx was cancelled), else os.ErrDeadlineExceeded.
func (p *Process) expired(ctx context.Context) error {
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		<-ctx.Done() // it ends at its deadline, which has passed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return os.ErrDeadlineExceeded
}

// Stderr returns the last TailSize bytes the child wrote to stderr. On
// Linux it first waits, briefly (settleWait at most), until what stderr
// held when it was called has been read: a line the child wrote to stderr
// before its last stdout line is in the tail.
func (p *Process) Stderr() string {
	p.settleStderr()
	return p.tail.String()
}

// settleStderr waits, for at most settleWait, until the bytes the stderr
// pipe holds now have been read into the tail.
func (p *Process) settleStderr() {
	if p.errConn == nil {
		return
	}
	p.errMu.Lock()
	var n int
	var err error
	if cerr := p.errConn.Control(func(fd uintptr) { n, err = unread(fd) }); cerr != nil {
		err = cerr
	}
	want := p.errRead + int64(n)
	p.errMu.Unlock()
	if err != nil || n <= 0 {
		return
	}
	if p.cfg.errHook != nil {
		p.cfg.errHook("settle")
	}
	timer := time.NewTimer(settleWait)
	defer timer.Stop()
	for {
		p.errMu.Lock()
		read, round := p.errRead, p.errRound
		p.errMu.Unlock()
		if read >= want {
			return
		}
		select {
		case <-round:
		case <-p.stderrDone:
			return
		case <-timer.C:
			return
		}
	}
}

// Exited is closed once the process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Done is closed once the process has exited and its output has been read (or, shortly after the exit, abandoned to a grandchild holding it).
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitStatus says how the process ended ("exited with status 3") and its exit code (-1 if none); "" until Exited is closed.
func (p *Process) ExitStatus() (string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.code
}

// Kill kills the process and everything in its group (on Windows, the process alone); before Start it does nothing.
func (p *Process) Kill() {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd != nil {
		killGroup(cmd)
	}
}

// Wait waits until Done is closed or ctx ends.
func (p *Process) Wait(ctx context.Context) error {
	if !p.isStarted() {
		return errors.New("child: wait before start")
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s: %w", p.cfg.Name, ctx.Err())
	}
}

// Stop closes stdin, waits up to grace (or until ctx ends) for the exit, kills the group, and returns once Done is closed; killed says the grace ran out.
func (p *Process) Stop(ctx context.Context, grace time.Duration) (killed bool, err error) {
	if !p.isStarted() {
		return false, nil
	}
	p.stdin.Close()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		p.cfg.Trace.Event("%s still running %s after stdin closed: killing it", p.cfg.Name, grace)
		killed = true
	case <-ctx.Done():
		err = fmt.Errorf("stopping %s: %w", p.cfg.Name, ctx.Err())
	}
	killGroup(p.cmd)
	<-p.done
	return killed, err
}

func (p *Process) isStarted() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// copyStderr keeps the tail of stderr, and traces it and copies it live
// in chunks (a line, or at most chunkSize bytes of a longer one).
func (p *Process) copyStderr() {
	defer close(p.stderrDone)
	emit := func(chunk []byte) {
		p.cfg.Trace.Line("!!", bytes.TrimRight(chunk, "\n"))
		if p.cfg.Stderr != nil {
			p.cfg.Stderr.Write(chunk)
		}
	}
	var chunks chunker
	buf := make([]byte, chunkSize)
	for {
		if p.cfg.errHook != nil {
			p.cfg.errHook("read")
		}
		n, err := p.readStderr(buf)
		chunks.feed(buf[:n], emit)
		if err != nil {
			chunks.flush(emit)
			return
		}
	}
}

// errEmpty is readNow's news that the pipe holds nothing yet.
var errEmpty = errors.New("nothing to read yet")

// readStderr reads stderr into buf, waiting until it holds something, and
// keeps what it read in the tail.
func (p *Process) readStderr(buf []byte) (int, error) {
	if p.errConn == nil {
		n, err := p.stderr.Read(buf)
		p.tail.Write(buf[:n])
		return n, err
	}
	var n int
	var rerr error
	err := p.errConn.Read(func(fd uintptr) bool {
		p.errMu.Lock()
		defer p.errMu.Unlock()
		n, rerr = readNow(fd, buf)
		if rerr == errEmpty {
			return false // wait until it holds something
		}
		p.tail.Write(buf[:n])
		p.errRead += int64(n)
		close(p.errRound)
		p.errRound = make(chan struct{})
		return true
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, rerr
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// wait reaps the process, lets its output drain for a bounded time, stops
// reading what a grandchild still holds, and waits for both readers.
func (p *Process) wait() {
	err := p.cmd.Wait()
	status, code := exitStatus(err, p.cmd.ProcessState)
	p.mu.Lock()
	p.status, p.code = status, code
	p.mu.Unlock()
	close(p.exited)
	p.out.wakeUp() // to read what is left of stdout, if no one is

	p.drain(drainWait)
	p.stdin.Close() // nothing more can be sent
	// A grandchild may still hold the pipes: stop reading them.
	p.stdout.Close()
	p.stderr.Close()
	if closeUnblocksRead {
		p.drain(-1)
	} else {
		// Closing does not end a read blocked on this system: give the
		// readers one more while, then leave them to the grandchild.
		p.drain(drainWait)
	}
	p.mu.Lock()
	if p.midLine {
		status += " in the middle of a stdout line"
	}
	p.mu.Unlock()
	p.cfg.Trace.Event("%s %s", p.cfg.Name, status)
	close(p.done)
}

// drain waits for both readers to finish, for at most d if d >= 0.
func (p *Process) drain(d time.Duration) {
	ctx := context.Background()
	if d >= 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	for _, done := range []chan struct{}{p.stdoutDone, p.stderrDone} {
		select {
		case <-done:
		case <-ctx.Done(): // stays closed, unlike a timer's channel
		}
	}
}

// exitStatus describes how a process ended.
func exitStatus(err error, st *os.ProcessState) (string, int) {
	switch {
	case st == nil:
		return fmt.Sprintf("ended (%v)", err), -1
	case st.Exited():
		return fmt.Sprintf("exited with status %d", st.ExitCode()), st.ExitCode()
	}
	return "ended: " + st.String(), -1 // killed by a signal
}

// CleanEnv is a clean environment for a child: PATH and HOME only (and
// SystemRoot on Windows). It is never nil, which would inherit all.
func CleanEnv() []string {
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "SystemRoot"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
