// Package cgplive is the Context Graph Protocol's live provider suite
// (contextgraph-conformance's run_conformance): referee is the host, drives
// one provider over stdio or HTTP through the protocol itself (not
// referee-adapter/1), and gives each of fourteen checks a verdict with
// evidence.
package cgplive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/host"
)

// Name is the suite's name.
const Name = "cgp"

// Version is the suite's own version.
const Version = "1.0.0"

// Check names, in run order.
const (
	CheckHandshake        = "handshake"
	CheckConsentScope     = "consent-scope"
	CheckFrameValidity    = "frame-validity"
	CheckVerifyHonesty    = "verify-honesty"
	CheckBudgetHonesty    = "budget-honesty"
	CheckAsOfTemporal     = "as-of-temporal"
	CheckKindsFilter      = "kinds-filter"
	CheckAnchorRelevance  = "anchor-relevance"
	CheckProvenance       = "provenance-fixture-consistency"
	CheckShutdownClean    = "shutdown-clean"
	CheckMalformedInput   = "malformed-input-tolerance"
	CheckEmbedding        = "embedding-fingerprint"
	CheckCorrelation      = "correlation"
	CheckAttestation      = "attestation"
	handshakeFailedReason = "handshake failed"
)

type info struct {
	name, doc, explain string
	fresh              bool // runs on a fresh stdio connection of its own
	judgesProbe        bool // judges the probe reply sent for an earlier check
	level              check.Level
	clause             string
}

// outcome is one check's verdict.
type outcome struct {
	status   check.Status
	evidence string
	notes    []string
	// expected and actual are the values a failure compares.
	expected, actual string
	// level, when set, is the level a failure is judged at instead of the
	// check's.
	level check.Level
}

func pass(format string, a ...any) outcome {
	return outcome{status: check.Pass, evidence: fmt.Sprintf(format, a...)}
}
func fail(format string, a ...any) outcome {
	return outcome{status: check.Fail, evidence: fmt.Sprintf(format, a...)}
}
func skip(format string, a ...any) outcome {
	return outcome{status: check.NotChecked, evidence: fmt.Sprintf(format, a...)}
}

// want sets the values a failure compares.
func (o outcome) want(expected, actual string) outcome {
	o.expected, o.actual = expected, actual
	return o
}

