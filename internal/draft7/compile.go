package draft7

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/ecmaregexp"
)

// Compiler holds schema documents and compiles schemas from them. It is not
// safe for concurrent use; the Schemas it returns are.
type Compiler struct {
	docs      map[string]*document // by name
	resources map[string]location  // by absolute URL without fragment: documents and embedded $id
	anchors   map[string]location  // by absolute URL with a plain-name fragment
	nodes     map[location]*Schema
	regexps   map[string]*ecmaregexp.Regexp
	pending   []*Schema
}

// document is one schema document.
type document struct {
	name    string
	root    canon.Value
	bases   map[string]string // base URI of each schema position, by JSON pointer
	scanErr error             // a duplicate $id found while scanning
	checked map[string]bool   // positions whose subtree has been checked
}

// location is a value in a document.
type location struct {
	doc *document
	ptr string
}

// NewCompiler returns an empty Compiler.
func NewCompiler() *Compiler {
	return &Compiler{
		docs:      map[string]*document{},
		resources: map[string]location{},
		anchors:   map[string]location{},
		nodes:     map[location]*Schema{},
		regexps:   map[string]*ecmaregexp.Regexp{},
	}
}

// metaschemaURL is the draft-07 metaschema's URL, without its empty fragment.
const metaschemaURL = "http://json-schema.org/draft-07/schema"

// AddDocument adds the schema document data under name (a file name, which
// errors quote). Its base URI is its root $id, resolved against
// file:///name, or file:///name itself. A document that repeats an object
// key keeps the last value, as JSON.parse does.
func (c *Compiler) AddDocument(name string, data []byte) error {
	v, err := canon.Parse(data, canon.ReadOptions{Duplicates: canon.LastWins})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return c.add(name, v, (&url.URL{Scheme: "file", Path: "/" + strings.TrimPrefix(name, "/")}).String())
}

func (c *Compiler) add(name string, v canon.Value, base string) error {
	if _, dup := c.docs[name]; dup {
		return fmt.Errorf("%s: added twice", name)
	}
	d := &document{name: name, root: v, bases: map[string]string{}, checked: map[string]bool{}}
	u, _ := url.Parse(base)
	u.Fragment, u.RawFragment = "", ""
	base = u.String()
	if id, ok := ownID(v); ok {
		if ref, err := url.Parse(id); err == nil {
			r := u.ResolveReference(ref)
			r.Fragment, r.RawFragment = "", ""
			base = r.String()
		}
	}
	if other, ok := c.resources[base]; ok {
		return fmt.Errorf("%s: its URI %s is also %s's", name, base, other.doc.name)
	}
	c.docs[name] = d
	c.resources[base] = location{d, ""}
	c.scan(d, v, "", base)
	return nil
}

// ownID returns a schema object's $id, unless a $ref makes it ignored.
func ownID(v canon.Value) (string, bool) {
	if v.Kind != canon.Object {
		return "", false
	}
	if _, ok := v.Lookup("$ref"); ok {
		return "", false
	}
	id, ok := v.Lookup("$id")
	return id.Str, ok && id.Kind == canon.String
}

// scan records the base URI of every schema position under v, and the
// resources and anchors its $id keywords declare.
func (c *Compiler) scan(d *document, v canon.Value, ptr, base string) {
	base = c.declare(d, v, ptr, base)
	d.bases[ptr] = base
	eachSubschema(v, ptr, func(sub canon.Value, p string) { c.scan(d, sub, p, base) })
}

