package cgplive

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
)

// kindsList renders a list as Rust's Debug does: ["doc", "snippet"].
func kindsList(ks []string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = strconv.Quote(k)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// handshakeOutcome judges an ack (H1–H3): the host took it, in its
// family; its identity must not be blank.
func handshakeOutcome(ack *cgp.Envelope) outcome {
	p, c := ack.Provider, ack.Capabilities
	if cgp.IsBlank(p.Name) || cgp.IsBlank(p.Version) {
		return fail("provider identity incomplete: name='%s' version='%s'", p.Name, p.Version).
			want("non-blank provider.name and provider.version", fmt.Sprintf("name=%q version=%q", p.Name, p.Version))
	}
	df := p.DataFlow
	return pass("provider '%s' v%s — data-flow reads=%v writes=%v egress=%v; query kinds=%s, graph=%v",
		p.Name, p.Version, df.Reads, df.Writes, df.Egress, kindsList(c.Query.Kinds), c.Graph)
}

// baseScope reports whether s is an egress scope SPEC defines; all but
// local-only leave the machine.
func baseScope(s string) bool {
	switch s {
	case "local-only", "org-tenant", "third-party-index", "third-party-model":
		return true
	}
	return false
}

func consentScope(ack *cgp.Envelope) outcome {
	df := ack.Provider.DataFlow
	var problems []string
	for _, s := range df.EgressScopes {
		if !baseScope(s) {
			vendor, name, ok := strings.Cut(s, ":")
			if !ok || vendor == "" || name == "" || strings.Contains(name, ":") {
				problems = append(problems, fmt.Sprintf("scope %q is neither a base scope nor a namespaced vendor:name", s))
				continue
			}
		}
		if s != "local-only" && !df.Egress {
			problems = append(problems, fmt.Sprintf("scope %q leaves the machine but the provider declares egress=false (§C5)", s))
		}
	}
	if len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; ")).
			want("scopes each local-only, org-tenant, third-party-index, third-party-model or vendor:name; egress=true when any leaves the machine",
				fmt.Sprintf("egress=%v egress_scopes=%s", df.Egress, kindsList(df.EgressScopes)))
	}
	return pass("declared egress scopes %s are well-formed and consistent with egress=%v", kindsList(df.EgressScopes), df.Egress)
}

func budgetHonesty(res *cgp.ContextQueryResult, q cgp.ContextQuery) outcome {
	if len(res.Frames) == 0 {
		return skip("the probe query returned no frames: no cost to check")
	}
	var problems []string
	var total, canonical uint64
	var liars []string
	for _, f := range res.Frames {
		total += uint64(f.TokenCost)
		want := cgp.CanonicalTokenCost(&f)
		canonical += uint64(want)
		if f.TokenCost != want {
			liars = append(liars, fmt.Sprintf("%s (declared %d, canonical %d)", f.ID, f.TokenCost, want))
		}
	}
	if total > uint64(q.MaxTokens) {
		problems = append(problems, fmt.Sprintf("declared cost %d exceeds the query budget of %d (§B1)", total, q.MaxTokens))
	}
	if len(liars) > 0 {
		problems = append(problems, fmt.Sprintf("%d frame(s) misdeclare token_cost — %s (§B3); declared total %d, canonical total %d", len(liars), strings.Join(liars, ", "), total, canonical))
	}
	if len(res.Frames) > int(q.MaxFrames) {
		problems = append(problems, fmt.Sprintf("returned %d frames against max_frames=%d (§B4)", len(res.Frames), q.MaxFrames))
	}
	if len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; ")).
			want(fmt.Sprintf("at most %d frames, declared total ≤ %d, each token_cost = ceil(UTF-8 bytes of content / 4) (canonical total %d)", q.MaxFrames, q.MaxTokens, canonical),
				fmt.Sprintf("%d frames, declared total %d%s", len(res.Frames), total, listIfAny("; misdeclared: ", liars)))
	}
	return pass("%d frame(s), %d tokens within the %d budget; every declared cost matches its canonical count", len(res.Frames), total, q.MaxTokens)
}

