package cdc

// The supplement's cases, written by hand: suites/cdc/supplement/ is
// generated from them (TestSupplementIsGenerated; -update rewrites it).
// Every expectation is derived from the text each case cites, never from
// referee's implementation: the narrowing grants by the §5 table, the
// canonical texts by ECMA-262 Number::toString.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/golden"
)

// Texts the clauses quote.
const (
	// JSON Schema draft-07, the dialect of every schema of the contract.
	draft7Pattern = `JSON Schema draft-07, which every schema declares, reads a pattern as "a regular expression, according to the ECMA 262 regular expression dialect", and "A string instance is considered valid if the regular expression matches the instance successfully" (Validation §4.3, §6.3.3)`
	// SPEC §9 item 1 and §9's argument, the same in 1.0 and 1.2.
	spec91 = `SPEC §9, item 1: "Validate every manifest and lease against the published schemas, and refuse what does not validate."`

	specHosts    = "a scheme, a port, a path, whitespace, upper case, a trailing dot, a wildcard anywhere but the first label"
	specCommands = "a path separator, whitespace, a shell operator"
	specTools    = "an identifier of letters, digits, `_`, `.`, `:`, `/`, `-`, at most 128 characters"
	specMajor    = "Every schema in the set carries `schema_version` as `major.minor` (schema set 1.2)."
	specName     = "`agent.name` is a display label of at most 120 characters (schema set 1.2)"
	specSigLower = "`signature` itself. Signatures are lower-case hexadecimal."
	specNumbers  = "Finite numbers serialise in the shortest round-tripping form defined by ECMA-262 `Number::toString`."
	specAdditive = "Within a major version, changes are **additive only**: new optional fields **MAY** be added"
	specContain  = "Containment is deliberately conservative. An implementation **MUST** implement at least these cases and **MUST** treat anything else as not contained"
	specNoMore   = "A child **MUST NOT** hold any capability its parent lacks."
	// The §5.1 host sentence and §4.4's wildcard label (schema set 1.2).
	specHostsContain = "For hosts, `*` contains everything and `*.example.com` contains `api.example.com`, per §4.4."
	specHostLabel    = "optionally a single leading `*.` label"
	specExactName    = "tools and commands intersect by exact name"
)

// The schema patterns the cases rest on, as the schemas spell them.
const (
	patHex64     = `^[0-9a-f]{64}$`
	patGitSHA    = `^[0-9a-f]{7,40}$`
	patHost      = `^(\*|(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$`
	patCommand   = `^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$`
	patTool      = `^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}$`
	patMajor     = `^\d+\.\d+$`
	patStamp10   = `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`
	patStamp12   = `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`
	patRepo      = `^[^/\s]+/[^/\s]+$`
	patPath10    = `^(?!/)(?!\.\.(/|$))(?!.*/\.\.(/|$)).*$`
	newerWriter  = "a_field_from_a_newer_writer"
	manifestPath = "/definitions/allow/properties/"
)

// js renders v as JSON for a corpus member.
func js(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a bug in this file
	}
	return b
}

func rule(shape, at string, oneOf ...any) SchemaRule {
	r := SchemaRule{Shape: shape, At: at}
	for _, v := range oneOf {
		r.OneOf = append(r.OneOf, js(v))
	}
	return r
}

func openSchema(shape, at string) SchemaRule { return SchemaRule{Shape: shape, At: at, Open: true} }

func ptr[T any](v T) *T { return &v }

func set(at string, v any) Edit {
	if raw, ok := v.(json.RawMessage); ok {
		return Edit{At: at, Set: raw}
	}
	return Edit{At: at, Set: js(v)}
}

func appendTo(at, s string) Edit { return Edit{At: at, Append: &s} }

// refused is a validate case that must be rejected at at.
func refused(name, doc, clause, base string, req Requirements, edits ...Edit) SupplementCase {
	return SupplementCase{Name: name, Doc: doc, Level: check.Must, Clause: clause, Requires: req, Op: OpValidate,
		Base: base, Edits: edits, Valid: ptr(false), Path: ptr(edits[0].At)}
}

// refusedIn is refused, with the rejection expected at path: for a value
// inside a branch of an anyOf, the anyOf's own place, which every
// validator that reports the anyOf reports (Ajv reports the branches'
// errors too).
func refusedIn(path, name, doc, clause, base string, req Requirements, edits ...Edit) SupplementCase {
	c := refused(name, doc, clause, base, req, edits...)
	c.Path = ptr(path)
	return c
}

