package provider

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
)

// maxFlood bounds how many frames flood-frames serves, whatever max_frames
// says: past max_frames 252 the mode serves no more than honesty would allow.
const maxFlood = 256

// query answers a query: frames, or an error envelope.
func (p *Provider) query(q *cgp.ContextQuery) *cgp.Envelope {
	if q == nil {
		return errorReply(cgp.CodeBadRequest, "query envelope has no query member")
	}
	var qvec *[Dims]float64
	if q.Embedding != nil {
		if len(q.Embedding) != Dims {
			if p.mode != modeAcceptBadEmbedding {
				return errorReply(cgp.CodeBadRequest, fmt.Sprintf("embedding has %d dimensions; %s embeddings have %d", len(q.Embedding), Fingerprint, Dims))
			}
		} else {
			raw := make([]float64, Dims)
			for i, x := range q.Embedding {
				raw[i] = float64(x)
			}
			v := normalise(raw)
			qvec = &v
		}
	}
	if len(q.RepresentationPreferences) > 0 && !slices.Contains(q.RepresentationPreferences, "full") {
		return errorReply(cgp.CodeUnsupportedRepresentation, fmt.Sprintf("this provider serves only full frames, not %s", strings.Join(q.RepresentationPreferences, ", ")))
	}
	var kinds []string
	if p.mode != modeIgnoreKinds && (p.mode != modeKindsSingleOnly || len(q.Kinds) < 2) {
		for _, k := range q.Kinds {
			if slices.Contains(p.kinds, k) {
				kinds = append(kinds, k)
			}
		}
		if len(q.Kinds) > 0 && len(kinds) == 0 {
			return errorReply(cgp.CodeUnsupportedKind, fmt.Sprintf("this provider serves only %s frames, not %s", strings.Join(p.kinds, ", "), strings.Join(q.Kinds, ", ")))
		}
	}
	var asOf *time.Time
	if q.AsOf != nil && p.mode != modeIgnoreAsOf && (p.mode != modeAsOfWholeSeconds || !strings.Contains(*q.AsOf, ".")) {
		t, err := time.Parse(time.RFC3339Nano, *q.AsOf)
		if err != nil {
			return errorReply(cgp.CodeBadRequest, fmt.Sprintf("as_of %q is not an RFC 3339 timestamp", *q.AsOf))
		}
		asOf = &t
	}
	c, err := p.load()
	if err != nil {
		return errorReply(cgp.CodeInternal, err.Error())
	}

	type ranked struct {
		frame    cgp.ContextFrame
		anchored bool
		order    int
	}
	qterms := queryTerms(q)
	var matches []ranked
	for i, d := range c.docs {
		if len(kinds) > 0 && !slices.Contains(kinds, d.frame.Kind) {
			continue
		}
		if asOf != nil {
			if d.from != nil && asOf.Before(*d.from) {
				continue
			}
			if d.to != nil && !asOf.Before(*d.to) && p.mode != modeIgnoreValidTo {
				continue
			}
		}
		f := cloneFrame(d.frame)
		f.Score = d.score(qterms, qvec)
		matches = append(matches, ranked{frame: f, anchored: p.mode != modeIgnoreAnchors && anchored(&f, q.Anchors), order: i})
	}
	slices.SortStableFunc(matches, func(a, b ranked) int {
		switch {
		case a.anchored != b.anchored:
			if a.anchored {
				return -1
			}
			return 1
		case a.frame.Score != b.frame.Score:
			if a.frame.Score > b.frame.Score {
				return -1
			}
			return 1
		}
		return a.order - b.order
	})

	var served []cgp.ContextFrame
	var total uint64
	var dropped uint32
	for _, m := range matches {
		if uint64(len(served)) < uint64(q.MaxFrames) && total+uint64(m.frame.TokenCost) <= uint64(q.MaxTokens) {
			served = append(served, m.frame)
			total += uint64(m.frame.TokenCost)
		} else {
			dropped++
		}
	}
	if p.mode == modeMinOneFrame && len(served) == 0 && q.MaxFrames > 0 && len(matches) > 0 {
		served = append(served, matches[0].frame)
		dropped--
	}
	if p.mode == modeFloodFrames {
		pool := slices.Clone(served)
		if len(pool) == 0 {
			for _, m := range matches {
				pool = append(pool, m.frame)
			}
		}
		slices.SortStableFunc(pool, func(a, b cgp.ContextFrame) int { return cmp.Compare(a.TokenCost, b.TokenCost) })
		want := min(uint64(q.MaxFrames)+4, maxFlood)
		for n := 1; len(pool) > 0 && uint64(len(served)) < want; n++ {
			f := cloneFrame(pool[(n-1)%len(pool)])
			f.ID += "#copy" + strconv.Itoa(n)
			served = append(served, f)
		}
	}
	p.misstate(served)

	// attested is what the attestations are made over: the frames as served,
	// except in the modes that serve something other than what was signed.
	attested := make([]cgp.ContextFrame, len(served))
	for i := range served {
		attested[i] = cloneFrame(served[i])
		if d := c.byID[served[i].ID]; d != nil && d.signed != nil {
			attested[i] = cloneFrame(*d.signed)
		}
	}
	if p.mode == modeTruncateChain {
		for i := range served {
			served[i].Provenance = slices.DeleteFunc(served[i].Provenance, func(l cgp.Link) bool { return l.Type == "derivation" })
		}
	}

	result := &cgp.ContextQueryResult{Frames: served, Truncated: dropped > 0}
	if served == nil {
		result.Frames = []cgp.ContextFrame{}
	}
	if dropped > 0 {
		result.DroppedEstimate = &dropped
	}
	if err := p.attest(result, attested); err != nil {
		return errorReply(cgp.CodeInternal, err.Error())
	}
	return &cgp.Envelope{Type: cgp.TypeFrames, Result: result}
}

