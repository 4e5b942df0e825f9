package cgpvectors

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/internal/lazyregexp"
	"github.com/refereehq/referee/protocols/cgp"
)

// The rules checkFrame answers beyond cgp.ValidateFrame's.
const (
	// RuleTokenCost is B3: token_cost is ceil(UTF-8 bytes of content / 4),
	// 0 for a frame without content.
	RuleTokenCost = "B3"
	// RuleShape is a frame that does not decode as a ContextFrame.
	RuleShape = "shape"
)

// Rules are the rule names checkFrame can answer, in the order the docs
// list them.
var Rules = []string{"F1", "F2", cgp.RuleCitation, "P1", "P2", "P3", "P4", "F4", "Q2", "D1", "F5", "G1", "G2", "F6", RuleTokenCost, RuleShape}

// DecodeFrame reads a frame as the reference host reads a served one: the
// wire type cgp.ContextFrame, through cgp.DecodeEnvelope, which reads as
// serde does (unknown members ignored, repeated or not; a field twice, a
// field's name in another case without the field, a lone surrogate escape
// and a member of the wrong type refused), then cgp.CheckFrameMembers (a
// required member, at any level, missing or null). It is an error for a
// frame that is not an object.
func DecodeFrame(v canon.Value) (*cgp.ContextFrame, error) {
	f, err := decodeFrame(v)
	if err != nil {
		return nil, err
	}
	// encoding/json reads a missing required member as its zero value,
	// where serde refuses the frame: a required member missing or null is
	// no ContextFrame.
	if err := cgp.CheckFrameMembers(v); err != nil {
		return nil, fmt.Errorf("the frame does not decode as a ContextFrame: %v", err)
	}
	return f, nil
}

// decodeFrame is DecodeFrame without the required-member check: what
// encoding/json alone makes of a frame.
func decodeFrame(v canon.Value) (*cgp.ContextFrame, error) {
	if v.Kind != canon.Object {
		return nil, fmt.Errorf("a frame is an object, not %s", v.Kind)
	}
	env, err := cgp.DecodeEnvelope([]byte(`{"type":"frames","result":{"frames":[` + v.String() + `],"truncated":false}}`))
	if err != nil {
		return nil, fmt.Errorf("the frame does not decode as a ContextFrame: %v", err)
	}
	if env.Result == nil || len(env.Result.Frames) != 1 {
		return nil, fmt.Errorf("the frame does not decode as a ContextFrame")
	}
	return &env.Result.Frames[0], nil
}

// FrameViolations is what the reference's checkFrame answers for a frame:
// every violation of cgp.ValidateFrame, then B3, or a single shape
// violation for a frame that DecodeFrame refuses. None for a valid frame.
func FrameViolations(v canon.Value) []cgp.Violation {
	f, err := DecodeFrame(v)
	if err != nil {
		return []cgp.Violation{{Rule: RuleShape, Field: "", Msg: err.Error()}}
	}
	return validate(f)
}

// RuleSet is the sorted set of the rules of vs.
func RuleSet(vs []cgp.Violation) []string {
	out := []string{}
	for _, v := range vs {
		if !slices.Contains(out, v.Rule) {
			out = append(out, v.Rule)
		}
	}
	slices.Sort(out)
	return out
}

func validate(f *cgp.ContextFrame) []cgp.Violation {
	vs := cgp.ValidateFrame(f)
	if want := cgp.CanonicalTokenCost(f); f.TokenCost != want {
		vs = append(vs, tokenCostViolation(f.TokenCost, want, "UTF-8 bytes"))
	}
	return vs
}

func tokenCostViolation(got, want uint32, unit string) cgp.Violation {
	return cgp.Violation{Rule: RuleTokenCost, Field: "token_cost", Msg: fmt.Sprintf("token_cost %d is not ceil(%s of content / 4) = %d", got, unit, want)}
}

// frameRule is how the built-in adapter's checkFrame goes wrong, if it does.
type frameRule uint8

