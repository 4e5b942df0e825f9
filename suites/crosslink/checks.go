package crosslink

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

// Checks returns the corpus's checks: three per message
// (crosslink/cases/NAME/{canonical,frame,decode}), one per invalid payload
// (crosslink/invalid/NAME), decode case (crosslink/decode/NAME) and limit
// (crosslink/limits/NAME).
func (c *Corpus) Checks() []check.Check {
	var out []check.Check
	for _, m := range c.Messages {
		out = append(out, canonicalCheck(m), frameCheck(m), decodeCheck(m))
	}
	for _, n := range c.Invalid {
		out = append(out, invalidCheck(n))
	}
	for _, d := range c.Decode {
		out = append(out, decodeCaseCheck(d))
	}
	for _, l := range c.Limits {
		out = append(out, limitCheck(l))
	}
	return out
}

func valueArgs(v json.RawMessage) map[string]json.RawMessage {
	return map[string]json.RawMessage{"value": v}
}

func payloadArgs(payload []byte) map[string]string {
	return map[string]string{"payload_hex": hex.EncodeToString(payload)}
}

func canonicalCheck(m Message) check.Check {
	return check.Check{
		ID:      "crosslink/cases/" + m.Name + "/canonical",
		Doc:     "canonicalJson of the " + m.Name + " message is exactly the corpus's canonical text",
		Needs:   []string{OpCanonical},
		Explain: fmt.Sprintf("sends: canonicalJson {\"value\": %s}\nexpects: %s", check.Clip(string(m.Obj)), check.Clip(strconv.Quote(m.Canonical))),
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			text, o, ok := canonicalJSON(ctx, s, m.Obj, m.Canonical)
			if !ok {
				return o
			}
			return sameText(m.Canonical, text)
		},
	}
}

// canonicalJSON calls canonicalJson on v; when it does not return a string,
// the outcome says why.
func canonicalJSON(ctx context.Context, s *check.Session, v json.RawMessage, want string) (string, check.Outcome, bool) {
	r, err := s.Call(ctx, OpCanonical, valueArgs(v))
	if err != nil {
		return "", check.Broke(err), false
	}
	if r.Err != nil {
		return "", check.Failed("canonicalJson threw: "+r.Err.Error(), want, "threw: "+r.Err.Error()), false
	}
	if r.OK.Kind != canon.String {
		return "", check.Failed("canonicalJson returned "+r.OK.Kind.String()+", not a string", want, r.OK.String()), false
	}
	return r.OK.Str, check.Outcome{}, true
}

// sameText compares canonical texts byte for byte.
func sameText(want, got string) check.Outcome {
	return check.SameBytes("canonical JSON", []byte(want), []byte(got))
}

func frameCheck(m Message) check.Check {
	return check.Check{
		ID:      "crosslink/cases/" + m.Name + "/frame",
		Doc:     "encodeFrame of the " + m.Name + " message is exactly the corpus's frame",
		Needs:   []string{OpFrame},
		Explain: fmt.Sprintf("sends: encodeFrame {\"value\": %s}\nexpects: %s (u32 big-endian length, then the canonical JSON)", check.Clip(string(m.Obj)), check.Clip(m.FrameHex)),
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			return encodeFrame(ctx, s, m.Obj, m.FrameHex)
		},
	}
}

// encodeFrame calls encodeFrame and compares the frame with wantHex.
func encodeFrame(ctx context.Context, s *check.Session, v json.RawMessage, wantHex string) check.Outcome {
	r, err := s.Call(ctx, OpFrame, valueArgs(v))
	if err != nil {
		return check.Broke(err)
	}
	if r.Err != nil {
		return check.Failed("encodeFrame threw: "+r.Err.Error(), check.Clip(wantHex), "threw: "+r.Err.Error())
	}
	if r.OK.Kind != canon.String {
		return check.Failed("encodeFrame returned "+r.OK.Kind.String()+", not a hex string", check.Clip(wantHex), r.OK.String())
	}
	gotHex := r.OK.Str
	got, err := hex.DecodeString(gotHex)
	if err != nil {
		return check.Failed("encodeFrame returned a string that is not hex", check.Clip(wantHex), check.Clip(gotHex))
	}
	if gotHex != strings.ToLower(gotHex) {
		return check.Failed("encodeFrame returned uppercase hex; bytes travel as lowercase hex", check.Clip(wantHex), check.Clip(gotHex))
	}
	want, _ := hex.DecodeString(wantHex)
	d := check.DiffBytes(want, got)
	if d == nil {
		return check.Passed()
	}
	o := check.Failed(fmt.Sprintf("frame differs at byte %d", d.Offset), check.Clip(wantHex), check.Clip(gotHex))
	o.Diff = d
	o.Notes = []string{"length prefix: expected " + prefix(want) + ", actual " + prefix(got)}
	if d.Offset >= 4 && len(got) >= 4 {
		o.Notes = append(o.Notes, fmt.Sprintf("payload differs at byte %d: expected %s, actual %s", d.Offset-4, check.Clip(strconv.Quote(string(want[4:]))), check.Clip(strconv.Quote(string(got[4:])))))
	}
	return o
}

// prefix describes a frame's length prefix.
func prefix(frame []byte) string {
	if len(frame) < 4 {
		return fmt.Sprintf("none (%d bytes in all)", len(frame))
	}
	n := binary.BigEndian.Uint32(frame)
	rest := len(frame) - 4
	s := fmt.Sprintf("%s = %d", hex.EncodeToString(frame[:4]), n)
	if int(n) != rest {
		s += fmt.Sprintf(" (but %d payload bytes follow; read little-endian it is %d)", rest, binary.LittleEndian.Uint32(frame))
	}
	return s
}