// anchored reports whether f is anchored on any of anchors.
func anchored(f *cgp.ContextFrame, anchors []string) bool {
	return slices.ContainsFunc(anchors, func(a string) bool { return cgp.AnchoredOn(f, a) })
}

// cloneFrame copies a frame deeply enough that changing the copy's
// provenance or relations leaves the original as it was.
func cloneFrame(f cgp.ContextFrame) cgp.ContextFrame {
	f.Provenance = slices.Clone(f.Provenance)
	f.Relations = slices.Clone(f.Relations)
	return f
}

// misstate applies the frame-level misbehaviour modes to the frames about to
// be served.
func (p *Provider) misstate(served []cgp.ContextFrame) {
	if len(served) == 0 {
		return
	}
	first := &served[0]
	switch p.mode {
	case modeLyingCosts:
		for i := range served {
			served[i].TokenCost = 1
		}
	case modeBadScore:
		first.Score = 1.5
	case modeEmptyCitation:
		first.CitationLabel = cgp.Str("  \u00a0")
	case modeUnderReportCost:
		for i := range served {
			if served[i].TokenCost > 0 {
				served[i].TokenCost--
				break
			}
		}
	case modeBadTimestamp:
		first.RecordedAt = cgp.Str("2026-07-20 18:00:00")
	case modeMalformedDigest:
		if l := fileLink(first); l != nil && l.Digest != nil {
			hexPart, _ := strings.CutPrefix(*l.Digest, "sha256:")
			l.Digest = cgp.Str("sha256:" + strings.ToUpper(hexPart))
		}
	case modeStaleDigest:
		if l := fileLink(first); l != nil {
			l.Digest = cgp.Str(cgp.DigestOf([]byte("referee stale-digest: these are not the bytes of " + first.ID)))
		}
	case modeLyingRepresentation:
		first.Representation = cgp.Str("compact")
	}
}

// fileLink is a frame's first file provenance link, or nil.
func fileLink(f *cgp.ContextFrame) *cgp.Link {
	for i := range f.Provenance {
		if f.Provenance[i].Type == "file" {
			return &f.Provenance[i]
		}
	}
	return nil
}

// load reads the docs folder; in swap-content its first frame's content is
// swapText from then on, for queries and verify alike, while its signed
// version keeps the original.
func (p *Provider) load() (*corpus, error) {
	c, err := loadCorpus(p.dir)
	if err != nil || p.mode != modeSwapContent || len(c.docs) == 0 {
		return c, err
	}
	d := c.docs[0]
	orig := cloneFrame(d.frame)
	d.signed = &orig
	swap(&d.frame)
	return c, nil
}

// swapText is what swap-content serves in place of a frame's content.
func swapText(id string) string {
	return "This text replaced the content of " + id + " after the content was signed.\n"
}

// swap replaces a frame's content with swapText, its digest and cost honest
// for the new text.
func swap(f *cgp.ContextFrame) {
	text := swapText(f.ID)
	f.Content = cgp.Str(text)
	f.ContentDigest = cgp.Str(cgp.DigestOf([]byte(text)))
	f.TokenCost = cgp.TokenCost(text)
}

