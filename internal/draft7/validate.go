package draft7

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/ecmaregexp"
)

// Validate checks v against s and returns every error, in the order the
// keywords are evaluated (an enclosing keyword before the errors it holds),
// or nil when v is valid.
func (s *Schema) Validate(v canon.Value) []Error {
	var vd validation
	vd.apply(s, &v, false)
	// A keyword no pattern could decide leaves the verdict unknown wherever
	// it was (under not, anyOf or if too): it is always reported.
	for _, e := range vd.undecided {
		if !slices.Contains(vd.errs, e) {
			vd.errs = append(vd.errs, e)
		}
	}
	return vd.errs
}

// validation is one run of Validate.
type validation struct {
	errs      []Error
	undecided []Error  // keywords failed because a match spent its budget, quiet or not
	path      []string // instance path tokens, unescaped
}

// apply reports whether v is valid against s. Unless quiet, it records the
// errors; quiet, it stops at the first one.
func (vd *validation) apply(s *Schema, v *canon.Value, quiet bool) bool {
	if s.always != nil {
		if !*s.always {
			vd.fail(quiet, "false schema")
		}
		return *s.always
	}
	if s.ref != nil {
		mark := len(vd.errs)
		if vd.apply(s.ref, v, quiet) {
			return true
		}
		vd.failAt(quiet, mark, "$ref")
		return false
	}
	// A failed type, const, enum or format ends the evaluation.
	switch {
	case s.types != 0 && !s.types.holds(v):
		vd.fail(quiet, "type")
		return false
	case s.constKey != nil && key(*v) != *s.constKey:
		vd.fail(quiet, "const")
		return false
	case s.enumKeys != nil && !s.enumKeys[key(*v)]:
		vd.fail(quiet, "enum")
		return false
	case v.Kind == canon.String && (s.format != nil && !s.format(v.Str) || s.fmtRegex && !isRegex(v.Str)):
		vd.fail(quiet, "format")
		return false
	}
	ok := true
	switch v.Kind {
	case canon.Object:
		ok = vd.object(s, v, quiet)
	case canon.Array:
		ok = vd.array(s, v, quiet)
	case canon.String:
		ok = vd.str(s, v.Str, quiet)
	case canon.Number:
		ok = vd.num(s, v.Num, quiet)
	}
	if !ok && quiet {
		return false
	}
	return vd.combined(s, v, quiet) && ok
}

// fail records an error at the current instance path.
func (vd *validation) fail(quiet bool, keyword string) {
	if !quiet {
		vd.errs = append(vd.errs, Error{vd.pointer(), keyword, ""})
	}
}

// undecidedBy fails keyword because a match gave up (err), and notes it
// for Validate to report even where it was evaluated quietly.
func (vd *validation) undecidedBy(quiet bool, keyword string, err error) {
	e := Error{vd.pointer(), keyword, err.Error()}
	if !slices.Contains(vd.undecided, e) {
		vd.undecided = append(vd.undecided, e)
	}
	if !quiet {
		vd.errs = append(vd.errs, e)
	}
}

// failAt records an error before the errors recorded since mark: those it holds.
func (vd *validation) failAt(quiet bool, mark int, keyword string) {
	if !quiet {
		vd.errs = slices.Insert(vd.errs, mark, Error{vd.pointer(), keyword, ""})
	}
}

func (vd *validation) pointer() string {
	var b strings.Builder
	for _, t := range vd.path {
		b.WriteByte('/')
		b.WriteString(canon.PointerToken(t))
	}
	return b.String()
}

// child applies s to the element or member tok of the current value.
func (vd *validation) child(s *Schema, v *canon.Value, tok string, quiet bool) bool {
	vd.path = append(vd.path, tok)
	ok := vd.apply(s, v, quiet)
	vd.path = vd.path[:len(vd.path)-1]
	return ok
}

func (t typeSet) holds(v *canon.Value) bool {
	switch v.Kind {
	case canon.Null:
		return t&tNull != 0
	case canon.Bool:
		return t&tBoolean != 0
	case canon.Object:
		return t&tObject != 0
	case canon.Array:
		return t&tArray != 0
	case canon.String:
		return t&tString != 0
	case canon.Number:
		if t&tNumber != 0 {
			return true
		}
		d, ok := parseDecimal(v.Num)
		return t&tInteger != 0 && ok && d.isInt()
	}
	return false
}

