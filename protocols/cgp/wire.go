package cgp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/refereehq/referee/canon"
)

// The wire protocol (SPEC §2–§9): one JSON object per message, an envelope
// tagged by its type member, one per line on stdio and one per request or
// response body over HTTP. Unknown members are ignored on read (U1).

// ProtocolVersion is the version referee's host offers and its provider acks.
const ProtocolVersion = "contextgraph/1.0"

// The envelope types (a closed set in 1.0).
const (
	TypeHandshake    = "handshake"
	TypeHandshakeAck = "handshake_ack"
	TypeQuery        = "query"
	TypeFrames       = "frames"
	TypeVerify       = "verify"
	TypeVerified     = "verified"
	TypeShutdown     = "shutdown"
	TypeError        = "error"
)

// The error codes SPEC 1.0 defines; others are open, namespaced vendor:name.
const (
	CodeBadRequest                = "bad_request"
	CodeUnsupportedKind           = "unsupported_kind"
	CodeUnsupportedRepresentation = "unsupported_representation"
	CodeIncompatibleVersion       = "incompatible_version"
	CodeBudgetUnsatisfiable       = "budget_unsatisfiable"
	CodeUnavailable               = "unavailable"
	CodeShuttingDown              = "shutting_down"
	CodeInternal                  = "internal"
)

// Envelope is any CGP message; Type says which members it carries. Members
// are in the order the reference serializer writes them.
type Envelope struct {
	Type            string              `json:"type"`
	ID              *string             `json:"id,omitempty"`
	ProtocolVersion string              `json:"protocol_version,omitempty"`
	Provider        *ProviderInfo       `json:"provider,omitempty"`
	Capabilities    *Capabilities       `json:"capabilities,omitempty"`
	AttesterKeys    []AttesterKey       `json:"attester_keys,omitempty"`
	Query           *ContextQuery       `json:"query,omitempty"`
	Result          *ContextQueryResult `json:"result,omitempty"`
	Request         *VerifyRequest      `json:"request,omitempty"`
	Response        *VerifyResponse     `json:"response,omitempty"`
	Code            *string             `json:"code,omitempty"`
	Message         *string             `json:"message,omitempty"`
}

// ErrorText is an error envelope's code and message, "CODE: MESSAGE",
// with "(no code)" for a code it lacks.
func (e *Envelope) ErrorText() string {
	code, msg := "(no code)", ""
	if e.Code != nil {
		code = *e.Code
	}
	if e.Message != nil {
		msg = *e.Message
	}
	return code + ": " + msg
}

// ProviderInfo is who a provider says it is and what its data does.
type ProviderInfo struct {
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	DataFlow DataFlow `json:"data_flow"`
}

// DataFlow is a provider's consent declaration.
type DataFlow struct {
	Reads        bool     `json:"reads"`
	Writes       bool     `json:"writes"`
	Egress       bool     `json:"egress"`
	EgressScopes []string `json:"egress_scopes,omitempty"`
}

// Capabilities is what a provider can do beyond a plain query.
type Capabilities struct {
	Query                 QueryCapability `json:"query"`
	Correlation           bool            `json:"correlation"`
	Graph                 bool            `json:"graph"`
	EmbeddingsFingerprint *string         `json:"embeddings_fingerprint,omitempty"`
	Verify                bool            `json:"verify"`
	Representations       []string        `json:"representations,omitempty"`
	Resolve               bool            `json:"resolve"`
}

// QueryCapability lists the frame kinds a provider serves.
type QueryCapability struct {
	Kinds []string `json:"kinds"`
}

// AttesterKey is a public key a provider signs attestations with.
type AttesterKey struct {
	KeyID     string `json:"key_id"`
	Algorithm string `json:"algorithm"`
	PublicKey string `json:"public_key"`
}

// ContextQuery is what a host asks for.
type ContextQuery struct {
	Goal                      string    `json:"goal"`
	QueryText                 *string   `json:"query_text,omitempty"`
	Embedding                 []float32 `json:"embedding,omitempty"`
	Kinds                     []string  `json:"kinds,omitempty"`
	Anchors                   []string  `json:"anchors,omitempty"`
	MaxFrames                 uint32    `json:"max_frames"`
	MaxTokens                 uint32    `json:"max_tokens"`
	AsOf                      *string   `json:"as_of,omitempty"`
	RepresentationPreferences []string  `json:"representation_preferences,omitempty"`
}

// ContextQueryResult is a provider's answer to a query.
type ContextQueryResult struct {
	Frames            []ContextFrame         `json:"frames"`
	Truncated         bool                   `json:"truncated"`
	DroppedEstimate   *uint32                `json:"dropped_estimate,omitempty"`
	FrameAttestations []FrameAttestation     `json:"frame_attestations,omitempty"`
	ResultAttestation *ProvenanceAttestation `json:"result_attestation,omitempty"`
}

