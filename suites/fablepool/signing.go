package fablepool

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/refereehq/referee/check"
	fp "github.com/refereehq/referee/protocols/fablepool"
)

// hexResult calls op and returns its ok string, which must be lowercase hex.
func hexResult(ctx context.Context, s *check.Session, op string, args any, want string) (string, check.Outcome, bool) {
	e := expect(op, args, want)
	e.Words = func(m check.Miss) check.Outcome {
		o := words(m)
		if m.Kind == check.Mistyped {
			o.Reason = m.Op + " returned " + m.OK.Kind.String() + ", not a hex string"
		}
		return o
	}
	got, o, ok := e.Text(ctx, s)
	if !ok {
		return "", o, false
	}
	if _, err := hex.DecodeString(got); err != nil || got != strings.ToLower(got) {
		return "", check.Failed(op+" returned a string that is not lowercase hex", want, got), false
	}
	return got, check.Outcome{}, true
}

func signingChecks(v SignVector, rec *recorder) []check.Check {
	id := "fablepool/signing/" + v.Name
	tamperedMsg := v.TamperedMessageHex
	if tamperedMsg == "" {
		m, _ := hex.DecodeString(v.MessageHex)
		tamperedMsg = hex.EncodeToString(fp.Tamper(m))
	}
	tamperedSig := v.TamperedSignature
	if tamperedSig == "" && v.Signature != "" {
		s, _ := hex.DecodeString(v.Signature)
		tamperedSig = hex.EncodeToString(fp.Tamper(s))
	}
	keyArgs := map[string]string{"seed": v.Seed}
	signArgs := map[string]string{"seed": v.Seed, "message_hex": v.MessageHex}
	return []check.Check{
		{
			ID: id + "/public_key", Doc: "the RFC 8032 public key of " + v.Name + "'s seed", Needs: []string{OpPublicKey},
			Level: check.Must, Clause: clausePublicKey,
			Explain: fmt.Sprintf("sends: public_key {\"seed\": %q}\nexpects: %s", v.Seed, v.PublicKey),
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				got, o, ok := hexResult(ctx, s, OpPublicKey, keyArgs, v.PublicKey)
				if !ok {
					return o
				}
				rec.signing(v.Name, got, "")
				return check.SameBytes("public key", []byte(v.PublicKey), []byte(got))
			},
		},
		{
			ID: id + "/sign", Doc: "the deterministic Ed25519 signature of " + v.Name + "'s message", Needs: []string{OpSign},
			Level: check.Must, Clause: clauseSign,
			Explain: fmt.Sprintf("sends: sign {\"seed\": %q, \"message_hex\": %q} twice\nexpects: %s both times", v.Seed, check.Clip(v.MessageHex), v.Signature),
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				got, o, ok := hexResult(ctx, s, OpSign, signArgs, v.Signature)
				if !ok {
					return o
				}
				rec.signing(v.Name, "", got)
				again, o, ok := hexResult(ctx, s, OpSign, signArgs, v.Signature)
				if !ok {
					return o
				}
				if again != got {
					return check.Failed("signing the same message twice gave two signatures: not deterministic", got, again)
				}
				return check.SameBytes("signature", []byte(v.Signature), []byte(got))
			},
		},
		verifyCheck(id+"/verify", "the signature of "+v.Name+" verifies", clauseVerify, v.PublicKey, v.MessageHex, v.Signature, true),
		verifyCheck(id+"/tampered-message", "the signature of "+v.Name+" does not verify a tampered message", clauseTamperedMessage, v.PublicKey, tamperedMsg, v.Signature, false),
		verifyCheck(id+"/tampered-signature", "a tampered signature of "+v.Name+" does not verify", clauseTamperedSignature, v.PublicKey, v.MessageHex, tamperedSig, false),
	}
}

func verifyCheck(id, doc, clause, pub, msg, sig string, want bool) check.Check {
	return check.Check{
		ID: id, Doc: doc, Needs: []string{OpVerify}, Level: check.Must, Clause: clause,
		Explain: fmt.Sprintf("sends: verify {\"public_key\": %q, \"message_hex\": %q, \"signature\": %q}\nexpects: %v", pub, check.Clip(msg), sig, want),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return expect(OpVerify, map[string]string{"public_key": pub, "message_hex": msg, "signature": sig}, "").Verdict(ctx, s, want)
		},
	}
}

func (r *recorder) signing(name, pub, sig string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.sign[name]
	e.Name = name
	if pub != "" {
		e.PublicKey = pub
	}
	if sig != "" {
		e.Signature = sig
	}
	r.sign[name] = e
}

func recordedSigningCheck(v SignVector, e RecordedSigning) check.Check {
	return check.Check{
		ID:      "fablepool/recorded/signing/" + v.Name,
		Doc:     "the live public key and signature of " + v.Name + " equal the recorded ground truth",
		Needs:   []string{OpPublicKey, OpSign},
		Explain: fmt.Sprintf("sends: public_key and sign for %s\nexpects: public_key %s, signature %s (from recorded.json)", v.Name, e.PublicKey, e.Signature),
		Level:   check.Must,
		Clause:  clauseRecorded,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			pub, o, ok := hexResult(ctx, s, OpPublicKey, map[string]string{"seed": v.Seed}, e.PublicKey)
			if !ok {
				return o
			}
			if pub != e.PublicKey {
				return check.Failed("drift from recorded.json in signing["+v.Name+"].public_key", e.PublicKey, pub)
			}
			sig, o, ok := hexResult(ctx, s, OpSign, map[string]string{"seed": v.Seed, "message_hex": v.MessageHex}, e.Signature)
			if !ok {
				return o
			}
			if sig != e.Signature {
				return check.Failed("drift from recorded.json in signing["+v.Name+"].signature", e.Signature, sig)
			}
			return check.Passed()
		},
	}
}
