package canon

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/refereehq/referee/internal/jsonstring"
)

// eframe is one open container of the encoder.
type eframe struct {
	v       *Value
	next    int  // index of the next element or member to write
	base    int  // sorted objects: index in encoder.order of the member order
	tracked bool // v's children are in encoder.onPath
}

// encoder writes a Value without recursion. In source mode it writes
// members in source order, keeps number lexemes, escapes lone surrogates
// and never fails on content.
type encoder struct {
	p      Profile
	source bool
	frames []eframe
	order  []int            // member orders of the open sorted objects
	onPath map[any]struct{} // children of the deep open containers, against cycles
}

// cycleCheckDepth is the nesting depth from which the encoder checks for
// containers that contain themselves.
const cycleCheckDepth = 1000

var encoderPool = sync.Pool{New: func() any { return new(encoder) }}

func getEncoder(p Profile) *encoder {
	e := encoderPool.Get().(*encoder)
	e.p = p
	e.source = false
	return e
}

func putEncoder(e *encoder) {
	if cap(e.frames) > 1<<12 {
		e.frames = nil
	}
	if cap(e.order) > 1<<14 {
		e.order = nil
	}
	e.onPath = nil
	encoderPool.Put(e)
}

// run appends v to dst. On error the output written so far is returned.
func (e *encoder) run(dst []byte, v *Value) ([]byte, error) {
	e.frames = e.frames[:0]
	e.order = e.order[:0]
	defer func() {
		clear(e.frames)
		e.frames = e.frames[:0]
	}()
	var err error
	if dst, err = e.value(dst, v); err != nil {
		return dst, err
	}
	for len(e.frames) > 0 {
		f := &e.frames[len(e.frames)-1]
		var child *Value
		if f.v.Kind == Array {
			if f.next == len(f.v.Elems) {
				dst = append(dst, ']')
				e.pop()
				continue
			}
			if f.next > 0 {
				dst = append(dst, ',')
			}
			child = &f.v.Elems[f.next]
			f.next++
		} else {
			if f.next == len(f.v.Members) {
				dst = append(dst, '}')
				e.pop()
				continue
			}
			if f.next > 0 {
				dst = append(dst, ',')
			}
			m := &f.v.Members[e.memberIndex(f, f.next)]
			f.next++
			if dst, err = e.appendString(dst, m.Key); err != nil {
				return dst, err
			}
			dst = append(dst, ':')
			child = &m.Value
		}
		if dst, err = e.value(dst, child); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// memberIndex returns the index in f.v.Members of the i'th member to write.
func (e *encoder) memberIndex(f *eframe, i int) int {
	if e.source {
		return i
	}
	return e.order[f.base+i]
}

// childKey identifies the children of a container, for cycle checks.
func childKey(v *Value) any {
	if v.Kind == Array {
		return &v.Elems[0]
	}
	return &v.Members[0]
}

func (e *encoder) push(v *Value, base int) error {
	f := eframe{v: v, base: base}
	if len(e.frames) >= cycleCheckDepth {
		if e.onPath == nil {
			e.onPath = make(map[any]struct{})
		}
		k := childKey(v)
		if _, ok := e.onPath[k]; ok {
			return e.fail(ErrUnsupportedType, "%s contains itself", v.Kind)
		}
		e.onPath[k] = struct{}{}
		f.tracked = true
	}
	e.frames = append(e.frames, f)
	return nil
}

func (e *encoder) pop() {
	f := &e.frames[len(e.frames)-1]
	if f.v.Kind == Object && !e.source {
		e.order = e.order[:f.base]
	}
	if f.tracked {
		delete(e.onPath, childKey(f.v))
	}
	*f = eframe{}
	e.frames = e.frames[:len(e.frames)-1]
}

// path returns the JSON Pointer of the value being written, followed by
// the extra reference tokens.
func (e *encoder) path(extra ...string) string {
	var b []byte
	for i := range e.frames {
		f := &e.frames[i]
		if f.next == 0 {
			continue
		}
		if f.v.Kind == Array {
			b = appendPointerToken(b, strconv.Itoa(f.next-1))
		} else {
			b = appendPointerToken(b, f.v.Members[e.memberIndex(f, f.next-1)].Key)
		}
	}
	for _, tok := range extra {
		b = appendPointerToken(b, tok)
	}
	return string(b)
}

func (e *encoder) fail(err error, format string, args ...any) error {
	return &ValueError{Path: e.path(), Err: err, Msg: fmt.Sprintf(format, args...)}
}

// value writes a scalar, or the opening of a container and pushes it.
func (e *encoder) value(dst []byte, v *Value) ([]byte, error) {
	switch v.Kind {
	case Null:
		return append(dst, "null"...), nil
	case Bool:
		if v.Bool {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case Number:
		return e.appendNumber(dst, v.Num)
	case String:
		return e.appendString(dst, v.Str)
	case Array:
		if len(v.Elems) == 0 {
			return append(dst, '[', ']'), nil
		}
		if err := e.push(v, 0); err != nil {
			return dst, err
		}
		return append(dst, '['), nil
	case Object:
		if len(v.Members) == 0 {
			return append(dst, '{', '}'), nil
		}
		base := len(e.order)
		if !e.source {
			if err := e.sortMembers(v.Members); err != nil {
				return dst, err
			}
		}
		if err := e.push(v, base); err != nil {
			return dst, err
		}
		return append(dst, '{'), nil
	}
	if e.source {
		return append(dst, "<invalid "+v.Kind.String()+">"...), nil
	}
	return dst, e.fail(ErrUnsupportedType, "invalid value kind %d", uint8(v.Kind))
}

// sortMembers pushes onto e.order the indices of ms in the profile's key
// order and checks that no two keys are the same.
func (e *encoder) sortMembers(ms []Member) error {
	base := len(e.order)
	for i := range ms {
		e.order = append(e.order, i)
	}
	idx := e.order[base:]
	compare := compareUTF16
	if e.p.Keys == CodePoint {
		compare = strings.Compare
	}
	if len(idx) <= insertionSortMax {
		// Insertion sort, with the duplicate check on the way.
		for i := 1; i < len(idx); i++ {
			x := idx[i]
			key := ms[x].Key
			j := i
			for ; j > 0; j-- {
				c := compare(ms[idx[j-1]].Key, key)
				if c == 0 {
					return e.duplicate(base, key)
				}
				if c < 0 {
					break
				}
				idx[j] = idx[j-1]
			}
			idx[j] = x
		}
		return nil
	}
	cmp := func(a, b int) int { return compare(ms[a].Key, ms[b].Key) }
	if !slices.IsSortedFunc(idx, cmp) {
		slices.SortFunc(idx, cmp)
	}
	for i := 1; i < len(idx); i++ {
		if cmp(idx[i-1], idx[i]) == 0 {
			return e.duplicate(base, ms[idx[i]].Key)
		}
	}
	return nil
}

// insertionSortMax is the most members sorted by insertion.
const insertionSortMax = 24

// duplicate drops the member order pushed at base and reports key as a
// duplicate in the object being opened.
func (e *encoder) duplicate(base int, key string) error {
	e.order = e.order[:base]
	return &ValueError{Path: e.path(key), Err: ErrDuplicateKey, Msg: "duplicate key " + strconv.Quote(key)}
}

const hexDigits = "0123456789abcdef"

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// appendString writes s as a JSON string.
func (e *encoder) appendString(dst []byte, s string) ([]byte, error) {
	dst = append(dst, '"')
	start := 0
	i := 0
	for {
		i = jsonstring.PlainEnd(s, i)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = jsonstring.AppendEscape(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		// A run of bytes beyond ASCII is written as it is when it is
		// valid UTF-8; else character by character, to its end.
		j := i + 1
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		if utf8.ValidString(s[i:j]) {
			i = j
			continue
		}
		for i < j {
			r, size := utf8.DecodeRuneInString(s[i:j])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
			if u, ok := wtf8Surrogate(s, i); ok {
				if u2, ok := wtf8Surrogate(s, i+3); ok && u < 0xDC00 && u2 >= 0xDC00 && !e.source {
					return dst, e.fail(ErrInvalidUTF8, "string holds the surrogate pair U+%04X U+%04X encoded as two generalised UTF-8 sequences at byte %d", u, u2, i)
				}
				if e.p.Surrogates != EscapeSurrogates && !e.source {
					return dst, e.fail(ErrLoneSurrogate, "string holds lone surrogate U+%04X at byte %d", u, i)
				}
				dst = append(dst, s[start:i]...)
				dst = appendU4(dst, u)
				i += 3
				start = i
				continue
			}
			if !e.source {
				return dst, e.fail(ErrInvalidUTF8, "string holds invalid UTF-8 byte 0x%02x at byte %d", s[i], i)
			}
			dst = append(dst, s[start:i]...)
			dst = appendU4(dst, utf8.RuneError)
			i++
			start = i
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}
