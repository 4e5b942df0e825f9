package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/refereehq/referee/protocols/cgp"
)

// ServeStdio serves NDJSON from r to w until shutdown or EOF (nil), a crash mode (ErrCrash) or ctx's end.
func (p *Provider) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	if p.mode == modeBanner {
		if _, err := io.WriteString(w, Name+" provider starting\n"); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
	}
	// Reading runs apart so that ctx's end is seen at once; a Read of r that
	// never returns keeps that goroutine until r is closed.
	lines := make(chan cgp.Line)
	go cgp.ReadLines(ctx, r, false, lines)
	for {
		var l cgp.Line
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok = <-lines:
		}
		if !ok {
			if p.mode == modeHangOnShutdown {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}
		if l.Err != nil {
			return fmt.Errorf("reading stdin: %w", l.Err)
		}
		reply, out := p.serveLine(l.Data, l.TooLong)
		switch out {
		case outCrash:
			return ErrCrash
		case outShutdown:
			return nil
		}
		if reply == nil {
			continue
		}
		b, err := p.encode(reply)
		if err != nil {
			return fmt.Errorf("encoding a %s reply: %w", reply.Type, err)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
	}
}

// serveLine answers one stdin line; a blank line is ignored.
func (p *Provider) serveLine(data []byte, tooLong bool) (*cgp.Envelope, outcome) {
	if tooLong {
		return p.garbage(fmt.Sprintf("line was longer than %d bytes", cgp.MaxLine))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, outReply
	}
	return p.handle(data, msgBadLine)
}
