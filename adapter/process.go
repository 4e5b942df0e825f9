package adapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
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

	pause func() // tests: called where calls and the reading hand over
}

// Process is a Conn to an adapter running as a child process, speaking
// NDJSON over its stdin and stdout.
//
// Calls in flight together share their writes. A call alone in flight
// reads its own reply from stdout; with more, the child's reading
// goroutine routes each reply to its call. One watchdog timer per
// connection, rather than one per call, ends the calls past their
// deadline.
type Process struct {
	cfg   ProcessConfig
	child *child.Process

	mu      sync.Mutex
	pending map[int64]*call
	dead    chan struct{} // closed when the connection is over
	deadErr *Fault
	exited  chan struct{} // closed once the process has exited, its output is read and wait has returned
	partial []byte        // an unterminated last stdout line

	watchdog *time.Timer // runs watch

	// Request lines are written in batches: a call queues its line, and
	// the call that finds no write under way writes the queue until it is
	// empty, so calls in flight together share a write.
	wmu      sync.Mutex
	writing  bool
	cut      bool    // a write failed: stdin may end in part of a line, and takes no more
	queue    []byte  // lines waiting to be written, each with its newline
	queued   []int64 // their ids
	spare    []byte  // the last batch's buffer, for the next
	spareIDs []int64
}

// call is a request waiting for its reply.
type call struct {
	ch       chan delivery   // receives the reply
	sent     bool            // its line was handed to a write that did not fail before writing (under mu)
	deadline time.Time       // zero: none
	ctx      context.Context // the call's, which may end it first
}

