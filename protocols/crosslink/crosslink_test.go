package crosslink

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/sharedtest"
)

func TestDecodeMessage(t *testing.T) {
	const id = `"AAAAAAAAAAAAAAAA"`
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name    string
		payload string
		code    string // "" means accepted
		reason  string
	}{
		{"ping", `{"v":"1.0","t":"ping","ts":1}`, "", ""},
		{"bye", `{"v":"1.0","t":"bye"}`, "", ""},
		{"unknown members kept", `{"v":"1.0","t":"bye","x":1}`, "", ""},
		{"duplicate keys last wins", `{"v":"1.0","t":"root","t":"bye"}`, "", ""},
		{"bom dropped", "\ufeff" + `{"v":"1.0","t":"bye"}`, "", ""},
		{"depth 64", `{"v":"1.0","t":"req","i":` + id + `,"m":"m","p":` + deep(64) + `}`, "", ""},
		{"depth 65", `{"v":"1.0","t":"req","i":` + id + `,"m":"m","p":` + deep(65) + `}`, CodeInvalidMessage, "too-deep"},
		{"invalid utf-8", "{\"v\":\"1.0\",\"t\":\"bye\",\"r\":\"\xff\"}", CodeParseError, "not valid UTF-8"},
		{"truncated", `{"v":"1.0"`, CodeParseError, "invalid JSON"},
		{"parse before depth", deep(70)[:70], CodeParseError, "invalid JSON"},
		{"depth before version", `{"v":"9","p":` + deep(65) + `}`, CodeInvalidMessage, "too-deep"},
		{"version before structure", `{"v":"9","t":"nope"}`, CodeVersionUnsupported, `version "9"`},
		{"number version", `{"v":1,"t":"bye"}`, CodeInvalidMessage, "bad-version"},
		{"array", `[]`, CodeInvalidMessage, "bad-version"},
		{"null", `null`, CodeInvalidMessage, "not-an-object"},
		{"unknown type", `{"v":"1.0","t":"root"}`, CodeInvalidMessage, "bad-type"},
		{"req without id", `{"v":"1.0","t":"req","m":"m"}`, CodeInvalidMessage, "req-id"},
		{"req idem false", `{"v":"1.0","t":"req","i":` + id + `,"m":"m","idem":false}`, CodeInvalidMessage, "req-idem"},
		{"chunk 2.0", `{"v":"1.0","t":"chunk","i":` + id + `,"n":2.0,"d":0}`, "", ""},
		{"chunk -1", `{"v":"1.0","t":"chunk","i":` + id + `,"n":-1,"d":0}`, CodeInvalidMessage, "chunk-index"},
		{"chunk 1e400", `{"v":"1.0","t":"chunk","i":` + id + `,"n":1e400,"d":0}`, CodeInvalidMessage, "chunk-index"},
		{"err bad code", `{"v":"1.0","t":"err","i":` + id + `,"e":{"code":"x","message":"m"}}`, CodeInvalidMessage, "err-code"},
		{"ping infinite", `{"v":"1.0","t":"ping","ts":-1e999}`, CodeInvalidMessage, "ping-ts"},
		{"hello app 256 units", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat("😂", 128) + `"}`, "", ""},
		{"hello app 258 units", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat("😂", 129) + `"}`, CodeInvalidMessage, "hello-app"},
		// A lone surrogate escape is one UTF-16 code unit, as String.length
		// counts it, not the three bytes it is held in.
		{"hello app 86 lone surrogates", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat(`\ud800`, 86) + `"}`, "", ""},
		{"hello app 256 lone surrogates", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat(`\udc00`, 256) + `"}`, "", ""},
		{"hello app 257 lone surrogates", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat(`\ud800`, 257) + `"}`, CodeInvalidMessage, "hello-app"},
		{"hello_ok", `{"v":"1.0","t":"hello_ok","version":"10.20"}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeMessage([]byte(tt.payload))
			if tt.code == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var xe *Error
			if !errors.As(err, &xe) || xe.Code != tt.code || xe.Reason != tt.reason {
				t.Fatalf("err = %v, want %s: %s", err, tt.code, tt.reason)
			}
		})
	}
}

func TestCanonicalAndFrame(t *testing.T) {
	v, err := ParseValue([]byte(`{"v":"1.0","t":"res","i":"A","p":{"\ufb33":1,"\ud83d\ude02":1e21,"s":"\ud800\u2028/","n":-0}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Canonical(v)
	want := `{"i":"A","p":{"n":0,"s":"\ud800` + "\u2028" + `/","😂":1e+21,"` + "\ufb33" + `":1},"t":"res","v":"1.0"}`
	if err != nil || string(got) != want {
		t.Fatalf("Canonical = %s, %v\nwant       %s", got, err, want)
	}
	frame, err := EncodeFrame(v, 0)
	if err != nil || binary.BigEndian.Uint32(frame) != uint32(len(want)) || hex.EncodeToString(frame[:4]) != "0000004f" || string(frame[4:]) != want {
		t.Fatalf("EncodeFrame = %x, %v", frame, err)
	}
	if _, err := EncodeFrame(v, len(want)-1); !isCode(err, CodePayloadTooLarge) {
		t.Errorf("EncodeFrame over the limit: %v", err)
	}
	inf, _ := ParseValue([]byte(`[1e400]`))
	if _, err := Canonical(inf); err == nil || isCode(err, "") {
		t.Errorf("Canonical(1e400) = %v, want an error without a Crosslink code", err)
	}
}

// TestCanonicalNumberRange: numbers at either end of the double range, as
// Node's JSON.parse then String(number) gives them; beyond it, an error
// without a Crosslink code.
func TestCanonicalNumberRange(t *testing.T) {
	const halfway = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"
	tests := []struct {
		lexeme, want string // want "" means refused
	}{
		{"1e-400", "0"},
		{"-1e-400", "0"},
		{"0e400", "0"},
		{"-0E+999", "0"},
		{"2e-324", "0"},
		{"2.4703282292062327e-324", "0"},
		{"2.4703282292062328e-324", "5e-324"},
		{"3e-324", "5e-324"},
		{"1.7976931348623158e308", "1.7976931348623157e+308"},
		{halfway[:len(halfway)-1] + "1", "1.7976931348623157e+308"},
		{"10e307", "1e+308"},
		{"0.0001e312", "1e+308"},
		{halfway, ""},
		{"1.7976931348623159e308", ""},
		{"1e309", ""},
		{"1E+400", ""},
		{"-1e400", ""},
		{"1000e306", ""},
		{"0.1e310", ""},
	}
	for _, tt := range tests {
		t.Run(tt.lexeme[:min(len(tt.lexeme), 24)], func(t *testing.T) {
			v, err := ParseValue([]byte("[" + tt.lexeme + "]"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Canonical(v)
			if tt.want == "" {
				if err == nil || !errors.Is(err, canon.ErrNumberRange) || errors.As(err, new(*Error)) {
					t.Errorf("Canonical = %s, %v; want a range error without a Crosslink code", got, err)
				}
				return
			}
			if err != nil || string(got) != "["+tt.want+"]" {
				t.Errorf("Canonical = %s, %v; want [%s]", got, err, tt.want)
			}
		})
	}
}

func isCode(err error, code string) bool {
	var xe *Error
	return errors.As(err, &xe) && xe.Code == code
}

// TestUpstreamFixtures runs the upstream fixtures through the package
// directly: every canonical text, frame and error code.
func TestUpstreamFixtures(t *testing.T) {
	dir := sharedtest.Dir(t, "the upstream fixtures live in ../shared/corpora/crosslink")
	var messages struct {
		Cases []struct {
			Name      string          `json:"name"`
			Obj       json.RawMessage `json:"obj"`
			Canonical string          `json:"canonical"`
			FrameHex  string          `json:"frame_hex"`
		} `json:"cases"`
	}
	var invalid struct {
		Cases []struct{ Name, UTF8, Error string } `json:"cases"`
	}
	for file, v := range map[string]any{"messages-v1.json": &messages, "invalid-v1.json": &invalid} {
		raw, err := os.ReadFile(filepath.Join(dir, "corpora", "crosslink", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range messages.Cases {
		v, err := ParseValue(c.Obj)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := Canonical(v)
		frame, _ := EncodeFrame(v, 0)
		if string(got) != c.Canonical || hex.EncodeToString(frame) != c.FrameHex {
			t.Errorf("%s: canonical %s frame %x", c.Name, got, frame)
		}
		if _, err := DecodeMessage(got); err != nil {
			t.Errorf("%s: decode: %v", c.Name, err)
		}
	}
	for _, c := range invalid.Cases {
		if _, err := DecodeMessage([]byte(c.UTF8)); !isCode(err, c.Error) {
			t.Errorf("%s: %v, want %s", c.Name, err, c.Error)
		}
	}
	if len(messages.Cases) != 9 || len(invalid.Cases) != 4 {
		t.Errorf("%d cases, %d invalid", len(messages.Cases), len(invalid.Cases))
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{`{"v":"1.0","t":"ping","ts":1}`, `{"v":"9"}`, `[[[`, "\xff", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		v, err := DecodeMessage(payload)
		if err != nil {
			var xe *Error
			if !errors.As(err, &xe) || (xe.Code != CodeParseError && xe.Code != CodeInvalidMessage && xe.Code != CodeVersionUnsupported) {
				t.Fatalf("error without a decode code: %v", err)
			}
			return
		}
		// An accepted message canonicalises (unless a number overflows) and
		// its canonical form decodes to the same canonical form.
		c, err := Canonical(v)
		if errors.Is(err, canon.ErrNumberRange) {
			return
		}
		if err != nil {
			t.Fatalf("accepted but not canonicalisable: %v", err)
		}
		v2, err := DecodeMessage(c)
		if err != nil {
			t.Fatalf("canonical form %s rejected: %v", c, err)
		}
		if c2, _ := Canonical(v2); string(c2) != string(c) {
			t.Fatalf("not idempotent: %s -> %s", c, c2)
		}
	})
}

// TestDeepPayload decodes a payload nested millions deep: it is
// invalid_message, not a stack overflow.
func TestDeepPayload(t *testing.T) {
	n := 3_000_000
	payload := strings.Repeat("[", n) + strings.Repeat("]", n)
	if _, err := DecodeMessage([]byte(payload)); !isCode(err, CodeInvalidMessage) {
		t.Fatalf("err = %v", err)
	}
}
