package cgplive

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// A session is what `referee fuzz cgp` generates and `referee run cgp
// --sessions DIR` replays: the envelopes a host sends a provider on one
// connection after the handshake, in order, each reply judged by the rules
// of the live checks. Steps that name an earlier step's reply (an anchor,
// an as_of at a frame's bound, the identities to verify) are resolved
// against what the provider served, so a session replays against any
// provider.

// SessionsFile is the file of a corpus of sessions.
const SessionsFile = "sessions.json"

// SessionsFormat is the format member of SessionsFile.
const SessionsFormat = "referee-cgp-sessions/1"

// Limits on a session, so that a corpus cannot make referee send without end.
const (
	maxSteps     = 64      // steps in a session
	maxPipeline  = 8       // queries in one pipelined step
	maxUnknown   = 16      // made-up identities in one verify
	maxEmbedding = 4096    // dimensions of a made embedding
	maxLine      = 1 << 16 // bytes of a malformed line
	maxShiftMS   = 1e12    // an as_of_edge's shift, about 31 years
)

// sessionsDoc is SessionsFile.
type sessionsDoc struct {
	Format   string    `json:"format"`
	Sessions []Session `json:"sessions"`
}

// Session is one recorded session: a name and its steps.
type Session struct {
	Name  string `json:"name"`
	Doc   string `json:"doc,omitempty"`
	Steps []Step `json:"steps"`
}

// sessionBody is a session as the fuzzer generates and shrinks it: its
// steps, without a name.
type sessionBody struct {
	Steps []Step `json:"steps"`
}

// Step is one thing a session sends. Exactly one of Query, Anchor,
// Verify, Line, LineHex, Pipeline and Shutdown is set; Embed and AsOfEdge
// qualify a Query, ID a Query or an Anchor.
type Step struct {
	// Query is a query, sent as it stands but for what the qualifiers add.
	Query *cgp.ContextQuery `json:"query,omitempty"`
	// ID is the query's correlation id, sent only to a provider that
	// declares correlation (H4: a host never sends one otherwise).
	ID *string `json:"id,omitempty"`
	// Embed replaces the query's embedding with one made for the
	// provider's declared dimension.
	Embed *Embed `json:"embed,omitempty"`
	// AsOfEdge replaces the query's as_of with an instant at a bound of a
	// frame of an earlier reply.
	AsOfEdge *Edge `json:"as_of_edge,omitempty"`
	// Anchor is an earlier query again, anchored on a frame its reply
	// served, with other budgets.
	Anchor *AnchorStep `json:"anchor,omitempty"`
	// Verify asks whether frames of an earlier reply are current.
	Verify *VerifyStep `json:"verify,omitempty"`
	// Line is a line that is no envelope (UTF-8 text), LineHex one given in
	// hex (any bytes); the probe query follows it at once, as in
	// malformed-input-tolerance.
	Line    *string `json:"line,omitempty"`
	LineHex *string `json:"line_hex,omitempty"`
	// Pipeline is queries written at once, each with its id, their replies
	// matched by id (a stdio provider that declares correlation; otherwise
	// they are sent one by one).
	Pipeline []Step `json:"pipeline,omitempty"`
	// Shutdown ends the session with the shutdown envelope (stdio).
	Shutdown *bool `json:"shutdown,omitempty"`
}

// Embed is an embedding made when the session runs: Off dimensions more
// than the provider declares (0: the right size), each value drawn from
// Seed.
type Embed struct {
	Off  int    `json:"off"`
	Seed uint64 `json:"seed"`
}

// FrameRef names a frame of the reply to an earlier query: Step is that
// query's index in the session (a step that is not a query answered with
// frames, or not earlier, stands for the latest earlier one that is), and
// Frame counts back from the frame ranked last (0), clamped to the first.
// When no earlier query was answered with frames it names nothing, and
// what it qualifies is left out.
type FrameRef struct {
	Step  int `json:"step"`
	Frame int `json:"frame"`
}

// AnchorStep sends the query of an earlier step (as FrameRef finds it)
// again with MaxFrames and MaxTokens, anchored on the anchor its reply's
// frame offers: the frame's first relation target, else its uri. A graph
// provider must then serve an anchored frame (G4), when the budgets leave
// room for one and for the frames of that reply anchored on it.
type AnchorStep struct {
	FrameRef
	MaxFrames uint32 `json:"max_frames"`
	MaxTokens uint32 `json:"max_tokens"`
}

