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

// traceClip is how much of an over-long stdout line the trace keeps.
const traceClip = 4096

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
	// unterminated last line, if any. It is called on one goroutine and must
	// return promptly once Stop is called.
	Stdout func(line []byte, err error)
	Stderr io.Writer         // if set, receives a live copy of stderr
	Trace  *transcript.Trace // if set, records the start, stdout lines, stderr and the exit
}

// Process is one child process: New, then Start, then Stop (or Wait).
type Process struct {
	cfg    Config
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File // read ends, ours alone: exec's Wait never closes them under a reader
	stderr *os.File
	tail   *Tail

	exited     chan struct{} // closed once the process has been reaped
	done       chan struct{} // closed once every goroutine but wait has finished
	stdoutDone chan struct{}
	stderrDone chan struct{}

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
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return &StartError{Step: "stdin pipe", Err: err}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return &StartError{Step: "stdout pipe", Err: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		outR.Close()
		outW.Close()
		return &StartError{Step: "stderr pipe", Err: err}
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close() // the child has its own copies now
	errW.Close()
	if err != nil {
		stdin.Close()
		outR.Close()
		errR.Close()
		return &StartError{Step: fmt.Sprintf("cannot start %q", p.cfg.Argv[0]), Err: err}
	}
	p.cmd, p.stdin, p.stdout, p.stderr, p.started = cmd, stdin, outR, errR, true
	p.cfg.Trace.Event("started %q (pid %d)", p.cfg.Argv, cmd.Process.Pid)
	go p.readStdout()
	go p.copyStderr()
	go p.wait()
	return nil
}

// Stdin returns the writer to the child's stdin.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stderr returns the last TailSize bytes the child wrote to stderr.
func (p *Process) Stderr() string { return p.tail.String() }

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

// readStdout hands stdout to Config.Stdout line by line.
func (p *Process) readStdout() {
	defer close(p.stdoutDone)
	br := newReader(p.stdout)
	for {
		line, err := ReadLine(br, p.cfg.MaxLine)
		switch {
		case err == nil:
			p.cfg.Trace.Line("<-", line)
			p.cfg.Stdout(line, nil)
			continue
		case errors.Is(err, ErrLineTooLong):
			p.cfg.Trace.Line("<-", line[:min(len(line), traceClip)])
			p.cfg.Stdout(line, err)
			killGroup(p.cmd)
		default:
			if len(line) > 0 {
				p.cfg.Trace.Line("<-", line)
				p.mu.Lock()
				p.midLine = true
				p.mu.Unlock()
			}
			p.cfg.Stdout(line, err)
		}
		break
	}
	// Drain, so the child is never blocked writing to a full pipe.
	io.Copy(io.Discard, br)
}

// copyStderr keeps the tail of stderr, traces it and copies it live.
func (p *Process) copyStderr() {
	defer close(p.stderrDone)
	copyChunks(p.stderr, func(chunk []byte) {
		p.tail.Write(chunk)
		p.cfg.Trace.Line("!!", bytes.TrimRight(chunk, "\n"))
		if p.cfg.Stderr != nil {
			p.cfg.Stderr.Write(chunk)
		}
	})
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

	p.drain(drainWait)
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
