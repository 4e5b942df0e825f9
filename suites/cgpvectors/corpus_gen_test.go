package cgpvectors

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/golden"
	"github.com/refereehq/referee/protocols/cgp"
)

// TestCorpusIsGenerated writes the embedded fixture profile afresh into a
// temporary directory and requires corpus/ to hold exactly its files: every
// expected value in them comes from protocols/cgp, never a hand edit. With
// -update it rewrites corpus/ instead:
//
//	go test ./suites/cgpvectors -run TestCorpusIsGenerated -update
func TestCorpusIsGenerated(t *testing.T) {
	out := t.TempDir()
	if err := genProfile(out); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(Files), corpus.ManifestName)
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("the generator wrote %d files, want %d", len(entries), len(want))
	}
	for _, f := range want {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("corpus", f), b)
	}
	committed, err := os.ReadDir("corpus")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range committed {
		if !slices.Contains(want, e.Name()) {
			t.Errorf("corpus/%s is not a file of the profile: remove it", e.Name())
		}
	}
}

// The embedded profile's inputs: upstream's cases and referee's additions,
// in upstream's layout (the seven files of contextgraph-conformance's
// fixtures/contextgraph-1.0/ and a manifest made by corpus.Lock). Every
// expected value (normalized frame or query, RFC 8785 text, sha256,
// unknown_path) comes from the Go reference, protocols/cgp, and every
// citation and valid frame is checked against it (FrameViolations:
// cgp.ValidateFrame and B3).

type genNamed struct{ name, json string }

// genFrames are the frame digest cases' sources.
var genFrames = []genNamed{
	// Upstream's two.
	{"fully_populated_frame", `{"id":"frame:policy:retry","kind":"doc","title":"Retry policy — café","content":"Use \"exponential\" backoff.\nRetry at most 3 times.","uri":"file:///repo/docs/retry%20policy.md","score":0.875,"token_cost":13,"valid_from":"2026-01-01T00:00:00Z","valid_to":"2026-12-31T23:59:59Z","recorded_at":"2026-07-21T12:34:56Z","provenance":[{"type":"file","uri":"file:///repo/docs/retry%20policy.md","range":"L10-18","digest":"sha256:4f2dcbad0f03f6e1c61f9e2d76d7392b4590f40dc13f5413c6f501d6f9844938","method":"file-read","by":"repo-indexer"},{"type":"derivation","uri":"contextgraph://repo-indexer/retry-policy","range":"step:2","digest":"sha256:28b51d9a2827bbfa917c22ce95eafed9939c914186e0053e1837d0d17b5f07c8","method":"summary","by":"context-provider"}],"citation_label":"retry policy.md L10-18","embedding":{"fingerprint":"text-embedding-v1:sha256:67f8e7","vector":[0.125,-0.5,1.0]},"relations":[{"rel":"documents","target_uri":"symbol:///repo/src/retry.rs#RetryPolicy","display_name":"RetryPolicy"},{"rel":"applies_to","target_uri":"service:///café-api","display_name":"Café API"}]}`},
	{"minimal_frame", `{"id":"frame:minimal","kind":"fact","title":"Minimal conforming frame","content":"Default arrays are omitted on the wire.","score":1.0,"token_cost":10,"citation_label":"minimal fixture"}`},
	// referee's: explicit empty arrays stay [] (and hash as if materialised).
	{"empty_arrays_frame", `{"id":"frame:empty-arrays","kind":"fact","title":"Explicit empty arrays","content":"Both arrays are present and empty.","score":0.5,"token_cost":9,"provenance":[],"citation_label":"empty arrays","relations":[]}`},
	// Optional members absent at every level stay absent: no null appears.
	// (Not the relation's display_name: G1 requires it.)
	{"absent_optionals_frame", `{"id":"frame:absent-optionals","kind":"memory","title":"Optional members absent","content":"Only some optional members are present.","uri":"memory://fixture/1","score":0.25,"token_cost":10,"provenance":[{"type":"episode"}],"citation_label":"absent optionals","embedding":{"fingerprint":"embedding-v1:fixture"},"relations":[{"rel":"episode.follows","target_uri":"memory://fixture/0","display_name":"episode 0"}]}`},
	// content_ref is kept as it is, its members sorted by JCS. A reference
	// frame: a compact one needs content_digest (P2), which the digest
	// profile's allow-list leaves out.
	{"reference_nested_frame", `{"id":"frame:reference-nested","kind":"doc","title":"Reference frame with a nested content_ref","representation":"reference","content_fidelity":"omitted","canonical_content_hash":"sha256:a73a263984fc648c7bd595bfd8ae7a3990c741eea910b40606f6ea5c5ace67ba","content_ref":{"uri":"context://provider_example/records/retry_policy_v1","expires_at":"2026-12-31T23:59:59Z","provider_id":"provider_example"},"minimum_content_fidelity":"exact","inline_content_requirement":"resolvable_reference_allowed","score":0.9,"token_cost":0,"canonical_token_cost":28,"tokenizer_ref":"openai:o200k_base","citation_label":"\u00a0retry policy.md\t"}`},
}