// accepted is a validate case that must be accepted.
func accepted(name, doc string, level check.Level, clause, base string, req Requirements, edits ...Edit) SupplementCase {
	return SupplementCase{Name: name, Doc: doc, Level: level, Clause: clause, Requires: req, Op: OpValidate,
		Base: base, Edits: edits, Valid: ptr(true)}
}

// unknownMember is the pair of cases that plant a newer writer's member in
// the object at at of base, nested two levels or deeper: it must validate,
// and survive a round trip.
func unknownMember(name, where, base, at string, open SchemaRule) []SupplementCase {
	clause := `SPEC §10: "Within a major version, changes are additive only: new optional fields MAY be added", and the schema leaves ` + where + ` open (no "additionalProperties": false), so a member a newer writer adds there is a record's, not an error: ` +
		`a reader "may ignore" it and must not refuse it (SPEC 1.2 §6.2), and its round trip keeps it ("An older reader must not silently strip a newer writer's data", the runner). Upstream plants such a member only at the top level and in the first nested object`
	req := Requirements{Schemas: []SchemaRule{open}, Spec: []string{specAdditive}}
	member := at + "/" + newerWriter
	return []SupplementCase{
		{Name: "unknown/" + name + "/tolerated", Doc: "a member a newer writer added to " + where + " is tolerated", Level: check.Must, Clause: clause,
			Requires: req, Op: OpValidate, Base: base, Edits: []Edit{set(member, "kept")}, Valid: ptr(true)},
		{Name: "unknown/" + name + "/kept", Doc: "a member a newer writer added to " + where + " survives a round trip", Level: check.Must, Clause: clause,
			Requires: req, Op: OpRoundTrip, Base: base, Edits: []Edit{set(member, "kept")}, Kept: member},
	}
}

// manifest is an agent-lease-manifest whose allow lists are given; the
// rest is the narrowing vectors' usual declaration or parent.
func manifest(parent bool, allow [5][]string) json.RawMessage {
	list := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	m := map[string]any{
		"schema_version": "1.0",
		"agent":          map[string]string{"name": "worker", "kind": "delegated-cli", "runtime_agent": "claude-code"},
		"intent":         map[string]string{"purpose": "Implement task 2.1 within its file scope."},
		"allow": map[string][]string{"tools": list(allow[0]), "read_paths": list(allow[1]), "write_paths": list(allow[2]),
			"hosts": list(allow[3]), "commands": list(allow[4])},
		"deny":      map[string][]string{"commands": {}, "paths": {}, "hosts": {}},
		"budget":    map[string]int{},
		"approvals": []string{},
	}
	if parent {
		m["agent"] = map[string]string{"name": "parent", "kind": "native", "runtime_agent": "cdf-native"}
		m["intent"] = map[string]string{"purpose": "The parent grant these cases narrow against."}
		m["deny"] = map[string][]string{"commands": {"sudo"}, "paths": {".cdf/runtime/**"}, "hosts": {}}
		m["budget"] = map[string]int{"tokens": 200000, "depth": 2, "fan_out": 4}
		m["approvals"] = []string{"phase.advance"}
	}
	return js(m)
}

// grant is what §5 makes of manifest(false, allow) under manifest(true, _):
// the declared allow lists as kept, deny and approvals the union (the
// declaration's are empty, so the parent's), the budget the parent's
// remaining (nothing declared) with depth one less.
func grant(allow [5][]string) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(manifest(false, allow), &m); err != nil {
		panic(err)
	}
	m["deny"] = map[string][]string{"commands": {"sudo"}, "paths": {".cdf/runtime/**"}, "hosts": {}}
	m["budget"] = map[string]int{"tokens": 200000, "depth": 1, "fan_out": 4}
	m["approvals"] = []string{"phase.advance"}
	return js(m)
}

// narrowing is a narrowing case: the declared allow lists narrowed under
// the parent's, and the allow lists §5 keeps.
func narrowing(name, doc, clause string, parent, declared, kept [5][]string) SupplementCase {
	return SupplementCase{Name: "narrowing/" + name, Doc: doc, Level: check.Must, Clause: clause,
		Requires: Requirements{Vectors: "narrowing", Spec: []string{specContain, specNoMore}}, Op: OpNarrow,
		Declared: manifest(false, declared), Parent: manifest(true, parent), Granted: grant(kept)}
}

