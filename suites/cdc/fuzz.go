package cdc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/lazyregexp"
	"github.com/refereehq/referee/jsongen"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// The files a fuzzed corpus holds: upstream's vector files, in the 1.2
// layout, and nothing else (no schemas, no fixtures: a corpus of vectors
// only, whose checks are the canonical and narrowing behaviour checks).
const (
	canonicalFile = "conformance/canonical-vectors.json"
	narrowingFile = "conformance/narrowing-vectors.json"
)

// fuzzSpec generates values for canonicalise and manifest pairs for
// narrow; each becomes a vector of upstream's own files with the outcome
// the built-in reference gives it, judged by the check the suite makes of
// such a vector, at its level (a lone surrogate is a may, as in the 1.2
// layout).
var fuzzSpec = check.FuzzSpec{
	Targets: []check.FuzzTarget{
		{
			Name:     "canonical",
			Doc:      "values for canonicalise: numbers across ECMAScript's and Python's formatting boundaries and from bit patterns, -0, strings of every Unicode class with escapes and lone surrogates, member names from host-language built-ins and UTF-16 ordering traps, deep and wide nesting",
			Needs:    []string{OpCanonicalise},
			Input:    check.FuzzValue,
			Weight:   3,
			Generate: func(r *rand.Rand) []byte { return fuzzJSON.Value(r) },
			Vector:   canonicalVector,
		},
		{
			Name:     "narrow",
			Doc:      "declared and parent manifests for narrow, valid under schema set 1.2: tools, commands, paths and hosts drawn to meet at the containment rules (** and dir/**, globs, literals, sibling prefixes, * and *.domain wildcards either side), deny lists and approvals to unite, budgets either side of the parent's remaining, exhausted depth and fan_out, empty and blank purposes, unknown runtimes, tool_args",
			Needs:    []string{OpNarrow, OpCanonicalise},
			Input:    check.FuzzValue,
			Weight:   2,
			Generate: fuzzNarrowPair,
			Vector:   narrowVector,
		},
	},
	Files: fuzzFiles,
	Proof: check.FuzzProof{Elsewhere: "suites/cdc TestFuzzFindsEveryMode"},
}

// FuzzModes are the broken modes whose bugs the fuzz targets can show:
// those of canonicalise and narrow. The others are of ops not fuzzed
// (validate, roundTrip, hash, verify, rules), or are a choice the 1.2
// layout permits (reject-surrogates), or need a value JSON cannot hold
// (nonfinite-null: NaN and Infinity).
var FuzzModes = []string{
	"unsorted", "ascii-escape", "codepoint-order", "html-escape", "go-float",
	"float-repr", "float-exponent-16", "negative-zero",
	"narrow-no-clamp", "narrow-no-union", "narrow-passthrough", "narrow-wildcard-reversed", "narrow-path-prefix", "narrow-host-suffix",
}

var fuzzJSON = jsongen.JSON{Scalars: true, Space: true, MaxDepth: 128, Key: fuzzKey}

// fuzzOrderKeys are member names whose order differs by UTF-16 code unit,
// code point and byte (the upstream vector utf16-key-order's trap), with
// the ASCII order of upstream's member-order vector. They are lexemes.
var fuzzOrderKeys = []string{`"\uff21"`, `"\ud835\udc00"`, `"𝐀"`, `"Ａ"`, `"\ue000"`, `"a"`, `"Mike"`, `"_under"`, `"zulu"`}

// fuzzKey is a member name: often one of fuzzOrderKeys, else jsongen.Key's.
func fuzzKey(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return fuzzOrderKeys[r.IntN(len(fuzzOrderKeys))]
	}
	return jsongen.Key(r)
}

// fuzzWhy is the why of every fuzzed vector.
const fuzzWhy = "found by referee fuzz"

// canonicalVector is the canonical-vectors.json entry for a value: its
// canonical text as the reference writes it. A value the reference cannot
// canonicalise (a number beyond double range, a duplicate name) has no
// entry: the file holds outputs only.
func canonicalVector(name string, input []byte) (any, bool) {
	if !utf8.Valid(input) {
		return nil, false
	}
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	b, err := pc.Canonical(v)
	if err != nil {
		return nil, false
	}
	e := CanonVector{Name: name, Why: fuzzWhy, Value: compactRaw(input), Canonical: string(b), SHA256: sha256Hex(b)}
	return e, true
}

