package cgpvectors

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// OpRangeDigest is the adapter op that resolves a provenance range in a resource.
const OpRangeDigest = "rangeDigest"

// RangeVectorsFile holds the reference vectors of the line-range grammar (F17).
const RangeVectorsFile = "range-vectors.json"

// RangeExtraFile holds referee's own line-range vectors, in
// RangeVectorsFile's format, beside the frame-rules vectors: resources whose
// lines all end in CRLF.
const RangeExtraFile = "range-extra.json"

// RangeCase is one range vector: a resource, an optional range, and either the
// bytes it addresses with their digest or the reason it addresses none.
type RangeCase struct {
	Name         string
	Resource     string // the resource's name
	Text         string // the resource
	Range        string
	HasRange     bool
	Bytes        string
	Digest       string
	Unverifiable string // a reason, or ""
}

// ReadRanges reads range-vectors.json strictly: every case names a known
// resource, has either bytes and digest (the digest of those bytes) or an
// unverifiable reason from the file's list.
func ReadRanges(c *corpus.Corpus) ([]RangeCase, error) { return readRanges(c, RangeVectorsFile) }

// readRanges is ReadRanges of the file at path in c.
func readRanges(c *corpus.Corpus, path string) ([]RangeCase, error) {
	where := fmt.Sprintf("corpus %s: %s", c.Name, path)
	v, err := readValue(c, path)
	if err != nil {
		return nil, err
	}
	f, err := fields(v, where, "$comment", "unverifiable_reasons", "resources", "cases")
	if err != nil {
		return nil, err
	}
	strs := func(o canon.Value, what string) (map[string]string, error) {
		if o.Kind != canon.Object {
			return nil, fmt.Errorf("%s: %s is not an object", where, what)
		}
		out := map[string]string{}
		for _, m := range o.Members {
			if m.Value.Kind != canon.String {
				return nil, fmt.Errorf("%s: %s.%s is not a string", where, what, m.Key)
			}
			out[m.Key] = m.Value.Str
		}
		return out, nil
	}
	reasons, err := strs(f["unverifiable_reasons"], "unverifiable_reasons")
	if err != nil {
		return nil, err
	}
	resources, err := strs(f["resources"], "resources")
	if err != nil {
		return nil, err
	}
	if f["cases"].Kind != canon.Array || len(f["cases"].Elems) == 0 {
		return nil, fmt.Errorf("%s: cases is not a non-empty array", where)
	}
	var out []RangeCase
	for i, e := range f["cases"].Elems {
		w := fmt.Sprintf("%s: case %d", where, i)
		if e.Kind != canon.Object {
			return nil, fmt.Errorf("%s: is %s, not an object", w, e.Kind)
		}
		rc := RangeCase{Name: fmt.Sprintf("%02d", i+1)}
		seen := map[string]bool{}
		for _, m := range e.Members {
			if m.Value.Kind != canon.String {
				return nil, fmt.Errorf("%s: %s is not a string", w, m.Key)
			}
			seen[m.Key] = true
			switch m.Key {
			case "resource":
				rc.Resource = m.Value.Str
			case "range":
				rc.Range, rc.HasRange = m.Value.Str, true
			case "bytes":
				rc.Bytes = m.Value.Str
			case "digest":
				rc.Digest = m.Value.Str
			case "unverifiable":
				rc.Unverifiable = m.Value.Str
			case "note":
			default:
				return nil, fmt.Errorf("%s: unknown field %q", w, m.Key)
			}
		}
		text, ok := resources[rc.Resource]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: resource %q is not in resources", w, rc.Resource)
		case seen["unverifiable"] == (seen["bytes"] || seen["digest"]):
			return nil, fmt.Errorf("%s: needs either bytes and digest, or unverifiable", w)
		case seen["unverifiable"] && reasons[rc.Unverifiable] == "":
			return nil, fmt.Errorf("%s: unverifiable %q is not one of unverifiable_reasons", w, rc.Unverifiable)
		case !seen["unverifiable"] && (!seen["bytes"] || !seen["digest"]):
			return nil, fmt.Errorf("%s: needs both bytes and digest", w)
		case !seen["unverifiable"] && cgp.DigestOf([]byte(rc.Bytes)) != rc.Digest:
			return nil, fmt.Errorf("%s: digest %s is not the sha256 of bytes (%s)", w, rc.Digest, cgp.DigestOf([]byte(rc.Bytes)))
		}
		rc.Text = text
		rc.Name += "-" + rc.Resource
		out = append(out, rc)
	}
	return out, nil
}

