package child

import (
	"bytes"
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

// chunker cuts a stream into chunks: a line with its newline, or at most
// chunkSize bytes of a longer one, so a line without a newline cannot
// exhaust memory.
type chunker struct {
	part []byte // the start of a line, shorter than chunkSize
}

// feed hands each chunk that b completes to sink.
func (c *chunker) feed(b []byte, sink func(chunk []byte)) {
	for len(b) > 0 {
		seg := b[:min(len(b), chunkSize-len(c.part))]
		if i := bytes.IndexByte(seg, '\n'); i >= 0 {
			seg = seg[:i+1]
		}
		b = b[len(seg):]
		whole := seg[len(seg)-1] == '\n' || len(c.part)+len(seg) == chunkSize
		switch {
		case !whole:
			c.part = append(c.part, seg...)
		case len(c.part) == 0:
			sink(seg)
		default:
			c.part = append(c.part, seg...)
			sink(c.part)
			c.part = c.part[:0]
		}
	}
}

// flush hands on the unterminated end of the stream, if any.
func (c *chunker) flush(sink func(chunk []byte)) {
	if len(c.part) > 0 {
		sink(c.part)
		c.part = nil
	}
}
