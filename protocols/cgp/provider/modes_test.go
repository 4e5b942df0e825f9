package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
)

// call answers one envelope through the full line path (decode, dispatch,
// id echo, the reply as written and as a host reads it); a crash or
// shutdown, or a reply the host refuses, gives a nil reply.
func call(t *testing.T, p *Provider, env *cgp.Envelope) (*cgp.Envelope, outcome) {
	t.Helper()
	b, err := cgp.Encode(env)
	if err != nil {
		t.Fatal(err)
	}
	reply, out := p.handle(b, msgBadLine)
	if reply == nil {
		return nil, out
	}
	line, err := p.encode(reply)
	if err != nil {
		t.Fatal(err)
	}
	read, err := cgp.DecodeReply(line)
	if err != nil {
		return nil, out
	}
	return read, out
}

// probeResult is the sample query's frames, or nil when the provider did not answer frames.
func probeResult(t *testing.T, p *Provider, q *cgp.ContextQuery) *cgp.ContextQueryResult {
	t.Helper()
	r, out := call(t, p, queryEnv(q))
	if out != outReply || r == nil || r.Type != cgp.TypeFrames {
		return nil
	}
	return r.Result
}

// miniSuite is a small stand-in for the conformance suite's checks: it
// returns the names of those that fail against p.
func miniSuite(t *testing.T, p *Provider) []string {
	t.Helper()
	var failed []string
	fail := func(name string, ok bool) {
		if !ok {
			failed = append(failed, name)
		}
	}

	// handshake and consent-scope, over stdio so a banner counts.
	s := start(t, p)
	s.send(mustJSON(handshake()))
	ack, err := cgp.DecodeEnvelope([]byte(s.recvLine()))
	handshakeOK := err == nil && ack.Type == cgp.TypeHandshakeAck && cgp.Compatible(ack.ProtocolVersion, cgp.ProtocolVersion) && !cgp.IsBlank(ack.Provider.Name)
	fail("handshake", handshakeOK)
	if handshakeOK {
		ok := true
		for _, sc := range ack.Provider.DataFlow.EgressScopes {
			if sc != "local-only" && !ack.Provider.DataFlow.Egress {
				ok = false
			}
		}
		fail("consent-scope", ok)
	}
	// shutdown-clean: shutdown, then stdin closes; ServeStdio must return nil.
	s.send(`{"type":"shutdown"}`)
	s.in.Close()
	select {
	case err := <-s.done:
		fail("shutdown-clean", err == nil)
	case <-time.After(300 * time.Millisecond):
		fail("shutdown-clean", false)
	}

	res := probeResult(t, p, probe())
	// frame-validity
	ok := res != nil
	if res != nil {
		for _, f := range res.Frames {
			if f.Score < 0 || f.Score > 1 || cgp.IsBlank(f.Title) || f.CitationLabel == nil || cgp.IsBlank(*f.CitationLabel) {
				ok = false
			}
			if f.Representation != nil && (*f.Representation != "compact" || f.Transform == nil || f.ContentRef == nil || f.CanonicalContentHash == nil) {
				ok = false
			}
			for _, ts := range []*string{f.ValidFrom, f.ValidTo, f.RecordedAt} {
				if ts != nil && !timestampPattern.MatchString(*ts) {
					ok = false
				}
			}
			if f.ContentDigest != nil {
				if _, err := cgp.ParseHash(*f.ContentDigest); err != nil {
					ok = false
				}
			}
			for _, l := range f.Provenance {
				if l.Type == "file" {
					if l.Digest == nil {
						ok = false
					} else if _, err := cgp.ParseHash(*l.Digest); err != nil {
						ok = false
					}
				}
			}
		}
	}
	fail("frame-validity", ok)

	// budget-honesty
	ok = res != nil
	if res != nil {
		var sum uint64
		for _, f := range res.Frames {
			sum += uint64(f.TokenCost)
			if f.Content == nil || f.TokenCost != cgp.TokenCost(*f.Content) {
				ok = false
			}
		}
		ok = ok && sum <= 4096 && len(res.Frames) <= 8
	}
	fail("budget-honesty", ok)

	// verify-honesty
	ok = res != nil
	if res != nil {
		var real, mutated []cgp.FrameID
		for _, f := range res.Frames {
			real = append(real, cgp.FrameID{ProviderID: Name, FrameID: f.ID, ContentDigest: f.ContentDigest})
			mutated = append(mutated, cgp.FrameID{ProviderID: Name, FrameID: f.ID, ContentDigest: cgp.Str(*f.ContentDigest + "-contextgraph-conformance-mutated")})
		}
		for _, c := range []struct {
			frames []cgp.FrameID
			want   string
		}{{real, cgp.StatusValid}, {mutated, cgp.StatusStale}} {
			r, _ := call(t, p, &cgp.Envelope{Type: cgp.TypeVerify, Request: &cgp.VerifyRequest{Frames: c.frames}})
			if r == nil || r.Response == nil || len(r.Response.Verdicts) != len(c.frames) {
				ok = false
				continue
			}
			for i, v := range r.Response.Verdicts {
				if v.Status != c.want || (v.Status == cgp.StatusStale && (v.ReplacementDigest == nil || *v.ReplacementDigest != *res.Frames[i].ContentDigest)) {
					ok = false
				}
			}
		}
	}
	fail("verify-honesty", ok)

	// as-of-temporal, with pins on either side of the fixture's boundaries.
	ok = true
	for _, pin := range []string{"2026-07-01T00:00:00Z", "2025-06-01T00:00:00Z"} {
		q := probe()
		q.AsOf = cgp.Str(pin)
		r := probeResult(t, p, q)
		if r == nil {
			ok = false
			continue
		}
		for _, f := range r.Frames {
			if (f.ValidFrom != nil && *f.ValidFrom > pin) || (f.ValidTo != nil && *f.ValidTo <= pin) {
				ok = false
			}
		}
	}
	fail("as-of-temporal", ok)

	// kinds-filter
	q := probe()
	q.Kinds = []string{"doc"}
	r := probeResult(t, p, q)
	ok = r != nil
	if r != nil {
		for _, f := range r.Frames {
			ok = ok && f.Kind == "doc"
		}
	}
	fail("kinds-filter", ok)

	// anchor-relevance, anchored on the baseline's last frame.
	ok = res != nil && len(res.Frames) > 0
	if ok {
		q := probe()
		anchor := res.Frames[len(res.Frames)-1].Relations[0].TargetURI
		q.Anchors = []string{anchor}
		r := probeResult(t, p, q)
		ok = r != nil && len(r.Frames) > 0 && anchored(&r.Frames[0], q.Anchors)
	}
	fail("anchor-relevance", ok)

	// provenance-fixture-consistency: well-formed digests must match the bytes.
	ok = res != nil
	if res != nil {
		for _, f := range res.Frames {
			for _, l := range f.Provenance {
				if l.Type != "file" || l.Digest == nil || l.URI == nil {
					continue
				}
				if _, err := cgp.ParseHash(*l.Digest); err != nil {
					continue // malformed: frame-validity's finding, not this check's
				}
				b, err := cgp.RangeBytes(fileBytes(t, *l.URI), deref(l.Range), l.Range != nil)
				if err != nil || cgp.DigestOf(b) != *l.Digest {
					ok = false
				}
			}
		}
	}
	fail("provenance-fixture-consistency", ok)

	// malformed-input-tolerance
	g, out := p.handle([]byte("this is not valid json {{{"), msgBadLine)
	next := probeResult(t, p, probe())
	fail("malformed-input-tolerance", out == outReply && g != nil && g.Type == cgp.TypeError && g.Code != nil && *g.Code == cgp.CodeBadRequest && next != nil)

	// embedding-fingerprint
	q = probe()
	q.Embedding = []float32{1}
	e, out := call(t, p, queryEnv(q))
	fail("embedding-fingerprint", out == outReply && e != nil && e.Type == cgp.TypeError)

	// correlation
	c, _ := call(t, p, &cgp.Envelope{Type: cgp.TypeQuery, ID: cgp.Str("cgp-conformance-h4-7f3a"), Query: probe()})
	fail("correlation", c != nil && c.ID != nil && *c.ID == "cgp-conformance-h4-7f3a")

	// attestation
	ok = res != nil && len(res.FrameAttestations) == len(res.Frames) && res.ResultAttestation != nil
	if ok {
		for _, v := range attestationVerdicts(t, res) {
			ok = ok && v.Kind == cgp.VerdictValid
		}
	}
	fail("attestation", ok)
	return failed
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestModes(t *testing.T) {
	type probeCheck func(t *testing.T, p *Provider)
	// onFirst checks the probe's first frame against the honest one.
	onFirst := func(check func(t *testing.T, got, honest cgp.ContextFrame)) probeCheck {
		return func(t *testing.T, p *Provider) {
			honest := mustFrames(t, newProvider(t, "").query(probe())).Frames[0]
			got := mustFrames(t, p.query(probe())).Frames
			check(t, got[0], honest)
		}
	}
	verdicts := func(check func(t *testing.T, res *cgp.ContextQueryResult, v map[string]cgp.Verdict)) probeCheck {
		return func(t *testing.T, p *Provider) {
			res := mustFrames(t, p.query(probe()))
			check(t, res, attestationVerdicts(t, res))
		}
	}
	kinds := func(v map[string]cgp.Verdict) map[string]string {
		out := map[string]string{}
		for id, x := range v {
			out[id] = x.Kind
		}
		return out
	}
	cases := []struct {
		mode  string
		fails []string
		check probeCheck
	}{
		{modeLyingCosts, []string{"budget-honesty"}, func(t *testing.T, p *Provider) {
			for _, f := range mustFrames(t, p.query(probe())).Frames {
				if f.TokenCost != 1 {
					t.Errorf("%s: token_cost %d", f.ID, f.TokenCost)
				}
			}
		}},
		{modeBadScore, []string{"frame-validity"}, onFirst(func(t *testing.T, got, _ cgp.ContextFrame) {
			if got.Score != 1.5 {
				t.Errorf("score %v", got.Score)
			}
		})},
		{modeEmptyCitation, []string{"frame-validity"}, onFirst(func(t *testing.T, got, _ cgp.ContextFrame) {
			if *got.CitationLabel != "  \u00a0" {
				t.Errorf("citation_label %q", *got.CitationLabel)
			}
		})},
		{modeBadVersion, []string{"handshake"}, func(t *testing.T, p *Provider) {
			if r, _ := call(t, p, handshake()); r.ProtocolVersion != "contextgraph/2.0" {
				t.Errorf("acked %s", r.ProtocolVersion)
			}
		}},
		{modeCrashOnQuery, nil, func(t *testing.T, p *Provider) {
			if _, out := call(t, p, queryEnv(probe())); out != outCrash {
				t.Errorf("outcome %d", out)
			}
			if r, _ := call(t, p, handshake()); r.Type != cgp.TypeHandshakeAck {
				t.Errorf("handshake: %s", mustJSON(r))
			}
		}},
		{modeCrashOnGarbage, []string{"malformed-input-tolerance"}, func(t *testing.T, p *Provider) {
			if _, out := p.handle([]byte("{{{"), msgBadLine); out != outCrash {
				t.Errorf("outcome %d", out)
			}
		}},
		{modeMislabelMalformed, []string{"malformed-input-tolerance"}, func(t *testing.T, p *Provider) {
			r, _ := p.handle([]byte("{{{"), msgBadLine)
			mustError(t, r, cgp.CodeInternal)
		}},
		{modeUnderReportCost, []string{"budget-honesty"}, onFirst(func(t *testing.T, got, honest cgp.ContextFrame) {
			if got.TokenCost != honest.TokenCost-1 {
				t.Errorf("token_cost %d, honest %d", got.TokenCost, honest.TokenCost)
			}
		})},
		{modeBadTimestamp, []string{"frame-validity"}, onFirst(func(t *testing.T, got, _ cgp.ContextFrame) {
			if *got.RecordedAt != "2026-07-20 18:00:00" {
				t.Errorf("recorded_at %q", *got.RecordedAt)
			}
		})},
		{modeMalformedDigest, []string{"frame-validity"}, onFirst(func(t *testing.T, got, honest cgp.ContextFrame) {
			if d := *got.Provenance[0].Digest; d == *honest.Provenance[0].Digest || !strings.EqualFold(d, *honest.Provenance[0].Digest) {
				t.Errorf("digest %s, honest %s", d, *honest.Provenance[0].Digest)
			}
		})},
		{modeStaleDigest, []string{"provenance-fixture-consistency"}, onFirst(func(t *testing.T, got, honest cgp.ContextFrame) {
			d := *got.Provenance[0].Digest
			if _, err := cgp.ParseHash(d); err != nil || d == *honest.Provenance[0].Digest {
				t.Errorf("digest %s (%v), honest %s", d, err, *honest.Provenance[0].Digest)
			}
		})},
		{modeFloodFrames, []string{"budget-honesty"}, func(t *testing.T, p *Provider) {
			res := mustFrames(t, p.query(probe()))
			if len(res.Frames) != 12 {
				t.Fatalf("%d frames, want max_frames+4 = 12", len(res.Frames))
			}
			var copies []cgp.FrameID
			for _, f := range res.Frames[3:] {
				if stripCopy(f.ID) == f.ID || f.TokenCost != cgp.TokenCost(*f.Content) {
					t.Errorf("extra frame %s, cost %d", f.ID, f.TokenCost)
				}
				copies = append(copies, cgp.FrameID{ProviderID: Name, FrameID: f.ID, ContentDigest: f.ContentDigest})
			}
			r := p.verify(&cgp.VerifyRequest{Frames: copies})
			for _, v := range r.Response.Verdicts {
				if v.Status != cgp.StatusValid {
					t.Errorf("copy %s: %s", v.Frame.FrameID, v.Status)
				}
			}
		}},
		{modeDropCorrelationID, []string{"correlation"}, func(t *testing.T, p *Provider) {
			if r, _ := call(t, p, &cgp.Envelope{Type: cgp.TypeQuery, ID: cgp.Str("q1"), Query: probe()}); r.ID != nil {
				t.Errorf("id %s", *r.ID)
			}
		}},
		{modeLyingRepresentation, []string{"frame-validity"}, onFirst(func(t *testing.T, got, _ cgp.ContextFrame) {
			if got.Representation == nil || *got.Representation != "compact" || got.Transform != nil || got.ContentRef != nil || got.CanonicalContentHash != nil {
				t.Errorf("frame %s", mustJSON(got))
			}
		})},
		{modeIgnoreAsOf, []string{"as-of-temporal"}, func(t *testing.T, p *Provider) {
			q := probe()
			q.AsOf = cgp.Str("not even a timestamp")
			if n := len(mustFrames(t, p.query(q)).Frames); n != 3 {
				t.Errorf("%d frames", n)
			}
		}},
		{modeIgnoreValidTo, []string{"as-of-temporal"}, func(t *testing.T, p *Provider) {
			q := probe()
			q.AsOf = cgp.Str("2026-07-01T00:00:00Z")
			got := ids(mustFrames(t, p.query(q)).Frames)
			slices.Sort(got)
			if !slices.Equal(got, []string{"frm_getting_started", "frm_release_notes_2025"}) {
				t.Errorf("frames %v", got)
			}
		}},
		{modeAcceptBadEmbedding, []string{"embedding-fingerprint"}, func(t *testing.T, p *Provider) {
			q := probe()
			q.Embedding = []float32{1, 2, 3}
			mustFrames(t, p.query(q))
		}},
		{modeRubberStampVerify, []string{"verify-honesty"}, func(t *testing.T, p *Provider) {
			r := p.verify(&cgp.VerifyRequest{Frames: []cgp.FrameID{{ProviderID: Name, FrameID: "frm_nothing"}}})
			if r.Response.Verdicts[0].Status != cgp.StatusValid {
				t.Errorf("verdict %s", mustJSON(r.Response.Verdicts[0]))
			}
		}},
		{modeHollowVerify, []string{"verify-honesty"}, func(t *testing.T, p *Provider) {
			f := mustFrames(t, p.query(probe())).Frames[0]
			r := p.verify(&cgp.VerifyRequest{Frames: []cgp.FrameID{{ProviderID: Name, FrameID: f.ID, ContentDigest: f.ContentDigest}}})
			if r.Response.Verdicts[0].Status != cgp.StatusUnknown {
				t.Errorf("verdict %s", mustJSON(r.Response.Verdicts[0]))
			}
		}},
		{modeScopeLie, []string{"consent-scope"}, func(t *testing.T, p *Provider) {
			r, _ := call(t, p, handshake())
			if df := r.Provider.DataFlow; df.Egress || !slices.Equal(df.EgressScopes, []string{"third-party-model"}) {
				t.Errorf("data_flow %+v", df)
			}
		}},
		{modeIgnoreKinds, []string{"kinds-filter"}, func(t *testing.T, p *Provider) {
			q := probe()
			q.Kinds = []string{"symbol"}
			if n := len(mustFrames(t, p.query(q)).Frames); n != 3 {
				t.Errorf("%d frames", n)
			}
		}},
		{modeIgnoreAnchors, []string{"anchor-relevance"}, func(t *testing.T, p *Provider) {
			honest := ids(mustFrames(t, p.query(probe())).Frames)
			q := probe()
			q.Anchors = []string{"symbol:///docs/release-notes-2025.md#overview"}
			if got := ids(mustFrames(t, p.query(q)).Frames); !slices.Equal(got, honest) {
				t.Errorf("anchored %v, unanchored %v", got, honest)
			}
		}},
		{modeForgeSignature, []string{"attestation"}, verdicts(func(t *testing.T, res *cgp.ContextQueryResult, v map[string]cgp.Verdict) {
			for id, x := range v {
				if want := map[bool]string{true: cgp.VerdictValid, false: cgp.VerdictBadSignature}[id == resultKey]; x.Kind != want {
					t.Errorf("%s: %v", id, x)
				}
			}
		})},
		{modeLiftSignature, []string{"attestation"}, verdicts(func(t *testing.T, res *cgp.ContextQueryResult, v map[string]cgp.Verdict) {
			want := map[string]string{"frm_configuration": cgp.VerdictCommitmentMismatch, "frm_getting_started": cgp.VerdictValid, "frm_release_notes_2025": cgp.VerdictValid, resultKey: cgp.VerdictValid}
			if got := kinds(v); mustJSON(got) != mustJSON(want) {
				t.Errorf("verdicts %v", got)
			}
		})},
		{modeTruncateChain, []string{"attestation"}, verdicts(func(t *testing.T, res *cgp.ContextQueryResult, v map[string]cgp.Verdict) {
			for _, f := range res.Frames {
				if len(f.Provenance) != 1 || f.Provenance[0].Type != "file" {
					t.Errorf("%s: provenance %s", f.ID, mustJSON(f.Provenance))
				}
				if v[f.ID].Kind != cgp.VerdictCommitmentMismatch {
					t.Errorf("%s: %v", f.ID, v[f.ID])
				}
			}
			if v[resultKey].Kind != cgp.VerdictCommitmentMismatch {
				t.Errorf("result attestation: %v", v[resultKey])
			}
		})},
		{modeSwapContent, []string{"attestation"}, func(t *testing.T, p *Provider) {
			res := mustFrames(t, p.query(probe()))
			i := slices.IndexFunc(res.Frames, func(f cgp.ContextFrame) bool { return f.ID == "frm_configuration" })
			f := res.Frames[i]
			if *f.Content != swapText(f.ID) || *f.ContentDigest != cgp.DigestOf([]byte(*f.Content)) || f.TokenCost != cgp.TokenCost(*f.Content) {
				t.Errorf("swapped frame %s", mustJSON(f))
			}
			v := attestationVerdicts(t, res)
			for id, x := range v {
				if want := map[bool]string{true: cgp.VerdictCommitmentMismatch, false: cgp.VerdictValid}[id == f.ID || id == resultKey]; x.Kind != want {
					t.Errorf("%s: %v, want %s", id, x, want)
				}
			}
			original := cgp.DigestOf(fileBytes(t, *f.URI))
			r := p.verify(&cgp.VerifyRequest{Frames: []cgp.FrameID{
				{ProviderID: Name, FrameID: f.ID, ContentDigest: f.ContentDigest},
				{ProviderID: Name, FrameID: f.ID, ContentDigest: &original},
			}})
			if vs := r.Response.Verdicts; vs[0].Status != cgp.StatusValid || vs[1].Status != cgp.StatusStale || *vs[1].ReplacementDigest != *f.ContentDigest {
				t.Errorf("verdicts %s", mustJSON(vs))
			}
		}},
		{modeMalformedAttest, []string{"attestation"}, verdicts(func(t *testing.T, res *cgp.ContextQueryResult, v map[string]cgp.Verdict) {
			if len(res.Frames) != 3 {
				t.Errorf("%d frames served", len(res.Frames))
			}
			if v[res.Frames[1].ID].Kind != cgp.VerdictValid || v[resultKey].Kind != cgp.VerdictValid {
				t.Errorf("verdicts %v", v)
			}
			if x := v[res.Frames[0].ID]; x.Kind != cgp.VerdictMalformedCommitment || res.FrameAttestations[0].Attestation.SignedCommitment != "sha256:not-a-digest" {
				t.Errorf("%s: %v", res.Frames[0].ID, x)
			}
		})},
		{modeBanner, []string{"handshake"}, func(t *testing.T, p *Provider) {
			s := start(t, p)
			if l := s.recvLine(); l != "referee-docs provider starting" {
				t.Errorf("first line %q", l)
			}
			if r := s.call(handshake()); r.Type != cgp.TypeHandshakeAck {
				t.Errorf("ack %s", mustJSON(r))
			}
		}},
		{modeHangOnShutdown, []string{"shutdown-clean"}, func(t *testing.T, p *Provider) {
			if _, out := call(t, p, &cgp.Envelope{Type: cgp.TypeShutdown}); out == outShutdown {
				t.Error("shut down")
			}
		}},
		{modeMisnamedRel, []string{"frame-validity", "budget-honesty", "verify-honesty", "as-of-temporal", "kinds-filter", "anchor-relevance", "provenance-fixture-consistency", "malformed-input-tolerance", "correlation", "attestation"}, func(t *testing.T, p *Provider) {
			r := p.query(probe())
			line, err := p.encode(r)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(line, []byte(`"rel":`)) || !bytes.Contains(line, []byte(`"type":"doc.documents"`)) {
				t.Errorf("the relations still carry rel: %s", line)
			}
			// A reader that fills in zero values sees a relation with rel "",
			// which no frame rule refuses: only the member check catches it.
			lenient, err := cgp.DecodeEnvelope(line)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range lenient.Result.Frames {
				if f.Relations[0].Rel != "" || len(cgp.ValidateFrame(&f)) > 0 {
					t.Errorf("%s read leniently: rel %q, violations %v", f.ID, f.Relations[0].Rel, cgp.ValidateFrame(&f))
				}
			}
			for id, v := range attestationVerdicts(t, lenient.Result) {
				if v.Kind != cgp.VerdictValid {
					t.Errorf("read leniently, the attestation of %s: %v", id, v)
				}
			}
			var fe *cgp.FrameError
			if _, err := cgp.DecodeReply(line); !errors.As(err, &fe) || fe.Index != 0 || !strings.Contains(err.Error(), "frame.relations[0] has no rel") {
				t.Errorf("DecodeReply: %v", err)
			}
			if honest, _ := cgp.Encode(r); bytes.Equal(honest, line) {
				t.Error("the honest encoding is the same")
			}
		}},
		// The held-out modes pass every live check (miniSuite's probe), and
		// break their rule only for inputs the probe never has.
		{modeCrashOnAstral, nil, func(t *testing.T, p *Provider) {
			for goal, crash := range map[string]bool{"retry 😀": true, "retry \U00010000": true, "retry \uffff é": false, "": false} {
				q := probe()
				q.Goal = goal
				if _, out := call(t, p, queryEnv(q)); (out == outCrash) != crash {
					t.Errorf("goal %q: outcome %d, crash %v", goal, out, crash)
				}
			}
		}},
		{modeKindsSingleOnly, nil, func(t *testing.T, p *Provider) {
			for _, tc := range []struct {
				kinds []string
				n     int
			}{{[]string{"snippet"}, 1}, {[]string{"snippet", "fact"}, 3}, {[]string{"doc", "snippet"}, 3}} {
				q := probe()
				q.Kinds = tc.kinds
				if n := len(mustFrames(t, p.query(q)).Frames); n != tc.n {
					t.Errorf("kinds %v: %d frames, want %d", tc.kinds, n, tc.n)
				}
			}
		}},
		{modeAsOfWholeSeconds, nil, func(t *testing.T, p *Provider) {
			for pin, want := range map[string][]string{
				"2026-02-01T00:00:00Z":   {"frm_getting_started", "frm_release_notes_2025"},
				"2026-02-01T00:00:00.5Z": {"frm_configuration", "frm_getting_started", "frm_release_notes_2025"},
			} {
				q := probe()
				q.AsOf = cgp.Str(pin)
				got := ids(mustFrames(t, p.query(q)).Frames)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("as_of %s: frames %v, want %v", pin, got, want)
				}
			}
		}},
		{modeMinOneFrame, nil, func(t *testing.T, p *Provider) {
			for _, tc := range []struct {
				frames, tokens uint32
				n              int
			}{{8, 4096, 3}, {8, 0, 1}, {8, 10, 1}, {0, 0, 0}} {
				q := probe()
				q.MaxFrames, q.MaxTokens = tc.frames, tc.tokens
				res := mustFrames(t, p.query(q))
				if len(res.Frames) != tc.n {
					t.Errorf("max_frames %d, max_tokens %d: %d frames, want %d", tc.frames, tc.tokens, len(res.Frames), tc.n)
				}
			}
		}},
		{modeOtherID, []string{"correlation"}, func(t *testing.T, p *Provider) {
			if r, _ := call(t, p, &cgp.Envelope{Type: cgp.TypeQuery, ID: cgp.Str("q1"), Query: probe()}); r.ID == nil || *r.ID != "q1-x" {
				t.Errorf("id %s", mustJSON(r.ID))
			}
		}},
	}
	tested := map[string]bool{}
	for _, c := range cases {
		tested[c.mode] = true
		t.Run(c.mode, func(t *testing.T) {
			p := newProvider(t, c.mode)
			c.check(t, p)
			failed := miniSuite(t, p)
			if c.mode == modeCrashOnQuery {
				for _, want := range []string{"frame-validity", "budget-honesty"} {
					if !slices.Contains(failed, want) {
						t.Errorf("%s passes", want)
					}
				}
				return
			}
			if !slices.Equal(failed, c.fails) {
				t.Errorf("fails %v, want only %v", failed, c.fails)
			}
		})
	}
	for _, m := range Modes {
		if !tested[m.Name] {
			t.Errorf("mode %s has no test", m.Name)
		}
		if !strings.Contains(m.Doc, "trips ") {
			t.Errorf("mode %s: doc %q names no check", m.Name, m.Doc)
		}
	}
	t.Run("honest", func(t *testing.T) {
		if failed := miniSuite(t, newProvider(t, "")); len(failed) > 0 {
			t.Errorf("the honest provider fails %v", failed)
		}
	})
}

