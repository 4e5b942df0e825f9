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
	lastRead atomic.Int64  // when the last ReadStdout caller let go of it (UnixNano)
	wait     time.Duration // idleWait, or a test's

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
	r.idle = time.AfterFunc(time.Hour, r.idleCheck)
	r.idle.Stop()
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
	since := time.Duration(time.Now().UnixNano() - r.lastRead.Load())
	if r.leading.Load() || since < r.wait {
		r.idle.Reset(r.wait - min(since, r.wait) + r.wait/20)
		return
	}
	r.wakeUp()
}

// readStdout is the Process's reading goroutine: it reads stdout while no
// one else does and (in on-demand reading) someone waits or no one has read
// for idleWait; after the end, it drains stdout.
func (p *Process) readStdout() {
	defer close(p.stdoutDone)
	r := &p.out
	for !r.ended {
		p.readLine(false)
		if r.ended || !r.onDemand || p.cfg.Waiting() || bufferedLine(r.br) {
			continue
		}
		// No one waits: leave stdout to the callers, unless one came just now.
		r.turn <- struct{}{}
		if p.cfg.Waiting() {
			select {
			case <-r.turn:
				continue
			default:
			}
		}
		r.idle.Reset(r.wait)
		r.parked.Store(true)
		<-r.wake
		r.parked.Store(false)
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
	if !r.ended {
		p.stdout.SetReadDeadline(time.Time{}) // an interruption meant for an earlier reader
		for !r.ended && !done() && p.readLine(true) {
		}
		// Lines already read from the pipe are handed on now, as the
		// reading goroutine would: an unsolicited one must not wait for the
		// next call.
		for !r.ended && bufferedLine(r.br) && p.readLine(true) {
		}
		p.stdout.SetReadDeadline(time.Time{})
	}
	ended := r.ended
	r.lastRead.Store(time.Now().UnixNano())
	r.leading.Store(false)
	r.turn <- struct{}{}
	if ended || p.cfg.Waiting() {
		r.wakeUp() // to drain, or to read for the others waiting
	}
	return true
}

// InterruptRead ends the read of a ReadStdout caller blocked on the pipe.
func (p *Process) InterruptRead() {
	if p.out.leading.Load() {
		p.stdout.SetReadDeadline(time.Unix(1, 0))
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
		chunk, err := r.br.ReadSlice('\n')
		r.line = append(r.line, chunk...)
		n := len(r.line)
		if err == nil {
			n-- // the newline
		}
		switch {
		case n > p.cfg.MaxLine:
			line := r.line
			r.line, r.ended = nil, true
			p.cfg.Trace.Line("<-", line[:min(len(line), MaxKept)])
			p.cfg.Stdout(line, ErrLineTooLong)
			killGroup(p.cmd)
			return true
		case err == bufio.ErrBufferFull:
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			if foreground {
				return false
			}
			p.stdout.SetReadDeadline(time.Time{})
			continue
		case err != nil:
			line := r.line
			r.line, r.ended = nil, true
			if len(line) > 0 {
				p.cfg.Trace.Line("<-", line)
				p.mu.Lock()
				p.midLine = true
				p.mu.Unlock()
			}
			p.cfg.Stdout(line, err)
			return true
		}
		line := r.line[:n]
		r.line = nil
		if n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		p.cfg.Trace.Line("<-", line)
		p.cfg.Stdout(line, nil)
		return true
	}
}
