package cdc

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
)

// textOps are the ops whose JSON values travel with their text too, and
// the args that do.
var textOps = map[string][]string{
	OpCanonicalise: {"value"},
	OpHash:         {"value"},
	OpVerify:       {"lease"},
	OpNarrow:       {"declared", "parent"},
}

// recorder is the honest built-in, keeping every request's args.
type recorder struct {
	*Handler
	mu   sync.Mutex
	args map[string][]canon.Value // by op
}

func (r *recorder) Handle(ctx context.Context, op string, raw []byte) (json.RawMessage, *adapter.Error) {
	v, err := canon.Parse(raw, canon.ReadOptions{})
	if err == nil {
		r.mu.Lock()
		r.args[op] = append(r.args[op], v)
		r.mu.Unlock()
	}
	return r.Handler.Handle(ctx, op, raw)
}

// TestTextTransport: canonicalise, hash, verify and narrow send each value
// with its text, which reads as the same JSON; validate, roundTrip and
// rules send values only.
func TestTextTransport(t *testing.T) {
	for _, l := range []*check.Loaded{loadEmbedded(t), loadSuite(t, sharedCorpus(t))} {
		rec := &recorder{Handler: honest(t, l), args: map[string][]canon.Value{}}
		run := checktest.Execute(t, l.Suite, adapter.InProcess(rec))
		if n := run.Counts(); n.Pass != len(run.Results) {
			t.Fatalf("%s: %+v", l.Suite.Corpus, n)
		}
		for op, all := range rec.args {
			for _, args := range all {
				for _, m := range args.Members {
					name, isText := strings.CutSuffix(m.Key, "_text")
					switch {
					case !isText:
						if _, has := args.Lookup(m.Key + "_text"); slices.Contains(textOps[op], m.Key) && !has {
							t.Errorf("%s: %s %s has no %s_text", l.Suite.Corpus, op, m.Key, m.Key)
						}
					case !slices.Contains(textOps[op], name):
						t.Errorf("%s: %s sends %s", l.Suite.Corpus, op, m.Key)
					default:
						value, _ := args.Lookup(name)
						text, err := canon.Parse([]byte(m.Value.Str), canon.ReadOptions{})
						if m.Value.Kind != canon.String || err != nil || !canon.Equal(text, value) {
							t.Errorf("%s: %s %s is not %s's text: %s", l.Suite.Corpus, op, m.Key, name, check.Clip(m.Value.String()))
						}
					}
				}
			}
		}
		for _, op := range []string{OpValidate, OpRoundTrip, OpCanonicalise} {
			if len(rec.args[op]) == 0 {
				t.Errorf("%s: no %s sent", l.Suite.Corpus, op)
			}
		}
	}
}

// hostReader canonicalises as a Go adapter built on encoding/json would:
// the request line read into map[string]any, then either the value (which
// that reader has already changed: a lone surrogate is U+FFFD) or the text
// (which it kept, as a string) canonicalised.
type hostReader struct {
	*Handler
	useText bool
}

func (h hostReader) Handle(ctx context.Context, op string, raw []byte) (json.RawMessage, *adapter.Error) {
	if op != OpCanonicalise {
		return h.Handler.Handle(ctx, op, raw)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, &adapter.Error{Code: "bad_args", Message: err.Error()}
	}
	if _, ok := args["nonfinite"]; ok {
		return nil, &adapter.Error{Code: "non_finite", Message: "non-finite"}
	}
	var text []byte
	if h.useText {
		text = []byte(args["value_text"].(string))
	} else {
		text, _ = json.Marshal(args["value"])
	}
	v, err := canon.Parse(text, canon.ReadOptions{})
	if err != nil {
		return nil, &adapter.Error{Code: "bad_args", Message: err.Error()}
	}
	b, err := canon.JSONStringify.Append(nil, v)
	if err != nil {
		return nil, &adapter.Error{Code: "canonical_unsupported", Message: err.Error()}
	}
	out, _ := json.Marshal(string(b))
	return out, nil
}

// TestTextKeepsWhatValueLoses: an adapter whose JSON reader replaces a
// lone surrogate fails canonical/lone-surrogate from the value and passes
// it from value_text.
func TestTextKeepsWhatValueLoses(t *testing.T) {
	l := loadEmbedded(t)
	for _, useText := range []bool{false, true} {
		run := checktest.Execute(t, l.Suite, adapter.InProcess(hostReader{honest(t, l), useText}))
		for _, r := range run.Results {
			if r.ID != "cdc/canonical/lone-surrogate" {
				continue
			}
			if want := map[bool]check.Status{false: check.Fail, true: check.Pass}[useText]; r.Status != want {
				t.Errorf("reading value_text %v: %s %s, want %s", useText, r.Status, r.Reason, want)
			}
		}
	}
}

// TestValuesLoseNothing: what validate, roundTrip and rules are sent, from
// both corpora and the supplement, holds nothing a host JSON reader loses
// that their verdicts depend on: no lone surrogate, and no integer beyond
// 2^53 (which JSON.parse rounds and Python keeps) but
// agent-lease-manifest.budget-above-2-53's, refused by the schema's maximum
// 2^53−1 whichever way it is read.
func TestValuesLoseNothing(t *testing.T) {
	limit := new(big.Int).Lsh(big.NewInt(1), 53)
	for _, tt := range []struct {
		l    *check.Loaded
		want []string
	}{{loadEmbedded(t), nil}, {loadSuite(t, sharedCorpus(t)), []string{"9007199254740993"}}} {
		l := tt.l
		rec := &recorder{Handler: honest(t, l), args: map[string][]canon.Value{}}
		checktest.Execute(t, l.Suite, adapter.InProcess(rec))
		var huge []string
		for _, op := range []string{OpValidate, OpRoundTrip, OpRules} {
			for _, args := range rec.args[op] {
				for _, m := range args.Members {
					if m.Value.HoldsLoneSurrogate() {
						t.Errorf("%s: %s %s holds a lone surrogate", l.Suite.Corpus, op, m.Key)
					}
					mapValue(m.Value, func(x canon.Value) canon.Value {
						if n, ok := new(big.Int).SetString(x.Num, 10); x.Kind == canon.Number && ok && n.CmpAbs(limit) > 0 {
							huge = append(huge, x.Num)
						}
						return x
					})
				}
			}
		}
		slices.Sort(huge)
		huge = slices.Compact(huge)
		if !slices.Equal(huge, tt.want) {
			t.Errorf("%s: integers beyond 2^53 sent to validate, roundTrip or rules: %v", l.Suite.Corpus, huge)
		}
	}
}
