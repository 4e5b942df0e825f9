package cdc

// The broken modes for implementations that are not Ajv: validators whose
// regular expressions are Python's or RE2's, length and integer readings of
// other languages, typed readers with closed nested models, verifiers and
// narrowers with a classic slip, and number writers built on Python's repr.
// Each is a bug that passes every check of upstream's corpus and that the
// supplement catches.

import (
	"encoding/hex"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazy"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// dialect says how a validator of another language reads an ECMA-262
// pattern, as replacements of the tokens it reads otherwise. An empty
// member keeps the token.
type dialect struct {
	dollar string              // $ outside a class
	dot    string              // . outside a class
	digit  *lazy.Value[string] // the contents of a class that is \d
	space  string              // the contents of a class that is \s
}

// pythonRe is Python's re, as python-jsonschema uses it (re.search): $
// also matches before a final line feed, \d is every Unicode decimal digit
// (those of the BMP here), \s is str.isspace (the information separators
// U+001C to U+001F and U+0085 included, U+FEFF not), and . matches all but
// a line feed.
var pythonRe = dialect{
	dollar: `(?=\n?$)`,
	dot:    `[^\n]`,
	digit:  &lazy.Value[string]{New: unicodeDigits},
	space:  `\t\n\u000b\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`,
}

// re2Classes is Go's regexp (RE2): \s is [\t\n\f\r ] and . matches all but
// a line feed; $ and \d are ECMA-262's.
var re2Classes = dialect{dot: `[^\n]`, space: `\t\n\f\r `}

// unicodeDigits is a class body of every decimal digit (Nd) of the BMP.
func unicodeDigits() string {
	var b strings.Builder
	for _, r := range unicode.Nd.R16 {
		for lo := r.Lo; lo <= r.Hi; lo += 10 {
			hi := min(lo+9, r.Hi)
			fmt.Fprintf(&b, `\u%04x-\u%04x`, lo, hi)
			if hi == r.Hi {
				break
			}
		}
	}
	return b.String()
}

// rewrite returns pattern as an ECMA-262 pattern that matches what the
// dialect's reading of it matches.
func (d *dialect) rewrite(pattern string) string {
	var b strings.Builder
	rs := []rune(pattern)
	inClass := false
	class := func(body string, negated bool) {
		switch {
		case inClass:
			b.WriteString(body)
		case negated:
			b.WriteString("[^" + body + "]")
		default:
			b.WriteString("[" + body + "]")
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			switch n := rs[i]; {
			case (n == 'd' || n == 'D' && !inClass) && d.digit != nil:
				class(d.digit.Get(), n == 'D')
			case (n == 's' || n == 'S' && !inClass) && d.space != "":
				class(d.space, n == 'S')
			default:
				b.WriteRune('\\')
				b.WriteRune(n)
			}
		case inClass:
			inClass = r != ']'
			b.WriteRune(r)
		case r == '[':
			inClass = true
			b.WriteRune(r)
		case r == '$' && d.dollar != "":
			b.WriteString(d.dollar)
		case r == '.' && d.dot != "":
			b.WriteString(d.dot)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// rewrite returns how the mode reads the corpus's schemas otherwise: each
// schema object's patterns in its dialect, or its own rewriting; nil when
// it reads them as they are.
func (m *Mode) rewrite() func(canon.Value) canon.Value {
	switch {
	case m.dialect != nil:
		d := m.dialect
		return func(v canon.Value) canon.Value { return mapPatterns(v, d) }
	case m.schemas != nil:
		return func(v canon.Value) canon.Value { return mapSchemas(v, m.schemas) }
	}
	return nil
}

// rewriteSchemas returns the corpus's schemas with each document rewritten
// by f, as a file system NewValidator compiles.
func rewriteSchemas(fsys fs.FS, f func(canon.Value) canon.Value) (fs.FS, error) {
	files, err := fs.Glob(fsys, "schemas/*.schema.json")
	if err != nil {
		return nil, err
	}
	out := fstest.MapFS{}
	for _, name := range files {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		v, err := canon.Parse(raw, canon.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("cdc: %s: %w", name, err)
		}
		out[name] = &fstest.MapFile{Data: []byte(f(v).String()), Mode: 0o644}
	}
	return out, nil
}

// mapPatterns returns a copy of a schema with each string "pattern" member
// rewritten.
func mapPatterns(v canon.Value, d *dialect) canon.Value {
	switch v.Kind {
	case canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = mapPatterns(e, d)
		}
		v.Elems = elems
	case canon.Object:
		ms := make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			if m.Key == "pattern" && m.Value.Kind == canon.String {
				m.Value.Str = d.rewrite(m.Value.Str)
			} else {
				m.Value = mapPatterns(m.Value, d)
			}
			ms[i] = m
		}
		v.Members = ms
	}
	return v
}

// The keywords whose value is a schema, a list of schemas, or an object
// of schemas by name: where mapSchemas looks for schemas.
var (
	oneSchema   = []string{"additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "items"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "items"}
	schemaMaps  = []string{"properties", "patternProperties", "definitions", "dependencies"}
)

// mapSchemas returns a schema document with f applied to every schema
// object in it, innermost first: only where a schema may be (a property
// named if or const is not a keyword).
func mapSchemas(v canon.Value, f func(canon.Value) canon.Value) canon.Value {
	if v.Kind != canon.Object {
		return v
	}
	ms := slices.Clone(v.Members)
	for i, m := range ms {
		switch {
		case slices.Contains(schemaMaps, m.Key) && m.Value.Kind == canon.Object:
			inner := m.Value
			inner.Members = slices.Clone(inner.Members)
			for j := range inner.Members {
				inner.Members[j].Value = mapSchemas(inner.Members[j].Value, f)
			}
			ms[i].Value = inner
		case slices.Contains(oneSchema, m.Key) && m.Value.Kind == canon.Object:
			ms[i].Value = mapSchemas(m.Value, f)
		case slices.Contains(schemaLists, m.Key) && m.Value.Kind == canon.Array:
			list := m.Value
			list.Elems = slices.Clone(list.Elems)
			for j := range list.Elems {
				list.Elems[j] = mapSchemas(list.Elems[j], f)
			}
			ms[i].Value = list
		}
	}
	v.Members = ms
	return f(v)
}

// draft4 drops the keywords draft-06 and draft-07 added from a schema
// object, as a draft-04 validator ignores them.
func draft4(v canon.Value) canon.Value {
	v.Members = slices.DeleteFunc(v.Members, func(m canon.Member) bool {
		return slices.Contains([]string{"const", "contains", "propertyNames", "if", "then", "else"}, m.Key)
	})
	return v
}

// inclusiveBounds makes a schema object's exclusiveMinimum its minimum and
// its exclusiveMaximum its maximum: the bound itself then passes.
func inclusiveBounds(v canon.Value) canon.Value {
	for _, pair := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		i := slices.IndexFunc(v.Members, func(m canon.Member) bool { return m.Key == pair[0] && m.Value.Kind == canon.Number })
		if i < 0 {
			continue
		}
		bound := v.Members[i].Value
		v.Members = slices.Delete(slices.Clone(v.Members), i, i+1)
		if j := slices.IndexFunc(v.Members, func(m canon.Member) bool { return m.Key == pair[1] }); j >= 0 {
			v.Members[j].Value = bound // the exclusive bound is the tighter one in the corpora's schemas
		} else {
			v.Members = append(v.Members, canon.Member{Key: pair[1], Value: bound})
		}
	}
	return v
}

// fullMatch anchors a schema object's pattern at both ends, as a
// validator that requires the whole string to match reads it.
func fullMatch(v canon.Value) canon.Value {
	ms := slices.Clone(v.Members)
	for i, m := range ms {
		if m.Key == "pattern" && m.Value.Kind == canon.String {
			ms[i].Value.Str = "^(?:" + m.Value.Str + ")$"
		}
	}
	v.Members = ms
	return v
}

// verifyLenientHex is verify as a verifier that decodes the signature's
// hex with Node's Buffer.from(sig, 'hex') does: pairs of hex digits of
// either case, up to the first pair that is not, compared with the MAC's
// 32 bytes.
func verifyLenientHex(lease canon.Value, key []byte) bool {
	sig, ok := lease.Lookup("signature")
	if !ok || sig.Kind != canon.String {
		return false
	}
	want, err := pc.Sign(lease, key)
	if err != nil {
		return false
	}
	var got []byte
	for i := 0; i+1 < len(sig.Str); i += 2 {
		b, err := hex.DecodeString(sig.Str[i : i+2])
		if err != nil {
			break
		}
		got = append(got, b[0])
	}
	return hex.EncodeToString(got) == want
}

// sameInstant reports whether a lease's expires_at is its issued_at.
func sameInstant(lease canon.Value) bool {
	issued, _ := lease.Lookup("issued_at")
	expires, _ := lease.Lookup("expires_at")
	i, err1 := time.Parse(time.RFC3339Nano, issued.Str)
	e, err2 := time.Parse(time.RFC3339Nano, expires.Str)
	return err1 == nil && err2 == nil && i.Equal(e)
}

// mapValue returns a copy of v with f applied to every string and number
// below it (member names are left as they are).
func mapValue(v canon.Value, f func(canon.Value) canon.Value) canon.Value {
	switch v.Kind {
	case canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = mapValue(e, f)
		}
		v.Elems = elems
	case canon.Object:
		ms := make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			ms[i] = canon.Member{Key: m.Key, Value: mapValue(m.Value, f)}
		}
		v.Members = ms
	case canon.String, canon.Number:
		v = f(v)
	}
	return v
}