// genQueries are the query digest cases' sources.
var genQueries = []genNamed{
	{"minimal_query", `{"goal":"Find retry guidance for the café service","max_frames":8,"max_tokens":2048}`},
	{"full_query", `{"goal":"Every member of a query","query_text":"retry backoff","embedding":{"fingerprint":"embedding-v1:fixture","vector":[0.5,-0.25]},"kinds":["snippet","doc","fact"],"anchors":["file:///repo/src/retry.rs","file:///repo/docs/retry.md"],"max_frames":4,"max_tokens":512,"as_of":"2026-07-21T12:34:56Z"}`},
	{"kinds_only_query", `{"goal":"Only kinds","kinds":["doc"],"max_frames":1,"max_tokens":64}`},
}

// genStricts are the unknown-field negatives: name, target, input, and the path
// the reference must report.
var genStricts = []struct{ name, target, input, path string }{
	// Upstream's five.
	{"frame_top_level_unknown", "frame", `{"id":"frame:strict:top-level","kind":"fact","title":"Unknown top-level frame field","content":"General protocol parsing remains forward-compatible.","score":0.5,"token_cost":4,"citation_label":"strict fixture","future_field":true}`, "frame.future_field"},
	{"frame_provenance_unknown", "frame", `{"id":"frame:strict:provenance","kind":"fact","title":"Unknown provenance field","content":"Nested provenance is strict in this digest profile.","score":0.5,"token_cost":4,"citation_label":"strict fixture","provenance":[{"type":"file","future_field":true}]}`, "frame.provenance[0].future_field"},
	{"frame_embedding_unknown", "frame", `{"id":"frame:strict:embedding","kind":"fact","title":"Unknown embedding field","content":"Nested embedding is strict in this digest profile.","score":0.5,"token_cost":4,"citation_label":"strict fixture","embedding":{"fingerprint":"embedding-v1:fixture","future_field":true}}`, "frame.embedding.future_field"},
	{"frame_relation_unknown", "frame", `{"id":"frame:strict:relation","kind":"fact","title":"Unknown relation field","content":"Nested relations are strict in this digest profile.","score":0.5,"token_cost":4,"citation_label":"strict fixture","relations":[{"rel":"related_to","target_uri":"contextgraph://fixture/target","future_field":true}]}`, "frame.relations[0].future_field"},
	{"query_top_level_unknown", "query", `{"goal":"Reject unknown query fields in the pinned profile","max_frames":8,"max_tokens":2048,"future_field":true}`, "query.future_field"},
	// referee's: the members deliberately left out, later indexes, and source order.
	{"frame_content_digest", "frame", `{"id":"frame:strict:content-digest","kind":"fact","title":"content_digest is not in the digest profile","content":"x","content_digest":"sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881","score":0.5,"token_cost":1,"citation_label":"strict fixture"}`, "frame.content_digest"},
	{"query_representation_preferences", "query", `{"goal":"representation_preferences is not in the digest profile","max_frames":8,"max_tokens":2048,"representation_preferences":["compact"]}`, "query.representation_preferences"},
	{"frame_second_provenance_unknown", "frame", `{"id":"frame:strict:provenance-1","kind":"fact","title":"Unknown field in the second provenance entry","content":"x","score":0.5,"token_cost":1,"citation_label":"strict fixture","provenance":[{"type":"file","uri":"file:///a","digest":"sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"},{"type":"derivation","future_field":1}]}`, "frame.provenance[1].future_field"},
	{"frame_second_relation_unknown", "frame", `{"id":"frame:strict:relation-1","kind":"fact","title":"Unknown field in the second relation","content":"x","score":0.5,"token_cost":1,"citation_label":"strict fixture","relations":[{"rel":"a","target_uri":"t:a"},{"rel":"b","target_uri":"t:b","display_name":"B","future_field":null}]}`, "frame.relations[1].future_field"},
	{"frame_first_unknown_in_source_order", "frame", `{"id":"frame:strict:order","kind":"fact","title":"The first unknown member in source order is reported","content":"x","score":0.5,"token_cost":1,"relations":[{"rel":"a","target_uri":"t:a","zz_nested":true}],"aa_top_level":true,"citation_label":"strict fixture"}`, "frame.relations[0].zz_nested"},
	{"frame_embedding_vector_sibling", "frame", `{"id":"frame:strict:embedding-2","kind":"fact","title":"Unknown member after a vector","content":"x","score":0.5,"token_cost":1,"citation_label":"strict fixture","embedding":{"vector":[1.0],"fingerprint":"f","dims":1}}`, "frame.embedding.dims"},
	{"query_unknown_first", "query", `{"future_field":{},"goal":"Unknown member before the known ones","max_frames":1,"max_tokens":1}`, "query.future_field"},
}

