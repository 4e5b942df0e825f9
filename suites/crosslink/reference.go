package crosslink

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/lazy"
	xl "github.com/refereehq/referee/protocols/crosslink"
)

// modes names and documents the built-in adapter's broken modes, each one
// a mistake a Crosslink implementation could plausibly make; brokenModes
// holds what each one does. Every check of the suite fails under at least
// one mode.
var modes = []check.Mode{
	{Name: "codepoint-order", Doc: "sorts keys by code point, as the prose's \"byte-wise\" says, not by UTF-16 code units as the reference does"},
	{Name: "unsorted", Doc: "keeps members in insertion order"},
	{Name: "go-float", Doc: "formats numbers with Go's strconv 'g' (1e+06, 1e-07)"},
	{Name: "html-escape", Doc: `escapes strings as Go's encoding/json does (\u003c, \u2028, U+FFFD for lone surrogates)`},
	{Name: "reject-surrogates", Doc: "refuses lone surrogates, as an RFC 8785 canonicaliser must"},
	{Name: "uppercase-surrogates", Doc: `writes lone surrogates as \uD800, not \ud800`},
	{Name: "little-endian", Doc: "writes the length prefix little-endian, as protobuf's conformance runner does"},
	{Name: "max-1mib", Doc: "limits payloads to 1 MiB, as PROTOCOL.md says, not the reference's 4 MiB"},
	{Name: "no-max", Doc: "frames payloads of any size"},
	{Name: "version-late", Doc: "validates the structure (which wants v \"1.0\") before the version check, so every unsupported version reads as invalid_message"},
	{Name: "any-type", Doc: "accepts messages of unknown type"},
	{Name: "lenient-envelope", Doc: "validates only objects with a string v and t; anything else decodes as it is"},
	{Name: "no-field-checks", Doc: "checks only v and t, not each kind's fields"},
	{Name: "open-error-codes", Doc: "accepts an err message whose code is any string, as a decoder that reads the stable codes as an open enum (or checks only their type) does"},
	{Name: "depth-65", Doc: "allows one more level of nesting than the reference"},
	{Name: "depth-63", Doc: "allows one level of nesting fewer than the reference"},
	{Name: "reject-duplicates", Doc: "treats duplicate keys as a parse error instead of last-wins"},
	{Name: "lenient-utf8", Doc: "replaces invalid UTF-8 with U+FFFD instead of failing with parse_error"},
	{Name: "parse-as-invalid", Doc: "reports JSON syntax errors as invalid_message"},
	{Name: "drop-envelope", Doc: "decodeMessage returns the message without its v and t"},
	{Name: "python-regex", Doc: "matches the field patterns as Python's re does: $ also before a final line feed, \\d any Unicode digit"},
	{Name: "codepoint-length", Doc: "measures appId in code points (Python's len), not UTF-16 code units (String.length)"},
	{Name: "utf8-length", Doc: "measures appId in UTF-8 bytes (Go's len), not UTF-16 code units (String.length)"},
	{Name: "numeric-version", Doc: "compares v as a number, so \"1.00\" and \"01.0\" are version 1.0"},
	{Name: "case-insensitive-members", Doc: "reads member names regardless of case, as Go's encoding/json does: V is v"},
	{Name: "utf16-length-prefix", Doc: "writes the frame's length prefix in UTF-16 code units (String.length), not bytes"},
	{Name: "proto-dropped", Doc: "drops members named __proto__, as JavaScript code that copies members into a plain object does"},
	{Name: "overflow-null", Doc: "writes null for a number beyond double range (1e400), as JSON.stringify does for Infinity, instead of refusing it"},
	{Name: "overflow-infinity", Doc: "writes Infinity and -Infinity for a number beyond double range, as String(Infinity) without the reference's isFinite guard and Python's json.dumps do, instead of refusing it"},
	{Name: "overflow-lexeme", Doc: "writes a number beyond double range as its lexeme (1e400), as a writer of Go's json.Number or Python's Decimal does, instead of refusing it"},
	{Name: "underflow-refused", Doc: "refuses a number that underflows to zero (1e-400), as C code that takes strtod's ERANGE for an error does, instead of writing 0"},
}

