package fablepool

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	fp "github.com/refereehq/referee/protocols/fablepool"
)

// body builds a scenario's body {v, type, author, ts, prev, payload} with the
// fixed seed's author, which the runner derives itself.
func (ss Scenarios) body(s Scenario) (canon.Value, error) {
	seed, err := hex.DecodeString(ss.Seed)
	if err != nil {
		return canon.Value{}, err
	}
	pub, err := fp.PublicKey(seed)
	if err != nil {
		return canon.Value{}, err
	}
	prev, err := canon.Parse(s.Prev, canon.ReadOptions{})
	if err != nil {
		return canon.Value{}, fmt.Errorf("prev: %w", err)
	}
	payload, err := canon.Parse(s.Payload, canon.ReadOptions{})
	if err != nil {
		return canon.Value{}, fmt.Errorf("payload: %w", err)
	}
	str := func(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }
	num := func(n int64) canon.Value { return canon.Value{Kind: canon.Number, Num: strconv.FormatInt(n, 10)} }
	return canon.Value{Kind: canon.Object, Members: []canon.Member{
		{Key: "v", Value: num(int64(ss.V))},
		{Key: "type", Value: str(s.Type)},
		{Key: "author", Value: str(fp.Author(pub))},
		{Key: "ts", Value: num(ss.TS)},
		{Key: "prev", Value: prev},
		{Key: "payload", Value: payload},
	}}, nil
}

// signOp asks the implementation to sign the scenario's body.
func (ss Scenarios) signOp(ctx context.Context, s *check.Session, sc Scenario) (body, op canon.Value, o check.Outcome, ok bool) {
	body, err := ss.body(sc)
	if err != nil {
		return body, op, check.Outcome{Status: check.Error, Reason: "corpus: " + err.Error()}, false
	}
	text := body.String()
	signed, o, ok := expect(OpSignOp, map[string]any{"seed": ss.Seed, "body": json.RawMessage(text), "body_text": text}, "a signed op").Object(ctx, s)
	if !ok {
		return body, op, o, false
	}
	want, _ := fp.Canonical(body)
	got, err := fp.Canonical(fp.Body(signed))
	if err != nil || string(got) != string(want) {
		return body, op, check.Failed("sign_op changed the body it was given", string(want), string(got)), false
	}
	if err := fp.VerifyOp(signed); err != nil {
		return body, op, check.Failed("sign_op returned an op that does not verify: "+err.Error(), "an op whose id and sig verify", signed.String()), false
	}
	seed, _ := hex.DecodeString(ss.Seed)
	if exp, err := fp.SignOp(seed, body); err == nil {
		e, _ := fp.Canonical(exp)
		g, _ := fp.Canonical(signed)
		if string(e) != string(g) {
			return body, op, check.Failed("sign_op's op differs from the deterministic Ed25519 signing of the body", string(e), string(g)), false
		}
	}
	return body, signed, check.Outcome{}, true
}

// opForms returns the two forms verify_op is sent a mutated op in: op, a
// JSON value (members in the op's order, or reversed for a respelled
// scenario), and op_text, the exact text as a JSON string. A host
// language's parser reads op into its own values and loses what a verdict
// can turn on (1.0 becomes 1, a duplicate member keeps one value);
// op_text keeps every byte.
func opForms(op canon.Value, spelling string) (value, text string) {
	if spelling == SpellingRespelled {
		return reversed(op).String(), Respell(op)
	}
	return op.String(), op.String()
}

