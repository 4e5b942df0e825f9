package fablepool

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
	"github.com/refereehq/referee/check"
	fp "github.com/refereehq/referee/protocols/fablepool"
)

// Mode is a deliberately broken variant of the built-in adapter. Every check
// of the suite fails under at least one mode.
type Mode struct {
	Name string
	Doc  string

	profile      *canon.Profile // canonical JSON with other rules
	writer       *mutant.Writer // canonical JSON written this way once the profile accepts the value
	int32        bool           // integers limited to ±(2^31−1)
	objectsOnly  bool           // only objects canonicalise
	omitEmpty    bool           // members with empty values dropped, as Go's omitempty does
	idOverSigned bool           // id hashes the body with sig
	skipSigAfter bool           // verify_op skips the signature once the id matches
	sortPrev     bool           // prev sorted before hashing and signing
	upperHex     bool           // uppercase hex accepted in sig and id
	rubberStamp  bool           // verify always true
	prehash      bool           // sign and verify SHA-512(message)
	lenientDupes bool           // duplicate keys accepted, last wins
	floatOK      bool           // integral floats such as 1.0 accepted as integers
	wrongSeed    bool           // the public key of the seed with its first byte flipped
	verifyOverOp bool           // verify_op checks the signature over the whole op, not the body
	hashFirst    bool           // verify_op checks id and signature before the envelope
	oneCode      bool           // every canonicalize rejection is canonical_unsupported
	hostParsed   bool           // body and op read as a host JSON parser reads them: numbers as doubles, last duplicate wins, the _text forms ignored
	compactIn    bool           // verify_op refuses op_text with whitespace between tokens
}

// Modes lists the built-in adapter's broken modes.
var Modes = []Mode{
	{Name: "utf16-order", Doc: "sorts keys by UTF-16 code units (JCS), not by code point", profile: &canon.Profile{Name: "utf16-integer", Keys: canon.UTF16, Numbers: canon.Integer}},
	{Name: "es6-numbers", Doc: "accepts any number and writes it as ECMAScript does, instead of integers only", profile: &canon.Profile{Name: "codepoint-es6", Keys: canon.CodePoint, Numbers: canon.ES6}},
	{Name: "escape-surrogates", Doc: `writes lone surrogates as \udxxx instead of canonical_unsupported`, profile: &canon.Profile{Name: "codepoint-integer-escape", Keys: canon.CodePoint, Numbers: canon.Integer, Surrogates: canon.EscapeSurrogates}},
	{Name: "unsorted", Doc: "keeps members in input order", writer: &mutant.Writer{Keys: mutant.Unsorted}},
	{Name: "ascii-escape", Doc: `escapes non-ASCII as \uXXXX, as Python's json.dumps does by default`, writer: &mutant.Writer{Keys: mutant.CodePoint, Strings: mutant.ASCII}},
	{Name: "uppercase-hex", Doc: `writes control escapes in uppercase hex (\u001F)`, writer: &mutant.Writer{Keys: mutant.CodePoint, Strings: mutant.UpperHex}},
	{Name: "int32", Doc: "refuses integers beyond ±(2^31−1), as a 32-bit integer type would", int32: true},
	{Name: "objects-only", Doc: "canonicalises only objects, refusing other top-level values", objectsOnly: true},
	{Name: "omit-empty", Doc: "drops members whose value is null, \"\", [] or {}, as Go's omitempty does", omitEmpty: true},
	{Name: "accept-duplicates", Doc: "accepts duplicate keys, the last one winning", lenientDupes: true},
	{Name: "integral-floats", Doc: "treats 1.0 as the integer 1", floatOK: true},
	{Name: "id-over-signed-op", Doc: "computes the id over the body and the signature", idOverSigned: true},
	{Name: "sig-unchecked-after-id", Doc: "does not check the signature once the id matches the body", skipSigAfter: true},
	{Name: "prev-order-ignored", Doc: "sorts prev before hashing and signing, so reordered links verify", sortPrev: true},
	{Name: "uppercase-hex-ids", Doc: "accepts uppercase hex in id, sig and author", upperHex: true},
	{Name: "rubber-stamp", Doc: "verify and verify_op say yes to everything well formed", rubberStamp: true},
	{Name: "prehash", Doc: "signs, verifies and (for ops) hashes ids over SHA-512(message), Ed25519ph-style, not the message itself", prehash: true},
	{Name: "wrong-key", Doc: "derives the public key from a different seed", wrongSeed: true},
	{Name: "verify-over-op", Doc: "verify_op checks the signature over the whole op (id and sig included), not the body", verifyOverOp: true},
	{Name: "hash-first", Doc: "verify_op checks the id and signature before the envelope's members and formats", hashFirst: true},
	{Name: "one-error-code", Doc: "canonicalize reports every rejection as canonical_unsupported", oneCode: true},
	{Name: "host-parsed", Doc: "reads sign_op's body and verify_op's op as JavaScript's JSON.parse does, ignoring body_text and op_text: 1.0 is the integer 1, the last of two duplicate members wins", hostParsed: true},
	{Name: "compact-input-only", Doc: "verify_op refuses an op_text with whitespace between tokens, as verifiers that demand compact text do, though the profile verifies any spelling of an op", compactIn: true},
	{Name: "proto-dropped", Doc: "drops members named __proto__, as JavaScript code that copies members into a plain object does", writer: &mutant.Writer{Keys: mutant.CodePoint, DropProto: true}},
}