const (
	frameRight              frameRule = iota // cgp.ValidateFrame and B3
	citationAbsenceOnly                      // F3: present, blank accepted
	citationOptional                         // F3: non-blank when present, absence accepted
	asciiTrim                                // every blank test trims ASCII whitespace only
	citationCamelCase                        // F3 looks for citationLabel
	scoreExclusive                           // F1: 0 < score < 1
	scoreClamped                             // F1 never fires: the score is clamped first
	timeLenient                              // F4: the grammar only, no calendar ranges
	timeOffsets                              // F4: any RFC 3339 offset, lowercase t and z
	timeNoLeapSecond                         // F4: second 60 refused
	timeNoLeapDays                           // F4: February always has 28 days
	timeJulian                               // F4: every fourth year is a leap year
	timeNoExpiresAt                          // F4 not applied to content_ref.expires_at
	windowInclusive                          // Q2: valid_to may equal valid_from
	windowStrings                            // Q2: the timestamps compared as strings
	representationNamesOnly                  // P1-P3: only the representation's name is checked
	representationOpen                       // P1: an unknown representation is read as full
	referenceMayCost                         // P4 and B3 not applied to a reference frame
	emptyContentAbsent                       // content "" is no content
	digestAnyCase                            // D1, F5: uppercase hex accepted
	digestUnverified                         // D1: content_digest never recomputed
	fileDigestOptional                       // F5: a file link may lack a digest
	displayNameOptional                      // G1: a relation may lack display_name
	attestationIgnored                       // F6: an attestation member is ignored, as unknown members are
	costUTF16                                // B3 counts UTF-16 code units
	costCodePoints                           // B3 counts code points
	costFloor                                // B3 rounds down
	looseNumbers                             // score and token_cost read as JavaScript's Number() does
	firstViolationOnly                       // only the first violation is answered
	jsTrim                                   // every blank test trims as String.prototype.trim does
	pythonSpace                              // every blank test trims as Python's str.strip() does
	javaSpace                                // every blank test trims Java's Character.isWhitespace
	scoreF64                                 // F1 reads score as a double, not an f32
	timeLeapNextMinute                       // Q2 reads second 60 as the next minute's first second
	zeroValueMembers                         // a missing required member reads as its zero value
	scoreTruncated                           // F1 on the score narrowed to an f32 toward zero
)

func (r frameRule) timeMode() bool {
	return r >= timeLenient && r <= windowStrings || r == timeLeapNextMinute
}

// trimmers are the blank tests of common libraries, where they differ from
// Unicode White_Space (Rust's str::trim, the rule).
var trimmers = &lazy.Value[map[frameRule]func(rune) bool]{New: func() map[frameRule]func(rune) bool {
	return map[frameRule]func(rune) bool{
		asciiTrim: func(c rune) bool { return strings.ContainsRune(" \t\n\r\f\v", c) },
		// ECMAScript's WhiteSpace and LineTerminator: U+FEFF is one, U+0085 not.
		jsTrim: func(c rune) bool {
			return c != 0x85 && (unicode.Is(unicode.White_Space, c) || c == 0xFEFF)
		},
		// str.isspace: bidirectional types WS, B and S too, so U+001C to
		// U+001F are whitespace.
		pythonSpace: func(c rune) bool { return unicode.Is(unicode.White_Space, c) || 0x1C <= c && c <= 0x1F },
		// Character.isWhitespace: no-break spaces and U+0085 are not, U+001C to
		// U+001F are.
		javaSpace: func(c rune) bool {
			switch {
			case c == 0xA0 || c == 0x2007 || c == 0x202F || c == 0x85:
				return false
			case 0x1C <= c && c <= 0x1F:
				return true
			}
			return unicode.Is(unicode.White_Space, c)
		},
	}
}}