func (r *runner) verifyHonesty(ctx context.Context, res *cgp.ContextQueryResult, qerr error) outcome {
	if !r.ack.Capabilities.Verify {
		return skip("provider does not advertise verify")
	}
	if qerr != nil {
		return queryFailed("query", qerr)
	}
	name := r.ack.Provider.Name
	var real, mutated []verifyItem
	for _, f := range res.Frames {
		if f.ContentDigest == nil {
			continue
		}
		real = append(real, verifyItem{id: cgp.FrameID{ProviderID: name, FrameID: f.ID, ContentDigest: f.ContentDigest}, served: *f.ContentDigest})
		mutated = append(mutated, changedItem(name, f.ID, *f.ContentDigest, r.salt()))
	}
	if len(real) == 0 {
		return skip("no served frame carries a content_digest to verify")
	}
	problems, err := verifyProblems(ctx, r.main, real)
	if err != nil {
		return verifyFailed("verify", err)
	}
	more, err := verifyProblems(ctx, r.main, mutated)
	if err != nil {
		return verifyFailed("verify of changed digests", err)
	}
	return verifyOutcome(append(problems, more...), len(real), len(mutated))
}

// verifyItem is one identity a verify asks about, and what its verdict
// must be: the digest the provider served, and whether the identity
// carries it (valid, V1) or another, well-formed one (stale, V2, with any
// replacement_digest the served one, V3). An identity the provider never
// served (unjudged) gets no verdict judged.
type verifyItem struct {
	id       cgp.FrameID
	served   string
	changed  bool
	unjudged bool
}

// changedItem is frame id's identity with the served digest changed into
// another well-formed one, made with salt: a provider cannot tell it from a
// real stale digest.
func changedItem(provider, id, served, salt string) verifyItem {
	other := cgp.Hash(sha256.Sum256([]byte(served + "-contextgraph-conformance-mutated-" + salt))).String()
	return verifyItem{id: cgp.FrameID{ProviderID: provider, FrameID: id, ContentDigest: &other}, served: served, changed: true}
}

// verifyFailed is the failure of a verify the provider did not answer with
// a verified envelope.
func verifyFailed(what string, err error) outcome {
	return fail("%s failed: %v", what, err).want("a verified reply", err.Error())
}

// verifyProblems sends one verify of items on h and judges its verdicts
// (V1–V4): the problems found, or the error of a verify that was not
// answered with a verified envelope. Verdicts are matched to identities by
// frame id and digest, as the reference host matches them.
func verifyProblems(ctx context.Context, h *host.Host, items []verifyItem) ([]string, error) {
	ids := make([]cgp.FrameID, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	env, err := h.Verify(ctx, ids)
	if err != nil {
		return nil, err
	}
	var problems []string
	got := map[int]cgp.FrameVerdict{}
	for _, v := range env.Response.Verdicts {
		for i, id := range ids {
			if v.Frame.FrameID == id.FrameID && same(v.Frame.ContentDigest, id.ContentDigest) {
				if prev, ok := got[i]; ok && prev.Status != v.Status {
					return nil, fmt.Errorf("contradictory verdicts for %s: %s and %s", id.FrameID, prev.Status, v.Status)
				}
				got[i] = v
			}
		}
	}
	for i, it := range items {
		v, ok := got[i]
		switch {
		case it.unjudged:
		case !it.changed:
			status := "no verdict (counts as unknown)"
			if ok {
				status = v.Status
			}
			if status != cgp.StatusValid {
				problems = append(problems, fmt.Sprintf("unchanged frame %s (%s) verified %s, not valid (§V1)", it.id.FrameID, it.served, status))
			}
		case !ok:
			problems = append(problems, fmt.Sprintf("changed digest of %s got no verdict (counts as unknown): a provider that served the frame MUST verify it stale (§V2)", it.id.FrameID))
		case v.Status == cgp.StatusValid:
			problems = append(problems, fmt.Sprintf("changed digest of %s verified valid: a rubber stamp (§V2)", it.id.FrameID))
		case v.Status != cgp.StatusStale:
			problems = append(problems, fmt.Sprintf("changed digest of %s verified %s: a provider that served the frame MUST verify it stale (§V2)", it.id.FrameID, v.Status))
		case v.ReplacementDigest != nil && *v.ReplacementDigest != it.served:
			problems = append(problems, fmt.Sprintf("stale verdict for %s names replacement_digest %s, but the provider served %s (§V3)", it.id.FrameID, *v.ReplacementDigest, it.served))
		}
	}
	if tr := h.Transcript(); len(tr) > 0 {
		if member := bodyMember(tr[len(tr)-1].Reply); member != "" {
			problems = append(problems, fmt.Sprintf("the verified reply carries frame bodies (%s): verify moves identities only (§V4)", member))
		}
	}
	return problems, nil
}

// verifyOutcome is verify-honesty's verdict on the problems of its
// verifies of real unchanged and changed identities.
func verifyOutcome(problems []string, real, changed int) outcome {
	if len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; ")).
			want(fmt.Sprintf("%d unchanged digest(s) valid, %d changed digest(s) stale, no frame bodies", real, changed), strings.Join(problems, "; "))
	}
	return pass("provider verified %d unchanged frame(s) `valid` and all %d mutated digest(s) `stale`, carrying no frame bodies", real, changed)
}

