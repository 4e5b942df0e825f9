package crosslink

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazyregexp"
)

// DecodeMessage decodes one frame payload (without its length prefix) into a
// validated message, in the reference's order: UTF-8, then JSON, then
// nesting depth, then version, then structure. The first failing step
// decides the *Error's code. A leading UTF-8 byte-order mark is dropped, as
// the reference's TextDecoder does; invalid UTF-8, which that TextDecoder
// would replace with U+FFFD, is parse_error here.
func DecodeMessage(payload []byte) (canon.Value, error) {
	payload, ok := Text(payload)
	if !ok {
		return canon.Value{}, &Error{Code: CodeParseError, Reason: "not valid UTF-8"}
	}
	v, err := ParseValue(payload)
	if err != nil {
		return canon.Value{}, &Error{Code: CodeParseError, Reason: "invalid JSON", Err: err}
	}
	if Depth(v) > MaxDepth {
		return canon.Value{}, &Error{Code: CodeInvalidMessage, Reason: "too-deep"}
	}
	if v.Kind == canon.Object {
		if ver, ok := v.Lookup("v"); ok && ver.Kind == canon.String && ver.Str != Version {
			return canon.Value{}, &Error{Code: CodeVersionUnsupported, Reason: "version " + strconv.Quote(ver.Str)}
		}
	}
	if err := Validate(v); err != nil {
		return canon.Value{}, err
	}
	return v, nil
}

// Text returns payload without a leading byte-order mark, and whether it is
// valid UTF-8.
func Text(payload []byte) ([]byte, bool) {
	payload = bytes.TrimPrefix(payload, []byte("\xef\xbb\xbf"))
	return payload, utf8.Valid(payload)
}

// Depth returns the greatest nesting depth in v: the top level is depth 0
// and each container adds one for its members. It walks without recursion,
// so a value nested millions deep cannot exhaust the stack.
func Depth(v canon.Value) int {
	type item struct {
		v *canon.Value
		d int
	}
	deepest := 0
	stack := []item{{&v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, it.d)
		for i := range it.v.Elems {
			stack = append(stack, item{&it.v.Elems[i], it.d + 1})
		}
		for i := range it.v.Members {
			stack = append(stack, item{&it.v.Members[i].Value, it.d + 1})
		}
	}
	return deepest
}

var (
	idPattern      = lazyregexp.New(`^[A-Za-z0-9_-]{1,64}$`)
	namePattern    = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$`)
	versionPattern = lazyregexp.New(`^[0-9]+\.[0-9]+$`)
	devicePattern  = lazyregexp.New(`^cd1_[0-9a-f]{32}$`)
)

// Kinds lists the message kinds (the values of "t") the validator knows.
var Kinds = []string{"req", "res", "err", "chunk", "end", "evt", "sub", "unsub", "cancel", "ping", "pong", "hello", "hello_ok", "bye"}

// Validate checks a parsed message's structure: an object with "v" equal to
// Version, a known kind "t", and that kind's fields. Members it does not
// know are allowed.
func Validate(v canon.Value) error {
	if v.Kind == canon.Array {
		return invalid("bad-version")
	}
	if v.Kind != canon.Object {
		return invalid("not-an-object")
	}
	if ver, ok := v.Lookup("v"); !ok || ver.Kind != canon.String || ver.Str != Version {
		return invalid("bad-version")
	}
	t, ok := v.Lookup("t")
	if !ok || t.Kind != canon.String {
		return invalid("bad-type")
	}
	f := fields{v}
	switch t.Str {
	case "req":
		return first(f.match("i", idPattern, "req-id"), f.match("m", namePattern, "req-method"), f.idem())
	case "res", "end", "cancel":
		return f.match("i", idPattern, t.Str+"-id")
	case "err":
		return first(f.match("i", idPattern, "err-id"), f.errorBody())
	case "chunk":
		return first(f.match("i", idPattern, "chunk-id"), f.chunkIndex(), f.present("d", "chunk-data"))
	case "evt", "sub":
		return first(f.match("s", idPattern, t.Str+"-sub"), f.match("e", namePattern, t.Str+"-event"))
	case "unsub":
		return f.match("s", idPattern, "unsub-sub")
	case "ping", "pong":
		return f.finite("ts", t.Str+"-ts")
	case "hello":
		return first(f.versions(), f.match("deviceId", devicePattern, "hello-device"), f.appID())
	case "hello_ok":
		return f.match("version", versionPattern, "hello_ok-version")
	case "bye":
		return nil
	}
	return invalid("bad-type")
}

func invalid(reason string) error { return &Error{Code: CodeInvalidMessage, Reason: reason} }

// first returns the first non-nil error, in the order the reference checks them.
func first(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fields reads one message's members for validation.
type fields struct{ msg canon.Value }

func (f fields) match(key string, re *lazyregexp.Regexp, reason string) error {
	m, ok := f.msg.Lookup(key)
	if !ok || m.Kind != canon.String || !re.MatchString(m.Str) {
		return invalid(reason)
	}
	return nil
}

func (f fields) present(key, reason string) error {
	if _, ok := f.msg.Lookup(key); !ok {
		return invalid(reason)
	}
	return nil
}

func (f fields) idem() error {
	if m, ok := f.msg.Lookup("idem"); ok && (m.Kind != canon.Bool || !m.Bool) {
		return invalid("req-idem")
	}
	return nil
}

func (f fields) number(key string) (float64, bool) {
	m, ok := f.msg.Lookup(key)
	if !ok || m.Kind != canon.Number {
		return 0, false
	}
	x, err := strconv.ParseFloat(m.Num, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return x, true
}

func (f fields) finite(key, reason string) error {
	if x, ok := f.number(key); !ok || math.IsInf(x, 0) {
		return invalid(reason)
	}
	return nil
}

func (f fields) chunkIndex() error {
	// Number.isInteger(n) && n >= 0: 1.0 is an integer, 1e400 is not.
	if x, ok := f.number("n"); !ok || math.IsInf(x, 0) || x != math.Trunc(x) || x < 0 {
		return invalid("chunk-index")
	}
	return nil
}

func (f fields) errorBody() error {
	e, ok := f.msg.Lookup("e")
	if !ok || e.Kind != canon.Object {
		return invalid("err-body")
	}
	code, ok := e.Lookup("code")
	if !ok || code.Kind != canon.String || !IsCode(code.Str) {
		return invalid("err-code")
	}
	if msg, ok := e.Lookup("message"); !ok || msg.Kind != canon.String {
		return invalid("err-message")
	}
	return nil
}

func (f fields) versions() error {
	vs, ok := f.msg.Lookup("versions")
	if !ok || vs.Kind != canon.Array || len(vs.Elems) == 0 {
		return invalid("hello-versions")
	}
	for _, e := range vs.Elems {
		if e.Kind != canon.String || !versionPattern.MatchString(e.Str) {
			return invalid("hello-versions")
		}
	}
	return nil
}

func (f fields) appID() error {
	// The reference measures String.length: UTF-16 code units, a lone
	// surrogate escape one (not the three bytes it is stored in).
	m, ok := f.msg.Lookup("appId")
	if !ok || m.Kind != canon.String {
		return invalid("hello-app")
	}
	if n := canon.UTF16Len(m.Str); n < 1 || n > 256 {
		return invalid("hello-app")
	}
	return nil
}
