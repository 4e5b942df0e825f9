package cgpvectors

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/protocols/cgp"
)

// The checks of found op cases whose answer is a verdict or an envelope:
// verifyAttestation, verifyRecordAttestation and roundTripEnvelope. Each
// failure names its class in brackets ("want MalformedKey (key y ≥ p), got
// BadSignature", "member order"), which the fuzzer keeps in its failure
// key: a verifier that skips the R check and one that accepts S ≥ L fail
// the same kind of check, and are two findings. A case whose verdict rests
// on a strict verifier's refusals (the reference and a verifier without
// them disagree) is a should, as the suite's own are (SPEC §6.5.4).

// verdicts are verifyAttestation's answers.
var verdicts = []string{cgp.VerdictValid, cgp.VerdictCommitmentMismatch, cgp.VerdictBadSignature, cgp.VerdictUnknownAlgorithm,
	cgp.VerdictMalformedKey, cgp.VerdictMalformedSignature, cgp.VerdictMalformedCommitment}

// recordReasons are verifyRecordAttestation's reasons for refusing.
var recordReasons = []string{cgp.ReasonMalformed, cgp.ReasonCommitmentMismatch, cgp.ReasonSignatureInvalid}

// lenientVerifier is the built-in adapter without a strict verifier's
// refusals: what a case's verdict would be without them.
var lenientVerifier = &lazy.Value[*Handler]{New: func() *Handler {
	h, _ := Reference("lenient-ed25519")
	return h
}}

const noteVerdictOrder = "the order of the checks: algorithm (UnknownAlgorithm), the key's form and strictness (MalformedKey: small-order and non-canonical points too), signed_commitment's form (MalformedCommitment), signed_commitment = the expected commitment (CommitmentMismatch), the signature's form (MalformedSignature), Ed25519 over the 32 raw bytes with R a strict point and S < L (BadSignature)"

// verifyCaseCheck is the check of a found verifyAttestation case: the
// verdict is the expected one, by name.
func verifyCaseCheck(oc OpCase) check.Check {
	args := json.RawMessage(oc.Args.String())
	want := oc.Expected.Str
	c := check.Check{
		ID:      opCaseID(oc),
		Doc:     fmt.Sprintf("verifyAttestation of the found input %s gives the reference's verdict, %s", oc.Name, want),
		Needs:   []string{oc.Op},
		Explain: fmt.Sprintf("sends: %s %s\nexpects: ok %q", oc.Op, check.Clip(string(args)), want),
		Clause:  clauseVerdicts,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			answer, o, ok := check.Expect{Op: oc.Op, Args: args, Want: want}.Text(ctx, s)
			if !ok {
				return o
			}
			if answer == want {
				return check.Passed()
			}
			got := "another answer"
			if slices.Contains(verdicts, answer) {
				got = answer
			}
			o = check.Failed("the verdict differs ["+verdictClass(want, verdictFacet(oc.Args, want), got)+"]", want, answer)
			o.Notes = []string{noteVerdictOrder}
			return o
		},
	}
	if lv, aerr := lenientVerifier.Get().Handle(context.Background(), oc.Op, args); aerr == nil && string(lv) != oc.Expected.String() {
		c = strictVerifier(c)
	}
	return c
}

// verdictClass is a verdict failure's class: what was wanted and why,
// and what came.
func verdictClass(want, facet, got string) string {
	if facet != "" {
		want += " (" + facet + ")"
	}
	return "want " + want + ", got " + got
}

// verdictFacet is what the reference's verdict on a verifyAttestation
// case rests on: the key's or the signature's flaw, or, for a valid one,
// a key of mixed order.
func verdictFacet(args canon.Value, want string) string {
	att, _ := args.Lookup("attestation")
	key, _ := args.Lookup("public_key")
	sig, _ := att.Lookup("signature")
	switch want {
	case cgp.VerdictUnknownAlgorithm:
		return "algorithm"
	case cgp.VerdictMalformedKey:
		return keyFacet(key.Str)
	case cgp.VerdictMalformedCommitment:
		return "commitment form"
	case cgp.VerdictCommitmentMismatch:
		return "mismatch"
	case cgp.VerdictMalformedSignature:
		return "signature form"
	case cgp.VerdictBadSignature:
		return signatureFacet(sig.Str)
	case cgp.VerdictValid:
		return mixedFacet(key.Str)
	}
	return ""
}

// keyFacet places a public key: "key form" (not 64 lowercase hex digits)
// or its point's flaw.
func keyFacet(keyHex string) string {
	b, err := hex.DecodeString(keyHex)
	if err != nil || len(b) != ed25519.PublicKeySize || strings.ToLower(keyHex) != keyHex {
		return "key form"
	}
	if p := pointFacet(b); p != "" {
		return "key " + p
	}
	return ""
}