// bodyMembers are a frame's body members, which a verdict never carries.
var bodyMembers = []string{"content", "title", "provenance", "score", "citation_label", "relations", "embedding"}

// bodyMember names the first frame body member anywhere in a verified
// reply's response ("response.verdicts[1].frame.content"), or "".
func bodyMember(reply []byte) string {
	v, err := canon.Parse(reply, canon.ReadOptions{MaxDepth: 128, MaxValues: cgp.MaxEnvelopeValues})
	if err != nil {
		return ""
	}
	resp, _ := v.Lookup("response")
	var walk func(v canon.Value, path string) string
	walk = func(v canon.Value, path string) string {
		switch v.Kind {
		case canon.Object:
			for _, m := range v.Members {
				if slices.Contains(bodyMembers, m.Key) {
					return path + "." + m.Key
				}
				if p := walk(m.Value, path+"."+m.Key); p != "" {
					return p
				}
			}
		case canon.Array:
			for i, e := range v.Elems {
				if p := walk(e, fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p
				}
			}
		}
		return ""
	}
	return walk(resp, "response")
}

func same(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// The as_of pins: one after the first frames' start, one before.
var asOfPins = []string{"2026-07-01T00:00:00Z", "2026-02-01T00:00:00Z"}

func (r *runner) asOf(ctx context.Context) outcome {
	var problems, counts []string
	total := 0
	for _, pin := range asOfPins {
		q := probeQuery()
		q.AsOf = cgp.Str(pin)
		env, err := r.main.Query(ctx, q, nil)
		if err != nil {
			return queryFailed(fmt.Sprintf("query with as_of=%s", pin), err)
		}
		counts = append(counts, fmt.Sprintf("as_of=%s: %d frame(s)", pin, len(env.Result.Frames)))
		total += len(env.Result.Frames)
		if p := windowProblem(env.Result.Frames, pin); p != "" {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return asOfFailure(problems)
	}
	if total == 0 {
		return skip("the provider returned no frames at either pin (%s): nothing to compare", strings.Join(asOfPins, ", "))
	}
	return pass("%s; none falls outside its validity window [valid_from, valid_to) (§Q2)", strings.Join(counts, ", "))
}

// windowProblem says which of frames, served to a query pinned with as_of
// pin (an F4 timestamp), are not valid at that instant (Q2): valid_from
// after it, or valid_to at or before it, compared as instants; "" when
// none.
func windowProblem(frames []cgp.ContextFrame, pin string) string {
	var outside []string
	for _, f := range frames {
		// Compared as instants, by RFC 3339's rules (a leap second is
		// before the next minute), as cgp.CompareTimestamps does.
		var fromCmp, toCmp int
		var fromErr, toErr error
		if f.ValidFrom != nil {
			fromCmp, fromErr = cgp.CompareTimestamps(*f.ValidFrom, pin)
		}
		if f.ValidTo != nil {
			toCmp, toErr = cgp.CompareTimestamps(*f.ValidTo, pin)
		}
		if fromErr != nil || toErr != nil {
			outside = append(outside, fmt.Sprintf("%s (a validity bound that is not an RFC 3339 UTC timestamp cannot be compared, §F4)", f.ID))
			continue
		}
		switch {
		case f.ValidFrom != nil && fromCmp > 0:
			outside = append(outside, fmt.Sprintf("%s (valid_from=%s)", f.ID, *f.ValidFrom))
		case f.ValidTo != nil && toCmp <= 0:
			outside = append(outside, fmt.Sprintf("%s (valid_to=%s)", f.ID, *f.ValidTo))
		}
	}
	if len(outside) == 0 {
		return ""
	}
	return fmt.Sprintf("provider returned %d frame(s) not valid at as_of=%s: %s", len(outside), pin, strings.Join(outside, ", "))
}

// asOfFailure is as-of-temporal's failure for the problems windowProblem
// found.
func asOfFailure(problems []string) outcome {
	return fail("%s", strings.Join(problems, "; ")).
		want("no frame with valid_from after the pin or valid_to at or before it", strings.Join(problems, "; "))
}

// baseKind reports whether k is a frame kind SPEC defines.
func baseKind(k string) bool {
	switch k {
	case "snippet", "symbol", "fact", "doc", "memory", "episode", "graph":
		return true
	}
	return false
}

func (r *runner) kindsFilter(ctx context.Context) outcome {
	kinds := r.ack.Capabilities.Query.Kinds
	if len(kinds) == 0 {
		return skip("provider declares no query kinds")
	}
	if !baseKind(kinds[0]) {
		return skip("the first declared kind %q is not a base frame kind", kinds[0])
	}
	q := probeQuery()
	q.Kinds = []string{kinds[0]}
	env, err := r.main.Query(ctx, q, nil)
	if err != nil {
		return queryFailed(fmt.Sprintf("query with kinds=[%s]", kinds[0]), err)
	}
	return kindsOutcome(env.Result.Frames, q.Kinds)
}

// kindsOutcome judges the frames served to a query whose kinds filter is
// kinds, not empty (Q1): every frame of one of those kinds.
func kindsOutcome(frames []cgp.ContextFrame, kinds []string) outcome {
	list := kindsList(kinds)
	var outside []string
	for _, f := range frames {
		if !slices.Contains(kinds, f.Kind) {
			outside = append(outside, fmt.Sprintf("%s (kind %s)", f.ID, f.Kind))
		}
	}
	if len(outside) > 0 {
		return fail("kinds=%s: provider returned %d frame(s) outside the filter: %s (§Q1)", list, len(outside), strings.Join(outside, ", ")).
			want("frames of the kinds "+list+" only", strings.Join(outside, ", "))
	}
	if len(frames) == 0 {
		return skip("kinds=%s: the provider returned no frames, so the filter was not exercised", list)
	}
	return pass("kinds=%s: all %d returned frame(s) are of the requested kind (§Q1)", list, len(frames))
}

func (r *runner) anchorRelevance(ctx context.Context, res *cgp.ContextQueryResult, qerr error) outcome {
	if !r.ack.Capabilities.Graph {
		return skip("provider does not declare graph")
	}
	if qerr != nil {
		return queryFailed("query", qerr)
	}
	// Anchor on the frame ranked last, so that only a provider that honours
	// the anchor returns it under a one-frame budget.
	anchor, from := "", ""
	for back := 0; back < len(res.Frames) && anchor == ""; back++ {
		anchor, from = anchorSource(res.Frames, back)
	}
	if anchor == "" {
		return skip("no frame of the probe reply has a relation target or uri to anchor on")
	}
	q := probeQuery()
	q.Anchors = []string{anchor}
	q.MaxFrames = 1
	env, err := r.main.Query(ctx, q, nil)
	if err != nil {
		return queryFailed("anchored query", err)
	}
	return anchorOutcome(env.Result.Frames, q.Anchors, from, q.MaxFrames)
}

// anchorSource is the anchor the frames of a reply offer, looking from the
// frame ranked last: the first relation target of frame frames[len-1-back]
// (counted from the last, clamped to the first), else its uri; and that
// frame's id. "" when the frame has neither.
func anchorSource(frames []cgp.ContextFrame, back int) (anchor, from string) {
	if len(frames) == 0 {
		return "", ""
	}
	f := &frames[max(0, len(frames)-1-back)]
	switch {
	case len(f.Relations) > 0 && !cgp.IsBlank(f.Relations[0].TargetURI):
		return f.Relations[0].TargetURI, f.ID
	case f.URI != nil && !cgp.IsBlank(*f.URI):
		return *f.URI, f.ID
	}
	return "", ""
}

// anchorOutcome judges the frames served to a query with max_frames n
// whose anchors are anchors, the last of them the one frame from offered
// (G3/G4): a graph provider returns at least one frame anchored on a query
// anchor, any of them (ranking it first is only a SHOULD).
func anchorOutcome(frames []cgp.ContextFrame, anchors []string, from string, n uint32) outcome {
	anchor, others := anchors[len(anchors)-1], ""
	if len(anchors) > 1 {
		others = fmt.Sprintf(" beside the query's other anchors %s", kindsList(anchors[:len(anchors)-1]))
	}
	var got []string
	anchored := 0
	on := func(f *cgp.ContextFrame) bool {
		return slices.ContainsFunc(anchors, func(a string) bool { return cgp.AnchoredOn(f, a) })
	}
	for _, f := range frames {
		got = append(got, f.ID)
		if on(&f) {
			anchored++
		}
	}
	if anchored == 0 {
		return fail("anchored on `%s` (from %s, ranked last without the anchor)%s with max_frames=%d: provider returned %s, no anchored frame (§G4)", anchor, from, others, n, kindsList(got)).
			want("a frame anchored on "+anchor+others+" (its uri or a relation target)", "frames "+kindsList(got))
	}
	first := ""
	if on(&frames[0]) {
		first = " and ranked one first"
	}
	return pass("anchored on `%s`%s: provider returned %d anchored frame(s)%s", anchor, others, anchored, first)
}

// maxProvenanceLinks is how many file links provenance-fixture-consistency
// compares; a reply may carry any number.
const maxProvenanceLinks = 1000

func provenance(ctx context.Context, res *cgp.ContextQueryResult) outcome {
	verified, compared := 0, 0
	var mismatched, notes []string
	type read struct {
		data []byte
		err  error
	}
	files := map[string]read{} // each file is read once
	readOnce := func(path string) ([]byte, error) {
		if r, ok := files[path]; ok {
			return r.data, r.err
		}
		data, err := readLocalFile(path)
		files[path] = read{data, err}
		return data, err
	}
frames:
	for i, f := range res.Frames {
		for k, l := range f.Provenance {
			if l.Type != "file" || l.URI == nil || !strings.HasPrefix(*l.URI, "file://") {
				continue
			}
			if compared++; compared > maxProvenanceLinks || ctx.Err() != nil {
				notes = append(notes, fmt.Sprintf("only the first %d file links were compared", compared-1))
				break frames
			}
			where := fmt.Sprintf("frame[%d] %s provenance[%d]", i, f.ID, k)
			if l.Digest == nil || !cgp.DigestPattern.MatchString(*l.Digest) {
				notes = append(notes, where+": no well-formed digest to compare (frame-validity's §F5)")
				continue
			}
			u, err := url.Parse(*l.URI)
			if err != nil || (u.Host != "" && u.Host != "localhost") {
				notes = append(notes, fmt.Sprintf("%s: %s does not name a file on this host", where, *l.URI))
				continue
			}
			data, err := readOnce(u.Path)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: cannot read %s here: %v", where, u.Path, err))
				continue
			}
			rg := ""
			if l.Range != nil {
				rg = *l.Range
			}
			b, err := cgp.RangeBytes(data, rg, l.Range != nil)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v: unverifiable (§F17), not compared", where, err))
				continue
			}
			got := cgp.DigestOf(b)
			if got != *l.Digest {
				mismatched = append(mismatched, fmt.Sprintf("%s %s %s: declared %s, the bytes hash to %s", where, u.Path, rg, *l.Digest, got))
				continue
			}
			verified++
		}
	}
	switch {
	case len(mismatched) > 0:
		o := fail("%d file-provenance digest(s) do not match the bytes they name: %s", len(mismatched), strings.Join(mismatched, "; ")).
			want("each declared digest equal to the SHA-256 of the bytes it names", strings.Join(mismatched, "; "))
		o.notes = notes
		return o
	case verified == 0 && len(notes) == 0:
		return skip("the probe reply has no file:// provenance to re-read")
	case verified == 0:
		// The reason carries the notes: a not-checked result has no evidence.
		return skip("no file provenance of the probe reply could be checked here: %s", strings.Join(notes, "; "))
	}
	o := pass("re-read and re-hashed %d file-provenance digest(s) against the bytes on disk — all match (§6.2)", verified)
	o.notes = notes
	return o
}

