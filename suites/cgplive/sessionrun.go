package cgplive

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
)

// The rules a session's replies are judged by that are no live check's
// own: a provider that stops answering, one that answers too late, and a
// reply the host cannot read as the envelope it asked for.
const (
	RuleNoCrash = "no-crash" // the provider exited, closed its stdout, or failed the HTTP request
	RuleNoHang  = "no-hang"  // no reply within the timeout
	RuleWire    = "wire"     // a reply that is not a CGP envelope, or not one the request takes
)

// clauseSession is what a session check rests on.
const clauseSession = `CGP SPEC, every rule the fourteen live checks apply (H1–H4, C5, F1–F17, D1, P1–P4, G1–G4, Q1, Q2, B1–B4, V1–V4, E1, R1, R2, §6.2, §6.5), each applied to every reply of the session that it concerns, at the level the check that owns it gives it (E1, and an attestation only a strict verifier refuses, are SHOULDs); and R1's "the provider stays alive": a provider that exits or stops answering mid-session, or writes a line that is no envelope, fails`

// sessionCheck is the check of one session: it runs on a connection of
// its own, and fails at the first reply that breaks a rule.
func sessionCheck(sess Session) check.Check {
	return check.Check{
		ID:          Name + "/session/" + sess.Name,
		Doc:         fmt.Sprintf("session %s: %d step(s) after the handshake, each reply within the rules of the live checks", sess.Name, len(sess.Steps)),
		ExplainFunc: func() string { return explainSession(sess) },
		Level:       check.Must,
		Clause:      clauseSession,
		Do:          func(ctx context.Context, s *check.Session) check.Outcome { return runSession(ctx, s, sess) },
	}
}

// explainSession says what a session sends.
func explainSession(sess Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "on a fresh connection: the handshake, then %d step(s), each reply judged by the rules of the live checks; the session fails at the first reply that breaks one.", len(sess.Steps))
	for i, st := range sess.Steps {
		j, _ := json.Marshal(st)
		fmt.Fprintf(&b, "\n  steps[%d] %s: %s", i, st.kind(), j)
	}
	return b.String()
}

// runSession runs sess on a connection of its own to the provider the
// run's target reaches.
func runSession(ctx context.Context, s *check.Session, sess Session) check.Outcome {
	c, ok := s.Target().(*conn)
	if !ok {
		return check.Outcome{Status: check.Error, Reason: "the cgp checks run against a Context Graph provider, not a referee-adapter/1 adapter"}
	}
	r := &sessionRun{name: sess.Name, target: c.target, timeout: c.timeout}
	f, err := r.run(ctx, sess.Steps)
	if r.h != nil {
		defer func() {
			s.Record(exchanges(r.h)...)
			s.UseStderr(r.h.Stderr())
		}()
	}
	switch {
	case err != nil:
		return check.Outcome{Status: check.Error, Reason: fmt.Sprintf("session %s: the provider could not be started: %v", sess.Name, err)}
	case f == nil:
		return check.Outcome{Status: check.Pass}
	}
	o := f.o
	out := check.Outcome{
		Status:   check.Fail,
		Reason:   fmt.Sprintf("%s at envelope %d (%s) of session %s: %s", f.rule, f.at, f.kind, sess.Name, o.evidence),
		Expected: o.expected, Actual: o.actual, Notes: o.notes, Level: f.level(),
	}
	if out.Expected == "" {
		out.Expected = f.rule
		if in, ok := infoOf(f.rule); ok {
			out.Expected = in.doc
		}
	}
	if out.Actual == "" {
		out.Actual = o.evidence
	}
	return out
}

// infoOf is the live check named name.
func infoOf(name string) (info, bool) {
	i := slices.IndexFunc(infos, func(in info) bool { return in.name == name })
	if i < 0 {
		return info{}, false
	}
	return infos[i], true
}