// declare records the resource and anchor the $id of v (at ptr, under
// base) declares, and returns v's base URI.
func (c *Compiler) declare(d *document, v canon.Value, ptr, base string) string {
	id, ok := ownID(v)
	if !ok {
		return base
	}
	ref, err := url.Parse(id)
	if err != nil {
		return base // refused by checkSchema
	}
	b, _ := url.Parse(base)
	r := b.ResolveReference(ref)
	frag := r.Fragment
	r.Fragment, r.RawFragment = "", ""
	if r.String() != base {
		base = r.String()
		if other, dup := c.resources[base]; !dup {
			c.resources[base] = location{d, ptr}
		} else if d.scanErr == nil {
			d.scanErr = &SchemaError{d.name, ptr + "/$id", fmt.Sprintf("%s is also the URI of %s#%s", base, other.doc.name, other.ptr)}
		}
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		c.anchors[base+"#"+frag] = location{d, ptr}
	}
	return base
}

// eachSubschema calls f for every schema directly under the schema object v
// (at pointer ptr) that is an object or a boolean.
func eachSubschema(v canon.Value, ptr string, f func(canon.Value, string)) {
	if v.Kind != canon.Object {
		return
	}
	visit := func(x canon.Value, p string) {
		if x.Kind == canon.Object || x.Kind == canon.Bool {
			f(x, p)
		}
	}
	for _, m := range v.Members {
		p := ptr + "/" + canon.PointerToken(m.Key)
		switch m.Key {
		case "additionalItems", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not":
			visit(m.Value, p)
		case "items":
			if m.Value.Kind == canon.Array {
				for i, e := range m.Value.Elems {
					visit(e, p+"/"+strconv.Itoa(i))
				}
			} else {
				visit(m.Value, p)
			}
		case "allOf", "anyOf", "oneOf":
			if m.Value.Kind == canon.Array {
				for i, e := range m.Value.Elems {
					visit(e, p+"/"+strconv.Itoa(i))
				}
			}
		case "definitions", "properties", "patternProperties", "dependencies":
			if m.Value.Kind == canon.Object {
				for _, mm := range m.Value.Members {
					visit(mm.Value, p+"/"+canon.PointerToken(mm.Key))
				}
			}
		}
	}
}

// Compile compiles the root schema of the document named name.
func (c *Compiler) Compile(name string) (*Schema, error) {
	d, ok := c.docs[name]
	if !ok {
		return nil, fmt.Errorf("%s: no such schema document", name)
	}
	var added []location
	s, err := c.node(location{d, ""}, &added)
	for err == nil && len(c.pending) > 0 {
		n := c.pending[0]
		c.pending = c.pending[1:]
		err = c.fill(n, &added)
	}
	if err == nil {
		err = cycles(s)
	}
	if err != nil {
		// Forget this attempt's schemas, some of them unfinished.
		for _, l := range added {
			delete(c.nodes, l)
		}
		c.pending = nil
		return nil, err
	}
	return s, nil
}

// node returns the Schema at l, creating it (to be filled) on first use.
func (c *Compiler) node(l location, added *[]location) (*Schema, error) {
	if s, ok := c.nodes[l]; ok {
		return s, nil
	}
	if err := c.check(l); err != nil {
		return nil, err
	}
	s := &Schema{doc: l.doc, ptr: l.ptr}
	c.nodes[l] = s
	*added = append(*added, l)
	c.pending = append(c.pending, s)
	return s, nil
}

// check checks the document holding l once, and the subtree at l when it
// is not at a schema position of its document (a $ref may point anywhere).
func (c *Compiler) check(l location) error {
	d := l.doc
	if d.scanErr != nil {
		return d.scanErr
	}
	if !d.checked[""] {
		if err := c.checkSchema(d, d.root, ""); err != nil {
			return err
		}
		d.checked[""] = true
	}
	if _, known := d.bases[l.ptr]; known || d.checked[l.ptr] {
		return nil
	}
	v, _ := valueAt(d.root, l.ptr)
	if err := c.checkSchema(d, v, l.ptr); err != nil {
		return err
	}
	d.checked[l.ptr] = true
	return nil
}

// baseOf returns the base URI at ptr: its own, or its nearest schema ancestor's.
func (d *document) baseOf(ptr string) string {
	for {
		if b, ok := d.bases[ptr]; ok {
			return b
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return d.bases[""]
		}
		ptr = ptr[:i]
	}
}