// Handler is the built-in adapter: protocols/fablepool, honest or broken.
type Handler struct{ mode Mode }

// Reference returns the built-in adapter in mode ("" for the honest one).
func Reference(mode string) (*Handler, error) {
	if mode == "" {
		return &Handler{}, nil
	}
	m, err := check.FindMode(Name, Modes, func(m *Mode) string { return m.Name }, mode)
	if err != nil {
		return nil, err
	}
	return &Handler{mode: *m}, nil
}

// Hello describes the built-in adapter.
func (h *Handler) Hello() adapter.Hello {
	name := "referee-fablepool"
	if h.mode.Name != "" {
		name += "+" + h.mode.Name
	}
	return adapter.Hello{Name: name, Version: Version, Ops: []string{OpCanonicalize, OpPublicKey, OpSign, OpVerify, OpSignOp, OpVerifyOp}, Concurrency: 8}
}

type args struct {
	Input      json.RawMessage `json:"input"`
	InputText  *string         `json:"input_text"`
	Seed       string          `json:"seed"`
	MessageHex string          `json:"message_hex"`
	PublicKey  string          `json:"public_key"`
	Signature  string          `json:"signature"`
	Body       json.RawMessage `json:"body"`
	BodyText   *string         `json:"body_text"`
	Op         json.RawMessage `json:"op"`
	OpText     *string         `json:"op_text"`
}

func fail(code string, err error) *adapter.Error {
	return &adapter.Error{Code: code, Message: err.Error()}
}

func errOf(err error) *adapter.Error {
	if code := fp.CodeOf(err); code != "" {
		return fail(code, err)
	}
	return &adapter.Error{Code: "bad_args", Message: err.Error()}
}

func jsonString(s string) json.RawMessage {
	b, _ := canon.JSONStringify.Marshal(s)
	return b
}

// Handle performs one op.
func (h *Handler) Handle(ctx context.Context, op string, raw []byte) (json.RawMessage, *adapter.Error) {
	// Args that a strict parse reads, with exactly the member names args
	// has and strings where it holds strings, read as encoding/json reads
	// them: one parse serves both. Others (names in another case, a
	// number for a string, text that is not UTF-8, duplicates) are read
	// by encoding/json, as they always were.
	fast := h.argsOptions()
	fast.MaxDepth = fastArgsDepth
	if rawArgs, err := canon.Parse(raw, fast); err == nil {
		if a, ok := argsOf(rawArgs); ok {
			return h.handleArgs(op, a, rawArgs, nil)
		}
	}
	return h.handleDecoded(op, raw)
}

// fastArgsDepth is the deepest args Handle reads with one parse: within
// encoding/json's limit of 10,000, so that what is deeper is refused as it
// always was.
const fastArgsDepth = 1000

// argsOptions is how Handle reads the JSON values of the args.
func (h *Handler) argsOptions() canon.ReadOptions {
	opts := canon.ReadOptions{}
	if h.mode.hostParsed {
		opts.Duplicates = canon.LastWins
	}
	return opts
}

// argsOf reads args from an object of args parsed strictly, as
// encoding/json would read it; ok is false when its reading could differ:
// a name args does not have in exactly that spelling, or a member args
// holds as a string that is neither a string of UTF-8 nor null.
func argsOf(v canon.Value) (a args, ok bool) {
	if v.Kind != canon.Object {
		return args{}, false
	}
	for _, m := range v.Members {
		var str *string
		var ptr **string
		switch m.Key {
		case "input", "body", "op":
			continue // read from the parse, as values
		case "seed":
			str = &a.Seed
		case "message_hex":
			str = &a.MessageHex
		case "public_key":
			str = &a.PublicKey
		case "signature":
			str = &a.Signature
		case "input_text":
			ptr = &a.InputText
		case "body_text":
			ptr = &a.BodyText
		case "op_text":
			ptr = &a.OpText
		default:
			return args{}, false
		}
		switch {
		case m.Value.Kind == canon.Null && ptr != nil:
			*ptr = nil
		case m.Value.Kind == canon.Null:
			// encoding/json leaves a string alone for null
		case m.Value.Kind != canon.String || !utf8.ValidString(m.Value.Str):
			return args{}, false
		case ptr != nil:
			s := m.Value.Str
			*ptr = &s
		default:
			*str = m.Value.Str
		}
	}
	return a, true
}

