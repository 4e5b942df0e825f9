package cgpvectors

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/jsongen"
	"github.com/refereehq/referee/protocols/cgp"
)

// The check-frame target: ContextFrames for checkFrame, each a valid frame
// of one of the three representations with one or two of its rules pushed
// to a boundary: f32 scores either side of 0 and 1 and of the f32s around
// them, timestamps at the edges of F4's grammar and of the calendar and
// windows at Q2's, blank and not-blank strings of every whitespace class,
// honest and dishonest token costs of content in 1 to 4 UTF-8 bytes a
// character, digests in and out of D1's grammar, representations and the
// members each requires or forbids, required members missing or null, and
// members of the wrong type. A found frame is a frame-rules.json case whose
// rules are the reference's.

// frameRuleCaseJSON is a frame-rules.json case, as written.
type frameRuleCaseJSON struct {
	Name  string          `json:"name"`
	Rules []string        `json:"rules"`
	Note  string          `json:"note"`
	Frame json.RawMessage `json:"frame"`
}

// checkFrameVector is the frame-rules.json case of a frame: the rules the
// reference finds it breaks. A frame outside what the vectors settle (a
// score beyond f32 range or read differently straight to f32 and through
// f64, an integral token_cost spelled as a fraction, a timestamp fraction
// of more than nine digits) is not judged.
func checkFrameVector(name string, input []byte) (any, bool) {
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || v.Kind != canon.Object || !settledFrame(v) {
		return nil, false
	}
	return foundEntry{File: FrameRulesFile, Cases: []any{frameRuleCaseJSON{
		Name: name, Rules: RuleSet(FrameViolations(v)), Note: "found by referee fuzz", Frame: json.RawMessage(v.String()),
	}}}, true
}

// settledFrame reports whether the vectors settle what a frame's numbers
// and timestamps mean: see checkFrameVector.
func settledFrame(v canon.Value) bool {
	if s, ok := v.Lookup("score"); ok && s.Kind == canon.Number && !f32Settled(s.Num) {
		return false
	}
	for _, k := range []string{"token_cost", "canonical_token_cost"} {
		if c, ok := v.Lookup(k); ok && c.Kind == canon.Number && strings.ContainsAny(c.Num, ".eE") {
			if x, err := strconv.ParseFloat(c.Num, 64); err != nil || x == math.Trunc(x) {
				return false
			}
		}
	}
	if e, ok := v.Lookup("embedding"); ok {
		if vec, ok := e.Lookup("vector"); ok {
			for _, x := range vec.Elems {
				if x.Kind == canon.Number && !f32Settled(x.Num) {
					return false
				}
			}
		}
	}
	stamps := []canon.Value{}
	for _, k := range []string{"valid_from", "valid_to", "recorded_at"} {
		if s, ok := v.Lookup(k); ok {
			stamps = append(stamps, s)
		}
	}
	if cr, ok := v.Lookup("content_ref"); ok {
		if s, ok := cr.Lookup("expires_at"); ok {
			stamps = append(stamps, s)
		}
	}
	for _, s := range stamps {
		if s.Kind == canon.String && longFraction(s.Str) {
			return false
		}
	}
	return !caseFolded(v, reflect.TypeFor[cgp.ContextFrame]())
}

// caseFolded reports whether an object of v, as the wire type t reads it,
// has a member whose name is one of t's fields only when case is ignored
// (Title) and not the field itself: the reference refuses it as shape,
// guarding against Go's case-insensitive decoding, where serde finds the
// field missing, which refuses the frame only if the field is required; no
// vector settles which. Beside the field itself, both ignore it.
func caseFolded(v canon.Value, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			if t.Elem().Kind() == reflect.Uint8 {
				return false // json.RawMessage: read as it is
			}
			for _, e := range v.Elems {
				if caseFolded(e, t.Elem()) {
					return true
				}
			}
			return false
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || v.Kind != canon.Object {
		return false
	}
	for _, m := range v.Members {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == m.Key:
				if caseFolded(m.Value, f.Type) {
					return true
				}
			case strings.EqualFold(name, m.Key):
				if _, ok := v.Lookup(name); !ok {
					return true
				}
			}
		}
	}
	return false
}

