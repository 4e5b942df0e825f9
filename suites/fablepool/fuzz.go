package fablepool

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/jsongen"
	fp "github.com/refereehq/referee/protocols/fablepool"
)

// fuzzSpec has one target per vector file: canonicalize (canonicalization
// vectors of JSON text), signing (seeds and messages, with tampered
// signatures a lax verifier accepts) and op (signed operations with
// mutations, each judged by the verdict and code the reference gives).
var fuzzSpec = check.FuzzSpec{
	Targets: []check.FuzzTarget{
		{
			Name:     "canonicalize",
			Doc:      "JSON text for canonicalize: integers at every width's edge, fractions and exponents, strings of every Unicode class, code point and UTF-16 orders, empty values, duplicate names, non-object documents, byte-level mutations",
			Needs:    []string{OpCanonicalize},
			Input:    check.FuzzText,
			Weight:   4,
			Generate: func(r *rand.Rand) []byte { return fuzzCanonJSON.Value(r) },
			Vector:   canonVector,
		},
		{
			Name:     "signing",
			Doc:      "seeds and messages of every length for public_key, sign and verify, with tampered messages and signatures (a flipped bit, S+L, a zero S, a wrong length)",
			Needs:    []string{OpPublicKey, OpSign, OpVerify},
			Input:    check.FuzzValue,
			Weight:   2,
			Generate: fuzzSigning,
			Vector:   signingVector,
		},
		{
			Name:     "op",
			Doc:      "operation bodies for sign_op, and mutations of the signed op for verify_op: fields removed, added, retyped, re-cased, reordered, re-signed, ids recomputed",
			Needs:    []string{OpSignOp, OpVerifyOp},
			Input:    check.FuzzValue,
			Weight:   4,
			Generate: fuzzOp,
			Vector:   opVector,
		},
	},
	Files: fuzzFiles,
	Proof: check.FuzzProof{Inputs: 2000},
}

// The fixed seed, ts and v of the fuzzed scenarios (op_scenarios.json has
// one of each for all its vectors).
const (
	fuzzSeed = "0707070707070707070707070707070707070707070707070707070707070707"
	fuzzTS   = 1700000000
	fuzzV    = 1
)

var fuzzScenarios = Scenarios{Profile: fp.Profile, Seed: fuzzSeed, TS: fuzzTS, V: fuzzV}