// promote makes a case of a finding of referee fuzz: vector is its entry
// as the fuzz corpus holds it (DIR/conformance/narrowing-vectors.json or
// canonical-vectors.json), pasted as it stands; the case gets its own name
// and doc, the level and clause of the rule the finding breaks, and the
// SPEC sentences that clause quotes, which a corpus must hold for the case
// to apply (a narrowing case needs the corpus's narrowing step too). Its
// expectation is the reference's: check it against the clause first.
func promote(name, doc string, level check.Level, clause string, spec []string, vector string) SupplementCase {
	c := SupplementCase{Name: name, Doc: doc, Level: level, Clause: clause, Requires: Requirements{Spec: spec}}
	var v struct {
		NarrowVector
		Value     json.RawMessage `json:"value"`
		Canonical *string         `json:"canonical"`
	}
	if err := json.Unmarshal([]byte(vector), &v); err != nil {
		panic(fmt.Sprintf("promote %s: %v", name, err))
	}
	switch {
	case v.Declared != nil && v.Parent != nil:
		c.Op, c.Declared, c.Parent, c.Granted, c.Refusals = OpNarrow, v.Declared, v.Parent, v.Granted, v.Refusals
		c.Requires.Vectors = "narrowing"
	case v.Value != nil && v.Canonical != nil:
		c.Op, c.Value, c.Canonical = OpCanonicalise, v.Value, v.Canonical
	default:
		panic(fmt.Sprintf("promote %s: neither a narrowing nor a canonical vector", name))
	}
	return c
}

// tools are the allow.tools of every narrowing case: one tool kept, so
// that no case is refused (R2).
var tools = []string{"cdf_write_artefact"}

