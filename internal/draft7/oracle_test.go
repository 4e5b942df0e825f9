package draft7

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// formatDifferences are the strings on which the format checks knowingly
// differ from the validator referee used before this package
// (santhosh-tekuri/jsonschema/v6, which asserted formats for draft-07):
// there it was wrong by the format's own text.
var formatDifferences = map[string]string{
	"email @example.com":        "RFC 5321: a local part has at least one character",
	"ipv4 +1.2.3.4":             "a dotted quad has digits only (v6 read each part with strconv.Atoi, which takes a sign)",
	"uri-template /a/{b}{?c,d}": "RFC 6570: a query expansion is an expression (v6 read the ? as the query's start, leaving an open brace in the path)",
}

// TestFormatsMatchOracle compares each asserted format with the earlier
// validator's on the strings of formatCases.
func TestFormatsMatchOracle(t *testing.T) {
	for name, tc := range formatCases {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft7)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"format": ` + strconv.Quote(name) + `}`)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("file:///format.json", doc); err != nil {
			t.Fatal(err)
		}
		oracle, err := c.Compile("file:///format.json")
		if err != nil {
			t.Fatal(err)
		}
		check := formatCheck(name)
		for _, s := range append(append([]string{}, tc.valid...), tc.invalid...) {
			mine, theirs := check(s), oracle.Validate(s) == nil
			if why, known := formatDifferences[name+" "+s]; known {
				if mine == theirs {
					t.Errorf("%s %q: listed as a difference (%s), but both say %v", name, s, why, mine)
				}
				continue
			}
			if mine != theirs {
				t.Errorf("format %s, %q: valid %v, the earlier validator %v", name, s, mine, theirs)
			}
		}
	}
}
