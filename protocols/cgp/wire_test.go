package cgp

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/refereehq/referee/internal/sharedtest"
)

func TestDecodeEnvelope(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		typ  string
	}{
		{`{"type":"shutdown"}`, true, TypeShutdown},
		{`{"type":"error","message":"m","code":null,"future":[1]}`, true, TypeError},
		{`{"type":"frames","result":{"frames":[],"truncated":false}}` + "\r\n", true, TypeFrames},
		{`{"type":"no_such_type","x":1}`, true, "no_such_type"},
		{`{"type":7}`, false, ""},
		{`{"protocol_version":"contextgraph/1.0"}`, false, ""},
		{`[1]`, false, ""},
		{`this is not valid json {{{`, false, ""},
		{`{"type":"shutdown","type":"error"}`, false, ""},
		{`{"Type":"shutdown"}`, false, ""},
		{`{"type":"frames","result":{"frames":[{"id":"a","kind":"doc","title":"t","Score":0.5,"token_cost":1}],"truncated":false}}`, false, ""},
		{"{\"type\":\"error\",\"message\":\"\xff\"}", false, ""},
		// serde validates every string of a tagged enum, unknown members' too.
		{`{"type":"error","message":"\ud800"}`, false, ""},
		{`{"type":"error","message":"m","future":["\udc00"]}`, false, ""},
		{`{"type":"error","message":"m","\ud83d":1}`, false, ""},
		{`{"type":"error","message":"\ud83d\ude00"}`, true, TypeError},
		{`{"type":"frames","result":{"frames":[{"id":"a","kind":"doc","title":"t","score":0.5,"token_cost":1,"x-acme":{"Name":"n","Score":2}}],"truncated":false}}`, true, TypeFrames},
		{`{"type":"frames","result":{"frames":[],"truncated":false,"frame_attestations":[{"frame":{"provider_id":"p","Frame_ID":"f"}}]}}`, false, ""},
		{`{"type":"frames","result":{"frames":[{"id":"a","kind":"doc","title":"t","score":"high","token_cost":1}],"truncated":false}}`, false, ""},
	} {
		env, err := DecodeEnvelope([]byte(tc.line))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v", tc.line, err)
			continue
		}
		if tc.ok && env.Type != tc.typ {
			t.Errorf("%s: type %q", tc.line, env.Type)
		}
	}
}

func TestCompatible(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{{"contextgraph/1.0-draft", true}, {"contextgraph/1.9", true}, {"contextgraph/2.0", false}, {"mcp/1.0", false}, {"", false}} {
		if Compatible(ProtocolVersion, tc.v) != tc.ok {
			t.Errorf("%q: compatible %v", tc.v, !tc.ok)
		}
	}
}

