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

// Recorder collects an implementation's outputs for recorded.json.
type Recorder struct {
	mu    sync.Mutex
	canon map[string]RecordedCanon
	sign  map[string]RecordedSigning
	ops   map[string]RecordedOp
}

func newRecorder() *Recorder {
	return &Recorder{canon: map[string]RecordedCanon{}, sign: map[string]RecordedSigning{}, ops: map[string]RecordedOp{}}
}

// Recorded assembles what was recorded, in the corpus's order.
func (r *Recorder) Recorded(cp *Corpus, implementation string) *Recorded {
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

// Checks returns the corpus's checks, recording live outputs into rec and
// comparing them with truth (recorded ground truth; nil for none).
func (cp *Corpus) Checks(truth *Recorded, rec *Recorder) []check.Check {
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
		ID:  "fablepool/recorded/" + section + "/" + name,
		Doc: "recorded.json has an entry for " + section + " " + name,
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
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

// canonicalize calls canonicalize and returns its text, or its error code.
func canonicalize(ctx context.Context, s *check.Session, v CanonVector) (text string, code string, o check.Outcome, ok bool) {
	r, err := s.Call(ctx, OpCanonicalize, canonArgs(v))
	if err != nil {
		return "", "", check.Broke(err), false
	}
	if r.Err != nil {
		return "", codeOf(r.Err.Code), check.Outcome{}, true
	}
	if r.OK.Kind != canon.String {
		return "", "", check.Failed("canonicalize returned "+r.OK.Kind.String()+", not a string", expectedCanon(v), r.OK.String()), false
	}
	return r.OK.Str, "", check.Outcome{}, true
}

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

func canonCheck(v CanonVector, rec *Recorder) check.Check {
	doc := v.Note
	if doc == "" {
		doc = "canonical JSON of " + v.Name
	}
	return check.Check{
		ID:      "fablepool/canonicalization/" + v.Name,
		Doc:     doc,
		Needs:   []string{OpCanonicalize},
		Explain: "sends: canonicalize " + inputDesc(v) + "\nexpects: " + check.Clip(expectedCanon(v)),
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
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

func (r *Recorder) canonical(name, text, code string) {
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
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
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