func scenarioCheck(ss Scenarios, sc Scenario, rec *recorder) check.Check {
	expect := "verify_op answers ok true"
	if sc.Expect == "reject" {
		expect = "verify_op answers err with code " + strconv.Quote(sc.ExpectedError)
	}
	doc := sc.Note
	if doc == "" || doc[0] == '[' {
		doc = sc.Name + ": " + sc.Expect
		if sc.ExpectedError != "" {
			doc += " with " + sc.ExpectedError
		}
	}
	clause := clauseScenario
	if sc.ExpectedError != "" {
		clause = clauseScenarioCode
	}
	muts, _ := json.Marshal(sc.Mutations)
	return check.Check{
		ID:      "fablepool/op_scenarios/" + sc.Name,
		Doc:     doc,
		Needs:   []string{OpSignOp, OpVerifyOp},
		Level:   check.Must,
		Clause:  clause,
		Explain: fmt.Sprintf("sends: sign_op of the %s body (seed %s..., ts %d; as body and body_text), applies the mutations %s to the signed op, then verify_op (as op and op_text%s)\nexpects: %s", sc.Type, ss.Seed[:8], ss.TS, muts, spelled(sc.Spelling), expect),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			_, op, o, ok := ss.signOp(ctx, s, sc)
			if !ok {
				return o
			}
			if sc.Expect == "accept" {
				rec.op(ctx, s, sc.Name, op)
			}
			mutated, err := Apply(op, sc.Mutations, func(body canon.Value) (string, error) {
				b, err := fp.Canonical(body)
				return fp.ID(b), err
			})
			if err != nil {
				return check.Failed("the scenario's mutations do not apply to the signed op: "+err.Error(), "an op with the fields the mutations name", op.String())
			}
			value, text := opForms(mutated, sc.Spelling)
			// Only ok true accepts: any other answer is a rejection, a
			// code-less one "unknown".
			r, o, ok := check.Expect{Op: OpVerifyOp, Args: map[string]any{"op": json.RawMessage(value), "op_text": text}}.Reply(ctx, s)
			if !ok {
				return o
			}
			accepted := r.Err == nil && r.OK.Kind == canon.Bool && r.OK.Bool
			code := ""
			if r.Err != nil {
				code = check.CodeOf(r.Err)
			} else if !accepted {
				code = "unknown"
			}
			switch {
			case sc.Expect == "accept" && !accepted:
				return check.Failed("verify_op rejected an unmutated signed op with "+code, "accept", code)
			case sc.Expect == "accept":
				return check.Passed()
			case accepted:
				o := check.Failed("verify_op accepted a mutated op it must reject with "+sc.ExpectedError, sc.ExpectedError, "accepted")
				o.Notes = []string{"mutated op: " + check.Clip(text)}
				return o
			case sc.ExpectedError != "" && code != sc.ExpectedError:
				return check.Failed(fmt.Sprintf("verify_op rejected with %s, want %s", code, sc.ExpectedError), sc.ExpectedError, code)
			}
			return check.Passed()
		},
	}
}

// op records a scenario's signed op with the implementation's own canonical texts.
func (r *recorder) op(ctx context.Context, s *check.Session, name string, op canon.Value) {
	if r == nil || !s.Offers(OpCanonicalize) {
		return
	}
	e, ok := recordOp(ctx, s, name, op)
	if !ok {
		return
	}
	r.mu.Lock()
	r.ops[name] = e
	r.mu.Unlock()
}

// recordOp makes a scenario's recorded entry from the implementation's outputs.
func recordOp(ctx context.Context, s *check.Session, name string, op canon.Value) (RecordedOp, bool) {
	text := func(v canon.Value) (string, bool) {
		t, _, ok := check.Expect{Op: OpCanonicalize, Args: map[string]json.RawMessage{"input": json.RawMessage(v.String())}}.Text(ctx, s)
		return t, ok
	}
	body, ok1 := text(fp.Body(op))
	whole, ok2 := text(op)
	id, _ := op.Lookup("id")
	sig, _ := op.Lookup("sig")
	return RecordedOp{Name: name, BodyCanonical: body, BodySHA256: sha256Hex([]byte(body)), ID: id.Str, Sig: sig.Str, OpCanonical: whole}, ok1 && ok2
}

func recordedOpCheck(ss Scenarios, sc Scenario, e RecordedOp) check.Check {
	return check.Check{
		ID:      "fablepool/recorded/op_scenarios/" + sc.Name,
		Doc:     "the live signed op of " + sc.Name + " (canonical body, digest, id, sig, canonical op) equals the recorded ground truth",
		Needs:   []string{OpSignOp, OpCanonicalize},
		Level:   check.Must,
		Clause:  clauseRecorded,
		Explain: fmt.Sprintf("sends: sign_op of the scenario's body, then canonicalize of its body and of the op\nexpects: id %s, sig %s... (from recorded.json)", e.ID, e.Sig[:min(16, len(e.Sig))]),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			_, op, o, ok := ss.signOp(ctx, s, sc)
			if !ok {
				return o
			}
			got, ok := recordOp(ctx, s, sc.Name, op)
			if !ok {
				if s.Fault() != nil {
					return check.Broke(s.Fault())
				}
				return check.Failed("canonicalize failed on the signed op or its body", e.OpCanonical, "error")
			}
			for _, f := range []struct{ field, want, got string }{
				{"body_canonical", e.BodyCanonical, got.BodyCanonical},
				{"body_sha256", e.BodySHA256, got.BodySHA256},
				{"id", e.ID, got.ID},
				{"sig", e.Sig, got.Sig},
				{"op_canonical", e.OpCanonical, got.OpCanonical},
			} {
				if f.want != f.got {
					o := check.SameBytes(f.field, []byte(f.want), []byte(f.got))
					o.Reason = "drift from recorded.json in op_scenarios.ops[" + sc.Name + "]." + f.field
					return o
				}
			}
			return check.Passed()
		},
	}
}

func spelled(spelling string) string {
	if spelling == SpellingRespelled {
		return ", op_text respelled: members reversed, spaces, every string character escaped"
	}
	return ""
}
