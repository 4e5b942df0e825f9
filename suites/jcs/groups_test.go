package jcs

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// groupModes are the broken modes each group of vectors exists to catch: a
// mode listed here fails at least one check of its group and none outside
// it, so the group closes a gap the rest of the corpus leaves open.
var groupModes = map[string][]string{
	"jcs/grammar/":    {"relaxed-grammar", "complete-truncated", "minify-first", "first-value-only", "first-letter-literals", "parsefloat-numbers", "holes-as-null", "any-closer", "parseint-escapes"},
	"jcs/utf8/":       {"replace-invalid-utf8", "detect-encoding"},
	"jcs/names/":      {"plain-object-keys"},
	"jcs/surrogates/": {"unchecked-pairs"},
	"jcs/appendix-b/": {"nan-as-null"},
	"jcs/top-level/":  {"scalar-whitespace"},
	"jcs/scale/":      {"chunked-decoding"},
}

func TestGroupModesOnlyTheirGroup(t *testing.T) {
	s := embeddedSuite(t)
	for group, names := range groupModes {
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				h, err := Reference(name)
				if err != nil {
					t.Fatal(err)
				}
				run := runSuite(t, s, adapter.InProcess(h))
				inGroup := 0
				for _, r := range run.Results {
					switch {
					case r.Status == check.Error || r.Status == check.NotChecked:
						t.Errorf("%s: %s: %s", r.ID, r.Status, r.Reason)
					case r.Status != check.Fail:
					case strings.HasPrefix(r.ID, group):
						inGroup++
					default:
						t.Errorf("%s fails %s, outside %s: %s", name, r.ID, group, r.Reason)
					}
				}
				if inGroup == 0 {
					t.Errorf("%s fails no check of %s", name, group)
				}
			})
		}
	}
}

// TestLenientReadings: relaxed-grammar reads every text it accepts as one
// of the vector's lenient readings, so it earns warnings only; a reader
// that runs [1 2] together into [12] changes the value, a must failure of
// a should check.
func TestLenientReadings(t *testing.T) {
	s := embeddedSuite(t)
	h, _ := Reference("relaxed-grammar")
	warned := 0
	for _, r := range runSuite(t, s, adapter.InProcess(h)).Results {
		switch {
		case r.Status == check.Fail && r.Level == check.Should && strings.HasPrefix(r.ID, "jcs/grammar/"):
			warned++
			if !strings.Contains(r.Reason, "lenient reading") {
				t.Errorf("%s: %s", r.ID, r.Reason)
			}
		case r.Status == check.Fail:
			t.Errorf("%s: %s failure: %s", r.ID, r.Level, r.Reason)
		}
	}
	if warned < 30 {
		t.Errorf("relaxed-grammar warned on %d grammar vectors", warned)
	}

	one := only(t, s, "jcs/grammar/no-separator-numbers")
	if one.Checks[0].LevelOf() != check.Should {
		t.Fatalf("level %s", one.Checks[0].LevelOf())
	}
	for _, tt := range []struct {
		name   string
		h      adapter.Handler
		status check.Status
		level  check.Level
	}{
		{"rejected", fixed{}, check.Pass, check.Should},
		{"lenient reading", fixed{"[1,2]"}, check.Fail, check.Should},
		{"run together", mustRef(t, "minify-first"), check.Fail, check.Must},
		{"any other text", fixed{"[2,1]"}, check.Fail, check.Must},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := checktest.Execute(t, one, adapter.InProcess(tt.h)).Results[0]
			if r.Status != tt.status || r.Level != tt.level {
				t.Errorf("%s at %s, want %s at %s: %s", r.Status, r.Level, tt.status, tt.level, r.Reason)
			}
		})
	}
}

