// Package provider is referee's reference Context Graph Protocol provider: it
// serves a folder of documents on disk as context frames, over NDJSON on
// stdio or over HTTP, honestly or in one of the deliberate misbehaviour
// Modes that the cgp conformance suite must catch.
package provider

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/protocols/cgp"
)

// Name is the provider name in the handshake ack and the provider_id of its attestations.
const Name = "referee-docs"

// Version is the provider's version string in the handshake ack.
const Version = "0.1.0"

// TestKeySeed is the published Ed25519 test seed (32 bytes) the provider signs attestations with.
const TestKeySeed = "referee-cgp-provider-test-key-01"

// KeyID is the key_id of the TestKeySeed key in attester_keys and attestations.
const KeyID = "referee-docs-test-01"

// ErrCrash is what ServeStdio returns when a crash mode fires; the CLI exits 1 at once.
var ErrCrash = errors.New("referee-docs provider: crashed on purpose (misbehaviour mode)")

// Mode is a deliberate misbehaviour; Doc names the check it trips.
type Mode struct{ Name, Doc string }

// The mode names.
const (
	modeLyingCosts          = "lying-costs"
	modeBadScore            = "bad-score"
	modeEmptyCitation       = "empty-citation"
	modeBadVersion          = "bad-version"
	modeCrashOnQuery        = "crash-on-query"
	modeCrashOnGarbage      = "crash-on-garbage"
	modeMislabelMalformed   = "mislabel-malformed"
	modeUnderReportCost     = "under-report-cost"
	modeBadTimestamp        = "bad-timestamp"
	modeMalformedDigest     = "malformed-digest"
	modeStaleDigest         = "stale-digest"
	modeFloodFrames         = "flood-frames"
	modeDropCorrelationID   = "drop-correlation-id"
	modeLyingRepresentation = "lying-representation"
	modeIgnoreAsOf          = "ignore-as-of"
	modeIgnoreValidTo       = "ignore-valid-to"
	modeAcceptBadEmbedding  = "accept-bad-embedding"
	modeRubberStampVerify   = "rubber-stamp-verify"
	modeHollowVerify        = "hollow-verify"
	modeScopeLie            = "scope-lie"
	modeIgnoreKinds         = "ignore-kinds"
	modeIgnoreAnchors       = "ignore-anchors"
	modeForgeSignature      = "forge-signature"
	modeLiftSignature       = "lift-signature"
	modeTruncateChain       = "truncate-chain"
	modeSwapContent         = "swap-content"
	modeMalformedAttest     = "malformed-attestation"
	modeBanner              = "banner"
	modeHangOnShutdown      = "hang-on-shutdown"
	modeOtherID             = "other-id"
	modeMisnamedRel         = "misnamed-rel"
	modeCrashOnAstral       = "crash-on-astral-goal"
	modeKindsSingleOnly     = "kinds-single-only"
	modeAsOfWholeSeconds    = "as-of-whole-seconds"
	modeMinOneFrame         = "min-one-frame"
)

