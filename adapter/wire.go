package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/compactjson"
	"github.com/refereehq/referee/internal/jsonstring"
)

// Protocol is the name and version of the adapter protocol.
const Protocol = "referee-adapter/1"

// MaxLine is the longest stdout line an adapter may write, newline excluded.
const MaxLine = 16 << 20

// MaxReplyDepth is the deepest nesting a reply may have: deeper is a fault,
// so no suite walks a value deep enough to exhaust the stack.
const MaxReplyDepth = 100_000

// MaxReplyValues is the most values a reply may hold: more is a fault. A
// 16 MiB line of small values would otherwise take gigabytes once read.
const MaxReplyValues = 1 << 20

// The most ops a hello may list, and the longest op name: a suite has a
// few dozen ops, and the list is kept in every report.
const (
	MaxOps    = 1024
	MaxOpName = 256
)

// Hello is what an adapter says about itself in reply to the hello request.
type Hello struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Ops         []string `json:"ops"`
	Concurrency int      `json:"concurrency,omitempty"`
}

// Offers reports whether the adapter listed op in its hello.
func (h Hello) Offers(op string) bool {
	for _, o := range h.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// Error is an err reply: the implementation rejected the input or threw.
type Error struct {
	Code    string // the protocol's stable error code; "" when absent
	Message string
	// Members holds every member of the err object, code and message included,
	// so suites can read members beyond those two.
	Members []canon.Member
}

// Member returns the err member named key.
func (e *Error) Member(key string) (canon.Value, bool) {
	for _, m := range e.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return canon.Value{}, false
}

func (e *Error) Error() string {
	code := e.Code
	if code == "" {
		code = "(no code)"
	}
	if e.Message == "" {
		return code
	}
	return code + ": " + e.Message
}

// Reply is an adapter's answer to one request: exactly one of OK and Err is set.
type Reply struct {
	ID  int64
	OK  *canon.Value
	Err *Error
}

// Exchange is one request and what came back for it, as raw lines.
type Exchange struct {
	Request []byte // the request line sent, without its newline
	Reply   []byte // the reply line received, without its newline; nil if none
}

// encodeRequest renders one request line. args must be one valid JSON
// value; any whitespace in it is removed (lexemes and escapes are kept).
// The line has room for the newline a stream adds.
func encodeRequest(id int64, op string, args []byte) ([]byte, error) {
	compact := len(args) > 0 && isCompact(args)
	size := len(`{"id":,"op":,"args":}`) + 20 + len(op) + 2 + len(args) + 1
	b := make([]byte, 0, size)
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"op":`...)
	b = jsonstring.Append(b, op)
	b = append(b, `,"args":`...)
	switch {
	case len(args) == 0:
		b = append(b, "{}"...)
	case compact:
		b = append(b, args...) // already compact: no rewrite
	default:
		buf := bytes.NewBuffer(b)
		if err := json.Compact(buf, args); err != nil {
			return nil, fmt.Errorf("adapter: args of %s: %w", op, err)
		}
		b = buf.Bytes()
	}
	return append(b, '}'), nil
}

// isCompact reports whether the JSON text b has no whitespace outside its
// strings.
func isCompact(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			return false
		case '"':
			// Skip the string to its closing quote: the first quote after
			// it that no backslash escapes. Each byte is looked at once.
			for i++; ; {
				q := bytes.IndexByte(b[i:], '"')
				if q < 0 {
					return true // unterminated: no whitespace outside it
				}
				q += i
				for i <= q {
					e := bytes.IndexByte(b[i:q], '\\')
					if e < 0 {
						break
					}
					i += e + 2 // past the escaped byte, which may be the quote at q
				}
				if i <= q {
					i = q
					break
				}
			}
		}
	}
	return true
}

// MarshalArgs renders v as request args without HTML escaping. A
// json.RawMessage or []byte is taken as JSON text as it stands.
func MarshalArgs(v any) ([]byte, error) {
	switch a := v.(type) {
	case nil:
		return []byte("{}"), nil
	case json.RawMessage:
		return a, nil
	case []byte:
		return a, nil
	case map[string]string:
		// The commonest args, written without reflection.
		return appendMembers(a, func(b []byte, v string) ([]byte, bool) { return jsonstring.Append(b, v), true }), nil
	case map[string]json.RawMessage:
		// A value that is JSON in UTF-8 is written compacted, as
		// encoding/json writes it; any other, encoding/json writes.
		if b := appendMembers(a, appendCompact); b != nil {
			return b, nil
		}
	case map[string]any:
		if b := appendMembers(a, func(b []byte, v any) ([]byte, bool) {
			switch v := v.(type) {
			case string:
				return jsonstring.Append(b, v), true
			case json.RawMessage:
				return appendCompact(b, v)
			}
			return b, false
		}); b != nil {
			return b, nil
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// appendMembers writes m as a JSON object of its members in key order, as
// encoding/json writes a map, each value by value; nil when value takes
// one it cannot write.
func appendMembers[V any](m map[string]V, value func([]byte, V) ([]byte, bool)) []byte {
	var small [4]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstring.Append(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = value(b, m[k]); !ok {
			return nil
		}
	}
	return append(b, '}')
}

// appendCompact appends v compacted when it is JSON in UTF-8
// (compactjson.Append): what encoding/json writes of a json.RawMessage so.
func appendCompact(b []byte, v json.RawMessage) ([]byte, bool) {
	return compactjson.Append(b, v)
}

// decodeReply parses one reply line strictly: an object with an integer id and
// exactly one of ok and err, where err is an object.
func decodeReply(line []byte) (*Reply, error) {
	v, err := canon.Parse(line, canon.ReadOptions{MaxDepth: MaxReplyDepth, MaxValues: MaxReplyValues})
	if errors.Is(err, canon.ErrTooMany) {
		return nil, fmt.Errorf("more than %d values", MaxReplyValues)
	}
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if v.Kind != canon.Object {
		return nil, fmt.Errorf("not a JSON object but %s", v.Kind)
	}
	r := &Reply{ID: -1}
	var haveID, haveOK, haveErr bool
	for i := range v.Members {
		m := &v.Members[i]
		switch m.Key {
		case "id":
			id, err := strconv.ParseInt(m.Value.Num, 10, 64)
			if m.Value.Kind != canon.Number || err != nil {
				return nil, fmt.Errorf("id is %s, not an integer", m.Value.String())
			}
			r.ID, haveID = id, true
		case "ok":
			r.OK, haveOK = &m.Value, true
		case "err":
			haveErr = true
			e, err := decodeError(m.Value)
			if err != nil {
				return nil, err
			}
			r.Err = e
		}
	}
	switch {
	case !haveID:
		return nil, errors.New("reply has no id")
	case haveOK && haveErr:
		return r, errors.New("reply has both ok and err")
	case !haveOK && !haveErr:
		return r, errors.New("reply has neither ok nor err")
	}
	return r, nil
}

func decodeError(v canon.Value) (*Error, error) {
	if v.Kind != canon.Object {
		return nil, fmt.Errorf("err is %s, not an object", v.Kind)
	}
	e := &Error{Members: v.Members}
	for _, m := range v.Members {
		switch m.Key {
		case "code":
			if m.Value.Kind == canon.String {
				e.Code = m.Value.Str
			} else if m.Value.Kind != canon.Null {
				return nil, fmt.Errorf("err.code is %s, not a string", m.Value.Kind)
			}
		case "message":
			if m.Value.Kind == canon.String {
				e.Message = m.Value.Str
			}
		}
	}
	return e, nil
}

// decodeHello reads the ok value of a hello reply strictly: name a
// non-empty string, version a string, ops an array of strings, concurrency
// (optional) a positive integer.
func decodeHello(r *Reply) (Hello, error) {
	if r.Err != nil {
		return Hello{}, fmt.Errorf("adapter refused hello: %s", r.Err.Error())
	}
	if r.OK.Kind != canon.Object {
		return Hello{}, fmt.Errorf("hello reply is %s, not an object", r.OK.Kind)
	}
	h := Hello{Concurrency: 1}
	var haveName, haveOps bool
	for _, m := range r.OK.Members {
		v := m.Value
		switch m.Key {
		case "name":
			if v.Kind != canon.String || v.Str == "" {
				return Hello{}, errors.New("hello reply: name must be a non-empty string")
			}
			h.Name, haveName = v.Str, true
		case "version":
			if v.Kind != canon.String {
				return Hello{}, errors.New("hello reply: version must be a string")
			}
			h.Version = v.Str
		case "ops":
			if v.Kind != canon.Array {
				return Hello{}, errors.New("hello reply: ops must be an array of strings")
			}
			if len(v.Elems) > MaxOps {
				return Hello{}, fmt.Errorf("hello reply: %d ops, more than %d", len(v.Elems), MaxOps)
			}
			h.Ops = make([]string, 0, len(v.Elems))
			for _, op := range v.Elems {
				switch {
				case op.Kind != canon.String:
					return Hello{}, errors.New("hello reply: ops must be an array of strings")
				case len(op.Str) > MaxOpName:
					return Hello{}, fmt.Errorf("hello reply: an op name of %d bytes, more than %d", len(op.Str), MaxOpName)
				case slices.Contains(h.Ops, op.Str):
					return Hello{}, fmt.Errorf("hello reply: op %q is listed twice", op.Str)
				}
				h.Ops = append(h.Ops, op.Str)
			}
			haveOps = true
		case "concurrency":
			n, err := strconv.Atoi(v.Num)
			if v.Kind != canon.Number || err != nil || n < 1 {
				return Hello{}, fmt.Errorf("hello reply: concurrency %s is not a positive integer", v.String())
			}
			h.Concurrency = n
		}
	}
	switch {
	case !haveName:
		return Hello{}, errors.New("hello reply has no name")
	case !haveOps:
		return Hello{}, errors.New("hello reply has no ops")
	}
	return h, nil
}

func helloArgs(suite string, extra map[string]string) []byte {
	args := map[string]string{}
	for k, v := range extra {
		args[k] = v
	}
	args["protocol"], args["suite"] = Protocol, suite
	b, _ := MarshalArgs(args)
	return b
}

// HelloRequest is the hello request line referee sends first, for repro
// commands and other runners.
func HelloRequest(suite string, extra map[string]string) []byte {
	line, _ := encodeRequest(0, "hello", helloArgs(suite, extra))
	return line
}
