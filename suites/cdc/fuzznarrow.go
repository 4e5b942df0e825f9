package cdc

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazyregexp"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// narrowVector is the narrowing-vectors.json entry for a pair: the
// reference's grant or refusals. A pair whose manifests break schema set
// 1.2's rules for what narrowing reads, or (where the corpus has one) its
// manifest schema, has none: narrowing assumes validated manifests (SPEC
// §9, item 1), and the vector's well-formedness check validates the
// declared, parent and granted manifests against the schema the written
// corpus holds.
func (m *fuzzMaterial) narrowVector(name string, input []byte) (any, bool) {
	pair, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || pair.Kind != canon.Object || len(pair.Members) != 2 {
		return nil, false
	}
	declared, ok1 := pair.Lookup("declared")
	parent, ok2 := pair.Lookup("parent")
	if !ok1 || !ok2 || !wellFormedManifest(declared) || !wellFormedManifest(parent) {
		return nil, false
	}
	schema := m.load() == nil && m.schemas["agent-lease-manifest"] != nil
	if schema && (!m.valid("agent-lease-manifest", declared) || !m.valid("agent-lease-manifest", parent)) {
		return nil, false
	}
	e := fuzzNarrowEntry{Name: name, Why: fuzzWhy, Parent: json.RawMessage(parent.String()), Declared: json.RawMessage(declared.String())}
	granted, refusals := pc.Narrow(declared, parent)
	if len(refusals) > 0 {
		e.Refusals = refusals
	} else {
		if schema && !m.valid("agent-lease-manifest", granted) {
			return nil, false
		}
		e.Granted = json.RawMessage(granted.String())
	}
	return e, true
}

// fuzzNarrowEntry is a narrowing vector as the file holds it: exactly one
// of granted and refusals.
type fuzzNarrowEntry struct {
	Name     string          `json:"name"`
	Why      string          `json:"why"`
	Parent   json.RawMessage `json:"parent"`
	Declared json.RawMessage `json:"declared"`
	Granted  json.RawMessage `json:"granted,omitempty"`
	Refusals []string        `json:"refusals,omitempty"`
}

// The known entries the narrowing generator draws from (fuzzWords adds
// the corpus's, variants and entries made up): entries that meet at every
// containment rule of §5.1 (and at the slips of the broken modes), each
// valid under schema set 1.2.
var (
	fuzzTools = []string{"cdf_write_artefact", "cdf_read_steering", "cdf_read_code_map", "github/create_issue", "mcp:search", "cdf.run"}
	fuzzPaths = []string{"**", "src/**", "src", "src/a.ts", "src/*.ts", "src/*", "src/lib/**", "src/lib/a.ts",
		"srcx/**", "src-old/a.ts", "docs/**", "docs/a.md", "lib/*.ts", "README.md", "test/unit/a.test.ts", "*.md", "./docs/**"}
	fuzzHosts = []string{"*", "*.example.com", "api.example.com", "example.com", "docs.example.com", "a.b.example.com",
		"*.api.example.com", "badexample.com", "127.0.0.1", "localhost", "*.anthropic.com", "api.anthropic.com"}
	fuzzCommands  = []string{"node", "git", "npm", "sudo", "docker", "claude", "python3"}
	fuzzDenyPaths = []string{".cdf/runtime/**", "~/.ssh/**", "secrets/**", "src/generated/**"}
	fuzzApprovals = []string{"phase.advance", "external.write", "deploy.prod"}
	fuzzKinds     = []string{"native", "delegated-cli", "plugin", "external"}
	fuzzRuntimes  = []string{"codex-cli", "claude-code", "gemini-code-assist", "github-copilot", "cdf-native", "unknown"}
	fuzzPurposes  = []string{"Implement task 2.1 within its file scope.", "Review the diff.", "   ", "\u3000"}
)

// fuzzWords are the narrowing generator's open vocabularies: the known
// entries (the generator's own, meeting at every containment rule, and
// those of the corpus's narrowing vectors), variants of them (longer,
// shorter, in another case, a level deeper, a wildcard added) and entries
// made up for each input, so that a class of entry no list names is
// reached by more than chance.
type fuzzWords struct {
	tools, paths, hosts, commands []string
}