func supplementCases() []SupplementCase {
	stamp := rule("agent-lease", "/properties/issued_at/pattern", patStamp10, patStamp12)
	repo := rule("plugin-marketplace", "/definitions/sourceGithub/properties/repo/pattern", patRepo)
	repoAt := "/plugins/1/source/repo"
	repoClause := func(what string) string {
		return `plugin-marketplace schema: a GitHub source's repo has the pattern ^[^/\s]+/[^/\s]+$; ` + draft7Pattern + `, and ECMA-262's \s is every WhiteSpace and LineTerminator code point: ` + what + `. ` + spec91
	}
	const (
		lease       = "agent-lease.populated.json"
		decl        = "agent-lease-manifest.populated.json"
		market      = "plugin-marketplace.populated.json"
		dollarWhy   = `; in ECMA-262, $ without the m flag matches only at the end of the input, so a value with a final line feed does not match (Python's re lets $ match before it). `
		digitsWhy   = `; in ECMA-262, \d is the ten ASCII digits only (Python's re takes every Unicode decimal digit). `
		astral120   = "\U0001d400"
		containment = `SPEC §5.1: "Containment is deliberately conservative. An implementation MUST implement at least these cases and MUST treat anything else as not contained"; §5.1: "A child MUST NOT hold any capability its parent lacks."`
	)
	var cs []SupplementCase
	add := func(c ...SupplementCase) { cs = append(cs, c...) }

	// A final line feed, which Python's $ lets through.
	add(refused("patterns/declared-hash-trailing-newline", "a declared_hash with a final line feed is refused",
		`agent-lease schema: declared_hash has the pattern ^[0-9a-f]{64}$`+dollarWhy+spec91, lease,
		Requirements{Schemas: []SchemaRule{rule("agent-lease", "/properties/declared_hash/pattern", patHex64)}},
		appendTo("/declared_hash", "\n")))
	add(refusedIn("/plugins/1/source", "patterns/git-sha-trailing-newline", "a plugin's pinned git sha with a final line feed is refused",
		`plugin-marketplace schema: a GitHub source's sha has the pattern ^[0-9a-f]{7,40}$`+dollarWhy+spec91, market,
		Requirements{Schemas: []SchemaRule{rule("plugin-marketplace", "/definitions/sourceGithub/properties/sha/pattern", patGitSHA)}},
		appendTo("/plugins/1/source/sha", "\n")))
	add(refused("patterns/host-trailing-newline", "an allowed host with a final line feed is refused",
		`SPEC 1.2 §4.4: a host entry refuses "`+specHosts+`", and "Two conforming implementations MUST NOT disagree about what an entry names"; the schema's host pattern ends in $`+dollarWhy, decl,
		Requirements{Schemas: []SchemaRule{rule("agent-lease-manifest", manifestPath+"hosts/items/pattern", patHost)}, Spec: []string{specHosts}},
		appendTo("/allow/hosts/0", "\n")))
	add(refused("patterns/command-trailing-newline", "an allowed command with a final line feed is refused",
		`SPEC 1.2 §4.4: a command entry refuses "`+specCommands+`"; the schema's command pattern ends in $`+dollarWhy, decl,
		Requirements{Schemas: []SchemaRule{rule("agent-lease-manifest", manifestPath+"commands/items/pattern", patCommand)}, Spec: []string{specCommands}},
		appendTo("/allow/commands/0", "\n")))
	add(refused("patterns/tool-trailing-newline", "an allowed tool with a final line feed is refused",
		"SPEC 1.2 §4.4: a tool is \""+specTools+"\", white space refused; the schema's tool pattern ends in $"+dollarWhy, decl,
		Requirements{Schemas: []SchemaRule{rule("agent-lease-manifest", manifestPath+"tools/items/pattern", patTool)}, Spec: []string{specTools}},
		appendTo("/allow/tools/0", "\n")))
	add(refused("patterns/schema-version-trailing-newline", "a schema_version with a final line feed is refused",
		"SPEC 1.2 §6.2: \""+specMajor+"\"; the schema's pattern is ^\\d+\\.\\d+$"+dollarWhy, "cdi-signal.populated.json",
		Requirements{Schemas: []SchemaRule{rule("cdi-signal", "/properties/schema_version/pattern", patMajor)}, Spec: []string{specMajor}},
		appendTo("/schema_version", "\n")))
	add(refused("patterns/read-path-trailing-newline", "an allowed read path with a final line feed is refused",
		`agent-lease-manifest schema (set 1.0): a read path has the pattern `+patPath10+`; in ECMA-262 . matches no line terminator and $ without the m flag only the end of the input, so a path with a final line feed does not match (Python's re matches it). `+spec91, decl,
		Requirements{Schemas: []SchemaRule{rule("agent-lease-manifest", manifestPath+"read_paths/items/pattern", patPath10)}},
		appendTo("/allow/read_paths/0", "\n")))
	add(refused("patterns/read-path-line-separator", "an allowed read path with a line separator (U+2028) inside is refused",
		`agent-lease-manifest schema (set 1.0): a read path has the pattern `+patPath10+`; in ECMA-262 . matches no line terminator, and U+2028 LINE SEPARATOR is one (ECMA-262 §12.3), so .* cannot reach the end of a path that holds it (Python's re and Go's RE2 let . match it). `+spec91, decl,
		Requirements{Schemas: []SchemaRule{rule("agent-lease-manifest", manifestPath+"read_paths/items/pattern", patPath10)}},
		appendTo("/allow/read_paths/0", "\u2028x")))

	// Digits that are not ASCII, which Python's \d takes.
	add(refused("digits/issued-at-arabic-indic", "an issued_at with Arabic-Indic digits is refused",
		`agent-lease schema: issued_at has a pattern of \d`+digitsWhy+spec91, lease,
		Requirements{Schemas: []SchemaRule{stamp}}, set("/issued_at", "٢٠٢٦-09-15T10:00:00.000Z")))
	add(refused("digits/timestamp-fullwidth", "an audit event's timestamp with fullwidth digits is refused",
		`audit-event schema: timestamp has a pattern of \d`+digitsWhy+spec91, "audit-event.populated.json",
		Requirements{Schemas: []SchemaRule{rule("audit-event", "/properties/timestamp/pattern", patStamp10)}}, set("/timestamp", "2026-07-25T１０:00:00.000Z")))
	add(refused("digits/schema-version-arabic-indic", "a schema_version in Arabic-Indic digits is refused",
		"SPEC 1.2 §6.2: \""+specMajor+"\"; the schema's pattern is ^\\d+\\.\\d+$"+digitsWhy, decl,
		Requirements{Schemas: []SchemaRule{rule("agent-lease-manifest", "/properties/schema_version/pattern", patMajor)}, Spec: []string{specMajor}},
		set("/schema_version", "١.٠")))

	// White space beyond ASCII, which RE2's \s leaves out (and U+FEFF,
	// which Python's leaves out).
	add(refusedIn("/plugins/1/source", "space/github-repo-no-break-space", "a GitHub repo holding U+00A0 NO-BREAK SPACE is refused",
		repoClause("U+00A0 is a Zs space, so the repo does not match (RE2's \\s is only [\\t\\n\\f\\r ])"), market,
		Requirements{Schemas: []SchemaRule{repo}}, set(repoAt, "cognitive-delivery/cdf-data\u00a0checks")))
	add(refusedIn("/plugins/1/source", "space/github-repo-vertical-tab", "a GitHub repo holding a vertical tab is refused",
		repoClause("U+000B is <VT>, WhiteSpace, so the repo does not match (RE2's \\s leaves it out)"), market,
		Requirements{Schemas: []SchemaRule{repo}}, set(repoAt, "cognitive-delivery/cdf-data\u000bchecks")))
	add(refusedIn("/plugins/1/source", "space/github-repo-byte-order-mark", "a GitHub repo holding U+FEFF is refused",
		repoClause("U+FEFF is <ZWNBSP>, WhiteSpace, so the repo does not match (Python's \\s and RE2's leave it out)"), market,
		Requirements{Schemas: []SchemaRule{repo}}, set(repoAt, "cognitive-delivery/cdf-data\ufeffchecks")))
	add(accepted("space/github-repo-information-separator", "a GitHub repo holding U+001C is accepted: it is no ECMA-262 white space", check.Must,
		repoClause(`U+001C is neither, so the repo matches (Python's \s takes U+001C to U+001F, and refuses it). SPEC §9: "two implementations can both validate against the same schema and still disagree about what they refuse, which is the disagreement that matters"`), market,
		Requirements{Schemas: []SchemaRule{repo}}, set(repoAt, "cognitive-delivery/cdf-data\u001cchecks")))

	// Lengths in characters, not UTF-16 code units.
	lengthClause := `JSON Schema draft-07 Validation §6.3.1: "The length of a string instance is defined as the number of its characters as defined by RFC 7159", that is code points: a character beyond the BMP is one, not the two UTF-16 code units String.length counts. `
	add(accepted("length/agent-name-120-astral", "an agent.name of 120 characters beyond the BMP is accepted", check.Must,
		lengthClause+"SPEC 1.2 §4.2: \""+specName+"\"", decl,
		Requirements{Schemas: []SchemaRule{rule("agent-lease-manifest", "/definitions/agent/properties/name/maxLength", 120)}, Spec: []string{specName}},
		set("/agent/name", strings.Repeat(astral120, 120))))
	add(accepted("length/audit-summary-300-astral", "an audit event's summary of 300 characters beyond the BMP is accepted", check.Must,
		lengthClause+`audit-event schema (set 1.2): summary has "maxLength": 300. `+spec91, "audit-event.populated.json",
		Requirements{Schemas: []SchemaRule{rule("audit-event", "/properties/summary/maxLength", 300)}},
		set("/summary", strings.Repeat(astral120, 300))))

	// An exclusive bound reached (exclusive-inclusive, which referee fuzz
	// finds).
	add(refusedIn("/hooks/PreToolUse/0/hooks/0", "bounds/hook-timeout-zero", "a hook timeout of 0 is refused: its minimum is exclusive",
		`plugin-manifest schema: a hook handler's timeout has "exclusiveMinimum": 0; JSON Schema draft-07 Validation §6.2.5: with exclusiveMinimum, "the instance is valid only if it has a value strictly greater than (not equal to)" it. The timeout sits in a branch of the handler's anyOf, so the rejection is the anyOf's, at the handler. `+spec91,
		"plugin-manifest.inline-components.json",
		Requirements{Schemas: []SchemaRule{rule("plugin-manifest", "/definitions/hookHandler/anyOf/0/properties/timeout/exclusiveMinimum", 0)}},
		set("/hooks/PreToolUse/0/hooks/0/timeout", 0)))

	// An integer written with a fraction or an exponent.
	add(accepted("integers/budget-written-with-fraction", "budget integers written 200.0 and 4E5 are accepted", check.Should,
		`JSON Schema draft-07 Validation §6.1.1: "integer" "matches any number with a zero fractional part", so 200.0 and 4E5 are integers and the schema accepts them. A should, not a must: RFC 8259 §6 lets an implementation "set limits on the range and precision of numbers accepted", the contract's writers never spell an integer so (JSON.stringify writes 200), and a typed reader that refuses it fails closed`, decl,
		Requirements{Schemas: []SchemaRule{
			rule("agent-lease-manifest", "/definitions/budget/properties/steps/type", "integer"),
			rule("agent-lease-manifest", "/definitions/budget/properties/tokens/type", "integer"),
		}},
		set("/budget/steps", json.RawMessage("200.0")), set("/budget/tokens", json.RawMessage("4E5"))))

	// Unknown members two levels down, in several shapes.
	add(unknownMember("agent-lease.manifest.agent", "a lease's manifest.agent", lease, "/manifest/agent",
		openSchema("agent-lease", "/definitions/grantedManifest/properties/agent"))...)
	add(unknownMember("agent-lease-manifest.agent.model", "a manifest's agent.model", decl, "/agent/model",
		openSchema("agent-lease-manifest", "/definitions/agent/properties/model"))...)
	add(unknownMember("plugin-marketplace.plugins", "a marketplace's plugin entry", market, "/plugins/1",
		openSchema("plugin-marketplace", "/definitions/entry"))...)
	add(unknownMember("cdi-assessment.dimensions", "an assessment's dimension", "cdi-assessment.populated.json", "/dimensions/0",
		openSchema("cdi-assessment", "/properties/dimensions/items"))...)
	add(unknownMember("lease-record.lease.manifest.agent", "a lease record's lease.manifest.agent", "lease-record.populated.json", "/lease/manifest/agent",
		openSchema("lease-record", "/definitions/lease/properties/manifest/properties/agent"))...)

	// An upper-case signature.
	add(SupplementCase{Name: "signatures/upper-case-signature", Doc: "a lease whose signature is upper-cased does not verify", Level: check.Must,
		Clause:   `SPEC 1.2 §7: "signature MUST be computed over the canonical bytes of every field of the object except signature itself. Signatures are lower-case hexadecimal."; the schema's signature pattern is ^[0-9a-f]{64}$: a verifier that compares the bytes the hex decodes to accepts a signature in a form no conforming issuer writes`,
		Requires: Requirements{Vectors: "signatures", Spec: []string{specSigLower}, Schemas: []SchemaRule{rule("agent-lease", "/properties/signature/pattern", patHex64)}},
		Op:       OpVerify, Base: lease, Edits: []Edit{{At: "/signature", Upper: true}}, Verifies: ptr(false)})

	// Wildcards wider than the parent's grant, and the prefix slip.
	parentAllow := func(read, write, hosts []string) [5][]string {
		return [5][]string{{"cdf_write_artefact", "cdf_read_steering"}, read, write, hosts, {"node"}}
	}
	declAllow := func(read, write, hosts []string) [5][]string { return [5][]string{tools, read, write, hosts, nil} }
	add(narrowing("host-wildcard-under-literal", "a declared *.example.com under a parent granted api.example.com is dropped",
		containment+` A parent host contains itself (a literal) or, for *.example.com, api.example.com (§4.4, §5.1); nothing contains a wildcard but * and the identical wildcard.`,
		parentAllow([]string{"**"}, []string{"src/**"}, []string{"api.example.com"}),
		declAllow([]string{"src/**"}, []string{"src/**"}, []string{"*.example.com", "api.example.com"}),
		declAllow([]string{"src/**"}, []string{"src/**"}, []string{"api.example.com"})))
	add(narrowing("host-star-under-wildcard", "a declared * under a parent granted *.example.com is dropped",
		containment+` "*" contains everything and "*.example.com" contains "api.example.com" (§5.1): *.example.com does not contain *.`,
		parentAllow([]string{"**"}, []string{"src/**"}, []string{"*.example.com"}),
		declAllow([]string{"src/**"}, []string{"src/**"}, []string{"*", "docs.example.com"}),
		declAllow([]string{"src/**"}, []string{"src/**"}, []string{"docs.example.com"})))
	// Promoted from referee fuzz (seed 1, input 146, narrow-host-suffix):
	// the vector as DIR/conformance/narrowing-vectors.json holds it.
	add(promote("narrowing/host-wildcard-one-label", "a declared a.b.example.com under a parent granted *.example.com is dropped: the wildcard is one label", check.Must,
		containment+` §5.1: "For hosts, * contains everything and *.example.com contains api.example.com, per §4.4"; §4.4 allows "optionally a single leading *. label": the wildcard stands for one label, so *.example.com contains api.example.com but not a.b.example.com, which is "anything else" and not contained.`,
		[]string{specContain, specNoMore, specHostsContain, specHostLabel},
		`{"name":"fuzz-f2093dbdd941","why":"found by referee fuzz","parent":{"schema_version":"1.0","agent":{"name":"parent","kind":"external","runtime_agent":"claude-code"},"intent":{"purpose":"Implement task 2.1 within its file scope."},"allow":{"tools":["cdf_read_steering"],"read_paths":["src/**"],"write_paths":["lib/*.ts","src"],"hosts":["*.example.com","127.0.0.1"],"commands":["node","python3","claude"]},"deny":{"commands":[],"paths":["~/.ssh/**"],"hosts":[]},"budget":{"depth":5},"approvals":[]},"declared":{"schema_version":"1.0","agent":{"name":"worker","kind":"external","runtime_agent":"gemini-code-assist"},"intent":{"purpose":"Implement task 2.1 within its file scope."},"allow":{"tools":["cdf_read_steering"],"read_paths":[],"write_paths":[],"hosts":["a.b.example.com","127.0.0.1"],"commands":[]},"deny":{"commands":[],"paths":[],"hosts":[]},"budget":{},"approvals":[]},"granted":{"schema_version":"1.0","agent":{"name":"worker","kind":"external","runtime_agent":"gemini-code-assist"},"intent":{"purpose":"Implement task 2.1 within its file scope."},"allow":{"tools":["cdf_read_steering"],"read_paths":[],"write_paths":[],"hosts":["127.0.0.1"],"commands":[]},"deny":{"commands":[],"paths":["~/.ssh/**"],"hosts":[]},"budget":{"depth":4},"approvals":[]}}`))
	// A tool a granted one is a prefix of (narrow-tool-prefix, which
	// referee fuzz finds with its open list of tool names).
	toolPrefix := narrowing("tool-name-prefix", "a declared cdf_write_artefact_v2 under a parent granted cdf_write_artefact is dropped: tools intersect by exact name",
		containment+` SPEC 1.2 §5: allow.tools is the "Intersection with the parent's, by exact name"; "tools and commands intersect by exact name": a tool whose name begins with a granted tool's is another tool.`,
		parentAllow([]string{"**"}, []string{"src/**"}, nil),
		[5][]string{{"cdf_write_artefact_v2", "cdf_read_steering"}, {"src/**"}, {"src/**"}, nil, nil},
		[5][]string{{"cdf_read_steering"}, {"src/**"}, {"src/**"}, nil, nil})
	toolPrefix.Requires.Spec = append(toolPrefix.Requires.Spec, specExactName)
	add(toolPrefix)
	add(narrowing("path-glob-wider-than-parent-glob", "declared src/** and src/* under a parent granted src/*.ts are dropped",
		containment+` "any other glob" contains "only the identical glob" (§5.1): src/*.ts contains neither src/** nor src/*.`,
		parentAllow([]string{"**"}, []string{"src/*.ts"}, nil),
		declAllow([]string{"src/**"}, []string{"src/**", "src/*.ts", "src/*"}, nil),
		declAllow([]string{"src/**"}, []string{"src/*.ts"}, nil)))
	add(narrowing("path-star-star-under-dir", "a declared ** under a parent granted src/** is dropped",
		containment+` "dir/**" contains "anything whose leading segments are dir/" (§5.1), which ** is not.`,
		parentAllow([]string{"src/**"}, []string{"src/**"}, nil),
		declAllow([]string{"**", "src/lib/**"}, []string{"src/**"}, nil),
		declAllow([]string{"src/lib/**"}, []string{"src/**"}, nil)))
	add(narrowing("path-sibling-prefix", "declared srcx/** and src-old/a.ts under a parent granted src/** are dropped",
		containment+` "dir/**" contains "anything whose leading segments are dir/" (§5.1): srcx/** and src-old/a.ts begin with the text src but not with the segment src/.`,
		parentAllow([]string{"src/**"}, []string{"src/**"}, nil),
		declAllow([]string{"srcx/**", "src-old/a.ts", "src/a.ts", "src"}, []string{"src/**"}, nil),
		declAllow([]string{"src/a.ts", "src"}, []string{"src/**"}, nil)))

	// Numbers where Python's repr and ECMAScript part.
	numbersClause := `SPEC §7, rule 4: "` + specNumbers + `" ECMA-262 writes an integral value without a fraction, and -0 as 0 (1, 100, 0) and uses digits, not an exponent, from 1e-6 up to 1e21 (Number::toString, step 6 to 9); Python's repr writes 1.0 and -0.0 and switches to an exponent below 1e-4 and from 1e16, Go's strconv writes -0`
	add(SupplementCase{Name: "canonical/integral-floats", Doc: "numbers written 1.0, 1E2, -0.0 and 1.0e4 are canonical 1, 100, 0 and 10000", Level: check.Must,
		Clause: numbersClause, Requires: Requirements{Spec: []string{specNumbers}}, Op: OpCanonicalise,
		Value:     json.RawMessage(`{"one":1.0,"hundred":1E2,"neg_zero":-0.0,"ten_thousand":1.0e4}`),
		Canonical: ptr(`{"hundred":100,"neg_zero":0,"one":1,"ten_thousand":10000}`)})
	add(SupplementCase{Name: "canonical/exponent-boundaries", Doc: "numbers from 1e-6 up to 1e21 are written in digits: 1e16, 1E20, 0.00001, 0.000001, 1.5e-6", Level: check.Must,
		Clause: numbersClause, Requires: Requirements{Spec: []string{specNumbers}}, Op: OpCanonicalise,
		Value:     json.RawMessage(`{"e16":1e16,"e20":1E20,"e-5":0.00001,"e-6":0.000001,"e-6b":1.5e-6}`),
		Canonical: ptr(`{"e-5":0.00001,"e-6":0.000001,"e-6b":0.0000015,"e16":10000000000000000,"e20":100000000000000000000}`)})
	return cs
}

