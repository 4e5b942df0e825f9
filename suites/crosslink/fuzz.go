package crosslink

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/jsongen"
	xl "github.com/refereehq/referee/protocols/crosslink"
)

// fuzzSpec has three targets: messages (canonicalJson, encodeFrame and the
// decode round trip of a valid message, messages-v1.json), payloads for
// decodeMessage (decode-v1.json when the reference accepts, invalid-v1.json
// with its error code when it does not), and frame sizes around the limits
// (limits-v1.json). A message, or a decoded payload, whose canonical JSON
// the reference refuses (a number beyond double range) is a refuse-v1.json
// case.
var fuzzSpec = check.FuzzSpec{
	Targets: []check.FuzzTarget{
		{
			Name:     "message",
			Doc:      "valid messages of every kind with generated members (numbers, strings of every class, host-language names, nesting): canonicalJson, encodeFrame and decodeMessage's round trip, or canonicalJson's and encodeFrame's refusal of a number beyond double range",
			Needs:    []string{OpCanonical, OpFrame, OpDecode},
			Input:    check.FuzzValue,
			Weight:   30,
			Generate: func(r *rand.Rand) []byte { return fuzzMessage(r, false).Encode() },
			Vector:   messageVector,
		},
		{
			Name:     "decode",
			Doc:      "payloads for decodeMessage: messages valid and broken (versions, kinds, fields, nesting around 64, duplicate names, a BOM, whitespace, bytes that are not UTF-8) and byte-level mutations",
			Needs:    []string{OpDecode, OpCanonical},
			Input:    check.FuzzBytes,
			Weight:   30,
			Generate: fuzzPayload,
			Vector:   decodeVector,
		},
		{
			Name:     "frame-size",
			Doc:      "payload sizes for encodeFrame around 1 MiB and 4 MiB and below",
			Needs:    []string{OpFrame},
			Input:    check.FuzzValue,
			Weight:   1,
			Generate: fuzzSize,
			Vector:   limitVector,
		},
	},
	Files: fuzzFiles,
	Proof: check.FuzzProof{Inputs: 2000},
}

// fuzzEntry is one case of one corpus file.
type fuzzEntry struct {
	File string
	Case any
}

type fuzzMessageCase struct {
	Name      string          `json:"name"`
	Obj       json.RawMessage `json:"obj"`
	Canonical string          `json:"canonical"`
	FrameHex  string          `json:"frame_hex"`
}

type fuzzPayloadCase struct {
	Name      string  `json:"name"`
	Doc       string  `json:"doc,omitempty"`
	UTF8      *string `json:"utf8,omitempty"`
	Hex       *string `json:"hex,omitempty"`
	Error     string  `json:"error,omitempty"`
	Canonical *string `json:"canonical,omitempty"`
}

type fuzzRefuseCase struct {
	Name      string `json:"name"`
	Doc       string `json:"doc,omitempty"`
	ValueText string `json:"value_text"`
}

type fuzzLimitCase struct {
	Name         string `json:"name"`
	Doc          string `json:"doc,omitempty"`
	PayloadBytes int    `json:"payload_bytes"`
	Error        string `json:"error,omitempty"`
}