// genCitations are the frames F3 rejects, in file order.
var genCitations = []genNamed{
	// Upstream's two.
	{"missing", `{"id":"frame:invalid:missing-citation","kind":"snippet","title":"Missing citation label","content":"The citation_label property is absent.","score":0.5,"token_cost":9}`},
	{"blank", `{"id":"frame:invalid:blank-citation","kind":"snippet","title":"Blank citation label","content":"The citation label contains only whitespace.","score":0.5,"token_cost":9,"citation_label":" \t "}`},
	// referee's: Unicode White_Space, as Rust's trim.
	{"blank_nbsp", `{"id":"frame:invalid:nbsp-citation","kind":"snippet","title":"No-break space citation label","content":"The citation label is a lone U+00A0.","score":0.5,"token_cost":9,"citation_label":"\u00a0"}`},
	{"blank_tab_newline", `{"id":"frame:invalid:tab-newline-citation","kind":"snippet","title":"Tab, space, newline citation label","content":"The citation label is a tab, a space and a newline.","score":0.5,"token_cost":13,"citation_label":"\t \n"}`},
	{"blank_empty", `{"id":"frame:invalid:empty-citation","kind":"snippet","title":"Empty citation label","content":"The citation label is empty.","score":0.5,"token_cost":7,"citation_label":""}`},
	{"blank_unicode_spaces", `{"id":"frame:invalid:unicode-space-citation","kind":"snippet","title":"Unicode spaces citation label","content":"U+3000, U+2003, U+0085 and U+2028.","score":0.5,"token_cost":9,"citation_label":"\u3000\u2003\u0085\u2028"}`},
}

// genUpstreamCitations are the citation frames that are upstream's.
var genUpstreamCitations = map[string]bool{"missing": true, "blank": true}

// genCompact and genReference are upstream's two representation fixtures.
const (
	genCompact   = `{"id":"frame:policy:retry:compact","kind":"doc","title":"Retry policy — café (distilled)","content":"Retry policy: exponential backoff, max 3 attempts, 30s total cap, surface the upstream error on final failure.","content_digest":"sha256:478d25150943e187e27d7546952970ee510dc2901e178757e9f6940790faf2b1","representation":"compact","content_fidelity":"summarized","canonical_content_hash":"sha256:a73a263984fc648c7bd595bfd8ae7a3990c741eea910b40606f6ea5c5ace67ba","content_ref":{"provider_id":"provider_example","uri":"context://provider_example/records/retry_policy_v1"},"transform":{"method":"extractive_summary","implementation":"provider_default","version":"1"},"score":0.9,"token_cost":28,"citation_label":"retry policy.md L10-24"}`
	genReference = `{"id":"frame:policy:retry:reference","kind":"doc","title":"Retry policy — café (reference)","representation":"reference","content_fidelity":"omitted","canonical_content_hash":"sha256:a73a263984fc648c7bd595bfd8ae7a3990c741eea910b40606f6ea5c5ace67ba","content_ref":{"provider_id":"provider_example","uri":"context://provider_example/records/retry_policy_v1"},"score":0.9,"token_cost":0,"citation_label":"retry policy.md L10-24"}`
)