// TestPromote: a fuzz corpus's vector becomes a case of its op, with the
// name, doc, level, clause and SPEC sentences it is given, well formed.
func TestPromote(t *testing.T) {
	canon := promote("canonical/x", "d", check.Should, "c", []string{"s"},
		`{"name":"fuzz-0","why":"found by referee fuzz","value":{"b":1E2,"a":"\ud800"},"canonical":"{\"a\":\"\\ud800\",\"b\":100}","sha256":"00"}`)
	refused := promote("narrowing/x", "d", check.Must, "c", nil,
		`{"name":"fuzz-1","why":"found by referee fuzz","parent":{"p":1},"declared":{"d":1},"refusals":["R2"]}`)
	for _, tt := range []struct {
		c    SupplementCase
		op   string
		want string
	}{
		{canon, OpCanonicalise, `{"a":"\ud800","b":100}`},
		{refused, OpNarrow, "R2"},
	} {
		if err := tt.c.wellFormed(); err != nil {
			t.Errorf("%s: %v", tt.c.Name, err)
		}
		got := ""
		if tt.c.Canonical != nil {
			got = *tt.c.Canonical
		} else if len(tt.c.Refusals) == 1 {
			got = tt.c.Refusals[0]
		}
		if tt.c.Op != tt.op || got != tt.want {
			t.Errorf("%s: op %s, expectation %q; want %s, %q", tt.c.Name, tt.c.Op, got, tt.op, tt.want)
		}
	}
	if canon.Level != check.Should || canon.Requires.Spec[0] != "s" || canon.Requires.Vectors != "" || refused.Requires.Vectors != "narrowing" ||
		string(refused.Declared) != `{"d":1}` || refused.Granted != nil {
		t.Errorf("promoted: %+v\n%+v", canon, refused)
	}
}

