package fablepool

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/corpus"
	fp "github.com/refereehq/referee/protocols/fablepool"
)

// The vector files, as the profile names them. A corpus may also name them
// with a "draft-" prefix, as ../shared/corpora/fablepool does.
const (
	CanonicalizationFile = "canonicalization.json"
	SigningFile          = "signing.json"
	ScenariosFile        = "op_scenarios.json"
	RecordedFile         = "recorded.json"
)

// corpusData is a FablePool vector set, read.
type corpusData struct {
	Canonicalization []CanonVector
	Signing          []SignVector
	Scenarios        Scenarios
	Recorded         *Recorded // nil when the corpus has none
}

// CanonVector is a canonicalization vector: Input (a JSON value) or
// InputText (JSON text the implementation parses itself), and Canonical or Error.
type CanonVector struct {
	Name             string          `json:"name"`
	Note             string          `json:"note,omitempty"`
	Input            json.RawMessage `json:"input,omitempty"`
	InputText        *string         `json:"input_text,omitempty"`
	Canonical        *string         `json:"canonical,omitempty"`
	CanonicalUTF8Hex string          `json:"canonical_utf8_hex,omitempty"`
	CanonicalSHA256  string          `json:"canonical_sha256,omitempty"`
	Error            string          `json:"error,omitempty"`
}

// SignVector is a signing vector.
type SignVector struct {
	Name               string `json:"name"`
	Seed               string `json:"seed"`
	MessageHex         string `json:"message_hex"`
	PublicKey          string `json:"public_key,omitempty"`
	Signature          string `json:"signature,omitempty"`
	TamperedMessageHex string `json:"tampered_message_hex,omitempty"`
	TamperedSignature  string `json:"tampered_signature,omitempty"`
}

// Scenarios is op_scenarios.json: the fixed seed, ts and v, and the scenarios.
type Scenarios struct {
	Profile     string     `json:"profile,omitempty"`
	Description string     `json:"description,omitempty"`
	Seed        string     `json:"seed"`
	TS          int64      `json:"ts"`
	V           int        `json:"v"`
	Vectors     []Scenario `json:"vectors"`
}

// Scenario is one signed operation, its mutations and the verdict they must get.
type Scenario struct {
	Name          string          `json:"name"`
	Type          string          `json:"type"`
	Payload       json.RawMessage `json:"payload"`
	Prev          json.RawMessage `json:"prev"`
	Mutations     []Mutation      `json:"mutations"`
	Expect        string          `json:"expect"`
	ExpectedError string          `json:"expected_error,omitempty"`
	Note          string          `json:"note,omitempty"`
	// Spelling is how verify_op's op_text spells the mutated op: "" for
	// compact, in the op's member order; "respelled" for Respell's text
	// (members reversed, spaces, every string character escaped), whose
	// value is the same.
	Spelling string `json:"spelling,omitempty"`
}

// Recorded is recorded.json: an implementation's outputs, the ground truth
// later runs are compared with.
type Recorded struct {
	Format           string            `json:"format"`
	Implementation   string            `json:"implementation"`
	Canonicalization []RecordedCanon   `json:"canonicalization"`
	Signing          []RecordedSigning `json:"signing"`
	OpScenarios      RecordedOps       `json:"op_scenarios"`
}

// RecordedCanon is one canonicalization vector's digest or error.
type RecordedCanon struct {
	Name            string  `json:"name"`
	CanonicalSHA256 *string `json:"canonical_sha256"`
	Error           *string `json:"error"`
}

// RecordedSigning is one signing vector's public key and signature.
type RecordedSigning struct {
	Name      string `json:"name"`
	PublicKey string `json:"public_key"`
	Signature string `json:"signature"`
}

// RecordedOps is the scenarios' author and each signed op before mutation.
type RecordedOps struct {
	Author string       `json:"author"`
	Ops    []RecordedOp `json:"ops"`
}

// RecordedOp is one scenario's signed op, before its mutations.
type RecordedOp struct {
	Name          string `json:"name"`
	BodyCanonical string `json:"body_canonical"`
	BodySHA256    string `json:"body_sha256"`
	ID            string `json:"id"`
	Sig           string `json:"sig"`
	OpCanonical   string `json:"op_canonical"`
}

// SpellingRespelled is the spelling of a scenario whose op_text is Respell's.
const SpellingRespelled = "respelled"

// RecordedFormat is the format name of recorded.json.
const RecordedFormat = "fablepool-recorded/draft-1"