// Edge is an instant at a validity bound ("valid_from" or "valid_to") of a
// frame of an earlier reply, shifted by ShiftMS milliseconds.
type Edge struct {
	FrameRef
	Bound   string `json:"bound"`
	ShiftMS int64  `json:"shift_ms"`
}

// VerifyStep verifies the frames of the reply to step Step: each with the
// digest served, except those whose index in the reply is in Change, sent
// with another well-formed digest; and Unknown identities the provider
// never served.
type VerifyStep struct {
	Step    int   `json:"step"`
	Change  []int `json:"change,omitempty"`
	Unknown int   `json:"unknown,omitempty"`
}

// kind names what a step sends, for a failure's reason.
func (s *Step) kind() string {
	switch {
	case s.Query != nil:
		return "query"
	case s.Anchor != nil:
		return "anchored query"
	case s.Verify != nil:
		return "verify"
	case s.Line != nil, s.LineHex != nil:
		return "malformed line"
	case s.Pipeline != nil:
		return "pipelined queries"
	}
	return "shutdown"
}

// line is the bytes of a malformed-line step.
func (s *Step) line() []byte {
	if s.Line != nil {
		return []byte(*s.Line)
	}
	b, _ := hex.DecodeString(*s.LineHex) // validate refuses what does not decode
	return b
}

// validate says why steps is not a session, naming the step.
func validate(steps []Step) error {
	if len(steps) > maxSteps {
		return fmt.Errorf("%d steps: at most %d", len(steps), maxSteps)
	}
	for i := range steps {
		if err := steps[i].validate(false); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
		if steps[i].Shutdown != nil && i != len(steps)-1 {
			return fmt.Errorf("steps[%d]: a shutdown ends the session: nothing can follow it", i)
		}
	}
	return nil
}

func (s *Step) validate(inPipeline bool) error {
	set := 0
	for _, b := range []bool{s.Query != nil, s.Anchor != nil, s.Verify != nil, s.Line != nil, s.LineHex != nil, s.Pipeline != nil, s.Shutdown != nil} {
		if b {
			set++
		}
	}
	switch {
	case set != 1:
		return errors.New("a step is exactly one of query, anchor, verify, line, line_hex, pipeline and shutdown")
	case s.Query == nil && (s.Embed != nil || s.AsOfEdge != nil):
		return errors.New("embed and as_of_edge qualify a query")
	case s.Query == nil && s.Anchor == nil && s.ID != nil:
		return errors.New("id qualifies a query or an anchor")
	case s.Shutdown != nil && !*s.Shutdown:
		return errors.New(`"shutdown" is true or absent`)
	case inPipeline && s.Query == nil:
		return errors.New("a pipeline holds queries only")
	case s.Embed != nil && (s.Embed.Off < -maxEmbedding || s.Embed.Off > maxEmbedding):
		return fmt.Errorf("embed.off %d: at most %d either way", s.Embed.Off, maxEmbedding)
	case s.Anchor != nil && (s.Anchor.Step < 0 || s.Anchor.Frame < 0):
		return errors.New("anchor: step and frame are not negative")
	case s.AsOfEdge != nil && (s.AsOfEdge.Step < 0 || s.AsOfEdge.Frame < 0):
		return errors.New("as_of_edge: step and frame are not negative")
	case s.AsOfEdge != nil && (s.AsOfEdge.ShiftMS < -maxShiftMS || s.AsOfEdge.ShiftMS > maxShiftMS):
		return fmt.Errorf("as_of_edge.shift_ms %d: at most %d either way", s.AsOfEdge.ShiftMS, int64(maxShiftMS))
	case s.AsOfEdge != nil && s.AsOfEdge.Bound != "valid_from" && s.AsOfEdge.Bound != "valid_to":
		return fmt.Errorf("as_of_edge.bound %q: valid_from or valid_to", s.AsOfEdge.Bound)
	case s.Line != nil && (strings.ContainsAny(*s.Line, "\n") || len(*s.Line) > maxLine):
		return fmt.Errorf("line: one line (no LF) of at most %d bytes", maxLine)
	case s.Verify != nil && (s.Verify.Step < 0 || s.Verify.Unknown < 0 || s.Verify.Unknown > maxUnknown):
		return fmt.Errorf("verify: step not negative, unknown from 0 to %d", maxUnknown)
	}
	if s.LineHex != nil {
		b, err := hex.DecodeString(*s.LineHex)
		if err != nil || strings.ToLower(*s.LineHex) != *s.LineHex || len(b) > maxLine || strings.ContainsRune(string(b), '\n') {
			return fmt.Errorf("line_hex: lowercase hex of one line (no LF) of at most %d bytes", maxLine)
		}
	}
	if s.Pipeline != nil {
		if len(s.Pipeline) == 0 || len(s.Pipeline) > maxPipeline {
			return fmt.Errorf("pipeline: 1 to %d queries", maxPipeline)
		}
		seen := map[string]bool{}
		for k := range s.Pipeline {
			p := &s.Pipeline[k]
			if err := p.validate(true); err != nil {
				return fmt.Errorf("pipeline[%d]: %w", k, err)
			}
			if p.AsOfEdge != nil {
				return fmt.Errorf("pipeline[%d]: a pipelined query names no earlier reply", k)
			}
			id := pipelineID(s.Pipeline, k)
			if seen[id] {
				return fmt.Errorf("pipeline[%d]: id %q twice: replies are matched by id", k, id)
			}
			seen[id] = true
		}
	}
	return nil
}

