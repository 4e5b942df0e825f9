package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/refereehq/referee/canon"
)

// Protocol is the name and version of the adapter protocol.
const Protocol = "referee-adapter/1"

// MaxLine is the longest stdout line an adapter may write, newline excluded.
const MaxLine = 16 << 20

// MaxReplyDepth is the deepest nesting a reply may have: deeper is a fault,
// so no suite walks a value deep enough to exhaust the stack.
const MaxReplyDepth = 100_000

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
func encodeRequest(id int64, op string, args []byte) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.WriteString(strconv.FormatInt(id, 10))
	b.WriteString(`,"op":`)
	opText, _ := json.Marshal(op)
	b.Write(opText)
	b.WriteString(`,"args":`)
	switch {
	case len(args) == 0:
		b.WriteString("{}")
	case !bytes.ContainsAny(args, " \t\r\n"):
		b.Write(args) // already compact: skip the rescan of large args
	default:
		if err := json.Compact(&b, args); err != nil {
			return nil, fmt.Errorf("adapter: args of %s: %w", op, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// decodeReply parses one reply line strictly: an object with an integer id and
// exactly one of ok and err, where err is an object.
func decodeReply(line []byte) (*Reply, error) {
	v, err := canon.Parse(line, canon.ReadOptions{MaxDepth: MaxReplyDepth})
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
			h.Ops = []string{}
			for _, op := range v.Elems {
				if op.Kind != canon.String {
					return Hello{}, errors.New("hello reply: ops must be an array of strings")
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