var infos = []info{
	{CheckHandshake, "the provider acks a version of the contextgraph/1 family with a non-blank name and version (H1–H3)",
		"sends handshake with protocol_version " + cgp.ProtocolVersion + "; the reply must be a handshake_ack in the same major family, with provider.name and provider.version non-blank.", false, false, check.Must,
		clauseHandshake},
	{CheckConsentScope, "the declared egress scopes are well-formed and consistent with egress (C5)",
		"reads the ack: every egress scope is local-only, org-tenant, third-party-index, third-party-model or a namespaced vendor:name; an off-machine scope with egress=false fails.", false, false, check.Must,
		clauseConsent},
	{CheckFrameValidity, "every frame of the probe query is valid (F1–F6, D1, P1–P4, G1, G2, Q2)",
		"sends the probe query (max_frames 8, max_tokens 4096) and checks each frame: score in [0,1], non-blank title and citation_label, the representation invariants, RFC 3339 UTC timestamps with a valid_to after valid_from, sha256 digests (content_digest the SHA-256 of the content), file provenance with a digest, relations with a target and a label, no attestation inside a frame.", false, false, check.Must,
		clauseFrameValidity},
	{CheckVerifyHonesty, "verify says valid for the served digests and stale for changed ones (V1–V4)",
		"sends verify with the served frames' identities, then with each digest replaced by another well-formed one: every real digest must be valid, every changed one stale (a replacement_digest, if given, must be the served one).", false, true, check.Must,
		clauseVerify},
	{CheckBudgetHonesty, "the probe reply keeps its budget and declares honest token costs (B1, B3, B4)",
		"the probe reply must hold at most 8 frames and 4096 tokens, and each token_cost must equal ceil(UTF-8 bytes of content / 4), 0 for a frame without content.", false, true, check.Must,
		clauseBudget},
	{CheckAsOfTemporal, "a query pinned with as_of returns only frames valid at that instant (Q2)",
		"sends the probe with as_of 2026-07-01T00:00:00Z and again with 2026-02-01T00:00:00Z: no returned frame may have valid_from after the pin or valid_to at or before it, compared as instants.", false, false, check.Must,
		clauseAsOf},
	{CheckKindsFilter, "a kinds filter returns only frames of those kinds (Q1)",
		"sends the probe with kinds set to the first kind the provider declares: every frame returned must be of that kind.", false, false, check.Must,
		clauseKinds},
	{CheckAnchorRelevance, "a graph provider returns the anchored frame (G3/G4)",
		"anchors the probe on the relation target (or uri) of the frame the provider ranked last, with max_frames 1: the one frame returned must be anchored (its uri or a relation target is the anchor).", false, true, check.Must,
		clauseAnchors},
	{CheckProvenance, "file provenance digests match the bytes on this machine (§6.2)",
		"re-reads every file:// provenance link of the probe reply, takes its line range (F17) and compares the SHA-256 with the declared digest; unreadable files are not counted.", false, true, check.Must,
		clauseProvenance},
	{CheckShutdownClean, "the provider shuts down cleanly (R2)",
		"sends shutdown: a stdio provider must exit with status 0 within 2 s (referee then kills its process group).", false, false, check.Must,
		clauseShutdown},
	{CheckMalformedInput, "a garbage line gets bad_request and the provider stays alive (R1)",
		"on a fresh connection, after the handshake, writes `this is not valid json {{{` then the probe query: the provider must answer the garbage with an error whose code is bad_request (or ignore it) and then answer the query with frames.", true, false, check.Must,
		clauseMalformed},
	{CheckEmbedding, "an embedding of the wrong dimension is refused (E1)",
		"on a fresh connection, sends the probe with an embedding whose length contradicts the declared fingerprint's dimension: the reply must be an error (bad_request expected), not frames.", true, false, check.Should,
		clauseEmbedding},
	{CheckCorrelation, "a correlating provider echoes the request id (H4)",
		"on a fresh connection, sends the probe with id cgp-conformance-h4-7f3a: the frames reply must carry that id exactly; then writes two probes at once (ids …-a and …-b): each reply must carry its own query's id.", true, false, check.Must,
		clauseCorrelation},
	{CheckAttestation, "every provenance attestation verifies against a published key (F6–F15)",
		"reads attester_keys from the ack and frame_attestations / result_attestation from the probe reply: each frame commitment, each inclusion proof and the result root are recomputed from the frames as served and each Ed25519 signature verified strictly.", false, true, check.Must,
		clauseAttestation},
}

// suite returns the suite's checks; they run against the connection
// connect makes.
func suite() *check.Suite {
	s := &check.Suite{Name: Name, Version: Version, Corpus: "built-in checks", CorpusDigest: definitionDigest()}
	for _, in := range infos {
		s.Checks = append(s.Checks, check.Check{
			ID: Name + "/" + in.name, Doc: in.doc, Explain: in.explain, Level: in.level, Clause: in.clause,
			Do: func(ctx context.Context, s *check.Session) check.Outcome { return runCheck(ctx, s, in) },
		})
	}
	return s
}

// definitionDigest pins what the checks send and expect, in place of a
// corpus: the sha256 of the check list, the probe query and the as_of pins.
func definitionDigest() string {
	type def struct {
		Name, Doc, Explain string
		Fresh              bool
	}
	var defs []def
	for _, in := range infos {
		defs = append(defs, def{in.name, in.doc, in.explain, in.fresh})
	}
	b, _ := json.Marshal(struct { // plain structs always marshal
		Checks []def
		Probe  cgp.ContextQuery
		Pins   []string
		ID     string
	}{defs, probeQuery(), asOfPins, CorrelationID})
	return cgp.DigestOf(b)
}

