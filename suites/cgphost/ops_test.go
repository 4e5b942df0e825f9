package cgphost_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/refereehq/referee/suites/cgphost"
)

// composeSchema compiles one of the compose op's declared schemas ("args",
// "ok" or "err"), as docs/suites/cgp-host.ops.json holds them.
func composeSchema(t *testing.T, part string) *jsonschema.Schema {
	t.Helper()
	ops, err := cgphost.Definition.OpList()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		if o.Name != cgphost.OpCompose {
			continue
		}
		text := map[string]json.RawMessage{"args": o.Args, "ok": o.OK, "err": o.Err}[part]
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("compose %s: %v", part, err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///cgp-host/compose/"+part+".json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("mem:///cgp-host/compose/" + part + ".json")
		if err != nil {
			t.Fatalf("compose %s: %v", part, err)
		}
		return s
	}
	t.Fatalf("cgp-host declares no %s op", cgphost.OpCompose)
	return nil
}