// checkFrame is the built-in adapter's checkFrame: FrameViolations, or the
// mode's mistake.
func (h *Handler) checkFrame(v canon.Value) []cgp.Violation {
	r := h.mode.frame
	switch r {
	case frameRight:
		return FrameViolations(v)
	case citationCamelCase:
		v = renameMember(v, "citationLabel", "citation_label")
	case looseNumbers:
		v = loosen(v)
	}
	decode := DecodeFrame
	if r == zeroValueMembers {
		decode = decodeFrame // reads a missing member as its zero value
	}
	f, err := decode(v)
	if err != nil {
		return []cgp.Violation{{Rule: RuleShape, Field: "", Msg: err.Error()}}
	}
	g := *f
	switch r {
	case emptyContentAbsent:
		if g.Content != nil && *g.Content == "" {
			g.Content = nil
		}
	case digestAnyCase:
		lower := func(s *string) *string {
			if s == nil {
				return nil
			}
			return cgp.Str(strings.ToLower(*s))
		}
		g.ContentDigest, g.CanonicalContentHash = lower(g.ContentDigest), lower(g.CanonicalContentHash)
		g.Provenance = slices.Clone(g.Provenance)
		for i := range g.Provenance {
			g.Provenance[i].Digest = lower(g.Provenance[i].Digest)
		}
	case attestationIgnored:
		g.Attestation = nil
	}
	vs := validate(&g)
	rep := "full"
	if g.Representation != nil {
		rep = *g.Representation
	}
	known := rep == "full" || rep == "compact" || rep == "reference"
	blank := cgp.IsBlank
	switch {
	case r == scoreExclusive:
		vs = drop(vs, "F1")
		if s := float64(g.Score); !(s > 0 && s < 1) {
			vs = append(vs, cgp.Violation{Rule: "F1", Field: "score", Msg: fmt.Sprintf("score %v is outside (0,1)", g.Score)})
		}
	case r == scoreClamped:
		vs = drop(vs, "F1")
	case r == scoreF64:
		vs = drop(vs, "F1")
		if sc, ok := v.Lookup("score"); ok {
			if x, err := strconv.ParseFloat(sc.Num, 64); err == nil && (x < 0 || x > 1) {
				vs = append(vs, cgp.Violation{Rule: "F1", Field: "score", Msg: fmt.Sprintf("score %v is outside [0,1]", x)})
			}
		}
	case r == scoreTruncated:
		vs = drop(vs, "F1")
		if sc, ok := v.Lookup("score"); ok {
			if x, err := strconv.ParseFloat(sc.Num, 64); err == nil {
				if f := truncatedF32(x); f < 0 || f > 1 {
					vs = append(vs, cgp.Violation{Rule: "F1", Field: "score", Msg: fmt.Sprintf("score %v is outside [0,1]", f)})
				}
			}
		}
	case r.timeMode():
		vs = append(drop(vs, "F4", "Q2"), r.timeViolations(&g)...)
	case r == representationNamesOnly:
		vs = drop(vs, "P1", "P2", "P3")
		if !known {
			vs = append(vs, cgp.Violation{Rule: "P1", Field: "representation", Msg: fmt.Sprintf("representation %q is none of full, compact, reference", rep)})
		}
	case r == representationOpen && !known:
		vs = drop(vs, "P1", "P2", "P3", "P4")
		full := g
		full.Representation = nil
		for _, x := range validate(&full) {
			if strings.HasPrefix(x.Rule, "P") {
				vs = append(vs, x)
			}
		}
	case r == referenceMayCost && rep == "reference":
		vs = drop(vs, "P4", RuleTokenCost)
	case r == digestUnverified:
		vs = slices.DeleteFunc(vs, func(x cgp.Violation) bool {
			return x.Rule == "D1" && x.Field == "content_digest" && cgp.DigestPattern.MatchString(*g.ContentDigest)
		})
	case r == fileDigestOptional:
		vs = drop(vs, "F5")
		for k, l := range g.Provenance {
			if l.Type == "file" && l.Digest != nil && !cgp.DigestPattern.MatchString(*l.Digest) {
				vs = append(vs, cgp.Violation{Rule: "F5", Field: fmt.Sprintf("provenance[%d].digest", k), Msg: "a file link's digest is not `sha256:<64 lowercase hex>`"})
			}
		}
	case r == displayNameOptional:
		vs = drop(vs, "G1")
		for k, rel := range g.Relations {
			if rel.DisplayName != nil && blank(*rel.DisplayName) {
				vs = append(vs, cgp.Violation{Rule: "G1", Field: fmt.Sprintf("relations[%d].display_name", k), Msg: "a blank display_name"})
			}
		}
	case trimmers.Get()[r] != nil || r == citationAbsenceOnly || r == citationOptional:
		if space := trimmers.Get()[r]; space != nil {
			blank = func(s string) bool { return strings.TrimFunc(s, space) == "" }
		}
		vs = drop(vs, "F2", cgp.RuleCitation, "G1", "G2")
		if blank(g.Title) {
			vs = append(vs, cgp.Violation{Rule: "F2", Field: "title", Msg: "has an empty title"})
		}
		label := g.CitationLabel
		if (label == nil && r != citationOptional) || (label != nil && r != citationAbsenceOnly && blank(*label)) {
			vs = append(vs, cgp.Violation{Rule: cgp.RuleCitation, Field: "citation_label", Msg: "is missing or blank"})
		}
		for k, rel := range g.Relations {
			if rel.DisplayName == nil || blank(*rel.DisplayName) {
				vs = append(vs, cgp.Violation{Rule: "G1", Field: fmt.Sprintf("relations[%d].display_name", k), Msg: "no display_name"})
			}
			if blank(rel.TargetURI) {
				vs = append(vs, cgp.Violation{Rule: "G2", Field: fmt.Sprintf("relations[%d].target_uri", k), Msg: "an empty target_uri"})
			}
		}
	case r == costUTF16 || r == costCodePoints || r == costFloor:
		vs = drop(vs, RuleTokenCost)
		var want uint32
		unit := "UTF-8 bytes"
		if g.Content != nil {
			switch r {
			case costUTF16:
				want, unit = uint32((canon.UTF16Len(*g.Content)+3)/4), "UTF-16 code units"
			case costCodePoints:
				want, unit = uint32((canon.CodePoints(*g.Content)+3)/4), "code points"
			case costFloor:
				want = uint32(len(*g.Content) / 4)
			}
		}
		if g.TokenCost != want {
			vs = append(vs, tokenCostViolation(g.TokenCost, want, unit))
		}
	case r == firstViolationOnly && len(vs) > 1:
		vs = vs[:1]
	}
	return vs
}

