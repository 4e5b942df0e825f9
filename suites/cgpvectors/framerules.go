package cgpvectors

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/lazy"
)

// FrameRulesFile holds referee's frame-validity vectors: frames, each with
// the exact set of rules it violates.
const FrameRulesFile = "frame-rules.json"

//go:embed framerules
var embeddedFrameRules embed.FS

// FrameRules returns referee's frame-validity vectors. They are not part of
// a fixture profile nor of upstream's vector files: they come with referee
// whatever --corpus and --vectors say.
func FrameRules() (*corpus.Corpus, error) {
	sub, err := fs.Sub(embeddedFrameRules, "framerules")
	if err != nil {
		return nil, err
	}
	return corpus.Open(sub, "embedded:cgp-frame-rules")
}

// FrameRuleCase is one frame-validity vector.
type FrameRuleCase struct {
	Name  string
	Note  string
	Frame canon.Value
	Rules []string // the rules the frame violates, sorted; empty for a valid frame
}

// isCaseName reports whether name is lowercase words of a-z and 0-9 joined
// by single hyphens.
func isCaseName(name string) bool {
	if name == "" || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// ReadFrameRules reads frame-rules.json strictly ({note, cases: [{name,
// rules, note, frame}]}) and checks every case against the Go reference:
// a frame whose rules are not exactly those FrameViolations finds is a
// corpus error, so a case cannot say what it does not mean.
func ReadFrameRules(c *corpus.Corpus) ([]FrameRuleCase, error) {
	where := fmt.Sprintf("corpus %s: %s", c.Name, FrameRulesFile)
	v, err := readValue(c, FrameRulesFile)
	if err != nil {
		return nil, err
	}
	f, err := fields(v, where, "note", "cases")
	if err != nil {
		return nil, err
	}
	if f["cases"].Kind != canon.Array || len(f["cases"].Elems) == 0 {
		return nil, fmt.Errorf("%s: cases is not a non-empty array", where)
	}
	var out []FrameRuleCase
	seen := corpus.Names{}
	for i, e := range f["cases"].Elems {
		w := fmt.Sprintf("%s: case %d", where, i)
		cf, err := fields(e, w, "name", "rules", "note", "frame")
		if err != nil {
			return nil, err
		}
		if cf["name"].Kind != canon.String || !isCaseName(cf["name"].Str) {
			return nil, fmt.Errorf("%s: name is not a lowercase-hyphenated string", w)
		}
		fc := FrameRuleCase{Name: cf["name"].Str, Note: cf["note"].Str, Frame: cf["frame"], Rules: []string{}}
		w = fmt.Sprintf("%s (%q)", w, fc.Name)
		if err := seen.Add(fc.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", w, err)
		}
		if cf["note"].Kind != canon.String {
			return nil, fmt.Errorf("%s: note is not a string", w)
		}
		if cf["rules"].Kind != canon.Array {
			return nil, fmt.Errorf("%s: rules is not an array", w)
		}
		for _, r := range cf["rules"].Elems {
			if r.Kind != canon.String || !slices.Contains(Rules, r.Str) {
				return nil, fmt.Errorf("%s: rules: %s is not one of %s", w, r.String(), strings.Join(Rules, ", "))
			}
			if slices.Contains(fc.Rules, r.Str) {
				return nil, fmt.Errorf("%s: rules: %s twice", w, r.Str)
			}
			fc.Rules = append(fc.Rules, r.Str)
		}
		slices.Sort(fc.Rules)
		got := FrameViolations(fc.Frame)
		if gs := RuleSet(got); !slices.Equal(gs, fc.Rules) {
			var msgs []string
			for _, x := range got {
				msgs = append(msgs, x.Rule+" "+x.Field+": "+x.Msg)
			}
			return nil, fmt.Errorf("%s: says rules %s; the Go reference finds %s (%s)", w, ruleList(fc.Rules), ruleList(gs), strings.Join(msgs, "; "))
		}
		out = append(out, fc)
	}
	return out, nil
}

// ruleList writes a rule set as [F1, B3], or [] for none.
func ruleList(rules []string) string { return "[" + strings.Join(rules, ", ") + "]" }

// ruleDocs says what each rule requires, for a failure's notes.
var ruleDocs = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"F1":          "F1: score (an f32) is in [0,1], both ends included",
		"F2":          "F2: title is not blank (empty once Unicode White_Space is trimmed)",
		"F3":          "F3: citation_label is present and not blank",
		"P1":          "P1: representation, absent meaning full, is full, compact or reference; a full frame has content (\"\" counts)",
		"P2":          "P2: a compact frame has content, content_digest, canonical_content_hash, transform and content_ref",
		"P3":          "P3: a reference frame has content_ref and canonical_content_hash, and none of content, content_digest, transform",
		"P4":          "P4: a reference frame's token_cost is 0",
		"F4":          "F4: valid_from, valid_to, recorded_at and content_ref.expires_at are YYYY-MM-DDTHH:MM:SS[.f]Z, a real Gregorian date, hour <= 23, minute <= 59, second <= 60",
		"Q2":          "Q2: valid_to is strictly after valid_from, as instants (when both are present and pass F4)",
		"D1":          "D1: content_digest and canonical_content_hash are sha256: and 64 lowercase hex; content_digest is the SHA-256 of the content's UTF-8 bytes",
		"F5":          "F5: a provenance link of type file has a digest in D1's grammar",
		"G1":          "G1: every relation has a display_name that is not blank",
		"G2":          "G2: every relation's target_uri is not blank",
		"F6":          "F6: a frame has no attestation member (null aside)",
		RuleTokenCost: "B3: token_cost is ceil(UTF-8 bytes of content / 4), 0 without content",
		RuleShape:     "shape: the frame decodes as a ContextFrame (an object; score a number, token_cost an integer in 0..2^32-1, strings strings)",
	}
}}

