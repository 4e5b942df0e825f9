package child

import (
	"bufio"
	"io"
	"sync"
)

// Tail keeps the last n bytes written to it; it is safe for concurrent use.
type Tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

// NewTail returns a Tail that keeps n bytes.
func NewTail(n int) *Tail { return &Tail{n: n} }

// Write keeps the end of what has been written.
func (t *Tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.n {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.n:]...)
	}
	return len(b), nil
}

// String returns the bytes kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// copyChunks reads r until it ends and hands each chunk to sink: a line with
// its newline, or at most chunkSize bytes of a longer one, so a line without
// a newline cannot exhaust memory.
func copyChunks(r io.Reader, sink func(chunk []byte)) {
	br := bufio.NewReaderSize(r, chunkSize)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			sink(chunk)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}