// ContextFrame is one unit of context.
type ContextFrame struct {
	ID                       string      `json:"id"`
	Kind                     string      `json:"kind"`
	Title                    string      `json:"title"`
	Content                  *string     `json:"content,omitempty"`
	ContentDigest            *string     `json:"content_digest,omitempty"`
	URI                      *string     `json:"uri,omitempty"`
	Representation           *string     `json:"representation,omitempty"`
	ContentFidelity          *string     `json:"content_fidelity,omitempty"`
	CanonicalContentHash     *string     `json:"canonical_content_hash,omitempty"`
	ContentRef               *ContentRef `json:"content_ref,omitempty"`
	Transform                *Transform  `json:"transform,omitempty"`
	MinimumContentFidelity   *string     `json:"minimum_content_fidelity,omitempty"`
	InlineContentRequirement *string     `json:"inline_content_requirement,omitempty"`
	Score                    float32     `json:"score"`
	TokenCost                uint32      `json:"token_cost"`
	CanonicalTokenCost       *uint32     `json:"canonical_token_cost,omitempty"`
	TokenizerRef             *string     `json:"tokenizer_ref,omitempty"`
	ValidFrom                *string     `json:"valid_from,omitempty"`
	ValidTo                  *string     `json:"valid_to,omitempty"`
	RecordedAt               *string     `json:"recorded_at,omitempty"`
	Provenance               []Link      `json:"provenance,omitempty"`
	CitationLabel            *string     `json:"citation_label,omitempty"`
	Embedding                *Embedding  `json:"embedding,omitempty"`
	Relations                []Relation  `json:"relations,omitempty"`
	// Attestation is read only to catch a frame that carries its own (F6).
	Attestation json.RawMessage `json:"attestation,omitempty"`
}

// Link is one provenance entry, closest to the source first.
type Link struct {
	Type   string  `json:"type"`
	URI    *string `json:"uri,omitempty"`
	Range  *string `json:"range,omitempty"`
	Digest *string `json:"digest,omitempty"`
	Method *string `json:"method,omitempty"`
	By     *string `json:"by,omitempty"`
}

// ContentRef says where the full source of a compact or reference frame is.
type ContentRef struct {
	ProviderID string  `json:"provider_id"`
	URI        string  `json:"uri"`
	ExpiresAt  *string `json:"expires_at,omitempty"`
}

// Transform says how a compact frame was made from its source.
type Transform struct {
	Method         string `json:"method"`
	Implementation string `json:"implementation"`
	Version        string `json:"version"`
}

// Embedding is a frame's vector and the model that made it.
type Embedding struct {
	Fingerprint string    `json:"fingerprint"`
	Vector      []float32 `json:"vector,omitempty"`
}

// Relation is a typed edge from a frame to another resource.
type Relation struct {
	Rel         string  `json:"rel"`
	TargetURI   string  `json:"target_uri"`
	DisplayName *string `json:"display_name,omitempty"`
}

// FrameID is a frame's full identity; its order is the canonical composition order.
type FrameID struct {
	ProviderID    string  `json:"provider_id"`
	FrameID       string  `json:"frame_id"`
	ContentDigest *string `json:"content_digest,omitempty"`
}

// VerifyRequest asks whether served frames are still current.
type VerifyRequest struct {
	Frames []FrameID `json:"frames"`
}

// VerifyResponse holds one verdict per frame asked about.
type VerifyResponse struct {
	Verdicts []FrameVerdict `json:"verdicts"`
}

// The verify statuses.
const (
	StatusValid   = "valid"
	StatusStale   = "stale"
	StatusGone    = "gone"
	StatusUnknown = "unknown"
)

// FrameVerdict is a provider's answer about one frame.
type FrameVerdict struct {
	Frame             FrameID `json:"frame"`
	Status            string  `json:"status"`
	ReplacementDigest *string `json:"replacement_digest,omitempty"`
}

// FrameAttestation attaches an attestation or an inclusion proof to a frame
// named by its full identity.
type FrameAttestation struct {
	Frame          FrameID                `json:"frame"`
	Attestation    *ProvenanceAttestation `json:"attestation,omitempty"`
	InclusionProof *InclusionProof        `json:"inclusion_proof,omitempty"`
}

// ProvenanceAttestation is a signature over one commitment or result root.
type ProvenanceAttestation struct {
	SignedCommitment string `json:"signed_commitment"`
	KeyID            string `json:"key_id"`
	Algorithm        string `json:"algorithm"`
	AttesterID       string `json:"attester_id"`
	Signature        string `json:"signature"`
	IssuedAt         string `json:"issued_at"`
}

// InclusionProof places one frame commitment under a result root.
type InclusionProof struct {
	LeafIndex uint64      `json:"leaf_index"`
	LeafCount uint64      `json:"leaf_count"`
	Path      []ProofStep `json:"path"`
}