// sessionRun is one session on its own connection.
type sessionRun struct {
	name    string
	target  host.Target
	timeout time.Duration
	h       *host.Host
	ack     *cgp.Envelope
	// replies holds, for each step run so far, the query sent and the
	// frames of its reply, when the step was a query answered with frames.
	replies []stepReply
}

type stepReply struct {
	q      *cgp.ContextQuery
	frames []cgp.ContextFrame
}

// ruleFailure is the first reply of a session that breaks a rule: the
// rule (a live check's name, or RuleNoCrash, RuleNoHang, RuleWire), the
// number of the first envelope of the step that drew it (the handshake is
// 1), what that step sent, and the live check's verdict.
type ruleFailure struct {
	rule string
	at   int
	kind string
	o    outcome
}

// level is the level the failure is judged at: its outcome's, else the
// level of the live check that owns the rule (must for the session's own).
func (f *ruleFailure) level() check.Level {
	if f.o.level != "" {
		return f.o.level
	}
	if in, ok := infoOf(f.rule); ok {
		return in.level
	}
	return check.Must
}

// run dials, handshakes and runs the steps; it returns the first failure,
// or the error of a provider that could not be started.
func (r *sessionRun) run(ctx context.Context, steps []Step) (*ruleFailure, error) {
	h, err := host.Dial(ctx, r.target)
	if err != nil {
		return nil, err
	}
	r.h = h
	defer h.Close()
	fail := func(rule string, o outcome) *ruleFailure {
		return &ruleFailure{rule: rule, at: 1, kind: "handshake", o: o}
	}
	sctx, cancel := r.stepContext(ctx)
	ack, err := h.Handshake(sctx)
	cancel()
	switch {
	case host.IsKind(err, host.KindSpawn):
		return nil, err
	case err != nil:
		return fail(CheckHandshake, handshakeFailed(err)), nil
	}
	r.ack = ack
	if o := handshakeOutcome(ack); o.status == check.Fail {
		return fail(CheckHandshake, o), nil
	}
	if o := consentScope(ack); o.status == check.Fail {
		return fail(CheckConsentScope, o), nil
	}
	for i := range steps {
		r.replies = append(r.replies, stepReply{})
		if f := r.step(ctx, i, &steps[i]); f != nil {
			return f, nil
		}
		if ctx.Err() != nil {
			return nil, nil
		}
	}
	return nil, nil
}

// stepContext bounds one step's exchanges by the run's timeout, if it has one.
func (r *sessionRun) stepContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.timeout > 0 {
		return context.WithTimeout(ctx, r.timeout)
	}
	return context.WithCancel(ctx)
}

// step runs step i and judges its replies.
func (r *sessionRun) step(ctx context.Context, i int, st *Step) *ruleFailure {
	at, kind := r.h.Len()+1, st.kind()
	fail := func(rule string, o outcome) *ruleFailure {
		return &ruleFailure{rule: rule, at: at, kind: kind, o: o}
	}
	stdio := r.target.IsStdio()
	sctx, cancel := r.stepContext(ctx)
	defer cancel()
	switch {
	case st.Query != nil, st.Anchor != nil:
		q, anchor, ok := r.resolve(i, st)
		if !ok {
			return nil // an anchor with nothing to anchor on
		}
		var id *string
		if st.ID != nil && r.ack.Capabilities.Correlation {
			id = st.ID
		}
		env, err := r.h.Query(sctx, q, id)
		rule, o, ok := r.judgeQuery(ctx, q, id, anchor, env, err)
		if !ok {
			return fail(rule, o)
		}
		if err == nil {
			r.replies[i] = stepReply{q: &q, frames: env.Result.Frames}
		}
	case st.Pipeline != nil:
		return r.pipeline(ctx, sctx, i, st.Pipeline, fail)
	case st.Verify != nil:
		if !r.ack.Capabilities.Verify {
			return nil // a host sends verify only to a provider that declares it
		}
		items, real, changed := r.verifyItems(i, st.Verify)
		if len(items) == 0 {
			return nil
		}
		problems, err := verifyProblems(sctx, r.h, items)
		switch {
		case err != nil:
			if rule, ok := broken(err); ok {
				return fail(rule, verifyFailed("verify", err))
			}
			if host.IsKind(err, host.KindProvider) && real+changed < len(items) {
				// A verify that also names identities never served may be
				// refused whole: no rule says how those are answered.
				return nil
			}
			return fail(CheckVerifyHonesty, verifyFailed("verify", err))
		case len(problems) > 0:
			return fail(CheckVerifyHonesty, verifyOutcome(problems, real, changed))
		}
	case st.Line != nil, st.LineHex != nil:
		if !stdio {
			return nil // as malformed-input-tolerance: stdio only
		}
		if o := malformedInput(sctx, r.h, st.line(), probeQuery()); o.status == check.Fail {
			return fail(CheckMalformedInput, o)
		}
	case st.Shutdown != nil:
		if !stdio {
			return nil // an HTTP provider serves other hosts: it is not shut down
		}
		// The host bounds a shutdown by its own grace.
		if o := shutdownOutcome(r.h.Shutdown(ctx)); o.status == check.Fail {
			return fail(CheckShutdownClean, o)
		}
	}
	return nil
}