// genVectors are the generic RFC 8785 vectors' input_json texts.
var genVectors = []genNamed{
	// Upstream's four (the RFC 8785 sample objects).
	{"unicode", `{"€":"Euro Sign","\r":"Carriage Return","דּ":"Hebrew Letter Dalet With Dagesh","1":"One","😀":"Emoji: Grinning Face","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis"}`},
	{"escaping", `{"solidus":"/","quote":"\"","backslash":"\\","controls":"\b\t\n\f\r\u0000","unicode":"é"}`},
	{"numbers", `{"f":333333333.33333329,"a":1E30,"e":4.50,"d":2e-3,"c":0.000000000000000000000000001,"b":-0.0}`},
	{"number_boundaries", `{"min_positive_subnormal":4.9406564584124654e-324,"max_finite":1.7976931348623157e308,"two_pow_53_minus_1":9007199254740991.0,"two_pow_53":9007199254740992.0,"two_pow_53_plus_1":9007199254740993.0,"fixed_1e_minus_6":1e-6,"exponent_1e_minus_7":1e-7,"fixed_1e20":1e20,"exponent_1e21":1e21}`},
	// referee's: keys beyond the BMP against U+FFxx keys (UTF-16 puts surrogates, D800-DFFF, first).
	{"keys_non_bmp_vs_uffxx", `{"\uff61":"halfwidth ideographic full stop","\ud83d\ude00":"grinning face","\uffee":"halfwidth white circle","\ud800\udc00":"linear b syllable a","\ufb33":"dalet with dagesh","\ue000":"private use"}`},
	// Number edges, each as a bare lexeme.
	{"number_edges", `{"e21":1e21,"below_e21":999999999999999900000,"e_minus_7":1e-7,"e_minus_6":0.000001,"neg_zero":-0,"min_subnormal":5e-324,"two_pow_53_plus_1":9007199254740993,"neg_two_pow_53_plus_1":-9007199254740993,"upper_exponent":1E+2,"one_point_zero":1.0,"e_minus_6_upper":1E-6}`},
	// Nested objects and arrays of objects: members sorted at every level, array order kept.
	{"nested_order", `{"z":[{"b":2,"a":1},{"d":[3,1,2],"c":null}],"a":{"y":true,"x":false,"\u00e9":"é"},"m":[]}`},
}

func genParse(text string) canon.Value {
	v, err := canon.Parse([]byte(text), canon.ReadOptions{})
	if err != nil {
		panic(fmt.Sprintf("gen: %v in %s", err, text))
	}
	return v
}

func genStr(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }

func genObj(kv ...any) canon.Value {
	v := canon.Value{Kind: canon.Object}
	for i := 0; i < len(kv); i += 2 {
		v.Members = append(v.Members, canon.Member{Key: kv[i].(string), Value: kv[i+1].(canon.Value)})
	}
	return v
}

func genArr(elems []canon.Value) canon.Value {
	return canon.Value{Kind: canon.Array, Elems: append([]canon.Value{}, elems...)}
}

// genDigestCases computes each source's three artifacts with the reference.
func genDigestCases(cases []genNamed, norm func(canon.Value) (canon.Value, error)) (canon.Value, error) {
	var out []canon.Value
	for _, c := range cases {
		src := genParse(c.json)
		n, err := norm(src)
		if err != nil {
			return canon.Value{}, fmt.Errorf("%s: %w", c.name, err)
		}
		text, err := cgp.Canonical(n)
		if err != nil {
			return canon.Value{}, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, genObj("name", genStr(c.name), "source", src, "expected_normalized", n,
			"expected_jcs_utf8", genStr(string(text)), "sha256", genStr(cgp.DigestOf(text))))
	}
	return genObj("cases", genArr(out)), nil
}

