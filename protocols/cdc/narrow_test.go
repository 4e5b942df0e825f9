package cdc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/sharedtest"
)

// narrowVectorsPath returns the path of the narrowing vectors under
// REFEREE_SHARED, or skips.
func narrowVectorsPath(t *testing.T) string {
	t.Helper()
	dir := sharedtest.Dir(t, "the CDC narrowing vectors live in ../shared/corpora/cdc/conformance/narrowing-vectors.json")
	return filepath.Join(dir, "corpora", "cdc", "conformance", "narrowing-vectors.json")
}

// narrowParse parses JSON text or fails the test.
func narrowParse(t *testing.T, text string) canon.Value {
	t.Helper()
	v, err := canon.Parse([]byte(text), canon.ReadOptions{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return v
}

// narrowCanonical returns the RFC 8785 bytes of v or fails the test.
func narrowCanonical(t *testing.T, v canon.Value) string {
	t.Helper()
	b, err := canon.JCS.Append(nil, v)
	if err != nil {
		t.Fatalf("canonicalise: %v", err)
	}
	return string(b)
}

// narrowCodeSet is the runner's comparison form of a refusal list,
// [...new Set(x)].sort().
func narrowCodeSet(codes []string) []string {
	out := slices.Clone(codes)
	slices.Sort(out)
	return slices.Compact(out)
}

// narrowCheck runs Narrow and compares it with want: the refusal codes when
// wantCodes is non-nil, else the grant by canonical bytes.
func narrowCheck(t *testing.T, declared, parent canon.Value, wantGrant canon.Value, wantCodes []string) {
	t.Helper()
	got, codes := Narrow(declared, parent)
	if wantCodes != nil {
		if !slices.Equal(codes, narrowCodeSet(codes)) {
			t.Errorf("refusals %q are not sorted and deduplicated", codes)
		}
		if !slices.Equal(narrowCodeSet(codes), narrowCodeSet(wantCodes)) {
			t.Errorf("refusals = %q, want %q", codes, narrowCodeSet(wantCodes))
		}
		if len(codes) > 0 && !canon.Equal(got, canon.Value{}) {
			t.Errorf("refused, but granted is %s, want the zero Value", got)
		}
		return
	}
	if codes != nil {
		t.Fatalf("refused %q, want a grant %s", codes, narrowCanonical(t, wantGrant))
	}
	if g, w := narrowCanonical(t, got), narrowCanonical(t, wantGrant); g != w {
		t.Errorf("granted manifest differs\n got  %s\n want %s", g, w)
	}
}

// TestNarrowVectors runs every vector of the published corpus the way the
// conformance runner does, and also the schema_invalid ones, which the
// reference refuses again in narrowing for a validator that was bypassed.
func TestNarrowVectors(t *testing.T) {
	data, err := os.ReadFile(narrowVectorsPath(t))
	if err != nil {
		t.Fatal(err)
	}
	doc := narrowParse(t, string(data))
	vs, ok := narrowMember(doc, "vectors")
	if !ok || vs.Kind != canon.Array {
		t.Fatal("narrowing-vectors.json has no vectors array")
	}
	if n := len(vs.Elems); n != 28 {
		t.Errorf("%d vectors, want the 28 of the pinned corpus", n)
	}
	passed := 0
	for i, v := range vs.Elems {
		name, _ := narrowString(v, "name")
		if name == "" {
			t.Fatalf("vector %d has no name", i)
		}
		ok := t.Run(name, func(t *testing.T) {
			declared, dok := narrowMember(v, "declared")
			parent, pok := narrowMember(v, "parent")
			if !dok || !pok {
				t.Fatal("vector lacks declared or parent")
			}
			granted, gok := narrowMember(v, "granted")
			refusals, rok := narrowMember(v, "refusals")
			if gok == rok {
				t.Fatal("vector carries exactly one of granted or refusals")
			}
			if invalid, _ := narrowMember(v, "schema_invalid"); invalid.Kind == canon.Bool && invalid.Bool && !rok {
				t.Fatal("schema_invalid vector without refusals")
			}
			var want []string
			if rok {
				want = []string{}
				for _, e := range refusals.Elems {
					want = append(want, e.Str)
				}
			}
			narrowCheck(t, declared, parent, granted, want)
		})
		if ok {
			passed++
		}
	}
	t.Logf("narrowing vectors: %d/%d pass", passed, len(vs.Elems))
}

// TestNarrowPathContains covers §5.1's path rows.
func TestNarrowPathContains(t *testing.T) {
	tests := []struct {
		parent, child string
		want          bool
	}{
		{"**", "src/a.ts", true},
		{"**", "src/**", true},
		{"**", "lib/*.ts", true},
		{"**", "README.md", true},
		{"**", "**", true},
		{"src/**", "src", true},
		{"src/**", "src/a.ts", true},
		{"src/**", "src/sub/**", true},
		{"src/**", "src/*.ts", true},
		{"src/**", "src/**", true},
		{"src/**", "src/deep/er/x.go", true},
		{"src/**", "srcx", false},
		{"src/**", "srcx/a.ts", false},
		{"src/**", "lib/**", false},
		{"src/**", "**", false},
		{"src/**", "./src/a.ts", false},
		{"a/b/**", "a/b/c", true},
		{"a/b/**", "a", false},
		{"a/b/**", "a/**", false},
		{"README.md", "README.md", true},
		{"README.md", "README.md.bak", false},
		{"README.md", "readme.md", false},
		{"src/a.ts", "src/a.ts/x", false},
		{"src/*.ts", "src/*.ts", true},
		{"src/*.ts", "src/a.ts", false},
		{"src/*.ts", "src/*.tsx", false},
		{"src/**/*.ts", "src/a.ts", false},
		{"src/**/*.ts", "src/**/*.ts", true},
		{"*", "a.ts", false},
	}
	for _, tt := range tests {
		if got := narrowPathContains(tt.parent, tt.child); got != tt.want {
			t.Errorf("narrowPathContains(%q, %q) = %v, want %v", tt.parent, tt.child, got, tt.want)
		}
	}
}

// TestNarrowHostContains covers §5.1's host rule and §4.4's wildcard label.
func TestNarrowHostContains(t *testing.T) {
	tests := []struct {
		parent, child string
		want          bool
	}{
		{"*", "example.com", true},
		{"*", "api.example.com", true},
		{"*", "*.example.com", true},
		{"*", "*", true},
		{"*", "127.0.0.1", true},
		{"*.x.com", "api.x.com", true},
		{"*.x.com", "API.X.com", true},
		{"*.x.com", "*.x.com", true},
		{"*.x.com", "x.com", false},
		{"*.x.com", "apix.com", false},
		{"*.x.com", "api.x.com.evil", false},
		{"*.x.com", "api.y.com", false},
		{"*.x.com", "*", false},
		// Conservative: one label below the wildcard only.
		{"*.x.com", "a.b.x.com", false},
		{"*.x.com", "*.api.x.com", false},
		{"x.com", "x.com", true},
		{"x.com", "X.COM", true},
		{"x.com", "api.x.com", false},
		{"x.com", "*.x.com", false},
		{"localhost", "localhost", true},
	}
	for _, tt := range tests {
		if got := narrowHostContains(tt.parent, tt.child); got != tt.want {
			t.Errorf("narrowHostContains(%q, %q) = %v, want %v", tt.parent, tt.child, got, tt.want)
		}
	}
}

// TestNarrowPathEscapes covers the five refused allow-path forms of §4.4.
func TestNarrowPathEscapes(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/etc/passwd", true},
		{"../x", true},
		{"src/../x", true},
		{"a/..", true},
		{"..", true},
		{"~/x", true},
		{"~", true},
		{"C:/Users/x", true},
		{"c:x", true},
		{`..\x`, true},
		{`src\a.ts`, true},
		{"src/**", false},
		{"./x", false},
		{"src/./x", false},
		{"%2e%2e/x", false},
		{"a..b/x", false},
		{"...", false},
		{"src/~x", false},
		{"1:x", false},
	}
	for _, tt := range tests {
		if got := PathEscapes(tt.path); got != tt.want {
			t.Errorf("PathEscapes(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// narrowBase is a schema-valid declaration the hand-written cases edit.
const narrowBase = `{"schema_version":"1.0",
 "agent":{"name":"worker","kind":"delegated-cli","runtime_agent":"claude-code"},
 "intent":{"purpose":"Implement task 1.1."},
 "allow":{"tools":["t1"],"read_paths":["src/**"],"write_paths":["src/**"],"hosts":[],"commands":[]},
 "deny":{"commands":[],"paths":[],"hosts":[]},
 "budget":{},"approvals":[]}`

// narrowParent is the parent the hand-written cases narrow against.
const narrowParent = `{"schema_version":"1.0",
 "agent":{"name":"parent","kind":"native","runtime_agent":"cdf-native"},
 "intent":{"purpose":"Parent."},
 "allow":{"tools":["t1","t2"],"read_paths":["**"],"write_paths":["src/**"],"hosts":["*.x.com"],"commands":["node"]},
 "deny":{"commands":["sudo"],"paths":[".env"],"hosts":["Evil.example"]},
 "budget":{"tokens":200000,"depth":2,"fan_out":4},"approvals":["phase.advance"]}`

// TestNarrowCases covers rules and combinations the vectors leave open.
func TestNarrowCases(t *testing.T) {
	grant := func(allow, deny, budget, approvals string) string {
		return `{"schema_version":"1.0",
 "agent":{"name":"worker","kind":"delegated-cli","runtime_agent":"claude-code"},
 "intent":{"purpose":"Implement task 1.1."},
 "allow":` + allow + `,"deny":` + deny + `,"budget":` + budget + `,"approvals":` + approvals + `}`
	}
	const allowDefault = `{"tools":["t1"],"read_paths":["src/**"],"write_paths":["src/**"],"hosts":[],"commands":[]}`
	const denyDefault = `{"commands":["sudo"],"paths":[".env"],"hosts":["Evil.example"]}`
	tests := []struct {
		name     string
		declared string
		parent   string
		edit     [][2]string // replacements applied to declared
		granted  string
		refusals []string
	}{
		{
			name:    "plain grant inherits budget and denies",
			granted: grant(allowDefault, denyDefault, `{"tokens":200000,"depth":1,"fan_out":4}`, `["phase.advance"]`),
		},
		{
			name: "root policy without ceilings leaves declared budget and omits absent fields",
			parent: strings.Replace(narrowParent, `"budget":{"tokens":200000,"depth":2,"fan_out":4}`,
				`"budget":{}`, 1),
			edit:    [][2]string{{`"budget":{}`, `"budget":{"tokens":1e6,"cost_usd":2.50}`}},
			granted: grant(allowDefault, denyDefault, `{"tokens":1000000,"cost_usd":2.5}`, `["phase.advance"]`),
		},
		{
			name:    "fractional cost is min'd and written in ES form",
			parent:  strings.Replace(narrowParent, `"tokens":200000`, `"tokens":200000,"cost_usd":0.50`, 1),
			edit:    [][2]string{{`"budget":{}`, `"budget":{"cost_usd":1E0,"wall_clock_ms":60000}`}},
			granted: grant(allowDefault, denyDefault, `{"cost_usd":0.5,"wall_clock_ms":60000,"tokens":200000,"depth":1,"fan_out":4}`, `["phase.advance"]`),
		},
		{
			name: "deny union dedups, hosts compared lower-case, unknown deny lists united",
			edit: [][2]string{{`"deny":{"commands":[],"paths":[],"hosts":[]}`,
				`"deny":{"commands":["sudo","rm","rm"],"paths":[],"hosts":["evil.example"],"tools":["t9"]}`},
				{`"approvals":[]`, `"approvals":["phase.advance","x.y"]`}},
			granted: grant(allowDefault, `{"commands":["sudo","rm"],"paths":[".env"],"hosts":["evil.example"],"tools":["t9"]}`,
				`{"tokens":200000,"depth":1,"fan_out":4}`, `["phase.advance","x.y"]`),
		},
		{
			name: "unknown allow and top-level members are not carried into the grant",
			edit: [][2]string{{`"commands":[]}`, `"commands":[],"future":["x"]}`},
				{`"budget":{}`, `"budget":{},"newer_field":true`}},
			granted: grant(allowDefault, denyDefault, `{"tokens":200000,"depth":1,"fan_out":4}`, `["phase.advance"]`),
		},
		{
			name: "declared order kept, hosts by containment",
			edit: [][2]string{{`"tools":["t1"]`, `"tools":["t2","t3","t1"]`},
				{`"hosts":[]`, `"hosts":["b.x.com","x.com","a.x.com"]`},
				{`"commands":[]`, `"commands":["node","git"]`}},
			granted: grant(`{"tools":["t2","t1"],"read_paths":["src/**"],"write_paths":["src/**"],"hosts":["b.x.com","a.x.com"],"commands":["node"]}`,
				denyDefault, `{"tokens":200000,"depth":1,"fan_out":4}`, `["phase.advance"]`),
		},
		{
			name:     "backslash path refuses",
			edit:     [][2]string{{`"write_paths":["src/**"]`, `"write_paths":["src\\a.ts"]`}},
			refusals: []string{"R3"},
		},
		{
			name:     "drive letter refuses even though the parent ** would contain it",
			edit:     [][2]string{{`"read_paths":["src/**"]`, `"read_paths":["C:/x"]`}},
			refusals: []string{"R3"},
		},
		{
			name:     "home-relative deny path is not R3",
			edit:     [][2]string{{`"paths":[]`, `"paths":["~/.ssh/**"]`}},
			granted:  grant(allowDefault, `{"commands":["sudo"],"paths":["~/.ssh/**",".env"],"hosts":["Evil.example"]}`, `{"tokens":200000,"depth":1,"fan_out":4}`, `["phase.advance"]`),
			refusals: nil,
		},
		{
			name:     "absent purpose",
			edit:     [][2]string{{`"purpose":"Implement task 1.1."`, `"task_id":"1.1"`}},
			refusals: []string{"R1"},
		},
		{
			name:     "non-breaking and ideographic space purpose is empty",
			edit:     [][2]string{{`"purpose":"Implement task 1.1."`, `"purpose":"\u00a0\u3000\t"`}},
			refusals: []string{"R1"},
		},
		{
			name: "every code at once, each once",
			parent: strings.Replace(narrowParent, `"budget":{"tokens":200000,"depth":2,"fan_out":4}`,
				`"budget":{"depth":0,"fan_out":0}`, 1),
			edit: [][2]string{{`"purpose":"Implement task 1.1."`, `"purpose":""`},
				{`"tools":["t1"]`, `"tools":["t9"]`},
				{`"read_paths":["src/**"]`, `"read_paths":["/etc","../x"]`},
				{`"runtime_agent":"claude-code"`, `"runtime_agent":"unknown"`}},
			refusals: []string{"R1", "R2", "R3", "R4", "R5", "R6"},
		},
		{
			name:     "unknown is refused for native",
			edit:     [][2]string{{`"kind":"delegated-cli","runtime_agent":"claude-code"`, `"kind":"native","runtime_agent":"unknown"`}},
			refusals: []string{"R4"},
		},
		{
			name:     "a parent that is not a manifest grants nothing",
			parent:   `null`,
			refusals: []string{"R2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			declared := narrowBase
			for _, e := range tt.edit {
				if !strings.Contains(declared, e[0]) {
					t.Fatalf("edit %q matches nothing", e[0])
				}
				declared = strings.Replace(declared, e[0], e[1], 1)
			}
			parent := tt.parent
			if parent == "" {
				parent = narrowParent
			}
			var want canon.Value
			if tt.refusals == nil {
				want = narrowParse(t, tt.granted)
			}
			narrowCheck(t, narrowParse(t, declared), narrowParse(t, parent), want, tt.refusals)
		})
	}
}

// TestNarrowDoesNotAlias checks that editing a grant leaves the declaration
// as it was.
func TestNarrowDoesNotAlias(t *testing.T) {
	declared := narrowParse(t, narrowBase)
	before := narrowCanonical(t, declared)
	g, codes := Narrow(declared, narrowParse(t, narrowParent))
	if codes != nil {
		t.Fatalf("refused %q", codes)
	}
	agent, _ := narrowMember(g, "agent")
	agent.Members[0].Value.Str = "edited"
	if after := narrowCanonical(t, declared); after != before {
		t.Errorf("declaration changed through the grant:\n before %s\n after  %s", before, after)
	}
}
