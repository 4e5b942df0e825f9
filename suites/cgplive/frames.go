package cgplive

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
)

// frameViolations returns frame i's violations, one line each.
func frameViolations(i int, f *cgp.ContextFrame) []string {
	var out []string
	for _, v := range cgp.ValidateFrame(f) {
		out = append(out, fmt.Sprintf("frame[%d] %s (§%s)", i, v.Msg, v.Rule))
	}
	return out
}

func frameValidity(res *cgp.ContextQueryResult) outcome {
	if len(res.Frames) == 0 {
		return skip("the probe query returned no frames: no frame rule was exercised")
	}
	var all []string
	for i := range res.Frames {
		all = append(all, frameViolations(i, &res.Frames[i])...)
	}
	if len(all) > 0 {
		return fail("%s", strings.Join(all, "; ")).want("no frame breaks a frame rule", strings.Join(all, "; "))
	}
	return pass("%d frame(s) — scores in [0,1], titles, citation labels, honest representations, RFC 3339 timestamps, well-formed digests, labelled and targeted relations", len(res.Frames))
}

func attestation(ack *cgp.Envelope, res *cgp.ContextQueryResult) outcome {
	if len(ack.AttesterKeys) == 0 {
		return skip("provider publishes no attester_keys")
	}
	if len(res.FrameAttestations) == 0 && res.ResultAttestation == nil {
		return skip("provider publishes attester_keys but attested nothing in its reply to the probe")
	}
	name := ack.Provider.Name
	keys := map[string]cgp.AttesterKey{}
	for _, k := range ack.AttesterKeys {
		keys[k.KeyID] = k
	}
	verify := func(a cgp.ProvenanceAttestation, want cgp.Hash) cgp.Verdict {
		k, ok := keys[a.KeyID]
		if !ok {
			return cgp.Verdict{Kind: cgp.VerdictMalformedKey, Detail: fmt.Sprintf("key_id %q is not in attester_keys", a.KeyID)}
		}
		if k.Algorithm != a.Algorithm {
			return cgp.Verdict{Kind: cgp.VerdictUnknownAlgorithm, Detail: fmt.Sprintf("key %s is %s, the attestation says %s", k.KeyID, k.Algorithm, a.Algorithm)}
		}
		return cgp.VerifyAttestation(a, want, k.PublicKey)
	}
	// strict stays true while every problem is a refusal only a strict
	// verifier makes (§6.5.4 SHOULDs one): a weak key or R that
	// crypto/ed25519 accepts.
	strict := true
	judge := func(a cgp.ProvenanceAttestation, want cgp.Hash) (cgp.Verdict, bool) {
		v := verify(a, want)
		if v.Kind == cgp.VerdictValid {
			return v, true
		}
		strict = strict && (v.Kind == cgp.VerdictMalformedKey || v.Kind == cgp.VerdictBadSignature) && lenientValid(a, want, keys[a.KeyID].PublicKey)
		return v, false
	}
	ids, leaves := cgp.ResultLeaves(name, res.Frames)
	root := cgp.MerkleRoot(leaves)
	var problems, notes []string
	signed, proofs := 0, 0
	attested := map[string]bool{}
	for k, fa := range res.FrameAttestations {
		idx := -1
		for i, id := range ids {
			if id.ProviderID == fa.Frame.ProviderID && id.FrameID == fa.Frame.FrameID && same(id.ContentDigest, fa.Frame.ContentDigest) {
				idx = i
			}
		}
		if idx < 0 {
			strict = false
			problems = append(problems, fmt.Sprintf("frame_attestations[%d] names frame %s of provider %q, which the reply does not carry (§F9, §F12)", k, fa.Frame.FrameID, fa.Frame.ProviderID))
			continue
		}
		attested[fa.Frame.FrameID] = true
		if fa.Attestation != nil {
			signed++
			if v, ok := judge(*fa.Attestation, leaves[idx]); !ok {
				problems = append(problems, fmt.Sprintf("frame_attestations[%d] (frame %s): %s", k, fa.Frame.FrameID, v))
			}
			if fa.Frame.ContentDigest == nil {
				notes = append(notes, fmt.Sprintf("frame %s has no content_digest: its attestation binds identity only (ValidIdentityOnly, §F15)", fa.Frame.FrameID))
			}
		}
		if fa.InclusionProof != nil {
			proofs++
			p := *fa.InclusionProof
			got, err := cgp.ProofRoot(leaves[idx], p)
			strict = strict && err == nil && p.LeafCount == uint64(len(leaves)) && got == root && res.ResultAttestation != nil
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("frame_attestations[%d] (frame %s): inclusion proof: %v", k, fa.Frame.FrameID, err))
			case p.LeafCount != uint64(len(leaves)):
				problems = append(problems, fmt.Sprintf("frame_attestations[%d] (frame %s): inclusion proof over %d leaves, the reply carries %d frames (§F12)", k, fa.Frame.FrameID, p.LeafCount, len(leaves)))
			case got != root:
				problems = append(problems, fmt.Sprintf("frame_attestations[%d] (frame %s): inclusion proof leads to %s, the frames' root is %s (CommitmentMismatch)", k, fa.Frame.FrameID, got, root))
			case res.ResultAttestation == nil:
				problems = append(problems, fmt.Sprintf("frame_attestations[%d] (frame %s): an inclusion proof without a result_attestation to prove against", k, fa.Frame.FrameID))
			}
		}
	}
	if signed == 0 && proofs == 0 && res.ResultAttestation == nil && len(problems) == 0 {
		return skip("provider publishes attester_keys, but its frame_attestations carry no attestation or inclusion proof")
	}
	if res.ResultAttestation != nil {
		if v, ok := judge(*res.ResultAttestation, root); !ok {
			problems = append(problems, fmt.Sprintf("result_attestation over %d frame(s): %s", len(leaves), v))
		}
	}
	if n := len(res.Frames) - len(attested); n > 0 && res.ResultAttestation == nil {
		notes = append(notes, fmt.Sprintf("%d frame(s) carry no attestation: unattested, which is allowed (§F9)", n))
	}
	if len(problems) > 0 {
		o := fail("%s", strings.Join(problems, "; ")).want("every attestation verifies (verdict valid) against a published key", strings.Join(problems, "; "))
		if strict {
			// §6.5.4 asks for a strict verifier with a SHOULD.
			o.level = check.Should
			notes = append(notes, "every refusal is a strict verifier's: the key or R is a small-order or non-canonical point, under which crypto/ed25519 accepts the signature; §6.5.4 SHOULDs a strict verifier, so this is a warning")
		}
		o.notes = notes
		return o
	}
	what := fmt.Sprintf("%d frame attestation(s), %d inclusion proof(s)", signed, proofs)
	if res.ResultAttestation != nil {
		what += " and the result root"
	}
	o := pass("%s verify under the published attester_keys: commitments recomputed from the frames as served, strict Ed25519 (§6.5)", what)
	o.notes = notes
	return o
}

// lenientValid reports whether a verifies over want under keyHex as a
// verifier that is not strict answers (crypto/ed25519: a small-order or
// non-canonical key or R accepted), its encodings otherwise well-formed.
func lenientValid(a cgp.ProvenanceAttestation, want cgp.Hash, keyHex string) bool {
	key, kerr := hex.DecodeString(keyHex)
	sig, serr := hex.DecodeString(a.Signature)
	signed, herr := cgp.ParseHash(a.SignedCommitment)
	return kerr == nil && serr == nil && herr == nil && strings.ToLower(keyHex) == keyHex && strings.ToLower(a.Signature) == a.Signature &&
		len(key) == ed25519.PublicKeySize && len(sig) == ed25519.SignatureSize && a.Algorithm == "ed25519" && signed == want &&
		ed25519.Verify(key, signed[:], sig)
}