// genProfile writes the embedded fixture profile into dir.
func genProfile(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]canon.Value{}
	var err error
	if files["context-frame.valid.json"], err = genDigestCases(genFrames, cgp.NormalizeFrame); err != nil {
		return err
	}
	if files["context-query.valid.json"], err = genDigestCases(genQueries, cgp.NormalizeQuery); err != nil {
		return err
	}
	for _, f := range genFrames {
		if v := FrameViolations(genParse(f.json)); len(v) > 0 {
			return fmt.Errorf("%s: the reference finds it invalid: %v", f.name, v)
		}
	}
	for name, text := range map[string]string{"context-frame.compact.valid.json": genCompact, "context-frame.reference.valid.json": genReference} {
		v := genParse(text)
		if viol := FrameViolations(v); len(viol) > 0 {
			return fmt.Errorf("%s: the reference finds it invalid: %v", name, viol)
		}
		files[name] = v
	}
	cit := canon.Value{Kind: canon.Object}
	for _, c := range genCitations {
		v := genParse(c.json)
		// Upstream's two also misstate their token_cost (B3); referee's
		// break F3 alone.
		viol := FrameViolations(v)
		rules := RuleSet(viol)
		if !slices.Contains(rules, cgp.RuleCitation) || (!genUpstreamCitations[c.name] && len(rules) != 1) {
			return fmt.Errorf("citation %s: the reference does not reject it on citation_label alone: %v", c.name, viol)
		}
		if err := cgp.StrictFrame(v, cgp.Options{}); err != nil {
			return fmt.Errorf("citation %s: not in the strict shape: %v", c.name, err)
		}
		cit.Members = append(cit.Members, canon.Member{Key: c.name, Value: v})
	}
	files["context-frame.missing-citation.invalid.json"] = cit
	var strict []canon.Value
	for _, s := range genStricts {
		v := genParse(s.input)
		var err error
		if s.target == "frame" {
			_, err = cgp.NormalizeFrame(v)
		} else {
			_, err = cgp.NormalizeQuery(v)
		}
		ce, ok := err.(*cgp.Error)
		if !ok || ce.Code != cgp.CodeUnknownField || ce.Path != s.path {
			return fmt.Errorf("strict %s: the reference says %v, want unknown field %s", s.name, err, s.path)
		}
		strict = append(strict, genObj("name", genStr(s.name), "target", genStr(s.target), "input", v, "unknown_path", genStr(ce.Path)))
	}
	files["strict-validation.invalid.json"] = genObj("cases", genArr(strict))
	var vecs []canon.Value
	for _, x := range genVectors {
		v := genParse(x.json)
		text, err := cgp.Canonical(v)
		if err != nil {
			return fmt.Errorf("vector %s: %w", x.name, err)
		}
		vecs = append(vecs, genObj("name", genStr(x.name), "input_json", genStr(x.json), "expected_normalized", v,
			"expected_jcs_utf8", genStr(string(text)), "sha256", genStr(cgp.DigestOf(text))))
	}
	files["normalization-vectors.json"] = genObj("vectors", genArr(vecs))

	for name, v := range files {
		var b bytes.Buffer
		genIndent(&b, v, 0)
		b.WriteByte('\n')
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	meta := `{"protocol_version":"contextgraph/1.0","fixture_profile_version":"1.1.0","generation_command":"go test ./suites/cgpvectors -run TestCorpusIsGenerated -update","files":{}}`
	if err := os.WriteFile(filepath.Join(dir, corpus.ManifestName), []byte(meta), 0o644); err != nil {
		return err
	}
	_, err = corpus.Lock(dir, corpus.DefaultMaxFileSize)
	return err
}

// genIndent writes v as JSON indented by two spaces, as upstream's files are:
// arrays of scalars on one line, lexemes as they stand, strings escaped as
// JSON.stringify does.
func genIndent(b *bytes.Buffer, v canon.Value, depth int) {
	pad := strings.Repeat("  ", depth+1)
	switch v.Kind {
	case canon.Object:
		if len(v.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range v.Members {
			b.WriteString(pad)
			b.WriteString(genQuote(m.Key))
			b.WriteString(": ")
			genIndent(b, m.Value, depth+1)
			if i < len(v.Members)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(pad[2:] + "}")
	case canon.Array:
		scalars := true
		for _, e := range v.Elems {
			scalars = scalars && e.Kind != canon.Object && e.Kind != canon.Array
		}
		if scalars {
			b.WriteByte('[')
			for i, e := range v.Elems {
				if i > 0 {
					b.WriteString(", ")
				}
				genIndent(b, e, depth+1)
			}
			b.WriteByte(']')
			return
		}
		b.WriteString("[\n")
		for i, e := range v.Elems {
			b.WriteString(pad)
			genIndent(b, e, depth+1)
			if i < len(v.Elems)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(pad[2:] + "]")
	case canon.String:
		b.WriteString(genQuote(v.Str))
	default:
		b.WriteString(v.String())
	}
}

func genQuote(s string) string {
	out, err := canon.JSONStringify.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(out)
}