func mustRef(t *testing.T, mode string) *Handler {
	t.Helper()
	h, err := Reference(mode)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPermittedChoicesConform: an implementation whose only differences
// from the reference are choices RFC 8785, RFC 8259 and I-JSON leave open
// (refusing numbers of magnitude 2^53 or more and noncharacters, a nesting
// limit of 64, taking parsed values so that duplicates read last-wins, a
// relaxed parser) is conformant: warnings, no failure.
func TestPermittedChoicesConform(t *testing.T) {
	h := &Handler{name: "permitted", mode: &broken{rejectBig: true, rejectNonchar: true, maxDepth: MustDepth, duplicates: true, relaxed: true}}
	plan, err := run.Prepare(&Definition, check.Spec{Handler: h}, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(t.Context())
	n := res.Report.Counts
	if code := res.ExitCode(); code != report.ExitOK || n.Fail != 0 || n.Error != 0 || n.NotChecked != 0 || n.Warn == 0 {
		t.Fatalf("exit %d, counts %+v: want conformant, with warnings", code, n)
	}
	rejected := 0
	for _, c := range res.Report.Checks {
		if c.Level == string(check.May) && c.Outcome == check.ChoseReject {
			rejected++
		}
	}
	if rejected < 100 {
		t.Errorf("only %d may checks recorded a rejection", rejected)
	}
}

// bytesOnly takes canonicalJsonBytes and refuses canonicalJson, to prove
// that the checks of input that is not UTF-8 go through value_hex alone.
type bytesOnly struct{ ops []string }

func (b bytesOnly) Hello() adapter.Hello {
	return adapter.Hello{Name: "ops", Version: "1", Ops: b.ops, Concurrency: 1}
}

func (b bytesOnly) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	h, _ := Reference("")
	return h.Handle(ctx, op, args)
}

// TestNotUTF8Transport: input that is not UTF-8 travels as value_hex to
// canonicalJsonBytes; an adapter that does not offer it gets those checks
// not-checked, with the reason, and nothing else.
func TestNotUTF8Transport(t *testing.T) {
	s := embeddedSuite(t)
	run := checktest.Execute(t, s, adapter.InProcess(bytesOnly{[]string{Op}}))
	for _, r := range run.Results {
		hexed := strings.HasPrefix(r.ID, "jcs/utf8/")
		switch {
		case hexed && (r.Status != check.NotChecked || !strings.Contains(r.Reason, "value_hex")):
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Reason)
		case !hexed && r.Status != check.Pass:
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Reason)
		}
	}
	for _, c := range only(t, s, "jcs/utf8/overlong-solidus").Checks {
		if len(c.Needs) != 1 || c.Needs[0] != OpBytes || !strings.Contains(c.Explanation(), `"value_hex": "5b22c0af225d"`) {
			t.Errorf("%s: needs %v, explain %q", c.ID, c.Needs, c.Explanation())
		}
	}
}

// TestCorpusContradictions: a vector whose expectation its input
// contradicts is a corpus error naming it, never a failure charged to the
// implementation.
func TestCorpusContradictions(t *testing.T) {
	vec := func(v string) fstest.MapFS {
		return fstest.MapFS{VectorsFile: {Data: []byte(`{"format":"referee-jcs/1","vectors":[` + v + `]}`)}}
	}
	for _, tt := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"output for text that is not JSON", vec(`{"name":"a/b","doc":"d","input":"[1 2]","output":"[1,2]"}`), `vector 0 ("a/b"): expects an output, but its input is not JSON`},
		{"output for a truncated text", vec(`{"name":"t","doc":"d","input":"[1,","output":"[1]"}`), "its input is not JSON"},
		{"output for a lone surrogate", vec(`{"name":"s","doc":"d","input":"[\"\\ud800\"]","output":"[\"x\"]"}`), "RFC 8785 requires its input to be rejected"},
		{"output for duplicates", vec(`{"name":"d","doc":"d","input":"{\"a\":1,\"a\":2}","output":"{\"a\":2}"}`), "should be rejected"},
		{"rejection of canonical JSON", vec(`{"name":"r","doc":"d","input":"[1]","reject":true}`), "RFC 8785 canonicalises"},
		{"lenient outputs for JSON", vec(`{"name":"l","doc":"d","input":"{\"a\":1,\"a\":2}","reject":true,"lenient_outputs":["{}"]}`), "its input is JSON"},
		{"lenient outputs with an output", vec(`{"name":"l","doc":"d","input":"[1,]","output":"[1]","lenient_outputs":["[1]"]}`), "go with reject"},
		{"lenient output not JSON", vec(`{"name":"l","doc":"d","input":"[1,]","reject":true,"lenient_outputs":["[1"]}`), "lenient_outputs[0] is not JSON"},
		{"hex that is UTF-8", vec(`{"name":"h","doc":"d","input_hex":"5b315d","reject":true}`), "give it as input"},
		{"both inputs", vec(`{"name":"h","doc":"d","input":"1","input_hex":"ff","reject":true}`), "exactly one of input and input_hex"},
		{"RFC layout, not JSON", fstest.MapFS{"input/x.json": {Data: []byte("[1,]")}, "output/x.json": {Data: []byte("[1]")}}, "input/x.json: expects an output, but its input is not JSON"},
		{"RFC layout, not UTF-8", fstest.MapFS{"input/x.json": {Data: []byte("[\"\xff\"]")}, "output/x.json": {Data: []byte(`["x"]`)}}, "input/x.json: expects an output, but its input is not JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.Open(tt.fsys, "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = suiteOf(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "corpus test") {
				t.Errorf("error = %v, want one naming the corpus and %q", err, tt.want)
			}
		})
	}
}