func frameRuleCheck(fc FrameRuleCase) check.Check {
	want := `{"valid":true,"violations":[]}`
	if len(fc.Rules) > 0 {
		want = `{"valid":false,"violations":[...]} naming exactly the rules ` + ruleList(fc.Rules)
	}
	return check.Check{
		ID:      "cgp-vectors/frame-rules/" + fc.Name,
		Doc:     "checkFrame answers the " + fc.Name + " frame with exactly the rules " + ruleList(fc.Rules) + ": " + fc.Note,
		Needs:   []string{OpCheckFrame},
		Explain: fmt.Sprintf("sends: checkFrame {\"frame\": %s}\nexpects: ok %s (in any order, a rule may repeat)", check.Clip(fc.Frame.String()), want),
		Clause:  rulesClause(fc.Rules, fc.Note),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			vd, o, ok := checkFrame(ctx, s, fc.Frame, want)
			if !ok {
				return o
			}
			got := vd.rules()
			if slices.Equal(got, fc.Rules) {
				return check.Passed()
			}
			// The class in brackets (ruleDiff) keeps distinct bugs apart in a
			// fuzz finding's failure key.
			o = check.Failed("checkFrame names other rules ["+ruleDiff(fc.Frame, fc.Rules, vd)+"]", "rules "+ruleList(fc.Rules), "rules "+ruleList(got))
			o.Notes = append(o.Notes, fc.Note)
			for _, r := range Rules {
				missing, extra := slices.Contains(fc.Rules, r) && !slices.Contains(got, r), !slices.Contains(fc.Rules, r) && slices.Contains(got, r)
				switch {
				case missing:
					o.Notes = append(o.Notes, "not named: "+ruleDocs.Get()[r])
				case extra:
					o.Notes = append(o.Notes, "named, but the frame keeps it: "+ruleDocs.Get()[r]+vd.said(r))
				}
			}
			for _, r := range got {
				if !slices.Contains(Rules, r) {
					o.Notes = append(o.Notes, "named "+strconv.Quote(r)+", which is none of "+strings.Join(Rules, ", "))
				}
			}
			return o
		},
	}
}