// handleDecoded performs one op on args read by encoding/json: the
// reading of args that argsOf does not take.
func (h *Handler) handleDecoded(op string, raw []byte) (json.RawMessage, *adapter.Error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &adapter.Error{Code: "bad_args", Message: err.Error()}
	}
	return h.handleArgs(op, a, canon.Value{}, raw)
}

// handleArgs performs one op on args a, whose JSON values are read from
// rawArgs, or when raw is not nil, parsed from raw as they are needed.
func (h *Handler) handleArgs(op string, a args, rawArgs canon.Value, raw []byte) (json.RawMessage, *adapter.Error) {
	// body_text and op_text carry a body's and an op's exact text; read
	// strictly, as the profile parses, they keep what a verdict turns on
	// (a lexeme, a duplicate member). Without them the JSON values are read
	// from the raw args, strictly too.
	if h.mode.hostParsed {
		a.BodyText, a.OpText = nil, nil
	}
	if t := textArg(op, a); t != nil {
		v, err := fp.Parse([]byte(*t))
		if err != nil {
			return nil, errOf(err)
		}
		if op == OpVerifyOp && h.mode.compactIn {
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(*t)); err != nil || b.String() != *t {
				return nil, fail(fp.CodeJSONInvalid, fmt.Errorf("op_text is not compact"))
			}
		}
		return h.handleValue(op, a, v)
	}
	if raw != nil {
		var perr error
		if rawArgs, perr = canon.Parse(raw, h.argsOptions()); perr != nil {
			return nil, fail(fp.CodeJSONInvalid, perr)
		}
	}
	value := func(key string) (canon.Value, bool) {
		v, ok := rawArgs.Lookup(key)
		if h.mode.hostParsed {
			v = hostNumbers(v)
		}
		return v, ok
	}
	switch op {
	case OpCanonicalize:
		var text []byte
		if _, both := value("input"); both && a.InputText != nil {
			return nil, &adapter.Error{Code: "bad_args", Message: "args need exactly one of input and input_text"}
		}
		if a.InputText != nil {
			text = []byte(*a.InputText)
		} else if v, ok := value("input"); ok {
			text = []byte(v.String())
		} else {
			return nil, &adapter.Error{Code: "bad_args", Message: "args need input or input_text"}
		}
		out, err := h.canonicalText(text)
		if err != nil && h.mode.oneCode {
			return nil, fail(fp.CodeCanonicalUnsupported, err)
		}
		if err != nil {
			return nil, errOf(err)
		}
		return jsonString(string(out)), nil
	case OpPublicKey:
		pub, err := h.publicKey(a.Seed)
		if err != nil {
			return nil, errOf(err)
		}
		return jsonString(hex.EncodeToString(pub)), nil
	case OpSign:
		seed, err1 := hex.DecodeString(a.Seed)
		msg, err2 := hex.DecodeString(a.MessageHex)
		if err1 != nil || err2 != nil {
			return nil, &adapter.Error{Code: "bad_args", Message: "seed and message_hex must be hex"}
		}
		sig, err := fp.Sign(seed, h.message(msg))
		if err != nil {
			return nil, errOf(err)
		}
		return jsonString(hex.EncodeToString(sig)), nil
	case OpVerify:
		pub, err1 := hex.DecodeString(a.PublicKey)
		msg, err2 := hex.DecodeString(a.MessageHex)
		sig, err3 := hex.DecodeString(a.Signature)
		ok := err1 == nil && err2 == nil && err3 == nil && (h.mode.rubberStamp || fp.Verify(pub, h.message(msg), sig))
		return json.RawMessage(fmt.Sprint(ok)), nil
	case OpSignOp:
		body, ok := value("body")
		if !ok {
			return nil, &adapter.Error{Code: "bad_args", Message: "args need body"}
		}
		return h.handleValue(op, a, body)
	case OpVerifyOp:
		opv, ok := value("op")
		if !ok {
			return nil, &adapter.Error{Code: "bad_args", Message: "args need op"}
		}
		return h.handleValue(op, a, opv)
	}
	return nil, &adapter.Error{Code: "unknown_op", Message: op}
}

