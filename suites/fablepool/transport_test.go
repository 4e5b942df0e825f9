package fablepool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
)

// spy records the args of every verify_op and sign_op it forwards to the
// reference.
type spy struct {
	h    *Handler
	args map[string][]string
}

func (s *spy) Hello() adapter.Hello { return s.h.Hello() }

func (s *spy) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	s.args[op] = append(s.args[op], string(args))
	return s.h.Handle(ctx, op, args)
}

// TestTextFormsKeepWhatValuesLose: sign_op and verify_op carry the body and
// the op twice, as a JSON value and as their exact text; the text keeps
// the lexemes and duplicate members a host parser loses, so a verdict that
// turns on them can be reached by any implementation.
func TestTextFormsKeepWhatValuesLose(t *testing.T) {
	s := loadSuite(t, nil)
	for _, tt := range []struct {
		id, want string
	}{
		{"fablepool/op_scenarios/v-integral-float", `"v":1.0`},
		{"fablepool/op_scenarios/ts-integral-float", `"ts":1700000000.0`},
		{"fablepool/op_scenarios/duplicate-sig-forged-last", `"sig":"0000`},
		{"fablepool/op_scenarios/valid-evidence-respelled", `{ \"\\u0073\\u0069\\u0067\" : `},
	} {
		one := *s
		one.Checks = nil
		for _, c := range s.Checks {
			if c.ID == tt.id {
				one.Checks = append(one.Checks, c)
			}
		}
		h, _ := Reference("")
		sp := &spy{h: h, args: map[string][]string{}}
		if r := checktest.Execute(t, &one, adapter.InProcess(sp)).Results; len(r) != 1 || r[0].Status != check.Pass {
			t.Fatalf("%s: %+v", tt.id, r)
		}
		v, err := canon.Parse([]byte(sp.args[OpVerifyOp][0]), canon.ReadOptions{Duplicates: canon.LastWins})
		if err != nil {
			t.Fatal(err)
		}
		text, ok1 := v.Lookup("op_text")
		_, ok2 := v.Lookup("op")
		if !ok1 || !ok2 || !strings.Contains(sp.args[OpVerifyOp][0], tt.want) {
			t.Errorf("%s: verify_op args %s", tt.id, check.Clip(sp.args[OpVerifyOp][0]))
		}
		if _, err := canon.Parse([]byte(text.Str), canon.ReadOptions{}); err == nil && strings.HasPrefix(tt.id, "fablepool/op_scenarios/duplicate") {
			t.Errorf("%s: op_text %s has no duplicate", tt.id, text.Str)
		}
		b, _ := canon.Parse([]byte(sp.args[OpSignOp][0]), canon.ReadOptions{})
		if body, ok := b.Lookup("body_text"); !ok || body.Kind != canon.String {
			t.Errorf("%s: sign_op args %s", tt.id, check.Clip(sp.args[OpSignOp][0]))
		}
	}

	// A host parser that reads op, not op_text, fails exactly the
	// scenarios whose verdict turns on a lexeme or a duplicate member.
	h, _ := Reference("host-parsed")
	var failed []string
	for _, r := range checktest.Execute(t, s, adapter.InProcess(h)).Results {
		if r.Status != check.Pass {
			failed = append(failed, strings.TrimPrefix(r.ID, "fablepool/op_scenarios/"))
		}
	}
	want := "v-integral-float ts-integral-float ts-exponent v-exponent payload-integral-float payload-exponent duplicate-sig-forged-last duplicate-sig-forged-first duplicate-payload-member duplicate-type"
	if strings.Join(failed, " ") != want {
		t.Errorf("host-parsed fails %v, want %s", failed, want)
	}
}

// TestInputMustSurviveAHostParser: a canonicalization vector given as a
// JSON value must mean the same to any host parser; one whose verdict
// turns on a lexeme, a duplicate or a lone surrogate is a corpus error
// naming it.
func TestInputMustSurviveAHostParser(t *testing.T) {
	for _, tt := range []struct{ input, want string }{
		{`[1.0]`, "the number 1.0"},
		{`{"a":-0}`, "the number -0"},
		{`[9007199254740993]`, "beyond ±(2^53−1)"},
		{`["\ud800"]`, "lone surrogate"},
		{`{"\udc00":1}`, "lone surrogate"},
	} {
		c := embeddedFS(t)
		c["canonicalization.json"] = &fstest.MapFile{Data: []byte(`{"vectors":[{"name":"x","input":` + tt.input + `,"error":"canonical_unsupported"}]}`)}
		cp, err := corpus.Open(c, "test")
		if err != nil {
			t.Fatal(err)
		}
		_, err = readCorpus(cp)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `vector 0 ("x")`) || !strings.Contains(err.Error(), "input_text") {
			t.Errorf("%s: %v", tt.input, err)
		}
	}
}

// embeddedFS is the embedded corpus as a MapFS to edit.
func embeddedFS(t *testing.T) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	for _, name := range []string{"canonicalization.json", "signing.json", "op_scenarios.json"} {
		b, err := embedded.ReadFile("corpus/" + name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = &fstest.MapFile{Data: b}
	}
	return out
}
