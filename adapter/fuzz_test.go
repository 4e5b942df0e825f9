package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
)

func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"ok":"x"}`,
		`{"id":2,"err":{"code":"c","message":"m","extra":1}}`,
		`{"id":3}`,
		`{"id":3,"ok":1,"err":{}}`,
		`{"id":-1,"ok":null}`,
		`{"id":1.5,"ok":1}`,
		`{"id":1,"err":"x"}`,
		`[1]`,
		`garbage`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := decodeReply(line)
		if err != nil {
			return
		}
		if (r.OK == nil) == (r.Err == nil) {
			t.Fatalf("accepted reply has ok %v and err %v", r.OK, r.Err)
		}
		// An accepted err survives encodeError and decodeError.
		if r.Err != nil {
			back, err := decodeReply([]byte(`{"id":1,"err":` + string(encodeError(r.Err)) + `}`))
			if err != nil || back.Err.Code != r.Err.Code || back.Err.Message != r.Err.Message {
				t.Fatalf("err round trip: %+v -> %+v, %v", r.Err, back, err)
			}
		}
	})
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"id":0,"op":"hello","args":{"protocol":"referee-adapter/1","suite":"jcs"}}`))
	f.Add([]byte(`{"id":"x","op":1}`))
	f.Add([]byte(`{"id":7,"op":"echo","args":{"a":[1,2]}}`))
	f.Add([]byte(`{"id":7,"op":"echo","args":{"a":1},"more":2}`))
	f.Add([]byte(`{"id":7,"op":"e\u0063ho","args":{}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		req := parseRequest(line)
		if !req.ok {
			return
		}
		// A line read by position reads as the whole parse reads it.
		if _, quick := requestAsWritten(line); quick {
			if v, err := canon.Parse(line, canon.ReadOptions{Duplicates: canon.LastWins}); err == nil {
				if id, _ := v.Lookup("id"); id.Num != strconv.FormatInt(req.id, 10) {
					t.Fatalf("%q: id %d, the parse says %s", line, req.id, id.Num)
				}
				if op, _ := v.Lookup("op"); op.Str != req.op {
					t.Fatalf("%q: op %q, the parse says %q", line, req.op, op.Str)
				}
			}
		}
		again, err := encodeRequest(req.id, req.op, req.args)
		if err != nil && len(req.args) > 0 {
			t.Fatalf("accepted request does not re-encode: %v", err)
		}
		if back := parseRequest(again); err == nil && (!back.ok || back.id != req.id || back.op != req.op) {
			t.Fatalf("request round trip: %q -> %q", line, again)
		}
	})
}

func TestDeepReplyIsRefused(t *testing.T) {
	deep := strings.Repeat("[", MaxReplyDepth+10) + strings.Repeat("]", MaxReplyDepth+10)
	if _, err := decodeReply([]byte(`{"id":1,"ok":` + deep + `}`)); err == nil {
		t.Fatal("a reply nested past MaxReplyDepth was accepted")
	}
	ok := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	if _, err := decodeReply([]byte(`{"id":1,"ok":` + ok + `}`)); err != nil {
		t.Fatalf("a 1000-deep reply: %v", err)
	}
}

// TestReplyValuesBounded: a reply of more than MaxReplyValues values, which
// fits in a line (an array of a million zeros is 2 MB), is refused before
// it is built; one at the bound is read.
func TestReplyValuesBounded(t *testing.T) {
	// The reply object, id and ok are three values; ok's array one more.
	elems := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" }
	if _, err := decodeReply([]byte(`{"id":1,"ok":` + elems(MaxReplyValues-3) + `}`)); err != nil {
		t.Fatalf("a reply of %d values: %v", MaxReplyValues, err)
	}
	_, err := decodeReply([]byte(`{"id":1,"ok":` + elems(MaxReplyValues-2) + `}`))
	if err == nil || err.Error() != fmt.Sprintf("more than %d values", MaxReplyValues) {
		t.Fatalf("a reply of %d values: err = %v", MaxReplyValues+1, err)
	}
}

// FuzzLeadingID: the id read from a line's start is the id a strict parse of
// the line gives, whenever the line is a valid reply.
func FuzzLeadingID(f *testing.F) {
	for _, s := range []string{
		`{"id":7,"ok":1}`, `{"id":0,"ok":1}`, `{"id":07,"ok":1}`, `{"id":-1,"ok":1}`,
		`{"id":1,"ok":1,"id":2}`, `{"id":12345678901234567890,"ok":1}`, `{"id":1}`,
		`{"id": 1,"ok":1}`, `{"ok":1,"id":1}`, `{"id":9223372036854775807,"ok":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id, _, ok := leadingID(line)
		if !ok {
			return
		}
		if r, err := decodeReply(line); err == nil && r.ID != id {
			t.Fatalf("leadingID(%q) = %d, the parse says %d", line, id, r.ID)
		}
	})
}

func TestLeadingID(t *testing.T) {
	tests := []struct {
		line string
		id   int64
		ok   bool
	}{
		{`{"id":7,"ok":1}`, 7, true},
		{`{"id":0,"err":{}}`, 0, true},
		{`{"id":07,"ok":1}`, 0, false},
		{`{"id":-1,"ok":1}`, 0, false},
		{`{"id": 1,"ok":1}`, 0, false},
		{`{"ok":1,"id":1}`, 0, false},
		{`{"id":1}`, 0, false},
		{`{"id":99999999999999999999,"ok":1}`, 0, false},
	}
	for _, tt := range tests {
		if id, _, ok := leadingID([]byte(tt.line)); id != tt.id || ok != tt.ok {
			t.Errorf("leadingID(%s) = %d, %v; want %d, %v", tt.line, id, ok, tt.id, tt.ok)
		}
	}
}