// frameVerdict is checkFrame's ok, read.
type frameVerdict struct {
	valid      bool
	violations []verdictViolation
}

type verdictViolation struct{ rule, field, message string }

// rules is the sorted set of the verdict's rules.
func (v frameVerdict) rules() []string {
	out := []string{}
	for _, x := range v.violations {
		if !slices.Contains(out, x.rule) {
			out = append(out, x.rule)
		}
	}
	slices.Sort(out)
	return out
}

// has reports whether the verdict names rule on field.
func (v frameVerdict) has(rule, field string) bool {
	return slices.ContainsFunc(v.violations, func(x verdictViolation) bool { return x.rule == rule && x.field == field })
}

// said is what the adapter said of rule, for a note.
func (v frameVerdict) said(rule string) string {
	for _, x := range v.violations {
		if x.rule == rule {
			return fmt.Sprintf(" (the adapter: field %q, %q)", x.field, check.Clip(x.message))
		}
	}
	return ""
}

func (v frameVerdict) String() string {
	if len(v.violations) == 0 {
		return fmt.Sprintf(`{"valid":%t}`, v.valid)
	}
	var parts []string
	for _, x := range v.violations {
		parts = append(parts, fmt.Sprintf(`{"rule":%q,"field":%q}`, x.rule, x.field))
	}
	return fmt.Sprintf(`{"valid":%t,"violations":[%s]}`, v.valid, strings.Join(parts, ","))
}

// checkFrame calls checkFrame and reads its ok: valid, and the violations
// (absent violations, on an invalid frame, read as the single violation
// of ok's own rule and field, as adapters written before the list answer).
func checkFrame(ctx context.Context, s *check.Session, frame canon.Value, want string) (frameVerdict, check.Outcome, bool) {
	var vd frameVerdict
	r, o, ok := check.Expect{Op: OpCheckFrame, Args: withText("frame", frame), Want: want, Words: erred("threw")}.Object(ctx, s)
	if !ok {
		return vd, o, false
	}
	bad := func(what string) (frameVerdict, check.Outcome, bool) {
		return vd, check.Failed("checkFrame's ok "+what, want, check.Clip(r.String())), false
	}
	valid, ok := r.Lookup("valid")
	if !ok || valid.Kind != canon.Bool {
		return bad("has no boolean valid")
	}
	vd.valid = valid.Bool
	str := func(o canon.Value, key string) (string, bool) {
		x, ok := o.Lookup(key)
		if !ok {
			return "", true
		}
		return x.Str, x.Kind == canon.String
	}
	list, hasList := r.Lookup("violations")
	switch {
	case hasList && list.Kind != canon.Array:
		return bad("has a violations member that is not an array")
	case hasList:
		for i, e := range list.Elems {
			if e.Kind != canon.Object {
				return bad(fmt.Sprintf("has violations[%d] that is not an object", i))
			}
			rule, ok1 := str(e, "rule")
			field, ok2 := str(e, "field")
			message, ok3 := str(e, "message")
			if !ok1 || !ok2 || !ok3 || rule == "" {
				return bad(fmt.Sprintf("has violations[%d] without a string rule (field and message, when given, strings)", i))
			}
			vd.violations = append(vd.violations, verdictViolation{rule, field, message})
		}
	case !vd.valid:
		rule, ok1 := str(r, "rule")
		field, ok2 := str(r, "field")
		message, _ := str(r, "message")
		if ok1 && ok2 && rule != "" {
			vd.violations = []verdictViolation{{rule, field, message}}
		}
	}
	switch {
	case vd.valid && len(vd.violations) > 0:
		return bad("says valid but lists violations")
	case !vd.valid && len(vd.violations) == 0:
		return bad("says invalid but names no rule")
	}
	return vd, check.Outcome{}, true
}
