package corpus

import (
	"bytes"
	"encoding/json"

	"github.com/refereehq/referee/canon"
)

// FuzzProvenanceFormat is the format of the member "fuzz" of the manifest
// of a corpus that `referee fuzz --out` wrote: how its vectors were found.
const FuzzProvenanceFormat = "referee-fuzz/1"

// FuzzProvenanceKey is the name of that member.
const FuzzProvenanceKey = "fuzz"

// FuzzFoundNothing reports whether m is the manifest of a corpus that
// `referee fuzz --out` wrote when it found nothing to write: its fuzz
// member, of format FuzzProvenanceFormat, lists no vector.
func (m *Manifest) FuzzFoundNothing() bool {
	for _, mem := range m.Meta {
		if mem.Key != FuzzProvenanceKey {
			continue
		}
		format, _ := mem.Value.Lookup("format")
		vectors, ok := mem.Value.Lookup("vectors")
		return format.Kind == canon.String && format.Str == FuzzProvenanceFormat && ok && vectors.Kind == canon.Array && len(vectors.Elems) == 0
	}
	return false
}

// MarshalJSON renders v as a corpus file: JSON indented by two spaces,
// with <, > and & as they are, ending in a newline.
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
