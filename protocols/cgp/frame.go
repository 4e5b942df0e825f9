package cgp

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/refereehq/referee/canon"
)

// The digest profile (contextgraph-conformance's golden fixtures, fixture
// profile 1.1.0): a strict parse of a ContextFrame or ContextQuery, the
// materialisation of omitted arrays, RFC 8785 canonicalisation and a SHA-256
// digest of the canonical text.

// FrameFields is the digest profile's allow-list for a frame's top level
// (23 members). content_digest is deliberately not in it.
var FrameFields = []string{
	"id", "kind", "title", "content", "uri", "representation", "content_fidelity",
	"canonical_content_hash", "content_ref", "transform", "minimum_content_fidelity",
	"inline_content_requirement", "score", "token_cost", "canonical_token_cost", "tokenizer_ref",
	"valid_from", "valid_to", "recorded_at", "provenance", "citation_label", "embedding", "relations",
}

// ProvenanceFields, EmbeddingFields and RelationFields are the allow-lists of
// a frame's nested objects. content_ref and transform have none.
var (
	ProvenanceFields = []string{"type", "uri", "range", "digest", "method", "by"}
	EmbeddingFields  = []string{"fingerprint", "vector"}
	RelationFields   = []string{"rel", "target_uri", "display_name"}
)

// QueryFields is the allow-list of a query's top level.
// representation_preferences is not in it.
var QueryFields = []string{"goal", "query_text", "embedding", "kinds", "anchors", "max_frames", "max_tokens", "as_of"}

// FrameArrays and QueryArrays are the arrays normalisation materialises as []
// when absent; nothing else is materialised.
var (
	FrameArrays = []string{"provenance", "relations"}
	QueryArrays = []string{"kinds", "anchors"}
)

// FrameOptionalScalars and QueryOptionalScalars are the optional members that
// stay absent when absent (never null).
var (
	FrameOptionalScalars = []string{"uri", "valid_from", "valid_to", "recorded_at", "embedding"}
	QueryOptionalScalars = []string{"query_text", "embedding", "as_of"}
)

// The stable error codes of the strict parse.
const (
	CodeUnknownField = "unknown_field" // a member outside an allow-list
	CodeInvalidShape = "invalid_shape" // not an object, or a nested member of the wrong JSON type
	CodeInvalidJSON  = "invalid_json"  // not one JSON text (duplicate keys included)
)