// newFuzzWords returns the vocabularies, with the entries of the narrowing
// vectors vs added in the order they come, those schema set 1.2 allows in
// an allow list (a schema_invalid vector's are not).
func newFuzzWords(vs []NarrowVector) *fuzzWords {
	w := &fuzzWords{tools: slices.Clone(fuzzTools), paths: slices.Clone(fuzzPaths), hosts: slices.Clone(fuzzHosts), commands: slices.Clone(fuzzCommands)}
	valid := map[*[]string]func(string) bool{&w.tools: fuzzToolRe.MatchString, &w.paths: allowPath, &w.hosts: fuzzHostRe.MatchString, &w.commands: fuzzCommandRe.MatchString}
	add := func(list *[]string, a canon.Value) {
		for _, e := range a.Elems {
			if e.Kind == canon.String && valid[list](e.Str) && !slices.Contains(*list, e.Str) {
				*list = append(*list, e.Str)
			}
		}
	}
	for _, v := range vs {
		for _, raw := range []json.RawMessage{v.Parent, v.Declared} {
			m, err := canon.Parse(raw, canon.ReadOptions{})
			if err != nil {
				continue
			}
			allow, _ := m.Lookup("allow")
			deny, _ := m.Lookup("deny")
			add(&w.tools, lookup(allow, "tools"))
			add(&w.paths, lookup(allow, "read_paths"))
			add(&w.paths, lookup(allow, "write_paths"))
			add(&w.hosts, lookup(allow, "hosts"))
			add(&w.hosts, lookup(deny, "hosts"))
			add(&w.commands, lookup(allow, "commands"))
			add(&w.commands, lookup(deny, "commands"))
		}
	}
	return w
}

const (
	toolFirst   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
	toolRest    = toolFirst + ".:/-"
	labelChars  = "abcdefghijklmnopqrstuvwxyz0123456789"
	commandRest = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"
)

// made returns n characters, the first from first and the others from rest.
func made(r *rand.Rand, first, rest string, n int) string {
	var b strings.Builder
	for i := range n {
		set := rest
		if i == 0 {
			set = first
		}
		b.WriteByte(set[r.IntN(len(set))])
	}
	return b.String()
}

// word returns an entry: known most of the time, else a variant of a
// known one (vary) or one made up (make), kept only when valid says the
// schema allows it (a few tries, then a known one).
func (w *fuzzWords) word(r *rand.Rand, known []string, vary func(string) string, make func() string, valid func(string) bool) string {
	for range 4 {
		var e string
		switch r.IntN(8) {
		case 0, 1:
			e = vary(known[r.IntN(len(known))])
		case 2:
			e = make()
		default:
			return known[r.IntN(len(known))]
		}
		if valid(e) {
			return e
		}
	}
	return known[r.IntN(len(known))]
}

// allowPath reports whether p may be an allow path: not empty, and not
// escaping the workspace (§4.4).
func allowPath(p string) bool { return p != "" && !pc.PathEscapes(p) }

func (w *fuzzWords) tool(r *rand.Rand) string {
	return w.word(r, w.tools, func(t string) string { return varyTool(r, t) }, func() string { return made(r, toolFirst, toolRest, 1+r.IntN(16)) }, fuzzToolRe.MatchString)
}

// varyTool returns a tool near t: longer (t a prefix of it), one shorter,
// or in another case.
func varyTool(r *rand.Rand, t string) string {
	switch r.IntN(4) {
	case 0:
		return t + pickOf(r, []string{"_comment", "2", "/x", ".v2", ":beta", "-", "_"})
	case 1:
		if len(t) > 1 {
			return t[:len(t)-1]
		}
	case 2:
		return strings.ToUpper(t[:1]) + t[1:]
	}
	return strings.ToUpper(t)
}

func (w *fuzzWords) path(r *rand.Rand) string {
	return w.word(r, w.paths, func(p string) string { return varyPath(r, p) }, func() string {
		segs := []string{"a", "b", "src", "lib", "é", "a b", "x.ts", "*", "**", "*.ts", "?", ".hidden", "...", "A", "漢"}
		n := 1 + r.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = pickOf(r, segs)
		}
		return strings.Join(parts, "/")
	}, allowPath)
}

