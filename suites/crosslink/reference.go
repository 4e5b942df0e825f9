package crosslink

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
	"github.com/refereehq/referee/check"
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
	{Name: "depth-65", Doc: "allows one more level of nesting than the reference"},
	{Name: "depth-63", Doc: "allows one level of nesting fewer than the reference"},
	{Name: "reject-duplicates", Doc: "treats duplicate keys as a parse error instead of last-wins"},
	{Name: "lenient-utf8", Doc: "replaces invalid UTF-8 with U+FFFD instead of failing with parse_error"},
	{Name: "parse-as-invalid", Doc: "reports JSON syntax errors as invalid_message"},
	{Name: "drop-envelope", Doc: "decodeMessage returns the message without its v and t"},
}

// broken is what a broken mode does differently; the zero value is the
// honest implementation.
type broken struct {
	writer         *mutant.Writer // canonical JSON written this way instead
	littleEndian   bool
	maxFrame       int  // payload limit instead of 4 MiB; -1: none
	versionLate    bool // structure validated before the version check
	anyType        bool // unknown "t" accepted
	noFields       bool // only v and t validated
	lenient        bool // only objects with a string v and t are validated
	maxDepth       int  // depth limit instead of 64
	strictDupes    bool // duplicate keys are parse_error
	lenientUTF8    bool // invalid UTF-8 replaced by U+FFFD, as TextDecoder does
	parseAsInvalid bool // JSON errors reported as invalid_message
	dropEnvelope   bool // decodeMessage returns the message without v and t
}

// brokenModes maps each of modes to its behaviour.
var brokenModes = map[string]broken{
	"codepoint-order":      {writer: &mutant.Writer{Keys: mutant.CodePoint, Surrogates: mutant.Escape}},
	"unsorted":             {writer: &mutant.Writer{Keys: mutant.Unsorted, Surrogates: mutant.Escape}},
	"go-float":             {writer: &mutant.Writer{Numbers: mutant.GoFloat, Surrogates: mutant.Escape}},
	"html-escape":          {writer: &mutant.Writer{Strings: mutant.HTML}},
	"reject-surrogates":    {writer: &mutant.Writer{}},
	"uppercase-surrogates": {writer: &mutant.Writer{Surrogates: mutant.EscapeUpper}},
	"little-endian":        {littleEndian: true},
	"max-1mib":             {maxFrame: 1 << 20},
	"no-max":               {maxFrame: -1},
	"version-late":         {versionLate: true},
	"any-type":             {anyType: true},
	"lenient-envelope":     {lenient: true},
	"no-field-checks":      {noFields: true},
	"depth-65":             {maxDepth: 65},
	"depth-63":             {maxDepth: 63},
	"reject-duplicates":    {strictDupes: true},
	"lenient-utf8":         {lenientUTF8: true},
	"parse-as-invalid":     {parseAsInvalid: true},
	"drop-envelope":        {dropEnvelope: true},
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
	b, ok := brokenModes[mode]
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
	if h.mode.writer != nil {
		return h.mode.writer.Append(nil, v)
	}
	return xl.Canonical(v)
}

func (h *Handler) frame(payload []byte) ([]byte, error) {
	max := xl.DefaultMaxFrameBytes
	if h.mode.maxFrame != 0 {
		max = h.mode.maxFrame
	}
	if max > 0 && len(payload) > max {
		return nil, &xl.Error{Code: xl.CodePayloadTooLarge, Reason: fmt.Sprintf("payload of %d bytes exceeds %d", len(payload), max)}
	}
	var prefix []byte
	if h.mode.littleEndian {
		prefix = binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	} else {
		prefix = binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
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
		m.lenientUTF8 || m.parseAsInvalid || m.dropEnvelope
}

func (h *Handler) validate(v canon.Value) error {
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
