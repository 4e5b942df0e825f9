package cdc

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestReferenceSchemaError holds Reference to reporting schemas that do not
// compile, in every mode: the modes that read patterns in another dialect
// compile their own rewritten copy of the schemas, and must not drop its error.
func TestReferenceSchemaError(t *testing.T) {
	for _, mode := range []string{"", "python-re", "re2-classes"} {
		t.Run("mode="+mode, func(t *testing.T) {
			cp := &Corpus{
				Name:   "broken-schemas",
				FS:     fstest.MapFS{"schemas/agent-lease.schema.json": {Data: []byte(`{"$ref": "missing.schema.json"}`)}},
				Shapes: []string{"agent-lease"},
			}
			_, err := Reference(cp, mode)
			if err == nil || !strings.Contains(err.Error(), "compiling agent-lease") {
				t.Fatalf("Reference(%q) error = %v, want the schema's compile error", mode, err)
			}
		})
	}
}
