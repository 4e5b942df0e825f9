package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// handCalls lists the calls of a method named Call in the Go source src
// (file name for the messages): how a check calls an op by hand
// (check.Session.Call), which the engine's verifier vocabulary
// (check.Expect) does for every suite.
func handCalls(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Call" {
				out = append(out, fmt.Sprintf("%s: calls an op by hand (%s.Call): state the answer wanted with check.Expect", fset.Position(c.Pos()), exprString(sel.X)))
			}
		}
		return true
	})
	return out, nil
}

func exprString(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "…"
}

// TestSuitesCallOpsThroughExpect: no suite's code (its tests aside) calls
// an op through Session.Call; each states the op and the answer it wants
// with check.Expect, which records the evidence and the level.
func TestSuitesCallOpsThroughExpect(t *testing.T) {
	files := 0
	err := filepath.WalkDir("../../suites", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		bad, err := handCalls(path, src)
		for _, b := range bad {
			t.Error(b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 30 {
		t.Fatalf("read %d Go files under suites/: fewer than there are", files)
	}
}

// TestHandCallsFound: the scan finds a hand call, and not Expect's.
func TestHandCallsFound(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"package x\nfunc f() { r, err := s.Call(ctx, \"op\", nil); _, _ = r, err }", 1},
		{"package x\nfunc f() { o := check.Expect{Op: \"op\"}.Bytes(ctx, s, \"w\", \"v\"); _ = o }", 0},
	} {
		got, err := handCalls("x.go", []byte(tc.src))
		if err != nil || len(got) != tc.want {
			t.Errorf("%q: %d hand calls (%v), want %d", tc.src, len(got), err, tc.want)
		}
	}
}
