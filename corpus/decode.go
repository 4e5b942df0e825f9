package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/refereehq/referee/canon"
)

// DecodeJSON decodes a corpus file into v strictly: the text must be one
// valid JSON value with no duplicate keys, and every member must be a field
// of v. Errors give the line and column.
func DecodeJSON(raw []byte, v any) error {
	if _, err := canon.Parse(raw, canon.ReadOptions{}); err != nil {
		var se *canon.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("line %s: %w", lineCol(raw, se.Offset), err)
		}
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("line %s: %w", lineCol(raw, te.Offset), err)
	}
	return err
}

// lineCol renders a byte offset as line:column, both from 1.
func lineCol(raw []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(raw)))
	before := raw[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}