// maxProvenanceFile is the largest file provenance-fixture-consistency reads.
const maxProvenanceFile = 64 << 20

// readLocalFile reads a regular file of at most maxProvenanceFile bytes: a
// provider may name a FIFO, a device or a huge file. It opens without
// blocking, so a FIFO swapped in after a check cannot hang the run.
func readLocalFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|regularfile.NonBlock, 0)
	if err != nil {
		return nil, errors.Unwrap(err)
	}
	defer f.Close()
	return regularfile.Read(f, maxProvenanceFile, "referee reads")
}

func (r *runner) shutdown(ctx context.Context) outcome {
	r.mu.Lock()
	attest := r.want[Name+"/"+CheckAttestation]
	r.mu.Unlock()
	if attest {
		r.sample(ctx) // attestation, after shutdown, judges the probe reply
	}
	r.shutDown = true
	return shutdownOutcome(r.main.Shutdown(ctx))
}

// shutdownOutcome judges what came of a shutdown (R2): a stdio provider
// exits with status 0 within the grace; an HTTP one takes the POST.
func shutdownOutcome(err error) outcome {
	switch {
	case err == nil:
		return pass("provider acknowledged shutdown and tore down cleanly")
	case host.IsKind(err, host.KindCrashed) && strings.Contains(err.Error(), "vanished"):
		return fail("provider vanished before shutdown could be attempted: %v", err).want(wantShutdown, err.Error())
	}
	return fail("shutdown error: %v", err).want(wantShutdown, err.Error())
}