// broken names the rule a transport error breaks: the provider crashed
// (or an HTTP request failed) or hung; ok is false for any other error.
func broken(err error) (rule string, ok bool) {
	switch {
	case host.IsKind(err, host.KindCrashed), host.IsKind(err, host.KindTransport), host.IsKind(err, host.KindSpawn):
		return RuleNoCrash, true
	case host.IsKind(err, host.KindTimeout):
		return RuleNoHang, true
	}
	return "", false
}

// anchorRule says G4 demands an anchored frame of a query's reply: its
// last anchor came from frame from of an earlier reply.
type anchorRule struct{ from string }

// resolve makes step i's query as it is sent: a query step's with the
// embedding made for the declared dimension (none to a provider that
// declares no fingerprint) and the as_of at a bound of an earlier frame;
// an anchor step's, the earlier query with the anchor its reply's frame
// offers, and the anchor rule, which applies for a graph provider when the
// budgets leave room for a frame and for the frames of that reply anchored
// on it. ok is false for an anchor step with nothing to anchor on.
func (r *sessionRun) resolve(i int, st *Step) (q cgp.ContextQuery, rule *anchorRule, ok bool) {
	if a := st.Anchor; a != nil {
		src := r.reply(i, a.Step)
		if src == nil {
			return q, nil, false
		}
		anchor, from := anchorSource(src.frames, a.Frame)
		if anchor == "" {
			return q, nil, false
		}
		q = *src.q
		q.MaxFrames, q.MaxTokens = a.MaxFrames, a.MaxTokens
		q.Anchors = append(slices.Clone(q.Anchors), anchor)
		var room uint64
		for _, f := range src.frames {
			if cgp.AnchoredOn(&f, anchor) {
				room += uint64(f.TokenCost)
			}
		}
		if r.ack.Capabilities.Graph && q.MaxFrames >= 1 && uint64(q.MaxTokens) >= room {
			rule = &anchorRule{from}
		}
		return q, rule, true
	}
	q = *st.Query
	dim, declared := r.dimension()
	switch {
	case !declared:
		q.Embedding = nil // E1: a host sends an embedding only to a provider that declares its model
	case st.Embed != nil:
		q.Embedding = makeEmbedding(min(max(0, dim+st.Embed.Off), maxEmbedding), st.Embed.Seed)
	}
	if e := st.AsOfEdge; e != nil {
		if f := r.frameAt(i, e.FrameRef); f != nil {
			bound := f.ValidFrom
			if e.Bound == "valid_to" {
				bound = f.ValidTo
			}
			if t, err := cgp.ParseTimestamp(bound); err == nil && t != nil {
				pin := t.Add(time.Duration(e.ShiftMS) * time.Millisecond).UTC().Format(time.RFC3339Nano)
				q.AsOf = &pin
			}
		}
	}
	return q, nil, true
}