// longFraction reports whether a timestamp has a fraction of more than
// nine digits.
func longFraction(s string) bool {
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return false
	}
	n := 0
	for _, c := range []byte(s[i+1:]) {
		if c < '0' || c > '9' {
			break
		}
		n++
	}
	return n > 9
}

// f32Settled reports whether a number lexeme reads as the same f32 straight
// (as the reference reads it) and through an f64 (as serde reads it), and
// is within f32 range.
func f32Settled(lex string) bool {
	x64, err1 := strconv.ParseFloat(lex, 64)
	x32, err2 := strconv.ParseFloat(lex, 32)
	return err1 == nil && err2 == nil && math.Float32bits(float32(x64)) == math.Float32bits(float32(x32))
}

// frameGen builds one frame.
type frameGen struct {
	r       *rand.Rand
	f       *jsongen.Node
	rep     string  // the representation: full, compact or reference
	content *string // the content, when the frame has one
}

// genCheckFrame is a frame for checkFrame: valid, then pushed to one or two
// rules' boundaries (at times none).
func genCheckFrame(r *rand.Rand) *jsongen.Node {
	g := newFrameGen(r)
	n := 1
	switch r.IntN(8) {
	case 0:
		n = 0
	case 1, 2:
		n = 2
	}
	for range n {
		pick(r, framePushes)(g)
	}
	if r.IntN(3) == 0 {
		r.Shuffle(len(g.f.Keys), func(i, j int) {
			g.f.Keys[i], g.f.Keys[j] = g.f.Keys[j], g.f.Keys[i]
			g.f.Vals[i], g.f.Vals[j] = g.f.Vals[j], g.f.Vals[i]
		})
	}
	return g.f
}

// newFrameGen starts from a valid frame of a random representation: every
// required member, an honest token cost and content digest, and some of
// the optional members.
func newFrameGen(r *rand.Rand) *frameGen {
	g := &frameGen{r: r, f: &jsongen.Node{Kind: canon.Object}, rep: pick(r, []string{"full", "full", "full", "compact", "reference"})}
	f := g.f
	f.Set("id", jsongen.Str(pick(r, []string{"frame:a", "retry-policy", "f-1", "😀"})))
	f.Set("kind", jsongen.Str(pick(r, []string{"doc", "snippet", "fact", "acme:custom"})))
	f.Set("title", jsongen.Str(notBlank(r)))
	if g.rep != "full" || r.IntN(3) == 0 {
		f.Set("representation", jsongen.Str(g.rep))
	}
	if g.rep != "reference" {
		g.setContent(genContent(r))
		if g.rep == "compact" || r.IntN(2) == 0 {
			f.Set("content_digest", jsongen.Str(cgp.DigestOf([]byte(*g.content))))
		}
	}
	if g.rep != "full" {
		f.Set("canonical_content_hash", digestNode(r))
		f.Set("content_ref", contentRef(r))
	}
	if g.rep == "compact" {
		f.Set("transform", jsongen.Obj("method", jsongen.Str("extractive_summary"), "implementation", jsongen.Str("referee"), "version", jsongen.Str("1")))
	}
	f.Set("score", jsongen.Num(inRangeScore(r)))
	f.Set("token_cost", jsongen.Num(strconv.Itoa(int(g.honestCost()))))
	f.Set("citation_label", jsongen.Str(notBlank(r)))
	if r.IntN(2) == 0 {
		from, to := validWindow(r)
		f.Set("valid_from", jsongen.Str(from))
		f.Set("valid_to", jsongen.Str(to))
	}
	if r.IntN(3) == 0 {
		f.Set("recorded_at", jsongen.Str(pick(r, validStamps)))
	}
	if r.IntN(5) < 3 {
		links := jsongen.Arr()
		for range 1 + r.IntN(2) {
			links.Elems = append(links.Elems, fileOrDerivation(r))
		}
		f.Set("provenance", links)
	}
	if r.IntN(5) < 2 {
		rels := jsongen.Arr()
		for range 1 + r.IntN(2) {
			rels.Elems = append(rels.Elems, jsongen.Obj("rel", jsongen.Str(pick(r, []string{"documents", "code.calls"})), "target_uri", jsongen.Str("file:///repo/"+pick(r, []string{"a.md", "é.rs"})), "display_name", jsongen.Str(notBlank(r))))
		}
		f.Set("relations", rels)
	}
	if r.IntN(6) == 0 {
		vec := jsongen.Arr()
		for range r.IntN(3) {
			vec.Elems = append(vec.Elems, jsongen.Num(inRangeScore(r)))
		}
		f.Set("embedding", jsongen.Obj("fingerprint", jsongen.Str("bge-small-en-v1.5/384/l2"), "vector", vec))
	}
	if r.IntN(3) == 0 {
		f.Set("uri", jsongen.Str("file:///repo/docs/retry.md"))
	}
	return g
}