// pipelineID is the id query k of a pipeline is sent with: its own, or
// "pipelined-k".
func pipelineID(p []Step, k int) string {
	if p[k].ID != nil {
		return *p[k].ID
	}
	return fmt.Sprintf("pipelined-%d", k)
}

// decodeBody reads a session as the fuzzer makes it ({"steps": [...]}),
// strictly: one JSON text, no duplicate or unknown member, and valid.
func decodeBody(input []byte) ([]Step, error) {
	var b sessionBody
	if err := corpus.DecodeJSON(input, &b); err != nil {
		return nil, err
	}
	if b.Steps == nil {
		return nil, errors.New("no steps member")
	}
	if err := validate(b.Steps); err != nil {
		return nil, err
	}
	return b.Steps, nil
}

// readSessions reads the sessions of a corpus: its SessionsFile.
func readSessions(c *corpus.Corpus) ([]Session, error) {
	raw, err := c.ReadFile(SessionsFile)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w (a corpus of sessions holds %s)", c.Name, err, SessionsFile)
	}
	var doc sessionsDoc
	if err := corpus.DecodeJSON(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", SessionsFile, err)
	}
	if doc.Format != SessionsFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", SessionsFile, doc.Format, SessionsFormat)
	}
	names := corpus.Names{}
	for i, s := range doc.Sessions {
		if err := names.Add(s.Name); err != nil {
			return nil, fmt.Errorf("%s: sessions[%d] %q: %w", SessionsFile, i, s.Name, err)
		}
		if s.Steps == nil {
			return nil, fmt.Errorf("%s: session %s: no steps member", SessionsFile, s.Name)
		}
		if err := validate(s.Steps); err != nil {
			return nil, fmt.Errorf("%s: session %s: %w", SessionsFile, s.Name, err)
		}
	}
	return doc.Sessions, nil
}

// sessionFiles lays sessions (Session values) out as a corpus: SessionsFile.
func sessionFiles(entries []any) (map[string][]byte, error) {
	doc := sessionsDoc{Format: SessionsFormat, Sessions: []Session{}}
	for _, e := range entries {
		s, ok := e.(Session)
		if !ok {
			return nil, fmt.Errorf("%s: a session of type %T (a bug in referee)", Name, e)
		}
		doc.Sessions = append(doc.Sessions, s)
	}
	b, err := corpus.MarshalJSON(doc)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{SessionsFile: b}, nil
}

// sessionVector is the fuzz target's Vector: the session named name that
// input holds, or false when input is not one (a shrinking candidate).
func sessionVector(name string, input []byte) (any, bool) {
	steps, err := decodeBody(input)
	if err != nil {
		return nil, false
	}
	return Session{Name: name, Doc: "found by referee fuzz", Steps: steps}, true
}

// sessionSuite is the suite of a corpus of sessions: one check per session.
func sessionSuite(c *corpus.Corpus) (*check.Suite, error) {
	sessions, err := readSessions(c)
	if err != nil {
		return nil, err
	}
	s := &check.Suite{Name: Name, Version: Version, Corpus: c.Name, CorpusDigest: c.Digest}
	for _, sess := range sessions {
		s.Checks = append(s.Checks, sessionCheck(sess))
	}
	return s, nil
}