// NativeCheck is one check in upstream's report shape.
type NativeCheck struct {
	Name     string `json:"name"`
	Status   string `json:"status"` // pass, fail or skipped
	Evidence string `json:"evidence"`
}

// Native is upstream's ConformanceReport.
type Native struct {
	Target string        `json:"target"`
	Checks []NativeCheck `json:"checks"`
}

// native renders a run as upstream's report.
func native(run *check.Execution, spec check.Spec) any { return nativeOf(run, targetName(spec)) }

// nativeOf renders a run as upstream's report. A check the run never
// judged (Result.NotRun: the provider could not be started, the run was
// interrupted with the check in flight, or gave up) is skipped: a report of
// an incomplete run charges the provider with nothing it did not finish.
func nativeOf(run *check.Execution, target string) Native {
	n := Native{Target: target, Checks: []NativeCheck{}}
	status := map[check.Status]string{check.Pass: "pass", check.Fail: "fail", check.NotChecked: "skipped", check.Error: "fail"}
	for _, r := range run.All() {
		st := status[r.Status]
		if r.NotRun() {
			st = "skipped"
		}
		n.Checks = append(n.Checks, NativeCheck{Name: strings.TrimPrefix(r.ID, Name+"/"), Status: st, Evidence: r.Reason})
	}
	return n
}

// Result is the outcome of Check: referee's run and upstream's report.
type Result struct {
	Execution *check.Execution
	Native    Native
	Ack       *cgp.Envelope // the provider's ack on the main connection, if any
	// Unreachable says the provider could not be started or reached at all;
	// Interrupted, that the run was cancelled. Either makes Run incomplete.
	Unreachable, Interrupted bool
}

// Check runs the selected checks (all when selected is nil) against target
// through the engine, in the suite's order.
func Check(ctx context.Context, target host.Target, selected []check.Check) *Result {
	if selected == nil {
		selected = suite().Checks
	}
	res := &Result{}
	c, err := dial(ctx, target)
	if err != nil {
		res.Unreachable = true
		res.Execution = check.Unstarted(selected, err, check.Evidence{})
	} else {
		res.Execution = check.Execute(ctx, c, selected, check.Options{MaxEvidence: check.MaxEvidence})
		res.Ack = c.ack
		c.Close()
		res.Interrupted = ctx.Err() != nil
	}
	res.Native = nativeOf(res.Execution, target.String())
	return res
}

// conn is one run's provider as the engine's target: the main connection,
// its ack and the probe reply, which the checks share in order.
type conn struct {
	*runner
	cleanup func()
}

// connect reaches the provider the spec names (referee's own when it names
// none). A provider that cannot be started or reached is an error; one that
// starts and then fails its handshake is the handshake check's failure.
func connect(ctx context.Context, spec check.Spec) (check.Target, error) {
	t, cleanup, err := target(spec)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, t)
	if err != nil {
		cleanup()
		return nil, err
	}
	c.cleanup = cleanup
	c.timeout = spec.Timeout
	return c, nil
}

func dial(ctx context.Context, t host.Target) (*conn, error) {
	r := &runner{target: t, probeAt: -1}
	r.connect(ctx)
	if r.unreachable {
		r.close()
		return nil, r.dialErr
	}
	return &conn{runner: r, cleanup: func() {}}, nil
}

// Hello names the provider as its ack did; checks run one at a time.
func (c *conn) Hello() adapter.Hello {
	h := adapter.Hello{Concurrency: 1}
	if c.ack != nil && c.ack.Provider != nil {
		h.Name, h.Version = c.ack.Provider.Name, c.ack.Provider.Version
	}
	return h
}

// Prepare records which checks will run. The fuzzer runs sessions, which
// share nothing of the run's but its target, several at once on one conn.
func (c *conn) Prepare(checks []check.Check) {
	want := map[string]bool{}
	for _, ch := range checks {
		want[ch.ID] = true
	}
	c.mu.Lock()
	c.want = want
	c.mu.Unlock()
}