// ProofStep is one sibling on the way from a leaf to the root.
type ProofStep struct {
	Sibling       string `json:"sibling"`
	SiblingIsLeft bool   `json:"sibling_is_left"`
}

// MaxLine is the longest envelope line a host reads (16 MiB).
const MaxLine = 16 << 20

// DecodeEnvelope reads one envelope from a line (or an HTTP body) as serde
// reads it (serdeMembers): one JSON object with a string type; unknown
// members are ignored. A member the wire types require but that is missing
// reads as its zero value: use DecodeReply for what a provider serves.
func DecodeEnvelope(data []byte) (*Envelope, error) {
	env, _, err := decodeEnvelope(data)
	return env, err
}

// DecodeReply reads a provider's reply as the reference host does:
// DecodeEnvelope, and then every frame of a frames reply through
// CheckFrameMembers. A frame without a required member, at any level, is no
// ContextFrame, so the reply is refused with a *FrameError naming the frame
// and the member, never read with an empty value in its place.
func DecodeReply(data []byte) (*Envelope, error) {
	env, v, err := decodeEnvelope(data)
	if err != nil {
		return nil, err
	}
	if env.Type == TypeFrames {
		if err := checkServedFrames(v); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// MaxEnvelopeValues is the most values an envelope may hold: a 16 MiB line
// of small values would otherwise take gigabytes once read.
const MaxEnvelopeValues = 1 << 20

// decodeEnvelope is DecodeEnvelope, with the envelope as parsed JSON too:
// as serde reads it, without the members serde ignores.
func decodeEnvelope(data []byte) (*Envelope, canon.Value, error) {
	data = bytes.TrimRight(data, "\r\n")
	// encoding/json would take invalid UTF-8, a field twice (the last) and
	// member names in any case; the reference reader (serde) refuses the
	// first two and ignores a name that is no field's. Repeats are kept
	// here for serdeMembers to judge.
	v, err := canon.Parse(data, canon.ReadOptions{MaxDepth: 128, MaxValues: MaxEnvelopeValues, Duplicates: canon.KeepDuplicates})
	if err != nil {
		return nil, v, fmt.Errorf("not one JSON text: %v", err)
	}
	// serde reads an envelope (a tagged enum) whole before it looks at its
	// type, every string validated: a lone surrogate (\ud800), in any member
	// known or not, is an error there, and U+FFFD in encoding/json.
	if v.HoldsLoneSurrogate() {
		return nil, v, fmt.Errorf("a string or member name holds a lone surrogate escape, which is no Unicode text")
	}
	v = ownMembers(v)
	if v, err = serdeMembers(v, reflect.TypeFor[Envelope](), "envelope"); err != nil {
		return nil, v, err
	}
	if v.Kind != canon.Object {
		return nil, v, fmt.Errorf("not a JSON object but %s", v.Kind)
	}
	typ, ok := v.Lookup("type")
	switch {
	case !ok:
		return nil, v, fmt.Errorf("no type member")
	case typ.Kind != canon.String:
		return nil, v, fmt.Errorf("type is %s, not a string", typ.Kind)
	}
	var env Envelope
	if err := json.Unmarshal([]byte(v.String()), &env); err != nil {
		return nil, v, fmt.Errorf("%s envelope: %v", typ.Str, err)
	}
	if env.Response != nil {
		// A verdict's status is its internal tag: serde reads one of the
		// four variants, or refuses the line.
		for i, vd := range env.Response.Verdicts {
			switch vd.Status {
			case StatusValid, StatusStale, StatusGone, StatusUnknown:
			default:
				return nil, v, fmt.Errorf("envelope.response.verdicts[%d].status is %q, none of valid, stale, gone and unknown", i, vd.Status)
			}
		}
	}
	return &env, v, nil
}

// variantMembers are the members each type of envelope has besides type
// (notes/cgp.md §1.3): Envelope is one struct for the eight, where serde's
// is a tagged enum whose variants know only their own. verify and verified
// keep an id: SPEC §9 correlates them by id, though the draft's Rust type
// has none.
var variantMembers = map[string][]string{
	TypeHandshake:    {"protocol_version"},
	TypeHandshakeAck: {"protocol_version", "provider", "capabilities", "attester_keys"},
	TypeQuery:        {"query", "id"},
	TypeFrames:       {"result", "id"},
	TypeVerify:       {"request", "id"},
	TypeVerified:     {"response", "id"},
	TypeShutdown:     {},
	TypeError:        {"message", "code", "id"},
}

// ownMembers drops from an envelope v of one of the eight types the
// members its variant does not have, in any case: serde ignores them, as
// unknown, where Envelope would read them (an error's query, a shutdown's
// id). An envelope of another type keeps them all.
func ownMembers(v canon.Value) canon.Value {
	typ, _ := v.Lookup("type")
	own, ok := variantMembers[typ.Str]
	if v.Kind != canon.Object || typ.Kind != canon.String || !ok {
		return v
	}
	fields := jsonFieldsOf(reflect.TypeFor[Envelope]())
	kept := make([]canon.Member, 0, len(v.Members))
	for _, m := range v.Members {
		other := slices.ContainsFunc(fields, func(f jsonField) bool {
			return f.name != "type" && strings.EqualFold(f.name, m.Key) && !slices.Contains(own, f.name)
		})
		if !other {
			kept = append(kept, m)
		}
	}
	v.Members = kept
	return v
}

// serdeMembers reads v as serde reads a value of the wire type t, and
// returns it without the members serde ignores. In each object of a wire
// type: a field twice is an error; a member whose name is no field's is
// dropped (an unknown member, U1, or a field's name in another case beside
// the field itself); a field's name in another case without the field is
// an error, since encoding/json would read it as the field (serde finds
// the field missing, an error unless it is optional). A null element of
// an array is an error unless the element type is a pointer (an Option:
// serde reads null as nothing else). Inside a value of no wire type
// (json.RawMessage) a name may not repeat.
func serdeMembers(v canon.Value, t reflect.Type, path string) (canon.Value, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[json.RawMessage]():
		return v, noRepeats(v, path)
	case t.Kind() == reflect.Slice && v.Kind == canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			if e.Kind == canon.Null && t.Elem().Kind() != reflect.Pointer {
				// encoding/json leaves the zero value (0 in an embedding);
				// serde reads null only where the type is an Option.
				return v, fmt.Errorf("%s[%d] is null, which is no %s", path, i, t.Elem().Kind())
			}
			x, err := serdeMembers(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return v, err
			}
			elems[i] = x
		}
		v.Elems = elems
		return v, nil
	case t.Kind() != reflect.Struct || v.Kind != canon.Object:
		return v, nil
	}
	fields := jsonFieldsOf(t)
	kept := make([]canon.Member, 0, len(v.Members))
	for _, m := range v.Members {
		i := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == m.Key })
		if i < 0 {
			for _, f := range fields {
				if strings.EqualFold(f.name, m.Key) {
					if _, ok := v.Lookup(f.name); !ok {
						return v, fmt.Errorf("member %s.%s is not %q: member names are case-sensitive", path, m.Key, f.name)
					}
				}
			}
			continue // serde ignores it
		}
		if slices.ContainsFunc(kept, func(k canon.Member) bool { return k.Key == m.Key }) {
			return v, fmt.Errorf("duplicate field %s.%s", path, m.Key)
		}
		x, err := serdeMembers(m.Value, fields[i].typ, path+"."+m.Key)
		if err != nil {
			return v, err
		}
		kept = append(kept, canon.Member{Key: m.Key, Value: x})
	}
	v.Members = kept
	return v, nil
}