// broken is what a broken mode does differently; the zero value is the
// honest implementation.
type broken struct {
	writer         *mutant.Writer // canonical JSON written this way instead
	littleEndian   bool
	maxFrame       int              // payload limit instead of 4 MiB; -1: none
	versionLate    bool             // structure validated before the version check
	anyType        bool             // unknown "t" accepted
	noFields       bool             // only v and t validated
	openCodes      bool             // an err's code may be any string
	lenient        bool             // only objects with a string v and t are validated
	maxDepth       int              // depth limit instead of 64
	strictDupes    bool             // duplicate keys are parse_error
	lenientUTF8    bool             // invalid UTF-8 replaced by U+FFFD, as TextDecoder does
	parseAsInvalid bool             // JSON errors reported as invalid_message
	dropEnvelope   bool             // decodeMessage returns the message without v and t
	pythonRegex    bool             // $ matches before a final LF, \d any Unicode digit
	appIDLength    func(string) int // appId measured this way instead of UTF-16 units
	numericVersion bool             // v compared as a number
	foldCase       bool             // member names read regardless of case
	utf16Prefix    bool             // length prefix in UTF-16 code units
	// overflow, when set, is what is written for a number beyond double
	// range (given its lexeme) instead of refusing it.
	overflow        func(lexeme string) string
	refuseUnderflow bool // a number that underflows to zero is refused
}

// brokenModes maps each of modes to its behaviour.
var brokenModes = &lazy.Value[map[string]broken]{New: func() map[string]broken {
	return map[string]broken{
		"codepoint-order":          {writer: &mutant.Writer{Keys: mutant.CodePoint, Surrogates: mutant.Escape}},
		"unsorted":                 {writer: &mutant.Writer{Keys: mutant.Unsorted, Surrogates: mutant.Escape}},
		"go-float":                 {writer: &mutant.Writer{Numbers: mutant.GoFloat, Surrogates: mutant.Escape}},
		"html-escape":              {writer: &mutant.Writer{Strings: mutant.HTML}},
		"reject-surrogates":        {writer: &mutant.Writer{}},
		"uppercase-surrogates":     {writer: &mutant.Writer{Surrogates: mutant.EscapeUpper}},
		"little-endian":            {littleEndian: true},
		"max-1mib":                 {maxFrame: 1 << 20},
		"no-max":                   {maxFrame: -1},
		"version-late":             {versionLate: true},
		"any-type":                 {anyType: true},
		"lenient-envelope":         {lenient: true},
		"no-field-checks":          {noFields: true},
		"open-error-codes":         {openCodes: true},
		"depth-65":                 {maxDepth: 65},
		"depth-63":                 {maxDepth: 63},
		"reject-duplicates":        {strictDupes: true},
		"lenient-utf8":             {lenientUTF8: true},
		"parse-as-invalid":         {parseAsInvalid: true},
		"drop-envelope":            {dropEnvelope: true},
		"python-regex":             {pythonRegex: true},
		"codepoint-length":         {appIDLength: canon.CodePoints},
		"utf8-length":              {appIDLength: func(s string) int { return len(s) }}, // a lone surrogate is 3 bytes, as U+FFFD is
		"numeric-version":          {numericVersion: true},
		"case-insensitive-members": {foldCase: true},
		"utf16-length-prefix":      {utf16Prefix: true},
		"proto-dropped":            {writer: &mutant.Writer{DropProto: true, Surrogates: mutant.Escape}},
		"overflow-null":            {overflow: func(string) string { return "null" }},
		"overflow-infinity":        {overflow: infinityText},
		"overflow-lexeme":          {overflow: func(lexeme string) string { return lexeme }},
		"underflow-refused":        {refuseUnderflow: true},
	}
}}

// infinityText is String(x) of the infinity a lexeme beyond double range
// reads as.
func infinityText(lexeme string) string {
	if strings.HasPrefix(lexeme, "-") {
		return "-Infinity"
	}
	return "Infinity"
}

// Handler is the built-in adapter: protocols/crosslink, honest or in one of
// the broken modes of Definition.Modes.
type Handler struct {
	name string // the broken mode's name, "" for the honest one
	mode broken
}

// Reference returns the built-in adapter in mode ("" for the honest one).
func Reference(mode string) (*Handler, error) {
	if mode == "" {
		return &Handler{}, nil
	}
	if _, err := check.FindMode(Name, modes, func(m *check.Mode) string { return m.Name }, mode); err != nil {
		return nil, err
	}
	b, ok := brokenModes.Get()[mode]
	if !ok {
		return nil, fmt.Errorf("%s: broken mode %q has no behaviour (a bug in referee)", Name, mode)
	}
	return &Handler{name: mode, mode: b}, nil
}

