package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
)

// Expect is one op call of a check and the answer it wants: a check that
// calls an op states the op, its args and the answer, and the methods of
// Expect judge the reply. A fault ends the check in error (Broke); an err
// where an ok is wanted, an ok where an err is, an ok of another JSON type
// or another value fails it, with what was wanted (Expected) and what came
// (Actual); the Session records the request and the reply as evidence.
//
// Bytes, Value, Refused, Verdict and Word return the check's outcome.
// Reply, OK, Text, Object and Refusal return the answer for a suite's own
// judgement, or false and the outcome that ends the check.
type Expect struct {
	Op   string
	Args any // sent as Session.Call sends them
	// Want is the answer wanted, as a failure shows it (Outcome.Expected).
	// When it is "", Bytes, Value, Verdict and Word show the answer they
	// are given, and Refused the code wanted ("err" when any will do).
	Want string
	// Because, if set, is the reason of a failure where the answer is the
	// other of ok and err than the one wanted, and for Verdict of any
	// wrong answer: a sentence of the suite's that says what the answer
	// means ("decodeMessage accepted a payload it must reject with ...").
	Because string
	// Notes are added to a failure of the answer's value (bytes or a
	// value that differ, another verdict, another err code, an ok where an
	// err is wanted): what the rule is, what the answer matches.
	Notes []string
	// MayRefuse says a refusal is the other conforming outcome of a may
	// check: an err where an ok is wanted passes as Chose(ChoseReject), and
	// the answer wanted, from Bytes or Value, as Chose(ChoseOutput).
	MayRefuse bool
	// Words, if set, word each failure as the suite has it: they are given
	// the failure as the engine words it (Miss.Outcome) and return it as
	// the suite says it.
	Words func(m Miss) Outcome
}

// Miss is a failure of an Expect as the engine words it, for Words.
type Miss struct {
	Kind MissKind
	Op   string
	Err  *adapter.Error // the err answer (Erred, Miscoded)
	OK   *canon.Value   // the ok answer (Mistyped, Accepted, Differs)
	// Outcome is the failure in the engine's words:
	//   Erred:    Because, or "OP failed: ERR"; actual "err: ERR"
	//   Mistyped: "OP returned KIND, not WANTED" ("a string", "an object",
	//             "true or false"; for a verdict, Because), actual the ok
	//             as JSON text
	//   Accepted: Because, or "OP accepted what it must refuse"; actual
	//             "accepted", with the note "it returned: OK"
	//   Miscoded: "OP rejected with CODE, want CODES", actual CODE
	//   Differs:  SameBytes's words for bytes and values; for a verdict
	//             Because or "OP said GOT", for a verdict word "the verdict
	//             is GOT, want WANT", actual the answer
	Outcome Outcome
}

// MissKind is how an answer missed the one an Expect wanted.
type MissKind int

// The kinds of miss.
const (
	Erred    MissKind = iota + 1 // an err where an ok is wanted
	Mistyped                     // an ok of another JSON type than the one wanted
	Accepted                     // an ok where an err is wanted
	Miscoded                     // an err whose code is not one of those wanted
	Differs                      // an ok of the type wanted with another value
)

// CodeOf is an err answer's code as Refused compares and shows it:
// "unknown" when it has none.
func CodeOf(e *adapter.Error) string {
	if e.Code == "" {
		return "unknown"
	}
	return e.Code
}

// Reply sends the call and returns the reply, whichever of ok and err it
// is; a fault returns false and Broke's outcome.
func (e Expect) Reply(ctx context.Context, s *Session) (*adapter.Reply, Outcome, bool) {
	r, err := s.Call(ctx, e.Op, e.Args)
	if err != nil {
		return nil, Broke(err), false
	}
	return r, Outcome{}, true
}