// rangeCheck is cgp-vectors/range/NN-RESOURCE.
func rangeCheck(rc RangeCase) check.Check {
	args := map[string]string{"resource": rc.Text}
	rng := "no range (the whole resource)"
	if rc.HasRange {
		args["range"] = rc.Range
		rng = "range " + strconv.Quote(rc.Range)
	}
	want := fmt.Sprintf(`{"bytes": %s, "digest": %q}`, strconv.Quote(rc.Bytes), rc.Digest)
	if rc.Unverifiable != "" {
		want = fmt.Sprintf(`{"unverifiable": %q}`, rc.Unverifiable)
	}
	return check.Check{
		ID:      "cgp-vectors/range/" + rc.Name,
		Doc:     fmt.Sprintf("%s of the %s resource: %s", rng, rc.Resource, map[bool]string{true: "unverifiable (" + rc.Unverifiable + ")", false: strconv.Quote(rc.Bytes)}[rc.Unverifiable != ""]),
		Needs:   []string{OpRangeDigest},
		Explain: fmt.Sprintf("sends: %s {\"resource\": %s%s}\nexpects: ok %s", OpRangeDigest, strconv.Quote(rc.Text), map[bool]string{true: ", \"range\": " + strconv.Quote(rc.Range), false: ""}[rc.HasRange], want),
		Clause:  clauseRange,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			r, o, ok := check.Expect{Op: OpRangeDigest, Args: args, Want: want}.Object(ctx, s)
			if !ok {
				return o
			}
			reason, unverifiable := r.Lookup("unverifiable")
			got, _ := r.Lookup("bytes")
			digest, _ := r.Lookup("digest")
			switch {
			case rc.Unverifiable != "" && !unverifiable:
				return check.Failed(fmt.Sprintf("%s must address nothing (%s), but the implementation digested %s", rng, rc.Unverifiable, strconv.Quote(got.Str)), want, r.String())
			case rc.Unverifiable != "" && reason.Str != rc.Unverifiable:
				return check.Failed(fmt.Sprintf("unverifiable, but as %s, not %s", reason.String(), rc.Unverifiable), want, r.String())
			case rc.Unverifiable != "":
				return check.Passed()
			case unverifiable:
				return check.Failed(fmt.Sprintf("%s addresses %s, but the implementation found it unverifiable (%s)", rng, strconv.Quote(rc.Bytes), reason.String()), want, r.String())
			case got.Kind != canon.String || digest.Kind != canon.String:
				return check.Failed(OpRangeDigest+` must answer {"bytes": string, "digest": string} or {"unverifiable": reason}`, want, r.String())
			}
			if o := check.SameBytes("the addressed bytes", []byte(rc.Bytes), []byte(got.Str)); o.Status != check.Pass {
				o.Notes = append(o.Notes, "lines split on LF only, each keeping its LF; CR is content; the end is inclusive and clamps to the last line")
				return o
			}
			return check.SameBytes("digest", []byte(rc.Digest), []byte(digest.Str))
		},
	}
}

// rangeReply is the reference's rangeDigest reply for bytes, or for err.
func rangeReply(b []byte, err error) json.RawMessage {
	if re, ok := err.(*cgp.RangeError); ok {
		out, _ := json.Marshal(map[string]string{"unverifiable": re.Reason})
		return out
	}
	text, _ := canon.JSONStringify.Marshal(string(b))
	return json.RawMessage(`{"bytes":` + string(text) + `,"digest":"` + cgp.DigestOf(b) + `"}`)
}
