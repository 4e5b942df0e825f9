package cdc

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/draft7"
)

// Validator validates values against the contract's schemas.
type Validator struct {
	schemas map[string]*draft7.Schema
	shapes  []string
}

// SchemaError is one place a value broke a schema.
type SchemaError struct {
	InstancePath string `json:"instancePath"` // JSON Pointer; "" at the root
	Keyword      string `json:"keyword"`
	// Message says why when the keyword could not be decided (a pattern
	// whose match ran out of its step budget), as Ajv's errors carry one.
	Message string `json:"message,omitempty"`
}

// NewValidator compiles every schemas/<shape>.schema.json in fsys (draft-07,
// ECMA-262 patterns, formats asserted). A $ref may name any schema of the
// corpus: nothing is fetched.
func NewValidator(fsys fs.FS) (*Validator, error) {
	files, err := fs.Glob(fsys, "schemas/*.schema.json")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("cdc: no schemas/*.schema.json")
	}
	sort.Strings(files)
	c := draft7.NewCompiler()
	names := map[string]string{}
	for _, f := range files {
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		if err := c.AddDocument(f, raw); err != nil {
			return nil, fmt.Errorf("cdc: %w", err)
		}
		names[strings.TrimSuffix(path.Base(f), ".schema.json")] = f
	}
	v := &Validator{schemas: map[string]*draft7.Schema{}}
	for _, shape := range Shapes {
		f, ok := names[shape]
		if !ok {
			continue
		}
		s, err := c.Compile(f)
		if err != nil {
			return nil, fmt.Errorf("cdc: compiling %s: %w", shape, err)
		}
		v.schemas[shape] = s
		v.shapes = append(v.shapes, shape)
	}
	return v, nil
}

// Shapes returns the shapes the corpus has schemas for, in match order.
func (v *Validator) Shapes() []string { return v.shapes }

// Validate reports whether value is a valid shape, with every schema error
// (instance path and keyword, as Ajv reports them) when it is not.
func (v *Validator) Validate(shape string, value canon.Value) (bool, []SchemaError, error) {
	s, ok := v.schemas[shape]
	if !ok {
		return false, nil, fmt.Errorf("cdc: unknown shape %q", shape)
	}
	errs := s.Validate(value)
	out := make([]SchemaError, len(errs))
	for i, e := range errs {
		out[i] = SchemaError{InstancePath: e.InstancePath, Keyword: e.Keyword, Message: e.Message}
	}
	return len(errs) == 0, out, nil
}