// doubleAstral writes each character beyond the BMP twice, so that a
// validator counting code points counts what one counting UTF-16 code
// units does (length-utf16).
func doubleAstral(v canon.Value) canon.Value {
	return mapValue(v, func(x canon.Value) canon.Value {
		if x.Kind != canon.String {
			return x
		}
		var b strings.Builder
		for i, r := range x.Str {
			c := x.Str[i : i+utf8.RuneLen(r)]
			if r == utf8.RuneError {
				_, n := utf8.DecodeRuneInString(x.Str[i:])
				c = x.Str[i : i+n]
			}
			b.WriteString(c)
			if r > 0xFFFF {
				b.WriteString(c)
			}
		}
		x.Str = b.String()
		return x
	})
}

// unIntegral gives every integral number written with a fraction or an
// exponent (200.0, 4E5) a small fraction, so that the schema refuses it
// where it wants an integer, as a reader into a typed integer refuses it
// (integer-lexeme). Numbers from 1e15 up keep their value.
func unIntegral(v canon.Value) canon.Value {
	return mapValue(v, func(x canon.Value) canon.Value {
		if x.Kind != canon.Number || !strings.ContainsAny(x.Num, ".eE") {
			return x
		}
		f, err := strconv.ParseFloat(x.Num, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1e15 {
			return x
		}
		x.Num = strconv.FormatFloat(f, 'f', -1, 64) + ".00001"
		return x
	})
}

// declaredNames returns, per shape, every member name the shape's schema
// declares under any "properties".
func declaredNames(cp *Corpus) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, shape := range cp.Shapes {
		v, err := cp.schemaOf(shape)
		if err != nil {
			return nil, err
		}
		names := map[string]bool{}
		v.Walk(func(x *canon.Value) bool {
			for _, m := range x.Members {
				if m.Key == "properties" && m.Value.Kind == canon.Object {
					for _, p := range m.Value.Members {
						names[p.Key] = true
					}
				}
			}
			return true
		})
		out[shape] = names
	}
	return out, nil
}

