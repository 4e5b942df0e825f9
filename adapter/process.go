package adapter

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/refereehq/referee/internal/childlog"
	"github.com/refereehq/referee/internal/procgroup"
)

// ProcessConfig says how to start an adapter as a child process.
type ProcessConfig struct {
	Argv   []string      // program and arguments, started without a shell
	Dir    string        // working directory; "" inherits referee's
	Env    []string      // environment; nil inherits referee's
	Grace  time.Duration // how long to wait after closing stdin before killing; 0 means 2s
	Stderr io.Writer     // if set, receives a live copy of the adapter's stderr
	Trace  *Trace        // if set, records every line each way
}

// Process is a Conn to an adapter running as a child process, speaking
// NDJSON over its stdin and stdout.
type Process struct {
	cfg    ProcessConfig
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File // read ends, ours alone: Wait never closes them under a reader
	errOut *os.File
	stderr *childlog.Tail

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[int64]chan *Reply
	lines   map[int64][]byte // reply line for each delivered id
	dead    chan struct{}    // closed when the connection is over
	deadErr *Fault
	exited  chan struct{} // closed once the process has exited and been waited for

	stdoutDone, stderrDone chan struct{}
	partial                []byte // an unterminated last stdout line
}

// drainWait bounds how long referee waits for the adapter's stdout and
// stderr to close once the adapter has exited: a grandchild may hold them.
const drainWait = 500 * time.Millisecond

// StartProcess starts the adapter program. It does not send hello.
func StartProcess(cfg ProcessConfig) (*Process, error) {
	if len(cfg.Argv) == 0 {
		return nil, &Fault{Kind: FaultStart, Msg: "no adapter program given"}
	}
	if cfg.Grace == 0 {
		cfg.Grace = 2 * time.Second
	}
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env
	procgroup.Set(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, &Fault{Kind: FaultStart, Msg: "stdin pipe", Err: err}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, &Fault{Kind: FaultStart, Msg: "stdout pipe", Err: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, &Fault{Kind: FaultStart, Msg: "stderr pipe", Err: err}
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close() // the child has its own copies now
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, &Fault{Kind: FaultStart, Msg: fmt.Sprintf("cannot start %q", cfg.Argv[0]), Err: err}
	}
	p := &Process{
		cfg:        cfg,
		cmd:        cmd,
		stdin:      stdin,
		stdout:     outR,
		errOut:     errR,
		stderr:     childlog.NewTail(64 << 10),
		pending:    make(map[int64]chan *Reply),
		lines:      make(map[int64][]byte),
		dead:       make(chan struct{}),
		exited:     make(chan struct{}),
		stdoutDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	cfg.Trace.event("started %q (pid %d)", cfg.Argv, cmd.Process.Pid)
	go p.copyStderr()
	go p.readStdout()
	go p.wait()
	return p, nil
}

// copyStderr keeps the tail of stderr, traces it and copies it live.
func (p *Process) copyStderr() {
	defer close(p.stderrDone)
	childlog.Copy(p.errOut, func(chunk []byte) {
		p.stderr.Write(chunk)
		p.cfg.Trace.line("!!", bytes.TrimRight(chunk, "\n"))
		if p.cfg.Stderr != nil {
			p.cfg.Stderr.Write(chunk)
		}
	})
}

func (p *Process) readStdout() {
	defer close(p.stdoutDone)
	br := bufio.NewReaderSize(p.stdout, 64<<10)
	for {
		line, err := readLine(br, MaxLine)
		if errors.Is(err, errLineTooLong) {
			p.cfg.Trace.line("<-", line[:min(len(line), 4096)])
			p.fail(fault(FaultTooLong, line, "stdout line longer than %d bytes", MaxLine))
			break
		}
		if err != nil {
			p.mu.Lock()
			p.partial = line
			p.mu.Unlock()
			break
		}
		p.cfg.Trace.line("<-", line)
		p.deliver(line)
	}
	// Drain so the child is never blocked writing to a full pipe.
	io.Copy(io.Discard, p.stdout)
}

// wait reaps the process, lets its output drain (for a bounded time), and
// ends the connection with the exit as the fault for any call still waiting.
func (p *Process) wait() {
	status := exitStatus(p.cmd.Wait(), p.cmd.ProcessState)
	drain, cancel := context.WithTimeout(context.Background(), drainWait)
	defer cancel()
	for _, done := range []chan struct{}{p.stdoutDone, p.stderrDone} {
		select {
		case <-done:
		case <-drain.Done(): // stays closed, unlike a timer's channel
		}
	}
	// A grandchild may still hold the pipes: stop reading them.
	p.stdout.Close()
	p.errOut.Close()
	p.mu.Lock()
	partial := p.partial
	p.mu.Unlock()
	if len(partial) > 0 {
		p.cfg.Trace.line("<-", partial)
		status += " in the middle of a stdout line"
	}
	p.cfg.Trace.event("adapter %s", status)
	p.fail(fault(FaultExit, partial, "%s", status))
	close(p.exited)
}

var errLineTooLong = errors.New("line too long")

// exitStatus describes how the adapter's process ended.
func exitStatus(err error, st *os.ProcessState) string {
	switch {
	case st == nil:
		return fmt.Sprintf("ended (%v)", err)
	case st.Exited():
		return fmt.Sprintf("exited with status %d", st.ExitCode())
	}
	return "ended: " + st.String() // killed by a signal
}

// readLine reads one line without its newline (or CRLF), failing once the
// line passes max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		n := len(line)
		if err == nil {
			n-- // the newline
		}
		if n > max {
			return line, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return line, err
		}
		line = line[:n]
		if n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		return line, nil
	}
}

