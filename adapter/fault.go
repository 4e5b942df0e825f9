package adapter

import (
	"errors"
	"fmt"

	"github.com/refereehq/referee/internal/child"
)

// FaultKind names the way an adapter broke the protocol.
type FaultKind string

// The fault kinds.
const (
	FaultStart     FaultKind = "start"      // the program could not be started
	FaultExit      FaultKind = "exit"       // the adapter exited or crashed
	FaultTimeout   FaultKind = "timeout"    // no reply within the per-call timeout
	FaultBadLine   FaultKind = "bad-line"   // a stdout line that is not a valid reply
	FaultUnknownID FaultKind = "unknown-id" // a reply to no request in flight
	FaultTooLong   FaultKind = "too-long"   // a stdout line over MaxLine bytes
	FaultHello     FaultKind = "hello"      // the hello exchange failed
	FaultHTTP      FaultKind = "http"       // an HTTP adapter answered with a non-2xx status or not at all
	FaultClosed    FaultKind = "closed"     // the connection was closed while the call was in flight
)

// Fault is an adapter's breach of the protocol: the check in flight ends in
// error and the connection is restarted.
type Fault struct {
	Kind FaultKind
	Msg  string
	Line []byte // the offending line, when there is one (at most MaxKept bytes of it)
	Err  error

	unsent bool // the request never reached the adapter: the connection had ended
	clean  bool // the adapter exited with status 0, not in the middle of a line
}

func (f *Fault) Error() string {
	s := "adapter " + string(f.Kind) + ": " + f.Msg
	if f.Err != nil {
		s += ": " + f.Err.Error()
	}
	return s
}

func (f *Fault) Unwrap() error { return f.Err }

// MaxKept is how much of an offending or over-long line a fault, an
// exchange and the trace keep.
const MaxKept = child.MaxKept

func fault(kind FaultKind, line []byte, format string, args ...any) *Fault {
	return &Fault{Kind: kind, Msg: fmt.Sprintf(format, args...), Line: clip(line)}
}

// clip returns a copy of at most MaxKept bytes of line.
func clip(line []byte) []byte {
	return append([]byte(nil), line[:min(len(line), MaxKept)]...)
}

// ErrGaveUp is returned for every call after the adapter faulted too many
// times in a row.
var ErrGaveUp = errors.New("adapter gave up after repeated faults")

// asFault returns err as a *Fault, or nil.
func asFault(err error) *Fault {
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// IsFault reports whether err is an adapter fault or the give-up that follows them.
func IsFault(err error) bool {
	var f *Fault
	return errors.As(err, &f) || errors.Is(err, ErrGaveUp)
}
