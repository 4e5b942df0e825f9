package fablepool

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
)

// Mutation is one step of a scenario's script, applied to the signed op.
type Mutation struct {
	Op    string          `json:"op"`              // "set", "delete" or "recompute_id"
	Path  string          `json:"path,omitempty"`  // dotted; an all-digit segment indexes an array
	Value json.RawMessage `json:"value,omitempty"` // for set, as JSON text (lexemes kept)
}

// Apply applies muts in order to a deep copy of op. recomputeID returns the id
// of a body; it is the runner's own, for recompute_id.
func Apply(op canon.Value, muts []Mutation, recomputeID func(body canon.Value) (string, error)) (canon.Value, error) {
	out := clone(op)
	for i, m := range muts {
		var err error
		switch m.Op {
		case "set":
			var v canon.Value
			v, err = canon.Parse(m.Value, canon.ReadOptions{})
			if err == nil {
				err = set(&out, strings.Split(m.Path, "."), v)
			}
		case "delete":
			err = del(&out, strings.Split(m.Path, "."))
		case "recompute_id":
			var body canon.Value
			body.Kind = canon.Object
			for _, mem := range out.Members {
				if mem.Key != "id" && mem.Key != "sig" {
					body.Members = append(body.Members, mem)
				}
			}
			var id string
			id, err = recomputeID(body)
			if err == nil {
				err = set(&out, []string{"id"}, canon.Value{Kind: canon.String, Str: id})
			}
		default:
			err = fmt.Errorf("unknown mutation op %q", m.Op)
		}
		if err != nil {
			return canon.Value{}, fmt.Errorf("mutation %d (%s %s): %w", i, m.Op, m.Path, err)
		}
	}
	return out, nil
}

func clone(v canon.Value) canon.Value {
	c := v
	if v.Elems != nil {
		c.Elems = make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			c.Elems[i] = clone(e)
		}
	}
	if v.Members != nil {
		c.Members = make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = canon.Member{Key: m.Key, Value: clone(m.Value)}
		}
	}
	return c
}

// child returns a pointer to the member or element named seg of v.
func child(v *canon.Value, seg string, create bool) (*canon.Value, error) {
	switch v.Kind {
	case canon.Object:
		for i := range v.Members {
			if v.Members[i].Key == seg {
				return &v.Members[i].Value, nil
			}
		}
		if !create {
			return nil, fmt.Errorf("no member %q", seg)
		}
		v.Members = append(v.Members, canon.Member{Key: seg})
		return &v.Members[len(v.Members)-1].Value, nil
	case canon.Array:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(v.Elems) {
			return nil, fmt.Errorf("no element %q", seg)
		}
		return &v.Elems[i], nil
	}
	return nil, fmt.Errorf("%q: not an object or array", seg)
}

func set(root *canon.Value, path []string, v canon.Value) error {
	cur := root
	for i, seg := range path {
		next, err := child(cur, seg, i == len(path)-1)
		if err != nil {
			return err
		}
		cur = next
	}
	*cur = v
	return nil
}

func del(root *canon.Value, path []string) error {
	cur := root
	for _, seg := range path[:len(path)-1] {
		next, err := child(cur, seg, false)
		if err != nil {
			return err
		}
		cur = next
	}
	last := path[len(path)-1]
	switch cur.Kind {
	case canon.Object:
		i := slices.IndexFunc(cur.Members, func(m canon.Member) bool { return m.Key == last })
		if i < 0 {
			return fmt.Errorf("no member %q", last)
		}
		cur.Members = slices.Delete(cur.Members, i, i+1)
		return nil
	case canon.Array:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(cur.Elems) {
			return fmt.Errorf("no element %q", last)
		}
		cur.Elems = slices.Delete(cur.Elems, i, i+1)
		return nil
	}
	return fmt.Errorf("%q: not an object or array", last)
}
