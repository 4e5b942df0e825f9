package cgpvectors

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
)

// Checks returns the profile's checks, each stage of a case on its own:
// cgp-vectors/digest/NAME/{normalized,jcs,sha256} per frame and query digest
// case, cgp-vectors/strict/NAME per unknown-field negative,
// cgp-vectors/citation/NAME per citation negative,
// cgp-vectors/frame-validity/NAME per valid frame,
// cgp-vectors/frame-rules/NAME per frame-validity vector, and
// cgp-vectors/normalization/NAME/{normalized,jcs,sha256} per vector, and
// cgp-vectors/record/KIND/{hash,extension} per lifecycle record, and
// cgp-vectors/record-attestation/{sign,verify/CASE} with the published key,
// and cgp-vectors/range/NN-RESOURCE per line-range vector, the provenance
// attestation checks cgp-vectors/provenance/..., and
// cgp-vectors/envelope/NN-TYPE/{round-trip,respelled} per reference envelope,
// and a found op case's check (opCaseCheck) per op case.
func (c *Corpus) Checks() []check.Check {
	var out []check.Check
	for _, d := range c.Frames {
		out = append(out, normalizedCheck(d, OpNormalizeFrame, "frame"), jcsCheck("digest/"+d.Name, d.Normalized, d.JCS), shaCheck("digest/"+d.Name, d.Normalized, d.SHA256))
	}
	for _, d := range c.Queries {
		out = append(out, normalizedCheck(d, OpNormalizeQuery, "query"), jcsCheck("digest/"+d.Name, d.Normalized, d.JCS), shaCheck("digest/"+d.Name, d.Normalized, d.SHA256))
	}
	for _, s := range c.Strict {
		out = append(out, strictCheck(s))
	}
	for _, ct := range c.Citations {
		out = append(out, citationCheck(ct))
	}
	for _, v := range c.Valid {
		out = append(out, validCheck(v))
	}
	for _, fc := range c.FrameRules {
		out = append(out, frameRuleCheck(fc))
	}
	for _, v := range c.Vectors {
		out = append(out, vectorNormalizedCheck(v), jcsCheck("normalization/"+v.Name, v.Normalized, v.JCS), shaCheck("normalization/"+v.Name, v.Input, v.SHA256))
	}
	for _, r := range c.Records {
		out = append(out, recordChecks(r)...)
	}
	if c.Key != nil {
		out = append(out, attestationChecks(c.Key)...)
	}
	for _, rc := range c.Ranges {
		out = append(out, rangeCheck(rc))
	}
	if c.Provenance != nil {
		out = append(out, c.Provenance.Checks()...)
	}
	for _, ec := range c.Envelopes {
		out = append(out, envelopeChecks(ec)...)
	}
	for _, oc := range c.Found {
		out = append(out, opCaseCheck(oc))
	}
	return out
}

// raw is v as JSON text, member order and lexemes as in the corpus.
func raw(v canon.Value) json.RawMessage { return json.RawMessage(v.String()) }

// withText sends v twice: as key, a JSON value, and as key_text, its exact
// text in a JSON string. A host language's parser reads the value into its
// own values and can lose what a verdict turns on: member order (JavaScript
// objects put integer-like names first, so "the first unknown member in
// source order" comes out wrong), a number's lexeme (a token_cost of 12.0 is
// no u32 for serde, 12 for JSON.parse) and a duplicate member. key_text
// keeps every byte.
func withText(key string, v canon.Value) map[string]any {
	return map[string]any{key: raw(v), key + "_text": v.String()}
}

// erred words an err where an answer is wanted as the op, words and the
// err: erred("threw") gives "canonicalize threw: ERR".
func erred(words string) func(check.Miss) check.Outcome {
	return func(m check.Miss) check.Outcome {
		o := m.Outcome
		if m.Kind == check.Erred {
			o.Reason = m.Op + " " + words + ": " + m.Err.Error()
		}
		return o
	}
}

func jcsOf(v canon.Value) string {
	b, _ := cgp.Canonical(v) // the corpus reader checked it has one
	return string(b)
}

