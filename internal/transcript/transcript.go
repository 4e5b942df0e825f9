// Package transcript writes the line trace of a connection to an
// implementation: every line each way, and referee's own events, timestamped.
package transcript

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Trace records a transcript: every line each way, with timestamps. Its
// methods do nothing on a nil *Trace and are safe for concurrent use.
//
// Each record is one line: an RFC 3339 UTC timestamp, a direction and the
// text. Directions: "->" request, "<-" the implementation's stdout or reply,
// "!!" its stderr, "##" an event of referee's (start, exit, fault, restart).
type Trace struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// New returns a Trace writing to w.
func New(w io.Writer) *Trace { return &Trace{w: w, now: time.Now} }

// Line records one line in a direction ("->", "<-", "!!").
func (t *Trace) Line(dir string, b []byte) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "%s %s %s\n", t.now().UTC().Format("2006-01-02T15:04:05.000000Z"), dir, b)
}

// Event records one of referee's own events ("##").
func (t *Trace) Event(format string, args ...any) {
	if t == nil {
		return
	}
	t.Line("##", fmt.Appendf(nil, format, args...))
}