// fuzzFiles lays vectors out as the three vector files, each present even
// when empty (the suite's reader requires all three).
func fuzzFiles(vectors []any) (map[string][]byte, error) {
	canonDoc := map[string]any{"profile": fp.Profile, "vectors": []CanonVector{}}
	signDoc := map[string]any{"profile": fp.Profile, "vectors": []SignVector{}}
	ss := fuzzScenarios
	ss.Vectors = []Scenario{}
	for _, v := range vectors {
		switch e := v.(type) {
		case CanonVector:
			canonDoc["vectors"] = append(canonDoc["vectors"].([]CanonVector), e)
		case SignVector:
			signDoc["vectors"] = append(signDoc["vectors"].([]SignVector), e)
		case Scenario:
			ss.Vectors = append(ss.Vectors, e)
		default:
			return nil, fmt.Errorf("%s: a fuzz vector of type %T (a bug in referee)", Name, v)
		}
	}
	files := map[string][]byte{}
	for name, doc := range map[string]any{CanonicalizationFile: canonDoc, SigningFile: signDoc, ScenariosFile: ss} {
		b, err := corpus.MarshalJSON(doc)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// fuzzReference is the built-in implementation the vectors' outcomes come from.
var fuzzReference = &Handler{}

// call performs op on the reference: its ok value, or its error code.
func call(op string, args any) (canon.Value, string) {
	raw, err := json.Marshal(args)
	if err != nil {
		return canon.Value{}, "bad_args"
	}
	out, aerr := fuzzReference.Handle(context.Background(), op, raw)
	if aerr != nil {
		return canon.Value{}, codeOf(aerr.Code)
	}
	v, err := canon.Parse(out, canon.ReadOptions{})
	if err != nil {
		return canon.Value{}, "bad_reply"
	}
	return v, ""
}

// fuzzNumber is mostly integers (at the edges of 31, 32, 53 and 64 bits),
// at times a fraction or an exponent, which the profile refuses.
func fuzzNumber(r *rand.Rand) string {
	if r.IntN(5) == 0 {
		return jsongen.Number(r)
	}
	return jsongen.Integer(r)
}

var fuzzCanonJSON = jsongen.JSON{Number: fuzzNumber, Duplicates: true, Space: true, Scalars: true, MaxDepth: 100}

// canonVector is a canonicalization vector of input_text with the
// reference's canonical text or error code.
func canonVector(name string, input []byte) (any, bool) {
	if !utf8.Valid(input) {
		return nil, false // input_text is a JSON string
	}
	text := string(input)
	v := CanonVector{Name: name, Note: "found by referee fuzz", InputText: &text}
	out, code := call(OpCanonicalize, map[string]string{"input_text": text})
	switch {
	case code == "":
		if out.Kind != canon.String {
			return nil, false
		}
		v.Canonical = &out.Str
	case code == fp.CodeJSONInvalid || code == fp.CodeCanonicalUnsupported:
		v.Error = code
	default:
		return nil, false
	}
	return v, true
}

// fuzzSigningInput is the signing target's input.
type fuzzSigningInput struct {
	Seed       string `json:"seed"`
	MessageHex string `json:"message_hex"`
	// TamperedMessageHex, if set, replaces the profile's tampered message.
	TamperedMessageHex string `json:"tampered_message_hex,omitempty"`
	// Tamper says how to make the tampered signature from the signature:
	// "" (the profile's bit flip), "bit N", "s+l", "zero-s", "zero-r",
	// "short", "long".
	Tamper string `json:"tamper,omitempty"`
}

func randomHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return hex.EncodeToString(b)
}

func fuzzSigning(r *rand.Rand) []byte {
	in := fuzzSigningInput{Seed: randomHex(r, 32)}
	n := []int{0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 255, 1000}[r.IntN(13)]
	in.MessageHex = randomHex(r, n)
	if r.IntN(3) == 0 {
		in.TamperedMessageHex = randomHex(r, r.IntN(70))
	}
	switch r.IntN(4) {
	case 0:
		in.Tamper = fmt.Sprintf("bit %d", r.IntN(512))
	case 1:
		in.Tamper = []string{"s+l", "zero-s", "zero-r", "short", "long"}[r.IntN(5)]
	}
	b, _ := json.Marshal(in)
	return b
}

// groupOrder is L, the order of Ed25519's base point.
var groupOrder = &lazy.Value[*big.Int]{New: func() *big.Int {
	l, _ := new(big.Int).SetString("7237005577332262213973186563042994811857637166389185549843658154823", 10)
	return l
}}

// tamper makes the tampered signature how says.
func tamper(sig []byte, how string) ([]byte, bool) {
	out := slices.Clone(sig)
	var bit int
	switch {
	case how == "":
		return fp.Tamper(sig), true
	case how == "s+l":
		// S is little-endian in the last 32 bytes; S+L is the same scalar,
		// written non-canonically: strict verification refuses it.
		le := slices.Clone(out[32:])
		slices.Reverse(le)
		s := new(big.Int).Add(new(big.Int).SetBytes(le), groupOrder.Get())
		if s.BitLen() > 256 {
			return nil, false
		}
		be := s.FillBytes(make([]byte, 32))
		slices.Reverse(be)
		copy(out[32:], be)
	case how == "zero-s":
		clear(out[32:])
	case how == "zero-r":
		clear(out[:32])
	case how == "short":
		out = out[:63]
	case how == "long":
		out = append(out, 0)
	default:
		if _, err := fmt.Sscanf(how, "bit %d", &bit); err != nil || bit < 0 || bit >= 512 {
			return nil, false
		}
		out[bit/8] ^= 1 << (bit % 8)
	}
	return out, true
}

// signingVector is a signing vector: the reference's public key and
// signature of the seed and message, and the tampered message and
// signature the input asks for.
func signingVector(name string, input []byte) (any, bool) {
	var in fuzzSigningInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, false
	}
	if _, err := hex.DecodeString(in.TamperedMessageHex); err != nil || in.TamperedMessageHex == in.MessageHex {
		return nil, false
	}
	pub, code := call(OpPublicKey, map[string]string{"seed": in.Seed})
	if code != "" || pub.Kind != canon.String {
		return nil, false
	}
	sig, code := call(OpSign, map[string]string{"seed": in.Seed, "message_hex": in.MessageHex})
	if code != "" || sig.Kind != canon.String {
		return nil, false
	}
	raw, err := hex.DecodeString(sig.Str)
	if err != nil || len(raw) != 64 {
		return nil, false
	}
	v := SignVector{Name: name, Seed: in.Seed, MessageHex: in.MessageHex, PublicKey: pub.Str, Signature: sig.Str, TamperedMessageHex: in.TamperedMessageHex}
	if in.Tamper != "" {
		t, ok := tamper(raw, in.Tamper)
		if !ok {
			return nil, false
		}
		v.TamperedSignature = hex.EncodeToString(t)
	}
	return v, true
}

