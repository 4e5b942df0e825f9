package cdc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

var refusalCodes = []string{"R1", "R2", "R3", "R4", "R5", "R6"}

func parse(raw json.RawMessage) canon.Value {
	v, _ := canon.Parse(raw, canon.ReadOptions{})
	return v
}

func narrowVectorCheck(cl *clauses, v NarrowVector) check.Check {
	return check.Check{
		ID:      "cdc/narrowing/" + v.Name + "/vector",
		Level:   check.Must,
		Clause:  cl.wellFormed,
		Doc:     "narrowing vector " + v.Name + " is well formed against the schemas",
		Needs:   []string{OpValidate},
		Explain: "sends: validate of the vector's declared, parent and granted manifests\nexpects: " + map[bool]string{true: "declared refused by the schema (schema_invalid)", false: "all three validate"}[v.SchemaInvalid],
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			w := "narrowing/" + v.Name
			declared, o, ok := validate(ctx, s, w+" declared", "agent-lease-manifest", parse(v.Declared))
			if !ok {
				return o
			}
			if v.SchemaInvalid {
				if declared.Valid {
					return check.Failed(w+": the declared manifest validates, but the schemas must refuse it — "+v.Why, "refused", "valid")
				}
				if !v.HasRefusals || !allCodes(v.Refusals) {
					return check.Failed(w+": a schema-invalid vector names the §5.2 condition(s) the schema enforces.", "refusals R1–R6", fmt.Sprint(v.Refusals))
				}
				return check.Passed()
			}
			if !declared.Valid {
				return check.Failed(w+": the declared manifest does not validate; the vector is malformed.", "valid", "rejected")
			}
			parent, o, ok := validate(ctx, s, w+" parent", "agent-lease-manifest", parse(v.Parent))
			if !ok {
				return o
			}
			if !parent.Valid {
				return check.Failed(w+": the parent manifest does not validate; the vector is malformed.", "valid", "rejected")
			}
			if (len(v.Granted) > 0) == v.HasRefusals {
				return check.Failed(w+": a vector carries exactly one of granted or refusals.", "one", "both or neither")
			}
			if len(v.Granted) > 0 {
				g, o, ok := validate(ctx, s, w+" granted", "agent-lease-manifest", parse(v.Granted))
				if !ok {
					return o
				}
				if !g.Valid {
					return check.Failed(w+": the granted manifest does not validate; the vector is malformed.", "valid", "rejected")
				}
			}
			for _, c := range v.Refusals {
				if !slices.Contains(refusalCodes, c) {
					return check.Failed(w+": refusal code "+c+" is not one of R1 to R6.", "R1–R6", c)
				}
			}
			return check.Passed()
		},
	}
}

func allCodes(cs []string) bool {
	for _, c := range cs {
		if !slices.Contains(refusalCodes, c) {
			return false
		}
	}
	return true
}

func setOf(cs []string) []string {
	out := slices.Clone(cs)
	slices.Sort(out)
	return slices.Compact(out)
}