// supplementDocument renders the cases as supplement.json.
func supplementDocument(t *testing.T) []byte {
	t.Helper()
	doc := supplementDoc{
		Format: SupplementFormat,
		About: []string{
			"referee's supplement to the Cognitive Delivery Contract's conformance corpus: cases for rules upstream's fixtures leave open, each derived from the SPEC or a schema and citing it (clause).",
			"A case applies to a corpus only when the corpus holds what it rests on: its base fixture under fixtures/valid/ (edited by its edits), the schema texts of requires.schemas at their JSON Pointers, the SPEC sentences of requires.spec, and the vectors of requires.vectors.",
			"Generated from suites/cdc/supplement_cases_test.go: go test ./suites/cdc -run TestSupplementIsGenerated -update",
		},
		Cases: supplementCases(),
	}
	b, err := corpus.MarshalJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSupplementIsGenerated requires the embedded supplement to be what
// the cases above render, manifest included; -update rewrites both.
func TestSupplementIsGenerated(t *testing.T) {
	doc := supplementDocument(t)
	golden.Check(t, "supplement/"+SupplementFile, doc)
	sum := sha256.Sum256(doc)
	m := &corpus.Manifest{Files: map[string]string{SupplementFile: "sha256:" + hex.EncodeToString(sum[:])}}
	golden.Check(t, "supplement/"+corpus.ManifestName, m.Encode())
	if !golden.Update() {
		if _, err := EmbeddedSupplement(); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Contains(doc, []byte("\r")) {
		t.Error("supplement.json holds a carriage return")
	}
}