// varyPath returns a path near p: a sibling (p with a character added), a
// level deeper, the first segment in another case, ** made *, ./ or a
// directory before it, a final slash.
func varyPath(r *rand.Rand, p string) string {
	switch r.IntN(7) {
	case 0:
		head, rest, found := strings.Cut(p, "/")
		if found {
			return head + pickOf(r, []string{"x", "-old", "_", "."}) + "/" + rest
		}
		return p + "x"
	case 1:
		return strings.TrimSuffix(p, "/**") + "/" + pickOf(r, []string{"x", "a/b.ts", "**", "*"})
	case 2:
		return strings.ToUpper(p[:1]) + p[1:]
	case 3:
		if strings.Contains(p, "**") {
			return strings.Replace(p, "**", "*", 1)
		}
		return p + "/**"
	case 4:
		return "./" + p
	case 5:
		return pickOf(r, []string{"a/", "src/", "**/"}) + p
	}
	return p + "/"
}

func (w *fuzzWords) host(r *rand.Rand) string {
	return w.word(r, w.hosts, func(h string) string { return varyHost(r, h) }, func() string {
		if r.IntN(6) == 0 {
			return strconv.Itoa(r.IntN(256)) + "." + strconv.Itoa(r.IntN(256)) + ".0." + strconv.Itoa(1+r.IntN(254))
		}
		labels := make([]string, 1+r.IntN(3))
		for i := range labels {
			labels[i] = made(r, labelChars, labelChars, 1+r.IntN(8))
			if len(labels[i]) > 2 && r.IntN(4) == 0 {
				labels[i] = labels[i][:1] + "-" + labels[i][2:]
			}
		}
		h := strings.Join(labels, ".")
		if r.IntN(4) == 0 {
			h = "*." + h
		}
		return h
	}, fuzzHostRe.MatchString)
}

// varyHost returns a host near h: a label more or fewer, a wildcard
// added or made literal, a character added to its first label.
func varyHost(r *rand.Rand, h string) string {
	bare := strings.TrimPrefix(h, "*.")
	switch r.IntN(5) {
	case 0:
		return pickOf(r, []string{"x.", "a.b.", "www.", "a.b.c.", "api-2."}) + bare
	case 1:
		if _, rest, ok := strings.Cut(bare, "."); ok {
			return rest
		}
	case 2:
		if bare != "*" {
			return "*." + bare
		}
	case 3:
		return "x" + bare
	}
	if bare == "*" {
		return "example.com"
	}
	return bare
}

func (w *fuzzWords) command(r *rand.Rand) string {
	return w.word(r, w.commands, func(c string) string {
		switch r.IntN(3) {
		case 0:
			return strings.ToUpper(c[:1]) + c[1:]
		case 1:
			return c + pickOf(r, []string{"3", ".exe", "-dev", "_"})
		}
		return c[:max(1, len(c)-1)]
	}, func() string { return made(r, labelChars, commandRest, 1+r.IntN(10)) }, fuzzCommandRe.MatchString)
}

// narrowInput returns {"declared": M, "parent": M}: the declaration draws
// half of its entries from the parent's, or from variants of them, so that
// the two meet at the containment rules often.
func (m *fuzzMaterial) narrowInput(r *rand.Rand) []byte {
	var w *fuzzWords
	if m.load() == nil { // load first: another worker may be loading m.words
		w = m.words
	}
	if w == nil {
		w = newFuzzWords(nil)
	}
	parent, lists := fuzzManifest(r, w, true, nil)
	declared, _ := fuzzManifest(r, w, false, lists)
	return []byte(`{"declared":` + declared + `,"parent":` + parent + `}`)
}

// manifestLists are the allow lists of a manifest, by name.
type manifestLists map[string][]string