// textArg returns the _text argument of sign_op or verify_op, nil when the
// op has none or was not sent one.
func textArg(op string, a args) *string {
	switch op {
	case OpSignOp:
		return a.BodyText
	case OpVerifyOp:
		return a.OpText
	}
	return nil
}

// handleValue performs sign_op on a body or verify_op on an op.
func (h *Handler) handleValue(op string, a args, v canon.Value) (json.RawMessage, *adapter.Error) {
	if op == OpSignOp {
		signed, err := h.signOp(a.Seed, v)
		if err != nil {
			return nil, errOf(err)
		}
		return json.RawMessage(signed.String()), nil
	}
	if err := h.verifyOp(v); err != nil {
		return nil, errOf(err)
	}
	return json.RawMessage("true"), nil
}

// hostNumbers rewrites every number as JavaScript's JSON.parse holds it,
// a double written back the shortest way: 1.0 becomes 1, 1e2 100,
// 9007199254740993 9007199254740992.
func hostNumbers(v canon.Value) canon.Value {
	switch v.Kind {
	case canon.Number:
		if s, err := canon.FormatES6(mustFloat(v.Num)); err == nil {
			v.Num = s
		}
	case canon.Array:
		v.Elems = slices.Clone(v.Elems)
		for i := range v.Elems {
			v.Elems[i] = hostNumbers(v.Elems[i])
		}
	case canon.Object:
		v.Members = slices.Clone(v.Members)
		for i := range v.Members {
			v.Members[i].Value = hostNumbers(v.Members[i].Value)
		}
	}
	return v
}

func (h *Handler) canonicalText(text []byte) ([]byte, error) {
	opts := canon.ReadOptions{}
	if h.mode.lenientDupes {
		opts.Duplicates = canon.LastWins
	}
	v, err := canon.Parse(text, opts)
	if err != nil {
		return nil, &fp.Error{Code: fp.CodeJSONInvalid, Err: err}
	}
	return h.canonical(v)
}

func (h *Handler) canonical(v canon.Value) ([]byte, error) {
	if h.mode.floatOK {
		v = integralFloats(v)
	}
	if h.mode.omitEmpty {
		v = omitEmpty(v)
	}
	if h.mode.objectsOnly && v.Kind != canon.Object {
		return nil, &fp.Error{Code: fp.CodeCanonicalUnsupported, Detail: "only objects"}
	}
	if h.mode.int32 && !fitsInt32(v) {
		return nil, &fp.Error{Code: fp.CodeCanonicalUnsupported, Detail: "integer beyond 32 bits"}
	}
	if h.mode.writer != nil {
		if _, err := fp.Canonical(v); err != nil {
			return nil, err
		}
		return h.mode.writer.Append(nil, v)
	}
	if h.mode.profile != nil {
		b, err := h.mode.profile.Append(nil, v)
		if err != nil {
			return nil, &fp.Error{Code: fp.CodeCanonicalUnsupported, Err: err}
		}
		return b, nil
	}
	return fp.Canonical(v)
}

func omitEmpty(v canon.Value) canon.Value {
	switch v.Kind {
	case canon.Array:
		v.Elems = slices.Clone(v.Elems)
		for i := range v.Elems {
			v.Elems[i] = omitEmpty(v.Elems[i])
		}
	case canon.Object:
		var kept []canon.Member
		for _, m := range v.Members {
			e := m.Value
			if e.Kind == canon.Null || (e.Kind == canon.String && e.Str == "") || (e.Kind == canon.Array && len(e.Elems) == 0) || (e.Kind == canon.Object && len(e.Members) == 0) {
				continue
			}
			kept = append(kept, canon.Member{Key: m.Key, Value: omitEmpty(e)})
		}
		v.Members = kept
	}
	return v
}

func fitsInt32(v canon.Value) bool {
	switch v.Kind {
	case canon.Number:
		f := mustFloat(v.Num)
		return f <= 1<<31-1 && f >= -(1<<31-1)
	case canon.Array:
		for _, e := range v.Elems {
			if !fitsInt32(e) {
				return false
			}
		}
	case canon.Object:
		for _, m := range v.Members {
			if !fitsInt32(m.Value) {
				return false
			}
		}
	}
	return true
}