// undeclared reports whether the object o, with at least one member its
// schema declares (so a record, not a map of names), also has one it does
// not.
func undeclared(o canon.Value, names map[string]bool) bool {
	known, unknown := false, false
	for _, m := range o.Members {
		if names[m.Key] {
			known = true
		} else {
			unknown = true
		}
	}
	return known && unknown
}

// undeclaredDeep returns the JSON Pointer of the first object two levels
// down or deeper (inside two containers) that has a member its schema
// does not declare (closed-deep).
func undeclaredDeep(v canon.Value, names map[string]bool) (string, bool) {
	type item struct {
		v     canon.Value
		path  string
		depth int
	}
	stack := []item{{v, "", 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.v.Kind == canon.Object && it.depth >= 2 && undeclared(it.v, names) {
			return it.path, true
		}
		for i := len(it.v.Elems) - 1; i >= 0; i-- {
			stack = append(stack, item{it.v.Elems[i], it.path + "/" + strconv.Itoa(i), it.depth + 1})
		}
		for i := len(it.v.Members) - 1; i >= 0; i-- {
			m := it.v.Members[i]
			stack = append(stack, item{m.Value, it.path + "/" + canon.PointerToken(m.Key), it.depth + 1})
		}
	}
	return "", false
}

// stripDeep drops the members their schema does not declare from objects
// two levels down or deeper (strip-deep); depth is v's.
func stripDeep(v canon.Value, names map[string]bool, depth int) canon.Value {
	switch v.Kind {
	case canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = stripDeep(e, names, depth+1)
		}
		v.Elems = elems
	case canon.Object:
		drop := depth >= 2 && undeclared(v, names)
		var ms []canon.Member
		for _, m := range v.Members {
			if !drop || names[m.Key] {
				ms = append(ms, canon.Member{Key: m.Key, Value: stripDeep(m.Value, names, depth+1)})
			}
		}
		v.Members = ms
	}
	return v
}