// fuzzManifest returns a manifest's text and its allow lists; a parent's
// lists are fuller and its budget is what remains of it. A declaration
// (near, its parent's lists) takes half of its entries from near, as they
// are or varied.
func fuzzManifest(r *rand.Rand, w *fuzzWords, parent bool, near manifestLists) (string, manifestLists) {
	list := func(xs []string) string { b, _ := json.Marshal(xs); return string(b) }
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	most := 3
	if parent {
		most = 5
	}
	draw := func(key string, word func(*rand.Rand) string, vary func(string) string, valid func(string) bool, n int) []string {
		out := []string{}
		for range r.IntN(n + 1) {
			if p := near[key]; len(p) > 0 && r.IntN(2) == 0 {
				e := p[r.IntN(len(p))]
				if v := vary(e); r.IntN(2) == 0 && valid(v) {
					e = v
				}
				out = append(out, e)
				continue
			}
			out = append(out, word(r))
		}
		return out
	}
	tools := draw("tools", w.tool, func(t string) string { return varyTool(r, t) }, fuzzToolRe.MatchString, most)
	if parent && len(tools) == 0 && r.IntN(4) > 0 {
		tools = []string{fuzzTools[0]}
	}
	read := draw("read_paths", w.path, func(p string) string { return varyPath(r, p) }, allowPath, most)
	// Meet at dir/**'s boundary often: a parent's src/** beside a child's
	// srcx/**, src-old/a.ts or src.
	if r.IntN(3) == 0 {
		if parent {
			read = append(read, "src/**")
		} else {
			read = append(read, pickOf(r, []string{"srcx/**", "src-old/a.ts", "src"}))
		}
	}
	write := draw("write_paths", w.path, func(p string) string { return varyPath(r, p) }, allowPath, most)
	hosts := draw("hosts", w.host, func(h string) string { return varyHost(r, h) }, fuzzHostRe.MatchString, most)
	commands := draw("commands", w.command, func(c string) string { return c }, fuzzCommandRe.MatchString, most)
	var b strings.Builder
	b.WriteString(`{"schema_version":"1.0","agent":{"name":` + str(map[bool]string{true: "parent", false: "worker"}[parent]) +
		`,"kind":` + str(fuzzKinds[r.IntN(len(fuzzKinds))]) + `,"runtime_agent":` + str(fuzzRuntimes[r.IntN(len(fuzzRuntimes))]) + `}`)
	if !parent && r.IntN(6) == 0 {
		b.WriteString(`,"parent_lease_id":"0f9b7c1e-4a2d-4c6e-9b1f-2d3e4f5a6b7c"`)
	}
	purpose := fuzzPurposes[0]
	if r.IntN(8) == 0 {
		purpose = fuzzPurposes[r.IntN(len(fuzzPurposes))]
	}
	b.WriteString(`,"intent":{"purpose":` + str(purpose) + `}`)
	b.WriteString(`,"allow":{"tools":` + list(tools) + `,"read_paths":` + list(read) + `,"write_paths":` + list(write) +
		`,"hosts":` + list(hosts) + `,"commands":` + list(commands))
	if !parent && r.IntN(6) == 0 {
		b.WriteString(`,"tool_args":{"cdf_write_artefact":{"type":"object","required":["artefact"]}}`)
	}
	b.WriteString(`}`)
	denyHosts := []string{}
	for range r.IntN(3) {
		denyHosts = append(denyHosts, w.host(r))
	}
	denyCommands := []string{}
	for range r.IntN(3) {
		denyCommands = append(denyCommands, w.command(r))
	}
	denyPaths := []string{}
	for range r.IntN(3) {
		denyPaths = append(denyPaths, fuzzDenyPaths[r.IntN(len(fuzzDenyPaths))])
	}
	b.WriteString(`,"deny":{"commands":` + list(denyCommands) + `,"paths":` + list(denyPaths) + `,"hosts":` + list(denyHosts) + `}`)
	b.WriteString(`,"budget":{`)
	var fields []string
	for _, f := range []struct {
		name string
		max  int
	}{{"tokens", 1000000}, {"steps", 500}, {"wall_clock_ms", 3600000}, {"depth", 16}, {"fan_out", 256}} {
		if r.IntN(3) == 0 {
			continue
		}
		n := r.IntN(f.max + 1)
		switch r.IntN(4) {
		case 0:
			n = r.IntN(3) // 0 exhausts depth and fan_out
		case 1:
			n = r.IntN(10)
		}
		fields = append(fields, str(f.name)+":"+strconv.Itoa(n))
	}
	if r.IntN(3) == 0 {
		fields = append(fields, `"cost_usd":`+pickOf(r, []string{"0", "0.5", "2.5", "4.5", "10", "1e1", "2.50"}))
	}
	b.WriteString(strings.Join(fields, ","))
	approvals := []string{}
	for range r.IntN(3) {
		approvals = append(approvals, fuzzApprovals[r.IntN(len(fuzzApprovals))])
	}
	b.WriteString(`},"approvals":` + list(approvals) + `}`)
	return b.String(), manifestLists{"tools": tools, "read_paths": read, "write_paths": write, "hosts": hosts, "commands": commands}
}

