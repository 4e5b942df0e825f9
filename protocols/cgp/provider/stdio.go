package provider

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/refereehq/referee/protocols/cgp"
)

// line is one line read from stdin, or the error that ended reading.
type line struct {
	data    []byte
	tooLong bool
	err     error
}

// ServeStdio serves NDJSON from r to w until shutdown or EOF (nil), a crash mode (ErrCrash) or ctx's end.
func (p *Provider) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	if p.mode == modeBanner {
		if _, err := io.WriteString(w, Name+" provider starting\n"); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
	}
	// Reading runs apart so that ctx's end is seen at once; a Read of r that
	// never returns keeps that goroutine until r is closed.
	lines := make(chan line)
	go readLines(ctx, r, lines)
	for {
		var l line
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
		if l.err != nil {
			return fmt.Errorf("reading stdin: %w", l.err)
		}
		reply, out := p.serveLine(l.data, l.tooLong)
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

// readLines sends r's lines (up to cgp.MaxLine bytes each, without the LF)
// until EOF, then closes out; a read error is sent as the last line.
func readLines(ctx context.Context, r io.Reader, out chan<- line) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		l := readLine(br)
		eof := errors.Is(l.err, io.EOF)
		if eof {
			l.err = nil
			if len(l.data) == 0 && !l.tooLong {
				return
			}
		}
		select {
		case out <- l:
		case <-ctx.Done():
			return
		}
		if eof || l.err != nil {
			return
		}
	}
}

// readLine reads one line; past cgp.MaxLine bytes it discards the rest of
// the line and reports it too long.
func readLine(br *bufio.Reader) line {
	var l line
	for {
		chunk, err := br.ReadSlice('\n')
		if !l.tooLong {
			if len(l.data)+len(chunk) > cgp.MaxLine+1 {
				l.tooLong, l.data = true, nil
			} else {
				l.data = append(l.data, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.err = err
		l.data = bytes.TrimSuffix(l.data, []byte("\n"))
		return l
	}
}