func (g *frameGen) setContent(c string) {
	g.content = &c
	g.f.Set("content", jsongen.Str(c))
}

// honestCost is B3's cost of the frame's content.
func (g *frameGen) honestCost() uint32 {
	if g.content == nil {
		return 0
	}
	return cgp.TokenCost(*g.content)
}

func contentRef(r *rand.Rand) *jsongen.Node {
	cr := jsongen.Obj("provider_id", jsongen.Str("repo-graph"), "uri", jsongen.Str("context://repo-graph/retry"))
	if r.IntN(3) == 0 {
		cr.Set("expires_at", jsongen.Str(pick(r, validStamps)))
	}
	return cr
}

func fileOrDerivation(r *rand.Rand) *jsongen.Node {
	if r.IntN(3) == 0 {
		return jsongen.Obj("type", jsongen.Str("derivation"), "method", jsongen.Str("summary"), "by", jsongen.Str("indexer"))
	}
	return jsongen.Obj("type", jsongen.Str("file"), "uri", jsongen.Str("file:///repo/a.md"), "range", jsongen.Str("L1-2"), "digest", digestNode(r))
}

// contentPieces are content of one to four UTF-8 bytes a character, line
// ends of both kinds among them: their counts in bytes, UTF-16 units and
// code points part.
var contentPieces = []string{"Retry at most 3 times", "a", "ab", "abc", "\n", "\r\n", "é", "ß", "日本語", "€", "😀", "𝄞", "e\u0301", "\u0000", " "}

// genContent is a frame's content: empty at times, else a few pieces.
func genContent(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return ""
	}
	var b strings.Builder
	for range 1 + r.IntN(5) {
		b.WriteString(pick(r, contentPieces))
	}
	return b.String()
}

// notBlank is text that is not blank: words, at times with spaces of any
// class around them.
func notBlank(r *rand.Rand) string {
	s := pick(r, []string{"Retry policy", "retry.md L1", "a", "日本", "😀", "\u00a0x", "x\u3000"})
	if r.IntN(4) == 0 {
		s = pick(r, spacePieces) + s + pick(r, spacePieces)
	}
	return s
}

// blankish is text made of whitespace of every class, and of what some
// libraries take for whitespace and Unicode does not (U+FEFF, U+001C to
// U+001F, U+200B, U+180E): blank or not by the rule, or empty.
func blankish(r *rand.Rand) string {
	if r.IntN(8) == 0 {
		return ""
	}
	var b strings.Builder
	for range 1 + r.IntN(2) {
		b.WriteString(pick(r, spacePieces))
	}
	if r.IntN(6) == 0 {
		b.WriteString("x")
	}
	return b.String()
}

// The scores a frame's F1 turns on: either side of 0 and 1, of the f32s
// around them and of the halfway points between, in several spellings;
// each reads as the same f32 straight and through an f64
// (TestFrameScoresAreSettled).
var (
	inRangeScores = []string{"0", "1", "-0", "0.0", "1.0", "-0.0", "1e0", "1E0", "10e-1", "0e0", "0.5", "5e-1", "0.50",
		"1.00000005", "1.000000059604644775390625", "0.99999994", "0.99999997", "0.9999999403953552", "-1e-50", "-7e-46", "5e-324", "-5e-324",
		"1.401298464324817e-45", "1e-45", "0.1", "0.10000000149011612", "0.875", "8.75e-1", "1e-7", "0.000001"}
	outOfRangeScores = []string{"1.0000001", "1.00000006", "1.0000000596046449", "1.00000012", "1.0000001192092896", "1.5", "2",
		"-0.25", "-1e-45", "-1.401298464324817e-45", "-7.1e-46", "-1", "1e1", "3.4028235e38", "1.1e0"}
)

