package adapter

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
type Client struct {
	start Starter
	suite string
	opts  Options
	hello Hello

	nextID atomic.Int64

	mu       sync.Mutex
	conn     Conn
	gen      int // connection generation, so one broken connection counts once
	faults   int
	gaveUp   bool
	restarts int
	stderr   string // stderr tail of the last connection that broke
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
	c := &Client{start: start, suite: suite, opts: opts}
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
	var h Hello
	if err == nil {
		h, err = decodeHello(r)
		if err != nil {
			err = fault(FaultHello, ex.Reply, "%v", err)
		}
	}
	if err != nil {
		stderr := conn.Stderr()
		conn.Close()
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
	return c.gaveUp
}

// Restarts returns how many times a broken connection was replaced.
func (c *Client) Restarts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarts
}

// Stderr returns the stderr tail of the current connection, or of the last
// one that broke when there is none.
func (c *Client) Stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		return c.conn.Stderr()
	}
	return c.stderr
}

// Call sends op with args (one JSON value) and waits for the reply, at most
// the per-call timeout. A fault is returned as a *Fault and the connection is
// replaced on the next call.
//
// A request the connection never sent (it had already broken: the adapter
// exited between calls) is sent once more on a new connection, so the check
// that happens to come next is not charged with the fault.
func (c *Client) Call(ctx context.Context, op string, args []byte) (*Reply, *Exchange, error) {
	for attempt := 0; ; attempt++ {
		conn, gen, err := c.current(ctx)
		if err != nil {
			return nil, nil, err
		}
		cctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
		r, ex, err := conn.Call(cctx, c.nextID.Add(1), op, args)
		cancel()
		var f *Fault
		switch {
		case errors.As(err, &f):
			c.broke(conn, gen, f)
			if errors.Is(err, errNotSent) && attempt == 0 {
				continue
			}
		case err == nil:
			c.mu.Lock()
			if gen == c.gen {
				c.faults = 0
			}
			c.mu.Unlock()
		}
		return r, ex, err
	}
}

// current returns the live connection, starting one if the last broke.
func (c *Client) current(ctx context.Context) (Conn, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gaveUp {
		return nil, 0, ErrGaveUp
	}
	if c.conn != nil && exited(c.conn) {
		// It went away between calls: no check is to blame, but it counts.
		c.opts.Trace.Event("adapter exited between calls")
		c.stderr = c.conn.Stderr()
		c.conn.Close()
		c.conn = nil
		if c.countFault(); c.gaveUp {
			return nil, 0, ErrGaveUp
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
			c.countFault()
			return nil, 0, fmt.Errorf("restarting adapter: %w", err)
		}
		c.conn = conn
		c.gen++
		c.restarts++
	}
	return c.conn, c.gen, nil
}

// exited reports whether conn's process has ended on its own.
func exited(conn Conn) bool {
	d, ok := conn.(interface{ Done() <-chan struct{} })
	if !ok {
		return false
	}
	select {
	case <-d.Done():
		return true
	default:
		return false
	}
}

func sameHello(a, b Hello) bool {
	return a.Name == b.Name && a.Version == b.Version && a.Concurrency == b.Concurrency && slices.Equal(a.Ops, b.Ops)
}

// broke retires conn after a fault, once per connection.
func (c *Client) broke(conn Conn, gen int, f *Fault) {
	c.mu.Lock()
	if gen != c.gen || c.conn == nil {
		c.mu.Unlock()
		return
	}
	c.conn = nil
	c.stderr = conn.Stderr()
	c.countFault()
	c.mu.Unlock()
	conn.Close()
}

func (c *Client) countFault() {
	c.faults++
	if c.faults >= c.opts.MaxFaults && !c.gaveUp {
		c.gaveUp = true
		c.opts.Trace.Event("giving up after %d faults in a row", c.faults)
	}
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
	c.mu.Lock()
	c.stderr = conn.Stderr()
	c.mu.Unlock()
	return err
}
