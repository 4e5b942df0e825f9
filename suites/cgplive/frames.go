package cgplive

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/refereehq/referee/protocols/cgp"
)

var (
	digestPattern    = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	timestampPattern = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?Z$`)
)

// checkTimestamp applies F4: YYYY-MM-DDTHH:MM:SS(.f+)?Z, UTC, with real
// calendar ranges (second 60 allowed for a leap second).
func checkTimestamp(s string) error {
	m := timestampPattern.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("%q is not an RFC 3339 UTC timestamp", s)
	}
	n := make([]int, 7)
	for i := 1; i <= 6; i++ {
		n[i], _ = strconv.Atoi(m[i])
	}
	year, month, day, hour, minute, second := n[1], n[2], n[3], n[4], n[5], n[6]
	days := []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days[1] = 29
	}
	switch {
	case month < 1 || month > 12:
		return fmt.Errorf("%q: month %d", s, month)
	case day < 1 || day > days[month-1]:
		return fmt.Errorf("%q: day %d of month %d", s, day, month)
	case hour > 23 || minute > 59 || second > 60:
		return fmt.Errorf("%q: time of day out of range", s)
	}
	return nil
}

// frameViolations returns frame i's violations of the frame rules.
func frameViolations(i int, f *cgp.ContextFrame) []string {
	var v []string
	add := func(format string, a ...any) { v = append(v, fmt.Sprintf("frame[%d] ", i)+fmt.Sprintf(format, a...)) }
	if s := float64(f.Score); math.IsNaN(s) || s < 0 || s > 1 {
		add("score %v is outside [0,1] (§F1)", f.Score)
	}
	if cgp.IsBlank(f.Title) {
		add("has an empty title (§F2)")
	}
	if f.CitationLabel == nil || cgp.IsBlank(*f.CitationLabel) {
		add("is missing a citation_label (§F3 — never a bare id)")
	}
	for _, p := range representationProblems(f) {
		add("%s (§P1–P3)", p)
	}
	for _, ts := range []struct {
		name string
		v    *string
	}{{"valid_from", f.ValidFrom}, {"valid_to", f.ValidTo}, {"recorded_at", f.RecordedAt}} {
		if ts.v != nil && checkTimestamp(*ts.v) != nil {
			add("field `%s` is not an RFC 3339 UTC timestamp (§F4): %q", ts.name, *ts.v)
		}
	}
	if f.ContentRef != nil && f.ContentRef.ExpiresAt != nil && checkTimestamp(*f.ContentRef.ExpiresAt) != nil {
		add("field `content_ref.expires_at` is not an RFC 3339 UTC timestamp (§F4): %q", *f.ContentRef.ExpiresAt)
	}
	if from, err1 := parseTime(f.ValidFrom); err1 == nil && from != nil {
		if to, err2 := parseTime(f.ValidTo); err2 == nil && to != nil && !to.After(*from) {
			add("valid_to %s is not after valid_from %s: an empty validity window (§Q2)", *f.ValidTo, *f.ValidFrom)
		}
	}
	if f.ContentDigest != nil {
		switch {
		case !digestPattern.MatchString(*f.ContentDigest):
			add("content_digest is present but not `sha256:<64 lowercase hex>` (§D1): %q", *f.ContentDigest)
		case f.Content != nil && cgp.DigestOf([]byte(*f.Content)) != *f.ContentDigest:
			add("content_digest %s is not the SHA-256 of its content (%s) (§D1)", *f.ContentDigest, cgp.DigestOf([]byte(*f.Content)))
		}
	}
	if f.CanonicalContentHash != nil && !digestPattern.MatchString(*f.CanonicalContentHash) {
		add("canonical_content_hash is not `sha256:<64 lowercase hex>` (§D1): %q", *f.CanonicalContentHash)
	}
	for k, l := range f.Provenance {
		if l.Type == "file" && (l.Digest == nil || !digestPattern.MatchString(*l.Digest)) {
			got := "missing"
			if l.Digest != nil {
				got = strconv.Quote(*l.Digest)
			}
			add("provenance[%d] addresses a file but its digest is missing or not `sha256:<64 lowercase hex>` (§F5): %s", k, got)
		}
	}
	for k, rel := range f.Relations {
		if rel.DisplayName == nil || cgp.IsBlank(*rel.DisplayName) {
			add("relation[%d] (%s → %s) has no display_name (§G1 — a relation is labelled)", k, rel.Rel, rel.TargetURI)
		}
		if cgp.IsBlank(rel.TargetURI) {
			add("relation[%d] (%s) has an empty target_uri (§G2)", k, rel.Rel)
		}
	}
	if len(f.Attestation) > 0 && string(f.Attestation) != "null" {
		add("carries its own attestation member; attestations travel in result.frame_attestations (§F6)")
	}
	return v
}

// representationProblems applies P1–P3 to a frame.
func representationProblems(f *cgp.ContextFrame) []string {
	rep := "full"
	if f.Representation != nil {
		rep = *f.Representation
	}
	need := func(ok bool, what string) string {
		if ok {
			return ""
		}
		return what
	}
	var missing, present []string
	switch rep {
	case "full":
		if s := need(f.Content != nil, "content"); s != "" {
			return []string{"a full frame has no content"}
		}
		return nil
	case "compact":
		for _, s := range []string{
			need(f.Content != nil, "content"), need(f.ContentDigest != nil, "content_digest"),
			need(f.CanonicalContentHash != nil, "canonical_content_hash"), need(f.Transform != nil, "transform"),
			need(f.ContentRef != nil, "content_ref"),
		} {
			if s != "" {
				missing = append(missing, s)
			}
		}
	case "reference":
		for _, s := range []string{need(f.ContentRef != nil, "content_ref"), need(f.CanonicalContentHash != nil, "canonical_content_hash")} {
			if s != "" {
				missing = append(missing, s)
			}
		}
		if f.Content != nil {
			present = append(present, "content")
		}
		if f.ContentDigest != nil {
			present = append(present, "content_digest")
		}
		if f.Transform != nil {
			present = append(present, "transform")
		}
		if f.TokenCost != 0 {
			present = append(present, fmt.Sprintf("token_cost %d (a reference costs 0, §P4)", f.TokenCost))
		}
	default:
		return []string{fmt.Sprintf("representation %q is none of full, compact, reference", rep)}
	}
	var out []string
	if len(missing) > 0 {
		out = append(out, fmt.Sprintf("a %s frame lacks %s", rep, strings.Join(missing, ", ")))
	}
	if len(present) > 0 {
		out = append(out, fmt.Sprintf("a %s frame carries %s", rep, strings.Join(present, ", ")))
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
		return fail("%s", strings.Join(all, "; "))
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
			problems = append(problems, fmt.Sprintf("frame_attestations[%d] names frame %s of provider %q, which the reply does not carry (§F9, §F12)", k, fa.Frame.FrameID, fa.Frame.ProviderID))
			continue
		}
		attested[fa.Frame.FrameID] = true
		if fa.Attestation != nil {
			signed++
			if v := verify(*fa.Attestation, leaves[idx]); v.Kind != cgp.VerdictValid {
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
		if v := verify(*res.ResultAttestation, root); v.Kind != cgp.VerdictValid {
			problems = append(problems, fmt.Sprintf("result_attestation over %d frame(s): %s", len(leaves), v))
		}
	}
	if n := len(res.Frames) - len(attested); n > 0 && res.ResultAttestation == nil {
		notes = append(notes, fmt.Sprintf("%d frame(s) carry no attestation: unattested, which is allowed (§F9)", n))
	}
	if len(problems) > 0 {
		o := fail("%s", strings.Join(problems, "; "))
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
