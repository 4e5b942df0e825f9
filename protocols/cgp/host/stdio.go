package host

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/refereehq/referee/internal/childlog"
	"github.com/refereehq/referee/internal/procgroup"
	"github.com/refereehq/referee/protocols/cgp"
)

// stdio is a provider running as a child process in its own process group.
type stdio struct {
	target Target
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte   // stdout lines, in order (lock-step: one or two at a time)
	ended  chan struct{} // closed when stdout ends (EOF, or a line too long)
	exited chan struct{} // closed when the process has exited
	quit   chan struct{} // closed by close: the reader stops delivering
	tail   *childlog.Tail

	writeMu  sync.Mutex
	mu       sync.Mutex
	endErr   *Error // why stdout ended
	broken   *Error // why the connection can no longer be used
	status   string // how the process exited
	code     int
	quitOnce sync.Once
}

func startStdio(t Target) (*stdio, error) {
	if len(t.Argv) == 0 {
		return nil, &Error{Kind: KindSpawn, Msg: "no provider program given"}
	}
	cmd := exec.Command(t.Argv[0], t.Argv[1:]...)
	cmd.Dir, cmd.Env = t.Dir, t.Env
	procgroup.Set(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, &Error{Kind: KindSpawn, Msg: err.Error()}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, &Error{Kind: KindSpawn, Msg: err.Error()}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, &Error{Kind: KindSpawn, Msg: err.Error()}
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, &Error{Kind: KindSpawn, Msg: fmt.Sprintf("cannot start %q: %v", t.Argv[0], err)}
	}
	s := &stdio{
		target: t, cmd: cmd, stdin: stdin,
		lines: make(chan []byte, 2), ended: make(chan struct{}), exited: make(chan struct{}), quit: make(chan struct{}),
		tail: childlog.NewTail(64 << 10),
	}
	t.Trace.Event("started %q (pid %d)", t.Argv, cmd.Process.Pid)
	go s.readStdout(outR)
	go s.copyStderr(errR)
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.status, s.code = exitStatus(err, cmd.ProcessState)
		s.mu.Unlock()
		t.Trace.Event("provider %s", s.status)
		close(s.exited)
		// A grandchild may hold the pipes open: give it a moment, then stop.
		time.AfterFunc(500*time.Millisecond, func() { outR.Close(); errR.Close() })
	}()
	return s, nil
}

func exitStatus(err error, st *os.ProcessState) (string, int) {
	switch {
	case st == nil:
		return fmt.Sprintf("ended (%v)", err), -1
	case st.Exited():
		return fmt.Sprintf("exited with status %d", st.ExitCode()), st.ExitCode()
	}
	return "ended: " + st.String(), -1
}

func (s *stdio) readStdout(r io.Reader) {
	defer close(s.ended)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var line []byte
		for {
			chunk, err := br.ReadSlice('\n')
			line = append(line, chunk...)
			if len(line) > cgp.MaxLine+1 {
				s.target.Trace.Line("<-", line[:4096])
				s.end(&Error{Kind: KindTransport, Msg: fmt.Sprintf("a stdout line is longer than %d bytes; the provider was stopped", cgp.MaxLine)})
				procgroup.Kill(s.cmd)
				go io.Copy(io.Discard, br) // never block the child on a full pipe
				return
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if len(line) > 0 {
					s.target.Trace.Line("<-", line)
					s.end(&Error{Kind: KindCrashed, Msg: "stdout ended in the middle of a line"})
				} else {
					s.end(&Error{Kind: KindCrashed, Msg: "stdout closed"})
				}
				return
			}
			break
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		s.target.Trace.Line("<-", line)
		select {
		case s.lines <- line:
		case <-s.quit:
			go io.Copy(io.Discard, br)
			return
		}
	}
}

func (s *stdio) end(e *Error) {
	s.mu.Lock()
	if s.endErr == nil {
		s.endErr = e
	}
	s.mu.Unlock()
}

