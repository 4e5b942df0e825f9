package cdc

// Lease-manifest narrowing, SPEC-agent-lease-manifest §5, §5.1 and §5.2,
// implemented from the specification text and the published narrowing
// vectors (conformance/narrowing-vectors.json). Where the vectors say more
// than the text, or something else, the comment at the rule says so; the
// vectors were generated from the reference issuer and are the contract
// (SPEC §9).

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
)

// Narrow narrows a declared agent-lease manifest against a parent's granted
// manifest (with its remaining budget), as SPEC §5 defines: the grant, or
// every applicable refusal code (R1–R6), sorted and deduplicated.
//
// parent is the parent lease's granted manifest with its budget already
// reduced to what remains (live children subtracted from fan_out); for a
// manifest with no parent it is the deployment's root policy (§5.1), never
// nothing. A parent that is not an object, or lacks a list, grants nothing
// from that list, so narrowing fails closed (an absent parent allow.tools
// gives R2).
//
// Narrow assumes both manifests have passed schema validation (§9 step 1)
// and never fails on one that has not: a missing or ill-typed member is
// read as absent or empty. It re-checks the two conditions the schema also
// enforces (R1's absent purpose, R3's escaping paths), because §5.2 asks
// the issuer to refuse them whether or not a validator ran.
//
// When refusals is non-empty, granted is the zero Value and refusals holds
// every applicable code, not only the first (vector R1-and-R2-both-reported).
// When the manifest is granted, refusals is nil.
//
// The grant holds, in this member order (which canonical bytes ignore):
// schema_version, agent, parent_lease_id, intent, allow, deny, budget,
// approvals and attestation, each taken as §5 says. Members of the
// declaration with no narrowing rule are not carried into the grant: a grant
// is produced by the algebra and "by no other means" (§5), and a member no
// rule covers is authority nobody narrowed. The vector tool-args-dropped
// shows the reference doing exactly this for allow.tool_args.
func Narrow(declared, parent canon.Value) (granted canon.Value, refusals []string) {
	var codes []string

	// R1: intent.purpose absent or empty. The vectors (R1-empty-purpose,
	// R1-and-R2-both-reported) count a purpose of only white space as
	// empty, which the SPEC text ("absent or empty") does not say; it is
	// trimmed here with ECMAScript's String.prototype.trim white-space set,
	// the reference being a TypeScript implementation.
	intent, _ := narrowMember(declared, "intent")
	purpose, ok := narrowMember(intent, "purpose")
	if !ok || purpose.Kind != canon.String || strings.TrimFunc(purpose.Str, narrowIsESSpace) == "" {
		codes = append(codes, "R1")
	}

	dAllow, _ := narrowMember(declared, "allow")
	pAllow, _ := narrowMember(parent, "allow")

	// R3: a declared allow path that escapes the workspace refuses the whole
	// manifest; it is never dropped from it. Only allow paths are checked:
	// a deny path may be home-relative (§4.4).
	for _, list := range []string{"read_paths", "write_paths"} {
		for _, p := range narrowStrings(dAllow, list) {
			if PathEscapes(p) {
				codes = append(codes, "R3")
			}
		}
	}

	// R4: runtime_agent "unknown" for an agent the issuer runs itself.
	agent, _ := narrowMember(declared, "agent")
	kind, _ := narrowString(agent, "kind")
	runtime, _ := narrowString(agent, "runtime_agent")
	if runtime == "unknown" && (kind == "native" || kind == "delegated-cli") {
		codes = append(codes, "R4")
	}

	// R5 and R6: a parent with no generation left beneath it, or no free
	// child slot. The SPEC says "already zero"; the schema makes both
	// non-negative integers, so "less than one" is the same test there and
	// also refuses a fractional remainder that could not seat a child.
	pBudget, _ := narrowMember(parent, "budget")
	if d, ok := narrowNumber(pBudget, "depth"); ok && d < 1 {
		codes = append(codes, "R5")
	}
	if f, ok := narrowNumber(pBudget, "fan_out"); ok && f < 1 {
		codes = append(codes, "R6")
	}

	// allow: tools and commands intersect by exact name; paths and hosts
	// keep a declared entry only when some parent entry contains it (§5.1).
	// Declared order is kept, as the vectors show. Any other allow member,
	// allow.tool_args included, is dropped (§4.4: "MAY omit", and the
	// vector tool-args-dropped shows the reference omitting it).
	tools := narrowKeep(narrowStrings(dAllow, "tools"), narrowStrings(pAllow, "tools"), narrowSame)
	allow := canon.Value{Kind: canon.Object, Members: []canon.Member{
		{Key: "tools", Value: narrowStringArray(tools)},
		{Key: "read_paths", Value: narrowStringArray(narrowKeep(narrowStrings(dAllow, "read_paths"), narrowStrings(pAllow, "read_paths"), narrowPathContains))},
		{Key: "write_paths", Value: narrowStringArray(narrowKeep(narrowStrings(dAllow, "write_paths"), narrowStrings(pAllow, "write_paths"), narrowPathContains))},
		{Key: "hosts", Value: narrowStringArray(narrowKeep(narrowStrings(dAllow, "hosts"), narrowStrings(pAllow, "hosts"), narrowHostContains))},
		{Key: "commands", Value: narrowStringArray(narrowKeep(narrowStrings(dAllow, "commands"), narrowStrings(pAllow, "commands"), narrowSame))},
	}}

	// R2: narrowing leaves allow.tools empty, which includes a declaration
	// that asked for none (vector R2-tools-declared-empty).
	if len(tools) == 0 {
		codes = append(codes, "R2")
	}

	if len(codes) > 0 {
		slices.Sort(codes)
		return canon.Value{}, slices.Compact(codes)
	}

	dDeny, _ := narrowMember(declared, "deny")
	pDeny, _ := narrowMember(parent, "deny")
	dApprovals, _ := narrowMember(declared, "approvals")
	pApprovals, _ := narrowMember(parent, "approvals")
	dBudget, _ := narrowMember(declared, "budget")

	var ms []canon.Member
	ms = narrowPass(ms, declared, "schema_version")
	ms = narrowPass(ms, declared, "agent")
	ms = narrowPass(ms, declared, "parent_lease_id")
	ms = narrowPass(ms, declared, "intent")
	ms = append(ms,
		canon.Member{Key: "allow", Value: allow},
		canon.Member{Key: "deny", Value: narrowDeny(dDeny, pDeny)},
		canon.Member{Key: "budget", Value: narrowBudget(dBudget, pBudget)},
		canon.Member{Key: "approvals", Value: narrowStringArray(narrowUnion(narrowElems(dApprovals), narrowElems(pApprovals), false))},
	)
	// attestation is preserved as declared: the issuer does not rewrite who
	// vouched for the declaration (§5). agent, intent and parent_lease_id
	// pass through unchanged likewise (vector
	// identity-intent-attestation-preserved).
	ms = narrowPass(ms, declared, "attestation")
	return canon.Value{Kind: canon.Object, Members: ms}, nil
}