// signatureFacet places a signature that does not verify: R's flaw, S ≥ L,
// or "equation" (it is well formed, and does not hold).
func signatureFacet(sigHex string) string {
	b, err := hex.DecodeString(sigHex)
	if err != nil || len(b) != ed25519.SignatureSize {
		return "signature form"
	}
	if p := pointFacet(b[:32]); p != "" {
		return "R " + p
	}
	if leInt(b[32:]).Cmp(edOrder.Get()) >= 0 {
		return "S ≥ L"
	}
	return "equation"
}

// mixedFacet is "mixed-order key" for a key with a small-order component.
func mixedFacet(keyHex string) string {
	b, err := hex.DecodeString(keyHex)
	if err == nil && len(b) == ed25519.PublicKeySize && !edPrimeOrder(b) {
		return "mixed-order key"
	}
	return ""
}

// pointFacet is a point encoding's flaw for a strict verifier: "y ≥ p",
// "x = 0, sign set", "off curve" or "small order"; "" for none.
func pointFacet(b []byte) string {
	switch {
	case !edCanonical(b):
		return "y ≥ p"
	case slices.Contains(xZeroSign[:], hex.EncodeToString(b)):
		return "x = 0, sign set"
	}
	if _, ok := edDecode(b); !ok {
		return "off curve"
	}
	if edSmallOrder(b) {
		return "small order"
	}
	return ""
}

// recordVerdict is a verifyRecordAttestation answer as the checks compare
// it: "valid", or the reason given for refusing.
func recordVerdict(v canon.Value) (string, bool) {
	valid, ok := v.Lookup("valid")
	if v.Kind != canon.Object || !ok || valid.Kind != canon.Bool {
		return "", false
	}
	if valid.Bool {
		return "valid", true
	}
	reason, _ := v.Lookup("reason")
	if reason.Kind == canon.String && slices.Contains(recordReasons, reason.Str) {
		return reason.Str, true
	}
	return "another reason", true
}

// recordVerifyCaseCheck is the check of a found verifyRecordAttestation
// case: valid as the reference finds it, or refused with its reason.
func recordVerifyCaseCheck(oc OpCase) check.Check {
	args := json.RawMessage(oc.Args.String())
	want, _ := recordVerdict(oc.Expected)
	c := check.Check{
		ID:      opCaseID(oc),
		Doc:     fmt.Sprintf("verifyRecordAttestation of the found input %s answers as the reference does: %s", oc.Name, want),
		Needs:   []string{oc.Op},
		Explain: fmt.Sprintf("sends: %s %s\nexpects: ok %s", oc.Op, check.Clip(string(args)), oc.Expected.String()),
		Clause:  clauseRecordVerify,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			answer, o, ok := check.Expect{Op: oc.Op, Args: args, Want: oc.Expected.String()}.OK(ctx, s)
			if !ok {
				return o
			}
			got, ok := recordVerdict(answer)
			if !ok {
				return check.Failed(oc.Op+` must answer {"valid": B, ...}`, oc.Expected.String(), answer.String())
			}
			if got == want {
				return check.Passed()
			}
			o = check.Failed("the verdict differs ["+verdictClass(want, recordFacet(oc.Args, want), got)+"]", oc.Expected.String(), answer.String())
			o.Notes = []string{"a record attestation is checked in this order: its six string members and algorithm ed25519 (malformed), signed_record_hash = the record's hash (commitment_mismatch), then Ed25519 over the domain tag and the hash's 32 bytes, the key and R strict points and S < L (signature_invalid)"}
			return o
		},
	}
	if want == cgp.ReasonSignatureInvalid && recordRestsOnStrictness(oc.Args) {
		c = strictVerifier(c)
	}
	return c
}

// recordParts are a verifyRecordAttestation case's key and signature
// bytes and the message signed, when they are well formed.
func recordParts(args canon.Value) (key, sig, msg []byte, ok bool) {
	att, _ := args.Lookup("attestation")
	k, _ := args.Lookup("public_key")
	s, _ := att.Lookup("signature")
	h, _ := att.Lookup("signed_record_hash")
	key, err1 := hex.DecodeString(k.Str)
	sig, err2 := hex.DecodeString(s.Str)
	msg, err3 := cgp.RecordAttestationMessage(h.Str)
	return key, sig, msg, err1 == nil && err2 == nil && err3 == nil && len(key) == ed25519.PublicKeySize && len(sig) == ed25519.SignatureSize
}