// narrowBehaviourCheck checks narrow of one vector under id; what names
// it in a failure ("narrowing/root"). A vector whose grant drops a declared
// allow.tool_args is a may check: keeping it as declared conforms too.
func narrowBehaviourCheck(id, what string, v NarrowVector, clause string) check.Check {
	expect := "a grant equal, by canonical bytes, to the vector's"
	level := check.Must
	var kept json.RawMessage
	if v.HasRefusals {
		expect = fmt.Sprintf("refusals %v", setOf(v.Refusals))
	} else if k, ok := toolArgsKept(v.Declared, v.Granted); ok {
		level, clause, kept = check.May, clauseToolArgs, k
		expect += ", or that grant with allow.tool_args as declared"
	}
	return check.Check{
		ID:            id,
		Level:         level,
		Clause:        clause,
		Doc:           "narrowing " + v.Name + ": " + check.Clip(check.OneLine(v.Why)),
		Needs:         []string{OpNarrow},
		MissingReason: notNarrowing,
		Explain:       "sends: narrow {\"declared\", \"parent\", \"declared_text\", \"parent_text\"} of the vector\nexpects: " + expect,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			if !s.Offers(OpCanonicalise) {
				return check.Failed(narrowNeeds, "canonicalise offered", "narrow without canonicalise")
			}
			w := what
			r, o, ok := check.Expect{
				Op: OpNarrow, Args: textArgs(map[string]json.RawMessage{"declared": v.Declared, "parent": v.Parent}), Want: expect,
				Words: threw(func(err string) string { return w + ": narrow threw (" + err + ") — " + v.Why }, true),
			}.OK(ctx, s)
			if !ok {
				return o
			}
			refusals, hasRefusals := r.Lookup("refusals")
			var got []string
			for _, e := range refusals.Elems {
				got = append(got, e.Str)
			}
			gotJSON := jsonText(setOf(got))
			if v.HasRefusals {
				want := jsonText(setOf(v.Refusals))
				if !hasRefusals || string(want) != string(gotJSON) {
					actual := "a grant"
					if hasRefusals {
						actual = string(gotJSON)
					}
					return check.Failed(fmt.Sprintf("%s: expected refusal %s, got %s — %s", w, want, actual, v.Why), string(want), actual)
				}
				return check.Passed()
			}
			if hasRefusals && refusals.Kind != canon.Null && !(refusals.Kind == canon.Bool && !refusals.Bool) {
				return check.Failed(fmt.Sprintf("%s: expected a grant, got refusal %s — %s", w, gotJSON, v.Why), "a grant", string(gotJSON))
			}
			granted, ok := r.Lookup("granted")
			if !ok {
				return check.Failed(w+": expected a grant, got neither granted nor refusals — "+v.Why, "a grant", r.String())
			}
			want, o, ok := canonicalise(ctx, s, v.Granted, w)
			if !ok {
				return o
			}
			have, o, ok := canonicalise(ctx, s, json.RawMessage(granted.String()), w)
			if !ok {
				return o
			}
			if want == have {
				if level == check.May {
					return check.Chose(choseOmitted)
				}
				return check.Passed()
			}
			if kept != nil {
				alt, o, ok := canonicalise(ctx, s, kept, w)
				if !ok {
					return o
				}
				if alt == have {
					return check.Chose(choseKept)
				}
			}
			o = check.Failed(fmt.Sprintf("%s: granted manifest differs — %s\n      expected %s\n      got      %s", w, v.Why, want, have), want, have)
			o.Diff = check.DiffBytes([]byte(want), []byte(have))
			return o
		},
	}
}

// verifyArgs are verify's args: the lease as a value and as its text.
func verifyArgs(lease canon.Value, key string) map[string]any {
	text := lease.String()
	return map[string]any{"lease": json.RawMessage(text), "lease_text": text, "key_hex": key}
}

// flipSignature changes signature[0] as upstream does: '0' to '1', else to '0'.
func flipSignature(lease canon.Value) canon.Value {
	out := lease
	out.Members = slices.Clone(lease.Members)
	for i, m := range out.Members {
		if m.Key == "signature" && m.Value.Kind == canon.String && m.Value.Str != "" {
			c := "0"
			if m.Value.Str[0] == '0' {
				c = "1"
			}
			out.Members[i].Value.Str = c + m.Value.Str[1:]
		}
	}
	return out
}

// editPurpose appends a space to manifest.intent.purpose.
func editPurpose(lease canon.Value) canon.Value {
	return mapPurpose(lease, func(p string) string { return p + " " })
}

// mapPurpose returns a copy of lease with f applied to manifest.intent.purpose.
func mapPurpose(lease canon.Value, f func(string) string) canon.Value {
	v, _ := canon.Parse([]byte(lease.String()), canon.ReadOptions{})
	for i := range v.Members {
		if v.Members[i].Key != "manifest" {
			continue
		}
		for j := range v.Members[i].Value.Members {
			if v.Members[i].Value.Members[j].Key != "intent" {
				continue
			}
			in := &v.Members[i].Value.Members[j].Value
			for k := range in.Members {
				if in.Members[k].Key == "purpose" {
					in.Members[k].Value.Str = f(in.Members[k].Value.Str)
				}
			}
		}
	}
	return v
}