// attest adds frame attestations and a result attestation, made over
// attested, to a result whose frames are served in the same order.
func (p *Provider) attest(result *cgp.ContextQueryResult, attested []cgp.ContextFrame) error {
	// The leaves in canonical order, and each frame's position among them.
	leaves := make([]cgp.Hash, len(attested))
	pos := make([]int, len(attested))
	for k, i := range cgp.CanonicalOrder(Name, attested) {
		leaves[k] = cgp.CommitmentOf(Name, &attested[i])
		pos[i] = k
	}
	for i := range result.Frames {
		served := &result.Frames[i]
		leaf := leaves[pos[i]]
		a, err := p.sign(leaf)
		if err != nil {
			return fmt.Errorf("signing frame %s: %w", served.ID, err)
		}
		proof, err := cgp.Prove(leaves, pos[i])
		if err != nil {
			return fmt.Errorf("proving frame %s: %w", served.ID, err)
		}
		result.FrameAttestations = append(result.FrameAttestations, cgp.FrameAttestation{
			Frame:          cgp.FrameID{ProviderID: Name, FrameID: served.ID, ContentDigest: served.ContentDigest},
			Attestation:    a,
			InclusionProof: &proof,
		})
	}
	root, err := p.sign(cgp.MerkleRoot(leaves))
	if err != nil {
		return fmt.Errorf("signing the result root: %w", err)
	}
	result.ResultAttestation = root

	fas := result.FrameAttestations
	if len(fas) == 0 {
		return nil
	}
	switch p.mode {
	case modeForgeSignature:
		for i := range fas {
			sig, err := hex.DecodeString(fas[i].Attestation.Signature)
			if err != nil || len(sig) == 0 {
				return fmt.Errorf("forging frame %s: signature %q", fas[i].Frame.FrameID, fas[i].Attestation.Signature)
			}
			sig[0] ^= 0x01
			fas[i].Attestation.Signature = hex.EncodeToString(sig)
		}
	case modeLiftSignature:
		target := 0
		for i := range fas {
			if fas[i].Frame.FrameID == "frm_configuration" {
				target = i
				break
			}
		}
		var lifted *cgp.ProvenanceAttestation
		for i := range fas {
			if fas[i].Frame.FrameID != fas[target].Frame.FrameID {
				a := *fas[i].Attestation
				lifted = &a
				break
			}
		}
		if lifted == nil {
			// No other frame was served: sign the same frame under another id.
			f := cloneFrame(attested[target])
			f.ID += "#lifted"
			a, err := p.sign(cgp.CommitmentOf(Name, &f))
			if err != nil {
				return fmt.Errorf("lifting onto frame %s: %w", f.ID, err)
			}
			lifted = a
		}
		fas[target].Attestation = lifted
	case modeMalformedAttest:
		fas[0].Attestation.SignedCommitment = "sha256:not-a-digest"
	}
	return nil
}

// sign is the provider's attestation of a commitment or root.
func (p *Provider) sign(h cgp.Hash) (*cgp.ProvenanceAttestation, error) {
	sig, err := cgp.SignCommitment([]byte(TestKeySeed), h)
	if err != nil {
		return nil, err
	}
	return &cgp.ProvenanceAttestation{
		SignedCommitment: h.String(),
		KeyID:            KeyID,
		Algorithm:        "ed25519",
		AttesterID:       Name,
		Signature:        sig,
		IssuedAt:         RecordedAt,
	}, nil
}

// verify answers a verify request: one verdict per frame, with no bodies.
func (p *Provider) verify(req *cgp.VerifyRequest) *cgp.Envelope {
	if req == nil {
		return errorReply(cgp.CodeBadRequest, "verify envelope has no request member")
	}
	var c *corpus
	if p.mode != modeRubberStampVerify && p.mode != modeHollowVerify {
		var err error
		if c, err = p.load(); err != nil {
			return errorReply(cgp.CodeInternal, err.Error())
		}
	}
	verdicts := make([]cgp.FrameVerdict, 0, len(req.Frames))
	for _, id := range req.Frames {
		v := cgp.FrameVerdict{Frame: id}
		switch p.mode {
		case modeRubberStampVerify:
			v.Status = cgp.StatusValid
		case modeHollowVerify:
			v.Status = cgp.StatusUnknown
		default:
			v.Status, v.ReplacementDigest = p.verdict(c, id)
		}
		verdicts = append(verdicts, v)
	}
	return &cgp.Envelope{Type: cgp.TypeVerified, Response: &cgp.VerifyResponse{Verdicts: verdicts}}
}

// verdict is the honest status of one frame identity, and the current
// digest when it is stale.
func (p *Provider) verdict(c *corpus, id cgp.FrameID) (string, *string) {
	frameID := id.FrameID
	if p.mode == modeFloodFrames {
		frameID = stripCopy(frameID)
	}
	d, ok := c.byID[frameID]
	switch {
	case !ok:
		return cgp.StatusGone, nil
	case id.ContentDigest == nil:
		return cgp.StatusUnknown, nil
	case *id.ContentDigest == *d.frame.ContentDigest:
		return cgp.StatusValid, nil
	}
	return cgp.StatusStale, cgp.Str(*d.frame.ContentDigest)
}

// stripCopy removes a flood-frames "#copyN" suffix from a frame id.
func stripCopy(id string) string {
	i := strings.LastIndex(id, "#copy")
	if i < 0 {
		return id
	}
	n := id[i+len("#copy"):]
	if n == "" || strings.TrimLeft(n, "0123456789") != "" {
		return id
	}
	return id[:i]
}