// Modes lists every misbehaviour mode, in a stable order.
var Modes = []Mode{
	{modeLyingCosts, "token_cost 1 on every frame (trips budget-honesty §B3)"},
	{modeBadScore, "first frame score 1.5 (trips frame-validity §F1)"},
	{modeEmptyCitation, `first frame citation_label "  \u00a0", blank (trips frame-validity §F3)`},
	{modeBadVersion, `acks "contextgraph/2.0" (trips handshake §H3)`},
	{modeCrashOnQuery, "exits 1 on the first query without answering; 500 over HTTP (trips frame-validity and budget-honesty)"},
	{modeCrashOnGarbage, "exits 1 on a line that is not an envelope (stdio only; trips malformed-input-tolerance §R1)"},
	{modeMislabelMalformed, `answers a line that is not an envelope with code "internal", not "bad_request" (stdio only; trips malformed-input-tolerance §R1)`},
	{modeUnderReportCost, "first frame token_cost one less than its canonical count (trips budget-honesty §B3)"},
	{modeBadTimestamp, `first frame recorded_at "2026-07-20 18:00:00", not RFC 3339 UTC (trips frame-validity §F4)`},
	{modeMalformedDigest, "first frame's file provenance digest in uppercase hex (trips frame-validity §F5)"},
	{modeStaleDigest, "first frame's file provenance digest a well-formed SHA-256 of other bytes (trips provenance-fixture-consistency §6.2)"},
	{modeFloodFrames, `ignores max_frames: max_frames+4 frames, the extra ones copies with ids suffixed "#copyN" (trips budget-honesty §B4)`},
	{modeDropCorrelationID, "never echoes a request's id (stdio only; trips correlation §H4)"},
	{modeLyingRepresentation, `first frame says representation "compact" with no transform, content_ref or canonical_content_hash (trips frame-validity §P2)`},
	{modeIgnoreAsOf, "ignores as_of (trips as-of-temporal §Q2)"},
	{modeIgnoreValidTo, "honours valid_from but not valid_to, so expired frames are served (trips as-of-temporal §Q2)"},
	{modeAcceptBadEmbedding, "answers frames to an embedding of the wrong length (stdio only; trips embedding-fingerprint §E1)"},
	{modeRubberStampVerify, "verifies every frame valid, mutated digests too (trips verify-honesty §V2)"},
	{modeHollowVerify, "verifies every frame unknown (trips verify-honesty §V1)"},
	{modeScopeLie, `declares egress_scopes ["third-party-model"] with egress false (trips consent-scope §C5)`},
	{modeIgnoreKinds, "ignores kinds, serving frames of every kind (trips kinds-filter §Q1)"},
	{modeIgnoreAnchors, "gives anchored frames no boost (trips anchor-relevance §G4)"},
	{modeForgeSignature, "frame attestations' signatures have one byte flipped, commitments intact (trips attestation: BadSignature)"},
	{modeLiftSignature, "frm_configuration's attestation carries another frame's signed commitment and signature (trips attestation: CommitmentMismatch)"},
	{modeTruncateChain, "frames served without their derivation link, attested over the full chain (trips attestation: CommitmentMismatch)"},
	{modeSwapContent, "the first file's frame has other content than was signed, its digest, cost and verify verdicts honest for the new text (trips attestation: CommitmentMismatch)"},
	{modeMalformedAttest, `first frame's signed_commitment "sha256:not-a-digest", the frame still served (trips attestation: MalformedCommitment, §F9)`},
	{modeBanner, `prints "referee-docs provider starting" on stdout before the ack (stdio only; trips handshake: stdout is protocol only)`},
	{modeHangOnShutdown, "ignores shutdown and, once stdin closes, never exits (stdio only; trips shutdown-clean §R2)"},
	{modeOtherID, `echoes a different id than it was sent, id+"-x" (stdio only; trips correlation §H4)`},
	{modeMisnamedRel, `writes every relation's rel as "type", the name provenance links use: a required member missing, which a reader that fills in zero values takes for rel "" (trips every check that reads frames: the reference host refuses the reply, a shape failure)`},
	// Held out: each passes all fourteen live checks, whose probe has an
	// ASCII goal, one kind, whole-second pins and a 4096-token budget; only
	// the sessions of referee fuzz cgp reach them.
	{modeCrashOnAstral, "exits 1 on a query whose goal holds a character beyond the BMP; 500 over HTTP (trips no live check, whose goals are ASCII: referee fuzz cgp's no-crash finds it)"},
	{modeKindsSingleOnly, "honours kinds only when it names one kind: a list of two or more is ignored, every kind served (trips no live check, whose filter names one kind: referee fuzz cgp's kinds-filter §Q1 finds it)"},
	{modeAsOfWholeSeconds, "honours as_of only in whole seconds: a pin with a fraction (…T00:00:00.5Z) is ignored, every frame served (trips no live check, whose pins are whole seconds: referee fuzz cgp's as-of-temporal §Q2 finds it)"},
	{modeMinOneFrame, "always serves its best frame: under a max_tokens smaller than that frame's cost it is served anyway (trips no live check, whose budget is 4096: referee fuzz cgp's budget-honesty §B1 finds it)"},
}

// HeldOut reports whether a mode passes every live check by construction:
// only fuzzed sessions (referee fuzz cgp) can find it.
func HeldOut(mode string) bool {
	switch mode {
	case modeCrashOnAstral, modeKindsSingleOnly, modeAsOfWholeSeconds, modeMinOneFrame:
		return true
	}
	return false
}