func (vd *validation) object(s *Schema, v *canon.Value, quiet bool) bool {
	ok := true
	// bad records a failed keyword and says whether to stop (when quiet).
	bad := func(keyword string) bool {
		vd.fail(quiet, keyword)
		ok = false
		return quiet
	}
	n := len(v.Members)
	if s.minProps >= 0 && n < s.minProps && bad("minProperties") {
		return false
	}
	if s.maxProps >= 0 && n > s.maxProps && bad("maxProperties") {
		return false
	}
	names := memberNames(v)
	if !names.hasAll(s.required) && bad("required") {
		return false
	}
	for _, d := range s.deps {
		switch {
		case !names.has(d.name):
		case d.schema != nil:
			if !vd.apply(d.schema, v, quiet) {
				if ok = false; quiet {
					return false
				}
			}
		case !names.hasAll(d.required):
			if bad("dependencies") {
				return false
			}
		}
	}
	extra := false
	for i := range v.Members {
		m := &v.Members[i]
		seen := false
		if p, found := s.props[m.Key]; found {
			seen = true
			if !vd.child(p, &m.Value, m.Key, quiet) {
				if ok = false; quiet {
					return false
				}
			}
		}
		for _, pp := range s.patternProps {
			match, err := pp.re.MatchString(m.Key)
			if err != nil {
				// Undecided: the name counts as seen, and the keyword fails.
				seen = true
				vd.undecidedBy(quiet, "patternProperties", fmt.Errorf("property %q: %w", m.Key, err))
				if ok = false; quiet {
					return false
				}
				continue
			}
			if !match {
				continue
			}
			seen = true
			if !vd.child(pp.schema, &m.Value, m.Key, quiet) {
				if ok = false; quiet {
					return false
				}
			}
		}
		switch {
		case seen:
		case s.noAddProps:
			extra = true
		case s.addProps != nil:
			if !vd.child(s.addProps, &m.Value, m.Key, quiet) {
				if ok = false; quiet {
					return false
				}
			}
		}
	}
	if extra && bad("additionalProperties") {
		return false
	}
	if s.propNames != nil {
		// A name's errors sit at the object, as Ajv puts them.
		for i := range v.Members {
			mark := len(vd.errs)
			name := canon.Value{Kind: canon.String, Str: v.Members[i].Key}
			if !vd.apply(s.propNames, &name, quiet) {
				vd.failAt(quiet, mark, "propertyNames")
				if ok = false; quiet {
					return false
				}
			}
		}
	}
	return ok
}

// nameSet answers which member names an object has.
type nameSet struct {
	v *canon.Value
	m map[string]bool // built for large objects
}

func memberNames(v *canon.Value) nameSet {
	ns := nameSet{v: v}
	if len(v.Members) > 16 {
		ns.m = make(map[string]bool, len(v.Members))
		for _, m := range v.Members {
			ns.m[m.Key] = true
		}
	}
	return ns
}

func (ns nameSet) has(name string) bool {
	if ns.m != nil {
		return ns.m[name]
	}
	_, ok := ns.v.Lookup(name)
	return ok
}

func (ns nameSet) hasAll(names []string) bool {
	for _, n := range names {
		if !ns.has(n) {
			return false
		}
	}
	return true
}

func (vd *validation) array(s *Schema, v *canon.Value, quiet bool) bool {
	ok := true
	bad := func(keyword string) bool {
		vd.fail(quiet, keyword)
		ok = false
		return quiet
	}
	n := len(v.Elems)
	if s.minItems >= 0 && n < s.minItems && bad("minItems") {
		return false
	}
	if s.maxItems >= 0 && n > s.maxItems && bad("maxItems") {
		return false
	}
	if s.unique && n > 1 && !allDistinct(v.Elems) && bad("uniqueItems") {
		return false
	}
	each := func(sch *Schema, from, to int) bool {
		for i := from; i < to; i++ {
			if !vd.child(sch, &v.Elems[i], strconv.Itoa(i), quiet) {
				if ok = false; quiet {
					return false
				}
			}
		}
		return true
	}
	switch {
	case s.items != nil:
		if !each(s.items, 0, n) {
			return false
		}
	case s.tupleItems != nil:
		for i := 0; i < n && i < len(s.tupleItems); i++ {
			if !each(s.tupleItems[i], i, i+1) {
				return false
			}
		}
		if rest := len(s.tupleItems); n > rest {
			if s.noAddItems && bad("additionalItems") {
				return false
			}
			if s.addItems != nil && !each(s.addItems, rest, n) {
				return false
			}
		}
	}
	if s.contains != nil && !vd.someItem(s.contains, v, quiet) {
		ok = false
	}
	return ok
}

// someItem applies contains: it fails, unless an element is valid, with
// every element's errors after its own.
func (vd *validation) someItem(s *Schema, v *canon.Value, quiet bool) bool {
	for i := range v.Elems {
		if vd.child(s, &v.Elems[i], strconv.Itoa(i), true) {
			return true
		}
	}
	if !quiet {
		mark := len(vd.errs)
		for i := range v.Elems {
			vd.child(s, &v.Elems[i], strconv.Itoa(i), false)
		}
		vd.failAt(false, mark, "contains")
	}
	return false
}

func (vd *validation) str(s *Schema, str string, quiet bool) bool {
	ok := true
	if s.minLen >= 0 || s.maxLen >= 0 {
		n := canon.CodePoints(str)
		if s.minLen >= 0 && n < s.minLen {
			if vd.fail(quiet, "minLength"); quiet {
				return false
			}
			ok = false
		}
		if s.maxLen >= 0 && n > s.maxLen {
			if vd.fail(quiet, "maxLength"); quiet {
				return false
			}
			ok = false
		}
	}
	if s.pattern != nil {
		if match, err := s.pattern.MatchString(str); err != nil {
			vd.undecidedBy(quiet, "pattern", err)
			ok = false
		} else if !match {
			vd.fail(quiet, "pattern")
			ok = false
		}
	}
	return ok
}