func signatureChecks(cl *clauses, key string, v SignatureVector) []check.Check {
	w := "signature/" + v.Name
	id := "cdc/signatures/" + v.Name
	declared, _ := v.Lease.Lookup("declared_hash")
	verify := func(sub, doc string, lease canon.Value, want bool, failMsg string) check.Check {
		return check.Check{
			ID: id + "/" + sub, Doc: doc, Needs: []string{OpHash, OpVerify}, MissingReason: notSignatures,
			Level: check.Must, Clause: cl.verify,
			Explain: fmt.Sprintf("sends: verify {\"lease\", \"lease_text\", \"key_hex\": %q}\nexpects: %v", key, want),
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				return check.Expect{Op: OpVerify, Args: verifyArgs(lease, key), Because: failMsg, Words: threw(nil, false)}.Verdict(ctx, s, want)
			},
		}
	}
	var tampered []check.Check
	for i, t := range v.Tampered {
		changed, _ := t.apply(v.Lease)
		c := verify(fmt.Sprintf("tampered/%d", i+1), "a lease of "+v.Name+" "+t.Why+" "+map[bool]string{true: "still verifies", false: "does not verify"}[t.Verifies],
			changed, t.Verifies, fmt.Sprintf("%s: a lease %s %s.", w, t.Why, map[bool]string{true: "no longer verifies, though its canonical bytes are the same", false: "still verifies"}[t.Verifies]))
		if t.Verifies {
			c.Clause = clauseSignedBytes
		}
		tampered = append(tampered, c)
	}
	return append([]check.Check{
		{
			ID: id + "/lease", Doc: "the signed lease of " + v.Name + " validates as agent-lease", Needs: []string{OpValidate},
			Level: check.Must, Clause: cl.wellFormed,
			Explain: "sends: validate {\"shape\": \"agent-lease\", \"value\": <the vector's lease>}\nexpects: valid true",
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				r, o, ok := validate(ctx, s, "signatures/"+v.Name+" lease", "agent-lease", v.Lease)
				if !ok {
					return o
				}
				if !r.Valid {
					return check.Failed(w+": the lease fixture does not validate; the vector is malformed.", "valid", "rejected")
				}
				return check.Passed()
			},
		},
		{
			ID: id + "/hash", Doc: "hash of " + v.Name + "'s declaration equals the lease's declared_hash", Needs: []string{OpHash, OpVerify}, MissingReason: notSignatures,
			Level: check.Must, Clause: cl.hash,
			Explain: "sends: hash {\"value\": <the declaration>, \"value_text\": <its text>}\nexpects: " + declared.Str,
			Do: func(ctx context.Context, s *check.Session) check.Outcome {
				// Whatever came, a throw or a value, is shown against the declared hash.
				r, o, ok := check.Expect{Op: OpHash, Args: textArgs(map[string]json.RawMessage{"value": json.RawMessage(v.Declared.String())})}.Reply(ctx, s)
				if !ok {
					return o
				}
				got := r.OK.String()
				if r.Err != nil {
					got = "threw: " + r.Err.Error()
				} else if r.OK.Kind == canon.String {
					got = r.OK.Str
				}
				if got != declared.Str {
					return check.Failed(fmt.Sprintf("%s: hash(declared) is %s, lease.declared_hash is %s. Two implementations that disagree here cannot reconstruct the narrowing diff from each other's records.", w, got, declared.Str), declared.Str, got)
				}
				return check.Passed()
			},
		},
		verify("verify", "the signature of "+v.Name+" verifies under the test key", v.Lease, true, w+": the fixture's signature does not verify under the test key."),
		verify("flipped-signature", "a lease of "+v.Name+" with one signature byte changed does not verify", flipSignature(v.Lease), false, w+": a lease with one signature byte changed still verifies."),
		verify("edited-purpose", "a lease of "+v.Name+" whose purpose was edited after issue does not verify", editPurpose(v.Lease), false, w+": a lease whose granted manifest was edited after issue still verifies. The signature must cover every field but itself."),
	}, tampered...)
}

// clauseSignedBytes is the clause of a tampered lease that still verifies:
// only its spelling changed, and the signature is over canonical bytes.
const clauseSignedBytes = `SPEC 1.2 §7: "signature MUST be computed over the canonical bytes of every field of the object except signature itself": a lease whose text changes but whose canonical bytes do not (a number spelled otherwise, members in another order) carries the same signature`

func byRuleValidCheck(cl *clauses, f Fixture) check.Check {
	return check.Check{
		ID:      "cdc/rules/" + f.Name() + "/schema-valid",
		Level:   check.Must,
		Clause:  cl.byRuleValid,
		Doc:     "invalid-by-rule/" + f.File + " is schema-valid, with a stated rule and path",
		Needs:   []string{OpValidate},
		Explain: fmt.Sprintf("sends: validate {\"shape\": %q, \"value\": <fixtures/invalid-by-rule/%s>}\nexpects: valid true", f.Shape, f.File),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			if f.Reason == "" {
				return check.Failed("invalid-by-rule/"+f.File+": no .reason file.", "a .reason", "none")
			}
			if f.Expect == nil || f.Expect.Rule == nil || f.Expect.Path == nil {
				return check.Failed("invalid-by-rule/"+f.File+`: no .expect.json with "rule" and "path". A rule rejection with no stated rule can be a rejection for the wrong reason.`, "an .expect.json", "none")
			}
			v, o, ok := validate(ctx, s, "invalid-by-rule/"+f.File, f.Shape, f.Value)
			if !ok {
				return o
			}
			if !v.Valid {
				return check.Failed("invalid-by-rule/"+f.File+": rejected by the SCHEMA. A by-rule fixture must validate, or it is testing the schema and not the rule.", "valid", "rejected")
			}
			return check.Passed()
		},
	}
}

