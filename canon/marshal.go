package canon

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// Marshal returns the canonical form of a Go value already in JSON shape:
// nil, bool, string, float64, float32, any integer kind, json.Number,
// map[string]any, []any, Value, *Value or json.RawMessage (parsed strictly,
// rejecting duplicates). A nil map, slice, *Value or json.RawMessage is
// written as null. Any other type, or a map or slice that contains itself,
// is an ErrUnsupportedType error. Errors are *ValueError.
func (p Profile) Marshal(v any) ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	m := marshaler{p: p}
	val, err := m.convert(v)
	if err != nil {
		return nil, err
	}
	return p.Append(nil, val)
}

// marshaler converts a Go value into a Value, tracking the JSON Pointer of
// the value being converted.
type marshaler struct {
	p      Profile
	path   []string
	onPath map[cycleKey]struct{}
}

// cycleKey identifies a map or slice.
type cycleKey struct {
	ptr uintptr
	len int
}

// marshalCycleDepth is the nesting depth from which Marshal checks for
// maps and slices that contain themselves.
const marshalCycleDepth = 100

func (m *marshaler) fail(err error, format string, args ...any) error {
	var b []byte
	for _, tok := range m.path {
		b = appendPointerToken(b, tok)
	}
	return &ValueError{Path: string(b), Err: err, Msg: fmt.Sprintf(format, args...)}
}

// enter records that the container x is open, failing if it already is.
func (m *marshaler) enter(x any, n int) (cycleKey, bool, error) {
	if len(m.path) < marshalCycleDepth {
		return cycleKey{}, false, nil
	}
	k := cycleKey{reflect.ValueOf(x).Pointer(), n}
	if m.onPath == nil {
		m.onPath = make(map[cycleKey]struct{})
	}
	if _, ok := m.onPath[k]; ok {
		return k, false, m.fail(ErrUnsupportedType, "%T value contains itself", x)
	}
	m.onPath[k] = struct{}{}
	return k, true, nil
}

func (m *marshaler) convert(v any) (Value, error) {
	switch x := v.(type) {
	case nil:
		return Value{}, nil
	case bool:
		return Value{Kind: Bool, Bool: x}, nil
	case string:
		return Value{Kind: String, Str: x}, nil
	case float64:
		return m.float(x)
	case float32:
		return m.float(float64(x))
	case int:
		return intValue(int64(x)), nil
	case int8:
		return intValue(int64(x)), nil
	case int16:
		return intValue(int64(x)), nil
	case int32:
		return intValue(int64(x)), nil
	case int64:
		return intValue(x), nil
	case uint:
		return uintValue(uint64(x)), nil
	case uint8:
		return uintValue(uint64(x)), nil
	case uint16:
		return uintValue(uint64(x)), nil
	case uint32:
		return uintValue(uint64(x)), nil
	case uint64:
		return uintValue(x), nil
	case uintptr:
		return uintValue(uint64(x)), nil
	case json.Number:
		return Value{Kind: Number, Num: string(x)}, nil
	case json.RawMessage:
		if x == nil {
			return Value{}, nil
		}
		val, err := Parse(x, ReadOptions{Duplicates: RejectDuplicates})
		if err != nil {
			se := err.(*SyntaxError)
			return Value{}, m.fail(se.Err, "json.RawMessage: %s at offset %d", se.Msg, se.Offset)
		}
		return val, nil
	case Value:
		return x, nil
	case *Value:
		if x == nil {
			return Value{}, nil
		}
		return *x, nil
	case map[string]any:
		if x == nil {
			return Value{}, nil
		}
		k, tracked, err := m.enter(x, 0)
		if err != nil {
			return Value{}, err
		}
		keys := make([]string, 0, len(x))
		for key := range x {
			keys = append(keys, key)
		}
		slices.Sort(keys) // for errors that do not depend on map order
		members := make([]Member, len(keys))
		for i, key := range keys {
			m.path = append(m.path, key)
			val, err := m.convert(x[key])
			if err != nil {
				return Value{}, err
			}
			m.path = m.path[:len(m.path)-1]
			members[i] = Member{Key: key, Value: val}
		}
		if tracked {
			delete(m.onPath, k)
		}
		return Value{Kind: Object, Members: members}, nil
	case []any:
		if x == nil {
			return Value{}, nil
		}
		k, tracked, err := m.enter(x, len(x))
		if err != nil {
			return Value{}, err
		}
		elems := make([]Value, len(x))
		for i, el := range x {
			m.path = append(m.path, strconv.Itoa(i))
			val, err := m.convert(el)
			if err != nil {
				return Value{}, err
			}
			m.path = m.path[:len(m.path)-1]
			elems[i] = val
		}
		if tracked {
			delete(m.onPath, k)
		}
		return Value{Kind: Array, Elems: elems}, nil
	}
	return Value{}, m.fail(ErrUnsupportedType, "unsupported Go type %T", v)
}

func intValue(n int64) Value {
	return Value{Kind: Number, Num: strconv.FormatInt(n, 10)}
}

func uintValue(n uint64) Value {
	return Value{Kind: Number, Num: strconv.FormatUint(n, 10)}
}

// float converts a Go float by the profile's number rule.
func (m *marshaler) float(f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, m.fail(ErrNonFinite, "number %s is not finite", strconv.FormatFloat(f, 'g', -1, 64))
	}
	if m.p.Numbers == Integer {
		if f != math.Trunc(f) {
			return Value{}, m.fail(ErrNotInteger, "number %s is not an integer", strconv.FormatFloat(f, 'g', -1, 64))
		}
		if math.Abs(f) > maxSafeInteger {
			return Value{}, m.fail(ErrNumberRange, "number %s out of range: magnitude above 2^53-1", strconv.FormatFloat(f, 'g', -1, 64))
		}
		return intValue(int64(f)), nil
	}
	return Value{Kind: Number, Num: string(appendES6(nil, f))}, nil
}