// narrowVector is the narrowing-vectors.json entry for a pair: the
// reference's grant or refusals. A pair whose manifests break schema set
// 1.2's rules for what narrowing reads has none: narrowing assumes
// validated manifests (SPEC §9, item 1).
func narrowVector(name string, input []byte) (any, bool) {
	pair, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || pair.Kind != canon.Object || len(pair.Members) != 2 {
		return nil, false
	}
	declared, ok1 := pair.Lookup("declared")
	parent, ok2 := pair.Lookup("parent")
	if !ok1 || !ok2 || !wellFormedManifest(declared) || !wellFormedManifest(parent) {
		return nil, false
	}
	e := fuzzNarrowEntry{Name: name, Why: fuzzWhy, Parent: json.RawMessage(parent.String()), Declared: json.RawMessage(declared.String())}
	granted, refusals := pc.Narrow(declared, parent)
	if len(refusals) > 0 {
		e.Refusals = refusals
	} else {
		e.Granted = json.RawMessage(granted.String())
	}
	return e, true
}

// fuzzNarrowEntry is a narrowing vector as the file holds it: exactly one
// of granted and refusals.
type fuzzNarrowEntry struct {
	Name     string          `json:"name"`
	Why      string          `json:"why"`
	Parent   json.RawMessage `json:"parent"`
	Declared json.RawMessage `json:"declared"`
	Granted  json.RawMessage `json:"granted,omitempty"`
	Refusals []string        `json:"refusals,omitempty"`
}