func pickOf(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// The schema set 1.2 patterns of the members narrowing reads.
var (
	fuzzVersionRe = lazyregexp.New(`^[0-9]+\.[0-9]+$`)
	fuzzToolRe    = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}$`)
	fuzzCommandRe = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$`)
	fuzzHostRe    = lazyregexp.New(`^(\*|(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$`)
	fuzzUUIDRe    = lazyregexp.New(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// wellFormedManifest reports whether m keeps schema set 1.2's rules for
// what narrowing reads: the required members and their types, each list
// entry's identity pattern, allow paths that do not escape (§4.4), deny
// paths that do not either (~ allowed), a purpose of 1 to 500 characters,
// budgets of non-negative numbers (integers but cost_usd; depth at most 16,
// fan_out at most 256). A shrunk input that breaks them is not a vector.
func wellFormedManifest(m canon.Value) bool {
	if m.Kind != canon.Object {
		return false
	}
	member := func(o canon.Value, k string, kind canon.Kind) (canon.Value, bool) {
		v, ok := o.Lookup(k)
		return v, ok && v.Kind == kind
	}
	strs := func(o canon.Value, k string, ok func(string) bool) bool {
		a, has := member(o, k, canon.Array)
		if !has {
			return false
		}
		for _, e := range a.Elems {
			if e.Kind != canon.String || !ok(e.Str) {
				return false
			}
		}
		return true
	}
	v, ok := member(m, "schema_version", canon.String)
	if !ok || !fuzzVersionRe.MatchString(v.Str) {
		return false
	}
	agent, ok := member(m, "agent", canon.Object)
	if !ok {
		return false
	}
	name, ok1 := member(agent, "name", canon.String)
	kind, ok2 := member(agent, "kind", canon.String)
	runtime, ok3 := member(agent, "runtime_agent", canon.String)
	if !ok1 || !ok2 || !ok3 || name.Str == "" || canon.CodePoints(name.Str) > 120 ||
		!slices.Contains(fuzzKinds, kind.Str) || !slices.Contains(fuzzRuntimes, runtime.Str) {
		return false
	}
	if p, has := m.Lookup("parent_lease_id"); has && (p.Kind != canon.String || !fuzzUUIDRe.MatchString(p.Str)) {
		return false
	}
	intent, ok := member(m, "intent", canon.Object)
	purpose, ok2 := member(intent, "purpose", canon.String)
	if !ok || !ok2 || purpose.Str == "" || canon.CodePoints(purpose.Str) > 500 {
		return false
	}
	allow, ok := member(m, "allow", canon.Object)
	if !ok || !strs(allow, "tools", fuzzToolRe.MatchString) || !strs(allow, "read_paths", allowPath) || !strs(allow, "write_paths", allowPath) ||
		!strs(allow, "hosts", fuzzHostRe.MatchString) || !strs(allow, "commands", fuzzCommandRe.MatchString) {
		return false
	}
	if ta, has := allow.Lookup("tool_args"); has && ta.Kind != canon.Object {
		return false
	}
	deny, ok := member(m, "deny", canon.Object)
	denyPath := func(p string) bool {
		return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, `\`) && !slices.Contains(strings.Split(p, "/"), "..")
	}
	if !ok || !strs(deny, "commands", fuzzCommandRe.MatchString) || !strs(deny, "paths", denyPath) || !strs(deny, "hosts", fuzzHostRe.MatchString) {
		return false
	}
	budget, ok := member(m, "budget", canon.Object)
	if !ok {
		return false
	}
	for _, f := range budget.Members {
		if f.Value.Kind != canon.Number {
			return false
		}
		n, err := strconv.ParseFloat(f.Value.Num, 64)
		if err != nil || n < 0 || f.Key != "cost_usd" && (n != float64(int64(n)) || n > 9007199254740991) ||
			f.Key == "depth" && n > 16 || f.Key == "fan_out" && n > 256 {
			return false
		}
	}
	return strs(m, "approvals", fuzzToolRe.MatchString)
}