// truncatedF32 narrows x to an f32 toward zero, as a conversion that drops
// the double's low mantissa bits does, where the wire's f32 is the nearest.
func truncatedF32(x float64) float32 {
	f := float32(x)
	if math.Abs(float64(f)) > math.Abs(x) {
		f = math.Nextafter32(f, 0)
	}
	return f
}

// drop removes the violations of rules.
func drop(vs []cgp.Violation, rules ...string) []cgp.Violation {
	return slices.DeleteFunc(vs, func(x cgp.Violation) bool { return slices.Contains(rules, x.Rule) })
}

// renameMember renames a top-level member from to to, dropping any member
// already called to.
func renameMember(v canon.Value, from, to string) canon.Value {
	if v.Kind != canon.Object {
		return v
	}
	out := canon.Value{Kind: canon.Object}
	for _, m := range v.Members {
		switch m.Key {
		case to:
			continue
		case from:
			m.Key = to
		}
		out.Members = append(out.Members, m)
	}
	return out
}

// loosen reads score and token_cost as JavaScript's Number() and a
// truncating integer read would: a numeric string is its number, a
// fractional token_cost its integer part.
func loosen(v canon.Value) canon.Value {
	if v.Kind != canon.Object {
		return v
	}
	out := canon.Value{Kind: canon.Object, Members: slices.Clone(v.Members)}
	for i, m := range out.Members {
		switch {
		case m.Key == "score" && m.Value.Kind == canon.String:
			if _, err := strconv.ParseFloat(strings.TrimSpace(m.Value.Str), 64); err == nil {
				out.Members[i].Value = canon.Value{Kind: canon.Number, Num: strings.TrimSpace(m.Value.Str)}
			}
		case m.Key == "token_cost" && m.Value.Kind == canon.Number:
			if x, err := strconv.ParseFloat(m.Value.Num, 64); err == nil && x >= 0 {
				out.Members[i].Value = canon.Value{Kind: canon.Number, Num: strconv.FormatUint(uint64(x), 10)}
			}
		}
	}
	return out
}

// The timestamp grammars, compiled when first used.
var (
	timestampZ      = lazyregexp.New(`^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z)$`)
	timestampOffset = lazyregexp.New(`^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`)
)

// moment orders instants as F4 has them: the minute, then the nanoseconds
// into it, so a leap second (second 60) comes after second 59 and before
// the next minute.
type moment struct {
	minute time.Time
	nanos  int64
}

func (a moment) after(b moment) bool {
	return a.minute.After(b.minute) || a.minute.Equal(b.minute) && a.nanos > b.nanos
}

