package cdc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

// The adapter ops: upstream's hooks.
const (
	OpValidate     = "validate"
	OpRoundTrip    = "roundTrip"
	OpCanonicalise = "canonicalise"
	OpNarrow       = "narrow"
	OpHash         = "hash"
	OpVerify       = "verify"
	OpRules        = "rules"
)

// The NOT CHECKED reasons, exactly as upstream's runner prints them.
const (
	notCanonical  = "canonical bytes NOT CHECKED (adapter offers no canonicalise)"
	notNarrowing  = "narrowing vectors well-formed, behaviour NOT CHECKED (the reference adapter validates only; the reference implementation runs them in its own suite)"
	notSignatures = "signatures NOT CHECKED (adapter offers no hash/verify)"
	notRules      = "lease rules by-rule fixtures schema-valid, rules NOT CHECKED (adapter offers no rules)"
	notPaths      = "rejection paths NOT CHECKED (adapter reports no errors)"
	narrowNeeds   = "narrowing: an adapter that offers narrow must offer canonicalise, because granted manifests are compared by canonical bytes."
)

const planted = "a_field_from_a_newer_writer"

// Checks returns the corpus's checks in upstream's order.
//
// A corpus without schemas (vectors only, as referee fuzz writes) has only
// the canonical and narrowing behaviour checks: there is nothing to
// validate the vectors against.
func (cp *Corpus) Checks() []check.Check {
	var out []check.Check
	cl := clausesOf(cp.Release)
	for _, f := range cp.Valid {
		out = append(out, validCheck(cl, f))
	}
	for _, f := range cp.Invalid {
		out = append(out, invalidCheck(cl, cp.Release, f))
		if cp.Release == Release12 {
			out = append(out, pathCheck(cl, f))
		}
	}
	for _, f := range cp.Valid {
		out = append(out, toleratedCheck(cl, cp.Release, f), keptCheck(cl, cp.Release, f))
	}
	if cp.Canonical != nil {
		for _, v := range cp.Canonical.Vectors {
			level, clause := canonicalLevel(cp.Release, v.Value, cl)
			out = append(out, canonVectorCheck("cdc/canonical/"+v.Name, "canonical/"+v.Name, v, level, clause))
		}
		for _, j := range cp.JCS {
			out = append(out, jcsCheck(cl, j))
		}
		for _, m := range cp.Canonical.MustFail {
			out = append(out, mustFailCheck(cl, m.Name, m.Construct, m.Why))
		}
	}
	for _, v := range cp.Narrowing {
		if len(cp.Shapes) > 0 {
			out = append(out, narrowVectorCheck(cl, v))
		}
		if !v.SchemaInvalid {
			out = append(out, narrowBehaviourCheck("cdc/narrowing/"+v.Name, "narrowing/"+v.Name, v, cl.narrow))
		}
	}
	for _, v := range cp.Signatures {
		out = append(out, signatureChecks(cl, cp.Key, v)...)
	}
	if cp.Release == Release12 {
		for _, f := range cp.ByRule {
			out = append(out, byRuleValidCheck(cl, f))
		}
		for _, f := range cp.Valid {
			if f.Shape == "agent-lease" || f.Shape == "lease-record" {
				out = append(out, validRulesCheck(cl, f))
			}
		}
		for _, f := range cp.ByRule {
			out = append(out, byRuleCheck(cl, f))
		}
	}
	return out
}

// validation is a validate reply.
type validation struct {
	Valid  bool
	Paths  []string // distinct instance paths, "" made "/"; nil when the reply has no errors array
	Errors bool     // the reply has an errors array
}

// threw words a failure as upstream's runner prints it: an err where an
// answer is wanted is a throw, reason(ERR) (nil keeps the reason, as
// Because gives it), with "threw: ERR" as what came, or "threw" alone when
// bare.
func threw(reason func(err string) string, bare bool) func(check.Miss) check.Outcome {
	return func(m check.Miss) check.Outcome {
		o := m.Outcome
		if m.Kind == check.Erred {
			if reason != nil {
				o.Reason = reason(m.Err.Error())
			}
			o.Actual = "threw"
			if !bare {
				o.Actual += ": " + m.Err.Error()
			}
		}
		return o
	}
}