// Error is a strict-parse failure: Code, and Path, the member it is about
// ("frame.provenance[0].future_field").
type Error struct {
	Code string
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Code == CodeUnknownField {
		return "unknown field " + e.Path
	}
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Options are the knobs of the strict parse and normalisation. The zero value
// is the digest profile; the others exist for deliberately broken adapters.
type Options struct {
	Lenient       bool // accept unknown members
	NoIndex       bool // leave array indexes out of unknown-field paths
	NullOptionals bool // materialise absent optional scalars as null
	DropEmpty     bool // omit empty arrays instead of materialising them
	SortArrays    bool // sort provenance, relations, embedding.vector, kinds and anchors
}

// ParseFrame reads data as one JSON text (duplicate keys rejected) and checks it
// strictly as a frame.
func ParseFrame(data []byte) (canon.Value, error) { return parse(data, "frame") }

// ParseQuery reads data as one JSON text and checks it strictly as a query.
func ParseQuery(data []byte) (canon.Value, error) { return parse(data, "query") }

func parse(data []byte, target string) (canon.Value, error) {
	v, err := canon.Parse(data, canon.ReadOptions{})
	if err != nil {
		return canon.Value{}, &Error{Code: CodeInvalidJSON, Msg: err.Error()}
	}
	if target == "frame" {
		err = StrictFrame(v, Options{})
	} else {
		err = StrictQuery(v, Options{})
	}
	return v, err
}

// StrictFrame checks v against the frame allow-lists, in source order, depth
// first: the first member outside them is the error, as serde's
// deny_unknown_fields reports it.
func StrictFrame(v canon.Value, o Options) error {
	return strictObject(v, "frame", FrameFields, o, func(key, path string, m canon.Value) error {
		switch key {
		case "provenance":
			return strictArray(m, path, ProvenanceFields, o)
		case "relations":
			return strictArray(m, path, RelationFields, o)
		case "embedding":
			return strictObject(m, path, EmbeddingFields, o, nil)
		}
		return nil
	})
}

// StrictQuery checks v against the query allow-list. Its members' contents
// are not checked.
func StrictQuery(v canon.Value, o Options) error {
	return strictObject(v, "query", QueryFields, o, nil)
}

func strictObject(v canon.Value, path string, allowed []string, o Options, nested func(key, path string, m canon.Value) error) error {
	if v.Kind != canon.Object {
		return &Error{Code: CodeInvalidShape, Path: path, Msg: "is " + v.Kind.String() + ", not an object"}
	}
	for _, m := range v.Members {
		p := path + "." + m.Key
		if !slices.Contains(allowed, m.Key) {
			if o.Lenient {
				continue
			}
			return &Error{Code: CodeUnknownField, Path: p}
		}
		if nested != nil {
			if err := nested(m.Key, p, m.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

func strictArray(v canon.Value, path string, allowed []string, o Options) error {
	if v.Kind != canon.Array {
		return &Error{Code: CodeInvalidShape, Path: path, Msg: "is " + v.Kind.String() + ", not an array"}
	}
	for i, e := range v.Elems {
		p := path + "[" + strconv.Itoa(i) + "]"
		if o.NoIndex {
			p = path
		}
		if err := strictObject(e, p, allowed, o, nil); err != nil {
			return err
		}
	}
	return nil
}

// NormalizeFrame checks v strictly and returns it with provenance and relations
// materialised as [] when absent, appended after the existing members. Nothing
// else changes: member order, array order and number lexemes are kept.
func NormalizeFrame(v canon.Value) (canon.Value, error) {
	return NormalizeFrameWith(v, Options{})
}

// NormalizeFrameWith is NormalizeFrame with o's variations.
func NormalizeFrameWith(v canon.Value, o Options) (canon.Value, error) {
	if err := StrictFrame(v, o); err != nil {
		return canon.Value{}, err
	}
	out := materialize(v, FrameArrays, FrameOptionalScalars, o)
	if o.NullOptionals {
		for i := range out.Members {
			if m := &out.Members[i]; m.Key == "embedding" && m.Value.Kind == canon.Object {
				m.Value = materialize(m.Value, nil, []string{"vector"}, o)
			}
		}
	}
	if o.SortArrays {
		for i := range out.Members {
			m := &out.Members[i]
			switch {
			case (m.Key == "provenance" || m.Key == "relations") && m.Value.Kind == canon.Array:
				m.Value.Elems = sortedByText(m.Value.Elems)
			case m.Key == "embedding" && m.Value.Kind == canon.Object:
				for j := range m.Value.Members {
					if vm := &m.Value.Members[j]; vm.Key == "vector" && vm.Value.Kind == canon.Array {
						vm.Value.Elems = sortedByText(vm.Value.Elems)
					}
				}
			}
		}
	}
	return out, nil
}

// NormalizeQuery checks v strictly and returns it with kinds and anchors
// materialised as [] when absent.
func NormalizeQuery(v canon.Value) (canon.Value, error) {
	return NormalizeQueryWith(v, Options{})
}

// NormalizeQueryWith is NormalizeQuery with o's variations.
func NormalizeQueryWith(v canon.Value, o Options) (canon.Value, error) {
	if err := StrictQuery(v, o); err != nil {
		return canon.Value{}, err
	}
	out := materialize(v, QueryArrays, QueryOptionalScalars, o)
	if o.SortArrays {
		for i := range out.Members {
			if m := &out.Members[i]; (m.Key == "kinds" || m.Key == "anchors") && m.Value.Kind == canon.Array {
				m.Value.Elems = sortedByText(m.Value.Elems)
			}
		}
	}
	return out, nil
}

// materialize copies v's members and appends [] for each absent array (or, in
// the broken variations, null for each absent optional, or drops empty arrays).
func materialize(v canon.Value, arrays, optionals []string, o Options) canon.Value {
	out := canon.Value{Kind: canon.Object, Members: make([]canon.Member, 0, len(v.Members)+len(arrays))}
	has := map[string]bool{}
	for _, m := range v.Members {
		has[m.Key] = true
		if o.DropEmpty && slices.Contains(arrays, m.Key) && m.Value.Kind == canon.Array && len(m.Value.Elems) == 0 {
			continue
		}
		out.Members = append(out.Members, m)
	}
	if !o.DropEmpty {
		for _, k := range arrays {
			if !has[k] {
				out.Members = append(out.Members, canon.Member{Key: k, Value: canon.Value{Kind: canon.Array, Elems: []canon.Value{}}})
			}
		}
	}
	if o.NullOptionals {
		for _, k := range optionals {
			if !has[k] {
				out.Members = append(out.Members, canon.Member{Key: k, Value: canon.Value{Kind: canon.Null}})
			}
		}
	}
	return out
}

func sortedByText(elems []canon.Value) []canon.Value {
	out := slices.Clone(elems)
	slices.SortStableFunc(out, func(a, b canon.Value) int {
		if a.Kind == canon.Number && b.Kind == canon.Number {
			x, _ := strconv.ParseFloat(a.Num, 64)
			y, _ := strconv.ParseFloat(b.Num, 64)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
		return strings.Compare(a.String(), b.String())
	})
	return out
}

// Canonical returns the RFC 8785 text of v: keys by UTF-16 code units,
// ECMAScript number formatting.
func Canonical(v canon.Value) ([]byte, error) {
	return canon.JCS.Append(nil, v)
}

// DigestOf returns "sha256:" and the lowercase hex SHA-256 of text.
func DigestOf(text []byte) string {
	sum := sha256.Sum256(text)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Digest returns DigestOf(Canonical(v)).
func Digest(v canon.Value) (string, error) {
	text, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return DigestOf(text), nil
}

// RuleCitation is the frame-validity rule the citation fixtures test: F3,
// citation_label MUST be present and non-blank.
const RuleCitation = "F3"

// Violation is a frame-validity failure: the rule and the field it is about.
type Violation struct {
	Rule  string
	Field string
	Msg   string
}

func (v *Violation) Error() string { return v.Rule + ": " + v.Field + ": " + v.Msg }

// IsBlank reports whether s is empty once Unicode White_Space is trimmed from
// both ends, as Rust's str::trim does: " \t ", "\u00a0" and "" are blank.
func IsBlank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.Is(unicode.White_Space, r) }) == ""
}
