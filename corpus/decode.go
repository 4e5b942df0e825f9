package corpus

import (
	"bytes"
	"encoding/json"

	"github.com/refereehq/referee/canon"
)

// DecodeJSON decodes a corpus file into v strictly: the text must be one
// valid JSON value with no duplicate keys, and every member must be a field of v.
func DecodeJSON(raw []byte, v any) error {
	if _, err := canon.Parse(raw, canon.ReadOptions{}); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	return dec.Decode(v)
}