// validate calls validate; what names the fixture or vector in a failure.
func validate(ctx context.Context, s *check.Session, what, shape string, v canon.Value) (validation, check.Outcome, bool) {
	r, o, ok := check.Expect{
		Op: OpValidate, Args: map[string]any{"shape": shape, "value": json.RawMessage(v.String())}, Want: "a verdict",
		Words: threw(func(err string) string { return what + ": validate threw (" + err + ")" }, false),
	}.OK(ctx, s)
	if !ok {
		return validation{}, o, false
	}
	valid, _ := r.Lookup("valid")
	if r.Kind != canon.Object || valid.Kind != canon.Bool {
		return validation{}, check.Failed(what+`: validate must answer {"valid": true|false, ...}`, `{"valid": B}`, r.String()), false
	}
	out := validation{Valid: valid.Bool}
	if errs, ok := r.Lookup("errors"); ok && errs.Kind == canon.Array {
		out.Errors = true
		seen := map[string]bool{}
		for _, e := range errs.Elems {
			p, _ := e.Lookup("instancePath")
			path := p.Str
			if path == "" {
				path = "/"
			}
			if !seen[path] {
				seen[path] = true
				out.Paths = append(out.Paths, path)
			}
		}
	}
	return out, check.Outcome{}, true
}

func validCheck(cl *clauses, f Fixture) check.Check {
	return check.Check{
		ID:      "cdc/valid/" + f.Name(),
		Level:   check.Must,
		Clause:  cl.valid,
		Doc:     "valid/" + f.File + " validates as " + f.Shape,
		Needs:   []string{OpValidate},
		Explain: fmt.Sprintf("sends: validate {\"shape\": %q, \"value\": <fixtures/valid/%s>}\nexpects: valid true", f.Shape, f.File),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			v, o, ok := validate(ctx, s, "valid/"+f.File, f.Shape, f.Value)
			if !ok {
				return o
			}
			if !v.Valid {
				return check.Failed("valid/"+f.File+": rejected, but it is a legitimate artefact", "valid", "rejected at "+strings.Join(v.Paths, ", "))
			}
			return check.Passed()
		},
	}
}

func invalidCheck(cl *clauses, rel Release, f Fixture) check.Check {
	return check.Check{
		ID:      "cdc/invalid/" + f.Name(),
		Level:   check.Must,
		Clause:  cl.invalid,
		Doc:     "invalid/" + f.File + " is refused: " + check.Clip(check.OneLine(f.Reason)),
		Needs:   []string{OpValidate},
		Explain: fmt.Sprintf("sends: validate {\"shape\": %q, \"value\": <fixtures/invalid/%s>}\nexpects: valid false (%s)", f.Shape, f.File, check.Clip(check.OneLine(f.Reason))),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			// Validate even when the corpus is incomplete: an accepted
			// invalid fixture is the finding that matters most.
			v, o, ok := validate(ctx, s, "invalid/"+f.File, f.Shape, f.Value)
			if !ok {
				return o
			}
			if v.Valid {
				why := f.Reason
				if why == "" {
					why = "(the fixture has no .reason file)"
				}
				return check.Failed("invalid/"+f.File+": accepted, but must be rejected — "+why, "rejected", "accepted")
			}
			if f.Reason == "" {
				return check.Failed("invalid/"+f.File+": no .reason file. An invalid fixture without a stated reason is untestable folklore.", "a .reason", "none")
			}
			if rel == Release12 && (f.Expect == nil || f.Expect.Path == nil) {
				return check.Failed("invalid/"+f.File+`: no .expect.json with a "path". A rejection with no stated place can be a rejection for the wrong reason.`, "an .expect.json", "none")
			}
			return check.Passed()
		},
	}
}

func pathCheck(cl *clauses, f Fixture) check.Check {
	want := ""
	if f.Expect != nil && f.Expect.Path != nil {
		want = *f.Expect.Path
	}
	return check.Check{
		ID:      "cdc/invalid/" + f.Name() + "/path",
		Level:   check.Must,
		Clause:  cl.path,
		Doc:     "invalid/" + f.File + " is refused at " + want,
		Needs:   []string{OpValidate},
		Explain: fmt.Sprintf("sends: validate {\"shape\": %q, \"value\": <fixtures/invalid/%s>}\nexpects: one of the errors at instance path %s", f.Shape, f.File, want),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			if want == "" {
				return check.Skipped("not checked: the fixture has no expected path (see cdc/invalid/" + f.Name() + ")")
			}
			v, o, ok := validate(ctx, s, "invalid/"+f.File, f.Shape, f.Value)
			if !ok {
				return o
			}
			switch {
			case v.Valid:
				return check.Skipped("not checked: the fixture was accepted (see cdc/invalid/" + f.Name() + ")")
			case !v.Errors:
				return check.Skipped(notPaths)
			case !slices.Contains(v.Paths, want):
				got := jsonText(v.Paths)
				return check.Failed(fmt.Sprintf("invalid/%s: rejected, but not at %s — the implementation reported %s. A rejection for the wrong reason is not conformance.", f.File, want, got), want, string(got))
			}
			return check.Passed()
		},
	}
}

