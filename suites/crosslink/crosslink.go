// Package crosslink is referee's Crosslink v1 suite: canonicalJson,
// encodeFrame and decodeMessage with their stable error codes, over the
// upstream corpus layout (messages-v1.json, invalid-v1.json) or referee's own
// embedded corpus, which adds decode-v1.json, limits-v1.json and
// refuse-v1.json. Definition declares it to the engine.
package crosslink

import (
	"bytes"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	xl "github.com/refereehq/referee/protocols/crosslink"
)

// Name is the suite's name, as in `referee run crosslink`.
const Name = "crosslink"

// Version is the suite's own version.
const Version = "1.0.0"

// The adapter ops, upstream's four less errorCode, which travels as err.code.
const (
	OpCanonical = "canonicalJson"
	OpFrame     = "encodeFrame"
	OpDecode    = "decodeMessage"
)

// The corpus files. The first two are upstream's; the last three are referee's.
const (
	MessagesFile = "messages-v1.json"
	InvalidFile  = "invalid-v1.json"
	DecodeFile   = "decode-v1.json"
	LimitsFile   = "limits-v1.json"
	RefuseFile   = "refuse-v1.json"
)

//go:embed corpus
var embedded embed.FS

// Embedded returns referee's own Crosslink corpus, verified against its manifest.
func Embedded() (*corpus.Corpus, error) {
	sub, err := fs.Sub(embedded, "corpus")
	if err != nil {
		return nil, err
	}
	return corpus.Open(sub, "embedded:crosslink")
}

// Corpus is a Crosslink corpus, read.
type Corpus struct {
	Messages []Message
	Invalid  []Invalid
	Decode   []DecodeCase
	Limits   []Limit
	Refuse   []Refusal
}

// Message is a positive case: a message, its canonical JSON and its frame.
type Message struct {
	Name      string
	Obj       json.RawMessage // as in the file, whitespace removed, lexemes and escapes kept
	Canonical string
	FrameHex  string
}

// Invalid is a negative case: a payload decodeMessage must reject with Error.
type Invalid struct {
	Name    string
	Payload []byte // from "utf8" (upstream) or "hex" (referee: bytes that are not UTF-8)
	Error   string
	Doc     string
}

// DecodeCase is a payload decodeMessage must accept, and the canonical JSON
// of what it returns (referee: payloads that are not canonical, such as
// duplicate keys).
type DecodeCase struct {
	Name      string
	Payload   []byte
	Canonical string
	Doc       string
}

// Limit is a frame-size case: a request padded to PayloadBytes, which
// encodeFrame must frame, or reject with Error.
type Limit struct {
	Name         string
	PayloadBytes int
	Error        string
	Doc          string
}

// Refusal is a value canonicalJson (and so encodeFrame) must refuse: JSON
// text whose number, read as a double the way the reference's JSON.parse
// reads it, is beyond double range (1e400 is Infinity), which the
// reference's canonicalJson throws on.
type Refusal struct {
	Name string
	Text string // the value's JSON text, exactly as in the file: its lexemes are the point
	Doc  string
}