// fuzzOpInput is the op target's input: a body's type, payload and prev,
// and the mutations to apply to its signed op.
type fuzzOpInput struct {
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	Prev      json.RawMessage `json:"prev"`
	Mutations []Mutation      `json:"mutations"`
	Spelling  string          `json:"spelling,omitempty"`
}

var fuzzPayloadJSON = jsongen.JSON{Number: safeInteger, String: jsongen.StringNoSurrogates, Key: jsongen.KeyNoSurrogates, MaxDepth: 8}

// safeInteger is an integer the profile can sign: within ±(2^53−1).
func safeInteger(r *rand.Rand) string {
	for {
		lex := jsongen.Integer(r)
		if n, err := strconv.ParseInt(lex, 10, 64); err == nil && n <= 1<<53-1 && n >= -(1<<53-1) {
			return lex
		}
	}
}

// fuzzOp generates a body, signs it with the reference to know its id and
// signature, and picks mutations of the signed op that a verifier must
// refuse (or none).
func fuzzOp(r *rand.Rand) []byte {
	in := fuzzOpInput{Type: []string{"evidence", "claim", "a", "x.y-z_0", "note"}[r.IntN(5)]}
	payload := jsongen.Obj()
	for range r.IntN(4) {
		payload.Keys = append(payload.Keys, fuzzPayloadJSON.Key(r))
		payload.Vals = append(payload.Vals, fuzzPayloadJSON.Tree(r))
	}
	in.Payload = payload.Encode()
	var prev []string
	for range []int{0, 0, 1, 2, 3}[r.IntN(5)] {
		prev = append(prev, "op:"+randomHex(r, 32))
	}
	in.Prev, _ = json.Marshal(append([]string{}, prev...))
	sc := Scenario{Type: in.Type, Payload: in.Payload, Prev: in.Prev}
	op, ok := referenceOp(sc)
	if ok && r.IntN(3) > 0 {
		for range 1 + r.IntN(2) {
			in.Mutations = append(in.Mutations, fuzzMutation(r, op, prev)...)
		}
	}
	if r.IntN(4) == 0 {
		in.Spelling = SpellingRespelled
	}
	b, _ := json.Marshal(in)
	return b
}

func str(v canon.Value, key string) string {
	m, _ := v.Lookup(key)
	return m.Str
}

