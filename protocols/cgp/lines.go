package cgp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// Line is one line of a stream of envelopes, or the error that ended it.
type Line struct {
	Data    []byte // the line without its ending; nil when TooLong
	TooLong bool   // the line was longer than MaxLine bytes (the rest was discarded)
	Err     error  // a read error other than io.EOF: the last Line sent
}

// ReadLines sends r's lines, up to MaxLine bytes each, without the LF that
// ends them (and without a CR before it, when crlf is set), until r ends,
// then closes out; a read error is sent as the last line. It returns when
// ctx ends; a Read of r that never returns keeps it until r is closed.
func ReadLines(ctx context.Context, r io.Reader, crlf bool, out chan<- Line) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		l := readLine(br, crlf)
		eof := errors.Is(l.Err, io.EOF)
		if eof {
			l.Err = nil
			if len(l.Data) == 0 && !l.TooLong {
				return
			}
		}
		select {
		case out <- l:
		case <-ctx.Done():
			return
		}
		if eof || l.Err != nil {
			return
		}
	}
}

// readLine reads one line; past MaxLine bytes (and its ending) it discards
// the rest of the line and reports it too long.
func readLine(br *bufio.Reader, crlf bool) Line {
	ending := 1 // the LF
	if crlf {
		ending = 2
	}
	var l Line
	for {
		chunk, err := br.ReadSlice('\n')
		if !l.TooLong {
			if len(l.Data)+len(chunk) > MaxLine+ending {
				l.TooLong, l.Data = true, nil
			} else {
				l.Data = append(l.Data, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.Err = err
		l.Data = bytes.TrimSuffix(l.Data, []byte("\n"))
		if crlf {
			l.Data = bytes.TrimSuffix(l.Data, []byte("\r"))
		}
		if len(l.Data) > MaxLine { // the last line, without its LF
			l.TooLong, l.Data = true, nil
		}
		return l
	}
}
