package cgp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/refereehq/referee/internal/lazyregexp"
)

// The frame rules of SPEC §6, as a host checks a frame it was served.

var (
	// DigestPattern is D1's digest grammar, the only algorithm 1.0 defines.
	DigestPattern    = lazyregexp.New(`^sha256:[0-9a-f]{64}$`)
	timestampPattern = lazyregexp.New(`^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?Z$`)
)

// CheckTimestamp applies F4: YYYY-MM-DDTHH:MM:SS(.f+)?Z, UTC, with real
// calendar ranges (second 60 allowed for a leap second).
func CheckTimestamp(s string) error {
	m := timestampPattern.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("%q is not an RFC 3339 UTC timestamp", s)
	}
	n := make([]int, 7)
	for i := 1; i <= 6; i++ {
		n[i], _ = strconv.Atoi(m[i])
	}
	year, month, day, hour, minute, second := n[1], n[2], n[3], n[4], n[5], n[6]
	days := []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days[1] = 29
	}
	switch {
	case month < 1 || month > 12:
		return fmt.Errorf("%q: month %d", s, month)
	case day < 1 || day > days[month-1]:
		return fmt.Errorf("%q: day %d of month %d", s, day, month)
	case hour > 23 || minute > 59 || second > 60:
		return fmt.Errorf("%q: time of day out of range", s)
	}
	return nil
}