func TestIsCompact(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":1}`, true},
		{`{"a": 1}`, false},
		{`{"a b":"c d"}`, true},
		{`{"a":"x\" y"}`, true},
		{`{"a":"x\\" , "b":1}`, false},
		{"[1,\n2]", false},
		{`"\\"`, true},
	}
	for _, tt := range tests {
		if got := isCompact([]byte(tt.in)); got != tt.want {
			t.Errorf("isCompact(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzIsCompact: JSON that isCompact passes is what json.Compact makes of it.
func FuzzIsCompact(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a": 1}`, `["x\" ",1]`, `"\\"`, "[1,\n2]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || !isCompact(b) {
			return
		}
		var out bytes.Buffer
		if err := json.Compact(&out, b); err != nil || !bytes.Equal(out.Bytes(), b) {
			t.Fatalf("isCompact(%q), yet json.Compact gives %q", b, out.Bytes())
		}
	})
}

// FuzzMarshalArgsMap: string maps are written as encoding/json writes them
// without HTML escaping.
func FuzzMarshalArgsMap(f *testing.F) {
	f.Add("value_text", "{\"a\": [1, \"<&>\"]}\n\t\x01\u2028\xff", "k", "")
	f.Add("", "\b\f\r\\\"", "é", "😀")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		m := map[string]string{k1: v1, k2: v2}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
		got, err := MarshalArgs(m)
		if err != nil || string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("MarshalArgs(%q) = %s, %v; encoding/json writes %s", m, got, err, want.String())
		}
	})
}

// TestHelloOpsBounded: a hello lists at most MaxOps distinct ops, each of
// at most MaxOpName bytes; the list is kept in every report.
func TestHelloOpsBounded(t *testing.T) {
	ops := func(names ...string) string {
		b, _ := json.Marshal(names)
		return `{"id":0,"ok":{"name":"x","ops":` + string(b) + `}}`
	}
	many := make([]string, MaxOps+1)
	for i := range many {
		many[i] = fmt.Sprintf("op%d", i)
	}
	for _, tt := range []struct {
		line, err string
	}{
		{ops(many[:MaxOps]...), ""},
		{ops(many...), fmt.Sprintf("hello reply: %d ops, more than %d", MaxOps+1, MaxOps)},
		{ops(strings.Repeat("o", MaxOpName)), ""},
		{ops(strings.Repeat("o", MaxOpName+1)), fmt.Sprintf("hello reply: an op name of %d bytes, more than %d", MaxOpName+1, MaxOpName)},
		{ops("echo", "fail", "echo"), `hello reply: op "echo" is listed twice`},
	} {
		r, err := decodeReply([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		_, err = decodeHello(r)
		if got := fmt.Sprint(err); (tt.err == "" && err != nil) || (tt.err != "" && got != tt.err) {
			t.Errorf("%.60s: err = %v, want %q", tt.line, err, tt.err)
		}
	}
}

// TestMarshalArgsAsEncodingJSON: args of json.RawMessage values, and of
// strings and json.RawMessage values mixed, are written as encoding/json
// writes them (without HTML escaping), or refused as it refuses them.
func TestMarshalArgsAsEncodingJSON(t *testing.T) {
	raws := []json.RawMessage{nil, json.RawMessage(``), json.RawMessage(`1`), json.RawMessage(`{"a":[1,"<&>\u2028"]}`), json.RawMessage(`{"a": 1}`),
		json.RawMessage(`[1,]`), json.RawMessage("\"\xff\""), json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`), json.RawMessage(` 1 `)}
	values := []any{"text", "<\u2028\xff>", 1, true, nil, []int{1}}
	for _, r := range raws {
		values = append(values, r)
	}
	for i, r := range raws {
		for j, v := range values {
			for _, m := range []any{
				map[string]json.RawMessage{"value": r, "k": raws[(i+j)%len(raws)]},
				map[string]any{"value": v, "value_text": string(r)},
			} {
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				wantErr := enc.Encode(m)
				got, err := MarshalArgs(m)
				if (err != nil) != (wantErr != nil) || err == nil && string(got) != strings.TrimSuffix(want.String(), "\n") {
					t.Errorf("MarshalArgs(%.200v) = %.200s, %v; encoding/json writes %.200s, %v", m, got, err, want.String(), wantErr)
				}
			}
		}
	}
}

// BenchmarkIsCompact checks args of 600 KB for whitespace: a plain string,
// and one of 100,000 escapes (each looked at once, not rescanned to the
// string's end: the bytes/s of the two stay within a small factor).
func BenchmarkIsCompact(b *testing.B) {
	for _, tt := range []struct{ name, unit string }{{"plain", "abcdef"}, {"escapes", `\u2028`}} {
		args := []byte(`{"value_text":"` + strings.Repeat(tt.unit, 100000) + `"}`)
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			for b.Loop() {
				if !isCompact(args) {
					b.Fatal("not compact")
				}
			}
		})
	}
}
