package check

import (
	"context"
	"fmt"
	"time"

	"github.com/refereehq/referee/adapter"
)

// Status is the verdict of one check.
type Status string

// The four statuses.
const (
	Pass       Status = "pass"        // the implementation answered as the corpus requires
	Fail       Status = "fail"        // it answered, wrongly
	NotChecked Status = "not-checked" // a capability it did not declare, or a precondition it could not meet
	Error      Status = "error"       // the adapter broke: crash, hang, garbage
)

// Check is one conformance check.
type Check struct {
	ID    string   // stable, hierarchical, from corpus names: "jcs/numbers/1e21"
	Doc   string   // what it proves, in one sentence
	Needs []string // adapter ops it calls; it is not-checked if any is not offered
	// MissingReason, if set, is the not-checked reason when an op in Needs is
	// not offered, instead of "adapter offers no <op>".
	MissingReason string
	// Explain says, in a few lines, what the check sends and what it expects.
	Explain string
	// ExplainFunc, if set, computes Explain when it is asked for, so that a
	// suite of a large corpus holds no explanation until one is read; read
	// either through Explanation.
	ExplainFunc func() string
	// Level is how strongly the protocol demands it; "" is Must.
	Level Level
	// Clause is the text the check rests on, with its source: "RFC 8785
	// §3.2.3: ... sorted ... as arrays of UTF-16 code units".
	Clause string
	Do     func(ctx context.Context, s *Session) Outcome
}

// Explanation returns what the check sends and expects: Explain, or what
// ExplainFunc computes when Explain is empty.
func (c *Check) Explanation() string {
	if c.Explain == "" && c.ExplainFunc != nil {
		return c.ExplainFunc()
	}
	return c.Explain
}

// Suite is a named, ordered set of checks built from one corpus.
type Suite struct {
	Name         string
	Version      string // the suite's own version, reported with results
	Corpus       string // where the corpus came from: "embedded" or a path
	CorpusDigest string // "sha256:<hex>" of the corpus
	Checks       []Check
}

// Outcome is what a check's Run decides.
type Outcome struct {
	Status   Status
	Reason   string // one line: why it is not a pass
	Expected string
	Actual   string
	Diff     *Diff
	Notes    []string
	// Choice is the conforming outcome a may check's implementation chose
	// (see Chose); it is recorded with the result.
	Choice string
	// Level, when a failure sets it, is the level the failure is judged at
	// instead of the check's: a should check whose implementation changed
	// the value it was given fails as a must.
	Level Level
	err   error
}

// Passed returns a passing outcome.
func Passed() Outcome { return Outcome{Status: Pass} }

// Failed returns a failing outcome with expected and actual values.
func Failed(reason, expected, actual string) Outcome {
	return Outcome{Status: Fail, Reason: reason, Expected: expected, Actual: actual}
}

// Skipped returns a not-checked outcome.
func Skipped(reason string) Outcome { return Outcome{Status: NotChecked, Reason: reason} }

// Broke returns the error outcome of a call that faulted.
func Broke(err error) Outcome { return Outcome{Status: Error, Reason: err.Error(), err: err} }

// SameBytes passes when actual equals expected byte for byte, and otherwise
// fails with both texts and a diff at the first differing offset.
func SameBytes(what string, expected, actual []byte) Outcome {
	d := DiffBytes(expected, actual)
	if d == nil {
		return Passed()
	}
	o := Failed(fmt.Sprintf("%s differs at byte %d", what, d.Offset), string(expected), string(actual))
	o.Diff = d
	return o
}

// Result is the verdict of one check with its evidence.
type Result struct {
	ID       string
	Status   Status
	Level    Level  // the check's level, never ""
	Outcome  string // a may check's chosen outcome, when it passed
	Reason   string
	Expected string
	Actual   string
	Evidence Evidence
	Duration time.Duration
	Known    string // KnownFailing or KnownFlaky when a baseline lists the check
	Stale    bool   // listed as known-failing, yet it passed
	notRun   bool   // never got a verdict: the run ended first
}

// Evidence is what a non-pass result carries so a reader can see and repeat it.
type Evidence struct {
	Diff      *Diff              `json:"diff,omitempty"`
	Notes     []string           `json:"notes,omitempty"`
	Exchanges []adapter.Exchange `json:"-"`
	Stderr    string             `json:"stderr,omitempty"`
	Repro     string             `json:"repro,omitempty"`
}

// empty reports whether e holds no evidence at all.
func (e Evidence) empty() bool {
	return e.Diff == nil && len(e.Notes) == 0 && len(e.Exchanges) == 0 && e.Stderr == "" && e.Repro == ""
}

// Session is a check's handle on the implementation under test; it records
// every exchange for evidence.
type Session struct {
	target    Target
	client    *adapter.Client // the target, when it speaks referee-adapter/1
	exchanges []adapter.Exchange
	stderr    *string // set by UseStderr
	fault     error
}

// Target returns what the check runs against: an *adapter.Client, or the
// live connection a suite's Connect returned.
func (s *Session) Target() Target { return s.target }

// Record adds exchanges to the check's evidence; Call records its own.
func (s *Session) Record(ex ...adapter.Exchange) { s.exchanges = append(s.exchanges, ex...) }

// UseStderr makes text the check's stderr evidence instead of the target's
// (a live check that ran on a connection of its own).
func (s *Session) UseStderr(text string) { s.stderr = &text }

// Call sends op with args (marshalled as JSON; a json.RawMessage is sent as it
// stands) and returns the reply. An error is a fault or a cancelled run: end
// the check with Broke(err).
func (s *Session) Call(ctx context.Context, op string, args any) (*adapter.Reply, error) {
	if s.client == nil {
		return nil, fmt.Errorf("check: %s: the implementation does not speak referee-adapter/1", op)
	}
	raw, err := adapter.MarshalArgs(args)
	if err != nil {
		return nil, fmt.Errorf("check: args of %s: %w", op, err)
	}
	r, ex, err := s.client.Call(ctx, op, raw)
	if ex != nil {
		s.exchanges = append(s.exchanges, *ex)
	}
	if err != nil && s.fault == nil {
		s.fault = err
	}
	return r, err
}

// Offers reports whether the implementation offers op.
func (s *Session) Offers(op string) bool { return s.target.Offers(op) }

// Fault returns the first fault of the session's calls, or nil.
func (s *Session) Fault() error { return s.fault }
