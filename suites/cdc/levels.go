package cdc

import (
	"encoding/json"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

// clauses are the sentences the checks of one layout rest on. The 1.0
// releases quote their own SPEC (schema set 1.0, SPEC-agent-lease-manifest.md
// at the package root) and runner; the 1.2 layout quotes
// spec/SPEC-agent-lease-manifest.md (schema set 1.2) and docs/implementing.md
// (the seed). Every clause is a must unless its check says otherwise.
type clauses struct {
	valid, invalid, path, tolerated, kept, canonical, nonFinite       string
	wellFormed, narrow, hash, verify, byRuleValid, rulesValid, byRule string
}

// The clauses of the 1.2 layout (schema set 1.2, SPEC §9 as amended by 1.1).
var clauses12 = clauses{
	valid:       `SPEC 1.2 §9, item 5: "Pass the published conformance corpus: accept every fixture under fixtures/valid/"`,
	invalid:     `SPEC 1.2 §9, item 5: "reject every fixture under fixtures/invalid/ ... Each invalid fixture carries a .reason file stating what the rejection is for and an .expect.json naming the instance path the rejection must be reported at"`,
	path:        `SPEC 1.2 §9, item 5: reject every fixture under fixtures/invalid/ "at the place its .expect.json names ... an implementation that rejects a fixture somewhere else has rejected it for the wrong reason, which is not conformance"`,
	tolerated:   `SPEC 1.2 §6.2: "A reader MUST compare the major only: within a major every change is additive, so a minor the reader has not met is a record with fields it may ignore, never one it may refuse"`,
	kept:        `docs/implementing.md, roundTrip: it returns "the value as a reader would re-emit it; both planted fields must survive" (the runner fails: "An older reader must not silently strip a newer writer's data.")`,
	canonical:   `SPEC 1.2 §9, item 4: "Produce canonical bytes per §7 ... pass every vector in conformance/canonical-vectors.json and conformance/jcs/ (§7.1)"; §7: canonical bytes are "the RFC 8785 (JSON Canonicalization Scheme) serialisation of the value"`,
	nonFinite:   `SPEC 1.2 §7, rule 4: "A number MUST be finite. A non-finite number MUST cause serialisation to fail rather than produce a placeholder."`,
	wellFormed:  `SPEC 1.2 §9, item 1: "Validate every manifest and lease against the published schemas, and refuse what does not validate."`,
	narrow:      `SPEC 1.2 §9, item 2: "Implement the narrowing algebra of §5 exactly, including refusal of an empty grant, and pass every vector in conformance/narrowing-vectors.json"; §9: "the reference implementation is the oracle and the file is the contract"`,
	hash:        `SPEC 1.2 §6: "declared_hash MUST be the SHA-256 of the canonical bytes of the manifest as declared"`,
	verify:      `SPEC 1.2 §9, item 4: pass conformance/signature-vectors.json by supplying hash and verify: "the fixtures verify under the published test key and stop verifying when one byte of the signature or of the granted manifest changes"`,
	byRuleValid: `SPEC 1.2 §9, item 7: "pass every fixture under fixtures/invalid-by-rule/ ...: each such fixture is schema-valid"`,
	rulesValid:  `SPEC 1.2 §9, item 7: "Apply the lease rules of §6 and §6.1 (L1, L2, and L3 when the journal is available)"; §6.1: a reader without the journal "cannot check it and MUST NOT claim to have"`,
	byRule:      `SPEC 1.2 §9, item 7: "each such fixture is schema-valid and MUST be refused at the rule its .expect.json names"`,
}

// The clauses of the 1.0 layout: the 1.0 releases' SPEC (schema set 1.0) and
// runner, which check steps 1 to 4 only.
var clauses10 = clauses{
	valid:     `SPEC 1.0 §9, item 5: "Pass the published conformance corpus: accept every fixture under fixtures/valid/"`,
	invalid:   `SPEC 1.0 §9, item 5: "reject every fixture under fixtures/invalid/, each of which carries a .reason file stating what the rejection is for"`,
	tolerated: `SPEC 1.0 §10: "Within a major version, changes are additive only: new optional fields MAY be added"; conformance/runner.mjs (1.0.2): "A valid fixture round-trips without losing unknown-but-valid fields. That is what lets a newer writer and an older reader coexist"`,
	kept:      `conformance/runner.mjs (1.0.2), assertion 3: "A valid fixture round-trips without losing unknown-but-valid fields" (it fails: "An older reader must not silently strip a newer writer's data.")`,
	canonical: `SPEC 1.0 §9, item 4: "Produce canonical bytes per §7 ... and pass every vector in conformance/canonical-vectors.json (§7.1)"; §7 defines the bytes: "An implementation MUST NOT escape a character this list does not name"`,
	nonFinite: `SPEC 1.0 §7, rule 4: "A number MUST be finite. A non-finite number MUST cause serialisation to fail rather than produce a placeholder."`,
}

// clausesOf returns the clauses of a layout.
func clausesOf(rel Release) *clauses {
	if rel == Release12 {
		return &clauses12
	}
	return &clauses10
}

// Where the layouts give an implementation a choice. Each is a may check:
// the outcome the vector shows and the other permitted one both pass, and
// the check records which was chosen; any other outcome fails.
const (
	// clauseLoneSurrogate: a canonical vector holding a lone surrogate, in
	// the 1.2 layout. The restatement and the vector escape it; RFC 8785,
	// which governs, refuses it; any RFC 8785 library may be used.
	clauseLoneSurrogate = `SPEC 1.2 §7: canonical bytes are "the RFC 8785 (JSON Canonicalization Scheme) serialisation of the value", an implementation "MAY use any RFC 8785 library for the second step", and "Where this restatement and RFC 8785 could be read to differ, RFC 8785 governs"; RFC 8785 §3.2.2.2 makes a lone surrogate an error, where the restatement (rule 3) and this vector escape it as \udxxx: the vector's bytes and a rejection both conform`
	// clauseToolArgs: a narrowing vector whose declaration carries
	// allow.tool_args and whose grant drops it.
	clauseToolArgs = `SPEC 1.2 §4.4: allow.tool_args "is a declaration and not a grant: an issuer MAY omit it from the granted manifest and MUST NOT treat it as granted authority ... The narrowing vector tool-args-dropped shows the reference issuer dropping it": the vector's grant, and the same grant with allow.tool_args exactly as declared, both conform`
)

// The choices the may checks record.
const (
	choseOmitted = "omitted" // allow.tool_args left out of the grant, as the vector does
	choseKept    = "kept"    // allow.tool_args kept in the grant as declared
)

// canonicalLevel is the level and clause of a canonical vector check: a
// may when the value holds a lone surrogate in the 1.2 layout, where RFC
// 8785 governs; a must otherwise.
func canonicalLevel(rel Release, value json.RawMessage, cl *clauses) (check.Level, string) {
	if rel == Release12 {
		if v, err := canon.Parse(value, canon.ReadOptions{}); err == nil && v.HoldsLoneSurrogate() {
			return check.May, clauseLoneSurrogate
		}
	}
	return check.Must, cl.canonical
}

// toolArgsKept returns the grant a vector's declaration would get if the
// issuer kept allow.tool_args as declared: the vector's granted manifest
// with the declared allow.tool_args added. ok is false unless the declared
// allow carries tool_args and the vector's grant has none.
func toolArgsKept(declared, granted json.RawMessage) (json.RawMessage, bool) {
	d, err := canon.Parse(declared, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	g, err := canon.Parse(granted, canon.ReadOptions{})
	if err != nil || g.Kind != canon.Object {
		return nil, false
	}
	dAllow, _ := d.Lookup("allow")
	args, ok := dAllow.Lookup("tool_args")
	if !ok || dAllow.Kind != canon.Object {
		return nil, false
	}
	for i, m := range g.Members {
		if m.Key != "allow" || m.Value.Kind != canon.Object {
			continue
		}
		if _, has := m.Value.Lookup("tool_args"); has {
			return nil, false
		}
		allow := m.Value
		allow.Members = append(append([]canon.Member{}, allow.Members...), canon.Member{Key: "tool_args", Value: args})
		g.Members = append([]canon.Member{}, g.Members...)
		g.Members[i].Value = allow
		return json.RawMessage(g.String()), true
	}
	return nil, false
}
