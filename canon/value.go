package canon

import (
	"strconv"
	"strings"
)

// Kind is the type of a JSON value.
type Kind uint8

// The kinds of JSON value.
const (
	// Null is the JSON literal null.
	Null Kind = iota
	// Bool is true or false.
	Bool
	// Number is a JSON number.
	Number
	// String is a JSON string.
	String
	// Array is a JSON array.
	Array
	// Object is a JSON object.
	Object
)

// String returns the lower-case name of k.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "bool"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is a parsed JSON value that keeps number lexemes and member order.
type Value struct {
	Kind Kind
	// Bool is the value when Kind == Bool.
	Bool bool
	// Num is the lexeme exactly as in the source when Kind == Number,
	// e.g. "1.0", "-0", "1E30".
	Num string
	// Str is the decoded string when Kind == String. A lone surrogate from
	// an escape such as \uD800 is held in its 3-byte WTF-8 form
	// (ED A0..BF 80..BF).
	Str string
	// Elems are the elements when Kind == Array.
	Elems []Value
	// Members are the members when Kind == Object, in source order. With
	// LastWins there is one member per key, at the position of the key's
	// first occurrence, holding the value of its last.
	Members []Member
}

// Member is one name/value pair of a JSON object.
type Member struct {
	Key   string // decoded like Value.Str, so it may hold WTF-8 surrogates
	Value Value
}

// String returns v as compact JSON text in source order, with number
// lexemes as they are and lone surrogates escaped as \udxxx.
//
// It never fails: bytes that are not UTF-8 are written as \ufffd and a
// Kind outside the known ones as <invalid Kind(n)>.
func (v Value) String() string {
	e := encoder{source: true, p: Profile{Surrogates: EscapeSurrogates}}
	b, _ := e.run(nil, &v)
	return string(b)
}

// Equal reports whether a and b are the same JSON tree: same kinds, same
// booleans, identical number lexemes, identical strings, and the same
// elements and members in the same order. Fields that do not belong to a
// value's Kind are ignored, and a nil slice equals an empty one.
func Equal(a, b Value) bool {
	type pair struct{ x, y *Value }
	stack := []pair{{&a, &b}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := p.x, p.y
		if x.Kind != y.Kind {
			return false
		}
		switch x.Kind {
		case Bool:
			if x.Bool != y.Bool {
				return false
			}
		case Number:
			if x.Num != y.Num {
				return false
			}
		case String:
			if x.Str != y.Str {
				return false
			}
		case Array:
			if len(x.Elems) != len(y.Elems) {
				return false
			}
			if len(x.Elems) == 0 || &x.Elems[0] == &y.Elems[0] {
				continue
			}
			for i := len(x.Elems) - 1; i >= 0; i-- {
				stack = append(stack, pair{&x.Elems[i], &y.Elems[i]})
			}
		case Object:
			if len(x.Members) != len(y.Members) {
				return false
			}
			if len(x.Members) == 0 || &x.Members[0] == &y.Members[0] {
				continue
			}
			for i := len(x.Members) - 1; i >= 0; i-- {
				if x.Members[i].Key != y.Members[i].Key {
					return false
				}
				stack = append(stack, pair{&x.Members[i].Value, &y.Members[i].Value})
			}
		}
	}
	return true
}

// Lookup returns the value of the member named key of an object, and
// whether there is one; the first such member when keys repeat.
func (v Value) Lookup(key string) (Value, bool) {
	for _, m := range v.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return Value{}, false
}

// PointerToken is s as one token of an RFC 6901 JSON Pointer: ~ written
// ~0 and / written ~1.
func PointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// At returns the value the RFC 6901 JSON Pointer ptr names in v ("" is v
// itself), and whether there is one: a member by its name (~1 for /, ~0
// for ~), an element by its index written without leading zeros.
func (v Value) At(ptr string) (Value, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return Value{}, false
	}
	for _, t := range strings.Split(ptr[1:], "/") {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		switch v.Kind {
		case Object:
			next, ok := v.Lookup(t)
			if !ok {
				return Value{}, false
			}
			v = next
		case Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v.Elems) || strconv.Itoa(i) != t {
				return Value{}, false
			}
			v = v.Elems[i]
		default:
			return Value{}, false
		}
	}
	return v, true
}

// HoldsLoneSurrogate reports whether a string or member name of v holds a
// lone surrogate.
func (v *Value) HoldsLoneSurrogate() bool {
	found := false
	v.Walk(func(x *Value) bool {
		switch x.Kind {
		case String:
			found = HasLoneSurrogate(x.Str)
		case Object:
			for _, m := range x.Members {
				found = found || HasLoneSurrogate(m.Key)
			}
		}
		return !found
	})
	return found
}

// Walk calls visit with v and every value inside it, depth first, without
// recursion, until visit returns false.
func (v *Value) Walk(visit func(x *Value) bool) {
	stack := []*Value{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !visit(x) {
			return
		}
		switch x.Kind {
		case Array:
			for i := range x.Elems {
				stack = append(stack, &x.Elems[i])
			}
		case Object:
			for i := range x.Members {
				stack = append(stack, &x.Members[i].Value)
			}
		}
	}
}