// Offers is true: the cgp checks call no adapter ops.
func (c *conn) Offers(op string) bool { return true }

// GaveUp is false: a provider's breakage fails the checks that see it.
func (c *conn) GaveUp() bool { return false }

// Restarts is 0: connections are opened by the checks that need them.
func (c *conn) Restarts() int { return 0 }

// Stderr is the main connection's stderr tail.
func (c *conn) Stderr() string {
	if c.main == nil {
		return ""
	}
	return c.main.Stderr()
}

// Close ends the main connection and removes the built-in provider's documents.
func (c *conn) Close() error {
	c.close()
	c.cleanup()
	return nil
}

// runCheck runs one check on the run's connection and turns its verdict
// into the engine's outcome, with the exchanges it judged as evidence.
func runCheck(ctx context.Context, s *check.Session, in info) check.Outcome {
	c, ok := s.Target().(*conn)
	if !ok {
		return check.Outcome{Status: check.Error, Reason: "the cgp checks run against a Context Graph provider, not a referee-adapter/1 adapter"}
	}
	h := c.main
	if in.fresh {
		h = nil
	}
	before := 0
	if h != nil {
		before = h.Len()
	}
	o := c.run(ctx, in)
	reason := o.evidence
	if o.status != check.Fail && len(o.notes) > 0 {
		// A pass or not-checked carries no evidence: its notes go in the reason.
		reason += " (note: " + strings.Join(o.notes, "; ") + ")"
	}
	out := check.Outcome{Status: o.status, Reason: reason, Notes: o.notes}
	if o.status == check.Fail {
		out.Expected, out.Actual, out.Level = o.expected, o.actual, o.level
		if out.Expected == "" {
			out.Expected = in.doc
		}
		if out.Actual == "" {
			out.Actual = o.evidence
		}
	}
	if o.status == check.Pass {
		return out
	}
	if h == nil {
		h = c.lastFresh
	}
	if h == nil {
		h = c.main
	}
	if h != nil {
		full := exchanges(h)
		tr := full
		if before <= len(full) && !in.fresh {
			tr = full[before:]
			// A check that judges the probe reply shows it.
			if in.judgesProbe && c.probeAt >= 0 && c.probeAt < before {
				tr = append([]adapter.Exchange{full[c.probeAt]}, tr...)
			}
		}
		s.Record(tr...)
		s.UseStderr(h.Stderr())
	}
	return out
}

// runner holds what the checks share: the main connection, its ack and the
// probe reply.
type runner struct {
	target      host.Target
	mu          sync.Mutex
	want        map[string]bool // the selected check IDs (Prepare), under mu
	main        *host.Host
	ack         *cgp.Envelope
	dialed      bool
	dialErr     error
	unreachable bool // the provider could not be started or reached
	lastFresh   *host.Host
	// timeout, if set, bounds each exchange of a session (check.Spec.Timeout).
	timeout time.Duration

	probed   bool
	probeAt  int // the probe's index in the main transcript, or -1
	probe    *cgp.Envelope
	probeErr error
	shutDown bool
	mutation string // see salt
}

// salt makes the changed digests of verify-honesty unpredictable, so a
// provider cannot recognise them; one per run.
func (r *runner) salt() string {
	if r.mutation == "" {
		b := make([]byte, 8)
		rand.Read(b)
		r.mutation = hex.EncodeToString(b)
	}
	return r.mutation
}

func (r *runner) close() {
	if r.main != nil {
		r.main.Close()
	}
}

// connect dials the main connection and handshakes, once.
func (r *runner) connect(ctx context.Context) error {
	if r.dialed {
		return r.dialErr
	}
	r.dialed = true
	h, ack, err := r.open(ctx)
	r.main, r.ack, r.dialErr = h, ack, err
	return err
}

