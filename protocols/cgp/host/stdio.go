package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/refereehq/referee/internal/child"
	"github.com/refereehq/referee/protocols/cgp"
)

// closeGrace is how long close lets a provider exit on its own after its
// stdin closes.
const closeGrace = 100 * time.Millisecond

// stdio is a provider running as a child process in its own process group.
type stdio struct {
	target Target
	proc   *child.Process
	lines  chan []byte   // stdout lines, in order (lock-step: one or two at a time)
	ended  chan struct{} // closed when stdout ends (EOF, or a line too long)
	quit   chan struct{} // closed by close and shutdown: no more lines are taken

	writeMu  sync.Mutex
	mu       sync.Mutex
	endErr   *Error // why stdout ended
	broken   *Error // why the connection can no longer be used
	quitOnce sync.Once
}

func startStdio(t Target) (*stdio, error) {
	if len(t.Argv) == 0 {
		return nil, &Error{Kind: KindSpawn, Msg: "no provider program given"}
	}
	s := &stdio{
		target: t,
		lines:  make(chan []byte, 2), ended: make(chan struct{}), quit: make(chan struct{}),
	}
	s.proc = child.New(child.Config{
		Argv: t.Argv, Dir: t.Dir, Env: t.Env,
		Name:    "provider",
		MaxLine: cgp.MaxLine,
		Stdout:  s.stdout,
		Stderr:  t.Stderr,
		Trace:   t.Trace,
	})
	if err := s.proc.Start(); err != nil {
		return nil, &Error{Kind: KindSpawn, Msg: err.Error()}
	}
	return s, nil
}

// stdout takes each stdout line, and then how stdout ended.
func (s *stdio) stdout(line []byte, err error) {
	switch {
	case err == nil:
		select {
		case <-s.quit: // no one will read it
		default:
			select {
			case s.lines <- line:
			case <-s.quit:
			}
		}
		return
	case errors.Is(err, child.ErrLineTooLong):
		// The child package has killed the process group.
		s.end(&Error{Kind: KindTransport, Msg: fmt.Sprintf("a stdout line is longer than %d bytes; the provider was stopped", cgp.MaxLine)})
	case len(line) > 0:
		s.end(&Error{Kind: KindCrashed, Msg: "stdout ended in the middle of a line"})
	default:
		s.end(&Error{Kind: KindCrashed, Msg: "stdout closed"})
	}
	close(s.ended)
}

func (s *stdio) end(e *Error) {
	s.mu.Lock()
	if s.endErr == nil {
		s.endErr = e
	}
	s.mu.Unlock()
}

// crashed is the error for a provider whose stdout has ended.
func (s *stdio) crashed() *Error {
	// Let the exit status arrive, so the message can say how it ended.
	wait, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	select {
	case <-s.proc.Exited():
	case <-wait.Done():
	}
	status, _ := s.proc.ExitStatus()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := *s.endErr
	if status != "" {
		e.Msg += "; the provider " + status
	}
	return &e
}

func (s *stdio) write(ctx context.Context, line []byte) error {
	s.target.Trace.Line("->", line)
	done := make(chan error, 1)
	go func() {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		_, err := s.proc.Stdin().Write(append(line[:len(line):len(line)], '\n'))
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
	select {
	case <-s.proc.Exited():
		s.close()
		return &Error{Kind: KindCrashed, Msg: "the provider vanished before shutdown could be attempted (" + s.exitText() + ")"}
	default:
	}
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	werr := s.write(wctx, line)
	cancel()
	// Nothing is read after shutdown. Stop closes stdin, which also ends a
	// write still blocked on a provider that does not read, and kills
	// whatever the provider left behind.
	s.quitOnce.Do(func() { close(s.quit) })
	killed, err := s.proc.Stop(ctx, ShutdownGrace)
	switch {
	case err != nil:
		return ctx.Err()
	case killed:
		return &Error{Kind: KindTimeout, Msg: fmt.Sprintf("the provider did not exit within %s of shutdown; its process group was killed", ShutdownGrace)}
	case werr != nil:
		return &Error{Kind: KindCrashed, Msg: "the provider vanished before shutdown could be attempted (" + s.exitText() + ")"}
	}
	if status, code := s.proc.ExitStatus(); code != 0 {
		return &Error{Kind: KindCrashed, Msg: "after shutdown the provider " + status}
	}
	return nil
}

func (s *stdio) exitText() string {
	status, _ := s.proc.ExitStatus()
	return "it " + status
}

// close stops the provider: it has closeGrace to exit once its stdin closes,
// then its process group is killed. It returns once the provider's output
// has been read (or abandoned to a grandchild still holding it).
func (s *stdio) close() {
	s.quitOnce.Do(func() { close(s.quit) })
	s.proc.Stop(context.Background(), closeGrace)
}

func (s *stdio) stderr() string { return s.proc.Stderr() }
