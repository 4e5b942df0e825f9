// Gen writes the crosslink suite's embedded corpus in suites/crosslink/corpus:
// messages-v1.json and decode-v1.json, whose expected values come from the Go
// reference implementation (protocols/crosslink), limits-v1.json,
// refuse-v1.json, whose every value the reference's canonicalJson must
// refuse, and the manifest. invalid-v1.json is curated by hand and only checked here: every
// case must be rejected by the reference with its listed code.
//
// The suite's test regenerates it and compares; to rewrite the corpus, run
// from the repository root:
//
//	go test ./suites/crosslink -run TestCorpusIsGenerated -update
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/corpus"
	xl "github.com/refereehq/referee/protocols/crosslink"
)

func main() {
	out := flag.String("out", "corpus", "write the corpus into `DIR`")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

const (
	id  = `"AAAAAAAAAAAAAAAA"`
	sub = `"BBBBBBBBBBBB"`
)

// messages are the positive cases: a name and the message as JSON text, its
// lexemes and escapes exactly as they will stand in the corpus.
var messages = []struct{ name, obj string }{
	// Upstream's nine, unchanged.
	{"request", `{"v":"1.0","t":"req","i":` + id + `,"m":"echo","p":{"hello":"world","n":42}}`},
	{"response", `{"v":"1.0","t":"res","i":` + id + `,"p":{"echoed":true}}`},
	{"error", `{"v":"1.0","t":"err","i":` + id + `,"e":{"code":"parse_error","message":"boom"}}`},
	{"chunk-binary", `{"v":"1.0","t":"chunk","i":` + id + `,"n":0,"d":{"$b":true,"c":"application/octet-stream","d":"AQIDBA=="}}`},
	{"end", `{"v":"1.0","t":"end","i":` + id + `,"p":{"total":3}}`},
	{"event", `{"v":"1.0","t":"evt","s":` + sub + `,"e":"tasks.status","p":{"pct":50}}`},
	{"subscribe", `{"v":"1.0","t":"sub","s":` + sub + `,"e":"tasks.status"}`},
	{"cancel", `{"v":"1.0","t":"cancel","i":` + id + `}`},
	{"ping", `{"v":"1.0","t":"ping","ts":1700000000000}`},

	// Every other kind, and the optional fields.
	{"request-idempotent", `{"v":"1.0","t":"req","i":` + id + `,"m":"files/read","p":{"path":"/tmp/x"},"idem":true,"ts":1700000000000}`},
	{"request-no-params", `{"v":"1.0","t":"req","i":"a_b-C9","m":"ns:method@v2.1"}`},
	{"response-no-payload", `{"v":"1.0","t":"res","i":` + id + `}`},
	{"error-with-data", `{"v":"1.0","t":"err","i":` + id + `,"e":{"code":"rate_limited","message":"slow down","data":{"retry_ms":250}}}`},
	{"chunk-json", `{"v":"1.0","t":"chunk","i":` + id + `,"n":7,"d":[1,2,3]}`},
	{"end-no-payload", `{"v":"1.0","t":"end","i":` + id + `}`},
	{"unsubscribe", `{"v":"1.0","t":"unsub","s":` + sub + `}`},
	{"pong", `{"v":"1.0","t":"pong","ts":1700000000001}`},
	{"hello", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"com.example.app"}`},
	{"hello-features", `{"v":"1.0","t":"hello","versions":["1.0","1.1"],"deviceId":"cd1_ffffffffffffffffffffffffffffffff","appId":"a","features":["chunks","events"]}`},
	{"hello-ok", `{"v":"1.0","t":"hello_ok","version":"1.0","features":["chunks"]}`},
	{"bye", `{"v":"1.0","t":"bye"}`},
	{"bye-with-reason", `{"v":"1.0","t":"bye","code":"session_expired","reason":"idle"}`},

	// Key order: the reference sorts by UTF-16 code units, not code points.
	{"keys-utf16-order", `{"v":"1.0","t":"req","i":` + id + `,"m":"echo","p":{"\ufb33":1,"\ud83d\ude02":2,"\ue000":3,"\ud800\udc00":4}}`},
	{"keys-ascii-order", `{"v":"1.0","t":"req","i":` + id + `,"m":"echo","p":{"b":1,"a":2,"B":3,"A":4,"10":5,"9":6,"":7}}`},
	{"keys-nested", `{"v":"1.0","t":"res","i":` + id + `,"p":{"z":{"y":[{"b":0,"a":0}],"x":null},"a":{"d":false,"c":true}}}`},
	{"keys-escaped", `{"\u0076":"1.0","\u0074":"ping","ts":3}`},
	{"keys-non-ascii", `{"v":"1.0","t":"res","i":` + id + `,"p":{"ключ":"значение","キー":"値","é":"e"}}`},
	{"keys-proto", `{"v":"1.0","t":"res","i":` + id + `,"p":{"__proto__":{"b":1,"a":2},"a":1}}`},
	{"hello-app-astral", `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat(`\ud83d\ude00`, 128) + `"}`},

	// Numbers: ECMAScript Number::toString across its boundaries.
	{"numbers-es6", `{"v":"1.0","t":"res","i":` + id + `,"p":{"a":1E21,"b":1e-7,"c":0.000001,"d":5e-324,"e":-0,"f":1.0,"g":1.7976931348623157e308,"h":9007199254740993,"i":0.1,"j":123456789012345678901,"k":1e20,"l":-1.5E-10,"m":0.30000000000000004,"n":999999999999999900000,"o":1e+6,"p":-0.0000033333333333333333}}`},
	{"numbers-integers", `{"v":"1.0","t":"res","i":` + id + `,"p":[0,-1,1700000000000,9007199254740991,-9007199254740991,42]}`},
	{"numbers-ping-exponent", `{"v":"1.0","t":"ping","ts":1.7E12}`},
	// Underflow is not refused: JSON.parse reads 1e-400 as 0 (and -1e-400 as
	// -0), a finite number, which String writes as 0. Around the smallest
	// subnormal, 5e-324, half of it rounds to even (0) and anything above to
	// it; a zero mantissa is 0 whatever its exponent.
	{"numbers-underflow", `{"v":"1.0","t":"res","i":` + id + `,"p":{"a":1e-400,"b":-1e-400,"c":2e-324,"d":3e-324,"e":2.4703282292062327e-324,"f":2.4703282292062328e-324,"g":0e400,"h":-0E+999,"i":1E-324}}`},
	// Just inside the double range: below the halfway point between the
	// largest double and 2^1024 everything rounds to the largest double, and
	// a mantissa and exponent that are each out of reach can meet within it.
	{"numbers-near-overflow", `{"v":"1.0","t":"res","i":` + id + `,"p":[1.7976931348623158e308,` + halfway[:len(halfway)-1] + `1,-1.7976931348623158E+308,10e307,0.0001e312]}`},

	// Strings: JSON.stringify's escapes, all else raw, lone surrogates as \udxxx.
	{"strings-escapes", `{"v":"1.0","t":"res","i":` + id + `,"p":{"s":"\"\\\/\b\f\n\r\t\u0000\u001F\u007f\u2028\u2029<>&\u00e9\ud83d\ude02"}}`},
	{"strings-lone-surrogates", `{"v":"1.0","t":"res","i":` + id + `,"p":{"hi":"\ud800","lo":"x\udc00y","k\udbff":1,"rev":"\ude02\ud83d"}}`},
	{"strings-raw-unicode", `{"v":"1.0","t":"evt","s":` + sub + `,"e":"chat.message","p":{"text":"こんにちは 🌍 ÿ\uffff"}}`},

	// Nesting: the deepest value at depth 64 is allowed (65 is invalid_message).
	{"depth-64", `{"v":"1.0","t":"req","i":` + id + `,"m":"echo","p":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`},
}