func (vd *validation) num(s *Schema, lex string, quiet bool) bool {
	if s.minimum == nil && s.maximum == nil && s.exclMin == nil && s.exclMax == nil && s.multipleOf == nil {
		return true
	}
	d, valid := parseDecimal(lex)
	ok := true
	checks := []struct {
		bound   *decimal
		holds   func(*decimal) bool
		keyword string
	}{
		{s.minimum, func(b *decimal) bool { return d.cmp(*b) >= 0 }, "minimum"},
		{s.maximum, func(b *decimal) bool { return d.cmp(*b) <= 0 }, "maximum"},
		{s.exclMin, func(b *decimal) bool { return d.cmp(*b) > 0 }, "exclusiveMinimum"},
		{s.exclMax, func(b *decimal) bool { return d.cmp(*b) < 0 }, "exclusiveMaximum"},
		{s.multipleOf, func(b *decimal) bool { return d.multipleOf(*b) }, "multipleOf"},
	}
	for _, c := range checks {
		if c.bound != nil && (!valid || !c.holds(c.bound)) {
			if vd.fail(quiet, c.keyword); quiet {
				return false
			}
			ok = false
		}
	}
	return ok
}

// combined applies not, allOf, anyOf, oneOf and if/then/else.
func (vd *validation) combined(s *Schema, v *canon.Value, quiet bool) bool {
	ok := true
	if s.not != nil && vd.apply(s.not, v, true) {
		if vd.fail(quiet, "not"); quiet {
			return false
		}
		ok = false
	}
	if len(s.allOf) > 0 {
		mark := len(vd.errs)
		failed := false
		for _, x := range s.allOf {
			if !vd.apply(x, v, quiet) {
				if failed = true; quiet {
					return false
				}
			}
		}
		if failed {
			vd.failAt(quiet, mark, "allOf")
			ok = false
		}
	}
	if len(s.anyOf) > 0 && !slices.ContainsFunc(s.anyOf, func(x *Schema) bool { return vd.apply(x, v, true) }) {
		if quiet {
			return false
		}
		vd.branches(s.anyOf, v, "anyOf")
		ok = false
	}
	if len(s.oneOf) > 0 {
		valid := 0
		for _, x := range s.oneOf {
			if vd.apply(x, v, true) {
				if valid++; valid == 2 {
					break
				}
			}
		}
		if valid != 1 {
			if quiet {
				return false
			}
			if valid == 0 {
				vd.branches(s.oneOf, v, "oneOf")
			} else {
				vd.fail(false, "oneOf") // more than one branch holds: no branch's errors
			}
			ok = false
		}
	}
	if s.ifS != nil {
		next := s.elseS
		if vd.apply(s.ifS, v, true) {
			next = s.thenS
		}
		if next != nil && !vd.apply(next, v, quiet) {
			ok = false
		}
	}
	return ok
}

// branches records keyword, failed, followed by every branch's errors.
func (vd *validation) branches(list []*Schema, v *canon.Value, keyword string) {
	mark := len(vd.errs)
	for _, x := range list {
		vd.apply(x, v, false)
	}
	vd.failAt(false, mark, keyword)
}

// isRegex is format "regex": an ECMA-262 regular expression.
func isRegex(s string) bool {
	_, err := ecmaregexp.Compile(s)
	return err == nil
}

// allDistinct reports whether no two elements are equal (JSON equality).
func allDistinct(elems []canon.Value) bool {
	seen := make(map[string]bool, len(elems))
	for _, e := range elems {
		k := key(e)
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// key returns a string equal for two values exactly when they are equal
// JSON: numbers by value, object members in any order.
func key(v canon.Value) string { return string(appendKey(nil, &v)) }

func appendKey(b []byte, v *canon.Value) []byte {
	switch v.Kind {
	case canon.Null:
		return append(b, 'n')
	case canon.Bool:
		if v.Bool {
			return append(b, 't')
		}
		return append(b, 'f')
	case canon.Number:
		if d, ok := parseDecimal(v.Num); ok {
			return append(append(append(b, 'd'), d.key()...), ';')
		}
		return append(append(append(b, 'N'), strconv.Quote(v.Num)...), ';')
	case canon.String:
		return appendString(append(b, 's'), v.Str)
	case canon.Array:
		b = append(b, '[')
		for i := range v.Elems {
			b = appendKey(b, &v.Elems[i])
		}
		return append(b, ']')
	case canon.Object:
		order := make([]int, len(v.Members))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(i, j int) bool { return v.Members[order[i]].Key < v.Members[order[j]].Key })
		b = append(b, '{')
		for _, i := range order {
			b = appendString(b, v.Members[i].Key)
			b = appendKey(b, &v.Members[i].Value)
		}
		return append(b, '}')
	}
	return append(b, '?')
}

func appendString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	return append(append(b, ':'), s...)
}
