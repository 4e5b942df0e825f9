package cgpvectors

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/protocols/cgp"
)

// A failed frame-rules check names how the rules differ, with what the
// rule turns on in the frame ("misses F4 (calendar)", "adds F3 (not
// blank)"): the failure's class, which the fuzzer keeps in its failure
// key, so that two bugs of checkFrame failing the same check on different
// frames (a calendar left unchecked, an offset accepted; a blank title, a
// blank citation label) are two findings, while one bug over many frames
// stays one. The class is the first rule that differs, in the order of
// Rules (a later one is most often its consequence: a timestamp F4
// wrongly accepts then breaks Q2), and its facet: a word of a small closed
// set, read from the frame (and, for a rule the implementation adds, from
// the field it names).

// ruleDiff says how the rules got differ from want for frame: the first
// rule missed or added, in the order of Rules, with its facet. A shape on
// either side comes first: the other rules then follow from how the frame
// was read.
func ruleDiff(frame canon.Value, want []string, vd frameVerdict) string {
	got := vd.rules()
	switch {
	case slices.Contains(want, RuleShape) && !slices.Contains(got, RuleShape):
		return "misses shape (" + shapeFacet(frame) + ")"
	case !slices.Contains(want, RuleShape) && slices.Contains(got, RuleShape):
		return "adds shape"
	}
	for _, rule := range Rules {
		missing, extra := slices.Contains(want, rule) && !slices.Contains(got, rule), !slices.Contains(want, rule) && slices.Contains(got, rule)
		if !missing && !extra {
			continue
		}
		word, field := "misses ", ""
		if missing {
			for _, x := range FrameViolations(frame) {
				if x.Rule == rule {
					field = x.Field
					break
				}
			}
		} else {
			word = "adds "
			for _, x := range vd.violations {
				if x.rule == rule {
					field = x.field
					break
				}
			}
		}
		f, _ := DecodeFrame(frame)
		if facet := ruleFacet(rule, field, frame, f); facet != "" {
			return word + rule + " (" + facet + ")"
		}
		return word + rule
	}
	return "adds a rule of its own"
}

// ruleFacet is what rule turns on in the frame, at field when the rule
// has several (a timestamp, a relation's member); "" when nothing is known.
func ruleFacet(rule, field string, v canon.Value, f *cgp.ContextFrame) string {
	if f == nil {
		return ""
	}
	member := func(def string) (canon.Value, bool) {
		if field == "" {
			field = def
		}
		return memberAt(v, field)
	}
	switch rule {
	case "F1":
		s, _ := v.Lookup("score")
		return scoreFacet(s.Num)
	case "F2", "F3", "G1", "G2":
		def := map[string]string{"F2": "title", "F3": "citation_label"}[rule]
		if def == "" && !strings.HasPrefix(field, "relations[") {
			return ""
		}
		x, ok := member(def)
		switch {
		case !ok || x.Kind == canon.Null:
			return "absent"
		case x.Kind != canon.String:
			return "not a string"
		}
		return textFacet(x.Str)
	case "F4":
		x, ok := member("")
		if !ok || x.Kind != canon.String {
			return ""
		}
		return stampFacet(x.Str)
	case "Q2":
		if f.ValidFrom == nil || f.ValidTo == nil {
			return ""
		}
		return windowFacet(*f.ValidFrom, *f.ValidTo)
	case "P1", "P2", "P3", "P4":
		return repFacet(f)
	case "D1":
		x, ok := member("content_digest")
		if !ok || x.Kind != canon.String {
			return ""
		}
		return digestFacet(x.Str, f.Content, field == "content_digest")
	case "F5":
		x, ok := member("")
		switch {
		case !strings.HasPrefix(field, "provenance["):
			return ""
		case !ok || x.Kind == canon.Null:
			return "missing"
		}
		return digestFacet(x.Str, nil, false)
	case RuleTokenCost:
		return costFacet(f)
	}
	return ""
}

// memberAt is the member of v a field names (relations[0].display_name).
func memberAt(v canon.Value, field string) (canon.Value, bool) {
	if field == "" {
		return canon.Value{}, false
	}
	for _, part := range strings.Split(field, ".") {
		name, index, indexed := strings.Cut(part, "[")
		x, ok := v.Lookup(name)
		if !ok {
			return canon.Value{}, false
		}
		v = x
		if indexed {
			i, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			if err != nil || v.Kind != canon.Array || i < 0 || i >= len(v.Elems) {
				return canon.Value{}, false
			}
			v = v.Elems[i]
		}
	}
	return v, true
}

