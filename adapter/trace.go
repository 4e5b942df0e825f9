package adapter

import (
	"io"

	"github.com/refereehq/referee/internal/transcript"
)

// Trace records a transcript: every line each way, with timestamps. Its
// methods do nothing on a nil *Trace.
//
// Each record is one line: an RFC 3339 UTC timestamp, a direction and the
// text. Directions: "->" request, "<-" adapter stdout, "!!" adapter stderr,
// "##" an event of referee's (start, exit, fault, restart). Line records a
// line in a direction and Event one of referee's events, for transports
// outside this package that share the format.
type Trace = transcript.Trace

// NewTrace returns a Trace writing to w.
func NewTrace(w io.Writer) *Trace { return transcript.New(w) }