func FuzzServeLine(f *testing.F) {
	for _, seed := range []string{
		`{"type":"handshake","protocol_version":"contextgraph/1.0"}`,
		`{"type":"query","id":"q","query":{"goal":"configure","query_text":"retry","kinds":["doc","x"],"anchors":["symbol:///docs/configuration.md#overview"],"max_frames":2,"max_tokens":100,"as_of":"2026-07-01T00:00:00Z"}}`,
		`{"type":"query","query":{"goal":"","embedding":[0.5,-1e30],"max_frames":4294967295,"max_tokens":4294967295}}`,
		`{"type":"verify","request":{"frames":[{"provider_id":"x","frame_id":"frm_configuration#copy3","content_digest":"sha256:00"},{"provider_id":"","frame_id":""}]}}`,
		`{"type":"shutdown"}`,
		`{"type":"nope","x":1}`,
		`this is not valid json {{{`,
		`{"type":1}`,
		`null`,
		"",
	} {
		f.Add([]byte(seed))
	}
	dir := docsDir(f)
	var providers []*Provider
	for _, m := range append([]string{""}, modeFloodFrames, modeLiftSignature, modeSwapContent, modeTruncateChain, modeAcceptBadEmbedding, modeIgnoreAsOf, modeMisnamedRel) {
		p, err := New(dir, m)
		if err != nil {
			f.Fatal(err)
		}
		providers = append(providers, p)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, p := range providers {
			reply, _ := p.serveLine(line, false)
			if reply != nil {
				if _, err := p.encode(reply); err != nil {
					t.Fatalf("mode %q: reply does not encode: %v", p.mode, err)
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := providers[0].ServeStdio(ctx, strings.NewReader(string(line)+"\n"), io.Discard)
		if err != nil && !errors.Is(err, ErrCrash) {
			t.Fatalf("ServeStdio: %v", err)
		}
	})
}