// StdioOnly reports whether a mode breaks a rule only the stdio checks test:
// its check runs only on a fresh stdio connection, and over HTTP it would
// change no verdict.
func StdioOnly(mode string) bool {
	switch mode {
	case modeCrashOnGarbage, modeMislabelMalformed, modeDropCorrelationID,
		modeAcceptBadEmbedding, modeBanner, modeHangOnShutdown, modeOtherID:
		return true
	}
	return false
}

// Provider serves one docs folder; it is safe for concurrent use.
type Provider struct {
	dir    string
	mode   string
	kinds  []string
	key    ed25519.PrivateKey
	public string
}

// New returns the provider of docs folder dir in mode ("" for honest), reading every file once to check it.
func New(dir string, mode string) (*Provider, error) {
	if mode != "" {
		if err := knownMode(mode); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("docs folder %s: %w", dir, err)
	}
	c, err := loadCorpus(abs)
	if err != nil {
		return nil, err
	}
	kinds := []string{"doc", "snippet"}
	var extra []string
	for _, d := range c.docs {
		if !slices.Contains(kinds, d.frame.Kind) && !slices.Contains(extra, d.frame.Kind) {
			extra = append(extra, d.frame.Kind)
		}
	}
	slices.Sort(extra)
	key := ed25519.NewKeyFromSeed([]byte(TestKeySeed))
	return &Provider{
		dir:    abs,
		mode:   mode,
		kinds:  append(kinds, extra...),
		key:    key,
		public: hex.EncodeToString(key.Public().(ed25519.PublicKey)),
	}, nil
}

// knownMode says why mode is not one of Modes, or nil.
func knownMode(mode string) error {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		if names[i] = m.Name; m.Name == mode {
			return nil
		}
	}
	return fmt.Errorf("cgp provider: no broken mode %q (modes: %s)", mode, strings.Join(names, ", "))
}

// PublicKeyHex is the lowercase hex Ed25519 public key of TestKeySeed, as attester_keys publishes it.
func PublicKeyHex() string {
	return hex.EncodeToString(ed25519.NewKeyFromSeed([]byte(TestKeySeed)).Public().(ed25519.PublicKey))
}

// Dir is the absolute path of the docs folder the provider serves.
func (p *Provider) Dir() string { return p.dir }

// outcome is what a binding does after handling one message.
type outcome int

const (
	outReply    outcome = iota // send the reply, if there is one
	outShutdown                // the host asked to shut down
	outCrash                   // a crash mode fired
)

// Messages of the error replies a binding's tests pin.
const (
	msgBadLine = "line was not a valid CGP envelope"
	msgBadBody = "request body was not a valid CGP envelope"
)

// errorReply is an error envelope.
func errorReply(code, message string) *cgp.Envelope {
	return &cgp.Envelope{Type: cgp.TypeError, Code: cgp.Str(code), Message: cgp.Str(message)}
}

// garbage answers input that is not an envelope, with message msg.
func (p *Provider) garbage(msg string) (*cgp.Envelope, outcome) {
	switch p.mode {
	case modeCrashOnGarbage:
		return nil, outCrash
	case modeMislabelMalformed:
		return errorReply(cgp.CodeInternal, msg), outReply
	}
	return errorReply(cgp.CodeBadRequest, msg), outReply
}

// handle decodes one line or body and answers it; badMsg is the message for
// input that is not an envelope.
func (p *Provider) handle(data []byte, badMsg string) (*cgp.Envelope, outcome) {
	env, err := cgp.DecodeEnvelope(data)
	if err != nil {
		reply, out := p.garbage(badMsg)
		if reply != nil {
			reply.ID = p.echo(cgp.RequestID(data))
		}
		return reply, out
	}
	reply, out := p.dispatch(env, data)
	if reply != nil {
		reply.ID = p.echo(env.ID)
	}
	return reply, out
}

// echo is the id a reply carries for a request's id.
func (p *Provider) echo(id *string) *string {
	switch {
	case id == nil || p.mode == modeDropCorrelationID:
		return nil
	case p.mode == modeOtherID:
		return cgp.Str(*id + "-x")
	}
	return cgp.Str(*id)
}

