package adapter

import (
	"strings"
	"testing"
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
	f.Fuzz(func(t *testing.T, line []byte) {
		id, op, args, ok := parseRequest(line)
		if !ok {
			return
		}
		again, err := encodeRequest(id, op, args)
		if err != nil && len(args) > 0 {
			t.Fatalf("accepted request does not re-encode: %v", err)
		}
		if id2, op2, _, ok := parseRequest(again); err == nil && (!ok || id2 != id || op2 != op) {
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