// delivery is a reply handed to the call waiting for it, with its line,
// or the news that its deadline passed.
type delivery struct {
	r       *Reply
	line    []byte
	expired bool
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
		pending: make(map[int64]*call),
		dead:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	p.watchdog = time.AfterFunc(time.Hour, p.watch)
	p.watchdog.Stop()
	p.child = child.New(child.Config{
		Argv: cfg.Argv, Dir: cfg.Dir, Env: cfg.Env,
		Name:    "adapter",
		MaxLine: MaxLine,
		Stdout:  p.stdout,
		Waiting: p.waiting,
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
	p.watchdog.Reset(watchTick)
	go p.wait()
	return p, nil
}

// stdout takes each stdout line, and then how stdout ended.
func (p *Process) stdout(line []byte, err error) {
	p.yield()
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
	status, code := p.child.ExitStatus()
	p.mu.Lock()
	partial := p.partial
	p.mu.Unlock()
	if len(partial) > 0 {
		status += " in the middle of a stdout line"
	}
	f := fault(FaultExit, partial, "%s", status)
	f.clean = code == 0 && len(partial) == 0
	p.fail(f)
}

// deliver routes a stdout line to the call waiting for it. A line that
// starts as replies usually do, {"id":N, is routed by that id and parsed
// by its call (on the call's goroutine, so replies are parsed in parallel);
// any other line is parsed here. Either way every line is parsed strictly
// before it counts as a reply, and a bad one ends the connection.
func (p *Process) deliver(line []byte) {
	id, _, quick := leadingID(line)
	var r *Reply
	if !quick {
		var err error
		if r, err = decodeReply(line); err != nil {
			p.fail(fault(FaultBadLine, line, "stdout line is not a valid reply (%v)", err))
			return
		}
		id = r.ID
	}
	p.mu.Lock()
	if p.deadErr != nil {
		// Lines after the first fault are not replies.
		p.mu.Unlock()
		return
	}
	c, ok := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if !ok {
		if _, err := decodeReply(line); err != nil {
			p.fail(fault(FaultBadLine, line, "stdout line is not a valid reply (%v)", err))
			return
		}
		p.fail(fault(FaultUnknownID, line, "reply id %d matches no request in flight", id))
		return
	}
	c.ch <- delivery{r: r, line: line}
}

// leadingID reads N from a line that starts {"id":N, with N an integer as
// JSON writes it, and returns the rest of the line from that comma; ok is
// false for any other line.
func leadingID(line []byte) (id int64, rest []byte, ok bool) {
	digits, found := bytes.CutPrefix(line, []byte(`{"id":`))
	if !found {
		return 0, nil, false
	}
	end := bytes.IndexByte(digits, ',')
	if end < 1 || end > 19 || (digits[0] == '0' && end > 1) {
		return 0, nil, false
	}
	for _, c := range digits[:end] {
		if c < '0' || c > '9' {
			return 0, nil, false
		}
	}
	id, err := strconv.ParseInt(string(digits[:end]), 10, 64)
	return id, digits[end:], err == nil
}

// received returns the reply a call was delivered, parsing its line if
// deliver did not; a line that is not a valid reply ends the connection.
func (p *Process) received(d delivery, id int64) (*Reply, error) {
	if d.r != nil {
		return d.r, nil
	}
	r, err := decodeReply(d.line)
	if err == nil && r.ID != id {
		err = fmt.Errorf("id %d read as %d", r.ID, id) // cannot happen: the line starts {"id":N,
	}
	if err != nil {
		f := fault(FaultBadLine, d.line, "stdout line is not a valid reply (%v)", err)
		p.fail(f)
		return nil, f
	}
	return r, nil
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
	p.watchdog.Stop()
	if f.Kind != FaultExit {
		p.cfg.Trace.Event("fault: %s", f.Error())
	}
	p.child.Kill()
}

// Call sends one request line and waits for the reply with the same id,
// at most until ctx's deadline.
func (p *Process) Call(ctx context.Context, id int64, op string, args []byte) (*Reply, *Exchange, error) {
	var timeout time.Duration
	if d, ok := ctx.Deadline(); ok {
		timeout = max(time.Until(d), 1)
	}
	return p.callTimed(ctx, timeout, id, op, args)
}

// callTimed is Call with the per-call timeout (0: none) given apart from
// ctx, which may still end the call first: a call needs no context of its
// own.
func (p *Process) callTimed(ctx context.Context, timeout time.Duration, id int64, op string, args []byte) (*Reply, *Exchange, error) {
	line, err := encodeRequest(id, op, args)
	if err != nil {
		return nil, nil, err
	}
	ex := &Exchange{Request: line}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	c := calls.Get().(*call)
	c.sent, c.deadline, c.ctx = false, deadline, ctx
	p.mu.Lock()
	if p.deadErr != nil {
		p.mu.Unlock()
		recycle(c)
		return p.notSent(ex)
	}
	p.pending[id] = c
	alone := len(p.pending) == 1
	p.mu.Unlock()
	p.yield()

	switch err := p.send(ctx, deadline, id, line); {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return p.timedOut(id, op, ex)
	case err != nil:
		return p.cancelled(ctx, id, op, ex, true)
	}

	// A call alone in flight reads its reply on its own goroutine, when no
	// other is reading stdout: it saves handing the reply over. (With more
	// in flight, the Process's reading goroutine hands each its reply.)
	p.yield()
	if alone {
		p.child.ReadStdout(func() bool { return len(c.ch) > 0 || ctx.Err() != nil || p.over() })
	}

	select {
	case d := <-c.ch:
		recycle(c) // delivered: deliver, or the watchdog, is done with it
		return p.got(d, id, op, ex)
	case <-p.dead:
		// A reply that arrived just before the adapter ended still counts.
		select {
		case d := <-c.ch:
			recycle(c)
			return p.got(d, id, op, ex)
		default:
		}
		p.mu.Lock()
		delete(p.pending, id)
		f, sent := p.deadErr, c.sent
		p.mu.Unlock()
		if !sent {
			// Its line was never written: the request may go again on a
			// new connection, charging nothing.
			g := *f
			g.Err, g.unsent = errNotSent, true
			ex.Request = nil
			return nil, ex, &g
		}
		ex.Reply = f.Line
		return nil, ex, f
	case <-ctx.Done():
		return p.cancelled(ctx, id, op, ex, false)
	}
}

// yield lets a test pause where calls and the reading hand over.
func (p *Process) yield() {
	if p.cfg.pause != nil {
		p.cfg.pause()
	}
}

// waiting reports whether a call waits for its reply.
func (p *Process) waiting() bool {
	p.yield()
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending) > 0
}

// over reports whether the connection is over.
func (p *Process) over() bool {
	select {
	case <-p.dead:
		return true
	default:
		return false
	}
}

// got ends a call with the reply it was delivered, or its timeout.
func (p *Process) got(d delivery, id int64, op string, ex *Exchange) (*Reply, *Exchange, error) {
	if d.expired {
		return p.timedOut(id, op, ex)
	}
	r, err := p.received(d, id)
	if err != nil {
		ex.Reply = clip(d.line)
		return nil, ex, err
	}
	ex.Reply = d.line
	return r, ex, nil
}

// calls recycles the waits of calls that got their reply (a wait that
// ended otherwise may still be sent one, and is dropped).
var calls = sync.Pool{New: func() any { return &call{ch: make(chan delivery, 1)} }}

func recycle(c *call) {
	c.ctx = nil
	calls.Put(c)
}

// watchTick is how often the watchdog looks for calls past their deadline:
// a timeout ends at most this late. One timer for the connection, rather
// than one per call, spares a wakeup of the runtime's poller per call.
const watchTick = 10 * time.Millisecond

// watch is the watchdog: it ends each call past its deadline (a timeout
// marker in its channel) and interrupts a read on behalf of a call that
// is over; it runs every watchTick until the connection ends.
func (p *Process) watch() {
	now := time.Now()
	interrupt := false
	p.mu.Lock()
	if p.deadErr != nil {
		p.mu.Unlock()
		return
	}
	for id, c := range p.pending {
		switch {
		case !c.deadline.IsZero() && !now.Before(c.deadline):
			delete(p.pending, id)
			select {
			case c.ch <- delivery{expired: true}:
			default:
			}
			interrupt = true
		case c.ctx != nil && c.ctx.Err() != nil:
			interrupt = true
		}
	}
	p.mu.Unlock()
	if interrupt {
		p.child.InterruptRead()
	}
	p.watchdog.Reset(watchTick)
}

// send queues line (the request with that id) and, unless a write is
// under way (which writes it too), writes the queue until it is empty, so
// calls in flight together share a write. A line is traced ("->") as its
// batch is handed to the pipe, in the order written, never when queued.
//
// No queued line is lost when a write fails. The writer's write ends at its
// deadline (then os.ErrDeadlineExceeded) or when ctx ends, as an adapter
// that stops reading must not block a call past it, or fails because the
// adapter has gone. The calls whose lines were never handed to a write then
// stay not sent (call.sent), as do those of a write that failed on an
// adapter already gone, and stdin takes no more lines (cut); every such
// path ends the connection, so those calls end with it, as not sent, and a
// Client sends them again on a new connection. The calls of a write cut
// short part way were sent, and share the fault that ends the connection.
func (p *Process) send(ctx context.Context, deadline time.Time, id int64, line []byte) error {
	p.wmu.Lock()
	if p.cut {
		// A write failed and the connection is ending: the line stays
		// unwritten (not sent), and the call ends with the connection.
		p.wmu.Unlock()
		return nil
	}
	p.queue = append(append(p.queue, line...), '\n')
	p.queued = append(p.queued, id)
	if p.writing {
		p.wmu.Unlock()
		return nil // the write under way writes it too
	}
	p.writing = true
	return p.writeQueue(ctx, deadline)
}

// writeQueue writes the queue until it is empty; it is called with wmu
// held and writing set, and returns with wmu released and writing clear.
// The first batch holds the caller's own line, and is written by its
// deadline; each later one, of other calls' lines, by the earliest
// deadline among them. A later batch that fails at that deadline or on a
// cancellation ends the connection here, and the caller, whose own line
// was written, goes on to wait for its reply.
func (p *Process) writeQueue(ctx context.Context, deadline time.Time) error {
	var err error
	var failed []int64 // the ids of the batch that failed
	own, gone := true, false
	for len(p.queue) > 0 {
		batch, ids := p.queue, p.queued
		p.queue, p.queued = p.spare[:0], p.spareIDs[:0]
		p.wmu.Unlock()
		due := deadline
		if !own {
			due = p.earliest(ids, deadline)
		}
		p.mark(ids, true)
		p.traceBatch(batch)
		p.yield()
		err = p.child.WriteStdin(ctx, due, batch)
		if gone = err != nil && ctx.Err() == nil && !errors.Is(err, os.ErrDeadlineExceeded); gone {
			// Written to an adapter already gone: none of it was read.
			p.mark(ids, false)
		}
		p.wmu.Lock()
		p.spare, p.spareIDs = batch[:0], ids[:0]
		if err != nil {
			// Stdin may end in part of a line: it takes no more, and the
			// lines still queued stay not sent.
			p.cut, failed = true, slices.Clone(ids)
			p.cfg.Trace.Event("requests not written whole, the write failed (%v): %s", err, idList(ids))
			if len(p.queued) > 0 {
				p.cfg.Trace.Event("requests not written: %s", idList(p.queued))
			}
			break
		}
		own = false
	}
	p.queue, p.queued = p.queue[:0], p.queued[:0]
	p.writing = false
	p.wmu.Unlock()
	switch {
	case err == nil:
		return nil
	case gone:
		// The adapter is gone, or going: give its exit time to be seen,
		// so the calls learn how it ended.
		select {
		case <-p.dead:
		case <-time.After(time.Second):
			p.fail(&Fault{Kind: FaultExit, Msg: "cannot write to adapter stdin", Err: err})
		}
		return nil
	case own:
		return err // the caller's own line was cut: its call ends the connection
	}
	p.failWrite(ctx, err, failed)
	return nil
}

// failWrite ends the connection after a write of other calls' lines (ids)
// failed at their deadline or a cancellation: stdin may end in part of a
// line.
func (p *Process) failWrite(ctx context.Context, err error, ids []int64) {
	if ctx.Err() != nil {
		p.fail(&Fault{Kind: FaultClosed, Msg: "a request was cut short by a cancellation"})
		return
	}
	p.fail(&Fault{Kind: FaultTimeout, Msg: fmt.Sprintf("the adapter did not read its stdin in time: requests %s not written whole", idList(ids)), Err: err})
}

// earliest returns the earliest deadline of the calls with ids still
// waiting, or def when none has one.
func (p *Process) earliest(ids []int64, def time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var due time.Time
	for _, id := range ids {
		if c, ok := p.pending[id]; ok && !c.deadline.IsZero() && (due.IsZero() || c.deadline.Before(due)) {
			due = c.deadline
		}
	}
	if due.IsZero() {
		return def
	}
	return due
}

// traceBatch records each line of batch as sent.
func (p *Process) traceBatch(batch []byte) {
	if p.cfg.Trace == nil {
		return
	}
	for len(batch) > 0 {
		i := bytes.IndexByte(batch, '\n')
		p.cfg.Trace.Line("->", batch[:i])
		batch = batch[i+1:]
	}
}

// idList renders ids for the trace: "ids 3, 4, 5".
func idList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return "ids " + strings.Join(s, ", ")
}

