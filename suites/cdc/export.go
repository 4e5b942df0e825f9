package cdc

import (
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazyregexp"
)

// JSTSDir is where a contract checkout or package keeps its own
// JSON-Schema-Test-Suite export: one file per schema.
const JSTSDir = "conformance/suite/draft7"

// CaseLineBudget is the most bytes a case may take as one line of JSON
// (JSON.stringify of the case): Bowtie's Go harness reads a case as a line.
const CaseLineBudget = 60000

// The label templates of a case description; {title} is the schema's title
// and {file} its file name.
const (
	// DefaultJSTSLabel is referee's label.
	DefaultJSTSLabel = "{title} ({file}, exported by referee from the corpus): every fixture of the conformance corpus"
	// UpstreamJSTSLabel is the contract's own label after 1.2.1 (34d0b778).
	UpstreamJSTSLabel = "{title} ({file}, exported from a tree at @cognitive-delivery/contract 1.2.1; on main its descriptions may be ahead of that tag): every fixture of the conformance corpus"
)

// wholeTail ends a label of the whole corpus; a file split into parts says
// "fixtures, part i of n" in its place.
const wholeTail = "every fixture of the conformance corpus"

// JSTSFile is one file of a JSON-Schema-Test-Suite export.
type JSTSFile struct {
	Name  string // file name in the export directory: <shape>.json
	Shape string
	Cases int
	Tests int
	Bytes []byte // JSON.stringify(cases, null, 2) + "\n"

	cases []canon.Value
}

// ExportJSTS writes the corpus as JSON-Schema-Test-Suite draft-07 files, one
// per schema, sorted by name. Each is an array of cases {description, schema,
// tests}, the schema embedded whole (its $refs are all local), the tests
// every valid fixture of the shape, then every invalid one, then every
// by-rule one (which the schema accepts), each group in file-name order.
// Tests are split into as few cases as keep each case's one-line JSON within
// CaseLineBudget. label is the case description's template (see
// DefaultJSTSLabel). The bytes are those of JSON.stringify(cases, null, 2)
// followed by a newline, so that they compare with the contract's own export.
func (cp *Corpus) ExportJSTS(label string) ([]JSTSFile, error) {
	return cp.exportJSTS(func(_, title, file string) string {
		return strings.NewReplacer("{title}", title, "{file}", file).Replace(label)
	})
}

func (cp *Corpus) exportJSTS(labelFor func(shape, title, file string) string) ([]JSTSFile, error) {
	var out []JSTSFile
	for _, shape := range cp.Shapes {
		schemaFile := shape + ".schema.json"
		raw, err := fs.ReadFile(cp.FS, "schemas/"+schemaFile)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: schemas/%s: %w", cp.Name, schemaFile, err)
		}
		schema, err := canon.Parse(raw, canon.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("corpus %s: schemas/%s: %w", cp.Name, schemaFile, err)
		}
		title := shape
		if t, ok := schema.Lookup("title"); ok && t.Kind == canon.String {
			title = t.Str
		}
		tests := cp.jstsTests(shape)
		if len(tests) == 0 {
			continue
		}
		cases, err := splitCases(labelFor(shape, title, schemaFile), schema, tests)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s.json: %v", cp.Name, shape, err)
		}
		b := appendJS(nil, &canon.Value{Kind: canon.Array, Elems: cases}, "  ", "")
		out = append(out, JSTSFile{Name: shape + ".json", Shape: shape, Cases: len(cases), Tests: len(tests), Bytes: append(b, '\n'), cases: cases})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// jstsTests returns the shape's tests: valid, invalid, then by-rule fixtures.