// Hello describes the built-in adapter.
func (h *Handler) Hello() adapter.Hello {
	name := "referee-crosslink"
	if h.name != "" {
		name += "+" + h.name
	}
	return adapter.Hello{Name: name, Version: Version, Ops: []string{OpCanonical, OpFrame, OpDecode}, Concurrency: 8}
}

// Handle performs one op.
func (h *Handler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	a, err := canon.Parse(args, canon.ReadOptions{})
	if err != nil || a.Kind != canon.Object {
		return nil, &adapter.Error{Code: "bad_args", Message: "args must be a JSON object"}
	}
	arg := a.Lookup
	switch op {
	case OpCanonical, OpFrame:
		v, ok := arg("value")
		if t, has := arg("value_text"); has && t.Kind == canon.String {
			// The exact text, read as JSON.parse reads it.
			if v, err = xl.ParseValue([]byte(t.Str)); err != nil {
				return nil, &adapter.Error{Code: "bad_args", Message: "args.value_text is not JSON: " + err.Error()}
			}
			ok = true
		}
		if !ok {
			return nil, &adapter.Error{Code: "bad_args", Message: "args.value is missing"}
		}
		text, err := h.canonical(v)
		if err != nil {
			return nil, toError(err)
		}
		if op == OpCanonical {
			return marshalString(string(text))
		}
		framed, err := h.frame(text)
		if err != nil {
			return nil, toError(err)
		}
		return marshalString(hex.EncodeToString(framed))
	case OpDecode:
		p, ok := arg("payload_hex")
		if !ok || p.Kind != canon.String {
			return nil, &adapter.Error{Code: "bad_args", Message: "args.payload_hex must be a string"}
		}
		payload, err := hex.DecodeString(p.Str)
		if err != nil {
			return nil, &adapter.Error{Code: "bad_args", Message: "args.payload_hex is not hex"}
		}
		msg, err := h.decode(payload)
		if err != nil {
			return nil, toError(err)
		}
		return json.RawMessage(msg.String()), nil
	}
	return nil, &adapter.Error{Code: "unknown_op", Message: op}
}

func marshalString(s string) (json.RawMessage, *adapter.Error) {
	out, err := canon.JSONStringify.Marshal(s)
	if err != nil {
		return nil, &adapter.Error{Code: "internal", Message: err.Error()}
	}
	return out, nil
}

// toError carries a Crosslink code as err.code; other failures (such as a
// non-finite number in canonical JSON) have none, as in the reference.
func toError(err error) *adapter.Error {
	var xe *xl.Error
	if errors.As(err, &xe) {
		return &adapter.Error{Code: xe.Code, Message: err.Error()}
	}
	return &adapter.Error{Message: err.Error()}
}

func (h *Handler) canonical(v canon.Value) ([]byte, error) {
	switch {
	case h.mode.writer != nil:
		return h.mode.writer.Append(nil, v)
	case h.mode.overflow != nil:
		// Every number written in advance, those beyond range the mode's
		// way, then copied as it stands.
		written, err := mapNumbers(v, func(lexeme string) (string, error) {
			f, err := strconv.ParseFloat(lexeme, 64)
			if math.IsInf(f, 0) {
				return h.mode.overflow(lexeme), nil
			}
			if err != nil {
				return "", err
			}
			return canon.FormatES6(f)
		})
		if err != nil {
			return nil, err
		}
		return (&mutant.Writer{Numbers: mutant.Lexeme, Surrogates: mutant.Escape}).Append(nil, written)
	case h.mode.refuseUnderflow:
		if _, err := mapNumbers(v, func(lexeme string) (string, error) {
			if f, _ := strconv.ParseFloat(lexeme, 64); f == 0 && strings.ContainsAny(mantissa(lexeme), "123456789") {
				return "", fmt.Errorf("number %s underflows to zero", lexeme)
			}
			return lexeme, nil
		}); err != nil {
			return nil, err
		}
	}
	return xl.Canonical(v)
}