// readCorpus reads the three vector files and, when present, recorded.json.
func readCorpus(c *corpus.Corpus) (*corpusData, error) {
	out := &corpusData{}
	var canonDoc struct {
		Profile string        `json:"profile"`
		Rules   string        `json:"rules"`
		Fields  string        `json:"fields"`
		Vectors []CanonVector `json:"vectors"`
	}
	if err := readFile(c, CanonicalizationFile, &canonDoc); err != nil {
		return nil, err
	}
	var signDoc struct {
		Profile string       `json:"profile"`
		Rules   string       `json:"rules"`
		Vectors []SignVector `json:"vectors"`
	}
	if err := readFile(c, SigningFile, &signDoc); err != nil {
		return nil, err
	}
	if err := readFile(c, ScenariosFile, &out.Scenarios); err != nil {
		return nil, err
	}
	out.Canonicalization, out.Signing = canonDoc.Vectors, signDoc.Vectors
	if name := find(c, RecordedFile); name != "" {
		out.Recorded = &Recorded{}
		if err := readFile(c, RecordedFile, out.Recorded); err != nil {
			return nil, err
		}
		if out.Recorded.Format != RecordedFormat {
			return nil, fmt.Errorf("corpus %s: %s: format %q, want %q", c.Name, name, out.Recorded.Format, RecordedFormat)
		}
	}
	return out, out.validate(c)
}

// find returns the name under which c holds file, or "".
func find(c *corpus.Corpus, file string) string {
	for _, name := range []string{file, "draft-" + file} {
		if c.Has(name) {
			return name
		}
	}
	return ""
}

func readFile(c *corpus.Corpus, file string, v any) error {
	name := find(c, file)
	if name == "" {
		return fmt.Errorf("corpus %s: no %s (or draft-%s)", c.Name, file, file)
	}
	raw, err := c.ReadFile(name)
	if err != nil {
		return err
	}
	if err := corpus.DecodeJSON(raw, v); err != nil {
		return fmt.Errorf("corpus %s: %s: %w", c.Name, name, err)
	}
	return nil
}

func (cp *corpusData) validate(c *corpus.Corpus) error {
	where := func(file string, i int, name string) string {
		return fmt.Sprintf("corpus %s: %s: vector %d (%q)", c.Name, file, i, name)
	}
	seen := corpus.Names{}
	for i, v := range cp.Canonicalization {
		w := where(CanonicalizationFile, i, v.Name)
		if err := seen.Add(v.Name); err != nil {
			return fmt.Errorf("%s: %w", w, err)
		}
		if (len(v.Input) == 0) == (v.InputText == nil) {
			return fmt.Errorf("%s: needs exactly one of input and input_text", w)
		}
		if (v.Canonical == nil) == (v.Error == "") {
			return fmt.Errorf("%s: needs exactly one of canonical and error", w)
		}
		if len(v.Input) > 0 {
			if err := hostSafe(v.Input); err != nil {
				return fmt.Errorf("%s: %w: give it as input_text, which the implementation parses itself", w, err)
			}
		}
		if v.Canonical != nil && v.CanonicalUTF8Hex != "" && v.CanonicalUTF8Hex != hex.EncodeToString([]byte(*v.Canonical)) {
			return fmt.Errorf("%s: canonical_utf8_hex disagrees with canonical", w)
		}
		if v.Canonical != nil && v.CanonicalSHA256 != "" && v.CanonicalSHA256 != sha256Hex([]byte(*v.Canonical)) {
			return fmt.Errorf("%s: canonical_sha256 disagrees with canonical", w)
		}
	}
	seen = corpus.Names{}
	for i, v := range cp.Signing {
		w := where(SigningFile, i, v.Name)
		if err := seen.Add(v.Name); err != nil {
			return fmt.Errorf("%s: %w", w, err)
		}
		for field, h := range map[string]string{"seed": v.Seed, "message_hex": v.MessageHex, "public_key": v.PublicKey, "signature": v.Signature, "tampered_message_hex": v.TamperedMessageHex, "tampered_signature": v.TamperedSignature} {
			if _, err := hex.DecodeString(h); err != nil {
				return fmt.Errorf("%s: %s is not hex", w, field)
			}
		}
		if len(v.Seed) != 64 {
			return fmt.Errorf("%s: seed is not 32 bytes of hex", w)
		}
		if len(v.PublicKey) != 64 || len(v.Signature) != 128 {
			return fmt.Errorf("%s: needs public_key (64 hex) and signature (128 hex): referee checks against them", w)
		}
	}
	if s, err := hex.DecodeString(cp.Scenarios.Seed); err != nil || len(s) != 32 {
		return fmt.Errorf("corpus %s: %s: seed is not 32 bytes of hex", c.Name, ScenariosFile)
	}
	seen = corpus.Names{}
	for i, s := range cp.Scenarios.Vectors {
		w := where(ScenariosFile, i, s.Name)
		if err := seen.Add(s.Name); err != nil {
			return fmt.Errorf("%s: %w", w, err)
		}
		switch {
		case s.Expect != "accept" && s.Expect != "reject":
			return fmt.Errorf("%s: expect %q, want accept or reject", w, s.Expect)
		case s.Expect == "accept" && (len(s.Mutations) > 0 || s.ExpectedError != ""):
			return fmt.Errorf("%s: an accepted scenario has no mutations and no expected_error", w)
		case s.Expect == "reject" && len(s.Mutations) == 0:
			return fmt.Errorf("%s: a rejected scenario needs mutations", w)
		case len(bytes.TrimSpace(s.Payload)) == 0 || len(bytes.TrimSpace(s.Prev)) == 0:
			return fmt.Errorf("%s: needs payload and prev", w)
		}
		for j, m := range s.Mutations {
			if m.Op != "set" && m.Op != "delete" && m.Op != "duplicate" && m.Op != "recompute_id" {
				return fmt.Errorf("%s: mutation %d: op %q", w, j, m.Op)
			}
		}
		if s.Spelling != "" && s.Spelling != SpellingRespelled {
			return fmt.Errorf("%s: spelling %q, want %q or none", w, s.Spelling, SpellingRespelled)
		}
		// The mutations must apply to the reference signing of the body, so
		// that a mutation that names no field is the corpus's fault, found
		// before any adapter is blamed for it.
		if err := cp.Scenarios.dryRun(s); err != nil {
			return fmt.Errorf("%s: %w", w, err)
		}
	}
	return nil
}

