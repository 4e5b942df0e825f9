package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/refereehq/referee/canon"
)

// DecodeJSON decodes a corpus file into v strictly: the text must be one
// valid JSON value with no duplicate keys, every member must be a field of
// v, and no string decoded into a Go value may hold a lone surrogate escape
// (encoding/json would read U+FFFD; a json.RawMessage keeps it). Errors
// give the line and column, or the JSON Pointer of the string.
func DecodeJSON(raw []byte, v any) error {
	parsed, err := canon.Parse(raw, canon.ReadOptions{})
	if err != nil {
		var se *canon.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("line %s: %w", lineCol(raw, se.Offset), err)
		}
		return err
	}
	if parsed.HoldsLoneSurrogate() {
		if ptr, ok := replaced(parsed, reflect.TypeOf(v), ""); ok {
			return fmt.Errorf("at %s: a lone surrogate escape (\\ud800 to \\udfff without its pair), which would be read as U+FFFD, not as written: to keep the escape as text, write its backslash as \\\\ (\\\\ud800)", ptr)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err = dec.Decode(v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("line %s: %w", lineCol(raw, te.Offset), err)
	}
	return err
}

// replaced returns the JSON Pointer of a string or member name of v that
// holds a lone surrogate where encoding/json decodes it into a value of
// type t (a Go string, or inside an interface or map), which replaces the
// surrogate with U+FFFD; ok is false when every lone surrogate lands in a
// json.RawMessage, which keeps the bytes as written.
func replaced(v canon.Value, t reflect.Type, ptr string) (string, bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[json.RawMessage]():
		return "", false
	case t != nil && t.Kind() == reflect.Struct && v.Kind == canon.Object:
		for _, m := range v.Members {
			f, ok := fieldOf(t, m.Key)
			if !ok {
				continue // an unknown member is an error of its own
			}
			if p, ok := replaced(m.Value, f.Type, ptr+"/"+canon.PointerToken(m.Key)); ok {
				return p, true
			}
		}
		return "", false
	case t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && v.Kind == canon.Array:
		for i, e := range v.Elems {
			if p, ok := replaced(e, t.Elem(), fmt.Sprintf("%s/%d", ptr, i)); ok {
				return p, true
			}
		}
		return "", false
	case t != nil && t.Kind() == reflect.Map && v.Kind == canon.Object:
		for _, m := range v.Members {
			mp := ptr + "/" + canon.PointerToken(m.Key)
			if canon.HasLoneSurrogate(m.Key) {
				return mp, true
			}
			if p, ok := replaced(m.Value, t.Elem(), mp); ok {
				return p, true
			}
		}
		return "", false
	}
	// A string, or anything encoding/json decodes whole (an interface).
	if v.HoldsLoneSurrogate() {
		return ptr, true
	}
	return "", false
}

// fieldOf finds the field of struct type t that encoding/json fills from
// a member named key: its exact JSON name, else one equal under case
// folding.
func fieldOf(t reflect.Type, key string) (reflect.StructField, bool) {
	var folded reflect.StructField
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f, true
		}
		if !found && strings.EqualFold(name, key) {
			folded, found = f, true
		}
	}
	return folded, found
}

// lineCol renders a byte offset as line:column, both from 1.
func lineCol(raw []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(raw)))
	before := raw[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}