// OK sends the call and returns its ok value, of any JSON type; an err
// fails the check (Erred), or passes it as a rejection chosen when
// MayRefuse.
func (e Expect) OK(ctx context.Context, s *Session) (canon.Value, Outcome, bool) {
	r, o, ok := e.Reply(ctx, s)
	if !ok {
		return canon.Value{}, o, false
	}
	if r.Err != nil {
		if e.MayRefuse {
			return canon.Value{}, Chose(ChoseReject), false
		}
		reason := e.Op + " failed: " + r.Err.Error()
		if e.Because != "" {
			reason = e.Because
		}
		return canon.Value{}, e.miss(Miss{Kind: Erred, Err: r.Err, Outcome: Failed(reason, e.Want, "err: "+r.Err.Error())}), false
	}
	return *r.OK, Outcome{}, true
}

// Text is OK for an op that answers a string: another type fails the
// check (Mistyped).
func (e Expect) Text(ctx context.Context, s *Session) (string, Outcome, bool) {
	v, o, ok := e.typed(ctx, s, canon.String, "a string")
	return v.Str, o, ok
}

// Object is OK for an op that answers an object: another type fails the
// check (Mistyped).
func (e Expect) Object(ctx context.Context, s *Session) (canon.Value, Outcome, bool) {
	return e.typed(ctx, s, canon.Object, "an object")
}

// typed is OK for an op that answers a value of kind, named by noun.
func (e Expect) typed(ctx context.Context, s *Session, kind canon.Kind, noun string) (canon.Value, Outcome, bool) {
	v, o, ok := e.OK(ctx, s)
	if !ok {
		return v, o, false
	}
	if v.Kind != kind {
		return v, e.mistyped(v, e.Op+" returned "+v.Kind.String()+", not "+noun), false
	}
	return v, Outcome{}, true
}

// Bytes expects a string whose bytes are want; what names it in a failure
// ("canonical text": "canonical text differs at byte 3"), which carries
// the diff.
func (e Expect) Bytes(ctx context.Context, s *Session, what string, want []byte) Outcome {
	if e.Want == "" {
		e.Want = string(want)
	}
	got, o, ok := e.Text(ctx, s)
	if !ok {
		return o
	}
	return e.same(what, want, []byte(got), &canon.Value{Kind: canon.String, Str: got})
}

// Value expects an ok equal to want, compared by their RFC 8785 (JCS)
// texts, which a failure shows with the diff; what names it ("the proof
// (as RFC 8785 text)"). An ok of another JSON type than want, or with no
// RFC 8785 form, is Mistyped.
func (e Expect) Value(ctx context.Context, s *Session, what string, want canon.Value) Outcome {
	wantText, err := canon.JCS.Append(nil, want)
	if err != nil {
		return Outcome{Status: Error, Reason: fmt.Sprintf("%s: the answer wanted has no RFC 8785 form: %v", what, err)}
	}
	if e.Want == "" {
		e.Want = string(wantText)
	}
	got, o, ok := e.OK(ctx, s)
	if !ok {
		return o
	}
	if got.Kind != want.Kind {
		return e.mistyped(got, e.Op+" returned "+got.Kind.String()+", not "+article(want.Kind))
	}
	gotText, err := canon.JCS.Append(nil, got)
	if err != nil {
		return e.mistyped(got, e.Op+" returned a value with no RFC 8785 form: "+err.Error())
	}
	return e.same(what, wantText, gotText, &got)
}

// article names a JSON type with its article: "an object", "a string".
func article(k canon.Kind) string {
	switch k {
	case canon.Object, canon.Array:
		return "an " + k.String()
	case canon.Bool:
		return "true or false"
	case canon.Null:
		return "null"
	}
	return "a " + k.String()
}

// same is Bytes's and Value's verdict on an answer of the type wanted.
func (e Expect) same(what string, want, got []byte, ok *canon.Value) Outcome {
	o := SameBytes(what, want, got)
	if o.Status == Pass {
		if e.MayRefuse {
			return Chose(ChoseOutput)
		}
		return o
	}
	o.Notes = append(o.Notes, e.Notes...)
	return e.miss(Miss{Kind: Differs, OK: ok, Outcome: o})
}