// dimension is the embedding dimension the provider declares, if it
// declares one.
func (r *sessionRun) dimension() (int, bool) {
	fp := r.ack.Capabilities.EmbeddingsFingerprint
	if fp == nil {
		return 0, false
	}
	return fingerprintDim(*fp)
}

// makeEmbedding is n values in [-1, 1) drawn from seed.
func makeEmbedding(n int, seed uint64) []float32 {
	rnd := rand.New(rand.NewPCG(seed, uint64(n)))
	out := make([]float32, n)
	for k := range out {
		out[k] = float32(rnd.Float64()*2 - 1)
	}
	return out
}

// reply is the reply FrameRef.Step k names from step i: that of the latest
// query answered with frames at or before step k, and before step i; nil
// when there is none.
func (r *sessionRun) reply(i, k int) *stepReply {
	for j := min(k, i-1, len(r.replies)-1); j >= 0; j-- {
		if r.replies[j].q != nil && len(r.replies[j].frames) > 0 {
			return &r.replies[j]
		}
	}
	return nil
}

// frameAt is the frame ref names, counted from the last of its reply, or nil.
func (r *sessionRun) frameAt(i int, ref FrameRef) *cgp.ContextFrame {
	src := r.reply(i, ref.Step)
	if src == nil {
		return nil
	}
	return &src.frames[max(0, len(src.frames)-1-ref.Frame)]
}

// verifyItems are the identities step i's verify asks about: the frames
// served to step v.Step that carry a content_digest, those at the indexes
// of v.Change with another digest, and v.Unknown identities never served;
// and how many of them are judged unchanged and changed.
func (r *sessionRun) verifyItems(i int, v *VerifyStep) (items []verifyItem, real, changed int) {
	name := r.ack.Provider.Name
	if src := r.reply(i, v.Step); src != nil {
		for j, f := range src.frames {
			if f.ContentDigest == nil {
				continue
			}
			if slices.Contains(v.Change, j) {
				items = append(items, changedItem(name, f.ID, *f.ContentDigest, fmt.Sprintf("%s-%d-%d", r.name, i, j)))
				changed++
				continue
			}
			items = append(items, verifyItem{id: cgp.FrameID{ProviderID: name, FrameID: f.ID, ContentDigest: f.ContentDigest}, served: *f.ContentDigest})
			real++
		}
	}
	for u := range v.Unknown {
		d := cgp.DigestOf(fmt.Appendf(nil, "referee: a frame no provider served, %d", u))
		items = append(items, verifyItem{id: cgp.FrameID{ProviderID: name, FrameID: fmt.Sprintf("referee-unknown-%d", u), ContentDigest: &d}, unjudged: true})
	}
	return items, real, changed
}

// judgeQuery judges the reply to query q (sent with id, when not nil, and
// anchored as anchor says) by every rule that concerns it. ok is false
// when one is broken: rule and o say which and how. An error reply breaks
// no rule but correlation's and, to a query whose embedding contradicts
// the declared dimension, none.
func (r *sessionRun) judgeQuery(ctx context.Context, q cgp.ContextQuery, id *string, anchor *anchorRule, env *cgp.Envelope, err error) (rule string, o outcome, ok bool) {
	dim, declared := r.dimension()
	wrongSize := declared && len(q.Embedding) > 0 && len(q.Embedding) != dim
	e1 := func() outcome {
		return embeddingOutcome(env, err, *r.ack.Capabilities.EmbeddingsFingerprint, dim, len(q.Embedding))
	}
	if err != nil {
		if rule, ok := broken(err); ok {
			return rule, queryFailed("query", err), false
		}
		switch _, isShape := refused("query", err); {
		case host.IsKind(err, host.KindCorrelation):
			return CheckCorrelation, correlationFailure(err, *id), false
		case isShape:
			o := queryFailed("query", err)
			if wrongSize {
				return CheckEmbedding, e1(), false
			}
			return CheckFrameValidity, o, false
		case host.IsKind(err, host.KindProvider):
			if wrongSize {
				if o := e1(); o.status == check.Fail {
					return CheckEmbedding, o, false
				}
			}
			return "", outcome{}, true
		}
		return RuleWire, queryFailed("query", err), false
	}
	return r.judgeFrames(ctx, q, anchor, env, wrongSize, e1)
}

