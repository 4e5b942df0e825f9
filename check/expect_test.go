package check_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

// answering is an adapter whose every op answers as it is told: ok the raw
// value, or err when code or message is set.
type answering struct {
	ok            string
	code, message string
}

func (a answering) Hello() adapter.Hello {
	return adapter.Hello{Name: "answering", Version: "1", Ops: []string{"op"}}
}

func (a answering) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	if a.code != "" || a.message != "" {
		return nil, &adapter.Error{Code: a.code, Message: a.message}
	}
	return json.RawMessage(a.ok), nil
}

// judged runs do as a check against the adapter a and returns its result.
// The check is a may check, so that its result keeps the outcome chosen.
func judged(t *testing.T, a adapter.Handler, do func(ctx context.Context, s *check.Session) check.Outcome) check.Result {
	t.Helper()
	c, err := adapter.Dial(context.Background(), adapter.InProcess(a), "test", adapter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := check.Execute(context.Background(), c, []check.Check{{ID: "t/expect", Needs: []string{"op"}, Level: check.May, Do: do}}, check.Options{})
	return run.Results[0]
}

// verdict is the part of a result an expectation decides.
type verdict struct {
	Status           check.Status
	Reason           string
	Expected, Actual string
	Outcome          string
	Notes            []string
	DiffAt           int // the diff's offset; -1 for no diff
	Exchanges        int
}

func verdictOf(r check.Result) verdict {
	v := verdict{Status: r.Status, Reason: r.Reason, Expected: r.Expected, Actual: r.Actual, Outcome: r.Outcome, Notes: r.Evidence.Notes, DiffAt: -1, Exchanges: len(r.Evidence.Exchanges)}
	if r.Evidence.Diff != nil {
		v.DiffAt = r.Evidence.Diff.Offset
	}
	return v
}

func TestExpect(t *testing.T) {
	obj, _ := canon.Parse([]byte(`{"b":[1,2],"a":true}`), canon.ReadOptions{})
	base := check.Expect{Op: "op", Args: map[string]string{"x": "y"}}
	with := func(f func(e *check.Expect)) check.Expect {
		e := base
		f(&e)
		return e
	}
	bytesOf := func(e check.Expect, want string) func(context.Context, *check.Session) check.Outcome {
		return func(ctx context.Context, s *check.Session) check.Outcome {
			return e.Bytes(ctx, s, "the text", []byte(want))
		}
	}
	valueOf := func(e check.Expect, want canon.Value) func(context.Context, *check.Session) check.Outcome {
		return func(ctx context.Context, s *check.Session) check.Outcome { return e.Value(ctx, s, "the value", want) }
	}
	refused := func(e check.Expect, codes ...string) func(context.Context, *check.Session) check.Outcome {
		return func(ctx context.Context, s *check.Session) check.Outcome { return e.Refused(ctx, s, codes...) }
	}
	verdictIs := func(e check.Expect, want bool) func(context.Context, *check.Session) check.Outcome {
		return func(ctx context.Context, s *check.Session) check.Outcome { return e.Verdict(ctx, s, want) }
	}
	word := func(e check.Expect, want string) func(context.Context, *check.Session) check.Outcome {
		return func(ctx context.Context, s *check.Session) check.Outcome { return e.Word(ctx, s, want) }
	}
	for _, tt := range []struct {
		name  string
		reply answering
		do    func(context.Context, *check.Session) check.Outcome
		want  verdict
	}{
		{"bytes equal", answering{ok: `"abc"`}, bytesOf(base, "abc"),
			verdict{Status: check.Pass, DiffAt: -1}},
		{"bytes differ", answering{ok: `"abd"`}, bytesOf(base, "abc"),
			verdict{Status: check.Fail, Reason: "the text differs at byte 2", Expected: "abc", Actual: "abd", DiffAt: 2, Exchanges: 1}},
		{"bytes differ, with notes", answering{ok: `"abd"`}, bytesOf(with(func(e *check.Expect) { e.Notes = []string{"the rule"} }), "abc"),
			verdict{Status: check.Fail, Reason: "the text differs at byte 2", Expected: "abc", Actual: "abd", Notes: []string{"the rule"}, DiffAt: 2, Exchanges: 1}},
		{"bytes, an err", answering{code: "bad", message: "no"}, bytesOf(base, "abc"),
			verdict{Status: check.Fail, Reason: "op failed: bad: no", Expected: "abc", Actual: "err: bad: no", DiffAt: -1, Exchanges: 1}},
		{"bytes, an err, because", answering{code: "bad", message: "no"}, bytesOf(with(func(e *check.Expect) { e.Because = "it refused a valid input" }), "abc"),
			verdict{Status: check.Fail, Reason: "it refused a valid input", Expected: "abc", Actual: "err: bad: no", DiffAt: -1, Exchanges: 1}},
		{"bytes, not a string", answering{ok: `[1]`}, bytesOf(with(func(e *check.Expect) { e.Want = "the canonical text" }), "abc"),
			verdict{Status: check.Fail, Reason: "op returned array, not a string", Expected: "the canonical text", Actual: "[1]", DiffAt: -1, Exchanges: 1}},
		{"bytes of a may check", answering{ok: `"abc"`}, bytesOf(with(func(e *check.Expect) { e.MayRefuse = true }), "abc"),
			verdict{Status: check.Pass, Outcome: check.ChoseOutput, DiffAt: -1}},
		{"a refusal of a may check", answering{code: "bad"}, bytesOf(with(func(e *check.Expect) { e.MayRefuse = true }), "abc"),
			verdict{Status: check.Pass, Outcome: check.ChoseReject, DiffAt: -1}},
		{"a wrong output of a may check", answering{ok: `"abd"`}, bytesOf(with(func(e *check.Expect) { e.MayRefuse = true }), "abc"),
			verdict{Status: check.Fail, Reason: "the text differs at byte 2", Expected: "abc", Actual: "abd", DiffAt: 2, Exchanges: 1}},
		{"a fault", answering{ok: `{`}, bytesOf(base, "abc"),
			verdict{Status: check.Error, Reason: "adapter bad-line: in-process reply is not valid...", Notes: []string{`offending line: "{\"id\":1,\"ok\":{}"`}, DiffAt: -1, Exchanges: 1}},

		{"value equal, other order", answering{ok: `{"a":true,"b":[1,2]}`}, valueOf(base, obj),
			verdict{Status: check.Pass, DiffAt: -1}},
		{"value differs", answering{ok: `{"a":true,"b":[1,3]}`}, valueOf(base, obj),
			verdict{Status: check.Fail, Reason: "the value differs at byte 17", Expected: `{"a":true,"b":[1,2]}`, Actual: `{"a":true,"b":[1,3]}`, DiffAt: 17, Exchanges: 1}},
		{"value of another type", answering{ok: `"x"`}, valueOf(base, obj),
			verdict{Status: check.Fail, Reason: "op returned string, not an object", Expected: `{"a":true,"b":[1,2]}`, Actual: `"x"`, DiffAt: -1, Exchanges: 1}},
		{"value with no RFC 8785 form", answering{ok: `{"a":1e999}`}, valueOf(base, obj),
			verdict{Status: check.Fail, Reason: "op returned a value with no RFC 8785 form: ...", Expected: `{"a":true,"b":[1,2]}`, Actual: `{"a":1e999}`, DiffAt: -1, Exchanges: 1}},

		{"refused, any code", answering{message: "no"}, refused(base),
			verdict{Status: check.Pass, DiffAt: -1}},
		{"refused with the code", answering{code: "too_large"}, refused(base, "too_large"),
			verdict{Status: check.Pass, DiffAt: -1}},
		{"refused with one of the codes", answering{code: "b"}, refused(base, "a", "b"),
			verdict{Status: check.Pass, DiffAt: -1}},
		{"refused with another code", answering{code: "other"}, refused(base, "too_large"),
			verdict{Status: check.Fail, Reason: "op rejected with other, want too_large", Expected: "too_large", Actual: "other", DiffAt: -1, Exchanges: 1}},
		{"refused with no code", answering{message: "no"}, refused(base, "too_large"),
			verdict{Status: check.Fail, Reason: "op rejected with unknown, want too_large", Expected: "too_large", Actual: "unknown", DiffAt: -1, Exchanges: 1}},
		{"accepted", answering{ok: `"frame"`}, refused(base),
			verdict{Status: check.Fail, Reason: "op accepted what it must refuse", Expected: "err", Actual: "accepted", Notes: []string{`it returned: "frame"`}, DiffAt: -1, Exchanges: 1}},
		{"accepted, because, with notes", answering{ok: `"frame"`}, refused(with(func(e *check.Expect) {
			e.Because, e.Notes = "it framed a payload over the limit", []string{"the limit is 4 MiB"}
		}), "too_large"),
			verdict{Status: check.Fail, Reason: "it framed a payload over the limit", Expected: "too_large", Actual: "accepted", Notes: []string{`it returned: "frame"`, "the limit is 4 MiB"}, DiffAt: -1, Exchanges: 1}},

		{"verdict true", answering{ok: `true`}, verdictIs(base, true),
			verdict{Status: check.Pass, DiffAt: -1}},
		{"verdict false, want true", answering{ok: `false`}, verdictIs(base, true),
			verdict{Status: check.Fail, Reason: "op said false", Expected: "true", Actual: "false", DiffAt: -1, Exchanges: 1}},
		{"verdict not a bool", answering{ok: `"yes"`}, verdictIs(base, false),
			verdict{Status: check.Fail, Reason: "op returned string, not true or false", Expected: "false", Actual: `"yes"`, DiffAt: -1, Exchanges: 1}},
		{"verdict, because, not a bool", answering{ok: `"yes"`}, verdictIs(with(func(e *check.Expect) { e.Because = "a tampered lease still verifies" }), false),
			verdict{Status: check.Fail, Reason: "a tampered lease still verifies", Expected: "false", Actual: `"yes"`, DiffAt: -1, Exchanges: 1}},
		{"verdict, because, wrong", answering{ok: `true`}, verdictIs(with(func(e *check.Expect) { e.Because = "a tampered lease still verifies" }), false),
			verdict{Status: check.Fail, Reason: "a tampered lease still verifies", Expected: "false", Actual: "true", DiffAt: -1, Exchanges: 1}},

		{"word", answering{ok: `"valid"`}, word(base, "valid"),
			verdict{Status: check.Pass, DiffAt: -1}},
		{"another word", answering{ok: `"forged"`}, word(base, "valid"),
			verdict{Status: check.Fail, Reason: "the verdict is forged, want valid", Expected: "valid", Actual: "forged", DiffAt: -1, Exchanges: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := verdictOf(judged(t, tt.reply, tt.do))
			// A fault's reason, and an encoder's, go on to say what they
			// met: the table holds how the reason begins.
			if strings.HasSuffix(tt.want.Reason, "...") && strings.HasPrefix(got.Reason, strings.TrimSuffix(tt.want.Reason, "...")) {
				got.Reason = tt.want.Reason
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestExpectSends checks that the request carries the op and the args.
func TestExpectSends(t *testing.T) {
	r := judged(t, answering{ok: `"b"`}, func(ctx context.Context, s *check.Session) check.Outcome {
		return check.Expect{Op: "op", Args: map[string]any{"value": json.RawMessage(`{"z":1, "a":2}`)}}.Bytes(ctx, s, "text", []byte("a"))
	})
	if len(r.Evidence.Exchanges) != 1 {
		t.Fatalf("%d exchanges", len(r.Evidence.Exchanges))
	}
	if got, want := string(r.Evidence.Exchanges[0].Request), `"op":"op","args":{"value":{"z":1,"a":2}}}`; !strings.HasSuffix(got, want) {
		t.Errorf("sent %s, want it to end %s", got, want)
	}
}

// TestExpectWords checks that Words are given each miss, with its kind and
// the answer, and that what they return is the outcome.
func TestExpectWords(t *testing.T) {
	var seen []check.Miss
	words := func(m check.Miss) check.Outcome {
		seen = append(seen, m)
		o := m.Outcome
		o.Reason = "suite: " + o.Reason
		return o
	}
	e := check.Expect{Op: "op", Want: "W", Words: words}
	for _, tt := range []struct {
		reply  answering
		do     func(ctx context.Context, s *check.Session) check.Outcome
		kind   check.MissKind
		reason string
		answer string // the Err's code or the OK's text
	}{
		{answering{code: "c", message: "m"}, func(ctx context.Context, s *check.Session) check.Outcome { return e.Bytes(ctx, s, "t", []byte("x")) },
			check.Erred, "suite: op failed: c: m", "c"},
		{answering{ok: `1`}, func(ctx context.Context, s *check.Session) check.Outcome { return e.Bytes(ctx, s, "t", []byte("x")) },
			check.Mistyped, "suite: op returned number, not a string", "1"},
		{answering{ok: `"y"`}, func(ctx context.Context, s *check.Session) check.Outcome { return e.Bytes(ctx, s, "t", []byte("x")) },
			check.Differs, "suite: t differs at byte 0", `"y"`},
		{answering{ok: `"y"`}, func(ctx context.Context, s *check.Session) check.Outcome { return e.Refused(ctx, s) },
			check.Accepted, "suite: op accepted what it must refuse", `"y"`},
		{answering{code: "d"}, func(ctx context.Context, s *check.Session) check.Outcome { return e.Refused(ctx, s, "c") },
			check.Miscoded, "suite: op rejected with d, want c", "d"},
		{answering{ok: `true`}, func(ctx context.Context, s *check.Session) check.Outcome { return e.Verdict(ctx, s, false) },
			check.Differs, "suite: op said true", "true"},
	} {
		seen = nil
		r := judged(t, tt.reply, tt.do)
		if r.Reason != tt.reason || r.Status != check.Fail {
			t.Errorf("%v: %s %q, want fail %q", tt.kind, r.Status, r.Reason, tt.reason)
		}
		if len(seen) != 1 {
			t.Fatalf("%v: words called %d times", tt.kind, len(seen))
		}
		m := seen[0]
		answer := ""
		switch {
		case m.Err != nil:
			answer = m.Err.Code
		case m.OK != nil:
			answer = m.OK.String()
		}
		if m.Kind != tt.kind || m.Op != "op" || answer != tt.answer {
			t.Errorf("miss %v of %s answering %q, want %v answering %q", m.Kind, m.Op, answer, tt.kind, tt.answer)
		}
	}
}

// TestExpectAnswers checks the calls that return the answer for a suite's
// own judgement.
func TestExpectAnswers(t *testing.T) {
	e := check.Expect{Op: "op", Want: "an object"}
	var got canon.Value
	r := judged(t, answering{ok: `{"a":1}`}, func(ctx context.Context, s *check.Session) check.Outcome {
		v, o, ok := e.Object(ctx, s)
		if !ok {
			return o
		}
		got = v
		return check.Passed()
	})
	if r.Status != check.Pass || got.String() != `{"a":1}` {
		t.Errorf("Object: %s %q, answer %s", r.Status, r.Reason, got.String())
	}
	r = judged(t, answering{ok: `"x"`}, func(ctx context.Context, s *check.Session) check.Outcome {
		_, o, _ := e.Object(ctx, s)
		return o
	})
	if r.Status != check.Fail || r.Reason != "op returned string, not an object" || r.Expected != "an object" {
		t.Errorf("Object of a string: %s %q expected %q", r.Status, r.Reason, r.Expected)
	}
	var code string
	r = judged(t, answering{code: "unknown_field", message: "m"}, func(ctx context.Context, s *check.Session) check.Outcome {
		err, o, ok := e.Refusal(ctx, s, "unknown_field")
		if !ok {
			return o
		}
		code = err.Code
		return check.Passed()
	})
	if r.Status != check.Pass || code != "unknown_field" {
		t.Errorf("Refusal: %s %q, code %q", r.Status, r.Reason, code)
	}
	var text string
	r = judged(t, answering{ok: `"abc"`}, func(ctx context.Context, s *check.Session) check.Outcome {
		t, o, ok := e.Text(ctx, s)
		text = t
		if !ok {
			return o
		}
		return check.Passed()
	})
	if r.Status != check.Pass || text != "abc" {
		t.Errorf("Text: %s %q, text %q", r.Status, r.Reason, text)
	}
}