// halfway is the 309-digit integer halfway between the largest double and
// 2^1024: it rounds to even, which is 2^1024, so it is Infinity; one less
// is the largest double.
const halfway = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"

// refusals are values canonicalJson must refuse: a number that JSON.parse
// reads as Infinity or -Infinity, in every position a message can hold one,
// and every way its lexeme can get there. The text is written into the file
// as a JSON string, so its lexemes survive any reader of the file.
var refusals = []struct{ name, doc, text string }{
	{"ping-ts", "a ping whose ts, a member of the message itself, is 1e400", `{"v":"1.0","t":"ping","ts":1e400}`},
	{"nested", "1e400 nested in objects and an array in a response's payload", `{"v":"1.0","t":"res","i":` + id + `,"p":{"a":{"b":[{"c":1e400}]}}}`},
	{"array", "1e400 among finite numbers in a chunk's array", `{"v":"1.0","t":"chunk","i":` + id + `,"n":0,"d":[1,2,1e400,4]}`},
	{"negative", "-1e400, which is -Infinity, in an event's payload", `{"v":"1.0","t":"evt","s":` + sub + `,"e":"tasks.status","p":{"pct":-1e400}}`},
	{"exponent-309", "1e309, the first power of ten beyond double range", `{"v":"1.0","t":"res","i":` + id + `,"p":{"x":1e309}}`},
	{"exponent-uppercase-plus", "1E+400, an upper-case E with a plus sign", `{"v":"1.0","t":"res","i":` + id + `,"p":{"x":1E+400}}`},
	{"negative-uppercase", "-1E400 in a request's params", `{"v":"1.0","t":"req","i":` + id + `,"m":"echo","p":[-1E400]}`},
	{"unknown-member", "1e400 in a member the validator does not know, which decodeMessage keeps", `{"v":"1.0","t":"bye","x-extra":1e400}`},
	{"top-level", "the number 1e400 on its own", `1e400`},
	{"integer-halfway", "the 309-digit integer halfway between the largest double and 2^1024, which rounds to even: to 2^1024, Infinity", `{"v":"1.0","t":"res","i":` + id + `,"p":` + halfway + `}`},
	{"mantissa-last-digit", "1.7976931348623159e308: the largest double's 17 digits with the last raised, past the halfway point", `{"v":"1.0","t":"res","i":` + id + `,"p":1.7976931348623159e308}`},
	{"mantissa-carries", "1000e306: an exponent within range whose mantissa carries it to 1e309", `{"v":"1.0","t":"res","i":` + id + `,"p":[1000e306]}`},
	{"fraction-exponent", "0.1e310, a fraction under an exponent beyond range: 1e309", `{"v":"1.0","t":"res","i":` + id + `,"p":[0.1e310]}`},
	{"long-mantissa", "a 400-digit number with a fraction and no exponent, 2e308 and a little", `{"v":"1.0","t":"res","i":` + id + `,"p":2` + strings.Repeat("0", 308) + `.` + strings.Repeat("0", 90) + `1}`},
}