// recordRestsOnStrictness reports whether a refused record attestation is
// refused for a weak key or R only: a verifier without those refusals
// (crypto/ed25519's) accepts its signature.
func recordRestsOnStrictness(args canon.Value) bool {
	key, sig, msg, ok := recordParts(args)
	return ok && (cgp.WeakPublicKey(key) || cgp.WeakPublicKey(sig[:32])) && ed25519.Verify(key, msg, sig)
}

// recordFacet is what the reference's answer to a verifyRecordAttestation
// case rests on.
func recordFacet(args canon.Value, want string) string {
	switch want {
	case cgp.ReasonMalformed:
		return "form"
	case cgp.ReasonCommitmentMismatch:
		return "mismatch"
	case "valid":
		k, _ := args.Lookup("public_key")
		return mixedFacet(k.Str)
	}
	key, sig, _, ok := recordParts(args)
	if !ok {
		return "signature form"
	}
	if p := pointFacet(key); p != "" {
		return "key " + p
	}
	return signatureFacet(hex.EncodeToString(sig))
}

// envelopeCaseCheck is the check of a found roundTripEnvelope case: the
// envelope written again is the reference's, byte for byte.
func envelopeCaseCheck(oc OpCase) check.Check {
	args := json.RawMessage(oc.Args.String())
	want := oc.Expected.Str
	return check.Check{
		ID:      opCaseID(oc),
		Doc:     "roundTripEnvelope of the found envelope " + oc.Name + " writes it as the reference serializer does",
		Needs:   []string{oc.Op},
		Explain: fmt.Sprintf("sends: %s %s\nexpects: ok %s", oc.Op, check.Clip(string(args)), check.Clip(strconv.Quote(want))),
		Clause:  clauseEnvelopeRespelled,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			e := check.Expect{Op: oc.Op, Args: args, Want: want, Notes: []string{noteEnvelope}}
			e.Words = func(m check.Miss) check.Outcome {
				o := m.Outcome
				switch m.Kind {
				case check.Erred:
					o.Reason = oc.Op + " could not read the envelope: " + m.Err.Error()
				case check.Differs:
					o.Reason = fmt.Sprintf("the re-serialised envelope differs at byte %d [%s]", o.Diff.Offset, envelopeClass(want, m.OK.Str))
				}
				return o
			}
			return e.Bytes(ctx, s, "the re-serialised envelope", []byte(want))
		},
	}
}

// envelopeClass names the first way got differs from the reference's
// envelope want, in document order: "not JSON", "member dropped", "null
// for absent", "member kept", "member order", "elements", "number
// spelling" (the same double), "f32 digits" (the same f32, written as
// another double), "number value", "string", "kind", or "spacing or
// escapes" when the values are the same.
func envelopeClass(want, got string) string {
	w, err1 := canon.Parse([]byte(want), canon.ReadOptions{})
	g, err2 := canon.Parse([]byte(got), canon.ReadOptions{})
	if err1 != nil || err2 != nil {
		return "not JSON"
	}
	if c := valueClass(w, g); c != "" {
		return c
	}
	return "spacing or escapes"
}

func valueClass(w, g canon.Value) string {
	if w.Kind != g.Kind {
		return "kind"
	}
	switch w.Kind {
	case canon.Object:
		var wk, gk []string
		for _, m := range w.Members {
			wk = append(wk, m.Key)
		}
		for _, m := range g.Members {
			gk = append(gk, m.Key)
			if !slices.Contains(wk, m.Key) {
				if m.Value.Kind == canon.Null {
					return "null for absent"
				}
				return "member kept"
			}
		}
		for _, k := range wk {
			if !slices.Contains(gk, k) {
				return "member dropped"
			}
		}
		if !slices.Equal(wk, gk) {
			return "member order"
		}
		for i := range w.Members {
			if c := valueClass(w.Members[i].Value, g.Members[i].Value); c != "" {
				return c
			}
		}
	case canon.Array:
		if len(w.Elems) != len(g.Elems) {
			return "elements"
		}
		for i := range w.Elems {
			if c := valueClass(w.Elems[i], g.Elems[i]); c != "" {
				return c
			}
		}
	case canon.Number:
		if w.Num == g.Num {
			return ""
		}
		a, _ := strconv.ParseFloat(w.Num, 64)
		b, _ := strconv.ParseFloat(g.Num, 64)
		switch {
		case a == b:
			return "number spelling"
		case float32(a) == float32(b):
			return "f32 digits"
		}
		return "number value"
	case canon.String:
		if w.Str != g.Str {
			return "string"
		}
	case canon.Bool:
		if w.Bool != g.Bool {
			return "kind"
		}
	}
	return ""
}