func (p *Process) deliver(line []byte) {
	r, err := decodeReply(line)
	if err != nil {
		p.fail(fault(FaultBadLine, line, "stdout line is not a valid reply (%v)", err))
		return
	}
	p.mu.Lock()
	if p.deadErr != nil {
		// Lines after the first fault are not replies.
		p.mu.Unlock()
		return
	}
	ch, ok := p.pending[r.ID]
	if ok {
		delete(p.pending, r.ID)
		p.lines[r.ID] = line
	}
	p.mu.Unlock()
	if !ok {
		p.fail(fault(FaultUnknownID, line, "reply id %d matches no request in flight", r.ID))
		return
	}
	ch <- r
}

// fail ends the connection with f, the first fault seen; the process group is killed.
func (p *Process) fail(f *Fault) {
	p.mu.Lock()
	if p.deadErr != nil {
		p.mu.Unlock()
		return
	}
	p.deadErr = f
	close(p.dead)
	p.mu.Unlock()
	if f.Kind != FaultExit {
		p.cfg.Trace.event("fault: %s", f.Error())
	}
	procgroup.Kill(p.cmd)
}

// Call sends one request line and waits for the reply with the same id.
func (p *Process) Call(ctx context.Context, id int64, op string, args []byte) (*Reply, *Exchange, error) {
	line, err := encodeRequest(id, op, args)
	if err != nil {
		return nil, nil, err
	}
	ex := &Exchange{Request: line}
	ch := make(chan *Reply, 1)
	p.mu.Lock()
	if p.deadErr != nil {
		p.mu.Unlock()
		return p.notSent(id, ex, errNotSent)
	}
	p.pending[id] = ch
	p.mu.Unlock()

	// Write in the background: an adapter that stops reading must not
	// block the call past its deadline.
	written := make(chan error, 1)
	go func() {
		p.writeMu.Lock()
		defer p.writeMu.Unlock()
		select {
		case <-p.dead:
			written <- errNotSent
			return
		default:
		}
		p.cfg.Trace.line("->", line)
		_, err := p.stdin.Write(append(line, '\n'))
		written <- err
	}()
	select {
	case err := <-written:
		if err != nil {
			return p.notSent(id, ex, err)
		}
	case <-ctx.Done():
		return p.expire(ctx, id, op, ex)
	}

	select {
	case r := <-ch:
		p.mu.Lock()
		ex.Reply = p.lines[id]
		delete(p.lines, id)
		p.mu.Unlock()
		return r, ex, nil
	case <-p.dead:
		// A reply that arrived just before the adapter ended still counts.
		select {
		case r := <-ch:
			p.mu.Lock()
			ex.Reply = p.lines[id]
			delete(p.lines, id)
			p.mu.Unlock()
			return r, ex, nil
		default:
		}
		p.mu.Lock()
		delete(p.pending, id)
		f := p.deadErr
		p.mu.Unlock()
		ex.Reply = f.Line
		return nil, ex, f
	case <-ctx.Done():
		return p.expire(ctx, id, op, ex)
	}
}

// expire ends a call whose context ended: a timeout is a fault that ends
// the connection; a cancellation is not a fault.
func (p *Process) expire(ctx context.Context, id int64, op string, ex *Exchange) (*Reply, *Exchange, error) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		f := &Fault{Kind: FaultTimeout, Msg: fmt.Sprintf("no reply to %s (id %d) in time", op, id)}
		p.fail(f)
		return nil, ex, f
	}
	return nil, ex, ctx.Err()
}

// notSent ends a call whose request never reached the adapter, because the
// connection was already over or the write failed: the fault wraps
// errNotSent, so the Client may retry it on a new connection.
func (p *Process) notSent(id int64, ex *Exchange, err error) (*Reply, *Exchange, error) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
	select {
	case <-p.dead:
	case <-time.After(time.Second):
		p.fail(&Fault{Kind: FaultExit, Msg: "cannot write to adapter stdin", Err: err})
	}
	p.mu.Lock()
	f := *p.deadErr
	p.mu.Unlock()
	f.Err = errNotSent
	ex.Request = nil
	return nil, ex, &f
}

// Done is closed when the connection is over: the adapter exited or broke the protocol.
func (p *Process) Done() <-chan struct{} { return p.dead }

// Stderr returns the last 64 KiB the adapter wrote to stderr.
func (p *Process) Stderr() string { return p.stderr.String() }

// Close closes the adapter's stdin, waits the grace period for it to exit,
// then kills its process group.
func (p *Process) Close() error {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(p.cfg.Grace):
		p.cfg.Trace.event("adapter still running %s after stdin closed: killing it", p.cfg.Grace)
		procgroup.Kill(p.cmd)
		<-p.exited
	}
	procgroup.Kill(p.cmd) // anything the adapter left behind in its group
	return nil
}

// errNotSent marks a fault that happened before the request was written.
var errNotSent = errors.New("request not sent")