// narrowDeny is deny.*: the union of every deny list with the parent's, so
// a child never sheds a parent's refusal. The declared entries come first,
// then the parent's new ones (vector deny-and-approvals-union:
// ["docker","sudo"]). The table says deny.*, so a deny list the schema does
// not name is united too; a non-array member is taken from the parent when
// the parent has it, else from the declaration. commands, paths and hosts
// are always present, as the schema requires.
func narrowDeny(d, p canon.Value) canon.Value {
	keys := []string{"commands", "paths", "hosts"}
	for _, o := range []canon.Value{d, p} {
		if o.Kind != canon.Object {
			continue
		}
		for _, m := range o.Members {
			if !slices.Contains(keys, m.Key) {
				keys = append(keys, m.Key)
			}
		}
	}
	out := canon.Value{Kind: canon.Object, Members: make([]canon.Member, 0, len(keys))}
	for _, k := range keys {
		dv, dok := narrowMember(d, k)
		pv, pok := narrowMember(p, k)
		var v canon.Value
		switch {
		case (!dok || dv.Kind == canon.Array) && (!pok || pv.Kind == canon.Array):
			v = narrowStringArray(narrowUnion(narrowElems(dv), narrowElems(pv), k == "hosts"))
		case pok:
			v = narrowClone(pv)
		default:
			v = narrowClone(dv)
		}
		out.Members = append(out.Members, canon.Member{Key: k, Value: v})
	}
	return out
}

