package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRelativeToModuleRoot: a relative REFEREE_SHARED is read from the
// module root, wherever the package's test runs.
func TestRelativeToModuleRoot(t *testing.T) {
	root, ok := moduleRoot()
	if !ok {
		t.Fatal("no go.mod above the test's directory")
	}
	shared := t.TempDir()
	if err := os.Mkdir(filepath.Join(shared, "corpora"), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, shared)
	if err != nil {
		t.Skipf("the temporary directory cannot be named relative to %s: %v", root, err)
	}
	t.Setenv(Var, rel)
	got, ok := Lookup()
	if !ok || got != filepath.Join(root, rel) {
		t.Errorf("Lookup() = %q, %v; want %q", got, ok, filepath.Join(root, rel))
	}
	if d := Dir(t, "a test"); d != got {
		t.Errorf("Dir = %q", d)
	}
	t.Setenv(Var, "")
	if _, ok := Lookup(); ok {
		t.Error("an empty variable names a directory")
	}
}