// Refused expects an err whose code (CodeOf) is one of codes, or any err
// when codes are none; an ok fails the check (Accepted), and so does an
// err of another code (Miscoded).
func (e Expect) Refused(ctx context.Context, s *Session, codes ...string) Outcome {
	_, o, ok := e.Refusal(ctx, s, codes...)
	if !ok {
		return o
	}
	return Passed()
}

// Refusal is Refused for a suite's own judgement of the err (a member
// beyond its code): it returns the err when it is one of those wanted.
func (e Expect) Refusal(ctx context.Context, s *Session, codes ...string) (*adapter.Error, Outcome, bool) {
	if e.Want == "" {
		e.Want = "err"
		if len(codes) > 0 {
			e.Want = strings.Join(codes, " or ")
		}
	}
	r, o, ok := e.Reply(ctx, s)
	if !ok {
		return nil, o, false
	}
	if r.Err == nil {
		reason := e.Op + " accepted what it must refuse"
		if e.Because != "" {
			reason = e.Because
		}
		o := Failed(reason, e.Want, "accepted")
		o.Notes = append([]string{"it returned: " + Clip(r.OK.String())}, e.Notes...)
		return nil, e.miss(Miss{Kind: Accepted, OK: r.OK, Outcome: o}), false
	}
	if got := CodeOf(r.Err); len(codes) > 0 && !slices.Contains(codes, got) {
		o := Failed(fmt.Sprintf("%s rejected with %s, want %s", e.Op, got, strings.Join(codes, " or ")), e.Want, got)
		o.Notes = append(o.Notes, e.Notes...)
		return nil, e.miss(Miss{Kind: Miscoded, Err: r.Err, Outcome: o}), false
	}
	return r.Err, Outcome{}, true
}

// Verdict expects true or false: want. Because, when set, is the reason
// of every failure but a fault.
func (e Expect) Verdict(ctx context.Context, s *Session, want bool) Outcome {
	if e.Want == "" {
		e.Want = fmt.Sprint(want)
	}
	v, o, ok := e.OK(ctx, s)
	if !ok {
		return o
	}
	if v.Kind != canon.Bool {
		reason := e.Op + " returned " + v.Kind.String() + ", not true or false"
		if e.Because != "" {
			reason = e.Because
		}
		return e.mistyped(v, reason)
	}
	if v.Bool == want {
		return Passed()
	}
	reason := fmt.Sprintf("%s said %v", e.Op, v.Bool)
	if e.Because != "" {
		reason = e.Because
	}
	o = Failed(reason, e.Want, v.String())
	o.Notes = append(o.Notes, e.Notes...)
	return e.miss(Miss{Kind: Differs, OK: &v, Outcome: o})
}

// Word expects a verdict given as a word of the suite's ("valid",
// "invalid-signature"): a string equal to want.
func (e Expect) Word(ctx context.Context, s *Session, want string) Outcome {
	if e.Want == "" {
		e.Want = want
	}
	got, o, ok := e.Text(ctx, s)
	if !ok {
		return o
	}
	if got == want {
		return Passed()
	}
	o = Failed(fmt.Sprintf("the verdict is %s, want %s", got, want), e.Want, got)
	o.Notes = append(o.Notes, e.Notes...)
	return e.miss(Miss{Kind: Differs, OK: &canon.Value{Kind: canon.String, Str: got}, Outcome: o})
}

// mistyped is the Mistyped failure of ok, for reason.
func (e Expect) mistyped(ok canon.Value, reason string) Outcome {
	return e.miss(Miss{Kind: Mistyped, OK: &ok, Outcome: Failed(reason, e.Want, ok.String())})
}

// miss words m: the suite's Words, or the engine's.
func (e Expect) miss(m Miss) Outcome {
	m.Op = e.Op
	if e.Words == nil {
		return m.Outcome
	}
	return e.Words(m)
}