// narrowBudget is budget.*: for each field of either side, min(declared,
// parent remaining) when both are numbers, the parent's remaining when only
// the parent has it (an absent field is not a request for more, §4.5), and
// the declared value when the parent has no ceiling for it (vector
// budget-clamped-to-parent-remaining keeps steps:50; the root vector keeps
// tokens:1000000). depth's ceiling is the parent's depth − 1 (vectors
// depth-decrements-and-clamps, depth-declared-smaller-wins); fan_out's is the
// parent's remaining fan_out as given (vector fan-out-bounded-by-parent-
// remaining). A non-numeric parent member is kept as the parent has it.
// Numbers are written in ECMAScript form.
func narrowBudget(d, p canon.Value) canon.Value {
	var keys []string
	for _, o := range []canon.Value{d, p} {
		if o.Kind != canon.Object {
			continue
		}
		for _, m := range o.Members {
			if !slices.Contains(keys, m.Key) {
				keys = append(keys, m.Key)
			}
		}
	}
	out := canon.Value{Kind: canon.Object, Members: make([]canon.Member, 0, len(keys))}
	for _, k := range keys {
		dv, dok := narrowMember(d, k)
		pv, pok := narrowMember(p, k)
		var v canon.Value
		switch {
		case !pok:
			v = narrowNormalise(dv)
		case pv.Kind != canon.Number:
			v = narrowClone(pv)
		default:
			ceiling, _ := strconv.ParseFloat(pv.Num, 64)
			if k == "depth" {
				ceiling-- // R5 has refused a parent depth below 1
			}
			if dok && dv.Kind == canon.Number {
				if x, err := strconv.ParseFloat(dv.Num, 64); err == nil {
					ceiling = math.Min(ceiling, x)
				}
			}
			v = narrowNumberValue(ceiling)
		}
		out.Members = append(out.Members, canon.Member{Key: k, Value: v})
	}
	return out
}

// narrowPathContains reports whether the parent glob contains the child
// path or glob, conservatively (§5.1): "**" contains everything; "dir/**"
// contains "dir" and anything whose leading segments are "dir/" (including
// "dir/sub/**" and "dir/*.ts"); any other literal or glob contains only the
// identical string. So "src/*.ts" does not contain "src/a.ts".
func narrowPathContains(parent, child string) bool {
	if parent == "**" || parent == child {
		return true
	}
	if dir, ok := strings.CutSuffix(parent, "/**"); ok && dir != "" {
		return child == dir || strings.HasPrefix(child, dir+"/")
	}
	return false
}

// narrowHostContains reports whether the parent host entry contains the
// child's, compared lower-case (§4.4): "*" contains everything;
// "*.example.com" contains "api.example.com" but not "example.com"; any
// other entry only the identical host, a wildcard only the identical
// wildcard.
//
// Neither the text nor the vectors say whether "*.example.com" reaches more
// than one label down ("a.b.example.com", or a child "*.api.example.com").
// This takes the conservative reading, one label and no wildcard in it,
// which is contained under either matching rule a gate might use; §5.1
// treats what it does not list as not contained.
func narrowHostContains(parent, child string) bool {
	p, c := strings.ToLower(parent), strings.ToLower(child)
	if p == "*" || p == c {
		return true
	}
	suffix, ok := strings.CutPrefix(p, "*.")
	if !ok {
		return false
	}
	label, rest, ok := strings.Cut(c, ".")
	return ok && rest == suffix && label != "" && !strings.Contains(label, "*")
}

