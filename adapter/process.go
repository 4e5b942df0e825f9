package adapter

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/refereehq/referee/internal/child"
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
	cfg   ProcessConfig
	child *child.Process

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[int64]chan *Reply
	lines   map[int64][]byte // reply line for each delivered id
	dead    chan struct{}    // closed when the connection is over
	deadErr *Fault
	exited  chan struct{} // closed once the process has exited, its output is read and wait has returned
	partial []byte        // an unterminated last stdout line
}

// StartProcess starts the adapter program. It does not send hello.
func StartProcess(cfg ProcessConfig) (*Process, error) {
	if len(cfg.Argv) == 0 {
		return nil, &Fault{Kind: FaultStart, Msg: "no adapter program given"}
	}
	if cfg.Grace == 0 {
		cfg.Grace = 2 * time.Second
	}
	p := &Process{
		cfg:     cfg,
		pending: make(map[int64]chan *Reply),
		lines:   make(map[int64][]byte),
		dead:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	p.child = child.New(child.Config{
		Argv: cfg.Argv, Dir: cfg.Dir, Env: cfg.Env,
		Name:    "adapter",
		MaxLine: MaxLine,
		Stdout:  p.stdout,
		Stderr:  cfg.Stderr,
		Trace:   cfg.Trace,
	})
	if err := p.child.Start(); err != nil {
		var se *child.StartError
		if errors.As(err, &se) {
			return nil, &Fault{Kind: FaultStart, Msg: se.Step, Err: se.Err}
		}
		return nil, &Fault{Kind: FaultStart, Msg: "cannot start the adapter", Err: err}
	}
	go p.wait()
	return p, nil
}

// stdout takes each stdout line, and then how stdout ended.
func (p *Process) stdout(line []byte, err error) {
	switch {
	case err == nil:
		p.deliver(line)
	case errors.Is(err, child.ErrLineTooLong):
		p.fail(fault(FaultTooLong, line, "stdout line longer than %d bytes", MaxLine))
	default:
		p.mu.Lock()
		p.partial = line
		p.mu.Unlock()
	}
}

// wait waits for the process to exit and its output to be read, then ends
// the connection with the exit as the fault for any call still waiting.
func (p *Process) wait() {
	defer close(p.exited)
	p.child.Wait(context.Background())
	status, _ := p.child.ExitStatus()
	p.mu.Lock()
	partial := p.partial
	p.mu.Unlock()
	if len(partial) > 0 {
		status += " in the middle of a stdout line"
	}
	p.fail(fault(FaultExit, partial, "%s", status))
}

// errLineTooLong is the error of a line over MaxLine.
var errLineTooLong = child.ErrLineTooLong

// readLine reads one line without its newline (or CRLF), failing once the
// line passes max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) { return child.ReadLine(br, max) }

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
		p.cfg.Trace.Event("fault: %s", f.Error())
	}
	p.child.Kill()
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
		p.cfg.Trace.Line("->", line)
		_, err := p.child.Stdin().Write(append(line, '\n'))
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
func (p *Process) Stderr() string { return p.child.Stderr() }

// Close closes the adapter's stdin, waits the grace period for it to exit,
// then kills its process group. It returns once the adapter's output has
// been read (or abandoned to a grandchild still holding it) and the
// connection is over.
func (p *Process) Close() error {
	p.child.Stop(context.Background(), p.cfg.Grace)
	<-p.exited
	return nil
}

// errNotSent marks a fault that happened before the request was written.
var errNotSent = errors.New("request not sent")