// plant adds the unknown field at the top level and, in release 1.2, inside
// the first nested plain object (first by sorted key; arrays skipped).
func plant(rel Release, v canon.Value) (canon.Value, bool) {
	field := canon.Member{Key: planted, Value: canon.Value{Kind: canon.String, Str: "kept"}}
	out := v
	out.Members = append(slices.Clone(v.Members), field)
	if rel != Release12 {
		return out, false
	}
	keys := make([]int, 0, len(v.Members))
	for i, m := range v.Members {
		if m.Value.Kind == canon.Object {
			keys = append(keys, i)
		}
	}
	if len(keys) == 0 {
		return out, false
	}
	sort.Slice(keys, func(a, b int) bool { return v.Members[keys[a]].Key < v.Members[keys[b]].Key })
	i := keys[0]
	inner := v.Members[i].Value
	inner.Members = append(slices.Clone(inner.Members), field)
	out.Members[i].Value = inner
	return out, true
}

func toleratedCheck(cl *clauses, rel Release, f Fixture) check.Check {
	return check.Check{
		ID:      "cdc/roundtrip/" + f.Name() + "/tolerated",
		Level:   check.Must,
		Clause:  cl.tolerated,
		Doc:     "valid/" + f.File + " still validates with a newer writer's unknown field",
		Needs:   []string{OpValidate},
		Explain: fmt.Sprintf("sends: validate of valid/%s with %q: \"kept\" planted\nexpects: valid true", f.File, planted),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			marked, _ := plant(rel, f.Value)
			v, o, ok := validate(ctx, s, "roundtrip/"+f.File, f.Shape, marked)
			if !ok {
				return o
			}
			if !v.Valid {
				return check.Failed("valid/"+f.File+": rejected once an unknown field was added. A reader must tolerate what a newer writer adds.", "valid", "rejected")
			}
			return check.Passed()
		},
	}
}

func keptCheck(cl *clauses, rel Release, f Fixture) check.Check {
	return check.Check{
		ID:      "cdc/roundtrip/" + f.Name() + "/kept",
		Level:   check.Must,
		Clause:  cl.kept,
		Doc:     "valid/" + f.File + " keeps a newer writer's unknown field through a round trip",
		Needs:   []string{OpRoundTrip},
		Explain: fmt.Sprintf("sends: roundTrip of valid/%s with %q: \"kept\" planted\nexpects: the field back, where it was planted", f.File, planted),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			marked, nested := plant(rel, f.Value)
			lost := "valid/" + f.File + ": the unknown field was lost in a round trip. An older reader must not silently strip a newer writer's data."
			back, o, ok := check.Expect{
				Op: OpRoundTrip, Args: map[string]any{"shape": f.Shape, "value": json.RawMessage(marked.String())},
				Want: "the field kept", Because: lost, Words: threw(nil, false),
			}.OK(ctx, s)
			if !ok {
				return o
			}
			if !hasPlanted(back) {
				return check.Failed(lost, "the field kept at the top level", check.Clip(back.String()))
			}
			if nested {
				keys := []string{}
				for _, m := range f.Value.Members {
					if m.Value.Kind == canon.Object {
						keys = append(keys, m.Key)
					}
				}
				sort.Strings(keys)
				inner, _ := back.Lookup(keys[0])
				if !hasPlanted(inner) {
					return check.Failed(lost, "the field kept inside "+keys[0], check.Clip(back.String()))
				}
			}
			return check.Passed()
		},
	}
}

func hasPlanted(v canon.Value) bool {
	p, ok := v.Lookup(planted)
	return ok && v.Kind == canon.Object && p.Kind == canon.String && p.Str == "kept"
}

// textArgs are an op's args with each JSON value given twice: as the value
// and, under name_text, as its exact text (whitespace removed, every number
// lexeme and string escape as the corpus has it), for an implementation
// whose JSON reader would lose what the verdict depends on.
func textArgs(values map[string]json.RawMessage) map[string]any {
	args := make(map[string]any, 2*len(values))
	for name, raw := range values {
		args[name] = raw
		args[name+"_text"] = string(compactRaw(raw))
	}
	return args
}

// canonicalise calls canonicalise of value and returns the text; what
// names the vector in a failure ("canonical/numbers").
func canonicalise(ctx context.Context, s *check.Session, value json.RawMessage, what string) (string, check.Outcome, bool) {
	return canonicalising(value, what, "").Text(ctx, s)
}