// judgeFrames judges a frames reply to q by the rules of the live checks,
// in their order, and returns the first must-level failure (else the first
// failure).
func (r *sessionRun) judgeFrames(ctx context.Context, q cgp.ContextQuery, anchor *anchorRule, env *cgp.Envelope, wrongSize bool, e1 func() outcome) (string, outcome, bool) {
	res := env.Result
	type judged struct {
		rule string
		o    outcome
	}
	var all []judged
	add := func(rule string, o outcome) { all = append(all, judged{rule, o}) }
	if wrongSize {
		add(CheckEmbedding, e1())
	}
	add(CheckFrameValidity, frameValidity(res))
	add(CheckBudgetHonesty, budgetHonesty(res, q))
	if q.AsOf != nil && cgp.CheckTimestamp(*q.AsOf) == nil {
		if p := windowProblem(res.Frames, *q.AsOf); p != "" {
			add(CheckAsOfTemporal, asOfFailure([]string{p}))
		}
	}
	if len(q.Kinds) > 0 {
		add(CheckKindsFilter, kindsOutcome(res.Frames, q.Kinds))
	}
	if anchor != nil {
		add(CheckAnchorRelevance, anchorOutcome(res.Frames, q.Anchors, anchor.from, q.MaxFrames))
	}
	add(CheckProvenance, provenance(ctx, res))
	if len(r.ack.AttesterKeys) > 0 {
		add(CheckAttestation, attestation(r.ack, res))
	}
	first := -1
	for k, j := range all {
		if j.o.status != check.Fail {
			continue
		}
		f := ruleFailure{rule: j.rule, o: j.o}
		if f.level() == check.Must {
			return j.rule, j.o, false
		}
		if first < 0 {
			first = k
		}
	}
	if first >= 0 {
		return all[first].rule, all[first].o, false
	}
	return "", outcome{}, true
}

// pipeline runs a pipelined step: its queries written at once and their
// replies matched by id, on a stdio provider that declares correlation;
// otherwise one by one, as queries.
func (r *sessionRun) pipeline(ctx, sctx context.Context, i int, p []Step, fail func(string, outcome) *ruleFailure) *ruleFailure {
	qs := make([]cgp.ContextQuery, len(p))
	ids := make([]string, len(p))
	for k := range p {
		qs[k], _, _ = r.resolve(i, &p[k])
		ids[k] = pipelineID(p, k)
	}
	if !r.target.IsStdio() || !r.ack.Capabilities.Correlation {
		for k := range qs {
			var id *string
			if r.ack.Capabilities.Correlation {
				id = &ids[k]
			}
			env, err := r.h.Query(sctx, qs[k], id)
			if rule, o, ok := r.judgeQuery(ctx, qs[k], id, nil, env, err); !ok {
				return fail(rule, o)
			}
		}
		return nil
	}
	replies, err := r.h.QueryPipelined(sctx, qs, ids)
	if err != nil {
		if rule, ok := broken(err); ok {
			return fail(rule, queryFailed("pipelined queries", err))
		}
		if _, isShape := refused("pipelined queries", err); isShape {
			return fail(CheckFrameValidity, pipelineFailure(err, ids))
		}
		return fail(CheckCorrelation, pipelineFailure(err, ids))
	}
	for k, env := range replies {
		var err error
		if env.Type == cgp.TypeError {
			err = &host.Error{Kind: host.KindProvider, Msg: env.ErrorText()}
		}
		if rule, o, ok := r.judgeQuery(ctx, qs[k], &ids[k], nil, env, err); !ok {
			return fail(rule, o)
		}
	}
	return nil
}