// fill compiles the keywords of s.
func (c *Compiler) fill(s *Schema, added *[]location) error {
	d := s.doc
	v, _ := valueAt(d.root, s.ptr)
	if v.Kind == canon.Bool {
		b := v.Bool
		s.always = &b
		return nil
	}
	sub := func(key string) (*Schema, error) {
		return c.node(location{d, s.ptr + "/" + canon.PointerToken(key)}, added)
	}
	subAt := func(p string) (*Schema, error) { return c.node(location{d, p}, added) }
	if ref, ok := v.Lookup("$ref"); ok {
		t, err := c.resolve(d, s.ptr, ref.Str, added)
		s.ref = t
		return err
	}
	s.minProps, s.maxProps, s.minItems, s.maxItems, s.minLen, s.maxLen = -1, -1, -1, -1, -1, -1
	var err error
	for _, m := range v.Members {
		p := s.ptr + "/" + canon.PointerToken(m.Key)
		x := m.Value
		switch m.Key {
		case "type":
			if x.Kind == canon.String {
				s.types = typeOf(x.Str)
			}
			for _, e := range x.Elems {
				s.types |= typeOf(e.Str)
			}
		case "const":
			k := key(x)
			s.constKey = &k
		case "enum":
			s.enumKeys = make(map[string]bool, len(x.Elems))
			for _, e := range x.Elems {
				s.enumKeys[key(e)] = true
			}
		case "format":
			if x.Str == "regex" {
				s.fmtRegex = true
			} else {
				s.format = formatCheck(x.Str)
			}
		case "minProperties":
			s.minProps = count(x)
		case "maxProperties":
			s.maxProps = count(x)
		case "minItems":
			s.minItems = count(x)
		case "maxItems":
			s.maxItems = count(x)
		case "minLength":
			s.minLen = count(x)
		case "maxLength":
			s.maxLen = count(x)
		case "uniqueItems":
			s.unique = x.Bool
		case "minimum":
			s.minimum = numberValue(x)
		case "maximum":
			s.maximum = numberValue(x)
		case "exclusiveMinimum":
			s.exclMin = numberValue(x)
		case "exclusiveMaximum":
			s.exclMax = numberValue(x)
		case "multipleOf":
			s.multipleOf = numberValue(x)
		case "pattern":
			s.pattern, err = c.regexp(x.Str)
		case "required":
			for _, e := range x.Elems {
				s.required = append(s.required, e.Str)
			}
		case "properties":
			s.props = make(map[string]*Schema, len(x.Members))
			for _, mm := range x.Members {
				if s.props[mm.Key], err = subAt(p + "/" + canon.PointerToken(mm.Key)); err != nil {
					return err
				}
			}
		case "patternProperties":
			for _, mm := range x.Members {
				pp := patternProp{}
				if pp.re, err = c.regexp(mm.Key); err != nil {
					return err
				}
				if pp.schema, err = subAt(p + "/" + canon.PointerToken(mm.Key)); err != nil {
					return err
				}
				s.patternProps = append(s.patternProps, pp)
			}
		case "additionalProperties":
			if x.Kind == canon.Bool {
				s.noAddProps = !x.Bool
			} else {
				s.addProps, err = sub(m.Key)
			}
		case "propertyNames":
			s.propNames, err = sub(m.Key)
		case "dependencies":
			for _, mm := range x.Members {
				dep := dependency{name: mm.Key}
				if mm.Value.Kind == canon.Array {
					for _, e := range mm.Value.Elems {
						dep.required = append(dep.required, e.Str)
					}
				} else if dep.schema, err = subAt(p + "/" + canon.PointerToken(mm.Key)); err != nil {
					return err
				}
				s.deps = append(s.deps, dep)
			}
		case "items":
			if x.Kind == canon.Array {
				s.tupleItems = make([]*Schema, len(x.Elems))
				for i := range x.Elems {
					if s.tupleItems[i], err = subAt(p + "/" + strconv.Itoa(i)); err != nil {
						return err
					}
				}
			} else {
				s.items, err = sub(m.Key)
			}
		case "contains":
			s.contains, err = sub(m.Key)
		case "not":
			s.not, err = sub(m.Key)
		case "if":
			s.ifS, err = sub(m.Key)
		case "allOf", "anyOf", "oneOf":
			list := make([]*Schema, len(x.Elems))
			for i := range x.Elems {
				if list[i], err = subAt(p + "/" + strconv.Itoa(i)); err != nil {
					return err
				}
			}
			switch m.Key {
			case "allOf":
				s.allOf = list
			case "anyOf":
				s.anyOf = list
			default:
				s.oneOf = list
			}
		}
		if err != nil {
			return err
		}
	}
	if s.ifS != nil {
		// then and else apply only with an if.
		if _, ok := v.Lookup("then"); ok {
			if s.thenS, err = sub("then"); err != nil {
				return err
			}
		}
		if _, ok := v.Lookup("else"); ok {
			if s.elseS, err = sub("else"); err != nil {
				return err
			}
		}
	}
	if s.tupleItems != nil {
		// additionalItems applies only after an array of items.
		if x, ok := v.Lookup("additionalItems"); ok {
			if x.Kind == canon.Bool {
				s.noAddItems = !x.Bool
			} else if s.addItems, err = sub("additionalItems"); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve returns the schema that the $ref value ref, at ptr in d, names.
func (c *Compiler) resolve(d *document, ptr, ref string, added *[]location) (*Schema, error) {
	fail := func(format string, args ...any) error {
		return &SchemaError{d.name, ptr + "/$ref", fmt.Sprintf(format, args...)}
	}
	base, _ := url.Parse(d.baseOf(ptr))
	r, err := url.Parse(ref)
	if err != nil {
		return nil, fail("%q is not a URI reference", ref)
	}
	abs := base.ResolveReference(r)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	res, ok := c.resources[abs.String()]
	if !ok && isMetaschema(abs.String()) {
		if err := c.addMetaschema(); err != nil {
			return nil, err
		}
		res, ok = c.resources[metaschemaURL]
	}
	if !ok {
		return nil, fail("schema %s is not in the corpus, and referee fetches nothing", abs)
	}
	l := res
	switch {
	case frag == "":
	case strings.HasPrefix(frag, "/"):
		p, ok := canonicalPointer(res.doc.root, res.ptr, frag)
		if !ok {
			return nil, fail("%s#%s: no such value", abs, frag)
		}
		l.ptr = p
	default:
		if l, ok = c.anchors[abs.String()+"#"+frag]; !ok {
			return nil, fail("%s#%s: no such $id", abs, frag)
		}
	}
	return c.node(l, added)
}

// isMetaschema reports whether u names the draft-07 metaschema.
func isMetaschema(u string) bool {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	return u == strings.TrimPrefix(metaschemaURL, "http://")
}

func (c *Compiler) addMetaschema() error {
	if _, ok := c.resources[metaschemaURL]; ok {
		return nil
	}
	v, err := canon.Parse([]byte(metaschema), canon.ReadOptions{})
	if err != nil {
		return err
	}
	return c.add("draft-07 metaschema", v, metaschemaURL)
}

// regexp compiles an ECMA-262 pattern, once per Compiler.
func (c *Compiler) regexp(expr string) (*ecmaregexp.Regexp, error) {
	if re, ok := c.regexps[expr]; ok {
		return re, nil
	}
	re, err := ecmaregexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	c.regexps[expr] = re
	return re, nil
}

// cycles refuses a schema in which a $ref chain, through keywords that
// apply to the same value (allOf, not, if, dependencies...), comes back to
// where it started: validating with it would never end.
func cycles(root *Schema) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*Schema]int{}
	var visit func(s *Schema) error
	visit = func(s *Schema) error {
		switch state[s] {
		case active:
			return &SchemaError{s.doc.name, s.ptr, "a $ref cycle comes back here without descending into the value"}
		case done:
			return nil
		}
		state[s] = active
		for _, x := range s.inPlace() {
			if err := visit(x); err != nil {
				return err
			}
		}
		state[s] = done
		return nil
	}
	// Every schema reachable from root, by any keyword.
	seen := map[*Schema]bool{root: true}
	queue := []*Schema{root}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if err := visit(s); err != nil {
			return err
		}
		for _, x := range s.children() {
			if !seen[x] {
				seen[x] = true
				queue = append(queue, x)
			}
		}
	}
	return nil
}

