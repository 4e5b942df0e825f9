package adapter

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Trace records a transcript: every line each way, with timestamps. Its
// methods do nothing on a nil *Trace.
//
// Each record is one line: an RFC 3339 UTC timestamp, a direction and the
// text. Directions: "->" request, "<-" adapter stdout, "!!" adapter stderr,
// "##" an event of referee's (start, exit, fault, restart).
type Trace struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewTrace returns a Trace writing to w.
func NewTrace(w io.Writer) *Trace { return &Trace{w: w, now: time.Now} }

func (t *Trace) line(dir string, b []byte) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "%s %s %s\n", t.now().UTC().Format("2006-01-02T15:04:05.000000Z"), dir, b)
}

func (t *Trace) event(format string, args ...any) {
	if t == nil {
		return
	}
	t.line("##", fmt.Appendf(nil, format, args...))
}

// Line records one line in a direction ("->", "<-", "!!"), for transports
// outside this package that share the trace format.
func (t *Trace) Line(dir string, b []byte) { t.line(dir, b) }

// Event records one of referee's own events ("##").
func (t *Trace) Event(format string, args ...any) { t.event(format, args...) }
