package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Op is one op a suite sends to a referee-adapter/1 adapter, as data: what
// it does, and JSON Schemas (2020-12) for its args, its ok value and the
// err object of its err reply.
type Op struct {
	Name string
	Doc  string
	Args json.RawMessage
	OK   json.RawMessage
	Err  json.RawMessage
}

// OpsDocument is what `referee list SUITE --ops --format json` prints and
// docs/suites/SUITE.ops.json holds: a suite's ops by name.
type OpsDocument struct {
	Suite string            `json:"suite"`
	Ops   map[string]OpJSON `json:"ops"`
}

// OpJSON is one op in an OpsDocument.
type OpJSON struct {
	Doc  string          `json:"doc"`
	Args json.RawMessage `json:"args"`
	OK   json.RawMessage `json:"ok"`
	Err  json.RawMessage `json:"err"`
}

// OpsFrom returns a Definition.Ops reading data, a JSON object of OpJSON
// by op name (a suite's embedded ops.json); the ops come in name order.
func OpsFrom(data []byte) func() ([]Op, error) {
	return func() ([]Op, error) {
		var byName map[string]OpJSON
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&byName); err != nil {
			return nil, fmt.Errorf("ops: %w", err)
		}
		ops := make([]Op, 0, len(byName))
		for name, o := range byName {
			for what, s := range map[string]json.RawMessage{"args": o.Args, "ok": o.OK, "err": o.Err} {
				if len(s) == 0 {
					return nil, fmt.Errorf("ops: %s has no %s schema", name, what)
				}
			}
			if o.Doc == "" {
				return nil, fmt.Errorf("ops: %s has no doc", name)
			}
			ops = append(ops, Op{Name: name, Doc: o.Doc, Args: o.Args, OK: o.OK, Err: o.Err})
		}
		slices.SortFunc(ops, func(a, b Op) int { return strings.Compare(a.Name, b.Name) })
		return ops, nil
	}
}

// OpList returns d's ops; none when it declares no Ops.
func (d *Definition) OpList() ([]Op, error) {
	if d.Ops == nil {
		return nil, nil
	}
	ops, err := d.Ops()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	return ops, nil
}

// OpsJSON renders d's ops as an OpsDocument, indented, with a final newline.
func (d *Definition) OpsJSON() ([]byte, error) {
	ops, err := d.OpList()
	if err != nil {
		return nil, err
	}
	doc := OpsDocument{Suite: d.Name, Ops: map[string]OpJSON{}}
	for _, o := range ops {
		doc.Ops[o.Name] = OpJSON{Doc: o.Doc, Args: o.Args, OK: o.OK, Err: o.Err}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // the schemas' prose holds <frame> and &
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("%s: ops: %w", d.Name, err)
	}
	return out.Bytes(), nil
}

// ArgsLine says in one line, for a person, what args o takes: each member
// of its args schema with its type, "?" after those not required
// ("value_text: string"), and "a: T | b: U" for members of which exactly
// one is given.
func (o Op) ArgsLine() string {
	var s map[string]json.RawMessage
	if json.Unmarshal(o.Args, &s) != nil {
		return "?"
	}
	var props map[string]json.RawMessage
	var required []string
	_ = json.Unmarshal(s["properties"], &props) // absent: no members
	_ = json.Unmarshal(s["required"], &required)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	// Required members first, each group in name order.
	slices.SortFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(required, a), slices.Contains(required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	// Members of which exactly one is required (oneOf, each alternative
	// requiring one) are written together: "input: any | input_text: string".
	var alts []struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(s["oneOf"], &alts)
	var either []string
	for _, a := range alts {
		if len(a.Required) != 1 {
			either = nil
			break
		}
		either = append(either, a.Required[0])
	}
	parts := make([]string, 0, len(names))
	eitherDone := false
	for _, n := range names {
		if slices.Contains(either, n) {
			if !eitherDone {
				words := make([]string, len(either))
				for i, e := range either {
					words[i] = e + ": " + typeOf(props[e])
				}
				parts = append(parts, strings.Join(words, " | "))
				eitherDone = true
			}
			continue
		}
		mark := "?"
		if slices.Contains(required, n) {
			mark = ""
		}
		parts = append(parts, n+mark+": "+typeOf(props[n]))
	}
	if len(parts) == 0 {
		return "{}"
	}
	return strings.Join(parts, ", ")
}

// typeOf names the type a schema allows, briefly: "string", "integer",
// "a|b" for an enum, "\"x\"" for a const, "array of string", "any".
func typeOf(schema json.RawMessage) string {
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return "any"
	}
	if c, ok := s["const"]; ok {
		return string(c)
	}
	if e, ok := s["enum"]; ok {
		var vals []json.RawMessage
		_ = json.Unmarshal(e, &vals)
		words := make([]string, len(vals))
		for i, v := range vals {
			words[i] = string(v)
		}
		return strings.Join(words, "|")
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[k]; ok {
			var list []json.RawMessage
			_ = json.Unmarshal(alts, &list)
			words := make([]string, len(list))
			for i, a := range list {
				words[i] = typeOf(a)
			}
			return strings.Join(words, " | ")
		}
	}
	var t any
	_ = json.Unmarshal(s["type"], &t)
	switch t := t.(type) {
	case string:
		if t == "array" {
			if items, ok := s["items"]; ok {
				return "array of " + typeOf(items)
			}
		}
		return t
	case []any:
		words := make([]string, 0, len(t))
		for _, w := range t {
			words = append(words, fmt.Sprint(w))
		}
		return strings.Join(words, "|")
	}
	if ref, ok := s["$ref"]; ok {
		var r string
		_ = json.Unmarshal(ref, &r)
		return r[strings.LastIndex(r, "/")+1:]
	}
	return "any"
}