// mark sets whether the calls with ids had their lines sent.
func (p *Process) mark(ids []int64, sent bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		if c, ok := p.pending[id]; ok {
			c.sent = sent
		}
	}
}

// timedOut ends a call that saw no reply in time: a fault that ends the
// connection.
func (p *Process) timedOut(id int64, op string, ex *Exchange) (*Reply, *Exchange, error) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
	f := &Fault{Kind: FaultTimeout, Msg: fmt.Sprintf("no reply to %s (id %d) in time", op, id)}
	p.fail(f)
	return nil, ex, f
}

// cancelled ends a call whose ctx ended: ctx's own deadline is a timeout;
// a cancellation is not a fault, but one that cut a write short ends the
// connection (part of a line may be written, which would garble the next).
func (p *Process) cancelled(ctx context.Context, id int64, op string, ex *Exchange, writing bool) (*Reply, *Exchange, error) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return p.timedOut(id, op, ex)
	}
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
	if writing {
		p.fail(&Fault{Kind: FaultClosed, Msg: "a request was cut short by a cancellation"})
	}
	return nil, ex, ctx.Err()
}

// notSent ends a call made once the connection was over: the fault wraps
// errNotSent, so the Client may send the request again on a new connection.
func (p *Process) notSent(ex *Exchange) (*Reply, *Exchange, error) {
	p.mu.Lock()
	f := *p.deadErr
	p.mu.Unlock()
	f.Err, f.unsent = errNotSent, true
	ex.Request = nil
	return nil, ex, &f
}

// Done is closed when the connection is over: the adapter exited or broke the protocol.
func (p *Process) Done() <-chan struct{} { return p.dead }

// ended returns the fault that ended the connection, or nil while it is live.
func (p *Process) ended() *Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.deadErr
}

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
