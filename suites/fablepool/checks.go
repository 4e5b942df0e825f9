package fablepool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	fp "github.com/refereehq/referee/protocols/fablepool"
)

// The adapter ops (profile §10).
const (
	OpCanonicalize = "canonicalize"
	OpPublicKey    = "public_key"
	OpSign         = "sign"
	OpVerify       = "verify"
	OpSignOp       = "sign_op"
	OpVerifyOp     = "verify_op"
)

// The clauses the checks rest on: the upstream suite's README (public in
// part) and the profile fablepool-draft-1 that completes it
// (docs/suites/fablepool.md). Every check is a must: neither text makes any
// of these behaviours optional.
const (
	readme  = "FablePool milestone-2 conformance README: "
	profile = "fablepool-draft-1 "

	clauseCanonical         = readme + `"two implementations must agree on every byte: UTF-8 output, object keys sorted by Unicode code point, no insignificant whitespace, minimal escaping (non-ASCII characters emitted raw, not as \uXXXX), arrays kept in source order."`
	clauseJSONInvalid       = profile + `§1: "Parsing: strict RFC 8259. Duplicate keys, NaN/Infinity and truncation give json_invalid."`
	clauseUnsupported       = profile + `§1: "A lone surrogate gives canonical_unsupported." "Any number token with a fraction or exponent (including 1.0 and 1e3) gives canonical_unsupported. An out-of-range integer also gives canonical_unsupported."`
	clausePublicKey         = readme + `"The implementation must derive the RFC 8032 public key from the seed"; ` + profile + `§2: "the public key is A as in RFC 8032 §5.1.5."`
	clauseSign              = readme + `"The implementation must ... sign deterministically"; ` + profile + `§2: "Signing is pure Ed25519: no prehash, no context, deterministic."`
	clauseVerify            = readme + `"The implementation must ... verify its own signature"`
	clauseTamperedMessage   = readme + `"The implementation must ... reject tampered messages and tampered signatures"; ` + profile + `§2: "Tampered message: flip bit 0 of byte 0, or use the single byte 0x00 if the message is empty. ... Both must fail verification."`
	clauseTamperedSignature = readme + `"The implementation must ... reject tampered messages and tampered signatures"; ` + profile + `§2: "Tampered signature: flip bit 0 of byte 0. Both must fail verification."`
	clauseStrictVerify      = profile + `§2: "Verification is strict: lengths must be exactly 32 and 64 bytes, S < L is required, and non-canonical or invalid point encodings are rejected. Concretely, it must behave like OpenSSL or Go crypto/ed25519, which both pass all of Wycheproof."`
	clauseScenario          = readme + `"Every mutation of a signed operation MUST be rejected; the unmutated operations MUST verify."`
	clauseScenarioCode      = clauseScenario + "; " + profile + `§5: "The first failing step decides the code"`
	clauseRecorded          = readme + `"every later run (and every second implementation) is compared against it, and any drift in canonical encoding, key derivation, signing, or id computation fails the run."`
)

// canonClause is the clause a canonicalization vector rests on.
func canonClause(v CanonVector) string {
	switch {
	case v.Canonical != nil:
		return clauseCanonical
	case v.Error == fp.CodeJSONInvalid:
		return clauseJSONInvalid
	case v.Error == fp.CodeCanonicalUnsupported:
		return clauseUnsupported
	}
	return ""
}

// recorder collects an implementation's outputs for recorded.json.
type recorder struct {
	mu    sync.Mutex
	canon map[string]RecordedCanon
	sign  map[string]RecordedSigning
	ops   map[string]RecordedOp
}

func newRecorder() *recorder {
	return &recorder{canon: map[string]RecordedCanon{}, sign: map[string]RecordedSigning{}, ops: map[string]RecordedOp{}}
}

