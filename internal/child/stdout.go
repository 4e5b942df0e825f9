package child

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// idleWait is how long stdout may go unread, in on-demand reading
// (Config.Waiting), before the Process's goroutine reads it again.
const idleWait = 2 * time.Millisecond

// stdoutReader is the state of reading stdout. One goroutine at a time
// reads: the one holding the turn.
type stdoutReader struct {
	turn     chan struct{} // holds a token while no goroutine reads
	wake     chan struct{} // wakes the Process's reading goroutine
	idle     *time.Timer   // wakes it when stdout has gone unread for idleWait
	onDemand bool          // Config.Waiting is set and stdout takes read deadlines
	leading  atomic.Bool   // a ReadStdout caller holds the turn
	parked   atomic.Bool   // the Process's goroutine waits to be woken
	lastRead atomic.Int64  // when the last ReadStdout caller let go of it (since epoch)
	epoch    time.Time     // the start, for lastRead on the monotonic clock
	wait     time.Duration // idleWait, or a test's
	pause    func()        // tests: called at each hand-over point

	// Under the turn:
	br    *bufio.Reader
	line  []byte // the part of a line read before a read was interrupted
	ended bool   // the end of stdout (or a line over the cap) was handed on
}

func (r *stdoutReader) start(p *Process) {
	r.turn = make(chan struct{}, 1)
	r.wake = make(chan struct{}, 1)
	r.br = newReader(p.stdout)
	r.onDemand = p.cfg.Waiting != nil && p.stdout.SetReadDeadline(time.Time{}) == nil
	r.wait = cmp.Or(p.cfg.idleWait, idleWait)
	r.epoch = time.Now()
	r.pause = p.cfg.pause
	r.idle = time.AfterFunc(time.Hour, r.idleCheck)
	r.idle.Stop()
}

// yield lets a test pause at a hand-over point.
func (r *stdoutReader) yield() {
	if r.pause != nil {
		r.pause()
	}
}

// wakeUp wakes the Process's reading goroutine, if it is idle.
func (r *stdoutReader) wakeUp() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// idleCheck wakes the reading goroutine once no ReadStdout caller has read
// for idleWait; until then it checks again.
func (r *stdoutReader) idleCheck() {
	since := time.Since(r.epoch) - time.Duration(r.lastRead.Load())
	if r.leading.Load() || since < r.wait {
		r.idle.Reset(r.wait - min(since, r.wait) + r.wait/20)
		return
	}
	r.wakeUp()
}

// readStdout is the Process's reading goroutine: it reads stdout while no
// one else does and (in on-demand reading) someone waits, no one has read
// for idleWait or the child has exited; after the end, it drains stdout.
func (p *Process) readStdout() {
	defer close(p.stdoutDone)
	r := &p.out
	for !r.ended {
		p.readLine(false)
		r.yield()
		if r.ended || !r.onDemand || p.cfg.Waiting() || bufferedLine(r.br) || p.hasExited() {
			continue // (once the child has exited, on to the end)
		}
		// No one waits: leave stdout to the callers, unless one came just now.
		r.yield()
		r.turn <- struct{}{}
		r.yield()
		if p.cfg.Waiting() {
			select {
			case <-r.turn:
				continue
			default:
			}
		}
		r.yield()
		r.idle.Reset(r.wait)
		r.parked.Store(true)
		<-r.wake
		r.parked.Store(false)
		r.yield()
		<-r.turn
	}
	r.idle.Stop()
	// Drain, so the child is never blocked writing to a full pipe. The turn
	// is never given back: no one else reads any more.
	io.Copy(io.Discard, r.br)
}

// ReadStdout reads stdout on the calling goroutine, handing each line to
// Config.Stdout, until done reports true, stdout ends or InterruptRead is
// called; lines already read from the pipe are handed on too. It reads
// nothing and returns false when another goroutine is reading (the lines
// then reach Config.Stdout from there), and always when Config.Waiting is
// nil. done is called before each line: whoever calls InterruptRead must
// first make done report true.
func (p *Process) ReadStdout(done func() bool) bool {
	r := &p.out
	if !r.onDemand {
		return false
	}
	select {
	case <-r.turn:
	default:
		return false
	}
	r.leading.Store(true)
	r.yield()
	if !r.ended {
		p.stdout.SetReadDeadline(time.Time{}) // an interruption meant for an earlier reader
		for !r.ended && !done() && p.readLine(true) {
			r.yield()
		}
		// Lines already read from the pipe are handed on now, as the
		// reading goroutine would: an unsolicited one must not wait for the
		// next call.
		for !r.ended && bufferedLine(r.br) && p.readLine(true) {
		}
		p.stdout.SetReadDeadline(time.Time{})
	}
	ended := r.ended
	r.lastRead.Store(int64(time.Since(r.epoch)))
	r.leading.Store(false)
	r.yield()
	r.turn <- struct{}{}
	r.yield()
	if ended || p.cfg.Waiting() {
		r.wakeUp() // to drain, or to read for the others waiting
	}
	return true
}

// InterruptRead ends the read of a ReadStdout caller blocked on the pipe.
func (p *Process) InterruptRead() {
	if p.out.leading.Load() {
		p.out.yield()
		p.stdout.SetReadDeadline(time.Unix(1, 0))
	}
}

// hasExited reports whether the child has exited.
func (p *Process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// bufferedLine reports whether br holds a whole line.
func bufferedLine(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// readLine reads one stdout line, or its end, and hands it to
// Config.Stdout; it returns false, keeping what it read of the line, when
// the read was interrupted (InterruptRead; the Process's goroutine, which
// is never meant, clears the deadline and goes on). The caller holds the
// turn.
func (p *Process) readLine(foreground bool) bool {
	r := &p.out
	for {
		line, err := appendLine(r.line, r.br, p.cfg.MaxLine)
		r.line = nil
		switch {
		case err == nil:
			p.cfg.Trace.Line("<-", line)
			p.cfg.Stdout(line, nil)
		case errors.Is(err, os.ErrDeadlineExceeded):
			r.line = line
			if foreground {
				return false
			}
			p.stdout.SetReadDeadline(time.Time{})
			continue
		case errors.Is(err, ErrLineTooLong):
			r.ended = true
			p.cfg.Trace.Line("<-", line[:min(len(line), MaxKept)])
			p.cfg.Stdout(line, ErrLineTooLong)
			killGroup(p.cmd)
		default:
			r.ended = true
			if len(line) > 0 {
				p.cfg.Trace.Line("<-", line)
				p.mu.Lock()
				p.midLine = true
				p.mu.Unlock()
			}
			p.cfg.Stdout(line, err)
		}
		return true
	}
}
