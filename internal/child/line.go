package child

import (
	"bufio"
	"errors"
	"io"
)

// ErrLineTooLong is the error of a line longer than the cap it was read with.
var ErrLineTooLong = errors.New("line too long")

// chunkSize is the reader's buffer: a line grows by at most this much past
// its cap before it is refused.
const chunkSize = 64 << 10

func newReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, chunkSize) }

// ReadLine reads one line without its newline (or CRLF); past max bytes it returns ErrLineTooLong with what it read (at most max plus br's size).
func ReadLine(br *bufio.Reader, max int) ([]byte, error) { return appendLine(nil, br, max) }

// appendLine is ReadLine going on with a line whose start, line, an
// earlier call returned with an error (a read deadline): on any error it
// returns all it has of the line, to be passed in again or given up.
func appendLine(line []byte, br *bufio.Reader, max int) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		n := len(line)
		if err == nil {
			n-- // the newline
		}
		if n > max {
			return line, ErrLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return line, err
		}
		line = line[:n]
		if n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		return line, nil
	}
}