// mapNumbers returns a copy of v with each number's lexeme replaced by what
// f makes of it, or f's first error.
func mapNumbers(v canon.Value, f func(lexeme string) (string, error)) (canon.Value, error) {
	var err error
	switch v.Kind {
	case canon.Number:
		v.Num, err = f(v.Num)
	case canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			if elems[i], err = mapNumbers(e, f); err != nil {
				break
			}
		}
		v.Elems = elems
	case canon.Object:
		members := make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			members[i].Key = m.Key
			if members[i].Value, err = mapNumbers(m.Value, f); err != nil {
				break
			}
		}
		v.Members = members
	}
	return v, err
}

// mantissa is a number lexeme without its exponent.
func mantissa(lexeme string) string {
	if i := strings.IndexAny(lexeme, "eE"); i >= 0 {
		return lexeme[:i]
	}
	return lexeme
}

func (h *Handler) frame(payload []byte) ([]byte, error) {
	max := xl.DefaultMaxFrameBytes
	if h.mode.maxFrame != 0 {
		max = h.mode.maxFrame
	}
	if max > 0 && len(payload) > max {
		return nil, &xl.Error{Code: xl.CodePayloadTooLarge, Reason: fmt.Sprintf("payload of %d bytes exceeds %d", len(payload), max)}
	}
	n := len(payload)
	if h.mode.utf16Prefix {
		n = len(utf16.Encode([]rune(string(payload))))
	}
	var prefix []byte
	if h.mode.littleEndian {
		prefix = binary.LittleEndian.AppendUint32(nil, uint32(n))
	} else {
		prefix = binary.BigEndian.AppendUint32(nil, uint32(n))
	}
	return append(prefix, payload...), nil
}

// decode is xl.DecodeMessage, or the mode's variation of it.
func (h *Handler) decode(payload []byte) (canon.Value, error) {
	m := &h.mode
	if !m.breaksDecode() {
		return xl.DecodeMessage(payload)
	}
	payload, ok := xl.Text(payload)
	if !ok {
		if !m.lenientUTF8 {
			return canon.Value{}, &xl.Error{Code: xl.CodeParseError, Reason: "not valid UTF-8"}
		}
		payload = []byte(strings.ToValidUTF8(string(payload), "\uFFFD"))
	}
	opts := canon.ReadOptions{Duplicates: canon.LastWins}
	if m.strictDupes {
		opts.Duplicates = canon.RejectDuplicates
	}
	v, err := canon.Parse(payload, opts)
	if err != nil {
		code := xl.CodeParseError
		if m.parseAsInvalid {
			code = xl.CodeInvalidMessage
		}
		return canon.Value{}, &xl.Error{Code: code, Reason: "invalid JSON", Err: err}
	}
	limit := xl.MaxDepth
	if m.maxDepth != 0 {
		limit = m.maxDepth
	}
	if xl.Depth(v) > limit {
		return canon.Value{}, &xl.Error{Code: xl.CodeInvalidMessage, Reason: "too-deep"}
	}
	if m.foldCase {
		v = foldMembers(v)
	}
	if m.numericVersion {
		if ver, ok := v.Lookup("v"); ok && ver.Kind == canon.String {
			if f, err := strconv.ParseFloat(ver.Str, 64); err == nil && f == 1 {
				v = withMember(v, "v", canon.Value{Kind: canon.String, Str: xl.Version})
			}
		}
	}
	if !m.versionLate {
		if err := checkVersion(v); err != nil {
			return canon.Value{}, err
		}
	}
	if err := h.validate(v); err != nil {
		return canon.Value{}, err
	}
	if m.dropEnvelope {
		var kept []canon.Member
		for _, mem := range v.Members {
			if mem.Key != "v" && mem.Key != "t" {
				kept = append(kept, mem)
			}
		}
		v.Members = kept
	}
	return v, nil
}

func checkVersion(v canon.Value) error {
	if ver, ok := v.Lookup("v"); ok && v.Kind == canon.Object && ver.Kind == canon.String && ver.Str != xl.Version {
		return &xl.Error{Code: xl.CodeVersionUnsupported, Reason: "version " + ver.Str}
	}
	return nil
}

// breaksDecode reports whether the mode changes decodeMessage.
func (m *broken) breaksDecode() bool {
	return m.versionLate || m.anyType || m.noFields || m.lenient || m.maxDepth != 0 || m.strictDupes ||
		m.lenientUTF8 || m.parseAsInvalid || m.dropEnvelope || m.pythonRegex || m.appIDLength != nil ||
		m.numericVersion || m.foldCase || m.openCodes
}