func (cp *Corpus) jstsTests(shape string) []canon.Value {
	var tests []canon.Value
	add := func(fixtures []Fixture, describe func(Fixture) string, valid bool) {
		for _, f := range fixtures {
			if f.Shape == shape {
				tests = append(tests, object(
					canon.Member{Key: "description", Value: str(describe(f))},
					canon.Member{Key: "data", Value: f.Value},
					canon.Member{Key: "valid", Value: canon.Value{Kind: canon.Bool, Bool: valid}},
				))
			}
		}
	}
	add(cp.Valid, func(f Fixture) string { return f.Name() + " validates" }, true)
	add(cp.Invalid, func(f Fixture) string { return f.Name() + " is refused" }, false)
	add(cp.ByRule, func(f Fixture) string {
		rule := "a SPEC §6 rule"
		if f.Expect != nil && f.Expect.Rule != nil {
			rule = "SPEC §6 rule " + *f.Expect.Rule
		}
		return f.Name() + " is schema-valid and refused by " + rule + ", which the schema cannot state"
	}, true)
	return tests
}

// partLabel is the description of part i of n of a split file.
func partLabel(label string, i, n int) string {
	if n == 1 {
		return label
	}
	if strings.HasSuffix(label, wholeTail) {
		return fmt.Sprintf("%sfixtures, part %d of %d", strings.TrimSuffix(label, wholeTail), i, n)
	}
	return fmt.Sprintf("%s (part %d of %d)", label, i, n)
}

var (
	partTail  = lazyregexp.New(`^(.*)fixtures, part \d+ of \d+$`)
	partParen = lazyregexp.New(`^(.*) \(part \d+ of \d+\)$`)
)

// wholeLabel undoes partLabel: the label a case description was made from.
func wholeLabel(desc string) string {
	if m := partTail.FindStringSubmatch(desc); m != nil {
		return m[1] + wholeTail
	}
	if m := partParen.FindStringSubmatch(desc); m != nil {
		return m[1]
	}
	return desc
}

// splitCases puts tests into cases greedily, in order: a case takes tests
// while its one-line JSON, with its final description, stays within
// CaseLineBudget.
func splitCases(label string, schema canon.Value, tests []canon.Value) ([]canon.Value, error) {
	schemaLen := len(appendJS(nil, &schema, "", ""))
	lens := make([]int, len(tests))
	for i := range tests {
		lens[i] = len(appendJS(nil, &tests[i], "", ""))
	}
	// {"description":D,"schema":S,"tests":[T,T]}
	lineLen := func(desc string, from, to int) int {
		n := len(`{"description":`) + len(appendJSString(nil, desc)) + len(`,"schema":`) + schemaLen + len(`,"tests":[`) + len(`]}`)
		for i := from; i < to; i++ {
			n += lens[i]
		}
		if to-from > 1 {
			n += to - from - 1
		}
		return n
	}
	greedy := func(parts int) []int {
		var bounds []int
		start := 0
		for i := range tests {
			if i > start && lineLen(partLabel(label, len(bounds)+1, parts), start, i+1) > CaseLineBudget {
				bounds = append(bounds, i)
				start = i
			}
		}
		return append(bounds, len(tests))
	}
	// The descriptions depend on the number of parts, which depends on
	// their lengths: settle it by iterating, from one part.
	parts := 1
	var bounds []int
	for range 8 {
		bounds = greedy(parts)
		if len(bounds) == parts {
			break
		}
		parts = len(bounds)
	}
	parts = len(bounds)
	var cases []canon.Value
	start := 0
	for i, end := range bounds {
		desc := partLabel(label, i+1, parts)
		if n := lineLen(desc, start, end); n > CaseLineBudget && end-start == 1 {
			return nil, fmt.Errorf("test %q alone makes a case of %d bytes, above the case line budget of %d", tests[start].Members[0].Value.Str, n, CaseLineBudget)
		} else if n > CaseLineBudget {
			return nil, fmt.Errorf("case %d of %d takes %d bytes, above the case line budget of %d", i+1, parts, n, CaseLineBudget)
		}
		cases = append(cases, object(
			canon.Member{Key: "description", Value: str(desc)},
			canon.Member{Key: "schema", Value: schema},
			canon.Member{Key: "tests", Value: canon.Value{Kind: canon.Array, Elems: tests[start:end]}},
		))
		start = end
	}
	return cases, nil
}

func object(ms ...canon.Member) canon.Value { return canon.Value{Kind: canon.Object, Members: ms} }

