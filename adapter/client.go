package adapter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options tune a Client.
type Options struct {
	Timeout   time.Duration // per call, hello included; 0 means 10s
	MaxFaults int           // consecutive faults before giving up; 0 means 3
	Trace     *Trace        // receives restart events; may be nil
	// HelloArgs are members added to the hello's args beside protocol and
	// suite, for a suite whose adapters need context (such as a corpus path).
	HelloArgs map[string]string
}

// Client runs calls against an implementation through one connection at a
// time. After a fault it closes the connection, starts a new one on the next
// call and replays hello; after MaxFaults faults in a row every call fails
// with ErrGaveUp.
//
// Faults count by call order, whatever the transport and however many calls
// are in flight: a connection that breaks counts once, and a success of a
// call issued after the last fault resets the count, whichever connection
// it finished on. An adapter that exits with status 0 between calls is
// restarted, and the request it never answered sent once more, charging no
// call and counting toward no limit (CleanRestarts).
type Client struct {
	start Starter
	suite string
	opts  Options
	hello Hello

	nextID atomic.Int64
	order  atomic.Int64 // calls issued, in order

	mu            sync.Mutex
	conn          Conn
	gen           int   // connection generation
	countedGen    int   // the last generation whose break was counted
	lastFault     int64 // the order of the latest call charged with a fault
	faults        int   // faults in a row
	gaveUpErr     error // ErrGaveUp with the fault that ended the run; nil until then
	cleanEnd      bool  // the retired connection ended in a clean exit
	restarts      int
	cleanRestarts int
	stderr        string // stderr tail of the last connection that broke
}

// Dial starts a connection, sends hello for suite and returns a Client. An
// error here means the implementation could not be started at all.
func Dial(ctx context.Context, start Starter, suite string, opts Options) (*Client, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxFaults <= 0 {
		opts.MaxFaults = 3
	}
	c := &Client{start: start, suite: suite, opts: opts, countedGen: -1}
	conn, hello, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	c.conn, c.hello = conn, hello
	return c, nil
}

// connect opens a connection and performs the hello exchange on it.
func (c *Client) connect(ctx context.Context) (Conn, Hello, error) {
	conn, err := c.start(ctx)
	if err != nil {
		return nil, Hello{}, err
	}
	hctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	r, ex, err := conn.Call(hctx, 0, "hello", helloArgs(c.suite, c.opts.HelloArgs))
	err = c.withLimit(err)
	var h Hello
	if err == nil {
		h, err = decodeHello(r)
		if err != nil {
			err = fault(FaultHello, ex.Reply, "%v", err)
		}
	}
	if err != nil {
		conn.Close() // first: its stderr is then whole
		stderr := conn.Stderr()
		var f *Fault
		if errors.As(err, &f) && f.Kind != FaultHello && f.Kind != FaultStart {
			f = &Fault{Kind: FaultHello, Msg: "no valid hello reply", Line: f.Line, Err: f}
			err = f
		}
		if stderr != "" {
			return nil, Hello{}, &StartError{Err: err, Stderr: stderr}
		}
		return nil, Hello{}, err
	}
	return conn, h, nil
}

// StartError is a failure to start an implementation, with what it logged.
type StartError struct {
	Err    error
	Stderr string
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Hello returns what the implementation said in its first hello.
func (c *Client) Hello() Hello { return c.hello }

// Offers reports whether the implementation offers op.
func (c *Client) Offers(op string) bool { return c.hello.Offers(op) }

// GaveUp reports whether the client stopped after repeated faults.
func (c *Client) GaveUp() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gaveUpErr != nil
}

// Restarts returns how many times a broken connection was replaced.
func (c *Client) Restarts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarts
}

// CleanRestarts returns how many times an adapter that exited with status 0
// was restarted; these charge no call and count toward no fault limit.
func (c *Client) CleanRestarts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cleanRestarts
}

// Stderr returns the stderr tail of the current connection, or of the last
// one that broke when there is none.
func (c *Client) Stderr() string {
	c.mu.Lock()
	conn, stderr := c.conn, c.stderr
	c.mu.Unlock()
	if conn != nil {
		// Outside the lock: it may wait a moment for the tail to take in
		// what the pipe still holds.
		return conn.Stderr()
	}
	return stderr
}

// Call sends op with args (one JSON value) and waits for the reply, at most
// the per-call timeout. A fault is returned as a *Fault and the connection is
// replaced on the next call.
//
// A request the connection never sent (it had already ended), or one in
// flight when the adapter exited with status 0, is sent once more on a new
// connection, so the check that happens to come next is not charged with
// the exit.
func (c *Client) Call(ctx context.Context, op string, args []byte) (*Reply, *Exchange, error) {
	order := c.order.Add(1)
	for attempt := 0; ; attempt++ {
		conn, gen, err := c.current(ctx, order)
		if err != nil {
			return nil, nil, err
		}
		r, ex, err := c.call(ctx, conn, op, args)
		if err == nil {
			c.mu.Lock()
			if order > c.lastFault {
				c.faults = 0
			}
			c.mu.Unlock()
			return r, ex, nil
		}
		if f := asFault(err); f != nil {
			// The request was lost to an adapter that had already gone, or
			// that went away cleanly: send it once more.
			retry := attempt == 0 && (f.unsent || f.clean)
			c.broke(conn, gen, order, f, !retry || !f.clean)
			if retry {
				order = c.order.Add(1) // issued again, after the fault
				continue
			}
		}
		return r, ex, err
	}
}

