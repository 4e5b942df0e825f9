package check

import (
	"strings"
	"testing"
)

func TestArgsLine(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"value_text":{"type":"string"}},"required":["value_text"]}`, "value_text: string"},
		{`{"type":"object","properties":{"b":{"type":"integer"},"a":{"enum":["x","y"]},"c":{}},"required":["b"]}`, `b: integer, a?: "x"|"y", c?: any`},
		{`{"type":"object","properties":{"input":{},"input_text":{"type":"string"},"seed":{"type":"string"}},"required":["seed"],"oneOf":[{"required":["input"]},{"required":["input_text"]}]}`, "seed: string, input: any | input_text: string"},
		{`{"type":"object","properties":{"leaves":{"type":"array","items":{"type":"string"}},"p":{"$ref":"#/$defs/provider"}}}`, "leaves?: array of string, p?: provider"},
		{`{"type":"object"}`, "{}"},
	} {
		if got := (Op{Args: []byte(tc.schema)}).ArgsLine(); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.schema, got, tc.want)
		}
	}
}

func TestOpsFromRefuses(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"a":{"doc":"d","args":{},"ok":true}}`, "a has no err schema"},
		{`{"a":{"args":{},"ok":true,"err":true}}`, "a has no doc"},
		{`{"a":{"doc":"d","args":{},"ok":true,"err":true,"extra":1}}`, "unknown field"},
		{`[`, "ops:"},
	} {
		_, err := OpsFrom([]byte(tc.data))()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.data, err, tc.want)
		}
	}
	ops, err := OpsFrom([]byte(`{"b":{"doc":"d","args":{},"ok":true,"err":true},"a":{"doc":"d","args":{},"ok":true,"err":true}}`))()
	if err != nil || len(ops) != 2 || ops[0].Name != "a" || ops[1].Name != "b" {
		t.Errorf("ops %v, %v: want a then b", ops, err)
	}
}