// inRangeScore is a score F1 accepts: a boundary, or any f32 in [0, 1]
// written as an f32 or widened.
func inRangeScore(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return pick(r, inRangeScores)
	}
	f := r.Float32()
	switch r.IntN(3) {
	case 0:
		return strconv.FormatFloat(float64(f), 'g', -1, 64)
	case 1:
		return strconv.FormatFloat(float64(f), 'e', -1, 32)
	}
	return strconv.FormatFloat(float64(f), 'g', -1, 32)
}

// boundaryScore is a score at F1's boundaries: in range, out of it, or
// just past 1 by a few f32 steps.
func boundaryScore(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return pick(r, inRangeScores)
	case 1:
		return pick(r, outOfRangeScores)
	}
	f := math.Nextafter32(1, 2)
	for range r.IntN(4) {
		f = math.Nextafter32(f, 2)
	}
	lex := strconv.FormatFloat(float64(f), 'g', -1, 32)
	if r.IntN(2) == 0 {
		lex = strconv.FormatFloat(float64(f), 'g', -1, 64)
	}
	if f32Settled(lex) {
		return lex
	}
	return "1.0000001"
}

// validStamps are F4 timestamps at the calendar's edges that F4 accepts.
var validStamps = []string{"2026-07-20T18:00:00Z", "2024-02-29T12:00:00Z", "2000-02-29T00:00:00Z", "2016-12-31T23:59:60Z",
	"2016-12-31T23:59:60.5Z", "2026-12-31T23:59:59.999999999Z", "2026-01-01T00:00:00.5Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-04-30T00:00:00.0Z"}

