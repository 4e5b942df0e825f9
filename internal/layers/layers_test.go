package layers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/refereehq/referee"

// aboveSuites are the packages a suite never imports: the run pipeline,
// the reports, the engine's top (fuzz, matrix, merge) and the CLI. What a
// suite needs of them lives in a package below (internal/shell,
// internal/paint, jsongen), or the engine does it for the suite.
var aboveSuites = []string{"run", "report", "fuzz", "matrix", "merge", "internal/cli"}

// protocolsMay are the only packages of the module a package under
// protocols/ may import: canon and frame, the other protocols, and the
// internal leaf packages (internal/cli, which is not one, excepted). The
// engine (adapter, check, corpus, run, report, fuzz, matrix, merge), the
// suites and their helpers are above a protocol: it is a library of its
// own, which the suites offer as their built-in implementation.
func protocolsMay(p string) bool {
	switch {
	case p == "canon", p == "frame", strings.HasPrefix(p, "protocols/"):
		return true
	case p == "internal/cli" || strings.HasPrefix(p, "internal/cli/"):
		return false
	case strings.HasPrefix(p, "internal/"):
		return true
	}
	return false
}

// pkg is what `go list -json` says of a package, as far as this test needs.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listModule returns every package of the module, with its imports and
// its dependencies (test files not counted: a suite's test may drive it
// through the engine's top).
func listModule(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages of %s: not the module", len(pkgs), module)
	}
	return pkgs
}

// local returns p without the module's prefix, and whether p is the
// module's.
func local(p string) (string, bool) {
	if p == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(p, module+"/")
	return rest, ok
}

// violations lists the imports that break the layering, one line each,
// naming the importing package and the import.
func violations(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		self, ok := local(p.ImportPath)
		if !ok {
			continue
		}
		switch {
		case self == "suites" || strings.HasPrefix(self, "suites/"):
			for _, imp := range p.Imports {
				dep, ok := local(imp)
				if ok && slices.ContainsFunc(aboveSuites, func(a string) bool { return dep == a || strings.HasPrefix(dep, a+"/") }) {
					bad = append(bad, fmt.Sprintf("%s imports %s: a suite sits below the run pipeline, the reports and the engine's top", self, dep))
				}
			}
		case strings.HasPrefix(self, "protocols/"):
			for _, imp := range p.Deps {
				dep, ok := local(imp)
				if ok && !protocolsMay(dep) {
					bad = append(bad, fmt.Sprintf("%s depends on %s: a protocol depends only on canon, frame, other protocols and internal leaf packages", self, dep))
				}
			}
		}
	}
	return bad
}

// TestLayering holds the module to its layering: nothing under suites/
// imports the run pipeline, the reports, fuzz, matrix, merge or the CLI,
// and nothing under protocols/ depends on the engine or the suites.
func TestLayering(t *testing.T) {
	pkgs := listModule(t)
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
	// The test sees what it guards: the suites and the protocols.
	var suites, protocols int
	for _, p := range pkgs {
		self, _ := local(p.ImportPath)
		switch {
		case strings.HasPrefix(self, "suites/"):
			suites++
		case strings.HasPrefix(self, "protocols/"):
			protocols++
		}
	}
	if suites < 6 || protocols < 4 {
		t.Errorf("go list listed %d packages under suites/ and %d under protocols/: fewer than there are", suites, protocols)
	}
}

// TestViolationsNamed: each kind of broken arrow is found and named, and
// the allowed ones are not.
func TestViolationsNamed(t *testing.T) {
	m := func(s string) string { return module + "/" + s }
	for _, tc := range []struct {
		name string
		p    pkg
		want string // "" for none
	}{
		{"suite imports run", pkg{ImportPath: m("suites/jcs"), Imports: []string{m("check"), m("run")}}, "suites/jcs imports run"},
		{"suite imports report", pkg{ImportPath: m("suites/cgplive"), Imports: []string{m("report")}}, "suites/cgplive imports report"},
		{"suite imports fuzz", pkg{ImportPath: m("suites/cdc"), Imports: []string{m("fuzz")}}, "suites/cdc imports fuzz"},
		{"registry imports the CLI", pkg{ImportPath: m("suites"), Imports: []string{m("internal/cli")}}, "suites imports internal/cli"},
		{"suite generator imports merge", pkg{ImportPath: m("suites/jcs/gen"), Imports: []string{m("merge")}}, "suites/jcs/gen imports merge"},
		{"suite imports the engine", pkg{ImportPath: m("suites/jcs"), Imports: []string{m("check"), m("corpus"), m("adapter"), m("jsongen"), m("internal/paint")}}, ""},
		{"protocol depends on adapter", pkg{ImportPath: m("protocols/cdc"), Deps: []string{m("canon"), m("adapter")}}, "protocols/cdc depends on adapter"},
		{"protocol depends on check", pkg{ImportPath: m("protocols/cgp/host"), Deps: []string{m("check")}}, "protocols/cgp/host depends on check"},
		{"protocol depends on a suite", pkg{ImportPath: m("protocols/crosslink"), Deps: []string{m("suites/crosslink")}}, "protocols/crosslink depends on suites/crosslink"},
		{"protocol depends on the CLI", pkg{ImportPath: m("protocols/fablepool"), Deps: []string{m("internal/cli")}}, "protocols/fablepool depends on internal/cli"},
		{"protocol on its own floor", pkg{ImportPath: m("protocols/cgp/composer"), Deps: []string{m("canon"), m("frame"), m("protocols/cgp"), m("internal/child"), "fmt"}}, ""},
		{"engine above the suites", pkg{ImportPath: m("fuzz"), Imports: []string{m("run"), m("report")}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := violations([]pkg{tc.p})
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("violations = %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want+":")):
				t.Errorf("violations = %q, want one starting %q", got, tc.want)
			}
		})
	}
}