func str(s string) canon.Value { return canon.Value{Kind: canon.String, Str: s} }

// JSTSCheck is one file of the contract's own export compared with the
// export of its corpus.
type JSTSCheck struct {
	Name  string // file name in JSTSDir
	Cases int    // cases and tests of the export
	Tests int
	Diff  string // the first difference, "" when the corpus's copy is up to date
}

// CompareJSTS exports the corpus and compares each file with the corpus's
// own copy in JSTSDir by what a validator sees: the cases (how the tests are
// split), each case's schema, and each test's description, data and
// validity. Case descriptions are not compared, since they carry a label. The
// label still sets where a file splits, since it counts towards the case
// line budget: label "" takes each file's label from the corpus's own copy,
// so that the split is the one its exporter made. Values compare as
// JSON.parse reads them: 1.0 equals 1, and members keep JavaScript's order.
// A file of JSTSDir that the export lacks is reported too.
func (cp *Corpus) CompareJSTS(label string) ([]JSTSCheck, error) {
	own := map[string][]canon.Value{}
	problems := map[string]string{}
	names, _ := fs.Glob(cp.FS, JSTSDir+"/*.json")
	for _, p := range names {
		name := p[len(JSTSDir)+1:]
		raw, err := fs.ReadFile(cp.FS, p)
		if err != nil {
			problems[name] = err.Error()
			continue
		}
		v, err := canon.Parse(raw, canon.ReadOptions{Duplicates: canon.LastWins})
		switch {
		case err != nil:
			problems[name] = "the corpus's copy is not JSON: " + err.Error()
		case v.Kind != canon.Array:
			problems[name] = "the corpus's copy is " + v.Kind.String() + ", not an array of cases"
		default:
			own[name] = v.Elems
		}
	}
	labelFor := func(shape, title, file string) string {
		if label != "" {
			return strings.NewReplacer("{title}", title, "{file}", file).Replace(label)
		}
		if cases := own[shape+".json"]; len(cases) > 0 {
			if d, ok := cases[0].Lookup("description"); ok && d.Kind == canon.String {
				return wholeLabel(d.Str)
			}
		}
		return strings.NewReplacer("{title}", title, "{file}", file).Replace(DefaultJSTSLabel)
	}
	files, err := cp.exportJSTS(labelFor)
	if err != nil {
		return nil, err
	}
	var out []JSTSCheck
	exported := map[string]bool{}
	for _, f := range files {
		exported[f.Name] = true
		c := JSTSCheck{Name: f.Name, Cases: f.Cases, Tests: f.Tests}
		switch theirs, ok := own[f.Name]; {
		case problems[f.Name] != "":
			c.Diff = problems[f.Name]
		case !ok:
			c.Diff = "missing from the corpus (no " + JSTSDir + "/" + f.Name + ")"
		default:
			c.Diff = diffCases(f.cases, theirs)
		}
		out = append(out, c)
	}
	for _, p := range names {
		if name := p[len(JSTSDir)+1:]; !exported[name] {
			out = append(out, JSTSCheck{Name: name, Diff: "in the corpus, but the export has no such file (no schemas/" + strings.TrimSuffix(name, ".json") + ".schema.json with fixtures)"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// diffCases returns the first difference between our cases and theirs.
func diffCases(ours, theirs []canon.Value) string {
	for ci := 0; ci < len(ours) && ci < len(theirs); ci++ {
		where := fmt.Sprintf("case %d", ci+1)
		o, t := ours[ci], theirs[ci]
		if t.Kind != canon.Object {
			return where + " is " + t.Kind.String() + " in the corpus, not an object"
		}
		for _, m := range t.Members {
			if m.Key != "description" && m.Key != "schema" && m.Key != "tests" {
				return fmt.Sprintf("%s: member %q in the corpus, which the export does not write", where, m.Key)
			}
		}
		osch, _ := o.Lookup("schema")
		ts, ok := t.Lookup("schema")
		if !ok {
			return where + ": no schema in the corpus"
		}
		if d := diffJS(&osch, &ts, ""); d != "" {
			return where + ": schema differs" + d
		}
		ot, _ := o.Lookup("tests")
		tt, ok := t.Lookup("tests")
		if !ok || tt.Kind != canon.Array {
			return where + ": no tests array in the corpus"
		}
		for ti := 0; ti < len(ot.Elems) && ti < len(tt.Elems); ti++ {
			if d := diffTest(ot.Elems[ti], tt.Elems[ti]); d != "" {
				return fmt.Sprintf("%s, test %d %s", where, ti+1, d)
			}
		}
		if len(ot.Elems) != len(tt.Elems) {
			return fmt.Sprintf("%s: %s in the export, %d in the corpus", where, plural(len(ot.Elems), "test"), len(tt.Elems))
		}
	}
	if len(ours) != len(theirs) {
		return fmt.Sprintf("%s in the export, %d in the corpus", plural(len(ours), "case"), len(theirs))
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func diffTest(o, t canon.Value) string {
	od, _ := o.Lookup("description")
	name := strconv.Quote(od.Str)
	if t.Kind != canon.Object {
		return name + ": " + t.Kind.String() + " in the corpus, not an object"
	}
	for _, m := range t.Members {
		if m.Key != "description" && m.Key != "data" && m.Key != "valid" {
			return fmt.Sprintf("%s: member %q in the corpus, which the export does not write", name, m.Key)
		}
	}
	td, ok := t.Lookup("description")
	if !ok || td.Kind != canon.String || td.Str != od.Str {
		return fmt.Sprintf("%s: description %s in the corpus", name, snippet(td, ok))
	}
	for _, key := range []string{"data", "valid"} {
		ov, _ := o.Lookup(key)
		tv, ok := t.Lookup(key)
		if !ok {
			return fmt.Sprintf("%s: no %s in the corpus", name, key)
		}
		if d := diffJS(&ov, &tv, ""); d != "" {
			return fmt.Sprintf("%s: %s differs%s", name, key, d)
		}
	}
	return ""
}

func snippet(v canon.Value, present bool) string {
	if !present {
		return "absent"
	}
	s := string(appendJS(nil, &v, "", ""))
	if len(s) > 80 {
		cut := 77
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// diffJS returns where a and b first differ as JSON.parse reads them, as
// " at POINTER: X in the export, Y in the corpus" (": X ..." at the root),
// or "".
func diffJS(a, b *canon.Value, ptr string) string {
	at := func(format string, args ...any) string {
		if ptr == "" {
			return ": " + fmt.Sprintf(format, args...)
		}
		return " at " + ptr + ": " + fmt.Sprintf(format, args...)
	}
	values := func() string {
		return at("%s in the export, %s in the corpus", snippet(*a, true), snippet(*b, true))
	}
	if a.Kind != b.Kind {
		return values()
	}
	switch a.Kind {
	case canon.Bool:
		if a.Bool != b.Bool {
			return values()
		}
	case canon.Number:
		if jsNumber(a.Num) != jsNumber(b.Num) {
			return values()
		}
	case canon.String:
		if a.Str != b.Str {
			return values()
		}
	case canon.Array:
		for i := 0; i < len(a.Elems) && i < len(b.Elems); i++ {
			if d := diffJS(&a.Elems[i], &b.Elems[i], ptr+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		if len(a.Elems) != len(b.Elems) {
			return at("%s in the export, %d in the corpus", plural(len(a.Elems), "element"), len(b.Elems))
		}
	case canon.Object:
		am, bm := jsMembers(a.Members), jsMembers(b.Members)
		for i := 0; i < len(am) && i < len(bm); i++ {
			if am[i].Key != bm[i].Key {
				return at("member %s in the export where the corpus has %s", strconv.Quote(am[i].Key), strconv.Quote(bm[i].Key))
			}
			if d := diffJS(&am[i].Value, &bm[i].Value, ptr+"/"+canon.PointerToken(am[i].Key)); d != "" {
				return d
			}
		}
		switch {
		case len(am) > len(bm):
			return at("member %s only in the export", strconv.Quote(am[len(bm)].Key))
		case len(am) < len(bm):
			return at("member %s only in the corpus", strconv.Quote(bm[len(am)].Key))
		}
	}
	return ""
}

// appendJS appends v as JSON.stringify(v, null, gap) writes it, at the
// given indentation: members in JavaScript's property order, numbers in
// ECMAScript form, strings escaped as JSON.stringify escapes them (control
// characters and lone surrogates only; <, >, &, U+2028 and U+2029 raw).
func appendJS(dst []byte, v *canon.Value, gap, indent string) []byte {
	switch v.Kind {
	case canon.Null:
		return append(dst, "null"...)
	case canon.Bool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case canon.Number:
		return append(dst, jsNumber(v.Num)...)
	case canon.String:
		return appendJSString(dst, v.Str)
	case canon.Array:
		if len(v.Elems) == 0 {
			return append(dst, "[]"...)
		}
		inner := indent + gap
		dst = append(dst, '[')
		for i := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			if gap != "" {
				dst = append(dst, '\n')
				dst = append(dst, inner...)
			}
			dst = appendJS(dst, &v.Elems[i], gap, inner)
		}
		if gap != "" {
			dst = append(dst, '\n')
			dst = append(dst, indent...)
		}
		return append(dst, ']')
	case canon.Object:
		if len(v.Members) == 0 {
			return append(dst, "{}"...)
		}
		inner := indent + gap
		dst = append(dst, '{')
		for i, m := range jsMembers(v.Members) {
			if i > 0 {
				dst = append(dst, ',')
			}
			if gap != "" {
				dst = append(dst, '\n')
				dst = append(dst, inner...)
			}
			dst = appendJSString(dst, m.Key)
			dst = append(dst, ':')
			if gap != "" {
				dst = append(dst, ' ')
			}
			dst = appendJS(dst, &m.Value, gap, inner)
		}
		if gap != "" {
			dst = append(dst, '\n')
			dst = append(dst, indent...)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// jsMembers returns ms in the order JavaScript enumerates an object's
// properties: keys that are array indices first, ascending, then the rest
// in insertion order. It returns ms itself when that is already the order.
func jsMembers(ms []canon.Member) []canon.Member {
	indexed := false
	for _, m := range ms {
		if _, ok := arrayIndex(m.Key); ok {
			indexed = true
			break
		}
	}
	if !indexed {
		return ms
	}
	var idx, rest []canon.Member
	for _, m := range ms {
		if _, ok := arrayIndex(m.Key); ok {
			idx = append(idx, m)
		} else {
			rest = append(rest, m)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, _ := arrayIndex(idx[i].Key)
		b, _ := arrayIndex(idx[j].Key)
		return a < b
	})
	return append(idx, rest...)
}

// arrayIndex reports whether key is an ECMAScript array index: the
// canonical decimal form of an integer below 2^32-1.
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (key[0] == '0' && len(key) > 1) {
		return 0, false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n >= 1<<32-1 {
		return 0, false
	}
	return n, true
}

// jsNumber is JSON.stringify(JSON.parse(lex)): the ECMAScript form of the
// nearest double, and null for a lexeme beyond the double range.
func jsNumber(lex string) string {
	digits := strings.TrimPrefix(lex, "-")
	if len(digits) <= 15 && digits != "" && strings.Trim(digits, "0123456789") == "" && (digits[0] != '0' || digits == "0") {
		if digits == "0" {
			return "0"
		}
		return lex
	}
	f, err := strconv.ParseFloat(lex, 64)
	if math.IsInf(f, 0) {
		return "null"
	}
	if err != nil {
		return lex
	}
	s, err := canon.FormatES6(f)
	if err != nil {
		return "null"
	}
	return s
}

// appendJSString appends s quoted as JSON.stringify quotes it. A lone
// surrogate, held by canon in its WTF-8 form, is written \udxxx.
func appendJSString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		var esc string
		size := 1
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c < 0x20:
			esc = `\u00` + string(hex[c>>4]) + string(hex[c&0xF])
		case c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF:
			r := 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			esc = `\u` + strconv.FormatInt(int64(r), 16)
			size = 3
		}
		if esc == "" {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
