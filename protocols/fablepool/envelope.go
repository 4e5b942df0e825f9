package fablepool

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazyregexp"
)

// BodyFields are the members of an operation's body, in no particular order.
var BodyFields = []string{"v", "type", "author", "ts", "prev", "payload"}

// OpFields are the members of a signed operation: the body, id and sig.
var OpFields = []string{"v", "type", "author", "ts", "prev", "payload", "id", "sig"}

var (
	typePattern   = lazyregexp.New(`^[a-z][a-z0-9_.-]{0,63}$`)
	authorPattern = lazyregexp.New(`^ed25519:[0-9a-f]{64}$`)
	idPattern     = lazyregexp.New(`^op:[0-9a-f]{64}$`)
	sigPattern    = lazyregexp.New(`^[0-9a-f]{128}$`)
	intPattern    = lazyregexp.New(`^-?(0|[1-9][0-9]*)$`)
)

const maxSafe = 1<<53 - 1

// Body returns op without its id and sig members.
func Body(op canon.Value) canon.Value {
	body := canon.Value{Kind: canon.Object}
	for _, m := range op.Members {
		if m.Key != "id" && m.Key != "sig" {
			body.Members = append(body.Members, m)
		}
	}
	return body
}

// SignOp signs a body {v, type, author, ts, prev, payload} with seed and
// returns the operation: the body plus id and sig, in that order.
func SignOp(seed []byte, body canon.Value) (canon.Value, error) {
	if err := checkEnvelope(body, BodyFields); err != nil {
		return canon.Value{}, err
	}
	b, err := Canonical(body)
	if err != nil {
		return canon.Value{}, err
	}
	sig, err := Sign(seed, b)
	if err != nil {
		return canon.Value{}, err
	}
	op := canon.Value{Kind: canon.Object, Members: slices.Clone(body.Members)}
	op.Members = append(op.Members,
		canon.Member{Key: "id", Value: canon.Value{Kind: canon.String, Str: ID(b)}},
		canon.Member{Key: "sig", Value: canon.Value{Kind: canon.String, Str: hex.EncodeToString(sig)}})
	return op, nil
}

// VerifyOp checks a signed operation in the profile's order; the first
// failing step decides the *Error's code: envelope_shape,
// envelope_missing_field, envelope_unknown_field, envelope_field_type or
// version_unsupported, canonical_unsupported, id_mismatch, sig_invalid.
func VerifyOp(op canon.Value) error {
	if err := checkEnvelope(op, OpFields); err != nil {
		return err
	}
	body := Body(op)
	b, err := Canonical(body)
	if err != nil {
		return err
	}
	id, _ := op.Lookup("id")
	if want := ID(b); id.Str != want {
		return &Error{Code: CodeIDMismatch, Detail: fmt.Sprintf("id %s, body hashes to %s", id.Str, want)}
	}
	author, _ := op.Lookup("author")
	sigText, _ := op.Lookup("sig")
	pub, _ := hex.DecodeString(strings.TrimPrefix(author.Str, "ed25519:"))
	sig, _ := hex.DecodeString(sigText.Str)
	if !Verify(pub, b, sig) {
		return &Error{Code: CodeSigInvalid, Detail: "the signature does not verify under the author's key"}
	}
	return nil
}

// VerifyOpText reads a signed operation's text strictly (a duplicate
// member, a truncated text or anything else that is not JSON is
// json_invalid, profile §1), then verifies it as VerifyOp does. Verifying
// the text rather than a parsed value keeps what a verdict can turn on: a
// number's lexeme (1.0 is not the integer 1) and a duplicate member.
func VerifyOpText(text []byte) error {
	op, err := Parse(text)
	if err != nil {
		return err
	}
	return VerifyOp(op)
}

// CheckEnvelope applies steps 1 to 5 of the verification order to a signed
// op: its shape, members, version and field formats.
func CheckEnvelope(op canon.Value) error { return checkEnvelope(op, OpFields) }

// checkEnvelope applies steps 1 to 5 of the verification order to an object
// that must have exactly fields.
func checkEnvelope(v canon.Value, fields []string) error {
	if v.Kind != canon.Object {
		return &Error{Code: CodeShape, Detail: "not an object but " + v.Kind.String()}
	}
	for _, f := range fields {
		if _, ok := v.Lookup(f); !ok {
			return &Error{Code: CodeMissingField, Detail: f}
		}
	}
	for _, m := range v.Members {
		if !slices.Contains(fields, m.Key) {
			return &Error{Code: CodeUnknownField, Detail: strconv.Quote(m.Key)}
		}
	}
	ver, _ := v.Lookup("v")
	if ver.Kind != canon.Number || !intPattern.MatchString(ver.Num) {
		return fieldType("v", "an integer")
	}
	if ver.Num != "1" {
		return &Error{Code: CodeVersionUnsupported, Detail: "v " + ver.Num}
	}
	if t, _ := v.Lookup("type"); t.Kind != canon.String || !typePattern.MatchString(t.Str) {
		return fieldType("type", "a string matching "+typePattern.String())
	}
	if a, _ := v.Lookup("author"); a.Kind != canon.String || !authorPattern.MatchString(a.Str) {
		return fieldType("author", `"ed25519:" and 64 lowercase hex`)
	}
	if ts, _ := v.Lookup("ts"); !isInt(ts) || (strings.HasPrefix(ts.Num, "-") && ts.Num != "-0") {
		return fieldType("ts", "an integer from 0 to 2^53-1")
	}
	prev, _ := v.Lookup("prev")
	if prev.Kind != canon.Array {
		return fieldType("prev", "an array of op ids")
	}
	seen := map[string]bool{}
	for _, p := range prev.Elems {
		if p.Kind != canon.String || !idPattern.MatchString(p.Str) {
			return fieldType("prev", "an array of op ids")
		}
		if seen[p.Str] {
			return fieldType("prev", "op ids without duplicates")
		}
		seen[p.Str] = true
	}
	if p, _ := v.Lookup("payload"); p.Kind != canon.Object {
		return fieldType("payload", "an object")
	}
	if slices.Contains(fields, "id") {
		if id, _ := v.Lookup("id"); id.Kind != canon.String || !idPattern.MatchString(id.Str) {
			return fieldType("id", `"op:" and 64 lowercase hex`)
		}
		if sig, _ := v.Lookup("sig"); sig.Kind != canon.String || !sigPattern.MatchString(sig.Str) {
			return fieldType("sig", "128 lowercase hex")
		}
	}
	return nil
}

func fieldType(field, want string) error {
	return &Error{Code: CodeFieldType, Detail: field + " must be " + want}
}

// isInt reports whether v is an integer lexeme within ±(2^53−1).
func isInt(v canon.Value) bool {
	if v.Kind != canon.Number || !intPattern.MatchString(v.Num) {
		return false
	}
	n, err := strconv.ParseInt(v.Num, 10, 64)
	return err == nil && n >= -maxSafe && n <= maxSafe
}