// noRepeats refuses a member name twice in an object anywhere inside v.
func noRepeats(v canon.Value, path string) error {
	var err error
	v.Walk(func(x *canon.Value) bool {
		seen := make(map[string]bool, len(x.Members))
		for _, m := range x.Members {
			if seen[m.Key] {
				err = fmt.Errorf("%s: duplicate member name %q", path, m.Key)
				return false
			}
			seen[m.Key] = true
		}
		return true
	})
	return err
}

// jsonField is a struct field as encoding/json names it.
type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields caches jsonFieldsOf: reading struct tags took a quarter of
// checkFrame's time.
var jsonFields sync.Map // reflect.Type -> []jsonField

// jsonFieldsOf lists a struct type's fields by their JSON names.
func jsonFieldsOf(t reflect.Type) []jsonField {
	if fs, ok := jsonFields.Load(t); ok {
		return fs.([]jsonField)
	}
	fs := make([]jsonField, t.NumField())
	for i := range fs {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fs[i] = jsonField{name, f.Type}
	}
	jsonFields.Store(t, fs)
	return fs
}

// RequestID returns the string id member of a line that may not decode as
// an envelope, so that an error reply can still echo it (H4).
func RequestID(data []byte) *string {
	var probe struct {
		ID *string `json:"id"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return nil
	}
	return probe.ID
}

// Encode writes an envelope as one line of JSON without the newline.
func Encode(env *Envelope) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// VersionFamily returns a version string's major family: the text before its first
// dot ("contextgraph/1" for "contextgraph/1.0-draft").
func VersionFamily(v string) string {
	f, _, _ := strings.Cut(v, ".")
	return f
}

// Compatible reports whether two protocol versions interoperate: their
// families are equal.
func Compatible(a, b string) bool { return VersionFamily(a) == VersionFamily(b) }

// Str returns a pointer to s, for optional members.
func Str(s string) *string { return &s }
