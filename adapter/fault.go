package adapter

import (
	"errors"
	"fmt"
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
	Line []byte // the offending line, when there is one (at most 4 KiB of it)
	Err  error
}

func (f *Fault) Error() string {
	s := "adapter " + string(f.Kind) + ": " + f.Msg
	if f.Err != nil {
		s += ": " + f.Err.Error()
	}
	return s
}

func (f *Fault) Unwrap() error { return f.Err }

func fault(kind FaultKind, line []byte, format string, args ...any) *Fault {
	if len(line) > 4096 {
		line = line[:4096]
	}
	return &Fault{Kind: kind, Msg: fmt.Sprintf(format, args...), Line: append([]byte(nil), line...)}
}

// ErrGaveUp is returned for every call after the adapter faulted too many
// times in a row.
var ErrGaveUp = errors.New("adapter: gave up after repeated faults")

// IsFault reports whether err is an adapter fault or the give-up that follows them.
func IsFault(err error) bool {
	var f *Fault
	return errors.As(err, &f) || errors.Is(err, ErrGaveUp)
}