const garbage = "this is not valid json {{{"

// malformedInput writes line, which is no envelope, and the query q at
// once on the stdio connection h (the provider may ignore the line, so no
// reply is waited for in between) and judges the replies (R1): an error
// with code bad_request (or none) to the line, frames to q, and the
// provider alive for the next.
func malformedInput(ctx context.Context, h *host.Host, line []byte, q cgp.ContextQuery) outcome {
	enc, _ := cgp.Encode(&cgp.Envelope{Type: cgp.TypeQuery, Query: &q})
	replies, err := h.Pipeline(ctx, [][]byte{line, enc}, 1)
	if o, ok := refused("query after the malformed line", err); ok {
		return o
	}
	if err != nil {
		return fail("after a malformed line the provider broke: %v", err).want(wantMalformed, err.Error())
	}
	first := replies[0]
	switch first.Type {
	case cgp.TypeFrames:
		// It ignored the garbage; it must still be alive to answer again.
		env, err := h.Query(ctx, q, nil)
		if o, ok := refused("second query after the malformed line", err); ok {
			return o
		}
		if err != nil {
			return fail("provider ignored the malformed line, answered one query, then broke: %v", err).want(wantMalformed, err.Error())
		}
		return pass("provider ignored the malformed line and answered the next two queries with %s", env.Type)
	case cgp.TypeError:
		if first.Code == nil || *first.Code != cgp.CodeBadRequest {
			code := "no code"
			if first.Code != nil {
				code = "code " + strconv.Quote(*first.Code)
			}
			return fail("provider answered the malformed line with an error with %s, not `bad_request` (§R1)", code).want(wantMalformed, "an error with "+code)
		}
	default:
		return fail("provider answered the malformed line with an unexpected %q envelope", first.Type).want(wantMalformed, fmt.Sprintf("a %q envelope", first.Type))
	}
	more, err := h.Pipeline(ctx, nil, 1)
	if o, ok := refused("query after the malformed line", err); ok {
		return o
	}
	if err != nil {
		return fail("provider errored with `bad_request` but did not stay alive: %v", err).want(wantMalformed, err.Error())
	}
	if more[0].Type != cgp.TypeFrames {
		return fail("provider errored with `bad_request`, then answered the query with %q, not frames", more[0].Type).want(wantMalformed, fmt.Sprintf("bad_request, then a %q envelope", more[0].Type))
	}
	msg := ""
	if first.Message != nil {
		msg = *first.Message
	}
	return pass("provider errored cleanly on malformed input with `bad_request` and stayed alive: %s", msg)
}