// open dials a connection and handshakes on it.
func (r *runner) open(ctx context.Context) (*host.Host, *cgp.Envelope, error) {
	h, err := host.Dial(ctx, r.target)
	if err != nil {
		if host.IsKind(err, host.KindSpawn) {
			r.unreachable = true
		}
		return nil, nil, err
	}
	ack, err := h.Handshake(ctx)
	if err != nil {
		if host.IsKind(err, host.KindSpawn) { // HTTP: the dial failed
			r.unreachable = true
		}
		return h, nil, err
	}
	return h, ack, nil
}

// handshakeFailed is the failure of a connection whose handshake did not
// complete: the provider could not be reached, or its ack was refused.
func handshakeFailed(err error) outcome {
	return fail("could not establish provider: %v", err).want("a handshake_ack", err.Error())
}

// probeQuery is the suite's sample query (upstream's sample_query()).
func probeQuery() cgp.ContextQuery {
	return cgp.ContextQuery{Goal: "conformance probe: return your most relevant frames", QueryText: cgp.Str("conformance probe"), MaxFrames: 8, MaxTokens: 4096}
}

// sample sends the probe query on the main connection, once.
func (r *runner) sample(ctx context.Context) (*cgp.ContextQueryResult, error) {
	if !r.probed {
		r.probed = true
		r.probeAt = r.main.Len()
		r.probe, r.probeErr = r.main.Query(ctx, probeQuery(), nil)
	}
	if r.probeErr != nil {
		return nil, r.probeErr
	}
	return r.probe.Result, nil // the host refuses a frames reply without one
}

func (r *runner) run(ctx context.Context, in info) outcome {
	if in.fresh {
		if !r.target.IsStdio() {
			return skip("runs on a fresh stdio connection; the target is %s", r.target)
		}
		return r.fresh(ctx, in.name)
	}
	if err := r.connect(ctx); err != nil {
		if in.name == CheckHandshake {
			return handshakeFailed(err)
		}
		return skip(handshakeFailedReason)
	}
	switch in.name {
	case CheckHandshake:
		return handshakeOutcome(r.ack)
	case CheckConsentScope:
		return consentScope(r.ack)
	case CheckShutdownClean:
		return r.shutdown(ctx)
	}
	if r.shutDown && !r.probed {
		return skip("the provider was shut down before this check could query it")
	}
	if in.name == CheckAttestation && len(r.ack.AttesterKeys) == 0 {
		return skip("provider publishes no attester_keys")
	}
	res, err := r.sample(ctx)
	if err != nil && in.name != CheckVerifyHonesty && in.name != CheckKindsFilter && in.name != CheckAnchorRelevance {
		return queryFailed("query", err)
	}
	switch in.name {
	case CheckFrameValidity:
		return frameValidity(res)
	case CheckVerifyHonesty:
		return r.verifyHonesty(ctx, res, err)
	case CheckBudgetHonesty:
		return budgetHonesty(res, probeQuery())
	case CheckAsOfTemporal:
		return r.asOf(ctx)
	case CheckKindsFilter:
		return r.kindsFilter(ctx)
	case CheckAnchorRelevance:
		return r.anchorRelevance(ctx, res, err)
	case CheckProvenance:
		return provenance(ctx, res)
	case CheckAttestation:
		return attestation(r.ack, res)
	}
	return outcome{status: check.Error, evidence: "referee has no check " + in.name}
}

// fresh runs a check on a new stdio connection of its own.
func (r *runner) fresh(ctx context.Context, name string) outcome {
	r.lastFresh = nil
	h, ack, err := r.open(ctx)
	if h != nil {
		r.lastFresh = h
		defer h.Close()
	}
	if err != nil {
		if name == CheckMalformedInput {
			return handshakeFailed(err)
		}
		return skip("%s: %v", handshakeFailedReason, err)
	}
	switch name {
	case CheckMalformedInput:
		return malformedInput(ctx, h, []byte(garbage), probeQuery())
	case CheckEmbedding:
		return embedding(ctx, h, ack)
	case CheckCorrelation:
		return correlation(ctx, h, ack)
	}
	return outcome{status: check.Error, evidence: "referee has no check " + name}
}