func decodeCheck(m Message) check.Check {
	return check.Check{
		ID:      "crosslink/cases/" + m.Name + "/decode",
		Doc:     "decodeMessage of the " + m.Name + " payload, canonicalised again, gives back the canonical text",
		Needs:   []string{OpDecode, OpCanonical},
		Explain: fmt.Sprintf("sends: decodeMessage {\"payload_hex\": hex of the canonical text}, then canonicalJson of what it returned\nexpects: %s", check.Clip(strconv.Quote(m.Canonical))),
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			return decodeRoundTrip(ctx, s, []byte(m.Canonical), m.Canonical)
		},
	}
}

// decodeRoundTrip decodes payload and requires the adapter's own canonical
// JSON of the result to be want.
func decodeRoundTrip(ctx context.Context, s *check.Session, payload []byte, want string) check.Outcome {
	r, err := s.Call(ctx, OpDecode, payloadArgs(payload))
	if err != nil {
		return check.Broke(err)
	}
	if r.Err != nil {
		return check.Failed("decodeMessage rejected a valid message: "+r.Err.Error(), want, "threw: "+r.Err.Error())
	}
	text, o, ok := canonicalJSON(ctx, s, json.RawMessage(r.OK.String()), want)
	if !ok {
		return o
	}
	return sameText(want, text)
}

// codeOf is upstream's errorCode(err) ?? "unknown".
func codeOf(e *adapter.Error) string {
	if e.Code == "" {
		return "unknown"
	}
	return e.Code
}

func invalidCheck(n Invalid) check.Check {
	doc := n.Doc
	if doc == "" {
		doc = "decodeMessage rejects the " + n.Name + " payload"
	}
	return check.Check{
		ID:      "crosslink/invalid/" + n.Name,
		Doc:     doc + ": " + n.Error,
		Needs:   []string{OpDecode},
		Explain: fmt.Sprintf("sends: decodeMessage {\"payload_hex\": %q}\n       (the payload as text: %s)\nexpects: err with code %q", check.Clip(hex.EncodeToString(n.Payload)), check.Clip(strconv.Quote(string(n.Payload))), n.Error),
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			r, err := s.Call(ctx, OpDecode, payloadArgs(n.Payload))
			if err != nil {
				return check.Broke(err)
			}
			if r.Err == nil {
				o := check.Failed("decodeMessage accepted a payload it must reject with "+n.Error, n.Error, "accepted")
				o.Notes = []string{"it returned: " + check.Clip(r.OK.String())}
				return o
			}
			if got := codeOf(r.Err); got != n.Error {
				return check.Failed(fmt.Sprintf("decodeMessage rejected with %s, want %s", got, n.Error), n.Error, got)
			}
			return check.Passed()
		},
	}
}

func decodeCaseCheck(d DecodeCase) check.Check {
	doc := d.Doc
	if doc == "" {
		doc = "decodeMessage accepts the " + d.Name + " payload"
	}
	return check.Check{
		ID:      "crosslink/decode/" + d.Name,
		Doc:     doc,
		Needs:   []string{OpDecode, OpCanonical},
		Explain: fmt.Sprintf("sends: decodeMessage {\"payload_hex\": %q}, then canonicalJson of what it returned\nexpects: %s", check.Clip(hex.EncodeToString(d.Payload)), check.Clip(strconv.Quote(d.Canonical))),
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			return decodeRoundTrip(ctx, s, d.Payload, d.Canonical)
		},
	}
}

// padOverhead is the canonical request that limit cases pad to size in "p".
const padOverhead = `{"i":"AAAAAAAAAAAAAAAA","m":"echo","p":"","t":"req","v":"1.0"}`

// padded returns the canonical request of exactly n bytes.
func padded(n int) []byte {
	i := strings.Index(padOverhead, `"p":""`) + len(`"p":"`)
	var b bytes.Buffer
	b.Grow(n)
	b.WriteString(padOverhead[:i])
	b.WriteString(strings.Repeat("x", n-len(padOverhead)))
	b.WriteString(padOverhead[i:])
	return b.Bytes()
}

func limitCheck(l Limit) check.Check {
	doc := l.Doc
	if doc == "" {
		doc = fmt.Sprintf("encodeFrame of a %d-byte payload", l.PayloadBytes)
	}
	expect := "the frame: u32 big-endian length, then the payload"
	if l.Error != "" {
		expect = "err with code " + strconv.Quote(l.Error)
	}
	return check.Check{
		ID:      "crosslink/limits/" + l.Name,
		Doc:     doc,
		Needs:   []string{OpFrame},
		Explain: fmt.Sprintf("sends: encodeFrame {\"value\": a request whose canonical JSON is %d bytes, padded in \"p\"}\nexpects: %s", l.PayloadBytes, expect),
		Run: func(ctx context.Context, s *check.Session) check.Outcome {
			payload := padded(l.PayloadBytes)
			if l.Error == "" {
				frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
				return encodeFrame(ctx, s, payload, hex.EncodeToString(append(frame, payload...)))
			}
			r, err := s.Call(ctx, OpFrame, valueArgs(payload))
			if err != nil {
				return check.Broke(err)
			}
			if r.Err == nil {
				return check.Failed(fmt.Sprintf("encodeFrame framed a %d-byte payload it must refuse with %s", l.PayloadBytes, l.Error), l.Error, "accepted")
			}
			if got := codeOf(r.Err); got != l.Error {
				return check.Failed(fmt.Sprintf("encodeFrame refused with %s, want %s", got, l.Error), l.Error, got)
			}
			return check.Passed()
		},
	}
}