// recorded assembles what was recorded, in the corpus's order.
func (r *recorder) recorded(cp *corpusData, implementation string) *Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &Recorded{Format: RecordedFormat, Implementation: implementation, Canonicalization: []RecordedCanon{}, Signing: []RecordedSigning{}}
	for _, v := range cp.Canonicalization {
		if e, ok := r.canon[v.Name]; ok {
			out.Canonicalization = append(out.Canonicalization, e)
		}
	}
	for _, v := range cp.Signing {
		if e, ok := r.sign[v.Name]; ok {
			out.Signing = append(out.Signing, e)
		}
	}
	out.OpScenarios.Ops = []RecordedOp{}
	for _, s := range cp.Scenarios.Vectors {
		if e, ok := r.ops[s.Name]; ok {
			out.OpScenarios.Ops = append(out.OpScenarios.Ops, e)
		}
	}
	if seed, err := hex.DecodeString(cp.Scenarios.Seed); err == nil {
		if pub, err := fp.PublicKey(seed); err == nil {
			out.OpScenarios.Author = fp.Author(pub)
		}
	}
	return out
}

// checks returns the corpus's checks, recording live outputs into rec and
// comparing them with truth (recorded ground truth; nil for none).
func (cp *corpusData) checks(truth *Recorded, rec *recorder) []check.Check {
	var out []check.Check
	tc := map[string]RecordedCanon{}
	ts := map[string]RecordedSigning{}
	to := map[string]RecordedOp{}
	if truth != nil {
		for _, e := range truth.Canonicalization {
			tc[e.Name] = e
		}
		for _, e := range truth.Signing {
			ts[e.Name] = e
		}
		for _, e := range truth.OpScenarios.Ops {
			to[e.Name] = e
		}
	}
	for _, v := range cp.Canonicalization {
		out = append(out, canonCheck(v, rec))
		if e, ok := tc[v.Name]; ok {
			out = append(out, recordedCanonCheck(v, e))
		} else if truth != nil {
			out = append(out, missingRecord("canonicalization", v.Name))
		}
	}
	for _, v := range cp.Signing {
		out = append(out, signingChecks(v, rec)...)
		if e, ok := ts[v.Name]; ok {
			out = append(out, recordedSigningCheck(v, e))
		} else if truth != nil {
			out = append(out, missingRecord("signing", v.Name))
		}
	}
	for _, s := range cp.Scenarios.Vectors {
		out = append(out, scenarioCheck(cp.Scenarios, s, rec))
		if s.Expect != "accept" {
			continue // recorded.json holds the signed ops of the accepted scenarios
		}
		if e, ok := to[s.Name]; ok {
			out = append(out, recordedOpCheck(cp.Scenarios, s, e))
		} else if truth != nil {
			out = append(out, missingRecord("op_scenarios", s.Name))
		}
	}
	return out
}

// missingRecord fails because the ground truth has no entry for a vector:
// a difference between recorded and live outputs like any other.
func missingRecord(section, name string) check.Check {
	return check.Check{
		ID:     "fablepool/recorded/" + section + "/" + name,
		Doc:    "recorded.json has an entry for " + section + " " + name,
		Level:  check.Must,
		Clause: clauseRecorded,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return check.Failed("drift from recorded.json: it has no "+section+" entry "+name, "an entry", "none")
		},
	}
}

func canonArgs(v CanonVector) any {
	if v.InputText != nil {
		return map[string]string{"input_text": *v.InputText}
	}
	return map[string]json.RawMessage{"input": v.Input}
}

// expect is a call of op with args that wants an answer, shown as want,
// in fablepool's words.
func expect(op string, args any, want string) check.Expect {
	return check.Expect{Op: op, Args: args, Want: want, Words: words}
}

// words are fablepool's: what came of an err is its code ("error
// json_invalid").
func words(m check.Miss) check.Outcome {
	o := m.Outcome
	if m.Kind == check.Erred {
		o.Actual = "error " + check.CodeOf(m.Err)
	}
	return o
}