// lowerSignature returns lease with its signature in lower case
// (verify-any-case: what comparing decoded bytes amounts to).
func lowerSignature(lease canon.Value) canon.Value {
	out := lease
	out.Members = append([]canon.Member{}, lease.Members...)
	for i, m := range out.Members {
		if m.Key == "signature" && m.Value.Kind == canon.String {
			out.Members[i].Value.Str = strings.ToLower(m.Value.Str)
		}
	}
	return out
}

// widen returns the grant with the declared paths, hosts and tools a
// broken containment also keeps: tested backwards, the declared entry read
// as a pattern over a parent entry (narrow-wildcard-reversed), dir/**
// containing anything whose text starts with dir (narrow-path-prefix),
// *.domain any host that ends in .domain (narrow-host-suffix), or a tool
// any tool it is a prefix of (narrow-tool-prefix). Declared order is kept,
// as the honest grant keeps it.
func widen(granted, declared, parent canon.Value, m Mode) canon.Value {
	dAllow, _ := declared.Lookup("allow")
	pAllow, _ := parent.Lookup("allow")
	out := granted
	out.Members = append([]canon.Member{}, granted.Members...)
	for i, gm := range out.Members {
		if gm.Key != "allow" {
			continue
		}
		allow := gm.Value
		allow.Members = append([]canon.Member{}, allow.Members...)
		for j, am := range allow.Members {
			if am.Key == "tools" && m.narrowToolPref {
				allow.Members[j].Value = prefixTools(stringElems(am.Value), stringElems(lookup(dAllow, "tools")), stringElems(lookup(pAllow, "tools")))
				continue
			}
			isHost := am.Key == "hosts"
			if !isHost && am.Key != "read_paths" && am.Key != "write_paths" {
				continue
			}
			honest := stringElems(am.Value)
			parents := stringElems(lookup(pAllow, am.Key))
			var kept []canon.Value
			for _, c := range stringElems(lookup(dAllow, am.Key)) {
				keep := slices.Contains(honest, c)
				for _, p := range parents {
					keep = keep || m.narrowReversed && matchesBackwards(c, p, isHost) ||
						m.narrowPrefix && !isHost && strings.HasSuffix(p, "/**") && strings.HasPrefix(c, strings.TrimSuffix(p, "/**")) ||
						m.hostSuffix && isHost && strings.HasPrefix(p, "*.") && strings.HasSuffix(c, p[1:]) && !strings.Contains(c, "*")
				}
				if keep {
					kept = append(kept, canon.Value{Kind: canon.String, Str: c})
				}
			}
			allow.Members[j].Value = canon.Value{Kind: canon.Array, Elems: kept}
		}
		out.Members[i].Value = allow
	}
	return out
}