// TestBigMagnitude decides 2^53 from the decimal digits.
func TestBigMagnitude(t *testing.T) {
	for lexeme, want := range map[string]bool{
		"9007199254740991": false, "9007199254740991.5": false, "9007199254740991.999999999999999999999": false,
		"9007199254740992": true, "-9007199254740992": true, "9.007199254740992e15": true, "1E21": true,
		"0.5": false, "-1e-7": false, "1e400": true, "1e999999999999": true, "1e-999999999999": false,
		"0e999999999999": false, "-0": false, "90071992547409910e-1": false,
	} {
		if got := BigMagnitude(lexeme); got != want {
			t.Errorf("BigMagnitude(%s) = %v, want %v", lexeme, got, want)
		}
	}
}

// TestBigMagnitudeShortcut: the text shortcut for lexemes without an
// exponent decides as big.Float does, around 2^53 and elsewhere.
func TestBigMagnitudeShortcut(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	lexemes := []string{"0", "0.5", "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740991.999", "-9007199254740992.0", "10000000000000000", "999999999999999"}
	for range 20000 {
		l := digits(1+r.IntN(20)) + []string{"", "." + digits(1+r.IntN(5))}[r.IntN(2)]
		if r.IntN(2) == 0 {
			l = "9007199254740" + digits(3) + []string{"", ".9", ".0"}[r.IntN(3)]
		}
		lexemes = append(lexemes, l, "-"+l)
	}
	for _, l := range lexemes {
		if got, want := BigMagnitude(l), bigMagnitude(l); got != want {
			t.Fatalf("BigMagnitude(%s) = %v, big.Float says %v", l, got, want)
		}
	}
}

func TestClassifyNotJSON(t *testing.T) {
	for _, tt := range []struct {
		in      string
		lenient []string
		kind    kind
		level   check.Level
		clause  string
	}{
		{"[1,]", []string{"[1]"}, wantRejectText, check.Should, clauseGrammar},
		{"[1,", nil, wantReject, check.Must, clauseNoValue},
		{"[NaN]", nil, wantReject, check.Must, clauseNaN},
		{"[-Infinity]", nil, wantReject, check.Must, clauseNaN},
		{"\uFEFF[1.0]", []string{"[1]"}, wantOutputMay, check.May, clauseBOM},
		{"[\"\xc0\xaf\"]", nil, wantReject, check.Must, clauseUTF8},
		{`{"a":1,"a":2}`, nil, wantRejectDup, check.Should, clauseDupes},
	} {
		c := classify("grammar", []byte(tt.in), true, bytesOf(tt.lenient))
		if c.kind != tt.kind || c.level != tt.level || c.clause != tt.clause {
			t.Errorf("%q: kind %d level %s clause %.40q", tt.in, c.kind, c.level, c.clause)
		}
	}
	if c := classify("x", []byte(`["\uffff"]`), false, nil); c.level != check.May || c.clause != clauseNonchar {
		t.Errorf("noncharacter: %s %.40q", c.level, c.clause)
	}
	if c := classify("x", []byte(`["\ufffd",9007199254740991]`), false, nil); c.level != check.Must {
		t.Errorf("U+FFFD and 2^53-1: %s", c.level)
	}
}

func bytesOf(ss []string) [][]byte {
	var out [][]byte
	for _, s := range ss {
		out = append(out, []byte(s))
	}
	return out
}