// PathEscapes reports whether an allow path has one of the five forms §4.4
// and §5.2 R3 refuse: a leading "/", a ".." segment, a leading "~", a
// drive-letter prefix, or any backslash.
func PathEscapes(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, `\`) {
		return true
	}
	if len(p) >= 2 && p[1] == ':' && ('A' <= p[0] && p[0] <= 'Z' || 'a' <= p[0] && p[0] <= 'z') {
		return true
	}
	return slices.Contains(strings.Split(p, "/"), "..")
}

// narrowIsESSpace reports whether r is ECMAScript WhiteSpace or
// LineTerminator, the set String.prototype.trim removes.
func narrowIsESSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// narrowSame is containment for tools and commands: the exact name.
func narrowSame(parent, child string) bool { return parent == child }

// narrowKeep returns the declared entries that some parent entry contains,
// in declared order.
func narrowKeep(declared, parent []string, contains func(parent, child string) bool) []string {
	out := []string{}
	for _, c := range declared {
		if slices.ContainsFunc(parent, func(p string) bool { return contains(p, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// narrowUnion returns the string elements of a then those of b not seen
// before, each once; fold compares them lower-case (hosts).
func narrowUnion(a, b []canon.Value, fold bool) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, e := range append(slices.Clip(a), b...) {
		if e.Kind != canon.String {
			continue
		}
		k := e.Str
		if fold {
			k = strings.ToLower(k)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, e.Str)
		}
	}
	return out
}

// narrowMember returns the member key of the object o.
func narrowMember(o canon.Value, key string) (canon.Value, bool) {
	if o.Kind != canon.Object {
		return canon.Value{}, false
	}
	for _, m := range o.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return canon.Value{}, false
}

// narrowString returns the string member key of o.
func narrowString(o canon.Value, key string) (string, bool) {
	v, ok := narrowMember(o, key)
	return v.Str, ok && v.Kind == canon.String
}

// narrowNumber returns the number member key of o as a float64.
func narrowNumber(o canon.Value, key string) (float64, bool) {
	v, ok := narrowMember(o, key)
	if !ok || v.Kind != canon.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Num, 64)
	return f, err == nil
}

// narrowElems returns the elements of v when it is an array.
func narrowElems(v canon.Value) []canon.Value {
	if v.Kind != canon.Array {
		return nil
	}
	return v.Elems
}

// narrowStrings returns the string elements of the array member key of o;
// anything else is read as no entry, which nothing contains.
func narrowStrings(o canon.Value, key string) []string {
	v, _ := narrowMember(o, key)
	var out []string
	for _, e := range narrowElems(v) {
		if e.Kind == canon.String {
			out = append(out, e.Str)
		}
	}
	return out
}

// narrowStringArray makes an array of strings, empty rather than null.
func narrowStringArray(ss []string) canon.Value {
	v := canon.Value{Kind: canon.Array, Elems: make([]canon.Value, len(ss))}
	for i, s := range ss {
		v.Elems[i] = canon.Value{Kind: canon.String, Str: s}
	}
	return v
}

// narrowNumberValue makes a number in ECMAScript form. A budget is finite
// (it is parsed from JSON), so FormatES6 does not fail here; should it, the
// lexeme falls back to strconv's shortest form.
func narrowNumberValue(f float64) canon.Value {
	s, err := canon.FormatES6(f)
	if err != nil {
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return canon.Value{Kind: canon.Number, Num: s}
}

// narrowNormalise copies v, writing a number in ECMAScript form.
func narrowNormalise(v canon.Value) canon.Value {
	if v.Kind == canon.Number {
		if f, err := strconv.ParseFloat(v.Num, 64); err == nil {
			return narrowNumberValue(f)
		}
	}
	return narrowClone(v)
}

// narrowPass appends the member key of the declaration unchanged, when it
// is there.
func narrowPass(ms []canon.Member, declared canon.Value, key string) []canon.Member {
	if v, ok := narrowMember(declared, key); ok {
		ms = append(ms, canon.Member{Key: key, Value: narrowClone(v)})
	}
	return ms
}

// narrowClone deep-copies v, so a grant shares no slice with its inputs.
func narrowClone(v canon.Value) canon.Value {
	switch v.Kind {
	case canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = narrowClone(e)
		}
		v.Elems = elems
	case canon.Object:
		ms := make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			ms[i] = canon.Member{Key: m.Key, Value: narrowClone(m.Value)}
		}
		v.Members = ms
	}
	return v
}