// findings calls rules and returns the distinct rules and each rule's paths.
func findings(ctx context.Context, s *check.Session, lease canon.Value, chain []string, haveChain bool) (map[string][]string, []string, check.Outcome, bool) {
	args := map[string]any{"lease": json.RawMessage(lease.String())}
	if haveChain {
		args["chain"] = chain
	}
	r, o, ok := check.Expect{
		Op: OpRules, Args: args, Want: "findings",
		Words: threw(func(err string) string { return "rules threw: " + err }, true),
	}.OK(ctx, s)
	if !ok {
		return nil, nil, o, false
	}
	paths := map[string][]string{}
	var rules []string
	if r.Kind == canon.Array {
		for _, e := range r.Elems {
			rule, _ := e.Lookup("rule")
			path, _ := e.Lookup("path")
			if _, seen := paths[rule.Str]; !seen {
				rules = append(rules, rule.Str)
			}
			paths[rule.Str] = append(paths[rule.Str], path.Str)
		}
	} else if r.Kind != canon.Null {
		return nil, nil, check.Failed("rules must answer an array of findings", "[{rule, path}]", r.String()), false
	}
	return paths, rules, check.Outcome{}, true
}

func validRulesCheck(cl *clauses, f Fixture) check.Check {
	return check.Check{
		ID:            "cdc/rules/valid/" + f.Name(),
		Level:         check.Must,
		Clause:        cl.rulesValid,
		Doc:           "valid/" + f.File + " breaks no lease rule",
		Needs:         []string{OpRules},
		MissingReason: notRules,
		Explain:       "sends: rules {\"lease\": <fixtures/valid/" + f.File + ">} (no chain)\nexpects: []",
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			_, rules, o, ok := findings(ctx, s, f.Value, nil, false)
			if !ok {
				return o
			}
			if len(rules) > 0 {
				return check.Failed(fmt.Sprintf("valid/%s: fails rule(s) %s, but it is a legitimate lease.", f.File, strings.Join(rules, ", ")), "[]", strings.Join(rules, ", "))
			}
			return check.Passed()
		},
	}
}

func byRuleCheck(cl *clauses, f Fixture) check.Check {
	chain, haveChain := f.Expect.Chain()
	rule, path := "", ""
	if f.Expect != nil && f.Expect.Rule != nil && f.Expect.Path != nil {
		rule, path = *f.Expect.Rule, *f.Expect.Path
	}
	ctxNote := "no chain"
	if haveChain {
		ctxNote = fmt.Sprintf("chain %v", chain)
	}
	return check.Check{
		ID:            "cdc/rules/" + f.Name(),
		Level:         check.Must,
		Clause:        cl.byRule,
		Doc:           "invalid-by-rule/" + f.File + " breaks " + rule + " at " + path,
		Needs:         []string{OpRules},
		MissingReason: notRules,
		Explain:       fmt.Sprintf("sends: rules {\"lease\": <fixtures/invalid-by-rule/%s>} (%s)\nexpects: a finding of %s at %s", f.File, ctxNote, rule, path),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			if rule == "" {
				return check.Skipped("not checked: the fixture states no rule (see cdc/rules/" + f.Name() + "/schema-valid)")
			}
			paths, rules, o, ok := findings(ctx, s, f.Value, chain, haveChain)
			if !ok {
				return o
			}
			got, ok := paths[rule]
			if !ok {
				j := jsonText(rules)
				return check.Failed(fmt.Sprintf("invalid-by-rule/%s: must fail rule %s, but the implementation reported %s.", f.File, rule, j), rule, string(j))
			}
			if !slices.Contains(got, path) {
				j := jsonText(got)
				return check.Failed(fmt.Sprintf("invalid-by-rule/%s: rule %s reported at %s, not at %s.", f.File, rule, j, path), path, string(j))
			}
			return check.Passed()
		},
	}
}

// jsonText renders v for a failure message: no HTML escaping, and a nil
// list as [] rather than null.
func jsonText(v any) string {
	if l, ok := v.([]string); ok && l == nil {
		v = []string{}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