// ValidateFrame applies the frame rules a host can check on a served frame
// (F1–F6, D1, P1–P4, G1, G2, and a non-empty validity window) and returns
// every violation, in the order of the frame's members.
func ValidateFrame(f *ContextFrame) []Violation {
	var v []Violation
	add := func(rule, field, format string, a ...any) {
		v = append(v, Violation{Rule: rule, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if s := float64(f.Score); math.IsNaN(s) || s < 0 || s > 1 {
		add("F1", "score", "score %v is outside [0,1]", f.Score)
	}
	if IsBlank(f.Title) {
		add("F2", "title", "has an empty title")
	}
	if f.CitationLabel == nil || IsBlank(*f.CitationLabel) {
		add("F3", "citation_label", "is missing a citation_label (never a bare id)")
	}
	for _, p := range representationProblems(f) {
		add(p.Rule, "representation", "%s", p.Msg)
	}
	for _, ts := range []struct {
		name string
		v    *string
	}{{"valid_from", f.ValidFrom}, {"valid_to", f.ValidTo}, {"recorded_at", f.RecordedAt}} {
		if ts.v != nil && CheckTimestamp(*ts.v) != nil {
			add("F4", ts.name, "field `%s` is not an RFC 3339 UTC timestamp: %q", ts.name, *ts.v)
		}
	}
	if f.ContentRef != nil && f.ContentRef.ExpiresAt != nil && CheckTimestamp(*f.ContentRef.ExpiresAt) != nil {
		add("F4", "content_ref.expires_at", "field `content_ref.expires_at` is not an RFC 3339 UTC timestamp: %q", *f.ContentRef.ExpiresAt)
	}
	if f.ValidFrom != nil && f.ValidTo != nil {
		if c, err := CompareTimestamps(*f.ValidTo, *f.ValidFrom); err == nil && c <= 0 {
			add("Q2", "valid_to", "valid_to %s is not after valid_from %s: an empty validity window", *f.ValidTo, *f.ValidFrom)
		}
	}
	if f.ContentDigest != nil {
		switch {
		case !DigestPattern.MatchString(*f.ContentDigest):
			add("D1", "content_digest", "content_digest is present but not `sha256:<64 lowercase hex>`: %q", *f.ContentDigest)
		case f.Content != nil && DigestOf([]byte(*f.Content)) != *f.ContentDigest:
			add("D1", "content_digest", "content_digest %s is not the SHA-256 of its content (%s)", *f.ContentDigest, DigestOf([]byte(*f.Content)))
		}
	}
	if f.CanonicalContentHash != nil && !DigestPattern.MatchString(*f.CanonicalContentHash) {
		add("D1", "canonical_content_hash", "canonical_content_hash is not `sha256:<64 lowercase hex>`: %q", *f.CanonicalContentHash)
	}
	for k, l := range f.Provenance {
		if l.Type == "file" && (l.Digest == nil || !DigestPattern.MatchString(*l.Digest)) {
			got := "missing"
			if l.Digest != nil {
				got = strconv.Quote(*l.Digest)
			}
			add("F5", fmt.Sprintf("provenance[%d].digest", k), "provenance[%d] addresses a file but its digest is missing or not `sha256:<64 lowercase hex>`: %s", k, got)
		}
	}
	for k, rel := range f.Relations {
		if rel.DisplayName == nil || IsBlank(*rel.DisplayName) {
			add("G1", fmt.Sprintf("relations[%d].display_name", k), "relation[%d] (%s → %s) has no display_name (a relation is labelled)", k, rel.Rel, rel.TargetURI)
		}
		if IsBlank(rel.TargetURI) {
			add("G2", fmt.Sprintf("relations[%d].target_uri", k), "relation[%d] (%s) has an empty target_uri", k, rel.Rel)
		}
	}
	if len(f.Attestation) > 0 && string(f.Attestation) != "null" {
		add("F6", "attestation", "carries its own attestation member; attestations travel in result.frame_attestations")
	}
	return v
}

// representationProblems applies P1–P4 to a frame.
func representationProblems(f *ContextFrame) []Violation {
	rep := "full"
	if f.Representation != nil {
		rep = *f.Representation
	}
	var missing, present []string
	need := func(ok bool, what string) {
		if !ok {
			missing = append(missing, what)
		}
	}
	rule := "P1"
	switch rep {
	case "full":
		if f.Content == nil {
			return []Violation{{Rule: "P1", Field: "content", Msg: "a full frame has no content"}}
		}
		return nil
	case "compact":
		rule = "P2"
		need(f.Content != nil, "content")
		need(f.ContentDigest != nil, "content_digest")
		need(f.CanonicalContentHash != nil, "canonical_content_hash")
		need(f.Transform != nil, "transform")
		need(f.ContentRef != nil, "content_ref")
	case "reference":
		rule = "P3"
		need(f.ContentRef != nil, "content_ref")
		need(f.CanonicalContentHash != nil, "canonical_content_hash")
		if f.Content != nil {
			present = append(present, "content")
		}
		if f.ContentDigest != nil {
			present = append(present, "content_digest")
		}
		if f.Transform != nil {
			present = append(present, "transform")
		}
	default:
		return []Violation{{Rule: "P1", Field: "representation", Msg: fmt.Sprintf("representation %q is none of full, compact, reference", rep)}}
	}
	var out []Violation
	if len(missing) > 0 {
		out = append(out, Violation{Rule: rule, Field: missing[0], Msg: fmt.Sprintf("a %s frame lacks %s", rep, strings.Join(missing, ", "))})
	}
	if len(present) > 0 {
		out = append(out, Violation{Rule: rule, Field: present[0], Msg: fmt.Sprintf("a %s frame carries %s", rep, strings.Join(present, ", "))})
	}
	if rep == "reference" && f.TokenCost != 0 {
		out = append(out, Violation{Rule: "P4", Field: "token_cost", Msg: fmt.Sprintf("a reference frame costs 0, not token_cost %d", f.TokenCost)})
	}
	return out
}

// CanonicalTokenCost is B3's count: ceil(UTF-8 bytes of content / 4), 0
// for a frame without content.
func CanonicalTokenCost(f *ContextFrame) uint32 {
	if f.Content == nil {
		return 0
	}
	return TokenCost(*f.Content)
}

// TokenCost is B3's count for content: ceil(UTF-8 bytes / 4).
func TokenCost(content string) uint32 { return uint32((len(content) + 3) / 4) }

// CompareTimestamps compares two F4 timestamps as instants: -1 when a is
// before b, 0 when they are the same instant, +1 when a is after b. A
// second 60 is the leap second RFC 3339 §5.7 allows at the end of a
// minute: after second 59 of that minute and before the next minute, so
// 23:59:60.5 is before the next day's 00:00:00. Fractions compare exactly,
// whatever their length. An error names a timestamp F4 refuses.
func CompareTimestamps(a, b string) (int, error) {
	ka, err := instantKey(a)
	if err != nil {
		return 0, err
	}
	kb, err := instantKey(b)
	if err != nil {
		return 0, err
	}
	for i := range ka.fields {
		if c := cmpInt(ka.fields[i], kb.fields[i]); c != 0 {
			return c, nil
		}
	}
	fa, fb := ka.fraction, kb.fraction
	for len(fa) < len(fb) {
		fa += "0"
	}
	for len(fb) < len(fa) {
		fb += "0"
	}
	return strings.Compare(fa, fb), nil
}

// instant is a timestamp's fields, year to second, and its fraction's digits.
type instant struct {
	fields   [6]int
	fraction string
}

func instantKey(s string) (instant, error) {
	if err := CheckTimestamp(s); err != nil {
		return instant{}, err
	}
	m := timestampPattern.FindStringSubmatch(s)
	var k instant
	for i := range k.fields {
		k.fields[i], _ = strconv.Atoi(m[i+1])
	}
	k.fraction = strings.TrimPrefix(m[7], ".")
	return k, nil
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ParseTimestamp reads an optional F4 timestamp; nil when absent. A
// time.Time has no second 60: a leap second reads as the first instant of
// the next minute, so order timestamps with CompareTimestamps.
func ParseTimestamp(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	if err := CheckTimestamp(*s); err != nil {
		return nil, err
	}
	// A leap second (second 60) is the instant after second 59 of that
	// minute, so [23:59:59, 23:59:60) is one second long, not empty.
	text, leap := *s, (*s)[17:19] == "60"
	if leap {
		text = text[:17] + "59" + text[19:]
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return nil, err
	}
	if leap {
		t = t.Add(time.Second)
	}
	return &t, nil
}

// AnchoredOn reports whether a frame is anchored on anchor (G3): its uri, or
// one of its relations' target_uri, is the anchor.
func AnchoredOn(f *ContextFrame, anchor string) bool {
	if f.URI != nil && *f.URI == anchor {
		return true
	}
	for _, r := range f.Relations {
		if r.TargetURI == anchor {
			return true
		}
	}
	return false
}