func normalizedCheck(d DigestCase, op, key string) check.Check {
	want := jcsOf(d.Normalized)
	return check.Check{
		ID:      "cgp-vectors/digest/" + d.Name + "/normalized",
		Doc:     op + " of the " + d.Name + " source is its expected_normalized (compared by RFC 8785 bytes)",
		Needs:   []string{op},
		Explain: fmt.Sprintf("sends: %s {%q: %s}\nexpects: ok, an object whose RFC 8785 text is %s", op, key, check.Clip(d.Source.String()), check.Clip(strconv.Quote(want))),
		Clause:  clauseMaterialize,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return check.Expect{
				Op: op, Args: withText(key, d.Source), Words: erred("rejected a valid " + key),
				Notes: []string{"normalisation materialises only " + arrays(key) + " as [] when absent; absent optional members stay absent (never null) and array order is kept"},
			}.Value(ctx, s, "the normalized "+key+" (as RFC 8785 text)", d.Normalized)
		},
	}
}

func arrays(key string) string {
	if key == "query" {
		return "kinds and anchors"
	}
	return "provenance and relations"
}

// canonicalize is a call of canonicalize with args.
func canonicalize(args any) check.Expect {
	return check.Expect{Op: OpCanonicalize, Args: args, Words: erred("threw")}
}

func jcsCheck(prefix string, v canon.Value, want string) check.Check {
	clause := clauseJCS
	if strings.HasPrefix(prefix, "normalization/") {
		clause = clauseVectorJCS
	}
	return check.Check{
		ID:      "cgp-vectors/" + prefix + "/jcs",
		Doc:     "canonicalize of " + prefix + "'s expected_normalized is exactly its expected_jcs_utf8",
		Needs:   []string{OpCanonicalize},
		Explain: fmt.Sprintf("sends: canonicalize {\"value\": %s}\nexpects: ok, the string %s, byte for byte", check.Clip(v.String()), check.Clip(strconv.Quote(want))),
		Clause:  clause,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return canonicalize(map[string]json.RawMessage{"value": raw(v)}).Bytes(ctx, s, "the RFC 8785 text", []byte(want))
		},
	}
}

func shaCheck(prefix string, v canon.Value, want string) check.Check {
	return check.Check{
		ID:      "cgp-vectors/" + prefix + "/sha256",
		Doc:     "digest of " + prefix + " is its sha256: \"sha256:\" and the hex SHA-256 of the RFC 8785 text",
		Needs:   []string{OpDigest},
		Explain: fmt.Sprintf("sends: digest {\"value\": %s}\nexpects: ok, the string %q", check.Clip(v.String()), want),
		Clause:  clauseSHA256,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			got, o, ok := check.Expect{Op: OpDigest, Args: map[string]json.RawMessage{"value": raw(v)}, Want: want, Words: erred("threw")}.Text(ctx, s)
			if !ok {
				return o
			}
			if got != want {
				o := check.Failed("the digest differs", want, got)
				o.Notes = []string{"the digest is over the UTF-8 of the RFC 8785 text: " + check.Clip(strconv.Quote(jcsOf(v)))}
				return o
			}
			return check.Passed()
		},
	}
}