// scoreFacet places a score: "bound" (0 or 1 as an f32), "in" or "out",
// and ", f64 in" or ", f64 out" when the double it reads as falls on the
// other side of [0, 1].
func scoreFacet(lex string) string {
	x64, err1 := strconv.ParseFloat(lex, 64)
	x32, err2 := strconv.ParseFloat(lex, 32)
	if err1 != nil || err2 != nil {
		return ""
	}
	in := func(x float64) bool { return x >= 0 && x <= 1 }
	s := "in"
	switch {
	case x32 == 0 || x32 == 1:
		s = "bound"
	case !in(x32):
		s = "out"
	}
	if in(x32) != in(x64) {
		s += ", f64 " + map[bool]string{true: "in", false: "out"}[in(x64)]
	}
	return s
}

// textFacet places a string for the blank tests: "empty", "blank" (only
// Unicode White_Space) or "not blank".
func textFacet(s string) string {
	switch {
	case s == "":
		return "empty"
	case cgp.IsBlank(s):
		return "blank"
	}
	return "not blank"
}

// stampFacet places a timestamp: "grammar" (outside F4's), "calendar" (a
// month, day, hour, minute or second out of its range), or, for one F4
// accepts, "leap second", "leap day" or "valid".
func stampFacet(s string) string {
	switch {
	case !timestampZ.MatchString(s):
		return "grammar"
	case cgp.CheckTimestamp(s) != nil:
		return "calendar"
	case s[17:19] == "60": // YYYY-MM-DDTHH:MM:SS..., as the grammar has it
		return "leap second"
	case s[5:10] == "02-29":
		return "leap day"
	}
	return "valid"
}

// windowFacet places a validity window: "equal" (the same text), "same
// instant, spelled apart", "leap second" (either end is one), "fraction"
// (either end has one) or "order".
func windowFacet(from, to string) string {
	c, err := cgp.CompareTimestamps(to, from)
	switch {
	case err != nil:
		return ""
	case from == to:
		return "equal"
	case c == 0:
		return "same instant, spelled apart"
	case strings.Contains(from, ":60") || strings.Contains(to, ":60"):
		return "leap second"
	case strings.Contains(from, ".") || strings.Contains(to, "."):
		return "fraction"
	}
	return "order"
}

// repFacet is a frame's representation (full, compact, reference or
// unknown) and whether it has content: "full, empty content".
func repFacet(f *cgp.ContextFrame) string {
	rep := "full"
	if f.Representation != nil {
		rep = *f.Representation
		if rep != "full" && rep != "compact" && rep != "reference" {
			rep = "unknown"
		}
	}
	switch {
	case f.Content == nil:
		return rep + ", no content"
	case *f.Content == "":
		return rep + ", empty content"
	}
	return rep + ", content"
}

// digestFacet places a digest: "grammar" (outside D1's), "uppercase" (in
// it but for case), "other bytes" (in it, not the SHA-256 of content, when
// verify and content is given) or "valid".
func digestFacet(d string, content *string, verify bool) string {
	switch {
	case !cgp.DigestPattern.MatchString(d) && cgp.DigestPattern.MatchString("sha256:"+strings.ToLower(strings.TrimPrefix(d, "sha256:"))):
		return "uppercase"
	case !cgp.DigestPattern.MatchString(d):
		return "grammar"
	case verify && content != nil && cgp.DigestOf([]byte(*content)) != d:
		return "other bytes"
	}
	return "valid"
}

// costFacet is what B3 turns on: the content (none, empty, ascii or
// non-ascii, whose bytes, UTF-16 units and code points part), and
// "reference" for a reference frame.
func costFacet(f *cgp.ContextFrame) string {
	s := "ascii"
	switch {
	case f.Content == nil:
		s = "no content"
	case *f.Content == "":
		s = "empty content"
	case utf8.RuneCountInString(*f.Content) != len(*f.Content):
		s = "non-ascii"
	}
	if f.Representation != nil && *f.Representation == "reference" {
		s = "reference, " + s
	}
	return s
}

// shapeFacet says why the reference refuses a frame as shape: "not an
// object", "type" (a member of the wrong type, a name in another case) or
// "required member" (one missing or null).
func shapeFacet(v canon.Value) string {
	switch {
	case v.Kind != canon.Object:
		return "not an object"
	case func() bool { _, err := decodeFrame(v); return err != nil }():
		return "type"
	}
	return "required member"
}