// instant reads an F4 timestamp as the rule r does: ok false when r
// refuses it. With frameRight it agrees with cgp.CheckTimestamp and
// cgp.CompareTimestamps (to nine fraction digits).
func (r frameRule) instant(s string) (moment, bool) {
	re := timestampZ
	if r == timeOffsets {
		re = timestampOffset
	}
	m := re.FindStringSubmatch(s)
	if m == nil {
		return moment{}, false
	}
	n := make([]int, 7)
	for i := 1; i <= 6; i++ {
		n[i], _ = strconv.Atoi(m[i])
	}
	year, month, day, hour, minute, second := n[1], n[2], n[3], n[4], n[5], n[6]
	if r != timeLenient {
		leap := year%4 == 0 && (year%100 != 0 || year%400 == 0)
		switch r {
		case timeNoLeapDays:
			leap = false
		case timeJulian:
			leap = year%4 == 0
		}
		days := []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
		if leap {
			days[1] = 29
		}
		maxSecond := 60
		if r == timeNoLeapSecond {
			maxSecond = 59
		}
		if month < 1 || month > 12 || day < 1 || day > days[month-1] || hour > 23 || minute > 59 || second > maxSecond {
			return moment{}, false
		}
	}
	nanos := 0
	if m[7] != "" {
		frac := (m[7][1:] + "000000000")[:9]
		nanos, _ = strconv.Atoi(frac)
	}
	start := time.Date(year, time.Month(month), day, hour, minute, 0, 0, time.UTC)
	if off := m[8]; off != "Z" && off != "z" {
		h, _ := strconv.Atoi(off[1:3])
		mi, _ := strconv.Atoi(off[4:6])
		d := time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute
		if off[0] == '+' {
			d = -d
		}
		start = start.Add(d)
	}
	at := moment{start, int64(second)*1e9 + int64(nanos)}
	if r == timeLeapNextMinute {
		// As time.Date normalises it: second 60 is the next minute's first.
		t := start.Add(time.Duration(at.nanos))
		at = moment{t.Truncate(time.Minute), int64(t.Sub(t.Truncate(time.Minute)))}
	}
	return at, true
}

// timeViolations applies F4 and Q2 as the rule r does.
func (r frameRule) timeViolations(f *cgp.ContextFrame) []cgp.Violation {
	var vs []cgp.Violation
	stamps := []struct {
		name string
		v    *string
	}{{"valid_from", f.ValidFrom}, {"valid_to", f.ValidTo}, {"recorded_at", f.RecordedAt}}
	if f.ContentRef != nil && r != timeNoExpiresAt {
		stamps = append(stamps, struct {
			name string
			v    *string
		}{"content_ref.expires_at", f.ContentRef.ExpiresAt})
	}
	for _, ts := range stamps {
		if ts.v == nil {
			continue
		}
		if _, ok := r.instant(*ts.v); !ok {
			vs = append(vs, cgp.Violation{Rule: "F4", Field: ts.name, Msg: fmt.Sprintf("%q is not an RFC 3339 UTC timestamp", *ts.v)})
		}
	}
	if f.ValidFrom == nil || f.ValidTo == nil {
		return vs
	}
	from, ok1 := r.instant(*f.ValidFrom)
	to, ok2 := r.instant(*f.ValidTo)
	if !ok1 || !ok2 {
		return vs
	}
	empty := !to.after(from)
	switch r {
	case windowInclusive:
		empty = from.after(to)
	case windowStrings:
		empty = *f.ValidTo <= *f.ValidFrom
	}
	if empty {
		vs = append(vs, cgp.Violation{Rule: "Q2", Field: "valid_to", Msg: "valid_to is not after valid_from: an empty validity window"})
	}
	return vs
}

// violationReply is one violation as checkFrame answers it.
type violationReply struct {
	Rule    string `json:"rule"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// frameReply is checkFrame's ok: {"valid":true,"violations":[]}, or
// {"valid":false,"rule","field","message" of the first violation,
// "violations":[every violation]}.
func frameReply(vs []cgp.Violation) json.RawMessage {
	if len(vs) == 0 {
		return json.RawMessage(`{"valid":true,"violations":[]}`)
	}
	list := make([]violationReply, len(vs))
	for i, v := range vs {
		list[i] = violationReply{Rule: v.Rule, Field: v.Field, Message: v.Msg}
	}
	out, _ := json.Marshal(struct {
		Valid      bool             `json:"valid"`
		Rule       string           `json:"rule"`
		Field      string           `json:"field"`
		Message    string           `json:"message"`
		Violations []violationReply `json:"violations"`
	}{false, vs[0].Rule, vs[0].Field, vs[0].Msg, list})
	return out
}