func embedding(ctx context.Context, h *host.Host, ack *cgp.Envelope) outcome {
	fp := ack.Capabilities.EmbeddingsFingerprint
	if fp == nil || *fp == "" {
		return skip("provider declares no embeddings fingerprint")
	}
	dim, ok := fingerprintDim(*fp)
	if !ok {
		return skip("fingerprint %q is not <model>/<dimensions>[/<normalization>]", *fp)
	}
	n := 1
	if dim == 1 {
		n = 2
	}
	q := probeQuery()
	q.Embedding = make([]float32, n)
	q.Embedding[0] = 0.5
	env, err := h.Query(ctx, q, nil)
	return embeddingOutcome(env, err, *fp, dim, n)
}

// fingerprintDim is the dimension an embeddings fingerprint declares
// (<model>/<dimensions>[/<normalization>]), and whether it declares one.
func fingerprintDim(fp string) (int, bool) {
	parts := strings.Split(fp, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
		return 0, false
	}
	dim, err := strconv.Atoi(parts[1])
	return dim, err == nil && dim > 0
}

// embeddingOutcome judges the reply (env, err as host.Query returns them)
// to a query whose embedding has n dimensions against a fingerprint fp of
// dim (E1): an error, bad_request expected.
func embeddingOutcome(env *cgp.Envelope, err error, fp string, dim, n int) outcome {
	switch {
	case env != nil && env.Type == cgp.TypeError:
		if env.Code != nil && *env.Code == cgp.CodeBadRequest {
			return pass("provider declares %s (%d-dim) and rejected a %d-dim embedding with `bad_request` (§E1)", fp, dim, n)
		}
		o := pass("provider declares %s (%d-dim) and rejected a %d-dim embedding with an error (§E1)", fp, dim, n)
		o.notes = []string{"the error's code is not bad_request, which SPEC recommends: " + env.ErrorText()}
		return o
	case err != nil:
		if o, ok := refused(fmt.Sprintf("query with a %d-dim embedding", n), err); ok {
			// It answered frames, which E1 does not want either.
			o.evidence = fmt.Sprintf("provider answered `frames` to a %d-dim embedding against its declared %s (%d-dim) fingerprint (§E1); ", n, fp, dim) + o.evidence
			return o
		}
		return fail("a %d-dim embedding against the declared %d-dim fingerprint broke the provider: %v", n, dim, err).want(wantEmbedding, err.Error())
	}
	return fail("provider answered `frames` to a %d-dim embedding against its declared %s (%d-dim) fingerprint (§E1)", n, fp, dim).want(wantEmbedding, "a frames reply")
}

