package jsongen

import (
	"bytes"
	"strconv"

	"github.com/refereehq/referee/canon"
)

// Node is a JSON value as the fuzzer generates, mutates and shrinks it:
// scalars keep their source lexeme (a number as written, a string with its
// quotes and escapes), objects keep their members in order, duplicate names
// included. Encoding a node gives back its source without whitespace.
type Node struct {
	Kind  canon.Kind
	Raw   string  // a scalar's lexeme: 1.0, "a\u0000", true, null
	Elems []*Node // an array's elements
	Keys  []string
	Vals  []*Node // an object's member names (lexemes, quoted) and values
}

// maxTreeDepth bounds the nesting ParseTree reads; deeper text is shrunk as
// text only.
const maxTreeDepth = 10_000

// ParseTree reads one JSON text (RFC 8259, whitespace allowed around
// tokens) into a tree, or reports false when data is not JSON. It keeps
// lexemes as they are, so Encode of the tree is data without whitespace.
func ParseTree(data []byte) (*Node, bool) {
	p := treeParser{s: data}
	p.space()
	n, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	if p.i != len(p.s) {
		return nil, false
	}
	return n, true
}

type treeParser struct {
	s []byte
	i int
}

func (p *treeParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) value(depth int) (*Node, bool) {
	if p.i >= len(p.s) || depth > maxTreeDepth {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '[':
		p.i++
		n := &Node{Kind: canon.Array}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, true
		}
		for {
			p.space()
			e, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			n.Elems = append(n.Elems, e)
			p.space()
			if p.i >= len(p.s) {
				return nil, false
			}
			switch p.s[p.i] {
			case ',':
				p.i++
			case ']':
				p.i++
				return n, true
			default:
				return nil, false
			}
		}
	case c == '{':
		p.i++
		n := &Node{Kind: canon.Object}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return n, true
		}
		for {
			p.space()
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, false
			}
			p.i++
			p.space()
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			n.Keys, n.Vals = append(n.Keys, k), append(n.Vals, v)
			p.space()
			if p.i >= len(p.s) {
				return nil, false
			}
			switch p.s[p.i] {
			case ',':
				p.i++
			case '}':
				p.i++
				return n, true
			default:
				return nil, false
			}
		}
	case c == '"':
		s, ok := p.str()
		return &Node{Kind: canon.String, Raw: s}, ok
	case c == '-' || '0' <= c && c <= '9':
		s, ok := p.number()
		return &Node{Kind: canon.Number, Raw: s}, ok
	}
	for _, lit := range []struct {
		text string
		kind canon.Kind
	}{{"true", canon.Bool}, {"false", canon.Bool}, {"null", canon.Null}} {
		if bytes.HasPrefix(p.s[p.i:], []byte(lit.text)) {
			p.i += len(lit.text)
			return &Node{Kind: lit.kind, Raw: lit.text}, true
		}
	}
	return nil, false
}

// str reads a string lexeme: no raw control characters, only JSON's escapes.
// Bytes that are not UTF-8 are kept as they are.
func (p *treeParser) str() (string, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", false
	}
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return string(p.s[start:p.i]), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", false
			}
			switch p.s[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.s) || !isHex4(p.s[p.i+2:p.i+6]) {
					return "", false
				}
				p.i += 6
			default:
				return "", false
			}
		default:
			p.i++
		}
	}
	return "", false
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads a number lexeme by JSON's grammar.
func (p *treeParser) number() (string, bool) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return "", false
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return "", false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	return string(p.s[start:p.i]), true
}

// Encode writes n as JSON text without whitespace.
func (n *Node) Encode() []byte { return n.AppendTo(nil) }

// AppendTo appends n's text without whitespace to dst.
func (n *Node) AppendTo(dst []byte) []byte {
	switch n.Kind {
	case canon.Array:
		dst = append(dst, '[')
		for i, e := range n.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.AppendTo(dst)
		}
		return append(dst, ']')
	case canon.Object:
		dst = append(dst, '{')
		for i, k := range n.Keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, k...)
			dst = append(dst, ':')
			dst = n.Vals[i].AppendTo(dst)
		}
		return append(dst, '}')
	}
	return append(dst, n.Raw...)
}

// Clone returns a deep copy of n.
func (n *Node) Clone() *Node {
	c := &Node{Kind: n.Kind, Raw: n.Raw}
	if n.Elems != nil {
		c.Elems = make([]*Node, len(n.Elems))
		for i, e := range n.Elems {
			c.Elems[i] = e.Clone()
		}
	}
	if n.Keys != nil {
		c.Keys = append([]string(nil), n.Keys...)
		c.Vals = make([]*Node, len(n.Vals))
		for i, v := range n.Vals {
			c.Vals[i] = v.Clone()
		}
	}
	return c
}

// Depth is the number of arrays and objects on n's deepest path (a scalar
// is 0).
func (n *Node) Depth() int {
	d := 0
	for _, e := range n.Elems {
		d = max(d, e.Depth())
	}
	for _, v := range n.Vals {
		d = max(d, v.Depth())
	}
	if n.Kind == canon.Array || n.Kind == canon.Object {
		return d + 1
	}
	return 0
}

// Lexeme returns s as a JSON string lexeme with only the escapes JSON
// requires (", \ and controls, short forms where JSON has them). A lone
// surrogate held in WTF-8, as canon keeps it, is written as \udxxx.
func Lexeme(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			if e, ok := map[byte]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}[c]; ok {
				b = append(b, '\\', e)
			} else {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			}
		case c == 0xed && i+2 < len(s) && s[i+1] >= 0xa0 && s[i+1] <= 0xbf:
			r := rune(c&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f)
			b = append(b, `\u`...)
			b = append(b, []byte(strconv.FormatInt(int64(r), 16))...)
			i += 3
			continue
		default:
			b = append(b, c)
		}
		i++
	}
	return string(append(b, '"'))
}

// Str returns a string node of s.
func Str(s string) *Node { return &Node{Kind: canon.String, Raw: Lexeme(s)} }

// Num returns a number node of the lexeme lex.
func Num(lex string) *Node { return &Node{Kind: canon.Number, Raw: lex} }

// Obj returns an object node of members given as name, value, name,
// value...; a name is a Go string, written as a lexeme.
func Obj(members ...any) *Node {
	o := &Node{Kind: canon.Object}
	for i := 0; i+1 < len(members); i += 2 {
		o.Keys = append(o.Keys, Lexeme(members[i].(string)))
		o.Vals = append(o.Vals, members[i+1].(*Node))
	}
	return o
}

// Arr returns an array node of elems.
func Arr(elems ...*Node) *Node { return &Node{Kind: canon.Array, Elems: elems} }

// Set sets the member named name (a Go string) of the object n, replacing
// the first member of that name or appending one.
func (n *Node) Set(name string, v *Node) {
	lex := Lexeme(name)
	for i, k := range n.Keys {
		if k == lex {
			n.Vals[i] = v
			return
		}
	}
	n.Keys, n.Vals = append(n.Keys, lex), append(n.Vals, v)
}

// Delete removes every member named name (a Go string) from the object n.
func (n *Node) Delete(name string) {
	lex := Lexeme(name)
	for i := 0; i < len(n.Keys); {
		if n.Keys[i] == lex {
			n.Keys = append(n.Keys[:i], n.Keys[i+1:]...)
			n.Vals = append(n.Vals[:i], n.Vals[i+1:]...)
			continue
		}
		i++
	}
}
