package cgphost

// The clauses the host checks rest on, each with its source: upstream's
// SPEC.md (contextgraph/1.0; its rule IDs and sections), its companion
// docs/context-reuse.md (whose conformance tables use the same BCP 14 words)
// and docs/composing-frames-into-a-prompt.md, and SPEC §11.1, which names
// the host-binding rules upstream's host_conformance and
// composition_conformance harnesses assert. A rule §11.1 names as binding
// the host is a must; the composition rules that SPEC §11 makes a SHOULD
// (global budget, an audit explaining every drop) are should.
const (
	clauseVersion = `CGP SPEC §3 H3: "A version-family mismatch MUST be reported as a named error, never left to hang"; §3: "No query payload moves before this exchange completes"; §3.1: the major family is the text before the first "." and "Two versions interoperate if and only if they share a major family" (contextgraph/1.0-draft, 1.0 and 1.9 do; 2.0 and 10.0 do not). §11.1: the host-side harness asserts H3 "rejects a handshake_ack from a mismatched major family with a named VersionMismatch, never a hang … driving the handshake under an explicit timeout so a stall is a distinct failure" (upstream's bound: 5 s)`

	clauseBudgetDrop = `CGP SPEC §7 B2: "A host MUST drop, with a loud report, the frames of any provider violating B1 — never silently truncate them" (B1: the sum of token_cost across returned frames MUST NOT exceed max_tokens). §11.1: the host-side harness asserts B2 "drops an over-budget provider with a report"`

	clauseFrameLimit = `CGP SPEC §7 B4: "The number of returned frames MUST NOT exceed max_frames"; §11.1 names as host-binding that the host "B4 drops a frame-flooding one", with a report, as B2 drops an over-budget one`

	clauseConsent = `CGP SPEC §4 C1: "A host MUST NOT auto-enable a provider declaring egress: true. It MUST gate it behind explicit, named, revocable consent"; C2: "A host MUST NOT transmit a query payload to an egress provider before consent is recorded". §11.1: the host "C1/C2 never queries, nor transmits a payload to, an unconsented egress provider"`

	clauseScopes = `CGP SPEC §4 C6: "A host MUST refuse a query, with a typed error naming the scopes, when a provider declares off-machine egress scopes and any such scope has no recorded consent receipt; the payload MUST NOT be transmitted". §4.1: every scope but local-only is off-machine, an unrecognised custom scope included. docs/context-reuse.md §3: the typed error names "exactly the scopes that would leave unconsented", and "A budget-style boolean ConsentRecord does not satisfy a scope gate; only a receipt for that scope does"`

	clauseProvenance = `CGP SPEC §6.2 (F5): "Digested bytes: the exact UTF-8 source bytes addressed by uri + range at retrieval time, with no normalization … Provenance without a range digests the whole resource"; a line range is read by §6.2.1 (F17). §11.1: the host-side harness asserts "F5-bytes verifies a file-provenance digest against the re-read source over a trusted local fixture", and "verifies a host-trusted source, not any provider-named uri": the host re-reads only under the trusted roots it is given`

	clauseQuoting = `CGP SPEC §11 R3: "A host MUST treat frame content as untrusted data — delimited as quoted material, never executed as instructions"; §6: "Frame content is untrusted data. It is evidence, not instruction." §11.1: the reference "neutralizes a content-embedded <frame/</frame> token and escapes fence attributes, so content cannot terminate the block that quotes it or forge a sibling frame"; docs/composing-frames-into-a-prompt.md renders each frame as <frame …>content</frame>, the tokens matched in any letter case ("</FRAME> reads exactly as terminal as </frame>")`

	clauseCrash = `CGP SPEC §11.1: the host-side harness asserts "crash isolation — a provider that dies mid-query surfaces as ProviderCrashed and is excluded while a healthy provider fanned out concurrently beside it still returns its frames, so one leg's crash never poisons a query_all" (upstream's bound on the fan-out: 10 s; referee's, 5 s, under the adapter's --timeout)`

	clauseCredential = `CGP SPEC §4 C8: "A host MUST NOT log, or place in an error surfaced off-machine, any bearer token, credential, or authorization header used to reach a provider"; §4.2: a provider MAY require a bearer credential. Seen from outside: the host's reply and, for an adapter referee starts, its stderr; and, provider side, which credential each provider was sent`

	clauseBudgetBound = `CGP SPEC §11: "A host realizing R3 SHOULD follow the reference prompt-composition module (global-budget split, …, and an audit record explaining every drop)"; §11.1: "a set of individually conformant providers can still overflow a shared budget in aggregate: three providers each returning one honest 400-token frame against a 1000-token query are each within budget and jointly 200 over"; the composition harness checks "the cross-provider token bound (§7)" and that a drop is reported`

	clausePartition = `CGP SPEC §11 (SHOULD: "an audit record explaining every drop"); §11.1: the composition harness checks "the total partition — every offered frame is admitted or reported dropped, never silently truncated (issue #15)"; docs/composing-frames-into-a-prompt.md: the audit is "a total partition of the frames the host offered — every one appears exactly once"`

	clauseQuarantine = `CGP SPEC §7 B2 (the frames of a provider violating B1 are dropped) and §11.1: "the quarantine (§7 B2/B4) — a provider the audit rejected contributes nothing, checked with a frame flooder whose frames are individually cheap, so only having consulted the audit keeps them out"`

	clauseDeterminism = `CGP docs/context-reuse.md §1, D2: "A host composing a frame set MUST emit frames in canonical FrameId order, independent of arrival order", so "an unchanged frame set renders byte-identically across turns and across hosts"; SPEC §11.1: the composition harness checks "determinism — an unchanged frame set composes to the same render order, the prompt-cache guarantee"`

	clauseTLS = `CGP SPEC §4 C4: "A host's HTTP transport MUST treat every non-loopback provider as egress regardless of its handshake claim"; C7: "A host's HTTP transport MUST use TLS for every non-loopback provider, and MUST refuse to transmit a query payload to a non-loopback provider over an unencrypted connection". §11.1 lists "full live-TLS-peer conformance" among what "remains genuinely unchecked": it needs a non-loopback TLS peer`
)
