package cgplive

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/jsongen"
	"github.com/refereehq/referee/protocols/cgp"
)

// fuzzSpec makes the live suite fuzzable: `referee fuzz cgp` generates
// sessions, runs each as the check a corpus of sessions makes of it, and
// writes the failing ones, shrunk, as such a corpus (SessionsFile), which
// `referee run cgp --sessions DIR` replays. The engine drives a live suite
// through its Connect (fuzz.Campaign).
var fuzzSpec = check.FuzzSpec{
	Targets: []check.FuzzTarget{{
		Name:     "session",
		Doc:      "sessions of envelopes after the handshake: queries with goals of every Unicode class, kinds, anchors from earlier replies, budgets from 0 up, as_of pins at and around validity bounds, embeddings of the right and wrong size, correlation ids, pipelined queries, verify of served and changed digests, malformed lines, shutdown",
		Input:    check.FuzzValue,
		Generate: GenerateSession,
		Vector:   sessionVector,
	}},
	Files:  sessionFiles,
	Proof:  check.FuzzProof{Elsewhere: "TestFuzzFindsEveryMode (package cgplive)"},
	Replay: "--sessions",
}

// GenerateSession makes one session from r: its steps as JSON
// ({"steps": [...]}), the same for the same r.
func GenerateSession(r *rand.Rand) []byte {
	g := &gen{r: r}
	n := 1 + r.IntN(6)
	if r.IntN(8) == 0 {
		n += r.IntN(10)
	}
	for i := range n {
		g.steps = append(g.steps, g.step(i))
	}
	if r.IntN(2) == 0 {
		g.steps = append(g.steps, Step{Shutdown: ptr(true)})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sessionBody{Steps: g.steps}); err != nil {
		panic(fmt.Sprintf("cgp: a generated session does not encode (a bug in referee): %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func ptr[T any](v T) *T { return &v }

// gen makes the steps of one session.
type gen struct {
	r     *rand.Rand
	steps []Step
}

// step makes step i: the first is a query, so that later steps have a
// reply to name.
func (g *gen) step(i int) Step {
	r := g.r
	if i == 0 {
		return g.query()
	}
	switch w := r.IntN(100); {
	case w < 34:
		return g.query()
	case w < 48:
		return g.anchored()
	case w < 58:
		return g.edge()
	case w < 72:
		return Step{Verify: &VerifyStep{Step: g.earlier(), Change: g.changes(), Unknown: pick(r, []int{0, 0, 0, 1, 2})}}
	case w < 84:
		return g.line()
	default:
		k := 2 + r.IntN(3)
		var p []Step
		for j := range k {
			q := g.query()
			q.AsOfEdge = nil
			if q.ID == nil || r.IntN(4) == 0 {
				q.ID = ptr(fmt.Sprintf("p%d-%d", i, j))
			}
			p = append(p, q)
		}
		if s := (Step{Pipeline: p}); s.validate(false) == nil {
			return s
		}
	}
	return g.query()
}

// earlier is the index of an earlier step, most often a query's.
func (g *gen) earlier() int {
	var qs []int
	for k, s := range g.steps {
		if s.Query != nil {
			qs = append(qs, k)
		}
	}
	if len(qs) > 0 && g.r.IntN(6) > 0 {
		return pick(g.r, qs)
	}
	return g.r.IntN(len(g.steps))
}

// changes are the indexes of the frames whose digests a verify changes.
func (g *gen) changes() []int {
	var out []int
	for k := range 4 {
		if g.r.IntN(3) == 0 {
			out = append(out, k)
		}
	}
	return out
}

// anchored is an earlier query again, anchored on a frame of its reply
// (most often the one it ranked last) with a smaller max_frames.
func (g *gen) anchored() Step {
	k := g.earlier()
	a := &AnchorStep{FrameRef: FrameRef{Step: k, Frame: pick(g.r, []int{0, 0, 0, 1, 2})}, MaxFrames: uint32(1 + g.r.IntN(3)), MaxTokens: 4096}
	if src := g.steps[k]; src.Query != nil && g.r.IntN(3) > 0 {
		a.MaxTokens = src.Query.MaxTokens
	} else if g.r.IntN(2) == 0 {
		a.MaxTokens = math.MaxUint32
	}
	s := Step{Anchor: a}
	if g.r.IntN(4) == 0 {
		s.ID = g.id()
	}
	return s
}

// edge is a query pinned at a validity bound of a frame an earlier reply
// served, or just beside it.
func (g *gen) edge() Step {
	s := g.query()
	s.AsOfEdge = &Edge{
		FrameRef: FrameRef{Step: g.earlier(), Frame: g.r.IntN(3)},
		Bound:    pick(g.r, []string{"valid_from", "valid_to"}),
		ShiftMS:  pick(g.r, []int64{0, 0, -1, 1, -500, 500, -1000, 1000, -86_400_000}),
	}
	return s
}

// words are query terms the reference provider's documents hold.
var words = []string{"retry", "policy", "configuration", "timeout", "release", "notes", "getting", "started", "install", "conformance", "probe"}

// query is a query step.
func (g *gen) query() Step {
	r := g.r
	q := cgp.ContextQuery{Goal: g.text(), MaxFrames: g.frames(), MaxTokens: g.tokens()}
	if r.IntN(2) == 0 {
		q.QueryText = ptr(g.text())
	}
	if r.IntN(5) < 2 {
		for range 1 + r.IntN(3) {
			q.Kinds = append(q.Kinds, g.kind())
		}
	}
	if r.IntN(10) == 0 {
		for range 1 + r.IntN(2) {
			q.Anchors = append(q.Anchors, pick(r, []string{"symbol:///docs/configuration.md#overview", "file:///nowhere", "", g.text()}))
		}
	}
	if r.IntN(10) < 3 {
		q.AsOf = ptr(g.pin())
	}
	if r.IntN(20) == 0 {
		q.RepresentationPreferences = pick(r, [][]string{{"full"}, {"compact"}, {"compact", "full"}})
	}
	s := Step{Query: &q}
	if r.IntN(6) == 0 {
		s.Embed = &Embed{Off: pick(r, []int{0, 0, 1, -1, 2, -2, r.IntN(100) - 50}), Seed: r.Uint64() >> 11}
	}
	if r.IntN(10) < 3 {
		s.ID = g.id()
	}
	return s
}

// text is a goal or query text: words the documents hold, or a string of
// every Unicode class (no lone surrogates: a Go string cannot hold one).
func (g *gen) text() string {
	r := g.r
	if r.IntN(3) == 0 {
		var ws []string
		for range 1 + r.IntN(4) {
			ws = append(ws, pick(r, words))
		}
		return strings.Join(ws, " ")
	}
	var s string
	if err := json.Unmarshal([]byte(jsongen.StringNoSurrogates(r)), &s); err != nil {
		return "probe"
	}
	return s
}

// id is a correlation id: short, or a string of any class.
func (g *gen) id() *string {
	if g.r.IntN(2) == 0 {
		return ptr(fmt.Sprintf("q%d", g.r.IntN(1000)))
	}
	return ptr(g.text())
}

func (g *gen) frames() uint32 {
	return pick(g.r, []uint32{0, 1, 1, 2, 3, 3, 4, 8, 8, 16, math.MaxUint32})
}

// tokens is a max_tokens: 0, below one frame's cost, about one or two,
// plenty, the most.
func (g *gen) tokens() uint32 {
	switch g.r.IntN(10) {
	case 0:
		return 0
	case 1, 2, 3:
		return uint32(1 + g.r.IntN(100))
	case 4, 5:
		return uint32(100 + g.r.IntN(400))
	case 6:
		return math.MaxUint32
	}
	return 4096
}

// kind is a frame kind for a filter: a base kind, or one no provider has.
func (g *gen) kind() string {
	return pick(g.r, []string{"doc", "snippet", "doc", "snippet", "symbol", "fact", "memory", "episode", "graph", "Doc", "", "vendor:note"})
}

// instants are the validity bounds of the reference provider's documents.
var instants = []string{"2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z", "2026-09-01T00:00:00Z"}

// pin is an as_of: at or beside a bound, with and without a fraction, or
// anywhere from 2024 to 2028; now and then one F4 refuses.
func (g *gen) pin() string {
	r := g.r
	if r.IntN(12) == 0 {
		return pick(r, []string{"2026-02-01", "2026-02-01T00:00:00+01:00", "2026-02-01t00:00:00z", "2026-06-30T23:59:60Z", "not a time", ""})
	}
	var t time.Time
	if r.IntN(2) == 0 {
		t, _ = time.Parse(time.RFC3339, pick(r, instants))
		t = t.Add(pick(r, []time.Duration{0, -time.Second, time.Second, -time.Millisecond, time.Millisecond, -500 * time.Millisecond, 500 * time.Millisecond}))
	} else {
		start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		t = start.Add(time.Duration(r.Int64N(int64(5 * 365 * 24 * time.Hour))))
		if r.IntN(2) == 0 {
			t = t.Truncate(time.Second)
		}
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// line is a malformed-line step: never an envelope in any reading.
func (g *gen) line() Step {
	r := g.r
	q, _ := cgp.Encode(&cgp.Envelope{Type: cgp.TypeQuery, Query: &cgp.ContextQuery{Goal: "probe", MaxFrames: 1, MaxTokens: 10}})
	var l string
	switch r.IntN(9) {
	case 0:
		l = garbage
	case 1:
		l = string(q[:1+r.IntN(len(q)-1)]) // an envelope cut short
	case 2:
		l = pick(r, []string{"[1,2]", "42", "null", `"query"`, "true", "[]", `[{"type":"query"}]`})
	case 3:
		l = pick(r, []string{`{}`, `{"query":{"goal":"x","max_frames":1,"max_tokens":1}}`, `{"type":1}`, `{"type":null}`, `{"type":["query"]}`, `{"TYPE":"query"}`})
	case 4:
		l = pick(r, []string{`{"type":"nope","x":1}`, `{"type":"nope"}`, `{"type":""}`})
	case 5:
		b := []byte(garbage)
		b = append(b, pick(r, [][]byte{{0xff}, {0xc0, 0x80}, {0xed, 0xa0, 0x80}, {0xfe, 0xff}, {0}})...)
		return Step{LineHex: ptr(hex.EncodeToString(b))}
	case 6:
		l = pick(r, []string{"", "   ", "\t", "\r", "\x00"})
	default:
		l = strings.ReplaceAll(g.text(), "\n", " ") + " {{{"
	}
	return Step{Line: &l}
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