// integralFloats rewrites lexemes such as 1.0 and 1e3 as integers.
func integralFloats(v canon.Value) canon.Value {
	switch v.Kind {
	case canon.Number:
		if s, err := canon.FormatES6(mustFloat(v.Num)); err == nil && !strings.ContainsAny(s, ".e") {
			v.Num = s
		}
	case canon.Array:
		v.Elems = slices.Clone(v.Elems)
		for i := range v.Elems {
			v.Elems[i] = integralFloats(v.Elems[i])
		}
	case canon.Object:
		v.Members = slices.Clone(v.Members)
		for i := range v.Members {
			v.Members[i].Value = integralFloats(v.Members[i].Value)
		}
	}
	return v
}

func mustFloat(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}

func (h *Handler) publicKey(seedHex string) ([]byte, error) {
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		return nil, fmt.Errorf("seed is not hex")
	}
	if h.mode.wrongSeed && len(seed) > 0 {
		seed = slices.Clone(seed)
		seed[0] ^= 0x80
	}
	return fp.PublicKey(seed)
}

func (h *Handler) message(msg []byte) []byte {
	if h.mode.prehash {
		sum := sha512.Sum512(msg)
		return sum[:]
	}
	return msg
}

// bodyBytes is what the id hashes and the signature signs, in this mode.
func (h *Handler) bodyBytes(body canon.Value) ([]byte, error) {
	if h.mode.sortPrev {
		body = sortedPrev(body)
	}
	b, err := h.canonical(body)
	if err != nil {
		return nil, err
	}
	return h.message(b), nil
}

func sortedPrev(body canon.Value) canon.Value {
	body.Members = slices.Clone(body.Members)
	for i, m := range body.Members {
		if m.Key == "prev" && m.Value.Kind == canon.Array {
			elems := slices.Clone(m.Value.Elems)
			slices.SortFunc(elems, func(a, b canon.Value) int { return strings.Compare(a.Str, b.Str) })
			body.Members[i].Value.Elems = elems
		}
	}
	return body
}

func (h *Handler) signOp(seedHex string, body canon.Value) (canon.Value, error) {
	m := h.mode
	if m == (Mode{}) {
		seed, err := hex.DecodeString(seedHex)
		if err != nil {
			return canon.Value{}, fmt.Errorf("seed is not hex")
		}
		return fp.SignOp(seed, body)
	}
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		return canon.Value{}, fmt.Errorf("seed is not hex")
	}
	b, err := h.bodyBytes(body)
	if err != nil {
		return canon.Value{}, err
	}
	sig, err := fp.Sign(seed, b)
	if err != nil {
		return canon.Value{}, err
	}
	str := func(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }
	op := canon.Value{Kind: canon.Object, Members: slices.Clone(body.Members)}
	idBytes := b
	if m.idOverSigned {
		idBytes = append(slices.Clone(b), sig...)
	}
	op.Members = append(op.Members, canon.Member{Key: "id", Value: str(fp.ID(idBytes))}, canon.Member{Key: "sig", Value: str(hex.EncodeToString(sig))})
	return op, nil
}

func (h *Handler) verifyOp(op canon.Value) error {
	m := h.mode
	if m == (Mode{}) {
		return fp.VerifyOp(op)
	}
	check := op
	if m.upperHex {
		check = lowerHexFields(op)
	}
	if !m.hashFirst {
		if err := fp.CheckEnvelope(check); err != nil {
			return err
		}
	}
	if m.rubberStamp {
		return nil
	}
	body := fp.Body(check)
	b, err := h.bodyBytes(body)
	if err != nil {
		return err
	}
	id, _ := check.Lookup("id")
	sigText, _ := check.Lookup("sig")
	sig, _ := hex.DecodeString(sigText.Str)
	idBytes := b
	if m.idOverSigned {
		idBytes = append(slices.Clone(b), sig...)
	}
	if id.Str != fp.ID(idBytes) {
		return &fp.Error{Code: fp.CodeIDMismatch}
	}
	if m.skipSigAfter {
		return nil
	}
	author, _ := check.Lookup("author")
	pub, _ := hex.DecodeString(strings.TrimPrefix(author.Str, "ed25519:"))
	signed := b
	if m.verifyOverOp {
		if signed, err = h.canonical(check); err != nil {
			return err
		}
	}
	if !fp.Verify(pub, signed, sig) {
		return &fp.Error{Code: fp.CodeSigInvalid}
	}
	if m.hashFirst {
		return fp.CheckEnvelope(check)
	}
	return nil
}

func lowerHexFields(op canon.Value) canon.Value {
	op.Members = slices.Clone(op.Members)
	for i, mem := range op.Members {
		switch mem.Key {
		case "id", "sig", "author":
			op.Members[i].Value.Str = strings.ToLower(mem.Value.Str)
		}
	}
	return op
}