// CorrelationID is the id the correlation check sends.
const CorrelationID = "cgp-conformance-h4-7f3a"

func correlation(ctx context.Context, h *host.Host, ack *cgp.Envelope) outcome {
	if !ack.Capabilities.Correlation {
		return skip("provider does not declare correlation")
	}
	env, err := h.Query(ctx, probeQuery(), cgp.Str(CorrelationID))
	switch {
	case host.IsKind(err, host.KindCorrelation):
		return correlationFailure(err, CorrelationID)
	case err != nil && !host.IsKind(err, host.KindProvider):
		return queryFailed(fmt.Sprintf("query with id %q", CorrelationID), err)
	}
	// Correlation allows pipelining: two queries in flight, each reply
	// matched to its query by id.
	ids := []string{CorrelationID + "-a", CorrelationID + "-b"}
	replies, err := h.QueryPipelined(ctx, []cgp.ContextQuery{probeQuery(), probeQuery()}, ids)
	if err != nil {
		return pipelineFailure(err, ids)
	}
	return pass("provider declares correlation and echoed the request id verbatim on its `%s` reply, and on both replies to two pipelined queries (%s) (§H4)", env.Type, replies[0].Type)
}

// correlationFailure is the failure of a reply to a request with id that
// did not echo it (H4), from the host's KindCorrelation error.
func correlationFailure(err error, id string) outcome {
	why := strings.TrimPrefix(err.Error(), string(host.KindCorrelation)+": ")
	return fail("provider declares correlation but %v (§H4)", why).want(fmt.Sprintf("the reply carries id %q", id), why)
}