// ReadCorpus reads a corpus in the upstream layout, with referee's three
// extra files when present. A version other than 1 is an error.
func ReadCorpus(c *corpus.Corpus) (*Corpus, error) {
	out := &Corpus{}
	var messages struct {
		Version     int    `json:"version"`
		GeneratedBy string `json:"generated_by"`
		Cases       []struct {
			Name      string          `json:"name"`
			Obj       json.RawMessage `json:"obj"`
			Canonical *string         `json:"canonical"`
			FrameHex  *string         `json:"frame_hex"`
		} `json:"cases"`
	}
	if err := readFile(c, MessagesFile, &messages.Version, &messages); err != nil {
		return nil, err
	}
	seen := corpus.Names{}
	for i, m := range messages.Cases {
		where := fmt.Sprintf("corpus %s: %s: case %d (%q)", c.Name, MessagesFile, i, m.Name)
		if err := seen.Add(m.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if len(m.Obj) == 0 || m.Canonical == nil || m.FrameHex == nil {
			return nil, fmt.Errorf("%s: needs obj, canonical and frame_hex", where)
		}
		if _, err := hex.DecodeString(*m.FrameHex); err != nil || len(*m.FrameHex) < 8 {
			return nil, fmt.Errorf("%s: frame_hex is not a hex frame", where)
		}
		var obj bytes.Buffer
		if err := json.Compact(&obj, m.Obj); err != nil {
			return nil, fmt.Errorf("%s: obj: %w", where, err)
		}
		out.Messages = append(out.Messages, Message{Name: m.Name, Obj: obj.Bytes(), Canonical: *m.Canonical, FrameHex: *m.FrameHex})
	}

	var invalid struct {
		Version int `json:"version"`
		Cases   []struct {
			Name  string  `json:"name"`
			UTF8  *string `json:"utf8"`
			Hex   *string `json:"hex"`
			Error string  `json:"error"`
			Doc   string  `json:"doc"`
		} `json:"cases"`
	}
	if err := readFile(c, InvalidFile, &invalid.Version, &invalid); err != nil {
		return nil, err
	}
	seen = corpus.Names{}
	for i, n := range invalid.Cases {
		where := fmt.Sprintf("corpus %s: %s: case %d (%q)", c.Name, InvalidFile, i, n.Name)
		if err := seen.Add(n.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		payload, err := payloadOf(n.UTF8, n.Hex)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if n.Error == "" {
			return nil, fmt.Errorf("%s: no error code", where)
		}
		if !xl.IsCode(n.Error) {
			return nil, fmt.Errorf("%s: %q is not one of Crosslink's error codes", where, n.Error)
		}
		out.Invalid = append(out.Invalid, Invalid{Name: n.Name, Payload: payload, Error: n.Error, Doc: n.Doc})
	}

	if c.Has(DecodeFile) {
		var doc struct {
			Version int `json:"version"`
			Cases   []struct {
				Name      string  `json:"name"`
				UTF8      *string `json:"utf8"`
				Hex       *string `json:"hex"`
				Canonical *string `json:"canonical"`
				Doc       string  `json:"doc"`
			} `json:"cases"`
		}
		if err := readFile(c, DecodeFile, &doc.Version, &doc); err != nil {
			return nil, err
		}
		seen = corpus.Names{}
		for i, d := range doc.Cases {
			where := fmt.Sprintf("corpus %s: %s: case %d (%q)", c.Name, DecodeFile, i, d.Name)
			if err := seen.Add(d.Name); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			payload, err := payloadOf(d.UTF8, d.Hex)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if d.Canonical == nil {
				return nil, fmt.Errorf("%s: no canonical", where)
			}
			out.Decode = append(out.Decode, DecodeCase{Name: d.Name, Payload: payload, Canonical: *d.Canonical, Doc: d.Doc})
		}
	}

	if c.Has(LimitsFile) {
		var doc struct {
			Version int `json:"version"`
			Cases   []struct {
				Name         string `json:"name"`
				PayloadBytes int    `json:"payload_bytes"`
				Error        string `json:"error"`
				Doc          string `json:"doc"`
			} `json:"cases"`
		}
		if err := readFile(c, LimitsFile, &doc.Version, &doc); err != nil {
			return nil, err
		}
		seen = corpus.Names{}
		for i, l := range doc.Cases {
			where := fmt.Sprintf("corpus %s: %s: case %d (%q)", c.Name, LimitsFile, i, l.Name)
			if err := seen.Add(l.Name); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if l.Error != "" && !xl.IsCode(l.Error) {
				return nil, fmt.Errorf("%s: %q is not one of Crosslink's error codes", where, l.Error)
			}
			if l.PayloadBytes < len(padOverhead) || l.PayloadBytes > 8<<20 {
				return nil, fmt.Errorf("%s: payload_bytes %d is not between %d and %d", where, l.PayloadBytes, len(padOverhead), 8<<20)
			}
			out.Limits = append(out.Limits, Limit{Name: l.Name, PayloadBytes: l.PayloadBytes, Error: l.Error, Doc: l.Doc})
		}
	}

	if c.Has(RefuseFile) {
		var doc struct {
			Version int `json:"version"`
			Cases   []struct {
				Name      string  `json:"name"`
				ValueText *string `json:"value_text"`
				Doc       string  `json:"doc"`
			} `json:"cases"`
		}
		if err := readFile(c, RefuseFile, &doc.Version, &doc); err != nil {
			return nil, err
		}
		seen = corpus.Names{}
		for i, r := range doc.Cases {
			where := fmt.Sprintf("corpus %s: %s: case %d (%q)", c.Name, RefuseFile, i, r.Name)
			if err := seen.Add(r.Name); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if r.ValueText == nil {
				return nil, fmt.Errorf("%s: no value_text", where)
			}
			if _, err := xl.ParseValue([]byte(*r.ValueText)); err != nil {
				return nil, fmt.Errorf("%s: value_text is not JSON: %w", where, err)
			}
			out.Refuse = append(out.Refuse, Refusal{Name: r.Name, Text: *r.ValueText, Doc: r.Doc})
		}
	}
	return out, nil
}

// readFile decodes one corpus file strictly and requires version 1.
func readFile(c *corpus.Corpus, name string, version *int, v any) error {
	raw, err := c.ReadFile(name)
	if err != nil {
		return err
	}
	if err := corpus.DecodeJSON(raw, v); err != nil {
		return fmt.Errorf("corpus %s: %s: %w", c.Name, name, err)
	}
	if *version != 1 {
		return fmt.Errorf("corpus %s: %s: version %d, want 1", c.Name, name, *version)
	}
	return nil
}

func payloadOf(utf8Text, hexText *string) ([]byte, error) {
	switch {
	case (utf8Text == nil) == (hexText == nil):
		return nil, fmt.Errorf("needs exactly one of utf8 and hex")
	case utf8Text != nil:
		return []byte(*utf8Text), nil
	}
	b, err := hex.DecodeString(*hexText)
	if err != nil {
		return nil, fmt.Errorf("hex: %w", err)
	}
	return b, nil
}

// load is Definition.Load: the suite from opts.Corpus, or from the
// embedded corpus, its built-in implementation and upstream's report shape.
// Each call builds its own values.
func load(opts check.LoadOptions) (*check.Loaded, error) {
	c, err := opts.OpenCorpus(Embedded)
	if err != nil {
		return nil, err
	}
	cp, err := ReadCorpus(c)
	if err != nil {
		return nil, err
	}
	return &check.Loaded{
		Suite:     &check.Suite{Name: Name, Version: Version, Corpus: c.Name, CorpusDigest: c.Digest, Checks: cp.checks()},
		Reference: check.ReferenceOf(Reference),
		Native:    func(run *check.Execution, _ check.Spec) any { return Native(run) },
	}, nil
}