func (h *Handler) validate(v canon.Value) error {
	if h.mode.pythonRegex {
		v = pythonView(v)
	}
	if h.mode.openCodes {
		v = knownCode(v)
	}
	if h.mode.appIDLength != nil {
		if app, ok := v.Lookup("appId"); ok && app.Kind == canon.String {
			// Within 1..256 by the mode's measure: let the reference's
			// UTF-16 check see a string that is within it too, or not.
			in := "a"
			if n := h.mode.appIDLength(app.Str); n < 1 || n > 256 {
				in = strings.Repeat("a", 257)
			}
			v = withMember(v, "appId", canon.Value{Kind: canon.String, Str: in})
		}
	}
	ver, _ := v.Lookup("v")
	t, _ := v.Lookup("t")
	if h.mode.lenient && (v.Kind != canon.Object || ver.Kind != canon.String || t.Kind != canon.String) {
		return nil
	}
	if (h.mode.anyType || h.mode.noFields) && v.Kind == canon.Object {
		if ver.Kind == canon.String && ver.Str == xl.Version && t.Kind == canon.String {
			known := slices.Contains(xl.Kinds, t.Str)
			if (h.mode.noFields && known) || (h.mode.anyType && !known) {
				return nil
			}
		}
	}
	return xl.Validate(v)
}

// knownCode is an err message with its code, when it is a string, made a
// known one: what a reader of the codes as an open enum sees.
func knownCode(v canon.Value) canon.Value {
	if t, _ := v.Lookup("t"); t.Str != "err" {
		return v
	}
	e, ok := v.Lookup("e")
	if code, has := e.Lookup("code"); !ok || !has || code.Kind != canon.String {
		return v
	}
	return withMember(v, "e", withMember(e, "code", canon.Value{Kind: canon.String, Str: xl.Codes[0]}))
}

// withMember returns v with the first member named key set to x.
func withMember(v canon.Value, key string, x canon.Value) canon.Value {
	v.Members = slices.Clone(v.Members)
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = x
			return v
		}
	}
	return v
}

// foldMembers renames a member whose name matches a field of a Crosslink
// message only when case is ignored, as Go's encoding/json matches struct
// fields: {"V":"1.0"} reads as {"v":"1.0"}.
func foldMembers(v canon.Value) canon.Value {
	if v.Kind != canon.Object {
		return v
	}
	known := []string{"v", "t", "i", "m", "p", "e", "n", "d", "s", "ts", "idem", "versions", "deviceId", "appId", "features", "version", "code", "reason"}
	v.Members = slices.Clone(v.Members)
	for i, m := range v.Members {
		for _, k := range known {
			if m.Key != k && strings.EqualFold(m.Key, k) {
				if _, exact := v.Lookup(k); !exact {
					v.Members[i].Key = k
				}
			}
		}
	}
	return v
}

// pythonView rewrites the fields the validator matches with patterns as
// Python's re reads them against the same patterns: one final line feed
// dropped ($ matches before it) and every Unicode digit made an ASCII one
// (\d matches any).
func pythonView(v canon.Value) canon.Value {
	if v.Kind != canon.Object {
		return v
	}
	py := func(s string) string {
		s = strings.TrimSuffix(s, "\n")
		// Character by character, a lone surrogate (3 bytes) one of them,
		// as Python's str holds it.
		var b strings.Builder
		for i := 0; i < len(s); {
			r, n := canon.DecodeRune(s[i:])
			if r > unicode.MaxASCII && unicode.IsDigit(r) {
				b.WriteByte('0')
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
		}
		return b.String()
	}
	v.Members = slices.Clone(v.Members)
	for i, m := range v.Members {
		switch {
		case m.Value.Kind == canon.String:
			v.Members[i].Value.Str = py(m.Value.Str)
		case m.Key == "versions" && m.Value.Kind == canon.Array:
			elems := slices.Clone(m.Value.Elems)
			for j := range elems {
				if elems[j].Kind == canon.String {
					elems[j].Str = py(elems[j].Str)
				}
			}
			v.Members[i].Value.Elems = elems
		}
	}
	return v
}
