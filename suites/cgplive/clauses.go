package cgplive

// The clauses the live checks rest on, each with its source: upstream's
// SPEC (contextgraph/1.0; its rule IDs and sections, as the research notes
// on the newer index give them) and contextgraph-conformance's README, which
// says what each of its first checks proves. Every check is a must except
// embedding-fingerprint, which E1 makes a should; attestation fails at
// should when only a strict verifier (a SHOULD of §6.5.4) refuses it.
const (
	clauseHandshake = `CGP SPEC H1–H3: the handshake_ack names a protocol_version of the host's major family (version-string = "contextgraph/" 1*DIGIT "." 1*DIGIT ["-draft"]; two versions interoperate iff the text before the first "." is the same, and a mismatch is raised at once, H3); ProviderInfo's name and version MUST be non-empty (H2). contextgraph-conformance README: handshake proves "the provider completes the handshake and reports a non-empty identity + capabilities"`

	clauseConsent = `CGP SPEC C5: every egress scope but local-only is off-machine, and an off-machine scope declared with egress false is inconsistent (DataFlow::scopes_consistent); the base scopes are local-only, org-tenant, third-party-index and third-party-model, and a custom scope is namespaced vendor:name, non-empty on both sides`

	clauseFrameValidity = `CGP SPEC §6 frame rules, each a MUST: F1 0 ≤ score ≤ 1; F2 a non-empty title; F3 citation_label "MUST be present and non-blank (whitespace-only fails)"; F4 timestamps YYYY-MM-DDTHH:MM:SS(.f+)?Z, UTC only; F5 a provenance link of type file carries a sha256 digest; F6 no attestation inside a frame; D1 digests are sha256:<64 lowercase hex>, content_digest the SHA-256 of the inline bytes; P1–P4 the representation invariants; G1, G2 a relation's display_name and target_uri non-blank; Q2 a validity window [valid_from, valid_to) that is not empty. The SPEC's preamble: "Wire shapes … are normative": a frame without a member its type requires is no ContextFrame. contextgraph-conformance README: frame-validity proves "every returned frame has a score in [0, 1], a non-empty title, and a non-empty citation_label (never a bare id)"`

	clauseVerify = `CGP SPEC V1–V4 (verify, for a provider declaring it): a served frame verifies valid while its content_digest is current and MUST verify stale once its digest has changed, with replacement_digest, when given, the current digest; verify carries identities only, no frame bodies either way; the host matches verdicts by full identity, a missing verdict counts as unknown, and only valid lets it keep the frame`

	clauseBudget = `CGP SPEC B1, B3, B4: sum(token_cost) ≤ max_tokens, a hard cap (B1); token_cost == ceil(utf8_byte_len(content)/4), "exact, no tolerance", 0 without content (B3); len(frames) ≤ max_frames (B4). contextgraph-conformance README: budget-honesty proves "returned frames' summed token_cost never exceeds the query's max_tokens"`

	clauseAsOf = `CGP SPEC Q2: as_of selects the frames whose validity window, the half-open [valid_from, valid_to), holds that instant, compared as instants (a timestamp is F4's, a strict subset of RFC 3339); it does not pin recorded_at`

	clauseKinds = `CGP SPEC Q1: a non-empty kinds list is a filter: no frame of another kind is returned (or the reply is the error unsupported_kind); an empty one means any kind`

	clauseAnchors = `CGP SPEC G3/G4: a provider declaring graph returns at least one frame anchored on a query anchor (its uri, or one of its relations' target_uri, is the anchor), and SHOULD rank it first; with max_frames 1 the one frame returned is the anchored one`

	clauseProvenance = `CGP SPEC §6.2 (F5, F17): a file provenance link's digest is the SHA-256 of "the exact UTF-8 bytes addressed by uri + range, with no normalization"; no range means the whole resource, and a range is read by §6.2.1's line-range grammar (F17), an unverifiable one never falling back to the whole file`

	clauseShutdown = `CGP SPEC R2 (the shutdown envelope, §2.1): the shutdown envelope has no reply, and on it a stdio provider exits with status 0 (the SDKs exit(0)); the reference host waits 2 s, then kills the process group. contextgraph-conformance README: shutdown-clean proves "the provider tears down without error"`

	clauseMalformed = `CGP SPEC R1, U1: a line that is not an envelope is answered with an error whose code is bad_request, or ignored, and the provider stays alive to serve the next request. contextgraph-conformance README: malformed-input-tolerance proves "a garbage line on the wire is ignored-or-errored, never crashes the provider (stdio providers only)"`

	clauseEmbedding = `CGP SPEC E1: the host sends query.embedding only when its fingerprint equals the provider's embeddings_fingerprint (<model-id>/<dimensions>[/<normalization>]); an embedding whose length contradicts the declared dimension SHOULD get bad_request`

	clauseCorrelation = `CGP SPEC H4: a provider declaring correlation MUST echo the request id verbatim on its frames and error replies, and pipelining is allowed, replies matched by id (without correlation the host MUST NOT send an id)`

	clauseAttestation = `CGP SPEC §6.5 (F6–F15): an attestation is an Ed25519 signature over the raw 32 bytes of a frame commitment, or of the RFC 6962 root over the commitments of exactly the frames carried (F12), under a key of handshake_ack.attester_keys; "What is not optional is the construction — an attestation that exists must be computed exactly this way", from the frame as served; frame_attestations name a frame by its full identity, never a position; §6.5.4: the commitment is compared before the signature, and implementations SHOULD use a strict Ed25519 verifier, rejecting small-order keys and non-canonical encodings (an attestation only a strict verifier refuses is a should failure)`
)
