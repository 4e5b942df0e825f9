package corpus

import (
	"bytes"
	"encoding/json"
)

// FuzzProvenanceFormat is the format of the member "fuzz" of the manifest
// of a corpus that `referee fuzz --out` wrote: how its vectors were found.
const FuzzProvenanceFormat = "referee-fuzz/1"

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