// call makes one call on conn, within the per-call timeout.
func (c *Client) call(ctx context.Context, conn Conn, op string, args []byte) (*Reply, *Exchange, error) {
	id := c.nextID.Add(1)
	if t, ok := conn.(interface {
		callTimed(ctx context.Context, timeout time.Duration, id int64, op string, args []byte) (*Reply, *Exchange, error)
	}); ok {
		r, ex, err := t.callTimed(ctx, c.opts.Timeout, id, op, args)
		return r, ex, c.withLimit(err)
	}
	cctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	r, ex, err := conn.Call(cctx, id, op, args)
	return r, ex, c.withLimit(err)
}

// withLimit names the per-call limit in a timeout fault's message, on a
// copy: the fault may be shared by other calls of the same connection.
func (c *Client) withLimit(err error) error {
	f, ok := err.(*Fault)
	if !ok || f.Kind != FaultTimeout || strings.Contains(f.Msg, "(limit ") {
		return err
	}
	named := *f
	named.Msg += fmt.Sprintf(" (limit %s, --timeout)", c.opts.Timeout)
	return &named
}

// current returns the live connection, starting one if the last ended.
func (c *Client) current(ctx context.Context, order int64) (Conn, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gaveUpErr != nil {
		return nil, 0, c.gaveUpErr
	}
	if c.conn != nil {
		if f := ended(c.conn); f != nil {
			// It went away between calls: no call is to blame. A crash counts
			// toward the limit; a clean exit does not.
			// Closed first: its stderr is then whole, and Stderr does not
			// wait for it under the lock.
			c.conn.Close()
			c.stderr = c.conn.Stderr()
			c.conn = nil
			c.cleanEnd = f.clean
			c.opts.Trace.Event("adapter %s between calls", f.Msg)
			if !f.clean {
				// Counted as coming before this call, whose success then
				// resets the count: the call was issued after the fault.
				c.countedGen = c.gen
				if c.countFault(order-1, f.Msg); c.gaveUpErr != nil {
					return nil, 0, c.gaveUpErr
				}
			}
		}
	}
	if c.conn == nil {
		c.opts.Trace.Event("restarting adapter and replaying hello")
		conn, hello, err := c.connect(ctx)
		if err == nil && !sameHello(hello, c.hello) {
			conn.Close()
			err = &Fault{Kind: FaultHello, Msg: fmt.Sprintf("hello after a restart (%s %s, ops %v, concurrency %d) differs from the first (%s %s, ops %v, concurrency %d)",
				hello.Name, hello.Version, hello.Ops, hello.Concurrency, c.hello.Name, c.hello.Version, c.hello.Ops, c.hello.Concurrency)}
		}
		if err != nil {
			err = fmt.Errorf("restarting adapter: %w", err)
			c.countFault(order, err.Error())
			return nil, 0, err
		}
		c.conn = conn
		c.gen++
		if c.cleanEnd {
			c.cleanRestarts++
		} else {
			c.restarts++
		}
		c.cleanEnd = false
	}
	return c.conn, c.gen, nil
}

// ended returns how conn ended on its own, or nil while it is live.
func ended(conn Conn) *Fault {
	if e, ok := conn.(interface{ ended() *Fault }); ok {
		return e.ended()
	}
	return nil
}

func sameHello(a, b Hello) bool {
	return a.Name == b.Name && a.Version == b.Version && a.Concurrency == b.Concurrency && slices.Equal(a.Ops, b.Ops)
}

// broke retires conn after a fault of the call issued at order; charged says
// the fault is that call's (not a clean exit whose request is sent again).
// A connection's break counts once, however many calls were on it.
func (c *Client) broke(conn Conn, gen int, order int64, f *Fault, charged bool) {
	c.mu.Lock()
	retire := gen == c.gen && c.conn != nil
	if retire {
		c.conn = nil
		c.cleanEnd = !charged
	}
	if charged && gen > c.countedGen {
		c.countedGen = gen
		c.cleanEnd = false
		c.countFault(order, f.Msg)
	} else if charged {
		c.lastFault = max(c.lastFault, order)
	}
	c.mu.Unlock()
	if retire {
		// Its stderr is whole only once it has ended: what it wrote just
		// before the faulty line is the evidence a reader wants.
		conn.Close()
		stderr := conn.Stderr()
		c.mu.Lock()
		c.stderr = stderr
		c.mu.Unlock()
	}
}

// countFault counts one fault, why, of the call issued at order.
func (c *Client) countFault(order int64, why string) {
	c.lastFault = max(c.lastFault, order)
	c.faults++
	if c.faults >= c.opts.MaxFaults && c.gaveUpErr == nil {
		c.gaveUpErr = fmt.Errorf("%w (the last: %s)", ErrGaveUp, why)
		c.opts.Trace.Event("giving up after %d faults in a row", c.faults)
	}
}

// GaveUpErr returns why the client gave up, naming the last fault, or nil
// while it has not.
func (c *Client) GaveUpErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gaveUpErr
}

// Close ends the current connection.
func (c *Client) Close() error {
	c.mu.Lock()
	conn := c.conn
	c.conn = nil
	c.mu.Unlock()
	if conn == nil {
		return nil
	}
	err := conn.Close()
	stderr := conn.Stderr()
	c.mu.Lock()
	c.stderr = stderr
	c.mu.Unlock()
	return err
}
