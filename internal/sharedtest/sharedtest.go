// Package sharedtest locates the shared corpora (../shared, named by
// REFEREE_SHARED) for tests, which skip with a clear message without them.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Var is the environment variable that names the shared directory.
const Var = "REFEREE_SHARED"

// Lookup returns the shared directory and whether REFEREE_SHARED names one.
// A relative path is tried from the package directory, then from its parent.
func Lookup() (string, bool) {
	dir := os.Getenv(Var)
	if dir == "" {
		return "", false
	}
	if !filepath.IsAbs(dir) {
		if _, err := os.Stat(dir); err != nil {
			if _, err := os.Stat(filepath.Join("..", dir)); err == nil {
				dir = filepath.Join("..", dir)
			}
		}
	}
	return dir, true
}

// Dir returns the shared directory, skipping t when REFEREE_SHARED is unset
// (what says what the test needs from it) and failing it when the directory
// has no corpora.
func Dir(t testing.TB, what string) string {
	t.Helper()
	dir, ok := Lookup()
	if !ok {
		t.Skipf("%s not set: %s; run with %s=../shared", Var, what, Var)
	}
	if _, err := os.Stat(filepath.Join(dir, "corpora")); err != nil {
		t.Fatalf("%s=%s has no corpora directory: %v", Var, os.Getenv(Var), err)
	}
	return dir
}