// dryRun signs sc's body with the reference and applies its mutations.
func (ss Scenarios) dryRun(sc Scenario) error {
	body, err := ss.body(sc)
	if err != nil {
		return err
	}
	seed, _ := hex.DecodeString(ss.Seed)
	op, err := fp.SignOp(seed, body)
	if err != nil {
		return fmt.Errorf("the body cannot be signed: %w", err)
	}
	mutated, err := Apply(op, sc.Mutations, func(body canon.Value) (string, error) {
		b, err := fp.Canonical(body)
		return fp.ID(b), err
	})
	if err != nil {
		return fmt.Errorf("the mutations do not apply to the signed op: %w", err)
	}
	// Both forms verify_op is sent must mean the same op.
	value, text := opForms(mutated, sc.Spelling)
	a, errA := canon.Parse([]byte(value), canon.ReadOptions{Duplicates: canon.LastWins})
	b, errB := canon.Parse([]byte(text), canon.ReadOptions{Duplicates: canon.LastWins})
	if errA != nil || errB != nil || !canon.Equal(a, b) {
		return fmt.Errorf("op and op_text differ (a bug in referee): %v, %v", errA, errB)
	}
	return nil
}

// hostSafe refuses an input value whose verdict would turn on what a host
// language's JSON parser loses before the implementation sees it: the
// canonicalize op carries input as a JSON value in the request line, and
// an adapter reads that line with its language's parser. A number with a
// fraction or an exponent (1.0 is read as 1), -0, an integer beyond
// ±(2^53−1) (a double rounds it), a duplicate member name (last wins) and
// a lone surrogate (Go's encoding/json makes it U+FFFD) all decide a
// verdict of this profile, so they travel as input_text.
func hostSafe(input json.RawMessage) error {
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return fmt.Errorf("input: %v", err)
	}
	stack := []canon.Value{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x.Kind {
		case canon.Number:
			if strings.ContainsAny(x.Num, ".eE") || x.Num == "-0" {
				return fmt.Errorf("input holds the number %s, which a host parser does not keep as written", x.Num)
			}
			if n, err := strconv.ParseInt(x.Num, 10, 64); err != nil || n > 1<<53-1 || n < -(1<<53-1) {
				return fmt.Errorf("input holds the integer %s, beyond ±(2^53−1), which a double rounds", x.Num)
			}
		case canon.String:
			if !utf8.ValidString(x.Str) {
				return fmt.Errorf("input holds a lone surrogate, which some host parsers replace")
			}
		case canon.Array:
			stack = append(stack, x.Elems...)
		case canon.Object:
			for _, m := range x.Members {
				if !utf8.ValidString(m.Key) {
					return fmt.Errorf("input holds a lone surrogate, which some host parsers replace")
				}
				stack = append(stack, m.Value)
			}
		}
	}
	return nil
}