// dispatch answers one decoded envelope.
func (p *Provider) dispatch(env *cgp.Envelope, raw []byte) (*cgp.Envelope, outcome) {
	switch env.Type {
	case cgp.TypeHandshake:
		return p.handshake(env), outReply
	case cgp.TypeQuery:
		if p.mode == modeCrashOnQuery || (p.mode == modeCrashOnAstral && env.Query != nil && astral(env.Query.Goal)) {
			return nil, outCrash
		}
		return p.query(env.Query), outReply
	case cgp.TypeVerify:
		return p.verify(env.Request), outReply
	case cgp.TypeShutdown:
		if p.mode == modeHangOnShutdown {
			return nil, outReply
		}
		return nil, outShutdown
	}
	// Not a request a provider serves: a bare notification is ignored, a
	// payload-bearing one is refused (U1).
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) == nil && len(members) <= 1 {
		return nil, outReply
	}
	return errorReply(cgp.CodeBadRequest, fmt.Sprintf("this provider does not serve %q envelopes", env.Type)), outReply
}

// astral reports whether s holds a character beyond the Basic Multilingual
// Plane (one a UTF-16 reader holds as a surrogate pair).
func astral(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r > 0xffff })
}

// handshake answers a handshake: an ack, or incompatible_version.
func (p *Provider) handshake(env *cgp.Envelope) *cgp.Envelope {
	if !cgp.Compatible(env.ProtocolVersion, cgp.ProtocolVersion) {
		return errorReply(cgp.CodeIncompatibleVersion, fmt.Sprintf("protocol version %q is not in the %s family this provider speaks", env.ProtocolVersion, cgp.VersionFamily(cgp.ProtocolVersion)))
	}
	version := cgp.ProtocolVersion
	if p.mode == modeBadVersion {
		version = "contextgraph/2.0"
	}
	scopes := []string{"local-only"}
	if p.mode == modeScopeLie {
		scopes = []string{"third-party-model"}
	}
	return &cgp.Envelope{
		Type:            cgp.TypeHandshakeAck,
		ProtocolVersion: version,
		Provider: &cgp.ProviderInfo{
			Name:     Name,
			Version:  Version,
			DataFlow: cgp.DataFlow{Reads: true, Writes: false, Egress: false, EgressScopes: scopes},
		},
		Capabilities: &cgp.Capabilities{
			Query:                 cgp.QueryCapability{Kinds: slices.Clone(p.kinds)},
			Correlation:           true,
			Graph:                 true,
			EmbeddingsFingerprint: cgp.Str(Fingerprint),
			Verify:                true,
		},
		AttesterKeys: []cgp.AttesterKey{{KeyID: KeyID, Algorithm: "ed25519", PublicKey: p.public}},
	}
}

// encode writes a reply as it goes on the wire: one line of JSON, without
// the newline. In misnamed-rel a frames reply's relations carry their rel
// as "type".
func (p *Provider) encode(reply *cgp.Envelope) ([]byte, error) {
	b, err := cgp.Encode(reply)
	if err != nil || p.mode != modeMisnamedRel || reply.Type != cgp.TypeFrames {
		return b, err
	}
	v, err := canon.Parse(b, canon.ReadOptions{MaxDepth: 128, MaxValues: cgp.MaxEnvelopeValues})
	if err != nil {
		return nil, fmt.Errorf("misnamed-rel: rereading the frames reply: %w", err)
	}
	result := member(&v, "result")
	frames := member(result, "frames")
	if frames == nil {
		return b, nil
	}
	for i := range frames.Elems {
		rels := member(&frames.Elems[i], "relations")
		if rels == nil {
			continue
		}
		for j := range rels.Elems {
			for k := range rels.Elems[j].Members {
				if m := &rels.Elems[j].Members[k]; m.Key == "rel" {
					m.Key = "type"
				}
			}
		}
	}
	return []byte(v.String()), nil
}

// member is the value of v's member name, in place, or nil.
func member(v *canon.Value, name string) *canon.Value {
	if v == nil {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == name {
			return &v.Members[i].Value
		}
	}
	return nil
}