// validWindow is a valid_from and a valid_to after it.
func validWindow(r *rand.Rand) (string, string) {
	w := pick(r, [][2]string{
		{"2026-01-01T00:00:00Z", "2026-07-01T00:00:00Z"},
		{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z"},
		{"2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00Z"},
		{"2016-12-31T23:59:59Z", "2016-12-31T23:59:60Z"},
		{"2024-02-28T00:00:00Z", "2024-02-29T00:00:00Z"},
	})
	return w[0], w[1]
}

// edgeStamp is a timestamp with one or two parts at an edge of F4's
// grammar (case, offsets, separators) or of the calendar (month and day
// ranges, leap days in years divisible by 4, 100 and 400, hour 24, minute
// 60, second 60 and 61).
func edgeStamp(r *rand.Rand) string {
	part := func(usual string, edges ...string) string {
		if r.IntN(5) == 0 {
			return pick(r, edges)
		}
		return usual
	}
	year := pick(r, []string{"2026", "2024", "2000", "2100", "1900", "2016"})
	if r.IntN(4) == 0 {
		// February 29: a leap day in years divisible by 4 and not by 100,
		// or by 400; none in the others.
		return year + "-02-29T" + part("12:00:00", "23:59:60", "24:00:00") + part("Z", "z", ".5Z")
	}
	month := part("07", "02", "04", "12", "13", "00", "1")
	day := part("20", "29", "30", "31", "32", "00", "28")
	if month == "02" && r.IntN(2) == 0 {
		day = "29"
	}
	s := year + "-" + month + "-" + day + part("T", "t", " ", "T") + part("18", "23", "24", "00", "8") + ":" + part("00", "59", "60") + ":" +
		part("00", "59", "60", "61", "60") + part("", ".5", ".0", ".000000001", ".999999999", ".", ".123") + part("Z", "z", "+00:00", "-00:00", "+01:00", "", "Z ")
	return s
}

// framePushes each push a frame to one rule's boundary.
var framePushes = []func(g *frameGen){
	// F1: the score.
	func(g *frameGen) { g.f.Set("score", jsongen.Num(boundaryScore(g.r))) },
	func(g *frameGen) { g.f.Set("score", jsongen.Num(boundaryScore(g.r))) },
	// F2, F3, G1, G2: blank and not.
	func(g *frameGen) { g.f.Set("title", jsongen.Str(blankish(g.r))) },
	func(g *frameGen) {
		switch g.r.IntN(8) {
		case 0:
			g.f.Delete("citation_label")
		case 1:
			g.f.Set("citation_label", &jsongen.Node{Kind: canon.Null, Raw: "null"})
		case 2:
			// The member under another name, as a camelCase reader looks for it.
			g.f.Delete("citation_label")
			g.f.Set("citationLabel", jsongen.Str("retry.md L1"))
		default:
			g.f.Set("citation_label", jsongen.Str(blankish(g.r)))
		}
	},
	func(g *frameGen) {
		rel := jsongen.Obj("rel", jsongen.Str("documents"), "target_uri", jsongen.Str("file:///repo/a.md"))
		switch g.r.IntN(4) {
		case 0:
			rel.Set("target_uri", jsongen.Str(blankish(g.r)))
			rel.Set("display_name", jsongen.Str(notBlank(g.r)))
		case 1:
			if g.r.IntN(2) == 0 {
				rel.Set("display_name", &jsongen.Node{Kind: canon.Null, Raw: "null"})
			}
		default:
			rel.Set("display_name", jsongen.Str(blankish(g.r)))
		}
		g.f.Set("relations", jsongen.Arr(rel))
	},
	// F4: a timestamp at an edge, in any of the four members.
	func(g *frameGen) {
		s := jsongen.Str(edgeStamp(g.r))
		switch g.r.IntN(4) {
		case 0:
			cr := contentRef(g.r)
			cr.Set("expires_at", s)
			g.f.Set("content_ref", cr)
		case 1:
			g.f.Set("recorded_at", s)
		default:
			g.f.Set(pick(g.r, []string{"valid_from", "valid_to"}), s)
		}
	},
	// Q2: windows empty, inverted by a fraction or a leap second, the same
	// instant spelled two ways.
	func(g *frameGen) {
		w := pick(g.r, [][2]string{
			{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
			{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.0Z"},
			{"2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.50Z"},
			{"2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00Z"},
			{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z"},
			{"2017-01-01T00:00:00Z", "2016-12-31T23:59:60.5Z"},
			{"2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00Z"},
			{"2016-12-31T23:59:60Z", "2016-12-31T23:59:59.9Z"},
			{"2026-07-01T00:00:00Z", "2026-01-01T00:00:00Z"},
		})
		g.f.Set("valid_from", jsongen.Str(w[0]))
		g.f.Set("valid_to", jsongen.Str(w[1]))
	},
	// P1 to P4: representations and the members each needs or forbids.
	func(g *frameGen) {
		switch g.r.IntN(6) {
		case 0:
			g.f.Set("representation", jsongen.Str(pick(g.r, []string{"Full", "summary", "", "full ", "REFERENCE"})))
		case 1:
			g.f.Delete("content")
			g.content = nil
		case 2:
			g.f.Delete(pick(g.r, []string{"content", "content_digest", "canonical_content_hash", "transform", "content_ref"}))
		case 3:
			g.setContent(pick(g.r, []string{"", "x"}))
		case 4:
			g.f.Set("transform", jsongen.Obj("method", jsongen.Str("m"), "implementation", jsongen.Str("i"), "version", jsongen.Str("1")))
		default:
			g.f.Set("content_digest", jsongen.Str(cgp.DigestOf(nil)))
		}
	},
	// D1: digests in and out of the grammar, and of other bytes.
	func(g *frameGen) {
		d := cgp.DigestOf([]byte(""))
		if g.content != nil {
			d = cgp.DigestOf([]byte(*g.content))
		}
		switch g.r.IntN(6) {
		case 0:
			d = "sha256:" + strings.ToUpper(d[7:])
		case 1:
			if g.content != nil && *g.content != "" {
				d = cgp.DigestOf([]byte((*g.content)[:len(*g.content)-1]))
			}
		case 2:
			d = pick(g.r, []string{d[:len(d)-1], "SHA256:" + d[7:], "sha512:" + d[7:], "", d + "0", "sha256:" + d[7:len(d)-1] + "g"})
		case 3:
			g.f.Set("canonical_content_hash", jsongen.Str("sha256:"+strings.ToUpper(d[7:])))
			return
		}
		g.f.Set("content_digest", jsongen.Str(d))
	},
	// F5: a file link's digest.
	func(g *frameGen) {
		l := jsongen.Obj("type", jsongen.Str(pick(g.r, []string{"file", "file", "File"})), "uri", jsongen.Str("file:///repo/a.md"))
		switch g.r.IntN(5) {
		case 0:
		case 1:
			l.Set("digest", &jsongen.Node{Kind: canon.Null, Raw: "null"})
		case 2:
			l.Set("digest", jsongen.Str("sha256:"+strings.ToUpper(hexBytes(g.r, 32))))
		default:
			l.Set("digest", jsongen.Str(pick(g.r, []string{"", "sha256:", "sha256:" + hexBytes(g.r, 31), "md5:" + hexBytes(g.r, 16)})))
		}
		g.f.Set("provenance", jsongen.Arr(fileOrDerivation(g.r), l))
	},
	// F6: an attestation of the frame's own.
	func(g *frameGen) {
		g.f.Set("attestation", pick(g.r, []*jsongen.Node{
			jsongen.Obj("signed_commitment", digestNode(g.r), "algorithm", jsongen.Str("ed25519")),
			{Kind: canon.Null, Raw: "null"}, jsongen.Str("x"), jsongen.Arr(),
		}))
	},
	// B3: costs counted in bytes, UTF-16 units and code points, rounded
	// up and down, on content of every width; a reference frame's cost.
	func(g *frameGen) {
		if g.content == nil || g.r.IntN(3) == 0 {
			g.setContent(genContent(g.r) + pick(g.r, []string{"é", "😀", "日本", "abc"}))
			if _, ok := lookup(g.f, "content_digest"); ok {
				g.f.Set("content_digest", jsongen.Str(cgp.DigestOf([]byte(*g.content))))
			}
		}
		c := ""
		if g.content != nil {
			c = *g.content
		}
		cost := pick(g.r, []int{len(c) / 4, (canon.UTF16Len(c) + 3) / 4, (utf8.RuneCountInString(c) + 3) / 4, (len(c) + 3) / 4, (len(c)+3)/4 + 1, 0, 7})
		g.f.Set("token_cost", jsongen.Num(strconv.Itoa(cost)))
	},
	// shape: required members missing or null, members of the wrong type.
	func(g *frameGen) {
		null := &jsongen.Node{Kind: canon.Null, Raw: "null"}
		switch g.r.IntN(8) {
		case 0:
			g.f.Delete(pick(g.r, []string{"id", "kind", "title", "score", "token_cost"}))
		case 1:
			g.f.Set(pick(g.r, []string{"id", "kind", "title", "score", "token_cost", "provenance", "relations", "representation"}), null)
		case 2:
			g.f.Set("provenance", jsongen.Arr(jsongen.Obj("uri", jsongen.Str("file:///a"))))
		case 3:
			g.f.Set("relations", jsongen.Arr(pick(g.r, []*jsongen.Node{
				jsongen.Obj("rel", jsongen.Str("documents"), "display_name", jsongen.Str("a")),
				jsongen.Obj("target_uri", jsongen.Str("file:///a"), "display_name", jsongen.Str("a")),
			})))
		case 4:
			g.f.Set(pick(g.r, []string{"content_ref", "transform", "embedding"}), jsongen.Obj("uri", jsongen.Str("context://x")))
		case 5:
			g.f.Set("score", pick(g.r, []*jsongen.Node{jsongen.Str("0.5"), jsongen.Str("1"), {Kind: canon.Bool, Raw: "true"}}))
		case 6:
			g.f.Set("token_cost", jsongen.Num(pick(g.r, []string{"12.5", "-1", "4294967296", "0.5"})))
		default:
			g.f.Set(pick(g.r, []string{"title", "citation_label", "content", "kind"}), pick(g.r, []*jsongen.Node{jsongen.Num("5"), jsongen.Arr(), {Kind: canon.Bool, Raw: "false"}}))
		}
	},
}

// lookup returns the member of o named name (a Go string).
func lookup(o *jsongen.Node, name string) (*jsongen.Node, bool) {
	lex := jsongen.Lexeme(name)
	for i, k := range o.Keys {
		if k == lex {
			return o.Vals[i], true
		}
	}
	return nil, false
}