func jsonText(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// fuzzMutation returns mutations of the signed op: one change, at times
// with the id recomputed after it.
func fuzzMutation(r *rand.Rand, op canon.Value, prev []string) []Mutation {
	set := func(path string, v any) []Mutation { return []Mutation{{Op: "set", Path: path, Value: jsonText(v)}} }
	raw := func(path, text string) []Mutation {
		return []Mutation{{Op: "set", Path: path, Value: json.RawMessage(text)}}
	}
	recompute := func(m []Mutation) []Mutation { return append(m, Mutation{Op: "recompute_id"}) }
	sig, id, author := str(op, "sig"), str(op, "id"), str(op, "author")
	flip := func(h string, prefix int) string {
		i := prefix + r.IntN(len(h)-prefix)
		c := "0123456789abcdef"[r.IntN(16)]
		if c == h[i] {
			c = "0123456789abcdef"[(strings.IndexByte("0123456789abcdef", c)+1)%16]
		}
		return h[:i] + string(c) + h[i+1:]
	}
	switch r.IntN(17) {
	case 0:
		return set("sig", flip(sig, 0))
	case 1:
		if raw, err := hex.DecodeString(sig); err == nil {
			if t, ok := tamper(raw, "s+l"); ok {
				return set("sig", hex.EncodeToString(t))
			}
		}
		return set("sig", strings.Repeat("0", 128))
	case 2:
		i := r.IntN(3)
		return set([]string{"sig", "id", "author"}[i], strings.ToUpper([]string{sig, id, author}[i]))
	case 3:
		return set("id", flip(id, 3))
	case 4:
		m := raw("payload."+[]string{"x", "source", "kind"}[r.IntN(3)], jsongen.Integer(r))
		if r.IntN(2) == 0 {
			return recompute(m)
		}
		return m
	case 5:
		if len(prev) >= 2 {
			rev := slices.Clone(prev)
			slices.Reverse(rev)
			m := set("prev", rev)
			if r.IntN(2) == 0 {
				return recompute(m)
			}
			return m
		}
		return set("prev", []string{"op:" + strings.Repeat("a", 64), "op:" + strings.Repeat("a", 64)})
	case 6:
		return []Mutation{{Op: "delete", Path: fp.OpFields[r.IntN(len(fp.OpFields))]}}
	case 7:
		return set([]string{"extra", "Sig", "ID", "signature"}[r.IntN(4)], "x")
	case 8:
		return raw("v", []string{"2", `"1"`, "1.0", "0", "-1", "null"}[r.IntN(6)])
	case 9:
		return raw("ts", []string{"-1", "1.5", `"x"`, "9007199254740992", "1e3", "-0"}[r.IntN(6)])
	case 10:
		return set("type", []string{"Bad", "", "a b", strings.Repeat("t", 65), "1abc"}[r.IntN(5)])
	case 11:
		return raw("prev", []string{`["op:xyz"]`, `"op:"`, `[1]`, `{}`, `["OP:` + strings.Repeat("a", 64) + `"]`}[r.IntN(5)])
	case 12:
		other := fp.Author(mustPublicKey(randomHex(r, 32)))
		return recompute(set("author", other))
	case 13:
		return recompute(raw("ts", fmt.Sprint(fuzzTS+1+r.IntN(1000))))
	case 14:
		return raw("payload", []string{"[]", "null", `"x"`, "1"}[r.IntN(4)])
	case 15:
		// A member twice, which only the op's text carries: a host parser
		// keeps the last.
		path := []string{"ts", "type", "payload", "sig", "id", "v"}[r.IntN(6)]
		if r.IntN(2) == 0 {
			return []Mutation{{Op: "duplicate", Path: path}}
		}
		return []Mutation{{Op: "duplicate", Path: path, Value: json.RawMessage([]string{"1", `"x"`, "{}", "1.0"}[r.IntN(4)])}}
	}
	return raw("payload", string(fuzzPayloadJSON.Tree(r).Encode()))
}

func mustPublicKey(seedHex string) []byte {
	seed, _ := hex.DecodeString(seedHex)
	pub, _ := fp.PublicKey(seed)
	return pub
}

// referenceOp signs a scenario's body with the reference.
func referenceOp(sc Scenario) (canon.Value, bool) {
	body, err := fuzzScenarios.body(sc)
	if err != nil {
		return canon.Value{}, false
	}
	text := body.String()
	op, code := call(OpSignOp, map[string]any{"seed": fuzzSeed, "body": json.RawMessage(text), "body_text": text})
	return op, code == ""
}

// leftOpen reports whether op turns on a point the profile leaves open
// (docs/suites/fablepool.md#left-open), which no vector may judge: ts
// written -0 (the integer 0, or not an integer from 0 up), and v an integer
// beyond ±(2^53−1) (a type error, or an unsupported version).
func leftOpen(op canon.Value) bool {
	if ts, ok := op.Lookup("ts"); ok && ts.Kind == canon.Number && ts.Num == "-0" {
		return true
	}
	if v, ok := op.Lookup("v"); ok && v.Kind == canon.Number {
		n, isInt := new(big.Int).SetString(v.Num, 10)
		return isInt && n.CmpAbs(big.NewInt(1<<53-1)) > 0
	}
	return false
}

// opVector is a scenario: accepted when there are no mutations, else
// rejected with the code the reference's verify_op gives the mutated op.
// Mutations the reference accepts make no scenario: the profile has none
// that must be accepted.
func opVector(name string, input []byte) (any, bool) {
	var in fuzzOpInput
	if err := json.Unmarshal(input, &in); err != nil || len(in.Payload) == 0 || len(in.Prev) == 0 {
		return nil, false
	}
	sc := Scenario{Name: name, Type: in.Type, Payload: in.Payload, Prev: in.Prev, Mutations: in.Mutations, Spelling: in.Spelling, Note: "found by referee fuzz"}
	if sc.Mutations == nil {
		sc.Mutations = []Mutation{}
	}
	op, ok := referenceOp(sc)
	if !ok {
		return nil, false
	}
	mutated, err := Apply(op, sc.Mutations, func(body canon.Value) (string, error) {
		b, err := fp.Canonical(body)
		return fp.ID(b), err
	})
	if err != nil || leftOpen(mutated) {
		return nil, false
	}
	value, text := opForms(mutated, sc.Spelling)
	verdict, code := call(OpVerifyOp, map[string]any{"op": json.RawMessage(value), "op_text": text})
	accepted := code == "" && verdict.Kind == canon.Bool && verdict.Bool
	switch {
	case accepted && len(sc.Mutations) > 0:
		return nil, false
	case accepted:
		sc.Expect = "accept"
	case len(sc.Mutations) == 0:
		return nil, false // the reference refuses its own signed op: a bug the gate reports elsewhere
	default:
		sc.Expect, sc.ExpectedError = "reject", code
	}
	return sc, true
}