func lookup(o canon.Value, key string) canon.Value { v, _ := o.Lookup(key); return v }

// prefixTools returns the declared tools granted, and those a parent tool
// is a prefix of (narrow-tool-prefix), in declared order, as the honest
// grant keeps them.
func prefixTools(granted, declared, parent []string) canon.Value {
	out := canon.Value{Kind: canon.Array}
	for _, t := range declared {
		if slices.Contains(granted, t) || slices.ContainsFunc(parent, func(p string) bool { return strings.HasPrefix(t, p) }) {
			out.Elems = append(out.Elems, canon.Value{Kind: canon.String, Str: t})
		}
	}
	return out
}

// stringElems returns the string elements of an array.
func stringElems(a canon.Value) []string {
	var out []string
	for _, e := range a.Elems {
		if e.Kind == canon.String {
			out = append(out, e.Str)
		}
	}
	return out
}

// matchesBackwards reports whether the declared entry c, read as a
// pattern, matches the parent entry p: for hosts * matches everything and
// *.x anything ending .x; for paths ** matches anything, * and ? anything
// but a slash.
func matchesBackwards(c, p string, host bool) bool {
	if host {
		return c == "*" || strings.HasPrefix(c, "*.") && strings.HasSuffix(p, c[1:])
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(c); i++ {
		switch {
		case strings.HasPrefix(c[i:], "**"):
			b.WriteString(".*")
			i++
		case c[i] == '*':
			b.WriteString("[^/]*")
		case c[i] == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(c[i : i+1]))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(p)
}

// floatForm is how a number written with a fraction or an exponent is
// written again in canonical bytes.
type floatForm int

// The forms.
const (
	floatES           floatForm = iota // ECMAScript Number::toString, as RFC 8785 says
	floatRepr                          // Python's repr, the exponent's leading zeros dropped
	floatExponent16                    // the same, integral values below 1e16 as integers
	floatNegativeZero                  // ECMAScript's, but -0 for negative zero
)

// writeFloats returns v with its numbers written in form, as lexemes a
// writer then copies. In the Python forms only a number with a fraction or
// an exponent changes (a Python float once json.loads has read it; an
// integer stays an exact int); in floatNegativeZero every number is
// written as ECMAScript writes it, but negative zero as -0.
func writeFloats(v canon.Value, form floatForm) canon.Value {
	return mapValue(v, func(x canon.Value) canon.Value {
		if x.Kind != canon.Number {
			return x
		}
		f, err := strconv.ParseFloat(x.Num, 64)
		switch {
		case err != nil:
		case form == floatNegativeZero && f == 0 && math.Signbit(f):
			x.Num = "-0"
		case form == floatNegativeZero:
			if s, err := canon.FormatES6(f); err == nil {
				x.Num = s
			}
		case strings.ContainsAny(x.Num, ".eE"):
			x.Num = pyRepr(f, form)
		}
		return x
	})
}

// pyRepr writes f as Python's repr does (shortest digits; exponent form
// below 1e-4 and from 1e16; 1.0 for an integral value), with the
// exponent's leading zeros dropped as ECMAScript writes them.
func pyRepr(f float64, form floatForm) string {
	if form == floatExponent16 && f == math.Trunc(f) && math.Abs(f) < 1e16 {
		if f == 0 {
			return "0"
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	n, _ := strconv.Atoi(exp)
	if n < -4 || n >= 16 {
		sign := "+"
		if n < 0 {
			sign, n = "-", -n
		}
		return mant + "e" + sign + strconv.Itoa(n)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