// TestReferenceEnvelopesDecode reads upstream's 13 reference envelopes.
func TestReferenceEnvelopesDecode(t *testing.T) {
	dir := sharedtest.Dir(t, "upstream's reference envelopes")
	for _, rel := range []string{"head-00377ab", "index-newer"} {
		data, err := os.ReadFile(filepath.Join(dir, "corpora/cgp/_extra", rel, "schema/reference-vectors.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		if len(lines) != 13 {
			t.Fatalf("%s: %d lines", rel, len(lines))
		}
		for i, l := range lines {
			env, err := DecodeEnvelope(l)
			if err != nil {
				t.Errorf("%s line %d: %v", rel, i+1, err)
				continue
			}
			if _, err := Encode(env); err != nil {
				t.Errorf("%s line %d: encode: %v", rel, i+1, err)
			}
		}
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(`{"type":"handshake","protocol_version":"contextgraph/1.0"}`))
	f.Add([]byte(`{"type":"verify","request":{"frames":[{"provider_id":"p","frame_id":"f"}]}}`))
	f.Add([]byte(`{"type":"frames","result":{"frames":[{"id":"a","kind":"doc","title":"t","score":1.0,"token_cost":1,"provenance":[{"type":"file"}]}],"truncated":false,"frame_attestations":[{"frame":{"provider_id":"p","frame_id":"a"}}]}}`))
	f.Add([]byte(`{"type":"error","message":"m","x":{"y":1,"y":2},"x":3,"Message":"n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := DecodeEnvelope(data)
		if err != nil {
			return
		}
		line, err := Encode(env)
		if err != nil {
			t.Fatalf("a decoded envelope does not encode: %v", err)
		}
		if _, err := DecodeEnvelope(line); err != nil {
			t.Fatalf("an encoded envelope does not decode: %v\n%s", err, line)
		}
	})
}

// TestDecodeReplyRefusesMissingMembers: a frame without a required member,
// at any level, is no ContextFrame. DecodeEnvelope reads the zero value in
// its place, as encoding/json does; DecodeReply refuses the reply, naming
// the frame and the member, as the reference host's reader (serde) does.
func TestDecodeReplyRefusesMissingMembers(t *testing.T) {
	frame := func(members string) string {
		return `{"type":"frames","result":{"frames":[{"id":"ok","kind":"doc","title":"t","content":"c","score":0.5,"token_cost":1},` +
			`{"id":"f2","kind":"doc","title":"t","content":"c","score":0.5,"token_cost":1` + members + `}],"truncated":false}}`
	}
	for _, tc := range []struct {
		name, line string
		want       string // in the error; "" when the reply decodes
	}{
		{"whole", frame(`,"relations":[{"rel":"doc.documents","target_uri":"x"}],"provenance":[{"type":"file"}]`), ""},
		{"relation without rel", frame(`,"relations":[{"target_uri":"x","type":"doc.documents"}]`), `result.frames[1] (id "f2"): frame.relations[0] has no rel, which is required`},
		{"relation with null target", frame(`,"relations":[{"rel":"r","target_uri":null}]`), `frame.relations[0].target_uri is null`},
		{"link without type", frame(`,"provenance":[{"type":"file"},{"uri":"u"}]`), `frame.provenance[1] has no type`},
		{"content_ref without uri", frame(`,"content_ref":{"provider_id":"p"}`), `frame.content_ref has no uri`},
		{"transform without version", frame(`,"transform":{"method":"m","implementation":"i"}`), `frame.transform has no version`},
		{"embedding without fingerprint", frame(`,"embedding":{"vector":[1]}`), `frame.embedding has no fingerprint`},
		{"null provenance", frame(`,"provenance":null`), `frame.provenance is null`},
		{"no title, no id", `{"type":"frames","result":{"frames":[{"kind":"doc","score":0,"token_cost":0}],"truncated":false}}`, `result.frames[0] (no id): frame has no id`},
	} {
		line := []byte(tc.line)
		if _, err := DecodeEnvelope(line); err != nil {
			t.Errorf("%s: DecodeEnvelope: %v", tc.name, err)
		}
		_, err := DecodeReply(line)
		var fe *FrameError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: DecodeReply: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: DecodeReply: %v, want a *FrameError saying %q", tc.name, err, tc.want)
		}
	}
	// Only frames replies carry frames; another envelope is read as DecodeEnvelope reads it.
	if _, err := DecodeReply([]byte(`{"type":"verified","response":{"verdicts":[{"frame":{"frame_id":"f"},"status":"valid"}]}}`)); err != nil {
		t.Errorf("verified: %v", err)
	}
}

// TestReadsAsSerde holds DecodeReply to what serde (serde 1.0.152,
// serde_json 1.0.87) made of 50 lines, recorded in testdata by
// serde-reading.rs, a model of the reference's envelope types: the same
// lines read and refused, and each line read written back as serde wrote
// it. The lines turn on what the two JSON readers part on: lone
// surrogates, known and unknown members repeated, names in another case.
func TestReadsAsSerde(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "serde-reading.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d recorded lines, want 50", len(lines))
	}
	for i, l := range lines {
		var rec struct {
			Line  string `json:"line"`
			OK    bool   `json:"ok"`
			Serde string `json:"serde"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		env, err := DecodeReply([]byte(rec.Line))
		if (err == nil) != rec.OK {
			t.Errorf("%s: DecodeReply err %v; serde ok %v (%s)", rec.Line, err, rec.OK, rec.Error)
			continue
		}
		if !rec.OK {
			continue
		}
		got, err := MarshalReference(env)
		if err != nil {
			t.Errorf("%s: MarshalReference: %v", rec.Line, err)
		} else if string(got) != rec.Serde {
			t.Errorf("%s: written back as\n%s\nserde wrote\n%s", rec.Line, got, rec.Serde)
		}
	}
}

// TestWireTypesNameEveryField: serdeMembers drops a member that names no
// field of a wire type as jsonFieldsOf lists them, so every field of every
// type an envelope reaches must be named by a json tag, none embedded
// (encoding/json would flatten an embedded struct's fields into its
// parent, where jsonFieldsOf does not look).
func TestWireTypesNameEveryField(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous || name == "" || name == "-" || !f.IsExported() {
				t.Errorf("%s.%s: embedded, unexported or without a json name", typ, f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Envelope]())
	if len(seen) < 10 {
		t.Errorf("walked %d struct types; the envelope reaches more", len(seen))
	}
}
