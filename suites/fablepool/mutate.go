package fablepool

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/termsafe"
)

// Mutation is one step of a scenario's script, applied to the signed op.
type Mutation struct {
	Op    string          `json:"op"`              // "set", "delete", "duplicate" or "recompute_id"
	Path  string          `json:"path,omitempty"`  // dotted; an all-digit segment indexes an array
	Value json.RawMessage `json:"value,omitempty"` // for set and duplicate, as JSON text (lexemes kept)
}

// Apply applies muts in order to a deep copy of op. recomputeID returns the id
// of a body; it is the runner's own, for recompute_id. A duplicate step
// appends to the object at the path's parent a second member of the path's
// last name: value, or a copy of the member's value when value is absent.
// The op then holds that name twice, which only its text can carry (set and
// delete act on the first member of a name).
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
		case "duplicate":
			err = duplicate(&out, strings.Split(m.Path, "."), m.Value)
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
			return canon.Value{}, fmt.Errorf("mutation %d (%s %s): %w", i, termsafe.Line(m.Op), termsafe.Line(m.Path), err)
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

func duplicate(root *canon.Value, path []string, value json.RawMessage) error {
	cur := root
	for _, seg := range path[:len(path)-1] {
		next, err := child(cur, seg, false)
		if err != nil {
			return err
		}
		cur = next
	}
	last := path[len(path)-1]
	if cur.Kind != canon.Object {
		return fmt.Errorf("%q: not an object", last)
	}
	var v canon.Value
	if len(value) > 0 {
		var err error
		if v, err = canon.Parse(value, canon.ReadOptions{}); err != nil {
			return err
		}
	} else {
		orig, err := child(cur, last, false)
		if err != nil {
			return err
		}
		v = clone(*orig)
	}
	cur.Members = append(cur.Members, canon.Member{Key: last, Value: v})
	return nil
}

// Respell writes v as JSON text with the same value and other bytes:
// members in reverse order at every level, a space around every
// structural character, and every character of every string escaped as
// \uXXXX. Numbers keep their lexemes, which carry their meaning here.
func Respell(v canon.Value) string {
	var b strings.Builder
	respell(&b, v)
	return b.String()
}

func respell(b *strings.Builder, v canon.Value) {
	str := func(s string) {
		b.WriteByte('"')
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 && i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 {
				// A lone surrogate, held as canon holds one: WTF-8.
				r, n = rune(0xD000|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F)), 3
			}
			units := []uint16{uint16(r)}
			if r > 0xFFFF {
				units = utf16.AppendRune(nil, r)
			}
			for _, u := range units {
				fmt.Fprintf(b, `\u%04x`, u)
			}
			i += n
		}
		b.WriteByte('"')
	}
	switch v.Kind {
	case canon.Object:
		b.WriteString("{ ")
		for i := len(v.Members) - 1; i >= 0; i-- {
			str(v.Members[i].Key)
			b.WriteString(" : ")
			respell(b, v.Members[i].Value)
			if i > 0 {
				b.WriteString(" , ")
			}
		}
		b.WriteString(" }")
	case canon.Array:
		b.WriteString("[ ")
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(" , ")
			}
			respell(b, e)
		}
		b.WriteString(" ]")
	case canon.String:
		str(v.Str)
	default:
		b.WriteString(v.String())
	}
}

// reversed returns v with its members in reverse order at every level, the
// value Respell writes.
func reversed(v canon.Value) canon.Value {
	out := v
	switch v.Kind {
	case canon.Object:
		out.Members = make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			out.Members[len(v.Members)-1-i] = canon.Member{Key: m.Key, Value: reversed(m.Value)}
		}
	case canon.Array:
		out.Elems = make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			out.Elems[i] = reversed(e)
		}
	}
	return out
}