// canonicalising is the call of canonicalise of value, which wants a
// string; what names the vector in a failure, and why, when set, ends the
// reason of a throw.
func canonicalising(value json.RawMessage, what, why string) check.Expect {
	return check.Expect{
		Op: OpCanonicalise, Args: textArgs(map[string]json.RawMessage{"value": value}), Want: "a string",
		Words: func(m check.Miss) check.Outcome {
			o := m.Outcome
			switch m.Kind {
			case check.Erred:
				o.Reason, o.Actual = what+": threw ("+m.Err.Error()+")"+why, "threw"
			case check.Mistyped:
				o.Reason = what + ": canonicalise must return a string, got " + m.OK.Kind.String()
			}
			return o
		},
	}
}

// canonVectorCheck checks one canonical-bytes vector under id; what names
// it in a failure. A may check (a lone surrogate in the 1.2 layout) also
// passes on a rejection.
func canonVectorCheck(id, what string, v CanonVector, level check.Level, clause string) check.Check {
	expects := fmt.Sprintf("text whose SHA-256 is %s (%s)", v.SHA256, check.Clip(v.Canonical))
	if level == check.May {
		expects += ", or err (a rejection)"
	}
	return check.Check{
		ID:            id,
		Level:         level,
		Clause:        clause,
		Doc:           "canonical bytes of " + v.Name + ": " + check.Clip(check.OneLine(v.Why)),
		Needs:         []string{OpCanonicalise},
		MissingReason: notCanonical,
		Explain:       fmt.Sprintf("sends: canonicalise {\"value\": %s, \"value_text\": <the same text>}\nexpects: %s", check.Clip(string(v.Value)), expects),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			e := canonicalising(v.Value, what, " — "+v.Why)
			e.MayRefuse = level == check.May
			text, o, ok := e.Text(ctx, s)
			if !ok {
				return o
			}
			sum := sha256.Sum256([]byte(text))
			if got := hex.EncodeToString(sum[:]); got != v.SHA256 {
				want := jsonText(v.Canonical)
				gotText := jsonText(text)
				o := check.Failed(fmt.Sprintf("%s: expected %s (sha256 %s), got %s (sha256 %s) — %s", what, want, v.SHA256, gotText, got, v.Why), v.Canonical, text)
				o.Diff = check.DiffBytes([]byte(v.Canonical), []byte(text))
				return o
			}
			if level == check.May {
				return check.Chose(check.ChoseOutput)
			}
			return check.Passed()
		},
	}
}

func jcsCheck(cl *clauses, j JCSCase) check.Check {
	return check.Check{
		ID:            "cdc/canonical/jcs/" + j.File,
		Level:         check.Must,
		Clause:        cl.canonical,
		Doc:           "canonical bytes of RFC 8785's " + j.File + " test data",
		Needs:         []string{OpCanonicalise},
		MissingReason: notCanonical,
		Explain:       "sends: canonicalise of conformance/jcs/input/" + j.File + ".json, as value and value_text\nexpects: the bytes of conformance/jcs/outhex/" + j.File + ".txt",
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			e := canonicalising(j.Input, "canonical/jcs/"+j.File, "")
			words := e.Words
			e.Words = func(m check.Miss) check.Outcome {
				o := words(m)
				if m.Kind == check.Differs {
					o.Reason = "canonical/jcs/" + j.File + ": bytes differ from RFC 8785's reference output. Got " + jsonText(m.OK.Str) + "."
				}
				return o
			}
			return e.Bytes(ctx, s, "canonical bytes", j.Want)
		},
	}
}

func mustFailCheck(cl *clauses, name, construct, why string) check.Check {
	value := "Infinity"
	if construct == "NaN" {
		value = "NaN"
	}
	args := map[string]any{"value": map[string]any{"x": nil}, "value_text": `{"x":null}`, "nonfinite": map[string]string{"path": "/x", "value": value}}
	return check.Check{
		ID:            "cdc/canonical/" + name,
		Level:         check.Must,
		Clause:        cl.nonFinite,
		Doc:           "canonicalising " + value + " must fail: " + check.Clip(check.OneLine(why)),
		Needs:         []string{OpCanonicalise},
		MissingReason: notCanonical,
		Explain:       `sends: canonicalise {"value": {"x": null}, "value_text": "{\"x\":null}", "nonfinite": {"path": "/x", "value": "` + value + `"}}` + "\nexpects: err (the adapter puts its language's " + value + " at /x)",
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return check.Expect{
				Op: OpCanonicalise, Args: args, Because: "canonical/" + name + ": serialised without failing, but it must fail — " + why,
				Words: func(m check.Miss) check.Outcome { // Accepted, the one miss of Refused with no code
					o := m.Outcome
					o.Actual, o.Notes = m.OK.String(), nil
					return o
				},
			}.Refused(ctx, s)
		},
	}
}