func strictCheck(c StrictCase) check.Check {
	op := OpNormalizeFrame
	if c.Target == "query" {
		op = OpNormalizeQuery
	}
	want := fmt.Sprintf(`err {"code":%q,"path":%q}`, cgp.CodeUnknownField, c.UnknownPath)
	return check.Check{
		ID:      "cgp-vectors/strict/" + c.Name,
		Doc:     op + " rejects the " + c.Name + " input: unknown field " + c.UnknownPath,
		Needs:   []string{op},
		Explain: fmt.Sprintf("sends: %s {%q: %s}\nexpects: %s", op, c.Target, check.Clip(c.Input.String()), want),
		Clause:  clauseStrict,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			refusal, o, ok := check.Expect{
				Op: op, Args: withText(c.Target, c.Input), Want: want, Because: op + " accepted a " + c.Target + " with an unknown field",
				Words: func(m check.Miss) check.Outcome {
					o := m.Outcome
					if m.Kind == check.Miscoded {
						o.Reason = fmt.Sprintf("%s rejected with code %q, want %q", op, m.Err.Code, cgp.CodeUnknownField)
						o.Actual = "code " + strconv.Quote(m.Err.Code)
					}
					return o
				},
			}.Refusal(ctx, s, cgp.CodeUnknownField)
			if !ok {
				return o
			}
			p, ok := refusal.Member("path")
			if !ok || p.Kind != canon.String {
				return check.Failed("err has no string path", c.UnknownPath, "no path")
			}
			if p.Str != c.UnknownPath {
				return check.Failed("err.path differs", c.UnknownPath, p.Str)
			}
			return check.Passed()
		},
	}
}

func citationCheck(c Citation) check.Check {
	want := `{"valid":false,"violations":[{"rule":"F3","field":"citation_label",...},...]}`
	return check.Check{
		ID:      "cgp-vectors/citation/" + c.Name,
		Doc:     "checkFrame finds the " + c.Name + " frame invalid on citation_label (F3: present and non-blank after trimming Unicode White_Space)",
		Needs:   []string{OpCheckFrame},
		Explain: fmt.Sprintf("sends: checkFrame {\"frame\": %s}\nexpects: ok %s (other violations may come with it)", check.Clip(c.Frame.String()), want),
		Clause:  rulesClause([]string{cgp.RuleCitation}, ""),
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			vd, o, ok := checkFrame(ctx, s, c.Frame, want)
			if !ok {
				return o
			}
			if vd.valid {
				o := check.Failed("checkFrame found the frame valid", want, `{"valid":true}`)
				o.Notes = []string{"citation_label must be present and not blank; blank is empty after trimming Unicode White_Space (U+00A0 included), as Rust's str::trim"}
				return o
			}
			if !vd.has(cgp.RuleCitation, "citation_label") {
				return check.Failed("checkFrame found the frame invalid, but not by F3 on citation_label", `a violation {"rule":"F3","field":"citation_label"}`, vd.String())
			}
			return check.Passed()
		},
	}
}

func validCheck(n Named) check.Check {
	want := `{"valid":true,"violations":[]}`
	return check.Check{
		ID:      "cgp-vectors/frame-validity/" + n.Name,
		Doc:     "checkFrame finds the " + n.Name + " frame valid under every frame rule",
		Needs:   []string{OpCheckFrame},
		Explain: fmt.Sprintf("sends: checkFrame {\"frame\": %s}\nexpects: ok %s", check.Clip(n.Frame.String()), want),
		Clause:  clauseValidFrame,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			vd, o, ok := checkFrame(ctx, s, n.Frame, want)
			if !ok {
				return o
			}
			if !vd.valid {
				o := check.Failed("checkFrame found a valid frame invalid: rules "+ruleList(vd.rules()), want, vd.String())
				for _, r := range vd.rules() {
					if d, ok := ruleDocs.Get()[r]; ok {
						o.Notes = append(o.Notes, "the frame keeps "+d+vd.said(r))
					}
				}
				return o
			}
			return check.Passed()
		},
	}
}

func vectorNormalizedCheck(v Vector) check.Check {
	want := jcsOf(v.Normalized)
	return check.Check{
		ID:      "cgp-vectors/normalization/" + v.Name + "/normalized",
		Doc:     "canonicalize of the " + v.Name + " input_json text gives the RFC 8785 text of its expected_normalized",
		Needs:   []string{OpCanonicalize},
		Explain: fmt.Sprintf("sends: canonicalize {\"value_text\": %s}\nexpects: ok, the string %s", check.Clip(strconv.Quote(v.InputJSON)), check.Clip(strconv.Quote(want))),
		Clause:  clauseVectorJCS,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return canonicalize(map[string]string{"value_text": v.InputJSON}).Bytes(ctx, s, "the RFC 8785 text of the parsed input", []byte(want))
		},
	}
}