// pipelineFailure is the failure of queries with ids written at once,
// whose replies the host could not read or match to them by id (H4).
func pipelineFailure(err error, ids []string) outcome {
	if o, ok := refused("pipelined queries", err); ok {
		return o
	}
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = strconv.Quote(id)
	}
	return fail("provider echoed the id of one query, but with %d pipelined queries (ids %s): %v (§H4)", len(ids), strings.Join(quoted, ", "), err).
		want("replies carrying ids "+strings.Join(quoted, " and "), err.Error())
}

// The expected values of checks whose failures take several shapes.
const (
	wantShutdown  = "exit status 0 within 2 s of shutdown"
	wantMalformed = "an error with code bad_request (or no reply) to the malformed line, then frames to the query"
	wantEmbedding = "an error reply (code bad_request)"
)

// queryFailed is the failure of a query the check needed answered.
func queryFailed(what string, err error) outcome {
	if o, ok := refused(what, err); ok {
		return o
	}
	return fail("%s failed: %v", what, err).want("a frames reply to the "+what, err.Error())
}

// refused is the failure of a check that received a frames reply the host
// refused because a frame lacks a required member (cgp.FrameError): the
// evidence names the frame and the member. ok is false for any other error.
func refused(what string, err error) (o outcome, ok bool) {
	var fe *cgp.FrameError
	if !errors.As(err, &fe) {
		return outcome{}, false
	}
	return fail("the reply to the %s carries a frame without a required member: %v (shape: a missing member is no empty value; the reference host refuses the whole reply)", what, fe).
		want("every frame with the members the wire types require", fe.Error()), true
}

// listIfAny is prefix and the items joined, or "" when there are none.
func listIfAny(prefix string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return prefix + strings.Join(items, ", ")
}