func (s *stdio) copyStderr(r io.Reader) {
	childlog.Copy(r, func(chunk []byte) {
		s.tail.Write(chunk)
		s.target.Trace.Line("!!", bytes.TrimRight(chunk, "\n"))
		if s.target.Stderr != nil {
			s.target.Stderr.Write(chunk)
		}
	})
}

// crashed is the error for a provider whose stdout has ended.
func (s *stdio) crashed() *Error {
	// Let the exit status arrive, so the message can say how it ended.
	select {
	case <-s.exited:
	case <-time.After(200 * time.Millisecond):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := *s.endErr
	if s.status != "" {
		e.Msg += "; the provider " + s.status
	}
	return &e
}

func (s *stdio) write(ctx context.Context, line []byte) error {
	s.target.Trace.Line("->", line)
	done := make(chan error, 1)
	go func() {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		_, err := s.stdin.Write(append(line[:len(line):len(line)], '\n'))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return &Error{Kind: KindCrashed, Msg: fmt.Sprintf("writing to its stdin: %v", err)}
		}
		return nil
	case <-ctx.Done():
		s.breakWith(&Error{Kind: KindTimeout, Msg: "an earlier request could not be written: the provider is not reading its stdin"})
		return &Error{Kind: KindTimeout, Msg: "the provider is not reading its stdin"}
	}
}

// breakWith marks the connection unusable: after a timeout a late reply
// would be read as the answer to the next request.
func (s *stdio) breakWith(e *Error) {
	s.mu.Lock()
	if s.broken == nil {
		s.broken = e
	}
	s.mu.Unlock()
}

func (s *stdio) unusable() *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

func (s *stdio) roundTrip(ctx context.Context, line []byte) ([]byte, error) {
	if e := s.unusable(); e != nil {
		return nil, e
	}
	select {
	case <-s.ended:
		if len(s.lines) == 0 {
			return nil, s.crashed()
		}
	default:
	}
	if err := s.write(ctx, line); err != nil {
		return nil, err
	}
	return s.next(ctx)
}

// next returns the provider's next stdout line. Exchanges are lock-step, so
// a line the provider wrote unasked is read as the reply to the next request.
func (s *stdio) next(ctx context.Context) ([]byte, error) {
	select {
	case l := <-s.lines:
		return l, nil
	case <-s.ended:
		select {
		case l := <-s.lines:
			return l, nil
		default:
		}
		return nil, s.crashed()
	case <-ctx.Done():
		s.breakWith(&Error{Kind: KindTimeout, Msg: "an earlier request on this connection got no reply in time; a late reply could be taken for another's, so the connection is no longer used"})
		return nil, ctx.Err()
	}
}

func (s *stdio) shutdown(ctx context.Context, line []byte) error {
	defer procgroup.Kill(s.cmd) // whatever it left behind
	select {
	case <-s.exited:
		return &Error{Kind: KindCrashed, Msg: "the provider vanished before shutdown could be attempted (" + s.exitText() + ")"}
	default:
	}
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	werr := s.write(wctx, line)
	cancel()
	s.stdin.Close() // also ends a write still blocked on a provider that does not read
	select {
	case <-s.exited:
	case <-time.After(ShutdownGrace):
		procgroup.Kill(s.cmd)
		<-s.exited
		return &Error{Kind: KindTimeout, Msg: fmt.Sprintf("the provider did not exit within %s of shutdown; its process group was killed", ShutdownGrace)}
	case <-ctx.Done():
		return ctx.Err()
	}
	if werr != nil {
		return &Error{Kind: KindCrashed, Msg: "the provider vanished before shutdown could be attempted (" + s.exitText() + ")"}
	}
	s.mu.Lock()
	code, status := s.code, s.status
	s.mu.Unlock()
	if code != 0 {
		return &Error{Kind: KindCrashed, Msg: "after shutdown the provider " + status}
	}
	return nil
}

func (s *stdio) exitText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "it " + s.status
}

func (s *stdio) close() {
	s.quitOnce.Do(func() { close(s.quit) })
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(100 * time.Millisecond):
	}
	procgroup.Kill(s.cmd)
}

func (s *stdio) stderr() string { return s.tail.String() }