// canonicalize calls canonicalize and returns its text, or its error code:
// both are outcomes a vector can want.
func canonicalize(ctx context.Context, s *check.Session, v CanonVector) (text string, code string, o check.Outcome, ok bool) {
	r, o, ok := check.Expect{Op: OpCanonicalize, Args: canonArgs(v)}.Reply(ctx, s)
	if !ok {
		return "", "", o, false
	}
	if r.Err != nil {
		return "", check.CodeOf(r.Err), check.Outcome{}, true
	}
	if r.OK.Kind != canon.String {
		return "", "", check.Failed("canonicalize returned "+r.OK.Kind.String()+", not a string", expectedCanon(v), r.OK.String()), false
	}
	return r.OK.Str, "", check.Outcome{}, true
}

// codeOf is an error's code, "unknown" when it has none, as check.CodeOf.
func codeOf(code string) string {
	if code == "" {
		return "unknown"
	}
	return code
}

func expectedCanon(v CanonVector) string {
	if v.Canonical != nil {
		return *v.Canonical
	}
	return "error " + v.Error
}

func inputDesc(v CanonVector) string {
	if v.InputText != nil {
		return `{"input_text": ` + check.Clip(strconv.Quote(*v.InputText)) + "}"
	}
	return `{"input": ` + check.Clip(string(v.Input)) + "}"
}

func canonCheck(v CanonVector, rec *recorder) check.Check {
	doc := v.Note
	if doc == "" {
		doc = "canonical JSON of " + v.Name
	}
	return check.Check{
		ID:      "fablepool/canonicalization/" + v.Name,
		Doc:     doc,
		Needs:   []string{OpCanonicalize},
		Explain: "sends: canonicalize " + inputDesc(v) + "\nexpects: " + check.Clip(expectedCanon(v)),
		Level:   check.Must,
		Clause:  canonClause(v),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			text, code, o, ok := canonicalize(ctx, s, v)
			if !ok {
				return o
			}
			rec.canonical(v.Name, text, code)
			switch {
			case v.Canonical == nil && code == "":
				return check.Failed("canonicalize accepted an input it must reject with "+v.Error, v.Error, text)
			case v.Canonical == nil && code != v.Error:
				return check.Failed(fmt.Sprintf("canonicalize rejected with %s, want %s", code, v.Error), v.Error, code)
			case v.Canonical == nil:
				return check.Passed()
			case code != "":
				return check.Failed("canonicalize rejected a valid input with "+code, *v.Canonical, "error "+code)
			}
			if o := check.SameBytes("canonical text", []byte(*v.Canonical), []byte(text)); o.Status != check.Pass {
				return o
			}
			if v.CanonicalSHA256 != "" && sha256Hex([]byte(text)) != v.CanonicalSHA256 {
				return check.Failed("canonical_sha256 differs", v.CanonicalSHA256, sha256Hex([]byte(text)))
			}
			return check.Passed()
		},
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (r *recorder) canonical(name, text, code string) {
	if r == nil {
		return
	}
	var e RecordedCanon
	e.Name = name
	if code != "" {
		e.Error = &code
	} else {
		h := sha256Hex([]byte(text))
		e.CanonicalSHA256 = &h
	}
	r.mu.Lock()
	r.canon[name] = e
	r.mu.Unlock()
}

func recordedCanonCheck(v CanonVector, e RecordedCanon) check.Check {
	want := "canonical_sha256 " + deref(e.CanonicalSHA256)
	if e.Error != nil {
		want = "error " + *e.Error
	}
	return check.Check{
		ID:      "fablepool/recorded/canonicalization/" + v.Name,
		Doc:     "the live canonical digest of " + v.Name + " equals the recorded ground truth",
		Needs:   []string{OpCanonicalize},
		Explain: "sends: canonicalize " + inputDesc(v) + "\nexpects: " + want + " (from recorded.json)",
		Level:   check.Must,
		Clause:  clauseRecorded,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			text, code, o, ok := canonicalize(ctx, s, v)
			if !ok {
				return o
			}
			got := "canonical_sha256 " + sha256Hex([]byte(text))
			if code != "" {
				got = "error " + code
			}
			if got != want {
				return check.Failed("drift from recorded.json in canonicalization["+v.Name+"]."+strings.Fields(want)[0], want, got)
			}
			return check.Passed()
		},
	}
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
