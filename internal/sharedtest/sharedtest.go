// Package sharedtest locates the shared corpora (../shared, named by
// REFEREE_SHARED) for tests, which skip with a clear message without them.
package sharedtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Var is the environment variable that names the shared directory.
const Var = "REFEREE_SHARED"

// Lookup returns the shared directory and whether REFEREE_SHARED names one.
// A relative path is read from the module's root, where the README's
// `REFEREE_SHARED=../shared go test ./...` runs, and else from the package
// directory the test runs in.
func Lookup() (string, bool) {
	dir := os.Getenv(Var)
	if dir == "" {
		return "", false
	}
	if filepath.IsAbs(dir) {
		return dir, true
	}
	if root, ok := moduleRoot(); ok {
		if p := filepath.Join(root, dir); hasCorpora(p) {
			return p, true
		}
	}
	return dir, true
}

// moduleRoot is the nearest directory above the working directory that
// holds go.mod.
func moduleRoot() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

func hasCorpora(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "corpora"))
	return err == nil && st.IsDir()
}

// Dir returns the shared directory, skipping t when REFEREE_SHARED is unset
// (what says what the test needs from it) and failing it when the directory
// has no corpora.
func Dir(t testing.TB, what string) string {
	t.Helper()
	dir, ok := Lookup()
	if !ok {
		t.Skipf("%s not set: %s; set it to the directory holding corpora/ (the shared corpora: README.md, section Corpora)", Var, what)
	}
	if !hasCorpora(dir) {
		t.Fatalf("%s=%s has no corpora directory (a relative path is read from the module root)", Var, os.Getenv(Var))
	}
	return dir
}

// CDCCorpora returns embedded, the directory of referee's embedded CDC
// corpus, and, when the shared directory is set, every CDC corpus under
// its corpora/cdc (a folder holding schemas/*.schema.json); it fails the
// test when that holds none, and says so in the log when the shared
// directory is not set.
func CDCCorpora(t testing.TB, embedded string) []string {
	t.Helper()
	dirs := []string{embedded}
	if _, ok := Lookup(); !ok {
		t.Logf("%s not set: the embedded CDC corpus only; set it to the directory holding corpora/ for the shared CDC corpora too", Var)
		return dirs
	}
	root := filepath.Join(Dir(t, "the shared CDC corpora"), "corpora", "cdc")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if m, _ := filepath.Glob(filepath.Join(p, "schemas", "*.schema.json")); len(m) > 0 {
				dirs = append(dirs, p)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 1 {
		t.Fatalf("no CDC corpus (a folder with schemas/*.schema.json) under %s", root)
	}
	return dirs
}