// decodes are payloads that are not canonical but must decode.
var decodes = []struct{ name, doc, utf8, hex string }{
	{name: "whitespace", doc: "insignificant whitespace is allowed", utf8: "{ \"v\" : \"1.0\" ,\n\t\"t\" : \"ping\" , \"ts\" : 1 }\r\n"},
	{name: "duplicate-keys-last-wins", doc: "duplicate keys are accepted and the last one wins, as JSON.parse does", utf8: `{"v":"1.0","t":"ping","ts":1,"ts":2}`},
	{name: "duplicate-type-last-wins", doc: "a duplicate t: the last one decides the kind", utf8: `{"v":"1.0","t":"bogus","t":"bye"}`},
	{name: "unknown-members", doc: "members the validator does not know are kept", utf8: `{"v":"1.0","t":"bye","x-extra":{"a":[1]}}`},
	{name: "escaped-keys", doc: "keys are compared after unescaping", utf8: `{"\u0076":"1.0","\u0074":"ping","ts":1}`},
	{name: "number-exponent", doc: "1.7E12 is the integer 1700000000000", utf8: `{"v":"1.0","t":"ping","ts":1.7E12}`},
	{name: "chunk-index-float", doc: "n = 2.0 is an integer (Number.isInteger)", utf8: `{"v":"1.0","t":"chunk","i":"AAAAAAAAAAAAAAAA","n":2.0,"d":null}`},
	{name: "lone-surrogate-escape", doc: `an escaped lone surrogate decodes and is written back as \udxxx`, utf8: `{"v":"1.0","t":"bye","reason":"\ud800"}`},
	{name: "utf8-bom", doc: "a leading UTF-8 BOM is dropped, as TextDecoder does by default", hex: "efbbbf" + hex.EncodeToString([]byte(`{"v":"1.0","t":"bye"}`))},
	{name: "duplicate-version-last-wins", doc: "of two v members the last wins: 99 then 1.0 is version 1.0", utf8: `{"v":"99","v":"1.0","t":"bye"}`},
	{name: "chunk-index-exponent", doc: "n = 1E2 is the integer 100 (Number.isInteger), though not an integer lexeme", utf8: `{"v":"1.0","t":"chunk","i":"AAAAAAAAAAAAAAAA","n":1E2,"d":null}`},
	{name: "app-id-256-units", doc: "an appId of 128 astral characters is 256 UTF-16 code units, the most allowed (512 UTF-8 bytes)", utf8: `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat("😀", 128) + `"}`},
	{name: "app-id-86-lone-surrogates", doc: "an appId of 86 lone surrogate escapes is 86 UTF-16 code units (String.length), though its escapes decode to 258 bytes of generalised UTF-8", utf8: `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat(`\ud800`, 86) + `"}`},
	{name: "app-id-256-lone-surrogates", doc: "an appId of 256 lone surrogate escapes is 256 UTF-16 code units, the most allowed", utf8: `{"v":"1.0","t":"hello","versions":["1.0"],"deviceId":"cd1_0123456789abcdef0123456789abcdef","appId":"` + strings.Repeat(`\udc00`, 256) + `"}`},
}

// limits are the frame-size cases.
var limits = []struct {
	Name         string `json:"name"`
	PayloadBytes int    `json:"payload_bytes"`
	Error        string `json:"error,omitempty"`
	Doc          string `json:"doc"`
}{
	{"small", 200, "", "encodeFrame of a 200-byte payload"},
	{"over-1mib", 1<<20 + 1, "", "encodeFrame of a payload just over 1 MiB (PROTOCOL.md's limit; the reference's is 4 MiB)"},
	{"at-max", 4 << 20, "", "encodeFrame of a payload of exactly 4 MiB, the reference's maximum"},
	{"over-max", 4<<20 + 1, "payload_too_large", "encodeFrame of a payload one byte over 4 MiB is payload_too_large"},
}

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var cases []string
	for _, m := range messages {
		v, err := xl.ParseValue([]byte(m.obj))
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		canonical, err := xl.Canonical(v)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		frame, err := xl.EncodeFrame(v, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		if err := roundTrip(canonical, canonical); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		cases = append(cases, fmt.Sprintf(`{"name":%s,"obj":%s,"canonical":%s,"frame_hex":%s}`,
			quote(m.name), m.obj, quote(string(canonical)), quote(hex.EncodeToString(frame))))
	}
	if err := write(dir, "messages-v1.json", `{"version":1,"generated_by":"referee protocols/crosslink (suites/crosslink/gen)","cases":[`+strings.Join(cases, ",")+`]}`); err != nil {
		return err
	}

	var dcases []string
	for _, d := range decodes {
		payload := []byte(d.utf8)
		field := `"utf8":` + quote(d.utf8)
		if d.hex != "" {
			payload, _ = hex.DecodeString(d.hex)
			field = `"hex":` + quote(d.hex)
		}
		v, err := xl.DecodeMessage(payload)
		if err != nil {
			return fmt.Errorf("decode case %s: %w", d.name, err)
		}
		canonical, err := xl.Canonical(v)
		if err != nil {
			return fmt.Errorf("decode case %s: %w", d.name, err)
		}
		dcases = append(dcases, fmt.Sprintf(`{"name":%s,"doc":%s,%s,"canonical":%s}`, quote(d.name), quote(d.doc), field, quote(string(canonical))))
	}
	if err := write(dir, "decode-v1.json", `{"version":1,"cases":[`+strings.Join(dcases, ",")+`]}`); err != nil {
		return err
	}

	lim, _ := json.Marshal(map[string]any{"version": 1, "cases": limits})
	if err := write(dir, "limits-v1.json", string(lim)); err != nil {
		return err
	}

	var rcases []string
	for _, r := range refusals {
		if err := refused([]byte(r.text)); err != nil {
			return fmt.Errorf("refuse case %s: %w", r.name, err)
		}
		rcases = append(rcases, fmt.Sprintf(`{"name":%s,"doc":%s,"value_text":%s}`, quote(r.name), quote(r.doc), quote(r.text)))
	}
	if err := write(dir, "refuse-v1.json", `{"version":1,"cases":[`+strings.Join(rcases, ",")+`]}`); err != nil {
		return err
	}
	if err := checkInvalid(dir); err != nil {
		return err
	}
	_, err := corpus.Lock(dir, corpus.DefaultMaxFileSize)
	return err
}

// roundTrip requires the reference to decode payload to canonical JSON want.
func roundTrip(payload, want []byte) error {
	v, err := xl.DecodeMessage(payload)
	if err != nil {
		return err
	}
	got, err := xl.Canonical(v)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("decodes to %s, not %s", got, want)
	}
	return nil
}

// refused requires the reference to read text and to refuse to write it,
// as canonicalJson and encodeFrame, for a number beyond double range and
// with no Crosslink code, as the TypeScript reference's TypeError has none.
func refused(text []byte) error {
	v, err := xl.ParseValue(text)
	if err != nil {
		return err
	}
	if out, err := xl.Canonical(v); err == nil {
		return fmt.Errorf("the reference writes it: %s", out)
	} else if !errors.Is(err, canon.ErrNumberRange) {
		return fmt.Errorf("the reference refuses it for another reason: %w", err)
	}
	_, err = xl.EncodeFrame(v, 0)
	var xe *xl.Error
	if err == nil || errors.As(err, &xe) {
		return fmt.Errorf("encodeFrame gives %v, not canonicalJson's error", err)
	}
	return nil
}

// checkInvalid requires every hand-curated negative case to be rejected by the
// reference with its listed code.
func checkInvalid(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "invalid-v1.json"))
	if err != nil {
		return err
	}
	var doc struct {
		Cases []struct {
			Name  string  `json:"name"`
			UTF8  *string `json:"utf8"`
			Hex   *string `json:"hex"`
			Error string  `json:"error"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("invalid-v1.json: %w", err)
	}
	for _, c := range doc.Cases {
		var payload []byte
		if c.UTF8 != nil {
			payload = []byte(*c.UTF8)
		} else if c.Hex != nil {
			payload, _ = hex.DecodeString(*c.Hex)
		}
		_, err := xl.DecodeMessage(payload)
		var xe *xl.Error
		if !errors.As(err, &xe) || xe.Code != c.Error {
			return fmt.Errorf("invalid-v1.json: %s: the reference gives %v, the case says %s", c.Name, err, c.Error)
		}
	}
	return nil
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// write indents compact JSON text (tokens kept as they are) into dir/name.
func write(dir, name, compact string) error {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), "", "  "); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	b.WriteByte('\n')
	return os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644)
}
