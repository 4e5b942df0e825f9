package fablepool

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
)

// request is one call as the built-in adapter received it.
type request struct {
	op  string
	raw []byte
}

// argsRecorder is the honest built-in adapter, keeping every request.
type argsRecorder struct {
	*Handler
	mu   sync.Mutex
	seen []request
}

func (r *argsRecorder) Handle(ctx context.Context, op string, raw []byte) (json.RawMessage, *adapter.Error) {
	r.mu.Lock()
	r.seen = append(r.seen, request{op, slices.Clone(raw)})
	r.mu.Unlock()
	return r.Handler.Handle(ctx, op, raw)
}

// TestArgsReadOnce holds Handle, which reads most args with the one strict
// parse that also gives their JSON values, to what encoding/json's reading
// (handleDecoded) answers: the same reply or error, in every mode, for the
// requests of the embedded corpus's checks, of 200 fuzz inputs of each
// target, and for args where the two readings could part (names in another
// case, strings that are not strings or not UTF-8, duplicates, depth).
func TestArgsReadOnce(t *testing.T) {
	rec := &argsRecorder{Handler: &Handler{}}
	checktest.Execute(t, loadSuite(t, nil), adapter.InProcess(rec))
	r := rand.New(rand.NewPCG(26, 1))
	var fuzzed []check.Check
	for _, target := range fuzzSpec.Targets {
		for i := range 200 {
			entry, ok := target.Vector(fmt.Sprintf("fuzz-%012x", i), target.Generate(r))
			if !ok {
				continue
			}
			cs, err := check.FuzzChecks(&Definition, &fuzzSpec, entry)
			if err != nil {
				t.Fatalf("%s: %v", target.Name, err)
			}
			fuzzed = append(fuzzed, cs...)
		}
	}
	checktest.Execute(t, &check.Suite{Name: Name, Checks: fuzzed}, adapter.InProcess(rec))
	once := 0
	for _, q := range rec.seen {
		if v, err := canon.Parse(q.raw, canon.ReadOptions{MaxDepth: fastArgsDepth}); err == nil {
			if _, ok := argsOf(v); ok {
				once++
			}
		}
	}
	t.Logf("%d of %d requests read with one parse", once, len(rec.seen))
	// The point of reading once: what referee's checks send is read so.
	if len(rec.seen) < 1000 || once < len(rec.seen)*9/10 {
		t.Errorf("%d of %d requests read with one parse; want 1000 requests or more, nine in ten of them so read", once, len(rec.seen))
	}

	seed := strings.Repeat("01", 32)
	body := `{"kind":"post","prev":[],"payload":{"a":1}}`
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	edges := []string{
		`{"SEED":"` + seed + `","message_hex":"00"}`,
		`{"Seed":"` + seed + `","seed":"` + seed + `","message_hex":"00"}`,
		`{"se\u0065d":"` + seed + `","message_hex":"00"}`,
		`{"seed":1,"message_hex":"00"}`,
		`{"seed":null,"message_hex":"00"}`,
		`{"seed":"` + seed + `","message_hex":"00","message_hex":"01"}`,
		`{"input_text":null,"input":[2,1]}`,
		`{"input_text":"[1]","input":[1]}`,
		`{"input_text":"\ud800"}`,
		`{"input_text":"\"\ud800\""}`,
		"{\"input_text\":\"\xff\"}",
		`{"input_text":"{\"b\":1,\"a\":2}","extra":true}`,
		`{"input":{"a":1,"a":2}}`,
		`{"input":` + nested(1500) + `}`,
		`{"input":` + nested(10001) + `}`,
		`{"body":` + body + `,"body_text":` + string(jsonText(body)) + `,"seed":"` + seed + `"}`,
		`{"body":{"kind":"post","kind":"post"},"body_text":` + string(jsonText(body)) + `,"seed":"` + seed + `"}`,
		`{"body":{"kind":"post","kind":"post"},"seed":"` + seed + `"}`,
		`{"op":{"kind":"post"},"op_text":null}`,
		`{"op_text":7}`,
		`{"public_key":"00","signature":"00","message_hex":"zz"}`,
		`null`, `[]`, `"x"`, `{}`, ``, `{"body":`, `{"seed":"` + seed + `",}`,
	}
	ops := []string{OpCanonicalize, OpPublicKey, OpSign, OpVerify, OpSignOp, OpVerifyOp}
	reqs := slices.Clone(rec.seen)
	for _, e := range edges {
		for _, op := range ops {
			reqs = append(reqs, request{op, []byte(e)})
		}
	}
	modes := append([]Mode{{}}, Modes...)
	for _, m := range modes {
		h := &Handler{mode: m}
		for _, q := range reqs {
			got, gerr := h.Handle(context.Background(), q.op, q.raw)
			want, werr := h.handleDecoded(q.op, q.raw)
			if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("mode %q, %s %.200s:\nread once:    %s %v\nencoding/json: %s %v", m.Name, q.op, q.raw, got, gerr, want, werr)
			}
		}
	}
}

// TestLeftOpenIsNotJudged: an op that turns on a point the profile leaves
// open (ts written -0, v beyond 2^53−1) makes no fuzz vector, whatever
// the built-in answers: an independent Python adapter that refuses ts -0,
// as the docs allow, failed at must on such vectors.
func TestLeftOpenIsNotJudged(t *testing.T) {
	for _, tc := range []struct {
		op   string
		want bool
	}{
		{`{"v":1,"ts":-0}`, true},
		{`{"v":9007199254740993,"ts":0}`, true},
		{`{"v":-9007199254740992,"ts":0}`, true},
		{`{"v":9007199254740991,"ts":0}`, false},
		{`{"v":1,"ts":0}`, false},
		{`{"v":1e400,"ts":0}`, false},
		{`{"v":1,"ts":-1}`, false},
	} {
		v, err := canon.Parse([]byte(tc.op), canon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := leftOpen(v); got != tc.want {
			t.Errorf("leftOpen(%s) = %v, want %v", tc.op, got, tc.want)
		}
	}
	input := `{"type":"n","payload":{},"prev":[],"mutations":[{"op":"set","path":"ts","value":-0}]}`
	if _, ok := opVector("fuzz-000000000001", []byte(input)); ok {
		t.Errorf("%s made a vector", input)
	}
}