// fuzzFiles lays vectors out as upstream's two vector files, both present
// (so the corpus is read in the 1.2 layout) and each maybe empty.
func fuzzFiles(vectors []any) (map[string][]byte, error) {
	comment := []string{"Written by referee fuzz: each vector's expectation is the outcome referee's built-in reference gives it; the manifest's fuzz member says how it was found."}
	canonical := struct {
		Comment  []string      `json:"_comment"`
		Vectors  []CanonVector `json:"vectors"`
		MustFail []struct{}    `json:"must_fail"`
	}{Comment: comment, Vectors: []CanonVector{}, MustFail: []struct{}{}}
	narrowing := struct {
		Comment []string          `json:"_comment"`
		Vectors []fuzzNarrowEntry `json:"vectors"`
	}{Comment: comment, Vectors: []fuzzNarrowEntry{}}
	for _, v := range vectors {
		switch e := v.(type) {
		case CanonVector:
			canonical.Vectors = append(canonical.Vectors, e)
		case fuzzNarrowEntry:
			narrowing.Vectors = append(narrowing.Vectors, e)
		default:
			return nil, fmt.Errorf("%s: a fuzz vector of type %T (a bug in referee)", Name, v)
		}
	}
	files := map[string][]byte{}
	for name, doc := range map[string]any{canonicalFile: canonical, narrowingFile: narrowing} {
		b, err := corpus.MarshalJSON(doc)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// The vocabularies the narrowing generator draws from: entries that meet
// at every containment rule of §5.1 (and at the slips of the broken
// modes), each valid under schema set 1.2.
var (
	fuzzTools = []string{"cdf_write_artefact", "cdf_read_steering", "cdf_read_code_map", "github/create_issue", "mcp:search", "cdf.run"}
	fuzzPaths = []string{"**", "src/**", "src", "src/a.ts", "src/*.ts", "src/*", "src/lib/**", "src/lib/a.ts",
		"srcx/**", "src-old/a.ts", "docs/**", "docs/a.md", "lib/*.ts", "README.md", "test/unit/a.test.ts", "*.md", "./docs/**"}
	fuzzHosts = []string{"*", "*.example.com", "api.example.com", "example.com", "docs.example.com", "a.b.example.com",
		"*.api.example.com", "badexample.com", "127.0.0.1", "localhost", "*.anthropic.com", "api.anthropic.com"}
	fuzzCommands  = []string{"node", "git", "npm", "sudo", "docker", "claude", "python3"}
	fuzzDenyPaths = []string{".cdf/runtime/**", "~/.ssh/**", "secrets/**", "src/generated/**"}
	fuzzApprovals = []string{"phase.advance", "external.write", "deploy.prod"}
	fuzzKinds     = []string{"native", "delegated-cli", "plugin", "external"}
	fuzzRuntimes  = []string{"codex-cli", "claude-code", "gemini-code-assist", "github-copilot", "cdf-native", "unknown"}
	fuzzPurposes  = []string{"Implement task 2.1 within its file scope.", "Review the diff.", "   ", "\u3000"}
)

// fuzzNarrowPair returns {"declared": M, "parent": M}.
func fuzzNarrowPair(r *rand.Rand) []byte {
	parent := fuzzManifest(r, true)
	declared := fuzzManifest(r, false)
	return []byte(`{"declared":` + declared + `,"parent":` + parent + `}`)
}

// fuzzManifest returns a manifest's text; a parent's lists are fuller and
// its budget is what remains of it.
func fuzzManifest(r *rand.Rand, parent bool) string {
	pick := func(pool []string, most int) []string {
		n := r.IntN(most + 1)
		out := []string{}
		for range n {
			out = append(out, pool[r.IntN(len(pool))])
		}
		return out
	}
	list := func(xs []string) string { b, _ := json.Marshal(xs); return string(b) }
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	most := 3
	if parent {
		most = 5
	}
	tools := pick(fuzzTools, most)
	if parent && len(tools) == 0 && r.IntN(4) > 0 {
		tools = []string{fuzzTools[0]}
	}
	read := pick(fuzzPaths, most)
	// Meet at dir/**'s boundary often: a parent's src/** beside a child's
	// srcx/**, src-old/a.ts or src.
	if r.IntN(3) == 0 {
		if parent {
			read = append(read, "src/**")
		} else {
			read = append(read, pickOf(r, []string{"srcx/**", "src-old/a.ts", "src"}))
		}
	}
	var b strings.Builder
	b.WriteString(`{"schema_version":"1.0","agent":{"name":` + str(map[bool]string{true: "parent", false: "worker"}[parent]) +
		`,"kind":` + str(fuzzKinds[r.IntN(len(fuzzKinds))]) + `,"runtime_agent":` + str(fuzzRuntimes[r.IntN(len(fuzzRuntimes))]) + `}`)
	if !parent && r.IntN(6) == 0 {
		b.WriteString(`,"parent_lease_id":"0f9b7c1e-4a2d-4c6e-9b1f-2d3e4f5a6b7c"`)
	}
	purpose := fuzzPurposes[0]
	if r.IntN(8) == 0 {
		purpose = fuzzPurposes[r.IntN(len(fuzzPurposes))]
	}
	b.WriteString(`,"intent":{"purpose":` + str(purpose) + `}`)
	b.WriteString(`,"allow":{"tools":` + list(tools) + `,"read_paths":` + list(read) + `,"write_paths":` + list(pick(fuzzPaths, most)) +
		`,"hosts":` + list(pick(fuzzHosts, most)) + `,"commands":` + list(pick(fuzzCommands, most)))
	if !parent && r.IntN(6) == 0 {
		b.WriteString(`,"tool_args":{"cdf_write_artefact":{"type":"object","required":["artefact"]}}`)
	}
	b.WriteString(`}`)
	b.WriteString(`,"deny":{"commands":` + list(pick(fuzzCommands, 2)) + `,"paths":` + list(pick(fuzzDenyPaths, 2)) + `,"hosts":` + list(pick(fuzzHosts, 2)) + `}`)
	b.WriteString(`,"budget":{`)
	var fields []string
	for _, f := range []struct {
		name string
		max  int
	}{{"tokens", 1000000}, {"steps", 500}, {"wall_clock_ms", 3600000}, {"depth", 16}, {"fan_out", 256}} {
		if r.IntN(3) == 0 {
			continue
		}
		n := r.IntN(f.max + 1)
		switch r.IntN(4) {
		case 0:
			n = r.IntN(3) // 0 exhausts depth and fan_out
		case 1:
			n = r.IntN(10)
		}
		fields = append(fields, str(f.name)+":"+strconv.Itoa(n))
	}
	if r.IntN(3) == 0 {
		fields = append(fields, `"cost_usd":`+pickOf(r, []string{"0", "0.5", "2.5", "4.5", "10", "1e1", "2.50"}))
	}
	b.WriteString(strings.Join(fields, ","))
	b.WriteString(`},"approvals":` + list(pick(fuzzApprovals, 2)) + `}`)
	return b.String()
}

func pickOf(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// The schema set 1.2 patterns of the members narrowing reads.
var (
	fuzzVersionRe = lazyregexp.New(`^[0-9]+\.[0-9]+$`)
	fuzzToolRe    = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}$`)
	fuzzCommandRe = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$`)
	fuzzHostRe    = lazyregexp.New(`^(\*|(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$`)
	fuzzUUIDRe    = lazyregexp.New(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// wellFormedManifest reports whether m keeps schema set 1.2's rules for
// what narrowing reads: the required members and their types, each list
// entry's identity pattern, allow paths that do not escape (§4.4), deny
// paths that do not either (~ allowed), a purpose of 1 to 500 characters,
// budgets of non-negative numbers (integers but cost_usd; depth at most 16,
// fan_out at most 256). A shrunk input that breaks them is not a vector.
func wellFormedManifest(m canon.Value) bool {
	if m.Kind != canon.Object {
		return false
	}
	member := func(o canon.Value, k string, kind canon.Kind) (canon.Value, bool) {
		v, ok := o.Lookup(k)
		return v, ok && v.Kind == kind
	}
	strs := func(o canon.Value, k string, ok func(string) bool) bool {
		a, has := member(o, k, canon.Array)
		if !has {
			return false
		}
		for _, e := range a.Elems {
			if e.Kind != canon.String || !ok(e.Str) {
				return false
			}
		}
		return true
	}
	v, ok := member(m, "schema_version", canon.String)
	if !ok || !fuzzVersionRe.MatchString(v.Str) {
		return false
	}
	agent, ok := member(m, "agent", canon.Object)
	if !ok {
		return false
	}
	name, ok1 := member(agent, "name", canon.String)
	kind, ok2 := member(agent, "kind", canon.String)
	runtime, ok3 := member(agent, "runtime_agent", canon.String)
	if !ok1 || !ok2 || !ok3 || name.Str == "" || canon.CodePoints(name.Str) > 120 ||
		!slices.Contains(fuzzKinds, kind.Str) || !slices.Contains(fuzzRuntimes, runtime.Str) {
		return false
	}
	if p, has := m.Lookup("parent_lease_id"); has && (p.Kind != canon.String || !fuzzUUIDRe.MatchString(p.Str)) {
		return false
	}
	intent, ok := member(m, "intent", canon.Object)
	purpose, ok2 := member(intent, "purpose", canon.String)
	if !ok || !ok2 || purpose.Str == "" || canon.CodePoints(purpose.Str) > 500 {
		return false
	}
	allow, ok := member(m, "allow", canon.Object)
	allowPath := func(p string) bool { return p != "" && !pc.PathEscapes(p) }
	if !ok || !strs(allow, "tools", fuzzToolRe.MatchString) || !strs(allow, "read_paths", allowPath) || !strs(allow, "write_paths", allowPath) ||
		!strs(allow, "hosts", fuzzHostRe.MatchString) || !strs(allow, "commands", fuzzCommandRe.MatchString) {
		return false
	}
	if ta, has := allow.Lookup("tool_args"); has && ta.Kind != canon.Object {
		return false
	}
	deny, ok := member(m, "deny", canon.Object)
	denyPath := func(p string) bool {
		return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, `\`) && !slices.Contains(strings.Split(p, "/"), "..")
	}
	if !ok || !strs(deny, "commands", fuzzCommandRe.MatchString) || !strs(deny, "paths", denyPath) || !strs(deny, "hosts", fuzzHostRe.MatchString) {
		return false
	}
	budget, ok := member(m, "budget", canon.Object)
	if !ok {
		return false
	}
	for _, f := range budget.Members {
		if f.Value.Kind != canon.Number {
			return false
		}
		n, err := strconv.ParseFloat(f.Value.Num, 64)
		if err != nil || n < 0 || f.Key != "cost_usd" && (n != float64(int64(n)) || n > 9007199254740991) ||
			f.Key == "depth" && n > 16 || f.Key == "fan_out" && n > 256 {
			return false
		}
	}
	return strs(m, "approvals", fuzzToolRe.MatchString)
}