// fuzzFiles lays vectors out as a corpus: messages-v1.json and
// invalid-v1.json always (upstream's reader requires both), decode-v1.json,
// limits-v1.json and refuse-v1.json when they have cases.
func fuzzFiles(vectors []any) (map[string][]byte, error) {
	cases := map[string][]any{MessagesFile: {}, InvalidFile: {}}
	for _, v := range vectors {
		e, ok := v.(fuzzEntry)
		if !ok {
			return nil, fmt.Errorf("%s: a fuzz vector of type %T (a bug in referee)", Name, v)
		}
		cases[e.File] = append(cases[e.File], e.Case)
	}
	files := map[string][]byte{}
	for name, cs := range cases {
		doc := map[string]any{"version": 1, "cases": cs}
		if name == MessagesFile {
			doc["generated_by"] = "referee fuzz"
		}
		b, err := corpus.MarshalJSON(doc)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// fuzzReference is the built-in implementation the vectors' outcomes come from.
var fuzzReference = &Handler{}

// call performs op on the reference: its ok value, or its error.
func call(op string, args any) (*canon.Value, *xl.Error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, &xl.Error{Code: "bad_args"}
	}
	out, aerr := fuzzReference.Handle(context.Background(), op, raw)
	if aerr != nil {
		return nil, &xl.Error{Code: aerr.Code, Reason: aerr.Message}
	}
	v, err := canon.Parse(out, canon.ReadOptions{})
	if err != nil {
		return nil, &xl.Error{Code: "bad_reply"}
	}
	return &v, nil
}

// refusedByReference reports whether err is the reference's refusal to
// write a value as canonical JSON: an error without a code, as the
// TypeScript reference's TypeError for a number beyond double range has
// none (an adapter error such as bad_args has one).
func refusedByReference(err *xl.Error) bool { return err != nil && err.Code == "" }

// refuseVector is a refuse-v1.json case: a value whose canonical JSON the
// reference refuses, as text.
func refuseVector(name, text, doc string) (any, bool) {
	return fuzzEntry{File: RefuseFile, Case: fuzzRefuseCase{Name: name, Doc: doc, ValueText: text}}, true
}

// messageVector is a messages-v1.json case: the reference's canonical text
// and frame of a message whose canonical text it decodes again; or a
// refuse-v1.json case when the reference refuses its canonical text.
func messageVector(name string, input []byte) (any, bool) {
	obj := json.RawMessage(input)
	canonical, err := call(OpCanonical, map[string]json.RawMessage{"value": obj})
	if refusedByReference(err) {
		return refuseVector(name, string(input), "a value found by referee fuzz")
	}
	if err != nil || canonical.Kind != canon.String {
		return nil, false
	}
	frame, err := call(OpFrame, map[string]json.RawMessage{"value": obj})
	if err != nil || frame.Kind != canon.String {
		return nil, false
	}
	if _, err := xl.DecodeMessage([]byte(canonical.Str)); err != nil {
		return nil, false // not a valid message: the round trip would fail
	}
	return fuzzEntry{File: MessagesFile, Case: fuzzMessageCase{Name: name, Obj: obj, Canonical: canonical.Str, FrameHex: frame.Str}}, true
}

// decodeVector is a decode-v1.json case with the canonical text of what the
// reference decodes, or an invalid-v1.json case with its error code; when
// the reference decodes the payload but refuses the canonical text of what
// it decoded, a refuse-v1.json case holding that message's text (the
// message cannot travel back from an adapter as JSON, which has no
// Infinity, so decodeMessage's acceptance of it is not judged).
func decodeVector(name string, payload []byte) (any, bool) {
	c := fuzzPayloadCase{Name: name, Doc: "found by referee fuzz"}
	if utf8.Valid(payload) {
		s := string(payload)
		c.UTF8 = &s
	} else {
		h := hex.EncodeToString(payload)
		c.Hex = &h
	}
	msg, xerr := call(OpDecode, map[string]string{"payload_hex": hex.EncodeToString(payload)})
	if xerr != nil {
		if !xl.IsCode(xerr.Code) {
			return nil, false
		}
		c.Error = xerr.Code
		return fuzzEntry{File: InvalidFile, Case: c}, true
	}
	canonical, xerr := call(OpCanonical, map[string]json.RawMessage{"value": json.RawMessage(msg.String())})
	if refusedByReference(xerr) {
		return refuseVector(name, msg.String(), "a message found by referee fuzz, as decodeMessage reads its payload")
	}
	if xerr != nil || canonical.Kind != canon.String {
		return nil, false
	}
	c.Canonical = &canonical.Str
	return fuzzEntry{File: DecodeFile, Case: c}, true
}

// limitVector is a limits-v1.json case: the payload size in input, and the
// error the reference gives a payload of that size, if any.
func limitVector(name string, input []byte) (any, bool) {
	n, err := strconv.Atoi(string(input))
	if err != nil || n < len(padOverhead) || n > 8<<20 {
		return nil, false
	}
	c := fuzzLimitCase{Name: name, Doc: "found by referee fuzz", PayloadBytes: n}
	// The reference's rule, without framing megabytes here: the engine
	// runs the check on the reference before it counts.
	if _, err := xl.EncodeFrame(canon.Value{Kind: canon.String, Str: strings.Repeat("x", n-2)}, 0); err != nil {
		c.Error = xl.CodePayloadTooLarge
	}
	return fuzzEntry{File: LimitsFile, Case: c}, true
}

// fuzzSize is a payload size: on or next to 1 MiB (what the prose says)
// and 4 MiB (the reference's limit), or small.
func fuzzSize(r *rand.Rand) []byte {
	n := len(padOverhead) + r.IntN(4096)
	if r.IntN(4) > 0 {
		n = []int{1 << 20, 4 << 20, 2 << 20}[r.IntN(3)] + r.IntN(5) - 2
	}
	return []byte(strconv.Itoa(n))
}

// fuzzValues generates the members messages carry besides their fields;
// as a member's value, its deepest chains reach the depth limit exactly.
var fuzzValues = jsongen.JSON{MaxDepth: xl.MaxDepth - 1}

// fuzzID returns an id: mostly valid ([A-Za-z0-9_-]{1,64}).
func fuzzID(r *rand.Rand, broken bool) *jsongen.Node {
	if broken && r.IntN(3) == 0 {
		return jsongen.Str([]string{"", strings.Repeat("a", 65), "a b", "é", "a.b", "a/b"}[r.IntN(6)])
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
	n := 1 + r.IntN(64)
	if r.IntN(2) == 0 {
		n = 16
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return jsongen.Str(string(b))
}

// fuzzName returns a method or event name: mostly valid.
func fuzzName(r *rand.Rand, broken bool) *jsongen.Node {
	if broken && r.IntN(3) == 0 {
		return jsongen.Str([]string{"", "-x", ".x", strings.Repeat("n", 129), "a b", "é"}[r.IntN(6)])
	}
	return jsongen.Str([]string{"echo", "a", "fs.read", "svc:op@v1/x", "x_y-z", "9" + strings.Repeat("n", 127)}[r.IntN(6)])
}

// fuzzMessage returns a message of a random kind with its fields and a few
// generated members; broken makes some of it wrong (a field's format or
// type, a missing field, a version, a kind).
func fuzzMessage(r *rand.Rand, broken bool) *jsongen.Node {
	kind := xl.Kinds[r.IntN(len(xl.Kinds))]
	m := jsongen.Obj("v", jsongen.Str(xl.Version), "t", jsongen.Str(kind))
	switch kind {
	case "req":
		m.Set("i", fuzzID(r, broken))
		m.Set("m", fuzzName(r, broken))
		if r.IntN(3) == 0 {
			m.Set("idem", &jsongen.Node{Kind: canon.Bool, Raw: "true"})
		}
		m.Set("p", fuzzValues.Tree(r))
	case "res", "end", "cancel":
		m.Set("i", fuzzID(r, broken))
		if kind == "res" {
			m.Set("p", fuzzValues.Tree(r))
		}
	case "err":
		m.Set("i", fuzzID(r, broken))
		code := xl.Codes[r.IntN(len(xl.Codes))]
		if broken && r.IntN(2) == 0 {
			code = pick(r, unknownCodes)
		}
		m.Set("e", jsongen.Obj("code", jsongen.Str(code), "message", &jsongen.Node{Kind: canon.String, Raw: jsongen.String(r)}))
	case "chunk":
		m.Set("i", fuzzID(r, broken))
		m.Set("n", jsongen.Num([]string{"0", "1", "7", "1.0", "1e3", "9007199254740993"}[r.IntN(6)]))
		m.Set("d", fuzzValues.Tree(r))
	case "evt", "sub":
		m.Set("s", fuzzID(r, broken))
		m.Set("e", fuzzName(r, broken))
		if kind == "evt" {
			m.Set("d", fuzzValues.Tree(r))
		}
	case "unsub":
		m.Set("s", fuzzID(r, broken))
	case "ping", "pong":
		m.Set("ts", jsongen.Num(jsongen.Number(r)))
	case "hello":
		m.Set("versions", jsongen.Arr(jsongen.Str("1.0")))
		dev := make([]byte, 16)
		for i := range dev {
			dev[i] = byte(r.IntN(256))
		}
		m.Set("deviceId", jsongen.Str("cd1_"+hex.EncodeToString(dev)))
		m.Set("appId", fuzzAppID(r))
	case "hello_ok":
		m.Set("version", jsongen.Str([]string{"1.0", "2.1", "10.20"}[r.IntN(3)]))
	}
	for range r.IntN(3) {
		k := jsongen.Key(r)
		if !strings.ContainsAny(k, `\`) && len(k) > 2 {
			if name, err := strconv.Unquote(k); err == nil && (name == "v" || name == "t") {
				continue
			}
		}
		m.Keys, m.Vals = append(m.Keys, k), append(m.Vals, fuzzValues.Tree(r))
	}
	if broken {
		breakMessage(r, m)
	}
	return m
}

// unknownCodes are error codes beside the 23 stable ones: near misses of
// them (another case, a hyphen, camelCase, a space or line feed around,
// fullwidth letters, a prefix, a suffix), codes of other protocols, and
// none. The codes are a closed set: each is invalid_message in an err.
var unknownCodes = []string{"nope", "PARSE_ERROR", "Internal", "parse-error", "parseError", "timeout ", " timeout", "timeout\n",
	"unknown", "", "E_INTERNAL", "ｔｉｍｅｏｕｔ", "policy_denied2", "grant_expire", "consent", "not_found", "unauthorised", "internal\u0000"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// fuzzAppID returns an appId: a generated string, or a run of one
// character whose length is on either side of 256 when counted in UTF-16
// code units, in code points or in UTF-8 bytes.
func fuzzAppID(r *rand.Rand) *jsongen.Node {
	if r.IntN(2) == 0 {
		return &jsongen.Node{Kind: canon.String, Raw: jsongen.String(r)}
	}
	c := []string{"a", "é", "€", "😀"}[r.IntN(4)]
	n := []int{64, 85, 86, 127, 128, 129, 200, 255, 256, 257}[r.IntN(10)]
	return jsongen.Str(strings.Repeat(c, n))
}

// breakMessage makes one thing about m wrong, or leaves it valid.
func breakMessage(r *rand.Rand, m *jsongen.Node) {
	switch r.IntN(11) {
	case 0:
		m.Set("v", jsongen.Str([]string{"2.0", "1.1", "99", "", "1", "1.0.0"}[r.IntN(6)]))
	case 1:
		m.Set("v", []*jsongen.Node{jsongen.Num("1"), jsongen.Num("1.0"), {Kind: canon.Null, Raw: "null"}, jsongen.Arr()}[r.IntN(4)])
	case 2:
		m.Set("t", jsongen.Str([]string{"root", "REQ", "", "request", "hello_ok2"}[r.IntN(5)]))
	case 3:
		m.Delete([]string{"v", "t", "i", "m", "e", "s", "n", "d", "ts", "versions", "deviceId", "appId", "version"}[r.IntN(13)])
	case 4:
		// A field of the wrong type.
		if len(m.Keys) > 2 {
			k := 2 + r.IntN(len(m.Keys)-2)
			m.Vals[k] = []*jsongen.Node{jsongen.Num("1"), {Kind: canon.Bool, Raw: "false"}, jsongen.Arr(), jsongen.Obj(), {Kind: canon.Null, Raw: "null"}}[r.IntN(5)]
		}
	case 5:
		// Nested to either side of the depth limit.
		d := xl.MaxDepth - 3 + r.IntN(6)
		leaf := jsongen.Num("1")
		for range d {
			if r.IntN(2) == 0 {
				leaf = jsongen.Arr(leaf)
			} else {
				leaf = jsongen.Obj("k", leaf)
			}
		}
		m.Set("x", leaf)
	case 6:
		m.Set("ts", jsongen.Num([]string{"1e400", "-1e400", "1.5", "-0"}[r.IntN(4)]))
	case 7:
		// A member's name in another case: V is not v.
		if len(m.Keys) > 0 {
			i := r.IntN(len(m.Keys))
			m.Keys[i] = strings.ToUpper(m.Keys[i])
		}
	case 8:
		// A field that a pattern must refuse, though a regex with another
		// engine's $ or \d matches it: a final line feed, non-ASCII digits.
		for i, k := range m.Keys {
			switch k {
			case `"i"`, `"s"`, `"m"`, `"e"`, `"version"`, `"deviceId"`:
				if m.Vals[i].Kind == canon.String && len(m.Vals[i].Raw) > 2 {
					body := m.Vals[i].Raw[1 : len(m.Vals[i].Raw)-1]
					m.Vals[i].Raw = `"` + []string{body + `\n`, "١.٠", "٣", body + "\u0663"}[r.IntN(4)] + `"`
					return
				}
			}
		}
		m.Set("versions", jsongen.Arr(jsongen.Str([]string{"1.0\n", "١.٠", "1.٠"}[r.IntN(3)])))
	}
}

// fuzzPayload is a payload for decodeMessage: a message, valid or broken,
// as text with whitespace, duplicate names, a BOM, escaped names or bytes
// that are not UTF-8; at times not an object or not JSON at all.
func fuzzPayload(r *rand.Rand) []byte {
	m := fuzzMessage(r, r.IntN(2) == 0)
	switch r.IntN(12) {
	case 0:
		// A duplicate name, the last one winning.
		if len(m.Keys) > 0 {
			i := r.IntN(len(m.Keys))
			m.Keys, m.Vals = append([]string{m.Keys[i]}, m.Keys...), append([]*jsongen.Node{jsongen.Str("bogus")}, m.Vals...)
		}
	case 1:
		return append([]byte("\xef\xbb\xbf"), m.Encode()...)
	case 2:
		return jsongen.Spaced(r, m)
	case 3:
		// A name written with escapes ("\u0076" is v).
		if len(m.Keys) > 0 {
			i := r.IntN(len(m.Keys))
			name, err := strconv.Unquote(m.Keys[i])
			if err == nil && name != "" {
				m.Keys[i] = fmt.Sprintf(`"\u%04x%s"`, name[0], m.Keys[i][2:len(m.Keys[i])-1])
			}
		}
	case 4:
		b := m.Encode()
		i := r.IntN(len(b))
		bad := []string{"\xff", "\xc0\x80", "\xed\xa0\x80", "\xe2\x82", "\x80"}[r.IntN(5)]
		return append(append(append([]byte{}, b[:i]...), bad...), b[i:]...)
	case 5:
		return []byte([]string{"[]", `"x"`, "1", "null", "true", `[{"v":"1.0","t":"bye"}]`, "{}", ""}[r.IntN(8)])
	}
	if r.IntN(4) == 0 {
		return jsongen.JSON{Space: true}.Value(r)
	}
	return m.Encode()
}