// children lists every schema s refers to.
func (s *Schema) children() []*Schema {
	out := s.inPlace()
	for _, p := range s.props {
		out = append(out, p)
	}
	for _, p := range s.patternProps {
		out = append(out, p.schema)
	}
	out = append(out, s.tupleItems...)
	for _, x := range []*Schema{s.addProps, s.propNames, s.items, s.addItems, s.contains} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// count reads a non-negative integer keyword (checked), saturating.
func count(x canon.Value) int {
	d, _ := parseDecimal(x.Num)
	if d.digits == "" {
		return 0
	}
	if d.exp+int64(len(d.digits)) > 18 {
		return math.MaxInt
	}
	n, _ := strconv.ParseInt(d.digits+strings.Repeat("0", int(d.exp)), 10, 64)
	return int(n)
}

func numberValue(x canon.Value) *decimal {
	d, _ := parseDecimal(x.Num)
	return &d
}

// escape encodes a JSON pointer token.

// valueAt returns the value at the canonical pointer ptr under v.
func valueAt(v canon.Value, ptr string) (canon.Value, bool) {
	_, out, ok := walkPointer(v, ptr)
	return out, ok
}

// canonicalPointer resolves frag (a JSON pointer, decoded from a URI
// fragment) under the value at prefix, and returns the canonical pointer of
// the value it names from v.
func canonicalPointer(v canon.Value, prefix, frag string) (string, bool) {
	start, ok := valueAt(v, prefix)
	if !ok {
		return "", false
	}
	p, _, ok := walkPointer(start, frag)
	return prefix + p, ok
}

// walkPointer follows the JSON pointer ptr under v and returns its canonical
// form (tokens re-escaped) and the value it names.
func walkPointer(v canon.Value, ptr string) (string, canon.Value, bool) {
	if ptr == "" {
		return "", v, true
	}
	if ptr[0] != '/' {
		return "", canon.Value{}, false
	}
	var b strings.Builder
	for _, tok := range strings.Split(ptr[1:], "/") {
		t, ok := unescape(tok)
		if !ok {
			return "", canon.Value{}, false
		}
		switch v.Kind {
		case canon.Object:
			found := false
			for i := len(v.Members) - 1; i >= 0; i-- {
				if v.Members[i].Key == t {
					v, found = v.Members[i].Value, true
					break
				}
			}
			if !found {
				return "", canon.Value{}, false
			}
		case canon.Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v.Elems) || strconv.Itoa(i) != t {
				return "", canon.Value{}, false
			}
			v = v.Elems[i]
		default:
			return "", canon.Value{}, false
		}
		b.WriteByte('/')
		b.WriteString(canon.PointerToken(t))
	}
	return b.String(), v, true
}

// unescape decodes a JSON pointer token; ok is false for a ~ not
// followed by 0 or 1.
func unescape(tok string) (string, bool) {
	if !strings.Contains(tok, "~") {
		return tok, true
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] != '~' {
			b.WriteByte(tok[i])
			continue
		}
		if i+1 == len(tok) || (tok[i+1] != '0' && tok[i+1] != '1') {
			return "", false
		}
		b.WriteByte("~/"[tok[i+1]-'0'])
		i++
	}
	return b.String(), true
}
